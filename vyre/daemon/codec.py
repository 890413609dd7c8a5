"""Values across the socket: library values to JSON and back, so a CLI talking to the daemon
gets the same objects as one that opened the stores itself.

A value of a type importable from `vyre.models` travels as its fields plus `"__t": its name` and
comes back as that type (nested models and reports are rebuilt by pydantic from the type's
own annotations). Nothing else needs registering: a model added there travels as it is.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from datetime import datetime
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, TypeAdapter

from vyre import models

TYPE_KEY = "__t"
TIME_KEY = "__dt"


@functools.cache
def _types() -> dict[str, type]:
    return {
        name: value
        for name, value in vars(models).items()
        if isinstance(value, type)
        and value is not BaseModel
        and (issubclass(value, BaseModel) or dataclasses.is_dataclass(value))
    }


@functools.cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def encode(value: object) -> Any:
    if isinstance(value, BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        cls = type(value)
        if _types().get(cls.__name__) is not cls:
            raise TypeError(f"{cls.__name__} cannot cross the socket: import it in vyre.models")
        return {TYPE_KEY: cls.__name__, **_adapter(cls).dump_python(value, mode="json")}
    if isinstance(value, datetime):
        return {TIME_KEY: value.isoformat()}
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Counter):
        return dict(value)
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [encode(v) for v in items]
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if TIME_KEY in value:
        return datetime.fromisoformat(value[TIME_KEY])
    kind = value.get(TYPE_KEY)
    if kind is None:
        return {k: decode(v) for k, v in value.items()}
    cls = _types().get(kind)
    if cls is None:
        raise ValueError(f"unknown type {kind!r} on the wire")
    return _adapter(cls).validate_python({k: v for k, v in value.items() if k != TYPE_KEY})
