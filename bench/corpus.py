"""Synthetic Claude Code transcripts for benchmarking Vyre Memory's ingest.

Writes ``<root>/<cwd-slug>/<session-uuid>.jsonl`` files shaped like the ones Claude Code keeps
under ``~/.claude/projects``: one JSON record a line, the same record types, envelope fields and
ordering, and subagent transcripts under ``<session>/subagents/agent-<id>.jsonl``.

The mix mirrors the real transcripts in ``shared/corpora/claude-code`` (3,410 lines measured):
progress 52% (hook_progress 44, bash_progress 7, agent_progress 1), assistant 25% (one content
block a line, several lines sharing a ``message.id``), user 17% (tool results 15, typed prompts
and meta 2), then file-history-snapshot, attachment and system about 1% each and a few
queue-operation, permission-mode, last-prompt and summary lines. Real lines have a median of
650 bytes and a mean of 1.4 kB: progress lines are ~630 bytes, tool results carry the bulk.

Three eras follow Claude Code's history over the 18 months before 2026-10-01: ``legacy`` (1.0
and early 2.0: ``summary`` lines, hooks as subtype-less ``system`` lines, no progress),
``progress`` (2.1: hook/bash/agent progress, ``slug``) and ``attachment`` (late 2.1: hook output
and context as ``attachment`` records, ``permission-mode``, ``last-prompt``, ``entrypoint``).

Each project (cwd ``/home/bench/work/p<NN>``) is a small world: a code base, 1 to 3 orgs, 3 to
8 people with roles and email addresses, repos, features and a hook setup. The world depends
on the project number only, so ``append_session`` adds sessions about the same people to a
corpus made with any seed. Typed prompts and replies mix plain coding talk with talk about
that cast; about 10% of sessions run in unfiled cwds such as ``/home/bench``.

Usage: ``python bench/corpus.py OUT [--sessions N] [--projects P] [--seed S]``
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import random
import re
import string
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

END = datetime(2026, 10, 1, tzinfo=UTC)
START = datetime(2025, 4, 1, tzinfo=UTC)
PROGRESS_FROM = datetime(2025, 10, 1, tzinfo=UTC)
ATTACHMENT_FROM = datetime(2026, 4, 1, tzinfo=UTC)
UNFILED_CWDS = ("/home/bench", "/home/bench", "/home/bench/Downloads", "/home/bench/scratch")
UNFILED_SHARE = 0.10
SUBAGENT_SHARE = 0.05
MIN_LINES, MAX_LINES = 20, 300

# --------------------------------------------------------------------------- name pools


def words(text: str) -> tuple[str, ...]:
    """A pool written as one string of space-separated words."""
    return tuple(text.split())


def phrases(text: str) -> tuple[str, ...]:
    """A pool written as one string of comma-separated phrases."""
    return tuple(part.strip() for part in text.split(","))


FIRST_NAMES = words(
    "Dana Priya Marcus Elena Tomasz Aisha Jonah Mei Rafael Ingrid Kwame Sofia Declan Yuki Omar "
    "Beatriz Lena Theo Nadia Gareth Ines Malik Freya Arjun Colette Diego Hana Felix Zora Emeka "
    "Lucia Rowan Anika Silas Maren Idris Clara Tobias Leila Bram Noor Caleb Astrid Mateo Wren "
    "Kofi Greta Ravi Simone Hugo June Farid Esme Nico Talia Oskar Amara Jasper Linnea Paulo "
    "Ruth Desmond Ayla Viktor Imani Soren Keiko Ezra Mira Lorenzo Tess Anders Chioma Rhys "
    "Ottilie"
)
LAST_NAMES = words(
    "Reyes Shah Okafor Lindqvist Kowalski Haddad Mercer Tanaka Alvarez Brennan Osei Novak "
    "Fitzgerald Moreau Castillo Whitfield Nakamura Petrov Achebe Sorensen Delgado Kaur Hollis "
    "Abara Ferreira Quinn Varga Ibrahim Ashworth Lindgren Mensah Rocha Thorne Iyer Calloway "
    "Dubois Ncube Hartley Vasquez Olsen Bianchi Kimura Forde Adeyemi Strand Marsh Kovac Pereira "
    "Lowell Nair Greaves Sato Oduya Halvorsen Brandt Ellison Mwangi Carvalho Pike Rasmussen "
    "Doyle Aziz"
)
ROLES = phrases(
    "office manager, practice manager, CTO, head of operations, lead designer, product owner, "
    "founder, bookkeeper, IT contractor, marketing lead, clinic director, project architect, "
    "data analyst, account manager, QA lead, operations coordinator, managing partner, "
    "front-desk lead, engineering manager, support lead, finance director, site lead, "
    "paralegal, head of sales"
)
ORG_STEMS = phrases(
    "Northwind, Harlow, Bramblewood, Cinderford, Juniper, Larkspur, Meridian, Oakhurst, "
    "Pelican Bay, Quarryside, Redfern, Saltmarsh, Tamarack, Vesper, Willow Creek, Yarrow, "
    "Alder Street, Birch Point, Copperline, Driftwood, Foxglove, Granite Peak, Heron, Ironbark, "
    "Kestrel, Lantern, Mosswood, Nettlefield, Orchard Lane, Pinecrest, Silverleaf, Thistle, "
    "Wexford, Tidewater"
)
ORG_PAIRS = phrases(
    "Keel & Ash, Finch & Fable, Stone & Sparrow, Rook & Reed, Moss & Mortar, Hatch & Hollow, "
    "Pike & Pine, Bell & Birch, Cask & Compass, Field & Forge"
)
ORG_SUFFIXES = phrases(
    "Dental, Legal, Architects, Bakery, Veterinary Clinic, Logistics, Analytics, Labs, "
    "Partners, Studio, Outfitters, Coffee Roasters, Brewing Co., Physiotherapy, Realty, "
    "Insurance Group, Accounting, Foundation, Press, Inc., LLC, Health, Builders, Landscaping, "
    "Pediatrics, Consulting, Supply Co."
)
TLDS = words(".com .com .com .co .io .org .net .studio .co.uk")
PRODUCTS = words(
    "intake-forms booking-api invoice-sync patient-portal menu-builder site-planner "
    "shipment-tracker payroll-bridge case-files donor-crm class-scheduler quote-engine "
    "inventory-hub route-optimizer review-digest lease-manager clinic-dashboard ticket-desk "
    "grant-tracker fleet-log"
)
FEATURES = phrases(
    "appointment reminders, invoice export, intake form, PDF reports, CSV import, login page, "
    "search filters, nightly backup, SMS notifications, calendar sync, price list, "
    "onboarding email, audit log, dashboard charts, booking widget, inventory count, "
    "timesheet approval, Stripe webhooks, password reset flow, waitlist, referral tracking, "
    "staff rota, document upload, customer portal"
)
NOUNS = words(
    "invoice patient booking record payload batch config token session reminder report tenant "
    "client order shipment visit quote lease ticket schedule account upload export event member "
    "route payment"
)
VERBS = words(
    "load parse build sync fetch render validate normalize export schedule merge resolve format "
    "apply collect refresh send match"
)
WEEKDAYS = words("Monday Tuesday Wednesday Thursday Friday")
MONTHS = words(
    "January February March April May June July August September October November December"
)
HOOK_COMMANDS = {
    "guard": (
        "$CLAUDE_PROJECT_DIR/.claude/hooks/guard-bash.sh",
        "~/.claude/hooks/no-force-push.sh",
        "python3 ~/.claude/hooks/check_command.py",
    ),
    "format": (
        "$CLAUDE_PROJECT_DIR/.claude/hooks/format.sh",
        "~/.claude/hooks/lint-changed.sh",
        "npx prettier --write --log-level warn",
    ),
    "log": ("~/.claude/hooks/log-tool.sh", "~/.claude/hooks/pane-title.sh busy"),
    "notify": ("~/.claude/hooks/pane-title.sh idle", "~/.claude/hooks/notify-desktop.sh"),
    "start": (
        "~/.claude/hooks/pane-title.sh reset",
        "$CLAUDE_PROJECT_DIR/.claude/hooks/context.sh",
        "~/.claude/hooks/load-notes.sh",
    ),
}
SLUG_WORDS = words(
    "quiet lexical amber brisk woven painting whisper sparking wall shimmying copper drifting "
    "lantern meadow folding tidal velvet orbit"
)
B62 = string.ascii_letters + string.digits

# --------------------------------------------------------------------------- small helpers


def new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def api_id(rng: random.Random, prefix: str, n: int = 22) -> str:
    return prefix + "".join(rng.choices(B62, k=n))


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def cwd_slug(cwd: str) -> str:
    """Claude Code's folder name for a cwd: every non-alphanumeric becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def kebab(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("&", "and")).strip("-")


def camel(*words: str) -> str:
    return words[0] + "".join(w.title() for w in words[1:])


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def numbered(lines: list[str], first: int = 1) -> str:
    """Lines as the Read tool shows them: right-aligned number, arrow, text."""
    return "\n".join(f"{first + i:>6}→{line}" for i, line in enumerate(lines))


# --------------------------------------------------------------------------- eras


@dataclass(frozen=True)
class Era:
    name: str
    versions: tuple[str, ...]
    models: tuple[str, ...]
    progress: bool
    attachments: bool


LEGACY = Era(
    "legacy",
    ("1.0.51", "1.0.72", "1.0.98", "1.0.120", "2.0.14", "2.0.31"),
    ("claude-sonnet-4-20250514", "claude-opus-4-1-20250805"),
    False,
    False,
)
PROGRESS = Era(
    "progress",
    ("2.0.55", "2.1.9", "2.1.17", "2.1.31", "2.1.39", "2.1.52"),
    ("claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929"),
    True,
    False,
)
ATTACHMENT = Era(
    "attachment",
    ("2.1.84", "2.1.101", "2.1.114", "2.1.140", "2.1.177"),
    ("claude-opus-4-6", "claude-sonnet-4-5-20250929"),
    True,
    True,
)


def era_at(t: datetime) -> Era:
    if t < PROGRESS_FROM:
        return LEGACY
    return PROGRESS if t < ATTACHMENT_FROM else ATTACHMENT


# --------------------------------------------------------------------------- project worlds


@dataclass(frozen=True)
class Org:
    name: str
    domain: str
    handle: str


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    role: str
    org: Org
    email: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


@dataclass(frozen=True)
class Lang:
    name: str
    ext: str
    test_cmd: str
    lint_cmd: str
    type_cmd: str
    add_cmd: str
    linter: str
    pkgs: tuple[str, ...]


PYTHON = Lang(
    "python",
    "py",
    "uv run pytest -q",
    "uv run ruff check .",
    "uv run mypy src",
    "uv add",
    "ruff",
    (
        "httpx",
        "pydantic",
        "sqlalchemy",
        "fastapi",
        "click",
        "rich",
        "polars",
        "alembic",
        "jinja2",
        "tenacity",
    ),
)
TYPESCRIPT = Lang(
    "typescript",
    "ts",
    "npm test",
    "npx eslint .",
    "npx tsc --noEmit",
    "npm install",
    "eslint",
    (
        "zod",
        "date-fns",
        "prisma",
        "express",
        "vitest",
        "dayjs",
        "axios",
        "tailwindcss",
        "pino",
        "ky",
    ),
)


