"""The virtual Pico's friendly REPL reads lines as MicroPython's own REPL does.

The oracle is the real thing: the unix port's own friendly REPL, run on a pseudo-terminal,
shares its line editor and continuation rules with a Pico's. The same keystrokes go to it
and to a virtual Pico; what each echoes (prompts, ``... `` continuation lines, auto-indent,
paste mode, results) must be the same, line ends aside (a terminal's own CR LF).
"""

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial
from courtside_host.vpico.runner import VirtualPico

pytestmark = pytest.mark.vpico

SESSIONS = [
    ["for i in range(3):\r", "print(i * 11)\r", "\r", "\r", "\r"],
    ["x = (1,\r", "2)\r", "x\r"],
    ["s = '''a\r", "b'''\r", "s\r"],
    ["if True:\r", "if 1:\r", "print('deep')\r", "\r", "\r", "\r", "\r"],
    ["def f(n):\r", "return n + 1\r", "\r", "\r", "\r", "f(2)\r"],
    ["y = 1 + \\\r", "2\r", "y\r"],
    ["t = {1:\r", "'x'}\r", "t\r"],
    ["z = 'a(b'\r", "z\r"],
    ["class A: pass\r", "\r", "A.__name__\r"],
    ["@staticmethod\r", "def g(): pass\r", "\r", "\r"],
    ["try:\r", "1/0\r", "\b\b\b\bexcept ZeroDivisionError:\r", "print('caught')\r", "\r", "\r", "\r"],
    ["\x05", "def f():\r", "    return 7\r", "\r", "print(f() * 6)\r", "\x04"],
    ["\x05", "x = 'never'\r", "\x03", "'x' in globals()\r"],
]
_PROMPT = re.compile(rb"(>>> |=== |\.\.\. (    )*)$")


def settle(read, timeout=3):
    """What arrives until a prompt ends the output and nothing more comes for a moment."""
    seen = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        chunk = read()
        if chunk:
            seen += chunk
        elif _PROMPT.search(seen):
            return seen
    return seen


def transcript(write, read, keys):
    out = b""
    for key in keys:
        write(key.encode())
        out += settle(read)
    write(b"\x03")
    settle(read)
    return out.replace(b"\r", b"").replace(b"\x1b[K", b"")


@pytest.fixture(scope="module")
def oracle():
    binary = Path(sys.executable).parent / "micropython"
    master, slave = os.openpty()
    proc = subprocess.Popen([str(binary)], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)

    def read():
        ready, _, _ = select.select([master], [], [], 0.05)
        return os.read(master, 4096) if ready else b""
    settle(read)
    yield (lambda data: os.write(master, data)), read
    proc.kill()
    proc.wait()
    os.close(master)


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    with VirtualPico(tmp_path_factory.mktemp("readline") / "flash") as pico:
        port = serial.Serial(pico.port, timeout=0.05)
        port.write(b"\x02")
        settle(lambda: port.read(4096))
        yield port.write, (lambda: port.read(4096))
        port.close()


@pytest.mark.parametrize("keys", SESSIONS, ids=[s[0].strip() for s in SESSIONS])
def test_same_echo_as_micropythons_own_repl(oracle, board, keys):
    expected = transcript(*oracle, keys)
    assert b"... " in expected or b"=== " in expected or keys[-1] != "\r"   # it did continue
    assert transcript(*board, keys) == expected
