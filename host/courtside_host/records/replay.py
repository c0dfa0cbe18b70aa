"""Replay: a saved log's inputs fed back to the firmware's own core, its output compared.

Since stream 2 a log records every input the board acted on, in order: each command
line (``cmd``), each debounced press (``press``, ``ignored``, ``button``) and release
(``release``, ``unstuck``) of every button, and the settings in force at start (in
``hello``). Replay splits the log into sessions (one per ``hello``: a restart ends a
session), turns each session's inputs back into the edges and lines a board would have
had, and runs them through ``courtside.core`` on the simulated board in virtual time, the
very code the board runs, Dodge Ball and Deathball alike. Two things cannot be replayed
and are taken from the log instead:

- chance: a tie's fair draw and each die face are read from the log (``RecordedDraws``);
- the board's buffers: ``overflow`` and ``unsent`` are not compared.

With the recorded settings the replayed stream must equal the log, event for event
(times aside: a board's passes come a little late, the replay's exactly on time). With
other settings (``overrides``) the contests whose verdict would differ are listed.

The core runs as it is, on a board nobody watches (``_Board``): nothing is drawn, lit or
sounded, and the driver hands it each event as a record, not as text. What the report
says of contests and games is read from the stream by the laptop's one follower
(``courtside_follow.follower``), one following the board's stream as the log is read and
one the replay's as the core writes it: each contest is the verdict each side's follower
took, with the presses it had open and the settings in force (``Contest``), and each
game its end on either side (``Outcome``: a Deathball winner, or none).

A session is replayed as it is read: the log is read a little ahead of the core (the
inputs of the next ``AHEAD_US`` of play, at most ``AHEAD_MAX`` events), each replayed
event is compared with the board's as soon as both are there and then let go, and a
contest is handed on (``on_contest``) once both sides have judged it. So memory does not
grow with a session's length; with ``keep`` False the report holds only what differs (at
most ``KEPT_MAX`` of each kind), and counts the rest. With ``keep`` True (the default, for
short logs and tests) every session's events and every contest are kept.

A log is checked before anything in it reaches the core, by the laptop's one schema
(``courtside_follow.schema``, against its session's stream version): a record that is not
an event as the stream has them (an unknown kind or field, a field of the wrong type, a
lone surrogate in a text, a time past ``MAX_T``, a button its session's board does not
have) is left out and counted (``Report.damaged``); a session whose ``hello`` cannot be a
board's (its boxes, mode or settings) is not replayed and says why (``Session.problem``).
A record of an older stream is read with today's field names (``schema.upgrade``: a
stream before 6 calls ``shrink``'s ``border`` ``ring``), so it compares with the replay's.

A log that starts in the middle of a game (a monitor attached to a running board) is
replayed from its first game start. Before that, the Dodge Ball presses it holds (the
first ``LOOSE_MAX`` events) are re-judged on their own, through the firmware's arbiter
(``loose_contests``): a contest already open when the log began, and an answer to a
throw made before it, cannot be judged, and the report says so. A Deathball game cannot be
picked up without its start.

    report = rejudge(eventlog.iterate(path), {"tie_us": 5000}, keep=False, on_contest=show)
    report.identical, report.differences, report.differing()
"""

import gc
import heapq
from collections import deque

from courtside import driver
from courtside import settings as config
from courtside.core import Core
from courtside.events import STREAM
from courtside.fair import Fair, seeded
from courtside.pins import ARROWS, BUTTONS, Pins
from courtside_follow import schema
from courtside_follow.follower import Follower
from courtside_follow.schema import INPUTS as _INPUTS
from courtside_follow.schema import (
    MAX_BOXES,
    MAX_T,  # noqa: F401 - the latest time a log may give, for callers
    SURROGATE,
    check,
)
from courtside_follow.schema import lone_surrogate as _lone_surrogate
from courtside_follow.schema import shown as _shown
from courtside_sim.board import SimBoard

JUDGING = ("tie_us", "contest_ms", "answer_ms")
NOT_COMPARED = ("overflow", "unsent")   # what the board's link, not its core, says


def _board_only(ev):
    """An event the core does not write and so a replay cannot: the link's overflow and
    unsent counts, and the virtual Pico console's refusal of a bad ``sim`` line."""
    kind = ev["ev"]
    return kind in NOT_COMPARED or kind == "error" and ev.get("line", "").split()[:1] == ["sim"]


_NOT_STREAM_KINDS = NOT_COMPARED + ("error",)     # the kinds _board_only may say yes to


AHEAD_US = 10_000_000    # the log is read this far (in play time) ahead of the core...
AHEAD_MAX = 5000         # ...but never more than this many inputs ahead
WAITING_MAX = 20000      # board events with no replayed counterpart yet: past this, a difference
LOOSE_MAX = 20000        # events before the first session or game start that are re-judged
KEPT_MAX = 1000          # with keep False: differing contests, outcomes, sessions, notes kept
DAMAGED_KEPT = 20        # messages about damaged records kept (all are counted)
MEMORY_MB = 80           # the most a replay holds, whatever the log's length (bench/replay_speed.py)


