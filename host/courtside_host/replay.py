"""Replay: re-judge a saved game through the firmware's own arbiter.

A log holds every press (player, button, time of its first edge) and every verdict the
board gave. Replay feeds the presses, game by game, to ``courtside.arbiter.Arbiter`` -
the very code the board runs - with the settings the log recorded (or others, such as a
different tie window), and compares each verdict with the board's:

- with the recorded settings every verdict must come out the same (ties included: a tie's
  fair draw is taken from the log, since a random draw cannot be replayed);
- with other settings, the contests whose verdict would differ are shown side by side.

    report = rejudge(eventlog.read(path), {"tie_us": 5000})
    for c in report.contests: c.recorded, c.replayed, c.same
"""

from courtside import settings as config
from courtside.arbiter import NAMES, Arbiter
from courtside.clock import wrap

JUDGING = ("tie_us", "contest_ms", "answer_ms")


class RecordedDraw:
    """Stands in for the fair draw: orders a tie as the log says the board drew it."""

    def __init__(self):
        self.draws = {}        # (game, contest, players) -> drawn order (0-based)
        self.game = 0
        self.contest = None
        self.unrecorded = []   # (game, contest, players) ties the board never had to draw

    def shuffle(self, items):
        key = (self.game, self.contest, tuple(sorted(items)))
        drawn = self.draws.get(key)
        if drawn is None:
            self.unrecorded.append(key)
            items.sort()           # no draw to follow: lowest player first, marked as such
            return
        items[:] = list(drawn)


class Contest:
    def __init__(self, game, number):
        self.game = game
        self.number = number
        self.recorded = None   # the board's verdict event
        self.replayed = None   # the same shape, from the replay
        self.early = []        # (n, recorded, replayed) for presses whose early flag differs

    @property
    def same(self):
        return self.recorded is not None and self.replayed is not None and \
            self.recorded.get("order") == self.replayed.get("order") and not self.early


class Report:
    def __init__(self, settings):
        self.settings = settings
        self.contests = []
        self.games = 0
        self.presses = 0
        self.firmware = None
        self.unrecorded = []

    def differing(self):
        return [c for c in self.contests if not c.same]


def _verdict(contest, tie_us):
    order = [{"b": NAMES[p.button], "lag": p.lag, "n": p.n, "p": p.player + 1, "rank": p.rank,
              "tie": p.tie} for p in contest.order]
    return {"ev": "verdict", "c": contest.number, "order": order, "tie_us": tie_us}


def rejudge(events, overrides=None):
    """Re-judge every Dodge Ball game in ``events`` (dicts); returns a Report."""
    overrides = dict(overrides or {})
    settings = dict(config.DEFAULTS)
    settings.update(overrides)
    report = Report(settings)
    draw = RecordedDraw()
    games = []                 # per game: presses (events), verdicts by contest, settings
    current = None
    for ev in events:
        kind = ev["ev"]
        if kind in ("hello", "pong") and report.firmware is None:
            report.firmware = ev.get("fw")
        if kind == "hello":
            current = None         # the firmware restarted: whatever game was on is over
        elif kind == "settings":
            for name in JUDGING:
                if name in ev and name not in overrides:
                    settings[name] = ev[name]
            if current is not None:  # changed mid-game: the board judged on with the new ones
                current["presses"].append({"ev": "settings", "t": ev["t"], "settings": dict(settings)})
        elif kind == "start":
            current = None
            if ev.get("mode", "dodgeball") == "dodgeball":
                current = {"presses": [], "verdicts": {}, "settings": dict(settings)}
                games.append(current)
                draw.game = len(games)
        elif kind == "mode":
            current = None
        elif current is None:
            continue
        elif kind == "press":
            current["presses"].append(ev)
        elif kind == "withdrawn":  # part of a box fault: the board took it back
            current["presses"] = [p for p in current["presses"] if p.get("n") != ev["n"]]
        elif kind == "verdict":
            current["verdicts"][ev["c"]] = ev
        elif kind == "tie":
            draw.draws[(draw.game, ev["c"], tuple(sorted(q - 1 for q in ev["players"])))] = \
                [q - 1 for q in ev["draw"]]
    report.settings = settings
    for number, game in enumerate(games, 1):
        draw.game = number
        _replay_game(game, draw, number, report)
    report.games = len(games)
    report.unrecorded = draw.unrecorded
    return report


def _replay_game(game, draw, number, report):
    arbiter = Arbiter(game["settings"], draw)
    judged = []
    early = {}

    def collect(contests):
        for c in contests:
            judged.append(_verdict(c, arbiter.tie_us))

    opened = None                  # log time (us since start) of the open contest's first press

    def close_due(t):
        # The board closes a contest when its window has passed, whatever comes next; the
        # log's unwrapped times decide that here, so long pauses cannot wrap the ticks.
        if arbiter.open is not None and t - opened >= arbiter.contest_us:
            draw.contest = arbiter.open.number
            collect(arbiter.close())

    for ev in game["presses"]:     # in the order the board logged them
        close_due(ev["t"])
        if ev["ev"] == "settings":
            arbiter.configure(ev["settings"])
            continue
        draw.contest = arbiter.open.number if arbiter.open else None
        p = arbiter.press(ev["p"] - 1, NAMES.index(ev["b"]), wrap(ev["t"]))
        if p.lag == 0 and arbiter.open.presses[0] is p:
            opened = ev["t"]
        collect(arbiter.done)
        arbiter.done = []
        early[p.n] = (ev.get("early"), p.early)
        report.presses += 1
    draw.contest = arbiter.open.number if arbiter.open else None
    collect(arbiter.close())
    by_press = {}
    for v in judged:
        for o in v["order"]:
            by_press[o["n"]] = v["c"]
    numbers = sorted(set(game["verdicts"]) | {v["c"] for v in judged})
    replayed = {v["c"]: v for v in judged}
    for c in numbers:
        contest = Contest(number, c)
        contest.recorded = game["verdicts"].get(c)
        contest.replayed = replayed.get(c)
        contest.early = [(n, a, b) for n, (a, b) in sorted(early.items())
                         if by_press.get(n) == c and a is not None and a != b]
        report.contests.append(contest)
