"""`vyre eval learn`: a lessons world run through the real hook entry.

A world is a folder with `lessons.json` (format: `eval/lessons/README.md`). The scorer builds a
sandbox (the world's home folder mapped to a temporary one, its files, repositories and
projects), makes each lesson from its sentence as the owner would (`vyre learn add`), and
plays every call as Claude Code would: a new hook process per event, with the exact command
`vyre harness install` writes, and only that lesson active. Then it plays a sample again with
the daemon running; any answer that differs is an error.

`in_process=True` (the test suite: a new interpreter per event is most of the eval's cost)
plays each event through the same entry, `vyre.hooks.run.main`, in this process with the
sandbox's environment, and plays every `REAL_SAMPLE`-th PreToolUse call again as the real
command: an answer that differs from the process's is an error, and the latency figures are
those real calls'. The hook keeps no state between calls (each reads the snapshot, the ledger
or the daemon afresh), and the call played twice has one tool-use id, so it is one row.

Figures: block precision (of the calls Vyre denied for a lesson, how many should have been),
violation recall (violations answered as their level says: deny, ask or remind), near misses
allowed, guards caught (every miss by id), guard look-alikes allowed, sequences right,
no-shape passes, errors and PreToolUse latency. An empty denominator is "not scored" (None),
and a gate on it fails.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vyre.errors import LearnError, WorldError

if TYPE_CHECKING:
    from vyre.learn.service import Learn

Replay = tuple[dict, str, str, str, int | None]  # call, cwd, id, answer, the lesson in force

TARGETS = {
    "block_precision": 0.98,
    "violation_recall": 0.95,
    "near_misses_allowed": 0.98,
    "guards_caught": 1.0,
    "sequences_right": 0.90,
}
EXPECT = {"block": "deny", "ask": "ask", "remind": "remind"}
DAEMON_SAMPLE = 3  # every third PreToolUse call is played again with the daemon running
REAL_SAMPLE = 8  # in process, every eighth PreToolUse call is played again as a real process


class _Sandbox:
    def __init__(self, spec: dict):
        self.root = Path(tempfile.mkdtemp(prefix="vyre-learn-eval-"))
        self.world_home = spec.get("home") or "/home/user"
        self.home = self.root / "home"
        self.home.mkdir()
        self.vyre_home = self.home / ".vyre"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("VYRE_")},
            "HOME": str(self.home),
            "VYRE_HOME": str(self.vyre_home),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "CLAUDECODE": "1",  # hooks run inside Claude Code
        }
        for path, text in (spec.get("files") or {}).items():
            target = Path(self.map(path))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        for folder, branch in (spec.get("repos") or {}).items():
            git = Path(self.map(folder)) / ".git"
            git.mkdir(parents=True, exist_ok=True)
            (git / "HEAD").write_text(f"ref: refs/heads/{branch}\n")
        for project in spec.get("projects") or []:
            for folder in project.get("folders", []):
                Path(self.map(folder)).mkdir(parents=True, exist_ok=True)

    def map(self, value: Any) -> Any:
        """The world's paths, moved into the sandbox."""
        if isinstance(value, str):
            return value.replace(self.world_home, str(self.home))
        if isinstance(value, list):
            return [self.map(v) for v in value]
        if isinstance(value, dict):
            return {k: self.map(v) for k, v in value.items()}
        return value

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class _Player:
    """Plays hook events as Claude Code does: a new process per event, JSON on stdin (or, in
    process, the same entry with the same JSON, checked against a real process now and then)."""

    def __init__(self, box: _Sandbox, in_process: bool = False):
        from vyre.hooks.commands import hook_command

        self.box = box
        self.in_process = in_process
        self.argv = {
            e: shlex.split(hook_command(e))
            for e in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "UserPromptSubmit")
        }
        self.latency: list[float] = []
        self.errors: list[dict] = []
        self.n = 0
        self.pre_calls = 0
        self.real_checked = 0

    def event(self, event: str, payload: dict, ident: str) -> dict | None:
        self.n += 1
        data = json.dumps({"hook_event_name": event, "permission_mode": "default", **payload})
        if not self.in_process:
            return self._process(event, data, ident)
        answer = self._here(event, data, ident)
        if event == "PreToolUse":
            self.pre_calls += 1
            if self.pre_calls % REAL_SAMPLE == 0:
                self.real_checked += 1
                real = self._process(event, data, ident)
                if real != answer:
                    self.errors.append(
                        {
                            "id": ident,
                            "error": f"real hook: {decision(real)}, in process: "
                            f"{decision(answer)} (or their words differ)",
                        }
                    )
        return answer

    def _process(self, event: str, data: str, ident: str) -> dict | None:
        started = time.perf_counter()
        try:
            run = subprocess.run(
                self.argv[event],
                input=data.encode(),
                capture_output=True,
                env=self.box.env,
                timeout=20,
            )
        except subprocess.TimeoutExpired:
            self.errors.append({"id": ident, "error": "hook timed out"})
            return None
        ms = (time.perf_counter() - started) * 1000
        if event == "PreToolUse":
            self.latency.append(ms)
        if run.returncode != 0:
            self.errors.append({"id": ident, "error": f"hook exited {run.returncode}"})
            return None
        return self._answer(run.stdout.decode(), ident)

    def _here(self, event: str, data: str, ident: str) -> dict | None:
        from vyre.hooks.run import main

        stdout = io.StringIO()
        with _environ(self.box.env):
            saved = sys.stdin, sys.stdout
            sys.stdin = io.TextIOWrapper(io.BytesIO(data.encode()))
            sys.stdout = stdout
            try:
                code = main(["hook", event])
            finally:
                sys.stdin, sys.stdout = saved
        if code != 0:
            self.errors.append({"id": ident, "error": f"hook exited {code}"})
            return None
        return self._answer(stdout.getvalue(), ident)

    def _answer(self, out: str, ident: str) -> dict | None:
        if not out.strip():
            return None
        try:
            return json.loads(out)
        except ValueError:
            self.errors.append({"id": ident, "error": "hook printed something that is not JSON"})
            return None

    def pre(self, call: dict, cwd: str, session: str, ident: str) -> str:
        payload = {
            "session_id": session,
            "cwd": self.box.map(call.get("cwd") or cwd),
            "tool_name": call["tool"],
            "tool_input": self.box.map(call.get("input") or {}),
            "tool_use_id": f"toolu_{self.n}",
        }
        return decision(self.event("PreToolUse", payload, ident))


