"""The headless simulator: the public contract for checking the product from outside.

The whole firmware (app loop, debounce, arbiter, lobby, commands) runs on a script of
timed inputs, on CPython and on the MicroPython unix port, and must print the same
stream byte for byte, wherever on the tick circle it starts."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from conftest import simulate as run_headless

ROUND = str(ROOT / "tests" / "scripts" / "dodgeball_round.jsonl")
NEAR_WRAP = (1 << 30) - 3_000_000   # the tick counter wraps 3 s into the script


def simulate(exe, script, *args):
    return run_headless(exe, *args, script, check=False)


@pytest.fixture(scope="module")
def stream():
    run = simulate(sys.executable, ROUND)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_micropython_prints_the_same_stream_byte_for_byte(micropython):
    on_cpython = simulate(sys.executable, ROUND)
    on_micropython = simulate(micropython, ROUND)
    assert on_micropython.returncode == 0, on_micropython.stderr
    assert on_micropython.stdout == on_cpython.stdout
    assert on_cpython.stdout.count('"ev":"verdict"') == 4


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_wraparound_changes_nothing(runtime, micropython):
    exe = sys.executable if runtime == "cpython" else micropython
    plain = simulate(exe, ROUND)
    wrapped = simulate(exe, ROUND, "--t0", str(NEAR_WRAP))
    assert wrapped.returncode == 0, wrapped.stderr
    assert wrapped.stdout == plain.stdout


def test_same_seed_same_stream_other_seed_other_draw():
    a = simulate(sys.executable, ROUND, "--seed", "5").stdout
    assert simulate(sys.executable, ROUND, "--seed", "5").stdout == a
    draws = {json.dumps([e["draw"] for e in map(json.loads, simulate(sys.executable, ROUND, "--seed", str(s))
                                                 .stdout.splitlines()) if e["ev"] == "tie"])
             for s in range(8)}
    assert len(draws) > 1


def events(stream, kind):
    return [e for e in stream if e["ev"] == kind]


def test_lobby_and_start(stream):
    assert [e["p"] for e in events(stream, "join")] == [1, 2, 3, 4]
    assert events(stream, "start")[0]["players"] == [1, 2, 3, 4]
    assert events(stream, "pong")[0]["fw"] == events(stream, "hello")[0]["fw"]


def test_bounce_is_one_press_stamped_at_its_first_edge(stream):
    first = events(stream, "press")[0]
    assert (first["p"], first["b"], first["t"]) == (1, "THROW", 1_000_000)
    assert len([e for e in events(stream, "press") if e["c"] == 1]) == 3


def test_order_lags_and_early_answer(stream):
    v = events(stream, "verdict")[0]
    ranked = [(o["p"], o["rank"], o["lag"]) for o in v["order"]]
    assert ranked == [(1, 1, 0), (3, 2, 412_000), (4, 3, 700_000)]
    early = {e["n"]: e["early"] for e in events(stream, "press")}
    assert early[2] is False and early[3] is True   # a second answer meets no open throw


def test_three_way_tie(stream):
    v = events(stream, "verdict")[1]
    assert [o["rank"] for o in v["order"]] == [1, 2, 2, 2]
    (tie,) = events(stream, "tie")
    assert tie["players"] == [2, 3, 4] and sorted(tie["draw"]) == [2, 3, 4] and tie["gap"] == 1400
    assert [o["p"] for o in v["order"][1:]] == tie["draw"]


def test_bad_commands_change_nothing_and_good_ones_apply(stream):
    errors = events(stream, "error")
    assert [e["line"] for e in errors] == ["set tie_us=fast", "set tie_us=200 contest_ms=99999", "fly away"]
    assert "whole number" in errors[0]["msg"] and "between 50 and 10000" in errors[1]["msg"]
    got, changed = events(stream, "settings")
    assert got["tie_us"] == 1000 and got["contest_ms"] == 1500     # half-valid set applied nothing
    assert changed["tie_us"] == 500
    assert events(stream, "verdict")[2]["tie_us"] == 500


def test_stuck_button_reported_and_released(stream):
    (stuck,) = events(stream, "stuck")
    (unstuck,) = events(stream, "unstuck")
    assert (stuck["p"], stuck["b"]) == (2, "PASS") and stuck["t"] == 13_000_000
    assert unstuck["t"] == 15_000_000


def test_plugging_a_cable_is_a_fault_not_a_play(stream):
    fault = [e for e in events(stream, "fault") if e["kind"] == "box"]
    assert fault and fault[0]["p"] == 4
    withdrawn = {e["n"] for e in events(stream, "withdrawn")}
    box4 = {e["n"] for e in events(stream, "press") if e["t"] >= 17_000_000}
    assert withdrawn == box4 and len(box4) == 2
    assert not [e for e in events(stream, "verdict") if e["t"] > 17_000_000]   # nothing left to judge


def test_bad_script_is_refused_with_the_line_number(tmp_path):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"t": 0, "p": 1, "b": "THROW"}\n{"t": 5, "p": 9, "b": "THROW"}\n')
    run = simulate(sys.executable, str(script))
    assert run.returncode == 2 and "line 2" in run.stderr and "box from 1 to 4" in run.stderr
    script.write_text("not json\n")
    assert "line 1: not JSON" in simulate(sys.executable, str(script)).stderr


def test_lobby_refuses_to_start_alone(tmp_path):
    script = tmp_path / "alone.jsonl"
    script.write_text('{"t": 0, "p": 1, "b": "THROW"}\n{"t": 200000, "p": 0, "b": "MAIN"}\n'
                      '{"t": 300000, "cmd": "start"}\n')
    out = [json.loads(x) for x in simulate(sys.executable, str(script)).stdout.splitlines()]
    assert events(out, "refused") and not events(out, "start")
    assert "at least 2" in events(out, "error")[0]["msg"]


def test_long_main_press_cycles_modes_in_the_lobby(tmp_path):
    script = tmp_path / "menu.jsonl"
    script.write_text('{"t": 0, "p": 0, "b": "MAIN", "e": "down"}\n'
                      '{"t": 1500000, "p": 0, "b": "MAIN", "e": "up"}\n')
    out = [json.loads(x) for x in simulate(sys.executable, str(script)).stdout.splitlines()]
    assert [e["mode"] for e in events(out, "mode")] == ["dodgeball", "referee"]


def test_the_courtside_command_runs_the_same_simulator():
    run = subprocess.run([str(Path(sys.executable).parent / "courtside"), "sim", "--script", ROUND],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0 and run.stdout == simulate(sys.executable, ROUND).stdout


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_missing_files_are_named(runtime, micropython, tmp_path):
    exe = sys.executable if runtime == "cpython" else micropython
    run = simulate(exe, str(tmp_path / "nope.jsonl"))
    assert run.returncode == 2 and "cannot read" in run.stderr and "nope.jsonl" in run.stderr
    run = simulate(exe, ROUND, "--pins", str(tmp_path / "nopins.json"))
    assert run.returncode == 2 and "pin map" in run.stderr and "nopins.json" in run.stderr


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_a_busy_main_loop_overflows_the_ring_and_says_so(runtime, micropython, tmp_path):
    """--busy-ms models a main loop slow to come back for its snapshots: 300 edges of one
    bouncing contact in 30 ms fill the 256-slot ring: the first edge wakes the loop, the
    other 299 arrive during its 50 ms pass, and 255 fit (one slot tells full from empty).
    The snapshots that did not fit are counted and reported, never silently lost. Without
    it nothing overflows."""
    exe = sys.executable if runtime == "cpython" else micropython
    items = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 10, "cmd": "start"}]
    items += [{"t": 1_000_000 + i * 100, "p": 1, "b": "THROW", "e": "down" if i % 2 == 0 else "up"}
              for i in range(300)]
    script = tmp_path / "burst.jsonl"
    script.write_text("\n".join(json.dumps(i) for i in items) + "\n")
    busy = [json.loads(x) for x in simulate(exe, str(script), "--busy-ms", "50").stdout.splitlines()]
    (overflow,) = events(busy, "overflow")
    assert overflow["dropped"] == overflow["new"] == 299 - 255 and overflow["t"] > 1_000_000
    assert events(busy, "hello")[0]["t"] == 0
    calm = [json.loads(x) for x in simulate(exe, str(script)).stdout.splitlines()]
    assert not events(calm, "overflow") and events(calm, "press")
