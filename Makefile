# Courtside: every target sets up what it needs in .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUNTIME := $(VENV)/.web-runtime

.PHONY: setup system sim test test-fast fuzz lint typecheck bench chip clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# MicroPython's WebAssembly port, for the web page and its tests (the simulator does not
# use it): fetched once from the npm registry into the user's cache.
$(RUNTIME): $(STAMP)
	$(BIN)/courtside web --fetch-runtime
	touch $(RUNTIME)

setup: $(STAMP) $(RUNTIME) system

# What the browser and SVG tests need from the system, by Debian's names: headless Chromium
# and its driver (tests/browser.py runs /usr/bin/chromium and /usr/bin/chromedriver), librsvg's
# rsvg-convert and the font the hardware pictures are drawn in. Installed with apt-get where
# make runs as root (CI does); anywhere else it says what to install and goes on.
SYSTEM_PACKAGES := chromium chromium-driver librsvg2-bin fonts-dejavu-core

system:
	@missing=$$(for p in $(SYSTEM_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q ' installed$$' || echo $$p; done); \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "apt-get install" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	    echo "make test also needs" $$missing "(the browser and SVG tests):"; \
	    echo "    sudo apt-get install" $$missing; \
	    echo "(on another system: Chromium with its chromedriver at /usr/bin/chromium and"; \
	    echo "/usr/bin/chromedriver, librsvg's rsvg-convert, and the DejaVu fonts)"; \
	fi

sim: $(STAMP)
	$(BIN)/courtside sim

# The tests run in parallel (pytest-xdist), JOBS at once: most of their time is spent
# waiting on the processes they start, so one more than the cores keeps both busy. Each
# file goes to one worker whole, so a module's fixtures (a wheel installed, a virtual Pico
# deployed, a browser) are built once; tests/conftest.py puts the slow files first.
# PYTHONDONTWRITEBYTECODE is cleared for them: without the bytecode cache every worker and
# every Python the tests start compiles its modules again (pytest's rewritten tests too),
# which costs the suite more than a minute of the machine's time.
JOBS ?= 3
PYTEST = env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(JOBS) --dist loadfile

# Every test: CPython, the MicroPython unix port, virtual Picos, headless Chromium, SVG
# renders, and the slow ones (a wheel installed into a fresh venv, thousands of random games).
test: $(STAMP) $(RUNTIME) system
	$(PYTEST) --durations=15

# What a developer runs between edits, in under a minute: everything but the slow tests and
# those of the browser, the virtual Pico and the SVG renderer (the unix port itself is in:
# the core must give the same stream on both runtimes).
test-fast: $(STAMP) $(RUNTIME)
	$(PYTEST) -m "not slow and not browser and not vpico and not svg"

# The fuzz tier, not part of make test: minutes of random inputs on the surfaces a hostile
# input reaches (the virtual Pico's port and fence, the readers, scripts on both runtimes,
# replay), seeded; it prints tries, failures and peak memory per surface (fuzz/run.py).
FUZZ_SEED ?= 27
FUZZ_MINUTES ?= 6

fuzz: $(STAMP)
	$(BIN)/python fuzz/run.py --seed $(FUZZ_SEED) --minutes $(FUZZ_MINUTES)

lint: $(STAMP)
	$(BIN)/ruff check firmware common host tests bench fuzz

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

# The chip tier (docs/firmware.md, "The chip tier"): deploy to an emulated RP2040 and
# measure there, both captures. RIG is the emulator's folder (rp2emu.mjs and its image);
# CHIP_ARGS adds options (--quick, --firmware DIR, --json FILE).
chip: $(STAMP)
	@test -n "$(RIG)" || { echo "make chip RIG=path/to/the/emulator (docs/firmware.md#the-chip-tier)"; exit 2; }
	$(BIN)/python bench/chip/run.py --rig $(RIG) $(CHIP_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
