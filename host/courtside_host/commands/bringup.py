"""`courtside bringup`: run the bring-up test on a newly built unit and show its report.

    courtside bringup [--port PORT] [--quick] [--buttons-seconds N]

The board must carry the firmware (``courtside deploy``). The test itself runs on the
board (``courtside.run.bringup``; on a virtual Pico, the simulated board's start of it,
``courtside_sim.start.bringup``), started through mpremote's transport, opened as every
command opens a board (``courtside_host.link.port.connect``); its lines appear here as it
goes. Watch the matrix, the box LEDs and the buzzer, and press every button once when
asked. Ctrl-C stops it and leaves the board dark and silent.

Exit status: 0 when every check passed (every button pressed, none shorted), 1 when a
check failed or the test did not finish (the report says which).
"""

from __future__ import annotations

from courtside.run.bringup import BUTTONS_S

from courtside_host import problem
from courtside_host.link import port as link


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: the one Pico plugged in)")
    parser.add_argument("--quick", action="store_true", help="shorter light and sound steps")
    parser.add_argument("--buttons-seconds", type=int, default=BUTTONS_S, metavar="N",
                        help="how long to wait for every button to be pressed (default %(default)s)")


# A Pico runs its own bring-up; the virtual Pico, the one other board there is, holds the
# simulated board as a board holds frozen modules, and starts the same bring-up on it.
BOARD_CODE = ("import sys\n"
              "if sys.platform == 'rp2':\n"
              "    from courtside.run.bringup import main\n"
              "else:\n"
              "    from courtside_sim.start import bringup as main\n"
              "main(quick=%s, buttons_s=%d)\n")


def board_code(quick: bool, buttons_s: int) -> str:
    """The Python the board runs."""
    return BOARD_CODE % (bool(quick), buttons_s)


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
    said = _Said()
    try:
        failed = _bring_up(port, board_code(args.quick, args.buttons_seconds), said)
    except link.BoardError as e:
        return problem.report("bringup", str(e))
    said.flush()
    wrong = outcome([line for line in said.lines if line.strip()])
    if wrong is None and not failed:
        return 0
    return problem.report("bringup", wrong or "the board stopped with an error: %s" % failed)


def _bring_up(port, code, said):
    """Run ``code`` on the board at ``port``, its output to ``said`` as it comes; returns the
    board's error output ("" when it finished without one). Ctrl-C is passed on to the
    board, which goes dark and silent. A board that stops answering is a BoardError
    (``link.connect``)."""
    with link.connect(port) as board:
        board.exec_raw_no_follow(code)
        try:
            _, error = board.follow(None, said.data)
        except KeyboardInterrupt:
            board.serial.write(b"\x03")
            _, error = board.follow(5, said.data)
    return error.decode("utf-8", "replace").strip()


class _Said:
    """The board's output, printed line by line as it comes and kept."""

    def __init__(self):
        self.lines = []
        self.rest = b""

    def data(self, chunk):
        self.rest += chunk.replace(b"\x04", b"")
        while b"\n" in self.rest:
            line, self.rest = self.rest.split(b"\n", 1)
            self._line(line)

    def flush(self):
        if self.rest.strip():
            self._line(self.rest)
        self.rest = b""

    def _line(self, raw):
        text = raw.decode("utf-8", "replace").rstrip("\r")
        print(text, flush=True)
        self.lines.append(text)
