"""Capture: the ring and the interrupt handler."""

import subprocess

import pytest
from conftest import FIRMWARE, ROOT
from courtside.capture import IrqCapture
from courtside.ring import Ring


def test_capture_handler_never_allocates_on_micropython(micropython):
    """The very handler a Pico interrupt calls runs under micropython.heap_lock()."""
    run = subprocess.run([micropython, str(ROOT / "tests" / "mp" / "capture_heap_lock.py"), str(FIRMWARE)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    # 63 of 200 snapshots fit a 64-slot ring; the rest are counted, and the oldest is kept.
    assert run.stdout.split() == ["stored", "63", "dropped", "137", "first", str(0x1FFFF ^ 1), "True"]


class Flag:
    def __init__(self):
        self.count = 0

    def set(self):
        self.count += 1


def test_one_snapshot_per_interrupt_shared_by_pins_that_changed_together():
    ring, flag = Ring(8), Flag()
    levels = [0b1111]
    capture = IrqCapture(ring, lambda: levels[0], lambda: 777, 0b0111, flag)
    levels[0] = 0b1000          # pins 0, 1, 2 closed at once; pin 3 is not a button
    capture.irq(None)
    out = [0, 0]
    assert ring.get(out) and out == [777, 0b0000]
    assert not ring.get(out) and flag.count == 1


def test_ring_keeps_order_and_counts_what_it_drops():
    ring = Ring(4)
    for i in range(6):
        ring.put(i, i)
    out = [0, 0]
    got = []
    while ring.get(out):
        got.append(out[0])
    assert got == [0, 1, 2] and ring.dropped == 3
    ring.put(9, 9)
    assert ring.get(out) and out == [9, 9]


def test_ring_size_must_be_a_power_of_two():
    with pytest.raises(ValueError):
        Ring(100)


class FakePin:
    def __init__(self, flags):
        self.flags_now = flags

    def irq(self):
        return self

    def flags(self):
        return self.flags_now


def test_a_falling_edge_counts_even_if_the_contact_bounced_open_before_the_handler_ran():
    ring, flag = Ring(8), Flag()
    pin = FakePin(flags=4)                      # raised by a falling edge (IRQ_FALLING = 4)
    capture = IrqCapture(ring, lambda: 0b11, lambda: 50, 0b11, flag, {pin: 0b10}, 4)
    capture.irq(pin)                            # the register already reads open again
    out = [0, 0]
    assert ring.get(out) and out == [50, 0b01]
    pin.flags_now = 8                           # a rising edge is taken as the register says
    capture.irq(pin)
    assert ring.get(out) and out == [50, 0b11]
