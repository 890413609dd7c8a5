"""The only module that imports the graph engine (LadybugDB by default, Kùzu 0.11.3 supported).

Guards for the engine's known pitfalls (GRAPH_ENGINE.md):
- cached prepared statements are turned off on every connection (ladybug 0.21+ returns wrong
  answers from cached parameterised plans);
- a query's `$names` must equal the parameters given (kuzu silently drops a predicate whose
  parameter is missing; ladybug binds NULL);
- results are drained and dropped at once (a live result can outlive the database and crash,
  or keep the file lock);
- a second read-write open fails at once: we say so in one line (`GraphBusy`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from vyre.errors import GraphBusy, GraphError

ENGINES = ("ladybug", "kuzu")
_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
BUFFER_POOL = 256 * 1024 * 1024
MAX_DB_SIZE = 1 << 34  # 16 GiB of address space, not disk


def engine_name() -> str:
    name = os.environ.get("VYRE_GRAPH_ENGINE", "ladybug").strip().lower() or "ladybug"
    if name not in ENGINES:
        raise GraphError(f"VYRE_GRAPH_ENGINE must be one of {', '.join(ENGINES)}, not {name!r}")
    return name


class Engine:
    """One database and one connection, used by one writer at a time."""

    def __init__(self, path: Path, name: str | None = None):
        self.name = name or engine_name()
        try:
            self._mod = importlib.import_module(self.name)
        except ImportError as exc:
            raise GraphError(
                f"graph engine {self.name!r} is not installed (pip install {self.name})"
            ) from exc
        try:
            self.db = self._mod.Database(
                str(path), buffer_pool_size=BUFFER_POOL, max_db_size=MAX_DB_SIZE
            )
            self.conn = self._mod.Connection(self.db)
        except RuntimeError as exc:
            if "lock" in str(exc).lower():
                raise GraphBusy(
                    f"the memory graph at {path} is in use by another process "
                    "(is `vyre daemon` running?)"
                ) from exc
            raise GraphError(f"cannot open the memory graph at {path}: {exc}") from exc
        if self.name == "ladybug":
            self.execute("CALL enable_cached_prepared_statement='none'")

    def execute(self, query: str, params: dict[str, Any] | None = None) -> list[list]:
        params = params or {}
        wanted = set(_PARAM.findall(query))
        if wanted != set(params):
            raise GraphError(
                f"query parameters {sorted(wanted)} do not match those given {sorted(params)}"
            )
        result = self.conn.execute(query, params) if params else self.conn.execute(query)
        try:
            rows = result.get_all() if result.has_next() else []
        finally:
            result.close()
        return rows

    def copy(self, table: str, data: Any) -> None:  # a pyarrow Table
        """Bulk-load an Arrow table: an order of magnitude faster than row writes."""
        if data.num_rows == 0:
            return
        rows = data  # the engine scans the local variable named in the statement
        result = self.conn.execute(f"COPY {table} FROM rows")
        result.close()
        del rows

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            # a failed statement may already have ended the transaction
            with contextlib.suppress(RuntimeError):
                self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    def close(self) -> None:
        conn, db = self.__dict__.pop("conn", None), self.__dict__.pop("db", None)
        if conn is not None:
            conn.close()
        if db is not None:
            db.close()
