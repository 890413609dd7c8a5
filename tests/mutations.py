"""Mutated transcript lines, made from real ones, deterministically (a seeded random).

Every class is a way a line in `~/.claude/projects` can really go wrong (a writer killed
mid-line, an emoji cut in half, a newer Claude Code changing a field's type, a disk that
flips a byte) or a shape nobody expects. The reliability suite and `bench/mutations.py`
draw from them, and from the helpers below (a mutated copy of every source beside a reference
with the mutated lines left blank, and the comparison of the two); no mutated line is ever
stored in the repository.

    bad = mutate_line("lone surrogate", line, random.Random(7))  # None: does not apply
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

from vyre.extract import extract_draft
from vyre.ledger import Ledger
from vyre.transcripts import ingest
from vyre.transcripts.lines import EARLIEST, LATEST

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    d
    for d in (
        ROOT.parent / "shared" / "corpora" / "claude-code",
        ROOT / "eval/worlds/memory/transcripts",
    )
    if d.is_dir()
]
RATE = 0.06  # the share of lines mutated in each file

DEEP = 1_000  # levels of nesting: past orjson's limit, at the stdlib's
# How many times "Ab " a huge value repeats. The suite keeps these small: rule speed on long
# text is issue 7 item 3's, measured by its own benchmark; `bench/mutations.py` goes larger.
HUGE_REPEATS: tuple[int, ...] = (2_000, 8_000)

_ODD_VALUES: list = [
    None,
    True,
    0,
    -1,
    2**70,
    1.5e308,
    "",
    "x",
    [],
    [None],
    {},
    {"type": None},
    {"text": 5},
]

_BAD_TIMES = [
    "9999-12-31T23:00:00-05:00",
    "0001-01-01T00:30:00+01:00",
    "10000-01-01T00:00:00Z",
    "2026-13-45T99:99:99Z",
    "",
    "yesterday",
    1767225600,
    None,
    ["2026-01-01T00:00:00Z"],
]


def _dump(record) -> bytes:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )


def _strings(value, path=()) -> Iterator[tuple]:
    """Paths to every string leaf (keys of dicts, indexes of lists)."""
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, (*path, i))


def _nodes(value, path=()) -> Iterator[tuple]:
    """Paths to every value below the top."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*path, k)
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield (*path, i)
            yield from _nodes(v, (*path, i))


def _set(record, path: tuple, value) -> None:
    target = record
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def _get(record, path: tuple):
    for step in path:
        record = record[step]
    return record


