"""Extraction: named rules that find entities and relations in a turn. No model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vyre.extract.rules import RULES_VERSION, extract

__all__ = ["RULES_VERSION", "extract", "extract_draft"]


if TYPE_CHECKING:
    from vyre.transcripts.classify import Draft


def extract_draft(draft: Draft) -> list:
    """The rules applied to a transcript draft (tool output is read whole, not clipped)."""
    return extract(
        draft.by, draft.kind, draft.full_text or draft.text, draft.ts, sidechain=draft.sidechain
    )
