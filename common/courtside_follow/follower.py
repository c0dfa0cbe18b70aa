"""A board followed from its events alone: what every face shows, in one place.

``Follower.feed`` takes the events one by one, as records (``schema.read``), and keeps
what they say. Players are numbered as the stream numbers them, 1 to 4; the Deathball
chessboard is a ``courtside.deathball.track.Shown`` (its players 0 to 3, as the firmware's);
it is ``chessboard`` here, since "the board" is the one the stream comes from.

    f = Follower()
    for record in records:
        f.feed(record)                   # or f.feed_line(text): read, checked and fed;
                                         # f.take(record): checked and fed
    f.mode       # "dodgeball", "referee", "die" (None before the hello)
    f.phase      # "lobby"; Dodge Ball "play"; the die "die"; the referee "initiative",
                 # "setup", "play", "over"
    f.players    # in the lobby, those joined; in a game, those playing
    f.games      # games started since the hello (a game's number, while it is played)
    f.turn       # Deathball: the player to set up or to move, else None
    f.waiting    # what the board waits for: "players to join", "P3 to move", ...
    f.busy       # Deathball: what the matrix shows while presses are refused, or None
    f.pending    # Deathball: the first arrow of the move being entered ("up"), or None
    f.cursor     # Deathball set-up: the square the set-up cursor is on ("d1"), None: the first free
    f.roll       # the last die roll or bounce record (the die's face), or None
    f.contest    # Dodge Ball: the open contest, {"c": n, "presses": [press records]}
    f.verdict    # the last verdict record, its tie records in "ties"
    f.winner, f.over, f.together   # Deathball: the game's end (winner None: nobody)
    f.settings   # the settings in force
    f.chessboard # Deathball: the chessboard (Shown), None outside a refereed game

What the board waits for, after an event, is the board's own state after the pass that
wrote it: a set-up ``turn`` comes with ``order``, a ``turn`` with the deathballs' run,
while the matrix still shows the rolls or the run; ``hold`` says when the board starts
holding presses back and why, ``ready`` when it takes that player's presses again
(docs/deathball.md#events). A stream before 5 has no ``hold``: there the events the
matrix takes time to show stand for it (``_HELD``). A stream before 6 names ``shrink``'s
``border`` ``ring``: its records are read with today's names (``schema.upgrade``).
"""

from courtside import events
from courtside import settings as config
from courtside.deathball.track import Shown
from courtside.lobby import MIN_PLAYERS

from courtside_follow import schema

# What the matrix holds the board for, by what it shows (docs/deathball.md#events).
BUSY_ROLLS = "the rolls are shown"
BUSY_RUN = "the balls are moving"
BUSY_MOVE = "the move is shown"
# What the matrix holds the board for, by the ``hold`` event's ``why``.
BUSY_OF = {"rolls": BUSY_ROLLS, "run": BUSY_RUN, "move": BUSY_MOVE}
HOLD_STREAM = 5      # the first stream version that says ``hold``

# A stream before 5: the events the referee's matrix takes time to show, holding presses
# back until ``ready``.
_HELD = {"bounce": BUSY_RUN, "ball": BUSY_RUN, "death": BUSY_MOVE, "shrink": BUSY_MOVE}


