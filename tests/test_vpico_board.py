"""The virtual Pico behaves as a Pico where tools and programs can tell the difference.

Each test drives a virtual Pico over its serial port (with mpremote's transport for the
raw REPL, or plain pyserial) and checks what a Pico does: CR LF line endings, one stream
for stdout and stderr, ``__main__``, tracebacks, soft reboots from ``SystemExit``,
``machine``, ``os.uname``, blocking ``stdin`` reads, the order of Ctrl-C among the
bytes around it, and the friendly REPL's continuation lines and paste mode.
"""

import time

import pytest
import serial
from courtside_host.vpico.runner import VirtualPico
from mpremote.transport_serial import SerialTransport

pytestmark = pytest.mark.vpico


@pytest.fixture
def link(bare_pico):
    t = SerialTransport(bare_pico.port, baudrate=115200)
    t.enter_raw_repl(soft_reset=False)
    yield t
    t.close()


# Waits below are ceilings, not delays (each returns once its text arrives): the suite runs
# in parallel, and a loaded machine can take seconds to restart the interpreter.
WAIT = 30


def read_until(port, ending, timeout=WAIT):
    seen = b""
    end = time.monotonic() + timeout
    while ending not in seen and time.monotonic() < end:
        seen += port.read(200)
    return seen


def raw_output(link, code):
    out, err = link.exec_raw(code)
    return out, err


def test_text_output_ends_lines_with_cr_lf_and_bytes_go_as_they_are(link):
    out, err = raw_output(link, "import sys\nprint('a')\nsys.stdout.write('b\\nc\\n')\n"
                                "sys.stdout.buffer.write(b'd\\n')")
    assert (out, err) == (b"a\r\nb\r\nc\r\nd\n", b"")


def test_input_help_and_the_streams_are_a_boards(link):
    link.exec_raw_no_follow("x = input('name? ')\nprint('hello', x)")
    link.serial.write(b"Bob\r")
    assert link.follow(5) == (b"name? Bob\r\nhello Bob\r\n", b"")
    out, err = raw_output(link, "help()")
    assert out.startswith(b"Welcome to MicroPython!\r\n") and b"\r\n\r\n" in out and b"\n\n" not in out
    out, err = raw_output(link, "import sys\nsys.stdout.flush()\n"
                                "print(sys.stdin, sys.stdout, sys.stderr.buffer)")
    assert out == b"<io.TextIOWrapper 0> <io.TextIOWrapper 1> <io.FileIO 2>\r\n"


def test_stderr_reaches_the_port(link):
    out, err = raw_output(link, "import sys\nsys.stderr.write('to stderr\\n')\n"
                                "print('also', file=sys.stderr)")
    assert (out, err) == (b"to stderr\r\nalso\r\n", b"")


def test_code_runs_in_main_with_nothing_of_the_board_script(link):
    link.exec("x = 5\nimport __main__")
    assert link.eval("__main__.x") == 5
    assert link.eval("__name__") == "__main__"
    names = set(link.eval("list(globals())"))
    assert {"__name__", "__file__", "x"} <= names
    assert not names & {"_start", "_name", "_module", "builtins", "vfs", "vpico_repl", "vpico_port"}
    assert link.eval("repr(__import__('machine'))") == "<module 'machine'>"


def test_a_traceback_has_only_the_programs_frames(link):
    out, err = raw_output(link, "def f():\n    1 / 0\nf()")
    assert err == (b'Traceback (most recent call last):\r\n  File "<stdin>", line 3, in <module>\r\n'
                   b'  File "<stdin>", line 2, in f\r\nZeroDivisionError: divide by zero\r\n')
    out, err = raw_output(link, "import sys\ntry:\n    1 / 0\nexcept Exception as e:\n"
                                "    sys.print_exception(e)")
    assert out == b'Traceback (most recent call last):\r\n  File "<stdin>", line 3, in <module>\r\n' \
                  b'ZeroDivisionError: divide by zero\r\n'


@pytest.mark.parametrize("leave", ["import sys\nsys.exit()", "raise SystemExit(3)",
                                   "import machine\nmachine.soft_reset()"])
def test_system_exit_soft_reboots(bare_pico, link, leave):
    link.exec("left_over = 1")
    boots = bare_pico.boots
    link.exec_raw_no_follow(leave)
    seen = link.read_until(1, b"raw REPL; CTRL-B to exit\r\n", timeout=WAIT)
    assert b"\x04\x04MPY: soft reboot\r\n" in seen
    assert link.eval("'left_over' in globals()") is False
    assert bare_pico.boots == boots + 1


