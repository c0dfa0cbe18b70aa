"""A long line in parts: a storm's verdict lists hundreds of presses, and a board that
encoded it whole spent one pass on it (922 ms on the chip for 221 presses, the line
built by reallocating one growing buffer). ``events.parts`` gives the same bytes as
``events.encode`` cut after every ``PART_ITEMS`` items of a long list; ``driver.apply``
writes them to a board a part at a time while its queue has room and the pass has time,
the effects after it waiting, so the stream is the same line for line; the sender keeps
a line in parts open (``mid_line``) until its newline, so a stop never writes into it."""

import json
import subprocess

from conftest import ROOT
from courtside import driver, events
from courtside.effects import EVENT
from courtside.hw.lines import Sender
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hw_chip import Port

FIRMWARE = ROOT / "firmware"

entries = st.fixed_dictionaries({
    "n": st.integers(0, (1 << 30) - 1), "p": st.integers(1, 4),
    "b": st.sampled_from(["THROW", "DODGE", "CATCH", "PASS", 'q"uote', "\u00e9t\u00e9", "\x7f"]),
    "rank": st.integers(1, 400), "lag": st.integers(0, 1_500_000), "tie": st.booleans(),
    "early": st.sampled_from([False, "no throw open", "throw already answered"])})


def verdict(n, c=7):
    return {"c": c, "order": [{"n": i + 1, "p": i % 4 + 1, "b": "THROW", "rank": i + 1, "lag": 37 * i,
                               "tie": False, "early": False} for i in range(n)], "tie_us": 1000}


@settings(max_examples=200, deadline=None)
@given(st.lists(entries, max_size=70), st.lists(st.integers(0, 9), max_size=40),
       st.integers(0, (1 << 30) - 1))
def test_parts_join_to_the_line_encode_makes(order, players, t):
    fields = {"c": 3, "order": order, "players": players, "tie_us": 800}
    got = list(events.parts("verdict", t, fields))
    assert b"".join(got) == events.encode("verdict", t, fields)
    cuts = sum((len(v) - 1) // events.PART_ITEMS for v in (order, players) if len(v) > events.PART_ITEMS)
    assert len(got) == 1 + cuts
    assert events.long(fields) == (len(order) > events.PART_ITEMS or len(players) > events.PART_ITEMS)


def test_parts_on_micropython_are_the_same_bytes(micropython):
    script = (
        "import sys\nsys.path.insert(0, %r)\nfrom courtside import events\n"
        "f = {'c': 7, 'order': [{'n': i + 1, 'p': i %% 4 + 1, 'b': 'THROW', 'rank': i + 1, "
        "'lag': 37 * i, 'tie': False, 'early': False} for i in range(%d)], 'tie_us': 1000}\n"
        "ps = list(events.parts('verdict', 5, f))\n"
        "print(len(ps), bytes(b''.join(ps)).decode())\n" % (str(FIRMWARE), 50))
    out = subprocess.run([micropython, "-c", script], capture_output=True, text=True, check=True,
                         timeout=60).stdout.split(" ", 1)
    assert int(out[0]) == -(-50 // events.PART_ITEMS)       # the last part closes the line
    assert out[1].strip() == events.line("verdict", 5, verdict(50))


class PartsBoard:
    """A board whose queue empties ``drain`` bytes a pass; every tick read costs 1 ms."""
    bytes_out = True

    def __init__(self, limit=8192, drain=3000):
        self.tx_port = Port()
        self.tx = Sender(self.tx_port, lambda: False, limit=limit)
        self.drain = drain
        self.now = 0
        self.parts_written = 0
        self.rooms = []
        self.open = False

    def ticks_us(self):
        self.now += 1000
        return self.now

    def write_line(self, data):
        assert not self.open, "a line written inside a line in parts"
        assert self.tx.write_line(data)

    def write_part(self, data, end):
        self.rooms.append(self.tx.room())
        self.parts_written += 1
        self.open = not end
        self.tx.write_part(data, end)

    def room(self):
        return self.tx.room()

    def pass_over(self):
        """The port takes ``drain`` bytes between passes."""
        self.tx._ready = lambda: True
        self.tx._budget = self.drain
        self.tx.flush()
        self.tx._ready = lambda: False

    def stream(self):
        self.tx._ready = lambda: True
        self.tx.finish(10)
        return b"".join(self.tx_port.written)


def test_a_long_line_goes_a_part_at_a_time_and_what_follows_waits():
    board = PartsBoard()
    big = verdict(300)
    made = [(EVENT, "press", 10, {"n": 1}), (EVENT, "verdict", 20, big), (EVENT, "tie", 20, {"c": 7}),
            (EVENT, "press", 30, {"n": 2})]
    effects = list(made)
    passes = 0
    while driver.apply(effects, board, until=board.ticks_us() + 5000):
        passes += 1
        assert passes < 100
        assert effects[0][0] == driver.PARTS and len(effects) == 3     # the rest wait behind it
        board.pass_over()
    want = b"".join(events.encode(k, t, f) + b"\n" for _, k, t, f in made)
    assert board.stream() == want
    assert passes >= 3                                    # spread over passes, not one
    assert board.parts_written == -(-300 // events.PART_ITEMS) + 1   # the parts and the newline
    assert min(board.rooms) >= driver.PART_ROOM           # a part only where it fits


def test_a_simulated_board_gets_the_line_whole():
    class Lines:
        bytes_out = False

        def __init__(self):
            self.out = []

        def write_line(self, text):
            self.out.append(text)

    board = Lines()
    assert driver.apply([(EVENT, "verdict", 20, verdict(40))], board) == 0
    assert board.out == [events.line("verdict", 20, verdict(40))]


def test_a_line_in_parts_is_open_until_its_newline():
    port = Port()
    tx = Sender(port, lambda: True)
    tx.write_part(bytearray(b'{"ev":"verdict","order":[1,'), False)
    assert tx.mid_line() and tx.queued() == 0             # all sent, but the line is not over
    tx.write_part(bytearray(b"2]}"), False)
    assert tx.mid_line()
    tx.write_part(b"", True)
    assert not tx.mid_line()
    assert b"".join(port.written) == b'{"ev":"verdict","order":[1,2]}\n'
    json.loads(b"".join(port.written))


class SlowPartsBoard(PartsBoard):
    """Every part takes ``part_us`` to make and write; reading the clock costs nothing."""

    def __init__(self, part_us):
        super().__init__(limit=1 << 20)
        self.part_us = part_us

    def ticks_us(self):
        return self.now

    def write_part(self, data, end):
        self.now += self.part_us
        super().write_part(data, end)


def test_no_part_is_begun_that_would_end_past_the_pass():
    """With 10 ms a pass and parts of 6 ms, a pass writes one part: a second, begun at
    6 ms while time was left, would have ended at 12."""
    for part_us, per_pass in ((6000, 1), (3000, 3), (2400, 4), (11000, 1)):
        board = SlowPartsBoard(part_us)
        effects = [(EVENT, "verdict", 20, verdict(300))]
        start = board.now
        driver.apply(effects, board, until=start + 10_000)
        assert board.parts_written == per_pass, part_us
        assert board.now - start <= max(10_000, part_us)
