"""Transcript ingest: incremental by byte offset, rewrites, merged messages, subagents, bad
input, locks, search and crash safety. Every transcript is written under tmp_path; the ledger
lives in the VYRE_HOME that conftest.py points at a temp folder."""

from __future__ import annotations

import importlib
import json
import os
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import vyre.cli.main
from tests.conftest import python_prints
from tests.transcript import Transcript
from vyre.api import Memory
from vyre.ledger import Ledger, LedgerBusy
from vyre.transcripts import MissingRoot

# `vyre.transcripts.ingest` as an attribute is the function; the module is what we patch.
INGEST = importlib.import_module("vyre.transcripts.ingest")

CWD = "/home/sam/work/keel-ash"
START = "2026-09-01T10:00:00Z"
PRIYA = "Priya Anand, the project architect at Keel & Ash Architects, sent the plans."
TOMAS = "Tomas Berg, the site engineer at Halden Structures, checked the beams."


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path) -> Path:
    path = tmp_path / "projects"
    path.mkdir()
    return path


def transcript(root: Path, session: str = "s1", *, cwd: str = CWD, start: str = START, **kw):
    return Transcript(root, cwd=cwd, session=session, start=start, **kw)


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def append_lines(path: Path, lines: list[bytes]) -> None:
    append(path, b"".join(line + b"\n" for line in lines))


def rows(memory: Memory, session: str) -> dict[int, tuple]:
    """seq -> (by, kind, text) for one session's stored turns."""
    return {
        seq: (by, kind, text)
        for seq, by, kind, text in memory.ledger.db.execute(
            "SELECT seq, by, kind, text FROM turns WHERE session = ? ORDER BY seq", (session,)
        )
    }


def all_turns(memory: Memory) -> list[tuple]:
    return sorted(
        memory.ledger.db.execute(
            "SELECT session, seq, ts, role, by, kind, text, sidechain, msg FROM turns"
        )
    )


def mentions(memory: Memory, session: str | None = None) -> list[tuple]:
    if session is None:
        return sorted(memory.ledger.db.execute("SELECT * FROM mentions"))
    return sorted(memory.ledger.db.execute("SELECT * FROM mentions WHERE session = ?", (session,)))


def offsets(memory: Memory) -> list[tuple]:
    return sorted(
        memory.ledger.db.execute("SELECT path, session, offset, lines, head, head_len FROM files")
    )


def snapshot(memory: Memory) -> dict:
    sessions = [{k: v for k, v in s.items() if k != "version"} for s in memory.ledger.sessions()]
    return {
        "turns": all_turns(memory),
        "mentions": mentions(memory),
        "files": offsets(memory),
        "sessions": sessions,
    }


def clean_run(root: Path, home: Path) -> dict:
    """What a fresh home holds after one ingest of the files as they are now."""
    with Memory(home) as fresh:
        fresh.ingest(root)
        return snapshot(fresh)


def search(memory: Memory, word: str) -> set[tuple]:
    """(session, seq) of every turn the search index finds for word; a rowid with no turn
    shows up."""
    db = memory.ledger.db
    found = set()
    for (rowid,) in db.execute(
        "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ?", (f'text:"{word}"',)
    ):
        row = db.execute(
            "SELECT t.session, t.seq FROM recall_docs d JOIN turns t ON t.id = d.turn "
            "WHERE d.id = ?",
            (rowid,),
        ).fetchone()
        found.add(row if row else ("<no turn>", rowid))
    return found


def turn_count(memory: Memory) -> int:
    return memory.ledger.db.execute("SELECT count(*) FROM turns").fetchone()[0]


def keel_ash(root: Path, session: str = "s1") -> Transcript:
    """Five lines: 0 person, 1 progress, 2 agent text, 3 tool_use, 4 tool_result."""
    t = transcript(root, session)
    t.user(PRIYA)
    t.progress()
    t.assistant("I will read the plans now.")
    t.tool("Bash", {"command": "ls plans"}, "plan-a.pdf\nplan-b.pdf")
    return t


# -- 1. incremental by byte offset ------------------------------------------------------------


