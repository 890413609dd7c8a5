"""Numbered ledger schema changes. Only ever add a new one; never edit an applied one."""

from __future__ import annotations

M001_INITIAL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- How far each transcript file has been read. `head` fingerprints its first bytes so a
-- rewritten file (compacted, replaced) is noticed even when it grew.
CREATE TABLE files (
  path TEXT PRIMARY KEY,
  session TEXT NOT NULL,
  offset INTEGER NOT NULL DEFAULT 0,
  lines INTEGER NOT NULL DEFAULT 0,
  head TEXT NOT NULL DEFAULT '',
  head_len INTEGER NOT NULL DEFAULT 0,
  open_end INTEGER NOT NULL DEFAULT 0   -- the last line read had no newline yet
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  parent TEXT,                  -- for subagent transcripts: the session that spawned them
  cwd TEXT,
  title TEXT,
  first_ts TEXT,
  last_ts TEXT,
  sidechain INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 0   -- bumped on every change; rooms re-derive on a new version
);

-- AUTOINCREMENT: ids never come back, so "index the turns stored after id N" stays right
-- when a rewrite deletes a session's turns and stores them again.
CREATE TABLE turns (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ts TEXT,
  role TEXT NOT NULL,
  by TEXT NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  sidechain INTEGER NOT NULL DEFAULT 0,
  msg TEXT,
  UNIQUE (session, seq)
);
CREATE INDEX turns_msg ON turns (session, msg);

-- Search covers what was said (the person's and the assistant's text). Tool output and
-- program text are stored, not indexed: they are most of the bytes and little of the memory.
-- Ingest indexes new turns in bulk (Ledger.index_turns); deletes keep the index in step.
CREATE VIRTUAL TABLE turns_fts USING fts5 (text, content='turns', content_rowid='id');
CREATE TRIGGER turns_ad AFTER DELETE ON turns
WHEN old.by IN ('person', 'agent') AND old.kind = 'text' BEGIN
  INSERT INTO turns_fts (turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

-- What the extraction rules found in each turn. Recomputed from turns when the rules change
-- (meta.extract_version), so it is a cache of turns, never a source of truth of its own.
CREATE TABLE mentions (
  session TEXT NOT NULL,
  seq INTEGER NOT NULL,
  rule TEXT NOT NULL,
  subject TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  rel TEXT NOT NULL,
  object TEXT NOT NULL,
  object_kind TEXT NOT NULL,
  quote TEXT NOT NULL,
  ts TEXT
);
CREATE INDEX mentions_session ON mentions (session, seq);

CREATE TABLE projects (
  slug TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  org TEXT
);
CREATE TABLE project_folders (
  slug TEXT NOT NULL REFERENCES projects (slug) ON DELETE CASCADE,
  folder TEXT NOT NULL,
  PRIMARY KEY (slug, folder)
);
CREATE TABLE picks (
  slug TEXT NOT NULL REFERENCES projects (slug) ON DELETE CASCADE,
  session TEXT NOT NULL,
  PRIMARY KEY (slug, session)
);
"""

M002_CORRECTIONS = """
-- What the user said about memory: corrections, pins, mutes, merges and splits. Derive
-- applies the active rows after the votes; undo marks a row undone, so undoing everything
-- gives back exactly the graph from before.
CREATE TABLE memory_corrections (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,            -- correct | pin | mute | merge | split
  action TEXT,                   -- correct: wrong | ended | replace | confirm | add
  scope TEXT NOT NULL,           -- '*' (everywhere) or one room
  subject TEXT NOT NULL,         -- an entity id
  subject_label TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  rel TEXT,
  object TEXT,                   -- an entity id (merge: the node merged in)
  object_label TEXT,
  object_kind TEXT,
  value TEXT,                    -- replace: the new object's label
  at TEXT,                       -- ended, replace: when it stopped being true
  note TEXT,
  created TEXT NOT NULL,
  undone TEXT,
  prior_source TEXT,
  prior_rule TEXT,
  prior_confidence REAL
);

-- Events for the learning loop: ids, counts and kinds only, never labels or quotes.
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL
);
"""

M003_TOOL_EVENTS = """
-- What Claude Code did, as its hooks report it, for the learning loop: the tool, a fingerprint
-- of the command's shape and whether it worked. Never file contents or command output.
CREATE TABLE tool_events (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  session TEXT,
  event TEXT NOT NULL,          -- PreToolUse | PostToolUse | PostToolUseFailure | Stop | ...
  tool TEXT,
  shape TEXT,                   -- a fingerprint of the command shape (program + subcommand)
  ok INTEGER                    -- 1 success, 0 failure, NULL not known yet
);
CREATE INDEX tool_events_session ON tool_events (session, id);
"""

M005_GRAPH_ROOMS = """
-- What the graph holds for each room, written each time a derive has written a room's graph
-- file: the digest of the room's inputs, how many fact and evidence rows it wrote, and the
-- file's identity (size:mtime). The graph is derived: a room whose file does not match
-- this row (changed, missing, lost rows) is derived again, never trusted. Not the user's
-- data: an empty table only means "derive every room".
CREATE TABLE graph_rooms (
  room TEXT PRIMARY KEY,
  digest TEXT NOT NULL,
  facts INTEGER NOT NULL,
  evidence INTEGER NOT NULL,
  stamp TEXT NOT NULL
);
"""

M008_ASK = """
-- What the person told memory about their life themselves (`vyre memory remember`): the
-- highest trust of all. Undo marks a row undone; nothing is deleted.
CREATE TABLE remembered (
  id INTEGER PRIMARY KEY,
  who TEXT NOT NULL,             -- the relation ("wife"), '' for the person themself
  attr TEXT NOT NULL,            -- name | birthday | lives_in | from | works_at
  value TEXT NOT NULL,
  at TEXT,
  text TEXT NOT NULL,            -- what they wrote
  caller TEXT NOT NULL,
  created TEXT NOT NULL,
  undone TEXT
);

