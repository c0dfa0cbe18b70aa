"""Whatever bytes a laptop sends, the board and the simulator read them alike and carry
on: random byte lines, commands built from tricky pieces (other scripts' digits, spaces
that are not ASCII, control characters, bytes that are not UTF-8, lines of any length),
each through the board's own line reader and the core's command handling on CPython and
on the MicroPython unix port; the two streams must be equal byte for byte, and every line
must get its answer."""

import subprocess
import sys

import pytest
from conftest import FIRMWARE, PYPATH, ROOT, simulate
from hypothesis import given, settings
from hypothesis import strategies as st

RUN = """
import sys, binascii
sys.path.insert(0, %(firmware)r)
from courtside import events
from courtside.run import load_pins
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside.core import LINE_MAX
from courtside.hw.lines import Receiver


class Port:
    def __init__(self):
        self.data, self.at = b"", 0

    def readinto(self, buf):
        buf[0] = self.data[self.at]
        self.at += 1
        return 1


pins = load_pins(%(pins)r)
core = Core(pins, None, Fair(seeded(1)), now=0, levels=pins.button_mask)
core.step(0, None, [])
del core.effects[:]
port = Port()
reader = Receiver(port, lambda: port.at < len(port.data), limit=LINE_MAX, per_pass=1 << 20)
now = 0
for hexline in sys.stdin:
    port.data, port.at = binascii.unhexlify(hexline.strip()) + b"\\n", 0
    got = []
    line = reader.read_line()
    while line is not None:
        got.append(line)
        line = reader.read_line()
    now += 1000
    core.step(now, None, got)
    for e in core.effects:
        if e[0] == 0:
            sys.stdout.write(events.line(e[1], e[2], e[3]) + "\\n")
    del core.effects[:]
    sys.stdout.write("--\\n")
"""

PIECES = [b"set", b"get", b"ping", b"help", b"mode", b"referee", b"die", b"dodgeball", b"join", b"start",
          b"new", b"save", b"tie_us=", b"sound=", b"brightness=", b"800", b"-1", b"0", b"\xd9\xa1\xd9\xa2",
          b"\xc2\xa0", b"\xe2\x80\x83", b"\t", b" ", b"  ", b"\x02", b"\x1b", b"\x08", b"\x7f", b"\xff",
          b"\xc3", b"\xe9", b"\xc3\xa9", b"\xf0\x9f\x8e\xb2", b"=", b"dice", b"3", b"position", b"1@d4",
          b"\x00", b"help me", b"tie_us=1000", b"\\u00e9", b'"', b"\\"]
LINES = st.one_of(st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
                  st.lists(st.sampled_from(PIECES), max_size=8).map(b"".join),
                  st.integers(150, 30_000).map(lambda n: b"set tie_us=" + b"9" * n))


def run(exe, lines):
    code = RUN % {"firmware": str(FIRMWARE), "pins": str(ROOT / "hardware" / "pinmap.json")}
    out = subprocess.run([exe, "-c", code], input="".join(line.hex() + "\n" for line in lines),
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@settings(max_examples=3, deadline=None)
@given(st.lists(LINES, min_size=150, max_size=150))
def test_any_bytes_give_the_same_stream_on_both_runtimes(micropython, lines):
    here = run(sys.executable, lines)
    there = run(micropython, lines)
    assert there == here
    answers = here.split("--\n")[:-1]
    assert len(answers) == len(lines)
    for line, answer in zip(lines, answers):
        kinds = [a.split('"')[3] for a in answer.splitlines()]
        if kinds:                  # a line with words is echoed, then answered
            assert kinds[0] == "cmd" and len(kinds) >= 2, (line, answer)
        assert answer.isascii()


SETTINGS = """
import sys
sys.path.insert(0, %(firmware)r)
from courtside import settings
for path in sys.argv[1:]:
    try:
        got = settings.load(path)
        print("ok", got["tie_us"])
    except ValueError as e:
        print("refused", str(e).replace(path, "FILE"))
"""


def test_saved_settings_that_cannot_be_settings_are_refused_with_a_reason(micropython, tmp_path):
    cases = {
        "big": b'{"tie_us": 800, "pad": "' + b"x" * 300_000 + b'"}',
        "deep": b"[" * 20_000 + b"]" * 20_000,
        "latin1": b'{"tie_us": 800, "name": "caf\xe9"}',
        "list": b"[1, 2]",
        "bad value": b'{"tie_us": -5}',
        "good": b'{"tie_us": 800}',
    }
    paths = []
    for name, data in cases.items():
        path = tmp_path / (name.replace(" ", "_") + ".json")
        path.write_bytes(data)
        paths.append(str(path))
    paths.append(str(tmp_path / "missing.json"))
    code = SETTINGS % {"firmware": str(FIRMWARE)}
    results = {}
    for exe in (sys.executable, micropython):
        run = subprocess.run([exe, "-c", code, *paths], capture_output=True, text=True, timeout=60,
                             check=False)
        assert run.returncode == 0, run.stderr[-2000:]
        results[exe] = run.stdout.splitlines()
    assert results[sys.executable] == results[micropython]
    got = dict(zip([*cases, "missing"], results[sys.executable]))
    assert got["big"] == "refused FILE is longer than 1024 bytes"
    assert got["deep"] == "refused FILE is longer than 1024 bytes"
    assert got["latin1"] == "refused FILE is not UTF-8 text"
    assert got["list"] == "refused FILE must hold a JSON object"
    assert got["bad value"].startswith("refused tie_us must be between")
    assert got["good"] == "ok 800" and got["missing"] == "ok 1000"


def test_deeply_nested_settings_under_the_size_limit_are_not_json(micropython, tmp_path):
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 500 + b"]" * 500)
    code = SETTINGS % {"firmware": str(FIRMWARE)}
    for exe in (sys.executable, micropython):
        run = subprocess.run([exe, "-c", code, str(path)], capture_output=True, text=True, timeout=60,
                             check=False)
        assert run.returncode == 0 and run.stdout.strip() in (
            "refused FILE is not JSON", "refused FILE must hold a JSON object"), run.stdout + run.stderr


