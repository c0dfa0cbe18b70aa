"""The hardware layer's own code where it can run here: the native IRQ handler and the
allocation figures on the MicroPython unix port, USB lines on a real pipe, and a check
that no hot path makes an int a 32-bit Pico would have to put on the heap."""

import json
import os
import subprocess

import pytest
import smallints
from conftest import FIRMWARE, ROOT
from courtside_host.link import deploy as dep

MP = ROOT / "tests" / "mp"


def run_mp(micropython, script, *args, stdin=None):
    run = subprocess.run([micropython, str(MP / script), *map(str, args)], input=stdin,
                         capture_output=True, timeout=60, check=False)
    assert run.returncode == 0, (run.stdout + run.stderr).decode(errors="replace")
    return run.stdout.decode()


# The native IRQ handler ---------------------------------------------------------------------

TOP = 0x3FFFFFFF
EXPECTED = ["stored", "63", "dropped", "140",
            str((0xFFFFFFFF - 1) & TOP), str(TOP & ~(1 << 3)),   # falling edge: its own pin closed
            str((0xFFFFFFFF - 9) & TOP), str(TOP),               # rising edge: as the register says
            str((3 - 9) & TOP), str(TOP)]                        # the timer wrapped under the lag


def test_native_handler_stamps_right_and_never_allocates(micropython):
    assert run_mp(micropython, "native_capture_heap_lock.py", FIRMWARE).split() == EXPECTED


def test_the_deployed_form_of_the_native_code_runs_the_same(micropython, tmp_path):
    # What deploy sends a board: native compiled for the board's -march (here the
    # unix port's x64), the rest bytecode; the handler and the frame finisher still never
    # allocate, and the finisher still gives the bytecode one's bytes.
    compiler = dep.Compiler(cache=tmp_path / "cache")
    march = dep.mpy_arch(int(subprocess.run(
        [micropython, "-c", "import sys; print(sys.implementation._mpy)"],
        capture_output=True, text=True, check=True).stdout))
    assert march == "x64"
    built = dep.build(compiler=compiler, march=march)
    for path, data in built.files.items():
        if path.startswith("courtside/"):
            (tmp_path / "fw" / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "fw" / path).write_bytes(data)
    assert (tmp_path / "fw" / "courtside" / "hw" / "native.mpy").read_bytes()[2] >> 2 == 2
    assert run_mp(micropython, "native_capture_heap_lock.py", tmp_path / "fw").split() == EXPECTED
    assert finish_figures(run_mp(micropython, "finish_same.py", tmp_path / "fw"))["differ"] == 0


# The PIO drain's words in machine code --------------------------------------------------

PERIOD = 1 << 30
F = 125_000_000