@dataclass
class Hooks:
    """Which hook commands run, keyed by event and tool name ('*' matches every tool)."""

    start: tuple[str, ...] = ()
    prompt: tuple[str, ...] = ()
    stop: tuple[str, ...] = ()
    pre: dict[str, tuple[str, ...]] = field(default_factory=dict)
    post: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def for_tool(self, table: dict[str, tuple[str, ...]], tool: str) -> tuple[str, ...]:
        return table.get(tool, ()) + table.get("*", ())

    def merged(self, other: Hooks) -> Hooks:
        def join(a: dict, b: dict) -> dict:
            return {k: a.get(k, ()) + b.get(k, ()) for k in a.keys() | b.keys()}

        return Hooks(
            self.start + other.start,
            self.prompt + other.prompt,
            self.stop + other.stop,
            join(self.pre, other.pre),
            join(self.post, other.post),
        )


# The bench user's own ~/.claude/settings.json hooks, set up when Claude Code 2 came out; every
# project's own .claude/settings.json adds to them.
USER_HOOKS = Hooks(
    start=("~/.claude/hooks/pane-title.sh reset",),
    stop=("~/.claude/hooks/pane-title.sh idle",),
    pre={
        "Bash": (
            "~/.claude/hooks/no-force-push.sh",
            "python3 ~/.claude/hooks/check_command.py",
            "~/.claude/hooks/pane-title.sh busy",
        )
    },
    post={"*": ("~/.claude/hooks/log-tool.sh", "~/.claude/hooks/pane-title.sh busy")},
)


@dataclass
class Project:
    cwd: str
    lang: Lang
    product: str
    package: str
    orgs: list[Org]
    people: list[Person]
    repos: list[str]
    features: list[str]
    files: dict[str, str]
    funcs: list[str]
    classes: list[str]
    tests: list[str]
    hooks: Hooks

    @property
    def slug(self) -> str:
        return cwd_slug(self.cwd)

    def source_files(self) -> list[str]:
        return [p for p in self.files if "test" not in p and not p.endswith(".md")]

    def test_files(self) -> list[str]:
        return [p for p in self.files if "test" in p]


def make_org(rng: random.Random) -> Org:
    stem = rng.choice(ORG_PAIRS) if rng.random() < 0.25 else rng.choice(ORG_STEMS)
    suffix = rng.choice(ORG_SUFFIXES)
    base = kebab(stem).replace("-", "")
    word = re.sub(r"[^a-z]", "", suffix.split()[0].lower())
    if word not in ("inc", "llc") and rng.random() < 0.5:
        base += word
    return Org(f"{stem} {suffix}", base + rng.choice(TLDS), kebab(stem))


def make_person(rng: random.Random, org: Org, taken: set[str]) -> Person:
    while True:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if first not in taken:
            break
    taken.add(first)
    local = rng.choice((first, f"{first}.{last}", f"{first[0]}{last}")).lower()
    return Person(first, last, rng.choice(ROLES), org, f"{local}@{org.domain}")


def make_hooks(rng: random.Random) -> Hooks:
    """A project's own hooks: none, a guard and a formatter, or a spotter-like heavy setup."""
    level = rng.choices(("none", "light", "heavy"), weights=(25, 40, 35))[0]
    if level == "none":
        return Hooks()

    def pick(kind: str, lo: int, hi: int) -> tuple[str, ...]:
        return tuple(rng.choice(HOOK_COMMANDS[kind]) for _ in range(rng.randint(lo, hi)))

    if level == "light":
        return Hooks(pre={"Bash": pick("guard", 0, 1)}, post={"Edit": pick("format", 1, 2)})
    fmt = pick("format", 3, 6)
    return Hooks(
        start=pick("start", 1, 3),
        prompt=pick("log", 0, 1),
        stop=pick("notify", 0, 2),
        pre={
            "Bash": pick("guard", 2, 3),
            "Edit": pick("guard", 1, 2),
            "Write": pick("guard", 0, 2),
        },
        post={"Edit": fmt, "Write": fmt, "Bash": pick("log", 1, 1)},
    )


def build_world(rng: random.Random, cwd: str, n_orgs: int, n_people: int) -> Project:
    lang = PYTHON if rng.random() < 0.6 else TYPESCRIPT
    product = rng.choice(PRODUCTS)
    orgs = [make_org(rng) for _ in range(n_orgs)]
    taken: set[str] = set()
    people = [
        make_person(rng, orgs[0] if i < 2 else rng.choice(orgs), taken) for i in range(n_people)
    ]
    repos = [f"https://github.com/{orgs[0].handle}/{product}"]
    if rng.random() < 0.5:
        extra = rng.choice(("shared-types", "infra"))
        repos.append(f"https://github.com/{orgs[-1].handle}/{extra}")
    project = Project(
        cwd,
        lang,
        product,
        product.replace("-", "_"),
        orgs,
        people,
        repos,
        rng.sample(FEATURES, 6),
        {},
        [],
        [],
        [],
        make_hooks(rng),
    )
    fill_code_base(rng, project)
    return project


def build_project(number: int) -> Project:
    """The world of project p<NN>: depends on the number only."""
    rng = random.Random(f"vyre-bench/project/{number}")
    cwd = f"/home/bench/work/p{number:02d}"
    return build_world(rng, cwd, rng.randint(1, 3), rng.randint(3, 8))


def build_unfiled(cwd: str, projects: list[Project]) -> Project:
    """A home-folder world: a few people of its own, plus guests from filed projects."""
    rng = random.Random(f"vyre-bench/unfiled/{cwd}")
    world = build_world(rng, cwd, 1, rng.randint(2, 3))
    for guest_project in rng.sample(projects, min(2, len(projects))):
        world.people.append(rng.choice(guest_project.people))
    return world


# --------------------------------------------------------------------------- code bases

PY_HEADER = (
    "from __future__ import annotations\n\nimport asyncio\nimport logging\n"
    "from collections.abc import Iterable\n\nlogger = logging.getLogger(__name__)\n"
)
PY_BLOCKS = (
    '''def $fn($arg: $typ) -> str:
    """$doc."""
    $var = $arg.get("$key")
    if $var is None:
        raise ValueError(f"missing $key for {$arg!r}")
    return str($var).strip()
''',
    '''def $fn(items: list[$cls], *, limit: int = $num) -> list[$cls]:
    """$doc."""
    out: list[$cls] = []
    for item in items:
        if not item.$key:
            continue
        out.append(item)
        if len(out) >= limit:
            break
    return out
''',
    '''class $cls:
    """$doc."""

    def __init__(self, $arg: $typ, timeout: float = $num.0) -> None:
        self.$arg = $arg
        self.timeout = timeout
        self._cache: dict[str, $typ] = {}

    def $fn(self, key: str) -> $typ | None:
        if key in self._cache:
            return self._cache[key]
        value = self.$arg.get(key)
        self._cache[key] = value
        return value
''',
    '''async def $fn(client: $cls, $arg: str) -> dict[str, object]:
    """$doc."""
    for attempt in range($num):
        try:
            response = await client.get(f"/$key/{$arg}")
            response.raise_for_status()
            return response.json()
        except TimeoutError:
            await asyncio.sleep(2**attempt)
    raise RuntimeError("$key request kept timing out")
''',
    '''def $fn(rows: Iterable[dict[str, str]]) -> int:
    """$doc."""
    total = 0
    for row in rows:
        $var = row.get("$key", "").strip()
        if $var:
            total += int($var)
    logger.debug("$fn: %d rows", total)
    return total
''',
)
PY_TEST = """def test_${fn}_$case() -> None:
    $var = $fn($value)
    assert $var == $expected
"""
TS_HEADER = 'import { z } from "zod";\nimport { logger } from "./logger";\n'
TS_BLOCKS = (
    """export function $fn($arg: $typ): string {
  const $var = $arg["$key"];
  if ($var === undefined) {
    throw new Error(`missing $key for $${JSON.stringify($arg)}`);
  }
  return String($var).trim();
}
""",
    """export interface $cls {
  id: string;
  $key: string;
  createdAt: Date;
  tags: string[];
}
""",
    """export async function $fn(client: HttpClient, $arg: string): Promise<$cls> {
  for (let attempt = 0; attempt < $num; attempt++) {
    try {
      const res = await client.get(`/$key/$${$arg}`);
      return $cls.parse(await res.json());
    } catch (err) {
      logger.warn({ err, attempt }, "$fn failed");
      await sleep(2 ** attempt * 100);
    }
  }
  throw new Error("$key request kept failing");
}
""",
    """export class $cls {
  private cache = new Map<string, $typ>();

  constructor(private readonly $arg: $typ, private timeoutMs = ${num}000) {}

  $fn(key: string): $typ | undefined {
    if (this.cache.has(key)) return this.cache.get(key);
    const value = this.$arg[key as keyof $typ];
    this.cache.set(key, value as $typ);
    return value as $typ;
  }
}
""",
    """export const $var = z.object({
  id: z.string().uuid(),
  $key: z.string().min(1),
  total: z.number().nonnegative(),
  updatedAt: z.coerce.date(),
});
""",
)
TS_TEST = """test("$fn handles $case", () => {
  const $var = $fn($value);
  expect($var).toEqual($expected);
});
"""
CASES = ("empty_input", "unicode", "missing_key", "large_batch", "duplicates", "none")


def code_names(rng: random.Random, lang: Lang, noun: str) -> dict[str, str]:
    verb, other = rng.choice(VERBS), rng.choice(NOUNS)
    snake = lang is PYTHON
    return {
        "fn": f"{verb}_{noun}" if snake else camel(verb, noun),
        "cls": noun.title() + rng.choice(("Store", "Client", "Service", "Record", "Batch")),
        "arg": other if snake else camel(other, "data"),
        "var": f"{noun}_{rng.choice(('id', 'rows', 'value'))}" if snake else camel(noun, "id"),
        "typ": rng.choice(
            ("dict[str, str]", "Mapping[str, int]", "Config")
            if snake
            else ("Record<string, string>", "Config", "Payload")
        ),
        "key": rng.choice(NOUNS) + rng.choice(("_id", "_name", "_at", "")),
        "num": str(rng.randint(2, 50)),
        "doc": f"{verb.title()} the {noun} {rng.choice(('rows', 'payload', 'cache', 'batch'))}",
    }


def make_source(rng: random.Random, lang: Lang, nouns: list[str]) -> tuple[str, list[dict]]:
    """A source file of 3 to 13 functions or classes, and the names drawn for each."""
    blocks = PY_BLOCKS if lang is PYTHON else TS_BLOCKS
    parts = [PY_HEADER if lang is PYTHON else TS_HEADER]
    drawn = [code_names(rng, lang, rng.choice(nouns)) for _ in range(rng.randint(5, 22))]
    parts += [string.Template(rng.choice(blocks)).substitute(names) for names in drawn]
    return "\n\n".join(parts), drawn


