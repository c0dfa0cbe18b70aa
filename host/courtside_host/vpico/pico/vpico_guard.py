"""The virtual Pico's guard: what no program on it may reach, and the checks for native code.

The unix port is a program of the laptop, and some of what it offers reaches the laptop
itself: ``os.system``, ``os.getenv``, ``VfsPosix`` (in ``os`` and ``vfs``), sockets,
``termios``, ``uctypes`` and ``machine.mem8/16/32`` (any address of the process), and
native code (``@micropython.native``, ``@micropython.viper``, native ``.mpy`` files),
which can do anything the process can. The board's own modules close all of them before
any program runs, whatever the kernel offers; this module holds what they decide by:

- ``REFUSED``: the modules that do not exist on the virtual Pico;
- ``SourceCheck``: whether source (given to ``compile``, ``exec``, ``eval``, or a ``.py``
  file as the loader reads it) holds a native-code decorator;
- ``MpyCheck``: whether a ``.mpy`` file holds native code, fed its bytes as the loader
  reads them, so the reading stops before the loader has it all (nothing of a module runs
  until it is read whole).

``vpico_gate`` puts them in place so that no program can reach them (its closures hold
them; nothing of this module is shown to a program), and this module is gone from
``sys.modules`` once the gate is installed.
"""

# Modules of the unix port that reach the host or its memory, and the modules built on them.
REFUSED = ("socket", "ssl", "tls", "websocket", "requests", "mip", "termios", "uctypes", "ffi")


# .mpy files (version 6), read as they stream past by a state machine that keeps only small
# numbers: a check that made objects for each byte (a generator per field, as a first
# version did) left its garbage between the loader's own objects, and a heap that had
# loaded the firmware through it was too broken up for a 2 KB string.
(_AT_MAGIC, _AT_VERSION, _AT_FLAGS, _AT_SMALLINT, _AT_NQSTR, _AT_NOBJ, _AT_QSTR, _AT_KIND,
 _AT_OBJLEN, _AT_TUPLE, _AT_CODE, _AT_CHILDREN, _AT_END) = range(13)
# the steps that read an unsigned number
_NUMBERS = (_AT_NQSTR, _AT_NOBJ, _AT_QSTR, _AT_OBJLEN, _AT_TUPLE, _AT_CODE, _AT_CHILDREN)
_UINT_MAX = 1 << 24     # far beyond a Pico's flash: a count this large is not bytecode


