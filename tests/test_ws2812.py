"""The WS2812 matrix driver: one source, encoded right, and a waveform inside the datasheet.

``courtside.hw.pico`` is imported on stand-ins for ``rp2`` and ``machine``: its
``rp2.asm_pio`` is the stand-in assembler, its DMA channel hands the state machine the
FIFO words a byte write makes on the RP2040 bus (the byte in all four lanes). Those
words go through the PIO emulator running the program ``pico.py`` built, with the
side-set on the matrix pin, and the data line is recorded cycle by cycle.
"""

import json
import random
import re
import subprocess
from collections import deque
from dataclasses import replace

import adafruit_pioasm
import pytest
from conftest import FIRMWARE, ROOT
from courtside import ws2812code
from courtside.pins import Pins
from pio_standin import PioAsmError, assemble
from pioemu import State, emulate

PINMAP = json.loads((ROOT / "hardware" / "pinmap.json").read_text())

# The program in the RP2040 datasheet's assembler syntax, for an independent assembler.
PIO_TEXT = """
.side_set 1
.wrap_target
top:
    out x, 1        side 0 [2]
    jmp !x zero     side 1 [2]
    jmp top         side 1 [3]
zero:
    nop             side 0 [3]
.wrap
"""

# WS2812B datasheet (Worldsemi), data transfer time: each figure +-150 ns.
DATASHEET_NS = {"T0H": 400, "T1H": 800, "T0L": 850, "T1L": 450}
TOLERANCE_NS = 150
CYCLE_NS = 1_000_000_000 // ws2812code.WS2812_FREQ
GAP = 400          # cycles between frames in these tests (50 us): the latch


def _board(module, rig, **matrix):
    data = json.loads(json.dumps(PINMAP))
    data["matrix"].update(matrix)
    pins = Pins(data)
    board = module.Pico(pins, {"capture": "irq"})
    (sm,) = rig.machines
    return board, sm, pins


def send(board, rig, frame):
    """Show ``frame`` and let the clock run until the matrix has taken it."""
    board.show(bytearray(frame))
    rig.now += 2000
    board.service(rig.now)


# The emulator -------------------------------------------------------------------------------

def waveform(program, frames, pin, gap=GAP, fifo=8):
    """The data line's level in every cycle while ``program`` sends ``frames`` (lists of
    words). The processor puts words as ``StateMachine.put`` does, filling the
    ``fifo``-deep TX FIFO whenever it has room (8: joined); after each frame the line is watched for
    ``gap`` more cycles once the last bit has gone out."""
    cfg = program.config
    kw = {
        "auto_pull": cfg["autopull"],
        "pull_threshold": cfg["pull_thresh"],
        "shift_osr_right": cfg["out_shiftdir"] != ws2812code.SHIFT_LEFT,
        "side_set_base": pin,
        "side_set_count": program.sideset_count,
        "wrap_target": program.wrap_target,
        "wrap_top": program.wrap,
    }
    levels = []
    state = State()       # pc 0, every pin low: sideset_init=OUT_LOW

    def run(stop):
        nonlocal state
        for before, after in emulate(program.opcodes, stop_when=stop, initial_state=state, **kw):
            levels.extend([(after.pin_values >> pin) & 1] * (after.clock - before.clock))
            state = after

    def has_room(_op, s):
        return len(s.transmit_fifo) < fifo

    def sent(_op, s):   # FIFO and OSR empty, back at the ``out``: the last bit has gone
        return (not s.transmit_fifo and s.output_shift_register.counter >= cfg["pull_thresh"]
                and s.program_counter == program.labels["top"])

    for frame in frames:
        words = deque(frame)
        while words:
            queued = deque(state.transmit_fifo)
            while words and len(queued) < fifo:
                queued.append(words.popleft())
            state = replace(state, transmit_fifo=queued)
            run(has_room)
        run(sent)
        until = state.clock + gap
        run(lambda _op, s, until=until: s.clock >= until)
    return levels


def runs(levels):
    """Run lengths: [(level, cycles), ...]."""
    out = []
    for level in levels:
        if out and out[-1][0] == level:
            out[-1][1] += 1
        else:
            out.append([level, 1])
    return [tuple(r) for r in out]


