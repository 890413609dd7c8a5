"""The daemon: the one process that owns a home's ledger and graph while it runs.

What must stay true:
- One daemon per home: an exclusive lock on `daemon.lock`; a second one refuses in one line.
  A lock dies with its process, so a crash leaves nothing to clean but a socket file, which
  the next start removes.
- The socket lives in the home (0700) and is 0600; a peer that is not this user is refused.
- Writes hold one lock, so they never interleave. Reads never take it: they are answered
  from the room views the last derive published (each swapped in whole) and a ledger
  connection of their own that only reads, so a prompt hook, a served CLI command and
  `status` never wait for an ingest. The hooks' own writes (tool events, the learning
  loop's rows and its part of a prompt) go through a ledger connection of their own, beside
  the writer's lock: they wait only for SQLite's short write transactions, never for a derive.
- New transcript lines are read within a second: changed files are found by size and time,
  read, and only their rooms derived; the main graph follows when the watcher is quiet,
  derived and written beside the writer (`vyre.daemon.main_graph`), so it never holds up
  the next line. A request that changed memory is answered once the rooms it changed are
  served; a read of the main graph after the reply waits (`MAIN_WAIT_S` at most) for the main
  graph that has the change, so every read after a reply sees it.
- A handed `vyre ingest` of the watched root reads the files the kernel's events say changed
  (and those a failure left to read again), under the same hold of the writer's lock as the
  watcher's own take-and-read, so no line taken by one is missed by the other's reply.
- A poll whose ingest fails keeps its files: they are read again at the next polls (with a
  growing pause) until it succeeds, so no line waits for its file to change again. The last
  error is kept as one line for `vyre daemon status`, and in full in `daemon.log`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from vyre import __version__, config, presence
from vyre.api import Memory, load_views, reading
from vyre.daemon import codec
from vyre.daemon.main_graph import MainGraph, trim_heap
from vyre.daemon.private import open_private
from vyre.daemon.protocol import LOCK_NAME, MAX_LINE, SOCKET_NAME
from vyre.daemon.watch import Watcher
from vyre.errors import AlreadyRunning, DaemonUnavailable, InputError, VyreError
from vyre.hooks import context
from vyre.interface import operations
from vyre.learn import hook as learn_hook
from vyre.ledger import Ledger
from vyre.models import Ingested
from vyre.rooms.pipeline import LaterFiles

if TYPE_CHECKING:
    from vyre.deck.server import DeckServer
    from vyre.learn.service import Learn

POLL_S = 0.2  # how often the watcher looks for new lines (with kernel events: at the latest)
SETTLE_S = 0.02  # after the kernel says a file changed: the rest of a burst of writes lands
# The main graph follows once the watcher has been quiet this long: each one derived beside
# the watcher takes CPU (and the interpreter's lock) from the next line's room, and prompts
# read rooms, never the main graph, so it waits for a pause in a session's writing...
MAIN_QUIET_S = 3.0
# ... or, when a session never pauses that long, it follows at most this late (and a reply
# that changed memory asks for it at once)
MAIN_EVERY_S = 60.0
MAIN_DELAY_S = 1.0  # then (and after a failure's retry) the quiet time before it
HOOK_WAIT_S = 0.25  # the longest a prompt's lesson check waits for the hooks' lane
RETRY_MAX_S = 30.0  # the longest pause before files whose ingest failed are read again
MAIN_WAIT_S = 60.0  # the longest a read of the main graph waits for a change it is owed

# Every MemoryAPI method, with whether it is owner-only and whether it only reads (served
# beside the writer, without its lock): the Protocol is the one list.
OPERATIONS = operations()


def peer_uid(conn: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED)."""
    return _peer(conn)[1]


def _peer(conn: socket.socket) -> tuple[int, int, int]:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", creds)
    return pid, uid, gid


