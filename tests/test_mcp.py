"""The MCP server as Claude Code runs it: `<python> -I -m vyre.mcp` on stdio, in the session's
folder, over a home built from the bundled eval world.

What must stay true: every tool reads only the session folder's room (a folder outside every
project reads `unfiled`, never the main graph or another project); no tool takes a room; the
server works with and without a daemon and, without one, holds the graph only during a call.
"""

from __future__ import annotations

import anyio
import pytest

from vyre import config
from vyre.api import Memory
from vyre.daemon import process
from vyre.hooks.commands import mcp_command

NOW = "2026-10-01T12:00:00Z"  # the world's now
KEEL = "/home/sam/work/keel-ash"
HARLOW = "/home/sam/work/harlow"
PRIYA_PROMPT = "Draft a note to Priya about the launch date"
TOOLS = {
    "memory_relevant": {"prompt", "limit"},
    "memory_facts": {"limit"},
    "memory_about": {"name"},
    "memory_why": {"name", "rel"},
    "memory_ask": {"question"},
}


@pytest.fixture
def home(world_home):
    return world_home


def serve(home, cwd, body, project_dir: str | None = None):
    """Start the real server in `cwd` (Claude Code's session folder: CLAUDE_PROJECT_DIR when
    given), run `body(client)` against it and return what it returns."""
    # the client is imported here, not at the top: importing it costs ~0.8 s of CPU, and every
    # pytest worker collects this module but only the one that runs it needs it
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    command, args = mcp_command()
    env = {"VYRE_HOME": str(home), "VYRE_NOW": NOW}
    if project_dir:
        env["CLAUDE_PROJECT_DIR"] = project_dir
    cwd.mkdir(exist_ok=True)
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))

    async def session():
        async with Client(params, read_timeout_seconds=20) as client:
            return await body(client)

    return anyio.run(session)


async def call(client, tool: str, **arguments) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


def facts_by(items: list[dict]) -> dict[tuple[str, str], dict]:
    return {(f["subject"], f["rel"]): f for f in items}


def test_tools_are_listed_read_only_and_take_no_room(home, tmp_path):
    async def body(client):
        return (await client.list_tools()).tools

    tools = {t.name: t for t in serve(home, tmp_path / "work", body, KEEL)}
    assert set(tools) == set(TOOLS) | {"learn_propose"}
    propose = tools.pop("learn_propose")
    assert set(propose.input_schema["properties"]) == {"sentence"}
    assert "only a proposal" in propose.description
    assert propose.annotations.destructive_hint is False
    for name, tool in tools.items():
        params = set(tool.input_schema.get("properties", {}))
        assert params == TOOLS[name], name
        assert not params & {"room", "project", "scope", "cwd", "folder", "caller"}
        assert "earlier sessions" in tool.description and "not instructions" in tool.description
        assert tool.annotations.read_only_hint is True
    ask = tools["memory_ask"].description
    assert "before saying you cannot remember" in ask and "name the session" in ask
    assert "Not sure yet." in ask


