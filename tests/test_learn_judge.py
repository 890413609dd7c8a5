"""Judging a call: parsed, never substring-matched (vyre.learn.shell, checks, paths, judge)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vyre.learn.checks import Call
from vyre.learn.judge import Lesson, decide
from vyre.learn.shell import parse

HOME = "/home/sam"
ENV = {"HOME": HOME, "VYRE_HOME": f"{HOME}/.vyre"}
CWD = f"{HOME}/work/web"


def lesson(lid: int, check: dict, level: str = "block", **extra) -> Lesson:
    return Lesson({"id": lid, "level": level, "check": check, "sentence": f"lesson {lid}", **extra})


def verdict(lessons, tool: str, data: dict, cwd: str = CWD, env=ENV) -> str | None:
    return decide(Call(tool, data, cwd, dict(env)), lessons).decision


def bash(lessons, command: str, cwd: str = CWD) -> str | None:
    return verdict(lessons, "Bash", {"command": command}, cwd)


PUSH_MAIN = [
    lesson(1, {"kind": "tool", "command": {"program": "git", "sub": ["push"], "args": ["main"]}})
]


@pytest.mark.parametrize(
    "command",
    [
        "git push origin main",
        "git push -u origin main",
        "git push origin HEAD:main",
        "git push origin +main",
        "git push origin refs/heads/main",
        "/usr/bin/git push origin main",
        "cd .. && git -C web push origin main",
        "GIT_SSH_COMMAND='ssh -i k' git push origin main",
        "env FOO=1 sudo -u sam nice -n 5 timeout 30 git push origin main",
        "npm test && git push origin main",
        "true; git push origin main || echo failed",
        "(cd /tmp && git push origin main)",
        "echo $(git push origin main)",
        "bash -c 'git push origin main'",
        'sh -lc "cd /srv && git push origin main"',
        "eval 'git push origin main'",
        "echo Z2l0IHB1c2ggb3JpZ2luIG1haW4= | base64 -d | sh",
        "git checkout main && git push",
        "git push --all",
        "xargs git push origin <<< main",
    ],
)
def test_a_push_to_main_is_denied_however_it_is_written(command):
    assert bash(PUSH_MAIN, command) == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "git push origin feature/main-page",
        "git push origin maintenance",
        "git commit -m 'never push to main'",
        'git commit -m "fix: push to main was broken"',
        "echo git push origin main",
        "grep -r 'git push origin main' docs/",
        "git log main",
        "git pull origin main",
        "git fetch origin main",
        "cat <<EOF > notes.md\ngit push origin main\nEOF",
        "git diff main...feature",
        "printf 'git push origin main\\n' > script.txt",
    ],
)
def test_mentions_and_look_alikes_are_allowed(command):
    assert bash(PUSH_MAIN, command) is None, command


def test_a_push_without_a_refspec_reads_the_checked_out_branch(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert bash(PUSH_MAIN, "git push", str(repo)) == "deny"
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature\n")
    assert bash(PUSH_MAIN, "git push", str(repo)) is None
    assert bash(PUSH_MAIN, "git push origin HEAD", str(repo)) is None


SED = [lesson(2, {"kind": "tool", "command": {"program": "sed", "flags": ["-i"]}})]


@pytest.mark.parametrize(
    "command,expected",
    [
        ("sed -i 's/a/b/' f.txt", "deny"),
        ("sed -i.bak 's/a/b/' f.txt", "deny"),
        ("sed -Ei 's/a/b/' f.txt", "deny"),
        ("sed --in-place 's/a/b/' f.txt", "deny"),
        ("sed -e 's/a/b/' -i f.txt", "deny"),
        ("find . -name '*.py' -exec sed -i 's/a/b/' {} +", "deny"),
        ("ls *.txt | xargs sed -i 's/a/b/'", "deny"),
        ("/bin/sed -i s/a/b/ f", "deny"),
        ("sed -n '1,5p' f.txt", None),
        ("sed 's/-i//' f.txt", None),
        ("grep -i 'sed -i' notes.md", None),
        ("git commit -m 'stop using sed -i'", None),
        ("perl -pi -e 's/a/b/' f", None),
    ],
)
def test_flags_in_any_order_and_spelling(command, expected):
    assert bash(SED, command) == expected, command


MIGRATIONS = [lesson(3, {"kind": "path", "paths": ["migrations/"]}, level="ask")]


@pytest.mark.parametrize(
    "tool,data,expected",
    [
        (
            "Edit",
            {"file_path": f"{CWD}/db/migrations/001.sql", "old_string": "a", "new_string": "b"},
            "ask",
        ),
        ("Write", {"file_path": f"{CWD}/migrations/002.sql", "content": "x"}, "ask"),
        ("Bash", {"command": "rm migrations/001.sql"}, "ask"),
        ("Bash", {"command": "cd db && rm -rf migrations"}, "ask"),
        ("Bash", {"command": "mv migrations/001.sql /tmp/"}, "ask"),
        ("Bash", {"command": "echo 'drop table' >> migrations/001.sql"}, "ask"),
        ("Bash", {"command": "sed -i s/a/b/ migrations/001.sql"}, "ask"),
        ("Bash", {"command": "git rm -r migrations"}, "ask"),
        ("Bash", {"command": "cat migrations/001.sql"}, None),
        ("Read", {"file_path": f"{CWD}/migrations/001.sql"}, None),
        ("Bash", {"command": "grep -r users migrations/"}, None),
        ("Bash", {"command": "cp migrations/001.sql /tmp/backup.sql"}, None),
        (
            "Edit",
            {"file_path": f"{CWD}/migrations-old/001.sql", "old_string": "a", "new_string": "b"},
            None,
        ),
        (
            "Edit",
            {"file_path": f"{CWD}/src/migrations.ts", "old_string": "a", "new_string": "b"},
            None,
        ),
        ("Bash", {"command": "echo migrations/001.sql"}, None),
    ],
)
def test_paths_are_judged_on_a_boundary_and_reading_is_not_touching(tool, data, expected):
    assert verdict(MIGRATIONS, tool, data) == expected, data


def test_a_recursive_delete_of_a_parent_touches_the_protected_folder(tmp_path):
    (tmp_path / "db" / "migrations").mkdir(parents=True)
    assert bash(MIGRATIONS, "rm -rf db", str(tmp_path)) == "ask"
    assert bash(MIGRATIONS, "rm -rf ./*", str(tmp_path)) == "ask"
    assert bash(MIGRATIONS, "rm db/notes.txt", str(tmp_path)) is None


PHRASE = [lesson(4, {"kind": "phrase", "phrase": "leverage", "paths": ["docs/"]})]


def test_a_phrase_is_judged_on_what_the_edit_adds():
    doc = f"{CWD}/docs/intro.md"
    assert verdict(PHRASE, "Write", {"file_path": doc, "content": "We leverage it."}) == "deny"
    assert (
        verdict(PHRASE, "Edit", {"file_path": doc, "old_string": "a", "new_string": "Leverage!"})
        == "deny"
    )
    assert (
        verdict(
            PHRASE, "Edit", {"file_path": doc, "old_string": "we leverage", "new_string": "we use"}
        )
        is None
    )
    assert verdict(PHRASE, "Write", {"file_path": doc, "content": "leveraged buyouts"}) is None
    assert verdict(PHRASE, "Write", {"file_path": f"{CWD}/src/a.ts", "content": "leverage"}) is None


def test_instead_lessons_and_claude_tools():
    npm = [lesson(5, {"kind": "tool", "command": {"program": "npm"}, "instead": "pnpm"})]
    assert bash(npm, "npm i lodash") == "deny"
    assert bash(npm, "cd web && npm run build") == "deny"
    assert bash(npm, "pnpm install") is None
    assert bash(npm, "echo 'use npm'") is None
    web = [lesson(6, {"kind": "tool", "tool": "WebFetch"})]
    assert verdict(web, "WebFetch", {"url": "https://example.com"}) == "deny"
    assert verdict(web, "WebSearch", {"query": "x"}) is None


def test_levels_and_scope():
    check = {"kind": "tool", "command": {"program": "rm", "flags": ["-r", "-f"]}}
    assert bash([lesson(7, check, level="ask")], "rm -fr build") == "ask"
    reminded = decide(
        Call("Bash", {"command": "rm -rf build"}, CWD, dict(ENV)),
        [lesson(7, check, level="remind")],
    )
    assert reminded.decision == "remind"
    assert reminded.answer()["hookSpecificOutput"]["additionalContext"]
    scoped = [lesson(8, check, scope="project:web", folders=[CWD])]
    assert bash(scoped, "rm -rf build") == "deny"
    assert bash(scoped, "rm -rf build", f"{HOME}/work/web-old") is None
    agent = [lesson(9, check, scope="agent:reviewer")]
    assert bash(agent, "rm -rf build") is None
    assert (
        decide(
            Call("Bash", {"command": "rm -rf b"}, CWD, {**ENV, "VYRE_AGENT": "reviewer"}), agent
        ).decision
        == "deny"
    )


def test_no_one_can_be_asked_in_bypass_mode():
    check = {"kind": "tool", "command": {"program": "rm", "flags": ["-r"]}}
    call = Call("Bash", {"command": "rm -r x"}, CWD, dict(ENV))
    assert (
        decide(call, [lesson(1, check, level="ask")], mode="bypassPermissions").decision == "deny"
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_the_parser_never_crashes(text):
    parse(text, CWD, ENV)
    decide(Call("Bash", {"command": text}, CWD, dict(ENV)), PUSH_MAIN + SED + MIGRATIONS)


def test_runners_and_monitor_are_seen_through():
    yarn = [lesson(10, {"kind": "tool", "command": {"program": "yarn"}})]
    assert bash(yarn, "npx yarn install") == "deny"
    assert bash(yarn, "pnpm dlx yarn") == "deny"
    assert (
        verdict(PUSH_MAIN, "Monitor", {"command": "git push origin main", "description": "x"})
        == "deny"
    )
    tests = [
        lesson(
            11,
            {
                "kind": "after",
                "run": {"class": "test"},
                "before": {"program": "git", "sub": ["push"]},
            },
        )
    ]
    assert bash(tests, "bundle exec rspec && git push origin x") is None