def test_incremental_ingest_adds_only_new_turns_with_seq_as_line_index(root, tmp_path):
    t = keel_ash(root)
    path = t.write()
    other = transcript(root, "s2", cwd="/home/sam/work/other")
    other.user("What is the weather like?").assistant("Sunny.").write()

    with Memory() as memory:
        first = memory.ingest(root).report
        assert (first.files, first.read, first.turns) == (2, 2, 6)
        assert sorted(rows(memory, "s1")) == [0, 2, 3, 4]

        t.user("Also ask Marek Nowak at Halden Structures for the beam schedule.")  # line 5
        t.progress()  # line 6
        t.assistant("Done: I asked Marek.")  # line 7
        append_lines(path, t.lines()[5:])

        second = memory.ingest(root).report
        assert (second.files, second.read, second.turns) == (2, 1, 2)
        assert second.by == Counter({"person": 1, "agent": 1})
        assert second.sessions == {"s1"}
        s1 = rows(memory, "s1")
        assert sorted(s1) == [0, 2, 3, 4, 5, 7]
        assert s1[0] == ("person", "text", PRIYA)
        assert s1[2] == ("agent", "text", "I will read the plans now.")
        assert s1[3][:2] == ("agent", "tool_use")
        assert s1[4][:2] == ("tool", "tool_result")
        assert s1[5][2].startswith("Also ask Marek Nowak")
        assert s1[7] == ("agent", "text", "Done: I asked Marek.")
        assert memory.ledger.turn("s1", 6) is None  # a progress line is no turn
        assert len(rows(memory, "s2")) == 2
        texts = [r[6] for r in all_turns(memory)]
        assert len(texts) == len(set(texts)) == 8
        mention_rows = mentions(memory)
        assert len(mention_rows) == len(set(mention_rows))

        done = memory.ingest(root)
        third, derived = done.report, done.derived
        assert (third.read, third.turns, third.records) == (0, 0, 0)
        assert third.sessions == set()
        assert derived.rooms == []
        assert turn_count(memory) == 8
        incremental = snapshot(memory)

    assert incremental == clean_run(root, tmp_path / "clean")


def _age(path: Path, seconds: float = 3600) -> None:
    """Date a file's modification time back, as a home's old sessions are."""
    old = time.time() - seconds
    import os

    os.utime(path, (old, old))


def _opens(monkeypatch) -> list[Path]:
    opened: list[Path] = []
    real = INGEST._open_regular

    def counting(path):
        opened.append(Path(path))
        return real(path)

    monkeypatch.setattr(INGEST, "_open_regular", counting)
    return opened


def test_a_scan_opens_only_the_files_that_changed(root, tmp_path, monkeypatch):
    paths, sessions = [], []
    for n in range(5):
        t = transcript(root, f"s{n}")
        t.user(f"Session {n}: {PRIYA}")
        paths.append(t.write())
        sessions.append(t)
        _age(paths[-1])
    with Memory() as memory:
        memory.ingest(root)
        opened = _opens(monkeypatch)
        memory.ingest(root)  # the times were recorded when the files were read
        assert opened == []

        append_lines(paths[2], [sessions[2].user(TOMAS).lines()[-1]])
        report = memory.ingest(root).report
        assert opened == [paths[2]]
        assert (report.read, report.turns) == (1, 1)

        opened.clear()
        memory.ingest(root)  # s2 was written just now: opened until its time settles
        assert opened == [paths[2]]
        _age(paths[2])
        opened.clear()
        memory.ingest(root)
        memory.ingest(root)
        assert opened == [paths[2]]  # once, to record its settled time
        scanned = snapshot(memory)
    assert scanned == clean_run(root, tmp_path / "clean")


def test_the_listing_is_what_rglob_finds_in_its_order(root, tmp_path):
    """`transcript_files` reads folder entries' types instead of a stat per file: it must
    list exactly the files `rglob` does, in the same order (names with '-' and '.' sort
    differently as strings than as paths)."""
    for name in [
        "a/s1.jsonl",
        "a-b/s2.jsonl",
        "a.b/s3.jsonl",
        "a/s1/subagents/agent-x.jsonl",
        "a/.hidden.jsonl",
        "top.jsonl",
        "a/notes.txt",
        "dir.jsonl/inner.jsonl",
    ]:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.jsonl").write_text("{}\n")
    (root / "linked").symlink_to(outside)  # pathlib does not enter symlinked folders
    (root / "a" / "link.jsonl").symlink_to(root / "top.jsonl")
    expected = sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    assert INGEST.transcript_files(root) == expected
    assert len(expected) == 8


