"""`courtside bringup`: run the bring-up test on a newly built unit and show its report.

    courtside bringup [--port PORT] [--quick] [--buttons-seconds N]

The board must carry the firmware (``courtside deploy``). The test itself runs on the
board (``courtside.bringup``), started through ``mpremote``; its lines appear here as it
goes. Watch the matrix, the box LEDs and the buzzer, and press every button once when
asked. Ctrl-C stops it and leaves the board dark and silent.

Exit status: 0 when every check passed (every button pressed, none shorted), 1 when a
check failed or the test did not finish (the report says which).
"""

from __future__ import annotations

import subprocess
import sys

from courtside.bringup import BUTTONS_S

from courtside_host import problem
from courtside_host.link import port as link


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: the one Pico plugged in)")
    parser.add_argument("--quick", action="store_true", help="shorter light and sound steps")
    parser.add_argument("--buttons-seconds", type=int, default=BUTTONS_S, metavar="N",
                        help="how long to wait for every button to be pressed (default %(default)s)")


def board_code(quick: bool, buttons_s: int) -> str:
    """The line of Python the board runs."""
    return "import courtside.bringup as b; b.main(quick=%s, buttons_s=%d)" % (bool(quick), buttons_s)


def command(port: str, quick: bool = False, buttons_s: int = BUTTONS_S) -> list:
    """The mpremote command line that runs the bring-up on the board at ``port``."""
    return [sys.executable, "-m", "mpremote", "connect", port, "exec", board_code(quick, buttons_s)]


def outcome(lines):
    """What the board's report says: None when every check passed, else the problem."""
    faults = [line for line in lines if line.startswith("FAULT")]
    last = lines[-1] if lines else ""
    if last.startswith("bring-up done: never pressed:"):
        faults.append(last[len("bring-up done: "):])
    elif not last.startswith("bring-up done: all"):
        return "the board did not finish the test (is the firmware on it? courtside deploy)"
    return "; ".join(faults) if faults else None


def run(args) -> int:
    try:
        port = link.find_port(args.port)
    except link.BoardError as e:
        return problem.report("bringup", str(e))
    print("bring-up on %s: watch the matrix, the box LEDs and the buzzer; Ctrl-C stops" % port)
    lines = []
    with subprocess.Popen(command(port, args.quick, args.buttons_seconds), stdout=subprocess.PIPE,
                          text=True, errors="replace") as proc:
        for line in proc.stdout or ():
            print(line, end="", flush=True)
            lines.append(line.rstrip("\r\n"))
    wrong = outcome([line for line in lines if line.strip()])
    if wrong is None and proc.returncode == 0:
        return 0
    return problem.report("bringup", wrong or "mpremote failed (exit status %d)" % proc.returncode)