def split_bits(levels):
    """Frames of bits, each bit (high cycles, low cycles); a low longer than a bit ends a
    frame (the latch)."""
    rl = runs(levels)
    if rl and rl[0][0] == 0:
        rl = rl[1:]                     # the line is low before the first bit
    frames, bits = [], []
    for i in range(0, len(rl), 2):
        high = rl[i][1]
        low = rl[i + 1][1] if i + 1 < len(rl) else 0
        bits.append((high, low))
        if low > ws2812code.BIT_CYCLES or i + 1 >= len(rl):
            frames.append(bits)
            bits = []
    return frames


def grb_bits(frame, pins):
    """The bits a frame (RGB bytes, row by row) should put on the line: for each LED in
    chain order G, R, B (or R, G, B), most significant bit first."""
    bits = []
    for led in range(64):
        y, x = divmod(led, 8)
        if pins.serpentine and y % 2:
            x = 7 - x
        j = 3 * (8 * y + x)
        r, g, b = frame[j], frame[j + 1], frame[j + 2]
        for byte in ((g, r, b) if pins.grb else (r, g, b)):
            bits.extend((byte >> k) & 1 for k in range(7, -1, -1))
    return bits


FRAMES = {
    "all 0": bytes(192),
    "all 1": bytes([255] * 192),
    "random": bytes(random.Random(2812).randrange(256) for _ in range(192)),
    "random 2": bytes(random.Random(1).randrange(256) for _ in range(192)),
}


# One source -----------------------------------------------------------------------------------

def test_standin_matches_an_independent_assembler():
    ours = assemble(ws2812code.ws2812, **ws2812code.WS2812_CONFIG)
    theirs = adafruit_pioasm.Program(PIO_TEXT)
    assert ours.opcodes == list(theirs.assembled)
    assert ours.opcodes == [0x6221, 0x1223, 0x1300, 0xA342]
    assert ours.wrap_target == theirs.pio_kwargs["wrap_target"]
    assert ours.wrap == theirs.pio_kwargs["wrap"]
    assert ours.sideset_count == theirs.pio_kwargs["sideset_pin_count"] == 1
    assert ours.sideset_opt is theirs.pio_kwargs["sideset_enable"] is False


def test_optional_and_wider_side_set_match_too():
    # Not every instruction sets the pins: the side-set is optional (bit 12 enables it).
    def partly():
        wrap_target()               # noqa: F821
        out(pins, 2).side(3)        # noqa: F821
        set(x, 5)[1]                # noqa: F821
        mov(y, x).side(1)[3]        # noqa: F821
        wrap()                      # noqa: F821

    ours = assemble(partly, sideset_init=(ws2812code.OUT_LOW,) * 2)
    theirs = adafruit_pioasm.Program(
        ".side_set 2 opt\n.wrap_target\nout pins, 2 side 3\nset x, 5 [1]\nmov y, x side 1 [3]\n.wrap")
    assert ours.opcodes == list(theirs.assembled)
    assert ours.sideset_count == 2 and ours.sideset_opt is True


def test_standin_rejects_side_set_the_board_would():
    def longest():
        nop().side(1)[15]           # noqa: F821  one side-set bit leaves delays 0..15

    def too_long():
        nop().side(0)[16]           # noqa: F821

    def too_wide():
        nop().side(2)               # noqa: F821

    assert assemble(longest, sideset_init=ws2812code.OUT_LOW).opcodes == [0xBF42]
    for bad, config in ((too_long, {"sideset_init": ws2812code.OUT_LOW}),
                        (too_wide, {"sideset_init": ws2812code.OUT_LOW}),
                        (longest, {})):                       # side() without sideset_init
        with pytest.raises(PioAsmError):
            assemble(bad, **config)


def test_config_uses_the_rp2_values():
    stub = next((ROOT / ".venv" / "lib").glob("python*/site-packages/rp2/__init__.pyi")).read_text()

    def value(name):
        return int(re.search(r"\b%s: Final\[int\] = (\d+)" % name, stub).group(1))

    assert ws2812code.SHIFT_LEFT == value("SHIFT_LEFT")
    assert ws2812code.OUT_LOW == value("OUT_LOW")
    assert ws2812code.JOIN_TX == value("JOIN_TX")


