"""No call frame on the heap in the hot path: every function the idle pass, the press path
and frame building call keeps its bytecode state within the 11 machine words that
MicroPython puts on the C stack (``VM_MAX_STATE_ON_STACK``); a bigger one is allocated on
the heap and freed at every call, which ``micropython.heap_lock()`` hides.

The figures are read from the ``.mpy`` files ``courtside deploy`` builds for a Pico
(``courtside_host.mpyframes``), and checked against the unix port: a frame the reader
says is over the limit allocates, one within it does not.

``CEILINGS`` is the table: one ceiling per hot-path function, in words. The target is 11
for every one; a function may not be given more (that is the point of the table). A name
that no longer compiles to a function fails ``test_every_hot_path_function_exists``, so
a rename cannot quietly drop a function from the check: rename it here too.
"""

import subprocess

import pytest
from conftest import ROOT, tool
from courtside_host import mpyframes

TARGET = mpyframes.STACK_WORDS

CEILINGS = {
    # the idle pass: the loop, the core's step and everything it polls every pass
    "courtside.driver:one_pass": 11,
    "courtside.driver:_gather": 11,
    "courtside.driver:apply": 11,
    "courtside.driver:_apply": 11,
    "courtside.driver:_write": 11,
    "courtside.driver:_effects": 11,
    "courtside.core:Core.step": 11,
    "courtside.core:Core._begin": 11,
    "courtside.core:Core._due": 11,
    "courtside.core:Core._settle": 11,
    "courtside.core:Core._frame": 11,
    "courtside.debounce:Debouncer.poll": 11,
    "courtside.debounce:Debouncer.wait_us": 11,
    "courtside.clock:add": 11,
    "courtside.clock:diff": 11,
    "courtside.clock:Timeline.advance": 11,
    "courtside.clock:Timeline.elapsed": 11,
    "courtside.ring:Ring.get": 11,
    "courtside.ring:Ring.__len__": 11,
    "courtside.ring:Ring.dropped": 11,
    "courtside.stage:Stage.poll": 11,
    "courtside.lights:Lights.run": 11,
    "courtside.lights:Lights._advance": 11,
    "courtside.tones:Tunes.step": 11,
    "courtside.tones:Tunes._next": 11,
    "courtside.lobby:Lobby.poll": 11,
    "courtside.dodgeball:DodgeBall.poll": 11,
    "courtside.dodgeball:DodgeBall._verdicts": 11,
    "courtside.arbiter:Arbiter.poll": 11,
    "courtside.arbiter:Arbiter.due": 11,
    "courtside.deathball.diemode:DieMode.poll": 11,
    "courtside.deathball.modes:RefereeMode.poll": 11,
    "courtside.deathball.die:Roll.at": 11,
    "courtside.hw.pico:_Wait.arm": 11,
    "courtside.hw.pico:_Wait.__iter__": 11,
    "courtside.hw.pico:_Wait.__next__": 11,
    "courtside.hw.pico:Pico.wait": 11,
    "courtside.hw.pico:Pico.advance": 11,
    "courtside.hw.pico:Pico._still": 11,
    "courtside.driver:run_until": 11,
    "courtside.hw.pico:Pico.service": 11,
    "courtside.hw.pico:Pico.read_line": 11,
    "courtside.hw.pico:Pico.ticks_us": 11,
    "courtside.hw.pico:Pico.unsent": 11,
    "courtside.hw.pico:Matrix.poll": 11,
    "courtside.hw.pio_capture:PioCapture.drain": 11,
    "courtside.piostamp:Drain.take": 11,
    "courtside.hw.lines:poller.ready": 11,
    "courtside.hw.lines:Receiver.read_line": 11,
    "courtside.hw.lines:Sender.pass_begin": 11,
    "courtside.hw.lines:Sender.flush": 11,
    # the press path: an edge from the ring to its verdict and event lines
    "courtside.ring:Ring.put": 11,
    "courtside.capture:IrqCapture.irq": 11,
    "courtside.core:Core._pass_time": 11,
    "courtside.core:Core._snapshots": 11,
    "courtside.debounce:Debouncer.feed": 11,
    "courtside.debounce:Debouncer._changes": 11,
    "courtside.debounce:Debouncer._edge": 11,
    "courtside.debounce:Debouncer._turn": 11,
    "courtside.debounce:Debouncer._plan": 11,
    "courtside.debounce:Debouncer._end": 11,
    "courtside.debounce:Debouncer._arm": 11,
    "courtside.debounce:Debouncer._insert": 11,
    "courtside.debounce:Debouncer._disarm": 11,
    "courtside.core:Core._edges": 11,
    "courtside.core:Core._count": 11,
    "courtside.core:Core._closing": 11,
    "courtside.core:Core._catch_up": 11,
    "courtside.core:Core._check": 11,
    "courtside.core:Core._check_box": 11,
    "courtside.core:Core._edge": 11,
    "courtside.core:Core._press": 11,
    "courtside.core:Core._button": 11,
    "courtside.core:Core._main_edge": 11,
    "courtside.core:Core._main_line": 11,
    "courtside.core:Core._long_press": 11,
    "courtside.stage:Stage.catch_up": 11,
    "courtside.core:Core._emit": 11,
    "courtside.clock:Timeline.at": 11,
    "courtside.stage:Context.emit": 11,
    "courtside.stage:Context.emit_at": 11,
    "courtside.stage:Context.emit_fields": 11,
    "courtside.stage:Context.emit_fields_at": 11,
    "courtside.stage:Context.show": 11,
    "courtside.stage:Context.led": 11,
    "courtside.stage:Context.light": 11,
    "courtside.stage:Context.tone": 11,
    "courtside.lights:rank": 11,
    "courtside.lights:Lights.set": 11,
    "courtside.lights:Lights._led": 11,
    "courtside.tones:Tunes.play": 11,
    "courtside.lobby:Lobby.press": 11,
    "courtside.lobby:Lobby._join": 11,
    "courtside.dodgeball:DodgeBall.press": 11,
    "courtside.dodgeball:DodgeBall._catch_up": 11,
    "courtside.dodgeball:DodgeBall._pressed": 11,
    "courtside.dodgeball:DodgeBall._verdict": 11,
    "courtside.dodgeball:_ignored": 11,
    "courtside.dodgeball:_show_arrivals": 11,
    "courtside.dodgeball:_press_fields": 11,
    "courtside.dodgeball:_before": 11,
    "courtside.dodgeball:_among_earliest": 11,
    "courtside.dodgeball:DodgeBall._arrived": 11,
    "courtside.dodgeball:_log_verdict": 11,
    "courtside.dodgeball:_entries": 11,
    "courtside.dodgeball:DodgeBall._verdict_entries": 11,
    "courtside.dodgeball:DodgeBall._verdict_part": 11,
    "courtside.dodgeball:_log_ties": 11,
    "courtside.dodgeball:_log_tie": 11,
    "courtside.dodgeball:_show_verdict": 11,
    "courtside.dodgeball:_best": 11,
    "courtside.dodgeball:_light_verdict": 11,
    "courtside.dodgeball:_light": 11,
    "courtside.dodgeball:_better": 11,
    "courtside.dodgeball:_entry": 11,
    "courtside.arbiter:Press.__init__": 11,
    "courtside.arbiter:Contest.__init__": 11,
    "courtside.arbiter:Arbiter.press": 11,
    "courtside.arbiter:Arbiter._answer": 11,
    "courtside.arbiter:Arbiter._judged": 11,
    "courtside.arbiter:Arbiter._window_closed": 11,
    "courtside.arbiter:Arbiter._settle": 11,
    "courtside.arbiter:Arbiter._settled": 11,
    "courtside.arbiter:judge": 11,
    "courtside.arbiter:_disorder": 11,
    "courtside.arbiter:_lags": 11,
    "courtside.arbiter:Contest.add": 11,
    "courtside.arbiter:Contest.__len__": 11,
    "courtside.arbiter:time_order": 11,
    "courtside.arbiter:_Judgement.chain": 11,
    "courtside.arbiter:_Judgement.begin": 11,
    "courtside.arbiter:_Judgement.rank": 11,
    "courtside.arbiter:_Judgement._group": 11,
    "courtside.arbiter:_Judgement._players": 11,
    "courtside.arbiter:_Judgement._alone": 11,
    "courtside.arbiter:_Judgement._tied": 11,
    "courtside.arbiter:_Judgement._each": 11,
    "courtside.arbiter:_Judgement._take": 11,
    "courtside.arbiter:_Judgement._put": 11,
    "courtside.arbiter:_Judgement._gap": 11,
    "courtside.arbiter:_forget": 11,
    "courtside.arbiter:_meets": 11,
    "courtside.arbiter:Arbiter._open_for": 11,
    "courtside.arbiter:Contest.lag_of": 11,
    "courtside.arbiter:_meet": 11,
    "courtside.deathball.diemode:DieMode.main": 11,
    "courtside.deathball.modes:RefereeMode.press": 11,
    "courtside.deathball.modes:RefereeMode.catch_up": 11,
    "courtside.deathball.modes:RefereeMode._run_step": 11,
    "courtside.deathball.modes:RefereeMode._advance": 11,
    "courtside.deathball.modes:RefereeMode._held": 11,
    "courtside.deathball.modes:RefereeMode._ready": 11,
    "courtside.deathball.modes:RefereeMode._taking": 11,
    "courtside.deathball.modes:RefereeMode._leds": 11,
    "courtside.events:line": 11,
    "courtside.events:encode": 11,
    "courtside.events:_items": 11,
    "courtside.events:_put": 11,
    "courtside.events:_list": 11,
    "courtside.events:_text": 11,
    "courtside.events:_plain": 11,
    "courtside.events:_named": 11,
    # (events._string spells only strings that need escaping: never a name the firmware
    # writes, so it is off the hot path)
    "courtside.hw.pico:Pico.write_line": 11,
    "courtside.hw.pico:Pico.led": 11,
    "courtside.hw.pico:Pico.tone": 11,
    "courtside.hw.lines:Sender.queued": 11,
    "courtside.hw.lines:Sender.write_line": 11,
    "courtside.hw.lines:Sender.room": 11,
    "courtside.hw.lines:Sender._write": 11,
    # frame building: drawing, brightness, the power cap, packing and sending
    "courtside.display:blank": 11,
    "courtside.display:put": 11,
    "courtside.display:dim": 11,
    "courtside.display:_pix": 11,
    "courtside.display:lobby": 11,
    "courtside.display:_quadrant": 11,
    "courtside.display:_fill_quadrant": 11,
    "courtside.display:_centre": 11,
    "courtside.display:contest": 11,
    "courtside.display:_band": 11,
    "courtside.display:_tie": 11,
    "courtside.display:bands_of": 11,
    "courtside.display:_in_band": 11,
    "courtside.display:scale": 11,
    "courtside.display:levels": 11,
    "courtside.power:limit": 11,
    "courtside.power:finish": 11,
    "courtside.hw.native:finish": 11,
    "courtside.deathball.modes:RefereeMode._draw": 11,
    "courtside.deathball.view:clear": 11,
    "courtside.deathball.view:pixel": 11,
    "courtside.deathball.view:dim": 11,
    "courtside.deathball.view:square": 11,
    "courtside.deathball.view:board": 11,
    "courtside.deathball.view:trail": 11,
    "courtside.deathball.view:face": 11,
    "courtside.deathball.view:_arrow": 11,
    "courtside.deathball.view:wall_arrow": 11,
    "courtside.deathball.view:corner_arrow": 11,
    "courtside.deathball.view:bars": 11,
    "courtside.deathball.view:_outline": 11,
    "courtside.deathball.view:_heading": 11,
    "courtside.deathball.view:_dim_square": 11,
    "courtside.deathball.view:_pending": 11,
    "courtside.deathball.view:_figures": 11,
    "courtside.deathball.view:_figure": 11,
    "courtside.deathball.view:_balls": 11,
    "courtside.deathball.view:_shaded": 11,
    "courtside.deathball.view:_along": 11,
    "courtside.deathball.view:_line": 11,
    "courtside.deathball.view:_pip": 11,
    "courtside.deathball.view:_walls": 11,
    "courtside.deathball.view:_bar": 11,
    "courtside.hw.pico:Pico.show": 11,
    "courtside.hw.pico:Matrix.queue": 11,
    "courtside.hw.pico:Matrix.buffer": 11,
    "courtside.hw.chain:pack": 11,
    # PIO capture's drain, from the loop's wait (nothing new: PioCapture.drain above)
    "courtside.piostamp:Drain._first": 11,
    "courtside.piostamp:Drain._take": 11,
    "courtside.hw.native:DrainWords.take": 11,
    "courtside.hw.native:DrainWords._copy_in": 11,
    "courtside.hw.native:DrainWords._copy_out": 11,
    "courtside.piostamp:Stamper._wrapped": 11,
}

