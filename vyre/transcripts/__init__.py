"""Claude Code transcripts: find them, read them incrementally, and say who wrote each turn."""

from vyre.transcripts.ingest import MissingRoot, ingest, reextract, transcript_files

__all__ = ["MissingRoot", "ingest", "reextract", "transcript_files"]
