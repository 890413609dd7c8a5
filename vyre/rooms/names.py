"""The names of rooms every package shares. Standard library only, no imports: the CLI,
the MCP server and the hooks read these without loading the derive pipeline.

- `MAIN` (`'*'`): the main graph, identity, works_at and addresses from every room, for the
  owner's own surfaces only; never what a Claude Code session reads.
- `UNFILED`: the room of sessions in no project. A folder outside every project reads it.
- `RESERVED`: names no project may take.
"""

from __future__ import annotations

from typing import Final

MAIN: Final = "*"
UNFILED: Final = "unfiled"
RESERVED: Final = frozenset({MAIN, UNFILED, "all"})
