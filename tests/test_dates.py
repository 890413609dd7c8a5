"""Date phrases resolved against the turn's own timestamp (vyre/extract/dates.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vyre.extract import dates
from vyre.extract.lexicon import MONTHS, WEEKDAYS

MONDAY = datetime(2026, 9, 7, 10, 0)  # Monday 7 September 2026


def resolve(phrase: str, said: datetime | None) -> date | None:
    match = dates.DATE_RE.fullmatch(phrase)
    assert match is not None, f"not a date phrase: {phrase!r}"
    return dates.resolve(match, said)


# -- the pattern ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "group"),
    [
        ("2026-10-15", "iso"),
        ("October 9", "md"),
        ("Oct 9th", "md"),
        ("Sept. 3", "md"),
        ("October 9, 2027", "md"),
        ("9 October", "dm"),
        ("9th of October", "dm"),
        ("Friday", "wd"),
        ("fri", "wd"),
        ("on Thursday", "wd"),
        ("this Wednesday", "wd"),
        ("next Tues", "wd"),
        ("today", "rel"),
        ("Tomorrow", "rel"),
    ],
)
def test_the_date_pattern_names_its_form(phrase, group):
    match = dates.DATE_RE.fullmatch(phrase)
    assert match is not None
    assert match.group(group) is not None


@pytest.mark.parametrize("text", ["Fridays", "friday-night", "monitor", "2026-10-15x", "sundae"])
def test_words_that_only_start_like_a_date_are_not_dates(text):
    assert dates.DATE_RE.match(text) is None


# -- unit cases -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "said", "expected"),
    [
        ("2026-10-15", MONDAY, date(2026, 10, 15)),
        ("2026-10-15", None, date(2026, 10, 15)),
        ("2020-01-02", MONDAY, date(2020, 1, 2)),  # ISO is taken as written, past or not
        ("2026-02-30", MONDAY, None),
        ("October 9", MONDAY, date(2026, 10, 9)),
        ("Oct 9th", MONDAY, date(2026, 10, 9)),
        ("oct. 9", MONDAY, date(2026, 10, 9)),
        ("9 October", MONDAY, date(2026, 10, 9)),
        ("9th of October", MONDAY, date(2026, 10, 9)),
        ("October 9, 2027", MONDAY, date(2027, 10, 9)),
        ("October 9 2025", MONDAY, date(2025, 10, 9)),  # a written year is kept
        ("October 9, 2027", None, date(2027, 10, 9)),
        ("October 9", None, None),  # no year and no turn date: no date
        ("August 8", MONDAY, date(2026, 8, 8)),  # exactly 30 days back: this year
        ("August 7", MONDAY, date(2027, 8, 7)),  # 31 days back: next year
        ("January 5", datetime(2026, 12, 20), date(2027, 1, 5)),
        ("February 30", MONDAY, None),
        ("June 31", MONDAY, None),
        ("today", MONDAY, date(2026, 9, 7)),
        ("tomorrow", MONDAY, date(2026, 9, 8)),
        ("tomorrow", datetime(2026, 12, 31, 23, 59), date(2027, 1, 1)),
        ("today", None, None),
        ("Friday", None, None),
        ("Friday", MONDAY, date(2026, 9, 11)),
        ("on Friday", MONDAY, date(2026, 9, 11)),
        ("this Friday", MONDAY, date(2026, 9, 11)),
        ("next Friday", MONDAY, date(2026, 9, 18)),  # eleven days, not four
        ("Monday", MONDAY, date(2026, 9, 14)),  # strictly after the turn's date
        ("next Monday", MONDAY, date(2026, 9, 14)),
        ("Sunday", MONDAY, date(2026, 9, 13)),
        ("next Sunday", MONDAY, date(2026, 9, 20)),
        ("fri", MONDAY, date(2026, 9, 11)),
        ("Thurs", MONDAY, date(2026, 9, 10)),
        ("tues", MONDAY, date(2026, 9, 8)),
        ("wed", MONDAY, date(2026, 9, 9)),
        ("Sat", MONDAY, date(2026, 9, 12)),
        ("Friday", datetime(2026, 9, 11, 8), date(2026, 9, 18)),  # said on a Friday
        ("next Friday", datetime(2026, 9, 12, 8), date(2026, 9, 18)),  # said on a Saturday
        ("Friday", datetime(2026, 12, 30), date(2027, 1, 1)),
    ],
)
def test_resolve(phrase, said, expected):
    assert resolve(phrase, said) == expected


def test_the_time_of_day_does_not_matter():
    for hour in (0, 12, 23):
        said = MONDAY.replace(hour=hour, minute=59)
        assert resolve("Friday", said) == date(2026, 9, 11)
        assert resolve("next Friday", said) == date(2026, 9, 18)


def test_an_aware_timestamp_uses_its_own_date():
    said = datetime.fromisoformat("2026-09-07T10:00:00.000Z")
    assert resolve("tomorrow", said) == date(2026, 9, 8)
    assert resolve("Friday", said) == date(2026, 9, 11)


def test_the_30_day_grace_holds_across_new_year():
    # Said on 10 January, "December 24" is 17 days back: inside the 30 days that keep
    # "August 8" said on 7 September in the past, so it is last December, not eleven months on.
    assert resolve("December 24", datetime(2027, 1, 10)) == date(2026, 12, 24)
    assert resolve("August 8", MONDAY) == date(2026, 8, 8)


def test_a_leap_day_said_in_the_year_before_resolves_to_the_leap_year():
    # 29 February 2027 does not exist; the next 29 February (2028) is the only reading.
    assert resolve("February 29", datetime(2027, 11, 1)) == date(2028, 2, 29)


def test_a_leap_day_in_a_leap_year():
    assert resolve("February 29", datetime(2028, 1, 15)) == date(2028, 2, 29)


# -- properties ------------------------------------------------------------------------------------

WEEKDAY_NAMES = sorted(WEEKDAYS)
MONTH_NAMES = sorted(MONTHS)
said_dates = st.dates(min_value=date(1901, 1, 1), max_value=date(2199, 12, 31))
said_times = st.builds(datetime.combine, said_dates, st.times())


def _cased(word: str, how: str) -> str:
    return {"lower": word.lower(), "title": word.title(), "upper": word.upper()}[how]


casing = st.sampled_from(["lower", "title", "upper"])


@settings(database=None, max_examples=300)
@given(
    said=said_times,
    name=st.sampled_from(WEEKDAY_NAMES),
    form=st.sampled_from(["", "on ", "this "]),
    how=casing,
)
def test_a_plain_weekday_is_the_next_such_day_within_a_week(said, name, form, how):
    day = resolve(form + _cased(name, how), said)
    assert day is not None
    assert said.date() < day <= said.date() + timedelta(days=7)
    assert day.weekday() == WEEKDAYS[name]


@settings(database=None, max_examples=300)
@given(said=said_times, name=st.sampled_from(WEEKDAY_NAMES), how=casing)
def test_next_weekday_is_after_the_turn_and_outside_its_week(said, name, how):
    day = resolve("next " + _cased(name, how), said)
    plain = resolve(_cased(name, how), said)
    assert day is not None and plain is not None
    assert said.date() < day <= said.date() + timedelta(days=13)
    assert day.weekday() == WEEKDAYS[name]
    assert day.isocalendar()[:2] != said.date().isocalendar()[:2]
    assert day - plain in (timedelta(0), timedelta(days=7))


@settings(database=None, max_examples=300)
@given(
    said=said_times,
    month=st.sampled_from(MONTH_NAMES),
    day=st.integers(min_value=1, max_value=31),
    form=st.sampled_from(["{m} {d}", "{m} {d}th", "{m}. {d}", "{d} {m}", "{d} of {m}"]),
    how=casing,
)
def test_a_month_day_is_never_more_than_30_days_back(said, month, day, form, how):
    got = resolve(form.format(m=_cased(month, how), d=day), said)
    if got is None:
        # No such day ("June 31"); 29 February has its own tests above.
        assert (MONTHS[month], day) == (2, 29) or not _exists(said.year, MONTHS[month], day)
        return
    assert (got.month, got.day) == (MONTHS[month], day)
    assert got >= said.date() - timedelta(days=30)
    assert got <= said.date() + timedelta(days=366)
    assert got.year in (said.year - 1, said.year, said.year + 1)


def _exists(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


@settings(database=None, max_examples=300)
@given(said=said_times, month=st.integers(1, 12), day=st.integers(1, 28))
@example(said=datetime(2026, 9, 7, 10), month=8, day=8)
@example(said=datetime(2026, 9, 7, 10), month=8, day=7)
@example(said=datetime(2027, 1, 10, 9), month=12, day=24)
def test_a_month_day_is_the_first_such_date_at_most_30_days_back(said, month, day):
    # The nearest reading that is not over 30 days in the past (the turn's year, the next, or,
    # said early in January about late December, the previous one).
    name = next(k for k, v in MONTHS.items() if v == month)
    floor = said.date() - timedelta(days=30)
    expected = min(
        d
        for d in (date(y, month, day) for y in (said.year - 1, said.year, said.year + 1))
        if d >= floor
    )
    assert resolve(f"{name} {day}", said) == expected


@settings(database=None, max_examples=300)
@given(day=st.dates(min_value=date(1000, 1, 1)), said=st.none() | said_times)
def test_iso_dates_round_trip(day, said):
    assert resolve(day.isoformat(), said) == day


@settings(database=None, max_examples=200)
@given(
    said=said_times, year=st.integers(1000, 9999), month=st.integers(1, 12), day=st.integers(1, 31)
)
def test_a_month_day_with_a_year_is_taken_as_written(said, year, month, day):
    name = next(k for k, v in MONTHS.items() if v == month)
    try:
        expected = date(year, month, day)
    except ValueError:
        expected = None
    assert resolve(f"{name} {day}, {year}", said) == expected


@settings(database=None, max_examples=200)
@given(said=said_times)
def test_today_and_tomorrow(said):
    assert resolve("today", said) == said.date()
    assert resolve("tomorrow", said) == said.date() + timedelta(days=1)


def test_february_29_out_of_reach_names_no_day():
    # said on 1 January 1999: the next 29 February (2000) is over a year ahead
    assert resolve("February 29", datetime(1999, 1, 1)) is None
