"""The PIO capture program: one source, encoded right, and the loop is as long as documented."""

import re

import adafruit_pioasm
import pytest
from conftest import ROOT
from courtside import piocode
from pio_sim import PioSim
from pio_standin import PioAsmError, assemble
from pioemu import State, emulate
from pioemu.shift_register import ShiftRegister

# The same program in the RP2040 datasheet's assembler syntax, assembled by an independent
# assembler: the stand-in must produce identical opcodes.
PIO_TEXT = """
    mov isr, null
    mov y, ~null [1]
changed:
    mov x, y
    mov y, isr
    mov isr, ~x
    push noblock
    in y, 30
    push noblock
    jmp y-- again
again:
    jmp y-- stored
stored:
    in y, 30
.wrap_target
sample:
    mov osr, pins
    out y, {width}
    jmp x!=y changed
    mov y, isr
    jmp y-- tick
    push noblock
    in y, 30
    mov y, isr
    jmp y-- tick [2]
tick:
    mov isr, y
.wrap
"""


@pytest.mark.parametrize("width", [1, 9, 17, 30])
def test_standin_matches_an_independent_assembler(width):
    ours = assemble(piocode.program(width), **piocode.CONFIG)
    theirs = adafruit_pioasm.Program(PIO_TEXT.format(width=width))
    assert ours.opcodes == list(theirs.assembled)
    assert ours.wrap_target == theirs.pio_kwargs["wrap_target"]
    assert ours.wrap == theirs.pio_kwargs["wrap"]


def test_program_leaves_room_in_the_pio_block():
    prog = assemble(piocode.program(17), **piocode.CONFIG)
    assert len(prog) == 21          # a PIO block holds 32
    assert prog.labels["changed"] == 2  # entry: two set-up instructions, then the change path


def test_config_uses_the_rp2_values():
    stub = (ROOT / ".venv" / "lib").glob("python*/site-packages/rp2/__init__.pyi")
    text = next(stub).read_text()

    def value(name):
        return int(re.search(r"\b%s: Final\[int\] = (\d+)" % name, text).group(1))

    assert piocode.SHIFT_LEFT == value("SHIFT_LEFT")
    assert piocode.SHIFT_RIGHT == value("SHIFT_RIGHT")
    assert piocode.JOIN_RX == value("JOIN_RX")


def test_standin_rejects_what_the_board_would():
    def bad_label():
        jmp("nowhere")  # noqa: F821

    def bad_count():
        in_(pins, 33)  # noqa: F821

    with pytest.raises(PioAsmError):
        assemble(bad_label)
    with pytest.raises(PioAsmError):
        assemble(bad_count)


def test_firmware_module_is_untouched_by_assembling():
    before = dict(vars(piocode))
    assemble(piocode.program(17), **piocode.CONFIG)
    assert dict(vars(piocode)) == before


def _isr_after(cycles, counter=0, levels=0x1FFFF):
    prog = assemble(piocode.program(17), **piocode.CONFIG)

    def pins(clock: int) -> int:
        return levels

    start = State(x_register=levels, input_shift_register=ShiftRegister(counter, 0),
                  program_counter=prog.labels["sample"])
    states = [start]
    for _, after in emulate(prog.opcodes, stop_when=lambda _op, s: s.clock >= cycles, initial_state=start,
                            input_source=pins, shift_isr_right=False, shift_osr_right=True,
                            wrap_target=prog.wrap_target, wrap_top=prog.wrap):
        states.append(after)
    return states[-1]


def test_quiet_loop_is_six_cycles_and_counts_down_once_a_loop():
    # Run the plain emulator (no skipping) over 600 quiet cycles from counter 1000.
    last = _isr_after(600, counter=1000)
    assert last.clock == 600
    assert last.program_counter == 11   # back at the sample
    assert last.input_shift_register.contents == 1000 - 600 // piocode.LOOP_CYCLES
    assert not last.receive_fifo


def test_every_path_keeps_the_counter_a_clock():
    # After presses, releases and a wrap mark, the count at any later quiet sample is still
    # exactly -(cycle / 6): no path loses or gains a cycle.
    idle = 0x1FFFF
    steps = [(0, idle), (100, idle & ~1), (104, idle & ~3), (111, idle & ~7), (400, idle)]
    sim = PioSim(skip=False)
    sim.state = State(x_register=0xFFFFFFFF, input_shift_register=ShiftRegister(20, 0),
                      program_counter=sim.sample_pc)
    sim.run(steps, until=900)
    s = sim.state
    assert s.program_counter == sim.sample_pc and s.clock == 900
    assert s.input_shift_register.contents == (20 - 900 // 6) & 0x3FFFFFFF
