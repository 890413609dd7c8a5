"""`memory ask`: personal facts from the person's own words, grounded answers or "Not sure
yet.", one room per question, deterministic replies, and the person's corrections."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.conftest import copy_home
from tests.transcript import Transcript
from vyre.api import Memory
from vyre.ask import readers
from vyre.ask.answer import Candidate
from vyre.ask.grounding import ungrounded
from vyre.ask.personal import facts_in
from vyre.ask.reply import AskSource
from vyre.cli.main import cli
from vyre.errors import CorrectionError, OwnerOnly

NOW = "2026-10-01T12:00:00Z"
HOME_DIR = "/home/sam"
KEEL = "/home/sam/work/keel-ash"
HARLOW = "/home/sam/work/harlow"


@pytest.mark.parametrize(
    ("text", "who", "attr", "value"),
    [
        ("my wife is Juno", "wife", "name", "Juno"),
        ("booked a table for me and my wife juno on friday", "wife", "name", "Juno"),
        ("My wife Juno and I are away next week", "wife", "name", "Juno"),
        ("my daughter's called Ada", "daughter", "name", "Ada"),
        ("my dog is named Biscuit", "dog", "name", "Biscuit"),
        ("Tomas, my brother, is getting married", "brother", "name", "Tomas"),
        ("my landlord, Mr. Patel, wants the rent", "landlord", "name", "Mr. Patel"),
        ("I live in Lisbon now", "", "lives_in", "Lisbon"),
        ("we moved to Porto last year", "", "lives_in", "Porto"),
        ("my mum lives in Leeds", "mum", "lives_in", "Leeds"),
        ("my sister works at Monzo Bank", "sister", "works_at", "Monzo Bank"),
        ("my brother's birthday is 3 May", "brother", "birthday", "3 May"),
    ],
)
def test_personal_facts_in_the_ways_people_say_them(text, who, attr, value):
    found = [(w, a, v) for w, a, v, *_ in facts_in(text)]
    assert (who, attr, value) in found


def test_a_physio_and_where_they_are():
    (fact,) = facts_in("my physio is Dr. Osei at Lakeside Clinic")
    assert fact[:4] == ("physio", "name", "Dr. Osei", "Lakeside Clinic")


@pytest.mark.parametrize(
    "text",
    ["my wife is tired today", "my wife is a nurse", "the wife is Juno", "send my brother it"],
)
def test_states_and_other_peoples_relations_are_not_names(text):
    assert [f for f in facts_in(text) if f[1] == "name"] == []


def _personal_home(root, home_path) -> Memory:
    """A person's own words in their home folder, and the same sentence where it is not theirs."""
    t = Transcript(root, cwd=HOME_DIR, session="life", start="2026-09-01T09:00:00Z")
    t.user("book a table for two on saturday, my wife is Juno and she likes the window")
    t.assistant("Booked.")
    t.user("my physio is Dr. Osei at Lakeside Clinic, move my appointment to tuesday")
    t.assistant("Done.")
    t.write()
    w = Transcript(root, cwd=HOME_DIR, session="notmine", start="2026-09-02T09:00:00Z")
    w.user("summarise this")
    w.assistant("The email says: my brother is Karl and my dog is called Rex.")
    w.tool("Bash", {"command": "cat notes.txt"}, "my sister is Hilde")
    w.meta("my cousin is Otto")
    w.write()
    k = Transcript(root, cwd=KEEL, session="keel", start="2026-09-03T09:00:00Z")
    k.user("Priya Anand, the project architect at Keel & Ash Architects, wants the gallery.")
    k.assistant("I'll start on the gallery.")
    k.write()
    memory = Memory(home_path)
    memory.project_add("keel-ash", "Keel", [KEEL], "Keel & Ash Architects", caller="local")
    memory.ingest(root)
    return memory


