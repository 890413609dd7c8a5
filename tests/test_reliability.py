"""The reliability suite (issue 7): no line, damaged store, planted path or second process
stops memory, loses what it stored or stores it twice.

Mutated lines are made here, deterministically, from the real transcripts in
../shared/corpora and the bundled world (`tests/mutations.py`); none is kept in the repository.
Each test compares with a reference: the same files with the mutated lines left blank, so a
line keeps its index (`seq`). "Lost" is a turn the reference has that the mutated run does not;
"duplicated" is a turn stored twice; every line is either read or skipped with its reason.
`bench/mutations.py` runs the same checks on a larger campaign and prints its figures.
"""

from __future__ import annotations

import random
import socket
import sqlite3
import threading
import time
from collections import Counter
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import CORPUS, WORLD
from tests.mutations import CLASSES, mutate_line
from vyre.api import Memory
from vyre.cli.main import cli
from vyre.daemon import process
from vyre.daemon.protocol import MAX_LINE, call
from vyre.daemon.server import Daemon
from vyre.errors import DaemonError, DaemonUnavailable, LedgerBusy
from vyre.extract import extract_draft
from vyre.ledger import Ledger
from vyre.transcripts import ingest
from vyre.transcripts.lines import EARLIEST, LATEST

SOURCES = [d for d in (CORPUS, WORLD / "transcripts") if d.is_dir()]
RATE = 0.06  # the share of lines mutated in each file


def source_files() -> list[tuple[Path, list[bytes]]]:
    """(path under its source, lines) of every real and world transcript."""
    out = []
    for base in SOURCES:
        for path in sorted(base.rglob("*.jsonl")):
            out.append((Path(base.name) / path.relative_to(base), path.read_bytes().split(b"\n")))
    return out


def mutated_copies(tmp: Path, klasses: list[str], seed: str, rate: float = RATE):
    """A mutated copy of every source under tmp/mutated and a reference (the mutated lines
    blank) under tmp/reference. Returns both roots and {session: {mutated line indexes}}."""
    rng = random.Random(seed)
    mutated_root, reference_root = tmp / "mutated", tmp / "reference"
    where: dict[str, set[int]] = {}
    for rel, lines in source_files():
        out, ref = list(lines), list(lines)
        for i, line in enumerate(lines):
            if not line.strip() or rng.random() >= rate:
                continue
            bad = mutate_line(rng.choice(klasses), line, random.Random(rng.random()))
            if bad is not None:
                out[i], ref[i] = bad, b""
                where.setdefault(rel.stem, set()).add(i)
        for root, content in ((mutated_root, out), (reference_root, ref)):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"\n".join(content))
    return mutated_root, reference_root, where


def read_into(home: Path, root: Path):
    """Ingest root into a fresh ledger (no graph): the line path alone."""
    home.mkdir(parents=True)
    ledger = Ledger(home / "vyre.db")
    report = ingest(ledger, root, extract_draft)
    return ledger, report


def turns(ledger: Ledger) -> dict[tuple[str, int], tuple]:
    rows = ledger.db.execute("SELECT session, seq, by, kind, text, ts, msg FROM turns")
    return {(s, q): tuple(rest) for s, q, *rest in rows}


def lines_in(root: Path) -> int:
    return sum(
        1
        for path in root.rglob("*.jsonl")
        for line in path.read_bytes().split(b"\n")
        if line and not line.isspace()
    )


