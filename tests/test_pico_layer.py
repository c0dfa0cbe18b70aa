"""The Pico hardware layer on stand-ins for ``rp2`` and ``machine``: what it asks of the
board when frames follow each other, when it lets go, when the laptop stops reading, and
when the PIO backend cannot start."""

import json

import pytest
from conftest import ROOT
from courtside.pins import Pins
from test_ws2812 import pico  # noqa: F401 - the fixture: pico.py imported on stand-ins

PINMAP = json.loads((ROOT / "hardware" / "pinmap.json").read_text())


def build(module, settings=None):
    return module.Pico(Pins(json.loads(json.dumps(PINMAP))), settings or {})


def test_frames_are_kept_apart_long_enough_to_latch(pico):  # noqa: F811
    module, rig = pico
    board = build(module)
    board.show(bytearray(192))
    assert rig.sleeps == []                      # nothing sent before: no wait
    board.show(bytearray(192))
    assert rig.sleeps and rig.sleeps[-1] >= 280  # WS2812B-V5 latches after >= 280 us low
    assert rig.emergency == [100]


def test_release_lets_the_dark_frame_reach_the_last_pixel(pico, monkeypatch):  # noqa: F811
    module, rig = pico
    stopped = []
    monkeypatch.setattr(module, "watchdog_off", lambda: stopped.append(True))
    board = build(module)
    board.show(bytearray([255] * 192))
    sm = rig.machines[0]
    before = len(rig.sleeps)
    board.release()
    assert sm.words[-64:] == [0] * 64            # the dark frame was sent
    assert len(rig.sleeps) > before + 1          # and latched before the machine stopped
    assert not sm.active() and stopped == [True]


def test_a_laptop_that_stops_reading_costs_lines_not_time(pico, monkeypatch, capsys):  # noqa: F811
    module, rig = pico
    board = build(module)
    writable = [True]

    class Poll:
        def register(self, *args):
            pass

        def poll(self, timeout):
            assert timeout == 0                  # never waits
            return [(1, 4)] if writable[0] else []

    import select
    monkeypatch.setattr(select, "poll", Poll)
    board.write_line('{"ev":"a"}')
    writable[0] = False
    board.write_line('{"ev":"b"}')
    board.write_line('{"ev":"c"}')
    writable[0] = True
    board.write_line('{"ev":"d"}')
    assert capsys.readouterr().out.split() == ['{"ev":"a"}', '{"ev":"d"}']
    assert board.unsent == 2


def test_pio_backend_that_cannot_start_falls_back_to_irq(pico, capsys):  # noqa: F811
    module, rig = pico                           # these stand-ins have no rp2.DMA
    board = build(module, {"capture": "pio"})
    assert board.capture.name == "irq"
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["ev"] == "error" and "using irq" in line["msg"]


def test_the_app_reports_unsent_lines_once_they_flow_again():
    import asyncio

    from courtside.app import App
    from courtside.hw.sim import Sim

    class Lossy(Sim):
        def __init__(self, pins):
            Sim.__init__(self, pins, script=[(0, "cmd", "ping", None)], out=self.keep)
            self.kept = []
            self.unsent = 0
            self.drop = 3

        def keep(self, text):
            if self.drop:
                self.drop -= 1
                self.unsent += 1
            else:
                self.kept.append(json.loads(text))

    hw = Lossy(Pins(json.loads(json.dumps(PINMAP))))
    asyncio.run(App(hw).run())
    reports = [e for e in hw.kept if e["ev"] == "unsent"]
    assert reports and reports[0]["lines"] == 3 and reports[0]["total"] == 3


@pytest.mark.parametrize("held", [True, False])
def test_safe_mode_reads_the_button_after_the_pull_up_settles(pico, monkeypatch, held):  # noqa: F811
    module, rig = pico
    import time
    waited = []
    monkeypatch.setattr(time, "sleep_ms", waited.append, raising=False)
    monkeypatch.setattr(module.Pin, "value", lambda self, v=None: 0 if held else 1)
    assert module.main_held(Pins(json.loads(json.dumps(PINMAP)))) is held
    assert waited and waited[0] >= 1
