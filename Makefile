# The two entry points a new machine needs: `make demo` and `make test`.
# Both create the virtual environment on first use. `make test` is what CI runs: ruff,
# mypy (clean on vyre/, settings in pyproject.toml) and pytest on every core, two workers each (each module's
# tests stay on one worker, so a module's shared fixture is built once; the slowest modules
# go first, in the order tests/conftest.py gives them).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

$(BIN)/vyre: pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	$(MAKE) --no-print-directory warm
	touch $(BIN)/vyre

# What an installed Vyre reads in every process, made once per install as pip does for a
# wheel (an editable install compiles nothing): the package's bytecode, and beside it the
# rules' compiled patterns and the word lists (vyre/extract/compiled.py, gazetteer.py), so
# the first `vyre ingest` does not scan 22 MB of name data before its workers start.
.PHONY: warm
warm:
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m compileall -q vyre
	home=$$(mktemp -d) && env -u PYTHONDONTWRITEBYTECODE -u VYRE_CACHE VYRE_HOME=$$home \
		$(BIN)/python -c 'from vyre.extract import warm; warm()'; rc=$$?; rm -rf "$$home"; exit $$rc

.PHONY: demo test lint bench browser screenshots
demo: $(BIN)/vyre
	$(BIN)/vyre demo

# Bytecode is written during the suite even where the shell sets PYTHONDONTWRITEBYTECODE:
# otherwise every process it starts (hooks, daemons, CLIs: hundreds) compiles vyre again
# (~0.75 s of CPU each) and each worker rewrites every test module's asserts.
# Two workers per core (at most 8): a test often waits on a daemon, a hook or a CLI process of
# its own, and a worker per core leaves the cores idle meanwhile (on 2 cores, 1,434 tests:
# 160 s with 2 workers, 138 s with 3, 127 s with 4, one after the other on a quiet machine).
WORKERS := $(shell $(PY) -c 'import os; print(min(8, 2 * len(os.sched_getaffinity(0))))' 2>/dev/null || echo auto)
test: $(BIN)/vyre browser
	$(BIN)/ruff check .
	$(BIN)/mypy
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -n $(WORKERS) --dist loadscope --no-loadscope-reorder

lint: $(BIN)/vyre
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(BIN)/vyre
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/extract.py
	$(BIN)/python bench/incremental.py
	$(BIN)/python bench/derive.py
	$(BIN)/python bench/relevant.py
	$(BIN)/python bench/daemon.py
	$(BIN)/python bench/hook.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/learn.py
	$(BIN)/python bench/mutations.py
	$(BIN)/python bench/ask.py
	$(BIN)/python bench/deck.py
	$(BIN)/python bench/graphfile.py

# Debian's Chromium for the Deck's browser tests (installed when missing, if allowed).
browser:
	scripts/ensure-chromium

# The README's pictures of the Deck, taken by its browser tests on the demo world.
screenshots: $(BIN)/vyre browser
	VYRE_DECK_SHOTS=docs/deck $(BIN)/pytest -q tests/test_deck_browser.py
