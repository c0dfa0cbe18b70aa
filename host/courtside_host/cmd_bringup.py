"""`courtside bringup`: run the bring-up test on a newly built unit and show its report.

    courtside bringup [--port PORT] [--quick] [--buttons-seconds N]

The board must carry the firmware (``courtside deploy``). The test itself runs on the
board (``courtside.bringup``), started through ``mpremote``; its lines appear here as it
goes. Watch the matrix, the box LEDs and the buzzer, and press every button once when
asked. Ctrl-C stops it and leaves the board dark and silent.
"""

from __future__ import annotations

import subprocess
import sys

from courtside.bringup import BUTTONS_S

from . import board


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


def run(args) -> int:
    try:
        port = board.find_port(args.port)
    except board.BoardError as e:
        print("courtside bringup: %s" % e, file=sys.stderr)
        return 1
    print("bring-up on %s: watch the matrix, the box LEDs and the buzzer; Ctrl-C stops" % port)
    status = subprocess.call(command(port, args.quick, args.buttons_seconds))
    if status:
        print("courtside bringup: the board did not finish the test (is the firmware on it? "
              "courtside deploy)", file=sys.stderr)
    return status
