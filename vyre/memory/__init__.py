"""Memory's read side: facts, about, why, relevant and the overview, decayed at read time."""

from vyre.memory.decay import ago, fresh, stale
from vyre.memory.read import Reader

__all__ = ["Reader", "ago", "fresh", "stale"]
