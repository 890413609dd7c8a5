"""Hook events sent as Claude Code sends them: JSON on stdin, the answer on stdout.

- `run_hook`: the exact command `vyre harness install` writes, in a new process (what the
  fast path's imports, isolation and exit code are tested by; ~40 ms of CPU a call).
- `hook_here`: the same entry (`vyre.hooks.run.main`) run in this process, for tests of what
  a hook decides rather than how it starts. The hook keeps no state between calls (every
  call reads the snapshot, the ledger or the daemon afresh), so a call here answers what a
  new process would.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from unittest import mock

from vyre.hooks.commands import hook_command


def run_hook(event: str, payload: dict, env: dict | None = None) -> dict | None:
    argv = shlex.split(hook_command(event))
    out = subprocess.run(
        argv,
        input=json.dumps({"hook_event_name": event, **payload}).encode(),
        capture_output=True,
        env=env or dict(os.environ),
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if out.stdout.strip() else None


def hook_here(event: str, payload: dict, env: dict | None = None) -> dict | None:
    from vyre.hooks.run import main

    stdin = io.TextIOWrapper(io.BytesIO(json.dumps({"hook_event_name": event, **payload}).encode()))
    stdout = io.StringIO()
    with (
        mock.patch.dict(os.environ, env or {}, clear=env is not None),
        mock.patch.object(sys, "stdin", stdin),
        mock.patch.object(sys, "stdout", stdout),
    ):
        code = main(["hook", event])
    assert code == 0
    return json.loads(stdout.getvalue()) if stdout.getvalue().strip() else None
