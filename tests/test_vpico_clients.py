"""Real clients, as installed from PyPI, accept the virtual Pico as a board.

mpremote (every command it has), rshell and adafruit-ampy each run as a person runs them,
as their own processes, against one virtual Pico; the flash folder is checked on the
host side. mpremote's ``repl`` needs a terminal, so it runs on a pseudo-terminal of its
own and gets keystrokes as a person types them.
"""

import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from courtside_host.vpico.runner import VirtualPico

pytestmark = pytest.mark.vpico

BIN = Path(sys.executable).parent


def client(*args, timeout=60):
    out = subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, text=True,
                         timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 0, (args, out.stdout, out.stderr)
    return out.stdout


def mpremote(bare_pico, *args):
    return client("mpremote", "connect", bare_pico.port, *args)


# mpremote ---------------------------------------------------------------------------------

def test_mpremote_files(bare_pico, tmp_path):
    flash = bare_pico.flash
    data = bytes(range(256)) * 7 + b"end"
    (tmp_path / "blob.bin").write_bytes(data)
    mpremote(bare_pico, "mkdir", ":box")
    mpremote(bare_pico, "cp", str(tmp_path / "blob.bin"), ":box/blob.bin")
    assert (flash / "box" / "blob.bin").read_bytes() == data
    mpremote(bare_pico, "touch", ":box/empty.txt")
    assert (flash / "box" / "empty.txt").read_bytes() == b""
    listing = mpremote(bare_pico, "ls", ":box")
    assert re.search(r"^\s+%d blob\.bin$" % len(data), listing, re.M), listing
    assert re.search(r"^\s+0 empty\.txt$", listing, re.M), listing
    assert mpremote(bare_pico, "sha256sum", ":box/blob.bin").split()[-1] == hashlib.sha256(data).hexdigest()
    (flash / "note.txt").write_text("a note\n")
    assert mpremote(bare_pico, "cat", ":note.txt") == "a note\n"
    mpremote(bare_pico, "cp", ":box/blob.bin", str(tmp_path / "back.bin"))
    assert (tmp_path / "back.bin").read_bytes() == data
    mpremote(bare_pico, "rm", ":box/empty.txt")
    assert not (flash / "box" / "empty.txt").exists()
    mpremote(bare_pico, "mkdir", ":gone")
    mpremote(bare_pico, "rmdir", ":gone")
    assert not (flash / "gone").exists()


def test_mpremote_recursive_copy_tree_and_remove(bare_pico, tmp_path):
    tree = tmp_path / "pkg"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("A = 1\n")
    (tree / "sub" / "b.py").write_text("B = 22\n")
    mpremote(bare_pico, "cp", "-r", str(tree), ":")
    assert (bare_pico.flash / "pkg" / "sub" / "b.py").read_text() == "B = 22\n"
    shown = mpremote(bare_pico, "fs", "tree", "-s", ":pkg")
    assert re.search(r"\[\s+6\]  a\.py", shown) and re.search(r"\[\s+7\]  b\.py", shown), shown
    assert "sub" in shown
    back = tmp_path / "back"
    back.mkdir()
    mpremote(bare_pico, "cp", "-r", ":pkg", str(back))
    assert (back / "pkg" / "sub" / "b.py").read_text() == "B = 22\n"
    mpremote(bare_pico, "rm", "-r", ":pkg")
    assert not (bare_pico.flash / "pkg").exists()


def test_mpremote_df_shows_a_picos_flash(bare_pico):
    (bare_pico.flash / "fill.bin").write_bytes(b"x" * 10000)          # three 4 KiB blocks
    try:
        lines = mpremote(bare_pico, "df").splitlines()
    finally:
        (bare_pico.flash / "fill.bin").unlink()
    assert lines[0].split() == ["filesystem", "size", "used", "avail", "use%", "mounted", "on"]
    name, size, used, avail, percent, mounted = lines[1].split()
    assert (name, int(size), mounted) == ("<VfsLfs2>", 1441792, "/")
    assert int(used) + int(avail) == 1441792 and int(used) >= (2 + 3) * 4096
    assert int(percent) == 100 * int(used) // 1441792


def test_mpremote_exec_eval_run(bare_pico, tmp_path):
    assert mpremote(bare_pico, "exec", "print('two', 1 + 1)") == "two 2\n"
    assert mpremote(bare_pico, "eval", "6 * 7") == "42\n"
    script = tmp_path / "script.py"
    script.write_text("import sys\nfor i in range(2):\n    print('run', i)\nprint('err', file=sys.stderr)\n")
    assert mpremote(bare_pico, "run", str(script)) == "run 0\nrun 1\nerr\n"


