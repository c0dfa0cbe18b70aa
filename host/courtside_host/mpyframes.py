"""How big each compiled function's call frame is, read from the ``.mpy`` files deploy builds.

MicroPython runs a bytecode function in a *state*: ``n_state`` words of locals and value
stack, plus three words (``mp_exc_stack_t``: handler, value-stack pointer, saved
exception) for each ``try``/``with`` that can be open at once (``n_exc_stack``). A call
whose state is more than ``STACK_WORDS`` (11) machine words takes it from the heap and
frees it on return (``VM_MAX_STATE_ON_STACK`` in py/objfun.c); a smaller one uses the C
stack. Under ``micropython.heap_lock()`` the heap refuses and the frame quietly goes on
the C stack, so a locked test never sees these allocations: this module reads the
figure from the code itself.

Both numbers are in each bytecode function's prelude (py/bc.h), and the prelude is the
start of the function's code in the ``.mpy`` file (format documented in MicroPython's
"MicroPython .mpy files"). Functions compiled to machine code (``@micropython.native``,
``@micropython.viper``) have no bytecode state: they are listed with their kind and no
frame.

    for f in module_functions(mpy_bytes, "courtside.core"):
        f.name, f.kind, f.n_state, f.n_exc_stack, f.words   # "courtside.core:Core.step", ...
    firmware_functions()        # every function of the firmware as deploy compiles it

``python -m courtside_host.mpyframes [--over]`` prints the table (``--over``: only the
frames that go on the heap).
"""

import sys
from collections import namedtuple

STACK_WORDS = 11        # VM_MAX_STATE_ON_STACK, in machine words
EXC_WORDS = 3           # words of one exception-stack entry (mp_exc_stack_t)
MARCH = "armv6m"        # the Pico's -march, for the modules with native code

KINDS = ("bytecode", "native", "viper", "asm")   # raw-code kinds, in .mpy order
_VIPERRELOC, _VIPERRODATA, _VIPERBSS = 0x10, 0x20, 0x40   # MP_SCOPE_FLAG_*
# constant objects (MP_PERSISTENT_OBJ_*): 0-4 the native function table, None, False,
# True, Ellipsis (a type byte alone); 5-6 str, bytes (length, bytes, a 0); 7-9 int, float,
# complex (length, text); 10 tuple (length, then its items)
_OBJ_TEXT = (5, 6)
_OBJ_TUPLE = 10

Function = namedtuple("Function", "name kind n_state n_exc_stack words")
Function.__doc__ = """One compiled function: ``name`` is "module:Class.method"; for machine
code ``n_state``, ``n_exc_stack`` and ``words`` are None."""


class MpyError(ValueError):
    pass


class _Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def byte(self):
        if self.at >= len(self.data):
            raise MpyError("the .mpy file ends early (at byte %d)" % self.at)
        self.at += 1
        return self.data[self.at - 1]

    def uint(self):
        """A variable-length unsigned int: 7 bits a byte, most significant first."""
        value = 0
        while True:
            b = self.byte()
            value = (value << 7) | (b & 0x7F)
            if not b & 0x80:
                return value

    def take(self, n):
        if self.at + n > len(self.data):
            raise MpyError("the .mpy file ends early (wanted %d bytes at %d)" % (n, self.at))
        self.at += n
        return self.data[self.at - n:self.at]


def prelude(code):
    """(n_state, n_exc_stack, n_pos_args, n_kwonly_args, after) from the start of a
    bytecode function's code: the signature's bits are interleaved as xSSSSEAA then
    xFSSKAED for each further byte (py/bc.h), S being n_state - 1."""
    z = code[0]
    s, e, a, k = (z >> 3) & 0xF, (z >> 2) & 1, z & 3, 0
    at, n = 1, 0
    while z & 0x80:
        z = code[at]
        at += 1
        s |= (z & 0x30) << (2 * n)
        e |= (z & 0x02) << n
        a |= (z & 0x04) << n
        k |= ((z & 0x08) >> 3) << n
        n += 1
    return s + 1, e, a, k, at


