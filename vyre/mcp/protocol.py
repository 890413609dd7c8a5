"""The Model Context Protocol's stdio transport and its tools subset, in the standard library.

Why not the official SDK here: importing it (pydantic, anyio, starlette and the rest) takes
about 0.4 s on a quiet machine and over a second on a loaded one, before the server can read
its first line, and Claude Code's first request came before Vyre's tools were ready. What Vyre
serves is small and fixed: `initialize`, `ping`, `tools/list`, `tools/call` and the client's
notifications, one JSON-RPC 2.0 message per line (the spec's stdio framing). The SDK's client
and the MCP Inspector test this server against the real protocol (tests/test_mcp.py).

What must stay true:
- Nothing but protocol messages is written to stdout, one per line; logs go to stderr.
- `initialize` is answered before any tool's code is imported: tools import what they need
  when first called.
- A tool's failure is a result with `isError` and one line of text, never a broken session;
  a request the server does not know is a JSON-RPC error; a notification gets no reply.
- Tool calls run one at a time, on a worker thread, so `ping` is answered while one runs.
"""

from __future__ import annotations

import inspect
import json
import sys
import threading
import types
import typing
from collections.abc import Callable
from typing import IO, Any

# Newest first; an unknown version asked for gets the newest (the client then decides).
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


class ToolError(Exception):
    """A tool's failure, told to the model in one line (`isError` in the result)."""


class Tool:
    """One tool: its function, its JSON Schema made from the function's signature."""

    def __init__(self, fn: Callable[..., dict], description: str, annotations: dict) -> None:
        self.fn, self.name = fn, fn.__name__
        self.description, self.annotations = description, annotations
        self.params = inspect.signature(fn).parameters
        hints = typing.get_type_hints(fn)
        self.properties = {name: _schema(hints[name], p.default) for name, p in self.params.items()}
        self.required = [n for n, p in self.params.items() if p.default is inspect.Parameter.empty]

    def listing(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            schema["required"] = self.required
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": schema,
            "outputSchema": {"type": "object", "additionalProperties": True},
            "annotations": self.annotations,
        }

    def call(self, arguments: object) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            raise ToolError("arguments must be an object")
        missing = [n for n in self.required if n not in arguments]
        if missing:
            raise ToolError(f"missing argument: {', '.join(missing)}")
        unknown = sorted(set(arguments) - set(self.params))
        if unknown:
            raise ToolError(f"unknown argument: {', '.join(unknown)}")
        for name, value in arguments.items():
            problem = _invalid(self.properties[name], value)
            if problem:
                raise ToolError(f"{name}: {problem}")
        return self.fn(**arguments)