-- Answers `memory ask` gave, by answer id (a hash of the question, its scope and the answer),
-- so that a correction can name the answer it corrects.
CREATE TABLE answers (
  id TEXT PRIMARY KEY,
  question TEXT NOT NULL,
  qkey TEXT NOT NULL,            -- the question folded: the same question asked again
  room TEXT NOT NULL,
  kind TEXT NOT NULL,            -- who | date | personal | ... (for counts by kind)
  answer TEXT NOT NULL,
  via TEXT,
  sources TEXT NOT NULL,         -- JSON [[session, seq], ...]
  created TEXT NOT NULL
);

-- The person's corrections of answers: replace (their answer), wrong (never this answer to
-- this question again), forget (the turns it cited never ground an answer again).
CREATE TABLE answer_fixes (
  id INTEGER PRIMARY KEY,
  answer TEXT NOT NULL,          -- the answer id corrected
  qkey TEXT NOT NULL,
  room TEXT NOT NULL,
  kind TEXT NOT NULL,
  action TEXT NOT NULL,          -- replace | wrong | forget
  object TEXT,                   -- replace: the right answer, in the person's words
  wrong TEXT,                    -- wrong: the answer text that was wrong
  sources TEXT NOT NULL,         -- forget: JSON [[session, seq], ...] never to ground again
  remembered INTEGER,            -- replace of a personal answer: the row told to memory
  caller TEXT NOT NULL,
  created TEXT NOT NULL,
  undone TEXT
);
CREATE INDEX answer_fixes_q ON answer_fixes (qkey, room);
"""

M009_LEARN = """
-- The learning loop (ADR 0007 sections 6 to 11). A lesson is the user's sentence, the check
-- it became and how hard it is enforced. The sentence is the one piece of text kept: every
-- surface must show the user what they agreed to.
CREATE TABLE lessons (
  id INTEGER PRIMARY KEY,
  sentence TEXT NOT NULL,
  check_json TEXT NOT NULL,
  key TEXT NOT NULL,                 -- fingerprint of the check: repeats are counted by it
  level TEXT NOT NULL,               -- remind | ask | block
  max_level TEXT NOT NULL DEFAULT 'block',
  pinned INTEGER NOT NULL DEFAULT 0, -- no automatic change (escalation, dormancy)
  scope TEXT NOT NULL,               -- all | project:SLUG | agent:ID
  status TEXT NOT NULL,              -- proposed | active | dormant | retired | declined
  source TEXT NOT NULL,              -- prompt | cli | mcp | inferred | model
  session TEXT,                      -- the thread a proposal was told in (accept by reply)
  told_seq INTEGER,                  -- the prompt count in that thread when it was told
  created TEXT NOT NULL,
  accepted TEXT,
  retired TEXT,
  first_signal TEXT,                 -- the earliest signal with this key: "before" starts there
  demotion TEXT                      -- a proposed lower level, for the user to decide
);
CREATE INDEX lessons_key ON lessons (key);

