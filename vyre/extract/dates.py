"""Date phrases in a person's words, resolved against the turn's own timestamp.

- ISO dates are taken as written.
- "October 9", "Oct 9th", "9 October" (no year): the first such date no more than 30 days
  before the turn (nobody sets a deadline a month in the past), across a new year too.
- A weekday ("Friday", "on Friday", "this Friday"): the next such day strictly after the
  turn's date. "next Friday" skips a week when the plain next Friday is still in the turn's
  own week (said on a Monday, "next Friday" is eleven days away, not four).
- A weekday with a date ("Thursday 26 November", "Tuesday (24 November)"): the date; the
  weekday only confirms it.
- "the 14th" (a day of the month alone): the next such day on or after the turn's date.
- "end of the month", "end of the week" (that week's Friday), "in two weeks", "in 3 days",
  "in a fortnight", "today", "tonight", "end of day", "tomorrow".
Anything else is not a date; the rule that asked gets None and makes no fact.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from vyre.extract.lexicon import MONTHS, WEEKDAYS

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"

_MD = rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
_DM = rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
_NUMBER = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})"

# One pattern for every phrase we accept; named groups say which form matched.
DATE = (
    r"(?:(?P<iso>\d{4}-\d{2}-\d{2})"
    rf"|(?P<wdd>(?:(?:this|next|on)\s+)?{_DAY},?\s+\(?(?:the\s+)?(?:{_MD}|{_DM})\)?)"
    rf"|(?P<md>{_MD})"
    rf"|(?P<dm>{_DM})"
    rf"|(?P<wd>(?:(?:this|next|on)\s+)?{_DAY})"
    r"|(?P<ord>the\s+\d{1,2}(?:st|nd|rd|th))"
    r"|(?P<eom>(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?month|month[-\s]end)"
    r"|(?P<eow>(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?week)"
    rf"|(?P<span>in\s+{_NUMBER}\s+(?:days?|weeks?)|in\s+a\s+fortnight)"
    r"|(?P<rel>today|tonight|tomorrow|(?:the\s+)?end\s+of\s+(?:the\s+)?day|EOD))(?![\w-])"
)
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
DATE_RE = re.compile(DATE, re.I)


def resolve(match: re.Match, said: datetime | None) -> date | None:
    """The calendar date a DATE match means, said at `said` (None: only absolute dates)."""
    groups = match.groupdict()
    if groups.get("iso"):
        try:
            return date.fromisoformat(groups["iso"])
        except ValueError:
            return None
    dated = groups.get("wdd") or groups.get("md") or groups.get("dm")
    if dated:
        return _month_day(re.sub(rf"^(?:(?:this|next|on)\s+)?{_DAY}", "", dated, flags=re.I), said)
    if said is None:
        return None
    today = said.date()
    if groups.get("wd"):
        return _weekday(groups["wd"].lower(), today)
    if groups.get("ord"):
        return _day_of_month(int(re.sub(r"\D", "", groups["ord"])), today)
    if groups.get("eom"):
        following = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
        return following - timedelta(days=1)
    if groups.get("eow"):
        return today + timedelta(days=(4 - today.weekday()) % 7)
    if groups.get("span"):
        words = groups["span"].lower().split()
        if words[-1] == "fortnight":
            return today + timedelta(days=14)
        n = _NUMBERS.get(words[1]) or int(words[1])
        return today + timedelta(days=n * (7 if words[2].startswith("week") else 1))
    if groups.get("rel"):
        return today + timedelta(days=1 if groups["rel"].lower() == "tomorrow" else 0)
    return None


def _day_of_month(day: int, today: date) -> date | None:
    """The next `day` of a month on or after today ("before the 14th")."""
    year, month = today.year, today.month
    for _ in range(3):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate and candidate >= today:
            return candidate
        month += 1
        if month > 12:
            year, month = year + 1, 1
    return None


def _month_day(text: str, said: datetime | None) -> date | None:
    words = re.findall(r"[a-z]+|\d+", text.lower())
    month = next((MONTHS[w] for w in words if w in MONTHS), None)
    numbers = [int(w) for w in words if w.isdigit()]
    if month is None or not numbers:
        return None
    day = numbers[0]
    year = numbers[1] if len(numbers) > 1 else None
    if year is None:
        if said is None:
            return None
        # the first such date no more than 30 days before the turn (across a new year too)
        # and within the year after it: "February 29" said in a year with no leap day ahead
        # in reach names no day
        earliest, latest = said.date() - timedelta(days=30), said.date() + timedelta(days=366)
        for year in (said.year - 1, said.year, said.year + 1):
            try:
                candidate = date(year, month, day)
            except ValueError:
                continue  # February 29 in a common year
            if candidate >= earliest:
                return candidate if candidate <= latest else None
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _weekday(text: str, today: date) -> date | None:
    words = text.split()
    name = words[-1]
    target = WEEKDAYS.get(name)
    if target is None:
        target = WEEKDAYS.get(name.removesuffix("day"))
    if target is None:
        target = next((v for k, v in WEEKDAYS.items() if name.startswith(k)), None)
    if target is None:
        return None
    ahead = (target - today.weekday()) % 7 or 7
    found = today + timedelta(days=ahead)
    if words[0] == "next" and found.isocalendar()[:2] == today.isocalendar()[:2]:
        found += timedelta(days=7)
    return found
