"""The daemon's own files in the home (`daemon.lock`, `daemon.log`), opened safely.

A file in the home is opened with O_NOFOLLOW and chmodded through its descriptor, so a
symbolic link planted at its name (pointing at the user's ~/.bashrc, say) is refused in one
line and its target is never written or chmodded; a file that is not a regular file of this
user's is refused too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from vyre.errors import DaemonControlError


def open_private(path: Path, flags: int) -> int:
    """A descriptor for one of the home's own files, created 0600, never through a link."""
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if path.is_symlink():
            raise DaemonControlError(
                f"refused: {path} is a symbolic link (someone may have planted it); remove it"
            ) from None
        raise DaemonControlError(f"cannot open {path}: {exc.strerror}") from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        os.close(fd)
        raise DaemonControlError(f"refused: {path} is not a file of this user's; remove it")
    os.fchmod(fd, 0o600)
    return fd
