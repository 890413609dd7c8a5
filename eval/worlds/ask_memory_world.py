#!/usr/bin/env python3
"""The "memory" world's `ask` section: questions a person would ask their memory, checked
against the world's own transcripts every time the world is built.

`build_memory_world.py` calls `ask_section()` when it writes gold.json; run this file alone to
check the questions against the sessions as they are now (it prints what fails).

What must stay true (checked on every build; a problem fails the build, not the eval):
- Each question's `cwd` is in its room, and each source session is in that room.
- For an answerable question, every answer group has a string in the trusted text (what the
  person typed, the assistant's own text outside sidechains) of its source sessions, or, for
  a date, a weekday or month-day said in a source turn that means that date when said then
  ("due on Friday" said on Tuesday 2026-09-29 is 2026-10-02).
- For an abstain question, its `probe` (the tempting answer) is nowhere in the room's trusted
  text; `leak` probes are in another room's trusted text, `untrusted` ones in the room's
  untrusted text (tool output, subagents, injected or program text).
- Questions come in several phrasings of the same need, as people ask them: the point is the
  way people ask, not one sentence per fact.

Stdlib only, like the builder.
"""

from __future__ import annotations

import re
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_memory_world as w  # noqa: E402

KA, HL, BR, SD, SR, HOME, SCRATCH = w.KA, w.HL, w.BR, w.SD, w.SR, w.HOME, w.SCRATCH


def dates(d: str) -> list[str]:
    day = date.fromisoformat(d)
    month, mon = day.strftime("%B"), day.strftime("%b")
    return [d, f"{month} {day.day}", f"{day.day} {month}", f"{mon} {day.day}"]


# (room, cwd, question, answer groups, source session keys, kind)
ASK = [
    # keel-ash
    ("keel-ash", KA, "Who is the studio director?", [["Jonas Eberhardt"]],
     ["keel-ash/blog-redirects"], "who"),
    ("keel-ash", KA, "who's the studio director at Keel & Ash again?", [["Jonas Eberhardt"]],
     ["keel-ash/blog-redirects"], "who"),
    ("keel-ash", KA, "Who is our contact at Keel & Ash now?", [["Priya Anand"]],
     ["keel-ash/new-phase"], "who"),
    ("keel-ash", KA, "What is Priya Anand's job title?", [["project architect"]],
     ["keel-ash/new-phase"], "person"),
    ("keel-ash", KA, "what's priya's email?", [["priya@keelash.com"]],
     ["keel-ash/new-phase"], "person"),
    ("keel-ash", KA, "When does the site launch?", [dates("2026-10-09")],
     ["keel-ash/fee-form"], "date"),
    ("keel-ash", KA, "What did we decide about the old blog urls?", [["keep"]],
     ["keel-ash/blog-redirects"], "decision"),
    ("keel-ash", KA, "Which file maps the old tag pages to the new ones?",
     [["config/redirects.json"]], ["keel-ash/blog-redirects"], "file"),
    ("keel-ash", KA, "How many blog posts are there after the import?", [["54"]],
     ["keel-ash/blog-import"], "count"),
    ("keel-ash", KA, "Why did the gallery grid overflow on narrow screens?",
     [["320px", "320 px"]], ["keel-ash/gallery-grid"], "bug"),
    ("keel-ash", KA, "What do the fee form's deposits go through?", [["Ledgerline"]],
     ["keel-ash/fee-form"], "config"),
    # harlow
    ("harlow", HL, "who is the office manager at Harlow Legal?", [["Dana Reyes"]],
     ["harlow/directory-views"], "who"),
    ("harlow", HL, "Who is Harlow's managing partner?", [["Marcus Bell"]],
     ["harlow/kickoff"], "who"),
    ("harlow", HL, "When is the intranet launch due?", [dates("2026-10-02")],
     ["harlow/launch-checklist"], "date"),
    ("harlow", HL, "Why was the search indexer timing out?", [["2 second", "timeout"]],
     ["harlow/launch-checklist"], "bug"),
    ("harlow", HL, "How many people did the org chart import load?", [["37"]],
     ["harlow/org-chart"], "count"),
    # bramble
    ("bramble", BR, "Who is the clinical lead at Bramble Dental?", [["Helen Quist"]],
     ["bramble/kickoff"], "who"),
    ("bramble", BR, "When does the booking widget ship?", [dates("2026-10-01")],
     ["bramble/widget-deadline"], "date"),
    ("bramble", BR, "Where did we decide to host the booking app?", [["vps"]],
     ["bramble/deploy"], "decision"),
    ("bramble", BR, "Which variable sets the clinic name?", [["VITE_CLINIC_NAME"]],
     ["bramble/kickoff"], "config"),
    # summit-dental
    ("summit-dental", SD, "Who's the office coordinator at Summit Dental?", [["Lena Park"]],
     ["summit-dental/kickoff"], "who"),
    ("summit-dental", SD, "what's the deadline for the portal?", [dates("2026-10-14")],
     ["summit-dental/reminders"], "date"),
    # summit-roofing
    ("summit-roofing", SR, "Who is the estimator at Summit Roofing?", [["Joy Tran"]],
     ["summit-roofing/release-notes"], "who"),
    ("summit-roofing", SR, "When does the new quote form launch?", [dates("2026-10-20")],
     ["summit-roofing/release-notes"], "date"),
    ("summit-roofing", SR, "Which file holds the lead times?", [["quotes/src/lead_days.js"]],
     ["summit-roofing/lead-times"], "file"),
    # unfiled
    ("unfiled", SCRATCH, "Who is our new client?", [["Wrenfield Books"]],
     ["scratch/wrenfield-estimate"], "who"),
    ("unfiled", SCRATCH, "What's Owen Hart's email address?", [["owen@wrenfieldbooks.co.uk"]],
     ["scratch/wrenfield-estimate"], "person"),
    ("unfiled", SCRATCH, "How many days was the shop site estimate?", [["nine", "9"]],
     ["scratch/wrenfield-estimate"], "count"),
    # counts across sessions follow, in ASK_COUNTED
]

