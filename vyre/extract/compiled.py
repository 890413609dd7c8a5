"""Regular expressions compiled once per install, not once per process.

The rules' ~110 patterns cost each process that reads a turn ~0.13 s to compile (mostly the
Latin, Greek and Cyrillic letter classes they share): a tenth of a one-off `vyre ingest`. `re`
compiles a pattern into a list of integers that its C engine runs; `Patterns` keeps those
lists in a file beside the module's bytecode (in `__pycache__`, written when bytecode is) and
builds the same pattern objects from them. A pattern is kept only when the one built from its
list equals `re.compile`'s (patterns compare by their code), the file holds the interpreter
it was made by, and anything unexpected (another Python, a damaged or unwritable file) falls
back to `re.compile`: what is cached is only ever what `re` made.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's engine: no stubs
import marshal
import os
import re
import sys
from importlib.util import cache_from_source
from pathlib import Path
from typing import Any

# what the integers mean: a file made by another interpreter is not read
_MADE_BY = (sys.version, _sre.MAGIC, _sre.CODESIZE, sys.maxunicode)
Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]


def longest_first(word: str) -> tuple[int, str]:
    """A sort key for a pattern's alternatives: longest first (a shorter one never wins over a
    longer match), then in text order, so that a pattern built from a set is the same text in
    every process (its code is cached by its text). Alternatives of one length cannot both
    match at one place, so their order never changed what a pattern finds."""
    return -len(word), word


class Patterns:
    """`compile` for one module's patterns, from `path` when it holds them; `save()` once
    they are all compiled writes the file again if a pattern was new to it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._known = _load(path) if path is not None else {}
        self._used: dict[tuple[str, int], Entry] = {}
        self._new = False
        self.fresh = 0  # patterns `re` compiled in this process (none once the file has all)

    @classmethod
    def beside(cls, module_file: str) -> Patterns:
        """The patterns of the module at `module_file`, cached beside its bytecode."""
        try:
            return cls(Path(cache_from_source(module_file)).with_suffix(".patterns"))
        except (NotImplementedError, ValueError):  # no bytecode cache on this interpreter
            return cls(None)

    def compile(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        key = (pattern, int(flags))
        entry = self._known.get(key)
        if entry is not None:
            try:
                compiled: re.Pattern[str] = _sre.compile(pattern, *entry)
                self._used[key] = entry
                return compiled
            except Exception:
                pass
        compiled = re.compile(pattern, flags)
        self.fresh += 1
        entry = _entry(pattern, key[1], compiled)
        if entry is not None:
            self._used[key] = entry
            self._new = True
        return compiled

    def save(self) -> None:
        if not self._new or sys.dont_write_bytecode or self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part = self.path.with_name(f"{self.path.name}.{os.getpid()}")
            part.write_bytes(marshal.dumps((_MADE_BY, self._used)))
            os.replace(part, self.path)
        except OSError:
            return  # a read-only install compiles in each process, as before
        self._new = False


def _load(path: Path) -> dict[tuple[str, int], Entry]:
    try:
        made_by, entries = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return entries if made_by == _MADE_BY and isinstance(entries, dict) else {}


def _entry(pattern: str, flags: int, compiled: re.Pattern[str]) -> Entry | None:
    """What `_sre.compile` takes besides the pattern, as `re.compile` made it (None when this
    Python's `re` does not work that way, or the result is not the same pattern)."""
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        tree: Any = _parser.parse(pattern, flags)
        code = [int(c) for c in _compiler._code(tree, flags)]
        groupindex = dict(tree.state.groupdict)
        indexgroup: list[str | None] = [None] * tree.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        entry: Entry = (
            int(flags | tree.state.flags),
            code,
            tree.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        same = _sre.compile(pattern, *entry) == compiled
    except Exception:
        return None
    return entry if same else None
