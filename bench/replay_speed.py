"""Replay speed and memory, as a whole command, on a Dodge Ball log, a log of both games
and one long single session.

The logs are built from the worked scripts (recorded once in the headless simulator, then
repeated: one session per copy, each with its hello): a Dodge Ball log of the Dodge Ball
round, and a log of both games cycling through the round and the two Deathball games. The
long single session is one Dodge Ball game of many contests (``tests/replaylogs.py``).
Each is replayed by ``courtside replay`` in a child process (median of RUNS), which prints
its rate from the processor time it took (the machine may be shared: wall time is shown
apart) and the most memory it held (peak resident set). For scale, from the same run:
how fast each log can merely be read and parsed, and how long the core alone takes over
one session's inputs (no reading, parsing or comparing), as the board runs it and as a
replay runs it (frames unbuilt, no blinking while nothing is debounced).

    python bench/replay_speed.py [SIZE_MB] [RUNS] [--logs DIR]     # default 5 MB, 3 runs

``--logs DIR`` keeps the logs there (to replay them with other firmware, say).
"""

import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "common"), os.path.join(ROOT, "host"),
                os.path.join(ROOT, "tests")]

import replaylogs  # noqa: E402 - from tests/, on the path just set


def main():
    args = sys.argv[1:]
    keep = None
    if "--logs" in args:
        at = args.index("--logs")
        keep = args[at + 1]
        del args[at:at + 2]
    size_mb = float(args[0]) if args else 5.0
    runs = int(args[1]) if len(args) > 1 else 3
    streams = {name: replaylogs.stream(name) for name in replaylogs.WORKED}
    with tempfile.TemporaryDirectory() as scratch:
        where = keep or scratch
        os.makedirs(where, exist_ok=True)
        logs = {
            "Dodge Ball": _repeated(os.path.join(where, "dodgeball.jsonl"), [streams["dodgeball_round"]],
                                    size_mb),
            "both games": _repeated(os.path.join(where, "both.jsonl"),
                                    [streams[name] for name in replaylogs.WORKED], size_mb),
        }
        long_path = os.path.join(where, "long_session.jsonl")
        replaylogs.long_session(long_path, 103)
        one = os.path.getsize(long_path) / 100       # about one contest's bytes
        replaylogs.long_session(long_path, max(3, int(size_mb * 1e6 / one)))
        logs["one long session"] = long_path
        print("courtside replay (median of %d runs; MB/s from processor time, wall time apart):" % runs)
        for name, path in logs.items():
            size = os.path.getsize(path) / 1e6
            cpu, wall, peak, code = _replay(path, runs)
            print("  %-17s %5.1f MB, %5d sessions: %5.2f MB/s (%5.2f by the wall clock), at most %3d MB "
                  "resident, exit %d" % (name, size, _sessions(path), size / cpu, size / wall, peak, code))
        print("for scale, in the same run:")
        for name, path in logs.items():
            print("  %-17s reading and parsing every line, nothing else: %5.1f MB/s"
                  % (name, os.path.getsize(path) / 1e6 / _reading(path)))
        for name in replaylogs.WORKED:
            board_ms, board_passes = _core(streams[name], replay=False)
            replay_ms, replay_passes = _core(streams[name], replay=True)
            kb = len(streams[name]) / 1e3
            print("  the core alone on %-16s inputs: as on the board %6.2f ms a session (%4d passes, "
                  "%5.2f MB/s); as replay runs it %6.2f ms (%4d passes, %5.2f MB/s)"
                  % (name + "'s", board_ms, board_passes, kb / board_ms, replay_ms, replay_passes,
                     kb / replay_ms))


def _repeated(path, streams, size_mb):
    """A log of ``streams`` one after another, again and again, to about ``size_mb``."""
    cycle = "".join(streams)
    with open(path, "w") as f:
        for _ in range(max(1, int(size_mb * 1e6 / len(cycle)))):
            f.write(cycle)
    return path


def _sessions(path):
    with open(path, "rb") as f:
        return sum(line.startswith(b'{"ev":"hello"') for line in f)


def _replay(path, runs):
    """(processor s, wall s, peak resident MB, exit status) of ``courtside replay`` on
    ``path``: medians of ``runs``, the largest peak."""
    cpu, wall, peaks = [], [], []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "host"),
                                                       os.path.join(ROOT, "firmware"),
                                                       os.path.join(ROOT, "common")]))
    for _ in range(runs):
        start = time.perf_counter()
        with open(os.devnull, "w") as sink:
            status, cpu_s, peak_mb = replaylogs.measured(["replay", path], sink, env=env, cwd=ROOT)
        wall.append(time.perf_counter() - start)
        cpu.append(cpu_s)
        peaks.append(peak_mb)
    return statistics.median(cpu), statistics.median(wall), max(peaks), status


def _reading(path):
    """Processor seconds to read the log and parse each line as an event, nothing more."""
    from courtside_host.records import eventlog
    start = time.process_time()
    for _ in eventlog.iterate(path):
        pass
    return time.process_time() - start


def _core(text, replay):
    """(ms, passes) for the core over one session's inputs in virtual time (median of 20),
    without reading, parsing or comparing: as the board's loop runs it (``replay`` False),
    or as replay does."""
    from courtside import driver
    from courtside.core import Core
    from courtside_host.link.port import event
    from courtside_host.records import replay as rp
    from courtside_sim.board import SimBoard
    events = [e for e in map(event, text.splitlines()) if e is not None]
    pins = rp.pins_for(4)
    items = [(e["t"],) + rp.input_of(e, pins) for e in events if rp.input_of(e, pins) is not None]
    faces = [e["face"] for e in events if e["ev"] in ("roll", "bounce") and not e["forced"]]
    draws = [[p - 1 for p in e["draw"]] for e in events if e["ev"] == "tie"]
    passes = [0]
    real = driver.one_pass

    def counted(core, hw, lines):
        passes[0] += 1
        return real(core, hw, lines)

    import gc
    gc.freeze()         # as replay does: the objects made so far are not walked by every collection
    times = []
    for _ in range(20):
        passes[0] = 0
        rng = rp.RecordedDraws(faces, draws)
        start = time.process_time()
        if replay:
            driver.one_pass = counted
            try:
                rp._run(pins, rp.Items(items), dict(events[0]["settings"]), rng, "dodgeball", _drop)
            finally:
                driver.one_pass = real
        else:
            board = SimBoard(pins, script=rp.Items(items), out=_drop)
            core = Core(pins, dict(events[0]["settings"]), rng, now=board.ticks_us(), levels=board.levels(),
                        capture="sim")
            driver.one_pass = counted
            try:
                driver.run_virtual(core, board)
            finally:
                driver.one_pass = real
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000, passes[0]


def _drop(text):
    pass


main()