class RecordedDraws(Fair):
    """The board's chance, as the log recorded it: die faces in order, each tie's drawn
    order by its players. Anything else (the die's tumbling faces) is drawn from a seed.
    ``more`` (a callable) is asked to read on in the log when no recorded draw is left."""

    def __init__(self, faces=(), draws=(), seed=1, more=None):
        super().__init__(seeded(seed))
        self.faces = deque(faces)
        self.draws = [list(d) for d in draws]   # 0-based players in drawn order
        self.unrecorded = []                    # ties or rolls the log had no answer for
        self.unrecorded_count = 0
        self.more = more

    def d6(self):
        if not self.faces and self.more is not None:
            self.more(lambda: self.faces)
        if self.faces:
            return self.faces.popleft()
        self._unrecorded(("roll", None))
        return super().d6()

    def shuffle(self, items):
        want = sorted(items)
        found = self._draw(want)
        if found is None and self.more is not None:
            self.more(lambda: self._draw(want, take=False) is not None)
            found = self._draw(want)
        if found is not None:
            items[:] = found
            return items
        self._unrecorded(("tie", tuple(want)))
        items.sort()           # no draw to follow: lowest player first, and said so
        return items

    def _draw(self, want, take=True):
        for i, drawn in enumerate(self.draws):
            if sorted(drawn) == want:
                return self.draws.pop(i) if take else drawn
        return None

    def _unrecorded(self, what):
        self.unrecorded_count += 1
        if len(self.unrecorded) < KEPT_MAX:
            self.unrecorded.append(what)

    def add(self, kind, value):
        """A face or a tie's draw read from the log (the oldest go past ``AHEAD_MAX``)."""
        if kind == "face":
            self.faces.append(value)
            if len(self.faces) > AHEAD_MAX:
                self.faces.popleft()
        else:
            self.draws.append(value)
            if len(self.draws) > AHEAD_MAX:
                del self.draws[0]


class Contest:
    """One contest as the followers of the two streams read it: the board's verdict and
    the replay's (each as its follower keeps it, its ``tie`` records in ``ties``), the
    settings in force when it was judged (the board's, where the board judged it) and the
    presses the board's follower had open for it (those withdrawn taken out)."""

    def __init__(self, session, number, recorded, replayed, settings=None):
        self.session = session     # 0: before the log's first session (re-judged on its own)
        self.number = number       # (game, contest)
        self.recorded = recorded   # the board's verdict event (dict), or None
        self.replayed = replayed   # the replay's, or None
        self.settings = settings or {}   # the settings in force when it was judged
        self.presses = []          # the press events of the contest (dicts), from the log

    @property
    def same(self):
        return self.recorded is not None and self.replayed is not None and \
            _verdict_key(self.recorded) == _verdict_key(self.replayed)


class Outcome:
    """How one game in a session ended, on the board and in the replay."""

    def __init__(self, session, game, mode, recorded, replayed):
        self.session = session
        self.game = game
        self.mode = mode
        self.recorded = recorded   # the board's end as its follower says it (a winner record),
                                   # or None (unfinished, Dodge Ball)
        self.replayed = replayed

    @property
    def same(self):
        def key(ev):
            return None if ev is None else (ev.get("p"), ev.get("together"))
        return key(self.recorded) == key(self.replayed)


class Session:
    """One run of the firmware in the log, from its ``hello``. ``recorded`` and
    ``replayed`` hold its events only when the replay keeps them (``keep``)."""

    def __init__(self, number, hello):
        self.number = number
        self.hello = hello
        self.recorded = [hello]            # events as dicts, hello first (with keep)
        self.replayed = []
        self.difference = None             # (index, recorded, replayed) at the first mismatch
        self.problem = None                # why the session could not be replayed at all
        self.unrecorded = []
        self.notes = []
        self.beyond = {}                   # kind -> events the replay wrote after the log stops
        self.stops = None                  # the log's last time, where it stops (beyond only)
        self.events = 0                    # events replayed
        self.read = 0                      # events read from the log


class Report:
    def __init__(self, overrides, keep=True):
        self.overrides = overrides
        self.keep = keep
        self.sessions = []        # every session (keep), or those with something to say
        self.session_count = 0
        self.event_count = 0      # events replayed
        self.read_count = 0       # events read from the log after each session's hello
        self.loose_count = 0      # contests re-judged before the first game start
        self.loose_differing = 0
        self.failed_count = 0     # sessions that differ or could not be replayed
        self.contests = []        # every contest (keep), or those that differ
        self.contest_count = 0    # contests replayed
        self.differing_count = 0
        self.outcomes = []        # games' ends: every one (keep), else the first KEPT_MAX
        self.outcome_count = 0
        self.ended_count = 0      # games with an end on either side
        self.outcome_differing = 0
        self.skipped = 0          # events before the first game start (a log started mid-session)
        self.firmware = None
        self.notes = []           # what could not be re-judged, and why
        self.damaged = []         # why records were left out (the first DAMAGED_KEPT)
        self.damaged_count = 0

    @property
    def differences(self):
        return [s for s in self.sessions if s.difference is not None or s.problem is not None]

    @property
    def identical(self):
        return bool(self.session_count or self.loose_count) and not self.failed_count and \
            not self.loose_differing

    def differing(self):
        return [c for c in self.contests if not c.same]

    @property
    def unrecorded(self):
        return [(s.number, u) for s in self.sessions for u in s.unrecorded]

    def damage(self, why):
        self.damaged_count += 1
        if len(self.damaged) < DAMAGED_KEPT:
            self.damaged.append(why)

    def note(self, text):
        if len(self.notes) < KEPT_MAX:
            self.notes.append(text)

    def _contest(self, contest, on_contest):
        self.contest_count += 1
        if not contest.same:
            self.differing_count += 1
        if self.keep or (not contest.same and len(self.contests) < KEPT_MAX):
            self.contests.append(contest)
        if on_contest is not None:
            on_contest(contest)

    def _outcome(self, outcome):
        self.outcome_count += 1
        if not outcome.same:
            self.outcome_differing += 1
        if outcome.recorded is None and outcome.replayed is None:
            return                  # a game with no end to compare (Dodge Ball's, one cut short)
        self.ended_count += 1
        if self.keep or len(self.outcomes) < KEPT_MAX:
            self.outcomes.append(outcome)