class Follower:
    def __init__(self):
        self.stream = None       # the stream's version, from the hello
        self.fw = None
        self.can_save = None
        self.capture = None      # the capture backend in use (the hello's); settings["capture"]: asked for
        self.boxes = None
        self.settings = dict(config.DEFAULTS)
        self.mode = None
        self.t = None            # the time of the last event
        self.events = 0          # events fed
        self.unread = 0          # of them, records with values no board writes (see feed)
        self.command = None      # the first word of the last command line, as a list
        self.games = 0           # games started since the hello
        self._enter(None)

    def _enter(self, mode):
        """A mode entered (its lobby first, where it has one): nothing of a game yet."""
        self.mode = mode
        self.phase = "die" if mode == "die" else "lobby" if mode else None
        self.game = mode                     # what the lobby starts
        self.players = []
        self._game()

    def _game(self):
        """Nothing of a game known: no turn, contest, verdict, winner, chessboard or refusal
        (``refused``: the last ``refuse`` or ``refused`` record)."""
        self.turn = self.busy = self.contest = self.verdict = None
        self.winner = self.chessboard = self.refused = self.pending = self.roll = self.cursor = None
        self.over = False
        self.together = []

    # -- what the board waits for ---------------------------------------------------------

    @property
    def waiting(self):
        """What the board waits for, in a few words."""
        phase = self.phase
        if phase is None:
            return "the board to start"
        if phase == "lobby":
            return "players to join" if len(self.players) < MIN_PLAYERS else "MAIN to start"
        if self.mode == "dodgeball":
            return "a press"
        if self.mode == "die":
            return "ROLL"
        return self._referee_waiting()

    def _referee_waiting(self):
        phase = self.phase
        if self.busy is not None:
            return self.busy           # presses refused (ROLL shows the end at once)
        if phase == "initiative":
            return "ROLL for initiative"
        if phase == "over":
            return "ROLL for a new game"
        if self.turn is None:
            return BUSY_RUN            # the round is over: the run is being worked out
        return "P%d to %s" % (self.turn, self.doing())

    def doing(self):
        """What the player whose turn it is does: "set up", "move", or with a move's first
        arrow in, "move: up entered" ."""
        if self.phase == "setup":
            return "set up"
        return "move" if self.pending is None else "move: %s entered" % self.pending

    # -- feeding --------------------------------------------------------------------------

    def feed_line(self, text):
        """Read one line of the stream (``schema.read``, against the version its session's
        hello gave) and take its event if the schema finds nothing wrong; returns
        (record, problem), or None for a line that is not an event."""
        got = schema.record(text)
        if got is None:
            return None
        return got, self.take(got)

    def take(self, ev):
        """Take one event record if the schema (against the version the session's hello
        gave) finds nothing wrong with it; returns what it found wrong, or None."""
        problem = schema.check(ev, self.stream if type(self.stream) is int else events.STREAM)
        if problem is None:
            self.feed(ev)
        return problem

    def feed(self, ev):
        """Take one event record (``{"ev": kind, "t": us, ...}``), checked by the schema.
        The schema checks each field's type, not every value: a record no board writes (a
        heading or a square that is none, an empty order) changes what it can and is
        counted in ``unread``; what the follower knew stands."""
        kind = ev["ev"]
        if kind in schema.RENAMED and type(self.stream) is int:
            schema.upgrade(ev, self.stream)      # an older stream's field names (``shrink``'s ``ring``)
        self.t = ev["t"]
        self.events += 1
        handle = _HANDLERS.get(kind)
        try:
            if handle is not None:
                handle(self, ev)
            if self.chessboard is not None:
                self.chessboard.apply(kind, ev)
        except (ValueError, KeyError, IndexError, TypeError):
            self.unread += 1
            return
        if self.chessboard is not None and kind in _HELD and self.busy != BUSY_RUN and not self.says_hold():
            self.busy = _HELD[kind]

    def says_hold(self):
        """True when the stream says when the board holds presses (``hold``, version 5)."""
        return type(self.stream) is not int or self.stream >= HOLD_STREAM

    def _hello(self, ev):
        self.stream = ev.get("stream")
        self.fw = ev.get("fw")
        self.can_save = ev.get("can_save")
        self.capture = ev.get("capture")
        self.boxes = ev.get("boxes")
        self.games = 0
        self.settings = dict(config.DEFAULTS)
        if isinstance(ev.get("settings"), dict):
            self.settings.update(ev["settings"])
        self._enter(ev.get("mode"))
        self.phase = None            # until the mode is entered

    def _settings(self, ev):
        for name in ev:
            if name not in ("ev", "t"):
                self.settings[name] = ev[name]

    def _mode(self, ev):
        self._enter(ev["mode"])

    def _lobby(self, ev):
        self.phase = "lobby"
        self.game = ev["game"]
        self.players = []
        self._game()

    def _join(self, ev):
        if ev["p"] not in self.players:
            self.players.append(ev["p"])
            self.players.sort()

    def _start(self, ev):
        self.games += 1
        self.mode = ev["mode"]
        self.players = list(ev["players"])
        self._game()
        self.phase = "play" if self.mode == "dodgeball" else "initiative"

    def _refused(self, ev):
        self.refused = ev

    # Dodge Ball

    def _press(self, ev):
        contest = self.contest
        if contest is None or contest["c"] != ev["c"]:
            contest = self.contest = {"c": ev["c"], "presses": []}
        contest["presses"].append(ev)

    def _withdrawn(self, ev):
        """A press taken back (a box fault): a contest left with none is no contest."""
        if self.contest is not None:
            presses = [p for p in self.contest["presses"] if p["n"] != ev["n"]]
            self.contest["presses"] = presses
            if not presses:
                self.contest = None

    def _verdict(self, ev):
        self.verdict = dict(ev, ties=[])
        if self.contest is not None and self.contest["c"] == ev["c"]:
            self.contest = None

    def _tie(self, ev):
        if self.verdict is not None and self.verdict["c"] == ev["c"]:
            self.verdict["ties"].append(ev)

    # Deathball

    def _referee(self, ev):
        self._game()
        self.phase = "initiative"
        self.players = list(ev["players"])
        self.chessboard = Shown()

    def _roll(self, ev):
        self.roll = ev
        if ev["purpose"] == "initiative" and not self.says_hold():
            self.busy = BUSY_ROLLS

    def _hold(self, ev):
        self.busy = BUSY_OF.get(ev["why"], ev["why"])

    def _order(self, ev):
        self.phase = "setup"
        self.turn = ev["order"][0]       # a stream before 4 says no set-up turn

    def _setup(self, ev):
        order = self.chessboard.order if self.chessboard is not None else []
        placed = len(self.chessboard.where) + 1 if self.chessboard is not None else len(order)
        self.turn = order[placed] + 1 if placed < len(order) else None   # (before 4)

    def _turn(self, ev):
        self.turn = ev["p"]
        self.pending = self.cursor = None
        self.phase = ev.get("phase", "play")

    def _bounce(self, ev):
        self.roll = ev

    def _cursor(self, ev):
        self.cursor = ev["square"]

    def _pending(self, ev):
        self.pending = ev["arrows"][0] if ev["arrows"] else None

    def _undo(self, ev):
        self.pending = None

    def _moved(self, ev):
        self.turn = self.pending = None  # until the next turn, or the run

    def _ready(self, ev):
        self.busy = None

    def _winner(self, ev):
        self.phase = "over"
        self.over = True
        self.winner = ev["p"]
        self.together = list(ev["together"])
        self.turn = None

    def _cmd(self, ev):
        self.command = ev["line"].split()[:1]

    def _position(self, ev):
        self.phase = ev["phase"]
        if self.command == ["position"]:
            self.pending = None          # a position set (``state`` only says where it stands)
        try:
            self.chessboard = Shown.from_position(ev["text"])
        except (ValueError, IndexError, KeyError):
            pass         # before every figure is placed (``?``): the board followed stands
        if self.phase == "over":
            self.turn = None
            self.over = True


_HANDLERS = {
    "hello": Follower._hello, "settings": Follower._settings, "mode": Follower._mode,
    "lobby": Follower._lobby, "join": Follower._join, "start": Follower._start,
    "refused": Follower._refused, "refuse": Follower._refused,
    "press": Follower._press, "withdrawn": Follower._withdrawn, "verdict": Follower._verdict,
    "tie": Follower._tie,
    "referee": Follower._referee, "roll": Follower._roll, "order": Follower._order,
    "setup": Follower._setup, "turn": Follower._turn, "move": Follower._moved,
    "skip": Follower._moved, "hold": Follower._hold, "pending": Follower._pending,
    "undo": Follower._undo, "bounce": Follower._bounce, "cursor": Follower._cursor,
    "ready": Follower._ready, "winner": Follower._winner,
    "position": Follower._position, "cmd": Follower._cmd,
}
