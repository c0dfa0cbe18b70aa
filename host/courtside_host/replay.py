"""Replay: a saved log's inputs fed back to the firmware's own core, its output compared.

Since stream 2 a log records every input the board acted on, in order: each command
line (``cmd``), each debounced press (``press``, ``ignored``, ``button``) and release
(``release``, ``unstuck``) of every button, and the settings in force at start (in
``hello``). Replay splits the log into sessions (one per
``hello``: a restart ends a session), turns each session's inputs back into the edges
and lines a board would have had, and runs them through ``courtside.core`` on the
simulated board in virtual time, the very code the board runs, Dodge Ball and Deathball
alike. Two things cannot be replayed and are taken from the log instead:

- chance: a tie's fair draw and each die face are read from the log (``RecordedDraws``);
- the board's buffers: ``overflow`` and ``unsent`` are not compared.

With the recorded settings the replayed stream must equal the log, event for event
(times aside: a board's passes come a little late, the replay's exactly on time). With
other settings (``overrides``) the contests whose verdict would differ are listed. Each
contest keeps the settings it was judged with (``Contest.settings``), and each game its
outcome on the board and in the replay (``Outcome``: a Deathball winner, or how many
contests a Dodge Ball game had).

A log that starts in the middle of a game (a monitor attached to a running board) is
replayed from its first game start. Before that, the Dodge Ball presses it holds are
re-judged on their own, through the firmware's arbiter (``loose_contests``): a contest
already open when the log began, and an answer to a throw made before it, cannot be
judged, and the report says so. A Deathball game cannot be picked up without its start.

    report = rejudge(eventlog.read(path), {"tie_us": 5000})
    report.identical, report.differences, report.differing()
"""

from courtside import settings as config
from courtside.fair import Fair, seeded
from courtside.pins import ARROWS, BUTTONS, Pins

from courtside_host.board import event

JUDGING = ("tie_us", "contest_ms", "answer_ms")
NOT_COMPARED = ("overflow", "unsent")


class RecordedDraws(Fair):
    """The board's chance, as the log recorded it: die faces in order, each tie's drawn
    order by its players. Anything else (the die's tumbling faces) is drawn from a seed."""

    def __init__(self, faces, draws, seed=1):
        super().__init__(seeded(seed))
        self.faces = list(faces)
        self.draws = [list(d) for d in draws]   # 0-based players in drawn order
        self.unrecorded = []                    # ties or rolls the log had no answer for

    def d6(self):
        if self.faces:
            return self.faces.pop(0)
        self.unrecorded.append(("roll", None))
        return super().d6()

    def shuffle(self, items):
        want = sorted(items)
        for i, drawn in enumerate(self.draws):
            if sorted(drawn) == want:
                items[:] = self.draws.pop(i)
                return items
        self.unrecorded.append(("tie", tuple(want)))
        items.sort()           # no draw to follow: lowest player first, and said so
        return items


class Contest:
    def __init__(self, session, number, recorded, replayed, settings=None):  # noqa: PLR0917
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

    def __init__(self, session, game, mode, recorded, replayed):  # noqa: PLR0917
        self.session = session
        self.game = game
        self.mode = mode
        self.recorded = recorded   # the board's winner event, or None (unfinished, Dodge Ball)
        self.replayed = replayed

    @property
    def same(self):
        def key(ev):
            return None if ev is None else (ev.get("p"), ev.get("together"))
        return key(self.recorded) == key(self.replayed)


class Session:
    """One run of the firmware in the log, from its ``hello``."""

    def __init__(self, number, recorded):
        self.number = number
        self.recorded = recorded           # events as dicts, hello first
        self.replayed = []
        self.difference = None             # (index, recorded, replayed) at the first mismatch
        self.unrecorded = []
        self.notes = []

    @property
    def hello(self):
        return self.recorded[0]


