"""Finding transcript files that changed, cheaply enough to look five times a second.

A full scan stats every file (50 ms for 10,000 sessions): too much to repeat all day. So:
- folders are watched by their mtime, which changes when a file is created or removed in
  them, and only a changed folder is listed again;
- files written in the last 15 minutes are "hot" and stat'ed every time (appends do not
  change a folder's mtime);
- everything is scanned again every 10 seconds, to catch what the above could miss.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

HOT_S = 15 * 60
FULL_SCAN_S = 10.0


class Watcher:
    def __init__(self, root: Path):
        self.root = str(root)
        self.files: dict[str, tuple[int, int]] = {}
        self.dirs: dict[str, int] = {}
        self._full_at = 0.0
        self.files, self.dirs = self._scan_all()
        self._full_at = time.monotonic()

    def changes(self) -> list[Path]:
        """Files that are new or changed since the last call."""
        if time.monotonic() - self._full_at >= FULL_SCAN_S:
            files, dirs = self._scan_all()
            self._full_at = time.monotonic()
        else:
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
        changed = [Path(p) for p, s in files.items() if self.files.get(p) != s]
        self.files, self.dirs = files, dirs
        return sorted(changed)

    def _scan_all(self) -> tuple[dict, dict]:
        files: dict[str, tuple[int, int]] = {}
        dirs: dict[str, int] = {}
        if os.path.isdir(self.root):
            self._list(self.root, files, dirs, deep=True)
        return files, dirs

    def _list(self, folder: str, files: dict, dirs: dict, *, deep: bool = False) -> None:
        """List one folder into files and dirs (and, new or deep, the folders below it)."""
        mtime = _mtime(folder)
        if mtime is None:
            return
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
