"""One link to a board (``courtside_host.link.port.connect``): every command that talks to
the board's REPL opens it there, waits there for a board that is still starting, and gets
the one ``BoardError`` whatever goes wrong, opening it or talking to it. mpremote's
transport is replaced by a stand-in that fails as a board does."""

import pytest
from courtside_host import cli
from courtside_host.link import port as link
from mpremote.transport import TransportError, TransportExecError


class Standin:
    """mpremote's SerialTransport: its first ``silent`` openings get no REPL prompt."""

    opened = []
    silent = 0

    def __init__(self, device, baudrate, timeout=None):
        self.device = device
        self.in_raw_repl = False
        self.closed = False
        Standin.opened.append(self)

    def enter_raw_repl(self, soft_reset=True):
        if len(Standin.opened) <= Standin.silent:
            raise TransportError("could not enter raw repl")
        self.in_raw_repl = True

    def exit_raw_repl(self):
        self.in_raw_repl = False

    def close(self):
        self.closed = True

    def eval(self, expression):
        raise TransportExecError(1, "Traceback (most recent call last):\nNameError: name 'x' isn't defined\n")


@pytest.fixture
def standin(monkeypatch):
    import mpremote.transport_serial
    monkeypatch.setattr(mpremote.transport_serial, "SerialTransport", Standin)
    Standin.opened, Standin.silent = [], 0
    return Standin


def test_a_board_still_starting_is_waited_for(standin):
    standin.silent = 2
    with link.connect("/dev/ttyACM9", wait=5, poll=0) as board:
        assert board.in_raw_repl and len(standin.opened) == 3
    assert all(t.closed for t in standin.opened) and not board.in_raw_repl


def test_without_a_wait_a_board_that_does_not_answer_is_said_at_once(standin):
    standin.silent = 1
    with pytest.raises(link.BoardError, match="does not answer its REPL .*safe mode"):
        with link.connect("/dev/ttyACM9"):
            pytest.fail("opened")
    assert len(standin.opened) == 1 and standin.opened[0].closed


def test_a_board_that_fails_inside_is_a_board_error_and_left_closed(standin):
    with pytest.raises(link.BoardError, match="the board on /dev/ttyACM9 stopped answering \\(timeout\\)"):
        with link.connect("/dev/ttyACM9"):
            raise TransportError("timeout")
    with pytest.raises(link.BoardError, match="refused what was asked of it: NameError: name 'x'"):
        with link.connect("/dev/ttyACM9") as board:
            board.eval("x")
    assert all(t.closed and not t.in_raw_repl for t in standin.opened)


def test_flash_opens_the_board_through_the_link_and_says_what_went_wrong(standin, tmp_path, capsys):
    """The board that comes back after a flash is opened as every command opens one; one
    that errs when asked its version is a plain ``courtside flash:`` line, no traceback."""
    from test_flash import RP2040_INFO, uf2_bytes
    drive = tmp_path / "RPI-RP2"
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text(RP2040_INFO)
    image = tmp_path / "RPI_PICO.uf2"
    image.write_bytes(uf2_bytes(0xE48BFF56))
    device = tmp_path / "ttyACM0"
    device.write_text("")
    standin.silent = 1          # the board is still starting at the first try
    status = cli.main(["flash", str(image), "--drive", str(drive), "--port", str(device), "--wait", "5"])
    err = capsys.readouterr().err
    assert status == 1 and len(standin.opened) == 2
    assert err.startswith("courtside flash: the board on %s refused what was asked of it: NameError" % device)
    assert "Traceback" not in err


@pytest.mark.slow
def test_a_silent_board_on_a_pseudo_terminal_is_a_board_error_not_a_hang():
    """mpremote itself, on a real pseudo-terminal with nothing behind it: it reads such a
    port a byte at a time, and with pyserial's timeout left at None one read waited for
    ever (a deploy to the virtual board once hung there until the test run's deadline)."""
    import os
    import threading
    master, slave = os.openpty()
    said = []

    def open_it():
        try:
            with link.connect(os.ttyname(slave)):
                said.append("opened")
        except link.BoardError as e:
            said.append(e)

    try:
        opening = threading.Thread(target=open_it, daemon=True)
        opening.start()
        opening.join(timeout=30 * link.READ_S)
        assert not opening.is_alive(), "still reading after %.0f s" % (30 * link.READ_S)
        assert len(said) == 1 and isinstance(said[0], link.BoardError), said
        assert "does not answer its REPL" in str(said[0])
    finally:
        os.close(master)
        os.close(slave)


class _BusyBoard:
    """A board on a real pseudo-terminal whose firmware takes ``stop_s`` to stop after a
    Ctrl-C, reading its input all that while, as a loaded board's does; then its REPL:
    Ctrl-B and Ctrl-C give the prompt, Ctrl-D a soft reset. ``stop_s=None``: it never
    stops."""

    def __init__(self, stop_s):
        import os
        import threading
        self.master, self.slave = os.openpty()
        self.stop_s = stop_s
        self.eaten = b""          # what the running firmware read
        self.resets = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        import os
        import select
        import time
        stops = None
        repl = False
        while not self._done.is_set():
            if stops is not None and not repl and time.monotonic() >= stops:
                repl = True
                os.write(self.master, b"Traceback (most recent call last):\r\nKeyboardInterrupt: \r\n>>> ")
            if not select.select([self.master], [], [], 0.02)[0]:
                continue
            for byte in os.read(self.master, 64):
                if not repl:
                    self.eaten += bytes([byte])
                    if byte == 3 and stops is None and self.stop_s is not None:
                        stops = time.monotonic() + self.stop_s
                elif byte == 4:
                    self.resets += 1
                    repl = False
                    stops = None
                    os.write(self.master, b"MPY: soft reboot\r\n")
                elif byte in (2, 3):
                    os.write(self.master, b"\r\n>>> ")

    def close(self):
        import os
        self._done.set()
        self._thread.join(timeout=5)
        os.close(self.master)
        os.close(self.slave)


def test_starting_the_firmware_waits_for_the_repl_before_its_soft_reset():
    """A firmware that takes 0.4 s to stop: the Ctrl-D goes only once the REPL's prompt
    has come, so the REPL reads it and resets. (Sent 100 ms after the Ctrl-C, as it was,
    the running firmware read it, and the board then sat at its REPL.)"""
    import os

    import serial
    board = _BusyBoard(0.4)
    try:
        with serial.Serial(os.ttyname(board.slave), timeout=0.1) as ser:
            link.start_firmware(ser)
            for _ in range(100):
                if board.resets:
                    break
                ser.read(64)
        assert board.resets == 1
        assert b"\x04" not in board.eaten and b"\x03" in board.eaten
    finally:
        board.close()


def test_a_board_that_never_stops_is_a_board_error():
    import os

    import serial
    board = _BusyBoard(None)
    try:
        with serial.Serial(os.ttyname(board.slave), timeout=0.1) as ser:
            with pytest.raises(link.BoardError, match="does not stop for Ctrl-C"):
                link.start_firmware(ser, wait=1.0)
        assert board.resets == 0 and b"\x04" not in board.eaten
    finally:
        board.close()
