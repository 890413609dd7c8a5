"""The schema of one graph file: a room's entities, facts and evidence.

- Each room is a file of its own (`GraphStore`), so nothing is shared between rooms' files:
  an `Entity` node here is the room's own (its id is a normalised key, `person:dana reyes`).
- `FACT` edges carry their room (`'*'` is the main graph), the relation and the vote's
  outcome. `EVIDENCE` is a loop on a fact's subject carrying the turn that said it (its
  session, seq and time) and the fact's relation: a turn is a value of its evidence, not a
  node, because a node table costs every file (below) and nothing walks from a turn.
- The file's own values are `Entity` rows under ids no entity has (an entity's id starts
  with its kind, a word), their kind being the value: `#schema` the schema's version,
  `#room:<room>` the digest of the inputs the file was derived from (a file of another room
  holds no digest of this one). What the main graph reads from each room is kept beside the
  files (`GraphStore.keep_input`), not in them: the main graph's file holds its own rows
  only, so writing it costs what the main graph holds.
  A file of another version is not migrated: the graph is derived, so it is written again
  from the ledger.
- Every node table costs each open of a file, its write and its close a primary-key hash
  index (the engine builds 256 sub-indices for each, however few rows it holds), so the
  file has one node table. Version 3 had a `Room` table for the digest, version 4 a `Meta`
  table (a small room's file opened to be read 12.1 -> 10.0 ms of CPU, written 34.6 -> 33.7
  ms, measured once by hand). Version 5 has no `Turn` table: bench/graphfile.py, old and new
  alternating (2 rounds of 11, load 7, LadybugDB, CPU ms): the bundled world's smallest room
  written 32.0/26.4 -> 22.9/23.5, opened for its state 19.1/14.4 -> 11.7/11.3, read whole
  24.4/18.7 -> 15.1/15.4; its main graph written 47.8/34.2 -> 28.4/28.6. Version 6 has no
  `Meta` table (bench/graphfile.py, old and new alternating, 6 rounds of 11, load 2-2.6,
  medians of the rounds' medians): small room written 24.9 -> 21.4, opened for its state
  11.3 -> 8.8, read whole 17.3 -> 13.2; the main graph written 34.4 -> 30.0.
- Edges are stored from their start only (`storage_direction = 'fwd'`): every read walks
  from a fact's subject, and a file is written whole and never changed, so no edge is
  looked up from its end (the engine refuses a node's delete without the backward copy).
  Both engines then write half the edge pages: a small room's file costs about a fifth less
  CPU to write (version 3; version 2 kept both directions).
"""

SCHEMA_VERSION = "6"
_FORWARD = " WITH (storage_direction = 'fwd')"

SCHEMA = [
    "CREATE NODE TABLE Entity(id STRING, kind STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE FACT(FROM Entity TO Entity, "
    "id STRING, room STRING, rel STRING, subject_label STRING, object_label STRING, "
    "confidence DOUBLE, source STRING, valid_from TIMESTAMP, valid_to TIMESTAMP, "
    "seen TIMESTAMP, sessions INT64, rules STRING, status STRING)" + _FORWARD,
    "CREATE REL TABLE EVIDENCE(FROM Entity TO Entity, "
    "fact STRING, room STRING, rel STRING, rule STRING, quote STRING, "
    "session STRING, seq INT64, ts TIMESTAMP)" + _FORWARD,
]