@contextlib.contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    """This process's environment is `env` while it lasts (what a hook process is given)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def decision(answer: dict | None) -> str:
    """deny | ask | remind | allow, from a PreToolUse answer."""
    out = (answer or {}).get("hookSpecificOutput") or {}
    if out.get("permissionDecision") in ("deny", "ask"):
        return out["permissionDecision"]
    if out.get("additionalContext"):
        return "remind"
    return "allow"


def load(world: Path) -> dict:
    path = Path(world) / "lessons.json"
    try:
        spec = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise WorldError(f"{world} is not a lessons world (lessons.json: {exc})") from exc
    if not isinstance(spec, dict) or not isinstance(spec.get("lessons", []), list):
        raise WorldError(f"{path}: expected an object with a list of lessons")
    return spec


def score(world: Path, *, daemon: bool = True, in_process: bool = False) -> dict:
    spec = load(world)
    box = _Sandbox(spec)
    try:
        return _score(spec, box, daemon, in_process)
    finally:
        box.close()


def _score(spec: dict, box: _Sandbox, daemon: bool, in_process: bool) -> dict:
    from vyre.api import Memory

    memory = Memory(box.vyre_home)
    for project in spec.get("projects") or []:
        memory.project_add(
            project["slug"],
            project.get("name") or project["slug"],
            box.map(project.get("folders", [])),
            caller="local",
        )
    learn = memory.learn
    player = _Player(box, in_process)
    # (call, cwd, id, answer, the lesson in force) for the daemon pass
    replay: list[Replay] = []
    denied = denied_right = 0
    violations = caught = 0
    near = near_ok = 0
    misses, wrong_allows, not_distilled = [], [], []

    def only(lid: int | None) -> None:
        with learn.ledger.transaction() as db:
            db.execute(
                "UPDATE lessons SET status = CASE id WHEN ? THEN 'active' ELSE 'retired' "
                "END WHERE status IN ('active', 'retired')",
                (lid or -1,),
            )
        learn.write_snapshot()

    def make(item: dict) -> int | None:
        try:
            made = learn.add(
                item["say"],
                level=item.get("level", "block"),
                scope=item.get("scope") or None,
                caller="local",
                cwd=box.map(item.get("cwd")),
            )
        except LearnError as exc:
            not_distilled.append({"id": item["id"], "say": item["say"], "why": exc.line()})
            return None
        return made.id

    for i, item in enumerate(spec.get("lessons", [])):
        lid = make(item)
        only(lid)
        cwd = item.get("cwd") or box.world_home
        want = EXPECT[item.get("level", "block")]
        for call in item.get("violations", []):
            got = player.pre(call, cwd, f"v{i}", call["id"])
            expected = call.get("expect", want)
            violations += 1
            caught += got == expected
            if got != expected:
                misses.append({"id": call["id"], "expected": expected, "got": got})
            denied += got == "deny"
            denied_right += got == "deny" and expected == "deny"
            replay.append((call, cwd, call["id"], got, lid))
        for call in item.get("near", []):
            got = player.pre(call, cwd, f"n{i}", call["id"])
            near += 1
            near_ok += got == "allow"
            denied += got == "deny"
            if got != "allow":
                wrong_allows.append({"id": call["id"], "expected": "allow", "got": got})
            replay.append((call, cwd, call["id"], got, lid))

    sequences = [
        _sequence(seq, n, learn, player, make, only)
        for n, seq in enumerate(spec.get("sequences", []))
    ]
    for seq in sequences:
        denied += seq.pop("denied")
        denied_right += seq.pop("denied_right")

    no_shape = []
    for n, item in enumerate(spec.get("no_shape", [])):
        only(None)
        before = {x.id for x in learn.lessons("active")}
        session = f"ns{n}"
        cwd = box.map(item.get("cwd") or box.world_home)
        player.event(
            "UserPromptSubmit",
            {"session_id": session, "cwd": cwd, "prompt": item["say"]},
            item["id"],
        )
        player.event(
            "UserPromptSubmit", {"session_id": session, "cwd": cwd, "prompt": "yes"}, item["id"]
        )
        made = {x.id for x in learn.lessons("active")} - before
        probes = [
            player.pre(p, item.get("cwd") or box.world_home, session, item["id"])
            for p in item.get("probes", [])
        ]
        denied += sum(p == "deny" for p in probes)
        ok = not made and all(p == "allow" for p in probes)
        no_shape.append({"id": item["id"], "ok": ok, "made_lesson": bool(made), "probes": probes})

    only(None)
    guard_misses, lookalike_misses = [], []
    guards = spec.get("guards", [])
    for g in guards:
        got = player.pre(g, g.get("cwd") or box.world_home, "guards", g["id"])
        if got not in ("ask", "deny"):
            guard_misses.append(g["id"])
        replay.append((g, g.get("cwd") or box.world_home, g["id"], got, None))
    lookalikes = spec.get("lookalikes", [])
    for g in lookalikes:
        got = player.pre(g, g.get("cwd") or box.world_home, "guards", g["id"])
        if got != "allow":
            lookalike_misses.append(g["id"])
        replay.append((g, g.get("cwd") or box.world_home, g["id"], got, None))

    down_ms = list(player.latency)
    up_ms: list[float] = []
    disagree: list[dict] = []
    if daemon:
        disagree, up_ms = _with_daemon(box, player, replay[::DAEMON_SAMPLE], only)
    memory.close()

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    result = {
        "world": spec.get("name", ""),
        "lessons": len(spec.get("lessons", [])),
        "calls": player.n,
        "block_precision": ratio(denied_right, denied),
        "violation_recall": ratio(caught, violations),
        "near_misses_allowed": ratio(near_ok, near),
        "guards_caught": ratio(len(guards) - len(guard_misses), len(guards)),
        "guard_lookalikes_allowed": ratio(len(lookalikes) - len(lookalike_misses), len(lookalikes)),
        "sequences_right": ratio(sum(s["ok"] for s in sequences), len(sequences)),
        "no_shape_passes": ratio(sum(x["ok"] for x in no_shape), len(no_shape)),
        "errors": len(player.errors) + len(disagree),
        "hook_ms": {
            "daemon_down": _percentiles(down_ms),
            "daemon_up": _percentiles(up_ms),
        },
        "counts": {
            "denied": denied,
            "violations": violations,
            "near": near,
            "guards": len(guards),
            "lookalikes": len(lookalikes),
            "daemon_replayed": len(replay[::DAEMON_SAMPLE]) if daemon else 0,
            "real_checked": player.real_checked,  # in process: calls a real hook answered too
        },
        "misses": {
            "violations": misses,
            "near": wrong_allows,
            "guards": guard_misses,
            "lookalikes": lookalike_misses,
            "sequences": [s for s in sequences if not s["ok"]],
            "no_shape": [x for x in no_shape if not x["ok"]],
            "not_distilled": not_distilled,
            "errors": player.errors + disagree,
        },
    }
    return result


def _sequence(
    seq: dict,
    n: int,
    learn: Learn,
    player: _Player,
    make: Callable[[dict], int | None],
    only: Callable[[int | None], None],
) -> dict:
    lid = make(seq) if seq.get("say") else None
    only(lid)
    session = f"seq{n}"
    cwd = seq.get("cwd") or player.box.world_home
    wrong, denied, denied_right = [], 0, 0
    for k, ev in enumerate(seq.get("events", [])):
        kind = ev["event"]
        ident = f"{seq['id']}#{k}"
        base = {"session_id": session, "cwd": player.box.map(ev.get("cwd") or cwd)}
        if kind == "UserPromptSubmit":
            answer = player.event(kind, {**base, "prompt": ev["prompt"]}, ident)
            text = ((answer or {}).get("hookSpecificOutput") or {}).get("additionalContext", "")
            if ev.get("expect_context") and ev["expect_context"] not in text:
                wrong.append({"event": k, "expected": ev["expect_context"], "got": text[:120]})
        elif kind in ("PostToolUse", "PostToolUseFailure"):
            player.event(
                kind,
                {
                    **base,
                    "tool_name": ev["tool"],
                    "tool_input": player.box.map(ev.get("input") or {}),
                    "tool_use_id": f"toolu_{session}_{k}",
                },
                ident,
            )
        elif kind == "PreToolUse":
            got = player.pre(ev, cwd, session, ident)
            denied += got == "deny"
            denied_right += got == "deny" and ev.get("expect") == "deny"
            if "expect" in ev and got != ev["expect"]:
                wrong.append({"event": k, "expected": ev["expect"], "got": got})
        elif kind == "Stop":
            answer = player.event(kind, {**base, "stop_hook_active": k > 0}, ident)
            got = "block" if (answer or {}).get("decision") == "block" else "allow"
            if "expect" in ev and got != ev["expect"]:
                wrong.append({"event": k, "expected": ev["expect"], "got": got})
    return {
        "id": seq["id"],
        "ok": not wrong and (lid is not None or not seq.get("say")),
        "wrong": wrong,
        "distilled": lid is not None or not seq.get("say"),
        "denied": denied,
        "denied_right": denied_right,
    }


def _with_daemon(
    box: _Sandbox, player: _Player, sample: list[Replay], only: Callable[[int | None], None]
) -> tuple[list[dict], list[float]]:
    """The same calls with the daemon running: every answer must be the one given without."""
    from vyre.daemon import process

    (box.home / ".claude" / "projects").mkdir(parents=True, exist_ok=True)
    saved = {k: os.environ.get(k) for k in ("VYRE_HOME", "CLAUDE_CONFIG_DIR", "HOME")}
    os.environ.update({k: box.env[k] for k in saved})
    player.latency = []
    disagree: list[dict] = []
    try:
        process.start(box.vyre_home)
        try:
            for call, cwd, ident, before, lid in sample:
                only(lid)
                got = player.pre(call, cwd, "daemon", ident)
                if got != before:
                    disagree.append({"id": ident, "error": f"daemon up: {got}, down: {before}"})
        finally:
            process.stop(box.vyre_home)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return disagree, list(player.latency)


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": None, "p95": None, "n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(p95, 1), "n": len(ordered)}


def gate(result: dict, ratchet: dict | None = None) -> list[str]:
    """What fails: a figure under its target (or the ratchet where one is held), an empty
    denominator, any error."""
    problems = []
    for name, target in TARGETS.items():
        minimum = (ratchet or {}).get(name, target)
        value = result.get(name)
        if value is None:
            problems.append(f"{name} not scored (nothing to score)")
        elif value < minimum:
            problems.append(f"{name} {value:.3f} < {minimum}")
    if result["errors"]:
        problems.append(f"errors {result['errors']} (must be 0)")
    return problems
