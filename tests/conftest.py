"""Every test runs in its own homes: nothing touches the real ~/.claude or ~/.vyre.

Fixtures to reuse (they keep the suite fast: please use them rather than building again):

- `vyre_home`: this test's empty VYRE_HOME (every test has one; see `isolated`).
- `world_home`: this test's VYRE_HOME holding the bundled eval world, copied from one built
  once per session (a copy is ~50 ms, a build ~1.7 s), with VYRE_NOW at the world's clock.
  Write to it freely: it is this test's own.
- `world_memory`: a `Memory` open on `world_home`, closed after the test.
- `world_daemon`: one daemon per test module over its own copy of the world (starting one
  costs a second or more). Tests that share it must not depend on each other's writes:
  read what you wrote by your own session ids, or use `world_home` and a daemon of your own.
- `world_now`: the world's "now" as text.
- `at_terminal`: the CLI run in-process (CliRunner) takes stdin for a terminal, so owner
  commands (corrections, project changes) run; without it they are refused, as in a script.

- `built_homes` (`BuiltHomes`): every home `vyre.evaluate.memory.build` makes is built once
  per run (by the first xdist worker to need it, under a lock) and copied after that, keyed
  by what built it; the memory eval's `score` runs once per world and settings (per worker).
  Both are patched in for the whole session, so `vyre eval memory` and the ask and recall
  scorers share them too.

  Builds are keyed by what a build reads (world.json, the transcripts and their real folder),
  scores by every file: a world that differs only in its gold (world.json and gold.json
  copied, `transcripts` a link to the world's own, as test_eval_gate's `world_copy`) shares
  the build and is scored afresh.

Tests that need a different world build it from `tests/transcript.py` (small, fast), or call
`vyre.evaluate.memory.build` on a folder of their own.

What costs the suite most is a new interpreter (importing vyre costs ~0.5-0.8 s of CPU) and a
graph file written (~0.1 s each, every room a derive touches). So:
- Run the CLI in process (`CliRunner().invoke(cli, ...)`, with `at_terminal` for the owner's
  commands) unless starting a process is what the test checks; each surface keeps a few
  tests through a real process (a pty for the owner in test_cli_owner and test_corrections,
  test_cli_fast compares both ways, test_daemon runs CLIs at once).
- Send hook events with `tests/hook_calls.hook_here` (the hook's entry in process) unless the
  command Claude Code runs is the point (`run_hook`: test_hooks, the real-hook loop in
  test_learn_loop, the lessons eval).
- A daemon costs ~1 s of CPU to start: share `world_daemon`, or a module's own (test_daemon's
  `shared`), unless the test stops, kills or counts it.
- `point_homes_at(monkeypatch, base)` points HOME, VYRE_HOME and CLAUDE_CONFIG_DIR at `base`.

The suite runs in parallel (`make test`: two workers per core, `--dist loadscope`): a test
may rely on nothing another test did, and uses its own home, ports from the OS and temp paths under
`tmp_path`.

Tests that read `../shared` call `require_shared(path)`: a skip when it is missing, but a
failure under CI=true (CI always has it).
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from vyre.api import Memory

# No wall-clock limit decides a pass (issue 9): hypothesis's default 200 ms deadline per example
# failed test_dates under load. Speed is the benchmarks' business.
settings.register_profile("vyre", deadline=None)
settings.load_profile("vyre")

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
WORLD = ROOT / "eval" / "worlds" / "memory"
WORLD_NOW = json.loads((WORLD / "world.json").read_text())["now"]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpora" / "claude-code"
JUNIPER = SHARED / "worlds" / "juniper"  # a world by another author: gated, never tuned to
CLEARED = ("VYRE_NOW", "CLAUDECODE", "VYRE_GRAPH_ENGINE", "CLAUDE_PROJECT_DIR")
RAM_DISK, RAM_DISK_ROOM = Path("/dev/shm"), 2 << 30
# The slowest modules, slowest first (each module's summed test time in three runs of the whole
# suite under `make test`, 2026-12-07; a per-worker timeline showed the tail). `make test` keeps
# each module on one worker (--dist loadscope) and hands them out in this order: a slow module
# handed out last (test_plan was, at 18-32 s) runs on alone while the other workers sit idle.
SLOWEST_FIRST = (
    "test_corrections_properties",
    "test_corrections_reach_properties",
    "test_reliability",
    "test_deck_browser",
    "test_eval_gate",
    "test_daemon",
    "test_daemon_main",
    "test_plan",
    "test_graph_health",
    "test_rooms",
    "test_ingest",
    "test_derive_spread",
    "test_corrections",
    "test_recall_eval",
    "test_derive_equal",
    "test_graph_engine",
    "test_recall",
    "test_cli",
    "test_cli_fast",
    "test_projects",
    "test_ask",
    "test_learn_eval",
    "test_ingest_workers",
    "test_learn_loop",
    "test_mcp",
    "test_deck_cli",
    "test_deck_pages",
    "test_dates",
    "test_daemon_live",
    "test_cli_owner",
    "test_cold_ingest",
    "test_rules_properties",
    "test_hooks",
)


def _temp_on_a_ram_disk() -> None:
    """Temp homes on a RAM disk when there is one with room and no TMPDIR was chosen: every
    derive writes and syncs each room's graph file, and a sync on tmpfs costs no waiting (the
    suite writes ~4 GB of small files). The daemons and CLIs it starts inherit TMPDIR."""
    if os.environ.get("TMPDIR"):
        return
    try:
        disk = os.statvfs(RAM_DISK)
    except OSError:
        return
    if disk.f_bavail * disk.f_frsize < RAM_DISK_ROOM or not os.access(RAM_DISK, os.W_OK):
        return
    os.environ["TMPDIR"] = tempfile.tempdir = str(RAM_DISK)


_temp_on_a_ram_disk()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A renamed module would silently drop out of the order (and run last, alone): refuse it.
    stale = [name for name in SLOWEST_FIRST if not (TESTS / f"{name}.py").is_file()]
    if stale:
        raise pytest.UsageError(f"SLOWEST_FIRST names no module in tests/: {', '.join(stale)}")
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))  # stable: else as found


def python_prints(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    """What `code` prints in a fresh interpreter (`args` its argv), which must exit 0: what a
    process of its own imports or compiles, apart from this test's."""
    run = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def wait_for(check: Callable[[], object], timeout: float = 30.0, every: float = 0.02) -> object:
    """`check()`'s first true value, polled every `every` s; an AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("timed out waiting")


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie is dead, only not reaped yet; Linux: reads /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def require_shared(path: Path) -> Path:
    """A path under ../shared: skipped when it is not there, but a failure under CI=true, so
    a CI run without ../shared can never pass by skipping what it was meant to measure."""
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI needs ../shared beside the repository")
        pytest.skip(f"{path} is not mounted")
    return path


def shared_by_workers(factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder of this run that every xdist worker shares (the run's own without xdist)."""
    base = factory.getbasetemp()
    path = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    path.mkdir(exist_ok=True)
    return path


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Held by one process of the run at a time (released if it dies)."""
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def point_homes_at(mp: pytest.MonkeyPatch, base: Path) -> None:
    home = base / "user"
    home.mkdir(parents=True, exist_ok=True)
    mp.setenv("HOME", str(home))
    mp.setenv("VYRE_HOME", str(base / "vyre"))
    mp.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name in CLEARED:
        mp.delenv(name, raising=False)


@pytest.fixture
def at_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vyre.cli.common.stdin_is_terminal", lambda: True)


@pytest.fixture(scope="session", autouse=True)
def _session_homes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Session and module fixtures run before `isolated`: they get throwaway homes too."""
    with pytest.MonkeyPatch.context() as mp:
        point_homes_at(mp, tmp_path_factory.mktemp("session"))
        # one gazetteer cache for every home, worker and process the suite starts (each would
        # otherwise scan 22 MB of names again, ~1 s of CPU; cache files are renamed in whole)
        mp.setenv("VYRE_CACHE", str(shared_by_workers(tmp_path_factory, "cache")))
        yield


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    point_homes_at(monkeypatch, tmp_path)