class Report:
    def __init__(self, overrides):
        self.overrides = overrides
        self.sessions = []
        self.contests = []
        self.skipped = 0          # events before the first hello (a log started mid-session)
        self.firmware = None
        self.outcomes = []
        self.notes = []           # what could not be re-judged, and why
        self.damaged = []         # records that were not events, left out
        self.contest_count = 0    # contests replayed (``contests`` may keep only those that differ)
        self.outcome_count = 0

    @property
    def differences(self):
        return [s for s in self.sessions if s.difference is not None]

    @property
    def identical(self):
        loose = [c for c in self.contests if c.session == 0]
        return bool(self.sessions or loose) and not self.differences and all(c.same for c in loose)

    def differing(self):
        return [c for c in self.contests if not c.same]

    @property
    def unrecorded(self):
        return [(s.number, u) for s in self.sessions for u in s.unrecorded]


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


def split(events):
    """(events before the first hello, [session events, ...])."""
    before = []
    sessions = []
    for ev in events:
        if ev.get("ev") == "hello":
            sessions.append([ev])
        elif sessions:
            sessions[-1].append(ev)
        else:
            before.append(ev)
    return before, sessions


def rejudge(events, overrides=None, keep=True):
    """Replay every session of ``events`` (dicts, as ``eventlog.read`` or ``eventlog.iterate``
    give them), one session at a time as it is read: a long log costs the memory of its
    longest session. ``keep`` False lets each session's events go once it is compared
    (the report keeps its contests, outcomes and first difference)."""
    overrides = dict(overrides or {})
    report = Report(overrides)
    before = []
    current = None
    for ev in events:
        problem = damaged(ev)
        if problem:
            report.damaged.append(problem)
            continue
        if ev.get("ev") == "hello":
            if current is None:
                _before_first(before, overrides, report)
            else:
                _replay_one(current, overrides, report, keep)
            current = [ev]
        elif current is not None:
            current.append(ev)
        else:
            before.append(ev)
    if current is None:
        _before_first(before, overrides, report)
    else:
        _replay_one(current, overrides, report, keep)
    return report


def _before_first(before, overrides, report):
    """The events before the log's first hello: a log started in the middle of a session."""
    partial = _from_game_start(before)
    loose = before[:before.index(partial[1])] if partial is not None else before
    report.skipped = len(loose)
    loose = loose_contests(loose, overrides, report.notes)
    report.contest_count += len(loose)
    report.contests.extend(loose)
    if partial is not None:
        _replay_one(partial, overrides, report, True)


def _replay_one(recorded, overrides, report, keep):
    session = Session(len(report.sessions) + 1, recorded)
    if report.firmware is None:
        report.firmware = session.hello.get("fw")
    replay_session(session, overrides)
    report.sessions.append(session)
    contests = _contests(session)
    outcomes = _outcomes(session)
    report.contest_count += len(contests)
    report.outcome_count += len(outcomes)
    if not keep:                   # what is the same need not be kept to be reported
        contests = [c for c in contests if not c.same]
        outcomes = [o for o in outcomes if not o.same]
    report.contests.extend(contests)
    report.outcomes.extend(outcomes)
    session.events = len(session.replayed)
    if not keep:
        session.recorded = [session.hello]
        session.replayed = []


_INTS = ("t", "p", "n", "c", "lag", "rank", "face", "gap", "round", "step", "ball")
_LISTS = ("order", "players", "draw", "arrows", "tied", "together", "corners")