# Counts across sessions: (room, cwd, question, answer groups, source session keys, word).
# The count is no string said anywhere: it is how many times the sources say the event, so
# the check is that every source says its word, and that the sources are the room's every
# session that does (the events themselves are counted by hand in each session's `covers`).
ASK_COUNTED = [
    ("bramble", BR, "How many times did we deploy to staging?", [["4 times"]],
     ["bramble/staging-first", "bramble/reminder-email", "bramble/tests-then-staging"],
     "deployed to staging"),
    ("harlow", HL, "how often did the build break in September?", [["2 times", "twice"]],
     ["harlow/missing-migration", "harlow/lint-step"], "build fail"),
    ("bramble", BR, "how many times have I asked about the webhook secret?", [["2 times"]],
     ["bramble/reminder-email", "bramble/tests-then-staging"], "webhook secret"),
    ("summit-roofing", SR, "How many sessions did we spend on the quote pdf?", [["2 sessions"]],
     ["summit-roofing/pdf-overflow", "summit-roofing/deposit-pdf"], "quote pdf"),
]

# (room, cwd, question, why, kind, probe): probe is the tempting answer the checks look for
ASK_ABSTAIN = [
    ("keel-ash", KA, "who is the office manager at Harlow Legal?", "leak", "who", "Dana Reyes"),
    ("summit-dental", SD, "Who is the estimator at Summit Roofing?", "leak", "who", "Joy Tran"),
    ("harlow", HL, "What is Priya Anand's job title?", "leak", "person", "project architect"),
    ("bramble", BR, "When is the intranet launch due?", "leak", "date", None),
    ("keel-ash", KA, "Does Priya have a dog?", "unknown", "person", None),
    ("harlow", HL, "What is Marcus Bell's phone number?", "unknown", "person", None),
    ("unfiled", SCRATCH, "How much did Wrenfield Books pay for the site?", "unknown", "count",
     None),
    ("keel-ash", KA, "Who wrote the original theme?", "untrusted", "who", "Oskar Lindqvist"),
    ("keel-ash", KA, "Who has the most commits in the shortlog?", "untrusted", "who",
     "Pieter de Vries"),
    ("summit-roofing", SR, "Who is the contact at Ridgeback Supply?", "untrusted", "who",
     "Bruno Costa"),
    ("harlow", HL, "Who added the fixture loader?", "untrusted", "who", "Hana Kimura"),
    ("summit-roofing", SR, "Who reviews the release notes?", "untrusted", "who", "Felix Ober"),
    ("bramble", BR, "How many times did we deploy to production?", "unknown", "count", None),
]