@pytest.fixture
def vyre_home() -> Path:
    return Path(os.environ["VYRE_HOME"])


@pytest.fixture
def world_now() -> str:
    return WORLD_NOW


def copy_home(template: Path, target: Path) -> Path:
    """A home's stores, copied (the ledger, its WAL, the graph): a fresh home of one's own."""
    shutil.copytree(template, target, dirs_exist_ok=True)
    target.chmod(0o700)
    return target


class BuiltHomes:
    """Homes built by `vyre.evaluate.memory.build` once per run (by the first xdist worker that
    needs one; the others wait for it and copy it), keyed by what built them
    (the world's folder and the bytes of its files, the graph engine, the settings in force);
    every later build of the same is a copy of the first (~50 ms where a build is ~1.7 s).
    The session patches it in for `build`, so the eval scorers (`score`, `vyre eval ...`,
    the recall worlds) share the builds too: what they score is the same home."""

    def __init__(self, root: Path) -> None:
        from vyre.evaluate import memory

        self.root, self._build = root, memory.build
        self._homes: dict[str, Path] = {}

    def template(self, world: Path, engine: str | None = None) -> Path:
        """The home built once from `world`; never write there (copy it)."""
        key = self._key(world, engine, built_from_only=True)
        if key not in self._homes:
            home, done = self.root / key[:16] / "vyre", self.root / f"{key[:16]}.built"
            with locked(self.root / f"{key[:16]}.lock"):  # the first worker builds it
                if not done.exists():
                    shutil.rmtree(home, ignore_errors=True)  # what a worker that died left
                    self._build(world, home, engine).close()
                    done.touch()
            self._homes[key] = home
        return self._homes[key]

    def score(self, scorer: Callable[..., dict]) -> Callable[..., dict]:
        """`scorer` (an eval's `score`) run once per world, engine and settings, each caller
        given its own copy of the result. `repeat` only sets how many latency samples the
        memory eval takes, which no test gates, so it is not part of the key."""
        results: dict[str, dict] = {}

        @functools.wraps(scorer)
        def once(world: Path, *, engine: str | None = None, **options: object) -> dict:
            key = self._key(world, engine) + json.dumps(
                {k: v for k, v in options.items() if k != "repeat"}, sort_keys=True
            )
            if key not in results:
                results[key] = scorer(world, engine=engine, **options)
            return copy.deepcopy(results[key])

        return once

    def build(self, world: Path, home: Path, engine: str | None = None) -> Memory:
        """`vyre.evaluate.memory.build`, from the session's copy when it has one."""
        home = Path(home)
        if home.exists() and any(p.name != "settings.json" for p in home.iterdir()):
            return self._build(world, home, engine)  # not a fresh home: build for real
        copy_home(self.template(world, engine), home)
        return Memory(home, engine=engine)

    @staticmethod
    def _key(world: Path, engine: str | None, *, built_from_only: bool = False) -> str:
        """What a score reads: the world's files. With `built_from_only`, what a build reads:
        world.json and transcripts/ (so a world that differs only in its gold shares the
        build). The transcripts' real folder is part of both: the ledger records it."""
        from vyre import config
        from vyre.graph.engine import engine_name

        world = Path(world)
        transcripts = (world / "transcripts").resolve()
        digest = hashlib.sha256(f"{transcripts}\0{engine or engine_name()}\0".encode())
        digest.update(json.dumps(config.settings(), sort_keys=True, default=str).encode())
        files = {"world.json": world / "world.json"}
        files |= {f"transcripts/{p.relative_to(transcripts)}": p for p in transcripts.rglob("*")}
        if not built_from_only:  # and gold, and whatever else the world holds
            for top in world.iterdir() if world.is_dir() else ():
                if top.name != "transcripts":
                    files |= {str(p.relative_to(world)): p for p in [top, *top.rglob("*")]}
        for name in sorted(files):
            if files[name].is_file():
                digest.update(f"\0{name}\0".encode() + files[name].read_bytes())
        return digest.hexdigest()


