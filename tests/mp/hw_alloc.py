# Runs on the MicroPython unix port: heap bytes the hardware layer's own code takes per
# frame, per press and per line, and none in an idle pass. Prints one JSON object.
# Zero claims run under micropython.heap_lock() (any allocation raises MemoryError);
# the others are measured with gc.mem_alloc() around the call, collection off.
# argv: the firmware folder.
import json
import sys
from array import array

import micropython

sys.path.insert(0, sys.argv[1])
from courtside import display, power
from courtside.hw import chain, native
from courtside.hw.lines import Receiver, Sender
from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring
from measure import allocated

figures = {}


def locked(name, fn):
    """Run fn() under heap_lock: 0 bytes, or the figure says it allocated."""
    micropython.heap_lock()
    try:
        fn()
        micropython.heap_unlock()
        figures[name] = 0
    except MemoryError:
        micropython.heap_unlock()
        figures[name] = "allocates"


def measured(name, fn):
    figures[name] = allocated(fn)


# A frame: brightness, power cap, chain order, on the brightest frame there is.
frame = bytearray(b"\xff" * 192)
table = chain.order(True, True)
out = bytearray(192)
display.scale(frame, 200)          # builds the brightness table once (preallocated)


def build_frame():
    for i in range(192):
        frame[i] = 255
    display.scale(frame, 200)
    power.limit(frame)
    chain.pack(frame, table, out)


locked("frame", build_frame)

# The native packer: the same bytes as chain.pack, and no allocation either.
src = bytes((7 * i + 3) & 0xFF for i in range(192))
fast = bytearray(192)
locked("frame (native pack)", lambda: native.pack(src, table, fast))
figures["native pack matches"] = fast == chain.pack(src, table, bytearray(192))


# The native finisher (brightness, power cap), on the brightest frame there is.
def finish_frame():
    for i in range(192):
        frame[i] = 255
    native.finish(frame, 200)


locked("frame (native finish)", finish_frame)

# A press through the PIO drain: a levels word and its count word, counts at the top
# of the 30-bit range, stamps across the tick wrap.
WORDS = 64
halves = array("H", range(2 * WORDS))
ring = Ring(64)
stamper = Stamper(125000000)
stamper.start(0x3FFFFF00)
drain = Drain(ring, stamper, halves, 0, 30, 0x3FFFFFFF)
drain.last = 0x3FFFFFFF
state = [0, 0x3FFFFFFF]     # words written, counter


def press():
    j = 2 * (state[0] % WORDS)
    halves[j] = 0x0000          # levels word: every one of 30 pins pressed, bit 31 set
    halves[j + 1] = 0xC000
    j = 2 * ((state[0] + 1) % WORDS)
    state[1] = (state[1] - 1000) & 0x3FFFFFFF
    halves[j] = state[1] & 0xFFFF
    halves[j + 1] = state[1] >> 16
    state[0] += 2
    drain.last = 0x3FFFFFFF
    drain.take(state[0], 0x3FFFFFFF)


pair = [0, 0]
locked("press (PIO drain)", press)
def take():
    while ring.get(pair):
        pass


locked("ring get", take)


# USB lines: an idle pass (nothing to read, nothing queued) and a busy one.
class Port:
    def __init__(self, data=b""):
        self.data = data
        self.at = 0
        self.sent = 0

    def readinto(self, buf):
        buf[0] = self.data[self.at]
        self.at += 1
        return 1

    def write(self, buf, off, n):     # MicroPython's stream write with an offset and a length
        self.sent += n
        return n


def always():
    return True


def never():
    return False


tx = Sender(Port(), always)
rx_idle = Receiver(Port(), never)


def idle_pass():
    rx_idle.read_line()
    tx.pass_begin()
    tx.flush()


locked("idle pass (lines)", idle_pass)
# The board's own readiness checks, real select.poll objects: the very first one of a
# fresh poller allocates nothing either (the tuple a first ipoll makes was made at start).
import select  # noqa: E402

from courtside.hw.lines import poller, primed  # noqa: E402

ready = poller(sys.stdin, select.POLLIN)
locked("first poll of a fresh poller", ready)
wake = primed(select.poll())
wake.register(sys.stdin, select.POLLIN)


def poll_once(p):
    for _ in p.ipoll(0):
        return True
    return False


locked("first ipoll of a primed poll", lambda: poll_once(wake))
bare = select.poll()
bare.register(sys.stdin, select.POLLIN)
locked("first ipoll of a bare poll", lambda: poll_once(bare))    # what priming saves
line = '{"ev":"press","t":123456,"p":2,"b":"THROW","rank":1}'
encoded = bytearray(line.encode())     # as events.encode hands it over: the queue keeps this very buffer
measured("line queued", lambda: tx.write_line(encoded))
tx.pass_begin()
locked("line sent", tx.flush)
rx = Receiver(Port(b"set tie_us=800\nset tie_us=900\n"), always)
rx.read_line()
measured("command read", rx.read_line)
figures["line_chars"] = len(line)
print(json.dumps(figures))
