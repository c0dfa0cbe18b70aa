"""Each matrix cue's contrast with an unlit LED, as the screens draw it, before and now.

A cue is drawn on a matrix scaled to the default brightness (96), as the core sends it,
and taken to screen colour by the faces' mapping; its contrast with the unlit LED's colour
is WCAG's ratio of relative luminances (3:1 is the least a cue should have). "Before" is
the mapping and palette of the previous release (unlit LEDs grey 38, levels lifted with no
floor; players red, yellow 255/150/0, green, orange; ball 2 violet), "now" this tree's:

    python bench/contrast.py
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "common")]

from courtside import display  # noqa: E402
from courtside.deathball import view  # noqa: E402
from courtside_follow import face  # noqa: E402

BRIGHTNESS = 96
OLD_PLAYERS = ((255, 0, 0), (255, 150, 0), (0, 210, 40), (255, 60, 0))
OLD_BALLS = ((110, 110, 110), (110, 0, 150))


def cues(players, balls):
    """(name, drive levels) of every cue, with the frame's brightest level beside it (a
    figure at full colour, as on a board)."""
    out = [("red border", view._RED_BORDER), ("green border", view._GREEN_BORDER),
           ("die wall", view._WALL), ("arrow shaft", (120, 120, 120)), ("arrow head", view._HEAD),
           ("tie mark", display.WHITE)]
    for i, c in enumerate(balls):
        out += [("ball %d" % (i + 1), c), ("ball %d heading" % (i + 1), view.dim(c, 2))]
    for i, c in enumerate(players):
        out += [("player %d figure" % (i + 1), c), ("player %d pending square" % (i + 1), view.dim(c, 2)),
                ("player %d blinking figure, dim" % (i + 1), view.dim(c)),
                ("player %d lobby corner" % (i + 1), display.dim(c, 40))]
    return out


def scaled(rgb):
    frame = bytearray(rgb) + bytearray((255, 0, 0))     # beside a full red, as on a board
    display.scale(frame, BRIGHTNESS)
    return tuple(frame[0:3]), max(frame)


def old_cell(rgb):
    levels, top = scaled(rgb)
    return tuple(round(255 * (v / top) ** 0.5) if v else 0 for v in levels)


def new_cell(rgb):
    levels, top = scaled(rgb)
    return face.shown(levels, top) if any(levels) else None


def main():
    print("cue contrast with an unlit LED, brightness %d (WCAG ratio; 3:1 wanted)" % BRIGHTNESS)
    print("  %-34s %8s %8s" % ("cue", "before", "now"))
    olds = cues(OLD_PLAYERS, OLD_BALLS)
    news = cues(display.COLOURS, view.BALL_COLOURS)
    low = [99.0, 99.0]
    for (name, old), (_, new) in zip(olds, news):
        before = face.contrast(old_cell(old), (38, 38, 38))
        cell = new_cell(new)
        now = face.contrast(cell, face.FACE["off"]) if cell else 0.0
        low = [min(low[0], before), min(low[1], now)]
        print("  %-34s %6.2f:1 %6.2f:1" % (name, before, now))
    print("  %-34s %6.2f:1 %6.2f:1" % ("lowest", low[0], low[1]))


if __name__ == "__main__":
    main()
