"""Memory through the daemon when it runs, or the stores themselves when it does not.

`open_memory()` is what every surface calls. A `RemoteMemory` offers the same methods as
`vyre.api.Memory` for everything a surface needs, and raises the same errors, so a command
behaves the same whichever way memory was reached.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path

from vyre import config
from vyre.api import Memory
from vyre.daemon import codec
from vyre.daemon.protocol import DaemonError, DaemonUnavailable, call, socket_path
from vyre.errors import Untrusted, by_kind


class RemoteMemory:
    """The library API, answered by the daemon of this home."""

    def __init__(self, home: Path, caller: str):
        self.home, self.caller = home, caller

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass

    def __getattr__(self, op: str):
        if op.startswith("_"):
            raise AttributeError(op)

        def method(*args, **kwargs):
            return self.call(op, args, kwargs)

        return method

    def call(self, op: str, args: tuple, kwargs: dict):
        if args:  # positional arguments, named as the library method names them
            kwargs = {
                **inspect.signature(getattr(Memory, op)).bind_partial(None, *args).arguments,
                **kwargs,
            }
            kwargs.pop("self")
        kwargs.pop("progress", None)
        caller = kwargs.pop("caller", self.caller)
        events = kwargs.pop("events", None)  # ask's events come back as lines before its reply
        if events is not None:
            kwargs["stream"] = True
        payload = {
            k: (str(v) if isinstance(v, Path) else codec.encode(v)) for k, v in kwargs.items()
        }
        try:
            result = call(op, payload, caller=caller, home=self.home, timeout=600, on_event=events)
        except DaemonError as exc:
            raise by_kind(exc.kind, str(exc)) from None
        return codec.decode(result)


def daemon_running(home: Path | None = None) -> bool:
    """Whether this home's daemon answers. A socket that may not be this user's raises
    `Untrusted` rather than passing for "no daemon": the caller says so in one line."""
    try:
        call("ping", caller="local", home=home, timeout=1.0)
    except Untrusted:
        raise
    except (DaemonUnavailable, DaemonError):
        return False
    return True


def open_memory(caller: str = "cli", home: Path | None = None):
    """The daemon's memory when it runs for this home, else the stores opened here."""
    home = home or config.home()
    if os.path.exists(socket_path(home)) and daemon_running(home):
        return RemoteMemory(home, caller)
    return Memory(home)