def make_tests(rng: random.Random, project: Project) -> str:
    python = project.lang is PYTHON
    template = PY_TEST if python else TS_TEST
    parts = ["import pytest\n" if python else 'import { expect, test } from "vitest";\n']
    for _ in range(rng.randint(3, 12)):
        fn, case = rng.choice(project.funcs), rng.choice(CASES)
        project.tests.append(f"test_{fn}_{case}" if python else f"{fn} handles {case}")
        parts.append(
            string.Template(template).substitute(
                fn=fn,
                case=case,
                var="result",
                value=rng.choice(('""', "{}", "[]", '"ü"', "None")),
                expected=rng.choice(('""', "[]", "0", "None", "{}")),
            )
        )
    return "\n\n".join(parts)


def make_readme(rng: random.Random, project: Project) -> str:
    owner, client = project.people[0], project.orgs[0]
    lines = [
        f"# {project.product}",
        "",
        f"Internal tool built for {client.name} ({client.domain}).",
        f"Maintainer: {owner.full} <{owner.email}>, {owner.role}.",
        "",
        "## Setup",
        "",
        "```",
        project.lang.add_cmd,
        project.lang.test_cmd,
        "```",
        "",
        "## Contacts",
        "",
    ]
    lines += [f"- {p.full}, {p.role} at {p.org.name}: {p.email}" for p in project.people]
    lines += ["", f"Source: {project.repos[0]}", ""]
    return "\n".join(lines)


def fill_code_base(rng: random.Random, project: Project) -> None:
    nouns = rng.sample(NOUNS, 8)
    ext = project.lang.ext
    for noun in nouns[: rng.randint(5, 8)]:
        if project.lang is PYTHON:
            path = f"src/{project.package}/{noun}s.py"
        else:
            path = f"src/{camel(noun, rng.choice(('service', 'store', 'routes')))}.ts"
        project.files[path], drawn = make_source(rng, project.lang, nouns)
        project.funcs += [names["fn"] for names in drawn]
        project.classes += [names["cls"] for names in drawn]
    for noun in nouns[:4]:
        path = f"tests/test_{noun}s.py" if ext == "py" else f"src/__tests__/{noun}s.test.ts"
        project.files[path] = make_tests(rng, project)
    project.files["README.md"] = make_readme(rng, project)


# --------------------------------------------------------------------------- talk

ENTITY_PROMPTS = (
    "{p}, the {p_role} at {p_org}, asked for {feature}. Can you add it to {file}? It's {due}.",
    "Got an email from {p_email}: {p_first} says the {feature} is broken on mobile. Take a look?",
    "{p} from {p_org} wants {feature} before the launch; {o} {launch}. What's the smallest "
    "change that gets us there?",
    "Can you push this branch to {repo} and open a PR? Tag {q} for review.",
    "Update the footer so it links to {p_site}/privacy and lists {p_email} as the contact.",
    "Context: {p} ({p_role}, {p_org}) and {q} from {q_org} agreed to drop {feature2} for now. "
    "Remove the flag and the dead code behind it.",
    "{q} said the {feature} numbers for {o} look off since the last deploy. Can you check {func} "
    "in {file}?",
    "Draft a short release note for {p} at {p_org} covering {feature} and {feature2}. Keep it "
    "non-technical, it {launch}.",
    "Write a seed script with {o} as the demo tenant: {o_domain} as the domain and {p} as the "
    "admin user ({p_email}).",
    "The webhook from {o_domain} returns 401 again. {p_first} rotated the key on {date}. Where "
    "do we read it?",
    "Clone {repo} next to this one; {q_first} moved the shared types there. Then fix the imports.",
    "Reminder: {p}, {p_role} at {p_org}, needs the export as CSV, not XLSX. It's {due}.",
    "{p_first} at {p_org} forwarded a bug report from {q}: the {feature} page times out with "
    "more than {n} rows.",
    "Add {q_email} to the CC list of the nightly report and drop {p_email}; {p_first} left "
    "{p_org} last week.",
    "We're onboarding {o2} next. {q}, their {q_role}, is the main contact. Make the tenant "
    "config support a second org.",
    "Prep a demo of {feature} for {p} and {q} on {weekday}. Seed data should look like {o}.",
    "{p_first} wants a weekly digest emailed to {p_email} every {weekday} morning. Can we reuse "
    "the {feature} job?",
    "Is {o_site} still pointing at the old server? {q} from {q_org} can't log in since {date}.",
    "Call notes: {p} ({p_org}) confirmed the {feature} {launch}. {q} will do the UAT, so give "
    "{q_first} a staging login ({q_email}).",
    "{p_org} is renewing for another year. {p_first} asked for an invoice line for {feature}; "
    "add it to the billing export.",
    "Please open an issue in {repo} for the {feature} regression and assign it to {q_first}. "
    "The fix is {due}.",
    "{q}, who runs IT for {q_org}, says our emails land in spam. Check the SPF setup for "
    "{o_domain}.",
    "Move {p_email} from the admin list to the viewers list; {p}, the new {q_role}, "
    "takes over admin. Actually, make that {q} ({q_email}).",
    "The contract with {o} says data stays in the EU. {p_first} from their side wants written "
    "confirmation {due}. Where do we store uploads?",
    "{p} and {q} both reported the {feature} bug; it only hits accounts on {o_domain}.",
    "Mirror {repo} to our account and wire CI the same way {q_first} set up {feature2}.",
)
CODE_PROMPTS = (
    "The test {test} fails after the refactor. Can you figure out why?",
    "Refactor {func} in {file}; it's doing too much. Split the parsing from the IO.",
    "Add type hints to {file} and make {linter} happy.",
    "Why is `{cmd}` so slow? It takes {n} seconds on my machine.",
    "Rename {cls} to {cls2} everywhere, including the tests.",
    "Can you add a retry with exponential backoff around {func}?",
    "There's an off-by-one in the pagination in {file}. Page 2 repeats the last row of page 1.",
    "Write tests for {func}: cover the empty input and the unicode case.",
    "Remove the unused imports and dead code in {module}.",
    "Bump {pkg} to the latest version and fix whatever breaks.",
    "What does {func} actually return when the cache is cold?",
    "Make the {feature} endpoint return 404 instead of 500 when the id is unknown.",
    "Run the test suite and fix anything red.",
    "Explain how {cls} and {cls2} interact, I'm lost.",
    "{func} is called twice per request according to the logs. Can you find out why?",
    "Move the config loading out of {module} into its own module and add a test.",
    "I'm getting `{error}` when I run `{cmd}`. Any idea?",
    "Let's add a `--dry-run` flag to the CLI that prints what {func} would do.",
    "Can you add logging around {func} so we can see the slow calls?",
    "Set up a pre-commit config with {linter} and the type checker.",
    "The {feature} query does N+1 selects. Batch it.",
    "Make {func} pure: pass the clock in instead of calling now() inside.",
    "Add a migration that backfills the new column for existing rows, in batches of {n}.",
    "Cache the result of {func} for five minutes, keyed by tenant.",
    "Can we drop {pkg}? I think only {module} uses it.",
    "Write a small benchmark for {func} with {n} rows and print the p50 and p95.",
    "The CI job is flaky on {test}; make it deterministic.",
    "Split {file} into two modules; it's over {n} lines.",
    "Add input validation to {func} and return a 422 with the field name.",
    "Document the {feature} flow in the README with a short sequence diagram.",
)
FOLLOW_UPS = (
    "ok",
    "yes, go ahead",
    "looks good, commit it",
    "try again but keep the public API the same",
    "hmm, that broke {test}",
    "can you also update the README",
    "continue",
    "perfect, thanks",
    "no, revert that",
    "why did you change {file}?",
    "run the tests again",
    "push it",
    "what about the edge case where {func} gets an empty list?",
    "do the same for {module}",
    "use {pkg} for that instead",
    "shorter please",
    "ship it",
    "wait, does {func2} still work?",
)
STEP_TEXTS = (
    "Let me look at {file} first.",
    "I'll run the tests to see where we are.",
    "Now let me check where {func} is called.",
    "Let me read the test file as well.",
    "Found it: {func} reads the config before the environment is loaded.",
    "The build passes. Running the full suite now.",
    "Let me update the test to match.",
    "I'll search for other uses of {cls}.",
    "That import is unused; removing it.",
    "Checking the git history for {file}.",
    "Now the type checker.",
    "I'll add {p_email} to the recipients in {file}.",
    "Let me see how the {o} tenant is set up.",
    "The failure is in {test}; the fixture still builds the old {cls}.",
    "Two call sites left. Updating {file2} next.",
    "Lint is clean. Committing.",
    "{func} swallows the exception, which is why the logs were empty.",
    "The {feature} route builds the query by hand; switching it to the helper.",
    "Let me check what {p_first} asked for in the README before changing the wording.",
    "I'll keep `{func2}` as a thin wrapper so existing callers don't break.",
)
EXPLANATIONS = (
    "{cls} owns the connection and hands out short-lived sessions; {cls2} only sees a session "
    "and never opens its own. That is why the tests pass a fake into {func} instead of "
    "patching the module.",
    "The slow part is not the query but the serialization: {func} turns every row into a dict "
    "and back. Streaming the rows cuts the time roughly in half on {n} rows.",
    "There are two config paths: environment variables win over the file, and {module} reads "
    "the file at import time. Moving the read into a function fixes the ordering problem.",
    "The retry only wraps the request, not the parse, so a truncated body fails at once. I "
    "kept it that way on purpose: retrying a parse error would hide real bugs.",
)
CHANGES = (
    "Split `{func}` into `{func2}` and a pure helper in `{file}`",
    "Added {n} tests in `{testfile}`",
    "Fixed the off-by-one in `{func}`",
    "Renamed `{cls}` to `{cls2}` and updated the call sites",
    "Moved the config loading into its own module",
    "Wrapped `{func}` in a retry with backoff",
    "Removed dead code from `{module}`",
    "Returned 404 for unknown ids in the {feature} route",
    "Bumped `{pkg}` and fixed the one breaking change",
    "Added structured logging around `{func}`",
    "Batched the {feature} query (one select instead of one per row)",
    "Passed the clock into `{func}` so the tests can freeze time",
    "Validated input in `{func}` and return 422 with the field name",
    "Documented the {feature} flow in the README",
)
OPENERS = (
    "Done. Summary of the changes:",
    "Here's what changed:",
    "All set.",
    "Finished. Changes:",
    "That's in. What I did:",
)
ENTITY_CLOSERS = (
    "You can let {p_first} know the {feature} is ready for {p_org} to try.",
    "I haven't pushed to {repo} yet; say the word and I'll open the PR and tag {q}.",
    "The seed data now uses {o} ({o_domain}) with {p} as the admin.",
    "I drafted the note for {p}; it mentions that {o} {launch}.",
    "{q_email} is on the CC list now and {p_email} is gone.",
    "If {q} from {q_org} still can't log in after the deploy, it's the DNS for {o_domain}.",
    "The release note for {p}, {p_role} at {p_org}, is in `docs/release-notes.md`.",
)
CODE_CLOSERS = (
    "All {n} tests pass and {linter} is clean.",
    "Want me to commit this?",
    "One thing to watch: `{func}` still hits the network in the tests.",
    "I left `{func2}` alone since nothing calls it with a list.",
    "The type checker is happy; I didn't touch the public signatures.",
)
THOUGHTS = (
    "The user wants {feature}. I should look at {file} to see how the current flow works.",
    "The failing test is {test}. Probably {func} changed its return type in the refactor.",
    "{p} from {p_org} is the one asking, so the output should be readable by a non-developer.",
    "Let me check whether {cls} is used anywhere else before renaming it.",
    "The error mentions {error}. That usually means the config isn't loaded yet.",
    "I need to keep the public API stable. {func2} is exported, so I'll only change internals.",
    "Running `{cmd}` first will show what's broken before I touch anything.",
    "There might be a second caller in {file2}; grep before editing.",
    "The deadline matters here: it's {due}, so the smallest safe change wins.",
    "A migration would be cleaner, but backfilling in the request path is risky with {n} rows.",
    "The user said to keep {module} untouched, so the fix has to live in {file}.",
)
ERRORS = (
    "KeyError: 'tenant_id'",
    "TypeError: 'NoneType' object is not subscriptable",
    "ModuleNotFoundError: No module named 'settings'",
    "sqlite3.OperationalError: database is locked",
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "ECONNREFUSED 127.0.0.1:5432",
    "AssertionError: assert 3 == 2",
    "ZodError: Required",
    "ValueError: invalid literal for int() with base 10: ''",
    "TimeoutError: read timed out",
)
SUBJECTS = (
    "Re: {feature} for {p_org}",
    "Quick question about the {feature}",
    "Launch checklist",
    "Fwd: bug on the {feature} page",
    "Notes from {weekday}'s call",
    "Re: Re: {o} rollout",
)