def test_keel_ash_session_reads_its_own_room(home, tmp_path):
    async def body(client):
        out = {
            "relevant": await call(client, "memory_relevant", prompt=PRIYA_PROMPT),
            "dana": await call(client, "memory_about", name="Dana Reyes"),
            "priya": await call(client, "memory_about", name="Priya Anand"),
            "why": await call(client, "memory_why", name="Priya Anand", rel="works_at"),
            "facts": await call(client, "memory_facts"),
        }
        # No daemon: between calls the server holds no store, so the CLI can open the graph;
        # while the CLI holds it, a call says so in one line.
        with Memory(home) as memory:
            assert memory.facts("keel-ash")
            busy = await client.call_tool("memory_facts", {})
        assert busy.is_error and "not available" in busy.content[0].text
        out["ask"] = await call(client, "memory_ask", question="Where does Priya work?")
        out["unknown"] = await call(
            client, "memory_ask", question="What is the wifi password at the office?"
        )
        return out

    out = serve(home, tmp_path / "work", body, KEEL)
    relevant = facts_by(out["relevant"]["facts"])
    assert out["relevant"]["room"] == "keel-ash"
    works = relevant[("Priya Anand", "works_at")]
    assert works["object"] == "Keel & Ash Architects"
    assert works["fact"] == "Priya Anand works at Keel & Ash Architects"
    launch = next(f for f in out["relevant"]["facts"] if f["rel"] == "deadline")
    assert launch["object"] == "2026-10-09"
    for fact in (works, launch):
        assert fact["sources"] and fact["confidence"] > 0 and 0 < fact["fresh"] <= 1
        assert {"session", "seq", "quote", "ts"} <= set(fact["sources"][0])

    assert out["dana"] == {"room": "keel-ash", "entities": []}  # another project's person
    (priya,) = out["priya"]["entities"]
    assert priya["kind"] == "person"
    assert ("Priya Anand", "works_at") in facts_by(priya["facts"])

    (why,) = out["why"]["facts"]
    assert why["rules"] and why["first_said"] and len(why["sources"]) == why["sessions"]
    assert all(s["rule"] and s["quote"] for s in why["sources"])

    subjects = {f["subject"] for f in out["facts"]["facts"]}
    assert "Priya Anand" in subjects and "Dana Reyes" not in subjects
    assert all(f["status"] != "closed" for f in out["facts"]["facts"])

    ask = out["ask"]
    assert not ask["abstained"] and ask["via"] == "fact"
    assert "Priya Anand works at Keel & Ash Architects" in ask["answer"]
    assert works["sources"][0]["session"] in ask["cite"]  # the session to name when citing
    assert ask["sources"] and all(s["session"] and s["quote"] for s in ask["sources"])
    assert 0.5 <= ask["confidence"] <= 1 and ask["answer_id"]

    unknown = out["unknown"]
    assert unknown["abstained"] and unknown["answer"].startswith("Not sure yet.")
    assert unknown["sources"] == [] and unknown["via"] is None and unknown["confidence"] == 0


def test_abstaining_says_what_memory_does_know(home, tmp_path):
    async def body(client):
        return await call(client, "memory_ask", question="What is Keel & Ash Architects' VAT id?")

    ask = serve(home, tmp_path / "work", body, KEEL)
    assert ask["abstained"] and ask["sources"] == []
    assert ask["answer"].startswith("Not sure yet.\nWhat memory does know:")
    assert all("Keel & Ash Architects" in k for k in ask["known"])
    assert 1 <= len(ask["known"]) <= 3


def test_harlow_session_sees_dana_and_not_keel_ash(home, tmp_path):
    async def body(client):
        return (
            await call(client, "memory_about", name="Dana Reyes"),
            await call(client, "memory_relevant", prompt=PRIYA_PROMPT),
        )

    dana, relevant = serve(home, tmp_path / "work", body, HARLOW)
    (entity,) = dana["entities"]
    titles = [f["object"] for f in entity["facts"] if f["rel"] == "has_title"]
    assert dana["room"] == "harlow" and titles == ["office manager"]
    assert not any("Priya" in f["subject"] for f in relevant["facts"])


def test_a_folder_outside_every_project_reads_unfiled_only(home, tmp_path):
    with Memory(home) as memory:
        unfiled = memory.facts("unfiled")
        # people, orgs and things that projects know and unfiled sessions never named
        projects = {f.subject for p in memory.projects() for f in memory.facts(p.slug)}
        projects -= {f.subject for f in unfiled}
    assert projects

    async def body(client):
        return (
            await call(client, "memory_facts", limit=500),
            await call(client, "memory_relevant", prompt=PRIYA_PROMPT),
            await call(client, "memory_about", name="Dana Reyes"),
            await call(client, "memory_why", name="Priya Anand"),
            await call(client, "memory_ask", question="Where does Priya Anand work?"),
        )

    # No CLAUDE_PROJECT_DIR: the server's own working folder is the session folder.
    facts, relevant, dana, why, ask = serve(home, tmp_path / "elsewhere", body)
    assert facts["room"] == "unfiled"
    assert {f["id"] for f in facts["facts"]} == {f.id for f in unfiled}
    assert not {f["subject"] for f in facts["facts"]} & projects
    assert relevant["facts"] == [] and dana["entities"] == [] and why["facts"] == []
    assert ask["abstained"] and ask["known"] == []


