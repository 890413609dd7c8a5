"""Distill: a sentence the user said becomes a check, or says plainly why none fits.

What must stay true (ADR 0007 §7):
- A sentence no shape fits is never forced into a check: `distill()` returns the reason and
  the caller queues it as a job. A sentence that is not a rule at all ("Draft a note to
  Priya") is neither a check nor a job.
- Shapes are general ways of saying a rule, never one sentence: a negation or "stop"/"no
  more"/"avoid" before an action; "use X not Y", "X instead of Y", "X only"; "run X after
  changing Y", "run X before Y"; a banned word or phrase; scope words ("in this repo",
  "everywhere", "in docs"). Politeness and a reason after the rule are set aside.
- No side effects: this reads text and returns a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vyre.extract.compiled import Patterns
from vyre.learn import checks
from vyre.learn.shell import parse

_patterns = Patterns.beside(__file__)  # its ~40 patterns cost 0.05 s to compile: once per install
_re = _patterns.compile

# Programs people name in rules; anything with a flag, in backticks or called "the X command"
# counts too.
KNOWN_PROGRAMS = frozenset(
    """
    git npm npx pnpm yarn bun deno node pip pip3 pipx uv poetry python python3 pytest ruff black
    isort mypy flake8 pylint eslint prettier tsc jest vitest sed awk perl grep rg ag find fd xargs
    rm mv cp chmod chown ln curl wget ssh scp rsync docker podman kubectl helm terraform make cmake
    cargo rustc go gradle mvn java brew apt apt-get yum dnf sudo kill pkill killall tar zip unzip
    jq yq vim nano emacs code cat less head tail sort uniq tee dd truncate touch mkdir rmdir
    gh hub psql mysql sqlite3 redis-cli mongo aws gcloud az heroku vercel netlify firebase
    bundle gem rake rails composer php dotnet swift xcodebuild flutter dart gofmt golangci-lint
    alembic prisma sequelize knex drizzle-kit next nuxt vite webpack rollup esbuild turbo nx lerna
    ansible vagrant systemctl service crontab open xdg-open osascript say docker-compose
    podman-compose
    """.split()
)
# program names that are everyday English verbs or nouns: "don't make the functions long" is no
# rule about `make`. They count as a command only in backticks, with a flag, or before a word
# that is not an article, a pronoun or a quantity.
ENGLISH_PROGRAMS = frozenset(
    """make find open touch watch say kill sort head tail less more cat cut join paste split time
    test tee yes file look date read print code go which type top free code mail write talk
    """.split()
)
_NOT_AN_ARGUMENT = frozenset(
    """the a an it its them this that these those any every each all my your our their his her
    too so things stuff sure more less much many some everything anything something one
    """.split()
)
KNOWN_PROGRAMS_RE = [re.escape(p) for p in KNOWN_PROGRAMS if p not in ENGLISH_PROGRAMS]
# a dotted name said as code ("console.log calls", "fmt.Println in the server code"), which a
# file name never is
_DOTTED = (
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\s+(?:calls?|statements?|lines?|"
    r"(?:(?:left\s+)?in\s+(?:the\s+|our\s+|any\s+)?)?(?:[\w-]+\s+)?code)\b"
)
_NEG = (
    r"(?:never(?:,?\s+ever,?)?|don'?t(?:\s+ever)?|do\s+not|dont|doesn'?t|stop|quit|avoid|refrain\s+from|"
    r"no\s+more|no\s+longer|not\s+allowed\s+to|you\s+(?:must|should|may|can)\s*(?:not|n'?t)|"
    r"mustn'?t|shouldn'?t|can'?t|cannot|won'?t|please\s+don'?t|"
    r"i\s+(?:don'?t|do\s+not)\s+want\s+you(?:\s+to)?|under\s+no\s+circumstances(?:\s+should\s+you)?|"
    r"no(?=\s+\w+ing\b)|no(?=\s+force)|no(?=\s+`)|no(?=\s+more)|no(?=\s+--[a-z])|"
    r"no(?=\s+(?:edits|changes|writes|modifications)\s+(?:to|in|under)\b)|no(?=\s+(?:"
    + "|".join(sorted(KNOWN_PROGRAMS_RE))
    + r")\b)|ban|forbid|forbidden|prohibit|"
    r"don'?t\s+you\s+(?:dare|ever)|hands\s+off|keep\s+(?:your\s+hands\s+)?off|"
    r"stay\s+(?:away\s+from|out\s+of)|keep\s+out\s+of|"
    # the indirect and polite ways: "i'd appreciate it if you didn't", "i'd rather you
    # didn't", "could you not", "would you mind not", "let's not", "we never", "try not to"
    r"(?:i'?d|i\s+would|it'?d|it\s+would)\s+(?:\w+\s+)?(?:appreciate\s+it|prefer(?:\s+it)?|"
    r"like\s+it|be\s+(?:great|nice|better|grateful|happier)|rather|love\s+it)\s+(?:if\s+)?"
    r"(?:you\s+)?(?:didn'?t|did\s+not|wouldn'?t|would\s+not|don'?t|do\s+not|not|never|"
    r"stopped|avoided)(?:\s+to)?|"
    r"(?:i'?d|i\s+would)\s+(?:\w+\s+)?(?:like|prefer|want)\s+(?:it\s+)?(?:that\s+|if\s+|for\s+)?"
    r"you(?:\s+to)?\s+(?:not|never|didn'?t|did\s+not)"
    r"(?:\s+to)?|"
    # "could you stop X" is a request for now, not a rule: only "could you not X" is one
    r"(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:not|never|avoid)|"
    r"(?:would|do)\s+you\s+mind\s+not|try\s+not\s+to|try\s+to\s+avoid|"
    r"make\s+sure\s+(?:you\s+)?(?:don'?t|never|do\s+not)|be\s+careful\s+not\s+to|"
    r"let'?s\s+(?:not|never|avoid)|we\s+(?:don'?t|never|do\s+not|shouldn'?t|won'?t)|"
    r"(?:nobody|no\s+one)\s+(?:should|may|gets\s+to)|"
    r"no(?=\s+`?[A-Za-z_][\w.:]*!?\(\))|no(?=\s+" + _DOTTED + r"))"
)
_NEG_RE = _re(rf"(?:^|[\s,;:(])(?P<neg>{_NEG})\s+(?P<rest>.+)$", re.I)
# Claude Code's own tools, by the names people use for them
TOOL_NAMES = {
    "webfetch": "WebFetch",
    "web fetch": "WebFetch",
    "websearch": "WebSearch",
    "web search": "WebSearch",
    "the web search tool": "WebSearch",
    "subagents": "Task",
    "sub-agents": "Task",
    "the task tool": "Task",
    "task tool": "Task",
    "notebookedit": "NotebookEdit",
    "multiedit": "MultiEdit",
    "the write tool": "Write",
    "the edit tool": "Edit",
}
CLAUDE_TOOLS = {
    t.lower(): t
    for t in (
        "Bash WebFetch WebSearch Task Agent NotebookEdit MultiEdit Write Edit Read Grep Glob "
        "TodoWrite"
    ).split()
}
# tools people say they use one of (`pnpm only` bans the others)
FAMILIES = (
    ("npm", "pnpm", "yarn", "bun"),
    ("pip", "uv", "poetry", "pipenv", "pdm"),
    ("grep", "rg", "ag"),
    ("find", "fd"),
    ("jest", "vitest", "mocha"),
    ("black", "ruff", "autopep8", "yapf"),
    ("eslint", "biome", "oxlint"),
    ("docker", "podman"),
    ("curl", "wget", "httpie"),
    ("vim", "nano", "emacs"),
    ("make", "just", "task"),
)
NAMED_CHARS = {
    "em dash": "\u2014",
    "em dashes": "\u2014",
    "em-dash": "\u2014",
    "em-dashes": "\u2014",
    "emdash": "\u2014",
    "emdashes": "\u2014",
    "en dash": "\u2013",
    "en dashes": "\u2013",
    "en-dashes": "\u2013",
    "semicolons": ";",
    "exclamation marks": "!",
    "exclamation points": "!",
}
BRANCHES = ("main", "master", "trunk", "develop", "production", "prod", "release", "staging")

_POLITE = _re(
    r"^(?:(?:ok|okay|hey|so|also|and|but|oh|well|look|listen|note|fyi|ps|important|reminder|"
    r"rule|btw|again|remember|actually|seriously|claude|please|pls|plz|kindly|from now on|"
    r"going forward|in (?:the )?future|for (?:the )?future|one more thing|one thing)[,:!.]?\s+)+",
    re.I,
)
_REASON = _re(
    r"\s*(?:[,;:\u2014\u2013(]|\s-\s|\s--\s)?\s*\b(?:because|since|as\s+(?:it|that|this|they|we)|"
    r"it\s+(?:breaks|kills|messes|ruins|causes|triggers|deploys|will|would|is)|that\s+(?:breaks|"
    r"triggers|deploys|will|would)|otherwise|or\s+else|thanks?|thank\s+you|ok\??|okay\??|please|"
    r"so\s+that|unless|except|we\s+(?:got|had|lost)|this\s+(?:breaks|is)|that'?s|"
    r"the\s+(?:ci|pipeline|deploy)|cheers)\b.*$|\s*[,;]\s*(?:we'?re|we\s+are|it'?s|they'?re|"
    r"that'?s|this\s+is|the\s+\w+\s+(?:bot|team)\s+owns)\b.*$",
    re.I,
)
_SCOPE_PROJECT = _re(
    r"\b(?:in|for|on|across|inside|within)\s+(?:this|the|our)\s+(?:repo(?:sitory)?|project|"
    r"codebase|code\s*base|workspace|app|folder)\b|\bhere\b|\bin\s+here\b",
    re.I,
)
_SCOPE_ALL = _re(
    # "install packages globally" is what is done, not where the rule holds
    r"\b(?:everywhere|anywhere|(?<!packages )(?<!package )(?<!modules )(?<!it )(?<!them )"
    r"globally|in\s+(?:any|every|all)\s+(?:of\s+(?:my|our)\s+)?"
    r"(?:repos?|projects?|codebases?)|across\s+(?:all|every)\s+(?:repos?|projects?)|"
    r"in\s+general|ever\s+again|any\s+project)\b",
    re.I,
)
_DOC_SCOPE = _re(
    r"\b(?P<prep>in|inside|within|for|on)\s+(?:the\s+|our\s+|any\s+|all\s+)?"
    r"(?:[a-z]+(?:-[a-z]+)+\s+|(?:public|internal|user|api|developer|customer|product)\s+)?"
    r"(?P<where>docs?|documentation|"
    r"readme(?:s)?|markdown(?:\s+files)?|md\s+files|(?:the\s+)?(?P<dir>[\w.-]+/)|"
    r"\*\.(?P<ext>\w+)(?:\s+files)?|\.(?P<ext2>\w+)\s+files|(?P<ext3>\w+)\s+files|"
    r"(?P<lang>typescript|javascript|python|ruby|rust|kotlin|swift|java|php)(?:\s+code)?"
    r"(?=\s*(?:$|[,.;:!?)]|\s+(?:please|ever|again)\b)))(?!\w)"
    r"(?!\s+(?:site|website|project|repo|app|server|team))",
    re.I,
)
_WORDISH = _re(r"^(?:the\s+)?(?:words?|phrases?|terms?|expressions?)\b", re.I)
_QUOTED = _re(
    # an apostrophe inside a word ("don't", "it's") opens and closes no quote
    r"`([^`]+)`|\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|(?<!\w)'([^']{2,})'(?!\w)|"
    r"(?<!\w)\u2018([^\u2019]+)\u2019(?!\w)"
)
_FILE_VERBS = (
    r"touch|touching|touches|edit|edits|editing|modify|modifying|change|changing|alter|write\s+to|write\s+into|"
    r"writing\s+to|delete|deleting|remove|removing|overwrite|overwriting|rename|move|"
    r"mess\s+with|mess\s+around\s+with|update|updating|commit\s+changes\s+to|hand-edit|"
    r"manually\s+edit|regenerate|rewrite|reformat|format|add\s+files\s+to"
)
_FILE_VERB_RE = _re(
    rf"^(?:(?:ever|even|directly|manually|again)\s+)*(?:{_FILE_VERBS})\b\s*(?P<obj>.*)$", re.I
)
_USE_VERB_RE = _re(
    r"^(?:(?:ever|even|directly|again)\s+)*(?:use|using|uses|used|run|ran|running|runs|call|calling|invoke|invoking|execute|"
    r"executing|type|do|doing|reach\s+for|rely\s+on|go\s+with|install\s+with|try)\b\s*(?P<obj>.*)$",
    re.I,
)
_SAY_VERB_RE = _re(
    r"^(?:(?:ever|even|again)\s+)*(?P<verb>say|saying|write|writing|put|putting|include|including|"
    r"add|adding|mention|use\s+the\s+(?:word|phrase|term|expression)|"
    r"use\s+(?:words?|phrases?)\s+like)\b\s*(?P<obj>.*)$",
    re.I,
)
_PUSH_RE = _re(
    r"^(?:(?:ever|even|directly|again)\s+)*(?P<force>force[- ]?)?push(?:es|ing)?\b(?P<rest>.*)$",
    re.I,
)
_COMMIT_RE = _re(r"^(?:(?:ever|even|directly|again)\s+)*commit(?:s|ting)?\b(?P<rest>.*)$", re.I)
_FORCE_RE = _re(r"\bforce[- ]?push(?:es|ing)?\b|\bpush(?:es|ing)?\s+(?:--force|-f)\b", re.I)
_BRANCH_RE = _re(
    rf"\b(?:to|on|onto|into|at|directly\s+to|straight\s+to)?\s*(?:the\s+)?(?:`)?(?P<b>{'|'.join(BRANCHES)})(?:`)?(?:\s+branch)?\b",
    re.I,
)
_PREFER_RE = _re(
    r"(?:^|\b)(?:(?:we|i)\s+(?:use|prefer|want)\s+|use\s+|prefer\s+|always\s+use\s+|stick\s+(?:to|with)\s+|"
    r"go\s+with\s+|it'?s\s+)?(?P<x>`[^`]+`|[\w.@/+-]+)\s*(?:,\s*)?(?:not|instead\s+of|rather\s+than|over|"
    r"and\s+not|never|,\s*never|not\s+ever)\s+(?P<y>`[^`]+`|[\w.@/+-]+)",
    re.I,
)
_ONLY_RE = _re(
    r"^(?:(?:we|i)\s+(?:use|want)\s+|use\s+)?(?:(?:only|always)\s+(?:use\s+)?(?P<a>`[^`]+`|[\w.@/+-]+)|"
    r"(?P<b>`[^`]+`|[\w.@/+-]+)\s+only)\b"
    r"(?=\s*(?:$|[,.;:!?\u2014\u2013]|\s+(?:here|please|from\s+now|for|in|on|going)\b))",
    re.I,
)
# the ways of saying "run X": run, execute, "format with X", "regenerate with X"
_RUN_VERB = (
    r"(?:re-?run|run|execute|(?:re-?)?(?:generate|build|format|compile|lint|check)\s+"
    r"(?:it\s+|them\s+|everything\s+|the\s+code\s+)?(?:with|using|via))"
)
_YOU_HAVE = r"(?:you(?:'ve|\s+have)?\s+)?"
_AFTER_RE = _re(
    r"(?:^|\b)(?:always\s+|make\s+sure\s+(?:to|you)\s+|be\s+sure\s+to\s+|remember\s+to\s+|you\s+must\s+|"
    r"please\s+)?(?:"
    + _RUN_VERB
    + r"|do)\s+(?P<x>.+?)\s+(?:(?:after|whenever|every\s+time|each\s+time|"
    r"once)\s+" + _YOU_HAVE + r"(?:edit|chang|touch|modif|updat|writ|sav)\w*\s+"
    r"(?:any\s+|a\s+|the\s+)?(?P<y>.+)|after\s+(?:every|each|any)\s+(?:change|edit)s?)$",
    re.I,
)
_AFTER_LEAD_RE = _re(
    r"^(?:after|whenever|when|every\s+time|each\s+time|once)\s+"
    + _YOU_HAVE
    + r"(?:edit|chang|touch|modif|"
    r"updat|writ|sav)\w*\s+(?:any\s+|a\s+|the\s+)?(?P<y>.+?)[,;:]?\s+(?:always\s+|make\s+sure\s+(?:to|you)\s+|"
    r"you\s+must\s+|please\s+)?" + _RUN_VERB + r"\s+(?P<x>.+)$",
    re.I,
)
# "whenever something in api/ changes, run X"
_CHANGES_LEAD_RE = _re(
    r"^(?:after|whenever|when|once|every\s+time|each\s+time|if)\s+(?:anything|something|a\s+file|"
    r"any\s+file|files?|code)\s+(?:in|under|inside)\s+(?P<y>\S+?)[,]?\s+(?:changes|is\s+changed|"
    r"(?:has\s+)?changed|is\s+edited)[,;:]?\s+(?:always\s+|please\s+)?"
    + _RUN_VERB
    + r"\s+(?P<x>.+)$",
    re.I,
)
_BEFORE_RE = _re(
    r"(?:^|\b)(?:always\s+|make\s+sure\s+(?:to|you)\s+|remember\s+to\s+|you\s+must\s+|please\s+)?"
    r"(?:re-?run|run|execute)\s+(?P<x>.+?)\s+(?:before|prior\s+to|ahead\s+of)\s+(?:you\s+)?(?P<y>.+)$",
    re.I,
)
_BEFORE_LEAD_RE = _re(
    r"^(?:before|prior\s+to)\s+(?:you\s+)?(?P<y>.+?)[,;:]?\s+(?:always\s+|make\s+sure\s+(?:to|you)\s+|"
    r"you\s+must\s+|please\s+)?(?:re-?run|run|execute)\s+(?P<x>.+)$",
    re.I,
)
_MUST_PASS_RE = _re(
    r"^(?P<x>.+?)\s+(?:must|should|have\s+to|has\s+to|need\s+to|needs\s+to)\s+(?:pass|be\s+green|"
    r"succeed|run|be\s+run)\s+(?:before|prior\s+to)\s+(?:you\s+|any\s+|a\s+|every\s+)?(?P<y>.+)$",
    re.I,
)
_NO_BEFORE_RE = _re(
    r"^(?:never|don'?t|do\s+not)\s+(?P<y>\w+.*?)\s+(?:before|without|until)\s+(?:you\s+(?:have\s+)?)?"
    r"(?:(?:re-?run|run|execute)(?:ning)?\s+)?(?P<x>.+?)(?:\s+(?:pass(?:es)?|first|green|succeeds?))*$",
    re.I,
)
_NOUN_COMMANDS = {
    name: {"class": "test"}
    for name in (
        "tests",
        "test",
        "the tests",
        "the test suite",
        "test suite",
        "unit tests",
        "the unit tests",
        "your tests",
        "all tests",
        "all the tests",
        "the specs",
        "specs",
    )
}
_NOUN_COMMANDS.update(
    {
        name: {"class": "lint"}
        for name in (
            "lint",
            "the linter",
            "linter",
            "linters",
            "linting",
            "the linters",
            "a lint",
            "lints",
        )
    }
)
_NOUN_COMMANDS.update(
    {
        name: {"class": "typecheck"}
        for name in (
            "the type checker",
            "type checker",
            "the typechecker",
            "typechecker",
            "typecheck",
            "the typecheck",
            "type check",
            "type checks",
            "the type checks",
            "a type check",
            "types",
        )
    }
)
_NOUN_COMMANDS.update(
    {
        name: {"class": "format"}
        for name in ("the formatter", "formatter", "a formatter", "the code formatter")
    }
)
_ACTION_COMMANDS = {
    "push": {"program": "git", "sub": ["push"]},
    "pushing": {"program": "git", "sub": ["push"]},
    "commit": {"program": "git", "sub": ["commit"]},
    "committing": {"program": "git", "sub": ["commit"]},
    "deploy": None,
    "merge": {"program": "git", "sub": ["merge"]},
    "merging": {"program": "git", "sub": ["merge"]},
    "tag": {"program": "git", "sub": ["tag"]},
    "publish": {"program": "npm", "sub": ["publish"]},
    "publishing": {"program": "npm", "sub": ["publish"]},
}
_EXT_WORDS = {
    "ts": "*.ts",
    "typescript": "*.ts",
    "tsx": "*.tsx",
    "js": "*.js",
    "javascript": "*.js",
    "python": "*.py",
    "py": "*.py",
    "css": "*.css",
    "scss": "*.scss",
    "go": "*.go",
    "rust": "*.rs",
    "rs": "*.rs",
    "markdown": "*.md",
    "md": "*.md",
    "docs": "docs/",
    "sql": "*.sql",
    "yaml": "*.yaml",
    "yml": "*.yml",
    "json": "*.json",
    "html": "*.html",
    "java": "*.java",
    "ruby": "*.rb",
    "rb": "*.rb",
    "swift": "*.swift",
    "kotlin": "*.kt",
    "c": "*.c",
    "cpp": "*.cpp",
    "php": "*.php",
    "vue": "*.vue",
    "svelte": "*.svelte",
    "jsx": "*.jsx",
}
_RULE_CUE = _re(
    rf"(?:^|\b){_NEG}\b|\b(?:always|must|make\s+sure|remember\s+to|instead\s+of|rather\s+than|"
    r"only\s+use|prefer|from\s+now\s+on|going\s+forward|every\s+time|whenever|before\s+you|after\s+you|"
    r"we\s+use|stick\s+to|use\s+\S+\s+not|only|(?:re-?run|run)\b.+\b(?:before|after)|alone|"
    r"off[- ]limits|read[- ]only|hands\s+off|(?:must|should|need\s+to)\s+pass|"
    r"(?:is|are)\s+(?:forbidden|banned|prohibited|not\s+allowed|a\s+no[- ]go)|"
    r"as\s+(?:it|they)\s+(?:is|are)|,\s*not\s|"
    r"^after\b|^before\b|^once\s+you|^(?:when(?:ever)?|if)\s+(?:anything|something|a\s+file|"
    r"any\s+file|files?|code)\s+(?:in|under|inside)\s+\S+\s+(?:changes|is\s+changed|changed)|^when(?:ever)?\s+you\s+(?:edit|chang|touch|modif|updat)\w*)\b",
    re.I,
)
_STOP_WORDS = _re(
    r"\s+(?:in|on|inside|within|for|when|while|because|since|unless|except|without|anymore|any\s+more|"
    r"ever|again|please|at\s+all|directly|yourself|by\s+hand|manually|by|for\s+now|here|there|files?|folders?|directory|"
    r"directories|dir)\b.*$",
    re.I,
)


@dataclass
class Distilled:
    """What a sentence becomes: a check (with its scope), or why it could not."""

    sentence: str
    check: dict | None = None
    scope: str | None = None  # "project" or "all" when the sentence says so
    reason: str = ""
    rule: bool = False  # the sentence reads as a rule at all
    shape: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.check is not None


def sentences(text: str) -> list[str]:
    """Split a prompt into sentences, keeping code spans and paths whole."""
    spans = re.split(r"(?<=[.!?])\s+(?=[A-Z`\"'])|\n+", text.strip())
    return [s.strip() for s in spans if s and s.strip()]


def looks_like_rule(sentence: str) -> bool:
    return bool(_RULE_CUE.search(sentence))


def distill(text: str) -> Distilled:
    """The check one sentence (or the first rule-like sentence of a text) becomes."""
    parts = sentences(text) or [text]
    rules = [s for s in parts if looks_like_rule(s)]
    if not rules:
        return Distilled(text.strip(), reason="not a rule: no never/don't/always/use X not Y")
    best = None
    for s in rules:
        before = parts[parts.index(s) - 1] if parts.index(s) else ""
        result = _one(s, before)
        if result.ok:
            return result
        best = best or result
    return best or Distilled(text.strip(), reason="no shape fits")


def _one(sentence: str, before: str = "") -> Distilled:
    original = sentence.strip()
    scope = _scope(original)
    where = _where(original) or []
    text = _clean(original)
    prose = bool(where) and any(w.startswith(("docs", "*.md", "README")) for w in where)
    for shape in (_after, _before, _prefer, _only, _negated):
        check = _negated(text, prose, before) if shape is _negated else shape(text)
        if check is None:
            continue
        narrows = check.get("kind") == "phrase" or (
            check.get("kind") == "tool"
            and where
            and all(w.endswith("/") or w.startswith("*") for w in where)
            and not prose
        )
        if narrows and where and "paths" not in check:
            check["paths"] = where
        problem = checks.validate(check)
        if problem:
            return Distilled(original, reason=problem, rule=True)
        if not scope:
            scope = _inferred_scope(check)
        return Distilled(original, check, scope, rule=True, shape=shape.__name__.strip("_"))
    return Distilled(original, reason="no check shape fits this sentence", rule=True)


def _clean(sentence: str) -> str:
    text = sentence.strip().strip("*_").strip()
    text = _POLITE.sub("", text)
    text = _SCOPE_PROJECT.sub(" ", text)
    text = _SCOPE_ALL.sub(" ", text)
    text = _protect_quotes(text)
    text = _strip_reason(text)
    text = text.replace("\u2019", "'")
    text = re.sub(r"[.!?]+$", "", text).strip()
    text = re.sub(r"^(?:and|but|also|so)\s+", "", text, flags=re.I)
    return _restore_quotes(re.sub(r"\s+", " ", text))


# a clause after the rule that comments on it: "— that's the old code", ", it has the keys",
# "; use the logger"
_AFTERTHOUGHT = _re(
    r"\s+[\u2014\u2013]\s*.*$|\s+-\s+.*$|\s*[\u2014\u2013]\s+.*$|"
    r"\s*[,;]\s*(?:it|they|those|these|that|this|he|she|which|there|use|try|prefer|go\s+with|"
    r"stick\s+(?:to|with)|ask\s+me|add|i|i'm|we|you'll|you\s+can|instead)\b.*$",
    re.I,
)


def _strip_reason(text: str) -> str:
    """The rule without what follows it: a reason, an aside, the thing to do instead. Only
    text after the rule's own cue is looked at: "we deploy through the pipeline, so never run
    X" keeps its rule."""
    cue = _RULE_CUE.search(text)
    start = cue.start() if cue else 0
    head, tail = text[:start], text[start:]
    skip = cue.end() - cue.start() if cue else 0  # the cue itself ("as it is" is no reason)
    for pattern in (_REASON, _AFTERTHOUGHT):
        m = pattern.search(tail, skip)
        if m:
            tail = tail[: m.start()]
    return head + tail