class Ctx(dict):
    """Template context drawn lazily: each placeholder is picked on first use, then kept.

    ``p`` and ``q`` are two different people of the world (``p_first``, ``p_role``, ``p_org``,
    ``p_email``, ``p_site``), ``o`` and ``o2`` its orgs (``o_domain``, ``o_site``); dates are
    drawn in the weeks after ``today``, the session's day.
    """

    def __init__(self, rng: random.Random, world: Project, today: datetime) -> None:
        super().__init__()
        self.rng, self.world, self.today = rng, world, today

    def __missing__(self, key: str) -> str:
        value = self.make(key)
        self[key] = value
        return value

    def person(self, slot: str) -> Person:
        chosen = self.get("@" + slot)
        if chosen is None:
            people = self.world.people
            if slot == "q":
                people = [p for p in people if p is not self.person("p")]
            chosen = self.rng.choice(people)
            self["@" + slot] = chosen
        return chosen

    def org(self, slot: str) -> Org:
        chosen = self.get("@" + slot)
        if chosen is None:
            orgs = self.world.orgs
            if slot == "o2" and len(orgs) > 1:
                orgs = [o for o in orgs if o is not self.org("o")]
            chosen = self.rng.choice(orgs)
            self["@" + slot] = chosen
        return chosen

    def make(self, key: str) -> str:
        slot, _, attr = key.partition("_")
        if slot in ("p", "q"):
            person = self.person(slot)
            return {
                "": person.full,
                "first": person.first,
                "role": person.role,
                "org": person.org.name,
                "email": person.email,
                "site": "https://" + person.org.domain,
            }[attr]
        if slot in ("o", "o2"):
            org = self.org(slot)
            return {"": org.name, "domain": org.domain, "site": "https://" + org.domain}[attr]
        return getattr(self, "make_" + key)()

    def pick(self, items: list[str] | tuple[str, ...]) -> str:
        return self.rng.choice(items)

    def make_repo(self) -> str:
        return self.pick(self.world.repos)

    def make_feature(self) -> str:
        return self.pick(self.world.features)

    def make_feature2(self) -> str:
        return self.pick([f for f in self.world.features if f != self["feature"]])

    def make_file(self) -> str:
        return self.pick(self.world.source_files())

    make_file2 = make_file

    def make_testfile(self) -> str:
        return self.pick(self.world.test_files())

    def make_module(self) -> str:
        return Path(self.make_file()).stem

    def make_func(self) -> str:
        return self.pick(self.world.funcs)

    make_func2 = make_func

    def make_cls(self) -> str:
        return self.pick(self.world.classes)

    def make_cls2(self) -> str:
        return self.make_cls() + "V2"

    def make_test(self) -> str:
        return self.pick(self.world.tests)

    def make_cmd(self) -> str:
        return self.pick((self.world.lang.test_cmd, self.world.lang.lint_cmd))

    def make_pkg(self) -> str:
        return self.pick(self.world.lang.pkgs)

    def make_linter(self) -> str:
        return self.world.lang.linter

    def make_product(self) -> str:
        return self.world.product

    def make_n(self) -> str:
        return str(self.rng.choice((2, 3, 5, 12, 40, 200, 1500)))

    def make_error(self) -> str:
        return self.pick(ERRORS)

    def make_weekday(self) -> str:
        return self.pick(WEEKDAYS)

    def make_date(self) -> str:
        day = self.today + timedelta(days=self.rng.randint(-20, 60))
        return f"{MONTHS[day.month - 1]} {day.day}"

    def make_due(self) -> str:
        day, date = self.pick(WEEKDAYS), self.make_date()
        return self.pick(
            (
                f"due on {day}",
                f"due {day}",
                f"due by {date}",
                f"due next {day}",
                f"due before the {ordinal(self.rng.randint(1, 28))}",
                "due at the end of the month",
                f"due on {date}",
            )
        )

    def make_launch(self) -> str:
        date, year = self.make_date(), self.today.year
        return self.pick(
            (
                f"launches {date}",
                f"goes live on {date}",
                f"ships {self.pick(WEEKDAYS)}",
                f"launches on {date}, {year}",
            )
        )


class Talk:
    """Words for one session: prompts, replies, thinking, commit messages, pasted text."""

    def __init__(self, rng: random.Random, world: Project, today: datetime) -> None:
        self.rng, self.world, self.today = rng, world, today

    def ctx(self) -> Ctx:
        return Ctx(self.rng, self.world, self.today)

    def fill(self, template: str) -> str:
        return template.format_map(self.ctx())

    def pick(self, entity: tuple[str, ...], plain: tuple[str, ...], share: float) -> str:
        return self.fill(self.rng.choice(entity if self.rng.random() < share else plain))

    def some(self, templates: tuple[str, ...], lo: int, hi: int) -> list[str]:
        """lo to hi different templates, filled."""
        count = min(len(templates), self.rng.randint(lo, hi))
        return [self.fill(t) for t in self.rng.sample(templates, count)]

    def prompt(self, first: bool) -> str:
        rng = self.rng
        if not first and rng.random() < 0.2:
            return self.fill(rng.choice(FOLLOW_UPS))
        text = self.pick(ENTITY_PROMPTS, CODE_PROMPTS, 0.45)
        roll = rng.random()
        if roll < 0.06:
            text += "\n\n" + self.email()
        elif roll < 0.13:
            text += "\n\n```\n" + self.traceback() + "\n```"
        elif roll < 0.2:
            text += "\n\n```\n" + self.server_log() + "\n```"
        elif roll < 0.3:
            text += " " + self.pick(ENTITY_PROMPTS, CODE_PROMPTS, 0.3)
        return text

    def step(self) -> str:
        if self.rng.random() < 0.1:
            return self.fill(self.rng.choice(EXPLANATIONS))
        return self.fill(self.rng.choice(STEP_TEXTS))

    def thinking(self) -> str:
        return " ".join(self.some(THOUGHTS, 1, 7))

    def summary(self) -> str:
        rng = self.rng
        if rng.random() < 0.25:
            return self.fill(rng.choice(CODE_CLOSERS + ENTITY_CLOSERS + EXPLANATIONS))
        bullets = "\n".join(f"- {c}" for c in self.some(CHANGES, 2, 8))
        if rng.random() < 0.4:
            bullets += "\n\nThe core of it now reads:\n\n" + self.excerpt()
        closer = self.pick(ENTITY_CLOSERS, CODE_CLOSERS, 0.4)
        return f"{rng.choice(OPENERS)}\n\n{bullets}\n\n{closer}"

    def excerpt(self) -> str:
        """A fenced slice of one of the world's source files."""
        lines = self.world.files[self.rng.choice(self.world.source_files())].splitlines()
        at = self.rng.randint(0, max(0, len(lines) - 30))
        body = "\n".join(lines[at : at + self.rng.randint(8, 30)])
        return f"```{self.world.lang.name}\n{body}\n```"

    def commit(self) -> str:
        return self.fill(
            self.rng.choice(
                (
                    "Fix {func} edge case (reported by {p_first})",
                    "Add {feature} for {o}",
                    "Refactor {module}",
                    "Bump {pkg}",
                    "Add tests for {func}",
                    "Tidy {module} imports",
                    "Wire {feature} into the {o} tenant",
                    "Handle empty input in {func}",
                    "Merge branch 'feat/{module}'",
                    "Update contacts for {p_org}",
                )
            )
        )

    def email(self) -> str:
        body = "From: {p} <{p_email}>\nTo: {q} <{q_email}>\nSubject: " + self.rng.choice(SUBJECTS)
        body += (
            "\n\nHi {q_first},\n\nFollowing up on the {feature}: {o} {launch}, so we need "
            "the fixes in before then. Can you loop in whoever owns {o_site}? {due} would "
            "be ideal.\n\nThanks,\n{p_first}\n{p_role}, {p_org}"
        )
        return self.fill(body)

    def server_log(self) -> str:
        """Pasted server log: request lines naming tenants and users, a few errors."""
        rng, world = self.rng, self.world
        clock = self.today - timedelta(hours=rng.randint(1, 48))
        lines = []
        for _ in range(rng.randint(10, 120)):
            clock += timedelta(seconds=rng.randint(1, 90))
            person = rng.choice(world.people)
            level = rng.choices(("INFO", "WARN", "ERROR"), weights=(80, 12, 8))[0]
            path = f"/api/{kebab(rng.choice(world.features))}/{rng.randint(1, 9999)}"
            lines.append(
                f"{clock:%Y-%m-%dT%H:%M:%S}Z {level:<5} tenant={person.org.domain} "
                f"user={person.email} {rng.choice(('GET', 'POST', 'PATCH'))} {path} "
                f"{rng.choice((200, 200, 201, 404, 500))} {rng.randint(3, 4000)}ms"
            )
        return "\n".join(lines)

    def traceback(self) -> str:
        ctx = self.ctx()
        lines = ["Traceback (most recent call last):"]
        for _ in range(self.rng.randint(2, 8)):
            lines.append(
                f'  File "{self.world.cwd}/{ctx.make_file()}", line '
                f"{self.rng.randint(5, 300)}, in {ctx.make_func()}"
            )
            lines.append(f"    {ctx.make_func()}(payload)")
        lines.append(ctx.make_error())
        return "\n".join(lines)


