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

import os
import random
import socket
import sqlite3
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import CORPUS, require_shared, wait_for
from tests.mutations import (
    CLASSES,
    SOURCES,
    assert_stored_values_are_sane,
    compare,
    lines_in,
    mutate_line,
    mutated_copies,
    read_into,
    source_files,
    turns,
)
from vyre.api import Memory
from vyre.cli.main import cli
from vyre.daemon import process
from vyre.daemon.protocol import MAX_LINE, call
from vyre.daemon.server import Daemon
from vyre.errors import DaemonError, DaemonUnavailable, LedgerBusy, Untrusted
from vyre.extract import extract_draft
from vyre.transcripts import ingest


def assert_nothing_lost_or_doubled(got: dict, want: dict, mutated: dict[str, set[int]]) -> None:
    lost, doubled, extra = compare(got, want, mutated)
    assert not doubled, f"one message stored as several turns: {doubled[:3]}"
    assert not lost, f"{len(lost)} turns lost, first {lost[:3]}"
    assert not extra, f"turns from lines nobody mutated: {extra[:3]}"


pytestmark = pytest.mark.skipif(not SOURCES, reason="no transcripts to mutate")


def test_the_real_transcripts_are_among_those_mutated():
    """Real text nobody here wrote is the point of these tests: a run without ../shared
    mutates the bundled world alone, which CI (CI=true) refuses rather than passes."""
    assert require_shared(CORPUS) in SOURCES


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
        # status answers at once, beside the writer: the poll's counts come when it ends
        said = "skipped 2 unreadable lines since start: 1 malformed record, 1 nested too deep"
        result = wait_for(
            lambda: (
                (r := CliRunner().invoke(cli, ["daemon", "status"])).exit_code == 0
                and said in r.output
                and r
            )
        )
        assert result.exit_code == 0 and said in result.output


def test_the_daemon_starts_over_transcripts_full_of_bad_lines(tmp_path, vyre_home):
    mutated_root, _, _ = mutated_copies(tmp_path, sorted(CLASSES), "daemon start")
    direct, _ = read_into(tmp_path / "direct", mutated_root)
    want = len(direct.sessions())
    with daemon_in_thread(vyre_home, mutated_root):
        info = process.status(vyre_home)
        assert info["sessions"] == want and info["last_error"] is None
        assert sum(info["skipped"].values()) > 0


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
        status = wait_for(
            lambda: (
                "2 since start" in (out := CliRunner().invoke(cli, ["daemon", "status"]).output)
                and out
            )
        )
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


# -- the same transcripts by another path (item 5) ---------------------------------------------