class Items:
    """Inputs already in hand, with the interface of ``courtside_sim.script.Script``: what
    the simulated board plays in virtual time."""

    def __init__(self, items):
        self._items = sorted(items, key=lambda i: i[0])   # stable: equal times keep order
        self._i = 0
        self.last = self._items[-1][0] if self._items else 0

    def next_time(self):
        return self._items[self._i][0] if self._i < len(self._items) else None

    def take(self):
        self._i += 1
        return self._items[self._i - 1]

    def save_settings(self, settings):
        """A save the inputs ask for: taken (there is no log to say how it went)."""
        return None


# checking what a log holds -------------------------------------------------------------

def damaged(ev, stream=STREAM):
    """Why a record from a log cannot be taken as the event it claims to be, or None (the
    schema's verdict, ``courtside_follow.schema``). ``stream``: its session's version. A
    ``hello`` is a session's boundary whatever its fields say (its session is not replayed
    when they cannot be a board's: ``_hello_problem``), unless its time is not one or it
    holds a lone surrogate."""
    problem = check(ev, stream)
    return problem if problem is None else _left_out(ev, problem)


def _left_out(ev, problem):
    """The ``problem`` the schema found with ``ev``, or None for a hello kept all the same."""
    if ev["ev"] != "hello" or problem.startswith("hello event: t "):
        return problem
    return "hello event: " + SURROGATE if _lone_surrogate(ev) else None


def _hello_problem(hello, made_up=False, log=None):
    """Why a session's ``hello`` cannot be a board's (so it cannot be replayed), or None
    (as ``log`` found it, when it was the last hello read). One ``made_up`` for a log
    started mid-session holds only a mode, boxes and settings."""
    if made_up:
        return schema.board_problem(hello)
    return log.hello[1] if log is not None and log.hello[0] is hello else check(hello)


# reading a log ahead of the core --------------------------------------------------------

class _Log:
    """The checked events of a log, one at a time, with one event put back."""

    def __init__(self, events, report=None):
        self.it = iter(events)
        self.back = []
        self.report = report
        self.stream = STREAM        # the version of the stream of the session being read
        self.hello = (None, None)   # the last hello read and what the schema says of it

    def next(self):
        if self.back:
            return self.back.pop()
        for ev in self.it:
            if not isinstance(ev, dict) or ev.get("ev") == "log":   # a log's head line: not an event
                continue
            problem = check(ev, self.stream) if self.report is not None else None
            if problem is not None and _left_out(ev, problem) is not None:
                self.report.damage(_left_out(ev, problem))
                continue
            if self.stream < STREAM:
                schema.upgrade(ev, self.stream)     # an older stream's field names as today's
            if ev["ev"] == "hello":
                self.stream = ev["stream"] if type(ev.get("stream")) is int else STREAM
                self.hello = (ev, problem) if self.report is not None else (None, None)
            return ev
        return None

    def push(self, ev):
        self.back.append(ev)


def rejudge(events, overrides=None, keep=True, on_contest=None):
    """Replay every session of ``events`` (dicts, as ``eventlog.read`` or ``eventlog.iterate``
    give them), each as it is read. ``keep`` False lets every event go once it is compared
    (the report keeps what differs); ``on_contest`` is called with each contest as soon as
    both sides have judged it."""
    overrides = dict(overrides or {})
    report = Report(overrides, keep)
    log = _Log(events, report)
    frozen = hasattr(gc, "freeze")
    if frozen:      # the objects already made are never garbage: no collection walks them
        gc.freeze()
    try:
        ev = _before_first(log, overrides, report, on_contest)
        while ev is not None:                           # a hello
            ev = _session(log, ev, overrides, report, on_contest)
    finally:
        if frozen:
            gc.unfreeze()
    if keep:
        report.contests.sort(key=lambda c: (c.session, c.number))
    return report


def _before_first(log, overrides, report, on_contest):
    """The events before the log's first hello: a log started in the middle of a session.
    Returns the first hello (or None)."""
    before = []
    cut = 0
    ev = log.next()
    while ev is not None and ev["ev"] not in ("hello", "start"):
        if len(before) < LOOSE_MAX:
            before.append(ev)
        else:
            cut += 1
        ev = log.next()
    report.skipped = len(before) + cut
    if cut:
        report.note("the log starts with %d events before any session or game start: only the first "
                    "%d were re-judged" % (len(before) + cut, LOOSE_MAX))
    for contest in loose_contests(before, overrides, report.notes):
        report.loose_count += 1
        report.loose_differing += not contest.same
        report._contest(contest, on_contest)
    if ev is None or ev["ev"] == "hello":
        return ev
    settings = None                 # a game start: replayed from there, behind a made-up hello
    for e in before:
        if e["ev"] == "settings":
            settings = {k: v for k, v in e.items() if k not in ("ev", "t")}
    hello = {"ev": "hello", "t": ev["t"], "mode": ev.get("mode", "dodgeball"), "boxes": MAX_BOXES,
             "settings": settings}
    log.push(ev)
    return _session(log, hello, overrides, report, on_contest, start=ev)


