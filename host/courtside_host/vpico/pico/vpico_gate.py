"""The virtual Pico's gate: the guarded builtins and mounts, made so that no program can
reach or change the rules they keep.

``install()`` puts in place what ``vpico_guard`` decides:

- ``__import__``: by name, whatever ``sys.path`` and ``sys.modules`` hold, ``sys``, ``os``,
  ``vfs`` and ``machine`` (``u``-names too) are the board's, ``builtins`` is a view that
  cannot take the gate away, and the refused modules do not exist;
- ``compile``, ``exec`` and ``eval`` refuse source with a native-code decorator; without a
  globals argument they run in the board's ``__main__``;
- ``vfs.mount`` (and ``os.mount``) put a checking layer between any filesystem and the
  interpreter's module loader: every ``.py`` or ``.mpy`` file the loader opens is read
  through ``vpico_guard``'s checks, which stop it (``EACCES``) at native code. A program's
  own ``open`` is not the loader: it reads any file, native or not (reading runs nothing).

MicroPython functions show their module's globals (``__globals__``), never their closures,
and a class can be changed by anyone who holds one of its objects. So the rules live only
in the closures ``install()`` makes, every name they use is a local of ``install()`` (the
builtins they call included), the classes a program can reach are made afresh for each
file or mount and change nothing else, and this module's own globals are emptied once
the gate is installed: what ``__import__.__globals__`` shows is an empty dict that nothing
reads. ``tests/test_vpico_gate.py`` checks all of it, by CPython's symbol tables and from
inside the board.
"""


