"""Replies kept by the question's hash (vyre/ask/kept.py): the same question over the same
memory is answered from the kept reply, which is the reply computed afresh; anything the
answer reads changing (a new turn, a correction, a told fact, the day) is a new key."""

from __future__ import annotations

import json

import pytest

from tests.test_ask import _personal_home
from tests.transcript import Transcript
from vyre.ask import answer, kept

NOW = "2026-10-01T12:00:00Z"
HOME_DIR = "/home/sam"
KEEL = "/home/sam/work/keel-ash"
SAME = ("answer", "answer_id", "confidence", "abstained", "known", "sources", "via", "kind")
QUESTIONS = [
    ("what's my wife's name?", HOME_DIR),  # a personal fact
    ("who is the project architect at Keel & Ash Architects?", KEEL),  # a graph fact
    ("what does Priya want?", KEEL),  # a passage
    ("what's my dog called?", HOME_DIR),  # not sure
]


@pytest.fixture
def home(tmp_path, vyre_home, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", NOW)
    memory = _personal_home(tmp_path / "projects", vyre_home)
    yield memory
    memory.close()


def _fields(reply) -> dict:
    return {k: getattr(reply, k) for k in SAME}


def _nothing_recomputed(monkeypatch) -> None:
    def fail(*args, **kwargs):
        raise AssertionError("answered again instead of from the kept reply")

    for step in ("_personal", "_facts", "_passages", "_known"):
        monkeypatch.setattr(answer, step, fail)


def test_a_kept_reply_is_the_reply_computed_afresh(home, monkeypatch):
    first = [home.ask(q, cwd=cwd) for q, cwd in QUESTIONS]
    assert [r.abstained for r in first] == [False, False, False, True]
    with monkeypatch.context() as m:
        _nothing_recomputed(m)
        again = [home.ask(q, cwd=cwd, id=f"q{i}") for i, (q, cwd) in enumerate(QUESTIONS)]
    assert [_fields(r) for r in again] == [_fields(r) for r in first]
    assert [r.id for r in again] == ["q0", "q1", "q2", "q3"]  # the caller's own ids
    kept.forget(home)
    afresh = [home.ask(q, cwd=cwd) for q, cwd in QUESTIONS]
    assert [_fields(r) for r in afresh] == [_fields(r) for r in first]


def test_a_kept_reply_is_for_its_room_and_its_words(home, monkeypatch):
    home.ask("what's my wife's name?", cwd=HOME_DIR)
    assert home.ask("what's my wife's name?", cwd=KEEL).abstained  # said in no project
    with monkeypatch.context() as m:
        _nothing_recomputed(m)
        with pytest.raises(AssertionError):
            home.ask("What's my wife's name?", cwd=HOME_DIR)  # other words: asked afresh


def test_a_correction_takes_effect_on_the_next_ask(home):
    reply = home.ask("what's my wife's name?", cwd=HOME_DIR)
    fix = home.correct_answer(reply.answer_id, "wrong", caller="local")
    assert home.ask("what's my wife's name?", cwd=HOME_DIR).abstained
    home.uncorrect_answer(fix["fix"], caller="local")
    assert home.ask("what's my wife's name?", cwd=HOME_DIR).answer == "Your wife is Juno."
    home.correct_answer(reply.answer_id, "replace", object="my wife is Ana", caller="local")
    corrected = home.ask("what's my wife's name?", cwd=HOME_DIR)
    assert (corrected.via, corrected.answer) == ("corrected", "my wife is Ana")


def test_a_told_fact_a_new_turn_and_a_new_day_are_new_keys(home, tmp_path, monkeypatch):
    assert home.ask("who is my wife?", cwd=KEEL).abstained
    home.remember("my wife is Ana", caller="local")
    assert home.ask("who is my wife?", cwd=KEEL).answer == "Your wife is Ana."

    question = "who is the office manager at Keel & Ash Architects?"
    assert home.ask(question, cwd=KEEL).abstained
    later = Transcript(
        tmp_path / "projects", cwd=KEEL, session="keel2", start="2026-09-20T09:00:00Z"
    )
    later.user("Tomas Berg is the office manager at Keel & Ash Architects, ask him for keys.")
    later.assistant("Noted.")
    later.write()
    home.ingest(tmp_path / "projects")
    found = home.ask(question, cwd=KEEL)
    assert not found.abstained and "Tomas Berg" in found.answer

    with monkeypatch.context() as m:
        _nothing_recomputed(m)
        home.ask(question, cwd=KEEL)  # kept
        m.setenv("VYRE_NOW", "2026-10-02T12:00:00Z")  # decay is read on the day asked
        with pytest.raises(AssertionError):
            home.ask(question, cwd=KEEL)


def test_no_question_text_in_events_or_logs(home, vyre_home):
    from vyre.daemon.server import Daemon

    daemon = Daemon(vyre_home)
    daemon.memory = home
    question = "what did Zephyrine say about the quokka?"
    line = json.dumps({"op": "ask", "args": {"question": question, "cwd": KEEL, "stream": True}})
    seen: list[dict] = []
    for _ in range(2):  # once answered, once kept
        reply = daemon.handle(line.encode(), events=seen.append)
        assert reply["ok"], reply
    assert seen and all("quokka" not in json.dumps(e).lower() for e in seen)
    events = home.ledger.db.execute("SELECT kind || ' ' || data FROM events").fetchall()
    assert all("quokka" not in row[0].lower() for row in events)
    for path in vyre_home.rglob("*"):
        if path.is_file() and path.suffix in (".log", ".jsonl", ".json"):
            assert "quokka" not in path.read_text(errors="replace").lower(), path
