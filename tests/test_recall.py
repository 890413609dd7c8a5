"""Recall: the turns of the asker's room that answer a question, ranked, with no model."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.transcript import Transcript
from vyre.api import Memory
from vyre.ask import recall
from vyre.cli.main import cli
from vyre.errors import OwnerOnly
from vyre.ledger import Ledger
from vyre.ledger import search as index
from vyre.rooms.membership import session_rooms
from vyre.wording import pieces

NOW = datetime(2026, 11, 20, 9, 0)


@pytest.fixture
def root(vyre_home) -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"


def write(root: Path, cwd: str, session: str, start: str, *turns: tuple[str, str]) -> Transcript:
    t = Transcript(root, cwd=cwd, session=session, start=start)
    for who, text in turns:
        (t.user if who == "user" else t.assistant)(text)
    t.write()
    return t


@pytest.fixture
def memory(root):
    write(
        root,
        "/w/keel",
        "k1",
        "2026-03-10T10:00:00Z",
        ("user", "what is the wifi password for the site office?"),
        ("assistant", "It is on the sticker by the door: lantern-42."),
        ("user", "thanks, and the printer is the one by the stairs"),
    )
    write(
        root,
        "/w/keel",
        "k2",
        "2026-06-02T10:00:00Z",
        ("user", "I painted the meeting room blue over the weekend."),
        ("assistant", "You painted it blue; I suggested painting it grey instead."),
    )
    write(
        root,
        "/w/keel",
        "k3",
        "2026-01-15T10:00:00Z",
        ("user", "The budget review moved, the budget is tight this quarter."),
    )
    write(
        root,
        "/w/keel",
        "k4",
        "2026-06-20T10:00:00Z",
        ("user", "Budget approved for the new kiln."),
    )
    write(
        root,
        "/w/harlow",
        "h1",
        "2026-04-01T10:00:00Z",
        ("user", "Harlow's office manager is Dana Reyes, she handles the printer too."),
    )
    write(root, "/w/keel/docs", "d1", "2026-05-01T10:00:00Z", ("user", "the docs use mkdocs"))
    write(root, "/home/sam", "u1", "2026-02-01T10:00:00Z", ("user", "my brother Tomas is in Porto"))
    write(
        root,
        "/home/sam/notes",
        "u2",
        "2026-09-01T10:00:00Z",
        ("user", "keel planning: the launch moved to the ninth of October"),
    )
    with Memory() as m:
        m.project_add("keel", "Keel", ["/w/keel"], caller="local")
        m.project_add("keel-docs", "Keel docs", ["/w/keel/docs"], caller="local")
        m.project_add("harlow", "Harlow", ["/w/harlow"], caller="local")
        m.ingest(root)
        m.project_pick("keel", "u2", caller="local")
        yield m


def found(m: Memory, question: str, **where) -> list[tuple[str, int]]:
    return [(p.session, p.seq) for p in m.recall(question, now=NOW, **where)]


def test_words_are_stemmed_and_any_of_them_counts(memory):
    # "painting" finds "painted"; "walls" is said nowhere and does not stop the match
    hits = found(memory, "who was painting the walls?", cwd="/w/keel")
    assert hits[0][0] == "k2"
    assert found(memory, "zebra quokka", cwd="/w/keel") == []


def test_question_words_alone_find_nothing(memory):
    assert memory.recall("what is it, and who did it?", cwd="/w/keel", now=NOW) == []


def test_a_turn_that_asks_is_answered_by_the_turn_after_it(memory):
    hits = found(memory, "the wifi password of the site office", cwd="/w/keel")
    assert hits[0] == ("k1", 1)  # the answer, above the question that holds the words
    assert ("k1", 0) in hits


def test_the_first_person_prefers_the_persons_turns_and_the_second_the_assistants(memory):
    assert found(memory, "what did I paint?", cwd="/w/keel")[0] == ("k2", 0)
    assert found(memory, "what did you say about painting?", cwd="/w/keel")[0] == ("k2", 1)


def test_a_period_in_the_question_favours_sessions_held_then(memory):
    assert found(memory, "the budget in June 2026", cwd="/w/keel")[0] == ("k4", 0)
    assert found(memory, "budget in January", cwd="/w/keel")[0] == ("k3", 0)


def test_each_room_reads_only_its_own_sessions(memory):
    assert {s for s, _ in found(memory, "office manager printer", cwd="/w/keel")} == {"k1"}
    assert {s for s, _ in found(memory, "office manager printer", cwd="/w/harlow")} == {"h1"}
    # a deeper project's folder is its own room
    assert found(memory, "mkdocs", cwd="/w/keel") == []
    assert found(memory, "mkdocs", cwd="/w/keel/docs/site") == [("d1", 0)]
    # outside every project: unfiled, and never a project's sessions
    assert found(memory, "brother Porto", cwd="/home/sam") == [("u1", 0)]
    assert found(memory, "brother Porto", cwd="/w/keel") == []
    # a session picked into a project is in that project's room, and no longer unfiled
    assert found(memory, "launch October", project="keel") == [("u2", 0)]
    assert found(memory, "launch October", cwd="/home/sam") == []


def test_every_room_only_for_the_owners_own_surfaces(memory):
    everywhere = found(memory, "printer", everywhere=True, caller="cli")
    assert {s for s, _ in everywhere} == {"k1", "h1"}
    for caller in ("hook", "mcp", "agent:x"):
        with pytest.raises(OwnerOnly):
            memory.recall("printer", everywhere=True, caller=caller)
    with pytest.raises(OwnerOnly):
        memory.recall("printer", project="*")


def test_passages_quote_the_turn_as_written(memory):
    for p in memory.recall("painted blue grey", cwd="/w/keel", now=NOW):
        turn = memory.ledger.turn(p.session, p.seq)
        written = " ".join(turn["text"].split())
        assert p.quote and all(piece in written for piece in pieces(p.quote))
        assert p.role == turn["role"] and p.by == turn["by"]
        assert p.ts is not None and p.score > 0


def test_a_long_turn_is_quoted_around_what_matched():
    text = "Intro words here. " * 40 + "The kiln budget is final now. " + "Tail words. " * 40
    piece = recall.quote(text, ["kiln", "budget"])
    assert piece.startswith("The kiln budget") and len(piece) <= 300
    assert piece.endswith("Tail…") and piece[:-1] in text  # cut after a whole word, marked


def test_a_quote_is_cut_after_a_whole_word_with_an_ellipsis():
    text = "Intro. The kiln budget is final now and the glaze order waits for Friday " * 9
    piece = recall.quote(text, ["kiln"], size=50)
    assert piece == "The kiln budget is final now and the glaze order…"


# -- keeping the index up to date ---------------------------------------------------------------


def test_appended_lines_rewritten_files_and_joined_messages_stay_searchable(root):
    t = Transcript(root, cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
    t.user("Who leads the zebrafish team?")
    t.assistant("The zebrafish team is led by Priya.", msg="m1")
    path = t.write()
    with Memory() as m:
        m.project_add("keel", "Keel", ["/w/keel"], caller="local")
        m.ingest(root)
        assert found(m, "zebrafish", project="keel")[0] == ("s1", 1)
        # the same message continues in a later batch: one turn, both halves
        t.assistant("Her marmalade notes are attached.", msg="m1")
        t.user("and the pelican budget?")
        with path.open("ab") as f:
            f.write(b"".join(line + b"\n" for line in t.lines()[-2:]))
        m.ingest(root)
        assert ("s1", 1) in found(m, "marmalade", project="keel")
        assert found(m, "pelican", project="keel")[0][0] == "s1"
        # neighbours stay neighbours after the session was written again
        assert _places(m, "s1") == [0, 1, 2]
        # a rewritten file leaves only its new words
        new = Transcript(root, cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
        new.user("Walrus drawings are ready.")
        new.write()
        m.ingest(root)
        assert found(m, "zebrafish marmalade pelican", project="keel") == []
        assert found(m, "walrus", project="keel") == [("s1", 0)]
        # FTS5's own check of a contentless index (raises when it is corrupt)
        m.ledger.db.execute(
            "INSERT INTO recall_fts (recall_fts, rank) VALUES ('integrity-check', 0)"
        )


def test_a_ledger_with_turns_and_no_index_catches_up_when_searched(memory):
    db = memory.ledger.db
    with memory.ledger.transaction():
        db.execute("INSERT INTO recall_fts (recall_fts) VALUES ('delete-all')")
        db.execute("DELETE FROM recall_docs")
        db.execute("DELETE FROM recall_sessions")
        db.execute("DELETE FROM meta WHERE key = 'recall.turn'")
    assert found(memory, "painted", cwd="/w/keel")[0] == ("k2", 0)


def test_tool_output_program_text_and_subagents_are_not_searched(root):
    t = Transcript(root, cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
    t.user("check the drawings")
    t.tool("Bash", {"command": "ls"}, "quokka-section.pdf")
    t.meta("<system-reminder>quokka reminder</system-reminder>")
    t.write()
    side = Transcript(
        root, cwd="/w/keel", session="agent-1", start="2026-09-01T10:00:00Z", sidechain=True
    )
    side.assistant("The quokka plan is drafted.")
    side.write()
    with Memory() as m:
        m.ingest(root)
        assert found(m, "quokka", cwd="/w/keel") == []
        assert found(m, "drawings", cwd="/w/keel") == [("s1", 0)]


def _places(m: Memory, session: str) -> list[int]:
    no = m.ledger.db.execute(
        "SELECT no FROM recall_sessions WHERE session = ?", (session,)
    ).fetchone()[0]
    ids = m.ledger.db.execute(
        "SELECT id FROM recall_docs WHERE id >> ? = ? ORDER BY id", (index.SESSION_SHIFT, no)
    ).fetchall()
    return [index.Doc(i).place & ((1 << 20) - 1) for (i,) in ids]


# -- the index's room clause is the rooms' own rule ---------------------------------------------

FOLDERS = ["/a", "/a/b", "/a/b/c", "/a/d", "/e", "/e/f"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    layout=st.lists(
        st.lists(st.sampled_from(FOLDERS), min_size=1, max_size=2, unique=True),
        min_size=1,
        max_size=4,
    ),
    cwds=st.lists(st.sampled_from([*FOLDERS, "/a/b/c/x", "/z", "/e/f/g", None]), min_size=1),
    picks=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20)), max_size=4),
)
def test_the_index_scope_matches_the_rooms_rule(tmp_path_factory, layout, cwds, picks):
    ledger = Ledger(tmp_path_factory.mktemp("scope") / "vyre.db")
    with ledger.transaction() as db:
        for n, cwd in enumerate(cwds):
            db.execute("INSERT INTO sessions (id, cwd) VALUES (?, ?)", (f"s{n}", cwd))
            db.execute(
                "INSERT INTO turns (session, seq, role, by, kind, text) "
                "VALUES (?, 0, 'user', 'person', 'text', 'word')",
                (f"s{n}",),
            )
        for n, folders in enumerate(layout):
            db.execute("INSERT INTO projects (slug, name) VALUES (?, ?)", (f"p{n}", f"p{n}"))
            db.executemany(
                "INSERT INTO project_folders (slug, folder) VALUES (?, ?)",
                [(f"p{n}", f) for f in folders],
            )
        for p, s in picks:
            if p < len(layout) and s < len(cwds):
                db.execute("INSERT OR IGNORE INTO picks VALUES (?, ?)", (f"p{p}", f"s{s}"))
        index.index_new(db)
    projects = ledger.projects()
    rooms = session_rooms(ledger.sessions(), projects)
    for room in [p["slug"] for p in projects] + ["unfiled"]:
        scope = recall.scope_for(room, projects)
        hits = ledger.db.execute(
            "SELECT r.session FROM recall_fts f JOIN recall_docs d ON d.id = f.rowid "
            "JOIN turns t ON t.id = d.turn JOIN recall_sessions r ON r.session = t.session "
            "WHERE recall_fts MATCH ?",
            (f'text:"word" AND ({scope.expression})',),
        ).fetchall()
        assert {s for (s,) in hits} == {s for s, held in rooms.items() if room in held}, room
    ledger.close()


# -- what a question asks ----------------------------------------------------------------------


def test_content_words_drop_question_words_and_stop_words():
    assert recall.words("What did Caroline research, and when?") == ["caroline", "research"]
    assert recall.words("Who is the studio director?") == ["studio", "director"]
    assert recall.speaker("what is my wife called?") == "person"
    assert recall.speaker("what did you suggest for caching?") == "agent"
    assert recall.speaker("did I ask you to fix it?") is None
    assert recall.speaker("when does the site launch?") is None


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What did Gina find on 1 February, 2023?", "2023-02-01", "2023-02-01"),
        ("What painting did she show on October 13, 2023?", "2023-10-13", "2023-10-13"),
        ("what did we deploy on 2026-10-09", "2026-10-09", "2026-10-09"),
        ("What class did Maria start in December 2023?", "2023-12-01", "2023-12-31"),
        ("How many times did she go to the beach in 2023?", "2023-01-01", "2023-12-31"),
        ("what did we decide last week?", "2026-11-09", "2026-11-15"),
        ("what broke yesterday", "2026-11-19", "2026-11-19"),
        ("the config we changed last month", "2026-10-01", "2026-10-31"),
    ],
)
def test_a_period_is_read_from_the_question(question, start, end):
    p = recall.period(question, NOW)
    assert p is not None and (p.start.isoformat(), p.end.isoformat()) == (start, end)


def test_a_month_alone_is_that_month_of_any_year_and_may_the_verb_is_no_month():
    assert recall.period("When did she go camping in June?", NOW).month == 6
    assert recall.period("What may I bring to the party?", NOW) is None
    assert recall.period("what is the deadline?", NOW) is None


# -- surfaces -----------------------------------------------------------------------------------


def test_the_cli_prints_ranked_turns_and_json(memory):
    memory.close()
    runner = CliRunner()
    out = runner.invoke(cli, ["recall", "wifi password", "--cwd", "/w/keel", "-n", "2"])
    assert out.exit_code == 0, out.output
    assert "session k1 #1" in out.output.splitlines()[0] and "lantern-42" in out.output
    js = runner.invoke(cli, ["recall", "wifi password", "--project", "keel", "--json"])
    import json

    rows = json.loads(js.output)
    assert rows[0]["session"] == "k1" and set(rows[0]) == {
        "session",
        "seq",
        "role",
        "by",
        "quote",
        "ts",
        "score",
    }
    nothing = runner.invoke(cli, ["recall", "quokka", "--cwd", "/w/keel"])
    assert nothing.exit_code == 0 and "Nothing found." in nothing.output
    refused = runner.invoke(cli, ["recall", "printer", "--all"])  # no terminal here
    assert refused.exit_code == 1 and "refused" in refused.output


def test_the_daemon_serves_recall_and_keeps_every_room_for_the_owner(memory, vyre_home):
    from vyre.daemon import process
    from vyre.daemon.client import RemoteMemory
    from vyre.daemon.protocol import DaemonError, call

    memory.close()
    process.start(vyre_home)
    try:
        remote = RemoteMemory(vyre_home, "cli")
        passages = remote.recall("wifi password", cwd="/w/keel", now=NOW)
        assert [(p.session, p.seq) for p in passages][:1] == [("k1", 1)]
        assert passages[0].ts is not None  # a Passage again on this side of the socket
        with pytest.raises(DaemonError, match="only your own surfaces"):
            call(
                "recall",
                {"query": "printer", "everywhere": True, "caller": "cli"},
                caller="hook",
                home=vyre_home,
            )
    finally:
        process.stop(vyre_home)


def test_a_question_asking_when_prefers_the_turn_that_tells_a_time(root):
    write(
        root,
        "/w/keel",
        "s1",
        "2026-09-01T10:00:00Z",
        ("user", "The kiln was fired for the glaze tests, all of them passed."),
        ("assistant", "Good to hear the glaze tests passed in the kiln."),
        ("user", "For the record, the kiln was fired last Tuesday."),
    )
    with Memory() as m:
        m.ingest(root)
        assert found(m, "when was the kiln fired?", cwd="/w/keel")[0] == ("s1", 2)
        assert found(m, "which glaze tests passed in the kiln?", cwd="/w/keel")[0] != ("s1", 2)


def test_when_questions_and_turns_that_tell_a_time():
    assert recall.asks_when("When did Melanie paint a sunrise?")
    assert recall.asks_when("what day is the launch?")
    assert not recall.asks_when("what did I say when the build broke?")
    assert recall.tells_time("I painted it last year")
    assert recall.tells_time("we met at 3pm") and recall.tells_time("due 2026-10-09")
    assert not recall.tells_time("the may release is fine")