def _keel(root: Path, session: str = "k1"):
    from tests.transcript import Transcript

    t = Transcript(root, cwd="/home/sam/work/keel", session=session, start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.assistant("Noted: Priya Anand at Keel & Ash Architects.")
    t.user("Tomas Berg, the site engineer at Halden Structures, checked the beams.")
    return t


def _facts(memory: Memory) -> list[tuple]:
    return sorted((f.subject, f.rel, f.object, f.confidence) for f in memory.facts("*"))


def _count(memory: Memory) -> int:
    return memory.ledger.db.execute("SELECT count(*) FROM turns").fetchone()[0]


@pytest.mark.parametrize("how", ["relative root", "symlinked home", "moved home", "copied home"])
def test_the_same_transcripts_by_another_path_are_not_read_again(how, tmp_path, monkeypatch):
    real_home = tmp_path / "real-home"
    root = real_home / ".claude" / "projects"
    _keel(root).write()
    _keel(root, "k2").write()
    with Memory(tmp_path / "vyre") as memory:
        memory.ingest(root)
        turns_before, facts_before = _count(memory), _facts(memory)
        if how == "relative root":
            monkeypatch.chdir(real_home)
            again = Path(".claude/projects")
        elif how == "symlinked home":
            (tmp_path / "home-link").symlink_to(real_home)
            again = tmp_path / "home-link" / ".claude" / "projects"
        elif how == "moved home":
            again = tmp_path / "new-home" / ".claude" / "projects"
            again.parent.parent.mkdir()
            real_home.joinpath(".claude").rename(again.parent)
        else:  # copied to another place, the old copy kept as a backup
            import shutil

            again = tmp_path / "other-disk" / "projects"
            shutil.copytree(root, again)
        report = memory.ingest(again).report
        assert report.turns == 0 and report.read == 0
        assert _count(memory) == turns_before
        assert _facts(memory) == facts_before
        sessions = sorted(s["id"] for s in memory.ledger.sessions())
        assert sessions == ["k1", "k2"]
        # and the file goes on being read where it is now
        t = _keel(again if how != "relative root" else root, "k1")
        path = next(Path(again).rglob("k1.jsonl"))
        t.user("Lena Park, the office manager at Summit Dental, called.")
        with open(path, "ab") as f:
            f.write(t.lines()[-1] + b"\n")
        report = memory.ingest(again).report
        assert report.turns == 1 and _count(memory) == turns_before + 1


def test_a_moved_copy_whose_later_lines_differ_is_read_again_as_one_session(tmp_path):
    import shutil

    root = tmp_path / "old" / "projects"
    t = _keel(root)
    t.write()
    with Memory(tmp_path / "vyre") as memory:
        memory.ingest(root)
        new = tmp_path / "new" / "projects"
        shutil.copytree(root, new)
        shutil.rmtree(root)
        t.records[-1]["message"]["content"] = "Lena Park, the office manager at Summit Dental."
        t.write(next(new.rglob("k1.jsonl")))
        report = memory.ingest(new).report
        assert report.rewrites == 1
        assert [s["id"] for s in memory.ledger.sessions()] == ["k1"]
        texts = [r[0] for r in memory.ledger.db.execute("SELECT text FROM turns ORDER BY seq")]
        assert len(texts) == 3 and texts[-1].startswith("Lena Park")


def test_a_symlinked_transcript_beside_its_target_is_read_once(tmp_path):
    root = tmp_path / "projects"
    path = _keel(root).write()
    (path.parent / "link.jsonl").symlink_to(path)
    with Memory(tmp_path / "vyre") as memory:
        report = memory.ingest(root).report
        assert report.aliases == 1
        assert "1 file already read under another path" in report.summary()
        assert sorted(s["id"] for s in memory.ledger.sessions()) == ["k1"]
        assert _count(memory) == 3


# -- seqs, duplicates, rewrites (item 11) --------------------------------------------------------


def test_a_half_written_progress_line_is_not_taken_and_seqs_stay_line_indexes(tmp_path):
    root = tmp_path / "projects"
    t = _keel(root)
    t.progress()
    t.user("Marek Nowak, the foreman at Halden Structures, starts Monday.")
    lines = t.lines()
    path = t.path
    path.parent.mkdir(parents=True)
    half = lines[3][: lines[3].index(b'"type":"progress"') + 30]
    path.write_bytes(b"".join(line + b"\n" for line in lines[:3]) + half)
    ledger, report = read_into(tmp_path / "home", root)
    assert report.pending == 1
    with open(path, "ab") as f:
        f.write(lines[3][len(half) :] + b"\n" + lines[4] + b"\n")
    ingest(ledger, root, extract_draft)
    got = ledger.db.execute("SELECT seq, text FROM turns ORDER BY seq").fetchall()
    assert [seq for seq, _ in got] == [0, 1, 2, 4]
    assert got[-1][1].startswith("Marek Nowak")


def test_a_line_written_twice_is_stored_once(tmp_path):
    root = tmp_path / "projects"
    t = _keel(root)
    t.assistant("First half of one message.", msg="msg_x")
    t.assistant("Second half of it.", msg="msg_x")
    lines = t.lines()
    path = t.path
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(line + b"\n" for line in [*lines, lines[0]]))
    ledger, report = read_into(tmp_path / "home", root)
    assert report.skipped == Counter({"duplicate uuid": 1})
    assert ledger.db.execute("SELECT count(*) FROM turns").fetchone()[0] == 4
    with open(path, "ab") as f:  # later, in another read: the person's line and a message half
        f.write(lines[0] + b"\n" + lines[4] + b"\n")
    again = ingest(ledger, root, extract_draft)
    assert again.skipped == Counter({"duplicate uuid": 2})
    assert ledger.db.execute("SELECT count(*) FROM turns").fetchone()[0] == 4
    (text,) = ledger.db.execute("SELECT text FROM turns WHERE msg = 'msg_x'").fetchone()
    assert text == "First half of one message.\n\nSecond half of it."
    mentions = ledger.db.execute("SELECT * FROM mentions").fetchall()
    assert len(mentions) == len(set(mentions))