def assert_nothing_lost_or_doubled(got: dict, want: dict, mutated: dict[str, set[int]]) -> None:
    """Every reference turn is stored (a message's text may have gained a mutated line's
    part), nothing is stored twice, and every extra turn comes from a mutated line."""
    by_msg: dict[tuple[str, str], list] = {}
    for (session, seq), (_, kind, text, _, msg) in got.items():
        if msg and kind == "text":
            by_msg.setdefault((session, msg), []).append((seq, text))
    doubled = {k: v for k, v in by_msg.items() if len(v) > 1}
    assert not doubled, f"one message stored as several turns: {sorted(doubled)[:3]}"
    lost = []
    for (session, seq), (by, kind, text, _, msg) in want.items():
        mine = got.get((session, seq))
        if mine and mine[:2] == (by, kind) and (mine[2] == text or (msg and text in mine[2])):
            continue
        joined = by_msg.get((session, msg), []) if msg else []
        if not any(text in t for _, t in joined):
            lost.append((session, seq, by, kind))
    assert not lost, f"{len(lost)} turns lost, first {lost[:3]}"
    extra = [k for k in got.keys() - want.keys() if k[1] not in mutated.get(k[0], set())]
    assert not extra, f"turns from lines nobody mutated: {extra[:3]}"


def assert_stored_values_are_sane(got: dict) -> None:
    for (_, _), (by, kind, text, ts, msg) in got.items():
        assert isinstance(text, str) and isinstance(by, str) and isinstance(kind, str)
        assert msg is None or isinstance(msg, str)
        if ts is not None:
            assert EARLIEST <= datetime.fromisoformat(ts) < LATEST


pytestmark = pytest.mark.skipif(not SOURCES, reason="no transcripts to mutate")


@pytest.mark.parametrize("klass", sorted(CLASSES))
def test_each_mutated_line_is_read_or_skipped_alone_and_nothing_else_changes(klass, tmp_path):
    mutated_root, reference_root, where = mutated_copies(tmp_path, [klass], f"line:{klass}")
    assert sum(map(len, where.values())) >= 40, "too few lines mutated to mean anything"
    ledger, report = read_into(tmp_path / "home", mutated_root)
    reference, _ = read_into(tmp_path / "reference-home", reference_root)

    # per line: every line was read as a record, skipped with a reason, or left pending
    counted = report.records + sum(report.skipped.values()) + report.pending
    assert counted == lines_in(mutated_root)
    assert all(reason and count > 0 for reason, count in report.skipped.items())
    got, want = turns(ledger), turns(reference)
    assert_nothing_lost_or_doubled(got, want, where)
    assert_stored_values_are_sane(got)
    # the next file is read: every file the reference read is in the ledger too
    files = {row[0] for row in ledger.db.execute("SELECT session FROM files")}
    assert files >= {row[0] for row in reference.db.execute("SELECT session FROM files")}