def _text_blocks(record: dict) -> list[tuple]:
    """Paths of the blocks in message.content (when it is a list)."""
    content = (record.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [("message", "content", i) for i in range(len(content))]


# -- the classes: each takes (record, raw line, rng) and returns a mutated line or None --------


def lone_surrogate(record, line, rng):
    paths = list(_strings(record))
    if not paths:
        return None
    path = rng.choice(paths)
    text = _get(record, path)
    cut = rng.randint(0, len(text))
    half = rng.choice(["\ud83d", "\ude00", "\udfff", "\ud800"])
    _set(record, path, text[:cut] + half + text[cut:])
    # As a JavaScript writer emits it: an escaped lone half, the rest verbatim.
    return json.dumps(record, separators=(",", ":")).encode()


def deep_nesting(record, line, rng):
    nodes = list(_nodes(record))
    depth = rng.choice([DEEP - 10, DEEP, DEEP + 50, 5 * DEEP])
    # Written as text: the stdlib encoder itself stops near 1,000 levels.
    opens = "".join(rng.choice(["[", '{"a":']) for _ in range(depth))
    closes = "".join("]" if c == "[" else "}" for c in reversed(opens.replace('{"a":', "{")))
    deep = opens + rng.choice(["[]", "{}", '"x"']) + closes
    placeholder = "\u0000deep\u0000"
    if nodes and rng.random() < 0.8:
        _set(record, rng.choice(nodes), placeholder)
    else:
        record["deep"] = placeholder
    text = json.dumps(record, separators=(",", ":"))
    return text.replace(json.dumps(placeholder), deep, 1).encode()


def bad_timestamp(record, line, rng):
    record["timestamp"] = rng.choice(_BAD_TIMES)
    if record["timestamp"] is None and rng.random() < 0.5:
        del record["timestamp"]
    return _dump(record)


def no_timestamp(record, line, rng):
    if "timestamp" not in record:
        return None
    del record["timestamp"]
    return _dump(record)


def tool_result_types(record, line, rng):
    blocks = _text_blocks(record)
    results = [p for p in blocks if _get(record, p).get("type") == "tool_result"]
    if not results:
        return None
    block = _get(record, rng.choice(results))
    block["content"] = rng.choice(
        [
            [{"type": "text", "text": rng.choice(_ODD_VALUES)}],
            [rng.choice(_ODD_VALUES), {"type": "text", "text": "ok"}],
            rng.choice(_ODD_VALUES),
            [{"type": "image", "source": {"data": 5}}],
        ]
    )
    return _dump(record)


def message_types(record, line, rng):
    if "message" not in record:
        return None
    where = rng.choice(["message", "content", "block", "block-field", "id", "role"])
    message = record["message"]
    if where == "message" or not isinstance(message, dict):
        record["message"] = rng.choice([*_ODD_VALUES, "a string message", [{"text": "x"}]])
    elif where == "content":
        message["content"] = rng.choice(_ODD_VALUES)
    elif where == "id":
        message["id"] = rng.choice(_ODD_VALUES)
    elif where == "role":
        message["role"] = rng.choice(_ODD_VALUES)
    else:
        blocks = _text_blocks(record)
        if not blocks:
            message["content"] = [rng.choice(_ODD_VALUES)]
        elif where == "block":
            _set(record, rng.choice(blocks), rng.choice([*_ODD_VALUES, "text"]))
        else:
            block = _get(record, rng.choice(blocks))
            if isinstance(block, dict) and block:
                key = rng.choice([*sorted(block), "type", "text", "name", "input"])
                block[key] = rng.choice(_ODD_VALUES)
    return _dump(record)


def field_types(record, line, rng):
    key = rng.choice(
        [
            "type",
            "isSidechain",
            "isMeta",
            "isCompactSummary",
            "cwd",
            "sessionId",
            "uuid",
            "parentUuid",
            "summary",
            "toolUseResult",
            "agentId",
        ]
    )
    record[key] = rng.choice(_ODD_VALUES)
    return _dump(record)


def any_value(record, line, rng):
    """The fuzzer's class: any node replaced by a value of any other type."""
    nodes = list(_nodes(record))
    if not nodes:
        return None
    _set(record, rng.choice(nodes), rng.choice(_ODD_VALUES))
    return _dump(record)


def truncated(record, line, rng):
    if len(line) < 3:
        return None
    return line[: rng.randint(1, len(line) - 1)]


def byte_noise(record, line, rng):
    data = bytearray(line)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data))
        data[at] = rng.choice([0x00, 0xFF, 0xC3, 0xED, 0x22, 0x5C, 0x7B, 0x0D, rng.randrange(256)])
    return bytes(data).replace(b"\n", b" ")


def odd_framing(record, line, rng):
    choice = rng.randrange(6)
    if choice == 0:
        return b"\xef\xbb\xbf" + line  # a byte-order mark
    if choice == 1:
        return line + b"\r"  # CRLF endings
    if choice == 2:
        return b"  " + line + b"\t "
    if choice == 3:
        return line + line  # two records on one line
    if choice == 4:
        return b"\x00" * rng.randint(1, 64)  # a hole a crash left in the file
    return line[:-1] + b',"type":["x"]}'  # a duplicate key with a wrong type


def huge_values(record, line, rng):
    paths = list(_strings(record))
    if not paths:
        return None
    _set(record, rng.choice(paths), "Ab " * rng.choice(HUGE_REPEATS))
    return _dump(record)