-- Signals: what happened that the loop learns from. `meta` holds counts and kinds only.
CREATE TABLE learn_signals (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  kind TEXT NOT NULL,
  session TEXT,
  seq INTEGER,
  project TEXT,
  agent TEXT,
  key TEXT NOT NULL,
  lesson INTEGER,
  meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX learn_signals_key ON learn_signals (key, ts);

-- Sentences no check shape fits, waiting for a distiller or for the user to write by hand.
CREATE TABLE learn_jobs (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  key TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  session TEXT,
  project TEXT,
  status TEXT NOT NULL DEFAULT 'waiting'   -- waiting | proposed | dropped
);

-- What each tool call of a session did, as the loop needs it (kept 7 days): which lessons'
-- owed commands it ran, which lessons' files it changed, Vyre's decision, file hashes.
CREATE TABLE learn_commands (
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  session TEXT NOT NULL,
  turn INTEGER NOT NULL DEFAULT 0,
  event TEXT NOT NULL,          -- PreToolUse | PostToolUse | PostToolUseFailure | Stop | prompt
  tool TEXT,
  call TEXT,                    -- Claude Code's tool_use_id
  key TEXT,                     -- fingerprint of the command shape
  ran TEXT NOT NULL DEFAULT '', -- ids of lessons whose owed command this ran, ",1,7,"
  changed TEXT NOT NULL DEFAULT '',  -- ids of lessons whose watched files this changed
  decision TEXT,                -- deny | ask | remind | guard | sendback
  lesson INTEGER,
  ok INTEGER,
  path TEXT,                    -- a file Claude wrote (for reverted/rewritten), kept 7 days
  before_hash TEXT,
  after_hash TEXT
);
CREATE INDEX learn_commands_session ON learn_commands (session, id);

-- Per-day counts for "does a lesson work?", computed into verdicts when read.
CREATE TABLE learn_days (
  day TEXT NOT NULL,
  project TEXT NOT NULL,        -- a project slug, or '' outside every project
  turns INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, project)
);
CREATE TABLE learn_lesson_days (
  day TEXT NOT NULL,
  lesson INTEGER NOT NULL,
  applied INTEGER NOT NULL DEFAULT 0,
  caught INTEGER NOT NULL DEFAULT 0,
  broken INTEGER NOT NULL DEFAULT 0,
  repeats INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, lesson)
);
"""

M010_DECK_PASSKEYS = """
-- Passkeys the user registered with the Deck (public keys only): the Deck asks for one
-- before it loosens a lesson. Rows only the user writes.
CREATE TABLE deck_passkeys (
  credential BLOB PRIMARY KEY,
  public_key BLOB NOT NULL,
  sign_count INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL
);
"""

M007_RECALL = """
-- Recall's search index (vyre/ledger/search.py): FTS5 with a stemming tokenizer over what the
-- person and the assistant said in main sessions.

