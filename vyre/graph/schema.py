"""The graph schema: entities, turns, room-tagged facts and their evidence.

- `Entity` nodes are shared by every room; their id is a normalised key (`person:dana reyes`),
  so nothing about a room is stored on them. Labels live on each room's FACT edge: a room
  sees its own spelling of a shared name.
- `FACT` edges carry the room they belong to (`'*'` is the main graph), the relation, and the
  vote's outcome. `EVIDENCE` links a fact's subject to the turns that said it.
- `Room` nodes record the digest of the inputs each room was derived from, written in the
  same transaction as the room's rows.
"""

SCHEMA = [
    "CREATE NODE TABLE IF NOT EXISTS Entity(id STRING, kind STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS Turn("
    "id STRING, session STRING, seq INT64, ts TIMESTAMP, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS Room(id STRING, digest STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE IF NOT EXISTS FACT(FROM Entity TO Entity, "
    "id STRING, room STRING, rel STRING, subject_label STRING, object_label STRING, "
    "confidence DOUBLE, source STRING, valid_from TIMESTAMP, valid_to TIMESTAMP, "
    "seen TIMESTAMP, sessions INT64, rules STRING, status STRING)",
    "CREATE REL TABLE IF NOT EXISTS EVIDENCE(FROM Entity TO Turn, "
    "fact STRING, room STRING, rule STRING, quote STRING)",
]
