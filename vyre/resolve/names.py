"""Normal forms: the keys that say two spellings are one entity."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from vyre.extract import gazetteer
from vyre.extract.lexicon import ORG_NOISE

_MIDDLE_INITIAL = re.compile(r"\b[A-Za-z]\.\s+")


def fold(text: str) -> str:
    """Casefold, strip accents, collapse white space."""
    if text.isascii():  # nothing to strip: most text, and the fast way
        return " ".join(text.casefold().split())
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.casefold().split())


# Keys are pure functions of a spelling, and a room asks for the same few spellings thousands
# of times in one derive: remembered, within a bound.
KEY_CACHE = 1 << 14


@lru_cache(maxsize=KEY_CACHE)
def person_key(label: str) -> str:
    """`Dana M. Reyes` and `Dana Reyes` share a key: middle initials do not tell people apart."""
    words = label.split()
    if len(words) > 2:
        words = (
            [words[0]]
            + [w for w in words[1:-1] if not re.fullmatch(r"[A-Za-z]\.?", w)]
            + [words[-1]]
        )
    return fold(" ".join(words))


@lru_cache(maxsize=KEY_CACHE)
def org_key(label: str) -> str:
    """One key for every spelling of an org: case, accents, punctuation and the legal form
    drop out ("Marlow Haulage Ltd" and "Marlow Haulage" are one org)."""
    words = label.split()
    cut = gazetteer.legal_suffix_len(words)
    if cut:
        words = words[:-cut]
    text = fold(" ".join(words)).replace("&", " and ")
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def legal_form(label: str) -> bool:
    """Whether a spelling carries its legal form ("Lindqvist Pharma GmbH")."""
    return bool(gazetteer.legal_suffix_len(label.split()))


def org_core(label: str) -> str:
    """An org's name without org words or links, squashed: "Keel & Ash Architects" -> keelash."""
    words = [w for w in org_key(label).split() if w not in {x.casefold() for x in ORG_NOISE}]
    return "".join(words)


def org_leads(label: str) -> list[str]:
    """An org's first words squashed, one, two, ...: "Blue Heron Maps" -> blue,
    blueheron, blueheronmaps (its org words left out)."""
    noise = {x.casefold() for x in ORG_NOISE}
    words = [w for w in org_key(label).split() if w not in noise]
    return ["".join(words[: i + 1]) for i in range(len(words))]


def org_forms(label: str) -> set[str]:
    """What a domain may spell for an org: its core, or its whole name squashed."""
    whole = "".join(w for w in org_key(label).split() if w != "and")
    return {f for f in (org_core(label), whole) if f}


def domain_cores(domain: str) -> set[str]:
    """What a domain can name, read against the public suffix list: harlow.law -> {harlow,
    harlowlaw}; marlow.co.uk -> {marlow}; keelash.com -> {keelash, keelashcom}."""
    reg = gazetteer.registered(domain)
    if reg is None:
        return set()
    name, suffix = reg
    name = re.sub(r"[^a-z0-9]", "", name)
    cores = {name}
    if "." not in suffix:
        cores.add(name + suffix)  # a word suffix can be part of the name (harlow.law)
    return {c for c in cores if c}


def local_part_forms(label: str) -> set[str]:
    """The address local parts a person's name can take: priya, priya.anand, panand, ..."""
    words = [re.sub(r"[^a-z]", "", w) for w in person_key(label).split()]
    words = [w for w in words if w]
    if len(words) < 2:
        return set(words)
    first, last = words[0], words[-1]
    return {
        first,
        last,
        f"{first}.{last}",
        f"{first}{last}",
        f"{first}_{last}",
        f"{first}-{last}",
        f"{first[0]}{last}",
        f"{first[0]}.{last}",
        f"{last}{first[0]}",
        f"{last}.{first}",
    }


def entity_id(kind: str, label: str) -> str:
    if kind == "person":
        return f"person:{person_key(label)}"
    if kind == "org":
        return f"org:{org_key(label)}"
    if kind in ("address", "domain", "repo"):
        return f"{kind}:{label.lower()}"
    if kind == "owner":
        return "owner"
    if kind == "kind":
        return f"kind:{label}"
    return f"{kind}:{fold(label)}"