def test_every_class_at_once_ingests_derives_and_reads_without_a_traceback(tmp_path, vyre_home):
    mutated_root, reference_root, where = mutated_copies(tmp_path, sorted(CLASSES), "all")
    result = CliRunner().invoke(cli, ["ingest", str(mutated_root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "repaired" in result.output
    with Memory() as memory:
        rooms = memory.reader.rooms()
        assert rooms
        for room in rooms:
            for fact in memory.facts(room):
                assert memory.why(fact.subject, fact.rel, room=room)
            memory.overview(room)
        memory.relevant("Draft a note to Priya about the plans", "/home/sam/work/keel-ash")
        got = turns(memory.ledger)
    reference, _ = read_into(tmp_path / "reference-home", reference_root)
    assert_nothing_lost_or_doubled(got, turns(reference), where)
    again = CliRunner().invoke(cli, ["derive", "--all"], catch_exceptions=False)
    assert again.exit_code == 0, again.output


def test_bad_lines_appended_later_lose_nothing_already_stored(tmp_path):
    sources = source_files()
    first = tmp_path / "root"
    for rel, lines in sources:
        (first / rel).parent.mkdir(parents=True, exist_ok=True)
        (first / rel).write_bytes(b"\n".join(lines[: len(lines) // 2]) + b"\n")
    ledger, _ = read_into(tmp_path / "home", first)
    before = turns(ledger)
    rng = random.Random("append")
    klasses = sorted(CLASSES)
    mutated: dict[str, set[int]] = {}
    for rel, lines in sources:
        half = len(lines) // 2
        rest = []
        for i, line in enumerate(lines[half:], start=half):
            bad = mutate_line(rng.choice(klasses), line, rng) if rng.random() < 0.2 else None
            rest.append(bad if bad is not None else line)
            if bad is not None:
                mutated.setdefault(rel.stem, set()).add(i)
        with open(first / rel, "ab") as f:
            f.write(b"\n".join(rest))
    report = ingest(ledger, first, extract_draft)
    assert sum(report.skipped.values()) > 0
    after = turns(ledger)
    changed = [k for k in before if k not in after or after[k][:2] != before[k][:2]]
    assert not changed, f"stored turns lost or changed by later bad lines: {changed[:3]}"
    assert len(after) > len(before)


def test_the_reasons_are_named_per_line():
    from vyre.transcripts.lines import parse, read

    deep = b'{"type":"user","x":' + b"[" * 5000 + b"]" * 5000 + b"}"
    cases = {
        b'{"type":"user","message":{"content":"half': "corrupt JSON",
        b"[1,2]": "not a JSON object",
        b'{"a":"caf\xe9"}': "not UTF-8",
        deep: "nested too deep",
    }
    for line, reason in cases.items():
        assert parse(line) == reason
    assert read({"type": ["user"]}, 0) == "unknown record type"
    assert read({"type": "user", "message": "hello"}, 0) == "malformed record"
    surrogate = parse(b'{"type":"user","message":{"role":"user","content":"cut \\ud83d here"}}')
    assert surrogate.reason == "lone surrogate"
    got = read(surrogate.record, 3)
    assert got.drafts[0].text == "cut \ufffd here"
    late = read({"type": "user", "timestamp": "9999-12-31T23:00:00-05:00", "message": {}}, 0)
    assert late.ts is None and late.repaired == "unreadable timestamp"


def test_a_record_without_a_time_that_repeats_a_dated_fact_derives(tmp_path, vyre_home):
    from tests.transcript import Transcript

    root = tmp_path / "projects"
    t = Transcript(root, cwd="/home/sam/work/keel-ash", session="s1", start="2026-09-01T10:00:00Z")
    said = "Priya Anand, the project architect at Keel & Ash Architects, sent the plans."
    t.user(said)
    t.user(said)
    del t.records[-1]["timestamp"]
    t.write()
    with Memory() as memory:
        done = memory.ingest(root)
        report, derived = done.report, done.derived
        assert report.turns == 2 and derived.facts > 0
        assert any(f.rel == "works_at" for f in memory.facts("*"))


def test_skip_counts_add_up_across_the_classes(tmp_path):
    """The campaign's accounting in small: each class's skips and repairs are reported."""
    mutated_root, _, _ = mutated_copies(tmp_path, sorted(CLASSES), "count", rate=0.1)
    _, report = read_into(tmp_path / "home", mutated_root)
    assert sum(report.skipped.values()) + sum(report.repaired.values()) > 0
    assert set(report.skipped) <= {
        "corrupt JSON",
        "not UTF-8",
        "not a JSON object",
        "nested too deep",
        "unknown record type",
        "malformed record",
    }
    assert Counter(report.repaired).keys() <= {"lone surrogate", "unreadable timestamp"}


# -- the daemon (item 4, item 8) --------------------------------------------------------------


@contextmanager
def daemon_in_thread(home: Path, root: Path, poll: float = 0.05):
    daemon = Daemon(home, root, poll=poll)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: process.status(home))
        yield daemon
    finally:
        daemon.stop.set()
        thread.join(20)


def wait_for(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


def _stored(home: Path, session: str) -> list[int]:
    db = sqlite3.connect(home / "vyre.db", timeout=5)
    try:
        return [r[0] for r in db.execute("SELECT seq FROM turns WHERE session = ?", (session,))]
    finally:
        db.close()


def test_the_daemon_reads_good_lines_beside_bad_ones_and_says_what_it_skipped(tmp_path, vyre_home):
    from tests.transcript import Transcript

    root = tmp_path / "projects"
    t = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    path = t.write()
    with daemon_in_thread(vyre_home, root):
        t.user("Tomas Berg, the site engineer at Halden Structures, checked the beams.")
        with open(path, "ab") as f:
            f.write(b'{"type":"user","timestamp":"9999-12-31T23:00:00-05:00","message":5}\n')
            f.write(b'{"type":"user","x":' + b"[" * 3000 + b"]" * 3000 + b"}\n")
            f.write(t.lines()[-1] + b"\n")
        wait_for(lambda: 3 in _stored(vyre_home, "k1"))
        result = CliRunner().invoke(cli, ["daemon", "status"])
        assert result.exit_code == 0
        assert "skipped 2 unreadable lines since start: 1 malformed record, 1 nested too deep" in (
            result.output
        )


def test_files_of_a_poll_that_failed_are_read_again_without_changing(
    tmp_path, vyre_home, monkeypatch
):
    from tests.transcript import Transcript

    root = tmp_path / "projects"
    t = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    t.user("First line.")
    path = t.write()
    real = Memory.ingest
    fail = {"left": 2}

    def flaky(self, *args, **kwargs):
        if kwargs.get("paths") is not None and fail["left"]:
            fail["left"] -= 1
            raise LedgerBusy("the ledger is locked by another process; try again shortly")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Memory, "ingest", flaky)
    with daemon_in_thread(vyre_home, root):
        t.user("Second line, written once; its file never changes again.")
        with open(path, "ab") as f:
            f.write(t.lines()[-1] + b"\n")
        wait_for(lambda: 1 in _stored(vyre_home, "k1"))
        assert fail["left"] == 0
        status = CliRunner().invoke(cli, ["daemon", "status"]).output
        assert "last error (" in status and "the ledger is locked by another process" in status
        assert "2 since start" in status


def test_a_cli_call_the_daemon_fails_ends_in_one_line(tmp_path, vyre_home, monkeypatch):
    root = tmp_path / "projects"
    root.mkdir()

    def broken(self, *args, **kwargs):
        raise RuntimeError("something inside broke\nwith a second line")

    monkeypatch.setattr(Memory, "facts", broken)
    with daemon_in_thread(vyre_home, root):
        result = CliRunner().invoke(cli, ["memory", "facts"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: the daemon failed (RuntimeError: something inside broke); see daemon.log"
    ]
    assert not isinstance(result.exception, RuntimeError)


def test_a_reply_past_8_mib_arrives_whole(tmp_path, vyre_home, monkeypatch):
    root = tmp_path / "projects"
    root.mkdir()
    big = [{"id": f"f{i}", "quote": "x" * 2_000} for i in range(5_000)]  # about 10 MiB
    monkeypatch.setattr(Memory, "project_suggest", lambda self, limit=10: big)
    with daemon_in_thread(vyre_home, root):
        got = call("project_suggest", {}, caller="cli", home=vyre_home, timeout=30)
        assert got == big
        too_long = {"x": "y" * (MAX_LINE + 10)}
        with pytest.raises(DaemonError, match="larger than 8 MiB"):
            call("project_suggest", too_long, caller="cli", home=vyre_home, timeout=30)
        assert process.status(vyre_home)  # and it still answers


def test_a_reply_cut_short_is_one_line_not_a_value_error(tmp_path, vyre_home):
    home = vyre_home
    home.mkdir(mode=0o700, exist_ok=True)
    path = home / "vyre.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def answer():
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(b'{"ok": true, "result": [1, 2')  # and hangs up
        conn.close()

    threading.Thread(target=answer, daemon=True).start()
    try:
        with pytest.raises(DaemonUnavailable, match="could not be read"):
            call("facts", {}, caller="cli", home=home)
    finally:
        server.close()