_PROTECT: list[str] = []


def _protect_quotes(text: str) -> str:
    """Quoted spans hold the thing itself: keep reasons and scope words out of them."""

    def keep(m: re.Match) -> str:
        _PROTECT.append(m.group(0))
        return f"\x00{len(_PROTECT) - 1}\x00"

    _PROTECT.clear()
    return _QUOTED.sub(keep, text)


def _restore_quotes(text: str) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: _PROTECT[int(m.group(1))], text)


def explicit_scope(sentence: str) -> str | None:
    """The scope the sentence's own words give ("in this repo", "everywhere"), or None."""
    return _scope(sentence)


def _scope(sentence: str) -> str | None:
    if _SCOPE_ALL.search(sentence):
        return "all"
    if _SCOPE_PROJECT.search(sentence):
        return "project"
    return None


def _inferred_scope(check: dict) -> str:
    """ADR §8: paths, project commands and owed runs belong to the project; style to all."""
    kind = check.get("kind")
    if kind == "phrase":
        return "all"
    if kind in ("path", "after"):
        return "project"
    if check.get("paths"):
        return "project"
    return "all"


def _where(sentence: str) -> list[str] | None:
    m = _DOC_SCOPE.search(_protect_quotes(sentence))
    if not m:
        return None
    where = (m.group("where") or "").lower()
    if m.group("prep").lower() == "on" and not re.search(r"files?$|/$", where):
        return None  # "on main", "on fridays": no files
    if m.group("ext") or m.group("ext2"):
        return [f"*.{(m.group('ext') or m.group('ext2')).lower()}"]
    if m.group("lang"):  # "in TypeScript": its files ("for python deps" is no place)
        inside = m.group("prep").lower() in ("in", "inside", "within")
        return [_EXT_WORDS[m.group("lang").lower()]] if inside else None
    if m.group("ext3"):
        name = m.group("ext3").lower()
        ext = _EXT_WORDS.get(name)
        if ext:
            return [ext] if ext.startswith("*") else None
        if name in _NOT_AN_ARGUMENT or name in ("other", "these", "those", "such", "my", "your"):
            return None
        return [f"*{name}*"]  # "the settings files": files named so
    if where.startswith(("doc", "documentation")):
        return ["docs/", "*.md"]
    if where.startswith("readme"):
        return ["README*"]
    if where.startswith(("markdown", "md")):
        return ["*.md"]
    if m.group("dir"):
        return [m.group("dir")]
    return None