def _session(log, hello, overrides, report, on_contest, start=None):
    """Replay one session from ``hello`` as the log is read; returns the next hello or None."""
    report.session_count += 1
    session = Session(report.session_count, hello)
    if report.firmware is None and start is None:
        report.firmware = hello.get("fw")
    run = _Run(session, log, overrides, report, on_contest, start)
    session.problem = _hello_problem(hello, start is not None, log)
    if session.problem is None and start is not None and not _players_ok(start):
        session.problem = "its first game start names players that are not boxes 1 to %d" % MAX_BOXES
    if session.problem is None:
        run.go()
    else:
        run.skip()
    report.event_count += session.events
    report.read_count += session.read
    if session.problem is not None or session.difference is not None:
        report.failed_count += 1
    if report.keep or ((session.problem or session.difference or session.notes or session.unrecorded)
                       and len(report.sessions) < KEPT_MAX):
        report.sessions.append(session)
    return run.next_hello


def _players_ok(start):
    players = start.get("players", ())
    return isinstance(players, list) and all(type(p) is int and 1 <= p <= MAX_BOXES for p in players)


# What the report reads from a follower (settings, games and their ends, contests and
# verdicts) comes from these kinds alone: the rest (a Deathball board's moves, what the
# board waits for) is not fed to it, which would cost a replay about a twentieth of its
# speed for nothing it reports.
_FOLLOWED = frozenset(("hello", "settings", "mode", "lobby", "start", "press", "withdrawn",
                       "verdict", "tie", "winner"))