def _simple_name(code, at):
    """The qstr-table index of the function's name: the first var-uint of the source
    info section, after the prelude-size var-uint (xIIIIIIC...)."""
    while code[at] & 0x80:
        at += 1
    at += 1
    value = 0
    while True:
        b = code[at]
        at += 1
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            return value


def _skip_obj(r):
    kind = r.byte()
    if kind <= 4:
        return
    n = r.uint()
    if kind == _OBJ_TUPLE:
        for _ in range(n):
            _skip_obj(r)
    elif kind in _OBJ_TEXT:
        r.take(n + 1)
    else:                       # int, float, complex: their text
        r.take(n)


def _qstrs(r, n_qstr, statics):
    names = []
    for _ in range(n_qstr):
        n = r.uint()
        if n & 1:
            names.append(statics(n >> 1))
        else:
            names.append(r.take(n >> 1).decode("utf-8", "replace"))
            r.take(1)
    return names


def _raw_code(r, qstrs, prefix, out, names, top=False):
    head = r.uint()
    kind = KINDS[head & 3]
    has_children = head & 4
    code = r.take(head >> 3)
    flags = 0
    if kind == "bytecode":
        n_state, n_exc, _a, _k, at = prelude(code)
        name = "<module>" if top else qstrs[_simple_name(code, at)]
        words = n_state + EXC_WORDS * n_exc
        row = (name, kind, n_state, n_exc, words)
    else:
        if kind == "native":
            r.uint()                        # where the prelude is in the machine code
        else:
            flags = r.uint()
            if kind == "asm":
                r.uint()
                r.uint()
        name = names.pop(0) if names else "?"
        row = (name, kind, None, None, None)
    if kind == "viper":
        rodata = r.uint() if flags & _VIPERRODATA else 0
        if flags & _VIPERBSS:
            r.uint()
        r.take(rodata)
    qualified = prefix if top else prefix + [row[0]]
    out.append(Function(".".join(qualified) or row[0], *row[1:]))
    if has_children:
        for _ in range(r.uint()):
            _raw_code(r, qstrs, qualified, out, names)
    if kind == "viper" and flags & _VIPERRELOC:
        _skip_relocations(r)


def _skip_relocations(r):
    """Viper relocations follow the function's children, ended by 0xff (py/persistentcode.c
    mp_native_relocate)."""
    while True:
        op = r.byte()
        if op == 0xFF:
            return
        if op & 1:
            r.uint()
        op >>= 1
        if op <= 5 and op & 1:
            r.uint()


def module_functions(data, module, statics=None, native_names=()):
    """Every function in one ``.mpy`` file, the module's own code first, named
    "module:Qualified.name". ``statics(i)`` names the i-th static qstr (a name the
    runtime already has, so the file holds only its number); by default such names are
    shown as "#i". ``native_names``: the names of the machine-code functions in file
    order (machine code does not carry its name where this reader can see it)."""
    statics = statics or (lambda i: "#%d" % i)
    if len(data) < 4 or data[0:1] != b"M":
        raise MpyError("%s: not a .mpy file" % module)
    if data[1] != 6:
        raise MpyError("%s: .mpy version %d, this reader knows version 6" % (module, data[1]))
    r = _Reader(data)
    r.take(4)
    n_qstr = r.uint()
    n_obj = r.uint()
    qstrs = _qstrs(r, n_qstr, statics)
    for _ in range(n_obj):
        _skip_obj(r)
    out = []
    _raw_code(r, qstrs, [], out, list(native_names), top=True)
    if r.at != len(data):
        raise MpyError("%s: %d bytes left after the last function" % (module, len(data) - r.at))
    return [f._replace(name="%s:%s" % (module, f.name)) for f in out]


# --- names the runtime already has ----------------------------------------------------

STATIC_PROBE = 256      # static qstrs asked for (MicroPython has about 160)


