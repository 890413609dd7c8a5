"""Claude Code transcripts: find them, read them incrementally, and say who wrote each turn."""

from vyre.transcripts.ingest import IngestReport, MissingRoot, ingest, reextract, transcript_files

__all__ = ["IngestReport", "MissingRoot", "ingest", "reextract", "transcript_files"]