def test_a_rewrite_that_keeps_the_first_256_bytes_is_read_again(tmp_path):
    root = tmp_path / "projects"
    t = _keel(root)
    path = t.write()
    ledger, _ = read_into(tmp_path / "home", root)
    first = path.read_bytes().split(b"\n")[0]
    assert len(first) > 256
    t.records[1]["message"]["content"][0]["text"] = "Noted: someone else entirely."
    t.user("A new line, so the file grew.")
    path.write_bytes(b"".join(line + b"\n" for line in t.lines()))
    assert path.read_bytes().startswith(first)
    report = ingest(ledger, root, extract_draft)
    assert report.rewrites == 1
    texts = [r[0] for r in ledger.db.execute("SELECT text FROM turns ORDER BY seq")]
    assert texts[1] == "Noted: someone else entirely." and len(texts) == 4


# -- processes at once, odd files, odd homes (item 11) ---------------------------------------------


def test_two_ingests_at_once_without_a_daemon_end_cleanly(tmp_path, vyre_home):
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    root = tmp_path / "projects"
    for i in range(40):
        t = _keel(root, f"s{i:02d}")
        for j in range(30):
            t.user(f"Line {j} of session {i}: Lena Park at Summit Dental called again.")
        t.write()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "vyre.cli.main", "ingest", str(root)],
            cwd=ROOT,
            env=os.environ.copy(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outcomes = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, outcomes, strict=True):
        assert "Traceback" not in err and "IntegrityError" not in err, err
        assert p.returncode == 0 or len(err.strip().splitlines()) == 1, err
    assert any(p.returncode == 0 for p in procs)
    with Memory() as memory:
        memory.ingest(root)
        got = sorted(memory.ledger.db.execute("SELECT session, seq, text FROM turns"))
    with Memory(tmp_path / "clean") as clean:
        clean.ingest(root)
        want = sorted(clean.ledger.db.execute("SELECT session, seq, text FROM turns"))
    assert got == want


def test_a_fifo_named_like_a_transcript_never_blocks(tmp_path, vyre_home):
    import os

    root = tmp_path / "projects"
    _keel(root).write()
    os.mkfifo(root / "-home-sam-work-keel" / "wedge.jsonl")
    ledger, report = read_into(tmp_path / "home", root)
    assert ledger.db.execute("SELECT count(*) FROM turns").fetchone()[0] == 3
    report = ingest(
        ledger, root, extract_draft, paths=[root / "-home-sam-work-keel" / "wedge.jsonl"]
    )
    assert report.skipped == Counter({"unreadable file": 1})
    with daemon_in_thread(vyre_home, root):
        t = _keel(root, "k2")
        t.write()
        wait_for(lambda: _stored(vyre_home, "k2") == [0, 1, 2])