def damaged(ev):
    """Why a record from a log cannot be taken as the event it claims to be, or None: a
    kind the stream does not have, fields it does not hold, a field of the wrong type."""
    from courtside import events as stream
    kind = ev.get("ev")
    if kind == "log":
        return None
    fields = {k: v for k, v in ev.items() if k not in ("ev", "t")}
    try:
        stream.check(kind, fields)
    except ValueError as e:
        return str(e)
    for name in _INTS:
        if name in ev and ev[name] is not None and type(ev[name]) is not int:
            return "%s event: %s is not a whole number" % (kind, name)
    for name in _LISTS:
        if name in ev and ev[name] is not None and not isinstance(ev[name], list):
            return "%s event: %s is not a list" % (kind, name)
    for name in ("b", "line", "msg", "mode", "why", "reason", "cause", "square", "kind"):
        if name in ev and ev[name] is not None and not isinstance(ev[name], str):
            return "%s event: %s is not text" % (kind, name)
    if kind in ("press", "ignored", "button", "release", "stuck", "unstuck"):
        names = BUTTONS + ARROWS + ("MAIN",)
        if not 0 <= ev["p"] <= 4 or ev["b"] not in names or (ev["p"] == 0) != (ev["b"] == "MAIN"):
            return "%s event: no button %s of box %s" % (kind, ev["b"], ev["p"])
    if kind in ("verdict", "tie"):
        for item in list(ev.get("order", ())) + [{"p": q} for q in ev.get("draw", ())]:
            if not isinstance(item, dict) or type(item.get("p")) is not int:
                return "%s event: a malformed entry" % kind
    if kind in ("roll", "bounce") and not 1 <= ev["face"] <= 6:
        return "%s event: face %s" % (kind, ev["face"])
    return None


def _settings_of(events):
    settings = dict(config.DEFAULTS)
    for ev in events:
        if ev.get("ev") == "hello" and isinstance(ev.get("settings"), dict):
            settings.update(ev["settings"])
        elif ev.get("ev") == "settings":
            settings.update({k: v for k, v in ev.items() if k not in ("ev", "t")})
    return settings


def loose_contests(events, overrides=None, notes=None):
    """Re-judge the Dodge Ball presses of a log's part before any session or game start,
    through the core from a game started just before the first of them with the players
    they come from; returns Contests (session 0). ``notes`` gets what cannot be judged.

    The board's press and contest numbers had run on before the log began, the replay's
    start at 1: each replayed verdict is matched to the board's by its presses, in order."""
    notes = [] if notes is None else notes
    presses = [e for e in events if e.get("ev") == "press" and isinstance(e.get("t"), int)]
    if any(e.get("ev") in ("move", "setup", "turn") for e in events):
        notes.append("the log starts in the middle of a Deathball game: its moves cannot be "
                     "re-judged without the game's start")
    if not presses:
        return []
    first = events.index(presses[0])
    settings = dict(_settings_of(events[:first]), **(overrides or {}))
    players = sorted({e["p"] for e in presses})
    players += [b for b in (1, 2, 3, 4) if b not in players][:max(0, 2 - len(players))]
    hello = {"ev": "hello", "t": presses[0]["t"], "mode": "dodgeball", "boxes": 4,
             "settings": settings, "from_start": True}
    # the game starts a millisecond before the first press (a pass takes edges before lines)
    start = {"ev": "start", "t": max(0, presses[0]["t"] - 1000), "mode": "dodgeball", "players": players}
    session = Session(0, [hello, start] + events[first:])
    replay_session(session, overrides, compare=False)
    board_n = [e["n"] for e in presses]
    replay_n = [e["n"] for e in session.replayed if e.get("ev") == "press"]
    to_board = dict(zip(replay_n, board_n))
    logged = {e["n"]: e for e in presses}
    recorded = {}
    for v in events:
        if v.get("ev") == "verdict":
            recorded[tuple(o.get("n") for o in v.get("order", ()))] = v
    out = []
    for mine in (e for e in session.replayed if e.get("ev") == "verdict"):
        order = [dict(o, n=to_board.get(o["n"], o["n"])) for o in mine["order"]]
        key = tuple(o["n"] for o in order)
        board = recorded.get(tuple(sorted(key)), None) or next(
            (v for k, v in recorded.items() if sorted(k) == sorted(key)), None)
        if board is None:
            held = next((v for k, v in recorded.items() if any(n in k for n in key)), None)
            if held is not None:
                notes.append("contest %s was already open when the log began: not re-judged"
                             % held.get("c"))
                continue
        c_number = board.get("c") if board else logged[order[0]["n"]].get("c")
        mine = dict(mine, c=c_number, order=order)
        c = Contest(0, (0, c_number), board, mine, dict(settings))
        c.presses = [logged[o["n"]] for o in order if o["n"] in logged]
        out.append(c)
    if out:
        notes.append("before the first game start in the log, %d contests were re-judged from "
                     "a game started at its first press; an answer to a throw made before the "
                     "log began reads as early" % len(out))
    return out