class _Run:
    """One session replayed through the core while its log is read, just ahead.

    For the simulated board it is the script (``next_time``, ``take``, ``last``); for the
    core's draws the source of recorded chance; it compares each replayed event with the
    board's as soon as both are there."""

    def __init__(self, session, log, overrides, report, on_contest, start=None, compare=None):
        self.session = session
        self.log = log
        self.overrides = overrides
        self.report = report
        self.keep = report.keep
        self.on_contest = on_contest
        self.start = start              # a session picked up at a game start (no hello of its own)
        self.next_hello = None
        self.ended = False              # the session's last event has been read
        self.heap = []                  # (t, seq, kind, a, b): inputs read, not yet taken
        self.seq = 0
        self.read_t = 0
        self.last = 0
        self.pins = None
        self.compare = not overrides if compare is None else compare
        self.what_if = bool(overrides)  # judged with other settings: contests paired by presses
        self.waiting = deque()          # (t, comparable): the board's events not yet replayed
        self.coming = deque()           # (t, comparable): the replay's not yet read from the log
        self.index = 0                  # comparable events matched so far
        self.releases = {}              # (t, p, b): board's count minus the replay's
        self.follow = (Follower(), Follower())   # the board's stream and the replay's, followed
        self.verdicts = ({}, {})        # (game, c) -> (verdict, settings, presses), per side,
                                        # until both sides have judged it
        self.ends = {}                  # game -> [mode, board's end, replay's end]
        self.seen = start is None       # the replay's events count from its hello (or start)
        self.rng = RecordedDraws(more=self._more)
        self.unrecorded_at_end = None   # how many draws had no answer when the log stopped
        self.drawn = {}                 # (c, rank) -> the draw read from the last verdict
        self.saves = deque()            # the board's answers to the saves that reached its flash
        self.unlogged = ()              # settings the replay writes that the log's board had not
        self.no_hold = False            # a log before stream 5: the replay's hold, pending, cursor set aside
        set_line = "set " + " ".join("%s=%s" % kv for kv in sorted(overrides.items()))
        self.set_line = set_line if overrides else None

    # the script the simulated board plays ----------------------------------------------

    def next_time(self):
        heap = self.heap
        while not self.ended and \
                (not heap or (self.read_t < heap[0][0] + AHEAD_US and len(heap) < AHEAD_MAX)):
            self._read()
        return heap[0][0] if heap else None

    def take(self):
        t, _, kind, a, b = heapq.heappop(self.heap)
        self.last = max(self.last, t)
        return t, kind, a, b

    def _more(self, found):
        """Read on (at most ``AHEAD_MAX`` events) until ``found()``: a draw the core asks for."""
        if not self.what_if and self._stopped():    # a tie or roll after the log stops
            if self.unrecorded_at_end is None:
                self.unrecorded_at_end = len(self.rng.unrecorded)
            return
        for _ in range(AHEAD_MAX):
            if self.ended or found():
                return
            self._read()

    def _input(self, t, kind, a, b):
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, a, b))

    # the board's side, as read ------------------------------------------------------------

    def _read(self):
        ev = self.log.next()
        if ev is None or ev["ev"] == "hello":
            self.next_hello = ev
            self.ended = True
            return
        self.session.read += 1
        kind = ev["ev"]
        t = ev["t"]
        self.read_t = max(self.read_t, t)
        if kind in _INPUTS and ev["p"] > self.pins.boxes:
            self.report.damage("%s event: box %d, where the session's hello has %d boxes"
                               % (kind, ev["p"], self.pins.boxes))
            return
        item = input_of(ev, self.pins)
        if item is not None:
            self._input(t, *item)
            if self.set_line and kind == "cmd" and ev["line"].split()[:1] == ["set"]:
                self._input(t, "cmd", self.set_line, None)     # what if: still in force
        elif kind in ("roll", "bounce") and not ev["forced"]:
            self.rng.add("face", ev["face"])
        elif kind == "verdict":
            self._draws_of(ev)
        elif kind == "tie" and self.drawn.pop((ev["c"], ev["rank"]), None) != ev["draw"]:
            self.rng.add("draw", [p - 1 for p in ev["draw"]])
        elif kind in ("ok", "error"):
            self._save_answer(ev)
        if self.keep:
            self.session.recorded.append(ev)
        if kind in _FOLLOWED:
            self._judged(0, ev)
        if not self.compare:
            return
        if kind == "release":
            self._release((t, ev["p"], ev["b"]), 1)
        elif self._getting_there(ev):
            pass
        elif kind not in _NOT_STREAM_KINDS or not _board_only(ev):
            self.waiting.append((t, _comparable(ev, (), self.no_hold)))
            self._match()

    def _draws_of(self, verdict):
        """A verdict's tied presses stand in the order their tie was drawn: the same draws
        as the ``tie`` events written after it, read from the verdict so that a log cut
        between the two still holds them. Each is remembered until its ``tie`` comes, which
        then adds nothing."""
        groups = {}
        for item in verdict["order"]:
            if item["tie"] is True:
                groups.setdefault(item["rank"], []).append(item["p"])
        self.drawn = {}
        for rank in sorted(groups):
            if len(groups[rank]) > 1:
                self.drawn[(verdict["c"], rank)] = groups[rank]
                self.rng.add("draw", [p - 1 for p in groups[rank]])

    def _save_answer(self, ev):
        """A board's answer to a save that reached its flash (since stream 4 its one answer),
        kept for the replay's board to give when the replayed core saves."""
        from courtside.core import SAVE_REFUSED
        if ev["ev"] == "ok" and ev["cmd"] == "save":
            self.saves.append(None)
        elif ev["ev"] == "error" and ev["line"].split() == ["save"] and ev["msg"] not in SAVE_REFUSED:
            self.saves.append(ev["msg"])

    def save_settings(self, settings):
        """The replay's board saves as the board did: the log's answer (read on for it)."""
        self._more(lambda: self.saves)
        return self.saves.popleft() if self.saves else "the log does not say how this save went"

    def _release(self, key, delta):
        left = self.releases.get(key, 0) + delta
        if left:
            self.releases[key] = left
        else:
            del self.releases[key]

    def _match(self):
        waiting, coming = self.waiting, self.coming
        while waiting and coming:
            was = waiting.popleft()[1]
            now = coming.popleft()[1]
            if was != now:
                self._differs(was, now)
                return
            self.index += 1
        if len(waiting) > WAITING_MAX or len(coming) > WAITING_MAX:
            self._differs_first()

    def _differs_first(self):
        waiting, coming = self.waiting, self.coming
        self._differs(waiting[0][1] if waiting else None, coming[0][1] if coming else None)

    def _differs(self, was, now):
        self.session.difference = (self.index, was, now)
        self.compare = False
        self.waiting.clear()
        self.coming.clear()
        self.releases.clear()

    # the replay's side ---------------------------------------------------------------------

    def _replayed(self, ev):
        if not self.seen:               # picked up at a game start: from the replay's own start
            if ev["ev"] != "start":
                return
            self.seen = True
        if self._getting_there(ev):
            return
        if self.ended and ev["t"] >= self.read_t and self._past_the_log(ev):
            self._beyond(ev)
            return
        self.session.events += 1
        if self.keep:
            self.session.replayed.append(ev)
        kind = ev["ev"]
        if kind in _FOLLOWED:
            self._judged(1, ev)
        if not self.compare:
            return
        if kind == "release":
            self._release((ev["t"], ev["p"], ev["b"]), -1)
        elif kind in ("hold", "pending", "cursor") and self.no_hold:
            pass                        # the log's board did not say it
        elif kind not in _NOT_STREAM_KINDS or not _board_only(ev):
            self.coming.append((ev["t"], _comparable(ev, self.unlogged, self.no_hold)))
            self._match()

    def _getting_there(self, ev):
        """An ``ok`` to a ``join`` or ``start`` at the game start a session is picked up
        at: the replay sends those lines to get there, and the board may have had presses
        instead; on neither side is it compared."""
        return self.start is not None and ev["ev"] == "ok" and ev["t"] == self.start["t"] \
            and ev.get("cmd") in ("join", "start")

    def _stopped(self):
        """The session's log is read to its end and every board event before its last
        instant has had its match: what the replay writes now, the log may not hold."""
        waiting = self.waiting
        return self.ended and (not waiting or waiting[0][0] >= self.read_t)

    def _past_the_log(self, ev):
        """An event the replay writes that the log has no room for: not before the log's
        last instant, and not one the board wrote there (a release counted, or the next
        event the board has waiting)."""
        if ev["t"] < self.read_t or not self._stopped():
            return False
        if not self.compare:        # what if, or after a difference: nothing waits to be matched
            return ev["t"] > self.read_t
        if ev["ev"] == "release":
            return (ev["t"], ev["p"], ev["b"]) not in self.releases
        waiting = self.waiting
        return not waiting or waiting[0][1] != _comparable(ev, self.unlogged, self.no_hold)

    def _beyond(self, ev):
        """An event the replay writes after the log stops: the session's log is read to its
        end, the board's every event has had its match, and this one is not earlier than
        the board's last. A log cut short (a cable pulled, a board reset, a monitor
        stopped) holds no room for it, so it is counted, not compared: the log stops
        here, in the middle of whatever the replay goes on to finish. (The log may also
        stop inside one pass of the board, after events whose cause it cut off: those of
        its last instant the replay does not write are said so in ``_finish``.)"""
        beyond = self.session.beyond
        if not beyond:
            self.session.stops = self.read_t
        beyond[ev["ev"]] = beyond.get(ev["ev"], 0) + 1

    # contests and games, as the follower of each side's stream reads them -----------------

    def _judged(self, side, ev):
        """Feed ``ev`` (of a kind in ``_FOLLOWED``) to the follower of its side (the board's
        stream or the replay's), and hand on what the follower then says was judged: a
        contest's verdict, with the presses it had open and the settings in force; a
        game's end."""
        kind = ev["ev"]
        follow = self.follow[side]
        if kind != "verdict":
            follow.feed(ev)
            if kind == "start":
                self.ends.setdefault(follow.games, [follow.mode, None, None])
                self._close_games()
            elif kind == "winner" and follow.games in self.ends:
                self.ends[follow.games][1 + side] = {"ev": "winner", "t": follow.t, "p": follow.winner,
                                                     "together": follow.together}
            return
        open_ = follow.contest
        presses = open_["presses"] if side == 0 and open_ is not None and open_["c"] == ev["c"] else []
        follow.feed(ev)
        verdict = follow.verdict
        # Judged again with other settings the contests fall otherwise and their numbers
        # with them: a contest is then the one that starts with the same press.
        first = min(p["n"] for p in ev["order"]) if self.what_if else ev["c"]
        key = (follow.games, first)
        mine, theirs = self.verdicts[side], self.verdicts[1 - side]
        if key in theirs and side == 1:         # (the board's settings head it: no copy)
            self._contest(key, theirs.pop(key), (verdict, None, presses))
            return
        judged = (verdict, dict(follow.settings), presses)
        if key in theirs:
            self._contest(key, judged, theirs.pop(key))
        else:
            mine[key] = judged
            if len(mine) > AHEAD_MAX:           # never judged on the other side
                old = next(iter(mine))
                self._contest(old, *((mine.pop(old), None) if side == 0 else (None, mine.pop(old))))

    def _contest(self, key, board, replay):
        """A contest as the two sides judged it: each (verdict, settings, presses) or None.
        It is headed with the board's settings where the board judged it."""
        recorded, settings, presses = board or (None, None, [])
        replayed = replay[0] if replay else None
        number = (key[0], (recorded or replayed)["c"])      # the board's number where it has one
        contest = Contest(self.session.number, number, recorded, replayed,
                          settings if board else replay[1])
        contest.presses = presses
        self.report._contest(contest, self.on_contest)

    def _close_games(self, everything=False):
        done = min(self.follow[0].games, self.follow[1].games)
        for game in sorted(self.ends):
            if game < done or everything:
                mode, was, now = self.ends.pop(game)
                self.report._outcome(Outcome(self.session.number, game, mode, was, now))

    # running ----------------------------------------------------------------------------

    def go(self):
        session = self.session
        hello = session.hello
        self._judged(0, hello)
        follow = self.follow[0]
        settings = follow.settings      # the hello's over the defaults, as the follower reads them
        said = isinstance(hello.get("settings"), dict)
        logged = hello["settings"] if said else {}
        if not said and self.start is None:     # (picked up at a game start: said below)
            session.notes.append("stream %s logs no settings at start: the defaults are assumed"
                                 % _shown(hello.get("stream")))
        try:
            settings = config.merged(config.DEFAULTS, dict(settings, **self.overrides))
        except ValueError as e:
            session.problem = "with the settings asked for: %s" % e
            return self.skip()
        self.pins = pins_for(hello.get("boxes", MAX_BOXES))
        # settings the log's board did not have, as its hello says (a log picked up in the
        # middle of a session has no hello to say it: none assumed missing)
        self.unlogged = () if self.start is not None and not logged else \
            tuple(name for name in config.ADDED if name not in logged)
        self.no_hold = not follow.says_hold()
        if self.start is not None:      # bring the core to the game start, unseen
            start = self.start
            session.notes.append("replayed from its first game start, at %.3f s%s" % (
                                     start["t"] / 1e6, "" if said else
                                     ", with the default settings (the log shows none before it)"))
            for line in ["join %d" % p for p in start.get("players", ())] + ["start"]:
                self._input(start["t"], "cmd", line, None)
            self._judged(1, hello)
            session.replayed.append(hello)
        elif self.compare:
            self.waiting.append((hello["t"], _comparable(hello)))
        _run(self.pins, self, settings, self.rng, hello.get("mode", "dodgeball"), self._replayed,
             hello.get("can_save") is True)
        while not self.ended:           # what the core never asked for (inputs past its end)
            self._read()
        session.unrecorded = self.rng.unrecorded[:self.unrecorded_at_end]   # not those after it stops
        self._finish()
        return None

    def skip(self):
        """A session that cannot be replayed: its events are read and let go."""
        while not self.ended:
            ev = self.log.next()
            if ev is None or ev["ev"] == "hello":
                self.next_hello = ev
                self.ended = True
            else:
                self.session.read += 1

    def _last_instant(self):
        """What the board wrote in its log's last instant and the replay did not (all of
        it, when nothing earlier is left unmatched): said, not called a difference."""
        left = [key for key in self.releases if key[0] >= self.read_t and self.releases[key] > 0]
        for key in left:
            del self.releases[key]
        count = len(self.waiting) + len(left)
        if count:
            self.session.notes.append(_last_instant_note(count, self.read_t))
        self.waiting.clear()

    def _finish(self):
        if self.session.beyond:
            self.session.notes.append(_stops(self.session))
        for key in sorted(set(self.verdicts[0]) | set(self.verdicts[1])):
            self._contest(key, self.verdicts[0].get(key), self.verdicts[1].get(key))
        self._close_games(everything=True)
        if not self.compare:
            return
        if not self.coming and (not self.waiting or self.waiting[0][0] >= self.read_t):
            self._last_instant()
        if self.waiting or self.coming:
            self._differs_first()
        elif self.releases:
            self._differs("releases", "releases")
            self.session.difference = (None, "releases", "releases")