def _drain_plan(rng, words=64, ring=16, in_base=2, width=17):
    """Takes of a PIO capture's words as the state machine pushes them (a levels word,
    then its count word; a lone count word at the counter's wrap), with what goes wrong
    now and then: a count word lost, a pair that changes no button pin, more words than
    the buffer holds between two takes, a take whole counter periods late, a ring too
    small for a take's pairs."""
    mask = ((1 << width) - 1) << in_base
    start = rng.randrange(PERIOD)
    loops = 0
    pins = (1 << width) - 1
    takes = []
    for _ in range(rng.randrange(5, 40)):
        batch = []
        for _ in range(rng.choice([0, 1, 2, 3, 8, 20, 40])):
            loops += rng.choice([1, 2, 2000, 20_000, 500_000, rng.randrange(1, 3_000_000)])
            kind = rng.random()
            if kind < 0.05:
                batch.append((-loops) & (PERIOD - 1))                    # a wrap mark
                continue
            if kind > 0.1:
                pins ^= 1 << rng.randrange(width)                      # else noise: no pin changed
            batch.append((~pins) & 0xFFFFFFFF)                          # levels word, bit 31 set
            if rng.random() > 0.03:
                batch.append((-loops) & (PERIOD - 1))                    # its count word (else lost)
        tick = start + loops * 6 * 1_000_000 // F
        late = rng.choice([0, 0, 0, 3, 1000, 2 * 53_687_091 + 7])         # whole periods, now and then
        takes.append((batch, (tick + late) % PERIOD))
    last = [(~(pins ^ 1)) & 0xFFFFFFFF, (-(loops + 10)) & (PERIOD - 1)] * 4
    return {"words": words, "ring": ring, "in_base": in_base, "width": width, "mask": mask,
            "freq": F, "start": start, "takes": takes, "last": last,
            "last_now": (start + (loops + 10) * 6 * 1_000_000 // F) % PERIOD}


def test_the_machine_code_drain_takes_the_words_as_the_bytecode_loop_does(micropython):
    """After every take of every plan the two drains hold the same: snapshots put, the
    ring's contents and drops, the words read, a levels word waiting, the counts of
    overrun, unpaired, marks and noise, the stamper's anchor. Between them the plans
    reach every way the machine code stops, and the bytecode loop's every branch."""
    import random
    stops = [0, 0, 0]
    seen = {"put": 0, "dropped": 0, "overrun": 0, "unpaired": 0, "marks": 0, "noise": 0}
    for seed in range(8):
        rng = random.Random(seed)
        plan = _drain_plan(rng, words=rng.choice([16, 64, 256]), ring=rng.choice([8, 64, 1024]))
        out = run_mp(micropython, "native_drain_same.py", FIRMWARE, stdin=json.dumps(plan).encode())
        *takes, codes, last = out.strip().split("\n")
        assert last == "heap untouched"
        assert len(takes) == len(plan["takes"])
        for line in takes:
            bytecode, machine = json.loads(line)
            assert machine == bytecode, seed
            seen["put"] += bytecode[0]
        for key, at in (("dropped", 2), ("overrun", 7), ("unpaired", 8), ("marks", 9), ("noise", 10)):
            seen[key] += bytecode[at]
        stops = [a + b for a, b in zip(stops, json.loads(codes))]
    assert all(stops), stops
    assert all(seen.values()), seen


def test_the_tick_anchor_writes_only_just_after_a_clean_tick(micropython):
    # The PIO capture's anchor in machine code, its timer moved by a second thread while
    # the viper loop reads it: written once the timer ticks on by one (across the 32-bit
    # wrap too), not when it never moves or jumps; the tick it turned to is returned.
    out = run_mp(micropython, "native_anchor.py", FIRMWARE).split("\n")
    assert out[:4] == ["still -1 0", "tick 0 2", "jump -1 0", "tick 4 2"]


# Allocation -------------------------------------------------------------------------------

def test_what_the_hardware_layer_allocates(micropython):
    figures = json.loads(run_mp(micropython, "hw_alloc.py", FIRMWARE))
    # Nothing at all: a frame (scale, power cap, chain order), a press through the PIO
    # drain, taking snapshots from the ring, an idle pass of the USB lines, sending bytes.
    assert figures["native pack matches"] is True
    for name in ("frame", "frame (native pack)", "frame (native finish)", "press (PIO drain)",
                 "ring get", "idle pass (lines)", "line sent", "first poll of a fresh poller",
                 "first ipoll of a primed poll"):
        assert figures[name] == 0, (name, figures[name])
    assert figures["first ipoll of a bare poll"] == "allocates"    # the one priming moves to start-up
    # Bounded: a queued event line is the encoder's buffer itself, kept, not copied (at
    # most its newline grows it); a command line costs its text.
    assert 0 <= figures["line queued"] <= 64
    assert 0 < figures["command read"] <= 256


# USB lines ----------------------------------------------------------------------------------

def test_command_lines_from_a_real_pipe(micropython):
    stdin = b"ping\n\x02hello\x01 wor\x7fld\r\nbad \xff\xfe utf8\n" + b"x" * 100 + b"\nlast\n"
    out = run_mp(micropython, "usb_lines.py", FIRMWARE, stdin=stdin).splitlines()
    assert out[:5] == ["'ping'", "'hello world'", "'bad ?? utf8'", "'%s'" % ("x" * 41), "'last'"]
    assert out[5].startswith("overlong 1 ")     # cut to one past the limit: the core refuses it


class Port:
    def __init__(self, data=b"", room=None):
        self.data, self.at, self.written = data, 0, []
        self.room = room          # bytes the port takes before it is full (None: no end)

    def readinto(self, buf):
        buf[0] = self.data[self.at]
        self.at += 1
        return 1

    def write(self, buf):
        take = len(buf) if self.room is None else min(len(buf), self.room)
        if self.room is not None:
            self.room -= take
        self.written.append(bytes(buf[:take]))
        return take


def test_a_pass_reads_at_most_its_byte_budget():
    from courtside.hw.lines import Receiver
    port = Port(b"x" * 40 + b"\n")
    rx = Receiver(port, lambda: port.at < len(port.data), per_pass=16)
    assert rx.read_line() is None and port.at == 16
    assert rx.read_line() is None and port.at == 32
    assert rx.read_line() == "x" * 40 and port.at == 41


def test_lines_go_in_chunks_after_a_writable_poll_within_the_budget():
    from courtside.hw.lines import Sender
    port = Port()
    tx = Sender(port, lambda: True, per_pass=6, chunk=4)
    line = bytearray(b"abcdefgh")
    assert tx.write_line(line)
    assert port.written == [b"abcd", b"ef"]              # chunks of 4 within the pass's 6 bytes
    assert tx.mid_line() and tx.queued() == 3
    tx.pass_begin()
    tx.flush()
    assert port.written[-1] == b"gh\n" and not tx.mid_line() and tx.queued() == 0
    assert line == b"abcdefgh\n"             # the encoder's buffer itself went out: no copy


def test_a_port_that_stops_taking_makes_the_sender_careful_and_a_full_queue_drops_whole():
    from courtside.hw.lines import Sender
    clock = [0]
    port = Port(room=6)
    ready = [True]
    tx = Sender(port, lambda: ready[0], slots=4, limit=64, chunk=8, ticks_ms=lambda: clock[0],
                careful_ms=1000)
    assert tx.write_line(bytearray(b"abcdefghij"))
    assert port.written == [b"abcdef"] and tx.short == 1       # a short write: the laptop stopped
    port.room = 100
    tx.pass_begin()
    tx.flush()
    assert port.written[1:] == [b"g", b"h", b"i", b"j", b"\n"]  # careful: one byte a write
    clock[0] = 1001
    assert tx.write_line(bytearray(b"klmnopqr"))
    assert port.written[-2:] == [b"klmnopqr", b"\n"]           # chunks again after a second
    ready[0] = False                                            # the port never has room now
    for _ in range(3):
        assert tx.write_line(bytearray(b"x" * 10))
    assert tx.room() == 0 and not tx.write_line(bytearray(b"y")) and tx.unsent == 1  # slots full
    assert not tx.finish(5)                                     # gives up after 5 ms


def test_a_line_too_big_for_the_queue_is_dropped_whole():
    from courtside.hw.lines import Sender
    tx = Sender(Port(), lambda: False, limit=32)
    assert tx.write_line(bytearray(b"x" * 20))
    assert not tx.write_line(bytearray(b"y" * 20)) and tx.unsent == 1 and tx.queued() == 21


def test_a_line_bigger_than_the_limit_goes_out_alone():
    # a verdict of hundreds of presses: made already, so it is sent, but only on its own
    from courtside.hw.lines import Sender
    port = Port()
    ready = [False]
    tx = Sender(port, lambda: ready[0], limit=32)
    assert tx.write_line(bytearray(b"v" * 100)) and tx.queued() == 101
    assert not tx.write_line(bytearray(b"x")) and tx.unsent == 1     # nothing beside it
    ready[0] = True
    tx.flush()
    assert b"".join(port.written) == b"v" * 100 + b"\n" and tx.write_line(bytearray(b"x"))


# Small ints ---------------------------------------------------------------------------------

def test_the_check_catches_a_pixel_word_built_the_old_way(tmp_path, monkeypatch):
    (tmp_path / "old_words.py").write_text(
        "def words(frame, out):\n"
        "    for i in range(64):\n"
        "        r, g, b = frame[3 * i], frame[3 * i + 1], frame[3 * i + 2]\n"
        "        out[i] = (g << 16 | r << 8 | b) << 8\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    old = smallints.load("old_words")
    with smallints.watch(), pytest.raises(smallints.BigInt, match="old_words.py:4"):
        old.words(bytes([255] * 192), [0] * 64)
    with smallints.watch():
        old.words(bytes(192), [0] * 64)                # a dark frame passes: the values matter


def test_hot_paths_keep_every_int_small_at_the_top_of_their_ranges():
    clock = smallints.load("courtside.clock")
    ring_mod = smallints.load("courtside.ring")
    capture = smallints.load("courtside.capture", {"MASK": clock.MASK})
    stamp = smallints.load("courtside.piostamp", {"add": clock.add, "diff": clock.diff})
    chain = smallints.load("courtside.hw.chain")
    display = smallints.load("courtside.display")
    power = smallints.load("courtside.power")
    lines = smallints.load("courtside.hw.lines")

    class Pin:
        def irq(self):
            return self

        def flags(self):
            return 4

    pin = Pin()
    ring = ring_mod.Ring(64)
    irq = capture.IrqCapture(ring, lambda: TOP, lambda: TOP, TOP, None, {pin: 1 << 29}, 4, {pin: 9})
    from array import array
    halves = array("H", bytes(4 * 64))
    stamper = stamp.Stamper(125_000_000)
    drain = stamp.Drain(ring_mod.Ring(64), stamper, halves, 0, 30, TOP)
    frame = bytearray([255] * 192)
    out = bytearray(192)
    table = chain.order(True, True)
    tx = lines.Sender(Port(), lambda: True, per_pass=1 << 20)
    with smallints.watch():
        for _ in range(100):                          # through a full ring and past it
            irq.irq(pin)
        pair = [0, 0]
        while ring.get(pair):
            pass
        assert clock.diff(0, TOP) == 1 and clock.add(TOP, TOP) == TOP - 1
        stamper.start(TOP - 5)
        written, count = 0, 0
        for k in range(200):                          # counts cross the 30-bit wrap
            count = (count - 5_000_000 - k) & TOP
            for word in (0xC0000000, count):          # every one of 30 pins pressed, then its count
                j = 2 * (written % 64)
                halves[j], halves[j + 1] = word & 0xFFFF, word >> 16
                written += 1
            drain.last = TOP
            drain.take(written, (TOP - 5 + k * 240_000) & TOP)
        assert drain.ring.dropped == 0 or len(drain.ring) == 63
        display.scale(frame, 254)
        for i in range(192):
            frame[i] = 255
        power.limit(frame)
        chain.pack(frame, table, out)
        for _ in range(50):                           # the queue's indices wrap many times
            tx.write_line("x" * 200)
            tx.pass_begin()
            tx.flush()


# The Pico layer itself, on MicroPython ---------------------------------------------------------

def test_the_pico_layer_on_micropython_allocates_nothing_while_idle_or_drawing(micropython):
    # courtside.hw.pico on the unix port, with stand-ins for machine and rp2 only: the
    # native module, select, stdin/stdout and asyncio are the real ones.
    out = run_mp(micropython, "pico_passes.py", FIRMWARE, ROOT / "hardware" / "pinmap.json", stdin=b"")
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["native"] is True                  # the viper handler loaded
    assert figures["native finish"] is True           # and the viper frame finisher, for the core
    assert figures["50 idle passes"] == 0             # service() and read_line() with nothing to do
    assert figures["20 idle waits of 2 ms"] == 0      # await hw.wait(ms): one reusable awaitable
    assert figures["20 frames (heap locked)"] == 0 and figures["frames started"] == 40
    assert figures["wait returns"] is True and 30 <= figures["wait(30) took ms"] < 200
    assert figures["wait with a snapshot took ms"] < 5
    assert 0 < figures["one event line"] <= 128       # its encoded copy, once


def test_starting_with_pio_capture_leaves_the_free_heap_in_one_piece(micropython, tmp_path):
    # The firmware as deploy sends it (.mpy, native code for this port's -march), in a
    # heap the size of a Pico's: the PIO backend's DMA block is the first thing the layer
    # allocates, one block, no temporary, so the free heap after start is still one run.
    built = dep.build(compiler=dep.Compiler(cache=tmp_path / "cache"), march="x64")
    for path, data in built.files.items():
        if path.startswith("courtside/"):
            (tmp_path / "fw" / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "fw" / path).write_bytes(data)
    run = subprocess.run([micropython, "-X", "heapsize=192k", str(MP / "pico_start_heap.py"),
                          str(tmp_path / "fw"), str(ROOT / "hardware" / "pinmap.json")],
                         input=b"", capture_output=True, timeout=60, check=False,
                         env=dict(os.environ, MICROPYPATH=".frozen"))     # whatever the suite set
    assert run.returncode == 0, run.stderr.decode()
    text = run.stdout.decode()
    figures = json.loads(text.splitlines()[0])
    largest = int(text.split("max free sz:")[1].split()[0]) * figures["block bytes"]
    assert figures["capture"] == "pio"
    # 64-bit port figures (a Pico's objects are smaller, its arrays the same): the start
    # takes the 16 KB DMA block and the 16 KB capture ring (2,048 snapshots: a storm's
    # backlog on the chip), plus frame buffers and queues; the largest free block is nearly all of the
    # free heap. What is not in it are holes between the loaded modules and the stand-ins'
    # objects: 10.8-11.2 KB run alone, up to 13.5 KB in a loaded parallel suite (the
    # anchor's tries, each a new stand-in state machine, vary with timing; rp2's are
    # static). The old ``array("H", bytes(n))`` allocation left a further 8 KB hole.
    assert figures["start bytes"] <= 48 * 1024
    assert largest >= figures["free"] - 16 * 1024


# display.scale and power.limit: faster, same results --------------------------------------------

def finish_figures(out):
    """tests/mp/finish_same.py's line: {name: count}."""
    words = out.split()
    assert len(words) == 10, out
    return {words[i]: int(words[i + 1]) for i in range(0, 10, 2)}


def test_the_native_finisher_gives_the_bytecode_ones_results_and_never_allocates(micropython):
    # courtside.hw.native.finish (viper) against courtside.power.finish (display.scale
    # then power.limit), which the simulator, replay and CPython keep: every brightness,
    # frames under and over the power budget, on it and one either side, all 255.
    figures = finish_figures(run_mp(micropython, "finish_same.py", FIRMWARE))
    assert figures["differ"] == 0 and figures["allocates"] == 0
    assert figures["cases"] == 1580 and figures["under"] > 500 and figures["over"] > 500


def test_the_bytecode_finisher_is_scale_then_limit():
    import random

    from courtside import display, power
    rng = random.Random(5)
    for brightness in (1, 96, 254, 255, 96):
        for fill in (0, 255, None):
            frame = bytearray(fill if fill is not None else rng.randrange(256) for _ in range(192))
            want = bytearray(frame)
            display.scale(want, brightness)
            assert power.finish(frame, brightness) == power.limit(want) and frame == want



def test_scale_and_limit_give_the_results_of_their_plain_formulas():
    import random

    from courtside import display, power
    rng = random.Random(13)
    for brightness in (1, 2, 96, 127, 200, 254, 255, 96, 1):   # the table is rebuilt on change
        frame = bytearray(rng.randrange(256) if rng.random() < 0.7 else 0 for _ in range(192))
        want = bytes(v * brightness // 255 for v in frame) if brightness < 255 else bytes(frame)
        assert bytes(display.scale(frame, brightness)) == want
    for _ in range(200):
        frame = bytearray(rng.choice((0, 255, rng.randrange(256))) for _ in range(192))
        total = sum(frame)
        scale = power.BUDGET_UNITS * 256 // total if total > power.BUDGET_UNITS else 256
        want = bytes(v * scale >> 8 for v in frame) if scale < 256 else bytes(frame)
        assert power.limit(frame) == scale and bytes(frame) == want


def test_the_chip_tiers_parts_script_runs_and_times_every_part(micropython, tmp_path):
    """bench/chip/parts_board.py, which the chip tier pastes in at a board's REPL, runs
    on the unix port from the firmware's source and times each piece it names."""
    (tmp_path / "pinmap.json").write_bytes((ROOT / "hardware" / "pinmap.json").read_bytes())
    env = dict(os.environ, MICROPYPATH=str(FIRMWARE))
    run = subprocess.run([micropython, str(ROOT / "bench" / "chip" / "parts_board.py")], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.split("\n")
    parts = dict(line.split()[1:] for line in lines if line.startswith("@@part "))
    assert set(parts) == {"call", "debouncer-snapshot", "drain-change-bytecode", "drain-change-native",
                          "encode-press", "encode-release"}
    assert all(float(us) >= 0 for us in parts.values()) and "@@end" in lines
