"""Issue 9, item 9: a shortened quote is cut at a word boundary with an ellipsis, never
mid-word, by one helper (`vyre.wording`) wherever a quote or a name is shortened: evidence
quotes (extraction), recall passages, the CLI's ask sources, the hook's session names, the
Deck's pictures; and a count is said with the right plural."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.transcript import Transcript
from vyre.api import Memory
from vyre.ask.text import lines
from vyre.extract.rules import QUOTE_CHARS, extract
from vyre.hooks import context
from vyre.wording import ELLIPSIS, clip, clip_around, count, pieces

LONG = (
    "Priya Anand, the project architect at Keel & Ash Architects, sent the revised plans for "
    "the library annex yesterday and asked whether the structural engineer could review them "
    "before the planning committee meets on Friday afternoon in the council chamber."
)
WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzé", min_size=1, max_size=12), min_size=1
)


def whole_words(short: str, text: str) -> bool:
    """Every word of `short` (ellipses aside) is a whole word of `text`."""
    words = set(text.split())
    return all(w in words for p in pieces(short) for w in p.split())


def test_clip_cuts_after_the_last_whole_word_with_an_ellipsis():
    assert clip(LONG, 40) == "Priya Anand, the project architect at…"
    assert clip("short enough", 40) == "short enough"
    assert clip("a  text\nwith   spaces", 40) == "a text with spaces"
    assert clip("https://example.com/a/very/long/path/without/any/spaces", 20) == (
        "https://example.com…"  # one long word: cut where it must be, still marked
    )


def test_clip_around_keeps_the_span_and_marks_both_cuts():
    start = LONG.index("structural engineer")
    short = clip_around(LONG, start, start + len("structural engineer"), 60)
    assert short.startswith(ELLIPSIS) and short.endswith(ELLIPSIS) and len(short) <= 60
    assert "structural engineer" in short and whole_words(short, LONG)


@given(WORDS, st.integers(8, 80))
@example(["a", "aaa", "aaaaaa", "a"], 12)  # the last space at exactly half the room
def test_clip_never_cuts_a_word_that_could_fit(words, most):
    text = " ".join(words)
    short = clip(text, most)
    assert len(short) <= most
    assert short.endswith(ELLIPSIS) == (len(text) > most)
    if all(len(w) <= most // 2 for w in words):
        assert whole_words(short, text)


@given(WORDS, st.integers(12, 80), st.data())
def test_clip_around_never_cuts_a_word_that_could_fit(words, most, data):
    text = " ".join(words)
    start = data.draw(st.integers(0, len(text) - 1))
    short = clip_around(text, start, start + 1, most)
    assert len(short) <= most
    if all(len(w) <= most // 4 for w in words):
        assert whole_words(short, text)


def test_an_evidence_quote_is_cut_at_words_with_an_ellipsis():
    filler = " ".join(["and then we talked about the drawings for a while"] * 8)
    text = f"{filler} with Priya Anand from Summit Dental {filler} is due Friday"
    got = extract("person", "text", text, "2026-09-07T10:00:00")
    name = next(m for m in got if m[0] == "person.name")[6]
    assert len(name) <= QUOTE_CHARS and "Priya Anand" in name
    assert name.startswith(ELLIPSIS) and name.endswith(ELLIPSIS)
    assert whole_words(name, text)
    for m in got:
        assert whole_words(m[6], text), m


def test_the_cli_shows_an_ask_source_cut_at_a_word():
    reply = {
        "answer": "Friday afternoon.",
        "answer_id": "a1",
        "confidence": 0.8,
        "via": "retrieval",
        "sources": [{"session": "s1", "seq": 2, "name": "plans", "ts": None, "quote": LONG}],
    }
    (source,) = [line for line in lines(reply) if line.startswith("  - ")]
    quote = re.search(r'"(.*)"', source).group(1)
    assert quote.endswith(ELLIPSIS) and whole_words(quote, LONG) and len(quote) <= 140


def test_the_hook_names_a_long_session_title_cut_at_a_word(tmp_path, vyre_home):
    title = "Reviewing the structural drawings for the library annex extension"
    t = Transcript(tmp_path / "p", cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.raw({"type": "summary", "summary": title, "leafUuid": "x"})
    t.write()
    with Memory(vyre_home) as memory:
        memory.ingest(tmp_path / "p")
        text = context.enrich(memory, "Draft a reply to Priya Anand", "/w/keel")
    named = re.search(r"from session (.*), ", text)
    assert named, text
    assert named.group(1) == "Reviewing the structural drawings for…"


@pytest.mark.parametrize(
    ("n", "noun", "said"),
    [(1, "session", "1 session"), (2, "session", "2 sessions"), (1, "link", "1 link")],
)
def test_counts_are_said_with_the_right_plural(n, noun, said):
    assert count(n, noun) == said


def test_the_decks_picture_says_one_link_and_cuts_names_at_a_word():
    from vyre.deck.pictures import room_svg
    from vyre.models import Fact

    org = "Keel and Ash Architects of the Northern Quarter"
    fact = Fact(
        id="f1",
        subject="Priya Anand",
        subject_kind="person",
        rel="works_at",
        object=org,
        object_kind="org",
        room="keel",
        confidence=0.9,
        fresh=1.0,
        stale=False,
        seen=None,
        valid_from=None,
        valid_to=None,
    )
    picture = room_svg([fact])
    assert picture is not None
    assert picture.caption.startswith("1 link")
    assert "Keel and Ash Architects of…" in picture.svg


def test_the_overview_counts_stale_facts_among_the_facts_it_counts(tmp_path, vyre_home):
    """A room whose only facts are who someone is, said long ago: "0 facts" must not sit
    beside "1 fact not said for more than a half-life" (an identity row is no fact there)."""
    from datetime import datetime

    t = Transcript(tmp_path / "p", cwd="/w/keel", session="s1", start="2025-01-06T10:00:00Z")
    t.user("Priya Anand sent the plans over.")
    t.write()
    with Memory(vyre_home) as memory:
        memory.ingest(tmp_path / "p")
        view = memory.overview(now=datetime(2026, 12, 1))
    assert view.counts.get("person") == 1
    assert view.stale <= view.facts
    assert (view.facts, view.stale) == (0, 0)
