"""The inside of the virtual Pico: a board's REPL, run by the MicroPython unix port.

``courtside_host.vpico`` starts this script as ``micropython vpico_board.py FLASH START``
with stdin a non-blocking pipe of what the laptop sent (Ctrl-C already turned into
SIGINT, as a board's USB stack turns it into KeyboardInterrupt) and stdout going back to
the laptop. The script makes the interpreter look like a board to ``mpremote``:

- FLASH, a folder, is mounted as the filesystem root, so ``/main.py``, ``''`` and
  ``os.stat('')`` mean what they mean on a board;
- at START ``power`` or ``friendly`` it runs ``boot.py`` then ``main.py`` and offers the
  friendly REPL; at ``raw`` it runs ``boot.py`` and offers the raw REPL (what a board
  does after a soft reset from the raw REPL);
- the raw REPL, raw-paste mode (flow-controlled windows) and the friendly REPL answer the
  control characters a board answers: Ctrl-A raw, Ctrl-B friendly, Ctrl-C cancel,
  Ctrl-D run or soft reset, Ctrl-E then ``A`` Ctrl-A raw paste.

The unix port cannot reset itself, so a soft reset prints the board's "soft reboot" line
and exits with a code that asks the supervisor to start a fresh interpreter.
"""

import os
import select
import sys

import vfs

RESET_RAW = 40        # exit codes read by courtside_host.vpico
RESET_FRIENDLY = 41
WINDOW = 128          # raw-paste flow-control window, as on an RP2040 (half its 256-byte buffer)

FLASH = sys.argv[1]
START = sys.argv[2] if len(sys.argv) > 2 else "power"
ROM = sys.argv[3] if len(sys.argv) > 3 else None   # the folder holding courtside_sim

_out = sys.stdout.buffer
_in = sys.stdin.buffer
_poll = select.poll()
_poll.register(sys.stdin, select.POLLIN)
_buf = bytearray(256)
_pending = []  # type: list  # bytes read but not yet handed out


def write(data):
    if isinstance(data, str):
        data = data.encode()
    _out.write(data)


def getc():
    """The next byte from the laptop; 3 (Ctrl-C) when an interrupt arrives while waiting."""
    while not _pending:
        try:
            _poll.poll(-1)
            n = _in.readinto(_buf)
        except KeyboardInterrupt:
            return 3
        if n == 0:          # the laptop side is gone for good: power off
            sys.exit(0)
        if n:
            _pending.extend(_buf[:n])
    return _pending.pop(0)


def banner():
    v = sys.implementation.version
    built = sys.version.split(" on ")[-1] if " on " in sys.version else "?"
    write("MicroPython v%d.%d.%d on %s; virtual Pico (MicroPython unix port) with RP2040\r\n"
          % (v[0], v[1], v[2], built))
    write('Type "help()" for more information.\r\n')


def tell(note):
    """A line for the supervisor (on stderr, which never reaches the laptop)."""
    sys.stderr.write("vpico: %s\n" % note)


def soft_reboot(code):
    tell("reset %d" % code)
    write("MPY: soft reboot\r\n")
    sys.exit(code)


class Board:
    def __init__(self):
        self.globals = {"__name__": "__main__"}

    def run(self, source, name, mode="exec"):
        """Run source as the board would; the exception it ended with, or None."""
        try:
            exec(compile(source, name, mode), self.globals)
        except SystemExit:
            pass
        except BaseException as e:  # noqa: BLE001 - a board reports every exception
            return e
        return None

    def run_shown(self, source, name, mode="exec"):
        e = self.run(source, name, mode)
        if e is not None:
            sys.print_exception(e, sys.stdout)

    def run_raw(self, source):
        """Raw REPL: output, Ctrl-D, the exception if any, Ctrl-D."""
        e = self.run(source, "<stdin>")
        write("\x04")
        if e is not None:
            sys.print_exception(e, sys.stdout)
        write("\x04")

    def run_file(self, path):
        try:
            with open(path) as f:
                source = f.read()
        except OSError:
            return
        self.run_shown(source, path)

    # the raw REPL ---------------------------------------------------------------------

    def raw(self):
        write("raw REPL; CTRL-B to exit\r\n")
        while True:
            write(">")
            line = bytearray()
            while True:
                c = getc()
                if c == 1:                           # Ctrl-A
                    if len(line) == 2 and line[0] == 5 and line[1] == 65:
                        self.raw_paste()
                        line = None
                        break
                    write("raw REPL; CTRL-B to exit\r\n")
                    line = bytearray()
                    write(">")
                elif c == 2:                         # Ctrl-B
                    write("\r\n")
                    return "friendly"
                elif c == 3:                         # Ctrl-C
                    line = bytearray()
                elif c == 4:                         # Ctrl-D
                    if not line:
                        soft_reboot(RESET_RAW)
                    break
                else:
                    line.append(c)
            if line is None:
                continue
            write("OK")
            self.run_raw(bytes(line).decode())

    def raw_paste(self):
        write(bytes((ord("R"), 1, WINDOW & 0xFF, WINDOW >> 8, 1)))
        data = bytearray()
        left = WINDOW
        while True:
            c = getc()
            if c == 4:
                write("\x04")
                break
            if c == 3:              # the laptop gave up half way: drop it, run nothing
                write("\x04")
                return
            data.append(c)
            left -= 1
            if left == 0:
                write("\x01")
                left = WINDOW
        self.run_raw(bytes(data).decode())

    # the friendly REPL ----------------------------------------------------------------

    def friendly(self):
        banner()
        while True:
            write(">>> ")
            line = bytearray()
            while True:
                c = getc()
                if c == 1:
                    write("\r\n")
                    return "raw"
                if c == 2:
                    write("\r\n")
                    banner()
                    line = bytearray()
                    write(">>> ")
                elif c == 3:
                    write("\r\n")
                    line = None
                    break
                elif c == 4:
                    if not line:
                        write("\r\n")
                        soft_reboot(RESET_FRIENDLY)
                elif c in (13, 10):
                    write("\r\n")
                    break
                elif c in (8, 127):
                    if line:
                        line.pop()
                        write("\x08 \x08")
                elif c >= 32:
                    line.append(c)
                    write(bytes((c,)))
            if line:
                self.run_shown(bytes(line).decode(), "<stdin>", "single")


def _freeze_simulated_board():
    """Load the simulated board (``courtside_sim``) before the flash is mounted, as a
    board holds its frozen modules: importable, but not a file on its flash. It imports
    no ``courtside`` module until the firmware (from the flash) builds a board."""
    if not ROM:
        return
    sys.path.insert(0, ROM)
    import courtside_sim.board
    import courtside_sim.console
    import courtside_sim.script  # noqa: F401
    sys.path.pop(0)


def _mount_flash():
    _freeze_simulated_board()
    vfs.umount("/")
    vfs.mount(vfs.VfsPosix(FLASH), "/")
    os.chdir("/")
    sys.path.clear()
    sys.path.extend(("", ".frozen", "/lib"))


def boot(board):
    board.run_file("boot.py")
    if START != "raw":
        board.run_file("main.py")


def main():
    _mount_flash()
    board = Board()
    mode = None
    while True:
        # Every step sits inside the try: an interrupt may arrive at any moment, and on a
        # board it never ends the REPL.
        try:
            if mode is None:
                mode = "raw" if START == "raw" else "friendly"   # where boot ends up
                tell("ready")
                boot(board)
            elif mode == "raw":
                mode = board.raw()
            else:
                mode = board.friendly()
        except KeyboardInterrupt:
            pass


main()
