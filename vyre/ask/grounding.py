"""The grounding check: every name, number, date and path in an answer appears in what it
cites, or the answer is not given.

A date the answer gives absolutely ("2026-10-16") is grounded when a cited quote says a date
phrase that means that day when said at the quote's time ("Friday the 16th", "next Friday").
Words the answer frames the quote with ("Your wife is", "From earlier sessions") carry no
claims: only capitalised words, numbers, dates and paths are checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime

from vyre.ask.question import STOP
from vyre.extract.dates import DATE, resolve
from vyre.resolve import fold

# Date phrases as whole words: "common" and "lemon" end in "mon", and are not Mondays.
DATES = re.compile(r"(?<![\w-])" + DATE, re.I)
# What every date phrase holds (a digit, a weekday's or a month's first letters, or a word of
# a span: "in two weeks", "end of the month", "tomorrow", "EOD"): a text with none of them is
# passed over without running the long pattern, most of the time of looking for a date.
_DIGIT = re.compile(r"\d")
_DATE_CUES = (
    "mon tue wed thu fri sat sun jan feb mar apr may jun jul aug sep oct nov dec day week "
    "month fortnight tonight tomorrow eod"
).split()


def may_hold_date(text: str) -> bool:
    """False only when `text` can hold no date phrase at all."""
    if _DIGIT.search(text):
        return True
    low = text.lower()
    return any(cue in low for cue in _DATE_CUES)


def has_date(text: str) -> bool:
    return may_hold_date(text) and DATES.search(text) is not None


_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*%?")
_PATH = re.compile(r"[\w.-]*[/_.][\w./-]*\w")
_CAPITAL = re.compile(r"\b[^\W\d_][\w'’&-]*")
# Words an answer may add around what it quotes, capitalised at a sentence start.
FRAME = frozenset(
    "your you from earlier sessions here not sure yet what memory does know confidence "
    "session said in on at the a an and is are was due".split()
)


def claims(answer: str) -> list[str]:
    """The names, numbers, dates and paths an answer states."""
    out: list[str] = []
    out += _ISO.findall(answer)
    rest = _ISO.sub(" ", answer)
    out += [p for p in _PATH.findall(rest) if any(c.isalpha() for c in p)]
    out += _NUMBER.findall(rest)
    for m in _CAPITAL.finditer(rest):
        word = re.sub(r"['’]s$", "", m.group(0)).strip("'’-&")
        if word and word[0].isupper() and fold(word) not in STOP and fold(word) not in FRAME:
            out.append(word)
    return list(dict.fromkeys(out))


def _dates_in(text: str, said: datetime | None) -> set[date]:
    found = set()
    for m in DATES.finditer(text):
        d = resolve(m, said)
        if d:
            found.add(d)
    return found


def ungrounded(
    answer: str,
    quotes: Iterable[tuple[str, datetime | None]],
    *,
    counted: tuple[int, int] | None = None,
) -> list[str]:
    """The claims of `answer` that no cited quote holds (empty: grounded).

    A count (`counted`: events and sessions, one quote per event) is grounded by the quotes
    themselves: the first number is how many there are, the second how many sessions said
    them (never more), and each date the day one of them was said.
    """
    quotes = list(quotes)
    text = fold(" ".join(q for q, _ in quotes)).replace("’", "'")
    dates: set[date] = set()
    for q, ts in quotes:
        dates |= _dates_in(q, ts)
    if counted is not None:
        events, sessions = counted
        if events != len(quotes) or not 0 < sessions <= events:
            return [str(events)]
        dates |= {ts.date() for _, ts in quotes if ts is not None}
    missing = []
    for claim in claims(answer):
        c = fold(claim).replace("’", "'")
        if counted is not None and claim in map(str, counted):
            continue
        if _ISO.fullmatch(claim):
            if date.fromisoformat(claim) in dates or c in text:
                continue
        elif re.search(r"(?<![\w])" + re.escape(c) + r"(?![\w])", text) or c in text:
            continue
        missing.append(claim)
    return missing


__all__ = ["DATES", "claims", "has_date", "may_hold_date", "ungrounded"]
