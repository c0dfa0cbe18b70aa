"""The Pico hardware layer on stand-ins for ``rp2`` and ``machine``: what it asks of the
board when frames follow each other, when it lets go, when the laptop stops reading, and
when a capture backend cannot start."""

import json

import pytest
from conftest import ROOT
from courtside.hw import chain
from courtside.pins import Pins

PINMAP = json.loads((ROOT / "hardware" / "pinmap.json").read_text())


def build(module, settings=None):
    return module.Pico(Pins(json.loads(json.dumps(PINMAP))), settings or {"capture": "irq"})


def test_frames_are_kept_apart_long_enough_to_latch_and_show_never_waits(pico_layer):
    module, rig = pico_layer
    board = build(module)
    (sm,) = rig.machines
    rig.drain_us = 1920                          # 192 bytes at 10 us: the DMA is busy this long
    board.show(bytearray(192))
    assert sm.starts == [0]                      # nothing sent before: at once
    rig.now = 100
    board.show(bytearray([7] * 192))
    assert sm.starts == [0]                      # queued, not waited for
    rig.now = 1920
    board.service(rig.now)                       # the FIFO is seen empty now
    rig.now = 1920 + 309
    board.service(rig.now)
    assert sm.starts == [0]                      # the line has not been low long enough
    rig.now = 1920 + 310
    board.service(rig.now)
    assert sm.starts == [0, 2230] and sm.words[-192:] == [7 * 0x01010101] * 192
    assert 2230 - 1920 >= 280 + 10               # WS2812B-V5 latch, after the last byte's 8 bits
    assert rig.sleeps == [] and rig.emergency == [100]


def test_the_frame_being_sent_is_never_written_and_the_newest_waiting_frame_wins(pico_layer):
    module, rig = pico_layer
    board = build(module)
    (sm,) = rig.machines
    (dma,) = rig.dmas
    rig.drain_us = 1920
    board.show(bytearray([1] * 192))
    live = dma.kw["read"]
    board.show(bytearray([2] * 192))
    board.show(bytearray([3] * 192))
    assert bytes(live) == bytes([1] * 192)       # the DMA's buffer kept frame 1 throughout
    for now in (1920, 2300):
        rig.now = now
        board.service(now)
    assert sm.words[192:] == [3 * 0x01010101] * 192
    assert board._matrix.skipped == 1 and board._matrix.frames == 2


def test_release_lets_the_dark_frame_reach_the_last_pixel(pico_layer, monkeypatch):
    module, rig = pico_layer
    stopped = []
    monkeypatch.setattr(module, "watchdog_off", lambda: stopped.append(True))
    board = build(module)
    board.show(bytearray([255] * 192))
    sm = rig.machines[0]
    board.release()
    assert sm.words[-192:] == [0] * 192          # the dark frame was sent
    assert rig.sleeps and rig.sleeps[-1] >= 290  # and latched before the machine stopped
    assert not sm.active() and stopped == [True] and rig.dmas[0].closed


def test_a_laptop_that_stops_reading_costs_lines_not_time(pico_layer, capsys):
    module, rig = pico_layer
    board = build(module)
    capsys.readouterr()
    board.write_line('{"ev":"a"}')
    rig.writable = False
    for i in range(400):                          # 2 KB of queue: about 110 of these fit
        board.write_line('{"ev":"b","n":%d}' % i)
    assert 250 < board.unsent < 300 and rig.sleeps == []
    rig.writable = True
    for _ in range(100):                          # a pass sends at most 192 bytes
        board.service(rig.now)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == '{"ev":"a"}' and len(out) == 1 + 400 - board.unsent
    assert out[1:] == ['{"ev":"b","n":%d}' % i for i in range(len(out) - 1)]   # whole lines, in order


def test_pio_capture_is_the_default_and_falls_back_to_irq_saying_why(pico_layer, capsys):
    module, rig = pico_layer                        # CPython has no uctypes: PIO cannot start
    from courtside.settings import DEFAULTS
    assert DEFAULTS["capture"] == "pio"
    board = build(module, dict(DEFAULTS))
    assert board.capture.name == "irq"
    assert any("pio capture unavailable, using irq" in n for n in board.notes)
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert any(x["ev"] == "error" and "using irq" in x["msg"] for x in lines)


def test_a_board_that_cannot_load_the_native_handler_uses_the_bytecode_one(pico_layer):
    module, rig = pico_layer                        # the stand-in micropython has no viper
    board = build(module)
    assert board.capture.name == "irq" and board.capture.native is False
    assert any("native code unavailable, using bytecode" in n for n in board.notes)
    assert board._pack is chain.pack
    assert board.finish is None                     # the core keeps courtside.power.finish
    lags = [board.capture._lags[p] for p in board._buttons]
    assert lags == [module.dispatch_lag_us(g) for g in board.pins.button_gpio]
    assert module.dispatch_lag_us(0) == 0 and module.dispatch_lag_us(15) == 5


def test_the_core_reports_unsent_lines_once_they_flow_again():
    """A board that dropped lines (the laptop held the port without reading) says how
    many once lines flow again: the driver hands the count to the core."""
    import asyncio

    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair, seeded
    from courtside_host.records.replay import Items
    from courtside_sim.board import SimBoard

    class Lossy(SimBoard):
        def __init__(self, pins):
            SimBoard.__init__(self, pins, script=Items([(0, "cmd", "ping", None)]), out=self.keep)
            self.kept = []
            self.drop = 3

        def keep(self, text):
            if self.drop:
                self.drop -= 1
                self.unsent += 1
            else:
                self.kept.append(json.loads(text))

    pins = Pins(json.loads(json.dumps(PINMAP)))
    hw = Lossy(pins)
    asyncio.run(driver.run(Core(pins, None, Fair(seeded(1))), hw))
    reports = [e for e in hw.kept if e["ev"] == "unsent"]
    assert reports and reports[0]["lines"] == 3 and reports[0]["total"] == 3


@pytest.mark.parametrize("held", [True, False])
def test_safe_mode_reads_the_button_after_the_pull_up_settles(pico_layer, monkeypatch, held):
    module, rig = pico_layer
    import time
    waited = []
    monkeypatch.setattr(time, "sleep_ms", waited.append, raising=False)
    monkeypatch.setattr(module.Pin, "value", lambda self, v=None: 0 if held else 1)
    assert module.main_held(Pins(json.loads(json.dumps(PINMAP)))) is held
    assert waited and waited[0] >= 1


def test_a_frame_after_a_long_pause_is_not_held_back_by_the_tick_wrap(pico_layer):
    module, rig = pico_layer
    board = build(module)
    (sm,) = rig.machines
    rig.drain_us = 1920
    board.show(bytearray(192))
    rig.now = 2000
    board.service(rig.now)                       # the line went idle at 2000
    rig.now = 2000 + (1 << 29) + 5               # over half the tick circle later: diff() < 0
    board.show(bytearray([9] * 192))
    assert sm.starts[-1] == rig.now


def test_garbage_is_collected_before_a_wait_after_output_not_in_a_busy_pass(pico_layer, monkeypatch):
    import gc
    module, rig = pico_layer
    board = build(module)
    collected = []
    takes = [9_400, 21_700, 10_100]               # the collections' lengths, in us

    def collect():
        collected.append(rig.now)
        rig.now += takes[len(collected) - 1]
    monkeypatch.setattr(gc, "collect", collect)
    board.service(rig.now)                        # the first pass makes the watchdog
    rig.now = 300_000
    board.tidy(500)
    assert collected == []                        # nothing was made since the start: no garbage
    board.show(bytearray(192))
    board.tidy(0)                                 # more to do at once: not now
    board.tidy(5)                                 # too short a wait to spend on it
    assert collected == []
    feeds = rig.feeds
    board.tidy(10)
    assert collected == [300_000] and rig.feeds == feeds + 1 and board.tidy_collections == 1
    assert board.longest_collect_us == 9_400
    rig.now = 340_000
    board.write_line(bytearray(b'{"ev":"pong","t":1}'))
    board.tidy(1000)                              # only 40 ms after the last one
    assert collected == [300_000]
    rig.now = 360_000
    board.tidy(1000)
    assert collected == [300_000, 360_000] and board.longest_collect_us == 21_700
    board.tidy(1000)                              # nothing made since
    assert len(collected) == 2
    rig.now = 500_000
    board.show(bytearray(192))
    board.tidy(1000)
    assert len(collected) == 3 and board.longest_collect_us == 21_700    # the longest is kept