def test_a_rewrite_that_keeps_size_and_time_is_still_seen_while_the_time_is_fresh(root):
    """A timestamp is as coarse as the kernel's tick: a file rewritten within it keeps its
    time, so a time younger than the settle window is never trusted."""
    t = transcript(root)
    t.user(PRIYA)
    path = t.write()
    with Memory() as memory:
        memory.ingest(root)
        before = path.stat()
        path.write_bytes(path.read_bytes().replace(b"Priya Anand", b"Priya Anant"))
        import os

        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert path.stat().st_size == before.st_size
        memory.ingest(root)
        assert any(m[3] == "Priya Anant" for m in mentions(memory, "s1"))


# -- 2. unfinished last lines ---------------------------------------------------------------


def test_an_unfinished_last_line_is_left_pending_until_completed(root, tmp_path):
    t = transcript(root)
    t.user("First question about the zebrafish tank.")
    t.assistant("First answer.")
    t.user("Third line, written in two pieces.")
    lines = t.lines()
    path = t.path
    path.parent.mkdir(parents=True)
    path.write_bytes(lines[0] + b"\n" + lines[1] + b"\n" + lines[2][:40])

    with Memory() as memory:
        report = memory.ingest(root).report
        assert report.pending == 1
        assert report.turns == 2
        assert sorted(rows(memory, "s1")) == [0, 1]

        append(path, lines[2][40:] + b"\n")
        report = memory.ingest(root).report
        assert report.pending == 0
        assert report.turns == 1
        assert rows(memory, "s1")[2] == ("person", "text", "Third line, written in two pieces.")
        assert sorted(rows(memory, "s1")) == [0, 1, 2]
        incremental = snapshot(memory)

    assert incremental == clean_run(root, tmp_path / "clean")


def test_an_unchanged_pending_line_is_not_read_again(root):
    t = transcript(root)
    t.user("A finished line.")
    t.assistant("Another finished line.")
    lines = t.lines()
    path = t.path
    path.parent.mkdir(parents=True)
    path.write_bytes(lines[0] + b"\n" + lines[1][:30])

    with Memory() as memory:
        memory.ingest(root)
        version = memory.ledger.session("s1")["version"]
        done = memory.ingest(root)
        again, derived = done.report, done.derived
        assert again.pending == 1  # still unfinished
        assert again.turns == 0
        # Nothing changed on disk: no file has new lines, no session changed, nothing derived.
        assert again.read == 0
        assert again.sessions == set()
        assert memory.ledger.session("s1")["version"] == version
        assert derived.rooms == []


def test_a_last_line_without_newline_that_parses_is_taken(root, tmp_path):
    t = transcript(root)
    t.user("First question.")
    t.assistant("An answer the writer has not ended with a newline yet.")
    t.user("Third line, after the newline arrived.")
    t.assistant("Fourth line.")
    lines = t.lines()
    path = t.path
    path.parent.mkdir(parents=True)
    path.write_bytes(lines[0] + b"\n" + lines[1])

    with Memory() as memory:
        report = memory.ingest(root).report
        assert report.pending == 0
        assert report.turns == 2
        assert rows(memory, "s1")[1][2].startswith("An answer the writer")

        # The writer ends that line and goes on: later lines keep their 0-based line index.
        append(path, b"\n" + lines[2] + b"\n" + lines[3] + b"\n")
        report = memory.ingest(root).report
        assert report.turns == 2
        s1 = rows(memory, "s1")
        assert sorted(s1) == [0, 1, 2, 3]
        assert s1[2] == ("person", "text", "Third line, after the newline arrived.")
        assert s1[3] == ("agent", "text", "Fourth line.")
        incremental = snapshot(memory)

    assert incremental == clean_run(root, tmp_path / "clean")


# -- 3. rewrites ------------------------------------------------------------------------------


def _first_version(root: Path) -> Transcript:
    t = transcript(root)
    t.user(PRIYA + " Please file them under zebrafish.")
    t.assistant("Filed. I will email priya@keelash.com to confirm.")
    t.user("Thanks, and note the marmalade deadline.")
    t.assistant("Noted the marmalade deadline.")
    return t


def _assert_replaced(memory: Memory, expected_texts: list[str]) -> None:
    texts = [text for _, _, text in rows(memory, "s1").values()]
    assert texts == expected_texts
    stored = mentions(memory, "s1")
    assert len(stored) == len(set(stored))
    assert not any("Priya" in str(m) or "keelash" in str(m) for m in stored)
    assert any(m[3] == "Tomas Berg" for m in stored)
    assert not any("zebrafish" in t or "marmalade" in t for t in texts)


