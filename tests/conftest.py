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
