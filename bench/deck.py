"""The Deck's pages on a heavy user's home: 10,000 generated sessions in 30 projects.

Each page is asked for many times through the real app (guard, routes, templates) in
process, and its server time printed as median and p95, against the target: every page
under 100 ms. The Memory view pages (40 entities at a time), so Everything costs what one
page costs, not what the whole graph would.

Usage: python bench/deck.py [--sessions 10000] [--calls 30] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import baseline, generated_home, p95, verdict
from starlette.testclient import TestClient

from vyre.api import Memory
from vyre.deck.app import TEMPLATES, create_app
from vyre.deck.passkey import Passkeys
from vyre.deck.security import Gate
from vyre.deck.views import Backend, routes

TARGET_MS = 100.0
PORT = 47333


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--keep", type=Path, default=None, help="Reuse or keep the work folder.")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="vyre-deckbench-"))
    _, home = generated_home(work, args.sessions)
    memory = Memory(home, owner=True)  # as in the daemon, which serves the Deck
    gate = Gate(home, PORT)
    app = create_app(gate, routes(Backend(memory), Passkeys(memory.ledger, PORT), TEMPLATES))
    base = f"http://localhost:{PORT}"
    client = TestClient(app, base_url=base, follow_redirects=False)
    client.post("/login", data={"token": gate.token()}, headers={"origin": base})
    session = memory.facts("p07")[0].sources[0].session
    pages = {
        "memory (everything)": "/memory?scope=*",
        "memory (one project)": "/memory?scope=p07",
        "memory (page 3)": "/memory?scope=*&page=3",
        "turn": f"/turn/{session}?seq=3",
        "find": "/find?scope=p07",
        "now": "/now",
        "lessons": "/memory?tab=lessons",
    }
    figures, ok = {}, True
    for name, path in pages.items():
        assert client.get(path).status_code == 200, path  # warm the room's view
        times = []
        for _ in range(args.calls):
            t = time.perf_counter()
            r = client.get(path)
            times.append((time.perf_counter() - t) * 1000)
            assert r.status_code == 200
        figures[name] = {"p50": round(statistics.median(times), 1), "p95": round(p95(times), 1)}
        ok &= p95(times) < TARGET_MS
        print(
            f"{name:<22} p50 {statistics.median(times):6.1f} ms  p95 {p95(times):6.1f} ms"
            f"  (target < {TARGET_MS:.0f})"
        )
    memory.close()
    print(json.dumps({"sessions": args.sessions, "pages_ms": figures}, indent=2))
    base_figures = baseline("deck")
    if base_figures:
        for name, got in figures.items():
            was = base_figures["pages_ms"].get(name)
            if was and got["p95"] > 2 * was["p95"]:
                print(f"FAIL: {name} is over twice the baseline ({was['p95']} ms)")
                ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
