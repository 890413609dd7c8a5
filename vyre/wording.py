"""How Vyre says a count to people: one plural rule ("1 session", "2 sessions", "3 people").
Standard library only: the models, the CLI and the daemon all say counts the same way."""

from __future__ import annotations

_PLURALS = {"person": "people", "address": "addresses", "entity": "entities"}


def plural(n: int, noun: str) -> str:
    """The noun as `n` of it is said: fact, facts; person, people; entity, entities."""
    if n == 1:
        return noun
    return _PLURALS.get(noun, noun + "s")


def count(n: int, noun: str) -> str:
    """'1 session', '2 sessions', '1,204 facts'."""
    return f"{n:,} {plural(n, noun)}"