# -- trusted and untrusted text, from the records as the builder writes them -----------------

_PROGRAM = ("<command-", "<local-command", "<bash-", "Caveat:", "[Request interrupted")


def _texts(lines: list[dict]) -> tuple[list[tuple[str, datetime]], list[str]]:
    """(trusted (text, time) turns, untrusted texts) of one session's records."""
    trusted, untrusted = [], []
    for rec in lines:
        msg = rec.get("message")
        if not isinstance(msg, dict) or rec.get("type") not in ("user", "assistant"):
            continue
        when = datetime.strptime(rec["timestamp"][:19], "%Y-%m-%dT%H:%M:%S")
        side = rec.get("isSidechain") or rec.get("isMeta") or rec.get("isCompactSummary")
        content = msg.get("content")
        if isinstance(content, str):
            text = re.sub(r"<system-reminder>.*?</system-reminder>", "", content, flags=re.S)
            bad = side or text.lstrip().startswith(_PROGRAM)
            (untrusted.append(content) if bad else trusted.append((text, when)))
            continue
        for block in content or []:
            if block.get("type") == "text":
                (untrusted.append(block["text"]) if side else trusted.append((block["text"], when)))
            elif block.get("type") == "tool_result":
                c = block.get("content")
                untrusted.append(c if isinstance(c, str) else str(c))
    return trusted, untrusted


def _corpus() -> dict[str, tuple[list[tuple[str, datetime]], list[str]]]:
    out = {}
    for s in w.SESSIONS:
        lines, subagents = s.build()
        trusted, untrusted = _texts(lines)
        for sub in subagents.values():
            untrusted += [t for t, _ in _texts(sub)[0]] + _texts(sub)[1]
        out[s.key] = (trusted, untrusted)
    return out


def _rooms_of(key: str) -> set[str]:
    s = next(s for s in w.SESSIONS if s.key == key)
    rooms = {p["slug"] for p in w.PROJECTS if key in p["picks"]}
    rooms |= {p["slug"] for p in w.PROJECTS if any(s.cwd == f or s.cwd.startswith(f + "/")
                                                   for f in p["folders"])}
    return rooms or {"unfiled"}


def _room_of_cwd(cwd: str) -> str:
    for p in w.PROJECTS:
        if any(cwd == f or cwd.startswith(f + "/") for f in p["folders"]):
            return p["slug"]
    return "unfiled"


def _has(text: str, phrase: str) -> bool:
    return " ".join(phrase.casefold().split()) in " ".join(text.casefold().split())


_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def _said_as_weekday(turns: list[tuple[str, datetime]], day: date) -> bool:
    """A weekday said in a turn that means `day`: the next such day after the turn's date."""
    for text, when in turns:
        for i, name in enumerate(_WEEKDAYS):
            if re.search(rf"\b{name}\b", text, re.I):
                ahead = (i - when.date().weekday()) % 7 or 7
                if when.date() + timedelta(days=ahead) == day:
                    return True
    return False


