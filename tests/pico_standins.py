"""Stand-ins for ``rp2``, ``machine``, ``micropython`` and ``select`` (``uctypes`` on
request), for importing ``courtside.hw.pico`` on CPython: the PIO assembler is the shared
stand-in, DMA writes hand the state machine the FIFO words a byte write makes on the
RP2040 bus, soft timers run their callbacks as MicroPython's scheduler does, and every
request is remembered for the tests (``conftest.py`` serves it as the ``pico_layer`` fixture)."""

import types

from pio_standin import assemble


class Standins:
    """Stand-ins for ``rp2``, ``machine`` and ``select``; remembers what pico.py asked of them.
    A poll of stdin with a timeout moves the clock on by it (the loop's wait)."""

    def __init__(self):
        self.assembled = []     # (function, config, program) for every asm_pio use
        self.machines = []
        self.dmas = []
        self.emergency = []     # sizes asked of alloc_emergency_exception_buf
        self.sleeps = []        # time.sleep_us calls
        self.feeds = 0          # watchdog feeds
        self.now = 0            # the microsecond clock, moved by the tests
        self.writable = True    # what a POLLOUT poll of stdout says
        self.readable = False   # what a POLLIN poll of stdin says
        self.drain_us = 0       # how long a started DMA transfer stays busy
        self.timers = []        # machine.Timer objects made (soft timers, fired by fire_timers)
        self.removed = []       # programs taken out of a PIO block's instruction memory

    def fire_timers(self):
        """Run every running timer whose period is due at ``now``, as MicroPython's scheduler
        runs a soft timer's callback between two bytecodes: an exception raised in it is
        printed and dropped (``mp_call_function_1_protected``), never passed to the code
        that was running."""
        for t in list(self.timers):
            while t.running and self.now >= t.next_us:
                t.next_us += 1000 * t.period
                try:
                    t.callback(t)
                except BaseException as e:
                    print("Traceback (most recent call last):\n%s: %s" % (type(e).__name__, e))

    def sleep(self, us):
        self.sleeps.append(us)
        self.now += us

    def modules(self):  # noqa: C901 - the board's modules, one small stand-in class each
        rig = self

        rp2 = types.ModuleType("rp2")

        class PIO:
            IN_LOW, IN_HIGH, OUT_LOW, OUT_HIGH = 0, 1, 2, 3
            SHIFT_LEFT, SHIFT_RIGHT = 0, 1
            JOIN_NONE, JOIN_TX, JOIN_RX = 0, 1, 2

            def __init__(self, block=0):
                self.block = block

            def remove_program(self, program):
                rig.removed.append((self.block, program))

        def asm_pio(**config):
            def build(func):
                program = assemble(func, **config)
                rig.assembled.append((func, config, program))
                return program
            return build

        class StateMachine:
            def __init__(self, sm_id, program, **kw):
                self.sm_id, self.program, self.kw = sm_id, program, kw
                self.words = []
                self.starts = []    # rig.now at each transfer the DMA started
                self.on = False
                rig.machines.append(self)

            def active(self, value=None):
                if value is not None:
                    self.on = bool(value)
                return self.on

            def tx_fifo(self):
                return 0        # the stand-in DMA hands over a transfer at once

        class DMA:
            def __init__(self):
                self.kw = {}
                self.busy_until = None
                self.closed = False
                rig.dmas.append(self)

            def pack_ctrl(self, **kw):
                return dict(kw)

            def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
                for key, value in (("read", read), ("write", write), ("count", count), ("ctrl", ctrl)):
                    if value is not None:
                        self.kw[key] = value
                if trigger and self.kw["write"] != 0x50200010:
                    # the PIO capture channel: from a state machine's RX FIFO into a RAM
                    # ring; no word arrives here, so its counter stays where it started
                    assert self.kw["ctrl"]["size"] == 2 and not self.kw["ctrl"]["inc_read"]
                    self.count = self.kw["count"]
                    self.busy_until = float("inf")
                elif trigger:
                    ctrl = self.kw["ctrl"]
                    assert ctrl["size"] == 0 and ctrl["inc_read"] and not ctrl["inc_write"]
                    assert self.kw["write"] == 0x50200010      # PIO0 TXF0
                    (sm,) = [m for m in rig.machines if m.sm_id == 0]
                    sm.starts.append(rig.now)
                    data = bytes(self.kw["read"][:self.kw["count"]])
                    sm.words.extend(b * 0x01010101 for b in data)  # a byte write fills all four lanes
                    self.busy_until = rig.now + rig.drain_us

            def active(self, value=None):
                if value is not None and not value:
                    self.busy_until = None
                return self.busy_until is not None and rig.now < self.busy_until

            def close(self):
                self.closed = True

        rp2.PIO = PIO
        rp2.asm_pio = asm_pio
        rp2.StateMachine = StateMachine
        rp2.DMA = DMA

        machine = types.ModuleType("machine")

        class Pin:
            IN, OUT, PULL_UP = 0, 1, 2
            IRQ_FALLING, IRQ_RISING = 4, 8

            def __init__(self, gpio, mode=None, pull=None, value=None):
                self.gpio = gpio

            def value(self, v=None):
                return 1

            def irq(self, *args, **kw):
                return None

        class PWM:
            def __init__(self, pin):
                self.pin = pin

            def duty_u16(self, duty):
                self.duty = duty

            def freq(self, f):
                self.f = f

        class WDT:
            def __init__(self, timeout):
                self.timeout = timeout

            def feed(self):
                rig.feeds += 1

        class Timer:
            PERIODIC, ONE_SHOT = 1, 0

            def __init__(self, mode=None, period=None, callback=None):
                self.period, self.callback, self.running = period, callback, True
                self.next_us = rig.now + 1000 * period
                rig.timers.append(self)

            def deinit(self):
                self.running = False

        machine.Pin = Pin
        machine.PWM = PWM
        machine.WDT = WDT
        machine.Timer = Timer
        machine.mem32 = {}
        machine.freq = lambda: 125_000_000
        machine.reset = lambda: None

        micropython = types.ModuleType("micropython")
        micropython.const = lambda x: x
        micropython.alloc_emergency_exception_buf = rig.emergency.append

        select = types.ModuleType("select")
        select.POLLIN, select.POLLOUT = 1, 4

        class Poll:
            event = None                             # nothing registered: nothing ready

            def register(self, stream, event):
                self.event = event

            def ipoll(self, timeout):
                if self.event is None:
                    return iter([])
                if self.event == select.POLLOUT:
                    assert timeout == 0              # a write is never waited for
                    return iter([(None, self.event)] if rig.writable else [])
                if not rig.readable and timeout > 0:
                    rig.sleep(1000 * timeout)        # the loop's wait: time passes
                return iter([(None, self.event)] if rig.readable else [])

        select.poll = Poll
        return {"rp2": rp2, "machine": machine, "micropython": micropython, "select": select}

    def uctypes(self):
        """A ``uctypes`` for a test that wants PIO capture to start (without it, as on
        CPython, the layer falls back to IRQ capture): every buffer sits at one 4 KB-aligned
        address."""
        uctypes = types.ModuleType("uctypes")
        uctypes.addressof = lambda obj: 0x20001000
        return uctypes


