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

Tests that need a different world build it from `tests/transcript.py` (small, fast), or call
`vyre.evaluate.memory.build` on a folder of their own.

Tests that read `../shared` call `require_shared(path)`: a skip when it is missing, but a
failure under CI=true (CI always has it).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from vyre.api import Memory

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT / "eval" / "worlds" / "memory"
WORLD_NOW = json.loads((WORLD / "world.json").read_text())["now"]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpora" / "claude-code"
JUNIPER = SHARED / "worlds" / "juniper"  # a world by another author: gated, never tuned to
CLEARED = ("VYRE_NOW", "CLAUDECODE", "VYRE_GRAPH_ENGINE", "CLAUDE_PROJECT_DIR")


def require_shared(path: Path) -> Path:
    """A path under ../shared: skipped when it is not there, but a failure under CI=true, so
    a CI run without ../shared can never pass by skipping what it was meant to measure."""
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI needs ../shared beside the repository")
        pytest.skip(f"{path} is not mounted")
    return path


def _point_homes_at(mp: pytest.MonkeyPatch, base: Path) -> None:
    home = base / "user"
    home.mkdir(parents=True, exist_ok=True)
    mp.setenv("HOME", str(home))
    mp.setenv("VYRE_HOME", str(base / "vyre"))
    mp.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name in CLEARED:
        mp.delenv(name, raising=False)


@pytest.fixture(scope="session", autouse=True)
def _session_homes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Session and module fixtures run before `isolated`: they get throwaway homes too."""
    with pytest.MonkeyPatch.context() as mp:
        _point_homes_at(mp, tmp_path_factory.mktemp("session"))
        yield


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _point_homes_at(monkeypatch, tmp_path)


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


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled world built once per session. Never write here: copy it (`world_home`)."""
    from vyre.evaluate.memory import build

    home = tmp_path_factory.mktemp("world-template") / "vyre"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_HOME", str(home))
        build(WORLD, home).close()
    return home


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