def test_a_file_that_shrank_is_read_again_whole(root, tmp_path):
    path = _first_version(root).write()
    with Memory() as memory:
        memory.ingest(root)
        assert any(m[3] == "Priya Anand" for m in mentions(memory, "s1"))
        size = path.stat().st_size

        new = transcript(root)
        new.user(TOMAS)
        new.write()
        assert path.stat().st_size < size

        report = memory.ingest(root).report
        assert report.rewrites == 1
        assert report.turns == 1
        _assert_replaced(memory, [TOMAS])
        assert sorted(rows(memory, "s1")) == [0]
        rewritten = snapshot(memory)

    clean = clean_run(root, tmp_path / "clean")
    assert rewritten["turns"] == clean["turns"]
    assert rewritten["mentions"] == clean["mentions"]
    assert rewritten["files"] == clean["files"]


def test_a_file_whose_first_bytes_changed_while_growing_is_read_again_whole(root, tmp_path):
    path = _first_version(root).write()
    with Memory() as memory:
        memory.ingest(root)
        size = path.stat().st_size

        texts = [
            TOMAS,
            "I will ask Tomas for the load tables.",
            "Good. Also compare them with the original beam calculations from May.",
            "Comparing the load tables with the original beam calculations now.",
            "Send me a summary when you are done with the comparison.",
        ]
        new = transcript(root, start="2026-09-02T08:00:00Z")
        for i, text in enumerate(texts):
            if i % 2 == 0:
                new.user(text)
            else:
                new.assistant(text)
        new.write()
        assert path.stat().st_size > size

        report = memory.ingest(root).report
        assert report.rewrites == 1
        assert report.turns == 5
        _assert_replaced(memory, texts)
        assert sorted(rows(memory, "s1")) == [0, 1, 2, 3, 4]
        rewritten = snapshot(memory)

    clean = clean_run(root, tmp_path / "clean")
    assert rewritten["turns"] == clean["turns"]
    assert rewritten["mentions"] == clean["mentions"]
    assert rewritten["files"] == clean["files"]


# -- 4. one assistant message over two lines -------------------------------------------------


def _split_message(root: Path) -> Transcript:
    t = transcript(root)
    t.user("Who leads the design team?")
    t.assistant(PRIYA, msg="msg_split")  # line 1
    t.assistant("You can reach her at priya@keelash.com.", msg="msg_split")  # line 2
    t.user("Thanks.")  # line 3
    return t


def test_two_text_lines_of_one_message_are_one_turn(root):
    _split_message(root).write()
    with Memory() as memory:
        report = memory.ingest(root).report
        assert report.turns == 3
        s1 = rows(memory, "s1")
        assert sorted(s1) == [0, 1, 3]
        assert s1[1] == ("agent", "text", PRIYA + "\n\nYou can reach her at priya@keelash.com.")
        assert memory.ledger.db.execute(
            "SELECT count(*) FROM turns WHERE msg = 'msg_split'"
        ).fetchone() == (1,)
        found = {(m[1], m[3]) for m in mentions(memory, "s1")}
        assert (1, "Priya Anand") in found
        assert (1, "priya@keelash.com") in found


def test_the_second_line_of_a_message_in_a_later_ingest_updates_the_stored_turn(root, tmp_path):
    t = _split_message(root)
    lines = t.lines()
    path = write_lines(t.path, lines[:2])
    with Memory() as memory:
        memory.ingest(root)
        assert rows(memory, "s1")[1] == ("agent", "text", PRIYA)
        before = {(m[1], m[3]) for m in mentions(memory, "s1")}
        assert (1, "Priya Anand") in before
        assert (1, "priya@keelash.com") not in before

        append_lines(path, lines[2:])
        memory.ingest(root)
        s1 = rows(memory, "s1")
        assert sorted(s1) == [0, 1, 3]
        assert s1[1] == ("agent", "text", PRIYA + "\n\nYou can reach her at priya@keelash.com.")
        assert memory.ledger.db.execute(
            "SELECT count(*) FROM turns WHERE msg = 'msg_split'"
        ).fetchone() == (1,)
        stored = mentions(memory, "s1")
        assert len(stored) == len(set(stored))
        after = {(m[1], m[3]) for m in stored}
        assert (1, "Priya Anand") in after  # re-extracted from the joined text
        assert (1, "priya@keelash.com") in after
        incremental = snapshot(memory)

    clean = clean_run(root, tmp_path / "clean")
    assert incremental["turns"] == clean["turns"]
    assert incremental["mentions"] == clean["mentions"]