def test_the_virtual_pico_answers_after_a_long_line_and_bad_bytes(vpico):
    """The firmware's reader on a board-like port (the virtual Pico): a 20 kB line, bytes
    that are not UTF-8, control characters (not Ctrl-C: on a board that stops the program);
    each gets its answer and ping still does."""
    import json
    import time

    import serial
    from courtside_host.link import deploy as dep
    dep.deploy(vpico.port)
    port = serial.Serial(vpico.port, timeout=0.2)
    try:
        port.reset_input_buffer()
        port.write(b"x" * 20_000 + b"\n" + b"set tie_us=\xff\xfe\n" + b"\x02\x01\x1bping\x7f\n")
        got, end = b"", time.monotonic() + 30
        while got.count(b'"ev":"pong"') < 1 and time.monotonic() < end:
            got += port.read(4096)
    finally:
        port.close()
    lines = [json.loads(x) for x in got.decode().splitlines() if x.startswith("{")]
    kinds = [e["ev"] for e in lines]
    errors = [e for e in lines if e["ev"] == "error"]
    assert kinds.count("cmd") == 3 and "pong" in kinds
    assert "longer than 200" in errors[0]["msg"]
    assert errors[1]["line"] == "set tie_us=??" and "whole number" in errors[1]["msg"]


# -- damaged logs and scripts: clear errors, never a traceback --------------------------------

