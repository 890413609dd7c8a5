"""Regular expressions built from the code `re` compiled in an earlier process."""

from __future__ import annotations

import marshal
import re
import sys

from tests.conftest import python_prints
from vyre.extract import compiled
from vyre.extract.compiled import Patterns, longest_first

# a letter class as the rules write one, a named group, a flag, a look-behind, an alternation
SOURCES = [
    (r"[A-ZÀ-ÖØ-ÞĀĂĄ](?P<rest>[\w'’-]*)", 0),
    (r"\bmy\s+(?:sister|brother|dog)\b", re.I),
    (r"(?<![\w.+-])([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]{2,})", 0),
    (r"(?i:head of ops|cto|ceo)(?P<tail>\s+at\s+\w+)?", 0),
]
TEXT = "My Sister Ana wrote ana@halden.io: Łukasz is head of ops at Halden, CTO too."


def _compile_all(patterns: Patterns) -> list[re.Pattern[str]]:
    return [patterns.compile(p, f) for p, f in SOURCES]


def _same(built: list[re.Pattern[str]]) -> None:
    for p, (source, flags) in zip(built, SOURCES, strict=True):
        truth = re.compile(source, flags)
        assert p == truth  # patterns compare by their flags, text and compiled code
        assert (p.groups, p.groupindex) == (truth.groups, truth.groupindex)
        assert [m.span() for m in p.finditer(TEXT)] == [m.span() for m in truth.finditer(TEXT)]


def test_patterns_come_back_from_the_file_as_re_compiled_them(tmp_path, monkeypatch):
    path = tmp_path / "rules.cpython.patterns"
    first = Patterns(path)
    _same(_compile_all(first))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    first.save()
    assert path.exists()

    def no_compile(*args: object) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiled.re, "compile", no_compile)
    built = _compile_all(Patterns(path))
    monkeypatch.undo()
    _same(built)


def test_a_damaged_or_foreign_file_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "x.patterns"
    path.write_bytes(b"\x00not marshal")
    _same(_compile_all(Patterns(path)))
    first = Patterns(path)
    _compile_all(first)
    first.save()
    made_by, entries = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps((("another python", *made_by[1:]), entries)))
    assert Patterns(path)._known == {}
    # an entry whose code the engine refuses: re compiles that pattern
    key = (SOURCES[0][0], SOURCES[0][1])
    flags, code, *rest = entries[key]
    entries[key] = (flags, [99999, *code[1:]], *rest)
    path.write_bytes(marshal.dumps((made_by, entries)))
    _same(_compile_all(Patterns(path)))


def test_nothing_is_written_where_bytecode_is_not(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    patterns = Patterns(tmp_path / "x.patterns")
    _compile_all(patterns)
    patterns.save()
    assert not (tmp_path / "x.patterns").exists()


def test_longest_first_orders_alternatives_the_same_in_every_process():
    words = {"vet", "aunt", "niece", "son", "dad", "mum"}
    assert sorted(words, key=longest_first) == ["niece", "aunt", "dad", "mum", "son", "vet"]


RULES_TWICE = """
import re, sys
sys.pycache_prefix = sys.argv[1]
sys.dont_write_bytecode = False
import vyre.ask.personal as personal
import vyre.extract.rules as rules
import vyre.learn.distill as distill

def patterns(value):
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from patterns(item)

for module in (rules, personal, distill):
    found = [p for v in vars(module).values() for p in patterns(v)]
    same = all(p == re.compile(p.pattern, p.flags) for p in found)
    print(module._patterns.fresh, len(set(found)) > 5, same)
"""


def test_the_rules_compile_once_per_install(tmp_path):
    """The second process builds every pattern of the rules, of the personal facts and of the
    lessons' distiller from the first one's code (none new), each equal to what `re.compile`
    makes. A pattern whose text changed from process to process (alternatives in a set's
    order) would be new."""

    def run() -> list[str]:
        return python_prints(RULES_TWICE, str(tmp_path)).split("\n")[:3]

    first = [line.split() for line in run()]  # the first compiles and writes
    assert [int(fresh) > 5 for fresh, *_ in first] == [True] * 3
    assert [rest for _, *rest in first] == [["True", "True"]] * 3
    assert run() == ["0 True True"] * 3
