"""Finding transcript files that changed, cheaply enough to look whenever the kernel says so.

On Linux the kernel says what changed (inotify, through libc with ctypes): one watch per
folder under the root, an event for every append, new file and new folder; `wait` returns as
soon as one arrives. Appending to a file nobody touched for hours is seen at once, and a look
at a quiet home reads nothing but an empty queue: no `stat` of 30,000 files. A full scan runs
at the start, when the kernel's queue overflowed, and every 15 minutes as a safety net.

Elsewhere (or when the kernel refuses more watches) it polls:
- folders are watched by their mtime, which changes when a file is created or removed in
  them, and only a changed folder is listed again;
- files written in the last 15 minutes are "hot" and stat'ed every time (appends do not
  change a folder's mtime);
- everything is scanned again every 10 seconds, to catch what the above could miss.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct
import sys
import time
from pathlib import Path

HOT_S = 15 * 60
FULL_SCAN_S = 10.0  # polling
SAFETY_SCAN_S = 15 * 60.0  # with inotify

# inotify(7)
_IN_MODIFY = 0x002
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_FROM = 0x040
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ISDIR = 0x40000000
_IN_ONLYDIR = 0x01000000
_MASK = (
    _IN_MODIFY
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_ONLYDIR
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then the name, NUL-padded)


class _Inotify:
    """The kernel's file events for a set of folders (Linux only)."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc's among them
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._rm = libc.inotify_rm_watch
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.folders: dict[int, str] = {}  # watch descriptor -> folder

    def watch(self, folder: str) -> None:
        wd = self._add(self.fd, os.fsencode(folder), _MASK)
        if wd < 0:
            code = ctypes.get_errno()
            if code in (errno.ENOENT, errno.ENOTDIR):
                return  # gone already
            raise OSError(code, f"inotify_add_watch {folder}")
        self.folders[wd] = folder

    def events(self) -> list[tuple[str, int, str]]:
        """(folder, mask, name) for everything since the last call; never blocks."""
        out: list[tuple[str, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            offset = 0
            while offset < len(data):
                wd, mask, _, size = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size
                name = os.fsdecode(data[offset : offset + size].rstrip(b"\0"))
                offset += size
                if mask & _IN_Q_OVERFLOW:
                    out.append(("", mask, ""))
                elif mask & _IN_IGNORED:
                    self.folders.pop(wd, None)
                elif wd in self.folders:
                    out.append((self.folders[wd], mask, name))

    def close(self) -> None:
        os.close(self.fd)


class Watcher:
    def __init__(self, root: Path, *, kernel: bool = True):
        self.root = str(root)
        self.files: dict[str, tuple[int, int]] = {}
        self.dirs: dict[str, int] = {}
        self._events: _Inotify | None = None
        if kernel and sys.platform.startswith("linux"):
            try:
                self._events = _Inotify()
            except (OSError, AttributeError):
                self._events = None
        self.files, self.dirs = self._scan_all()
        self._full_at = time.monotonic()

    @property
    def kernel(self) -> bool:
        """Whether the kernel tells us of changes (else we poll)."""
        return self._events is not None

    def close(self) -> None:
        if self._events is not None:
            self._events.close()
            self._events = None

    def wait(self, timeout: float) -> bool:
        """Until the kernel reports a change, or `timeout` seconds (polling: the timeout);
        whether a change was reported. A new line is then read the moment it is written,
        not at the next look."""
        if self._events is None:
            time.sleep(timeout)
            return False
        try:
            ready, _, _ = select.select([self._events.fd], [], [], timeout)
        except (OSError, ValueError):  # closed meanwhile
            return False
        return bool(ready)

    def changes(self) -> list[Path]:
        """Files that are new or changed since the last call."""
        every = SAFETY_SCAN_S if self._events is not None else FULL_SCAN_S
        if time.monotonic() - self._full_at >= every:
            files, dirs = self._scan_all()
            self._full_at = time.monotonic()
        elif self._events is not None:
            files, dirs = self._from_events()
            if files is self.files:  # a quiet queue: nothing to compare 30,000 files with
                return []
        else:
            files, dirs = self._poll()
        changed = [Path(p) for p, s in files.items() if self.files.get(p) != s]
        self.files, self.dirs = files, dirs
        return sorted(changed)

    def _from_events(self) -> tuple[dict, dict]:
        assert self._events is not None
        events = self._events.events()
        if not events:
            return self.files, self.dirs
        files, dirs = dict(self.files), dict(self.dirs)
        for folder, mask, name in events:
            if not folder:  # the kernel's queue overflowed: look at everything
                self._full_at = 0.0
                continue
            path = os.path.join(folder, name) if name else folder
            if mask & _IN_ISDIR:
                if mask & (_IN_CREATE | _IN_MOVED_TO):
                    self._list(path, files, dirs, deep=True)
                elif mask & (_IN_DELETE | _IN_MOVED_FROM):
                    self._forget(path, files, dirs)
            elif mask & _IN_DELETE_SELF:
                self._forget(folder, files, dirs)
            elif name.endswith(".jsonl"):
                if mask & (_IN_DELETE | _IN_MOVED_FROM):
                    files.pop(path, None)
                else:
                    now = _stat(path)
                    if now is None:
                        files.pop(path, None)
                    else:
                        files[path] = now
        if self._full_at == 0.0:
            return self._scan_all()
        return files, dirs

    def _poll(self) -> tuple[dict, dict]:
        files, dirs = dict(self.files), dict(self.dirs)
        for folder, mtime in self.dirs.items():
            now = _mtime(folder)
            if now is None:
                dirs.pop(folder, None)
            elif now != mtime:
                self._list(folder, files, dirs)
        hot = time.time() - HOT_S
        for path, stat in self.files.items():
            if stat[1] / 1e9 >= hot or path not in files:
                seen = _stat(path)
                if seen is None:
                    files.pop(path, None)
                else:
                    files[path] = seen
        return files, dirs

    def _scan_all(self) -> tuple[dict, dict]:
        files: dict[str, tuple[int, int]] = {}
        dirs: dict[str, int] = {}
        if os.path.isdir(self.root):
            self._list(self.root, files, dirs, deep=True)
        return files, dirs

    def _forget(self, folder: str, files: dict, dirs: dict) -> None:
        prefix = folder.rstrip("/") + "/"
        for d in [d for d in dirs if d == folder or d.startswith(prefix)]:
            dirs.pop(d)
        for f in [f for f in files if f.startswith(prefix)]:
            files.pop(f)

    def _list(self, folder: str, files: dict, dirs: dict, *, deep: bool = False) -> None:
        """List one folder into files and dirs (and, new or deep, the folders below it)."""
        mtime = _mtime(folder)
        if mtime is None:
            return
        if self._events is not None and folder not in self.dirs:
            try:
                self._events.watch(folder)
            except OSError:  # out of watches: poll from here on
                self._events.close()
                self._events = None
        dirs[folder] = mtime
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if deep or entry.path not in dirs:
                        self._list(entry.path, files, dirs, deep=deep)
                elif entry.name.endswith(".jsonl"):
                    st = entry.stat()
                    files[entry.path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                continue


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns
