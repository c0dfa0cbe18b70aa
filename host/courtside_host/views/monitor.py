"""How events read in the monitor and in replay: the renderer's sentences, in colour.

Pure presentation over ``courtside_host.views.render``: a ``Monitor`` follows the stream and
returns, for each event, rich renderables (or nothing for events not worth a line):

- every event as its sentence, each player's name in the player's colour;
- a verdict as a table, rank by rank, with lags, ties and early answers;
- faults, stuck buttons, dropped edges, errors and early answers stand out;
- in Deathball, the board as the follower (``courtside_follow.follower``) has it, after
  every move (each ``turn``), at the winner and for each ``position``;
- what the board waits for (``wait: P2 to set up``, ``wait: the balls are moving``), each
  time it changes.

    mon = Monitor(Names({1: "Ann"}))
    for ev in events: console.print(*mon.show(ev))
"""

from courtside_follow.follower import Follower
from rich.table import Table
from rich.text import Text

from courtside_host.views import render

_STYLES = {
    "tie": "bold magenta", "stuck": "bold red", "fault": "bold red", "overflow": "bold red",
    "error": "bold red", "unsent": "bold red", "winner": "bold green", "death": "bold",
    "refuse": "yellow", "withdrawn": "yellow", "hello": "bold", "start": "bold",
}
_BOARD_AFTER = ("turn", "winner")
# The events after which the monitor says what the board waits for, when that changed:
# those that end what a pass writes or begin the deathballs' run (within one pass, say
# between a ``move`` and the next ``turn``, the follower is between two states).
_STATUS_AFTER = ("hello", "mode", "lobby", "join", "start", "refused", "order", "turn", "ready",
                 "bounce", "winner", "position", "referee")


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


def board(shown):
    """A Deathball board (``track.Shown``) as an 8x8 grid in colour, row 8 on top."""
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
    """Follows one stream; ``show(ev)`` is what to print for each event, in order."""

    def __init__(self, names=None):
        self.names = names or render.Names()
        self.follow = Follower()
        self.said = None          # the last status shown

    def show(self, ev):
        f = self.follow
        before = f.board
        f.take(ev)
        kind = ev.get("ev")
        if kind == "verdict":
            out = [verdict_table(ev, names=self.names, settings=f.settings)]
        elif kind == "position":    # a position the board could not be built from: as text
            out = [board(f.board) if f.board is not before else line(ev, self.names)]
        else:
            out = [line(ev, self.names)]
            if kind in _BOARD_AFTER and f.board is not None and f.board.where and f.phase != "setup":
                out.append(board(f.board))
        said = render.status(f, self.names, keys=False) if f.mode is not None else None
        if kind in _STATUS_AFTER and said != self.said:
            self.said = said
            if said is not None:
                out.append(Text("  " + said, style="dim"))
        return [x for x in out if x is not None]


def show(ev):
    """What the monitor prints for one event on its own (None: nothing)."""
    shown = Monitor().show(ev)
    if not shown:
        return None
    if len(shown) == 1:
        return shown[0]
    from rich.console import Group
    return Group(*shown)
