"""One logic, two runtimes, on inputs nobody wrote by hand.

Random scripts (seeded, so a failure can be replayed) of joins, presses with contact
bounce, near-ties, held buttons, mode changes and commands both good and bad go through
the whole firmware on CPython and on the MicroPython unix port; the two event streams
must be identical, byte for byte."""

import json
import random
import sys

import pytest
from conftest import simulate

BUTTONS = ("THROW", "DODGE", "CATCH", "PASS")
COMMANDS = ("ping", "get", "set tie_us=750", "set tie_us=-1", "set sound=0 brightness=40",
            "set nonsense", "new", "start", "join 3", "mode die", "mode dodgeball", "bogus words",
            "mode referee", "dice 2 6", "help")


def random_script(seed):
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


@pytest.mark.parametrize("seed", range(12))
def test_random_play_gives_identical_streams_on_both_runtimes(seed, tmp_path, micropython):
    script = tmp_path / "random.jsonl"
    script.write_text("\n".join(json.dumps(i) for i in random_script(seed)) + "\n")
    near_wrap = str((1 << 30) - 4_000_000)
    args = ("--seed", seed, "--t0", near_wrap, script)
    cpy = simulate(sys.executable, *args)
    mpy = simulate(micropython, *args)
    assert mpy.stdout == cpy.stdout
    stream = [json.loads(line) for line in cpy.stdout.splitlines()]
    kinds = {e["ev"] for e in stream}
    assert {"hello", "start"} <= kinds and kinds & {"press", "button", "ignored"}
    # every command the script sent is in the stream as an input, in order
    sent = [i["cmd"] for i in sorted(random_script(seed), key=lambda i: i["t"]) if "cmd" in i]
    assert [e["line"] for e in stream if e["ev"] == "cmd"] == sent
