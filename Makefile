# Courtside: every target sets up what it needs in .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup sim test test-fast lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/courtside web --fetch-runtime
	touch $(STAMP)

setup: $(STAMP)

sim: $(STAMP)
	$(BIN)/courtside sim

# The tests run in parallel (pytest-xdist), JOBS at once: most of their time is spent
# waiting on the processes they start, so one more than the cores keeps both busy.
# PYTHONDONTWRITEBYTECODE is cleared for them: without the bytecode cache every worker and
# every Python the tests start compiles its modules again (pytest's rewritten tests too),
# which costs the suite more than a minute of the machine's time.
JOBS ?= 3
PYTEST = env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(JOBS) --dist worksteal

# Every test: CPython, the MicroPython unix port, virtual Picos, headless Chromium, SVG
# renders, and the slow ones (a wheel installed into a fresh venv, thousands of random games).
test: $(STAMP)
	$(PYTEST)

# What a developer runs between edits, in under a minute: everything but the slow tests,
# the browser's and the virtual Pico's (the unix port itself is in: the core must give the
# same stream on both runtimes).
test-fast: $(STAMP)
	$(PYTEST) -m "not slow and not browser and not vpico"

lint: $(STAMP)
	$(BIN)/ruff check firmware host tests bench

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