def test_vyre_home_pointing_at_a_file_is_one_line(tmp_path, monkeypatch):
    home = tmp_path / "not-a-folder"
    home.write_text("hello")
    monkeypatch.setenv("VYRE_HOME", str(home))
    for args in (["ingest"], ["memory"], ["daemon", "start"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output.strip().splitlines() == [
            f"Error: VYRE_HOME is {home}, which is not a folder"
        ]
    assert home.read_text() == "hello"


# -- stopping the right process, planted paths (items 7 and 10) ----------------------------------


def test_stop_after_a_crash_never_signals_the_process_that_got_the_old_pid(vyre_home):
    import subprocess

    vyre_home.mkdir(mode=0o700, exist_ok=True)
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        (vyre_home / "daemon.lock").write_text(str(stranger.pid))  # a dead daemon's pid
        (vyre_home / "vyre.sock").touch()
        result = CliRunner().invoke(cli, ["daemon", "stop"])
        assert result.exit_code == 0 and "no daemon was running" in result.output
        assert stranger.poll() is None  # still alive: never signalled
    finally:
        stranger.kill()
        stranger.wait()


def test_stop_finds_a_daemon_that_no_longer_answers_by_its_lock(tmp_path, vyre_home):
    root = tmp_path / "projects"
    root.mkdir()
    info = process.start(vyre_home)
    assert process.holder(vyre_home) == info["pid"]
    (vyre_home / "vyre.sock").unlink()  # it cannot be asked to stop: it is signalled
    assert process.stop(vyre_home) is True
    assert process.holder(vyre_home) is None


@pytest.mark.parametrize("name", ["daemon.lock", "daemon.log"])
def test_a_planted_link_at_the_lock_or_log_is_refused_and_its_target_untouched(
    name, tmp_path, vyre_home
):
    import os

    vyre_home.mkdir(mode=0o700, exist_ok=True)
    target = tmp_path / "bashrc"
    target.write_text("export PATH=/usr/bin\n")
    target.chmod(0o644)
    (vyre_home / name).symlink_to(target)
    result = CliRunner().invoke(cli, ["daemon", "start"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: refused: {vyre_home / name} is a symbolic link (someone may have planted it); "
        "remove it"
    ]
    assert target.read_text() == "export PATH=/usr/bin\n"
    assert (os.stat(target).st_mode & 0o777) == 0o644
    assert process.status(vyre_home) is None


def test_hooks_and_the_cli_send_nothing_to_a_socket_that_is_not_the_users(tmp_path, vyre_home):
    import os
    import subprocess
    import sys

    root = tmp_path / "projects"
    root.mkdir()
    with daemon_in_thread(vyre_home, root):
        vyre_home.chmod(0o755)  # the home opened to others: a socket there could be anyone's
        try:
            with pytest.raises(Untrusted, match="open to other users"):
                call("ping", caller="cli", home=vyre_home)
            result = CliRunner().invoke(cli, ["memory"])
            assert result.exit_code == 1
            assert result.output.startswith(f"Error: refused: {vyre_home} is open to other users")
            payload = '{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit",'
            payload += '"prompt":"Draft a note to Priya"}'
            hook = subprocess.run(
                [sys.executable, "-I", "-m", "vyre.hooks", "UserPromptSubmit"],
                input=payload,
                capture_output=True,
                text=True,
                env={**os.environ, "VYRE_HOME": str(vyre_home)},
                timeout=30,
            )
            assert hook.returncode == 0 and hook.stdout == ""
        finally:
            vyre_home.chmod(0o700)
        assert call("ping", caller="cli", home=vyre_home)["pid"]


def test_a_socket_file_of_another_kind_is_refused(vyre_home):
    vyre_home.mkdir(mode=0o700, exist_ok=True)
    (vyre_home / "vyre.sock").write_text("not a socket")
    with pytest.raises(Untrusted, match="is not a socket of this user's"):
        call("ping", caller="cli", home=vyre_home)


# -- damaged stores, backups, vyre doctor (item 9, the ledger side) -------------------------------


def _home_with_user_rows(tmp_path, monkeypatch) -> Path:
    """A home with transcripts read, a project, a pick and a correction."""
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    _keel(root).write()
    _keel(root, "k2").write()
    monkeypatch.setattr("vyre.cli.common.stdin_is_terminal", lambda: True)  # the owner
    runner = CliRunner()
    for args in (
        ["ingest"],
        ["project", "add", "keel", "--name", "Keel", "--folder", "/home/sam/work/keel"],
        ["project", "pick", "keel", "k2"],
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, (args, result.output)
    with Memory() as memory:  # as the owner would at a terminal
        memory.correct(["Tomas Berg", "works_at", "Halden Structures"], "wrong", caller="cli")
    return root


def _user_rows(home: Path) -> dict:
    db = sqlite3.connect(home / "vyre.db")
    try:
        return {
            "projects": db.execute("SELECT slug, name FROM projects").fetchall(),
            "picks": db.execute("SELECT slug, session FROM picks").fetchall(),
            "corrections": db.execute(
                "SELECT kind, action, subject_label, rel FROM memory_corrections"
            ).fetchall(),
        }
    finally:
        db.close()


def test_every_write_of_the_users_rows_is_backed_up_beside_the_ledger(
    tmp_path, vyre_home, monkeypatch
):
    from vyre.ledger import backup

    _home_with_user_rows(tmp_path, monkeypatch)
    path, data = backup.newest(vyre_home)
    assert (path.stat().st_mode & 0o777) == 0o600
    assert (path.parent.stat().st_mode & 0o777) == 0o700
    tables = data["tables"]
    assert [r[0] for r in tables["projects"]["rows"]] == ["keel"]
    assert tables["picks"]["rows"] == [["keel", "k2"]]
    assert [r[1] for r in tables["memory_corrections"]["rows"]] == ["correct"]
    assert "turns" not in tables  # transcripts can be read again: only the user's rows
    count = len(backup.backups(vyre_home))
    CliRunner().invoke(cli, ["ingest"])  # nothing of the user's changed: no new backup
    assert len(backup.backups(vyre_home)) == count
    with Memory() as memory:  # rolling: the newest KEEP are kept
        for i in range(backup.KEEP + 5):
            memory.project_add(f"p{i}", f"Project {i}", [f"/w/p{i}"], caller="local")
    names = backup.backups(vyre_home)
    assert len(names) == backup.KEEP
    newest_rows = backup.read(names[0])["tables"]["projects"]["rows"]
    assert len(newest_rows) == backup.KEEP + 6


def test_a_zero_byte_ledger_is_refused_never_made_anew(tmp_path, vyre_home, monkeypatch):
    _home_with_user_rows(tmp_path, monkeypatch)
    (vyre_home / "vyre.db").write_bytes(b"")
    for suffix in ("-wal", "-shm"):
        Path(f"{vyre_home / 'vyre.db'}{suffix}").unlink(missing_ok=True)
    for args in (["ingest"], ["memory"], ["project", "list"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "is damaged (it is empty: 0 bytes)" in lines[0]
        assert "vyre doctor" in lines[0]
    assert (vyre_home / "vyre.db").stat().st_size == 0
    with pytest.raises(process.DaemonControlError, match="is damaged"):
        process.start(vyre_home)


def _noise(path: Path, page: int = 3, pages: int = 2) -> None:
    data = bytearray(path.read_bytes())
    size = 4096
    rng = random.Random("noise")
    for i in range(page * size, min(len(data), (page + pages) * size)):
        data[i] = rng.randrange(256)
    path.write_bytes(bytes(data))


def _checkpointed(home: Path) -> Path:
    db = sqlite3.connect(home / "vyre.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return home / "vyre.db"


def test_noise_in_a_ledger_page_is_reported_plainly(tmp_path, vyre_home, monkeypatch):
    root = _home_with_user_rows(tmp_path, monkeypatch)
    for i in range(60):  # enough turns that the noise lands in the turns' pages
        _keel(root, f"more{i}").write()
    CliRunner().invoke(cli, ["ingest"])
    path = _checkpointed(vyre_home)
    pages = path.stat().st_size // 4096
    _noise(path, page=pages // 2, pages=max(2, pages // 4))
    outcomes = []
    for args in (["derive", "--all"], ["ingest"], ["memory"], ["why", "Priya Anand"]):
        result = CliRunner().invoke(cli, args)
        outcomes.append(result.exit_code)
        assert not isinstance(result.exception, sqlite3.Error), (args, result.exception)
        if result.exit_code:
            assert len(result.output.strip().splitlines()) == 1, result.output
            assert "vyre doctor" in result.output or "cannot be used" in result.output
    assert any(outcomes), "the damage went unnoticed"
    check = CliRunner().invoke(cli, ["doctor"])
    assert check.exit_code == 1
    assert "FAIL ledger: damaged" in check.output


def test_doctor_repairs_a_damaged_ledger_from_what_reads_and_the_backup(
    tmp_path, vyre_home, monkeypatch
):
    root = _home_with_user_rows(tmp_path, monkeypatch)
    want = _user_rows(vyre_home)
    with Memory() as memory:
        facts = sorted((f.subject, f.rel, f.object) for f in memory.facts("*"))
        turns = sorted(memory.ledger.db.execute("SELECT session, seq, text FROM turns"))
    path = _checkpointed(vyre_home)
    _noise(path, page=0, pages=1)  # the header page: SQLite cannot read the file at all
    broken = CliRunner().invoke(cli, ["memory"])
    assert broken.exit_code == 1 and "is damaged" in broken.output

    repaired = CliRunner().invoke(cli, ["doctor", "--repair"])
    assert repaired.exit_code == 0, repaired.output
    assert "repaired: moved the damaged ledger to vyre.db.damaged-" in repaired.output
    assert "repaired: restored from user-rows-" in repaired.output
    assert list(vyre_home.glob("vyre.db.damaged-*"))  # kept, never deleted
    assert _user_rows(vyre_home) == want
    with Memory() as memory:
        assert sorted(memory.ledger.db.execute("SELECT session, seq, text FROM turns")) == turns
        after = sorted((f.subject, f.rel, f.object) for f in memory.facts("*"))
    assert after == facts  # the correction (Tomas Berg works_at: wrong) holds again
    assert all(line.startswith("ok") for line in repaired.output.splitlines()[-5:])
    assert CliRunner().invoke(cli, ["doctor"]).exit_code == 0
    assert root.is_dir()


def test_doctor_salvages_rows_around_a_damaged_page(tmp_path, vyre_home, monkeypatch):
    root = _home_with_user_rows(tmp_path, monkeypatch)
    for i in range(80):
        _keel(root, f"more{i}").write()
    CliRunner().invoke(cli, ["ingest"])
    want = _user_rows(vyre_home)
    path = _checkpointed(vyre_home)
    pages = path.stat().st_size // 4096
    _noise(path, page=pages // 2, pages=2)
    gone = root / "-home-sam-work-keel" / "more0.jsonl"
    gone.unlink()  # Claude Code deleted an old transcript: only the ledger had its turns
    result = CliRunner().invoke(cli, ["doctor", "--repair"])
    assert result.exit_code == 0, result.output
    assert "salvaged" in result.output
    assert _user_rows(vyre_home) == want
    with Memory() as memory:
        sessions = {s["id"] for s in memory.ledger.sessions()}
    assert {f"more{i}" for i in range(1, 80)} <= sessions


def test_doctor_says_what_it_checks_and_mends_home_files(tmp_path, vyre_home):
    vyre_home.mkdir(exist_ok=True)
    vyre_home.chmod(0o755)
    (tmp_path / "target").write_text("x")
    (vyre_home / "daemon.log").symlink_to(tmp_path / "target")
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert f"FAIL home: {vyre_home} is open to others (mode 755) (--repair: chmod 700)" in (
        result.output
    )
    assert "daemon.log is a symbolic link" in result.output
    fixed = CliRunner().invoke(cli, ["doctor", "--repair"])
    assert fixed.exit_code == 0, fixed.output
    assert (vyre_home.stat().st_mode & 0o777) == 0o700
    assert not (vyre_home / "daemon.log").exists() and (tmp_path / "target").read_text() == "x"


# -- tool events sent twice (item 6) -----------------------------------------------------------


@pytest.mark.parametrize("event", ["PostToolUse", "Stop"])
def test_a_tool_event_the_daemon_answers_late_is_stored_once(
    event, tmp_path, vyre_home, monkeypatch
):
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT
    from vyre.hooks import context

    root = tmp_path / "projects"
    root.mkdir()
    real = context.record

    def slow(*args, **kwargs):  # past the hook's 0.3 s: it gives up and writes directly
        time.sleep(0.6)
        return real(*args, **kwargs)

    monkeypatch.setattr(context, "record", slow)
    payload = (ROOT / "tests" / "payloads" / f"{event}.json").read_text()
    with daemon_in_thread(vyre_home, root):
        for _ in range(3):
            hook = subprocess.run(
                [sys.executable, "-I", "-m", "vyre.hooks", event],
                input=payload,
                capture_output=True,
                text=True,
                env={**os.environ, "VYRE_HOME": str(vyre_home)},
                timeout=30,
            )
            assert hook.returncode == 0
        time.sleep(1.5)  # the daemon's late writes land
    db = sqlite3.connect(vyre_home / "vyre.db")
    rows = db.execute("SELECT event, key FROM tool_events").fetchall()
    db.close()
    if "tool_use_id" in json.loads(payload):
        assert len(rows) == 1  # one call, sent three times, both ways: one row
    else:
        assert len(rows) == 3  # three events with no id of their own: one row each
        assert len({k for _, k in rows}) == 3


def test_a_backup_holds_binary_rows_and_restores_them_as_they_were(tmp_path):
    from vyre.ledger import Ledger, backup

    ledger = Ledger(tmp_path / "vyre.db")
    key = bytes(range(256))
    with ledger.transaction() as db:
        db.execute(
            "INSERT INTO deck_passkeys (credential, public_key, created) VALUES (?, ?, ?)",
            (b"\x00cred", key, "2026-12-01T10:00:00"),
        )
    _, snap = backup.newest(tmp_path)
    ledger.close()
    fresh = Ledger(tmp_path / "fresh.db")
    with fresh.transaction() as db:
        assert backup.restore(db, snap)["deck_passkeys"] == 1
    assert fresh.db.execute("SELECT credential, public_key FROM deck_passkeys").fetchall() == [
        (b"\x00cred", key)
    ]
