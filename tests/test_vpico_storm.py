"""Whatever arrives on the virtual Pico's port, it comes back: random bytes, Ctrl-C storms,
a raw paste cut off, a line too long for the heap, an interpreter killed again and again.

Once had: after 1 MB of random bytes the interpreter ended three times in a row and the
supervisor gave up on it (no answer to Ctrl-C, Ctrl-D, ``ping`` or mpremote); a Ctrl-C
storm ended it too. Now the REPL never ends on an error or an interrupt, the supervisor
powers up a fresh interpreter every time one ends unasked, what a board was sent and had
not read goes with the interpreter that ended, and the laptop is held back (as USB holds
a host back) once the board is 4 KiB behind. Each test then checks the board with the
real mpremote and a deploy that ends in ``ping`` answered.
"""

import os
import random
import signal
import threading
import time

import pytest
import serial
from courtside_host.link import deploy as dep
from courtside_host.vpico.runner import VirtualPico
from mpremote.transport_serial import SerialTransport

pytestmark = pytest.mark.vpico
WAIT = 60          # generous: the board answers in well under a second after the input stops


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    with VirtualPico(tmp_path_factory.mktemp("storm") / "flash") as pico:
        dep.deploy(pico.port)
        yield pico


def pour(pico, data):
    """Write ``data`` to the port while reading what comes back; the seconds it took."""
    port = serial.Serial(pico.port, timeout=0)
    done = threading.Event()

    def read():
        while not done.is_set():
            try:
                port.read(65536)
            except serial.SerialException:
                pass
            time.sleep(0.005)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    start = time.monotonic()
    try:
        for i in range(0, len(data), 4096):
            port.write(data[i:i + 4096])
        port.flush()
    finally:
        done.set()
        reader.join(5)
        port.close()
    return time.monotonic() - start


def settles(pico):
    """Seconds from the end of the input until the board has done with it: it has read all
    it was sent and waits for more, with nothing starting and all it wrote passed on
    (``VirtualPico.caught_up``); then what it wrote is read off the port."""
    port = serial.Serial(pico.port, timeout=0.05)
    start = time.monotonic()
    try:
        calm = 0
        while calm < 3 and time.monotonic() - start < WAIT:    # three looks in a row
            port.read(65536)
            calm = calm + 1 if pico.caught_up() else 0
        took = time.monotonic() - start
        while port.read(65536):
            pass
    finally:
        port.close()
    return took


def raw_eval(pico, expression):
    """``expression`` evaluated on the board through mpremote's raw REPL, at the first try."""
    t = SerialTransport(pico.port, baudrate=115200)
    try:
        t.enter_raw_repl(soft_reset=False)
        return t.eval(expression)
    finally:
        t.close()


def answers(pico):
    """Quiet soon after the input stops; then mpremote reaches the raw REPL and runs a line
    at the first try, and deploy ends in ``ping`` answered."""
    assert settles(pico) < WAIT
    assert raw_eval(pico, "6 * 7") == 42
    result = dep.deploy(pico.port, timeout=WAIT)
    assert result.pong["fw"] == dep.local_version()


def test_a_megabyte_of_random_bytes(board):
    pour(board, random.Random(27).randbytes(1 << 20))
    answers(board)


def ctrl_c_storm(rng, n):
    """Ctrl-C among REPL input: lines, raw and paste modes, soft resets. (Programs that run
    on are left out: a Ctrl-C that comes just as a program ends on its own can still land
    in the next program, which is no storm's doing; see docs/laptop.md.)"""
    parts = [b"\x03" * 40, b"\x01", b"\x02", b"\x04", b"x = [0] * 1000\r", b"\x01\x05A\x01print(1",
             b"\x05if x:\r  y = 1\r", b"\r\x03\x03", b"\x03", b"1/0\r"]
    return b"".join(rng.choice(parts) for _ in range(n))


def test_ctrl_c_storms(board):
    rng = random.Random(3)
    for _ in range(3):
        pour(board, ctrl_c_storm(rng, 4000))
        answers(board)


def test_a_raw_paste_cut_off_then_silence(board):
    pour(board, b"\r\x03\x03\x01\x05A\x01" + b"x = 1\n" * 50)       # the window is never finished
    answers(board)


def test_a_line_too_long_for_the_heap_does_not_end_the_interpreter(board):
    """300 KB with no Enter at the friendly REPL: a MemoryError in the board's line editor,
    shown, and the same interpreter goes on."""
    pour(board, b"\x03\x03\x02")
    boots = board.boots
    pour(board, b"x" * 300_000 + b"\r")
    assert raw_eval(board, "1 + 1") == 2
    assert board.boots == boots and board.crashes == 0
    answers(board)


def test_an_interpreter_killed_again_and_again_comes_back_every_time(board):
    for _ in range(6):                 # more than the three the supervisor once allowed
        boots = board.boots
        os.kill(board.child.pid, signal.SIGKILL)
        end = time.monotonic() + WAIT
        while board.boots == boots and time.monotonic() < end:
            time.sleep(0.01)
        assert board.boots == boots + 1
    answers(board)
    assert board.crashes == 0          # counted again from the first answer
