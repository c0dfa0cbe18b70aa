"""Every press judged, in order, however slowly the main loop comes round.

The same edges go through the firmware with every pass of the loop taking 0 ms (the
simulator's default: a pass comes the moment anything is due) up to 500 ms (a board far
slower than any Pico should be). The presses, releases, verdicts, ties and box faults
must be the same to the microsecond every time: the debouncer and the box check judge
each button at its own stamps (docs/firmware.md#the-loop-and-its-budget), so a pass that
comes late changes when a line is written, never what it says.

The schedules are the ones that lost presses before: one player pressing THROW every
90 ms (held 30 ms), and pairs of presses 20 us to 1 ms apart on two boxes every 80 ms,
never two buttons of one box down together, with bouncing contacts.
"""

import json
import random
import sys

import pytest
from conftest import ROOT, simulate

PASS_MS = (0, 1, 5, 20, 30, 50, 90, 200, 500)
ON_UNIX_PORT = (0, 50, 500)
JUDGED = ("press", "release", "button", "verdict", "tie", "fault", "withdrawn", "ignored",
          "stuck", "unstuck", "overflow", "join", "start")


def _lobby(script, players):
    t = 100_000
    for p in range(1, players + 1):
        script.append({"t": t, "p": p, "b": "PASS"})
        t += 50_000
    script.append({"t": t + 100_000, "p": 0, "b": "MAIN"})
    return t + 600_000


def _edge(script, t, p, b, e):
    script.append({"t": t, "p": p, "b": b, "e": e})


def one_player_every_90_ms():
    script = []
    t = _lobby(script, 2)
    for _ in range(30):
        _edge(script, t, 1, "THROW", "down")
        _edge(script, t + 30_000, 1, "THROW", "up")
        t += 90_000
    return script


def pairs_every_80_ms(seed):
    rng = random.Random(seed)
    script = []
    t = _lobby(script, 4)
    names = ("THROW", "DODGE", "CATCH", "PASS")
    for _ in range(40):
        a, b = rng.sample(range(1, 5), 2)
        gap = rng.randint(20, 1000)
        for p, at in ((a, t), (b, t + gap)):
            name = names[rng.randrange(4)]
            _edge(script, at, p, name, "down")
            if rng.random() < 0.5:              # a contact that bounces as it closes
                _edge(script, at + 150, p, name, "up")
                _edge(script, at + 400, p, name, "down")
            _edge(script, at + rng.randint(25_000, 60_000), p, name, "up")
        t += 80_000
    return script


SCHEDULES = {
    "throw every 90 ms": one_player_every_90_ms(),
    "pairs every 80 ms": pairs_every_80_ms(7),
    "pairs every 80 ms, other draw": pairs_every_80_ms(11),
}


def judged(stdout):
    """The lines a pass's timing must not change, as written."""
    out = []
    for line in stdout.splitlines():
        ev = json.loads(line)["ev"]
        if ev in JUDGED:
            out.append(line)
    return out


def _run(exe, tmp_path, name, busy_ms):
    path = tmp_path / ("%s.jsonl" % name.replace(" ", "_").replace(",", ""))
    if not path.exists():
        path.write_text("".join(json.dumps(step) + "\n" for step in SCHEDULES[name]))
    return judged(simulate(exe, "--busy-ms", busy_ms, path).stdout)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_pass_length_changes_nothing_that_is_judged(name, tmp_path):
    first = _run(sys.executable, tmp_path, name, 0)
    kinds = [json.loads(line)["ev"] for line in first]
    kinds = kinds[kinds.index("start"):]
    presses = kinds.count("press")
    assert presses == (30 if name.startswith("throw") else 80)
    assert kinds.count("release") == presses
    assert not {"fault", "withdrawn", "ignored", "overflow"} & set(kinds)
    for busy in PASS_MS[1:]:
        assert _run(sys.executable, tmp_path, name, busy) == first, "with %d ms passes" % busy


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_the_unix_port_judges_as_cpython_at_any_pass_length(name, tmp_path, micropython):
    expected = _run(sys.executable, tmp_path, name, 0)
    for busy in ON_UNIX_PORT:
        assert _run(micropython, tmp_path, name, busy) == expected, "with %d ms passes" % busy


