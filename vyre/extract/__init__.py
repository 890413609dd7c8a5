"""Extraction: named rules that find entities and relations in a turn. No model.

The rules' patterns are compiled when a turn is first read (`extract_draft`, or `extract`
asked for by name), not when the package is imported: the word lists, dates and gazetteers
here serve readers that never extract, and an ingest with nothing new extracts nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vyre.extract.version import RULES_VERSION

__all__ = ["RULES_VERSION", "extract", "extract_draft", "warm"]


if TYPE_CHECKING:
    from vyre.extract.rules import extract
    from vyre.transcripts.classify import Draft


_rules: Any = None  # vyre.extract.rules once a draft was read (an import per turn costs)


def extract_draft(draft: Draft) -> list:
    """The rules applied to a transcript draft (tool output is read whole, not clipped)."""
    global _rules
    if _rules is None:
        from vyre.extract import rules

        _rules = rules
    return _rules.extract(
        draft.by, draft.kind, draft.full_text or draft.text, draft.ts, sidechain=draft.sidechain
    )


def warm() -> None:
    """Load everything the rules read (patterns, word lists, public suffixes, legal forms)
    now: ingest's worker processes are forked after this and share it."""
    from vyre.extract import gazetteer
    from vyre.extract.rules import extract

    gazetteer.given_names()
    gazetteer.short_names()
    gazetteer.legal_terms()
    gazetteer.registered("example.co.uk")
    extract("person", "text", "Dana Reyes, the office manager at Harlow Legal, is here.", None)


def __getattr__(name: str) -> Any:
    if name == "extract":
        from vyre.extract.rules import extract

        return extract
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