class Daemon:
    def __init__(self, home: Path | None = None, root: Path | None = None, *, poll: float = POLL_S):
        self.home = Path(home) if home else config.home()
        self.root = Path(root) if root else config.projects_root()
        self.poll = poll
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.started = time.time()
        self.memory: Memory | None = None
        self.reads: Memory | None = None  # the same memory, for readers: never waits
        self._readers: list[Memory] = []  # one per request at a time (own ledger connection)
        self._readers_lock = threading.Lock()
        self._hooks: Learn | None = None  # the hooks' writes: a ledger connection of their own
        self._hooks_lock = threading.Lock()  # one hook's write at a time on it
        self._lockfile: IO[str] | None = None
        self._server: socketserver.UnixStreamServer | None = None
        self._stats: dict[str, Any] = {
            "ingests": 0,
            "last_ingest": None,
            "last_error": None,
            "errors": 0,
            "skipped": {},  # lines skipped since start, by reason
        }
        self._main_due: float | None = None  # when the watcher asks for the main graph
        self._main_stale_at: float | None = None  # when it last fell behind the rooms
        self._files = LaterFiles()  # rooms' files the watcher's derives leave to write
        self._main = MainGraph(lambda: self.live, self.lock, self._main_failed, self._files)
        self._retry: set[Path] = set()  # files whose ingest failed, to read again
        self._watcher: Watcher | None = None
        # derives a reply said were done: a read of the main graph waits until it covers them
        self._owed = 0
        self._retry_all = False  # the first, whole ingest failed: it is tried again
        self._log = sys.stderr  # daemon.log when started in the background
        self._retry_at = 0.0
        self._failures = 0
        self._deck: DeckServer | None = (
            None  # the Deck's web server, started on the first `vyre deck`
        )

    @property
    def live(self) -> Memory:
        """The memory this daemon holds while it runs."""
        if self.memory is None:
            raise DaemonUnavailable("the daemon is not running")
        return self.memory

    # -- life -------------------------------------------------------------------------------

    def run(self) -> None:
        """Serve until stopped (SIGTERM, SIGINT or a `shutdown` request)."""
        self._take_home()
        presence.SERVES_OTHERS = True  # judge each peer, not the environment we started in
        try:
            self.memory = Memory(self.home, owner=True)
            self.memory.main_later = True  # derived beside the writer: `self._main`
            self.memory.later_files = self._files  # and the rooms' files written there
            from vyre.learn.service import Learn

            hooks = Ledger(self.home / "vyre.db")
            hooks.db.execute("PRAGMA cache_size = -4096")  # small rows: no ingest's 64 MiB cache
            self._hooks = Learn(hooks, self.home)
            self.memory.learn.verify_snapshot()  # a snapshot changed behind Vyre: tampered
            self.memory.learn.prune()  # per-call rows are kept 7 days
            _ = self.memory.reader  # made first: every derive from here on publishes to it
            # The watcher looks before the first ingest reads: a line written in between is
            # a change it reports, never one it takes for already read.
            watcher = self._watcher = Watcher(self.root)
            if self.root.is_dir():
                self._ingest(None)  # a failure here is retried by the watcher, not fatal
            with self.lock:
                load_views(self.memory)  # rooms that were already up to date
            self._main_now()  # served from the start, as the rooms are
            self.reads = self._new_reader()
            self._readers.append(self.reads)
            self._serve()
            for sig in (signal.SIGTERM, signal.SIGINT):
                if threading.current_thread() is threading.main_thread():
                    signal.signal(sig, lambda *_: self.stop.set())
            self._watch(watcher)
        finally:
            self._close()

    def _take_home(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.home.chmod(0o700)
        path = self.home / LOCK_NAME
        # never through a planted link (process.open_private refuses one in one line)
        lockfile = os.fdopen(open_private(path, os.O_RDWR), "r+")
        try:
            fcntl.flock(lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lockfile.seek(0)
            pid = lockfile.read().strip() or "?"
            lockfile.close()
            raise AlreadyRunning(f"a daemon already runs for {self.home} (pid {pid})") from None
        lockfile.seek(0)
        lockfile.truncate()
        lockfile.write(str(os.getpid()))
        lockfile.flush()
        self._lockfile = lockfile
        stale = self.home / SOCKET_NAME
        if stale.exists() or stale.is_symlink():
            stale.unlink()  # left by a daemon that did not stop cleanly

    def _serve(self) -> None:
        daemon = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                if peer_uid(self.request) != os.getuid():
                    self.rfile.readline(MAX_LINE + 1)  # take the request, so the refusal is read
                    self._send(
                        {"ok": False, "error": "refused: not this user's daemon", "kind": "Refused"}
                    )
                    return
                # a peer inside Claude Code is never the owner, whatever caller it names
                inside = presence.peer_inside_claude_code(_peer(self.request)[0])
                while True:
                    line = self.rfile.readline(MAX_LINE + 1)
                    if not line:
                        return
                    if len(line) > MAX_LINE:  # the rest of it would read as garbage: hang up
                        error = f"refused: a request larger than {MAX_LINE >> 20} MiB"
                        self._send({"ok": False, "error": error, "kind": "InputError"})
                        return
                    self._send(daemon.handle(line, events=self._event, inside_claude_code=inside))

            def _event(self, event: dict) -> None:
                self._send({"event": event})

            def _send(self, message: dict) -> None:
                self.wfile.write(json.dumps(message).encode() + b"\n")
                self.wfile.flush()

        path = self.home / SOCKET_NAME
        # bound and listening under a name of its own, then renamed into place: a client
        # that sees the socket can always connect to it
        for stale in self.home.glob(f".{SOCKET_NAME}.*"):  # one a crash left (we hold the lock)
            stale.unlink(missing_ok=True)
        born = self.home / f".{SOCKET_NAME}.{os.getpid()}"
        old = os.umask(0o177)  # the socket is born 0600: no window where others can connect
        try:
            server = socketserver.ThreadingUnixStreamServer(str(born), Handler)
        finally:
            os.umask(old)
        server.daemon_threads = True
        os.chmod(born, 0o600)
        os.replace(born, path)
        self._server = server
        threading.Thread(target=server.serve_forever, name="vyre-socket", daemon=True).start()

    def _close(self) -> None:
        self._main.close()
        if self._deck is not None:
            self._deck.stop()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            sock = self.home / SOCKET_NAME
            if sock.exists():
                sock.unlink()
        for reads in self._readers:
            reads.ledger.close()
        if self._hooks is not None:
            with self._hooks_lock:
                self._hooks.ledger.close()
        if self.memory is not None:
            with self.lock:
                self.memory.close()
        if self._lockfile is not None:
            self._lockfile.close()
        presence.SERVES_OTHERS = False

    # -- requests ---------------------------------------------------------------------------

    def handle(
        self,
        line: bytes,
        events: Callable[[dict], None] | None = None,
        *,
        inside_claude_code: bool = False,
    ) -> dict:
        """One request's reply; `events` sends a streaming request's events first. A peer
        inside Claude Code is never the owner, whatever caller it names."""
        try:
            request = json.loads(line)
            op, args = request["op"], request.get("args") or {}
            caller = str(request.get("caller") or "local")
            if inside_claude_code:
                caller = "agent:claude-code"
            if not isinstance(args, dict):
                raise InputError("args must be an object")
            args = codec.decode(args)
            if op == "ask" and args.pop("stream", False) and events is not None:
                args["events"] = events  # memory.thinking / memory.answered, no question text
            return {"ok": True, "result": codec.encode(self._dispatch(op, args, caller))}
        except VyreError as exc:  # a known failure: its own one line
            return {"ok": False, "error": exc.line(), "kind": type(exc).__name__}
        except Exception as exc:  # a bug: a reply, never a dead connection; logged in full
            self._note_error(exc)
            message = str(exc).splitlines()[0] if str(exc) else ""
            return {
                "ok": False,
                "error": f"the daemon failed ({type(exc).__name__}: {message}); see daemon.log",
                "kind": type(exc).__name__,
            }

    def _dispatch(self, op: str, args: dict, caller: str) -> Any:
        if op != "ping":
            self._verify_snapshot()
        if op == "ping":
            return {
                "pid": os.getpid(),
                "home": str(self.home),
                "version": __version__,
                "uptime_s": round(time.time() - self.started, 1),
            }
        if op == "status":  # at once: an ingest under way adds its counts when it ends
            with self._reading() as reads:
                sessions = reads.ledger.db.execute("SELECT count(*) FROM sessions").fetchone()[0]
                rooms = reads.reader.rooms()
            return {
                "pid": os.getpid(),
                "home": str(self.home),
                "root": str(self.root),
                "uptime_s": round(time.time() - self.started, 1),
                "sessions": sessions,
                "rooms": rooms,
                "main_graph": {
                    "derived": self._main.runs,
                    "last_s": round(self._main.last_seconds, 3),
                    "writer_held_s": round(self._main.held_seconds, 3),
                },
                **self._stats,
            }
        if op == "shutdown":
            self.stop.set()
            return {"stopping": True}
        if op == "cli":  # a read command, run here for a `vyre` that loads nothing
            from vyre.cli import served

            with self._reading() as reads:
                return served.run(
                    list(args["argv"]),
                    cwd=args["cwd"],
                    now=args.get("now"),
                    memory=_Beside(reads, self.live, self._writing, self._handed_ingest),
                )
        if op == "enrich":
            with self._reading() as reads:
                return context.enrich(reads, **args)
        if op == "brief":
            with self._reading() as reads:
                return context.brief(reads, **args)
        if op in ("deck", "deck_passkey"):
            return self._deck_url(op, caller)
        if op == "record":
            with self._hooks_lock:
                ledger = self._hooks_lane.ledger
                learn_hook.drain(ledger.db, str(self.home))
                context.record(ledger, **args)
            return True
        if op == "learn_record":
            with self._hooks_lock:
                ledger = self._hooks_lane.ledger
                learn_hook.drain(ledger.db, str(self.home))
                learn_hook.write_rows("", args["rows"], db=ledger.db)
                if args.get("tool"):
                    context.record(ledger, **args["tool"])
            return True
        if op == "learn_prompt":
            return self._quick(lambda: self._hooks_lane.on_prompt(**args), "")
        if op not in OPERATIONS:
            raise InputError(f"unknown operation {op!r}")
        if OPERATIONS[op].takes_caller:
            args["caller"] = caller  # the caller's own name, never what args claim
        else:
            args.pop("caller", None)
        if op == "ingest":
            return self._handed_ingest(args.get("root"))
        if OPERATIONS[op].read_only:
            with self._reading() as reads:
                return getattr(reads, op)(**args)
        with self._writing(force_main=op == "derive" and bool(args.get("force"))):
            return getattr(self.live, op)(**args)

    @contextlib.contextmanager
    def _writing(self, *, force_main: bool = False) -> Iterator[None]:
        """The writer's lock for a request that may change memory. When the request derived
        rooms, it is answered once they are served; the main graph follows beside the writer,
        and a read of the main graph after the reply waits for it (`_main_owed`), so every
        read after the reply reflects the change."""
        with self.lock:
            derives = self.live.derives
            yield
            stale = force_main or (self.live.derives != derives and self.live.main_stale)
            if stale:
                self._owed = self.live.derives
        if stale:
            self._main_due = self._main_stale_at = None
            self._main.want(force=force_main)

    def _handed_ingest(self, root: str | None) -> Ingested:
        """`vyre ingest` handed to the daemon. For the root it watches with the kernel's
        events, the files those say changed are all that can have new lines: they are read,
        not the whole root (30,000 stats and the files table). Another root, a watcher that
        polls, or a first ingest still to retry, is read whole as before."""
        given = Path(root) if root else self.root
        watcher = self._watcher
        with self._writing():
            if (
                watcher is None
                or not watcher.kernel
                or self._retry_all
                or os.path.realpath(given) != os.path.realpath(self.root)
            ):
                return self.live.ingest(given)
            done = self._ingest(sorted({*watcher.changes(), *self._retry}), handed=True)
            assert done is not None
            return done

    def _deck_url(self, op: str, caller: str) -> dict:
        """The Deck's sign-in URL (its web server starts on the first ask). A passkey code
        is for the owner at a terminal only: it is what makes the Deck trust a passkey."""
        from vyre.callers import require_owner

        if op == "deck_passkey":
            require_owner(caller)
        with self.lock:
            if self._deck is None:
                from vyre.deck.server import DeckServer
                from vyre.deck.views import Backend

                port = int(config.settings().get("deck.port") or 0)
                self._deck = DeckServer(
                    self.home, Backend(self.live, _Reusable(self._writing)), port=port
                )
                self._deck.start()
            deck = self._deck
        url = deck.passkey_url() if op == "deck_passkey" else deck.sign_in_url()
        return {"url": url, "port": deck.port}

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Memory]:
        """A reading memory for this request alone: its ledger connection and caches are
        kept for the next request, never shared by two at once."""
        with self._readers_lock:
            reads = self._readers.pop() if self._readers else None
        if reads is None:
            reads = self._new_reader()
        try:
            yield reads
        finally:
            with self._readers_lock:
                self._readers.append(reads)

    def _new_reader(self) -> Memory:
        """A reading memory whose reads of the main graph first wait (a while) for the main
        graph to show what a reply said was done."""
        return reading(self.live, before_main=self._main_owed)

    def _main_owed(self) -> None:
        if self._owed:
            self._main.wait_covering(self._owed, MAIN_WAIT_S)

    @property
    def _hooks_lane(self) -> Learn:
        if self._hooks is None:
            raise DaemonUnavailable("the daemon is not running")
        return self._hooks

    def _quick(self, work: Callable[[], str], empty: str) -> str:
        """For prompt hooks: the answer now, or nothing (never a slow prompt)."""
        if not self._hooks_lock.acquire(timeout=HOOK_WAIT_S):
            return empty
        try:
            return work()
        finally:
            self._hooks_lock.release()

    # -- watching ---------------------------------------------------------------------------

    def _verify_snapshot(self) -> None:
        """A lessons snapshot changed behind Vyre is a `tampered` signal and is rewritten,
        whenever the daemon is asked or looks (a stat; the file is hashed only when it moved)."""
        learn = self.live.learn
        if learn.snapshot_unmoved() or not self.lock.acquire(blocking=False):
            return  # a busy store: the next request or tick looks again
        try:
            learn.verify_snapshot()
        except Exception as exc:  # never the end of a request or of the daemon
            self._note_error(exc)
        finally:
            self.lock.release()

    def _watch(self, watcher: Watcher) -> None:
        self._stats["watching"] = "kernel events" if watcher.kernel else "polling"
        try:
            self._watch_with(watcher)
        finally:
            watcher.close()

    def _pause(self, watcher: Watcher) -> bool:
        """Until the next look (the kernel's next event, or `poll` seconds); False once the
        daemon is stopping."""
        if self.stop.is_set():
            return False
        if watcher.kernel:
            if watcher.wait(self.poll):
                time.sleep(SETTLE_S)
            return not self.stop.is_set()
        return not self.stop.wait(self.poll)

    def _watch_with(self, watcher: Watcher) -> None:
        while self._pause(watcher):
            self._verify_snapshot()
            # changes taken and read under one hold of the writer's lock: a handed ingest
            # never answers between the two, before lines taken here are read
            with self.lock:
                changed = watcher.changes()
                due = time.monotonic() >= self._retry_at
                if self._retry_all and due:
                    self._ingest(None)
                    continue
                if self._retry and due:
                    changed = sorted({*changed, *self._retry})
                if changed:
                    self._ingest(changed)
                    continue
            if self._main_due and time.monotonic() >= self._main_due:
                self._main_due = None
                self._main_stale_at = None
                self._main.want()  # in its own thread: the next line is read meanwhile

    def _main_now(self) -> None:
        try:
            self._main.run()
            self._main_due = None
        except Exception as exc:  # tried again later, never the end of the daemon
            self._main_failed(exc)

    def _main_failed(self, exc: BaseException) -> None:
        self._main_due = time.monotonic() + RETRY_MAX_S
        self._note_error(exc)

    def _ingest(self, paths: list[Path] | None, *, handed: bool = False) -> Ingested | None:
        """Read these files (None: the whole root), or keep them to read again later (a
        `handed` request is also told why it failed)."""
        try:
            with self.lock:
                done = self.live.ingest(self.root, paths=paths, main=paths is None)
                report, derived = done.report, done.derived
        except Exception as exc:  # a bad moment never kills the daemon: these files wait
            if paths is None:
                self._retry_all = True
            else:
                self._retry.update(paths)
            self._failures += 1
            self._retry_at = time.monotonic() + min(RETRY_MAX_S, self.poll * 2**self._failures)
            self._note_error(exc)
            if handed:
                raise
            return None
        if paths is None:
            self._retry_all = False
        self._retry.clear()
        self._failures = 0
        self._stats["ingests"] += 1
        self._stats["last_ingest"] = time.time()
        for reason, n in report.skipped.items():
            self._stats["skipped"][reason] = self._stats["skipped"].get(reason, 0) + n
        if derived.rooms:  # where the last new lines' time went, for `status` and bench/
            self._stats["last_derive"] = {"rooms": derived.rooms, **derived.seconds}
        if derived.main_stale:
            now = time.monotonic()
            if self._main_stale_at is None:
                self._main_stale_at = now
            late = now - self._main_stale_at >= MAIN_EVERY_S
            self._main_due = now + (MAIN_DELAY_S if late else MAIN_QUIET_S)
        if derived.rooms:
            trim_heap()  # the rows a derive dropped: otherwise they stay in the daemon's RSS
        return done

    def _note_error(self, exc: BaseException) -> None:
        """The error as one line for `status`, and in full on stderr (the daemon's log)."""
        line = exc.line() if isinstance(exc, VyreError) else str(exc).strip().split("\n")[0]
        self._stats["errors"] += 1
        self._stats["last_error"] = {"at": time.time(), "kind": type(exc).__name__, "error": line}
        traceback.print_exception(exc, file=self._log)
        self._log.flush()


class _Beside:
    """The daemon's memory for a served CLI command: what only reads comes from a reading
    memory beside the writer (never waiting for it); `ingest` is the daemon's handed ingest;
    anything else runs on the writer's memory under its lock."""

    def __init__(
        self,
        reads: Memory,
        live: Memory,
        writing: Callable[[], Any],
        ingest: Callable[[str | None], Ingested],
    ) -> None:
        self._reads, self._live, self._writing = reads, live, writing
        self._ingest = ingest

    def ingest(self, root: Path | None = None, *_: Any, **__: Any) -> Ingested:
        return self._ingest(str(root) if root else None)

    def __getattr__(self, name: str) -> Any:
        op = OPERATIONS.get(name)
        if op is not None and op.read_only:
            return getattr(self._reads, name)
        method = getattr(self._live, name)
        if not callable(method):
            return method

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._writing():
                return method(*args, **kwargs)

        return locked


class _Reusable:
    """A context manager made anew at each `with` (the Deck holds one lock object)."""

    def __init__(self, make: Callable[[], contextlib.AbstractContextManager]) -> None:
        self._make = make
        self._held = threading.local()

    def __enter__(self) -> None:
        held = self._make()
        held.__enter__()
        self._held.__dict__.setdefault("stack", []).append(held)

    def __exit__(self, *exc: Any) -> None:
        self._held.stack.pop().__exit__(*exc)