class MpyCheck:
    """Feed a .mpy's bytes in order (``arch``: the native architecture the interpreter
    loads, bits 10-13 of its ``sys.implementation._mpy``); ``native`` turns True as soon as
    a native part (or what is not bytecode of this version) has gone past, ``done`` at the
    module's end. The parts it reads: the header, the qstrs, the constants (None, False,
    True, Ellipsis without payload; str and bytes NUL-ended; int, float, complex as text;
    tuples of constants), then the raw code, whose kind bits say bytecode or native, with
    its children. Feeding allocates nothing but the list of nesting levels."""

    def __init__(self, arch):
        self.native = False
        self.done = False
        self._arch = arch
        self._step = _AT_MAGIC
        self._n = 0             # the unsigned number being read
        self._skip = 0          # payload bytes to pass over before the next step
        self._count = 0         # qstrs still to read
        self._extra = 0         # 1 for a constant whose payload ends in a NUL
        self._left = []         # per level: constants (of tuples) or children (of code) to read

    def feed(self, chunk, n=-1):
        """The next ``n`` bytes of ``chunk`` (all of it by default); True once native."""
        n = len(chunk) if n < 0 else n
        i = 0
        while not self.done:
            if self._skip:
                take = min(self._skip, n - i)
                if take <= 0:
                    break
                i += take
                self._skip -= take
            elif self._step == _AT_END:
                self._finish(False)
            elif i < n:
                self._byte(chunk[i])
                i += 1
            else:
                break
        return self.native

    def end(self):
        """At the end of the file: True if it was native or cut short."""
        return self.native or not self.done

    def _finish(self, native):
        self.native = native
        self.done = True

    def _byte(self, b):
        step = self._step
        if step in _NUMBERS:
            if self._n >= _UINT_MAX:
                self._finish(True)
                return
            self._n = (self._n << 7) | (b & 0x7F)
            if not b & 0x80:
                self._number(self._n)
                self._n = 0
        elif step <= _AT_VERSION:              # _AT_MAGIC, then _AT_VERSION
            if b != (0x4D if step == _AT_MAGIC else 6):
                self._finish(False)            # not a .mpy v6: the loader refuses it itself
            self._step = step + 1
        elif step == _AT_FLAGS:
            if b >> 2:
                self._finish(b >> 2 == self._arch)   # native code this interpreter would load
            self._step = _AT_SMALLINT
        elif step == _AT_SMALLINT:
            self._step = _AT_NQSTR
        elif b == 10:                          # _AT_KIND: a tuple, its length next
            self._step = _AT_TUPLE
        elif b > 9:
            self._finish(True)
        elif b > 4:
            self._extra = 1 if b < 7 else 0    # str and bytes end in a NUL
            self._step = _AT_OBJLEN
        else:
            self._constant()

    def _number(self, v):
        step = self._step
        if step == _AT_NQSTR:
            self._count = v
            self._step = _AT_NOBJ
        elif step == _AT_NOBJ:
            self._left.append(v)
            self._qstr()
        elif step == _AT_QSTR:
            if not v & 1:
                self._skip = (v >> 1) + 1
            self._qstr()
        elif step == _AT_OBJLEN:
            self._skip = v + self._extra
            self._constant()
        elif step == _AT_TUPLE:
            self._left.append(v)
            self._constant()
        elif step == _AT_CODE:
            if v & 3:
                self._finish(True)
            self._skip = v >> 3
            if v & 4:
                self._step = _AT_CHILDREN
            else:
                self._code()
        else:                                  # _AT_CHILDREN
            self._left.append(v)
            self._code()

    def _qstr(self):
        if self._count:
            self._count -= 1
            self._step = _AT_QSTR
        else:
            self._constant()

    def _constant(self):
        """The next constant, or the raw code once the last has been read."""
        if self._open():
            self._step = _AT_KIND
        else:
            self._left.append(1)
            self._code()

    def _code(self):
        self._step = _AT_CODE if self._open() else _AT_END

    def _open(self):
        """Whether an item is still to be read at the innermost level with one; counts it."""
        left = self._left
        while left and not left[-1]:
            left.pop()
        if left:
            left[-1] -= 1
            return True
        return False


_SPACE = b" \t\r\n\f\v\\"
_AFTER_DOT = (b"native", b"viper", b"asm_")
_CODE, _COMMENT, _QUOTES, _STRING, _ESCAPE, _DECORATOR = range(6)


# What may begin or end something, per state, as one-byte needles made once: a check that
# made them at each step left garbage between the compiler's objects.
_NEEDLES_CODE = (b"#", b"'", b'"', b"@")
_NEEDLES_COMMENT = (b"\n",)
_NEEDLES_SHORT = ((b'"', b"\\", b"\n"), (b"'", b"\\", b"\n"))     # by quote: 0 for ", 1 for '
_NEEDLES_LONG = ((b'"', b"\\"), (b"'", b"\\"))


def _first(data, start, end, needles):
    """The index of the first of ``needles`` in ``data[start:end]`` (or ``end``)."""
    best = end
    for needle in needles:
        at = data.find(needle, start, best)
        if at >= 0:
            best = at
    return best


