"""Memory through the daemon when it runs, or the stores themselves when it does not.

`open_memory()` is what every surface calls. A `RemoteMemory` has every method of
`vyre.interface.MemoryAPI`, made from the Protocol's own signatures (so a method added there
is offered here with no other edit), returns the same models and raises the same errors, so a
command behaves the same whichever way memory was reached.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from vyre import config
from vyre.daemon import protocol
from vyre.errors import DaemonError, DaemonUnavailable, Untrusted, by_kind
from vyre.interface import MemoryAPI, operations

CALL_TIMEOUT_S = 600  # an ingest of a large home through the daemon takes minutes


class RemoteMemory:
    """The library API, answered by the daemon of this home as `caller`."""

    def __init__(self, home: Path, caller: str) -> None:
        self.home, self.caller = home, caller

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to let go of: the daemon holds the stores."""

    def call(self, op: str, arguments: dict[str, Any]) -> Any:
        """One operation with its (named) arguments; its result as the library returns it."""
        from vyre.daemon import codec  # pydantic: only once there is a result to rebuild

        # ask's events come back as lines before its reply; no other callable (progress)
        # crosses the socket
        events = arguments.pop("events", None)
        if events is not None:
            arguments["stream"] = True
        arguments = {k: v for k, v in arguments.items() if not callable(v)}
        caller = arguments.pop("caller", self.caller)
        payload = {k: codec.encode(v) for k, v in arguments.items()}
        try:
            result = protocol.call(
                op,
                payload,
                caller=caller,
                home=self.home,
                timeout=CALL_TIMEOUT_S,
                on_event=events,
            )
        except DaemonError as exc:
            raise by_kind(exc.kind, str(exc)) from None
        return codec.decode(result)


def _remote(op: str, template: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(template)

    takes_caller = "caller" in signature.parameters

    def method(self: RemoteMemory, *args: Any, **kwargs: Any) -> Any:
        if takes_caller:  # an owner-only call: by this handle's caller unless told otherwise
            kwargs.setdefault("caller", self.caller)
        bound = signature.bind(self, *args, **kwargs)  # a TypeError here, as locally
        arguments = dict(bound.arguments)
        del arguments["self"]
        return self.call(op, arguments)

    method.__name__ = method.__qualname__ = op
    method.__doc__ = template.__doc__
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


for _op in operations():
    setattr(RemoteMemory, _op, _remote(_op, getattr(MemoryAPI, _op)))


def daemon_running(home: Path | None = None) -> bool:
    """Whether this home's daemon answers. A socket that may not be this user's raises
    `Untrusted` rather than passing for "no daemon": the caller says so in one line."""
    try:
        protocol.call("ping", caller="local", home=home, timeout=1.0)
    except Untrusted:
        raise
    except (DaemonUnavailable, DaemonError):
        return False
    return True


def open_memory(caller: str = "cli", home: Path | None = None) -> MemoryAPI:
    """The daemon's memory when it runs for this home, else the stores opened here."""
    home = home or config.home()
    if os.path.exists(protocol.socket_path(home)) and daemon_running(home):
        # Its methods are made from MemoryAPI itself (tests/test_api.py checks them).
        return cast(MemoryAPI, RemoteMemory(home, caller))
    from vyre.api import Memory

    return Memory(home)
