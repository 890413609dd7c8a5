"""Extraction: named rules that find entities and relations in a turn. No model."""

from vyre.extract.rules import RULES_VERSION, extract

__all__ = ["RULES_VERSION", "extract", "extract_draft"]


def extract_draft(draft) -> list:
    """The rules applied to a transcript draft (tool output is read whole, not clipped)."""
    return extract(
        draft.by, draft.kind, draft.full_text or draft.text, draft.ts, sidechain=draft.sidechain
    )