# --------------------------------------------------------------------------- tools


@dataclass
class ToolCall:
    name: str
    input: dict
    content: str | list
    result: dict | str | None
    seconds: float = 0.5
    is_error: bool = False
    touched: str | None = None
    progress: list[str] = field(default_factory=list)


TOOL_WEIGHTS = {
    "Bash": 40,
    "Edit": 20,
    "Read": 20,
    "Grep": 6,
    "Glob": 4,
    "Write": 4,
    "TodoWrite": 4,
    "WebFetch": 1,
    "WebSearch": 1,
}


class Tools:
    """Builds tool calls and their (realistically sized) results for one world."""

    def __init__(self, rng: random.Random, world: Project, talk: Talk, branch: str) -> None:
        self.rng, self.world, self.talk, self.branch = rng, world, talk, branch

    def pick(self, only: tuple[str, ...] = ()) -> ToolCall:
        names = only or tuple(TOOL_WEIGHTS)
        weights = [TOOL_WEIGHTS[n] for n in names]
        name = self.rng.choices(names, weights=weights)[0]
        return getattr(self, "tool_" + name.lower())()

    def path(self, rel: str) -> str:
        return f"{self.world.cwd}/{rel}"

    def any_file(self) -> str:
        return self.rng.choice(list(self.world.files))

    # -- file tools

    def tool_read(self) -> ToolCall:
        rel = self.any_file()
        lines = self.world.files[rel].splitlines()
        start, count = 1, len(lines)
        args: dict = {"file_path": self.path(rel)}
        if len(lines) > 60 and self.rng.random() < 0.5:
            count = self.rng.randint(20, 60)
            start = self.rng.randint(1, len(lines) - count + 1)
            args.update(offset=start, limit=count)
        chunk = lines[start - 1 : start - 1 + count]
        file = {
            "filePath": args["file_path"],
            "content": "\n".join(chunk),
            "numLines": len(chunk),
            "startLine": start,
            "totalLines": len(lines),
        }
        return ToolCall("Read", args, numbered(chunk, start), {"type": "text", "file": file}, 0.1)

    def tool_edit(self) -> ToolCall:
        """Insert 1 to 4 lines after a 3 to 12 line stretch of a source file (5% fail)."""
        rng = self.rng
        rel = rng.choice(self.world.source_files())
        lines = self.world.files[rel].splitlines()
        at = rng.randint(0, len(lines) - 12)
        old = lines[at : at + rng.randint(3, 12)]
        indent = old[-1][: len(old[-1]) - len(old[-1].lstrip())]
        added = [indent + self.new_line() for _ in range(rng.randint(1, 4))]
        args = {
            "file_path": self.path(rel),
            "old_string": "\n".join(old),
            "new_string": "\n".join(old + added),
            "replace_all": False,
        }
        if rng.random() < 0.05:
            msg = "<tool_use_error>String to replace not found in file.</tool_use_error>"
            return ToolCall("Edit", args, msg, "Error: " + msg, 0.1, is_error=True)
        content, result = self.edit_result(rel, lines, at, len(old), added)
        result = {
            "filePath": args["file_path"],
            "oldString": args["old_string"],
            "newString": args["new_string"],
            **result,
        }
        return ToolCall("Edit", args, content, result, 0.2, touched=rel)

    def edit_result(
        self, rel: str, lines: list[str], at: int, size: int, added: list[str]
    ) -> tuple[str, dict]:
        """The Edit tool's answer: a numbered snippet, and the patch against the whole file."""
        end = at + size
        lo, hi = max(0, at - 3), min(len(lines), end + 3)
        patch = [" " + x for x in lines[lo:end]] + ["+" + x for x in added]
        patch += [" " + x for x in lines[end:hi]]
        hunk = {
            "oldStart": lo + 1,
            "oldLines": hi - lo,
            "newStart": lo + 1,
            "newLines": hi - lo + len(added),
            "lines": patch,
        }
        snippet = lines[lo:end] + added + lines[end : hi + 4]
        content = (
            f"The file {self.path(rel)} has been updated. Here's the result of running "
            f"`cat -n` on a snippet of the edited file:\n{numbered(snippet, lo + 1)}"
        )
        result = {
            "originalFile": self.world.files[rel],
            "structuredPatch": [hunk],
            "userModified": False,
            "replaceAll": False,
        }
        return content, result

    def new_line(self) -> str:
        ctx = self.talk.ctx()
        if self.world.lang is PYTHON:
            options = (
                'logger.info("{func} done in %.2fs", elapsed)',
                "# TODO({p_first}): {feature}",
                'retries = int(os.environ.get("RETRIES", "{n}"))',
            )
        else:
            options = (
                'logger.info({{ elapsed }}, "{func} done");',
                "// TODO({p_first}): {feature}",
                'const retries = Number(process.env.RETRIES ?? "{n}");',
            )
        return self.rng.choice(options).format_map(ctx)

    def tool_write(self) -> ToolCall:
        world, rng = self.world, self.rng
        noun = rng.choice(NOUNS)
        rel = f"scripts/{noun}_report.py" if world.lang is PYTHON else f"scripts/{noun}Report.ts"
        body, _ = make_source(rng, world.lang, [noun])
        args = {"file_path": self.path(rel), "content": body}
        result = {
            "type": "create",
            "filePath": args["file_path"],
            "content": body,
            "structuredPatch": [],
        }
        return ToolCall(
            "Write",
            args,
            f"File created successfully at: {args['file_path']}",
            result,
            0.1,
            touched=rel,
        )

    def tool_grep(self) -> ToolCall:
        func = self.rng.choice(self.world.funcs)
        hits = [p for p, t in self.world.files.items() if func in t] or [self.any_file()]
        if self.rng.random() < 0.5:
            args = {"pattern": func, "output_mode": "files_with_matches"}
            content = f"Found {len(hits)} files\n" + "\n".join(hits)
            result = {"mode": "files_with_matches", "filenames": hits, "numFiles": len(hits)}
            return ToolCall("Grep", args, content, result)
        rows = [
            f"{p}:{i + 1}:{line}"
            for p in hits
            for i, line in enumerate(self.world.files[p].splitlines())
            if func in line
        ]
        args = {"pattern": func, "output_mode": "content", "-n": True}
        result = {
            "mode": "content",
            "numFiles": len(hits),
            "filenames": [],
            "content": "\n".join(rows),
            "numLines": len(rows),
        }
        return ToolCall("Grep", args, "\n".join(rows), result)

    def tool_glob(self) -> ToolCall:
        ext = self.world.lang.ext
        names = [self.path(p) for p in self.world.files if p.endswith(ext)]
        args = {"pattern": f"**/*.{ext}"}
        result = {
            "filenames": names,
            "durationMs": self.rng.randint(4, 60),
            "numFiles": len(names),
            "truncated": False,
        }
        return ToolCall("Glob", args, "\n".join(names), result, 0.05)

    def tool_todowrite(self) -> ToolCall:
        todos = [
            {
                "content": self.talk.fill(self.rng.choice(CHANGES)),
                "status": self.rng.choice(("pending", "in_progress", "completed")),
                "activeForm": "Working on it",
            }
            for _ in range(self.rng.randint(2, 6))
        ]
        msg = "Todos have been modified successfully. Keep using the todo list to track progress."
        return ToolCall("TodoWrite", {"todos": todos}, msg, {"oldTodos": [], "newTodos": todos})

    def tool_webfetch(self) -> ToolCall:
        ctx = self.talk.ctx()
        url = ctx["o_site"] + self.rng.choice(("/", "/pricing", "/contact", "/about"))
        args = {"url": url, "prompt": "What does this page say about {feature}?".format_map(ctx)}
        text = (
            "The page belongs to {o}. It lists {p} as the {p_role} and {p_email} for "
            "questions, and says the {feature} {launch}."
        ).format_map(ctx)
        result = {
            "bytes": self.rng.randint(8000, 90000),
            "code": 200,
            "codeText": "OK",
            "result": text,
            "durationMs": self.rng.randint(300, 4000),
            "url": url,
        }
        return ToolCall("WebFetch", args, text, result, 2.0)

    def tool_websearch(self) -> ToolCall:
        pkg = self.rng.choice(self.world.lang.pkgs)
        query = f"{pkg} {self.rng.choice(('migration guide', 'changelog', 'timeout option'))}"
        links = [f"- [{pkg} docs {i}](https://docs.example.org/{pkg}/{i})" for i in range(5)]
        text = f'Web search results for query: "{query}"\n\n' + "\n".join(links)
        return ToolCall("WebSearch", {"query": query}, text, None, 3.0)

    # -- bash

    def tool_bash(self) -> ToolCall:
        kind = self.rng.choices(
            (
                "test",
                "status",
                "diff",
                "log",
                "ls",
                "lint",
                "types",
                "add",
                "grep",
                "curl",
                "commit",
            ),
            weights=(22, 10, 10, 6, 8, 10, 6, 4, 8, 4, 6),
        )[0]
        command, description, out, code, secs = getattr(self, "bash_" + kind)()
        args = {"command": command, "description": description}
        if code:
            content = f"Exit code {code}\n{out}"
            return ToolCall(
                "Bash",
                args,
                content,
                "Error: " + content,
                secs,
                is_error=True,
                progress=self.progress_lines(out, secs),
            )
        result = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
        return ToolCall("Bash", args, out, result, secs, progress=self.progress_lines(out, secs))

    def progress_lines(self, out: str, secs: float) -> list[str]:
        lines = out.splitlines() or [""]
        steps = min(int(secs // 3), 8)
        return [
            lines[min(len(lines) - 1, (i + 1) * len(lines) // (steps + 1))] for i in range(steps)
        ]

    def bash_test(self) -> tuple[str, str, str, int, float]:
        failing = self.rng.random() < 0.3
        world = self.world
        out = self.pytest_out(failing) if world.lang is PYTHON else self.vitest_out(failing)
        return world.lang.test_cmd, "Run the test suite", out, int(failing), self.rng.uniform(3, 40)

    def pytest_out(self, failing: bool) -> str:
        rng = self.rng
        tests = self.world.test_files()
        total = sum(rng.randint(3, 30) for _ in tests)
        lines = [
            "=" * 29 + " test session starts " + "=" * 30,
            "platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0",
            f"rootdir: {self.world.cwd}",
            "configfile: pyproject.toml",
            f"collected {total} items",
            "",
        ]
        for i, rel in enumerate(tests):
            dots = "." * rng.randint(3, 30)
            if failing and i == 0:
                dots = dots[:2] + "F" + dots[3:]
            lines.append(f"{rel} {dots:<50} [{100 * (i + 1) // len(tests):>3}%]")
        if failing:
            test = rng.choice(self.world.tests)
            lines += ["", "=" * 32 + " FAILURES " + "=" * 32, f"_____ {test} _____", ""]
            lines += self.talk.traceback().splitlines()
            lines.append(f"FAILED {tests[0]}::{test} - {rng.choice(ERRORS)}")
            summary = f"1 failed, {total - 1} passed"
        else:
            summary = f"{total} passed"
        lines.append(f"{'=' * 20} {summary} in {rng.uniform(0.4, 30):.2f}s {'=' * 20}")
        return "\n".join(lines)

    def vitest_out(self, failing: bool) -> str:
        rng = self.rng
        lines = ["", f" RUN  v2.1.4 {self.world.cwd}", ""]
        total = 0
        for rel in self.world.test_files():
            n = rng.randint(3, 30)
            total += n
            lines.append(f" ✓ {rel} ({n} tests) {rng.randint(3, 400)}ms")
        if failing:
            lines += [
                f" FAIL  {self.world.test_files()[0]} > {rng.choice(self.world.tests)}",
                rng.choice(ERRORS),
                f" ❯ {rng.choice(self.world.source_files())}:"
                f"{rng.randint(5, 200)}:{rng.randint(1, 40)}",
            ]
        passed = total - int(failing)
        lines += [
            "",
            f" Test Files  {len(self.world.test_files())} passed",
            f"      Tests  {passed} passed{' | 1 failed' if failing else ''} ({total})",
            f"   Duration  {rng.uniform(0.5, 20):.2f}s",
        ]
        return "\n".join(lines)

    def bash_status(self) -> tuple[str, str, str, int, float]:
        changed = self.rng.sample(list(self.world.files), self.rng.randint(1, 4))
        out = f"On branch {self.branch}\nChanges not staged for commit:\n"
        out += "\n".join(f"\tmodified:   {p}" for p in changed)
        return "git status", "Show working tree status", out, 0, 0.1

    def bash_diff(self) -> tuple[str, str, str, int, float]:
        call = self.tool_edit()
        if call.is_error:
            return "git diff", "Show unstaged changes", "", 0, 0.1
        rel = call.touched or ""
        hunk = call.result["structuredPatch"][0] if isinstance(call.result, dict) else {}
        head = (
            f"diff --git a/{rel} b/{rel}\nindex 3f2a91c..8be04d7 100644\n--- a/{rel}\n"
            f"+++ b/{rel}\n@@ -{hunk['oldStart']},{hunk['oldLines']} "
            f"+{hunk['newStart']},{hunk['newLines']} @@\n"
        )
        return "git diff", "Show unstaged changes", head + "\n".join(hunk["lines"]), 0, 0.1

    def bash_log(self) -> tuple[str, str, str, int, float]:
        rows = [f"{self.rng.getrandbits(28):07x} {self.talk.commit()}" for _ in range(15)]
        return "git log --oneline -15", "Show recent commits", "\n".join(rows), 0, 0.1

    def bash_ls(self) -> tuple[str, str, str, int, float]:
        rng = self.rng
        rows = [f"total {rng.randint(8, 90)}"]
        for rel, text in self.world.files.items():
            when = f"{rng.choice(MONTHS)[:3]} {rng.randint(1, 28):2d} {rng.randint(8, 19):02d}:00"
            rows.append(f"-rw-r--r--  1 bench bench {len(text):6d} {when} {rel}")
        folders = " ".join(sorted({str(Path(p).parent) for p in self.world.files}))
        return f"ls -la {folders}", "List project files", "\n".join(rows), 0, 0.1

    def bash_lint(self) -> tuple[str, str, str, int, float]:
        lang = self.world.lang
        if self.rng.random() < 0.6:
            return lang.lint_cmd, "Lint", "All checks passed!", 0, 1.5
        rows = [
            f"{self.rng.choice(self.world.source_files())}:{self.rng.randint(3, 200)}:"
            f"{self.rng.randint(1, 40)}: {self.rng.choice(('F401', 'E501', 'B008', 'UP035'))} "
            f"{self.rng.choice(('unused import', 'line too long', 'call in default arg'))}"
            for _ in range(self.rng.randint(1, 12))
        ]
        return lang.lint_cmd, "Lint", "\n".join(rows) + f"\nFound {len(rows)} errors.", 1, 1.5

    def bash_types(self) -> tuple[str, str, str, int, float]:
        n = len(self.world.source_files())
        out = f"Success: no issues found in {n} source files"
        return self.world.lang.type_cmd, "Type check", out, 0, self.rng.uniform(2, 12)

    def bash_add(self) -> tuple[str, str, str, int, float]:
        pkg = self.rng.choice(self.world.lang.pkgs)
        out = (
            f"Resolved {self.rng.randint(20, 140)} packages in {self.rng.randint(90, 900)}ms\n"
            f"Installed 1 package in 14ms\n + {pkg}=={self.rng.randint(0, 9)}."
            f"{self.rng.randint(0, 30)}.{self.rng.randint(0, 9)}"
        )
        return f"{self.world.lang.add_cmd} {pkg}", f"Add {pkg}", out, 0, self.rng.uniform(2, 15)

    def bash_grep(self) -> tuple[str, str, str, int, float]:
        call = self.tool_grep()
        rows = call.content if isinstance(call.content, str) else ""
        return f"grep -rn {call.input['pattern']} src", "Find usages", rows, 0, 0.1

    def bash_curl(self) -> tuple[str, str, str, int, float]:
        ctx = self.talk.ctx()
        body = {
            "tenant": kebab(ctx["o"]),
            "domain": ctx["o_domain"],
            "admin": {"name": ctx["p"], "email": ctx["p_email"]},
            "features": self.world.features[:3],
            "status": "ok",
        }
        cmd = f"curl -s localhost:8000/api/tenants/{kebab(ctx['o'])} | jq ."
        return cmd, "Fetch tenant from the dev server", json.dumps(body, indent=2), 0, 0.3

    def bash_commit(self) -> tuple[str, str, str, int, float]:
        msg = self.talk.commit()
        out = (
            f"[{self.branch} {self.rng.getrandbits(28):07x}] {msg}\n "
            f"{self.rng.randint(1, 6)} files changed, {self.rng.randint(2, 120)} insertions(+), "
            f"{self.rng.randint(0, 60)} deletions(-)"
        )
        return f'git add -A && git commit -m "{msg}"', "Commit the changes", out, 0, 0.8


# --------------------------------------------------------------------------- transcript writer


class Transcript:
    """Appends the records of one session or subagent file and keeps the parentUuid chain."""

    def __init__(
        self,
        rng: random.Random,
        world: Project,
        era: Era,
        session_id: str,
        start: datetime,
        agent_id: str | None = None,
    ) -> None:
        self.rng, self.world, self.era = rng, world, era
        self.session_id, self.agent_id, self.clock = session_id, agent_id, start
        self.version = rng.choice(era.versions)
        self.model = rng.choice(era.models)
        self.branch = (
            ""
            if "/work/" not in world.cwd
            else rng.choice(
                (
                    "main",
                    "main",
                    "master",
                    f"feat/{kebab(rng.choice(world.features))}",
                    f"fix/{rng.choice(NOUNS)}-{rng.randint(10, 400)}",
                )
            )
        )
        self.slug: str | None = None
        self.parent: str | None = None
        self.prompt_id: str | None = None
        self.records: list[dict] = []
        self.lines: list[str] = []
        self.cache = rng.randint(6000, 20000)

    def tick(self, lo: float = 0.05, hi: float = 1.5) -> str:
        self.clock += timedelta(seconds=self.rng.uniform(lo, hi))
        return stamp(self.clock)

    def write(self, rec: dict) -> dict:
        self.records.append(rec)
        self.lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
        return rec

    def base(self, kind: str) -> dict:
        rec = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": self.world.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
        }
        if self.agent_id:
            rec["agentId"] = self.agent_id
        if self.slug:
            rec["slug"] = self.slug
        if self.era.attachments:
            rec["entrypoint"] = "cli"
            if self.prompt_id and kind == "user":
                rec["promptId"] = self.prompt_id
        rec["type"] = kind
        return rec

    def chain(self, rec: dict, uid: str | None = None, **extra: object) -> dict:
        rec.update(extra)
        rec["uuid"] = uid or new_uuid(self.rng)
        rec["timestamp"] = self.tick()
        self.parent = rec["uuid"]
        return self.write(rec)

    # -- user side

    def user(self, content: str | list, uid: str | None = None, **extra: object) -> dict:
        rec = self.base("user")
        rec["message"] = {"role": "user", "content": content}
        return self.chain(rec, uid, **extra)

    def tool_result(self, call: ToolCall, tool_id: str, assistant_uuid: str) -> dict:
        block = {
            "tool_use_id": tool_id,
            "type": "tool_result",
            "content": call.content,
            "is_error": call.is_error,
        }
        self.clock += timedelta(seconds=call.seconds)
        extra: dict[str, object] = {"sourceToolAssistantUUID": assistant_uuid}
        if call.result is not None:
            extra = {"toolUseResult": call.result, **extra}
        return self.user([block], **extra)

    # -- assistant side

    def assistant(self, blocks: list[dict], stop: str | None = None) -> list[dict]:
        """One API message: one line per content block, all sharing message.id and usage."""
        rng = self.rng
        self.cache += rng.randint(200, 4000)
        usage = {
            "input_tokens": rng.randint(1, 12),
            "cache_creation_input_tokens": rng.randint(100, 6000),
            "cache_read_input_tokens": self.cache,
            "cache_creation": {
                "ephemeral_5m_input_tokens": rng.randint(0, 6000),
                "ephemeral_1h_input_tokens": 0,
            },
            "output_tokens": rng.randint(5, 1800),
            "service_tier": "standard",
        }
        msg_id, request_id = api_id(rng, "msg_01"), api_id(rng, "req_011C", 20)
        self.tick(1.0, 12.0)
        out = []
        for i, block in enumerate(blocks):
            rec = self.base("assistant")
            del rec["type"]
            rec["message"] = {
                "model": self.model,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop if i == len(blocks) - 1 else None,
                "stop_sequence": None,
                "usage": usage,
            }
            rec["requestId"] = request_id
            rec["type"] = "assistant"
            out.append(self.chain(rec))
        return out

    def signature(self) -> str:
        return base64.b64encode(self.rng.randbytes(self.rng.randint(150, 700))).decode()

    # -- progress, system, snapshots and other side records

    def hook(self, event: str, matcher: str, command: str, tool_id: str) -> None:
        rec = self.base("progress")
        rec["data"] = {
            "type": "hook_progress",
            "hookEvent": event,
            "hookName": f"{event}:{matcher}" if matcher else event,
            "command": command,
        }
        rec["parentToolUseID"] = rec["toolUseID"] = tool_id
        self.chain(rec)

    def bash_progress(self, call: ToolCall, tool_id: str) -> None:
        for i, line in enumerate(call.progress):
            rec = self.base("progress")
            rec["data"] = {
                "type": "bash_progress",
                "output": line[:200],
                "fullOutput": line[:200],
                "elapsedTimeSeconds": 2 * (i + 1),
                "totalLines": i + 1,
                "timeoutMs": 120000,
            }
            rec["toolUseID"] = f"bash-progress-{i}"
            rec["parentToolUseID"] = tool_id
            self.chain(rec)

    def agent_progress(self, sub: dict, prompt: str, agent_id: str, tool_id: str) -> None:
        rec = self.base("progress")
        inner = {
            "type": sub["type"],
            "message": sub["message"],
            "uuid": sub["uuid"],
            "timestamp": sub["timestamp"],
        }
        rec["data"] = {
            "message": inner,
            "normalizedMessages": [],
            "type": "agent_progress",
            "prompt": prompt,
            "agentId": agent_id,
        }
        rec["toolUseID"] = api_id(self.rng, "agent_msg_01")
        rec["parentToolUseID"] = tool_id
        self.chain(rec)

    def system(self, subtype: str | None, **fields: object) -> None:
        rec = self.base("system")
        if subtype:
            rec["subtype"] = subtype
        rec.update(fields)
        self.chain(rec)

    def attachment(self, body: dict) -> None:
        rec = self.base("attachment")
        rec["attachment"] = body
        self.chain(rec)

    def snapshot(self, message_id: str, tracked: dict, update: bool) -> None:
        self.write(
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {
                    "messageId": message_id,
                    "trackedFileBackups": dict(tracked),
                    "timestamp": stamp(self.clock),
                },
                "isSnapshotUpdate": update,
            }
        )

    def side(self, kind: str, **fields: object) -> None:
        """Unchained records: queue-operation, permission-mode, last-prompt, summary."""
        self.write({"type": kind, **fields})


# --------------------------------------------------------------------------- sessions

LOCAL_COMMANDS = (
    ("clear", ""),
    ("model", "Kept model as Default"),
    ("cost", "Total cost: $0.84"),
    ("mcp", "MCP dialog dismissed"),
    ("context", "Context: 41% used"),
)
PROMPT_COMMANDS = ("init", "review", "project:release-notes", "project:triage")


class Session:
    """Plays out one session (and at most one subagent) into a Transcript."""

    def __init__(
        self, rng: random.Random, world: Project, start: datetime, target: int, with_subagent: bool
    ) -> None:
        self.rng, self.world, self.target = rng, world, target
        self.era = era_at(start)
        self.t = Transcript(rng, world, self.era, new_uuid(rng), start)
        self.talk = Talk(rng, world, start)
        self.tools = Tools(rng, world, self.talk, self.t.branch)
        self.hooks = world.hooks if self.era is LEGACY else world.hooks.merged(USER_HOOKS)
        self.subagent_pending = with_subagent
        self.subagent: Transcript | None = None
        self.tracked: dict[str, dict] = {}
        self.steps_done = 0
        self.checkpoints = not self.t.version.startswith("1.")  # file history came with 2.0
        self.prompt_uuid = ""
        self.last_prompt = ""

    def run(self) -> None:
        self.preamble()
        turn = 0
        while len(self.t.lines) < self.target:
            self.turn(first=turn == 0)
            turn += 1
        if self.era.attachments and self.last_prompt:
            self.t.side(
                "last-prompt", lastPrompt=self.last_prompt[:200], sessionId=self.t.session_id
            )

    # -- session start

    def preamble(self) -> None:
        t, rng = self.t, self.rng
        if self.era is LEGACY and rng.random() < 0.25:
            for _ in range(rng.randint(1, 3)):
                t.side(
                    "summary",
                    summary=self.talk.fill("{feature} fixes for {o}").capitalize(),
                    leafUuid=new_uuid(rng),
                )
        if rng.random() < 0.05:
            t.side(
                "queue-operation",
                operation="dequeue",
                timestamp=stamp(t.clock),
                sessionId=t.session_id,
            )
        if self.era.attachments and rng.random() < 0.5:
            t.side(
                "permission-mode",
                permissionMode=rng.choice(("default", "acceptEdits")),
                sessionId=t.session_id,
            )
        self.session_start_hooks("startup")

    def session_start_hooks(self, source: str) -> None:
        hook_id = new_uuid(self.rng)
        for command in self.hooks.start if self.era.progress else ():
            if self.era.attachments:
                self.t.attachment(
                    {
                        "type": "hook_success",
                        "hookName": f"SessionStart:{source}",
                        "toolUseID": hook_id,
                        "hookEvent": "SessionStart",
                        "content": "",
                        "stdout": self.talk.fill(
                            "Loaded notes for {product}: {feature} is in progress."
                        ),
                        "stderr": "",
                        "exitCode": 0,
                        "command": command,
                        "durationMs": self.rng.randint(20, 1500),
                    }
                )
            else:
                self.t.hook("SessionStart", source, command, hook_id)
        if self.era.attachments and self.hooks.start and self.rng.random() < 0.5:
            notes = self.talk.fill("Open items for {product}: {feature} for {p} ({p_org}), {due}.")
            self.t.attachment(
                {
                    "type": "hook_additional_context",
                    "content": [notes],
                    "hookName": "SessionStart",
                    "toolUseID": "SessionStart",
                    "hookEvent": "SessionStart",
                }
            )

    # -- turns

    def turn(self, first: bool) -> None:
        roll = self.rng.random()
        if not first and roll < 0.04:
            self.local_command()
            return
        if not first and roll < 0.06:
            self.bash_mode()
            return
        if not first and roll < 0.065 and self.target > 150:
            self.compact()
        command = roll > 0.97
        prompt = self.prompt_with_command() if command else self.talk.prompt(first)
        self.typed_prompt(prompt, first)
        if command:
            self.t.user([{"type": "text", "text": self.command_expansion()}], isMeta=True)
        self.work(self.rng.randint(1, 4) if len(prompt) < 60 else self.rng.randint(4, 20))
        self.end_turn()
        if self.era.progress and not self.t.slug:  # Claude Code names the session after a turn
            self.t.slug = "-".join(self.rng.sample(SLUG_WORDS, 3))

    def work(self, steps: int) -> None:
        """Assistant steps until the reply; stops early when the session nears its length."""
        per_step = len(self.t.lines) / self.steps_done if self.steps_done else 6.0
        for i in range(steps):
            self.steps_done += 1
            more = i < steps - 1 and len(self.t.lines) + 1.5 * per_step < self.target
            if not (more or self.subagent_pending):
                self.step(final=True)
                return
            self.step(final=False)
        self.step(final=True)  # the last planned step went to the subagent

    def typed_prompt(self, prompt: str, first: bool) -> None:
        t, rng = self.t, self.rng
        if not first and rng.random() < 0.08:
            t.side(
                "queue-operation",
                operation="enqueue",
                timestamp=stamp(t.clock),
                content=prompt,
                sessionId=t.session_id,
            )
            t.side(
                "queue-operation", operation="dequeue", timestamp=t.tick(), sessionId=t.session_id
            )
        if self.era.attachments and rng.random() < 0.1:
            t.side(
                "permission-mode",
                permissionMode=rng.choice(("default", "acceptEdits")),
                sessionId=t.session_id,
            )
        t.clock += timedelta(seconds=rng.uniform(15, 900))
        self.prompt_uuid = new_uuid(rng)
        t.prompt_id = new_uuid(rng)
        if self.checkpoints:
            t.snapshot(self.prompt_uuid, self.tracked, update=False)
        extra: dict[str, object] = {}
        if self.era is not LEGACY:
            extra = {
                "thinkingMetadata": {"maxThinkingTokens": 31999},
                "todos": [],
                "permissionMode": "acceptEdits",
            }
        t.user(prompt, self.prompt_uuid, **extra)
        self.last_prompt = prompt
        if self.era.attachments:
            self.prompt_attachments(first)

    def prompt_attachments(self, first: bool) -> None:
        rng, t = self.rng, self.t
        for command in self.hooks.prompt:
            t.attachment(
                {
                    "type": "hook_success",
                    "hookName": "UserPromptSubmit",
                    "toolUseID": new_uuid(rng),
                    "hookEvent": "UserPromptSubmit",
                    "content": "",
                    "stdout": "",
                    "stderr": "",
                    "exitCode": 0,
                    "command": command,
                    "durationMs": rng.randint(5, 300),
                }
            )
        if first:
            t.attachment(
                {
                    "type": "deferred_tools_delta",
                    "addedNames": ["AskUserQuestion"],
                    "addedLines": ["AskUserQuestion"],
                    "removedNames": [],
                }
            )
            skills = "\n".join(
                f"- {kebab(f)}-{kind}: {kind} for the {f}"
                for kind in ("docs", "tests", "review", "deploy")
                for f in self.world.features
            )
            t.attachment(
                {
                    "type": "skill_listing",
                    "content": skills,
                    "skillCount": 24,
                    "isInitial": True,
                }
            )
        elif rng.random() < 0.05:
            t.attachment({"type": "task_reminder", "content": [], "itemCount": 0})

    def prompt_with_command(self) -> str:
        name = self.rng.choice(PROMPT_COMMANDS)
        args = self.talk.fill("{feature} for {o}") if name.startswith("project") else ""
        return (
            f"<command-message>{name} is running…</command-message>\n"
            f"<command-name>/{name}</command-name>\n<command-args>{args}</command-args>"
        )

    def command_expansion(self) -> str:
        features = ", ".join(self.world.features)
        return self.talk.fill(
            "Review the current branch before it goes to {o}.\n\n## Steps\n\n1. Read the diff "
            "against main.\n2. Run `{cmd}` and note failures.\n3. Check the areas the client "
            f"cares about: {features}.\n4. Write findings as a checklist, most severe first.\n"
            "\nThe reviewer on their side is {p} ({p_email}); keep the wording plain."
        )

    def step(self, final: bool) -> None:
        rng, talk = self.rng, self.talk
        blocks: list[dict] = []
        if rng.random() < 0.15:
            blocks.append(
                {"type": "thinking", "thinking": talk.thinking(), "signature": self.t.signature()}
            )
        if final:
            blocks.append({"type": "text", "text": talk.summary()})
            self.t.assistant(blocks, "end_turn")
            return
        if rng.random() < 0.4:
            blocks.append({"type": "text", "text": talk.step()})
        calls = [self.pick_call() for _ in range(1 if rng.random() < 0.85 else rng.randint(2, 3))]
        ids = [api_id(rng, "toolu_01") for _ in calls]
        blocks += [
            {"type": "tool_use", "id": i, "name": c.name, "input": c.input}
            for i, c in zip(ids, calls, strict=True)
        ]
        records = self.t.assistant(blocks, "tool_use")
        uses = records[len(records) - len(calls) :]
        for call, tool_id in zip(calls, ids, strict=True):
            self.tool_hooks("PreToolUse", call.name, tool_id)
        for call, tool_id, use in zip(calls, ids, uses, strict=True):
            self.run_call(call, tool_id, use["uuid"])

    def pick_call(self) -> ToolCall:
        if self.subagent_pending:
            self.subagent_pending = False
            return self.task_call()
        return self.tools.pick()

    def run_call(self, call: ToolCall, tool_id: str, use_uuid: str) -> None:
        if call.name == "Bash" and self.era.progress:
            self.t.bash_progress(call, tool_id)
        if call.name in ("Task", "Agent") and self.subagent and self.era.progress:
            for sub in self.subagent.records:
                self.t.agent_progress(
                    sub, call.input["prompt"], self.subagent.agent_id or "", tool_id
                )
        if call.touched and self.checkpoints and self.rng.random() < 0.08:
            self.track(call.touched)
        self.tool_hooks("PostToolUse", call.name, tool_id)
        self.t.tool_result(call, tool_id, use_uuid)

    def tool_hooks(self, event: str, tool: str, tool_id: str) -> None:
        table = self.hooks.pre if event == "PreToolUse" else self.hooks.post
        commands = self.hooks.for_tool(table, tool)
        if not commands:
            return
        if self.era.progress:
            for command in commands:
                self.t.hook(event, tool, command, tool_id)
        elif event == "PostToolUse" and tool in ("Edit", "Write") and self.rng.random() < 0.3:
            self.t.system(
                None,
                content=f"Running \x1b[1m{event}:{tool}\x1b[22m...",
                isMeta=False,
                toolUseID=tool_id,
                level="info",
            )

    def track(self, rel: str) -> None:
        version = self.tracked.get(rel, {}).get("version", 0) + 1
        name = f"{self.rng.getrandbits(64):016x}@v{version}"
        self.tracked[rel] = {
            "backupFileName": name,
            "version": version,
            "backupTime": stamp(self.t.clock),
        }
        self.t.snapshot(self.prompt_uuid, self.tracked, update=True)

    def end_turn(self) -> None:
        t, rng = self.t, self.rng
        if self.era.progress and self.hooks.stop:
            stop_id = new_uuid(rng)
            for command in self.hooks.stop:
                t.hook("Stop", "", command, stop_id)
        if self.era.progress and self.hooks.stop and rng.random() < 0.3:  # hooks that printed
            t.system(
                "stop_hook_summary",
                hookCount=len(self.hooks.stop),
                hookInfos=[{"command": c} for c in self.hooks.stop],
                hookErrors=[],
                preventedContinuation=False,
                stopReason="",
                hasOutput=True,
                level="suggestion",
                toolUseID=new_uuid(rng),
            )
        if self.era.progress and rng.random() < 0.2:
            count = {"messageCount": len(t.lines)} if self.era.attachments else {}
            t.system("turn_duration", durationMs=rng.randint(4000, 900000), **count, isMeta=False)
        if self.era.attachments and rng.random() < 0.03:
            t.system("away_summary", content=self.talk.summary(), isMeta=False)
        if self.era.attachments and rng.random() < 0.05:
            t.side("last-prompt", lastPrompt=self.last_prompt[:200], sessionId=t.session_id)

    # -- special turns

    def local_command(self) -> None:
        name, output = self.rng.choice(LOCAL_COMMANDS)
        command = (
            f"<command-name>/{name}</command-name>\n            <command-message>{name}"
            f"</command-message>\n            <command-args></command-args>"
        )
        stdout = f"<local-command-stdout>{output}</local-command-stdout>"
        if self.era is LEGACY:
            self.t.user(
                "<local-command-caveat>Caveat: the messages below were generated by the "
                "user while running local commands. Do not respond to them unless asked."
                "</local-command-caveat>",
                isMeta=True,
            )
            self.t.user(command)
            self.t.user(stdout)
        else:
            self.t.system("local_command", content=command, level="info", isMeta=False)
            self.t.system("local_command", content=stdout, level="info", isMeta=False)

    def bash_mode(self) -> None:
        call = self.tools.tool_bash()
        out = call.content if isinstance(call.content, str) else ""
        self.t.user(f"<bash-input>{call.input['command']}</bash-input>")
        self.t.user(f"<bash-stdout>{out}</bash-stdout><bash-stderr></bash-stderr>")

    def compact(self) -> None:
        t, talk = self.t, self.talk
        self.t.user(
            "<command-name>/compact</command-name>\n            <command-message>compact"
            "</command-message>\n            <command-args></command-args>"
        )
        logical = t.parent
        t.parent = None
        meta = {"trigger": "manual", "preTokens": self.rng.randint(90000, 160000)}
        t.system(
            "compact_boundary",
            logicalParentUuid=logical,
            content="Conversation compacted",
            isMeta=False,
            level="info",
            compactMetadata=meta,
        )
        items = "\n".join(f"{i + 1}. {c}" for i, c in enumerate(talk.some(CHANGES, 4, 8)))
        text = (
            talk.fill(
                "This session continues an earlier conversation that ran out of "
                "context. Summary:\n\n{p} ({p_role}, {p_org}) asked for {feature}; "
                "{o} {launch}.\n\nDone so far:\n"
            )
            + items
        )
        t.user(text, isCompactSummary=True, isVisibleInTranscriptOnly=True)
        self.session_start_hooks("compact")

    # -- subagents

    def task_call(self) -> ToolCall:
        rng = self.rng
        prompt = self.talk.fill(
            "Find every place that handles {feature} for {o} and report the files, the functions "
            "({func}, {func2}, ...) and any TODOs that mention {p_first}. Do not edit anything.\n"
            "\nBackground: {p} ({p_role}, {p_org}) reported that the {feature} breaks for "
            "accounts on {o_domain}; {q} thinks it started after the {pkg} upgrade. The "
            "deadline is tight, it {launch}. Report back with file paths and line numbers, and "
            "say which tests cover each path. Keep the report under 400 words."
        )
        sub = self.make_subagent(prompt)
        report = (
            self.talk.summary()
            + "\n\n"
            + "\n".join(f"- `{p}`" for p in rng.sample(list(self.world.files), 4))
        )
        name = "Agent" if self.era.attachments else "Task"
        args = {
            "description": self.talk.fill("Survey {feature} code"),
            "prompt": prompt,
            "subagent_type": rng.choice(("Explore", "general-purpose")),
        }
        content = [{"type": "text", "text": report}]
        result = {
            "status": "completed",
            "prompt": prompt,
            "agentId": sub.agent_id,
            "content": content,
            "totalDurationMs": rng.randint(20000, 400000),
            "totalTokens": rng.randint(9000, 60000),
            "totalToolUseCount": sum(r["type"] == "user" for r in sub.records) - 1,
        }
        return ToolCall(name, args, content, result, rng.uniform(20, 300))

    def make_subagent(self, prompt: str) -> Transcript:
        rng = self.rng
        bits = 64 if self.era.attachments else 24
        agent_id = f"a{rng.getrandbits(bits):0{bits // 4}x}"
        sub = Transcript(rng, self.world, self.era, self.t.session_id, self.t.clock, agent_id)
        sub.slug, sub.branch, sub.model = self.t.slug, self.t.branch, self.t.model
        sub.user(prompt)
        tools = Tools(rng, self.world, self.talk, sub.branch)
        for _ in range(rng.randint(5, 25)):
            call = tools.pick(("Read", "Grep", "Glob", "Bash"))
            tool_id = api_id(rng, "toolu_01")
            blocks = [{"type": "tool_use", "id": tool_id, "name": call.name, "input": call.input}]
            if rng.random() < 0.3:
                blocks.insert(0, {"type": "text", "text": self.talk.step()})
            use = sub.assistant(blocks, "tool_use")[-1]
            sub.tool_result(call, tool_id, use["uuid"])
        sub.assistant([{"type": "text", "text": self.talk.summary()}], "end_turn")
        self.subagent = sub
        return sub


# --------------------------------------------------------------------------- corpus API


def session_start(rng: random.Random, recent: bool = False) -> datetime:
    """A start time in the 18 months before END, denser towards the end (usage grows).

    Recent starts fall in the last 30 days. Six hours are kept free for the session itself.
    """
    span = (END - START).total_seconds() - 6 * 3600
    u = 1 - rng.random() * 30 * 86400 / span if recent else rng.random() ** 0.6
    return START + timedelta(seconds=u * span)


def session_length(rng: random.Random) -> int:
    """Target line count: log-normal around 78, clipped to 20..300 (mean near 100)."""
    return max(MIN_LINES, min(MAX_LINES, int(rng.lognormvariate(math.log(78), 0.65))))


class Stats:
    """Files, lines, bytes and records by type of what was written."""

    def __init__(self) -> None:
        self.files = self.lines = self.bytes = 0
        self.records: Counter[str] = Counter()

    def write(self, path: Path, transcript: Transcript) -> None:
        data = ("\n".join(transcript.lines) + "\n").encode()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.files += 1
        self.lines += len(transcript.lines)
        self.bytes += len(data)
        self.records.update(rec["type"] for rec in transcript.records)

    def as_dict(self) -> dict:
        return {
            "files": self.files,
            "lines": self.lines,
            "bytes": self.bytes,
            "records": dict(self.records.most_common()),
        }


def write_session(
    rng: random.Random,
    root: Path,
    world: Project,
    start: datetime,
    with_subagent: bool,
    stats: Stats,
) -> Path:
    """Play one session out and write it (and its subagent, if any) under root."""
    session = Session(rng, world, start, session_length(rng), with_subagent)
    session.run()
    folder = root / world.slug
    path = folder / f"{session.t.session_id}.jsonl"
    stats.write(path, session.t)
    if session.subagent:
        name = f"agent-{session.subagent.agent_id}.jsonl"
        stats.write(folder / session.t.session_id / "subagents" / name, session.subagent)
    return path


def generate(root: Path, sessions: int = 2000, projects: int = 30, seed: int = 7) -> dict:
    """Write `sessions` session files under root; return files, lines, bytes, records by type."""
    rng = random.Random(seed)
    worlds = [build_project(n) for n in range(1, projects + 1)]
    weights = [1 / (rank + 1) ** 0.8 for rank in range(projects)]  # a few busy projects
    rng.shuffle(weights)
    unfiled = {cwd: build_unfiled(cwd, worlds) for cwd in sorted(set(UNFILED_CWDS))}
    stats = Stats()
    for _ in range(sessions):
        if rng.random() < UNFILED_SHARE:
            world = unfiled[rng.choice(UNFILED_CWDS)]
        else:
            world = rng.choices(worlds, weights=weights)[0]
        write_session(
            rng, Path(root), world, session_start(rng), rng.random() < SUBAGENT_SHARE, stats
        )
    return stats.as_dict()


def append_session(root: Path, project: int, seed: int) -> Path:
    """Write one more recent session into project p<NN> (same generator) and return its path."""
    rng = random.Random(f"vyre-bench/append/{project}/{seed}")
    return write_session(
        rng,
        Path(root),
        build_project(project),
        session_start(rng, True),
        rng.random() < SUBAGENT_SHARE,
        Stats(),
    )


def json_loads_seconds(root: Path) -> tuple[float, int]:
    """Seconds json.loads alone takes over every line of every .jsonl under root, and the count."""
    lines = [
        line
        for path in sorted(Path(root).rglob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]
    loads = json.loads
    begin = time.perf_counter()
    for line in lines:
        loads(line)
    return time.perf_counter() - begin, len(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--projects", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    begin = time.perf_counter()
    stats = generate(args.out, args.sessions, args.projects, args.seed)
    stats["generate_seconds"] = round(time.perf_counter() - begin, 2)
    seconds, count = json_loads_seconds(args.out)
    stats["json_loads_seconds"] = round(seconds, 3)
    stats["json_loads_records_per_second"] = round(count / seconds)
    print(json.dumps(stats, indent=2))


if __name__ == "__main__":
    main()
