"""The memory graph: engine adapter, schema and queries. Nothing else imports the engine."""

from vyre.graph.engine import GraphBusy, GraphError, engine_name
from vyre.graph.store import EvidenceRow, FactRow, GraphStore, MainQueries, RoomRows

__all__ = [
    "EvidenceRow",
    "FactRow",
    "GraphBusy",
    "GraphError",
    "GraphStore",
    "MainQueries",
    "RoomRows",
    "engine_name",
]