def _from_game_start(events):
    """A log that starts after its board did (a monitor attached to a running board) is
    replayed from its first game start, when everything the core holds is known: the
    mode, the players, and the settings as its last ``settings`` event gave them. Returns
    the events from there, behind a made-up ``hello`` (None when no game starts)."""
    settings = None
    for i, ev in enumerate(events):
        kind = ev.get("ev")
        if kind == "settings":
            settings = {k: v for k, v in ev.items() if k not in ("ev", "t")}
        elif kind == "start":
            hello = {"ev": "hello", "t": ev["t"], "mode": ev.get("mode", "dodgeball"), "boxes": 4,
                     "settings": settings, "from_start": True}
            return [hello] + events[i:]
    return None


def replay_session(session, overrides, compare=True):
    hello = session.hello
    settings = dict(config.DEFAULTS)
    if isinstance(hello.get("settings"), dict):
        settings.update(hello["settings"])
    elif hello.get("from_start"):
        session.notes.append("the log starts in the middle of a session and shows no settings "
                             "before its first game: the defaults are assumed")
    else:
        session.notes.append("stream %s logs no settings at start: the defaults are assumed"
                             % hello.get("stream"))
    settings.update(overrides)
    settings = config.merged(config.DEFAULTS, settings)
    pins = pins_for(hello.get("boxes", 4))
    rng = draws_of(session.recorded)
    items = inputs(session.recorded, pins, overrides)
    out = []
    core_mode = hello.get("mode", "dodgeball")
    if hello.get("from_start"):   # bring the core to the game start, unseen
        start = session.recorded[1]
        session.notes.append("the log starts in the middle of a session: replayed from its "
                             "first game start, at %.3f s" % (start["t"] / 1e6))
        lines = ["join %d" % p for p in start.get("players", ())] + ["start"]
        items[:0] = [(start["t"], "cmd", line, None) for line in lines]
    _run(pins, Items(items), settings, rng, core_mode, out.append)
    session.replayed = [e for e in map(event, out) if e is not None]
    if hello.get("from_start"):
        starts = [i for i, e in enumerate(session.replayed) if e["ev"] == "start"]
        session.replayed = [hello] + session.replayed[starts[0]:] if starts else [hello]
    session.unrecorded = rng.unrecorded
    if compare and not overrides:
        session.difference = first_difference(session.recorded, session.replayed)
        if session.difference is None and _releases(session.recorded) != _releases(session.replayed):
            session.difference = (None, "releases", "releases")


def _run(pins, script, settings, rng, mode, out):
    from courtside_sim.board import SimBoard
    from courtside_sim.headless import run
    run(SimBoard(pins, script=script, out=out), settings, rng=rng, mode=mode)


def pins_for(boxes):
    """A pin map with ``boxes`` boxes: the replay needs the board's shape, not its wiring."""
    data = {"board": "pico", "boxes": [], "buzzer": 27, "matrix": {"pin": 28}}
    gpio = 0
    for box in range(boxes):
        data["boxes"].append({"buttons": {b: gpio + k for k, b in enumerate(BUTTONS)}, "led": 20 + box})
        gpio += 4
    data["main_button"] = gpio
    return Pins(data)


