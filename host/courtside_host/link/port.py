"""Finding the Pico and talking to it: serial ports, mpremote's transport, event lines.

A Pico running MicroPython shows up as a USB serial port with Raspberry Pi's vendor id
(0x2E8A). Every command opens a board here: everything on the board (files, code) goes
through ``mpremote``'s own transport, opened by ``connect`` (deploy, doctor, flash,
bringup); the live event stream is read with pyserial on the same port, opened by
``open_stream`` for every command that reads it (monitor, web), a device or a pyserial URL
(``socket://...``). Whatever goes wrong, opening the board or talking to it, is the one
``BoardError``, saying what to do.

    port = find_port(args.port)                 # raises BoardError with a readable message
    port = wait_for_port(args.port, timeout=20)  # a board that is coming back (a flash, a reset)
    with connect(port) as link:                 # mpremote SerialTransport, in the raw REPL
        print(link.eval("1+1"))
    with connect(port, wait=20) as link:        # the same, while the board finishes starting
        ...
    ser = open_stream(port, timeout=0.05)       # pyserial, for the event lines
"""

import contextlib
import os
import time

import serial
import serial.tools.list_ports

RASPBERRY_PI_VID = 0x2E8A
# The longest one read from the board may wait. mpremote leaves pyserial's timeout at None
# and, on a pseudo-terminal (a virtual board, an emulator), reads a byte at a time without
# asking what is waiting: a board that never answered would hold the command there for
# ever, past every deadline mpremote keeps itself.
READ_S = 10.0


class BoardError(Exception):
    """Something about the board that the user must fix; the message says what."""


def pico_ports():
    """Serial ports that belong to a Raspberry Pi board, as (device, description)."""
    found = []
    for p in sorted(serial.tools.list_ports.comports()):
        if p.vid == RASPBERRY_PI_VID:
            found.append((p.device, p.description or p.product or "Pico"))
    return found


def real_path(port):
    """Follow a symlink (``./ttyACM0`` -> ``/dev/pts/3``) so mpremote sees the device."""
    return os.path.realpath(port) if os.path.islink(port) else port


def find_port(port=None):
    if port:
        if "://" not in port and not os.path.exists(port):
            raise BoardError("no serial port %s (is the board plugged in?)" % port)
        return real_path(port)
    ports = pico_ports()
    if not ports:
        raise BoardError("no Pico found: plug it in by USB, or give --port "
                         "(a board in BOOTSEL mode needs MicroPython first: courtside flash)")
    if len(ports) > 1:
        raise BoardError("several Picos found (%s): choose one with --port"
                         % ", ".join(d for d, _ in ports))
    return ports[0][0]


def wait_for_port(port=None, timeout=10.0, poll=0.05):
    """Wait for a port to appear (after a reset or a flash); returns the device path."""
    end = time.monotonic() + timeout
    while True:
        try:
            return find_port(port)
        except BoardError:
            if time.monotonic() >= end:
                raise
        time.sleep(poll)


def open_stream(port, timeout=0.05, write_timeout=None):
    """The board's event stream on ``port`` (a device or a pyserial URL), with pyserial,
    held by this program alone; BoardError, with what to do, when it cannot be opened."""
    try:
        return serial.serial_for_url(port, 115200, timeout=timeout, write_timeout=write_timeout,
                                     exclusive=True)
    except (serial.SerialException, OSError, ValueError) as e:
        raise BoardError("cannot open %s: %s (unplugged, or another program has it open?)"
                         % (port, getattr(e, "strerror", None) or e)) from None


def _open(port, soft_reset):
    """mpremote's serial transport on ``port``, in the raw REPL; BoardError if not."""
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport
    try:
        link = SerialTransport(port, baudrate=115200, timeout=READ_S)
    except TransportError as e:
        raise BoardError("cannot open %s: %s (another program may have it open)" % (port, e)) from None
    try:
        link.enter_raw_repl(soft_reset=soft_reset)
    except TransportError as e:
        _close(link)
        raise BoardError("the board on %s does not answer its REPL (%s); press reset, or "
                         "hold the main-unit button while plugging in for safe mode"
                         % (port, e)) from None
    return link


def _close(link):
    with contextlib.suppress(Exception):
        if link.in_raw_repl:
            link.exit_raw_repl()
    with contextlib.suppress(Exception):
        link.close()


@contextlib.contextmanager
def connect(port, soft_reset=True, wait=0.0, poll=0.3):
    """mpremote's serial transport on ``port``, in the raw REPL; left in the friendly REPL.

    ``wait``: seconds to keep trying while the board cannot be opened or does not answer
    yet (it is still starting, after a flash or a reset). A board that stops answering
    inside the ``with`` (mpremote's TransportError) is a BoardError too."""
    from mpremote.transport import TransportError, TransportExecError
    end = time.monotonic() + wait
    while True:
        try:
            link = _open(port, soft_reset)
            break
        except BoardError:
            if time.monotonic() >= end:
                raise
            time.sleep(poll)
    try:
        yield link
    except TransportExecError as e:
        said = e.error_output.strip().splitlines()
        raise BoardError("the board on %s refused what was asked of it: %s"
                         % (port, said[-1] if said else "status %s" % e.status_code)) from None
    except TransportError as e:
        raise BoardError("the board on %s stopped answering (%s)" % (port, e)) from None
    finally:
        _close(link)


def event(line):
    """The event in one line of output as a dict (with its ``ev`` and ``t``), or None for
    anything else (REPL noise, a damaged line): ``courtside_follow.schema`` reads it."""
    from courtside_follow.schema import record
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    return record(line)


class Lines:
    """Whole lines from a pyserial port, without blocking longer than asked."""

    def __init__(self, ser):
        self.ser = ser
        self.buf = b""

    def read(self, timeout):
        """One line (bytes, without the line end) or None if none arrived in ``timeout`` s."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.ser.timeout = min(left, 0.05)
            chunk = self.ser.read(self.ser.in_waiting or 1)
            if chunk:
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r")

    def write_line(self, text):
        self.ser.write(text.encode() + b"\n")
        self.ser.flush()


PROMPT = b">>> "      # the friendly REPL waiting for a line


def start_firmware(ser, wait=READ_S):
    """Start the firmware afresh: Ctrl-C (stop whatever runs) and Ctrl-B (the friendly
    REPL) until the REPL's prompt comes back, then Ctrl-D (a soft reset, which runs
    main.py). Sent blind 50 ms apart, the Ctrl-D could reach a busy board before it had
    stopped and be read as input by the firmware still running; the board then sat at its
    REPL, answering nothing. Raises BoardError when no prompt comes in ``wait`` seconds."""
    end = time.monotonic() + wait
    while not _stopped(ser, min(2.0, max(0.1, end - time.monotonic()))):
        if time.monotonic() >= end:
            raise BoardError("the board does not stop for Ctrl-C (no REPL prompt in %g s): "
                             "unplug it and plug it back in" % wait)
    ser.reset_input_buffer()
    ser.write(b"\x04")
    ser.flush()


def _stopped(ser, timeout):
    """Ctrl-C and Ctrl-B; True once the REPL's prompt is read within ``timeout`` s."""
    ser.write(b"\r\x03\x02")
    ser.flush()
    kept = ser.timeout
    seen = b""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            ser.timeout = min(0.05, max(0.0, end - time.monotonic()))
            seen = (seen + ser.read(ser.in_waiting or 1))[-256:]
            if PROMPT in seen:
                return True
        return False
    finally:
        ser.timeout = kept
