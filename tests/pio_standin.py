"""A PC stand-in for ``rp2.asm_pio``: runs a firmware PIO function and records its opcodes.

The firmware writes its PIO programs in MicroPython's ``asm_pio`` language (plain Python
calls such as ``mov(osr, pins)``). On the board ``rp2.asm_pio`` runs the function to
assemble it; here this module runs the *same function object* with stand-in names in its
globals, so the opcodes the PIO emulator executes are the opcodes the board loads. The
encoding follows the RP2040 datasheet, section 3.4 (instruction set); the tests check it
against an independent assembler (``adafruit_pioasm``) for every instruction used.

    from courtside import piocode
    prog = assemble(piocode.program(17), **piocode.CONFIG)
    prog.opcodes, prog.wrap_target, prog.wrap, prog.labels

Side-set follows ``rp2.asm_pio``: ``sideset_init`` (one value, or a tuple for several
pins) gives the number of side-set pins, ``.side(v)`` sets them on an instruction. The
side-set bits sit at the top of the delay/side-set field (bits 12..8); when every
instruction has ``.side()`` they take ``count`` bits, otherwise the side-set is optional,
as on the board: bit 12 marks the instructions that set the pins and the value sits below
it. Delays get the bits left over.

Only what Courtside's programs need is supported.
"""

import types

# Source/destination numbers (datasheet 3.4: IN/OUT/MOV/SET fields)
_NAMES = {
    "gpio": 0, "pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5, "status": 5,
    "isr": 6, "osr": 7, "exec": 8,
    # jmp conditions
    "not_x": 1, "x_dec": 2, "not_y": 3, "y_dec": 4, "x_not_y": 5, "pin": 6, "not_osre": 7,
    # push/pull flags: bit 0 marks "explicitly given", 0x20 is the Block bit, 0x40 IfFull/IfEmpty
    "noblock": 0x01, "block": 0x21, "iffull": 0x40, "ifempty": 0x40,
}


class PioAsmError(Exception):
    pass


class Program:
    """The assembled program: opcodes plus what the state machine configuration needs."""

    def __init__(self, opcodes, wrap_target, wrap, labels, config, sideset_count=0, sideset_opt=False):
        self.opcodes = opcodes
        self.wrap_target = wrap_target
        self.wrap = wrap
        self.labels = labels
        self.config = config
        self.sideset_count = sideset_count   # side-set pins (the enable bit not included)
        self.sideset_opt = sideset_opt       # bit 12 enables the side-set (EXECCTRL SIDE_EN)

    def __len__(self):
        return len(self.opcodes)


class _Instr:
    """Returned by every instruction so that ``[delay]`` can be appended, as in asm_pio."""

    def __init__(self, asm, index):
        self._asm = asm
        self._index = index

    def __getitem__(self, delay):
        return self.delay(delay)

    def delay(self, delay):
        asm = self._asm
        if not 0 <= delay <= 31:
            raise PioAsmError("delay %d out of range 0..31" % delay)
        if asm.final:
            if delay > asm.delay_max:
                raise PioAsmError("delay %d too large: %d side-set bits leave 0..%d"
                                  % (delay, asm.side_bits, asm.delay_max))
            asm.opcodes[self._index] |= delay << 8
        return self

    def side(self, value):
        asm = self._asm
        asm.sides += 1
        if asm.final:
            if asm.sideset_count == 0:
                raise PioAsmError("side(%d) without sideset_init" % value)
            if not 0 <= value < 1 << asm.sideset_count:
                raise PioAsmError("side-set value %d does not fit %d pin(s)" % (value, asm.sideset_count))
            word = value << (13 - asm.side_bits)
            if asm.sideset_opt:
                word |= 1 << 12
            asm.opcodes[self._index] |= word
        return self