# The busy-path functions given a frame on the heap on purpose, each with why. None runs
# in an idle pass (those are all in CEILINGS). Each runs once for many units of work, in
# one loop where the code used to call a function per unit: on the chip a bytecode call
# costs more than a heap frame freed at once (measured with the chip tier, bench/chip/:
# a Python call is 10-20 us on an RP2040, a 60-byte heap frame a few), and every call
# saved also keeps the C stack shallower. Nothing else may be added here without a reason
# as hard.
OVER = {
    "courtside.piostamp:Drain._words": (16, "every new DMA word in one loop (a call per word before); "
                                            "with native code, only the words the machine code leaves"),
    "courtside.piostamp:Stamper.place": (14, "the anchor moved in one function, per count word"),
}


@pytest.fixture(scope="module")
def compiled(micropython):
    """{name: Function} for the firmware as deploy compiles it for a Pico."""
    return {f.name: f for f in mpyframes.firmware_functions(micropython=micropython)}


def test_no_ceiling_above_the_c_stack_limit():
    """The table holds targets, not today's sizes: none may exceed the 11 words."""
    over = {name: c for name, c in CEILINGS.items() if c > TARGET}
    assert not over


@pytest.mark.parametrize("name", sorted(OVER))
def test_the_few_over_the_limit_are_no_larger_than_said(compiled, name):
    words, why = OVER[name]
    assert name not in CEILINGS and why
    assert TARGET < compiled[name].words <= words


