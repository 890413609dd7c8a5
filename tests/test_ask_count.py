"""Counting across sessions: "how many times did we ...?" counted from the room's turns (one
event per happening, not per mention), its sources being what was counted, the period asked
honoured, and "Not sure yet." when nothing says it happened. Every session here is invented."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from tests.transcript import Transcript
from vyre.api import Memory
from vyre.ask.count import tally
from vyre.ask.grounding import ungrounded
from vyre.ask.question import stem

NOW = "2026-10-01T12:00:00Z"
SHOP = "/home/ana/work/shop"
OTHER = "/home/ana/work/other"
AT = datetime(2026, 10, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "unit", "action", "args"),
    [
        ("How many times did we deploy to staging?", "times", "deploy", ("staging",)),
        ("how often did the build break?", "times", "break", ("build",)),
        ("how many times has the nightly import failed?", "times", "fail", ("nightly", "import")),
        ("How many sessions did we spend on the billing bug?", "sessions", "", ("billing", "bug")),
        ("how many times have I asked about the API key?", "times", "", ("api", "key")),
        ("how many times was the release rolled back?", "times", "roll-back", ("release",)),
        ("how many times did we have a staging deploy?", "times", "deploy", ("staging",)),
        ("in how many sessions did the login page come up?", "sessions", "", ("login", "page")),
    ],
)
def test_the_ways_people_ask_for_a_count(question, unit, action, args):
    t = tally(question, AT)
    assert t is not None
    assert (t.unit, t.action, t.args) == (unit, action, tuple(stem(a) for a in args))


@pytest.mark.parametrize(
    "question",
    [
        "How many depots does the client have?",
        "how many blog posts are there after the import?",
        "How many days was the estimate?",
        "how much did the client pay?",
    ],
)
def test_a_count_of_things_is_no_count_of_events(question):
    assert tally(question, AT) is None


def test_periods_are_the_days_they_name():
    assert (tally("how often did the build break this month?", AT).start) == date(2026, 10, 1)
    sept = tally("how many times did we deploy in September?", AT)
    assert (sept.start, sept.end) == (date(2026, 9, 1), date(2026, 9, 30))
    since = tally("how many times did the build fail since June?", AT)
    assert (since.start, since.end) == (date(2026, 6, 1), date(2026, 10, 1))
    assert tally("how many times did we deploy?", AT).start is None


def test_a_count_is_grounded_by_its_sources_only():
    quotes = [
        ("Deployed to staging.", datetime(2026, 9, 2, 10)),
        ("Redeployed.", datetime(2026, 9, 9)),
    ]
    assert ungrounded("2 times: on 2026-09-02 and 2026-09-09.", quotes, counted=(2, 2)) == []
    assert ungrounded("3 times: on 2026-09-02.", quotes, counted=(3, 2)) != []  # not its sources
    assert ungrounded("2 times: on 2026-09-03.", quotes, counted=(2, 2)) == ["2026-09-03"]
    # no count: a plain number, and a day said on is no date the quote states
    assert ungrounded("2 times: on 2026-09-02.", quotes) == ["2026-09-02", "2"]


def _shop(root) -> None:
    """Deploys to staging in three sessions (twice in the first), the build broken in two,
    and what only sounds like an event: plans, negations, a script named after one."""
    a = Transcript(root, cwd=SHOP, session="s-a", start="2026-09-02T10:00:00Z")
    a.user("write a deploy script for the shop, we don't deploy to production until launch")
    a.assistant("deploy.sh builds the site and copies it to the server.")
    a.user("deploy it to staging")
    a.tool("Bash", {"command": "./deploy.sh staging"}, "ok")
    a.assistant("Deployed to staging; the cart page loads.")
    a.user("the price filter is off by one, fix it and deploy again")
    a.tool("Bash", {"command": "./deploy.sh staging"}, "ok")
    a.assistant("Fixed the filter in src/filter.ts and redeployed to staging.")
    a.write()
    b = Transcript(root, cwd=SHOP, session="s-b", start="2026-09-09T10:00:00Z")
    b.user("the build is broken, the CI log says the cart test fails")
    b.assistant("The build failed because the cart test expects the old tax rate. Updated it.")
    b.assistant("The build passes again.")
    b.user("can you deploy that to staging?")
    b.tool("Bash", {"command": "./deploy.sh staging"}, "ok")
    b.assistant("Done: staging has the new tax rate.")
    b.write()
    c = Transcript(root, cwd=SHOP, session="s-c", start="2026-09-16T10:00:00Z")
    c.user("before we deploy to staging, run the tests. I'll deploy to production myself later")
    c.assistant("The tests pass. Deploying to staging now.")
    c.assistant("Deployed to staging.")
    c.user("where is the API key for the payment provider kept?")
    c.assistant("In the server's env file, read at start.")
    c.write()
    d = Transcript(root, cwd=SHOP, session="s-d", start="2026-10-01T09:00:00Z")
    d.user("the build broke again after the upgrade")
    d.assistant("A removed option in the bundler config; the build is fixed.")
    d.user("remind me where the API key lives?")
    d.assistant("In the server's env file.")
    d.write()
    e = Transcript(root, cwd=OTHER, session="s-e", start="2026-09-20T10:00:00Z")
    e.user("deploy it to staging")
    e.assistant("Deployed to staging.")
    e.write()


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    root = tmp_path_factory.mktemp("count")
    _shop(root / "projects")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VYRE_HOME", str(root / "home"))
        mp.setenv("VYRE_NOW", NOW)
        memory = Memory(root / "home")
        memory.project_add("shop", "Shop", [SHOP], None, caller="local")
        memory.project_add("other", "Other", [OTHER], None, caller="local")
        memory.ingest(root / "projects")
        yield memory
        memory.close()


def _ask(memory: Memory, question: str):
    return memory.ask(question, cwd=SHOP, now=datetime(2026, 10, 1, 12, tzinfo=UTC))


def test_distinct_events_are_counted_and_are_the_sources(shop):
    reply = _ask(shop, "How many times did we deploy to staging?")
    assert not reply.abstained, reply.answer
    assert reply.answer.startswith("4 times, in 3 sessions")
    assert "2026-09-02 (twice)" in reply.answer
    assert [s.session for s in reply.sources] == ["s-a", "s-a", "s-b", "s-c"]
    assert reply.kind == "count" and reply.via == "retrieval"
    for s in reply.sources:  # each source is a turn that says it happened, quoted as said
        turn = shop.ledger.turn(s.session, s.seq)
        assert s.quote in turn["text"]


def test_another_room_is_never_counted(shop):
    reply = _ask(shop, "How many times did we deploy to staging?")
    assert "s-e" not in {s.session for s in reply.sources}


def test_a_period_is_honoured(shop):
    reply = _ask(shop, "how often did the build break in September?")
    assert reply.answer.startswith("1 time") and reply.sources[0].session == "s-b"
    every = _ask(shop, "how many times did the build break?")
    assert every.answer.startswith("2 times") and {s.session for s in every.sources} == {
        "s-b",
        "s-d",
    }


def test_sessions_and_asks_are_counted_per_session(shop):
    reply = _ask(shop, "how many sessions did we spend on the cart test?")
    assert reply.answer.startswith("In 1 session")
    asked = _ask(shop, "how many times have I asked about the API key?")
    assert asked.answer.startswith("2 times") and [s.session for s in asked.sources] == [
        "s-c",
        "s-d",
    ]
    assert all(s.role == "user" for s in asked.sources)


def test_what_never_happened_is_not_sure_yet_with_what_memory_knows(shop):
    reply = _ask(shop, "How many times did we deploy to production?")
    assert reply.abstained
    assert any("not said to have happened" in k for k in reply.known)
    nothing = _ask(shop, "how many times did we roll back the release?")
    assert nothing.abstained and nothing.known


def test_the_same_count_twice_is_the_same_reply(shop):
    one = _ask(shop, "How many times did we deploy to staging?")
    two = _ask(shop, "How many times did we deploy to staging?")
    assert (one.answer, one.answer_id, one.sources) == (two.answer, two.answer_id, two.sources)