def test_a_long_press_is_judged_at_its_moment_whatever_the_pass(tmp_path):
    """The main button held past ``long_ms`` and a box press after that moment, both seen
    by one slow pass: the long press (a new game) still comes first, as it happened."""
    script = []
    t = _lobby(script, 2)
    script.append({"t": t, "p": 0, "b": "MAIN", "e": "down"})
    script.append({"t": t + 1_600_000, "p": 2, "b": "DODGE"})
    script.append({"t": t + 1_700_000, "p": 0, "b": "MAIN", "e": "up"})
    runs = []
    for busy in (0, 500, 2000):
        path = tmp_path / ("long_%d.jsonl" % busy)
        path.write_text("".join(json.dumps(step) + "\n" for step in script))
        lines = simulate(sys.executable, "--busy-ms", busy, path).stdout.splitlines()
        runs.append([line for line in lines if json.loads(line)["ev"] in ("mode", "lobby", "press",
                                                                            "button", "join")])
    assert runs[1] == runs[0] and runs[2] == runs[0]
    kinds = [json.loads(line)["ev"] for line in runs[0]]
    # the hold ended the game for a new lobby, where the DODGE press joins box 2
    assert kinds[-4:] == ["mode", "lobby", "button", "join"]


# A command is read when a pass comes, so what it writes moves with the pass: the game
# below is entered by command (mode, lobby) and its dice are forced by command.
ANSWERS = ("cmd", "ok", "error", "mode", "lobby")
GAME_UNTIL_US = 30_000_000   # the worked game's first part: set-up, moves, runs, a death
LATER_US = 2_000_000


def _deathball_with_presses_during_runs(seed):
    """A worked refereed game with arrows pressed at random moments on top: while the
    initiative rolls are shown, and after the round that sets the deathballs running,
    while they run (refused there) and as the next round begins."""
    rng = random.Random(seed)
    lines = (ROOT / "tests/scripts/deathball_game.jsonl").read_text().splitlines()
    steps = [json.loads(line) for line in lines if line.startswith("{")]
    steps = [step for step in steps if step["t"] < GAME_UNTIL_US]
    # Spread out so each command is read before the next press whatever the pass: the
    # game's lobby after "mode referee", and the initiative ROLL a second after the dice.
    for step in steps[1:]:
        step["t"] += LATER_US if step["t"] < 1_200_000 else LATER_US + 1_000_000
    roll = [step["t"] for step in steps if step.get("b") == "MAIN"][-1]
    run = max(step["t"] for step in steps)
    for start, stop, count in ((roll + 100_000, roll + 2_500_000, 6), (run + 50_000, run + 12_000_000, 30)):
        for _ in range(count):
            steps.append({"t": rng.randrange(start, stop), "p": rng.randint(1, 3),
                          "b": rng.choice(("UP", "DOWN", "LEFT", "RIGHT"))})
    return sorted(steps, key=lambda step: step["t"])


@pytest.mark.parametrize("seed", [3, 5])
def test_a_refereed_game_writes_the_same_stream_at_any_pass_length(seed, tmp_path, micropython):
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(step) + "\n" for step in _deathball_with_presses_during_runs(seed)))

    def stream(exe, busy):
        lines = simulate(exe, "--busy-ms", busy, path).stdout.splitlines()
        return [line for line in lines if json.loads(line)["ev"] not in ANSWERS]

    first = stream(sys.executable, 0)
    kinds = [json.loads(line)["ev"] for line in first]
    assert {"ball", "bounce", "refuse", "move", "turn", "ready"} <= set(kinds)
    for busy in (5, 30, 90, 200, 500):
        assert stream(sys.executable, busy) == first, "with %d ms passes" % busy
    assert stream(micropython, 200) == first