def test_every_hot_path_function_exists(compiled):
    """A function renamed or removed must be renamed or removed in CEILINGS too."""
    missing = sorted(name for name in CEILINGS if name not in compiled)
    assert not missing, "hot-path functions not in the firmware (renamed?): %s" % missing
    native = sorted(name for name in CEILINGS if compiled[name].kind != "bytecode")
    assert not native, "machine code has no bytecode frame, nothing to check: %s" % native


@pytest.mark.parametrize("name", sorted(CEILINGS))
def test_hot_path_frame_fits_the_c_stack(compiled, name):
    f = compiled[name]
    assert f.words <= CEILINGS[name], (
        "%s: %d words (n_state %d, %d exception slots of %d words) > ceiling %d: its frame "
        "is allocated on the heap at every call" % (name, f.words, f.n_state, f.n_exc_stack,
                                                    mpyframes.EXC_WORDS, CEILINGS[name]))


def test_the_reader_reads_every_module_to_its_end(compiled):
    """Every module parses to its last byte (module_functions raises otherwise); viper
    code is reported as such, without a frame."""
    modules = {name.split(":")[0] for name in compiled}
    assert {"courtside.core", "courtside.hw.native", "courtside.deathball.engine"} <= modules
    assert compiled["courtside.hw.native:pack"].kind == "viper"
    assert compiled["courtside.hw.native:pack"].words is None
    assert compiled["courtside.hw.native:NativeCapture.__init__"].kind == "bytecode"
    assert not any(name.count("#") for name in compiled), "a static name left unresolved"