@pytest.fixture
def life(tmp_path, vyre_home, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", NOW)
    memory = _personal_home(tmp_path / "projects", vyre_home)
    yield memory
    memory.close()


def test_a_personal_question_is_answered_from_what_you_have_said(life):
    reply = life.ask("what's my wife's name?", cwd=HOME_DIR)
    assert not reply.abstained and reply.via == "fact"
    assert reply.answer == "Your wife is Juno."
    assert reply.meta_line().endswith("from what you have said")
    (source,) = reply.sources
    assert (source.session, source.role) == ("life", "user")
    assert "my wife is Juno" in source.quote
    physio = life.ask("who is my physio?", cwd=HOME_DIR)
    assert physio.answer == "Your physio is Dr. Osei at Lakeside Clinic."


@pytest.mark.parametrize(
    "question", ["who is my brother?", "what's my dog called?", "who's my sister?", "my cousin?"]
)
def test_personal_facts_never_come_from_the_assistant_tools_or_injected_text(life, question):
    assert life.ask(question, cwd=HOME_DIR).abstained


def test_personal_facts_stay_in_the_room_that_said_them(life):
    assert life.ask("what's my wife's name?", cwd=KEEL).abstained


def test_the_same_question_gets_the_same_reply(life):
    one = life.ask("who is my physio?", cwd=HOME_DIR)
    two = life.ask("who is my physio?", cwd=HOME_DIR)
    same = ("answer", "answer_id", "confidence", "sources", "via", "abstained")
    assert {k: getattr(one, k) for k in same} == {k: getattr(two, k) for k in same}


def test_events_never_carry_the_question_or_the_answer(life):
    seen: list[dict] = []
    reply = life.ask("what's my wife's name?", cwd=HOME_DIR, id="q_1", events=seen.append)
    assert reply.id == "q_1"
    assert [e["event"] for e in seen][-1] == "memory.answered"
    assert {e.get("stage") for e in seen if e["event"] == "memory.thinking"} >= {"understanding"}
    for e in seen:
        assert e["id"] == "q_1"
        assert "Juno" not in repr(e) and "wife" not in repr(e)


def test_grounding_checks_names_numbers_dates_and_paths():
    quote = [("Dana Reyes will test the directory on Friday in src/app.py, 3 pages", None)]
    assert ungrounded("Dana Reyes will test it", quote) == []
    assert ungrounded("Marcus Bell will test it", quote) == ["Marcus", "Bell"]
    assert ungrounded("It has 4 pages", quote) == ["4"]
    assert ungrounded("see src/main.py", quote) == ["src/main.py"]
    from datetime import datetime

    said = [("the launch is due on Friday", datetime(2026, 9, 29, 10))]
    assert ungrounded("due Friday (2026-10-02)", said) == []
    assert ungrounded("due 2026-10-09", said) == ["2026-10-09"]


def test_corrections_replace_wrong_forget_and_undo(life):
    first = life.ask("who is my physio?", cwd=HOME_DIR)
    with pytest.raises(OwnerOnly):
        life.correct_answer(first.answer_id, "wrong", caller="mcp")
    fix = life.correct_answer(first.answer_id, "wrong", caller="local")
    again = life.ask("who is my physio?", cwd=HOME_DIR)
    assert again.abstained and any("is wrong" in k for k in again.known)
    life.uncorrect_answer(fix["fix"], caller="local")
    assert life.ask("who is my physio?", cwd=HOME_DIR).answer == first.answer

    replaced = life.correct_answer(
        first.answer_id, "replace", object="my physio is Dr. Mensah", caller="local"
    )
    now = life.ask("who is my physio?", cwd=HOME_DIR)
    assert (now.via, now.answer, now.sources[0].name) == (
        "corrected",
        "my physio is Dr. Mensah",
        "your correction",
    )
    told = life.ask("what's my physio's name?", cwd=HOME_DIR)  # told to memory as well
    assert told.answer == "Your physio is Dr. Mensah." and told.via == "fact"
    life.uncorrect_answer(replaced["fix"], caller="local")
    assert life.ask("what's my physio's name?", cwd=HOME_DIR).answer == first.answer

    wife = life.ask("what's my wife's name?", cwd=HOME_DIR)
    life.correct_answer(wife.answer_id, "forget", caller="local")
    assert life.ask("who is my wife?", cwd=HOME_DIR).abstained  # that turn grounds nothing now
    counts = life.answer_corrections()
    assert counts["by_kind"] == {"personal": 1} and counts["by_action"] == {"forget": 1}
    with pytest.raises(CorrectionError):
        life.correct_answer("a0000", "wrong", caller="local")


def test_remember_is_the_persons_own_and_outranks_sessions(life):
    with pytest.raises(OwnerOnly):
        life.remember("my wife is Ana", caller="hook")
    with pytest.raises(CorrectionError):
        life.remember("the weather is nice", caller="local")
    life.remember("my wife is Ana", caller="local")
    reply = life.ask("who is my wife?", cwd=KEEL)  # told, not said in a session: everywhere
    assert reply.answer == "Your wife is Ana." and reply.sources[0].session is None


def test_a_fake_reader_registers_through_the_same_interface_and_is_checked(life, vyre_home):
    class Fake:
        name = "fake"

        def read(self, question, passages):
            source = AskSource(session="keel", seq=0, role="user", name="s", quote="x", ts=None)
            return [Candidate("Marcus Bell made it", 0.99, "retrieval", [source])]

    readers.register("fake", Fake)
    (vyre_home / "settings.json").write_text('{"ask.reader": "fake"}')
    try:
        assert life.ask("who made the gallery?", cwd=KEEL).abstained  # ungrounded: refused
    finally:
        readers.unregister("fake")


@pytest.fixture(scope="module")
def world_home(world_template, tmp_path_factory):
    return copy_home(world_template, tmp_path_factory.mktemp("ask-world"))


def test_done_when_the_office_manager_is_answered_only_in_its_own_room(world_home, monkeypatch):
    monkeypatch.setenv("VYRE_HOME", str(world_home))
    monkeypatch.setenv("VYRE_NOW", NOW)
    q = "who is the office manager at Harlow Legal?"
    runner = CliRunner()
    here = runner.invoke(cli, ["memory", "ask", q, "--cwd", HARLOW], catch_exceptions=False)
    assert here.exit_code == 0, here.output
    assert "Dana Reyes" in here.output and "from 1 session" in here.output
    elsewhere = runner.invoke(cli, ["memory", "ask", q, "--cwd", KEEL], catch_exceptions=False)
    assert elsewhere.exit_code == 1 and elsewhere.output.startswith("Not sure yet.")
    assert "Dana" not in elsewhere.output


def test_the_prompt_hook_adds_a_personal_fact_through_the_daemon(tmp_path, vyre_home, monkeypatch):
    import json
    import os
    import subprocess
    import sys

    from vyre.daemon import process
    from vyre.daemon.client import open_memory
    from vyre.hooks.commands import SCRIPT

    monkeypatch.setenv("VYRE_NOW", NOW)
    _personal_home(tmp_path / "projects", vyre_home).close()
    process.start(vyre_home)
    try:
        prompt = "what's my wife's name, and book us a table for saturday"
        body = {
            "session_id": "s9",
            "cwd": HOME_DIR,
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
        for _ in range(2):  # the first run warms a daemon just started (on a loaded machine it
            # can miss the hook's budget, and the hook then adds nothing, as it should)
            run = subprocess.run(
                [sys.executable, "-I", str(SCRIPT), "UserPromptSubmit"],
                input=json.dumps(body).encode(),
                capture_output=True,
                timeout=30,
            )
        added = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "- Your wife is Juno (from what you have said)" in added
        body["cwd"] = KEEL  # another room: the person's words there say nothing of her
        run = subprocess.run(
            [sys.executable, "-I", str(SCRIPT), "UserPromptSubmit"],
            input=json.dumps(body).encode(),
            capture_output=True,
            timeout=30,
        )
        assert b"Juno" not in run.stdout
        vyre = [sys.executable, "-c", "from vyre.cli.fast import main; main()"]
        env = {**os.environ, "VYRE_HOME": str(vyre_home), "VYRE_NOW": NOW}
        fast = subprocess.run(  # the CLI's fast path: straight to the daemon, stdlib only
            [*vyre, "memory", "ask", "what's my wife's name?", "--cwd", HOME_DIR],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
        assert fast.returncode == 0 and fast.stdout.startswith("Your wife is Juno.\n")
        assert "from what you have said" in fast.stdout
        unsure = subprocess.run(
            [*vyre, "memory", "ask", "what's my wife's name?", "--cwd", KEEL],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
        assert unsure.returncode == 1 and unsure.stdout == "Not sure yet.\n"
        with open_memory("mcp") as remote:  # the same reply through the daemon, streamed
            seen: list[dict] = []
            reply = remote.ask("who is my physio?", cwd=HOME_DIR, id="d1", events=seen.append)
            assert reply.answer == "Your physio is Dr. Osei at Lakeside Clinic."
            assert seen[0] == {"event": "memory.thinking", "id": "d1", "stage": "understanding"}
            assert seen[-1] == {
                "event": "memory.answered",
                "id": "d1",
                "abstained": False,
                "limited": False,
            }
            with pytest.raises(OwnerOnly):
                remote.correct_answer(reply.answer_id, "wrong")
            assert remote.suggest("my wi", cwd=HOME_DIR)[0] == {
                "text": "wife",
                "detail": "Juno",
                "kind": "personal",
            }
    finally:
        process.stop(vyre_home)


def test_suggest_completes_names_memory_knows(life):
    assert {"text": "Juno", "detail": "wife", "kind": "personal"} in life.suggest(
        "Ju", cwd=HOME_DIR
    )
    assert any(s["text"] == "Priya Anand" for s in life.suggest("pri", cwd=KEEL))
    assert life.suggest("my wi", cwd=KEEL) == []  # not said in that room


def test_questions_are_read_for_what_they_ask():
    from vyre.ask.question import expansions, parse

    assert parse("How many depots does the client have?").head == ("depots",)
    assert parse("Which staging model did the fix change?").head[-1] == "model"
    assert parse("what's the deadline for the portal?").wh == "when"
    assert parse("Who uses jonas@keelash.com?").names == ("jonas@keelash.com",)
    assert "married" in expansions("When is the wedding?")
    # the same thing said two ways folds to one stem
    assert parse("Which tool did we pick?").terms[-1] == parse("we decided").terms[-1]


def test_sentences_counts_and_dates_as_people_write_them():
    from datetime import datetime

    from vyre.ask.answer import _absolute, _counted, _split

    assert list(
        _split("ok BI tool decision. we went with Superset, self-hosted. Dr. Osei agreed.")
    ) == [
        "ok BI tool decision.",
        "we went with Superset, self-hosted.",
        "Dr. Osei agreed.",
    ]
    assert list(_split("mail dana@harlow.law. Then ship it")) == [
        "mail dana@harlow.law.",
        "Then ship it",
    ]
    assert _counted("uk logistics company, 14 depots, head office in Leeds", "depots")
    assert not _counted("a walkthrough with two depot managers", "depots")
    said = datetime(2026, 9, 29, 10)  # a Tuesday
    assert _absolute("due on Friday", said) == "due on Friday (2026-10-02)"
    assert _absolute("since 1 March", said) == "since 1 March"  # may lie in the past
    assert _absolute("launches October 9", said, dates=True) == "launches October 9 (2026-10-09)"


def test_a_rewritten_session_takes_its_personal_facts_with_it(tmp_path, vyre_home, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", NOW)
    root = tmp_path / "projects"
    t = Transcript(root, cwd=HOME_DIR, session="home", start="2026-09-01T09:00:00Z")
    t.user("I live in Lisbon these days")
    t.assistant("Noted.")
    path = t.write()
    with Memory(vyre_home) as memory:
        memory.ingest(root)
        assert memory.ask("where do I live?", cwd=HOME_DIR).answer == "You live in Lisbon."
        later = Transcript(root, cwd=HOME_DIR, session="home", start="2026-09-01T09:00:00Z")
        later.user("we moved to Porto in the spring")  # the file rewritten (compacted, replaced)
        later.assistant("Noted.")
        later.write(path)
        memory.ingest(root)
        assert memory.ask("where do I live?", cwd=HOME_DIR).answer == "You live in Porto."


def test_a_why_answer_carries_its_explanation_from_the_same_turn():
    from vyre.ask.answer import _explained

    turn = (
        "Found it. The importer reads prices as strings while the ledger stores cents. "
        "The totals therefore come out a hundred times too big for every refund. "
        "Fix: parse them first."
    )
    chosen = ["The totals therefore come out a hundred times too big for every refund."]
    assert _explained(turn, chosen) == [
        "The importer reads prices as strings while the ledger stores cents.",
        *chosen,
    ]  # a consequence takes the cause said before it
    turn = (
        "Bookings doubled overnight, so it is repeated events, not new guests. "
        "The confirm hook runs twice because the page retries after a timeout. "
        "Nothing else changed."
    )
    chosen = ["Bookings doubled overnight, so it is repeated events, not new guests."]
    assert _explained(turn, chosen) == [
        chosen[0],
        "The confirm hook runs twice because the page retries after a timeout.",
    ]  # and the cause said after it
    said = ["The confirm hook runs twice because the page retries after a timeout."]
    assert _explained(turn, said) == said  # a cause needs nothing more


def test_where_is_answered_by_a_place_or_an_organisation_not_by_a_given_name():
    from vyre.ask.answer import _typed
    from vyre.ask.question import parse

    q = parse("Where did Lena work before Brightwater?")
    assert _typed(q, "Send the invoices to Maria via Lena first.", {}) < 1.0
    people = {"bo": [("bo lindqvist", "person")]}
    assert _typed(q, "Anything risky goes past Bo before it ships.", people) < 1.0
    assert _typed(q, "Lena used to lead analytics at Harrow Mills.", people) == 1.0
    # a name the sentence does not place answers no where-question
    based = parse("Where is Ostrander Instruments based?")
    assert _typed(based, "I set up a Gradle build for Ostrander Instruments.", {}) < 0.5
    assert _typed(based, "Ostrander Instruments is based in Tromsø.", {}) == 1.0


def test_a_given_name_inside_an_org_it_knows_is_no_person():
    from vyre.ask.answer import _person_in, _typed
    from vyre.ask.question import parse

    people = {"birch": [("birch rowan partners", "org")], "tove": [("tove ekdahl", "person")]}
    line = "Head of Design | Birch & Rowan Partners"  # an email signature's title line
    assert not _person_in(line, people, set(), orgs=False)
    assert _typed(parse("Who is the head of design?"), line, people) == 0.0
    assert _person_in(
        "Tove Ekdahl, Head of Design | Birch & Rowan Partners", people, set(), orgs=False
    )
    assert _person_in("ask Rowan Pike about it", people, set(), orgs=False)  # no org said here
    # Florence after "in" is a place to a where-question, after "to" a person
    where = parse("Where is the offsite?")
    assert _typed(where, "The offsite is in Florence this year.", {}) == 1.0


def test_a_rooms_own_name_goes_without_saying(tmp_path, vyre_home, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", NOW)
    root = tmp_path / "projects"
    folder = "/home/sam/work/foxglove"
    t = Transcript(root, cwd=folder, session="fox", start="2026-09-01T09:00:00Z")
    t.user("ok, the queue question. we decided to use RabbitMQ instead of Kafka, less to run.")
    t.assistant("Noted: RabbitMQ it is. I'll add it to the compose file.")
    t.write()
    o = Transcript(root, cwd=folder, session="fox2", start="2026-09-02T09:00:00Z")
    o.user("the Foxglove kickoff is on Monday, we still have to pick a queue at some point")
    o.assistant("I'll put the queue choice on Monday's agenda.")
    o.write()
    with Memory(vyre_home) as memory:
        memory.project_add("foxglove", "Foxglove", [folder], "Foxglove Trust", caller="local")
        memory.ingest(root)
        reply = memory.ask("Which queue did we pick for Foxglove?", cwd=folder)
        assert not reply.abstained and "RabbitMQ" in reply.answer, reply.answer
        assert reply.sources[0].session == "fox"


def test_a_recorded_decision_answers_a_choice_asked_in_other_words(
    tmp_path, vyre_home, monkeypatch
):
    monkeypatch.setenv("VYRE_NOW", NOW)  # weeks after the decision: it still holds
    root = tmp_path / "projects"
    folder = "/home/sam/work/quillon"
    t = Transcript(root, cwd=folder, session="q1", start="2026-08-01T09:00:00Z")
    t.user("two options for the sync client. decided: kotlin client, we drop the swift one")
    t.assistant("Understood. I'll set up the Gradle module for it.")
    t.user("decided: valkey not redis for the cache, the licence matters")
    t.write()
    with Memory(vyre_home) as memory:
        memory.project_add("quillon", "Quillon", [folder], caller="local")
        memory.ingest(root)
        went = memory.ask(
            "did we end up going with the kotlin client or the swift one?", cwd=folder
        )
        assert not went.abstained and "kotlin client" in went.answer, went.answer
        cache = memory.ask("which cache store did we pick for quillon?", cwd=folder)
        assert not cache.abstained and "valkey" in cache.answer, cache.answer
        assert memory.ask("who maintains the swift app?", cwd=folder).abstained  # no choice asked


def test_personal_facts_are_found_once_at_ingest_and_follow_their_turns(life):
    from vyre.ask import personal

    db = life.ledger.db
    kept = db.execute("SELECT who, attr, value, session FROM personal_said ORDER BY 1").fetchall()
    # the person's own words only: nothing from the assistant, the tool or the injected turn
    assert kept == [("physio", "name", "Dr. Osei", "life"), ("wife", "name", "Juno", "life")]
    assert not personal._behind(life.ledger)  # ingest left nothing to read at question time
    # a turn changed in place is read again; a deleted one takes its facts with it
    with life.ledger.transaction() as tx:
        tx.execute(
            "UPDATE turns SET text = 'my wife is Ana now' WHERE session = 'life' AND seq = 0"
        )
    assert personal._behind(life.ledger)
    assert life.ask("what's my wife's name?", cwd=HOME_DIR).answer == "Your wife is Ana."
    with life.ledger.transaction() as tx:
        tx.execute("DELETE FROM turns WHERE session = 'life' AND seq = 0")
    assert life.ask("what's my wife's name?", cwd=HOME_DIR).abstained
    # new patterns read every turn again
    with life.ledger.transaction() as tx:
        life.ledger.set_meta(tx, "personal.version", "0")
        tx.execute("DELETE FROM personal_said")
    assert life.ask("who is my physio?", cwd=HOME_DIR).answer.startswith("Your physio is Dr. Osei")


def test_personal_facts_of_a_read_in_many_batches_are_found_batch_by_batch(tmp_path, monkeypatch):
    """Each batch of a read finds its turns' facts in its own transaction (beside the
    workers, not after the read): the same rows as one batch finds, and none left to read."""
    import importlib

    from vyre.ask import personal

    ingest = importlib.import_module("vyre.transcripts.ingest")
    monkeypatch.setenv("VYRE_NOW", NOW)

    def said(home, batch: int) -> list[tuple]:
        monkeypatch.setattr(ingest, "BATCH_FILES", batch)
        with _personal_home(tmp_path / "projects", home) as memory:
            assert not personal._behind(memory.ledger)
            return memory.ledger.db.execute(
                "SELECT turn, session, seq, who, attr, value, at, quote, ts, rule "
                "FROM personal_said ORDER BY rowid"
            ).fetchall()

    whole = said(tmp_path / "whole", 200)
    found: list[int] = []
    real = personal.index_in

    def noting(ledger, db):
        found.append(db.execute("SELECT count(*) FROM personal_said").fetchone()[0])
        real(ledger, db)

    monkeypatch.setattr(personal, "index_in", noting)
    assert said(tmp_path / "apart", 1) == whole
    assert len(found) == 3 and found[0] < found[-1]  # one per file, each after the last


def test_a_ledger_ingested_before_personal_facts_were_kept_is_read_on_the_first_question(
    tmp_path, vyre_home, monkeypatch
):
    monkeypatch.setenv("VYRE_NOW", NOW)
    with (
        _personal_home(tmp_path / "projects", vyre_home) as memory,
        memory.ledger.transaction() as tx,  # as an older version left it
    ):
        tx.execute("DELETE FROM personal_said")
        tx.execute("DELETE FROM meta WHERE key LIKE 'personal.%'")
    with Memory(vyre_home) as memory:
        assert memory.ask("what's my wife's name?", cwd=HOME_DIR).answer == "Your wife is Juno."


def test_a_cause_asked_in_other_words_than_why():
    from vyre.ask.question import parse

    for asked in (
        "what was causing the timeouts on the upload endpoint?",
        "what caused the nightly export to stall?",
        "what was behind the flaky login test?",
        "what was the invoice rounding bug?",
        "What's the cause of the memory leak?",
    ):
        assert parse(asked).wh == "why", asked
    for asked in ("what is the bug tracker url?", "what did we name the rounding helper?"):
        assert parse(asked).wh != "why", asked


def test_a_count_is_of_the_plural_it_asks_for():
    from vyre.ask.question import parse

    assert parse("how many warehouse robots are online?").head == ("robots",)
    assert parse("how many depot managers came?").head == ("managers",)
    assert parse("how many staff work nights?").head == ("staff",)


def test_a_cause_told_later_in_the_session_in_the_symptoms_words(tmp_path, vyre_home, monkeypatch):
    """The person reports a symptom; the assistant works through tool calls and short notes,
    and only its last reply says the cause, in the words of the report rather than the
    question's ("emails sent twice" -> "the retry queue re-sent the message")."""
    monkeypatch.setenv("VYRE_NOW", NOW)
    root = tmp_path / "projects"
    folder = "/home/sam/work/mossbank"
    t = Transcript(root, cwd=folder, session="mb1", start="2026-09-10T09:00:00Z")
    t.user("customers get the welcome email twice when the signup form retries. fix it please")
    for note in ("Let me look at the mailer.", "Checking the worker config.", "Running the tests."):
        t.assistant(note)
        t.tool("Bash", {"command": "grep -rn send_welcome ."}, "app/mailer.py:12: def send_welcome")
    t.assistant(
        "Fixed in `app/mailer.py`: the signup retry put the message on the queue again without "
        "its idempotency key, so the worker could not tell the two apart. The key is now kept "
        "across retries and a test covers a retried signup."
    )
    t.user("thanks. what's the plan for the billing page?")
    t.assistant("Billing page next week, once the Stripe keys arrive.")
    t.write()
    with Memory(vyre_home) as memory:
        memory.project_add("mossbank", "Mossbank", [folder], caller="local")
        memory.ingest(root)
        for asked in (
            "why did people get duplicate welcome emails?",
            "what was causing the double welcome email?",
        ):
            reply = memory.ask(asked, cwd=folder)
            assert not reply.abstained and "idempotency key" in reply.answer, (asked, reply)
            assert (reply.sources[0].session, reply.sources[0].role) == ("mb1", "assistant")
        assert memory.ask("why did the search page crash?", cwd=folder).abstained


def test_a_hyphenated_word_asked_is_found_written_apart(tmp_path, vyre_home, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", NOW)
    root = tmp_path / "projects"
    folder = "/home/sam/work/rota"
    t = Transcript(root, cwd=folder, session="r1", start="2026-09-10T09:00:00Z")
    t.user("bug: the rota lets two people sign up for the same slot, double booking the van")
    t.assistant(
        "The slot check in `rota/slots.py` ran before the lock was taken, so two requests "
        "could both see the slot free. It takes the lock first now."
    )
    t.write()
    with Memory(vyre_home) as memory:
        memory.project_add("rota", "Rota", [folder], caller="local")
        memory.ingest(root)
        reply = memory.ask("what was the van double-booking bug?", cwd=folder)
        assert not reply.abstained and "lock" in reply.answer, reply.answer


def test_where_someone_works_is_answered_only_by_a_place_or_an_employer(
    tmp_path, vyre_home, monkeypatch
):
    monkeypatch.setenv("VYRE_NOW", NOW)
    root = tmp_path / "projects"
    folder = "/home/sam/work/heron"
    t = Transcript(root, cwd=folder, session="h1", start="2026-09-10T09:00:00Z")
    t.user("Oskar Lind is reviewing the survey chapter with me, he wants the tables by region")
    t.assistant("I'll split the tables by region for Oskar.")
    t.user("and Wren Adeyemi works at Halden Institute, she sends the raw counts on Fridays")
    t.assistant("Noted.")
    t.write()
    with Memory(vyre_home) as memory:
        memory.project_add("heron", "Heron", [folder], caller="local")
        memory.ingest(root)
        assert memory.ask("where does Oskar Lind work?", cwd=folder).abstained
        wren = memory.ask("where does Wren Adeyemi work?", cwd=folder)
        assert not wren.abstained and "Halden Institute" in wren.answer, wren.answer


@pytest.mark.parametrize(
    "said",
    [
        "due 2026-10-02",
        "ship it Friday",
        "next Tues works",
        "on 3 May",
        "by the 12th",
        "end of the month",
        "in two weeks",
        "in a fortnight",
        "tonight",
        "before EOD",
        "Sept 9",
    ],
)
def test_a_date_phrase_is_never_passed_over_by_the_quick_look(said):
    from vyre.ask.grounding import DATES, has_date, may_hold_date

    assert DATES.search(said) and may_hold_date(said) and has_date(said)
    assert not may_hold_date("ok, ship the parser as is")
