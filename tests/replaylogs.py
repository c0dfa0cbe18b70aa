"""Logs for replay's tests and its benchmark: the worked scripts' streams, and one long
Dodge Ball session made quickly by repeating a contest.

    text = stream("dodgeball_round")           # the simulator's stream for a worked script
    events = play([{"t": 0, "cmd": "ping"}])    # the stream for inputs given here, as dicts
    long_session(path, 6000)                    # one session of 6,000 contests, about 4.8 MB
    status, cpu_s, peak_mb = measured(["replay", path], out)   # a courtside command's cost
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKED = ("dodgeball_round", "deathball_game", "deathball_shrink")


def _simulate(script_path):
    code = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "common")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(code))
    return subprocess.run([sys.executable, "-m", "courtside_sim.headless", script_path],
                          capture_output=True, text=True, check=True, env=env, timeout=300).stdout


def stream(name):
    """The event stream of the worked script ``tests/scripts/NAME.jsonl`` (seed 1)."""
    return _simulate(os.path.join(ROOT, "tests", "scripts", name + ".jsonl"))


def play(script):
    """The event stream, as dicts, of a script given as a list of inputs."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "script.jsonl")
        with open(path, "w") as f:
            f.write("".join(json.dumps(item) + "\n" for item in script))
        return [json.loads(line) for line in _simulate(path).splitlines()]


# The child writes its own high-water mark as it exits. The kernel's figure for a child
# (``wait4``'s ``ru_maxrss``) is no use here: it includes the image the child had between
# fork and exec, which is a copy of this process, so a test run inside a large pytest
# process reads the size of pytest. ``VmHWM`` belongs to the program the child exec'd.
_REPORT_PEAK = """
import atexit, runpy, sys
def _peak(path=sys.argv[1]):
    with open("/proc/self/status") as status, open(path, "w") as out:
        out.write("".join(line for line in status if line.startswith("VmHWM")))
atexit.register(_peak)
sys.argv = ["courtside"] + sys.argv[2:]
runpy.run_module("courtside_host.cli", run_name="__main__", alter_sys=True)
"""


def measured(arguments, out, env=None, cwd=None):
    """(exit status, processor seconds, peak resident MB) of ``courtside ARGUMENTS`` run in
    a child process of its own, its output to the open file ``out``."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "peak")
        child = subprocess.Popen([sys.executable, "-c", _REPORT_PEAK, report] + list(arguments),
                                 stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        with open(report) as f:
            peak_kb = int(f.read().split()[1])
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, peak_kb / 1024


PERIOD_US = 10_000_000


def long_session(path, contests):
    """Write a one-session Dodge Ball log of ``contests`` contests (at least 3).

    Two players join and start; then one contest pattern (a throw, a dodge 600 us later,
    a catch 2 ms later) every 10 s, so that lights and tunes are done before the next.
    The simulator records three contests; the third's events are the pattern, repeated
    with times, press numbers and contest numbers moved on, as the board would have
    written them."""
    from courtside import events as text
    script = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 1000, "cmd": "start"}]
    for k in range(3):
        t = 1_000_000 + k * PERIOD_US
        script += [{"t": t, "p": 1, "b": "THROW"}, {"t": t + 600, "p": 2, "b": "DODGE"},
                   {"t": t + 2600, "p": 1, "b": "CATCH"}]
    events = play(script)
    third = 1_000_000 + 2 * PERIOD_US
    head = [e for e in events if e["t"] < third]
    pattern = [e for e in events if e["t"] >= third]
    presses = sum(e["ev"] == "press" for e in pattern)
    if [e["c"] for e in pattern if e["ev"] == "verdict"] != [3]:
        raise AssertionError("the contest pattern did not give one verdict")

    def line(e, k):
        fields = {name: v for name, v in e.items() if name not in ("ev", "t")}
        if "n" in fields:
            fields["n"] += k * presses
        if "c" in fields:
            fields["c"] += k
        if e["ev"] == "verdict":
            fields["order"] = [dict(o, n=o["n"] + k * presses) for o in fields["order"]]
        return text.line(e["ev"], e["t"] + k * PERIOD_US, fields) + "\n"

    with open(path, "w") as f:
        f.write("".join(line(e, 0) for e in head))
        for k in range(contests - 2):
            f.write("".join(line(e, k) for e in pattern))
    return contests