# -- 5. subagents -----------------------------------------------------------------------------


def test_both_subagent_layouts_are_sessions_of_their_own_with_a_parent(root):
    folder = root / "-home-sam-work-keel-ash"
    parent = transcript(root, "p1")
    parent.user("Research the Keel & Ash team for me.").assistant("Starting two agents.")
    parent.write()
    for agent, path in (
        ("a1", folder / "agent-a1.jsonl"),
        ("b2", folder / "p1" / "subagents" / "agent-b2.jsonl"),
    ):
        sub = transcript(root, "p1", sidechain=True, agent=agent)
        sub.user(f"Find who works at Keel & Ash. {PRIYA}")
        sub.assistant(f"{PRIYA} Her email is priya@keelash.com.")
        sub.write(path)

    with Memory() as memory:
        report = memory.ingest(root).report
        assert report.files == 3
        sessions = {s["id"]: s for s in memory.ledger.sessions()}
        assert set(sessions) == {"p1", "agent-a1", "agent-b2"}
        assert sessions["p1"]["parent"] is None
        assert sessions["p1"]["sidechain"] == 0
        for sid in ("agent-a1", "agent-b2"):
            assert sessions[sid]["parent"] == "p1"
            assert sessions[sid]["sidechain"] == 1
            assert sessions[sid]["cwd"] == CWD
            side = memory.ledger.db.execute(
                "SELECT seq, by, sidechain FROM turns WHERE session = ? ORDER BY seq", (sid,)
            ).fetchall()
            assert side == [(0, "agent", 1), (1, "agent", 1)]
            assert mentions(memory, sid) == []
        assert len(rows(memory, "p1")) == 2


# -- 6. cwd -----------------------------------------------------------------------------------


def test_cwd_comes_from_the_records_never_from_the_folder_name(root):
    # "-home-sam-work-keel-ash" decodes naively to /home/sam/work/keel/ash.
    transcript(root, "s1", cwd="/home/sam/work/keel-ash").user("hello").write()
    elsewhere = transcript(root, "s2", cwd="/srv/builds/keel-ash")
    elsewhere.user("hello again").write(root / "-home-sam-work-unrelated" / "s2.jsonl")
    no_cwd = transcript(root, "s3")
    no_cwd.user("no cwd anywhere").assistant("none")
    for rec in no_cwd.records:
        del rec["cwd"]
    no_cwd.write(root / "-opt-folder-says-this" / "s3.jsonl")

    with Memory() as memory:
        memory.ingest(root)
        cwd = {s["id"]: s["cwd"] for s in memory.ledger.sessions()}
    assert cwd == {"s1": "/home/sam/work/keel-ash", "s2": "/srv/builds/keel-ash", "s3": None}


# -- 7. bad input -----------------------------------------------------------------------------


def _good_start(root: Path) -> tuple[Transcript, Path]:
    t = transcript(root)
    t.user(PRIYA)
    t.assistant("Noted.")
    return t, t.write()


def _non_utf8(t: Transcript) -> bytes:
    t.user("Order a cafe latte for the site visit.")
    line = t.lines()[-1]
    t.records.pop()
    return line.replace(b"cafe", b"caf\xe9")


BAD_LINES = {
    "corrupt JSON": lambda t: b'{"type":"user","message":{"role":"user","content":"half',
    "truncated": lambda t: t.user("a record cut short").lines()[-1][:57],
    "not UTF-8": _non_utf8,
    "not a JSON object": lambda t: b"[1, 2, 3]",
    "a JSON string": lambda t: b'"just a string"',
    "unknown record type": lambda t: json.dumps(
        {"type": "telemetry-blob", "uuid": "x1", "sessionId": "s1", "data": {"n": 1}}
    ).encode(),
}
REASONS = {
    "corrupt JSON": "corrupt JSON",
    "truncated": "corrupt JSON",
    "not UTF-8": "not UTF-8",
    "not a JSON object": "not a JSON object",
    "a JSON string": "not a JSON object",
    "unknown record type": "unknown record type",
}


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_a_bad_line_is_skipped_and_counted_never_fatal(root, case):
    t, path = _good_start(root)
    with Memory() as memory:
        memory.ingest(root)
        before = all_turns(memory)
        assert len(before) == 2

        bad = BAD_LINES[case](t)
        if case == "truncated":
            t.records.pop()  # the cut record never made it whole
        t.user("A good line after the bad one.")
        append_lines(path, [bad, t.lines()[-1]])  # lines 2 (bad) and 3

        report = memory.ingest(root).report
        assert report.skipped == Counter({REASONS[case]: 1})
        assert REASONS[case] in report.summary()
        assert report.turns == 1
        after = all_turns(memory)
        assert set(before) <= set(after)
        assert len(after) == len(before) + 1
        assert rows(memory, "s1")[3] == ("person", "text", "A good line after the bad one.")
        assert memory.ledger.turn("s1", 2) is None


