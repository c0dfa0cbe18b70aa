"""The virtual Pico's REPL: what a Pico answers on its serial port, byte for byte.

- raw REPL (Ctrl-A): ``>``, code, Ctrl-D, ``OK``, output, Ctrl-D, error, Ctrl-D;
  Ctrl-D on an empty line soft-reboots; Ctrl-E ``A`` Ctrl-A starts raw paste with the
  flow-control window of an RP2040;
- friendly REPL (Ctrl-B): ``>>> `` with echo, ``... `` continuation lines with a board's
  auto-indent, paste mode (Ctrl-E, then Ctrl-D to run or Ctrl-C to cancel);
- ``SystemExit`` (``sys.exit()``, ``machine.soft_reset()``) ends in a soft reboot, from
  the REPL, from ``boot.py`` or from ``main.py``, as on a Pico.

Lines are read and edited by ``vpico_readline``.

Programs run in ``__main__``. The unix port cannot reset itself, so a soft reboot prints
the board's ``MPY: soft reboot`` and ends the interpreter with a code that asks the
supervisor for a fresh one. Notes to the supervisor say when a program runs (Ctrl-C is
then an interrupt) and when the REPL waits (Ctrl-C is then a character, in its place).
"""

import gc

import micropython
import vpico_port as port
from vpico_readline import continues, getc, indent_for, read_line

RESET_RAW = 40          # exit codes read by courtside_host.vpico.runner
RESET_FRIENDLY = 41
WINDOW = 128            # raw-paste window: half the RP2040's 256-byte receive buffer
_EXIT = object()        # what run() returns when the program asked for a soft reboot


def banner():
    import sys
    v = sys.implementation.version
    built = sys.version.split(" on ")[-1] if " on " in sys.version else "?"
    port.send("MicroPython v%d.%d.%d on %s; virtual Pico (MicroPython unix port) with RP2040\r\n"
              % (v[0], v[1], v[2], built))
    port.send('Type "help()" for more information.\r\n')


_leaving = [0]          # the soft reset under way, if an interrupt lands on its way out


def soft_reboot(code):
    _leaving[0] = code
    port.tell("reset %d" % code)
    port.send("MPY: soft reboot\r\n")
    raise SystemExit(code)


