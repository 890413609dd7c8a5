"""The one typed API: `MemoryAPI` is what `Memory` and the daemon's `RemoteMemory` both offer,
method for method and signature for signature; the daemon serves exactly its operations, and
the owner-only ones refuse anyone else; `vyre` exports it all."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import typing

import pytest

import vyre
from vyre import models
from vyre.api import Memory
from vyre.daemon import codec
from vyre.daemon.client import RemoteMemory
from vyre.daemon.server import OPERATIONS, Daemon
from vyre.errors import OwnerOnly
from vyre.interface import MemoryAPI, operations

API = sorted(operations())
OWNER_ONLY = sorted(name for name, op in operations().items() if op.owner_only)


def public_methods(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if inspect.isfunction(v) and not n.startswith("_")}


def test_the_protocol_names_the_whole_api_and_its_owner_only_methods():
    assert {"facts", "relevant", "ask", "overview", "correct", "project_add"} <= set(API)
    assert OWNER_ONLY == [
        "correct",
        "correct_answer",
        "merge",
        "mute",
        "pin",
        "project_add",
        "project_pick",
        "project_remove",
        "project_undo",
        "project_unpick",
        "remember",
        "split",
        "uncorrect",
        "uncorrect_answer",
    ]
    assert "close" not in API  # a handle's own business: never served


@pytest.mark.parametrize("cls", [Memory, RemoteMemory], ids=["Memory", "RemoteMemory"])
def test_both_memories_have_every_method_with_the_protocols_signature(cls):
    assert public_methods(cls) >= set(API) | {"close"}
    for name in API:
        ours = inspect.signature(getattr(cls, name))
        theirs = inspect.signature(getattr(MemoryAPI, name))
        assert str(ours) == str(theirs), name
        assert getattr(cls, name).__doc__, f"{cls.__name__}.{name} has no docstring"


def test_memory_has_no_public_method_outside_the_protocol():
    # a method added to Memory alone would be missing through the daemon
    assert public_methods(Memory) == set(API) | {"close"}


def test_owner_only_methods_must_be_told_their_caller():
    for name in OWNER_ONLY:
        params = inspect.signature(getattr(MemoryAPI, name)).parameters
        assert params["caller"].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert params["caller"].default is inspect.Parameter.empty, name
    # a method that reads more for the owner takes a caller too, and the daemon fills it
    assert operations()["recall"].takes_caller and not operations()["recall"].owner_only


def _dummy_arguments(name: str) -> dict:
    """Values for a method's required parameters (never looked at: the caller is refused
    first)."""
    out = {}
    for p in inspect.signature(getattr(MemoryAPI, name)).parameters.values():
        if p.name != "self" and p.default is inspect.Parameter.empty:
            out[p.name] = 1 if p.name == "cid" else "x"
    return out


@pytest.mark.parametrize("name", OWNER_ONLY)
@pytest.mark.parametrize("caller", ["hook", "mcp", "agent:a1", ""])
def test_every_owner_only_method_refuses_anyone_else_before_it_runs(vyre_home, name, caller):
    with Memory(vyre_home) as memory:
        with pytest.raises(OwnerOnly, match="only you can change memory"):
            getattr(memory, name)(**{**_dummy_arguments(name), "caller": caller})
        assert memory.corrections() == []


def test_the_daemon_serves_exactly_the_protocols_operations(vyre_home):
    assert operations() == OPERATIONS
    daemon = Daemon(vyre_home)
    daemon.memory = Memory(vyre_home, owner=True)
    try:

        def ask(op, args, caller="cli"):
            line = json.dumps({"op": op, "args": args, "caller": caller}).encode()
            return daemon.handle(line)

        assert ask("projects", {}) == {"ok": True, "result": []}
        reply = ask("room_for", {"cwd": "/anywhere"})
        assert reply == {"ok": True, "result": "unfiled"}
        # the connection's caller decides, never what the arguments claim
        reply = ask("pin", {"target": "f0000000000", "caller": "cli"}, caller="mcp")
        assert (reply["ok"], reply["kind"]) == (False, "OwnerOnly")
        reply = ask("close", {})
        assert (reply["ok"], reply["kind"]) == (False, "InputError")
        reply = ask("ledger", {})
        assert (reply["ok"], reply["kind"]) == (False, "InputError")
    finally:
        daemon.memory.close()


def _model_types(annotation: object) -> set[type]:
    """The classes a return annotation names (list[Fact] -> {Fact})."""
    args = typing.get_args(annotation)
    if args:
        return set().union(*(_model_types(a) for a in args))
    return {annotation} if isinstance(annotation, type) else set()


def returned_types() -> set[type]:
    namespace = {**vars(models), **vars(typing)}
    out: set[type] = set()
    for name in API:
        hints = typing.get_type_hints(getattr(MemoryAPI, name), localns=namespace)
        out |= {t for t in _model_types(hints["return"]) if t.__module__ != "builtins"}
    return out


def test_every_type_the_api_returns_crosses_the_socket_by_name():
    assert {models.Fact, models.Overview, models.Edit, models.AskReply} <= returned_types()
    for cls in returned_types():
        assert getattr(models, cls.__name__) is cls, cls
        assert codec._types()[cls.__name__] is cls, cls


def test_values_come_back_from_the_wire_as_the_same_models():
    report = models.IngestReport(files=2, by=__import__("collections").Counter(person=3))
    report.sessions.add("s1")
    value = models.Ingested(report=report, derived=models.DeriveReport(rooms=["a"], facts=4))
    wire = json.loads(json.dumps(codec.encode([value])))
    assert codec.decode(wire) == [value]


def test_vyre_exports_the_api_and_loads_it_only_when_asked():
    exported = set(vyre.__all__)
    assert {"Memory", "MemoryAPI", "open_memory", "VyreError", "__version__"} <= exported
    assert {cls.__name__ for cls in returned_types()} <= exported  # every model it returns
    for name in vyre.__all__:
        assert getattr(vyre, name) is not None, name
    assert vyre.Memory is Memory and vyre.MemoryAPI is MemoryAPI
    assert vyre.Fact is models.Fact
    with pytest.raises(AttributeError):
        _ = vyre.NotAThing
    code = "import sys, vyre; print(sorted(m for m in ('pydantic', 'typing') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert loaded.stdout.strip() == "[]", loaded.stderr


def test_a_lesson_job_and_effect_carry_only_the_words_of_their_vocabulary():
    """Statuses, levels and verdicts are Literal types: a word outside them is refused when a
    model is made, not carried to a surface that would not know it."""
    from datetime import datetime

    from pydantic import ValidationError

    from vyre.learn.models import Effect, Lesson

    made = {"id": 1, "sentence": "s", "check": {}, "key": "k", "created": datetime(2026, 1, 1)}
    assert Lesson(**made, level="ask", status="dormant").status == "dormant"
    for field, word in (("status", "paused"), ("level", "warn"), ("max_level", "stop")):
        with pytest.raises(ValidationError):
            Lesson(**{"level": "ask", **made, field: word})
    with pytest.raises(ValidationError):
        Effect(lesson=1, verdict="fine")
