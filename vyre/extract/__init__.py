"""Extraction: named rules that find entities and relations in a turn. No model.

The rules' patterns are compiled when a turn is first read (`extract_draft`, or `extract`
asked for by name), not when the package is imported: the word lists, dates and gazetteers
here serve readers that never extract, and an ingest with nothing new extracts nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vyre.extract.version import RULES_VERSION

__all__ = ["RULES_VERSION", "extract", "extract_draft"]


if TYPE_CHECKING:
    from vyre.extract.rules import extract
    from vyre.transcripts.classify import Draft


def extract_draft(draft: Draft) -> list:
    """The rules applied to a transcript draft (tool output is read whole, not clipped)."""
    from vyre.extract.rules import extract

    return extract(
        draft.by, draft.kind, draft.full_text or draft.text, draft.ts, sidechain=draft.sidechain
    )


def __getattr__(name: str) -> Any:
    if name == "extract":
        from vyre.extract.rules import extract

        return extract
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
