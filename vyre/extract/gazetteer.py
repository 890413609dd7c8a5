"""Word lists from maintained libraries, loaded once per process (never on the hook's path).

- Given names: `nomquamgender` (MIT), 720,000 given names from 36 national and
  international sources (census, birth registers, bibliographic records), each with the number
  of sources and of people that carry it. A name counts when at least `MIN_SOURCES` sources
  and `MIN_PEOPLE` people carry it: that keeps Siobhan, Chidinma, Thandiwe and Grzegorz and
  drops the one-source noise ("Server", "Square", "Times"). Its data file (22 MB of JSON) is
  scanned once with one regular expression and the result cached (`_cache_dirs`: once per
  install beside this module's bytecode, else in `$VYRE_HOME/cache`), so later processes, a
  fresh home's first build among them, read a 150 kB text file. The package's own module
  (pandas, numpy) is never imported.
- Legal suffixes: `cleanco` (MIT), the company-type terms of about 80 countries (LLC, GmbH,
  Ltd, S.A., Pty Ltd, Oy, AB, S.p.A., ...).
- Public suffixes: `publicsuffixlist` (MPL-2.0, the Mozilla Public Suffix List shipped in the
  package and refreshed with each release; nothing is fetched at run time). Its ICANN rules
  with their punycode forms (0.15 s to work out from the list) are cached beside the names
  and handed back to it as its source.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import unicodedata
from functools import cache, lru_cache
from importlib.util import cache_from_source
from pathlib import Path
from typing import Any

MIN_SOURCES = 10
MIN_PEOPLE = 200
SHORT_MIN_SOURCES = 3
SHORT_MIN_PEOPLE = 10
_CACHE_FORMAT = "1"
# Names reserved for documentation and testing (RFC 2606, RFC 6761): addresses and domains
# in examples end in these, and the public suffix list leaves them out on purpose.
RESERVED_SUFFIXES = frozenset({"example", "test", "invalid"})


@lru_cache(maxsize=65536)
def fold_name(word: str) -> str:
    """A name as the gazetteer keys it: lowercase ASCII (Björn -> bjorn)."""
    text = unicodedata.normalize("NFKD", word)
    return "".join(c for c in text if not unicodedata.combining(c)).lower().replace("ø", "o")


@cache
def given_names() -> frozenset[str]:
    """Folded given names (see the module docstring for the source and the cut-off)."""
    return _names(MIN_SOURCES, MIN_PEOPLE)


@cache
def short_names() -> frozenset[str]:
    """A wider list for a first name said alone ("Ada", "Mei"): from 3 sources and 10
    people. A lone first name only ever resolves to a full name (or a stated nickname) in
    the same room, so a wider list adds candidates, never people."""
    return _names(SHORT_MIN_SOURCES, SHORT_MIN_PEOPLE) | given_names()


def _names(min_sources: int, min_people: int) -> frozenset[str]:
    spec = importlib.util.find_spec("nomquamgender")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    data = Path(next(iter(spec.submodule_search_locations))) / "name_data.json"
    try:
        size = data.stat().st_size
    except OSError:
        return frozenset()

    def cached(cut: tuple[int, int]) -> str:
        return f"given-names-{_CACHE_FORMAT}-{cut[0]}-{cut[1]}-{size}.txt"

    text = _cached(cached((min_sources, min_people)))
    if text is not None:
        return frozenset(text.split())
    # both lists from one pass over the 22 MB (a fresh install's first turn waits for it)
    lists = _scan(data.read_bytes(), {(min_sources, min_people), *_CUTS})
    for cut, names in lists.items():
        _keep(cached(cut), "\n".join(sorted(names)))
    return lists[(min_sources, min_people)]


def _cached(name: str) -> str | None:
    """A cache file's text, from the first of `_cache_dirs` that has it."""
    for folder, _ in _cache_dirs():
        try:
            return (folder / name).read_text()
        except OSError:
            continue
    return None


def _keep(name: str, text: str) -> None:
    """Write a cache file whole (renamed into place), in the first of `_cache_dirs` that
    takes it."""
    for folder, writable in _cache_dirs():
        if not writable:
            continue
        cached = folder / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text)
            tmp.replace(cached)
            return
        except OSError:
            continue  # a read-only install or home still gets the list, just not the cache


_CUTS = ((MIN_SOURCES, MIN_PEOPLE), (SHORT_MIN_SOURCES, SHORT_MIN_PEOPLE))
# An entry carried by 10 people or more (two digits): every cut asks at least that, and the
# pattern passes over the 640,000 rarer names without making a match of each.
_ENTRY = re.compile(rb'"([a-z][a-z\'-]+)": \[(\d+), ([1-9]\d+), ')


