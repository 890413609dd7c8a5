"""Memory's read side: facts, about, why, relevant and the overview (`read.Reader`), decayed
at read time (`decay`), and said as sentences (`text`). Importing the package loads only the
decay arithmetic: the CLI prints ages without loading the graph."""

from vyre.memory.decay import ago, fresh, stale

__all__ = ["ago", "fresh", "stale"]
