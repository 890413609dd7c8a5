"""The memory graph: engine adapter, schema and queries. Nothing else imports the engine."""

from vyre.graph.engine import GraphBusy, GraphDamaged, GraphError, buffer_pool, engine_name
from vyre.graph.store import (
    EvidenceRow,
    FactRow,
    GraphStore,
    MainInput,
    RoomRows,
    RoomState,
    one_kind_per_entity,
)

__all__ = [
    "EvidenceRow",
    "FactRow",
    "GraphBusy",
    "GraphDamaged",
    "GraphError",
    "GraphStore",
    "MainInput",
    "RoomRows",
    "RoomState",
    "buffer_pool",
    "engine_name",
    "one_kind_per_entity",
]
