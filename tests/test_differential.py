"""One logic, two runtimes, on inputs nobody wrote by hand.

Random scripts (seeded, so a failure can be replayed) of joins, presses with contact
bounce, near-ties, held buttons, mode changes and commands both good and bad go through
the whole firmware on CPython and on the MicroPython unix port; the two event streams
must be identical, byte for byte."""

import json
import sys

import pytest
from conftest import random_script, simulate


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