class _Assembler:
    def __init__(self, sideset_count=0):
        self.labels = {}
        self.final = False
        self.opcodes = []
        self.wrap_target = None
        self.wrap = None
        self.sideset_count = sideset_count
        self.sideset_opt = False
        self.side_bits = 0      # bits of the delay/side-set field the side-set takes
        self.delay_max = 31
        self.sides = 0          # .side() calls in this pass

    def start(self, final):
        if final and self.sideset_count:
            # the first pass counted the instructions and the .side() calls
            self.sideset_opt = self.sides != len(self.opcodes)
            self.side_bits = self.sideset_count + self.sideset_opt
            if self.side_bits > 5:
                raise PioAsmError("%d side-set bits: the field holds 5" % self.side_bits)
            self.delay_max = 31 >> self.side_bits
        self.final = final
        self.opcodes = []
        self.wrap_target = None
        self.wrap = None
        self.sides = 0

    # directives
    def d_label(self, name):
        if not self.final:
            if name in self.labels:
                raise PioAsmError("duplicate label %r" % name)
            self.labels[name] = len(self.opcodes)

    def d_wrap_target(self):
        self.wrap_target = len(self.opcodes)

    def d_wrap(self):
        if not self.opcodes:
            raise PioAsmError("wrap before any instruction")
        self.wrap = len(self.opcodes) - 1

    # instructions
    def _emit(self, word):
        self.opcodes.append(word)
        return _Instr(self, len(self.opcodes) - 1)

    def _target(self, label):
        if not self.final:
            return 0
        if label not in self.labels:
            raise PioAsmError("unknown label %r" % label)
        return self.labels[label]

    def i_jmp(self, cond, label=None):
        if label is None:
            cond, label = 0, cond
        return self._emit(0x0000 | cond << 5 | self._target(label))

    def i_wait(self, polarity, src, index):
        src = 1 if src == 6 else (0 if src == 0 else 2)   # gpio 0, pin 1, irq 2
        return self._emit(0x2000 | polarity << 7 | src << 5 | index)

    def i_in(self, src, bits):
        if not 0 < bits <= 32:
            raise PioAsmError("in: bit count %d out of range 1..32" % bits)
        return self._emit(0x4000 | src << 5 | (bits & 0x1F))

    def i_out(self, dest, bits):
        if not 0 < bits <= 32:
            raise PioAsmError("out: bit count %d out of range 1..32" % bits)
        if dest == 8:
            dest = 7
        return self._emit(0x6000 | dest << 5 | (bits & 0x1F))

    def i_push(self, flags=0, more=0):
        flags |= more
        if not flags & 1:
            flags |= 0x20   # blocking unless noblock was given
        return self._emit(0x8000 | (flags & 0x60))

    def i_pull(self, flags=0, more=0):
        flags |= more
        if not flags & 1:
            flags |= 0x20
        return self._emit(0x8080 | (flags & 0x60))

    def i_mov(self, dest, src):
        if dest == 8:
            dest = 4
        return self._emit(0xA000 | dest << 5 | src)

    def i_nop(self):
        return self._emit(0xA042)    # mov y, y

    def i_set(self, dest, value):
        if not 0 <= value <= 31:
            raise PioAsmError("set: value %d out of range 0..31" % value)
        return self._emit(0xE000 | dest << 5 | value)

    def i_irq(self, mod, index=None):
        if index is None:
            mod, index = 0, mod
        return self._emit(0xC000 | (mod & 0x60) | index)

    def names(self):
        g = dict(_NAMES)
        g.update({
            "invert": lambda s: s | 0x08, "reverse": lambda s: s | 0x10, "rel": lambda i: i | 0x10,
            "clear": 0x40,
            "label": self.d_label, "wrap_target": self.d_wrap_target, "wrap": self.d_wrap,
            "jmp": self.i_jmp, "wait": self.i_wait, "in_": self.i_in, "out": self.i_out,
            "push": self.i_push, "pull": self.i_pull, "mov": self.i_mov, "nop": self.i_nop,
            "set": self.i_set, "irq": self.i_irq,
        })
        return g


def assemble(func, **config):
    """Run ``func`` (an asm_pio-language function) and return the assembled Program.

    ``func`` keeps its own code and closure; only its globals are replaced, in a copy of
    the function, so the firmware module is left untouched.
    """
    asm = _Assembler(_sideset_count(config.get("sideset_init")))
    runner = types.FunctionType(func.__code__, asm.names(), func.__name__, func.__defaults__,
                                func.__closure__)
    for final in (False, True):
        asm.start(final)
        runner()
    if len(asm.opcodes) > 32:
        raise PioAsmError("%d instructions: a PIO block holds 32" % len(asm.opcodes))
    wrap_target = asm.wrap_target if asm.wrap_target is not None else 0
    wrap = asm.wrap if asm.wrap is not None else len(asm.opcodes) - 1
    return Program(list(asm.opcodes), wrap_target, wrap, dict(asm.labels), dict(config),
                   asm.sideset_count, asm.sideset_opt)


def _sideset_count(init):
    """Side-set pins for an ``asm_pio`` ``sideset_init``: none, one value, or a tuple."""
    if init is None:
        return 0
    if isinstance(init, int):
        return 1
    return len(init)

