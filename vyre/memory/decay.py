"""Freshness, computed when read (ADR 0007 §3). Derive never reads the clock.

fresh = max(floor, 0.5 ^ (days since seen / half-life)). A deadline is 1 until its date.
User, taught and confirmed facts do not decay. A fact is stale once it was last said more
than one half-life ago; stale facts are still listed, marked, and ranked lower.
"""

from __future__ import annotations

from datetime import datetime

# rel -> (half-life in days, floor)
HALF_LIFE: dict[str, tuple[float, float]] = {
    "is": (365, 0.4),
    "works_at": (180, 0.25),
    "has_title": (180, 0.25),
    "client_of": (120, 0.25),
    "decided": (60, 0.2),
    "mentioned_in": (30, 0.1),
    # Not in the ADR's table; chosen to match their nearest neighbour above.
    "prefers": (180, 0.25),
    "repo_for": (365, 0.4),
    "has_address": (365, 0.4),
    "domain_of": (365, 0.4),
}
NO_DECAY_SOURCES = ("user", "taught", "confirmed")


def fresh(rel: str, seen: datetime | None, now: datetime, source: str = "extracted") -> float:
    if source in NO_DECAY_SOURCES or rel == "deadline" or seen is None:
        return 1.0
    half_life, floor = HALF_LIFE.get(rel, (180, 0.25))
    days = max(0.0, (now - seen).total_seconds() / 86400)
    return round(max(floor, 0.5 ** (days / half_life)), 4)


def stale(rel: str, seen: datetime | None, now: datetime, source: str = "extracted") -> bool:
    if source in NO_DECAY_SOURCES or rel == "deadline" or seen is None:
        return False
    half_life, _ = HALF_LIFE.get(rel, (180, 0.25))
    return (now - seen).days > half_life


def ago(then: datetime | None, now: datetime) -> str:
    """'today', '3 days ago', '7 months ago', '2 years ago'."""
    if then is None:
        return "never said"
    days = (now - then).days
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    if days < 14:
        return f"{days} days ago"
    if days < 60:
        return f"{days // 7} weeks ago"
    if days < 365:
        return f"{round(days / 30.44)} months ago"
    years = days / 365.25
    return "1 year ago" if years < 1.5 else f"{round(years)} years ago"
