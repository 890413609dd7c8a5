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

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", M001_INITIAL),
    ("m002_corrections", M002_CORRECTIONS),
    ("m003_tool_events", M003_TOOL_EVENTS),
    ("m008_ask", M008_ASK),
]
