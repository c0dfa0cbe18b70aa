"""The virtual Pico looks like a board to the real, unmodified mpremote.

Each test boots a virtual Pico (the MicroPython unix port behind a pseudo-terminal, a temp
folder as its flash) and drives it with mpremote, as its command line or its transport.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial
from courtside_host.vpico.runner import VirtualPico

pytestmark = pytest.mark.vpico

# Waits are ceilings, not delays (each returns once its text arrives): the suite runs in
# parallel, and a loaded machine can take seconds to restart the interpreter.
WAIT = 30

MPREMOTE = str(Path(sys.executable).parent / "mpremote")


def mpremote(vpico, *args, check=True):
    out = subprocess.run([MPREMOTE, "connect", vpico.port, *args], capture_output=True,
                         text=True, timeout=30, check=False)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def transport(vpico):
    from mpremote.transport_serial import SerialTransport
    link = SerialTransport(vpico.port, baudrate=115200)
    link.enter_raw_repl(soft_reset=False)
    return link


def test_mpremote_copies_lists_and_reads_back(vpico, tmp_path):
    src = tmp_path / "notes.txt"
    src.write_bytes(bytes(range(256)) * 9)
    mpremote(vpico, "mkdir", ":data")
    mpremote(vpico, "cp", str(src), ":data/notes.txt")
    assert (vpico.flash / "data" / "notes.txt").read_bytes() == src.read_bytes()
    listing = mpremote(vpico, "ls", ":data").stdout
    assert "notes.txt" in listing
    back = tmp_path / "back.txt"
    mpremote(vpico, "cp", ":data/notes.txt", str(back))
    assert back.read_bytes() == src.read_bytes()
    mpremote(vpico, "rm", "-r", ":data")
    assert not (vpico.flash / "data").exists()


def test_filesystem_root_is_the_flash_folder_as_on_a_board(vpico):
    (vpico.flash / "x.txt").write_text("hi")
    out = mpremote(vpico, "exec", "import os; print(os.stat('')[0] & 0x4000, os.getcwd(), "
                   "sorted(os.listdir('/')), open('/x.txt').read())").stdout
    assert out.split() == ["16384", "/", "['x.txt']", "hi"]


def test_ctrl_d_in_raw_repl_restarts_the_interpreter(vpico):
    link = transport(vpico)
    try:
        link.exec("left_over = 5")
        assert link.eval("'left_over' in globals()") is True
        boots = vpico.boots
        link.serial.write(b"\x04")
        assert link.read_until(1, b"soft reboot\r\n", timeout=WAIT).endswith(b"MPY: soft reboot\r\n")
        assert link.read_until(1, b"raw REPL; CTRL-B to exit\r\n", timeout=WAIT).endswith(b"exit\r\n")
        assert link.eval("'left_over' in globals()") is False
        assert vpico.boots == boots + 1
    finally:
        link.close()


def test_raw_paste_mode_carries_large_code(vpico):
    link = transport(vpico)
    try:
        code = "total = 0\n" + "".join("total += %d\n" % i for i in range(600))
        assert len(code) > 4000
        link.exec(code)
        assert link.use_raw_paste is True   # the board accepted raw paste, no fallback
        assert link.eval("total") == sum(range(600))
    finally:
        link.close()


def test_errors_come_back_as_on_a_board(vpico):
    out = mpremote(vpico, "exec", "import os; os.stat('/missing')", check=False)
    assert out.returncode == 1
    assert "OSError" in out.stdout + out.stderr and "ENOENT" in out.stdout + out.stderr


def test_ctrl_c_interrupts_a_running_main(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("n = 0\nwhile True:\n    n += 1\n")
    with VirtualPico(flash) as vpico:
        out = mpremote(vpico, "exec", "print('free')")
        assert out.stdout.strip() == "free"


def test_power_up_runs_main_then_offers_the_friendly_repl(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "boot.py").write_text("print('booting')\n")
    (flash / "main.py").write_text("print('main ran')\n")
    with VirtualPico(flash) as vpico:
        ser = serial.Serial(vpico.port, timeout=0.2)
        try:
            ser.write(b"\x02")    # Ctrl-B: show the banner (output before we opened is lost)
            seen = b""
            end = time.monotonic() + WAIT
            while b">>> " not in seen and time.monotonic() < end:
                seen += ser.read(100)
            assert b"MicroPython v" in seen and b'Type "help()"' in seen
            ser.write(b"6*7\r")
            seen = b""
            while b"42" not in seen and time.monotonic() < end:
                seen += ser.read(100)
            assert b"42\r\n" in seen or b"42\n" in seen
            ser.write(b"\x04")    # Ctrl-D at the prompt: soft reset runs boot.py and main.py
            seen = b""
            while b"main ran" not in seen and time.monotonic() < end:
                seen += ser.read(100)
            assert seen.index(b"soft reboot") < seen.index(b"booting") < seen.index(b"main ran")
        finally:
            ser.close()


def test_heap_is_the_size_of_a_picos(vpico):
    # What a program finds free after a soft reset: about what a Pico leaves (192 KiB),
    # the board's own modules not counted.
    out = mpremote(vpico, "exec", "import gc; gc.collect(); print(gc.mem_free())")
    assert 180 * 1024 <= int(out.stdout) <= 200 * 1024


def test_mpremote_mount_with_a_ctrl_c_byte_in_its_data(vpico, tmp_path):
    # Reading a 3-byte file sends its length, 03 00 00 00, while the board has turned
    # Ctrl-C interrupts off (micropython.kbd_intr(-1)): the byte must arrive as data.
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "a.txt").write_text("hi\n")
    out = mpremote(vpico, "mount", str(shared), "exec", "print(repr(open('a.txt').read()))")
    assert "'hi\\n'" in out.stdout
    assert vpico.crashes == 0


def test_vpico_command_serves_until_interrupted(tmp_path):
    link = tmp_path / "ttyACM0"
    proc = subprocess.Popen([sys.executable, "-m", "courtside_host.vpico.runner", str(tmp_path / "flash"),
                             "--link", str(link)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert "virtual Pico on /dev/pts/" in first and link.is_symlink()
        assert "paths are confined to the flash folder" in proc.stdout.readline()
        out = mpremote_at(str(link), "exec", "print(6 * 7)")
        assert out.stdout.strip() == "42"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(10)
    assert proc.returncode == 0 and not os.path.lexists(link)


def mpremote_at(port, *args):
    out = subprocess.run([MPREMOTE, "connect", os.path.realpath(port), *args], capture_output=True,
                         text=True, timeout=30, check=False)
    assert out.returncode == 0, out.stderr
    return out
