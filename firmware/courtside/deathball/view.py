"""What the 8x8 matrix shows in Deathball: the board, die faces and bounce arrows.

Each matrix pixel is one square of the chessboard: column a on the left, row 8 at the top
(y = 0) and row 1, the starting edge, at the bottom (y = 7). Figures are in their player's
colour, the two deathballs white and violet with a dim pixel ahead of each showing its
heading, the squares outside the ring dim red (red ring) and dim green (green ring). The
player to move blinks. All drawing goes into a caller's ``bytearray(192)``; nothing here
allocates a frame.

    board(frame, where, balls, headings, ring, turn=1, blink=True)
    face(frame, 4, BALL_COLOURS[0])
    wall_arrow(frame, 2)
"""

from courtside.display import COLOURS as PLAYER_COLOURS  # the same colours in every mode

BALL_COLOURS = ((110, 110, 110), (110, 0, 150))
_RED_RING = (14, 0, 0)
_GREEN_RING = (0, 12, 0)
_WALL = (30, 30, 30)
_HEAD = (0, 110, 140)       # an arrow's head: apart from the ball it leaves, and the shaft

# Top-left corners of the 2x2 pips of each die face.
_PIPS = {1: ((3, 3),), 2: ((1, 1), (5, 5)), 3: ((1, 1), (3, 3), (5, 5)),
         4: ((1, 1), (5, 1), (1, 5), (5, 5)), 5: ((1, 1), (5, 1), (3, 3), (1, 5), (5, 5)),
         6: ((1, 1), (5, 1), (1, 3), (5, 3), (1, 5), (5, 5))}

# Bounce templates drawn from the wall (bottom row) or the corner (bottom left) looking
# up into the board. Steps are picture steps: (dx, dy) with dy < 0 up the matrix.
_WALL_STEPS = {1: (-1, 0), 2: (-1, -1), 3: (0, -1), 4: (1, -1), 5: (1, 0)}
_CORNER_STEPS = {1: (0, -1), 2: (0, -1), 3: (1, -1), 4: (1, -1), 5: (1, 0), 6: (1, 0)}


def clear(frame):
    for i in range(len(frame)):
        frame[i] = 0


def pixel(frame, x, y, colour):
    if 0 <= x < 8 and 0 <= y < 8:
        i = (y * 8 + x) * 3
        frame[i] = colour[0]
        frame[i + 1] = colour[1]
        frame[i + 2] = colour[2]


def dim(colour, shift=3):
    return (colour[0] >> shift, colour[1] >> shift, colour[2] >> shift)


def square(frame, sq, colour):
    """Light the pixel of board square ``sq`` (row * 8 + column)."""
    pixel(frame, sq & 7, 7 - (sq >> 3), colour)


def board(frame, where, balls, headings, ring, turn=None, blink=True, pending=None):  # noqa: PLR0917
    """The whole board. ``where`` maps box -> square for living players; ``pending`` is the
    square a half-entered move has reached so far (shown dim in the mover's colour)."""
    clear(frame)
    for y in range(8):
        for x in range(8):
            band = min(x, y, 7 - x, 7 - y)
            if band < ring:
                pixel(frame, x, y, _RED_RING if band == 0 else _GREEN_RING)
    lo = ring
    hi = 7 - ring
    for i in range(len(balls)):
        x = (balls[i] & 7) + headings[i][0]
        r = (balls[i] >> 3) + headings[i][1]
        if lo <= x <= hi and lo <= r <= hi:
            square(frame, r * 8 + x, dim(BALL_COLOURS[i], 2))
    if pending is not None and turn is not None:
        square(frame, pending, dim(PLAYER_COLOURS[turn], 2))
    for box in where:
        colour = PLAYER_COLOURS[box]
        if box == turn and not blink:
            colour = dim(colour)
        square(frame, where[box], colour)
    for i in range(len(balls) - 1, -1, -1):
        square(frame, balls[i], BALL_COLOURS[i])


def trail(frame, sq, heading, colour, length=3):
    """A short line from square ``sq`` along ``heading`` (the new heading after a bounce)."""
    x = sq & 7
    r = sq >> 3
    for i in range(1, length + 1):
        pixel(frame, x + heading[0] * i, 7 - (r + heading[1] * i), dim(colour, i))


def face(frame, n, colour):
    """Die face ``n`` (1..6) as 2x2 pips."""
    clear(frame)
    for x, y in _PIPS[n]:
        pixel(frame, x, y, colour)
        pixel(frame, x + 1, y, colour)
        pixel(frame, x, y + 1, colour)
        pixel(frame, x + 1, y + 1, colour)


def _arrow(frame, x, y, step, colour, length, head=_HEAD):  # noqa: PLR0917
    for i in range(1, length + 1):
        pixel(frame, x + step[0] * i, y + step[1] * i, head if i == length else dim(colour, 1))


def wall_arrow(frame, n, colour=(120, 120, 120)):
    """The wall template's arrow for face ``n``: the wall is the bottom row, the ball just
    above its middle; 6 (mirror) is drawn as a V: in along one diagonal, out the other."""
    clear(frame)
    for x in range(8):
        pixel(frame, x, 7, _WALL)
    pixel(frame, 3, 6, colour)
    if n == 6:
        _arrow(frame, 3, 6, (-1, -1), dim(colour, 2), 3, dim(colour, 2))
        _arrow(frame, 3, 6, (1, -1), colour, 4)
    else:
        _arrow(frame, 3, 6, _WALL_STEPS[n], colour, 3 if n in (1, 5) else 4)


def corner_arrow(frame, n, colour=(120, 120, 120)):
    """The corner template's arrow for face ``n``: the corner is bottom left."""
    clear(frame)
    for i in range(8):
        pixel(frame, i, 7, _WALL)
        pixel(frame, 0, i, _WALL)
    pixel(frame, 1, 6, colour)
    _arrow(frame, 1, 6, _CORNER_STEPS[n], colour, 5)


def bars(frame, rolls):
    """Initiative: one column pair per player, as tall as the face rolled, in its colour.
    ``rolls`` is a list of (box, face)."""
    clear(frame)
    for box, n in rolls:
        x = box * 2
        for h in range(n):
            pixel(frame, x, 7 - h, PLAYER_COLOURS[box])
            pixel(frame, x + 1, 7 - h, PLAYER_COLOURS[box])


def fill(frame, colour):
    for i in range(0, len(frame), 3):
        frame[i] = colour[0]
        frame[i + 1] = colour[1]
        frame[i + 2] = colour[2]