def static_names(micropython, compiler=None):
    """The names of the static qstrs, as ``micropython`` (a unix-port binary of the
    same .mpy version) resolves them: a probe module defines functions f1, f2, ...;
    each one's qstr in the compiled file is rewritten to "static qstr number i", and
    the runtime that loads it reports the function's ``__name__``. Returns a list
    indexed by number ("" where a number names nothing)."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    from courtside_host.link.deploy import Compiler
    compiler = compiler or Compiler()
    numbers = range(1, STATIC_PROBE)
    source = "".join("def f%d(): pass\n" % i for i in numbers)
    source += "ALL = (%s,)\n" % ", ".join("f%d" % i for i in numbers)
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "qprobe.py"
        probe.write_text(source)
        data = bytearray(compiler.compile(probe, "qprobe.py"))
        probe.unlink()
        for i in numbers:
            entry = _vuint(len("f%d" % i) << 1) + b"f%d\0" % i
            at = data.find(entry)
            if at < 0 or data.find(entry, at + 1) >= 0:
                raise MpyError("the probe's qstr f%d is not where it should be" % i)
            data[at:at + len(entry)] = _vuint(i << 1 | 1)
        (Path(tmp) / "qprobe.mpy").write_bytes(bytes(data))
        code = ("import sys, json\nsys.path.insert(0, %r)\nimport qprobe\n"
                "print(json.dumps([f.__name__ for f in qprobe.ALL]))\n" % tmp)
        run = subprocess.run([str(micropython), "-c", code], capture_output=True, text=True,
                             timeout=60, check=False)
    if run.returncode:
        raise MpyError("%s could not load the qstr probe:\n%s" % (micropython, run.stderr.strip()))
    return [""] + json.loads(run.stdout)


def _vuint(n):
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


# --- the firmware as deploy builds it -------------------------------------------------

def machine_code_names(source):
    """The functions of a module's source that compile to machine code, in the order
    the compiler writes them (definitions in source order, depth first)."""
    import ast
    found = []

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(isinstance(d, ast.Attribute) and d.attr in ("native", "viper", "asm_thumb")
                       for d in child.decorator_list):
                    found.append(child.name)
            walk(child)
    walk(ast.parse(source))
    return found


def firmware_functions(firmware=None, micropython=None, march=MARCH):
    """Every function of the firmware package, compiled as ``courtside deploy`` compiles
    it for a Pico (mpy-cross without options, ``-march`` for the modules with native
    code). ``micropython``: a unix-port binary to name the static qstrs (see
    ``static_names``); without it those names read "#n"."""
    from pathlib import Path

    from courtside_host.link import deploy
    firmware = Path(firmware or deploy.FIRMWARE)
    compiler = deploy.Compiler()
    statics = static_names(micropython, compiler).__getitem__ if micropython else None
    files = deploy.build(firmware, compiler=compiler, march=march).files
    out = []
    for path in sorted(files):
        if not path.endswith(".mpy"):
            continue
        source = (firmware / (path[:-4] + ".py")).read_text()
        module = path[:-4].replace("/", ".").removesuffix(".__init__")
        out.extend(module_functions(files[path], module, statics, machine_code_names(source)))
    return out


def main(argv=None):
    import argparse
    import shutil
    parser = argparse.ArgumentParser(prog="python -m courtside_host.mpyframes",
                                     description="Frame words of every compiled firmware function.")
    parser.add_argument("--over", action="store_true",
                        help="only the frames over %d words (they go on the heap)" % STACK_WORDS)
    parser.add_argument("--micropython", default=shutil.which("micropython"),
                        help="a unix-port micropython, to name the static qstrs")
    args = parser.parse_args(argv)
    for f in firmware_functions(micropython=args.micropython):
        if f.words is None:
            if not args.over:
                print("%-60s %s code, no bytecode frame" % (f.name, f.kind))
        elif f.words > STACK_WORDS or not args.over:
            print("%-60s %3d words (n_state %d, exception slots %d)%s"
                  % (f.name, f.words, f.n_state, f.n_exc_stack,
                     "  heap" if f.words > STACK_WORDS else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
