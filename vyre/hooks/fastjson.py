"""JSON for the hook fast path without importing `json`.

`json` imports `re` (and `enum` with it) at start-up: about 3 ms of the 10 ms a hook may
spend beyond the interpreter's own start. The C scanner and encoder under `json` (`_json`)
need none of that. This handles what hooks and the socket exchange: objects, arrays,
strings, numbers, true, false and null.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook fast path never imports typing
if TYPE_CHECKING:
    from typing import Any

_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_WHITESPACE = " \t\n\r"


class _Context:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__
    memo: dict = {}  # noqa: RUF012 (the scanner's own scratch space)


_scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # a duck-typed decoder


def loads(data: bytes | str) -> Any:
    """Parse one JSON value; ValueError on anything else (bad UTF-8 included)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"not JSON at {exc.value}") from None
    finally:
        _Context.memo.clear()
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"extra data at {end}")
    return value


def dumps(value: object) -> str:
    if isinstance(value, str):
        return _json.encode_basestring_ascii(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{dumps(str(k))}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot encode {type(value).__name__}")