class Server:
    """Tools registered with `@server.tool(...)`, served on stdin and stdout by `run()`."""

    def __init__(self, name: str, version: str, instructions: str) -> None:
        self.name, self.version, self.instructions = name, version, instructions
        self.tools: dict[str, Tool] = {}
        self._write_lock = threading.Lock()
        self._calls = threading.Semaphore(1)
        self._out: IO[str] = sys.stdout

    def tool(self, *, description: str, annotations: dict) -> Callable[[Callable], Callable]:
        def register(fn: Callable[..., dict]) -> Callable[..., dict]:
            self.tools[fn.__name__] = Tool(fn, description, annotations)
            return fn

        return register

    # -- the session ----------------------------------------------------------------------

    def run(self, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
        """Serve until stdin closes."""
        source = stdin or sys.stdin
        self._out = stdout or sys.stdout
        workers: list[threading.Thread] = []
        for line in source:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self._send({"jsonrpc": "2.0", "id": None, "error": _error(PARSE_ERROR, "")})
                continue
            for one in message if isinstance(message, list) else [message]:
                worker = self._take(one)
                if worker is not None:
                    workers.append(worker)
        for worker in workers:
            worker.join()

    def _take(self, message: object) -> threading.Thread | None:
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return None  # a reply to a request of ours: we send none
            self._send({"jsonrpc": "2.0", "id": None, "error": _error(INVALID_REQUEST, "")})
            return None
        if "id" not in message:
            return None  # a notification (initialized, cancelled, ...): nothing to answer
        rid, method = message["id"], message["method"]
        params = message.get("params") or {}
        if method == "tools/call":
            worker = threading.Thread(target=self._call, args=(rid, params), daemon=True)
            worker.start()
            return worker
        try:
            result = self._answer(method, params)
        except _Unknown:
            self._send({"jsonrpc": "2.0", "id": rid, "error": _error(METHOD_NOT_FOUND, method)})
            return None
        self._send({"jsonrpc": "2.0", "id": rid, "result": result})
        return None

    def _answer(self, method: str, params: dict) -> dict[str, Any]:
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": self.name, "version": self.version},
                "instructions": self.instructions,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [t.listing() for t in self.tools.values()]}
        raise _Unknown(method)

    def _call(self, rid: object, params: dict) -> None:
        tool = self.tools.get(params.get("name", "")) if isinstance(params, dict) else None
        if tool is None:
            name = params.get("name") if isinstance(params, dict) else None
            error = _error(INVALID_PARAMS, f"unknown tool {name!r}")
            self._send({"jsonrpc": "2.0", "id": rid, "error": error})
            return
        with self._calls:
            try:
                data = tool.call(params.get("arguments") or {})
                result = {
                    "content": [{"type": "text", "text": json.dumps(data, indent=2)}],
                    "structuredContent": data,
                    "isError": False,
                }
            except ToolError as exc:
                result = _failure(f"Error executing tool {tool.name}: {exc}")
            except Exception as exc:  # a bug in a tool: one line for the model, never a crash
                print(f"vyre mcp: {tool.name} failed: {exc!r}", file=sys.stderr)
                result = _failure(f"Error executing tool {tool.name}: {type(exc).__name__}")
        self._send({"jsonrpc": "2.0", "id": rid, "result": result})

    def _send(self, message: dict) -> None:
        line = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        with self._write_lock:
            self._out.write(line + "\n")
            self._out.flush()


class _Unknown(Exception):
    pass


def _error(code: int, data: str) -> dict[str, Any]:
    messages = {
        PARSE_ERROR: "Parse error",
        INVALID_REQUEST: "Invalid request",
        METHOD_NOT_FOUND: "Method not found",
        INVALID_PARAMS: "Invalid params",
    }
    out: dict[str, Any] = {"code": code, "message": messages[code]}
    if data:
        out["data"] = data
    return out


def _failure(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


_JSON_TYPES: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema(hint: object, default: object) -> dict[str, Any]:
    """A parameter's JSON Schema from its annotation: str, int, float, bool, a Literal of
    strings, or one of those or None."""
    options = [a for a in typing.get_args(hint)] if typing.get_origin(hint) in _UNIONS else [hint]
    nullable = type(None) in options
    options = [o for o in options if o is not type(None)]
    (only,) = options
    if typing.get_origin(only) is typing.Literal:
        schema: dict[str, Any] = {"type": "string", "enum": list(typing.get_args(only))}
    else:
        schema = {"type": _JSON_TYPES[only]}
    if nullable:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if default is not inspect.Parameter.empty:
        schema["default"] = default
    return schema


_UNIONS = (typing.Union, types.UnionType)


def _invalid(schema: dict[str, Any], value: object) -> str:
    """Why a value does not fit its schema, or ''."""
    options = schema.get("anyOf", [schema])
    for option in options:
        kind = option["type"]
        if kind == "null" and value is None:
            return ""
        if kind == "string" and isinstance(value, str):
            if "enum" in option and value not in option["enum"]:
                return f"one of {', '.join(option['enum'])}"
            return ""
        if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
            return ""
        if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
            return ""
        if kind == "boolean" and isinstance(value, bool):
            return ""
    return "expected " + " or ".join(o["type"] for o in options)
