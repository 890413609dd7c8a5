"""The fast `vyre`: read commands run by the daemon give the CLI's own output, byte for byte,
loading neither click nor pydantic in the caller; nothing that writes is ever served; the
top-level help is click's own rendering.

What the CLI prints with no daemon is taken in process (click's runner, as `vyre` would run
it); a few of those are also run as real processes, which must print the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import WORLD_NOW
from vyre.cli import common, served
from vyre.errors import OwnerOnly

KEEL = "/home/sam/work/keel-ash"
FAST = [sys.executable, "-c", "from vyre.cli.fast import main; main()"]

READS = [
    ["memory"],
    ["memory", "--project", "keel-ash"],
    ["memory", "about", "Priya", "--project", "keel-ash"],
    ["memory", "about", "Nobody At All"],  # a one-line error, exit 1
    ["memory", "facts", "--room", "harlow", "--json"],
    ["memory", "relevant", "Draft a note to Priya about the launch", "--cwd", KEEL],
    ["memory", "ask", "Where does Priya work?", "--cwd", KEEL],
    ["memory", "ask", "What is Keel & Ash Architects' VAT id?", "--cwd", KEEL],  # exit 1
    ["memory", "conflicts"],
    ["memory", "corrections"],
    ["memory", "hubs"],
    ["memory", "suggest-merges"],
    ["why", "Priya Anand", "works_at"],
    ["project", "list"],
    ["project", "suggest"],
    ["memory", "facts", "--room", "nowhere"],  # unknown room: one line, exit 1
    ["memory", "about", "--help"],
]


def run(argv: list[str], home: Path, *, now: str = WORLD_NOW) -> subprocess.CompletedProcess:
    env = {**os.environ, "VYRE_HOME": str(home), "VYRE_NOW": now}
    return subprocess.run([*FAST, *argv], capture_output=True, text=True, env=env, timeout=120)


def in_process(argv: list[str], home: Path, *, now: str = WORLD_NOW) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) of the full click CLI run here, with no daemon."""
    from vyre.cli.main import cli

    env = {"VYRE_HOME": str(home), "VYRE_NOW": now}
    out = CliRunner().invoke(cli, argv, env=env, prog_name="vyre", catch_exceptions=False)
    return out.stdout, out.stderr, out.exit_code


@pytest.fixture(scope="module")
def local_home(world_template, tmp_path_factory):
    """A copy of the world no daemon serves."""
    from tests.conftest import copy_home

    return copy_home(world_template, tmp_path_factory.mktemp("local") / "vyre")


@pytest.fixture(scope="module")
def local_outputs(local_home):
    """Each read as the CLI prints it with no daemon."""
    return {tuple(argv): in_process(argv, local_home) for argv in READS}


# reads whose output, error or help the CLI's own process must print as it does in process
IN_A_PROCESS = [READS[0], READS[3], READS[7], READS[-1]]


@pytest.mark.parametrize("argv", IN_A_PROCESS, ids=" ".join)
def test_the_cli_in_its_own_process_prints_what_it_prints_in_process(argv, local_home):
    real = run(argv, local_home)
    assert (real.stdout, real.stderr, real.returncode) == in_process(argv, local_home)


@pytest.mark.parametrize("argv", READS, ids=" ".join)
def test_a_read_through_the_daemon_prints_what_the_cli_prints(argv, world_daemon, local_outputs):
    fast = run(argv, world_daemon)
    assert (fast.stdout, fast.stderr, fast.returncode) == local_outputs[tuple(argv)]
    assert served.served_command(argv)


def test_the_callers_clock_is_the_one_read(world_daemon, world_template, tmp_path):
    from tests.conftest import copy_home

    later = "2027-06-01T12:00:00Z"  # the daemon runs at the world's now; this caller later
    local, _, _ = in_process(
        ["memory", "about", "Priya", "--project", "keel-ash"],
        copy_home(world_template, tmp_path / "vyre"),
        now=later,
    )
    fast = run(["memory", "about", "Priya", "--project", "keel-ash"], world_daemon, now=later)
    assert fast.stdout == local and "months ago" in fast.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "correct", "f14aa9c7949", "--action", "wrong"],
        ["memory", "pin", "f14aa9c7949"],
        ["project", "add", "new", "--folder", "/w/new"],
        ["project", "remove", "harlow"],
        ["ingest"],
        ["derive"],
        ["daemon", "stop"],
        ["recall", "launch date"],
        ["memory", "remember", "my wife is Ana"],
        ["harness", "install"],
        [],
        ["--version"],
    ],
    ids=" ".join,
)
def test_nothing_that_writes_or_asks_who_is_here_is_served(argv):
    assert not served.served_command(argv)


def test_a_refused_command_through_the_fast_entry_is_refused_by_the_cli(world_daemon):
    # not served: the CLI runs it here, finds no terminal on stdin and refuses in one line
    out = run(["memory", "pin", "f14aa9c7949"], world_daemon)
    assert out.returncode == 1
    assert "refused: there is no terminal on stdin" in out.stderr


def test_a_served_command_can_only_read(world_memory):
    memory = served._ReadOnly(world_memory)
    assert memory.facts("harlow")  # reads pass
    for write in ("correct", "pin", "mute", "merge", "split", "uncorrect", "remember"):
        with pytest.raises(OwnerOnly):
            getattr(memory, write)