def test_mpremote_soft_reset_and_reset(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("f = open('boots.txt', 'a'); f.write('b'); f.close()\n")
    with VirtualPico(flash) as bare_pico:
        time.sleep(0.3)
        mpremote(bare_pico, "exec", "kept = 1", "soft-reset", "eval", "'kept' in globals()")
        assert (flash / "boots.txt").read_text() == "b"        # raw soft reset: main.py not run
        boots = bare_pico.boots
        mpremote(bare_pico, "reset")
        end = time.monotonic() + 10
        while (flash / "boots.txt").read_text() != "bb" and time.monotonic() < end:
            time.sleep(0.05)
        assert (flash / "boots.txt").read_text() == "bb"       # a reset powers up: main.py runs
        assert bare_pico.boots == boots + 2          # mpremote's soft reset on connecting, the reset
        assert mpremote(bare_pico, "eval", "1 + 1") == "2\n"


def test_mpremote_rtc(bare_pico):
    mpremote(bare_pico, "rtc", "--set")
    shown = mpremote(bare_pico, "rtc")
    year, month, day = time.localtime()[:3]
    assert shown.startswith("(%d, %d, %d," % (year, month, day)), shown


def test_mpremote_mount(bare_pico, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "lib.py").write_text("VALUE = 'from the laptop'\n")
    out = mpremote(bare_pico, "mount", str(shared), "exec", "import lib; print(lib.VALUE)")
    assert "from the laptop" in out


def test_mpremote_repl_continuation_lines_and_paste_mode(bare_pico):
    master, slave = os.openpty()
    proc = subprocess.Popen([str(BIN / "mpremote"), "connect", bare_pico.port, "repl"], stdin=slave,
                            stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""

    def wait_for(text, timeout=10):
        nonlocal seen
        end = time.monotonic() + timeout
        while text not in seen and time.monotonic() < end:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
        assert text in seen, seen
    try:
        wait_for(b"Use Ctrl-] or Ctrl-x to exit this shell")
        os.write(master, b"\x02")
        wait_for(b">>> ")
        for key in (b"total = 0\r", b"for i in range(4):\r", b"total += i\r", b"\r", b"\r", b"\r",
                    b"print('total', total)\r"):
            os.write(master, key)
            time.sleep(0.1)
        wait_for(b"total 6")
        assert b"...     total += i" in seen
        os.write(master, b"\x05")
        wait_for(b"paste mode; Ctrl-C to cancel, Ctrl-D to finish")
        os.write(master, b"def f(n):\r    if n:\r        return n * f(n - 1)\r    return 1\r"
                         b"print('f5', f(5))\r\x04")
        wait_for(b"f5 120")
        os.write(master, b"\x1d")                    # Ctrl-]: leave the REPL
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


# rshell -----------------------------------------------------------------------------------

def rshell(bare_pico, *args):
    return client("rshell", "--quiet", "--timing", "-p", bare_pico.port, *args)


def test_rshell_connects_lists_copies_and_removes(bare_pico, tmp_path):
    (bare_pico.flash / "from_board.txt").write_text("made on the board\n")
    listing = rshell(bare_pico, "ls", "-l", "/pyboard")
    assert re.search(r"^\s*18 .* from_board\.txt$", listing, re.M), listing
    assert rshell(bare_pico, "cat", "/pyboard/from_board.txt").startswith("made on the board\n")
    local = tmp_path / "to_board.py"
    local.write_bytes(b"print('sent by rshell')\n" + bytes(range(256)))
    rshell(bare_pico, "cp", str(local), "/pyboard/to_board.py")
    assert (bare_pico.flash / "to_board.py").read_bytes() == local.read_bytes()
    rshell(bare_pico, "cp", "/pyboard/from_board.txt", str(tmp_path / "got.txt"))
    assert (tmp_path / "got.txt").read_text() == "made on the board\n"
    rshell(bare_pico, "rm", "/pyboard/to_board.py", "/pyboard/from_board.txt")
    flash = bare_pico.flash
    assert not (flash / "to_board.py").exists() and not (flash / "from_board.txt").exists()


def test_rshell_repl_runs_a_line(bare_pico):
    out = rshell(bare_pico, "repl", "~", "print(6 * 7)", "~")
    assert "\n42\n" in out.replace("\r\n", "\n")


# adafruit-ampy ----------------------------------------------------------------------------

def ampy(bare_pico, *args):
    return client("ampy", "-p", bare_pico.port, *args)


def test_ampy_lists_puts_gets_removes_makes_and_runs(bare_pico, tmp_path):
    local = tmp_path / "sent.py"
    local.write_text("print('sent by ampy')\n")
    ampy(bare_pico, "mkdir", "/tools")
    assert (bare_pico.flash / "tools").is_dir()
    ampy(bare_pico, "put", str(local), "/tools/sent.py")
    assert (bare_pico.flash / "tools" / "sent.py").read_text() == local.read_text()
    assert ampy(bare_pico, "ls", "/tools").split() == ["/tools/sent.py"]
    assert ampy(bare_pico, "get", "/tools/sent.py") == local.read_text() + "\n"   # ampy adds a newline
    ampy(bare_pico, "get", "/tools/sent.py", str(tmp_path / "got.py"))
    assert (tmp_path / "got.py").read_bytes() == local.read_bytes()
    ampy(bare_pico, "rm", "/tools/sent.py")
    assert not (bare_pico.flash / "tools" / "sent.py").exists()
    ampy(bare_pico, "rmdir", "/tools")
    assert not (bare_pico.flash / "tools").exists()
    script = tmp_path / "job.py"
    script.write_text("for i in range(3):\n    print('job', i)\n")
    assert ampy(bare_pico, "run", str(script)).replace("\r\n", "\n") == "job 0\njob 1\njob 2\n"
