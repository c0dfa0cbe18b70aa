"""The chip tier: deploy Courtside to a board and measure it there, with each capture.

    python bench/chip/run.py --rig RIG_FOLDER             # an emulated RP2040 this starts
    python bench/chip/run.py --rig RIG_FOLDER --quick     # fewer presses: minutes, not a quarter hour
    python bench/chip/run.py --rig RIG_FOLDER --firmware OLD_TREE/firmware   # another tree, same runs
    python bench/chip/run.py --rig RIG_FOLDER --parts     # only what single pieces of the work cost

For each capture (PIO, then IRQ) it powers the board up, and measures: power-on and soft
reset to ``hello``; heap allocations in an idle second; the heap and the deepest C stack
(the ``mem`` command); a command answered while idle; a Dodge Ball game and a refereed
Deathball game each played at a table's pace (presses every 80 ms, pairs 20 us - 1 ms
apart) and in a storm (a press every millisecond); a burst of 2,000 command lines, then
``ping``; and, at the REPL, what single pieces of the work cost (``parts_board.py``).
Each game's presses are also played through the simulator, which says how many
press lines the board must report. It prints every figure beside its goal and exits 1 on
a crash, a lost press or a lost line (goals missed are reported, not failed: they are the
figures to work on). docs/firmware.md, "The chip tier", says how to run it.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "firmware"))

import games  # noqa: E402
from rig import Rig  # noqa: E402

PINMAP = os.path.join(ROOT, "hardware", "pinmap.json")
BIN = os.path.dirname(sys.executable)
MATRIX_GAP_NS = 200_000          # the WS2812 line low this long ends a frame


def gpio_table():
    with open(PINMAP) as f:
        data = json.load(f)
    gpio = []
    for box in data["boxes"]:
        for name in games.NAMES:
            gpio.append(box["buttons"][name])
    gpio.append(data["main_button"])
    return gpio, data["matrix"]["pin"]


class Board:
    """The board on the rig: its serial lines with emulated timestamps, and its buttons."""

    def __init__(self, rig):
        self.rig = rig
        self.lines = []          # (ns, text)
        self.gpio, self.matrix_pin = gpio_table()

    def run_ms(self, ms):
        self.rig.run_to(self.rig.ns() + ms * 1_000_000)
        got = self.rig.serial()
        self.lines.extend(got)
        return got

    def until(self, pred, limit_ms, step_ms=2):
        end = self.rig.ns() + limit_ms * 1_000_000
        while self.rig.ns() < end:
            for ns, text in self.run_ms(step_ms):
                if pred(text):
                    return ns, text
        return None

    def events(self, since=0):
        out = []
        for ns, text in self.lines[since:]:
            if text.startswith("{"):
                try:
                    ev = json.loads(text)
                except ValueError:
                    ev = {"ev": "<damaged>", "text": text}
                ev["_ns"] = ns
                out.append(ev)
        return out

    def send(self, text):
        self.rig.send(text)

    def command(self, line, limit_ms=5000):
        """Send a command line; returns the emulated ns of its echo (``cmd``), or None."""
        sent = self.rig.ns()
        self.send(line + "\n")
        got = self.until(lambda s: '"ev":"cmd"' in s and json.dumps(line) in s, limit_ms)
        return (got[0] - sent) if got else None

    def play(self, phase):
        """One phase: its command (waited for), then its edges from 10 ms later."""
        if phase.cmd and self.command(phase.cmd) is None:
            raise RuntimeError("the board did not take %r" % phase.cmd)
        t0 = self.rig.ns() + 10_000_000
        edges = []
        for button, down, at in phase.edges:
            edges.append((self.gpio[button], 0 if down else 1, t0 + at * 1000))
        self.rig.sets(edges)
        end = t0 + phase.length_us() * 1000
        self.rig.run_to(end)
        self.lines.extend(self.rig.serial())
        self.run_ms(phase.settle_ms)
        return t0, end


# -- the scenarios ---------------------------------------------------------------------------

SYMBOLS = None     # the image's symbol table, when it is not the rig's own (--symbols)


def power_on(rig_folder, workdir, uf2):
    """A fresh emulator on the saved flash: power-on to ``hello`` (emulated ms)."""
    rig = Rig.start(rig_folder, workdir, uf2=uf2, symbols=SYMBOLS)
    board = Board(rig)
    got = board.until(lambda s: '"ev":"hello"' in s, 10000, step_ms=5)
    if got is None:
        raise RuntimeError("no hello within 10 s of power-on")
    board.until(lambda s: '"ev":"lobby"' in s, 2000, step_ms=5)
    return rig, board, got[0] / 1e6, json.loads(got[1])


def soft_reset(board):
    """Ctrl-C, then Ctrl-D at the REPL: ms from Ctrl-D to ``hello``."""
    board.send("\x03")
    if board.until(lambda s: "REPL is free" in s, 3000) is None:
        raise RuntimeError("Ctrl-C did not stop the firmware")
    board.run_ms(100)
    sent = board.rig.ns()
    board.send("\x04")
    got = board.until(lambda s: '"ev":"hello"' in s, 10000, step_ms=5)
    board.until(lambda s: '"ev":"lobby"' in s, 2000, step_ms=5)
    return (got[0] - sent) / 1e6 if got else None


_IMPORTS = """
import sys, gc, time
names = sorted(m for m in sys.modules if m.startswith('courtside'))
for m in names:
    del sys.modules[m]
