"""Claude Code transcripts: find them, read them incrementally, and say who wrote each turn."""

from vyre.transcripts.ingest import (
    MissingRoot,
    ingest,
    reextract,
    transcript_count,
    transcript_files,
)
from vyre.transcripts.workers import worker_count

__all__ = [
    "MissingRoot",
    "ingest",
    "reextract",
    "transcript_count",
    "transcript_files",
    "worker_count",
]