def test_pico_builds_its_state_machine_from_the_shared_function(pico_layer):
    module, rig = pico_layer
    ((func, config, program),) = rig.assembled
    assert func is ws2812code.ws2812
    assert config == ws2812code.WS2812_CONFIG
    assert module._ws2812 is program
    board, sm, pins = _board(module, rig)
    assert sm.sm_id == 0 and sm.program is program and sm.on
    assert sm.kw["freq"] == ws2812code.WS2812_FREQ == 8_000_000
    assert sm.kw["sideset_base"].gpio == pins.matrix_pin == 22
    assert len(program) <= 11       # block 0 also holds the 21-instruction capture program
    text = (FIRMWARE / "courtside" / "hw" / "pico.py").read_text()
    assert "label(" not in text and "side(" not in text   # no second copy of the program


def test_module_loads_on_micropython(micropython, firmware_env):
    code = ("from courtside import ws2812code as w; "
            "print(w.WS2812_FREQ, w.WS2812_CONFIG['pull_thresh'], w.WS2812_CONFIG['sideset_init'])")
    run = subprocess.run([micropython, "-c", code], env=firmware_env, capture_output=True, text=True,
                         timeout=30, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["8000000", "8", "2"]


# The waveform ------------------------------------------------------------------------------------

@pytest.mark.parametrize("matrix", [{}, {"serpentine": True, "order": "RGB"}],
                         ids=["default", "serpentine-rgb"])
def test_show_puts_exact_bits_on_the_line(pico_layer, matrix):
    module, rig = pico_layer
    board, sm, pins = _board(module, rig, **matrix)
    names = list(FRAMES)
    sent = []
    for name in names:
        send(board, rig, FRAMES[name])
        sent.append(sm.words[len(sent) * 192:])
        assert len(sent[-1]) == 192                      # one FIFO word per colour byte
    levels = waveform(sm.program, sent, pins.matrix_pin)
    frames = split_bits(levels)
    assert len(frames) == len(names)
    for name, bits in zip(names, frames):
        assert len(bits) == 64 * 24, name
        for high, low in bits[:-1]:
            assert high + low == ws2812code.BIT_CYCLES, name     # rising edges 10 cycles apart
            assert (high, low) in ((3, 7), (7, 3)), name
        high, low = bits[-1]
        assert high in (3, 7) and low >= GAP, name               # the last bit runs into the latch
        assert [1 if high == 7 else 0 for high, _ in bits] == grb_bits(FRAMES[name], pins), name
    assert {h for f in frames for h, _ in f} == {3, 7}
    assert levels[0] == 0 and levels[-1] == 0


def test_timing_is_inside_the_ws2812b_datasheet():
    program = assemble(ws2812code.ws2812, **ws2812code.WS2812_CONFIG)
    words = [b * 0x01010101 for b in (0xAA, 0x55, 0xF0, 0x0F, 0xFF, 0x00)]   # both bit values, both ways
    (bits,) = split_bits(waveform(program, [words], pin=3))
    assert CYCLE_NS == 125                      # 8 MHz
    measured = {}                               # name -> every time seen, in ns
    for high, low in bits[:-1]:
        assert (high + low) * CYCLE_NS == 1250  # 800 kbit/s
        one = high > low
        measured.setdefault("T1H" if one else "T0H", set()).add(high * CYCLE_NS)
        measured.setdefault("T1L" if one else "T0L", set()).add(low * CYCLE_NS)
    assert measured == {"T0H": {375}, "T0L": {875}, "T1H": {875}, "T1L": {375}}
    for name, times in measured.items():
        for ns in times:
            assert abs(ns - DATASHEET_NS[name]) <= TOLERANCE_NS, name
    assert ws2812code.ZERO_HIGH * CYCLE_NS == 375 and ws2812code.ONE_HIGH * CYCLE_NS == 875


def test_the_checks_see_a_wrong_program():
    # The same checks fail for a program whose 1 is one cycle short.
    def short_one():
        wrap_target()                       # noqa: F821
        label("top")                        # noqa: F821
        out(x, 1).side(0)[2]                # noqa: F821
        jmp(not_x, "zero").side(1)[2]       # noqa: F821
        jmp("top").side(1)[2]               # noqa: F821
        label("zero")                       # noqa: F821
        nop().side(0)[3]                    # noqa: F821
        wrap()                              # noqa: F821

    program = assemble(short_one, **ws2812code.WS2812_CONFIG)
    (bits,) = split_bits(waveform(program, [[0x80808080]], pin=3))
    assert bits[0] == (6, 3)