-- One row per session with searched turns: its number (the high bits of its documents'
-- rowids), the scope tokens its documents carry, how many it has, whether they must be
-- written again (a turn of it was deleted or changed), and when it last changed (the index
-- mark then), so readers refresh what they keep of it.
CREATE TABLE recall_sessions (
  no INTEGER PRIMARY KEY,
  session TEXT NOT NULL UNIQUE,
  scope TEXT NOT NULL,
  places INTEGER NOT NULL DEFAULT 0,
  dirty INTEGER NOT NULL DEFAULT 0,
  changed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX recall_sessions_changed ON recall_sessions (changed);
-- Which turn each document is, and its length in words (for BM25's length norm).
CREATE TABLE recall_docs (
  id INTEGER PRIMARY KEY,
  turn INTEGER NOT NULL UNIQUE,
  words INTEGER NOT NULL
);
-- detail=column: no word positions (recall never asks for phrases), a smaller index.
CREATE VIRTUAL TABLE recall_fts USING fts5 (
  text, scope, content='', detail=column, tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER recall_turn_gone AFTER DELETE ON turns
WHEN old.by IN ('person', 'agent') AND old.kind = 'text' AND old.sidechain = 0 BEGIN
  INSERT INTO recall_fts (recall_fts, rowid, text, scope)
    SELECT 'delete', d.id, old.text, s.scope FROM recall_docs d
    JOIN recall_sessions s ON s.no = d.id >> 22 WHERE d.turn = old.id;
  UPDATE recall_sessions SET dirty = 1
    WHERE no = (SELECT id >> 22 FROM recall_docs WHERE turn = old.id);
  DELETE FROM recall_docs WHERE turn = old.id;
END;
CREATE TRIGGER recall_turn_changed AFTER UPDATE OF text, by, kind, sidechain ON turns
WHEN old.by IN ('person', 'agent') AND old.kind = 'text' AND old.sidechain = 0 BEGIN
  INSERT INTO recall_fts (recall_fts, rowid, text, scope)
    SELECT 'delete', d.id, old.text, s.scope FROM recall_docs d
    JOIN recall_sessions s ON s.no = d.id >> 22 WHERE d.turn = old.id;
  UPDATE recall_sessions SET dirty = 1
    WHERE no = (SELECT id >> 22 FROM recall_docs WHERE turn = old.id);
  DELETE FROM recall_docs WHERE turn = old.id;
END;
"""

M004_RELIABILITY = """
-- A transcript is its file, not its path string: the same file reached by another path (a
-- relative root, a symlinked home, a moved home) is found again by its device and inode, or
-- by its session and first bytes, and read on from its offset. `tail` fingerprints the
-- `tail_len` bytes just before `offset`, so a rewrite that kept the first 256 bytes is seen.
ALTER TABLE files ADD COLUMN dev INTEGER;
ALTER TABLE files ADD COLUMN ino INTEGER;
ALTER TABLE files ADD COLUMN tail TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN tail_len INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_session ON files (session);
CREATE INDEX files_inode ON files (dev, ino);

-- The uuids of the records a turn was read from (space-separated: one assistant message is
-- several lines). A line written twice, with the same uuid, is read once.
ALTER TABLE turns ADD COLUMN uuids TEXT;

-- A hook may send one tool event twice (its 0.3 s budget ran out, then it wrote directly):
-- the key the hook made once keeps it one row.
ALTER TABLE tool_events ADD COLUMN key TEXT;
CREATE UNIQUE INDEX tool_events_key ON tool_events (key) WHERE key IS NOT NULL;

-- What each table of the ledger is, for backups and repair (vyre/ledger/backup.py, `vyre
-- doctor`): 'user' rows only the user wrote (kept in a rolling backup beside the ledger,
-- restored by `vyre doctor --repair`); 'source' rows read from outside (transcripts, hooks)
-- that a repair salvages but a backup does not hold (they can be read again, or are logs).
-- A table not listed is derived: a repair leaves it empty for its owner to rebuild. A
-- migration that adds a table registers it here (INSERT OR IGNORE); a listed table that does
-- not exist is skipped.
CREATE TABLE table_kinds (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('user', 'source')),
  what TEXT NOT NULL
);
INSERT OR IGNORE INTO table_kinds (name, kind, what) VALUES
  ('projects', 'user', 'projects'),
  ('project_folders', 'user', 'project folders'),
  ('picks', 'user', 'sessions picked into projects'),
  ('memory_corrections', 'user', 'corrections, pins, mutes, merges and splits'),
  ('remembered', 'user', 'what you told memory yourself'),
  ('answer_fixes', 'user', 'corrections of answers'),
  ('lessons', 'user', 'lessons'),
  ('deck_passkeys', 'user', 'passkeys registered with the Deck (public keys)'),
  ('sessions', 'source', 'sessions read from transcripts'),
  ('turns', 'source', 'turns read from transcripts'),
  ('files', 'source', 'how far each transcript was read'),
  ('events', 'source', 'learning-loop events'),
  ('tool_events', 'source', 'tool events from the hooks'),
  ('answers', 'source', 'answers memory gave'),
  ('learn_signals', 'source', 'what the learning loop learns from'),
  ('learn_jobs', 'source', 'sentences waiting for a check'),
  ('learn_commands', 'source', 'what each tool call did, kept 7 days'),
  ('learn_days', 'source', 'turns per day'),
  ('learn_lesson_days', 'source', 'what each lesson did per day');
"""

M013_LEARN_INFERRED = """
-- What kind of call a row was, in words: program and subcommand for a shell command
-- ("git push", never its arguments), the tool's name otherwise. One shape declined 3 times
-- in 14 days proposes a check, and a check needs the words, not a hash.
ALTER TABLE learn_commands ADD COLUMN shape TEXT;
-- 1 when a shell call ran the tests: a turn that fixed failing tests and stopped without
-- running them again is read from these.
ALTER TABLE learn_commands ADD COLUMN test INTEGER;
-- One row per hook event however often a hook sends it (its 0.3 s budget ran out on a slow
-- daemon, then it spooled the same rows): the key `vyre.hooks.run.event_key` made once.
ALTER TABLE learn_commands ADD COLUMN event_key TEXT;
CREATE UNIQUE INDEX learn_commands_event_key ON learn_commands (event_key)
  WHERE event_key IS NOT NULL;
-- Why a lesson has the scope or the origin it has, for the user ("seen in 2 projects, so
-- everywhere"); NULL when there is nothing to say.
ALTER TABLE lessons ADD COLUMN note TEXT;
"""

M012_ASK = """
-- `memory ask` reads recall's index (m007): the first search table and its trigger go.
DROP TRIGGER IF EXISTS turns_ad;
DROP TABLE IF EXISTS turns_fts;

-- Personal facts the person's own turns state (vyre/ask/personal.py), found once when the turn
-- is stored and kept beside it. Derived from turns, never a source of truth: a deleted turn
-- takes its facts with it, a changed turn is read again (personal_dirty), and everything is
-- read again when the patterns change (meta personal.version).
CREATE TABLE personal_said (
  turn INTEGER NOT NULL,         -- turns.id
  session TEXT NOT NULL,
  seq INTEGER NOT NULL,
  who TEXT NOT NULL,             -- the relation ("wife"), '' for the person themself
  attr TEXT NOT NULL,            -- name | birthday | lives_in | from | works_at
  value TEXT NOT NULL,
  at TEXT,
  quote TEXT NOT NULL,
  ts TEXT,
  rule TEXT NOT NULL
);
CREATE INDEX personal_said_asked ON personal_said (attr, who);
CREATE INDEX personal_said_turn ON personal_said (turn);
CREATE TABLE personal_dirty (turn INTEGER PRIMARY KEY);
CREATE TRIGGER personal_turn_gone AFTER DELETE ON turns WHEN old.by = 'person' BEGIN
  DELETE FROM personal_said WHERE turn = old.id;
END;
CREATE TRIGGER personal_turn_changed AFTER UPDATE OF text, by, kind, sidechain ON turns
WHEN old.by = 'person' OR new.by = 'person' BEGIN
  DELETE FROM personal_said WHERE turn = old.id;
  INSERT OR IGNORE INTO personal_dirty (turn) VALUES (new.id);
END;
"""

M015_SCAN = """
-- The modification time (ns) of each transcript when it was last read to its end: a full
-- scan skips a file whose identity, size and time are those it was left with, without
-- opening it (a home of 30,000 sessions is scanned in a stat each).
ALTER TABLE files ADD COLUMN mtime_ns INTEGER;
"""

M006_PROJECT_CHANGES = """
-- Every change to a project (add, pick, unpick, remove) with the project as it was before and
-- after it, as JSON {name, org, folders, picks} (NULL: there was no project), so `vyre project
-- undo` puts it back as it was, a removed project with its folders and picks. `undone` is when
-- it was undone; an undone change stays listed.
CREATE TABLE project_changes (
  id INTEGER PRIMARY KEY,
  slug TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('add', 'pick', 'unpick', 'remove')),
  caller TEXT NOT NULL,
  created TEXT NOT NULL,
  before TEXT,
  after TEXT,
  undone TEXT
);
CREATE INDEX project_changes_slug ON project_changes (slug, id);
INSERT OR IGNORE INTO table_kinds (name, kind, what) VALUES
  ('project_changes', 'user', 'the history of project changes, for undo');
"""

M018_ROOM_NAMES = """
-- The entity ids each room's mentions named when it was last derived (JSON, after the user's
-- merges and splits), and the digest of the inputs they follow from. A correction scoped to
-- everything counts in a room's digest only when the room names its subject, so it derives
-- again only the rooms it can change. Derived, not the user's data: a missing row only means
-- every such correction counts in that room.
CREATE TABLE room_names (
  room TEXT PRIMARY KEY,
  base TEXT NOT NULL,
  names TEXT NOT NULL
);
"""

M017_ROOM_PLAN = """
-- The rooms' plan as the last derive left it (`vyre.rooms.stored_plan`): each session as the
-- plan read it and its rooms, each room's members, and each room's digest of all but its
-- corrections (`base`) with the identity changes it was taken with. A one-off process reads
-- only the sessions written since. `plan_state` says what it was planned with (the versions,
-- projects and settings) and the sessions table's count and sums then: when they do not
-- add up, the plan is made again from nothing. Derived: a missing or emptied table only
-- means one plan from nothing.
CREATE TABLE plan_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  context TEXT NOT NULL,
  sessions INTEGER NOT NULL,
  versions REAL NOT NULL,
  rowids REAL NOT NULL,
  top INTEGER
);
CREATE TABLE plan_sessions (
  id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  version INTEGER NOT NULL,
  parent TEXT,
  cwd TEXT,
  own TEXT NOT NULL,
  rooms TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX plan_sessions_parent ON plan_sessions (parent) WHERE parent IS NOT NULL;
CREATE TABLE plan_members (
  room TEXT NOT NULL,
  session TEXT NOT NULL,
  PRIMARY KEY (room, session)
) WITHOUT ROWID;
CREATE TABLE plan_rooms (
  room TEXT PRIMARY KEY,
  identity TEXT NOT NULL,
  base TEXT NOT NULL
);
"""

M019_MESSAGE_HEADS = """
-- A message's lines are looked up by (session, msg) only for an assistant message's text,
-- to join a later line's text to its first turn (ingest's _merge_assistant_messages): the
-- index holds those turns alone. The whole-table index cost a first build ~0.06 s of the
-- writer's CPU (~12 % of its turn inserts) and 7 % of the ledger's size on bench/corpus.py.
DROP INDEX IF EXISTS turns_msg;
CREATE INDEX turns_msg_text ON turns (session, msg) WHERE kind = 'text' AND msg IS NOT NULL;
"""

M020_RECALL_DIRTY = """
-- The sessions whose recall documents went stale, found without reading every session's row:
-- each ingest asks for them (one line in the daemon at 30,000 sessions scanned them all).
CREATE INDEX recall_sessions_dirty ON recall_sessions (dirty) WHERE dirty = 1;
"""

M021_SESSION_TOTALS = """
-- What the planner checks before each plan (vyre/rooms/pipeline.py, SESSIONS_KEY): the
-- sessions' count and the sums of their versions and rowids, kept by triggers instead of
-- summed over every session each time (~3 ms a line in the daemon at 30,000 sessions). Any
-- write changes them as the sums did, a row deleted by hand included.
CREATE TABLE session_totals (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  sessions INTEGER NOT NULL,
  versions REAL NOT NULL,
  rowids REAL NOT NULL
);
INSERT INTO session_totals SELECT 1, count(*), total(version), total(rowid) FROM sessions;
CREATE TRIGGER session_totals_added AFTER INSERT ON sessions BEGIN
  UPDATE session_totals SET sessions = sessions + 1, versions = versions + new.version,
    rowids = rowids + new.rowid;