def test_bad_lines_in_a_new_file_do_not_stop_the_good_ones(root):
    _good_start(root)
    with Memory() as memory:
        memory.ingest(root)
        before = all_turns(memory)

        t = transcript(root, "s2")
        lines = [BAD_LINES[case](t) for case in ("corrupt JSON", "not a JSON object")]
        t.records.clear()
        t.user("Good line in a file full of trouble.")
        write_lines(t.path, [lines[0], t.lines()[0], lines[1]])

        report = memory.ingest(root).report
        assert report.skipped == Counter({"corrupt JSON": 1, "not a JSON object": 1})
        assert set(before) <= set(all_turns(memory))
        assert rows(memory, "s2") == {1: ("person", "text", "Good line in a file full of trouble.")}


def test_a_zero_byte_file_is_not_fatal_and_is_read_once_it_has_lines(root):
    _good_start(root)
    empty = root / "-home-sam-work-keel-ash" / "s0.jsonl"
    with Memory() as memory:
        memory.ingest(root)
        before = all_turns(memory)

        empty.write_bytes(b"")
        report = memory.ingest(root).report
        assert report.files == 2
        assert report.read == 0
        assert report.turns == 0
        assert all_turns(memory) == before
        assert memory.ledger.session("s0") is None

        transcript(root, "s0").user("Now it has a line.").write(empty)
        report = memory.ingest(root).report
        assert report.turns == 1
        assert rows(memory, "s0") == {0: ("person", "text", "Now it has a line.")}
        assert set(before) <= set(all_turns(memory))


def test_a_summary_only_file_keeps_its_title(root):
    _good_start(root)
    summary = root / "-home-sam-work-keel-ash" / "s9.jsonl"
    with Memory() as memory:
        memory.ingest(root)
        before = all_turns(memory)

        record = {"type": "summary", "summary": "Keel & Ash drawings review", "leafUuid": "s1-2"}
        write_lines(summary, [json.dumps(record).encode()])
        report = memory.ingest(root).report
        assert report.turns == 0
        assert report.skipped == Counter()
        assert memory.ledger.session("s9")["title"] == "Keel & Ash drawings review"
        assert rows(memory, "s9") == {}
        assert all_turns(memory) == before


def test_a_file_that_vanishes_between_listing_and_reading_is_skipped(root, monkeypatch):
    _good_start(root)
    with Memory() as memory:
        memory.ingest(root)
        before = all_turns(memory)

        gone = transcript(root, "s2").user("I vanish before I am read.").write()
        transcript(root, "s3").user("I am read.").write()

        real_open = INGEST._open_regular

        def vanishing_open(file):
            if Path(file) == gone:
                raise FileNotFoundError(2, "No such file or directory", str(file))
            return real_open(file)

        monkeypatch.setattr(INGEST, "_open_regular", vanishing_open)
        report = memory.ingest(root).report
        assert report.skipped == Counter({"unreadable file": 1})
        assert report.files == 3
        assert set(before) <= set(all_turns(memory))
        assert rows(memory, "s3") == {0: ("person", "text", "I am read.")}
        assert rows(memory, "s2") == {}
        assert str(gone) not in {row[0] for row in offsets(memory)}

        monkeypatch.undo()
        report = memory.ingest(root).report
        assert report.skipped == Counter()
        assert rows(memory, "s2") == {0: ("person", "text", "I vanish before I am read.")}


# -- 8. missing root --------------------------------------------------------------------------


def test_a_missing_projects_root_raises_missing_root_in_one_line(tmp_path):
    missing = tmp_path / "no-such-projects"
    with Memory() as memory, pytest.raises(MissingRoot) as caught:
        memory.ingest(missing)
    message = str(caught.value)
    assert message and "\n" not in message
    assert str(missing) in message

    result = CliRunner().invoke(vyre.cli.main.cli, ["ingest", str(missing)])
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1


