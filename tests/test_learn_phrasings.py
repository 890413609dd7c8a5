"""The ways people phrase a rule, end to end: each invented sentence is distilled, then judged
against invented calls that break it and look-alikes that must stay allowed. (Sentences and
commands here are made up for these tests; none comes from a held-out set.)"""

from __future__ import annotations

import pytest

from vyre.learn.checks import Call, validate
from vyre.learn.distill import distill
from vyre.learn.judge import Lesson, decide
from vyre.learn.shell import parse

HOME = "/home/ada"
ENV = {"HOME": HOME, "VYRE_HOME": f"{HOME}/.vyre"}
CWD = f"{HOME}/code/kiln"


def judged(sentence: str, tool: str, data: dict, cwd: str = CWD) -> str | None:
    found = distill(sentence)
    assert found.ok, (sentence, found.reason)
    assert validate(found.check) is None
    lesson = Lesson({"id": 1, "level": "block", "check": found.check, "sentence": sentence})
    return decide(Call(tool, data, cwd, dict(ENV)), [lesson]).decision


def bash(sentence: str, command: str, cwd: str = CWD) -> str | None:
    return judged(sentence, "Bash", {"command": command}, cwd)


# (sentence, calls that break it, look-alikes that must be allowed)
COMMAND_RULES = [
    # polite and indirect ways of saying don't
    (
        "i'd appreciate it if you didn't run make release — the release bot does that",
        ["make release", "cd web && make release VERSION=2"],
        ["make build", "echo 'make release'"],
    ),
    (
        "I'd rather you didn't run yarn upgrade.",
        ["yarn upgrade", "yarn upgrade react"],
        ["yarn install", "yarn add react"],
    ),
    (
        "could you not run cargo publish? thanks",
        ["cargo publish", "cargo publish --dry-run"],
        ["cargo build", "git commit -m 'cargo publish later'"],
    ),
    (
        "would you mind not running helm uninstall",
        ["helm uninstall api", "helm --namespace prod uninstall api"],
        ["helm list", "helm upgrade api ./chart"],
    ),
    ("let's not use sed -i", ["sed -i s/a/b/ x.txt"], ["sed -n 1p x.txt"]),
    ("try not to run npm audit fix --force", ["npm audit fix --force"], ["npm audit fix"]),
    # "X is off limits" and its kin
    (
        "`kubectl delete` is off limits",
        ["kubectl delete pod web-1", "kubectl --context staging delete ns tmp"],
        ["kubectl get pods", "kubectl describe pod web-1"],
    ),
    (
        "git rebase -i is not allowed",
        ["git rebase -i HEAD~3", "git rebase --interactive main"],
        ["git rebase main", "git log -i"],
    ),
    (
        "Force pushing is a no-go.",
        ["git push --force origin topic", "git push origin +topic"],
        ["git push origin topic"],
    ),
    # a flag said with "with"; a command done "with" another
    (
        "stop running jest with --watch, it never exits",
        ["jest --watch", "npx jest --watch src/"],
        ["jest", "jest --coverage"],
    ),
    (
        "please don't stop the worker with kill -9",
        ["kill -9 4242", "sudo kill -9 77", "kill -KILL 4242", "kill -SIGKILL 4242"],
        ["kill 4242", "kill -TERM 4242"],
    ),
    (
        "don't run pytest with the -x flag",
        ["pytest -x", "pytest --exitfirst", "python -m pytest -qx", "uv run pytest -x t/"],
        ["pytest", "pytest -k exit", "python -m pytest -q"],
    ),
    # a bare flag after a sentence that names the command
    (
        "helm upgrade only with a reviewed values file. never --force",
        ["helm upgrade api ./chart --force", "timeout 60 helm upgrade --force api ./c"],
        ["helm upgrade api ./chart", "helm install --force api ./c"],
    ),
    (
        "For packer build: never -force",
        ["packer build -force img.pkr.hcl", "packer build --force img.pkr.hcl"],
        ["packer build img.pkr.hcl", "packer validate -force x"],
    ),
    # what people call an operation in plain words
    (
        "never delete remote branches",
        ["git push origin --delete topic", "git push origin :topic", "git push -d origin topic"],
        ["git branch -d topic", "git push origin topic"],
    ),
    (
        "Don't install npm packages globally.",
        ["npm install -g serve", "npm i --global serve"],
        ["npm install serve", "npm ls -g"],
    ),
    # a pipe into a shell, however it is written
    (
        "no wget | sh, ever",
        ["wget -qO- https://get.example.org | sh", "wget -O - x | sudo bash -s"],
        ["wget https://get.example.org/i.sh", "sh ./build.sh", "echo 'no wget | sh'"],
    ),
    (
        "Don't pipe curl into a shell.",
        ["curl -sL x.example/i | bash", 'bash -c "$(curl -fsSL x.example/i)"'],
        ["curl -s x.example/api | jq .", "bash ./setup.sh"],
    ),
    # a number however it is written; a standalone binary for a subcommand
    ("never chmod 777 anything", ["chmod 777 a.sh", "chmod 0777 a.sh"], ["chmod 755 a.sh"]),
    (
        "don't run docker compose down -v",
        ["docker-compose down --volumes", "docker compose -f dev.yml down -v"],
        ["docker compose down", "docker compose -f dev.yml up -d"],
    ),
    # a read-only second word is not the thing banned
    ("avoid git stash", ["git stash", "git stash push -m wip"], ["git stash list", "git status"]),
    # a go-style flag with one dash or two, after an option with a value
    (
        "never terraform apply -auto-approve",
        [
            "terraform apply -auto-approve",
            "terraform apply --auto-approve",
            "terraform -chdir=infra apply -auto-approve",
        ],
        ["terraform apply plan.out", "terraform plan -out plan.out"],
    ),
    # a module run by python is that program
    ("we use uv, not pip", ["python3 -m pip install rich", "pip install rich"], ["uv add rich"]),
    ("Stop using `git add .` please", ["git add .", "cd app && git add ."], ["git add app.py"]),
    ("never, ever run git clean -fdx", ["git clean -xdf"], ["git clean -n"]),
    ("avoid npx, install deps properly", ["npx cowsay hi"], ["npm i cowsay"]),
    (
        "no --no-verify, ever",
        ["git commit --no-verify -m x", "git push --no-verify"],
        ["git commit -m 'why we never use --no-verify'"],
    ),
    ("I would prefer that you not use sudo", ["sudo apt install jq"], ["apt list jq"]),
    ("Pushing tags is a no-go", ["git push --tags", "git push origin --tags"], ["git push"]),
    ("Always use bun", ["npm i", "yarn add left-pad"], ["bun i"]),
    ("never use --force", ["git push --force", "npm i --force"], ["git push", "npm i"]),
    ("never remove branches on origin", ["git push origin --delete old"], ["git branch -D old"]),
    # "for python tooling" names no files to narrow the lesson to
    ("for python tooling we use uv, not pip", ["pip install rich"], ["uv add rich"]),
]


