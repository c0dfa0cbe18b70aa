"""The virtual Pico's USB serial port, as the board's own programs see it.

A Pico has one serial stream for everything: ``sys.stdout`` and ``sys.stderr`` both reach
it, text written to them has each ``\\n`` sent as ``\\r\\n`` (``.buffer`` writes bytes as
they are), and ``sys.stdin`` reads block until the bytes asked for have arrived. The unix
port's own streams do none of that, so the board gets these instead:

    stdout, stderr, stdin       text streams with ``.buffer``, for ``sys``
    print, repl_print           for ``builtins`` (the unix port's print bypasses sys.stdout)
    print_exception(e, file)    a traceback without the board's own frames

The REPL reads the same input through ``next_byte()``, so nothing a program leaves
unread is lost to the REPL, and ``forget()`` drops what is waiting, as a board's USB
receive buffer is emptied by an interrupt. ``tell()`` writes a note to the supervisor.
"""

import io
import select
import sys

_POLL = 3             # MP_STREAM_POLL
_POLLIN = 1

_notes = sys.stderr          # the unix port's own stderr goes to the supervisor only
_out = sys.stdout.buffer
_in = sys.stdin.buffer
_real_print_exception = sys.print_exception  # type: ignore[attr-defined]
_poll = select.poll()
_poll.register(sys.stdin, select.POLLIN)
_chunk = bytearray(256)
_waiting = [b"", 0]              # arrived bytes and how many of them are read


def tell(note):
    """A line for the supervisor (``courtside_host.vpico.runner``), never seen by the laptop."""
    _notes.write("vpico: %s\n" % note)


def send(data):
    """Bytes to the laptop as they are (the REPL's protocol bytes)."""
    _out.write(data if isinstance(data, (bytes, bytearray)) else data.encode())


def send_text(text):
    """Text to the laptop as a board sends it: each newline as CR LF."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    _out.write(data.replace(b"\n", b"\r\n"))


def _arrive(timeout):
    """Wait up to ``timeout`` ms (-1: for ever) for bytes from the laptop."""
    if not _poll.poll(timeout):
        return
    n = _in.readinto(_chunk)
    if n == 0:                 # the laptop side is gone for good: the board powers off
        raise SystemExit(0)
    if n:
        data, at = _waiting
        _waiting[0] = data[at:] + _chunk[:n]
        _waiting[1] = 0


def _available():
    return len(_waiting[0]) - _waiting[1]


def next_byte():
    """The next byte from the laptop, waiting for it."""
    while not _available():
        _arrive(-1)
    data, at = _waiting
    _waiting[1] = at + 1
    return data[at]


def forget():
    """Drop what has arrived and is not yet read (an interrupt empties the buffer)."""
    _waiting[0] = b""
    _waiting[1] = 0


def _take(n):
    while _available() < n:
        _arrive(-1)
    data, at = _waiting
    _waiting[1] = at + n
    return data[at:at + n]


class _BytesIn(io.IOBase):
    def readinto(self, buf, n=-1):
        n = len(buf) if n is None or n < 0 else min(n, len(buf))
        buf[:n] = _take(n)
        return n

    def read(self, n=-1):
        if n is None or n < 0:
            while True:            # a board's stdin never ends
                _arrive(-1)
        return _take(n)

    def readline(self):
        line = bytearray()
        while not line.endswith(b"\n"):
            line.extend(_take(1))
        return bytes(line)

    def ioctl(self, request, arg):
        if request == _POLL:
            if not _available():
                _arrive(0)
            return arg & _POLLIN if _available() else 0
        return -1

    def fileno(self):
        return 0

    def __repr__(self):
        return "<io.FileIO 0>"


class _TextIn(_BytesIn):
    def __init__(self):
        self.buffer = _BytesIn()

    def read(self, n=-1):
        return _BytesIn.read(self, n).decode()

    def readline(self):
        return _BytesIn.readline(self).decode()

    def __repr__(self):
        return "<io.TextIOWrapper 0>"


def _part(data, where):
    """``write(buf)``, ``write(buf, n)`` or ``write(buf, offset, n)``, as MicroPython's."""
    if len(where) == 1:
        return data[:where[0]]
    if len(where) == 2:
        return data[where[0]:where[0] + where[1]]
    return data


class _BytesOut(io.IOBase):
    def write(self, data, *where):
        data = _part(data, where)
        send(bytes(data))
        return len(data)

    def ioctl(self, request, arg):
        return arg if request == _POLL else -1

    def flush(self):
        pass

    def __repr__(self):
        return "<io.FileIO %d>" % self._fd


class _TextOut(_BytesOut):
    def __init__(self, fd):
        self.buffer = _BytesOut()
        self.buffer._fd = fd
        self._fd = fd

    def write(self, text, *where):
        text = _part(text, where)
        send_text(text)
        return len(text)

    def fileno(self):
        return self._fd

    def __repr__(self):
        return "<io.TextIOWrapper %d>" % self._fd


stdin = _TextIn()
stdout = _TextOut(1)
stderr = _TextOut(2)


def print(*args, sep=" ", end="\n", file=None):
    text = (" " if sep is None else sep).join([str(a) for a in args])
    (stdout if file is None else file).write(text + ("\n" if end is None else end))


_HELP = """Welcome to MicroPython!

For online docs please visit http://docs.micropython.org/

Control commands:
  CTRL-A        -- on a blank line, enter raw REPL mode
  CTRL-B        -- on a blank line, enter normal REPL mode
  CTRL-C        -- interrupt a running program
  CTRL-D        -- on a blank line, exit or do a soft reset
  CTRL-E        -- on a blank line, enter paste mode

For further help on a specific object, type help(obj)
For a list of available modules, type help('modules')
"""


def help(what=None):
    """``help()`` as a board answers it, through the port (the unix port's own help()
    prints past it)."""
    if what is None:
        stdout.write(_HELP)
        return
    if isinstance(what, str) and what == "modules":
        import sys
        stdout.write("  ".join(sorted(sys.modules)) + "\n")
        return
    stdout.write("object %r is of type %s\n" % (what, type(what).__name__))
    for name in sorted(dir(what)):
        if not name.startswith("__"):
            stdout.write("  %s -- %r\n" % (name, getattr(what, name)))


def repl_print(value):
    if value is not None:
        import builtins
        builtins._ = value
        stdout.write(repr(value) + "\n")


def _is_board_frame(line):
    if not line.startswith('  File "'):
        return False
    name = line[8:].split('"', 1)[0]
    return name.split("/")[-1].startswith("vpico_")


def print_exception(e, file=None):
    """``sys.print_exception`` as on a board: the traceback of the program, not of the
    board script that ran it."""
    text = io.StringIO()
    _real_print_exception(e, text)
    lines = [ln for ln in text.getvalue().split("\n") if not _is_board_frame(ln)]
    (stdout if file is None else file).write("\n".join(lines))