class SourceCheck:
    """Feed Python source bytes in order; ``native`` turns True once a native-code
    decorator (``@micropython.native``, ``.viper``, ``.asm_...``, with spaces and line
    continuations allowed between its parts) has gone past in the code itself: the same
    words in a string or a comment are not code (``mpremote`` sends files as string
    literals)."""

    def __init__(self):
        self.native = False
        self._mode = _CODE
        self._quote = 0           # the quote byte of the string (or quotes) being read
        self._count = 0           # quotes in a row: at the start, or at the end of a long string
        self._long = False        # a triple-quoted string
        self._deco = (0, b"")     # the decorator's step and what of its word matched

    def feed(self, chunk, n=-1):
        """The next ``n`` bytes of ``chunk`` (all of it by default); True once native."""
        if isinstance(chunk, memoryview):
            chunk = bytes(chunk)            # (a memoryview has no find)
        n = len(chunk) if n < 0 else n
        i = 0
        while i < n and not self.native:
            # Jump over what cannot change the state (most of a file), a byte at a time only
            # where something may begin or end; nothing is copied or made on the way.
            mode = self._mode
            if mode == _CODE:
                j = _first(chunk, i, n, _NEEDLES_CODE)
            elif mode == _COMMENT:
                j = _first(chunk, i, n, _NEEDLES_COMMENT)
            elif mode == _STRING and self._count == 0:
                needles = _NEEDLES_LONG if self._long else _NEEDLES_SHORT
                j = _first(chunk, i, n, needles[self._quote == 0x27])
            else:
                j = i
            if j >= n:
                return self.native
            self._byte(chunk[j])
            i = j + 1
        return self.native

    def _byte(self, c):
        mode = self._mode
        if mode == _CODE:
            if c == 0x23:                                   # "#"
                self._mode = _COMMENT
            elif c in (0x22, 0x27):                         # a quote opens a string
                self._mode, self._quote, self._count = _QUOTES, c, 1
            elif c == 0x40:                                 # "@": perhaps a decorator
                self._mode, self._deco = _DECORATOR, (0, b"")
        elif mode == _COMMENT:
            if c == 0x0A:
                self._mode = _CODE
        elif mode == _QUOTES:                               # after 1 or 2 opening quotes
            if c == self._quote and self._count == 1:
                self._count = 2
            elif c == self._quote:
                self._mode, self._long, self._count = _STRING, True, 0
            elif self._count == 2:                          # '' or "": an empty string
                self._mode = _CODE
                self._byte(c)
            else:
                self._mode, self._long, self._count = _STRING, False, 0
                self._byte(c)
        elif mode == _STRING:
            if c == 0x5C:                                   # a backslash: the next byte is text
                self._mode, self._count = _ESCAPE, 0
            elif c == self._quote:
                self._count += 1
                if not self._long or self._count == 3:
                    self._mode = _CODE
            else:
                self._count = 0
                if c == 0x0A and not self._long:
                    self._mode = _CODE                      # an unclosed string ends at the line
        elif mode == _ESCAPE:
            self._mode = _STRING
        elif not self._step(c):                             # the decorator did not match
            self._mode = _CODE
            self._byte(c)

    def _step(self, c):
        step, got = self._deco
        space = c in _SPACE
        if step == 0:                            # spaces, then "micropython"
            if space and not got:
                return True
            got += bytes((c,))
            if not b"micropython".startswith(got):
                return False
            self._deco = (1, b"") if got == b"micropython" else (0, got)
            return True
        if step == 1:                            # spaces, then "."
            if space:
                return True
            if c != 0x2E:
                return False
            self._deco = (2, b"")
            return True
        if space and not got:                    # step 2: spaces, then the emitter's name
            return True
        got += bytes((c,))
        if not any(word.startswith(got) for word in _AFTER_DOT):
            return False
        if got in _AFTER_DOT:
            self.native = True
        self._deco = (2, got)
        return True

    def end(self):
        return self.native


def native_mpy(data, arch=2):
    """Whether a compiled module (``.mpy`` bytes) holds native code for ``arch`` (x64 by
    default) or cannot be read as bytecode to its end."""
    check = MpyCheck(arch)
    check.feed(data)
    return check.end() or (check.done and data[:2] == b"M\x06" and not data[2] >> 2
                           and _rest(data, arch) != 0)


def _rest(data, arch):
    """Bytes after the module's end (0 for a module as mpy-cross writes it)."""
    check = MpyCheck(arch)
    for i in range(len(data)):
        check.feed(data[i:i + 1])
        if check.done:
            return len(data) - i - 1
    return 0