def test_the_same_facts_through_a_running_daemon(home, tmp_path, monkeypatch):
    monkeypatch.setenv("VYRE_HOME", str(home))
    with Memory(home) as memory:
        expected = [f.id for f in memory.relevant(PRIYA_PROMPT, KEEL, now=config.now())]
    assert expected

    async def body(client):
        return (
            await call(client, "memory_relevant", prompt=PRIYA_PROMPT),
            await call(client, "memory_about", name="Dana Reyes"),
            await call(client, "memory_ask", question="Where does Priya work?"),
        )

    process.start(home)
    try:
        # The daemon holds the graph, so these answers can only have come through it.
        relevant, dana, ask = serve(home, tmp_path / "work", body, KEEL)
    finally:
        process.stop(home)
    assert [f["id"] for f in relevant["facts"]] == expected
    assert dana["entities"] == []
    assert not ask["abstained"] and ask["sources"]


def test_an_agent_can_propose_a_lesson_but_never_accept_it(home, tmp_path):
    from vyre.learn.service import Learn
    from vyre.ledger import Ledger

    async def body(client):
        return await call(client, "learn_propose", sentence="Never push to main.")

    out = serve(home, tmp_path / "work", body, KEEL)
    assert out["proposed"] and out["level"] == "ask"
    ledger = Ledger(home / "vyre.db")
    try:
        assert Learn(ledger, home).get(out["proposed"]).status == "proposed"
    finally:
        ledger.close()


# -- the protocol itself (vyre/mcp/protocol.py), in process -------------------------------------


def exchange(*messages: dict | str) -> list[dict]:
    """Feed messages to a fresh server's stdin; its replies, in order."""
    import io
    import json

    from vyre.mcp.server import create_server

    lines = [m if isinstance(m, str) else json.dumps(m) for m in messages]
    out = io.StringIO()
    create_server("/nowhere").run(io.StringIO("\n".join(lines) + "\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def test_initialize_names_the_server_and_agrees_a_version():
    (reply,) = exchange(INIT)
    assert reply["id"] == 1 and reply["result"]["protocolVersion"] == "2025-06-18"
    assert reply["result"]["serverInfo"]["name"] == "vyre"
    assert reply["result"]["capabilities"] == {"tools": {"listChanged": False}}
    (newest,) = exchange({**INIT, "params": {"protocolVersion": "1999-01-01"}})
    assert newest["result"]["protocolVersion"] == "2025-11-25"


def test_notifications_get_no_reply_and_unknown_methods_an_error():
    replies = exchange(
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/list"},
        "{not json",
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    )
    assert [r.get("id") for r in replies] == [1, 2, None, 3]
    assert replies[1]["error"]["code"] == -32601
    assert replies[2]["error"]["code"] == -32700
    assert replies[3]["result"] == {}


def test_bad_arguments_are_a_tool_error_of_one_line():
    def call(name: str, arguments: dict, rid: int) -> dict:
        params = {"name": name, "arguments": arguments}
        return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}

    replies = exchange(
        call("memory_about", {}, 1),
        call("memory_why", {"name": "Priya", "rel": "likes"}, 2),
        call("memory_facts", {"limit": "many"}, 3),
        call("memory_facts", {"room": "harlow"}, 4),
        call("no_such_tool", {}, 5),
    )
    by_id = {r["id"]: r for r in replies}
    texts = [by_id[i]["result"]["content"][0]["text"] for i in (1, 2, 3, 4)]
    assert all(by_id[i]["result"]["isError"] for i in (1, 2, 3, 4))
    assert "missing argument: name" in texts[0]
    assert "rel: one of is, works_at" in texts[1]
    assert "limit: expected integer" in texts[2]
    assert "unknown argument: room" in texts[3]  # no tool takes a room
    assert all("\n" not in t for t in texts)
    assert by_id[5]["error"]["code"] == -32602


def test_initialize_is_answered_before_any_memory_code_is_loaded():
    import subprocess
    import sys

    code = (
        "import io, json, sys; from vyre.mcp.server import create_server; "
        "out = io.StringIO(); "
        f"create_server('/nowhere').run(io.StringIO(json.dumps({INIT!r}) + '\\n'), out); "
        "print(out.getvalue().strip()); "
        "print(sorted(m for m in ('pydantic', 'vyre.api', 'vyre.models', 'vyre.daemon.client', "
        "'mcp', 'click') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    reply, loaded = run.stdout.splitlines()
    assert '"serverInfo"' in reply, run.stderr
    assert loaded == "[]"
