"""How events read on screen: each event as a line or a small table, in player colours.

Pure presentation: ``show(ev)`` returns a rich renderable (or None for events not worth a
line), so the monitor, the replay tool and the tests share it.

- a press: who, which button, which contest, how far behind the first press;
- a verdict: the contest's order as a table, rank by rank, with lags and ties;
- a tie: who tied, how close, and the fair draw that ordered them;
- faults, stuck buttons, dropped edges and errors stand out;
- in Deathball, every ``position`` is drawn as the 8x8 board.
"""

from rich.table import Table
from rich.text import Text

COLOURS = ("red", "blue", "green", "yellow")   # players 1..4, as on the matrix


def player(p):
    if not isinstance(p, int) or not 1 <= p <= 4:
        return Text("main" if p == 0 else "P?", style="bold")
    return Text("P%d" % p, style="bold " + COLOURS[p - 1])


def ms(us):
    return "%.3f ms" % (us / 1000.0)


def clock(t):
    t = int(t or 0)
    return "%3d:%02d.%03d" % (t // 60000000, t // 1000000 % 60, t // 1000 % 1000)


def _line(ev, *parts, style=None):
    text = Text(clock(ev.get("t")) + "  ", style="dim")
    for part in parts:
        text.append(part if isinstance(part, Text) else Text(str(part), style=style))
    return text


def verdict_table(ev, title=None):
    table = Table(title=title or "contest %s" % ev.get("c"), title_justify="left",
                  show_edge=False, pad_edge=False)
    for name in ("rank", "player", "button", "behind first", "press"):
        table.add_column(name, justify="right" if name in ("rank", "behind first", "press") else "left")
    for o in ev.get("order", []):
        rank = Text(str(o.get("rank")) + (" tie" if o.get("tie") else ""),
                    style="bold magenta" if o.get("tie") else "")
        table.add_row(rank, player(o.get("p")), o.get("b", ""), ms(o.get("lag", 0)),
                      "#%s" % o.get("n"))
    return table


def board(text):
    """The Deathball board from a position text (notation) as an 8x8 grid, row 8 on top."""
    from courtside.deathball import notation
    # During set-up a player not yet placed is written "4@?"; the board shows the others.
    tokens = [tok for tok in text.split() if not tok.endswith("@?")]
    try:
        pos = notation.parse(" ".join(tokens))
    except ValueError:
        return Text("position " + text)
    cells = {}
    for box, square in pos["where"].items():
        if isinstance(square, int) and square >= 0:
            cells[square] = Text(str(box + 1), style="bold " + COLOURS[box])
    for i, square in enumerate(pos["balls"]):
        cells[square] = Text("@", style="bold white on red" if i == 0 else "bold white on magenta")
    ring = pos.get("ring", 0)
    out = Text()
    for row in range(7, -1, -1):
        out.append("%d " % (row + 1), style="dim")
        for col in range(8):
            inside = ring <= col <= 7 - ring and ring <= row <= 7 - ring
            cell = cells.get(row * 8 + col)
            out.append(cell if cell is not None else Text("." if inside else " ", style="dim"))
            out.append(" ")
        out.append("\n")
    out.append("  a b c d e f g h", style="dim")
    return out


def _press(ev):
    parts = [player(ev.get("p")), " %-5s contest %s" % (ev.get("b"), ev.get("c"))]
    if ev.get("lag"):
        parts.append(Text("  +" + ms(ev["lag"]), style="cyan"))
    else:
        parts.append(Text("  first", style="bold cyan"))
    if ev.get("early"):
        parts.append(Text("  EARLY (no throw open)", style="bold yellow"))
    return _line(ev, *parts)


def _tie(ev):
    parts = [Text("TIE", style="bold magenta"), " at rank %s: " % ev.get("rank")]
    for i, q in enumerate(ev.get("players", [])):
        parts += [", " if i else "", player(q)]
    parts.append(" within %s; fair draw: " % ms(ev.get("gap", 0)))
    for i, q in enumerate(ev.get("draw", [])):
        parts += [" then " if i else "", player(q)]
    return _line(ev, *parts)


def _stuck(ev):
    stuck = ev.get("ev") == "stuck"
    return _line(ev, player(ev.get("p")), Text(" %s %s" % (ev.get("b"), "STUCK" if stuck else "released"),
                                               style="bold red" if stuck else "green"))


def _fault(ev):
    what = "box FAULT: %s buttons closed at once" % ev.get("closed") if ev.get("kind") == "box" else \
        "box fault cleared"
    return _line(ev, player(ev.get("p")), Text(" " + what, style="bold red"))


def _overflow(ev):
    return _line(ev, Text("DROPPED %s edges (capture ring full), %s in all"
                          % (ev.get("new"), ev.get("dropped")), style="bold red"))


def _error(ev):
    return _line(ev, Text("error: %s" % ev.get("msg"), style="bold red"),
                 Text("  (%s)" % ev.get("line") if ev.get("line") else "", style="dim"))


def _hello(ev):
    return _line(ev, Text("Courtside %s" % ev.get("fw"), style="bold"),
                 " stream %s, mode %s, capture %s%s" % (
                     ev.get("stream"), ev.get("mode"), ev.get("capture"),
                     ", %s boxes" % ev["boxes"] if "boxes" in ev else ""))


def _start(ev):
    parts = ["game starts (%s): " % ev.get("mode", "")]
    for i, q in enumerate(ev.get("players", [])):
        parts += [", " if i else "", player(q)]
    return _line(ev, *parts)


def _other(ev):
    kind = ev.get("ev")
    p = ev.get("p")
    fields = ", ".join("%s=%s" % (k, v) for k, v in ev.items() if k not in ("ev", "t", "p"))
    parts = [Text(kind, style="bold")]
    if isinstance(p, int):
        parts += [" ", player(p)]
    return _line(ev, *parts, " " + fields if fields else "")


_SHOW = {
    "press": _press,
    "verdict": lambda ev: verdict_table(ev, "contest %s, tie window %s us" % (ev.get("c"), ev.get("tie_us"))),
    "tie": _tie,
    "stuck": _stuck,
    "unstuck": _stuck,
    "fault": _fault,
    "overflow": _overflow,
    "error": _error,
    "hello": _hello,
    "pong": _hello,
    "join": lambda ev: _line(ev, player(ev.get("p")), " joins"),
    "start": _start,
    "position": lambda ev: board(ev.get("text", "")),
    "ok": lambda ev: None,
    "cmd": lambda ev: None,
    "release": lambda ev: None,
}


def show(ev):
    """What the monitor prints for one event (None: nothing)."""
    return _SHOW.get(ev.get("ev"), _other)(ev)