CLASSES: dict[str, Callable] = {
    "lone surrogate": lone_surrogate,
    "deep nesting": deep_nesting,
    "bad timestamp": bad_timestamp,
    "no timestamp": no_timestamp,
    "tool result types": tool_result_types,
    "message types": message_types,
    "field types": field_types,
    "any value": any_value,
    "truncated": truncated,
    "byte noise": byte_noise,
    "odd framing": odd_framing,
    "huge values": huge_values,
}


def mutate_line(klass: str, line: bytes, rng: random.Random) -> bytes | None:
    """One mutation of a line (None when the class does not apply to it)."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    out = CLASSES[klass](record, line, rng)
    return None if out is None or b"\n" in out else out


# -- copies, reference runs and the comparison ----------------------------------------------


def source_files(sources: list[Path] | None = None) -> list[tuple[Path, list[bytes]]]:
    """(path under its source, lines) of every real and world transcript."""
    out = []
    for base in SOURCES if sources is None else sources:
        for path in sorted(base.rglob("*.jsonl")):
            out.append((Path(base.name) / path.relative_to(base), path.read_bytes().split(b"\n")))
    return out


def mutated_copies(tmp: Path, klasses: list[str], seed: str, rate: float = RATE, sources=None):
    """A mutated copy of every source under tmp/mutated and a reference (the mutated lines
    blank) under tmp/reference. Returns both roots and {session: {mutated line indexes}}."""
    rng = random.Random(seed)
    mutated_root, reference_root = tmp / "mutated", tmp / "reference"
    where: dict[str, set[int]] = {}
    for rel, lines in source_files(sources):
        out, ref = list(lines), list(lines)
        for i, line in enumerate(lines):
            if not line.strip() or rng.random() >= rate:
                continue
            bad = mutate_line(rng.choice(klasses), line, random.Random(rng.random()))
            if bad is not None:
                out[i], ref[i] = bad, b""
                where.setdefault(rel.stem, set()).add(i)
        for root, content in ((mutated_root, out), (reference_root, ref)):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"\n".join(content))
    return mutated_root, reference_root, where


def read_into(home: Path, root: Path):
    """Ingest root into a fresh ledger (no graph): the line path alone."""
    home.mkdir(parents=True)
    ledger = Ledger(home / "vyre.db")
    report = ingest(ledger, root, extract_draft)
    return ledger, report


def turns(ledger: Ledger) -> dict[tuple[str, int], tuple]:
    rows = ledger.db.execute("SELECT session, seq, by, kind, text, ts, msg FROM turns")
    return {(s, q): tuple(rest) for s, q, *rest in rows}


def lines_in(root: Path) -> int:
    return sum(
        1
        for path in root.rglob("*.jsonl")
        for line in path.read_bytes().split(b"\n")
        if line and not line.isspace()
    )


def compare(got: dict, want: dict, mutated: dict[str, set[int]]) -> tuple[list, list, list]:
    """(lost, doubled, extra). Lost: a reference turn not stored (a message's text may have
    gained a mutated line's part). Doubled: one message stored as several turns. Extra: a
    turn from a line nobody mutated."""
    by_msg: dict[tuple[str, str], list] = {}
    for (session, seq), (_, kind, text, _, msg) in got.items():
        if msg and kind == "text":
            by_msg.setdefault((session, msg), []).append((seq, text))
    doubled = sorted(k for k, v in by_msg.items() if len(v) > 1)
    lost = []
    for (session, seq), (by, kind, text, _, msg) in want.items():
        mine = got.get((session, seq))
        if mine and mine[:2] == (by, kind) and (mine[2] == text or (msg and text in mine[2])):
            continue
        joined = by_msg.get((session, msg), []) if msg else []
        if not any(text in t for _, t in joined):
            lost.append((session, seq, by, kind))
    extra = [k for k in got.keys() - want.keys() if k[1] not in mutated.get(k[0], set())]
    return lost, doubled, extra


def assert_stored_values_are_sane(got: dict) -> None:
    for (_, _), (by, kind, text, ts, msg) in got.items():
        assert isinstance(text, str) and isinstance(by, str) and isinstance(kind, str)
        assert msg is None or isinstance(msg, str)
        if ts is not None:
            assert EARLIEST <= datetime.fromisoformat(ts) < LATEST