# -- 9. a locked store ------------------------------------------------------------------------


def _hold_write_lock(db_path: Path) -> sqlite3.Connection:
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


def test_a_ledger_locked_by_another_writer_raises_ledger_busy_in_one_line(root):
    t, path = _good_start(root)
    with Memory() as memory:
        memory.ingest(root)
        db_path = memory.home / "vyre.db"
        memory.ledger.close()
        memory.ledger = Ledger(db_path, busy_timeout_ms=100)
        before = all_turns(memory)

        t.user("Written while the ledger is locked.")
        append_lines(path, t.lines()[-1:])
        other = _hold_write_lock(db_path)
        try:
            with pytest.raises(LedgerBusy) as caught, memory.ledger.transaction() as db:
                db.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
            with pytest.raises(LedgerBusy) as through_ingest:
                memory.ingest(root)
            # it gave up after the wait it was given (SQLite's busy timeout), never hanging;
            # how long that takes is a clock's business, not a test's
            assert memory.ledger.db.execute("PRAGMA busy_timeout").fetchone()[0] == 100
        finally:
            other.rollback()
            other.close()
        for exc in (caught.value, through_ingest.value):
            assert str(exc) and "\n" not in str(exc)
        assert all_turns(memory) == before

        report = memory.ingest(root).report  # the lock is gone: the waiting line is read
        assert report.turns == 1
        assert rows(memory, "s1")[2] == ("person", "text", "Written while the ledger is locked.")


def test_the_cli_reports_a_locked_ledger_in_one_line_and_fails(root, vyre_home, monkeypatch):
    t, path = _good_start(root)
    with Memory() as memory:
        memory.ingest(root)
        before = all_turns(memory)
    t.user("Written while the ledger is locked.")
    append_lines(path, t.lines()[-1:])

    waits: list[int] = []  # each ledger the CLI opens waits for a lock this long, no longer
    opened = Ledger.__init__

    def waiting(self, path, *, busy_timeout_ms=5000):
        waits.append(busy_timeout_ms)
        opened(self, path, busy_timeout_ms=busy_timeout_ms)

    monkeypatch.setattr(Ledger, "__init__", waiting)
    other = _hold_write_lock(vyre_home / "vyre.db")
    try:
        result = CliRunner().invoke(vyre.cli.main.cli, ["ingest", str(root)])
    finally:
        other.rollback()
        other.close()
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "locked" in lines[0]
    assert waits and max(waits) <= 5000  # a bounded wait: the CLI never hangs on a lock
    with Memory() as memory:
        assert all_turns(memory) == before


# -- 10. search -------------------------------------------------------------------------------


def test_search_finds_what_was_said_but_not_tool_output(root):
    t = transcript(root)
    t.user("Please check the zebrafish tank drawings.")
    t.assistant("The marmalade annex is on sheet four.")
    t.tool("Bash", {"command": "ls drawings"}, "quokka-section.pdf quokka notes")
    t.write()
    with Memory() as memory:
        memory.ingest(root)
        assert search(memory, "zebrafish") == {("s1", 0)}
        assert search(memory, "marmalade") == {("s1", 1)}
        assert rows(memory, "s1")[3][2].startswith("quokka")  # stored, not searchable
        assert search(memory, "quokka") == set()


def test_search_after_an_append_finds_the_new_words(root):
    t = transcript(root)
    t.user("Please check the zebrafish tank drawings.")
    path = t.write()
    with Memory() as memory:
        memory.ingest(root)
        t.assistant("The pelican wing is on sheet nine.")
        append_lines(path, t.lines()[-1:])
        memory.ingest(root)
        assert search(memory, "zebrafish") == {("s1", 0)}
        assert search(memory, "pelican") == {("s1", 1)}


def test_search_after_a_rewrite_has_only_the_new_words(root):
    t = transcript(root)
    t.user("Please check the zebrafish tank drawings.")
    t.assistant("The marmalade annex is on sheet four.")
    t.write()
    with Memory() as memory:
        memory.ingest(root)
        assert search(memory, "zebrafish") == {("s1", 0)}

        new = transcript(root)
        new.user("Walrus.")
        new.write()
        report = memory.ingest(root).report
        assert report.rewrites == 1
        assert search(memory, "zebrafish") == set()
        assert search(memory, "marmalade") == set()
        assert search(memory, "walrus") == {("s1", 0)}