gc.collect()
heap0 = gc.mem_alloc()
t0 = time.ticks_us()
for m in names:
    __import__(m)
t1 = time.ticks_us()
gc.collect()
print('@@IMPORTS', len(names), time.ticks_diff(t1, t0), gc.mem_alloc() - heap0)
"""


def at_repl(board, text, done, limit_ms, step_ms=2):
    """Stop the firmware, paste ``text`` in at the REPL (paste mode: the lines as they
    are) and run it; once a line it prints satisfies ``done``, start the firmware again
    and return the lines since the paste. None, the firmware left stopped, when Ctrl-C
    did not stop it or ``done`` never came within ``limit_ms``."""
    board.send("\x03")
    if board.until(lambda s: "REPL is free" in s, 3000) is None:
        return None
    board.run_ms(100)
    mark = len(board.lines)
    board.send("\x05")
    board.run_ms(50)
    board.send(text.replace("\n", "\r"))
    board.send("\x04")
    if board.until(done, limit_ms, step_ms=step_ms) is None:
        return None
    printed = [line for _, line in board.lines[mark:]]
    board.send("\x04")                       # a soft reset: the firmware runs again
    board.until(lambda s: '"ev":"lobby"' in s, 20000, step_ms=5)
    return printed


def start_cost(board):
    """What loading the firmware's modules costs: after a fresh start, the modules it has
    loaded are taken out of ``sys.modules`` at the REPL and imported again, timed, and
    the heap they hold measured (what a frozen build would not spend)."""
    soft_reset(board)
    printed = at_repl(board, _IMPORTS, lambda s: s.startswith("@@IMPORTS"), 20000)
    if printed is None:
        return {}
    _, n, us, heap = next(line for line in printed if line.startswith("@@IMPORTS")).split()
    return {"modules at start": int(n), "their import ms": int(us) / 1000, "their heap bytes": int(heap)}


PARTS = os.path.join(HERE, "parts_board.py")


def parts(board):
    """What single pieces of the work cost on the board: ``parts_board.py`` pasted in at
    the REPL (a call, a snapshot through the debouncer, a change through the PIO drain by
    bytecode and by machine code, a press and a release line encoded), in µs each."""
    with open(PARTS) as f:
        printed = at_repl(board, f.read(), lambda s: s.startswith(("@@end", "Traceback")), 60000, step_ms=20)
    figs = {}
    for line in printed or ():
        if line.startswith("@@part "):
            _, name, us = line.split()
            figs["part: %s us" % name] = float(us)
    return figs


def idle(board, seconds=2):
    board.run_ms(500)
    board.rig.alloc()
    board.rig.passes()
    board.run_ms(1000 * seconds)
    a = board.rig.alloc()
    span = (a["now_ns"] - a["since_ns"]) / 1e9
    return {"allocs per idle s": a["calls"] / span, "net bytes per idle s": a["net_bytes"] / span}


def mem(board):
    board.send("mem\n")
    got = board.until(lambda s: '"ev":"mem"' in s or '"ev":"error"' in s, 3000)
    if not got or '"ev":"mem"' not in got[1]:
        return {"mem": got[1] if got else None}
    ev = json.loads(got[1])
    heap = board.rig.heap()
    return {"heap used": ev["heap_used"], "heap free": ev["heap_free"],
            "largest free block": heap.get("largest_free_bytes"), "stack peak": ev.get("stack_peak"),
            "stack size": ev.get("stack_size"),
            "longest collection before a wait ms": ev["collect_us"] / 1000 if "collect_us" in ev else None}


def ping_latency(board, tries=5):
    out = []
    for k in range(tries):
        board.run_ms(137 + 71 * k)          # land anywhere in the idle wait
        sent = board.rig.ns()
        board.send("ping\n")
        got = board.until(lambda s: '"ev":"pong"' in s, 3000, step_ms=1)
        out.append((got[0] - sent) / 1e6 if got else float("inf"))
    return out


def quiet(board, gap_ms=1000, limit_ms=60000):
    """Run until the board has written nothing for ``gap_ms`` (at most ``limit_ms``): a
    storm's backlog must not spill into the next scenario's count."""
    waited = 0
    silent = 0
    while silent < gap_ms and waited < limit_ms:
        got = board.run_ms(100)
        waited += 100
        silent = 0 if got else silent + 100


def first_mode(board, mode):
    """The longest pass in the 3 s after ``mode MODE`` (its modules load then)."""
    board.rig.passes()
    sent = board.rig.ns()
    board.command("mode " + mode)
    board.run_ms(3000)
    busy = [p[1] / 1e6 for p in board.rig.passes() if p[0] > sent]
    return max(busy) if busy else None


def frames_of(edges, pin):
    """Frame start times (ns) on the matrix line: runs of edges split by a long low."""
    starts = []
    last = None
    for p, level, ns in edges:
        if p != pin:
            continue
        if level == 1 and (last is None or ns - last > MATRIX_GAP_NS):
            starts.append(ns)
        last = ns
    return starts


def play(board, name, phases, expected):
    """Play a scenario; returns its figures and what went wrong."""
    rig = board.rig
    mark = len(board.lines)
    rig.passes()
    rig.record([board.matrix_pin])
    rig.edges()
    spans = [board.play(ph) for ph in phases]
    t0, end = spans[-1]
    quiet(board)
    evs = board.events(mark)
    kinds = Counter(e["ev"] for e in evs)
    passes = rig.passes()
    busy = sorted(p[1] / 1e6 for p in passes if p[0] >= spans[0][0])
    frames = frames_of(rig.edges(), board.matrix_pin)
    inside = [f for f in frames if t0 <= f <= end]
    reported = kinds["press"] + kinds["button"] + kinds["ignored"]
    tail = [e["_ns"] for e in evs if e["ev"] in ("press", "button", "release")]
    fig = {
        "presses played": sum(ph.presses for ph in phases),
        "press lines": reported, "press lines (simulator)": expected,
        "longest pass ms": busy[-1] if busy else None,
        "passes over 20 ms": sum(1 for b in busy if b > 20),
        "median pass ms": statistics.median(busy) if busy else None,
        "frames per s during the last phase": len(inside) / max((end - t0) / 1e9, 1e-3),
        "last press line after the last edge ms": (max(tail) - end) / 1e6 if tail else None,
    }
    for kind in ("fault", "withdrawn", "overflow", "unsent", "error", "hello", "<damaged>"):
        if kinds[kind]:
            fig[kind] = kinds[kind]
    problems = []
    if kinds["hello"] or any(e["ev"] == "error" and "stopped" in e.get("msg", "") for e in evs):
        problems.append("%s: the firmware restarted" % name)
    if reported != expected:
        problems.append("%s: %d press lines, the simulator says %d" % (name, reported, expected))
    if kinds["unsent"]:
        problems.append("%s: lines dropped (unsent)" % name)
    if kinds["<damaged>"]:
        problems.append("%s: damaged lines in the stream" % name)
    return fig, problems


def burst(board, n=2000):
    mark = len(board.lines)
    board.rig.passes()
    sent = board.rig.ns()
    board.send("get\n" * n + "ping\n")
    got = board.until(lambda s: '"ev":"pong"' in s, 120_000, step_ms=20)
    board.run_ms(200)
    kinds = Counter(e["ev"] for e in board.events(mark))
    busy = [p[1] / 1e6 for p in board.rig.passes()]
    fig = {"answers": kinds["settings"], "pong after ms": (got[0] - sent) / 1e6 if got else None,
           "longest pass ms": max(busy) if busy else None, "unsent": kinds["unsent"]}
    problems = []
    if kinds["settings"] != n or not got or kinds["unsent"]:
        problems.append("burst: %d of %d answered, pong %s, unsent %d"
                        % (kinds["settings"], n, "yes" if got else "no", kinds["unsent"]))
    return fig, problems


# -- running it -------------------------------------------------------------------------------

def simulate(phases, names, workdir, name):
    path = os.path.join(workdir, name.replace(" ", "_") + ".jsonl")
    with open(path, "w") as f:
        f.write(games.script(phases, names))
    out = subprocess.run([os.path.join(BIN, "courtside"), "sim", "--script", path], check=True,
                         capture_output=True, text=True).stdout
    kinds = Counter(json.loads(line)["ev"] for line in out.splitlines() if line.startswith("{"))
    return kinds["press"] + kinds["button"] + kinds["ignored"]


def deploy(rig_folder, workdir, uf2, firmware, frozen=False):
    rig = Rig.start(rig_folder, workdir, uf2=uf2, paused=False, symbols=SYMBOLS)
    try:
        # Let the board finish starting first: a deploy's Ctrl-C landing while the emulated
        # chip is still booting MicroPython has left it halted (a panic) on this rig.
        Board(rig).until(lambda s: '"ev":"lobby"' in s or ">>>" in s, 5000, step_ms=20)
        rig.resume()
        cmd = [os.path.join(BIN, "courtside"), "deploy", "--port", rig.pty, "--timeout", "90"]
        if firmware:
            cmd += ["--firmware", firmware]
        subprocess.run(cmd, check=True)
        if frozen:
            # an image with the package frozen in: the copy on the flash would shadow it
            subprocess.run([os.path.join(BIN, "mpremote"), "connect", rig.pty, "rm", "-r", ":courtside"],
                           check=True)
    finally:
        rig.stop()


def set_capture(rig_folder, workdir, uf2, capture):
    rig, board, _, hello = power_on(rig_folder, workdir, uf2)
    try:
        if hello["capture"] != capture:
            board.command("set capture=%s" % capture)
            board.command("save")
            board.run_ms(300)
    finally:
        rig.stop()


def measure(args, capture, workdir, scenarios, expected):
    set_capture(args.rig, workdir, args.uf2, capture)
    rig, board, on_ms, hello = power_on(args.rig, workdir, args.uf2)
    figs = {"capture": hello["capture"], "power-on to hello ms": on_ms}
    problems = []
    try:
        figs["soft reset to hello ms"] = soft_reset(board)
        figs.update(idle(board))
        figs.update({"at start: " + k: v for k, v in mem(board).items()})
        pings = ping_latency(board)
        figs["idle ping answered ms (worst of %d)" % len(pings)] = max(pings)
        for mode in ("die", "referee", "dodgeball"):
            figs["first mode %s: longest pass ms" % mode] = first_mode(board, mode)
        for name, (phases, _names) in scenarios.items():
            try:
                fig, bad = play(board, name, phases, expected[name])
            except RuntimeError as e:          # the board stopped answering: say so, go on
                fig, bad = {"stopped": str(e)}, ["%s: %s" % (name, e)]
                board.run_ms(5000)
            figs.update({"%s: %s" % (name, k): v for k, v in fig.items()})
            problems += bad
        fig, bad = burst(board, args.burst)
        figs.update({"burst: " + k: v for k, v in fig.items()})
        problems += bad
        figs.update({"at end: " + k: v for k, v in mem(board).items()})
        figs.update(start_cost(board))
        figs.update(parts(board))
    finally:
        rig.stop()
    return figs, problems


GOALS = [
    ("power-on to hello ms", "<= 400"), ("soft reset to hello ms", ""),
    ("allocs per idle s", "0"), ("at start: heap used", "<= 65536"),
    ("at start: largest free block", ">= 131072"), ("at end: largest free block", ">= 98304"),
    ("at end: stack peak", "< 7936, with a margin"),
    ("at end: longest collection before a wait ms", "<= 20 (a pass of its own)"),
    ("idle ping answered ms (worst of 5)", "<= 20"),
]


def report(results):
    keys = []
    for figs, _ in results.values():
        for k in figs:
            if k not in keys:
                keys.append(k)
    goals = dict(GOALS)
    for k in keys:
        if "longest pass" in k:
            goals.setdefault(k, "<= 20")
    width = max(len(k) for k in keys)
    caps = list(results)
    print("%-*s  %-22s %s" % (width, "what", "goal", "  ".join("%12s" % c for c in caps)))
    for k in keys:
        cells = []
        for c in caps:
            v = results[c][0].get(k, "")
            cells.append("%12s" % (("%.1f" % v) if isinstance(v, float) else v))
        print("%-*s  %-22s %s" % (width, k, goals.get(k, ""), "  ".join(cells)))


def parts_only(args, workdir, began):
    if not args.no_deploy:
        deploy(args.rig, workdir, args.uf2, args.firmware, args.frozen)
    rig, board, _, hello = power_on(args.rig, workdir, args.uf2)
    try:
        figs = parts(board)
    finally:
        rig.stop()
    report({hello["capture"]: (figs, [])})
    print("\n%.0f s on this machine; rig files in %s" % (time.time() - began, workdir))
    return 0 if figs else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rig", required=True, help="the emulator's folder (rp2emu.mjs, firmware/)")
    ap.add_argument("--uf2", help="a MicroPython image other than the rig's own")
    ap.add_argument("--symbols", help="that image's symbol table (for the heap and allocation figures)")
    ap.add_argument("--firmware", help="deploy this firmware folder instead of the project's")
    ap.add_argument("--captures", default="pio,irq")
    ap.add_argument("--quick", action="store_true", help="150-press games and 300-press storms")
    ap.add_argument("--only", default="", help="scenarios to play, comma-separated (default all)")
    ap.add_argument("--burst", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--no-deploy", action="store_true")
    ap.add_argument("--frozen", action="store_true",
                    help="the image (--uf2) has the courtside package frozen in: deploy, then take "
                         "the package off the flash so the frozen one runs")
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--parts", action="store_true",
                    help="only what single pieces of the work cost (parts_board.py): minutes")
    args = ap.parse_args(argv)
    global SYMBOLS
    SYMBOLS = args.symbols
    presses, storm = (150, 300) if args.quick else (600, 1000)
    workdir = tempfile.mkdtemp(prefix="courtside-chip-")
    began = time.time()
    if args.parts:
        return parts_only(args, workdir, began)
    all_scenarios = games.scenarios(args.seed, presses, storm, os.path.join(ROOT, "tests", "scripts"))
    wanted = [s for s in args.only.split(",") if s]
    scenarios = {}
    expected = {}
    for name, phases in all_scenarios.items():
        if wanted and not any(w in name for w in wanted):
            continue
        names = games.ARROWS if name.startswith("referee") and "game" not in name else games.NAMES
        scenarios[name] = (phases, names)
        expected[name] = simulate(phases, names, workdir, name)
    if not args.no_deploy:
        deploy(args.rig, workdir, args.uf2, args.firmware, args.frozen)
    results = {}
    problems = []
    for capture in args.captures.split(","):
        figs, bad = measure(args, capture, workdir, scenarios, expected)
        results[capture] = (figs, bad)
        problems += ["%s: %s" % (capture, p) for p in bad]
    report(results)
    print("\n%.0f s on this machine; rig files in %s" % (time.time() - began, workdir))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({c: r[0] for c, r in results.items()}, f, indent=1)
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
