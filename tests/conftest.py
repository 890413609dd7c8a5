"""Every test runs in its own homes: nothing touches the real ~/.claude or ~/.vyre."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT / "eval" / "worlds" / "memory"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpora" / "claude-code"
JUNIPER = SHARED / "worlds" / "juniper"  # a world by another author: gated, never tuned to


def require_shared(path: Path) -> Path:
    """A path under ../shared: skipped when it is not there, but a failure under CI=true, so
    a CI run without ../shared can never pass by skipping what it was meant to measure."""
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI needs ../shared beside the repository")
        pytest.skip(f"{path} is not mounted")
    return path


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("VYRE_HOME", str(tmp_path / "vyre"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name in ("VYRE_NOW", "CLAUDECODE", "VYRE_GRAPH_ENGINE"):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture
def vyre_home(tmp_path) -> Path:
    return Path(os.environ["VYRE_HOME"])


@pytest.fixture
def world_now() -> str:
    return json.loads((WORLD / "world.json").read_text())["now"]
