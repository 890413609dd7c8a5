"""Every error Vyre raises on purpose, in one tree.

```
VyreError                      a known failure: surfaces print its first line, exit 1
├── ConfigError                a setting or environment value that cannot be used
├── InputError                 input that is not what it should be
│   ├── MissingRoot            no Claude Code projects folder where we looked
│   └── WorldError             a folder that is not an eval world
├── StoreError                 a store cannot be used
│   ├── LedgerError            the ledger (SQLite): unreadable, damaged, wrong schema
│   │   ├── LedgerBusy         another process holds its write lock for too long
│   │   └── LedgerDamaged      a file SQLite cannot read, or an empty one: never written over
│   └── GraphError             the graph (Kùzu engine): failed, or not installed
│       ├── GraphBusy          another process has it open for writing
│       └── GraphDamaged       its file cannot be read (it is rebuilt from the ledger)
├── MemoryUseError             a request memory cannot carry out
│   ├── CorrectionError        a correction that cannot be made (unknown fact, bad action)
│   ├── ProjectError           a project command that cannot be carried out
│   └── LearnError             a lesson command that cannot be carried out (no shape fits, ...)
├── OwnerOnly                  the caller is not the owner (a hook, MCP, an agent, no TTY)
│   └── WeakeningRefused       a change that loosens a lesson, asked without presence
├── HarnessError               a Claude Code settings file or plugin folder Vyre will not change
├── DaemonUnavailable          no daemon answers on this home's socket (not running, not in time)
│   └── Untrusted              the home or socket may not be this user's: nothing is sent
├── DaemonError                the daemon answered with an error of a kind this side does not know
└── DaemonControlError         the daemon could not be started or stopped
    └── AlreadyRunning         another daemon holds this home
```

What must stay true:
- Surfaces catch `VyreError` and nothing narrower for "print one line": the CLI exits 1 with
  it, the MCP server returns it as a tool error, the daemon sends its kind and line, and the
  hooks add nothing (enrichment fails open). Anything else is a bug and may show a traceback
  in tests only (the hooks still exit 0).
- Across the daemon's socket an error travels as its class name (`kind`) and its message;
  `by_kind` turns it back into the same class, and an unknown kind into `DaemonError`.
- Standard library only, and no imports: the hook's fast path loads this module.
"""

from __future__ import annotations


class VyreError(Exception):
    """A known failure, told to the user in one line."""

    def line(self) -> str:
        text = str(self).strip()
        return text.splitlines()[0] if text else type(self).__name__


class ConfigError(VyreError):
    """A setting or environment value that cannot be used."""


class InputError(VyreError):
    """Input that is not what it should be."""


class MissingRoot(InputError):
    """The projects root does not exist."""


class WorldError(InputError):
    """A folder that is not a world in the documented format."""


class StoreError(VyreError):
    """A store cannot be used."""


class LedgerError(StoreError):
    """The ledger cannot be used (corrupt, unreadable, wrong schema)."""


class LedgerBusy(LedgerError):
    """Another process holds the ledger's write lock for longer than we wait."""


class LedgerDamaged(LedgerError):
    """The ledger file is damaged (SQLite cannot read it, or it is empty): Vyre refuses to
    write over it and `vyre doctor --repair` rebuilds it."""


class GraphError(StoreError):
    """The graph cannot be used."""


class GraphBusy(GraphError):
    """Another process has the graph open for writing."""


class GraphDamaged(GraphError):
    """The graph's file cannot be read. The graph is derived: it is rebuilt from the ledger."""


class MemoryUseError(VyreError):
    """A request memory cannot carry out."""


class CorrectionError(MemoryUseError):
    """A correction that cannot be made (unknown fact, bad action, nothing to undo)."""


class ProjectError(MemoryUseError):
    """A project command that cannot be carried out."""


class LearnError(MemoryUseError):
    """A lesson command that cannot be carried out (no check shape fits, unknown lesson)."""


class OwnerOnly(VyreError):
    """The caller is not the owner: only the user, in person, changes what memory believes."""


class WeakeningRefused(OwnerOnly):
    """A change that loosens a lesson: only `vyre learn relax`, in person, may do that."""


class HarnessError(VyreError):
    """A Claude Code settings file or plugin folder Vyre will not change."""


class DaemonError(VyreError):
    """The daemon answered with an error (of a kind this side does not know)."""

    def __init__(self, message: str = "", kind: str = ""):
        super().__init__(message)
        self.kind = kind


class DaemonUnavailable(VyreError):
    """No daemon answers on this home's socket (not running, or not in time)."""


class Untrusted(DaemonUnavailable):
    """The home is open to others, or the socket or its server is not this user's: nothing
    is sent to it (a planted socket would read the user's prompts)."""


class DaemonControlError(VyreError):
    """The daemon could not be started or stopped."""


class AlreadyRunning(DaemonControlError):
    """Another daemon holds this home."""


def _tree(cls: type[VyreError]) -> list[type[VyreError]]:
    out = [cls]
    for sub in cls.__subclasses__():
        out += _tree(sub)
    return out


def by_kind(kind: str, message: str) -> VyreError:
    """The error a daemon reply names, rebuilt on this side (unknown kinds: DaemonError)."""
    for cls in _tree(VyreError):
        if cls.__name__ == kind:
            if issubclass(cls, DaemonError):
                return cls(message, kind)
            return cls(message)  # every other class takes its message alone
    return DaemonError(message, kind)