def _damaged_logs(stream, rng):
    """A recorded log damaged the ways logs get damaged, one way per copy."""
    import json
    lines = stream.splitlines()
    ways = [
        lambda e: dict(e, p="1") if "p" in e else e,
        lambda e: dict(e, b="JUMP") if "b" in e else e,
        lambda e: {k: v for k, v in e.items() if k != "t"},
        lambda e: dict(e, t=1.5),
        lambda e: {k: v for k, v in e.items() if k != "c"} if e.get("ev") == "verdict" else e,
        lambda e: dict(e, draw="2,1", players=None) if e.get("ev") == "tie" else e,
        lambda e: dict(e, order=[1, 2]) if e.get("ev") == "verdict" else e,
        lambda e: dict(e, face=9) if e.get("ev") in ("roll", "bounce") else e,
        lambda e: dict(e, line=["ping"]) if e.get("ev") == "cmd" else e,
        lambda e: dict(e, ev="hello") if e.get("ev") == "press" else e,
    ]
    for way in ways:
        out = []
        for line in lines:
            e = json.loads(line)
            out.append(json.dumps(way(e)) if rng.random() < 0.3 else line)
        yield "\n".join(out) + "\n"
    yield "[" * 50_000 + "\n" + stream                        # nested far past recursion
    yield stream[: len(stream) // 2]                            # cut off half way
    yield "\n".join(line[: rng.randrange(len(line) + 1)] for line in lines) + "\n"
    yield "x" * 200_000 + "\n" + stream                         # one very long line
    yield stream.replace("\n", "\r\n", 7) + "\xff\xfe\x00garbage\n"


@pytest.mark.slow
def test_replay_of_damaged_logs_says_so_and_never_fails(tmp_path):
    import random
    rng = random.Random(11)
    streams = [simulate(sys.executable, ROOT / "tests" / "scripts" / name).stdout
               for name in ("dodgeball_round.jsonl", "deathball_game.jsonl")]
    cli = [sys.executable, "-m", "courtside_host.cli", "replay"]
    for k, stream in enumerate(streams):
        for j, text in enumerate(_damaged_logs(stream, rng)):
            log = tmp_path / ("log%d_%d.jsonl" % (k, j))
            log.write_bytes(text.encode("utf-8", "surrogateescape"))
            run = subprocess.run([*cli, str(log)], capture_output=True, text=True, timeout=120,
                                 check=False)
            assert run.returncode in (0, 1, 2), run.stderr[-1500:]
            assert "Traceback" not in run.stdout + run.stderr, run.stderr[-1500:]


def test_bad_scripts_are_refused_with_the_line_and_never_fail(tmp_path, micropython):
    cases = {
        b'{"t": 0, "cmd": "ping"}\n{"t": 10, "p": 1, "b": "THROW", "x": "\xff"}\n': "line 2: not UTF-8",
        b'# caf\xe9 au lait\n{"t": 0, "cmd": "ping"}\n': "line 1: not UTF-8",
        b"[" * 3000 + b"\n": "line 1",
        b'{"t": 1099511627776, "cmd": "ping"}\n': "from 0 to 28800000000",
        b'{"t": 0, "cmd": ["ping"]}\n': "must be a string",
        b'{"t": 0, "p": 1, "b": "THROW"}\n' + b"x" * 5000 + b"\n": "line 2: longer than 4096",
    }
    for exe in (sys.executable, micropython):
        for k, (data, message) in enumerate(cases.items()):
            script = tmp_path / ("bad%d.jsonl" % k)
            script.write_bytes(data)
            run = simulate(exe, script, check=False)
            assert run.returncode == 2 and message in run.stderr, (exe, data[:40], run.stderr)
            assert not run.stdout                     # refused before anything ran


@pytest.mark.slow
def test_an_hour_of_play_runs_on_the_unix_port_in_a_small_heap(tmp_path, micropython):
    """An hour's script (about 700 kB, in time order) is read as a stream: it runs on the
    unix port in the heap the loop itself needs, and gives CPython's stream."""
    import json
    import random
    rng = random.Random(5)
    lines = ['{"t": 0, "cmd": "join 1"}', '{"t": 0, "cmd": "join 2"}', '{"t": 10, "cmd": "start"}']
    t = 1_000_000
    while t < 3_600_000_000:
        for p in (1, 2):
            lines.append(json.dumps({"t": t + rng.randrange(3000), "p": p, "b": "THROW", "e": "tap"}))
        t += 350_000
    lines.sort(key=lambda line: json.loads(line)["t"])
    script = tmp_path / "hour.jsonl"
    script.write_text("\n".join(lines) + "\n")
    assert script.stat().st_size > 600_000
    # 160 KiB ran it here but not from a clean clone (a longer module path): at the edge
    # once the encoder kept its names on 32 shelves, so 168 KiB. The arbiter's contest in
    # columns (a storm's presses a few dozen bytes each, not an object each) made the
    # source the port compiles larger: 172 KiB runs it here where 164 did, so 176 KiB.
    # That left no margin: from this checkout 174 KiB fails and 176 runs (the tree
    # before this round's debouncer queue: 172 fails too), and a full `make test` failed
    # here once at 176, the collector's look at the C stack differing from run to run.
    # 8 KiB more, so a small heap is still what is tested, and never the edge.
    small = subprocess.run([micropython, "-X", "heapsize=184k", "-m", "courtside_sim.headless", str(script)],
                           capture_output=True, text=True, timeout=600, check=False,
                           env=dict(__import__("os").environ, MICROPYPATH=PYPATH + ":.frozen"))
    assert small.returncode == 0, small.stdout[-1500:] + small.stderr[-1500:]
    assert small.stdout == simulate(sys.executable, script, timeout=600).stdout
    assert small.stdout.count('"ev":"verdict"') > 2000        # contests of 1.5 s, an hour long


def test_a_repeated_setting_and_a_word_after_help_are_refused(tmp_path):
    import json
    script = tmp_path / "twice.jsonl"
    script.write_text('{"t": 0, "cmd": "set tie_us=abc tie_us=1000"}\n{"t": 10, "cmd": "help me"}\n'
                      '{"t": 20, "cmd": "help"}\n')
    stream = [json.loads(x) for x in simulate(sys.executable, script).stdout.splitlines()]
    errors = [e for e in stream if e["ev"] == "error"]
    assert [e["line"] for e in errors] == ["set tie_us=abc tie_us=1000", "help me"]
    assert "given twice" in errors[0]["msg"]
    assert [e for e in stream if e["ev"] == "help"] and not [e for e in stream if e["ev"] == "settings"]
