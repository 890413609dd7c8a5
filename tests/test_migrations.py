"""Schema changes are numbered, only ever added, and upgrade a store without losing rows."""

from __future__ import annotations

import re
import sqlite3

from vyre.ledger import Ledger
from vyre.ledger.migrations import MIGRATIONS
from vyre.ledger.store import _statements


def test_a_blank_store_gets_every_migration_once(tmp_path):
    ledger = Ledger(tmp_path / "vyre.db")
    applied = [r[0] for r in ledger.db.execute("SELECT id FROM migrations ORDER BY rowid")]
    assert applied == [name for name, _ in MIGRATIONS]
    ledger.close()
    again = Ledger(tmp_path / "vyre.db")  # opening again applies nothing twice
    assert again.db.execute("SELECT count(*) FROM migrations").fetchone()[0] == len(MIGRATIONS)
    again.close()


def test_the_oldest_schema_upgrades_and_keeps_its_rows(tmp_path):
    path = tmp_path / "vyre.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL)")
    name, sql = MIGRATIONS[0]
    for statement in _statements(sql):
        db.execute(statement)
    db.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))
    db.execute("INSERT INTO projects (slug, name, org) VALUES ('keel', 'Keel', 'Keel & Ash')")
    db.execute(
        "INSERT INTO turns (session, seq, role, by, kind, text) "
        "VALUES ('s1', 0, 'user', 'person', 'text', 'Priya Anand called')"
    )
    db.commit()
    db.close()
    ledger = Ledger(path)
    assert ledger.projects()[0]["org"] == "Keel & Ash"
    assert ledger.turn("s1", 0)["text"] == "Priya Anand called"
    tables = {r[0] for r in ledger.db.execute("SELECT name FROM sqlite_master")}
    assert {"memory_corrections", "events", "tool_events"} <= tables
    ledger.close()


def test_migration_names_are_numbered_and_unique():
    names = [name for name, _ in MIGRATIONS]
    # Numbers are reserved per piece of work and a migration is appended when it lands, so a
    # higher number may come first: the list order is the order applied, numbers stay unique.
    assert all(re.fullmatch(r"m\d{3}_[a-z0-9_]+", name) for name in names)
    numbers = [name[:4] for name in names]
    assert len(set(numbers)) == len(numbers)


def test_a_store_that_has_a_later_number_still_gets_an_earlier_one_landed_after_it(tmp_path):
    """A home upgraded when m008 had landed but m004 had not gets m004 on its next open (and
    what landed after m004, which may build on it: m006 registers its table in m004's
    `table_kinds`)."""
    path = tmp_path / "vyre.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL)")
    names = [name for name, _ in MIGRATIONS]
    before = MIGRATIONS[: names.index("m004_reliability")]
    assert any(name > "m004" for name, _ in before)  # a later number landed before m004
    for name, sql in before:
        for statement in _statements(sql):
            db.execute(statement)
        db.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))
    db.commit()
    db.close()
    ledger = Ledger(path)
    applied = {r[0] for r in ledger.db.execute("SELECT id FROM migrations")}
    assert applied == {name for name, _ in MIGRATIONS}
    kinds = dict(ledger.db.execute("SELECT name, kind FROM table_kinds"))
    assert kinds["projects"] == "user" and kinds["turns"] == "source"
    ledger.close()