class Runner:
    def __init__(self, namespace):
        self.namespace = namespace

    def run(self, source, name, mode):
        """Run a program as a board does; None, the exception it ended with, or _EXIT."""
        try:
            code = compile(source, name, mode)
        except Exception as e:
            return e
        gc.collect()          # what the REPL itself left is not the program's to live with
        port.tell("run")
        micropython.kbd_intr(3)
        try:
            if mode == "exec":
                self.namespace["__file__"] = name
            exec(code, self.namespace)
        except SystemExit:
            return _EXIT
        except KeyboardInterrupt as e:
            port.forget()
            return e
        except BaseException as e:
            return e
        finally:
            micropython.kbd_intr(3)          # a program may have turned interrupts off
            port.tell("idle")
        return None

    def run_file(self, path, reboot):
        try:
            with open(path) as f:
                source = f.read()
        except OSError:
            return
        result = self.run(source, path, "exec")
        if result is _EXIT:
            soft_reboot(reboot)
        if result is not None:
            port.print_exception(result)

    # the raw REPL ---------------------------------------------------------------------

    def raw(self, resumed=False):
        """The raw REPL; ``resumed`` after an interrupt or an error in the REPL itself, which
        on a board only clears the line: no banner, no prompt."""
        if not resumed:
            port.send("raw REPL; CTRL-B to exit\r\n")
        while True:
            if not resumed:
                port.send(">")
            resumed = False
            line = bytearray()
            while True:
                c = getc()
                if c == 1:                                   # Ctrl-A
                    if len(line) == 2 and line[0] == 5:
                        self.raw_paste(line[1])
                        line = None
                        break
                    port.send("raw REPL; CTRL-B to exit\r\n")
                    line = bytearray()
                    port.send(">")
                elif c == 2:                                 # Ctrl-B
                    port.send("\r\n")
                    return "friendly"
                elif c == 3:                                 # Ctrl-C
                    line = bytearray()
                elif c == 4:                                 # Ctrl-D
                    break
                else:
                    line.append(c)
            if line is None:
                continue
            port.send("OK")
            if not line:
                port.send("\r\n")
                soft_reboot(RESET_RAW)
            self.run_raw(bytes(line))

    def run_raw(self, source):
        try:
            text = source.decode()
        except UnicodeError as e:
            result = e
        else:
            result = self.run(text, "<stdin>", "exec")
        port.send("\x04")
        if result is not None and result is not _EXIT:
            port.print_exception(result)
        port.send("\x04")
        if result is _EXIT:
            soft_reboot(RESET_RAW)

    def raw_paste(self, kind):
        if kind != ord("A"):
            port.send("R\x00")
            return
        port.send(bytes((ord("R"), 1, WINDOW & 0xFF, WINDOW >> 8, 1)))
        data = bytearray()
        left = WINDOW
        while True:
            c = getc()
            if c == 4:
                port.send("\x04")
                break
            if c == 3:              # the laptop gave up half way: nothing runs
                port.send("\x04")
                port.send("\x04")
                port.print_exception(KeyboardInterrupt())
                port.send("\x04")
                return
            data.append(c)
            left -= 1
            if left == 0:
                port.send("\x01")
                left = WINDOW
        self.run_raw(bytes(data))

    # the friendly REPL ----------------------------------------------------------------

    def friendly(self, resumed=False):
        if not resumed:
            banner()
        while True:
            c, line = read_line(">>> ", "")
            if c == 1:
                port.send("\r\n")
                return "raw"
            if c == 2:
                port.send("\r\n")
                banner()
                continue
            if c in (3, 4):
                port.send("\r\n")
                if c == 4:
                    soft_reboot(RESET_FRIENDLY)
                continue
            if c == 5:
                source, mode = self.paste(), "exec"
            else:
                source, mode = self.more_lines(line), "single"
            if source:
                result = self.run(source, "<stdin>", mode)
                if result is _EXIT:
                    soft_reboot(RESET_FRIENDLY)
                if result is not None:
                    port.print_exception(result)

    def more_lines(self, source):
        """Continuation lines until the statement is complete; None if cancelled."""
        while continues(source):
            source += "\n"
            c, line = read_line("... ", indent_for(source))
            if c == 3:
                port.send("\r\n")
                return None
            if c == 4:
                break
            source += line or ""
        return source

    def paste(self):
        port.send("\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ")
        text = bytearray()
        while True:
            c = getc()
            if c == 3:
                port.send("\r\n")
                return None
            if c == 4:
                port.send("\r\n")
                return bytes(text).replace(b"\r\n", b"\n").replace(b"\r", b"\n").decode()
            text.append(c)
            port.send("\r\n=== " if c == 13 else bytes((c,)))


def main(namespace, start):
    """Run the board in ``namespace`` (the ``__main__`` module's globals) from power-up or
    a soft reset (``start`` is ``power``, ``friendly`` or ``raw``) until it reboots."""
    namespace.clear()
    namespace["__name__"] = "__main__"
    board = Runner(namespace)
    micropython.kbd_intr(3)
    state = [None]          # the REPL's mode: None before boot.py, then "raw" or "friendly"
    while True:
        # Every step sits inside two tries: an interrupt may arrive at any moment (in the
        # handler of the last one too), and whatever arrives (random bytes, a line too long
        # for the heap), it never ends the REPL, as it never does on a board.
        try:
            _serve(board, start, state)
        except KeyboardInterrupt:
            _recover(None)


def _serve(board, start, state):
    while True:
        try:
            mode = state[0]
            if mode is None:
                state[0] = "raw" if start == "raw" else "friendly"
                reboot = RESET_RAW if start == "raw" else RESET_FRIENDLY
                board.run_file("boot.py", reboot)
                if start != "raw":
                    board.run_file("main.py", reboot)
                port.tell("idle")
            elif mode in ("raw", "raw resumed"):
                state[0] = board.raw(mode != "raw")
            else:
                state[0] = board.friendly(mode != "friendly")
        except KeyboardInterrupt:
            _resume(state)
            _recover(None)
        except Exception as e:              # MemoryError, UnicodeError...: the REPL goes on
            _resume(state)
            _recover(e)


def _resume(state):
    """After an interrupt or an error, the same REPL goes on without its banner."""
    if state[0] in ("raw", "friendly"):
        state[0] += " resumed"


def _recover(error):
    """After an interrupt or an error in the REPL itself: drop what waits, go on (or finish
    the soft reset that was under way)."""
    port.forget()
    if _leaving[0]:
        raise SystemExit(_leaving[0])
    if error is not None:
        port.send("\r\n")
        port.print_exception(error)
