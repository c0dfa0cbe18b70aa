"""The virtual Pico's flash folder is all of its world: no path leads out of it.

A folder ``outside`` sits beside the flash folder with a secret in it. Every test tries to
reach it (read, write, list, rename, remove, make) the way a hostile program, a REPL user
or ``mpremote`` would: ``..`` above the root, the host's absolute paths, symbolic links,
``os.chdir``, and the unix port's own host modules dug out of the interpreter. On a board
``/..`` is ``/``, so what lands anywhere lands inside the flash.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from courtside_host.vpico.runner import VirtualPico
from mpremote.transport import TransportExecError

pytestmark = pytest.mark.vpico

MPREMOTE = str(Path(sys.executable).parent / "mpremote")
SECRET = "the laptop's own file\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    top = tmp_path_factory.mktemp("fence")
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    flash = top / "flash"
    flash.mkdir()
    (flash / "mine.txt").write_text("on the board\n")
    (flash / "to_outside").symlink_to(outside, target_is_directory=True)
    (flash / "secret_link.txt").symlink_to(outside / "secret.txt")
    with VirtualPico(flash) as pico:
        yield pico, top, outside


@pytest.fixture
def link(world):
    from mpremote.transport_serial import SerialTransport
    pico = world[0]
    t = SerialTransport(pico.port, baudrate=115200)
    t.enter_raw_repl(soft_reset=False)
    t.exec("import os, sys, vfs")
    yield t
    t.close()


def untouched(top, outside):
    """Nothing outside the flash folder changed."""
    assert sorted(p.name for p in top.iterdir()) == ["flash", "outside"]
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == SECRET


def refused(link, code):
    with pytest.raises(TransportExecError) as e:
        link.exec(code)
    return e.value.error_output


def hostile_reads(outside):
    return ["/../outside/secret.txt", "../outside/secret.txt", "/../../" + str(outside) + "/secret.txt",
            str(outside / "secret.txt"), "/to_outside/secret.txt", "to_outside/secret.txt",
            "/secret_link.txt", "/./../outside/./secret.txt", "//..//outside//secret.txt"]


def test_reading_a_host_file_is_refused_by_every_path(world, link):
    pico, top, outside = world
    for path in hostile_reads(outside):
        assert "ENOENT" in refused(link, "open(%r).read()" % path), path
        assert "ENOENT" in refused(link, "os.stat(%r)" % path), path
    untouched(top, outside)


def test_a_thousand_random_paths_never_reach_outside(tmp_path):
    import random

    from mpremote.transport_serial import SerialTransport
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "to_outside").symlink_to(outside, target_is_directory=True)
    parts = ["..", ".", "", "outside", "secret.txt", "to_outside", "flash", "new"] + \
        str(outside).strip("/").split("/")
    rng = random.Random(11)
    paths = [("/" if rng.random() < 0.5 else "")
             + "/".join(rng.choice(parts) for _ in range(rng.randint(1, 9))) for _ in range(1000)]
    with VirtualPico(flash) as pico:
        link = SerialTransport(pico.port, baudrate=115200)
        try:
            link.enter_raw_repl(soft_reset=False)
            link.exec("import os\n"
                      "def _reads(p):\n"
                      "    hits = 0\n"
                      "    for act in (lambda: open(p).read() == %r, lambda: 'secret.txt' in os.listdir(p),\n"
                      "                lambda: os.stat(p)[6] == %d):\n"
                      "        try:\n"
                      "            hits += act()\n"
                      "        except OSError:\n"
                      "            pass\n"
                      "    return hits\n"
                      "def _writes(p):\n"
                      "    try:\n"
                      "        open(p, 'a').close()\n"
                      "    except OSError:\n"
                      "        pass\n" % (SECRET, len(SECRET)))
            found = []
            for i in range(0, len(paths), 100):       # in batches, for the board's small heap
                found += link.eval("[p for p in %r if _reads(p)]" % paths[i:i + 100])
            assert found == []
            for i in range(0, len(paths), 100):
                link.exec("for p in %r:\n    _writes(p)" % paths[i:i + 100])
        finally:
            link.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flash", "outside"]
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == SECRET
    assert len(list(flash.iterdir())) > 1                  # what the writes made, they made inside


def test_dot_dot_stops_at_the_root_as_on_a_board(world, link):
    assert link.eval("os.listdir('/..')") == link.eval("os.listdir('/')")
    assert link.eval("sorted(os.listdir('/../..'))") == ["mine.txt"]
    link.exec("os.chdir('/../../..')")
    assert link.eval("os.getcwd()") == "/"
    link.exec("os.chdir('..')")
    assert link.eval("os.getcwd()") == "/"
    assert link.eval("open('../mine.txt').read()") == "on the board\n"


def test_links_are_neither_listed_nor_followed(world, link):
    pico, top, outside = world
    assert link.eval("sorted(os.listdir(''))") == ["mine.txt"]
    assert "ENOENT" in refused(link, "os.listdir('/to_outside')")
    assert "ENOENT" in refused(link, "os.chdir('to_outside')")
    assert "ENOENT" in refused(link, "open('/to_outside/new.txt', 'w')")
    untouched(top, outside)


def test_writes_renames_and_removals_stay_inside(world, link):
    pico, top, outside = world
    flash = pico.flash
    link.exec("f = open('/../escaped.txt', 'w'); f.write('x'); f.close()")
    assert (flash / "escaped.txt").read_text() == "x"
    link.exec("os.mkdir('/../../made')")
    assert (flash / "made").is_dir()
    link.exec("os.rename('/escaped.txt', '/../../../moved.txt')")
    assert (flash / "moved.txt").exists()
    for code in ("os.remove('/../outside/secret.txt')", "os.remove(%r)" % str(outside / "secret.txt"),
                 "os.rename('/to_outside/secret.txt', '/stolen.txt')", "os.rmdir('/to_outside')",
                 "os.mkdir('/to_outside/new')", "os.rename('/moved.txt', '/to_outside/planted.txt')"):
        assert "ENOENT" in refused(link, code), code
    for code in ("os.rmdir('/..')", "os.rename('/', '/x')", "os.remove('/')"):
        assert "EPERM" in refused(link, code), code
    link.exec("os.remove('/moved.txt'); os.rmdir('/made')")
    untouched(top, outside)


def test_a_program_is_not_given_the_hosts_modules(link):
    assert link.eval("hasattr(os, 'system') or hasattr(os, 'getenv') or hasattr(os, 'VfsPosix')") is False
    assert link.eval("hasattr(vfs, 'VfsPosix')") is False
    assert link.eval("sys.argv") == []
    assert link.eval("repr(vfs.mount())") == "[(<VfsLfs2>, '/')]"


def test_remounting_the_root_reaches_nothing_new(world, link):
    pico, top, outside = world
    link.exec("r = vfs.mount()[0][0]\nvfs.umount('/')\nvfs.mount(r, '/')")
    assert "ENOENT" in refused(link, "open('/../outside/secret.txt')")
    untouched(top, outside)


def test_the_host_modules_cannot_be_dug_out(world, link):
    """The ways that once reached the unix port's own VfsPosix and os (the flash object's
    insides, import with sys.path emptied) reach the board's modules now, with or without
    the kernel's fence (tests/test_vpico_guard.py has them all with Landlock off, and the
    kernel's wall on its own)."""
    pico, top, outside = world
    assert "AttributeError" in refused(link, "type(vfs.mount()[0][0]._host)('/')")
    link.exec("sys.path.clear()\nimport vfs as real_vfs, os as real_os\nsys.path[:] = ['', '/lib']")
    assert link.eval("hasattr(real_vfs, 'VfsPosix') or hasattr(real_os, 'system')") is False
    untouched(top, outside)