def _last_instant_note(count, t):
    what = "event" if count == 1 else "%d events" % count
    return "the log stops inside the board's pass at %.3f s: the %s it holds from that instant " \
           "that the replay does not write are not compared (their cause may be what was cut " \
           "off)" % (t / 1e6, what)


def _stops(session):
    """What a session's log ends in the middle of, for its note."""
    beyond = session.beyond
    during = ", with a contest open" if "verdict" in beyond else \
        ", during the deathballs' run" if "ball" in beyond or "death" in beyond else ""
    kinds = ", ".join("%d %s" % (n, kind) for kind, n in sorted(beyond.items()))
    count = sum(beyond.values())
    what = "event" if count == 1 else "%d events" % count
    return "the log stops here, at %.3f s%s: the %s the replay writes after that (%s) not " \
           "compared" % (session.stops / 1e6, during, what, kinds)


class _Board(SimBoard):
    """The simulated board as a replay has it: nobody watches its matrix, box lights or
    buzzer, and it takes the core's events as records, not lines.

    ``watch`` tells the core so through what it lends its stages (``Context.seen``: no
    stage draws, and animations ask for no pass per picture; box lights and buzzer that
    are dark, ``_Dark``, so no blink or note asks for one either), so no frame is asked
    for. A stage with a ``seen`` flag of its own (the Deathball referee's blinking) is told
    nobody watches whenever no button is being debounced or held (``_Watched``): then the
    passes it would ask for only to blink cannot change anything the core decides. (While
    a button is, every pass counts: the debouncer ends its locks and finds stuck buttons
    in the passes it gets, so a replay keeps the board's passes there.) Each event goes to
    ``take`` as a record (a dict, as a log's line reads), not through its text and back
    (``take_event``, which the driver hands events to); a save is answered as the log
    says (``script.save_settings``)."""

    def __init__(self, pins, script, take):
        super().__init__(pins, script=script)
        self.take = take
        self.core = None
        self.stage = None           # the stage last told whether it is watched

    def watch(self, core):
        ctx = core.ctx
        ctx.seen = False
        ctx.lights = ctx.tunes = _Dark()
        self.core = core

    def take_event(self, kind, t, fields):
        ev = {k: v if type(v) in _SCALARS else _plain(v) for k, v in fields.items()}
        ev["ev"] = kind
        ev["t"] = t
        self.take(ev)

    def save_settings(self, settings):
        return self.script.save_settings(settings)

    def service(self, now):
        stage = self.core.stage
        if stage is not self.stage:     # a stage started in this pass
            self.stage = stage
            if hasattr(stage, "seen"):
                stage.seen = _Watched(self.core.debouncer)


