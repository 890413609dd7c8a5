"""The daemon's watcher sees new and grown transcripts without stat'ing every file."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from vyre.daemon.watch import Watcher


def touch_old(path, days=2):
    old = time.time() - days * 86400
    os.utime(path, (old, old))


@pytest.mark.parametrize("kernel", [True, False], ids=["inotify", "polling"])
def test_new_files_appends_and_new_folders_are_seen(tmp_path, kernel):
    root = tmp_path / "projects"
    (root / "-w-a").mkdir(parents=True)
    old = root / "-w-a" / "s1.jsonl"
    old.write_text("{}\n")
    touch_old(old)
    watcher = Watcher(root, kernel=kernel)
    assert watcher.kernel == (kernel and sys.platform.startswith("linux"))
    assert watcher.changes() == []
    new = root / "-w-a" / "s2.jsonl"
    new.write_text("{}\n")
    assert watcher.changes() == [new]
    with new.open("a") as f:  # an append changes no folder: the file is hot
        f.write("{}\n")
    assert watcher.changes() == [new]
    sub = root / "-w-a" / "s2" / "subagents"
    sub.mkdir(parents=True)
    agent = sub / "agent-1.jsonl"
    agent.write_text("{}\n")
    assert watcher.changes() == [agent]
    other = root / "-w-b"
    other.mkdir()
    (other / "s3.jsonl").write_text("{}\n")
    assert watcher.changes() == [other / "s3.jsonl"]
    assert watcher.changes() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_an_append_to_a_file_idle_for_hours_is_seen_at_the_next_look(tmp_path, monkeypatch):
    """Polling sees a cold file's append only at its 10-second full scan; the kernel's events
    see it at once, with no full scan at all."""
    monkeypatch.setattr("vyre.daemon.watch.SAFETY_SCAN_S", 1e9)
    root = tmp_path / "projects"
    (root / "-w-a").mkdir(parents=True)
    path = root / "-w-a" / "s1.jsonl"
    path.write_text("{}\n")
    touch_old(path)
    watcher = Watcher(root)
    assert watcher.changes() == []
    with path.open("a") as f:
        f.write("{}\n")
    touch_old(path)  # and its time still says cold
    assert watcher.changes() == [path]
    assert watcher.changes() == []
    watcher.close()


def test_polling_catches_an_old_file_that_changes_at_the_full_scan(tmp_path, monkeypatch):
    root = tmp_path / "projects"
    (root / "-w-a").mkdir(parents=True)
    path = root / "-w-a" / "s1.jsonl"
    path.write_text("{}\n")
    touch_old(path)
    watcher = Watcher(root, kernel=False)
    with path.open("a") as f:
        f.write("{}\n")
    touch_old(path)  # looks cold: only the periodic full scan can see it
    assert watcher.changes() == []
    monkeypatch.setattr("vyre.daemon.watch.FULL_SCAN_S", 0.0)
    assert watcher.changes() == [path]


def test_a_missing_root_is_not_an_error(tmp_path):
    watcher = Watcher(tmp_path / "nope")
    assert watcher.changes() == []
    (tmp_path / "nope" / "-w").mkdir(parents=True)
    (tmp_path / "nope" / "-w" / "s.jsonl").write_text("{}\n")
    assert watcher.changes() == []  # the root itself appears: found at the next full scan


def test_wait_returns_as_soon_as_the_kernel_reports_a_change(tmp_path):
    """The daemon sleeps in `wait`: an append wakes it at once, not at the next look."""
    root = tmp_path / "projects"
    (root / "-w").mkdir(parents=True)
    path = root / "-w" / "s1.jsonl"
    path.write_text("{}\n")
    watcher = Watcher(root)
    try:
        if not watcher.kernel:
            pytest.skip("no inotify here: the watcher polls")
        watcher.changes()
        assert not watcher.wait(0.05)  # nothing happened: the whole timeout

        def append() -> None:
            with path.open("a") as f:
                f.write("{}\n")

        threading.Timer(0.2, append).start()
        started = time.monotonic()
        assert watcher.wait(30)
        assert time.monotonic() - started < 20
        assert watcher.changes() == [path]
    finally:
        watcher.close()
