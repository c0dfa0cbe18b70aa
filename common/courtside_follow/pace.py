"""The matrix's schedule, read from the stream: a face shows what the matrix shows, when.

A refereed board sends a move's events (the move, deaths, the deathballs' whole run, the
shrinking board, the winner, the next turn) the moment the move is entered, and the die's
face the moment it is rolled; its matrix then shows them at a pace people can follow.
``Paced`` holds each record back until the matrix shows it, on the matrix's own schedule
(the pauses of ``courtside.deathball.modes``, the roll of ``courtside.deathball.die``,
both scaled by the ``pace`` setting), and feeds it to the follower then, so a log, a
legend, a board panel or a status line never tell the run before the matrix has shown it.
``ready`` (the matrix has shown it all, or ROLL skipped to the end of it) lets everything
held go at once; so does anything that starts afresh (``hello``, ``mode``, a new game).

Times: the stream's ``t`` is the board's clock; ``now`` is the face's own clock (any
microsecond count that only goes forward), given with each record as it arrives and to
``due``. The least difference between the two seen is taken as the board's clock on the
face's (a record never arrives before its time). ``now`` None (a log read from a file, a
test) shows everything at once.

    paced = Paced(follower)
    paced.put(record, now_us)            # as each record arrives (schema-checked by take)
    for record in paced.due(now_us):     # those the matrix shows by now, in order,
        log(sentence(record))            # already taken by the follower
"""

from courtside.deathball import die, modes
from courtside.settings import scaled

# The events the referee's matrix shows in turn, pausing after some (``RefereeMode._next``).
SHOWN = ("roll", "initiative", "order", "setup", "turn", "skip", "move", "push", "death", "ball",
         "bounce", "shrink", "clamp", "winner")
# What lets everything held go: the matrix has shown it all, or starts afresh.
SHOWN_ALL = ("ready", "hello", "mode", "lobby", "start", "referee", "position")
_PAUSE_MS = {"death": modes.DEATH_MS, "shrink": modes.SHRINK_MS}


class Paced:
    def __init__(self, follower):
        self.follow = follower
        self.held = []          # [shown at (board us), order of arrival, record]
        self.arrived = 0
        self.offset = None      # the face's clock minus the board's (the least seen)
        self.mode = None        # the board's mode, as the records put so far say
        self.pace = 100         # the pace setting, as they say
        self.cursor = None      # when the matrix showed the last event of its schedule
        self.last = None        # that event

    def put(self, record, now=None):
        """A record as it arrives, ``now`` on the face's clock (None: no clock)."""
        kind = record["ev"]
        t = record["t"]
        if type(t) is not int:     # not an event the follower takes: let it go at once
            self.held.append([-1, self.arrived, record])
            self.arrived += 1
            return
        if kind == "hello":
            self.offset = None  # another session: another clock
        if now is not None and (self.offset is None or now - t < self.offset):
            self.offset = now - t
        self._follow(kind, record)
        if kind in SHOWN_ALL:
            for item in self.held:
                item[0] = min(item[0], t)
            self.cursor = self.last = None
            at = t
        elif kind in SHOWN and self.mode == "referee":
            at = self._scheduled(kind, record)
        elif kind == "roll" and self.mode == "die":
            at = t + die.times(False, self.pace)[0] * 1000    # the face, after its tumble
        else:
            at = t
        self.held.append([at, self.arrived, record])
        self.arrived += 1

    def due(self, now=None):
        """The records the matrix shows by ``now`` (all of them for None), in the order it
        shows them, each taken by the follower (those the schema refuses left out)."""
        out = []
        while True:
            record = self.next(now)
            if record is None:
                return out
            out.append(record)

    def next(self, now=None):
        """The next record the matrix shows by ``now``, taken by the follower; None when
        there is none (yet). A face that says something after each record calls this."""
        held = self.held
        while held:
            first = min(held)
            if now is not None and self.offset is not None and first[0] > now - self.offset:
                return None
            held.remove(first)
            if self.follow.take(first[2]) is None:
                return first[2]
        return None

    def waiting(self):
        """True while records are held back (the matrix still shows what came before)."""
        return bool(self.held)

    def _follow(self, kind, record):
        """The mode and pace in force, as the records say when they arrive (the follower
        learns them only when they are shown)."""
        if kind in ("hello", "mode", "start"):
            self.mode = record.get("mode")
        elif kind == "referee":
            self.mode = "referee"
        elif kind == "lobby":
            self.mode = None
        if kind == "hello" and isinstance(record.get("settings"), dict):
            self.pace = record["settings"].get("pace", 100)
        elif kind == "settings" and "pace" in record:
            self.pace = record["pace"]
        if type(self.pace) is not int or self.pace <= 0:
            self.pace = 100

    def _scheduled(self, kind, record):
        """When the referee's matrix shows ``record``: after what it showed last and that
        event's pause, and never before the board decided it."""
        start = record["t"]
        if self.cursor is not None:
            start = max(start, self.cursor + self._pause(self.last, record) * 1000)
        self.cursor = start
        self.last = record
        if kind == "bounce":
            return start + die.times(True, self.pace)[0] * 1000   # the die's face, after its tumble
        return start

    def _pause(self, last, record):
        """ms the matrix holds ``last`` before it shows ``record``."""
        kind = last["ev"]
        pace = self.pace
        if kind == "ball":
            if record["ev"] == "ball" and record.get("step") == last.get("step"):
                return 0          # both balls' step shown as one
            return scaled(modes.STEP_MS, pace)
        if kind == "bounce":     # the quick roll, then the new heading
            return die.times(True, pace)[1] + scaled(modes.HEADING_MS, pace)
        if kind == "roll":
            if last.get("purpose") != "initiative" or record["ev"] == "roll":
                return 0          # the bars show once every roll is in
            return scaled(modes.BARS_MS, pace)
        if kind in _PAUSE_MS:
            return scaled(_PAUSE_MS[kind], pace)
        return 0