def draws_of(events):
    faces = []
    draws = []
    for ev in events:
        kind = ev.get("ev")
        if kind == "roll" and not ev.get("forced"):
            faces.append(ev["face"])
        elif kind == "bounce" and not ev.get("forced"):
            faces.append(ev["face"])
        elif kind == "tie":
            draws.append([p - 1 for p in ev["draw"]])
    return RecordedDraws(faces, draws)


def _button_of(ev, pins):
    name = ev.get("b")
    p = ev.get("p")
    if p == 0 and name == "MAIN":
        return pins.main_id
    k = BUTTONS.index(name) if name in BUTTONS else ARROWS.index(name)
    return 4 * (p - 1) + k


def inputs(events, pins, overrides=None):
    """The edges and lines a board had, as simulator inputs (t, kind, a, b), from a
    session's input records: every debounced press and release of every button, at its
    first edge, and every command line."""
    items = []
    override_line = "set " + " ".join("%s=%s" % kv for kv in sorted((overrides or {}).items()))
    for ev in events:
        kind = ev.get("ev")
        if kind == "cmd":
            items.append((ev["t"], "cmd", ev["line"], None))
            if overrides and ev["line"].split()[:1] == ["set"]:
                items.append((ev["t"], "cmd", override_line, None))   # what if: still in force
        elif kind in ("press", "ignored", "button"):
            items.append((ev["t"], "edge", _button_of(ev, pins), True))
        elif kind in ("release", "unstuck"):
            items.append((ev["t"], "edge", _button_of(ev, pins), False))
    return items


def first_difference(recorded, replayed):
    """(index, recorded, replayed) at the first event that differs, or None.

    Releases are compared apart, in time order: the log says when a contact opened, not
    in which pass of the loop the debouncer let it go, so two releases noticed close
    together may come out of the replay in the other order."""
    a = [e for e in map(_comparable, recorded) if e is not None]
    b = [e for e in map(_comparable, replayed) if e is not None]
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            return i, x, y
    return None


def _comparable(ev):
    kind = ev.get("ev")
    if kind in NOT_COMPARED or kind == "release":
        return None
    out = {k: v for k, v in ev.items() if k != "t"}
    if kind in ("hello", "pong"):
        out.pop("capture", None)
    return out


def _releases(events):
    return sorted((e["t"], e["p"], e["b"]) for e in events if e.get("ev") == "release")


def _verdict_key(v):
    return v.get("c"), v.get("order")   # the window it was judged with is not the verdict


def _contests(session):
    recorded = {}
    replayed = {}
    settings = {}
    presses = {}
    for events, into in ((session.recorded, recorded), (session.replayed, replayed)):
        game = 0
        now = dict(config.DEFAULTS)
        for ev in events:
            kind = ev.get("ev")
            if kind == "hello" and isinstance(ev.get("settings"), dict):
                now.update(ev["settings"])
            elif kind == "settings":
                now.update({k: v for k, v in ev.items() if k not in ("ev", "t")})
            elif kind == "start":
                game += 1
            elif kind == "press" and into is recorded:
                presses.setdefault((game, ev["c"]), []).append(ev)
            elif kind == "verdict":
                into[(game, ev["c"])] = ev
                if into is recorded or (game, ev["c"]) not in settings:
                    settings[(game, ev["c"])] = dict(now)
    out = []
    for key in sorted(set(recorded) | set(replayed)):
        contest = Contest(session.number, key, recorded.get(key), replayed.get(key), settings.get(key))
        contest.presses = presses.get(key, [])
        out.append(contest)
    return out


def _outcomes(session):
    """Every game of the session, with its ending on the board and in the replay."""
    games = {}
    for events, side in ((session.recorded, 0), (session.replayed, 1)):
        game = 0
        for ev in events:
            if ev.get("ev") == "start":
                game += 1
                games.setdefault(game, [ev.get("mode"), None, None])
            elif ev.get("ev") == "winner" and game in games:
                games[game][1 + side] = ev
    return [Outcome(session.number, g, mode, was, now) for g, (mode, was, now) in sorted(games.items())]
