"""Ingest the real Claude Code transcripts nobody here wrote (../shared/corpora)."""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS, require_shared
from vyre.api import Memory
from vyre.transcripts import transcript_files


@pytest.fixture(autouse=True)
def corpus():
    return require_shared(CORPUS)


def test_every_real_file_ingests_and_turns_are_classified(vyre_home):
    with Memory() as memory:
        done = memory.ingest(CORPUS)
        report, derived = done.report, done.derived
        counts = memory.ledger.turn_counts()
    assert report.files == len(transcript_files(CORPUS)) == 36
    assert report.read == 33  # the three 0-byte files have nothing to read
    assert sum(report.skipped.values()) == 0
    # Who wrote what, counted by hand from the files: typed prompts are few; tool output,
    # commands, caveats, skill text and the compaction summary are never the person.
    assert counts == {"person": 26, "agent": 799, "tool": 521, "program": 31}
    assert report.records == 3410
    assert derived.rooms == ["unfiled"]


def test_a_second_ingest_reads_nothing_new(vyre_home):
    with Memory() as memory:
        memory.ingest(CORPUS)
        done = memory.ingest(CORPUS)
        again, derived = done.report, done.derived
    assert again.turns == 0 and again.read == 0
    assert derived.rooms == []