END;
CREATE TRIGGER session_totals_changed AFTER UPDATE ON sessions BEGIN
  UPDATE session_totals SET versions = versions + new.version - old.version,
    rowids = rowids + new.rowid - old.rowid;
END;
CREATE TRIGGER session_totals_gone AFTER DELETE ON sessions BEGIN
  UPDATE session_totals SET sessions = sessions - 1, versions = versions - old.version,
    rowids = rowids - old.rowid;
END;
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", M001_INITIAL),
    ("m002_corrections", M002_CORRECTIONS),
    ("m003_tool_events", M003_TOOL_EVENTS),
    ("m008_ask", M008_ASK),
    ("m009_learn", M009_LEARN),
    ("m010_deck_passkeys", M010_DECK_PASSKEYS),
    ("m007_recall", M007_RECALL),
    ("m004_reliability", M004_RELIABILITY),
    ("m013_learn_inferred", M013_LEARN_INFERRED),
    ("m012_ask", M012_ASK),
    ("m005_graph_rooms", M005_GRAPH_ROOMS),
    ("m015_scan", M015_SCAN),
    ("m006_project_changes", M006_PROJECT_CHANGES),
    ("m018_room_names", M018_ROOM_NAMES),
    ("m017_room_plan", M017_ROOM_PLAN),
    ("m019_message_heads", M019_MESSAGE_HEADS),
    ("m020_recall_dirty", M020_RECALL_DIRTY),
    ("m021_session_totals", M021_SESSION_TOTALS),
]
