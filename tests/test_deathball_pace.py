"""Hurrying a Deathball run: ROLL skips to its end, and the ``pace`` setting plays the
matrix's pictures faster or slower. Neither changes what the game decides: the stream is
the same but for when ``ready`` comes (and, for the setting, the settings' own lines), on
CPython and on the MicroPython unix port."""

import json
import sys

import pytest
from conftest import ROOT, simulate
from corerig import Rig
from courtside import settings as config
from courtside.deathball.die import Roll
from courtside.fair import Fair, seeded
from courtside_host.records import replay as rp
from test_deathball_modes import script

UP, DOWN, LEFT, RIGHT = range(4)
PACES = (25, 100, 400)
SPACING_US = 30_000_000     # between the inputs of the re-timed worked game: past any run at pace 25


# -- the setting -----------------------------------------------------------------------------

def test_pace_is_a_setting_from_25_to_400_percent():
    assert config.DEFAULTS["pace"] == 100 and config.check("pace", "200") == 200
    for bad, why in (("24", "between 25 and 400"), ("401", "between 25 and 400"), ("fast", "whole number")):
        with pytest.raises(ValueError, match=why):
            config.check("pace", bad)
    assert [config.scaled(1000, p) for p in (25, 50, 100, 200, 400)] == [4000, 2000, 1000, 500, 250]
    app = Rig("referee", (0, 1))
    assert app.cmd("set pace=200") is None
    assert app.events[-1] == ("settings", dict(config.DEFAULTS, brightness=255, pace=200))
    assert app.cmd("set pace=1000") == "pace must be between 25 and 400"
    assert app.core.settings["pace"] == 200