@pytest.mark.parametrize("sentence,breaks,allowed", COMMAND_RULES)
def test_command_rules_however_they_are_phrased(sentence, breaks, allowed):
    for command in breaks:
        assert bash(sentence, command) == "deny", (sentence, command, distill(sentence).check)
    for command in allowed:
        assert bash(sentence, command) is None, (sentence, command, distill(sentence).check)


def test_a_narrowing_to_files_named_so_reaches_through_find():
    rule = "no sed -i on the config files please"
    assert distill(rule).check["paths"] == ["*config*"]
    assert bash(rule, "sed -i 's/a/b/' app/config.py") == "deny"
    assert bash(rule, "find . -name config.py -exec sed -i 's/a/b/' {} +") == "deny"
    assert bash(rule, "sed -i 's/teh/the/' README.md") is None


def edit(path: str, new: str, old: str = "") -> dict:
    return {"file_path": f"{CWD}/{path}", "old_string": old, "new_string": new}


@pytest.mark.parametrize(
    "sentence,breaks,allowed",
    [
        (
            "don't ever edit .npmrc, it holds the registry token",
            [("Edit", edit(".npmrc", "x", "y")), ("Bash", {"command": "echo x >> .npmrc"})],
            [("Bash", {"command": "cat .npmrc"}), ("Edit", edit(".npmrc.example", "x", "y"))],
        ),
        (
            "Do not touch infra/ — the platform team owns it",
            [("Bash", {"command": "rm infra/main.tf"})],
            [("Bash", {"command": "ls infra/"}), ("Edit", edit("infra-notes.md", "a", "b"))],
        ),
        (
            "Leave CHANGELOG.md as it is.",
            [("Write", {"file_path": f"{CWD}/CHANGELOG.md", "content": "x"})],
            [("Read", {"file_path": f"{CWD}/CHANGELOG.md"})],
        ),
        (
            "Keep out of infra/.",
            [("Bash", {"command": "rm infra/a.tf"})],
            [("Bash", {"command": "cat infra/a.tf"})],
        ),
        (
            "I don't want you touching the .github/ folder",
            [("Write", {"file_path": f"{CWD}/.github/workflows/ci.yml", "content": "x"})],
            [("Write", {"file_path": f"{CWD}/github.md", "content": "x"})],
        ),
        (
            "the lockfile is generated, don't hand-edit it",
            [("Edit", edit("package-lock.json", "b", "a"))],
            [("Edit", edit("package.json", "b", "a"))],
        ),
        (
            "No edits to package.json without asking",
            [("Write", {"file_path": f"{CWD}/package.json", "content": "{}"})],
            [("Write", {"file_path": f"{CWD}/web/package.jsonc", "content": "{}"})],
        ),
        (
            "Never edit generated files in gen/",
            [("Write", {"file_path": f"{CWD}/gen/a.go", "content": "x"})],
            [("Write", {"file_path": f"{CWD}/src/gen.go", "content": "x"})],
        ),
        (  # the apostrophes of "don't" and "it's" quote nothing
            "Please don't ever modify yarn.lock, it's generated",
            [("Edit", edit("yarn.lock", "b", "a"))],
            [("Edit", edit("package.json", "b", "a"))],
        ),
        (
            "Hands off Dockerfile.",
            [("Write", {"file_path": f"{CWD}/Dockerfile", "content": "FROM x"})],
            [("Write", {"file_path": f"{CWD}/Dockerfile.dev", "content": "FROM x"})],
        ),
        (
            "Don't use `unknown` in TypeScript",
            [("Write", {"file_path": f"{CWD}/src/a.ts", "content": "let x: unknown"})],
            [("Write", {"file_path": f"{CWD}/src/a.py", "content": "x = 'unknown'"})],
        ),
        (
            "the vendor/ folder is off limits",
            [("Bash", {"command": "cd vendor && rm lib.js"})],
            [("Bash", {"command": "grep -r x vendor/"})],
        ),
        (
            "could you not change the fixtures (seed/users.json)?",
            [("Edit", edit("seed/users.json", "b", "a"))],
            [("Edit", edit("seed/orders.json", "b", "a"))],
        ),
        (
            "no breakpoint() calls left in app/ — use the logger",
            [("Write", {"file_path": f"{CWD}/app/views.py", "content": "breakpoint()\n"})],
            [
                ("Write", {"file_path": f"{CWD}/tests/t.py", "content": "breakpoint()\n"}),
                ("Edit", edit("app/views.py", "", "breakpoint()\n")),
                ("Write", {"file_path": f"{CWD}/app/a.py", "content": "set_breakpoint(1)\n"}),
            ],
        ),
        (
            "No fmt.Println calls in the server code, use the logger",  # a dotted name as code
            [("Write", {"file_path": f"{CWD}/srv/main.go", "content": 'fmt.Println("hi")'})],
            [("Write", {"file_path": f"{CWD}/srv/main.go", "content": 'log.Info("hi")'})],
        ),
        (
            "don't write 'FIXME' notes in lib/",  # a quoted word after "write" is no program
            [("Write", {"file_path": f"{CWD}/lib/a.py", "content": "# FIXME later"})],
            [("Write", {"file_path": f"{CWD}/notes.md", "content": "FIXME later"})],
        ),
        (
            "don't write 'utilize' in the customer-facing docs",
            [("Write", {"file_path": f"{CWD}/docs/a.md", "content": "We utilize it."})],
            [("Write", {"file_path": f"{CWD}/src/a.py", "content": "# utilize the pool"})],
        ),
    ],
)
def test_file_and_text_rules_however_they_are_phrased(sentence, breaks, allowed):
    for tool, data in breaks:
        assert judged(sentence, tool, data) == "deny", (sentence, data, distill(sentence).check)
    for tool, data in allowed:
        assert judged(sentence, tool, data) is None, (sentence, data, distill(sentence).check)


