"""How Vyre says things to people: one plural rule ("1 session", "2 sessions", "3 people") and
one way to shorten a quote (at a word boundary, with an ellipsis where it was cut, never
mid-word). Standard library only: the models, the CLI, the hooks, MCP and the Deck all say
counts and quotes the same way."""

from __future__ import annotations

ELLIPSIS = "…"
_PLURALS = {"person": "people", "address": "addresses", "entity": "entities"}
_TRAILING = " ,;:-–—(\"'“‘"  # never left just before an ellipsis


def plural(n: int, noun: str) -> str:
    """The noun as `n` of it is said: fact, facts; person, people; entity, entities."""
    if n == 1:
        return noun
    return _PLURALS.get(noun, noun + "s")


def count(n: int, noun: str) -> str:
    """'1 session', '2 sessions', '1,204 facts'."""
    return f"{n:,} {plural(n, noun)}"


def clip(text: str, most: int) -> str:
    """`text` (whitespace squashed) in at most `most` characters: cut after the last whole
    word that fits, with an ellipsis. Only a word longer than half of `most` (a URL, a path)
    is cut inside itself, since nothing else would show."""
    text = " ".join(text.split())
    if len(text) <= most:
        return text
    return _cut_end(text, most - len(ELLIPSIS)) + ELLIPSIS


def clip_around(text: str, start: int, end: int, most: int) -> str:
    """The piece of `text` around the span [start, end) in at most `most` characters
    (whitespace squashed), centred on the span, cut at word boundaries with an ellipsis on
    each side that was cut. The span itself is kept whole when it fits."""
    squashed = " ".join(text.split())
    if len(squashed) <= most:
        return squashed
    room = most - 2 * len(ELLIPSIS)
    mid = (start + end) // 2
    lo = max(0, min(mid - room // 2, len(text) - room))
    hi = min(len(text), lo + room)
    if lo > 0 and not text[lo - 1].isspace():  # inside a word: start after it
        step = _next_space(text, lo, min(start, hi))
        lo = step if step is not None else lo
    if hi < len(text) and not text[hi].isspace():  # inside a word: end before it
        back = text.rfind(" ", max(lo, end), hi)
        hi = back if back > lo else hi
    piece = " ".join(text[lo:hi].split()).strip(_TRAILING if hi < len(text) else " ")
    return (ELLIPSIS if lo > 0 else "") + piece + (ELLIPSIS if hi < len(text) else "")


def pieces(quote: str) -> list[str]:
    """The parts of a shortened quote that are the text as written (whitespace aside): a
    quote is grounded in a turn when every piece is in it."""
    return [p.strip() for p in quote.split(ELLIPSIS) if p.strip()]


def _cut_end(text: str, most: int) -> str:
    head = text[: most + 1]  # one more: a space just after the room means the word fits
    space = head.rfind(" ")
    # a space at half the room or later: the word after it is short enough to drop whole
    cut = head[:space] if space >= most // 2 and space > 0 else text[:most]
    return cut.rstrip(_TRAILING)


def _next_space(text: str, lo: int, limit: int) -> int | None:
    """Just after the first whitespace in text[lo:limit], or None."""
    for i in range(lo, limit):
        if text[i].isspace():
            return i + 1
    return None