@pytest.fixture(scope="session", autouse=True)
def built_homes(
    tmp_path_factory: pytest.TempPathFactory, _session_homes: None
) -> Iterator[BuiltHomes]:
    from vyre.evaluate import ask, memory

    built = BuiltHomes(shared_by_workers(tmp_path_factory, "built"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(memory, "build", built.build)
        mp.setattr(ask, "build", built.build)
        mp.setattr(memory, "score", built.score(memory.score))
        yield built


@pytest.fixture(scope="session")
def world_template(built_homes: BuiltHomes) -> Path:
    """The bundled world built once per session. Never write here: copy it (`world_home`)."""
    return built_homes.template(WORLD)


@pytest.fixture
def world_home(world_template: Path, vyre_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VYRE_NOW", WORLD_NOW)
    return copy_home(world_template, vyre_home)


@pytest.fixture
def world_memory(world_home: Path) -> Iterator[Memory]:
    with Memory(world_home) as memory:
        yield memory


@pytest.fixture(scope="module")
def world_daemon(world_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A running daemon over a module's own copy of the world; yields its home. Tests using
    it set VYRE_HOME (and VYRE_NOW) to it themselves, or pass the home explicitly."""
    from vyre.daemon import process

    home = copy_home(world_template, tmp_path_factory.mktemp("world-daemon") / "vyre")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_HOME", str(home))
        mp.setenv("VYRE_NOW", WORLD_NOW)
        process.start(home)
        try:
            yield home
        finally:
            process.stop(home)


@pytest.fixture
def held_main(monkeypatch):
    """The main graph's derive (in a daemon of this process) waits at a gate while `armed`:
    (armed, gate, entered)."""
    gate, entered = threading.Event(), threading.Event()
    armed = {"on": False}
    from vyre.rooms import pipeline

    real = pipeline.MainJob.rows

    def slow(job):
        if armed["on"]:
            entered.set()
            assert gate.wait(60), "the test never let the main graph go on"
        return real(job)

    monkeypatch.setattr(pipeline.MainJob, "rows", slow)
    yield armed, gate, entered
    gate.set()
