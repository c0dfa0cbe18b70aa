"""Replay speed and memory on a long log, as a whole command.

Builds a log of about SIZE megabytes from the worked Dodge Ball round (recorded once in
the headless simulator, then repeated: one session per copy, each with its hello), runs
``courtside replay`` on it, and prints the rate and the most memory the command held.
Replay runs every session through the firmware's core, so its speed is the core's speed
in virtual time; its memory is that of one session, whatever the log's length. For scale
it also prints, from the same run, how fast the log can merely be read and parsed, and
how long the core alone takes over one session's inputs.

    python bench/replay_speed.py [SIZE_MB]        # default 20
"""

import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "host")]


def main():
    size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "firmware"))
    one = subprocess.run([sys.executable, "-m", "courtside_sim.headless",
                          os.path.join(ROOT, "tests", "scripts", "dodgeball_round.jsonl")],
                         capture_output=True, text=True, check=True, env=env).stdout
    copies = max(1, int(size_mb * 1e6 / len(one)))
    with tempfile.TemporaryDirectory() as where:
        log = os.path.join(where, "long.jsonl")
        with open(log, "w") as f:
            for _ in range(copies):
                f.write(one)
        size = os.path.getsize(log)
        floor = reading_floor(log)
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "replay", log],
                             capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print("replay of a %.1f MB log (%d sessions): %.1f s, %.2f MB/s, at most %d MB resident, exit %d"
          % (size / 1e6, copies, seconds, size / 1e6 / seconds, peak_kb // 1024, run.returncode))
    session_ms = core_ms()
    print("  for scale, in the same run: reading and parsing every line, nothing else, %.1f MB/s; "
          "the core alone on one session's inputs, %.2f ms a session (%.2f MB/s)"
          % (size / 1e6 / floor, session_ms, len(one) / 1e3 / session_ms))


def reading_floor(log):
    """Seconds to read the log and parse each line as an event, and do nothing more."""
    from courtside_host.board import event
    start = time.perf_counter()
    with open(log, "rb") as f:
        for line in f:
            event(line)
    return time.perf_counter() - start


def core_ms():
    """Milliseconds for the core to run one session's inputs in virtual time, as replay
    does (median of 20), without reading, parsing or comparing anything."""
    import statistics

    from courtside_sim import timing
    with tempfile.TemporaryDirectory() as where:
        script = os.path.join(ROOT, "tests", "scripts", "dodgeball_round.jsonl")
        with open(script) as f:
            text = f.read()
        runs = timing.measure(text, 20, 1, os.path.join(where, "t.jsonl"),
                              os.path.join(ROOT, "hardware", "pinmap.json"))
    return statistics.median(runs["pass_us"]) * runs["passes"] / 1000


main()