def problems() -> list[str]:
    corpus = _corpus()
    out = []
    keys = {s.key for s in w.SESSIONS}
    room_trusted: dict[str, str] = {}
    room_untrusted: dict[str, str] = {}
    for key, (trusted, untrusted) in corpus.items():
        for room in _rooms_of(key):
            room_trusted[room] = room_trusted.get(room, "") + "\n" + "\n".join(t for t, _ in trusted)
            room_untrusted[room] = room_untrusted.get(room, "") + "\n" + "\n".join(untrusted)
    for room, cwd, q, groups, sources, _kind in ASK:
        if _room_of_cwd(cwd) != room:
            out.append(f"ask {q!r}: cwd {cwd} is not in room {room}")
        for k in sources:
            if k not in keys:
                out.append(f"ask {q!r}: no session {k}")
            elif room not in _rooms_of(k):
                out.append(f"ask {q!r}: source {k} is not in room {room}")
        turns = [t for k in sources if k in corpus for t in corpus[k][0]]
        text = "\n".join(t for t, _ in turns)
        for g in groups:
            if any(_has(text, a) for a in g):
                continue
            iso = next((a for a in g if re.fullmatch(r"\d{4}-\d{2}-\d{2}", a)), None)
            if iso and _said_as_weekday(turns, date.fromisoformat(iso)):
                continue
            out.append(f"ask {q!r}: no string of {g} in the trusted text of {sources}")
    for room, cwd, q, _groups, sources, word in ASK_COUNTED:
        if _room_of_cwd(cwd) != room:
            out.append(f"ask {q!r}: cwd {cwd} is not in room {room}")
        for k in sources:
            if k not in keys or room not in _rooms_of(k):
                out.append(f"ask {q!r}: source {k} is not a session of room {room}")
            elif not any(_has(t, word) for t, _ in corpus[k][0]):
                out.append(f"ask {q!r}: source {k} never says {word!r}")
    for room, cwd, q, why, _kind, probe in ASK_ABSTAIN:
        if _room_of_cwd(cwd) != room:
            out.append(f"ask {q!r}: cwd {cwd} is not in room {room}")
        if why not in ("leak", "unknown", "untrusted"):
            out.append(f"ask {q!r}: why {why!r}")
        if probe is None:
            continue
        if _has(room_trusted.get(room, ""), probe):
            out.append(f"ask {q!r} ({why}): {probe!r} is in the room's trusted text")
        if why == "untrusted" and not _has(room_untrusted.get(room, ""), probe):
            out.append(f"ask {q!r}: {probe!r} is not in the room's untrusted text either")
        if why == "leak" and not any(_has(t, probe) for r, t in room_trusted.items() if r != room):
            out.append(f"ask {q!r}: {probe!r} is not said in any other room")
    return out


def ask_section() -> list[dict]:
    """The `ask` list for gold.json; raises when a question no longer holds."""
    found = problems()
    if found:
        raise AssertionError("ask questions no longer hold:\n  " + "\n  ".join(found))
    out = []
    for i, (room, cwd, q, groups, sources, kind) in enumerate(ASK, 1):
        out.append({"id": f"Q{i}", "room": room, "cwd": cwd, "question": q, "answer": groups,
                    "sources": [w.session_id(k) for k in sources], "kind": kind})
    for j, (room, cwd, q, why, kind, _probe) in enumerate(ASK_ABSTAIN, len(out) + 1):
        out.append({"id": f"Q{j}", "room": room, "cwd": cwd, "question": q, "abstain": True,
                    "why": why, "kind": kind})
    for j, (room, cwd, q, groups, sources, _word) in enumerate(ASK_COUNTED, len(out) + 1):
        out.append({"id": f"Q{j}", "room": room, "cwd": cwd, "question": q, "answer": groups,
                    "sources": [w.session_id(k) for k in sources], "kind": "count"})
    return out


if __name__ == "__main__":
    found = problems()
    total = len(ASK) + len(ASK_COUNTED) + len(ASK_ABSTAIN)
    print("\n".join(found) if found else f"{total} ask questions hold")
    sys.exit(1 if found else 0)