def test_a_served_command_reads_the_callers_folder(world_memory, tmp_path):
    assert common.cwd() == os.getcwd()
    with common.serving(world_memory, tmp_path):
        assert common.cwd() == str(tmp_path)
        assert common.open_memory() is world_memory
    assert common.cwd() == os.getcwd()


def test_served_commands_run_side_by_side_each_printing_its_own(world_memory, tmp_path):
    """A handed `vyre ingest` that takes long holds up no read command, and what each prints
    reaches only its own caller (and nothing of theirs the daemon's own streams)."""
    (tmp_path / "empty").mkdir()
    reading, release = threading.Event(), threading.Event()

    class SlowIngest:
        def __getattr__(self, name):
            return getattr(world_memory, name)

        def ingest(self, root=None, *args, **kwargs):
            reading.set()
            assert release.wait(60)
            return world_memory.ingest(root)

    answers: dict[str, dict] = {}

    def serve(name, argv, memory):
        answers[name] = served.run(argv, cwd=str(tmp_path), now=WORLD_NOW, memory=memory)

    ingest = threading.Thread(target=serve, args=("ingest", ["ingest", "empty"], SlowIngest()))
    ingest.start()
    try:
        assert reading.wait(60)
        facts = ["memory", "facts", "--room", "harlow", "--json"]
        read = threading.Thread(target=serve, args=("read", facts, world_memory))
        read.start()
        read.join(60)
        assert not read.is_alive(), "a read command waited for the handed ingest"
        assert "ingest" not in answers
    finally:
        release.set()
        ingest.join(60)
    assert answers["read"]["code"] == 0 and answers["read"]["err"] == ""
    assert json.loads(answers["read"]["out"]) and "ingested" not in answers["read"]["out"]
    assert answers["ingest"]["code"] == 0
    assert answers["ingest"]["out"].startswith("ingested ")
    assert "read by the running daemon" in answers["ingest"]["err"]
    assert answers["read"]["out"] not in answers["ingest"]["out"]
    print("the test's own line")  # not a served command's: its thread has no buffers
    assert "the test's own line" not in answers["ingest"]["out"] + answers["read"]["out"]


def test_the_fast_entry_loads_neither_click_nor_pydantic(world_daemon):
    code = (
        "import sys; from vyre.cli import fast; "
        f"code = fast.served(['memory', 'relevant', 'Draft a note to Priya', '--cwd', {KEEL!r}]); "
        "print(code, sorted(m for m in ('click', 'pydantic', 'vyre.api', 'vyre.models') "
        "if m in sys.modules), file=sys.stderr)"
    )
    env = {**os.environ, "VYRE_HOME": str(world_daemon), "VYRE_NOW": WORLD_NOW}
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert "Priya Anand works at Keel & Ash Architects" in out.stdout
    assert out.stderr.strip() == "0 []"


def test_without_a_daemon_the_fast_entry_leaves_it_to_the_cli(vyre_home):
    from vyre.cli import fast

    assert fast.served(["memory"]) is None  # no socket: nothing sent, the CLI runs it


def test_the_handed_commands_are_the_ones_the_fast_entry_names():
    from vyre.cli import fast
    from vyre.cli.main import cli

    marked = {name for name, cmd in cli.commands.items() if getattr(cmd, common.HANDED, False)}
    assert marked == set(fast.HANDED) == {"ingest"}
    assert served.handed_command(["ingest"]) and served.handed_command(["ingest", "somewhere"])
    assert not served.handed_command(["derive"]) and not served.handed_command(["memory"])


def test_ingest_is_handed_to_the_running_daemon(vyre_home, tmp_path):
    """`vyre ingest` while the daemon runs: the daemon reads (from the caller's folder and
    projects folder, not its own), the caller waits, loads neither click nor pydantic, and
    is told who did it."""
    from tests.transcript import Transcript
    from vyre.daemon import process

    own = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    Transcript(own, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z").user(
        "Priya Anand, the project architect at Keel & Ash Architects, sent the plans."
    ).write()
    theirs = tmp_path / "elsewhere" / "projects"  # the caller's CLAUDE_CONFIG_DIR, not the daemon's
    t = Transcript(theirs, cwd="/w/harlow", session="h1", start="2026-09-02T10:00:00Z")
    t.user("Tomasz Kowalski, the CTO at Harlow Dental, wants the export by Friday.")
    t.write()
    process.start(vyre_home)
    try:
        env = {**os.environ, "VYRE_HOME": str(vyre_home), "CLAUDE_CONFIG_DIR": str(theirs.parent)}
        code = (
            "import sys; from vyre.cli import fast; code = fast.served(sys.argv[1:]); "
            "print(code, sorted(m for m in ('click', 'pydantic', 'vyre.api') if m in sys.modules),"
            " file=sys.stderr)"
        )
        out = subprocess.run(
            [sys.executable, "-I", "-c", code, "ingest"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert out.stdout.startswith("ingested 1 file (1 with new lines)"), out
        assert "read by the running daemon (pid" in out.stderr
        assert out.stderr.strip().endswith("0 []")
        # a relative ROOT is the caller's folder's, however the daemon was started
        again = subprocess.run(
            [*FAST, "ingest", "projects"],
            capture_output=True,
            text=True,
            env=env,
            cwd=theirs.parent,
            timeout=120,
        )
        assert again.returncode == 0 and again.stdout.startswith("ingested 1 file (0 with new")
        about = run(["memory", "about", "Tomasz Kowalski", "--project", "*"], vyre_home)
        assert "Harlow Dental" in about.stdout, about
    finally:
        process.stop(vyre_home)