_SCALARS = (int, str, bool, type(None))


class _Dark:
    """Box lights and a buzzer that nobody has: patterns and tunes asked for go nowhere
    and ask for no pass (what they show decides nothing the stream says)."""

    def set(self, box, pattern, now):
        pass

    def play(self, name, now):
        pass

    def run(self, now):
        return None

    step = run


def _plain(value):
    """``value`` as a log's line would read back: lists for tuples, and a copy, so that
    nothing the core changes later changes an event already taken."""
    kind = type(value)
    if kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_plain(v) for v in value]
    return value


class _Watched:
    """True (someone watches) while the debouncer is busy, for a stage's ``seen``."""

    def __init__(self, debouncer):
        self.debouncer = debouncer

    def __bool__(self):
        return self.debouncer.due_i >= 0     # a lock or timeout still running


def _run(pins, script, settings, rng, mode, take, can_save=False):
    """The core as it is on a replay's board (``_Board``) over ``script``'s inputs, in
    virtual time, by the driver's own loop (``driver.run_virtual``, as the headless
    simulator runs it), each event it writes handed to ``take`` as a record. A save gets
    the answer the log gives (``script.save_settings``)."""
    board = _Board(pins, script, take)
    core = Core(pins, settings, rng, now=board.ticks_us(), levels=board.levels(),
                capture=board.capture.name, mode=mode, can_save=can_save)
    board.watch(core)
    driver.run_virtual(core, board)
    return core


