"""Decay at read time (ADR 0007 §3): half-lives, floors, deadlines, stale marks."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from vyre.memory.decay import HALF_LIFE, ago, fresh, stale

NOW = datetime(2026, 10, 1, 12)


@pytest.mark.parametrize(
    ("rel", "half_life", "floor"),
    [
        ("is", 365, 0.4),
        ("works_at", 180, 0.25),
        ("has_title", 180, 0.25),
        ("client_of", 120, 0.25),
        ("decided", 60, 0.2),
        ("mentioned_in", 30, 0.1),
    ],
)
def test_half_lives_and_floors_from_the_adr(rel, half_life, floor):
    assert HALF_LIFE[rel] == (half_life, floor)
    assert fresh(rel, NOW, NOW) == 1.0
    assert fresh(rel, NOW - timedelta(days=half_life), NOW) == pytest.approx(max(floor, 0.5))
    assert fresh(rel, NOW - timedelta(days=10 * half_life), NOW) == floor


def test_user_taught_and_deadline_facts_do_not_decay():
    long_ago = NOW - timedelta(days=900)
    assert fresh("works_at", long_ago, NOW, "user") == 1.0
    assert fresh("client_of", long_ago, NOW, "taught") == 1.0
    assert fresh("deadline", long_ago, NOW) == 1.0
    assert not stale("works_at", long_ago, NOW, "user")


def test_stale_after_one_half_life():
    assert not stale("works_at", NOW - timedelta(days=180), NOW)
    assert stale("works_at", NOW - timedelta(days=181), NOW)


@pytest.mark.parametrize(
    ("days", "text"),
    [
        (0, "today"),
        (1, "yesterday"),
        (3, "3 days ago"),
        (21, "3 weeks ago"),
        (213, "7 months ago"),
        (400, "1 year ago"),
        (800, "2 years ago"),
    ],
)
def test_ago_reads_like_a_person(days, text):
    assert ago(NOW - timedelta(days=days), NOW) == text