@pytest.mark.parametrize(
    "sentence,run,paths,before",
    [
        (
            "after changing anything in billing/ run the tests (make test-billing)",
            {"program": "make", "sub": ["test-billing"]},
            ["billing/"],
            None,
        ),
        (
            "After touching any .graphql file, regenerate with pnpm codegen.",
            {"program": "pnpm", "sub": ["codegen"]},
            ["*.graphql"],
            None,
        ),
        ("Run the type checker before you push.", {"class": "typecheck"}, None, "push"),
        ("always run the formatter after editing go files", {"class": "format"}, ["*.go"], None),
        (
            "run `make lint` before every commit",
            {"program": "make", "sub": ["lint"]},
            None,
            "commit",
        ),
        (
            "Once you've edited Python files, run mypy",
            {"program": "mypy"},
            ["*.py"],
            None,
        ),
        ("always format with black after you edit python", {"program": "black"}, ["*.py"], None),
        (
            "When you change a .proto file, regenerate with buf generate",
            {"program": "buf", "sub": ["generate"]},
            ["*.proto"],
            None,
        ),
        (
            "run `make bundle` after every change",
            {"program": "make", "sub": ["bundle"]},
            None,
            None,
        ),
        (  # what the owed command runs on is no part of it: any `go test` run pays
            "whenever something in api/ changes, run the tests (go test ./api/...)",
            {"program": "go", "sub": ["test"]},
            ["api/"],
            None,
        ),
        (
            "Whenever you edit a .sql file, run sqlfluff lint",
            {"program": "sqlfluff", "sub": ["lint"]},
            ["*.sql"],
            None,
        ),
    ],
)
def test_owed_runs_however_they_are_phrased(sentence, run, paths, before):
    check = distill(sentence).check
    assert check and check["kind"] == "after" and check["run"] == run, check
    assert check.get("paths") == paths
    assert (check.get("before") or {}).get("sub", [None])[0] == before


