"""Who is calling memory. Every caller is named (`cli`, `deck`, `local`, `hook`, `mcp`,
`agent:<id>`); only the owner callers may change what memory believes or which room a
session's facts reach (correct, merge, split, pin, mute, and the project commands).

`cli` is the owner only at a real terminal outside Claude Code: the CLI decides that before it
names itself (`vyre.cli.common.owner_caller`). Standard library only.
"""

from __future__ import annotations

from typing import Final

from vyre.errors import OwnerOnly

OWNER_CALLERS: Final = frozenset({"cli", "deck", "local"})


def require_owner(caller: str) -> None:
    """Owner callers only, and never from inside Claude Code: a one-line Python call through
    the library claiming `local` from the model's shell is refused here, not only in the CLI."""
    from vyre import presence

    if caller not in OWNER_CALLERS:
        raise OwnerOnly(
            "refused: only you can change memory, at a real terminal outside Claude Code "
            f"(this caller is {caller!r})"
        )
    if presence.inside_claude_code():
        raise OwnerOnly(
            "refused: this process runs inside Claude Code; only you, at your own terminal, "
            "can change memory or loosen a lesson"
        )
