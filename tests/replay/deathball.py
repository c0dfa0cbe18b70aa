"""Replay a Deathball script through the engine (CPython and the MicroPython unix port).

Input: ``players`` (1..4, as on the boxes), ``seed`` for the fair die, optional
``position`` (see courtside.deathball.notation), ``dice`` (faces forced for the next
rolls), ``script`` (a list of steps: ["initiative"], ["setup", p, "c1"],
["move", p, "up", "left"], ["dice", 3, 4]) and optional ``show`` (event kinds to report;
all when missing). Result: what each step returned, the events as short text lines, and
the final position and phase.

A case with ``rolls`` instead rolls the fair die that many times from ``seed`` and returns
the count of each face and whether the chi-square statistic stays under 20.515 (5 degrees
of freedom, significance 0.001): the die is the same on both runtimes and fair on each.
"""

from courtside.deathball.die import Dice
from courtside.deathball.engine import Game
from courtside.deathball.notation import square_of
from courtside.deathball.rules import ARROW_NAMES
from courtside.fair import Fair, seeded


def line(kind, fields):
    parts = [kind]
    for key in sorted(fields):
        value = fields[key]
        if isinstance(value, list):
            value = ",".join(str(v) for v in value)
        elif value is None:
            value = "-"
        elif value is True or value is False:
            value = "yes" if value else "no"
        parts.append("%s=%s" % (key, value))
    return " ".join(parts)


def roll_counts(case):
    dice = Dice(Fair(seeded(case["seed"])))
    counts = [0] * 6
    for _ in range(case["rolls"]):
        counts[dice.roll()[0] - 1] += 1
    expected = case["rolls"] / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    return {"counts": counts, "fair": chi2 < 20.515}


def run(case):
    if "rolls" in case:
        return roll_counts(case)
    dice = Dice(Fair(seeded(case.get("seed", 1))))
    game = Game([p - 1 for p in case["players"]], dice)
    if "position" in case:
        try:
            problem = game.load(case["position"])
        except ValueError as e:
            problem = str(e)
        if problem:
            return {"load": problem}
    dice.force(case.get("dice", []))
    results = []
    for step in case.get("script", []):
        verb = step[0]
        if verb == "initiative":
            results.append(game.initiative())
        elif verb == "setup":
            results.append(game.setup(step[1] - 1, square_of(step[2])))
        elif verb == "move":
            results.append(game.move(step[1] - 1, ARROW_NAMES.index(step[2]),
                                     ARROW_NAMES.index(step[3])))
        elif verb == "dice":
            dice.force(step[1:])
            results.append(None)
        else:
            results.append("unknown step %s" % verb)
    show = case.get("show")
    events = [line(k, f) for k, f in game.drain() if show is None or k in show]
    return {"results": results, "events": events, "position": game.position(),
            "phase": game.phase}
