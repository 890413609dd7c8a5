"""The only module that imports the graph engine (LadybugDB by default, Kùzu 0.11.3 supported).

Guards for the engine's known pitfalls (GRAPH_ENGINE.md):
- cached prepared statements are turned off on every connection (ladybug 0.21+ returns wrong
  answers from cached parameterised plans);
- a query's `$names` must equal the parameters given (kuzu silently drops a predicate whose
  parameter is missing; ladybug binds NULL);
- results are drained and dropped at once (a live result can outlive the database and crash,
  or keep the file lock);
- a second read-write open fails at once: we say so in one line (`GraphBusy`);
- a file the engine cannot read is `GraphDamaged` (the caller rebuilds it from the ledger),
  and any other engine failure is a `GraphError` in one line, never a traceback;
- the buffer pool is sized from the data (or the `graph.buffer_pool_mib` setting), not the
  engine's default of 80% of RAM;
- a file can be opened read-only: any number of readers, beside the one process that writes;
- a bulk load never imports pandas (`_pandas_unseen`).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util  # the engines call importlib.util.find_spec without importing it
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from vyre.errors import GraphBusy, GraphDamaged, GraphError

ENGINES = ("ladybug", "kuzu")
_PARAM = re.compile(r"\$([A-Za-z_]\w*)")
MIB = 1 << 20
# The pool caches pages and must hold every page one write touches. Each file holds one room
# and is written whole, so the pool is sized from that room: twice its bytes, within bounds
# that keep a small room cheap and a decade's busiest room inside a laptop's memory.
POOL_MIN = 64 * MIB
POOL_MAX = 1024 * MIB
MAX_DB_SIZE = 1 << 34  # 16 GiB of address space, not disk
# Failures that are about this machine, not the file: never a reason to rebuild the graph.
_NOT_DAMAGE = ("permission denied", "no space", "read-only file system", "too many open files")


def engine_name() -> str:
    name = os.environ.get("VYRE_GRAPH_ENGINE", "ladybug").strip().lower() or "ladybug"
    if name not in ENGINES:
        raise GraphError(f"VYRE_GRAPH_ENGINE must be one of {', '.join(ENGINES)}, not {name!r}")
    return name


def buffer_pool(nbytes: int, setting_mib: object = None) -> int:
    """Bytes of buffer pool for a file of about `nbytes`: `graph.buffer_pool_mib` when set."""
    if setting_mib is not None:
        if not isinstance(setting_mib, int) or isinstance(setting_mib, bool) or setting_mib < 16:
            raise GraphError(
                f"graph.buffer_pool_mib must be a whole number of 16 or more, not {setting_mib!r}"
            )
        return setting_mib * MIB
    return max(POOL_MIN, min(POOL_MAX, 2 * nbytes))


def engine_files(path: Path) -> list[Path]:
    """The graph file and the files the engine keeps beside it (WAL, shadow, checkpoint)."""
    return sorted(
        p for p in path.parent.glob(path.name + "*") if p == path or p.name[len(path.name)] == "."
    )


def remove(path: Path) -> None:
    """Delete a graph and its companion files (it is derived: the ledger rebuilds it)."""
    for p in engine_files(path):
        p.unlink(missing_ok=True)


class Engine:
    """One database and one connection, used by one writer at a time."""

    def __init__(
        self, path: Path, name: str | None = None, *, pool: int = POOL_MIN, read_only: bool = False
    ):
        self.name = name or engine_name()
        self.path, self.read_only = path, read_only
        self._mod = self.load(self.name)
        try:
            self.db = self._mod.Database(
                str(path), buffer_pool_size=pool, max_db_size=MAX_DB_SIZE, read_only=read_only
            )
            self.conn = self._mod.Connection(self.db)
        except RuntimeError as exc:
            text = _first_line(exc)
            if "lock" in text.lower():
                raise GraphBusy(
                    f"the memory graph at {path} is in use by another process "
                    "(is `vyre daemon` running?)"
                ) from exc
            if any(s in text.lower() for s in _NOT_DAMAGE):
                raise GraphError(f"cannot open the memory graph at {path}: {text}") from exc
            raise GraphDamaged(f"the memory graph at {path} cannot be read: {text}") from exc
        if self.name == "ladybug":
            self.execute("CALL enable_cached_prepared_statement='none'")

    @staticmethod
    def load(name: str) -> Any:
        """The engine's module."""
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            raise GraphError(
                f"graph engine {name!r} is not installed (pip install {name})"
            ) from exc

    def execute(self, query: str, params: dict[str, Any] | None = None) -> list[list]:
        params = _checked(query, params)
        try:
            result = self.conn.execute(query, params) if params else self.conn.execute(query)
            try:
                rows = result.get_all() if result.has_next() else []
            finally:
                result.close()
        except RuntimeError as exc:
            raise _failure(exc) from exc
        return rows

    def arrow(self, query: str, params: dict[str, Any] | None = None) -> Any:  # a pyarrow Table
        """A query's whole result as an Arrow table: many times faster than rows for large
        reads (rows cross into Python one at a time otherwise)."""
        params = _checked(query, params)
        try:
            result = self.conn.execute(query, params) if params else self.conn.execute(query)
            try:
                return result.get_as_arrow(chunk_size=1 << 16)
            finally:
                result.close()
        except RuntimeError as exc:
            raise _failure(exc) from exc

    def copy(self, table: str, data: Any, *, skip_existing: bool = False) -> None:  # pyarrow
        """Bulk-load an Arrow table: an order of magnitude faster than row writes.
        `skip_existing`: rows whose primary key is already there are left out (node tables)."""
        if data.num_rows == 0:
            return
        rows = data  # the engine scans the local variable named in the statement
        option = " (IGNORE_ERRORS=true)" if skip_existing else ""
        try:
            with _pandas_unseen():
                self.conn.execute(f"COPY {table} FROM rows{option}").close()
            if skip_existing:  # the skipped keys are kept as warnings: drop them
                self.conn.execute("CALL clear_warnings()").close()
        except RuntimeError as exc:
            raise _failure(exc) from exc
        finally:
            del rows

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            # a failed statement may already have ended the transaction
            with contextlib.suppress(GraphError):
                self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    def close(self) -> None:
        conn, db = self.__dict__.pop("conn", None), self.__dict__.pop("db", None)
        if conn is not None:
            conn.close()
        if db is not None:
            db.close()


@contextmanager
def _pandas_unseen() -> Iterator[None]:
    """While a statement is prepared, the engine asks whether pandas is installed (to tell a
    DataFrame from the Arrow table we give it) and imports it if so: 0.4-0.5 s in a process
    that writes one file. Here it is told no (`importlib.util.find_spec` gives None for a
    module whose `sys.modules` entry is None). Vyre never imports pandas; a caller's thread
    that imported it in the moment this lasts would be told it is missing."""
    if "pandas" in sys.modules:
        yield
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _failure(exc: RuntimeError) -> GraphError:
    text = _first_line(exc)
    if "buffer pool" in text.lower():
        return GraphError(
            f"the memory graph ran out of buffer memory ({text}); raise graph.buffer_pool_mib "
            "in settings.json"
        )
    return GraphError(f"the memory graph failed: {text}")


def _checked(query: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """The query's parameters, refused unless they are exactly the ones it names."""
    params = params or {}
    wanted = set(_PARAM.findall(query))
    if wanted != set(params):
        raise GraphError(
            f"query parameters {sorted(wanted)} do not match those given {sorted(params)}"
        )
    return params