@pytest.mark.parametrize(
    "sentence",
    [
        "please don't kill the mood with jargon",
        "I never want to see a sloppy commit message in a command log",
        "we deploy on tuesdays, never on fridays",
        "no need to run the linter for doc changes",
        "The weather is not ok",
        "Only use plain words in the intro, never jargon.",
        "could you stop the docker container",  # a request for now, not a rule
        "let's stop the dev server",
        "never git checkout -- .",  # the operand is lost to the full stop: no narrower guess
        "When you get a chance, run the build",
    ],
)
def test_what_only_looks_like_a_command_rule_makes_no_command_check(sentence):
    found = distill(sentence)
    assert not found.ok or found.check["kind"] != "tool", found.check


def test_the_parser_sees_what_feeds_a_shell_and_what_python_runs():
    by = {c.program: c for c in parse("curl -s x | sudo bash -s", "/").commands}
    assert by["bash"].fed_by == ("curl",) and by["sudo"].fed_by == ("curl",)
    assert by["curl"].fed_by == ()
    inner = [c for c in parse('sh -c "$(wget -qO- x)"', "/").commands if c.program == "sh"]
    assert inner and "wget" in inner[0].fed_by
    assert [c.program for c in parse("python3 -u -m black .", "/").commands] == [
        "python3",
        "black",
    ]
    assert [c.program for c in parse("python -c 'import black'", "/").commands] == ["python"]


def test_a_lesson_that_blocks_outranks_a_guards_question():
    rule = "never run rm -rf on anything"
    found = distill(rule)
    lesson = Lesson({"id": 1, "level": "block", "check": found.check, "sentence": rule})
    call = Call("Bash", {"command": f"rm -rf {HOME}/.vyre"}, CWD, dict(ENV))
    assert decide(call, [lesson]).decision == "deny"
    assert decide(call, []).decision == "ask"  # the guard alone asks


@pytest.mark.parametrize(
    "sentence",
    [
        "don't write tests",
        "don't write long functions",
        "never add comments",
        "stop adding dependencies",
        "don't include secrets",
        "don't mention the price",
    ],
)
def test_naming_things_is_not_banning_their_words(sentence):
    """A phrase check blocks every write that holds the words: only words said as words
    (quoted, "the word X", "never say X", said of prose) become one."""
    found = distill(sentence)
    assert not found.ok, found.check


@pytest.mark.parametrize(
    "sentence,phrase",
    [
        ("never say sorry", "sorry"),
        ("never include 'lorem ipsum'", "lorem ipsum"),
        ("never write the word synergy", "synergy"),
        ("in docs never write basically", "basically"),
    ],
)
def test_words_said_as_words_are_phrases(sentence, phrase):
    found = distill(sentence)
    assert found.check and found.check["kind"] == "phrase" and found.check["phrase"] == phrase