PROBE = """
def nothing():
    pass

def eleven(a, b):
    c = d = e = f = g = h = i = 0
    return a

def twelve(a, b):
    c = d = e = f = g = h = i = j = 0
    return a

def twenty():
    a = b = c = d = e = f = g = h = i = j = k = l = m = n = o = p = q = r = s = 0
    return a

def guarded(a):
    b = c = d = 0
    try:
        return a
    except ValueError:
        return b

def nested(a):
    try:
        with a:
            return 1
    finally:
        a = 0
"""

COUNT = """
import sys
sys.path.insert(0, %(mp)r)
sys.path.insert(0, %(probe)r)
from blocks import blocks
import probe


class Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


q = Quiet()
print(blocks(probe.nothing), blocks(lambda: probe.eleven(1, 2)), blocks(lambda: probe.twelve(1, 2)),
      blocks(probe.twenty), blocks(lambda: probe.guarded(1)), blocks(lambda: probe.nested(q)))
"""


def test_the_reader_agrees_with_the_runtime(tmp_path, micropython):
    """The words the reader finds decide the heap on the unix port: a frame of 11 words
    allocates nothing, one of 12 and one of 21 allocate, and exception slots count three
    words each (a function of 10 state words and one ``try`` allocates)."""
    (tmp_path / "probe.py").write_text(PROBE)
    out = tmp_path / "probe.mpy"
    run = subprocess.run([tool("mpy-cross"), "-o", str(out), str(tmp_path / "probe.py")],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    read = {f.name.split(":")[1]: f for f in mpyframes.module_functions(out.read_bytes(), "probe")}
    assert read["eleven"].words == 11
    assert read["twelve"].words == 12
    assert read["twenty"].words == 21
    assert read["guarded"].n_exc_stack == 1
    assert read["guarded"].words == read["guarded"].n_state + 3
    assert read["guarded"].n_state <= TARGET < read["guarded"].words   # over by its slot
    assert read["nested"].n_exc_stack == 2
    out.unlink()     # the unix port compiles probe.py itself, as it does the firmware
    code = COUNT % {"mp": str(ROOT / "tests" / "mp"), "probe": str(tmp_path)}
    run = subprocess.run([micropython, "-c", code], capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    nothing, eleven, twelve, twenty, guarded, nested = map(int, run.stdout.split())
    assert (nothing, eleven) == (0, 0)
    assert twelve > 0 and twenty > twelve
    assert guarded > 0
    assert nested > 0