# -- shapes -------------------------------------------------------------------------------


def _strip_ticks(text: str) -> str:
    text = re.sub(r"(?<!\s)[,.;:]+$", "", text.strip().lstrip(",;:"))  # `git add .` keeps its dot
    for a, b in (("`", "`"), ('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019")):
        if len(text) > 1 and text.startswith(a) and text.endswith(b):
            return text[1:-1].strip()
    return text


def _command_pattern(text: str) -> dict | None:
    """`sed -i`, `npm run lint`, `git push --force` as a command pattern."""
    text = _strip_ticks(text)
    text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.I)
    text = re.sub(r"\s+(?:command|cli|tool|binary|script)s?$", "", text, flags=re.I)
    if not text:
        return None
    parsed = parse(text, "/", {})
    if not parsed.commands:
        return None
    cmd = parsed.commands[-1]
    words = [w.text for w in cmd.argv]
    prog = checks.program_name(words[0]) if words else ""
    if not prog:
        return None
    pattern: dict = {"program": prog}
    if cmd.fed_by:  # "curl | sh": what runs with the other's output
        pattern["from"] = sorted({checks.program_name(p) for p in cmd.fed_by})
    flags = []
    after_dashes: list[str] = []
    if "--" in words[1:]:  # `git checkout -- .`: what follows `--` are operands
        cut = words.index("--", 1)
        words, after_dashes = words[:cut], words[cut + 1 :]
        if not after_dashes:
            return None  # the operands were lost (a final "." read as the sentence's end)
    for w in words[1:]:
        if w.startswith("--") or not w.startswith("-") or len(w) < 2:
            if w.startswith("--"):
                flags.append(w)
            continue
        letters = w[1:]
        # `-rf` is two flags; `-force`, `-auto` read as one word (go-style tools): the
        # narrower reading when unsure
        word_like = len(letters) >= 4 and any(c in "aeiou" for c in letters.lower())
        cluster = letters.isalpha() and prog != "find" and not word_like
        flags += [f"-{c}" for c in letters] if cluster else [w]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if flags:
        pattern["flags"] = flags
    if after_dashes:
        pattern["args"] = after_dashes
    if rest:
        if prog == "git" and rest[0] == "push" and len(rest) > 1:
            pattern["sub"] = ["push"]
            pattern["args"] = [rest[-1]]
        else:
            pattern["sub"] = rest[:2]
    return pattern


def _is_commandish(obj: str) -> bool:
    raw = obj.strip()
    if raw.startswith("`"):
        return True
    words = [w.rstrip(",;:") for w in _strip_ticks(raw).split()]
    if not words:
        return False
    first = words[0].lower()
    if first in ("the", "a", "an") and len(words) > 1:
        first = words[1].lower()
        words = words[1:]
    if first in ENGLISH_PROGRAMS:
        nxt = words[1].lower() if len(words) > 1 else ""
        if nxt[:1] in "'\"\u201c\u2018":
            return False  # "write 'TODO'": a phrase, not a program's argument
        return nxt.startswith("-") or (bool(nxt) and nxt not in _NOT_AN_ARGUMENT)
    if first in KNOWN_PROGRAMS or checks.program_name(first) in KNOWN_PROGRAMS:
        return True
    if len(words) > 1 and words[1].startswith("-"):
        return True
    # "the deploy command": a name right before the word command
    return bool(re.match(r"^(?:the\s+)?`?[\w.-]+`?\s+(?:command|cli)\b", raw, re.I))


def _pathish(obj: str) -> list[str] | None:
    named = re.search(r"\(\s*`?([^()\s`]+)`?\s*\)", obj)
    if named and named.group(1) != obj.strip():  # "the seed data (fixtures/seed.json)"
        return _pathish(named.group(1))
    inside = re.match(
        r"^(?:the\s+|any\s+|all\s+)?(?:[\w-]+\s+){0,2}(?:files?|code|stuff|things|anything|"
        r"everything)\s+(?:in|under|inside|within)\s+(?:the\s+)?`?(?P<p>[\w.*-]*/[\w./*-]*)`?",
        obj.strip(),
        re.I,
    )
    if inside:  # "generated files in gen/": the path said, not the files' name
        return [inside.group("p")]
    raw = _strip_ticks(obj)
    raw = re.sub(
        r"^(?:the|any|anything\s+in|anything\s+under|files?\s+in|files?\s+under|"
        r"stuff\s+in|what'?s\s+in|code\s+in|the\s+files?\s+in|in)\s+",
        "",
        raw,
        flags=re.I,
    )
    raw = re.sub(r"^(?:the|any)\s+", "", raw, flags=re.I)
    named = re.match(r"^(?P<n>[\w.*-]+)\s+(?:folder|directory|dir|files?|file)\b", raw, re.I)
    if named:
        name = named.group("n")
        if name.lower() in ("lock", "lockfile"):
            return ["*.lock", "package-lock.json"]
        if name.lower() in _EXT_WORDS and named.group(0).lower().endswith(("file", "files")):
            return [_EXT_WORDS[name.lower()]]
        suffix = "" if "." in name or "*" in name else "/"
        return [name + suffix]
    raw = _STOP_WORDS.sub("", raw).strip()
    if raw.lower() in ("lockfile", "lockfiles", "the lockfile", "lock files", "lock file"):
        return ["*.lock", "package-lock.json", "pnpm-lock.yaml"]
    tokens = [t.strip(",") for t in re.split(r"\s+(?:or|and|,)\s+|,\s*|\s+", raw) if t.strip(",")]
    out = []
    for t in tokens:
        t = _strip_ticks(t)
        if "/" in t or re.search(r"\.[A-Za-z0-9]{1,8}$", t) or t.startswith(("*", ".")):
            out.append(t)
        elif re.fullmatch(r"[A-Z][a-z]*file|LICENSE|README|CODEOWNERS|CHANGELOG|NOTICE|AUTHORS", t):
            out.append(t)  # Dockerfile, Makefile, Gemfile: a file with no extension
        elif t.lower() in ("migrations", "vendor", "dist", "build", "node_modules", "generated"):
            out.append(t + "/")
        else:
            return None
    return out or None


def _phrase_of(obj: str) -> str | None:
    raw = obj.strip()
    m = _QUOTED.search(raw)
    if m:
        return next(g for g in m.groups() if g)
    raw = re.sub(
        r"^(?:the\s+)?(?:word|phrase|term|expression|words|phrases)s?\s+(?:like\s+)?",
        "",
        raw,
        flags=re.I,
    )
    low = raw.lower().strip(" .,")
    for name, char in NAMED_CHARS.items():
        if low == name or low.startswith(name + " "):
            return char
    raw = _STOP_WORDS.sub("", raw).strip(" .,")
    words = raw.split()
    if 1 <= len(words) <= 3 and all(re.match(r"^[\w'-]+$", w) for w in words):
        return raw
    return None


# what people call a git or package operation in plain words, as the command that does it
_ACTIONS: tuple[tuple[re.Pattern[str], dict], ...] = tuple(
    (_re(said + r"\b", re.I), pattern)
    for said, pattern in (
        (
            r"^(?:delet|remov)\w*\s+(?:a\s+|any\s+|the\s+)?(?:remote|pushed|upstream|"
            r"origin'?s?)\s+branch(?:es)?",
            {"program": "git", "sub": ["push"], "flags": ["--delete"]},
        ),
        (
            r"^(?:delet|remov)\w*\s+(?:a\s+|any\s+|the\s+)?branch(?:es)?\s+(?:on|from|in)\s+"
            r"(?:the\s+)?(?:remote|origin|upstream|github|gitlab)",
            {"program": "git", "sub": ["push"], "flags": ["--delete"]},
        ),
        (
            r"^(?:delet|remov)\w*\s+(?:a\s+|any\s+|the\s+)?(?:remote|pushed|upstream)\s+tags?",
            {"program": "git", "sub": ["push"], "flags": ["--delete"]},
        ),
        (
            r"^push\w*\s+(?:the\s+|any\s+|all\s+|our\s+)?(?:git\s+)?tags",
            {"program": "git", "sub": ["push"], "flags": ["--tags"]},
        ),
        (
            r"^amend\w*\s+(?:a\s+|any\s+|the\s+|my\s+)?(?:\w+\s+)?commits?",
            {"program": "git", "sub": ["commit"], "flags": ["--amend"]},
        ),
        (
            r"^(?:skip|bypass)\w*\s+(?:the\s+)?(?:git\s+|pre-commit\s+|commit\s+)*hooks?",
            {"program": "git", "flags": ["--no-verify"]},
        ),
        (
            r"^install\w*\s+(?:\w+\s+)?(?:npm\s+)?(?:packages?|modules?|deps|dependencies)\s+"
            r"globally|^install\w*\s+(?:any\s+)?global\s+(?:npm\s+)?(?:packages?|modules?)",
            {"program": "npm", "sub": ["install"], "flags": ["--global"]},
        ),
    )
)
# "pipe curl into bash", "piping wget to sh"
_PIPE_RE = _re(
    r"^pip(?:e|es|ing)\s+(?:the\s+output\s+of\s+)?(?P<a>[\w.-]+)\s+(?:output\s+)?(?:in)?to\s+"
    r"(?:a\s+|the\s+)?(?P<b>sh|bash|zsh|a\s+shell|shell)\b",
    re.I,
)

_ALONE_RE = _re(
    r"^(?:please\s+)?(?:leave|let)\s+(?P<obj>.+?)\s+(?:alone|be|as\s+(?:it|they)\s+(?:is|are)|"
    r"as\s+is|untouched|unchanged|the\s+way\s+(?:it|they)\s+(?:is|are))$|"
    r"^(?P<obj2>.+?)\s+(?:is|are)\s+(?:off[- ]limits|read[- ]only|untouchable|sacred|frozen)$",
    re.I,
)
# "X is off limits", "X is not allowed", "X is banned": X is the thing itself, a command or
# an action ("pushing to main is a no-go")
_BANNED_RE = _re(
    r"^(?P<obj>.+?)\s+(?:is|are)\s+(?:(?:strictly|absolutely|totally|completely)\s+)?"
    r"(?:off[- ]limits|forbidden|banned|prohibited|not\s+(?:allowed|ok|okay|permitted)|"
    r"a\s+no[- ]go|verboten|out\s+of\s+the\s+question)$",
    re.I,
)


def _negated(text: str, text_scope: bool = False, before: str = "") -> dict | None:
    alone = _ALONE_RE.match(text)
    if alone:
        found = _pathish(alone.group("obj") or alone.group("obj2"))
        if found or not alone.group("obj2"):
            return {"kind": "path", "paths": found} if found else None
    banned = _BANNED_RE.match(text)
    if banned:
        obj = banned.group("obj")
        found = None if _is_commandish(obj) else _pathish(obj)
        if found:
            return {"kind": "path", "paths": found}
        return _negated(f"never {obj}", text_scope) if not _BANNED_RE.match(obj) else None
    m = _NEG_RE.search(text)
    if not m:
        return None
    rest = m.group("rest").strip()
    rest = re.sub(r"^(?:(?:ever|even|you|to|be|the\s+habit\s+of|dare)\s+)+", "", rest, flags=re.I)
    stop = re.match(r"^(?:.*\s)?(?:stop|quit)$", m.group("neg"), re.I)
    if stop and not re.match(r"^(?:`|(?:[\w-]+\s+)?\w+ing\b)", rest, re.I):
        return None  # "stop the container" asks for now; "stop pushing" is a rule
    flag = re.match(
        r"^(?:(?:use|using|pass|passing|add|adding)\s+(?:the\s+)?)?"
        r"`?(?P<f>--?[A-Za-z][\w-]*)`?(?:\s+(?:flags?|options?))?"
        r"(?:\s*,?\s*(?:ever|again|please|thanks|at\s+all|anywhere)\W*)*$",
        rest,
        re.I,
    )
    if flag:  # "terraform apply only from a plan. never -auto-approve": the flag of that command
        prefix = text[: m.start()]
        named = _leading_command(prefix, loose=prefix.rstrip().endswith(":"))
        named = named or _leading_command(_clean(before))
        if not named and re.fullmatch(r"--[a-z]+(?:-[a-z]+)+|--[a-z]{4,}", flag.group("f")):
            # "no --no-verify": a long flag that means one thing whatever runs it
            return {"kind": "tool", "command": {"flags": [flag.group("f")]}}
        pattern = _command_pattern(f"{named} {flag.group('f')}") if named else None
        return {"kind": "tool", "command": pattern} if pattern else None
    edits = re.match(
        r"^(?:edits|changes|writes|modifications)\s+(?:to|in|under)\s+(?P<o>.+)$", rest
    )
    if edits:  # "no edits to package.json without asking"
        found = _pathish(edits.group("o"))
        return {"kind": "path", "paths": found} if found else None
    if m.group("neg").lower().startswith(("hands", "keep", "stay")):
        found = _pathish(rest)  # "hands off X", "keep out of X", "stay away from X": a place
        if found:
            return {"kind": "path", "paths": found}
    call = _CONSTRUCT_RE.match(rest)
    if call:  # "no print() left in src/": code that must not be written, as its call
        return {"kind": "phrase", "phrase": call.group("c") + "("}
    dotted = re.match(
        r"^(?:(?:ever|leave|leaving|commit|committing|add|adding|write|writing|use|using|ship|any|"
        r"more|stray|the)\s+)*(?=" + _DOTTED + r")(?P<c>[\w.]+)",
        rest,
        re.I,
    )
    if dotted and dotted.group("c").rsplit(".", 1)[1].lower() not in _EXT_WORDS:
        return {"kind": "phrase", "phrase": dotted.group("c")}  # "main.go code" is a file
    for said, pattern in _ACTIONS:
        if said.match(rest):
            return {"kind": "tool", "command": dict(pattern)}
    piped = _PIPE_RE.match(rest)
    if piped and _is_commandish(piped.group("a")):
        into = piped.group("b").lower()
        into = "sh" if into.endswith("shell") else into  # any shell: `pattern_programs`
        return {"kind": "tool", "command": {"program": into, "from": [piped.group("a").lower()]}}
    if _FORCE_RE.search(rest):
        pattern = {"program": "git", "sub": ["push"], "flags": ["--force"]}
        forced = _FORCE_RE.search(rest)
        b = _BRANCH_RE.search(rest[forced.end() :]) if forced else None
        if b:
            pattern["args"] = [b.group("b").lower()]
        return {"kind": "tool", "command": pattern}
    push = _PUSH_RE.match(rest)
    if push:
        b = _BRANCH_RE.search(push.group("rest"))
        if b:
            return {
                "kind": "tool",
                "command": {"program": "git", "sub": ["push"], "args": [b.group("b").lower()]},
            }
        if not push.group("rest").strip():
            return {"kind": "tool", "command": {"program": "git", "sub": ["push"]}}
        return None
    commit = _COMMIT_RE.match(rest)
    if commit:
        b = _BRANCH_RE.search(commit.group("rest"))
        if b:
            return {
                "kind": "tool",
                "command": {"program": "git", "sub": ["commit"], "branch": b.group("b").lower()},
            }
        flags = re.findall(r"(--?[\w-]+)", commit.group("rest"))
        if flags:
            return {
                "kind": "tool",
                "command": {"program": "git", "sub": ["commit"], "flags": flags},
            }
        return None
    tool = _claude_tool(rest)
    if tool:
        return {"kind": "tool", "tool": tool}
    seen = re.match(r"^(?:want\s+to\s+)?(?:see|read|find|spot)\s+(?P<obj>.+)$", rest, re.I)
    if seen and _is_commandish(seen.group("obj")):  # "never want to see rm -rf again"
        pattern = _command_pattern(_command_words(seen.group("obj")))
        return {"kind": "tool", "command": pattern} if pattern else None
    if seen:
        phrase = _phrase_of(seen.group("obj"))
        if phrase and (_QUOTED.search(seen.group("obj")) or _WORDISH.match(seen.group("obj"))):
            return {"kind": "phrase", "phrase": phrase}
    if _WORDISH.match(rest):
        phrase = _phrase_of(rest)
        if phrase:
            return {"kind": "phrase", "phrase": phrase}
    words = rest.split()
    if rest.startswith("`") or (
        len(words) > 1 and words[0] in KNOWN_PROGRAMS and words[1][:1] == "-"
    ):
        pattern = _command_pattern(_command_words(rest))
        return {"kind": "tool", "command": pattern} if pattern else None
    file_verb = _FILE_VERB_RE.match(rest)
    if file_verb:
        obj = file_verb.group("obj")
        if re.fullmatch(
            r"(?:it|them)\b.*", obj, re.I
        ):  # "the lockfile is generated, don't edit it"
            obj = _subject(text[: m.start()]) or obj
        found = _pathish(obj)
        if found:
            return {"kind": "path", "paths": found}
        return None
    say = _SAY_VERB_RE.match(rest)
    if say and not _is_commandish(say.group("obj")):
        phrase = _phrase_of(say.group("obj"))
        if phrase and not _pathish(say.group("obj")) and _said_as_text(say, text_scope):
            return {"kind": "phrase", "phrase": phrase}
        if not _QUOTED.search(say.group("obj")):
            return None  # "don't write long functions", "never add comments": no phrase
    use = _USE_VERB_RE.match(rest)
    if use:
        obj = use.group("obj")
        token = re.match(r"^`(?P<t>[^`\s]+)`\s+(?:in|inside|within)\s", obj)
        in_code = token and (m_where := _DOC_SCOPE.search(obj)) and m_where.group("lang")
        if token and in_code and token.group("t").lower() not in KNOWN_PROGRAMS:
            return {"kind": "phrase", "phrase": token.group("t")}  # "no `any` in TypeScript"
        if _is_commandish(obj):
            pattern = _command_pattern(_command_words(obj))
            return {"kind": "tool", "command": pattern} if pattern else None
        word = _phrase_of(obj)
        if word and (
            _QUOTED.search(obj) or re.match(r"^(?:the\s+)?(?:word|phrase|term)", obj, re.I)
        ):
            return {"kind": "phrase", "phrase": word}
        if word and text_scope:
            return {"kind": "phrase", "phrase": word}
        named = _STOP_WORDS.sub("", obj).lower().strip(" .,")
        for name, char in NAMED_CHARS.items():
            if named == name:
                return {"kind": "phrase", "phrase": char}
        return None
    # "no `sed -i`", "never `rm -rf`": the thing itself after the negation; "kill the server
    # with kill -9": the command it is done with
    if rest.startswith("`") or _is_commandish(rest) or _INSTRUMENT_RE.search(rest):
        pattern = _command_pattern(_command_words(rest))
        return {"kind": "tool", "command": pattern} if pattern else None
    bare = _STOP_WORDS.sub("", rest).lower().strip(" .,")
    for name, char in NAMED_CHARS.items():
        if bare == name:
            return {"kind": "phrase", "phrase": char}
    return None


# a call in code, named with its parentheses: `print()`, console.log(), `dbg!()`
_CONSTRUCT_RE = _re(
    r"^(?:(?:ever|even|leave|leaving|commit|committing|add|adding|write|writing|put|putting|"
    r"use|using|ship|shipping|keep|any|the|stray|more|new)\s+)*`?(?P<c>[A-Za-z_][\w.:]*!?)\(\)`?"
    r"(?=\s|$)",
    re.I,
)


_INSTRUMENT_RE = _re(
    r"\b(?:with|using|via)\s+(?:the\s+)?(?P<c>`[^`]+`|[\w./-]+(?:\s+[\w./-]+)?\s+--?[\w-]+.*)$",
    re.I,
)


_NOT_A_SUBCOMMAND = frozenset(
    """only from with without in on to when unless if is are must should always never for and
    or but except via using by at of the a an it this that""".split()
)


def _subject(text: str) -> str | None:
    """What "it" stands for in "the lockfile is generated, don't edit it": the noun phrase the
    text opens with, before its verb."""
    m = re.match(r"^(?P<s>.+?)\s+(?:is|are|was|were|gets|get|has|have)\b", text.strip(), re.I)
    return m.group("s") if m and len(m.group("s").split()) <= 4 else None


def _leading_command(text: str, loose: bool = False) -> str | None:
    """The command a sentence opens with ("terraform apply only from a plan" → terraform
    apply), or None when it opens with no program. `loose`: the text is only a heading for
    the rule ("For packer build: never -force"), so its first word names a program."""
    text = re.sub(
        r"^(?:for|with|when\s+(?:using|running|you\s+run)|in|on)\s+", "", text.strip(), flags=re.I
    )
    words = _strip_ticks(text.strip(" :,;.")).split()
    if not words or words[0].lower() in ENGLISH_PROGRAMS:
        return None
    if loose:
        if len(words) > 3 or not re.fullmatch(r"[a-z][\w.-]*", words[0]):
            return None
        if words[0] in _NOT_A_SUBCOMMAND or words[0] in _NOT_AN_ARGUMENT:
            return None
    elif not _is_commandish(words[0]):
        return None
    out = [words[0]]
    for w in words[1:3]:
        if not re.fullmatch(r"[a-z][\w-]*", w) or w in _NOT_A_SUBCOMMAND:
            break
        out.append(w)
    return " ".join(out)


def _said_as_text(say: re.Match, prose: bool) -> bool:
    """Is the object of "say/write/add X" the words themselves? Quoted, "the word X", a named
    character, or said of prose ("in docs never write X"); "never say sorry" too, but not
    "don't write tests" or "never add comments", which name things, not words."""
    obj, verb = say.group("obj"), say.group("verb").lower()
    if _QUOTED.search(obj) or _WORDISH.match(obj) or verb.startswith("use") or prose:
        return True
    if _STOP_WORDS.sub("", obj).lower().strip(" .,") in NAMED_CHARS:
        return True
    first = obj.split()[0].lower() if obj.split() else ""
    return verb in ("say", "saying") and first not in _NOT_AN_ARGUMENT


def _command_words(obj: str) -> str:
    """The command part of an object phrase: the backticked span, or the words up to a stop."""
    m = re.search(r"`([^`]+)`", obj)
    if m:
        return m.group(1)
    obj = obj.split(",")[0]
    # "kill the server with kill -9": the instrument is the command; "pytest with -x": the
    # flags belong to it
    instrument = _INSTRUMENT_RE.search(obj)
    if instrument and _is_commandish(instrument.group("c")):
        obj = instrument.group("c")
    else:
        instrument = None
    flags = re.search(
        r"\s+(?:with|using|passing|and)\s+(?:the\s+)?(?P<f>(?:--?[\w-]+(?:\s+|$))+)"
        r"(?:(?:flags?|options?|switch(?:es)?)\b)?",
        obj,
        re.I,
    )
    if flags and not instrument:
        obj = obj[: flags.start()] + " " + flags.group("f")
    obj = _STOP_WORDS.sub("", obj)
    obj = re.sub(
        r"\s+(?:to|for|and|or|with|on|at|so|anything|everything|something|stuff|things|"
        r"whatsoever)(?:\s+.*)?$",
        "",
        obj,
        flags=re.I,
    )
    return obj.strip(" .,")


def _claude_tool(rest: str) -> str | None:
    low = rest.lower()
    low = re.sub(r"^(?:use|using|call|calling|run|spawn|spawning|launch|launching)\s+", "", low)
    low = re.sub(r"^the\s+", "the ", low).strip(" .")
    for name, tool in TOOL_NAMES.items():
        if low == name or low.startswith(name + " ") or low == f"the {name}":
            return tool
    # "the WebSearch tool", "the grep tool": Claude Code's own tool, named as one
    named = re.match(r"^(?:the\s+)?`?(?P<n>[a-z]+)`?\s+tool\b", low)
    if named and named.group("n") in CLAUDE_TOOLS:
        return CLAUDE_TOOLS[named.group("n")]
    return None


def _prefer(text: str) -> dict | None:
    m = _PREFER_RE.search(text)
    if not m:
        return None
    x, y = _strip_ticks(m.group("x")), _strip_ticks(m.group("y"))
    if x.lower() == y.lower():
        return None
    y_words = y.split()
    if not y_words or (not _is_commandish(m.group("y")) and y.lower() not in _family_members()):
        return None
    pattern = _command_pattern(y)
    if not pattern:
        return None
    return {"kind": "tool", "command": pattern, "instead": x}


def _family_members() -> set[str]:
    return {name for family in FAMILIES for name in family}


def _only(text: str) -> dict | None:
    m = _ONLY_RE.search(text)
    if not m:
        return None
    name = _strip_ticks(m.group("a") or m.group("b")).lower()
    for family in FAMILIES:
        if name in family:
            others = [p for p in family if p != name]
            return {"kind": "tool", "command": {"programs": others}, "instead": name}
    return None


def _owed(text: str) -> dict | None:
    """The command a rule says must run: `npm run lint`, "the tests", "lint", "prettier"."""
    pattern = _owed_pattern(text)
    if pattern and pattern.get("sub"):
        # `go test ./api/...`: what it runs on is no part of it (any run of `go test` pays)
        sub = [w for w in pattern["sub"] if "/" not in w and not w.startswith(".")]
        pattern = {k: v for k, v in pattern.items() if k != "sub"} | ({"sub": sub} if sub else {})
    return pattern


def _owed_pattern(text: str) -> dict | None:
    raw = text.strip().strip(" .,")
    raw = re.sub(r"^(?:the\s+)?", "", raw, flags=re.I)
    raw = re.sub(
        r"(?:\s+(?:again|first|too|as\s+well|afterwards?|after|each\s+time|every\s+time|always|"
        r"right\s+away|straight\s+away|before|and\s+.*|to\s+make\s+sure.*|so\s+.*))+$",
        "",
        raw,
        flags=re.I,
    )
    m = re.search(r"`([^`]+)`", text) or re.search(r"\(([^()]+)\)", text)
    if m and (m.group(0).startswith("`") or _is_commandish(m.group(1))):
        return _command_pattern(m.group(1))  # "the tests (`make check`)": the command named
    low = raw.lower()
    if low in _NOUN_COMMANDS or f"the {low}" in _NOUN_COMMANDS:
        return dict(_NOUN_COMMANDS.get(low) or _NOUN_COMMANDS[f"the {low}"])
    if _is_commandish(raw):
        return _command_pattern(raw)
    if re.fullmatch(r"[\w:-]+", raw):  # a script name: `run lint`, `run typecheck`
        return {"program": "npm", "sub": ["run", raw]}
    words = raw.split()
    if (  # "run sqlfluff lint": a program named by its own words
        len(words) <= 3
        and all(re.fullmatch(r"[a-z][\w.:/-]*", w) for w in words)
        and not {w.lower() for w in words} & (_NOT_AN_ARGUMENT | _NOT_A_SUBCOMMAND)
        and words[0].lower() not in ENGLISH_PROGRAMS
    ):
        return _command_pattern(raw)
    return None


def _files_of(text: str) -> list[str] | None:
    raw = text.strip().rstrip(" .,").lstrip(" ,")  # ".proto files" keeps its dot
    raw = re.sub(r"\s+(?:files?|code|sources?|stuff)$", "", raw, flags=re.I)
    raw = re.sub(r"^(?:any|a|the|some)\s+", "", raw, flags=re.I)
    words = raw.split()
    if not words:
        return None
    word = words[0].lower().strip("`")
    if word in _EXT_WORDS:
        return [_EXT_WORDS[word]]
    if word.startswith("*.") or re.fullmatch(r"\.[A-Za-z0-9]{1,10}", word):
        return ["*" + word.lstrip("*")] if word.startswith((".", "*.")) else [word]
    found = _pathish(raw)
    return found


def _after(text: str) -> dict | None:
    m = _AFTER_RE.search(text) or _AFTER_LEAD_RE.search(text) or _CHANGES_LEAD_RE.search(text)
    if not m:
        return None
    run = _owed(m.group("x"))
    files = _files_of(m.group("y")) if m.group("y") else None  # "after every change": any
    if not run:
        return None
    check: dict = {"kind": "after", "run": run}
    if files:
        check["paths"] = files
    return check


def _before(text: str) -> dict | None:
    m = (
        _BEFORE_RE.search(text)
        or _BEFORE_LEAD_RE.search(text)
        or _NO_BEFORE_RE.search(text)
        or _MUST_PASS_RE.search(text)
    )
    if not m:
        return None
    run = _owed(m.group("x"))
    action = _action(m.group("y"))
    if not run or not action:
        return None
    return {"kind": "after", "run": run, "before": action}


def _action(text: str) -> dict | None:
    raw = _strip_ticks(text.strip().strip(" .,"))
    raw = re.sub(r"^(?:every|each|any|a|the)\s+", "", raw, flags=re.I)  # "before every commit"
    m = re.search(r"`([^`]+)`", text)
    if m:
        return _command_pattern(m.group(1))
    first = raw.split()[0].lower() if raw.split() else ""
    first = re.sub(r"^(?:you\s+)?", "", first)
    known = _ACTION_COMMANDS.get(first)
    if known:
        pattern: dict[str, object] = dict(known)
        b = _BRANCH_RE.search(raw[len(first) :])
        if b and pattern.get("sub") == ["push"]:
            pattern["args"] = [b.group("b").lower()]
        return pattern
    if _is_commandish(raw):
        return _command_pattern(raw)
    return None


_patterns.save()  # every pattern above is compiled: keep their code for the next process
