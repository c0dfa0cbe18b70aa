"""How events read in the monitor and in replay: the renderer's sentences, in colour.

Pure presentation over ``courtside_host.views.render``: a ``Monitor`` follows the stream and
returns, for each event, rich renderables (or nothing for events not worth a line):

- every event as its sentence, each player's name in the player's colour;
- a verdict as a table, rank by rank, with lags, ties and early answers;
- faults, stuck buttons, dropped edges, errors and early answers stand out;
- in Deathball, the chessboard as the follower (``courtside_follow.follower``) has it, after
  every move (each ``turn``), at the winner and for each ``position``;
- what the board waits for (``wait: P2 to set up``, ``wait: the balls are moving``), each
  time it changes, once what the matrix shows at one moment has been said.

Live, each event is told when the board's matrix shows it (``courtside_follow.pace``): a run
step by step, the die's face after its tumble, the winner once the run is shown.

    mon = Monitor(Names({1: "Ann"}))
    mon.put(ev, now_us)                              # as each event arrives (live)
    console.print(*mon.due(now_us))                  # what the matrix shows by now
    for ev in events: console.print(*mon.show(ev))   # a saved stream: each event at once
"""

from courtside_follow.follower import Follower
from courtside_follow.pace import Paced
from rich.table import Table
from rich.text import Text

from courtside_host.views import render

_STYLES = {
    "tie": "bold magenta", "stuck": "bold red", "fault": "bold red", "overflow": "bold red",
    "error": "bold red", "unsent": "bold red", "winner": "bold green", "death": "bold",
    "refuse": "yellow", "withdrawn": "yellow", "hello": "bold", "start": "bold",
}
_DRAWN_AFTER = ("turn", "winner")      # the kinds the chessboard is drawn after


def colour(p):
    return "bold #%02x%02x%02x" % render.rgb(p)


def player(p, names=None):
    names = names or render.Names()
    if not isinstance(p, int) or not 1 <= p <= 4:
        return Text(names.who(p), style="bold")
    return Text(names.label(p), style=colour(p))


def line(ev, names=None):
    """The event's sentence after its time, player labels in their colours (None: none)."""
    names = names or render.Names()
    words = render.sentence(ev, names)
    if words is None:
        return None
    kind = ev.get("ev")
    style = _STYLES.get(kind, "")
    if kind == "press" and ev.get("early"):
        style = "bold yellow"
    text = Text(render.clock(ev.get("t")) + "  ", style="dim")
    body = Text(words, style=style)
    for p in range(1, 5):
        body.highlight_words([names.label(p)], style=colour(p))
    text.append(body)
    return text


def verdict_table(ev, title=None, names=None, settings=None):
    names = names or render.Names()
    table = Table(title=title or render.contest_heading(ev, settings), title_justify="left",
                  show_edge=False, pad_edge=False)
    for name in ("rank", "player", "button", "behind first", "early", "press"):
        table.add_column(name, justify="right" if name in ("rank", "behind first", "press") else "left")
    for o in ev.get("order", []):
        rank = Text(render.rank_word(o.get("rank", 0)) + (" (tie)" if o.get("tie") else ""),
                    style="bold magenta" if o.get("tie") else "")
        early = Text("EARLY: " + render.early_words(o["early"]), style="bold yellow") \
            if o.get("early") else ""
        table.add_row(rank, player(o.get("p"), names), o.get("b", ""), render.ms(o.get("lag", 0)), early,
                      "#%s" % o.get("n"))
    return table


def chessboard(shown):
    """The Deathball chessboard (``track.Shown``) as an 8x8 grid in colour, row 8 on top."""
    grid = render.grid(shown)
    out = Text()
    for row in range(8, 0, -1):
        out.append("%d " % row, style="dim")
        for col in "abcdefgh":
            square = col + str(row)
            if square in grid:
                char, what = grid[square]
                style = colour(what) if isinstance(what, int) else \
                    "bold white" if what == "ball1" else "bold magenta" if what == "ball2" else "dim"
                out.append(char, style=style)
            else:
                out.append("." if render.inside(shown, square) else " ", style="dim")
            out.append(" ")
        out.append("\n")
    out.append("  a b c d e f g h", style="dim")
    return out


class Monitor:
    """Follows one stream; ``put`` each event as it arrives, ``due`` what to print."""

    def __init__(self, names=None):
        self.names = names or render.Names()
        self.follow = Follower()
        self.paced = Paced(self.follow)
        self.said = None          # the last status shown

    def put(self, ev, now=None):
        """An event as it arrives, ``now`` on the laptop's clock in µs (None: no clock)."""
        self.paced.put(ev, now)

    def due(self, now=None):
        """What to print for the events the matrix shows by ``now`` (all for None), then
        what the board waits for, if that changed."""
        f = self.follow
        out = []
        while True:
            before = f.chessboard
            ev = self.paced.next(now)
            if ev is None:
                break
            out += self._lines(ev, before)
        said = render.status(f, self.names, keys=False) if f.mode is not None else None
        if out and said != self.said:
            self.said = said
            if said is not None:
                out.append(Text("  " + said, style="dim"))
        return [x for x in out if x is not None]

    def show(self, ev):
        """What to print for one event taken at once (a saved stream, a test)."""
        self.put(ev)
        return self.due()

    def _lines(self, ev, before):
        f = self.follow
        kind = ev.get("ev")
        if kind == "verdict":
            return [verdict_table(ev, names=self.names, settings=f.settings)]
        if kind == "position":      # a position the board could not be built from: as text
            return [chessboard(f.chessboard) if f.chessboard is not before else line(ev, self.names)]
        out = [line(ev, self.names)]
        if kind in _DRAWN_AFTER and f.chessboard is not None and f.chessboard.where and f.phase != "setup":
            out.append(chessboard(f.chessboard))
        return out


def show(ev):
    """What the monitor prints for one event on its own (None: nothing)."""
    shown = Monitor().show(ev)
    if not shown:
        return None
    if len(shown) == 1:
        return shown[0]
    from rich.console import Group
    return Group(*shown)