def loose_contests(events, overrides=None, notes=None):
    """Re-judge the Dodge Ball presses of a log's part before any session or game start,
    through the core from a game started just before the first of them with the players
    they come from, as far as the board's next lobby (the inputs after it are left out: no
    contest is judged in a lobby, and a long press begun before the log, which the replay
    cannot have, may be what took the board there);
    returns Contests (session 0). ``notes`` gets what cannot be judged. ``events`` must
    be checked events (as ``damaged`` finds none wrong).

    The board's press and contest numbers had run on before the log began, the replay's
    start at 1: each replayed verdict is matched to the board's by its presses, in order,
    as the follower of each stream has them (``_Run``)."""
    notes = [] if notes is None else notes
    if any(e.get("ev") in ("move", "setup", "turn") for e in events):
        notes.append("the log starts in the middle of a Deathball game: its moves cannot be "
                     "re-judged without the game's start")
    first = next((i for i, e in enumerate(events) if e["ev"] == "press"), None)
    if first is None:
        return []
    board = Follower()              # the settings in force at the first press, as followed
    for e in events[:first]:
        board.feed(e)
    try:
        settings = config.merged(config.DEFAULTS, dict(board.settings, **(overrides or {})))
    except ValueError as e:
        notes.append("the presses before the first game start were not re-judged: %s" % e)
        return []
    end = first                     # the game's inputs: up to the board's next lobby, if any
    while end < len(events) and board.phase != "lobby":
        board.feed(events[end])
        end += 1
    events = events[first:end] + [e for e in events[end:] if e["ev"] not in _INPUTS and e["ev"] != "cmd"]
    t = events[0]["t"]
    players = sorted({e["p"] for e in events if e["ev"] == "press"})
    players += [b for b in (1, 2, 3, 4) if b not in players][:max(0, 2 - len(players))]
    hello = {"ev": "hello", "t": t, "mode": "dodgeball", "boxes": MAX_BOXES, "settings": settings}
    # the game starts a millisecond before the first press (a pass takes edges before lines)
    start = {"ev": "start", "t": max(0, t - 1000), "mode": "dodgeball", "players": players}
    report = Report(overrides or {}, keep=True)
    run = _Run(Session(0, hello), _Log(events), overrides or {}, report, None, start, compare=False)
    run.go()
    return _matched(report.contests, run.follow[0].contest, notes)


def _matched(judged, still_open, notes):
    """The loose contests (``judged``: each judged by one side alone) paired by their
    presses: the replay's presses in order stand for the board's (``still_open``: the
    board's contest the log stops in, if any)."""
    boards = [c for c in judged if c.recorded is not None]
    logged = [p for c in boards for p in c.presses] + (still_open["presses"] if still_open else [])
    replays = [c for c in judged if c.replayed is not None]
    to_board = dict(zip(sorted(o["n"] for c in replays for o in c.replayed["order"]),
                        (p["n"] for p in logged)))
    logged = {p["n"]: p for p in logged}
    recorded = {tuple(sorted(o["n"] for o in c.recorded["order"])): c.recorded for c in boards}
    out = []
    for c in replays:
        mine = c.replayed
        order = [dict(o, n=to_board.get(o["n"], o["n"])) for o in mine["order"]]
        key = tuple(sorted(o["n"] for o in order))
        board = recorded.get(key)
        if board is None:
            held = next((v for k, v in recorded.items() if any(n in k for n in key)), None)
            if held is not None:
                notes.append("contest %s was already open when the log began: not re-judged"
                             % held.get("c"))
                continue
        first_press = logged.get(order[0]["n"])
        c_number = board.get("c") if board else first_press.get("c") if first_press else mine.get("c")
        contest = Contest(0, (0, c_number), board, dict(mine, c=c_number, order=order), c.settings)
        contest.presses = [logged[o["n"]] for o in order if o["n"] in logged]
        out.append(contest)
    if out:
        notes.append("before the first game start in the log, %d contests were re-judged from "
                     "a game started at its first press; an answer to a throw made before the "
                     "log began reads as early" % len(out))
    return out


def pins_for(boxes):
    """A pin map with ``boxes`` boxes: the replay needs the board's shape, not its wiring."""
    data = {"board": "pico", "boxes": [], "buzzer": 27, "matrix": {"pin": 28}}
    gpio = 0
    for box in range(boxes):
        data["boxes"].append({"buttons": {b: gpio + k for k, b in enumerate(BUTTONS)}, "led": 20 + box})
        gpio += 4
    data["main_button"] = gpio
    return Pins(data)


def input_of(ev, pins):
    """The input a board had for a (checked) log record, as the simulated board takes it:
    ("cmd", line, None) or ("edge", button id, closed); None for a record that is not an
    input. A press is an edge at its first edge's time, a release likewise."""
    kind = ev["ev"]
    if kind == "cmd":
        return "cmd", ev["line"], None
    if kind in ("press", "ignored", "button"):
        return "edge", _button_of(ev, pins), True
    if kind in ("release", "unstuck"):
        return "edge", _button_of(ev, pins), False
    return None


def _button_of(ev, pins):
    name = ev.get("b")
    p = ev.get("p")
    if p == 0 and name == "MAIN":
        return pins.main_id
    k = BUTTONS.index(name) if name in BUTTONS else ARROWS.index(name)
    return 4 * (p - 1) + k


def _comparable(ev, unlogged=(), before_hold=False):
    """``ev`` as compared: without its time, and (``unlogged``, the replay's side) without
    the settings added since the log's board was made, which it ran at their defaults;
    ``before_hold``: a log before stream 5, whose refusals named what they waited for in
    other words."""
    kind = ev.get("ev")
    if kind in NOT_COMPARED or kind == "release":
        return None
    out = ev.copy()
    del out["t"]
    if kind in ("hello", "pong"):
        out.pop("capture", None)
        out.pop("stream", None)         # the log's version, not something the core decides
    elif before_hold and kind == "refuse" and str(out.get("reason")).startswith("wait for "):
        out["reason"] = "wait for ..."  # words that changed in stream 5, as one refusal
    if unlogged and kind == "settings":
        for name in unlogged:
            out.pop(name, None)
    elif unlogged and kind == "hello" and isinstance(out.get("settings"), dict):
        out["settings"] = {k: v for k, v in out["settings"].items() if k not in unlogged}
    return out


def _verdict_key(v):
    return v.get("c"), v.get("order")   # the window it was judged with is not the verdict
