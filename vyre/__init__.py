"""Vyre Memory: a local memory of the people, organisations and repos in your Claude Code work.

The API, importable from here::

    from vyre import open_memory
    with open_memory("local") as memory:       # the daemon's memory, or the stores opened here
        for fact in memory.relevant("Draft a note to Priya", cwd="/home/sam/work/keel-ash"):
            print(fact.subject, fact.rel, fact.object, fact.sources[-1].session)

`MemoryAPI` is the typed Protocol, `Memory` its implementation over this process's own stores,
the models are what it returns and `VyreError` is the root of every error it raises on
purpose. Names load on first use: `import vyre` itself costs nothing (the hooks' fast path
imports this package).
"""

from __future__ import annotations

__version__ = "0.1.0"

# True in the `vyre` command's own process (set by `vyre.cli.fast.main`), where only Vyre's
# code runs: pyarrow is then loaded without numpy (`vyre.graph.store._arrow`).
own_process = False

__all__ = [
    "AskReply",
    "AskSource",
    "Conflict",
    "ConflictSide",
    "Correction",
    "DeriveReport",
    "Edit",
    "Entity",
    "EntityFacts",
    "EntityPage",
    "Fact",
    "FolderSuggestion",
    "GraphHealth",
    "Hub",
    "IngestReport",
    "Ingested",
    "Memory",
    "MemoryAPI",
    "MergeCandidate",
    "Overview",
    "Passage",
    "Project",
    "ProjectChange",
    "ProjectHistory",
    "Source",
    "Thread",
    "TurnView",
    "VyreError",
    "__version__",
    "open_memory",
]
# Where each name lives; the rest of __all__ are models.
_MODULES = {
    "Memory": "vyre.api",
    "MemoryAPI": "vyre.interface",
    "open_memory": "vyre.daemon.client",
    "VyreError": "vyre.errors",
}

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs a hook 3 ms
if TYPE_CHECKING:
    from typing import Any

    from vyre.api import Memory
    from vyre.daemon.client import open_memory
    from vyre.errors import VyreError
    from vyre.interface import MemoryAPI
    from vyre.models import (
        AskReply,
        AskSource,
        Conflict,
        ConflictSide,
        Correction,
        DeriveReport,
        Edit,
        Entity,
        EntityFacts,
        EntityPage,
        Fact,
        FolderSuggestion,
        GraphHealth,
        Hub,
        Ingested,
        IngestReport,
        MergeCandidate,
        Overview,
        Passage,
        Project,
        ProjectChange,
        ProjectHistory,
        Source,
        Thread,
        TurnView,
    )


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'vyre' has no attribute {name!r}")
    module = _MODULES.get(name, "vyre.models")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