def test_the_friendly_repl_is_fenced_in_too(world):
    import serial
    pico, top, outside = world
    port = serial.Serial(pico.port, timeout=0.2)
    try:
        port.write(b"\x02")
        seen = read_until(port, b">>> ")
        port.write(b"open('/../outside/secret.txt').read()\r")
        seen = read_until(port, b">>> ")
        assert b"OSError: [Errno 2] ENOENT" in seen and SECRET.encode() not in seen
    finally:
        port.close()


def read_until(port, ending, timeout=5):
    import time
    seen = b""
    end = time.monotonic() + timeout
    while not seen.endswith(ending) and time.monotonic() < end:
        seen += port.read(200)
    return seen


def test_mpremote_paths_stay_inside(world, tmp_path):
    pico, top, outside = world
    src = tmp_path / "x.py"
    src.write_text("print('x')\n")

    def mpremote(*args):
        return subprocess.run([MPREMOTE, "connect", pico.port, *args], capture_output=True, text=True,
                              timeout=30, check=False)
    assert mpremote("cp", str(src), ":../y.py").returncode == 0
    assert (pico.flash / "y.py").read_text() == "print('x')\n"
    assert mpremote("mkdir", ":../../evil").returncode == 0
    assert (pico.flash / "evil").is_dir()
    out = mpremote("cat", ":../outside/secret.txt")
    assert out.returncode != 0 and SECRET not in out.stdout
    assert mpremote("rm", ":../outside/secret.txt").returncode != 0
    assert mpremote("cp", ":/to_outside/secret.txt", str(tmp_path / "got.txt")).returncode != 0
    assert mpremote("rm", ":../y.py").returncode == 0
    assert not (pico.flash / "y.py").exists()
    assert mpremote("rmdir", ":../evil").returncode == 0
    assert not (pico.flash / "evil").exists()
    untouched(top, outside)
