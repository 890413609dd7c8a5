"""Derive one big room in process: from nothing, and again after one line appended to it.

Builds (once, under --work) a generated home whose busiest project has about 1,000 sessions
(`bench/corpus.py`, 1,750 sessions over 2 projects; the 30,000-session home's p07 has about
800), or about 5,400 with --big (9,000 sessions over 2 projects, about 5 minutes to build;
the 30,000-session home's busiest room has 5,267), then times `derive_room` on that room
--runs times: the first derive in the process, then again and again on the same mentions
(what `vyre derive --all` does), and after one user line is appended to one of its sessions
and ingested (what the daemon does for a new line), side by side: from nothing (the code
before) and with the room's memo of its last derive (`RoomMemo`, what the daemon keeps).
Both give the same rows (checked here on every run). The room's mentions are read before
the clock starts (reading them is the pipeline's part), and the cycle collector is off, as
in `Memory.ingest` and `Memory.derive`. CPU seconds (the machine is shared: CPU is stretched
less than wall time by other work), medians; compared with bench/baseline.json ("derive",
or "derive_big" with --big). Target: the changed room <= 0.3 s.

Usage: python bench/derive.py [--big] [--sessions N] [--projects 2] [--runs 7] [--work DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import baseline, generated_home, verdict

if TYPE_CHECKING:
    from vyre.api import Memory
    from vyre.graph import RoomRows
    from vyre.rooms.derive import RoomInput
    from vyre.rooms.pipeline import HeldMentions

TARGET_S = 0.3


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="A room of about 5,400 sessions.")
    ap.add_argument("--sessions", type=int, default=None)
    ap.add_argument("--projects", type=int, default=2)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--work", type=Path, default=None, help="Keep the home here and reuse it.")
    args = ap.parse_args()
    sessions = args.sessions or (9000 if args.big else 1750)
    work = args.work or Path(tempfile.mkdtemp(prefix="vyre-derive-"))
    root, home = generated_home(work, sessions, args.projects)

    from vyre import config
    from vyre.api import Memory
    from vyre.rooms.derive import RoomMemo, derive_room
    from vyre.rooms.pipeline import HeldMentions

    memory = Memory(home)
    gc.disable()  # as `Memory.ingest` and `Memory.derive` run a derive
    try:
        settings = config.settings()
        room, size = _busiest(memory)
        inp = _room_input(memory, room, settings)
        print(
            f"room {room}: {size:,} sessions, {len(inp.mentions):,} mentions "
            f"(load {os.getloadavg()[0]:.1f})"
        )
        t = time.process_time()
        derive_room(inp)
        first = time.process_time() - t
        memo, held = RoomMemo(), HeldMentions()
        derive_room(_room_input(memory, room, settings, held), memo)
        whole, again = [], []
        for _ in range(args.runs):
            inp = _room_input(memory, room, settings)
            t = time.process_time()
            derive_room(inp)
            whole.append(time.process_time() - t)
            inp = _room_input(memory, room, settings, held)
            t = time.process_time()
            derive_room(inp, memo)
            again.append(time.process_time() - t)
        after, after_memo = [], []
        for i in range(args.runs):
            _append_line(root, room, i)
            memory.ingest(root)
            inp = _room_input(memory, room, settings)
            t = time.process_time()
            fresh = derive_room(inp)
            after.append(time.process_time() - t)
            inp = _room_input(memory, room, settings, held)
            t = time.process_time()
            kept = derive_room(inp, memo)
            after_memo.append(time.process_time() - t)
            if _values(kept) != _values(fresh):
                print("FAIL the rows derived with the memo differ from those from nothing")
                return verdict(False)
    finally:
        memory.close()
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    figures = {
        "room_sessions": size,
        "mentions": len(inp.mentions),
        "first_s": round(first, 3),
        "derive_s": round(statistics.median(whole), 3),
        "after_line_s": round(statistics.median(after), 3),
        "derive_memo_s": round(statistics.median(again), 3),
        "after_line_memo_s": round(statistics.median(after_memo), 3),
    }
    print(json.dumps(figures))
    print(
        f"derive: first {first:.3f} s CPU, then median {figures['derive_s']:.3f} s from nothing, "
        f"{figures['derive_memo_s']:.3f} s with its memo; after one new line: median "
        f"{figures['after_line_s']:.3f} s from nothing, {figures['after_line_memo_s']:.3f} s "
        f"with its memo, over {args.runs} runs (target <= {TARGET_S} s)"
    )
    ok = figures["after_line_memo_s"] <= TARGET_S
    base = baseline("derive_big" if args.big else "derive")
    for key in ("derive_s", "after_line_s", "after_line_memo_s"):
        if base and key in base and figures[key] > base[key] * 2:
            print(f"FAIL {key} {figures[key]} s is over twice the baseline {base[key]} s")
            ok = False
    return verdict(ok)


def _values(rows: RoomRows) -> tuple:
    return (
        [dataclasses.astuple(f) for f in rows.facts],
        [dataclasses.astuple(e) for e in rows.evidence],
    )


def _busiest(memory: Memory) -> tuple[str, int]:
    from vyre.rooms.names import UNFILED
    from vyre.rooms.pipeline import plan

    _, by_room, _, _ = plan(memory.ledger, {})
    room = max((r for r in by_room if r != UNFILED), key=lambda r: len(by_room[r]))
    return room, len(by_room[room])


def _room_input(
    memory: Memory, room: str, settings: dict, held: HeldMentions | None = None
) -> RoomInput:
    """What the pipeline gives `derive_room` for this room (`_derive_rooms`); its mentions
    through `held` as the daemon reads them (the rows of unchanged sessions kept)."""
    from vyre.ledger import corrections as corrections_store
    from vyre.rooms.corrections import in_scope
    from vyre.rooms.derive import RoomInput
    from vyre.rooms.pipeline import plan

    digests, by_room, membership, _ = plan(memory.ledger, settings)
    orgs = {p["slug"]: p["org"] for p in memory.ledger.projects()}
    return RoomInput(
        room=room,
        digest=digests[room],
        mentions=(
            held.of(memory.ledger, room, by_room[room])
            if held is not None
            else memory.ledger.mentions(s["id"] for s in by_room[room])
        ),
        single={s["id"] for s in by_room[room] if len(membership[s["id"]]) == 1},
        org=orgs.get(room),
        settings=settings,
        corrections=in_scope(corrections_store.active(memory.ledger), room),
    )


def _append_line(root: Path, room: str, n: int) -> None:
    """One typed prompt more at the end of the room's newest session: a copy of one of its
    prompts (same people, orgs and dates), with its own uuid, a minute after its last line."""
    folder = root / f"-home-bench-work-{room}"
    path = max(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    prompts = [
        r for r in records if r.get("type") == "user" and isinstance(r["message"]["content"], str)
    ]
    last = next(r for r in reversed(records) if r.get("timestamp") and r.get("uuid"))
    when = datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00")) + timedelta(minutes=1)
    line = {
        **prompts[n % len(prompts)],
        "parentUuid": last["uuid"],
        "uuid": str(uuid.uuid4()),
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
    }
    with path.open("a") as f:
        f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    sys.exit(main())
