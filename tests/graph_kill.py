"""A derive that says when the graph engine starts a checkpoint, for kills timed there.

`python -m tests.graph_kill HOME` derives every room of HOME again and prints `checkpoint N`
just before the engine's N-th checkpoint: at a COMMIT (a transaction that bulk-loaded rows is
made durable only by the checkpoint its commit runs) and at closing a database (which
checkpoints what is left). A kill right after that line lands in the checkpoint. Test code:
it wraps the engine from outside; nothing in `vyre/` knows of it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from vyre.api import Memory
from vyre.graph import engine


def main(home: str) -> None:
    execute, close = engine.Engine.execute, engine.Engine.close
    checkpoints = 0

    def announce() -> None:
        nonlocal checkpoints
        checkpoints += 1
        print(f"checkpoint {checkpoints}", flush=True)

    def announced_execute(self, query, params=None):
        if query == "COMMIT":
            announce()
        return execute(self, query, params)

    def announced_close(self):
        if not getattr(self, "read_only", False):
            announce()
        return close(self)

    engine.Engine.execute = announced_execute
    engine.Engine.close = announced_close
    with Memory(Path(home)) as memory:
        _ = memory.store  # opened (and checked) before the announced checkpoints
        memory.derive(force=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