def test_machine_and_os_answer_as_a_pico(link):
    link.exec("import machine, os")
    assert link.eval("os.uname().sysname") == "rp2"
    assert "RP2040" in link.eval("os.uname().machine")
    assert link.eval("(len(machine.unique_id()), machine.freq())") == (8, 125_000_000)
    link.exec("machine.RTC().datetime((2024, 2, 29, 3, 23, 59, 58, 0))")
    year, month, day, weekday, hour, minute, second, _ = link.eval("machine.RTC().datetime()")
    assert (year, month, day, weekday, hour, minute) == (2024, 2, 29, 3, 23, 59)
    assert second in (58, 59, 0) or (minute, second) == (0, 0)


def test_stdin_readinto_waits_for_every_byte_as_on_a_board(link):
    link.exec_raw_no_follow("import sys\nb = bytearray(6)\nn = sys.stdin.buffer.readinto(b)\n"
                            "print(n, bytes(b))\nt = sys.stdin.read(2)\nprint(repr(t))")
    link.serial.write(b"abc")
    time.sleep(0.3)              # a board waits for the rest; it does not return 3 bytes
    link.serial.write(b"def")
    link.serial.write(b"x")
    time.sleep(0.2)
    link.serial.write(b"y")
    out, err = link.follow(5)
    assert (out, err) == (b"6 b'abcdef'\r\n'xy'\r\n", b"")


def test_ctrl_c_while_the_repl_waits_keeps_its_place(bare_pico, link):
    # In one write: a line, Ctrl-C (clear the line), another line, Ctrl-D (run it).
    link.serial.write(b"print('A')\x03print('B')\x04")
    seen = link.read_until(1, b"\x04>", timeout=WAIT)
    assert seen.endswith(b"OKB\r\n\x04\x04>") and b"A" not in seen


def test_ctrl_c_while_a_program_runs_drops_what_it_had_not_read(bare_pico, link):
    link.exec_raw_no_follow("while True:\n    pass")
    time.sleep(0.2)
    link.serial.write(b"junk\x03")
    out, err = link.follow(5)
    assert b"KeyboardInterrupt" in err
    link.serial.write(b"print(1)\x04")
    seen = link.read_until(1, b"\x04>", timeout=WAIT)
    assert seen.endswith(b">OK1\r\n\x04\x04>") and b"junk" not in seen


def test_friendly_repl_continuation_lines_and_paste_mode(bare_pico):
    port = serial.Serial(bare_pico.port, timeout=0.1)
    try:
        port.write(b"\x02")
        read_until(port, b">>> ")
        for key in (b"for i in range(3):\r", b"print(i * 11)\r", b"\r", b"\r", b"\r"):
            port.write(key)
            time.sleep(0.05)
        seen = read_until(port, b"22\r\n>>> ")
        assert seen.endswith(b"for i in range(3):\r\n...     print(i * 11)\r\n...     \r\n"
                             b"...     \r\n... \r\n0\r\n11\r\n22\r\n>>> ")
        port.write(b"(1 +\r2)\r")
        assert read_until(port, b"3\r\n>>> ").endswith(b"(1 +\r\n... 2)\r\n3\r\n>>> ")
        port.write(b"\x05")
        assert read_until(port, b"=== ").endswith(
            b"paste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ")
        port.write(b"def f():\r    return 5\r\rprint(f() * 2)\r\x04")
        assert read_until(port, b"10\r\n>>> ").endswith(b"=== print(f() * 2)\r\n=== \r\n10\r\n>>> ")
        port.write(b"\x05if True:\r    print('never')\r\x03")
        assert b"never\r\n>>> " not in read_until(port, b"\r\n>>> ")
        port.write(b"x = 'caf\xc3\xa9'\rprint(len(x))\r")
        assert read_until(port, b"4\r\n>>> ").endswith(b"4\r\n>>> ")
    finally:
        port.close()


def test_friendly_repl_sys_exit_soft_reboots_into_main(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("print('main ran')\n")
    with VirtualPico(flash) as bare_pico:
        port = serial.Serial(bare_pico.port, timeout=0.1)
        try:
            port.write(b"\x02")
            read_until(port, b">>> ")
            port.write(b"import sys; sys.exit()\r")
            # the power-up banner and Ctrl-B's may arrive apart, each with a prompt: wait for
            # the reboot's own text, not for the next prompt (on a loaded machine, a stale one)
            seen = read_until(port, b"MPY: soft reboot\r\nmain ran\r\nMicroPython v")
            assert b"MPY: soft reboot\r\nmain ran\r\nMicroPython v" in seen
        finally:
            port.close()


def test_sys_exit_in_main_soft_reboots_and_main_runs_again(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text(
        "import sys\nf = open('runs.txt', 'a'); f.write('x'); f.close()\n"
        "if len(open('runs.txt').read()) < 3:\n    sys.exit()\n")
    with VirtualPico(flash) as bare_pico:
        end = time.monotonic() + 10
        while time.monotonic() < end and bare_pico.boots < 3:
            time.sleep(0.05)
        time.sleep(0.3)
        assert (flash / "runs.txt").read_text() == "xxx"
        assert bare_pico.boots == 3 and bare_pico.crashes == 0
