"""Stream v6 decides what stream v1 decided, byte for byte (tests/golden/README.md).

Each recorded script runs through today's firmware; the lines stream 2 added (``cmd``,
``button``, ``release``, presses of a box in fault) are set aside, ``hello`` loses its new
``settings`` and both ``hello`` and ``pong`` go back to saying stream 1; an ``ignored``
press now carries the time of its first edge rather than of the pass that saw it, and
(stream 4) what time decides carries the moment it was decided (a stuck button, a
verdict, a long press), where v1 said the pass that saw it, a few milliseconds later:
the test checks just that, and every input's time to the microsecond. Stream
3 added ``early`` to each press of a verdict's ``order`` (settled after any tie draw),
set aside too; and in stream 3 a long press in the die mode goes on to the next mode
(Dodge Ball, its lobby) where v1 entered the die mode again, so that ``mode`` and its
``lobby`` read as v1's ``mode die``. The scripts run with ``capture=irq``, v1's default
(PIO capture is the default now). What is left must be the v1 stream, line for line and
byte for byte. Stream 4 (docs/events.md) added a ``turn`` for each set-up turn (``phase``
``setup``), ``phase`` to every ``turn``, the ``ready`` lines and ``can_save`` in ``hello``:
all set aside; and ``help`` lists every command, the lobby's and the Deathball modes'
included (``courtside.core.usages``), where v1 listed nine (``V1_HELP``). Settings added
since (``courtside.settings.ADDED``: ``pace``) are set aside from ``settings`` lines.
Stream 5 added ``hold``, ``pending`` and ``cursor`` (set aside) and names what a refused
press waits for by the hold: a refusal "wait for the move to be shown" is read as v1's
"wait for the rolls" (V1_WAIT). Stream 6 calls ``shrink``'s ``ring`` ``border``: read back
as ``ring``.
"""

import json
import sys

import pytest
from conftest import ROOT, simulate
from courtside import events
from courtside import settings as config

GOLDEN = ROOT / "tests" / "golden" / "v1"
SCRIPTS = sorted(GOLDEN.glob("*.jsonl"))
ADDED = ("cmd", "button", "release", "ready", "hold", "pending", "cursor")
# An ignored press carries its first edge since v2, not the pass that saw it.
WHEN_CHANGED = ("ignored",)
# Since v4 what time decides is stamped at the moment it was decided, not at the pass that
# saw it: a stuck button when it had been held ``stuck_ms``, a verdict (and its ties) when
# its window closed, a long press (and the mode it enters) when the button had been held
# ``long_ms``, and what an input causes (a join, a box fault cleared) at the input's own
# stamp. v1 said the pass, which came at most this long after the moment (a debounce lock
# of 20 ms, then a v1 poll of 5 ms):
V1_PASS_LATE_US = 25000
# What v1's help said (since v4 it lists every command of the core, the lobby and the modes).
V1_HELP = ["ping", "mode dodgeball|referee|die", "new", "start", "join N", "set name=value ...",
           "get", "save", "help"]
# What v1 told a press refused while the matrix showed a death or the board shrinking.
V1_WAIT = {"wait for the move to be shown": "wait for the rolls"}
# ... while an input's own time (its first edge) is the same to the microsecond.
INPUTS = ("press", "button", "release", "unstuck", "cmd")


def seed_of(script):
    return int(script.stem.split("_")[1]) if script.stem.startswith("random_") else 1


def as_v1(line, seen=None):
    """The v1 line for a v3 line, or None for a line v1 did not have. ``seen`` (a dict,
    kept across the lines of one stream) follows the mode and the last command."""
    kind, t, fields = events.parse(line)
    seen = {} if seen is None else seen
    if _long_press_out_of_die(kind, fields, seen):
        return None if kind == "lobby" else events.line("mode", t, {"mode": "die"})
    if kind in ADDED or (kind == "ignored" and fields["why"] == "box fault"):
        return None
    if kind == "turn":
        return None if fields.pop("phase") == "setup" else events.line(kind, t, fields)
    if kind in ("hello", "pong"):
        fields.pop("settings", None)
        fields.pop("can_save", None)
        fields["stream"] = 1
        return events.line(kind, t, fields)
    if kind == "settings":
        for name in config.ADDED:       # settings added since, at their defaults
            assert fields.pop(name) == config.DEFAULTS[name]
        return events.line(kind, t, fields)
    if kind == "shrink":
        fields["ring"] = fields.pop("border")
        return events.line(kind, t, fields)
    if kind == "refuse" and fields["reason"] in V1_WAIT:
        fields["reason"] = V1_WAIT[fields["reason"]]
        return events.line(kind, t, fields)
    if kind == "verdict":
        for press in fields["order"]:
            del press["early"]
    if kind == "help":
        from courtside.core import usages
        assert fields["commands"] == usages() and set(V1_HELP) <= set(fields["commands"])
        return events.line(kind, t, {"commands": V1_HELP})
    if kind in WHEN_CHANGED:
        return events.line(kind, 0, fields)
    return events.line(kind, t, fields) if kind == "verdict" else line


def _long_press_out_of_die(kind, fields, seen):
    """True for the ``mode`` and ``lobby`` lines of a long press that left the die mode."""
    if kind == "cmd":
        seen["cmd"] = fields["line"].split()[:1]
    elif kind == "lobby" and seen.pop("left_die", False):
        return True
    elif kind == "mode":
        by_command = seen.pop("cmd", None) in (["mode"], ["new"])
        left_die = seen.get("mode") == "die" and not by_command
        seen["mode"] = fields["mode"]
        if left_die:
            seen["left_die"] = True
            return True
    elif kind not in ADDED:
        seen.pop("cmd", None)
    return False


def stuck_in_turn(lines):
    """``lines`` with each run of ``stuck`` lines in one order: v1 wrote buttons found
    stuck in one pass in pin order, v4 in the order they became stuck."""
    out, run = [], []
    for line in [*lines, ""]:
        if line.startswith('{"ev":"stuck"'):
            run.append(line)
            continue
        out += sorted(run, key=untimed)
        run = []
        out.append(line)
    return out[:-1]


def untimed(line):
    kind, _, fields = events.parse(line)
    return events.line(kind, 0, fields)


def v1_ignoring_when(line):
    kind, t, fields = events.parse(line)
    return events.line(kind, 0, fields) if kind in WHEN_CHANGED else line


def test_there_are_goldens():
    assert len(SCRIPTS) == 14 and all(s.with_suffix(".out").stat().st_size > 1000 for s in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_the_v1_stream_is_kept(script):
    run = simulate(sys.executable, "--seed", seed_of(script), "--set", "capture=irq", script)
    seen: dict = {}
    now = [v for v in (as_v1(line, seen) for line in run.stdout.splitlines()) if v is not None]
    then = [v1_ignoring_when(line) for line in script.with_suffix(".out").read_text().splitlines()]
    now, then = stuck_in_turn(now), stuck_in_turn(then)
    assert [untimed(line) for line in now] == [untimed(line) for line in then]
    for new, old in zip(now, then):
        kind, t_now, _ = events.parse(new)
        late = events.parse(old)[1] - t_now
        assert late == 0 if kind in INPUTS else 0 <= late <= V1_PASS_LATE_US, (new, old)
    assert json.loads(run.stdout.splitlines()[0])["stream"] == 6