def test_a_message_head_is_found_by_the_index_of_text_turns_alone(tmp_path):
    """The lookup that joins a later line of an assistant message to its first turn reads
    the partial index (m019), not the whole table: a full scan per line would make every
    append cost as much as the ledger is long."""
    from vyre.transcripts.ingest import MESSAGE_HEAD

    ledger = Ledger(tmp_path / "vyre.db")
    plan = " ".join(
        r[-1] for r in ledger.db.execute("EXPLAIN QUERY PLAN " + MESSAGE_HEAD, ("s", "m"))
    )
    assert "USING INDEX turns_msg_text" in plan
    rows = [
        ("s", 1, "assistant", "agent", "text", "first", "m1"),
        ("s", 2, "assistant", "agent", "tool_use", "Bash: ls", "m1"),
        ("s", 3, "user", "person", "text", "hello", None),
    ]
    ledger.db.executemany(
        "INSERT INTO turns (session, seq, role, by, kind, text, msg) VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    indexed = ledger.db.execute(
        "SELECT count(*) FROM turns INDEXED BY turns_msg_text "
        "WHERE kind = 'text' AND msg IS NOT NULL"
    ).fetchone()[0]
    assert indexed == 1  # only the message's text turn
    assert ledger.db.execute(MESSAGE_HEAD, ("s", "m1")).fetchone()[1:3] == (1, "first")
    ledger.close()


def test_the_stale_recall_sessions_are_found_without_reading_every_session(tmp_path):
    """Each ingest asks which sessions' recall documents went stale: the partial index of
    those (m020) answers it, so a line in a big home does not scan all its sessions."""
    from vyre.ledger import search

    ledger = Ledger(tmp_path / "vyre.db")
    plans = {
        sql: " ".join(r[-1] for r in ledger.db.execute("EXPLAIN QUERY PLAN " + sql, args))
        for sql, args in ((search.STALE_OR_NEW, (0,)), (search.ANY_STALE, ()))
    }
    assert all("recall_sessions_dirty" in plan for plan in plans.values()), plans
    assert not any("SCAN recall_sessions" in plan for plan in plans.values()), plans
    ledger.db.executemany(
        "INSERT INTO recall_sessions (session, scope, dirty) VALUES (?, 'all', ?)",
        [("a", 0), ("b", 1), ("c", 0)],
    )
    assert [r[1] for r in ledger.db.execute(search.STALE_OR_NEW, (0,))] == ["b"]
    assert ledger.db.execute(search.ANY_STALE).fetchone() == (1,)
    ledger.close()


def test_the_session_totals_follow_every_write_to_sessions(tmp_path):
    """The planner's check (SESSIONS_KEY) reads totals kept by triggers (m021): after new
    sessions, upserts, a bump of every version and a row deleted by hand, they are what
    summing every session gives, and they were set from the rows a ledger already had."""
    from vyre.rooms.pipeline import SESSIONS_KEY

    path = tmp_path / "vyre.db"
    ledger = Ledger(path)
    db = ledger.db
    summed = "SELECT count(*), total(version), total(rowid), max(rowid) FROM sessions"
    assert db.execute(SESSIONS_KEY).fetchone() == (0, 0.0, 0.0, None)
    upsert = (
        "INSERT INTO sessions (id, version) VALUES (?, 1) "
        "ON CONFLICT (id) DO UPDATE SET version = sessions.version + 1"
    )
    for sid in ("a", "b", "c", "b", "b", "d"):
        db.execute(upsert, (sid,))
        assert db.execute(SESSIONS_KEY).fetchone() == db.execute(summed).fetchone()
    db.execute("UPDATE sessions SET version = version + 1")
    db.execute("DELETE FROM sessions WHERE id = 'c'")
    assert db.execute(SESSIONS_KEY).fetchone() == db.execute(summed).fetchone() == (3, 8.0, 7.0, 4)
    ledger.close()
    # a ledger from before m021: its totals are summed from the rows it has
    db = sqlite3.connect(path)
    db.execute("DELETE FROM migrations WHERE id = 'm021_session_totals'")
    for name in ("added", "changed", "gone"):
        db.execute(f"DROP TRIGGER session_totals_{name}")
    db.execute("DROP TABLE session_totals")
    db.execute("INSERT INTO sessions (id, version) VALUES ('e', 5)")
    db.commit()
    db.close()
    ledger = Ledger(path)
    assert ledger.db.execute(SESSIONS_KEY).fetchone() == ledger.db.execute(summed).fetchone()
    ledger.close()
