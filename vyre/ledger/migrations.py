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
  head_len INTEGER NOT NULL DEFAULT 0
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

CREATE TABLE turns (
  id INTEGER PRIMARY KEY,
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

MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", M001_INITIAL),
]