def test_search_finds_both_halves_of_a_message_joined_across_ingests(root):
    t = transcript(root)
    t.user("Who leads the team?")
    t.assistant("The zebrafish team is led by Priya.", msg="msg_split")
    lines = t.lines()
    path = write_lines(t.path, lines)
    with Memory() as memory:
        memory.ingest(root)
        assert search(memory, "zebrafish") == {("s1", 1)}
        t.assistant("Her marmalade notes are attached.", msg="msg_split")
        append_lines(path, t.lines()[-1:])
        memory.ingest(root)
        assert search(memory, "zebrafish") == {("s1", 1)}
        assert search(memory, "marmalade") == {("s1", 1)}


# -- 11. a crash mid-ingest -------------------------------------------------------------------


def test_a_crash_mid_batch_rolls_the_batch_back_and_loses_nothing(root, tmp_path, monkeypatch):
    a = transcript(root, "a")
    a.user(PRIYA).assistant("Noted.")
    path_a = write_lines(a.path, a.lines())
    with Memory() as memory:
        memory.ingest(root)
        before_turns, before_files = all_turns(memory), offsets(memory)
        before_mentions = mentions(memory)

        a.user("Tomas Berg, the site engineer at Halden Structures, joins on Monday.")
        append_lines(path_a, a.lines()[-1:])
        transcript(root, "b").user("Second file, where the crash happens.").write()
        transcript(root, "c").user(TOMAS).assistant("Noted Tomas.").write()

        real_store = INGEST._store
        calls = []

        def crashing_store(db, session, *args, **kwargs):
            calls.append(session)
            if session == "b":  # the second file of the batch (files are read in order)
                raise RuntimeError("disk went away")
            return real_store(db, session, *args, **kwargs)

        monkeypatch.setattr(INGEST, "_store", crashing_store)
        with pytest.raises(RuntimeError, match="disk went away"):
            memory.ingest(root)
        assert calls == ["a", "b"]  # "a" was stored in this batch before the crash
        assert all_turns(memory) == before_turns
        assert offsets(memory) == before_files
        assert mentions(memory) == before_mentions
        assert search(memory, "Halden") == set()

        monkeypatch.undo()
        report = memory.ingest(root).report
        assert report.turns == 4
        recovered = snapshot(memory)
        assert search(memory, "Halden") == {("a", 2), ("c", 0)}

    assert recovered == clean_run(root, tmp_path / "clean")


RULES_LOADED = """
import sys
from pathlib import Path
from vyre.api import Memory
with Memory() as m:
    m.ingest(Path(sys.argv[1]))
print("vyre.extract.rules" in sys.modules, "pyarrow" in sys.modules)
"""


def test_the_rules_are_compiled_only_when_a_turn_is_read(tmp_path, vyre_home):
    """Compiling the rules' patterns costs 0.25 s a process and importing pyarrow 0.3 s: an
    ingest that finds nothing new does neither; one with a new turn compiles the rules, and
    writes its small room without pyarrow (only a bulk load of many rows needs it)."""
    root = tmp_path / "projects"
    t = Transcript(root, cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.write()
    with Memory() as m:
        m.ingest(root)
    old = time.time() - 60  # settled: the next scan passes it over on a stat
    os.utime(t.path, (old, old))
    with Memory() as m:
        m.ingest(root)

    def loaded() -> str:
        return python_prints(RULES_LOADED, str(root)).strip()

    assert loaded() == "False False"
    t.user("Tomasz Kowalski, the CTO at Harlow Dental, wants the export.")
    t.write()
    assert loaded() == "True False"


INGEST_COMMAND = """
import atexit, sys
atexit.register(lambda: print("pydantic" in sys.modules))
sys.argv = ["vyre", "ingest", sys.argv[1]]
from vyre.cli.fast import main
main()
"""


def test_the_ingest_command_loads_no_pydantic(tmp_path, vyre_home):
    """Importing pydantic and building a model's schema cost a one-off `vyre ingest` ~0.1 s
    of its start: it reads, derives and prints its reports (dataclasses) without it."""
    root = tmp_path / "projects"
    t = Transcript(root, cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.write()
    said = python_prints(INGEST_COMMAND, str(root)).strip().splitlines()
    assert said[0].startswith("ingested 1 file (1 with new lines), 1 new turn"), said
    assert said[1].startswith("derived 1 room"), said
    assert said[-1] == "False", said
