"""Identity inside one room: which spellings are one person, org, address or repo.

Rules (ADR 0007 §2):
- `Dana M. Reyes` is Dana Reyes (middle initials drop out of the key).
- Two names with one address are one identity.
- A first name alone ("Priya") is a short form: it resolves to the one full name in this room
  that starts with it, and to nothing when the room has none or several. Short forms keep
  every claimant; the one in the room wins.
- An org named without its org word ("Summit", "Keel & Ash") resolves to the one org in this
  room whose name it is the core or the first words of; otherwise it stands on its own.
- A first name said with a cue that it is a person ("my brother Mateo": rule `person.first`)
  is a person of its own when no full name in the room starts with it.
- A nickname stated beside a full name ("Adaeze Nwosu (goes by Ada)") points at that
  full name, like its first name does.
- An org's legal form is part of no key: "Marlow Haulage Ltd" and "Marlow Haulage" are
  one org, labelled by the project when it names it, else by its fullest spelling.
- A one-word org named by a cue ("Jo at Tallow") is the one longer capitalised name the
  room writes starting with it in passing ("the Tallow Cloud console", rule `org.run`).
- A repo named without its owner ("the churn-model repo") is the one owner/name in the room
  with that name; when the room names no owner/name of it at all, the name alone is the repo.
- A near match is never merged: distinct full names stay distinct.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from vyre.extract.lexicon import ORG_WORDS
from vyre.resolve.names import entity_id, fold, legal_form, org_core, org_key, person_key

ENTITY_KINDS = ("person", "org", "address", "domain", "repo")


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # the smaller id wins, so the outcome never depends on input order
            lo, hi = sorted((ra, rb))
            self.parent[hi] = lo


class Identities:
    """Built from one room's mentions; answers "which entity is this label?"."""

    def __init__(
        self,
        mentions: list[tuple],
        taught_orgs: Sequence[str] = (),
        *,
        merges: dict[str, str] | None = None,
        splits: AbstractSet[str] = frozenset(),
        room: str = "",
        sayings: Counter | None = None,
        runs: Counter | None = None,
    ):
        # The user's merges (merged id -> kept id) and splits (ids that are a different
        # entity in this room): applied to every id this room resolves.
        self._merges = dict(merges or {})
        self._splits = set(splits)
        self._room = room
        self._labels: dict[str, Counter] = defaultdict(Counter)
        # answers are fixed once built: a room asks the same few labels thousands of times
        self._resolved: dict[tuple[str, str], str | None] = {}
        self._label_of: dict[str, str] = {}
        self._uf = _UnionFind()
        persons: set[str] = set()
        orgs: Counter = Counter()
        self._lone: set[str] = set()  # first names that are a person on their own
        aliases: list[tuple[str, str]] = []
        repos: dict[str, set[str]] = defaultdict(set)
        self._lone_repos: set[str] = set()  # repos only ever named without an owner
        # capitalised runs said in passing (rule org.run), in the order first said; given
        # when `sayings` is counted in another order (the ties of `most_common` read it)
        given_runs = runs
        runs = Counter()
        # what each mention says (rule, subject, kind, rel, object, kind), counted: a room
        # says the same few things thousands of times, and only runs need how often; a
        # caller that keeps the counts per session gives them (`sayings`), not the mentions
        if sayings is None:
            sayings = Counter(m[2:8] for m in mentions)
        for (rule, subj, skind, rel, obj, okind), times in sayings.items():
            if rel == "alias":
                if skind == "run":
                    if given_runs is None:
                        runs[subj] += times
                else:
                    aliases.append((subj, obj))
                continue
            if rule == "person.first":
                self._lone.add(fold(subj))
            for label, kind in ((subj, skind), (obj, okind)):
                if kind == "person" and len(label.split()) >= 2:
                    persons.add(label)
                elif kind == "org":
                    orgs[label] += 1
                elif kind == "repo" and "/" in label:
                    repos[label.rsplit("/", 1)[1].lower()].add(label.lower())
                elif kind == "repo":
                    self._lone_repos.add(label.lower())
        if given_runs is not None:
            runs = given_runs
        self._all_repos = {f for full in repos.values() for f in full}
        self._repos = {name: next(iter(full)) for name, full in repos.items() if len(full) == 1}
        self._taught = {org_key(o) for o in taught_orgs}
        self._taught_labels = set(taught_orgs)
        for label in taught_orgs:
            orgs[label] += 1
            self._labels[self.canon(entity_id("org", label))][label] += 1  # as the project says
        # full names, and the first names that point at them
        self._first: dict[str, set[str]] = defaultdict(set)
        for label in sorted(persons):
            pid = entity_id("person", label)
            self._uf.find(pid)
            self._first[fold(label.split()[0])].add(pid)
        for named, nick in aliases:
            if len(named.split()) >= 2:
                self._first[fold(nick)].add(entity_id("person", named))
        # two names with one address are one identity
        by_address: dict[str, set[str]] = defaultdict(set)
        for _, subj, _, rel, obj, _ in sayings:
            if rel == "has_address" and len(subj.split()) >= 2:
                by_address[obj.lower()].add(entity_id("person", subj))
        for pids in by_address.values():
            head, *rest = sorted(pids)
            for other in rest:
                self._uf.union(head, other)
        # orgs: full names (with an org word, or taught) and the short forms that point at them
        full = sorted(
            {o for o in orgs if _has_org_word(o) or legal_form(o)} | set(taught_orgs),
            key=lambda o: org_key(o),
        )
        self._full_orgs = {org_key(o): o for o in full}
        self._org_alias: dict[str, str] = {}
        for label in sorted(orgs):
            key = org_key(label)
            if key in self._full_orgs:
                continue
            target = self._short_org(label)
            if target:
                self._org_alias[key] = target
        # then names without an org word: "Tallow" is "Tallow Cloud" when that is the only
        # longer name here that starts with it
        rest = sorted({org_key(o) for o in orgs} - set(self._full_orgs) - set(self._org_alias))
        for key in rest:
            longer = {k for k in rest if k.startswith(key + " ")}
            if len(longer) == 1:
                self._org_alias[key] = f"org:{longer.pop()}"
        # a one-word org that the room also writes in passing as the start of one longer
        # name ("Jo at Tallow" beside "the Tallow Cloud console"): that longer name is it
        for key in rest:
            if key in self._org_alias or " " in key:
                continue
            said = {
                org_key(r): r for r, _ in runs.most_common() if org_key(r).startswith(key + " ")
            }
            if len(said) == 1:
                ((full_key, spelling),) = said.items()
                self._org_alias[key] = f"org:{full_key}"
                self._labels[f"org:{full_key}"][spelling] += 1

    # -- lookups ------------------------------------------------------------------------

    def resolve(self, label: str, kind: str) -> str | None:
        """The entity id a label names in this room, or None (an unresolved short form)."""
        key = (label, kind)
        try:
            return self._resolved[key]
        except KeyError:
            pass
        eid = self._resolve(label, kind)
        out = self._resolved[key] = self.canon(eid) if eid else None
        return out

    def canon(self, eid: str) -> str:
        """An id after the user's merges and splits."""
        seen = set()
        while eid in self._merges and eid not in seen:
            seen.add(eid)
            eid = self._merges[eid]
        return f"{eid}@{self._room}" if eid in self._splits else eid

    def _resolve(self, label: str, kind: str) -> str | None:
        if kind == "person":
            if len(label.split()) >= 2:
                return self._uf.find(entity_id("person", label))
            claimants = {self._uf.find(p) for p in self._first.get(fold(label), ())}
            if len(claimants) == 1:
                return claimants.pop()
            if not claimants and fold(label) in self._lone:
                return entity_id("person", label)
            return None
        if kind == "org":
            key = org_key(label)
            return self._org_alias.get(key, f"org:{key}") if key else None
        if kind == "repo" and "/" not in label:
            full = self._repos.get(label.lower())
            if full:
                return entity_id("repo", full)
            # on a host with no owner/name in the room ("set up as tern-gw on our forgejo"),
            # the name alone is the repo; a name that several owners share stays unresolved
            known = label.lower() in self._lone_repos and not any(
                f.endswith("/" + label.lower()) for f in self._all_repos
            )
            return entity_id("repo", label) if known else None
        if kind in ENTITY_KINDS or kind in ("thing", "value", "owner", "date", "kind", "session"):
            return entity_id(kind, label)
        return None

    def note_label(self, eid: str, label: str, kind: str, times: int = 1) -> None:
        """Count a spelling for an entity (said `times` times); short forms never become the
        label."""
        if kind == "person" and len(label.split()) < 2 and eid != entity_id("person", label):
            return
        if kind == "repo" and "/" not in label and eid != entity_id("repo", label):
            return
        if kind == "org" and org_key(label) in self._org_alias:
            return
        self._labels[eid][label] += times
        self._label_of.pop(eid, None)

    def label(self, eid: str, fallback: str) -> str:
        """The room's spelling: the most said; ties go to the plainest, then alphabetical."""
        held = self._label_of.get(eid)
        if held is not None:
            return held
        counts = self._labels.get(eid)
        if not counts:
            return fallback
        self._label_of[eid] = held = self._spelling(eid, counts)
        return held

    def _spelling(self, eid: str, counts: Counter) -> str:
        if eid.startswith("org:"):
            taught = [s for s in counts if org_key(s) in self._taught and s in self._taught_labels]
            if taught:
                return taught[0]
            # the fullest spelling the room uses: its legal form when anyone wrote it
            return min(counts, key=lambda s: (not legal_form(s), -counts[s], s))
        return min(counts, key=lambda s: (-counts[s], _ornate(s), s))

    def _short_org(self, label: str) -> str | None:
        key, core = org_key(label), org_core(label)
        hits = {
            full_key
            for full_key, full in self._full_orgs.items()
            if (core and org_core(full) == core) or full_key.startswith(key + " ")
        }
        return f"org:{hits.pop()}" if len(hits) == 1 else None


def _has_org_word(label: str) -> bool:
    return any(w.rstrip(".") in ORG_WORDS for w in label.split())


def _ornate(label: str) -> int:
    """How much a spelling adds to the plain name (middle initials, punctuation)."""
    return sum(1 for w in label.split() if len(w.rstrip(".")) == 1) + label.count(".")


__all__ = ["ENTITY_KINDS", "Identities", "person_key"]
