"""A daemon that stops still at one point of writing the main graph beside its writer, for a kill.

`python -m tests.daemon_main_kill HOME ROOT POINT` runs the daemon for HOME over ROOT, prints
`armed` once it serves, and the next time the main graph is written prints POINT and waits
there forever (the test kills it then):
- `derived`: the main rows derived, nothing written;
- `writing`: the new file filled, before the engine's checkpoint and the rename;
- `renamed`: the new file in place, the ledger not yet told.
Test code: it wraps the daemon from outside; nothing in `vyre/` knows of it.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from vyre.daemon import main_graph
from vyre.daemon.server import Daemon
from vyre.graph import engine
from vyre.rooms.names import MAIN


def main(home: str, root: str, point: str) -> None:
    armed = threading.Event()

    def stop_here(name: str) -> None:
        if armed.is_set() and name == point:
            print(point, flush=True)
            while True:
                time.sleep(60)

    write_rows, record_rows, close = (
        main_graph.write_rows,
        main_graph.record_rows,
        engine.Engine.close,
    )

    def writing(store, rows, written=None):
        if rows.room == MAIN:
            stop_here("derived")
        return write_rows(store, rows, written)

    def recording(ledger, rows, stamp):
        if rows.room == MAIN:
            stop_here("renamed")
        return record_rows(ledger, rows, stamp)

    def closing(self):
        if not self.read_only and self.path.name.startswith(f"main.{self.name}.tmp-"):
            stop_here("writing")
        return close(self)

    main_graph.write_rows, main_graph.record_rows = writing, recording
    engine.Engine.close = closing
    daemon = Daemon(Path(home), Path(root), poll=0.05)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    while daemon.reads is None or not (Path(home) / "vyre.sock").exists():
        time.sleep(0.02)
    armed.set()
    print("armed", flush=True)
    thread.join()


if __name__ == "__main__":
    main(*sys.argv[1:4])