def test_a_rolls_pace_scales_its_pictures_not_its_faces():
    def roll(pace, fast):
        rng = Fair(seeded(3))
        r = Roll(4, 0, rng, fast, not fast, pace)
        return r, rng.below(1000)     # the next draw: the roll took as many as at any pace

    for fast in (False, True):
        normal, after = roll(100, fast)
        for pace in (25, 200, 400):
            other, other_after = roll(pace, fast)
            assert other.faces == normal.faces and other_after == after
            assert len(other.ends) == len(normal.ends)
            assert abs(other.arrow_end - normal.arrow_end * 100 // pace) <= len(normal.ends)
    assert roll(100, False)[0].arrow_end == 2300 + sum(_delays(False))   # pace 100: as before


def _delays(fast):
    from courtside.deathball.die import tumble_delays
    return tumble_delays(fast)


# -- ROLL during the run ---------------------------------------------------------------------

def _run_round(hurry, pace=100):
    """A round that sets both deathballs bouncing; ROLL mid-run when ``hurry``. Returns the
    (kind, fields) decided, the time from the round's last arrow to ``ready``, and the
    stage."""
    app = Rig("referee", (0, 1), settings={"pace": pace})
    assert app.cmd("dice 3 5") is None
    assert app.cmd("position 1@d1 2@e1 *b8n *g8n r0 t1") is None
    app.settle()
    app.clear()
    for box in (0, 1):
        app.press(box, UP)
        app.press(box, UP)
    moved = app.now
    if hurry:
        app.advance(300)           # the first bounce's die is tumbling
        assert app.stage.roll is not None
        app.main()
    app.settle()
    (ready_t,) = [t for kind, t in app.times if kind == "ready"]
    return app.events, (ready_t - moved) // 1000, app.stage


def test_roll_mid_run_gives_the_same_game_only_ready_earlier():
    events, waited, _ = _run_round(False)
    hurried, hurried_wait, ref = _run_round(True)
    assert hurried == events and {"bounce", "ball", "ready"} <= {k for k, _ in events}
    assert waited > 4000 and hurried_wait < 1000      # the whole run, against 0.3 s and a press
    assert ref.shown.balls == ref.game.balls and ref.game.turn == 0


def test_the_pace_scales_the_run_on_the_matrix():
    normal, waits = _run_round(False)[0], {}
    for pace in (50, 100, 200, 400):
        events, waits[pace], _ = _run_round(False, pace)
        assert events == normal
    assert waits[50] > waits[100] > waits[200] > waits[400]
    for pace in (50, 200, 400):     # within the presses' own time and a ms per picture rounded
        assert abs(waits[pace] - waits[100] * 100 // pace) < 500, waits


# -- whole games -----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [2, 7])
def test_a_whole_game_decides_the_same_at_any_pace(seed):
    games = [script(seed, {"pace": pace}) for pace in PACES]
    assert games[0] == games[1] == games[2]
    kinds = {k for k, _ in games[0]}
    assert {"bounce", "ball", "death", "shrink", "winner", "ready"} <= kinds


def _retimed_worked_game():
    """tests/scripts/deathball_game.jsonl with its inputs ``SPACING_US`` apart: each comes
    after the matrix is done, even at pace 25 (the test checks that it did)."""
    lines = (ROOT / "tests" / "scripts" / "deathball_game.jsonl").read_text().splitlines()
    steps = [json.loads(line) for line in lines if line.startswith("{")]
    for i, step in enumerate(steps):
        step["t"] = 100_000 + i * SPACING_US
    return steps


def _without_pace(line):
    ev = json.loads(line)
    if ev["ev"] == "hello":
        del ev["settings"]["pace"]
    if ev["ev"] in ("ready", "hold"):
        ev["t"] = None
    return ev


def test_the_worked_game_streams_the_same_at_any_pace_on_both_runtimes(tmp_path, micropython):
    script = tmp_path / "game.jsonl"
    steps = _retimed_worked_game()
    script.write_text("".join(json.dumps(step) + "\n" for step in steps))
    inputs = [step["t"] for step in steps]
    streams, readies = {}, {}
    for pace in PACES:
        lines = simulate(sys.executable, "--set", "pace=%d" % pace, script).stdout.splitlines()
        assert simulate(micropython, "--set", "pace=%d" % pace, script).stdout.splitlines() == lines
        assert json.loads(lines[0])["settings"]["pace"] == pace
        readies[pace] = [json.loads(line)["t"] for line in lines if '"ev":"ready"' in line]
        for t in readies[pace]:     # the premise: ready before the input after its cause
            assert t - max(at for at in inputs if at <= t) < SPACING_US, (pace, t)
        streams[pace] = [_without_pace(line) for line in lines]
    assert streams[25] == streams[100] == streams[400]
    kinds = {ev["ev"] for ev in streams[100]}
    assert {"bounce", "ball", "death", "winner", "ready", "turn", "move"} <= kinds
    assert "wait for the" not in json.dumps(streams[100])      # no press was refused for the matrix
    for slow, normal, fast in zip(readies[25], readies[100], readies[400]):
        assert slow > normal > fast


# -- old logs --------------------------------------------------------------------------------

def _stream(name, *args):
    run = simulate(sys.executable, *args, ROOT / "tests" / "scripts" / (name + ".jsonl"))
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_a_log_from_before_the_pace_setting_still_replays_identically():
    events = _stream("dodgeball_round")
    assert any(e["ev"] == "settings" for e in events)      # its `set tie_us=500`
    old = [dict(e) for e in events]
    for e in old:
        if e["ev"] == "hello":
            e["settings"] = {k: v for k, v in e["settings"].items() if k != "pace"}
        elif e["ev"] == "settings":
            del e["pace"]
    assert not any(rp.damaged(e) for e in old)
    assert rp.rejudge(old).identical and rp.rejudge(events).identical
    # A log whose board had the setting must show it wherever it lists the settings.
    half = [dict(e) for e in events]
    next(e for e in half if e["ev"] == "settings").pop("pace")
    assert not rp.rejudge(half).identical


def test_a_log_with_another_pace_replays_identically():
    events = _stream("deathball_game", "--set", "pace=250")
    assert events[0]["settings"]["pace"] == 250
    report = rp.rejudge(events)
    assert report.identical and report.outcomes[0].same


def test_roll_while_the_initiative_bars_show_hurries_them_too():
    def initiative(hurry):
        app = Rig("referee", (0, 1, 2))
        assert app.cmd("dice 2 6 3") is None
        app.main()
        if hurry:
            app.advance(300)
            assert app.stage.until is not None     # the bars are up
            app.main()
        app.settle()
        return app.events, [t for kind, t in app.times if kind == "ready"]

    events, (ready,) = initiative(False)
    hurried, (early,) = initiative(True)
    assert hurried == events and ready - early > 1_500_000