def install(board_modules, main, guard):  # noqa: C901, PLR0915 - one closure: its functions are its parts
    """Close every way to the host. ``board_modules``: name -> the board's module (``os``
    and ``vfs`` get the gate's ``mount`` and ``umount``); ``main``: the board's
    ``__main__`` namespace; ``guard``: the ``vpico_guard`` module, whose checks are kept."""
    import builtins  # noqa: I001 - the builtins the gate calls are imported last, apart
    import io
    import sys
    import vfs
    # The builtins the gate's functions call, as locals here: a name they looked up as a
    # global could be planted in the (emptied, but reachable) module globals.
    from builtins import (  # noqa: UP029
        AttributeError, ImportError, OSError, SyntaxError, bytearray, bytes, delattr, getattr,
        isinstance, len, memoryview, min, setattr, str, tuple)

    refused = tuple(guard.REFUSED)
    guarded = ("__import__", "compile", "exec", "eval", "open")
    mpy_check = guard.MpyCheck
    source_check = guard.SourceCheck
    arch = sys.implementation._mpy >> 10 & 0xF
    real_import = builtins.__import__
    real_compile = builtins.compile
    real_exec = builtins.exec
    real_eval = builtins.eval
    real_open = builtins.open
    real_mount = vfs.mount
    real_umount = vfs.umount
    iobase = io.IOBase
    eacces = 13
    mounted = []            # [proxy, the filesystem object given to mount], per mount

    # compile, exec, eval ------------------------------------------------------------------

    def refuse_native(source):
        if isinstance(source, (bytearray, memoryview)):
            source = bytes(source)       # checked and compiled alike, whatever a thread does
        text = source.encode() if isinstance(source, str) else source
        if isinstance(text, bytes) and source_check().feed(text):
            raise SyntaxError("native code is not run on the virtual Pico")
        return source

    def compile_(source, *args):
        return real_compile(refuse_native(source), *args)

    def exec_(source, *args):
        return real_exec(refuse_native(source), *(args or (main,)))

    def eval_(source, *args):
        return real_eval(refuse_native(source), *(args or (main,)))

    # import --------------------------------------------------------------------------------

    class Builtins:
        """``import builtins``: the real one, except that the gate stays."""

        def __getattr__(self, name):
            return getattr(builtins, name)

        def __setattr__(self, name, value):
            if name in guarded:
                raise AttributeError("builtins.%s is fixed on the virtual Pico" % name)
            setattr(builtins, name, value)

        def __delattr__(self, name):
            if name in guarded:
                raise AttributeError("builtins.%s is fixed on the virtual Pico" % name)
            delattr(builtins, name)

        def __repr__(self):
            return "<module 'builtins'>"

    modules = {}
    for name in board_modules:
        modules[name] = board_modules[name]
    modules["builtins"] = Builtins()

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if not level:
            top = name.split(".")[0]
            if top[:1] == "u" and (top[1:] in modules or top[1:] in refused):
                top = top[1:]
            if top in refused:
                raise ImportError("no module named '%s'" % name)
            if top in modules:
                return modules[top]
        return real_import(name, globals, locals, fromlist, level)

    # files and mounts ----------------------------------------------------------------------

    def open_(path, mode="r", *args, **kwargs):
        # A program's open, marked for the mount layer: it reads a native module's bytes
        # as it reads any file's. The loader opens with no mark, and so through the check.
        return real_open(path, mode + "~" if isinstance(mode, str) else mode, *args, **kwargs)

    def checked(file, check):
        """The loader's view of a module ``file``: every byte read into a buffer of its own,
        checked, then handed on; EACCES at native code. Its class is this file's alone."""
        spare = [None]

        def readinto(self, buf, n=-1):
            want = len(buf) if n is None or n < 0 else min(n, len(buf))
            mine = spare[0]
            if mine is None or len(mine) < want:
                mine = spare[0] = bytearray(want)
            view = memoryview(mine)[:want]
            got = file.readinto(view) or 0
            got = 0 if got < 0 else min(got, want)
            if check.feed(mine, got):
                file.close()
                raise OSError(eacces)
            memoryview(buf)[:got] = view[:got]
            return got

        def read(self, n=-1):
            if n is None or n < 0:
                parts = []
                part = read(self, 4096)
                while part:
                    parts.append(part)
                    part = read(self, 4096)
                return b"".join(parts)
            buf = bytearray(n)
            return bytes(memoryview(buf)[:readinto(self, buf)])

        def close(self):
            file.close()

        def ioctl(self, request, arg):
            if request == 4:           # MP_STREAM_CLOSE
                file.close()
                return 0
            return -1

        class Checked(iobase):
            pass

        Checked.readinto = readinto
        Checked.read = read
        Checked.close = close
        Checked.ioctl = ioctl
        return Checked()

    def proxy_of(inner):
        """What is mounted for the filesystem ``inner``: the same, with module files read
        through the check. Never shown to a program (``mount()`` lists ``inner``)."""

        def open(self, path, mode):
            if isinstance(mode, str) and mode[-1:] == "~":
                return inner.open(path, mode[:-1])
            reading = isinstance(mode, str) and mode.replace("t", "") in ("r", "rb", "br")
            if reading and isinstance(path, str) and (path[-4:] == ".mpy" or path[-3:] == ".py"):
                file = inner.open(path, "rb")
                return checked(file, mpy_check(arch) if path[-4:] == ".mpy" else source_check())
            return inner.open(path, mode)

        def forward(name):
            return lambda self, *args: getattr(inner, name)(*args)

        class Mounted:
            pass

        Mounted.open = open
        for name in ("mount", "umount", "ilistdir", "stat", "statvfs", "chdir", "getcwd", "mkdir",
                     "rmdir", "remove", "rename"):
            setattr(Mounted, name, forward(name))
        return Mounted()

    def mount(*args, **kwargs):
        if not args and not kwargs:
            shown = []
            for proxy, where in real_mount():
                for pair in mounted:
                    if pair[0] is proxy:
                        proxy = pair[1]
                shown.append((proxy, where))
            return shown
        inner, rest = args[0], args[1:]
        proxy = None
        for pair in mounted:
            if pair[1] is inner:
                proxy = pair[0]
        if proxy is None:
            proxy = proxy_of(inner)
        real_mount(proxy, *rest, **kwargs)
        if proxy not in [pair[0] for pair in mounted]:
            mounted.append([proxy, inner])

    def umount(what):
        for pair in mounted:
            if pair[1] is what:
                what = pair[0]
        real_umount(what)
        live = [m[0] for m in real_mount()]
        mounted[:] = [pair for pair in mounted if pair[0] in live]

    for name in ("os", "vfs"):
        if name in board_modules:
            board_modules[name].mount = mount
            board_modules[name].umount = umount
    builtins.__import__ = import_
    builtins.compile = compile_
    builtins.exec = exec_
    builtins.eval = eval_
    builtins.open = open_
    globals().clear()        # every function made here shows them: nothing is left to change
