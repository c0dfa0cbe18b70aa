"""Pin maps mutated by a seeded fuzzer, through every command's reading path.

The maps in hardware/ are damaged a few hundred ways (values of the wrong kind, ``"board":
[]``, keys dropped, bytes flipped or cut, deep nesting, text that is not UTF-8) and each is
read the way ``pins check``, ``deploy --pins``, ``web --pins`` and ``sim --pins`` read it
(and the board itself, on the unix port): every reading refuses it with a message, never a
traceback, and all of them agree with the board's rules on which maps are good.
"""

import copy
import json
import random
import subprocess
import sys

import pytest
from conftest import FIRMWARE, ROOT, simulate
from courtside import pinmap
from courtside_host.commands import pins as cmd_pins
from courtside_host.link import deploy
from courtside_host.web import server as webserver

MAPS = sorted((ROOT / "hardware").glob("**/*.json"))
ODD = [[], {}, None, True, False, 1.5, -1, 10 ** 30, "", "pico", "\ud800", [1], {"a": 1}, 99, "GP5"]


def mutate(rng, data, raw):
    roll = rng.random()
    if roll < 0.5:
        data = copy.deepcopy(data)
        for _ in range(rng.randint(1, 3)):
            where, key = data, None
            path = []
            while isinstance(where, (dict, list)) and where and rng.random() < 0.7:
                key = rng.choice(sorted(where) if isinstance(where, dict) else range(len(where)))
                path.append((where, key))
                where = where[key]
            if not path:
                data = rng.choice(ODD)
                break
            parent, key = path[-1]
            if rng.random() < 0.2 and isinstance(parent, dict):
                del parent[key]
            else:
                parent[key] = rng.choice(ODD)
        return json.dumps(data).encode("utf-8", "surrogatepass")
    if roll < 0.7:
        b = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if roll < 0.8:
        return raw[:rng.randrange(len(raw))]
    if roll < 0.9:
        depth = rng.choice([10, 1000, 100_000])
        return b'{"format": 1, "board": ' + b"[" * depth + b"]" * depth + b"}"
    return raw.replace(b'"pico"', rng.choice([b'"pic\xff"', b'"\xed\xa0\x80"', b'"\xc0\x80"', b'"pico"\x00']))


def cases(n=300, seed=20):
    rng = random.Random(seed)
    raws = [m.read_bytes() for m in MAPS]
    out = [b'{"format": 1, "board": []}', b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe{}", b"", b"{}"]
    while len(out) < n:
        i = rng.randrange(len(raws))
        out.append(mutate(rng, json.loads(raws[i]), raws[i]))
    return out


def verdict(raw):
    try:
        return "good", pinmap.read(raw).data
    except pinmap.PinMapError as e:
        assert e.problems and all(isinstance(p, str) and p for p in e.problems)
        return "bad", None


def test_the_maps_in_hardware_are_good():
    assert MAPS and all(verdict(m.read_bytes())[0] == "good" for m in MAPS)


def test_mutated_maps_are_refused_with_a_message_by_every_reader(tmp_path, capsys):
    good = 0
    for n, raw in enumerate(cases()):
        path = tmp_path / ("map%d.json" % n)
        path.write_bytes(raw)
        kind, _ = verdict(raw)
        good += kind == "good"
        # pins check
        assert cmd_pins.check_file(path) == (kind == "good"), raw[:80]
        seen = capsys.readouterr()
        out = seen.out + seen.err           # a good map's word on stdout, a bad one's on stderr
        assert "Traceback" not in out and out.strip()
        assert kind == "good" or not seen.out.strip()
        # deploy --pins and web --pins (the bundle reads it through deploy's reading)
        if kind == "good":
            assert deploy.pin_map(path) == raw
        else:
            with pytest.raises(deploy.DeployError, match="refused"):
                deploy.pin_map(path)
            with pytest.raises(webserver.BundleError, match="refused"):
                webserver.bundle(pins=path)
    assert 0 < good < 150        # the fuzzer made both kinds


@pytest.mark.slow     # hundreds of maps through both runtimes: about 12 s
def test_the_board_and_the_laptop_agree_on_each_mutated_map(tmp_path, micropython):
    """``sim --pins`` (the headless simulator, CPython and the unix port) gives each map the
    same verdict and the same message as the laptop's check."""
    maps = cases(120, seed=21)
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 0, "cmd": "ping"}\n')
    for n, raw in enumerate(maps):
        path = tmp_path / ("m%d.json" % n)
        path.write_bytes(raw)
        kind, _ = verdict(raw)
        runs = [simulate(exe, "--pins", path, script, check=False, timeout=60)
                for exe in (sys.executable, micropython)]
        for run in runs:
            assert "Traceback" not in run.stderr, (raw[:80], run.stderr[-500:])
            assert run.returncode == (0 if kind == "good" else 2), (raw[:80], run.stderr[-300:])
        assert runs[0].stderr == runs[1].stderr, raw[:80]
        if kind == "bad":
            assert runs[0].stderr.startswith("courtside sim: pin map ")


def test_the_cli_commands_refuse_board_list_and_deep_nesting_without_a_traceback(tmp_path):
    for raw in (b'{"format": 1, "board": []}', b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe{}"):
        path = tmp_path / "bad.json"
        path.write_bytes(raw)
        for args in (["pins", "check", str(path)], ["deploy", "--pins", str(path), "--port", "/dev/null"],
                     ["web", "--pins", str(path), "--http-port", "0"]):
            run = subprocess.run([sys.executable, "-m", "courtside_host.cli", *args], capture_output=True,
                                 text=True, timeout=60, check=False, cwd=FIRMWARE.parent)
            said = run.stderr + run.stdout
            assert run.returncode != 0 and "Traceback" not in said, (args, run.stderr[-500:])
            assert "pin map" in (run.stderr + run.stdout).lower() or "bad.json" in run.stderr + run.stdout