def _scan(raw: bytes, cuts: set[tuple[int, int]]) -> dict[tuple[int, int], frozenset[str]]:
    """The names each (sources, people) cut keeps, from one pass over the data file."""
    assert all(people >= 10 for _, people in cuts), "_ENTRY skips names under 10 people"
    kept: dict[tuple[int, int], set[str]] = {cut: set() for cut in cuts}
    for name, sources, people in _ENTRY.findall(raw):
        s, p = int(sources), int(people)
        for (min_sources, min_people), names in kept.items():
            if s >= min_sources and p >= min_people:
                names.add(name.decode())
    return {cut: frozenset(names) for cut, names in kept.items()}


def _cache_dirs() -> list[tuple[Path, bool]]:
    """Where the lists are cached, in the order they are looked for, each with whether it
    may be written: `$VYRE_CACHE` alone when it is set; else beside this module's bytecode
    (one per install, written only when bytecode is, as the rules' patterns are: a fresh
    home's first build then reads the lists instead of working them out before its workers
    fork, 0.6-0.8 s), then `$VYRE_HOME/cache`. What is cached derives from installed
    packages only (no user data), so homes and installs may share it: the test suite points
    every test's home at one cache rather than scan 22 MB again in each process it starts."""
    if shared := os.environ.get("VYRE_CACHE"):
        return [(Path(shared).expanduser(), True)]
    from vyre import config

    dirs = [(config.home() / "cache", True)]
    try:
        install = Path(cache_from_source(__file__)).parent
    except (NotImplementedError, ValueError):  # no bytecode cache on this interpreter
        return dirs
    return [(install, not sys.dont_write_bytecode), *dirs]


@cache
def legal_terms() -> tuple[tuple[str, ...], ...]:
    """Legal-form suffixes as word tuples, longest first: ("gmbh", "&", "co", "kg"), ("ltd",)."""
    from cleanco.clean import prepare_default_terms

    terms = {tuple(words) for _, words in prepare_default_terms() if words}
    return tuple(sorted(terms, key=lambda t: (-len(t), t)))


@cache
def legal_last_words() -> frozenset[str]:
    """The words a legal suffix can end with, for a quick first check."""
    return frozenset(t[-1] for t in legal_terms())


@cache
def _legal_first_words() -> frozenset[str]:
    return frozenset(t[0] for t in legal_terms())


@lru_cache(maxsize=65536)
def may_start_legal(word: str) -> bool:
    """Whether a token can be the first word of a legal form ("Pty", "GmbH", "S.", "Ltd")."""
    return _legal_fold(word) in _legal_first_words() or len(word) <= 2


def legal_suffix_len(words: list[str]) -> int:
    """How many of the last `words` (already split on spaces) are a legal suffix; 0 if none."""
    if not words or _legal_fold(words[-1]) not in legal_last_words():
        return 0
    return _legal_tail(tuple(words[-5:]))


@lru_cache(maxsize=65536)
def _legal_tail(words: tuple[str, ...]) -> int:
    if not words:
        return 0
    folded = [_legal_fold(w) for w in words]
    if folded[-1] not in legal_last_words():
        return 0
    for term in legal_terms():
        n = len(term)
        if n <= len(folded) - 1 and tuple(folded[-n:]) == term:
            return n
    return 0


def _legal_fold(word: str) -> str:
    # "S.A." -> "sa", "Ltd." -> "ltd", "GmbH," -> "gmbh"; cleanco's terms are spelled so
    return word.lower().replace(".", "").strip(",;:")


@cache
def _psl() -> Any:
    import publicsuffixlist
    from publicsuffixlist import PublicSuffixList

    try:
        size = os.stat(publicsuffixlist.PSLFILE).st_size
    except OSError:
        return PublicSuffixList(only_icann=True)
    cached = f"public-suffixes-{_CACHE_FORMAT}-{publicsuffixlist.__version__}-{size}.txt"
    text = _cached(cached)
    if text is not None:
        # the rules as the package parsed them, punycode forms included: taken as they are
        return PublicSuffixList(source=text, accept_encoded_idn=False)
    psl = PublicSuffixList(only_icann=True)
    rules = getattr(psl, "_publicsuffix", None)  # its parsed rules (tests compare the two)
    if isinstance(rules, frozenset):
        _keep(cached, "\n".join(sorted(rules)))
    return psl


@lru_cache(maxsize=65536)
def registered(domain: str) -> tuple[str, str] | None:
    """(name, public suffix) of a host: marlow.co.uk -> (marlow, co.uk); None when the
    host ends in no public suffix (main.go, README.md still may: callers check more)."""
    host = domain.lower().strip(".")
    last = host.rsplit(".", 1)[-1]
    if last in RESERVED_SUFFIXES:
        labels = host.split(".")
        return (labels[-2], last) if len(labels) >= 2 else None
    suffix = _psl().publicsuffix(host, accept_unknown=False)
    if not suffix or suffix == host:
        return None
    name = host[: -len(suffix) - 1].rsplit(".", 1)[-1]
    return (name, suffix) if name else None


def is_given_name(word: str) -> bool:
    """Whether a word is a given name in the gazetteer, any case ("Siobhan", "juno")."""
    return bool(word) and fold_name(word) in given_names()
