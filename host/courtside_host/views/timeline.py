"""A contest as a picture, to settle an argument: the presses on a microsecond axis.

One lane per player (in the player's colour and name), each press a dot at its lag
behind the contest's first press, labelled with its rank, button and lag; the tie window
after each rank's first press shaded, so anyone can see which presses fell inside it;
ties and early answers marked. Plain SVG (no script, no fonts beyond sans-serif), so it
opens in any browser and prints.

    svg = timeline.draw(verdict, names=render.Names({1: "Ann"}), title="contest 3")
    Path("contest3.svg").write_text(svg)
"""

from xml.sax.saxutils import escape

from courtside_host.views import render

_W = 900
_LEFT = 170           # room for the lane names
_RIGHT = 40
_LANE = 54
_TOP = 64
_CHAR = 8.0           # the width of a character of the 13 px sans-serif, about (a bound, not a metric)
_MIN_WINDOW = 6       # px: a tie window is never drawn thinner, however long the contest
# dark paper, as the page and the terminal: the player colours (yellow, cyan) read on it
PAPER = "#16181b"
INK = "#eceff1"


def _nice_step(span):
    """A round tick step (1, 2 or 5 times a power of ten) for about 6 ticks over ``span``."""
    raw = max(span / 6.0, 1.0)
    power = 1
    while power * 10 <= raw:
        power *= 10
    for k in (1, 2, 5, 10):
        if k * power >= raw:
            return k * power
    return 10 * power


def _label(us):
    return "%g ms" % (us / 1000.0) if us >= 1000 or us == 0 else "%d µs" % us


def _text_near(x, y, words, cls):
    """A label beside a dot at ``x``: to its right where it fits on the canvas, else to
    its left, else as far right as it fits (squeezed if it is wider than the canvas)."""
    width = _CHAR * len(words)
    if x + 10 + width <= _W - 6:
        left = x + 10
    elif x - 10 - width >= 6:
        left = x - 10 - width
    else:
        left = max(6.0, _W - 6 - width)
    fit = ' textLength="%d" lengthAdjust="spacingAndGlyphs"' % (_W - 12) if width > _W - 12 else ""
    return '<text class="%s" x="%.1f" y="%d" fill="%s"%s>%s</text>' % (cls, left, y, INK, fit, escape(words))


def draw(verdict, names=None, title=None, settings=None):
    """The SVG text for one ``verdict`` event (its ``order`` and ``tie_us``)."""
    names = names or render.Names()
    order = verdict.get("order", [])
    tie_us = verdict.get("tie_us", 0)
    players = []
    for o in order:
        if o.get("p") not in players:
            players.append(o.get("p"))
    players.sort()
    last = max([o.get("lag", 0) for o in order] + [0])
    span = max(last + tie_us, 1) * 1.08
    height = _TOP + _LANE * len(players) + 56

    def x(us):
        return _LEFT + (_W - _LEFT - _RIGHT) * us / span

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="13">' % (_W, height, _W, height),
           '<rect width="100%%" height="100%%" fill="%s"/>' % PAPER,
           '<text x="12" y="24" font-size="16" font-weight="bold" fill="%s">%s</text>'
           % (INK, escape(title or render.contest_heading(verdict, settings)))]
    out.append('<text x="12" y="44" fill="#b0b4b8">each dot a press at its lag behind the first; '
               'shaded: the tie window (%s) after each rank\'s first press</text>' % _label(tie_us))
    bottom = _TOP + _LANE * len(players)
    seen_ranks = set()
    for o in order:                                   # the tie windows, under everything
        if o.get("rank") in seen_ranks:
            continue
        seen_ranks.add(o.get("rank"))
        lag = o.get("lag", 0)
        shade = "#9b59b6" if o.get("tie") else "#999999"
        out.append('<rect class="tie-window" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" '
                   'fill-opacity="0.35" stroke="%s" stroke-width="1"/>'
                   % (x(lag), _TOP - 6, max(x(lag + tie_us) - x(lag), _MIN_WINDOW), bottom - _TOP + 12,
                      shade, shade))
    for i, p in enumerate(players):                    # lanes
        y = _TOP + _LANE * i + _LANE // 2
        colour = "#%02x%02x%02x" % render.rgb(p)
        out.append('<line class="lane" x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (_LEFT, y, _W - _RIGHT, y, colour))
        out.append('<text x="12" y="%d" fill="%s" font-weight="bold">%s</text>'
                   % (y + 5, colour, escape(names.label(p))))
    step = _nice_step(span)                            # the axis
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>' % (_LEFT, bottom + 8, _W - _RIGHT,
                                                                          bottom + 8, INK))
    tick = 0
    while tick <= span:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                   % (x(tick), bottom + 4, x(tick), bottom + 12, INK))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#d0d4d8">%s</text>'
                   % (x(tick), bottom + 28, _label(tick)))
        tick += step
    for o in order:                                    # the presses
        p = o.get("p")
        y = _TOP + _LANE * players.index(p) + _LANE // 2
        colour = "#%02x%02x%02x" % render.rgb(p)
        words = "%s%s %s" % ("=" if o.get("tie") else "", render.rank_word(o.get("rank", 0)), o.get("b"))
        lag = o.get("lag", 0)
        words += " +%s" % _label(lag) if lag else " (first)"
        out.append('<circle class="press" cx="%.1f" cy="%d" r="7" fill="%s" stroke="black"/>'
                   % (x(lag), y, colour))
        out.append(_text_near(x(lag), y - 10, words, "label"))
        if o.get("early"):                             # its own line, under the dot
            out.append(_text_near(x(lag), y + 20, "EARLY: " + render.early_words(o["early"]), "label early"))
    out.append("</svg>")
    return "\n".join(out) + "\n"
