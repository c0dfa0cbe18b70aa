"""What the 8x8 matrix shows in Deathball: the board, die faces and bounce arrows.

Each matrix pixel is one square of the chessboard: column a on the left, row 8 at the top
(y = 0) and row 1, the starting edge, at the bottom (y = 7). Figures are in their player's
colour, the two deathballs white and pink with a dim pixel ahead of each showing its
heading, the squares outside the border dim red (red border) and dim green (green border). The
player to move blinks. All drawing goes into a caller's ``bytearray(192)``; nothing here
allocates a frame.

    board(frame, shown, turn=1, blink=True)        # shown: a track.Shown
    face(frame, 4, BALL_COLOURS[0])
    wall_arrow(frame, 2)
"""

from courtside.display import COLOURS as PLAYER_COLOURS  # the same colours in every mode

BALL_COLOURS = ((110, 110, 110), (160, 12, 48))   # white, pink
_RED_BORDER = (14, 0, 0)
_GREEN_BORDER = (0, 12, 0)
_WALL = (30, 30, 30)
_HEAD = (0, 110, 140)       # an arrow's head: apart from the ball it leaves, and the shaft

# Top-left corners of the 2x2 pips of each die face.
_PIPS = {1: ((3, 3),), 2: ((1, 1), (5, 5)), 3: ((1, 1), (3, 3), (5, 5)),
         4: ((1, 1), (5, 1), (1, 5), (5, 5)), 5: ((1, 1), (5, 1), (3, 3), (1, 5), (5, 5)),
         6: ((1, 1), (5, 1), (1, 3), (5, 3), (1, 5), (5, 5))}

# Bounce templates drawn from the wall (bottom row) or the corner (bottom left) looking
# up into the board. Steps are picture steps: (dx, dy) with dy < 0 up the matrix.
# Each arrow as a ray from the ball: (x, y, dx, dy).
_WALL_RAYS = {1: (3, 6, -1, 0), 2: (3, 6, -1, -1), 3: (3, 6, 0, -1), 4: (3, 6, 1, -1), 5: (3, 6, 1, 0)}
_MIRROR_IN = (3, 6, -1, -1)
_MIRROR_OUT = (3, 6, 1, -1)
_CORNER_RAYS = {1: (1, 6, 0, -1), 2: (1, 6, 0, -1), 3: (1, 6, 1, -1), 4: (1, 6, 1, -1), 5: (1, 6, 1, 0),
                6: (1, 6, 1, 0)}
_TRAIL = 3


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


def setup(frame, shown, free, at, colour, blink=True):
    """Set-up: the board of ``shown``, the ``free`` set-up squares dim in ``colour`` (the
    player who sets up), the one at index ``at`` (the cursor) bright, half-bright in the
    blink's dark phase."""
    board(frame, shown)
    i = 0
    while i < len(free):
        square(frame, free[i], colour if i == at and blink else dim(colour, 2) if i == at else dim(colour, 4))
        i += 1


def board(frame, shown, turn=None, blink=True, pending=None):
    """The whole board of ``shown`` (a ``track.Shown``: its figures, deathballs, headings
    and border); ``turn`` the box whose figure blinks (dim when ``blink`` is False),
    ``pending`` the square a half-entered move has reached so far (dim in the mover's
    colour)."""
    clear(frame)
    band = 0
    while band < shown.border:
        _outline(frame, band, _RED_BORDER if band == 0 else _GREEN_BORDER)
        band += 1
    band = 0
    while band < len(shown.balls):
        _heading(frame, shown, band)
        band += 1
    if pending is not None and turn is not None:
        _pending(frame, pending, turn)
    _figures(frame, shown.where, turn, blink)
    _balls(frame, shown.balls)


# Drawing is split into small functions, each a few locals: a bytecode function whose
# frame passes 11 words is put on the heap at every call (tests/test_frames.py). A line
# on the matrix is a *ray*, (x, y, dx, dy): its start and its step, in pixels.

def _outline(frame, band, colour):
    """The squares ``band`` in from the edge: a border outside the shrunken board."""
    far = 7 - band
    i = band
    while i <= far:
        pixel(frame, i, band, colour)
        pixel(frame, i, far, colour)
        pixel(frame, band, i, colour)
        pixel(frame, far, i, colour)
        i += 1


def _heading(frame, shown, i):
    """A dim pixel ahead of deathball ``i``, where it is heading (inside the border)."""
    border = shown.border
    x = (shown.balls[i] & 7) + shown.headings[i][0]
    r = (shown.balls[i] >> 3) + shown.headings[i][1]
    if border <= x <= 7 - border and border <= r <= 7 - border:
        _dim_square(frame, r * 8 + x, BALL_COLOURS[i])


def _dim_square(frame, sq, colour):
    square(frame, sq, dim(colour, 2))


def _pending(frame, sq, turn):
    _dim_square(frame, sq, PLAYER_COLOURS[turn])


def _figures(frame, where, turn, blink):
    box = 0
    while box < len(PLAYER_COLOURS):
        if box in where:
            _figure(frame, where[box], box, box == turn and not blink)
        box += 1


def _figure(frame, sq, box, dimmed):
    colour = PLAYER_COLOURS[box]
    square(frame, sq, dim(colour) if dimmed else colour)


def _balls(frame, balls):
    i = len(balls) - 1
    while i >= 0:
        square(frame, balls[i], BALL_COLOURS[i])
        i -= 1


def trail(frame, sq, heading, colour):
    """A short line from square ``sq`` along ``heading`` (the new heading after a bounce),
    fading."""
    ray = (sq & 7, 7 - (sq >> 3), heading[0], -heading[1])
    i = 1
    while i <= _TRAIL:
        _shaded(frame, ray, i, colour)
        i += 1


def _shaded(frame, ray, i, colour):
    _along(frame, ray, i, dim(colour, i))


def _along(frame, ray, i, colour):
    """The ``i``-th pixel of ``ray``."""
    pixel(frame, ray[0] + ray[2] * i, ray[1] + ray[3] * i, colour)


def _line(frame, ray, length, colour):
    i = 1
    while i <= length:
        _along(frame, ray, i, colour)
        i += 1


def _arrow(frame, ray, length, colour, head=_HEAD):
    """``length`` pixels along ``ray``: a shaft a little dimmer than ``colour``, then
    ``head``."""
    colour = dim(colour, 1)
    _line(frame, ray, length - 1, colour)
    _along(frame, ray, length, head)


def face(frame, n, colour):
    """Die face ``n`` (1..6) as 2x2 pips."""
    clear(frame)
    pips = _PIPS[n]
    k = 0
    while k < len(pips):
        _pip(frame, pips[k], colour)
        k += 1


def _pip(frame, pip, colour):
    x = pip[0]
    y = pip[1]
    pixel(frame, x, y, colour)
    pixel(frame, x + 1, y, colour)
    pixel(frame, x, y + 1, colour)
    pixel(frame, x + 1, y + 1, colour)


def wall_arrow(frame, n, colour=(120, 120, 120)):
    """The wall template's arrow for face ``n``: the wall is the bottom row, the ball just
    above its middle; 6 (mirror) is drawn as a V: in along one diagonal, out the other."""
    clear(frame)
    _walls(frame, False)
    pixel(frame, 3, 6, colour)
    if n == 6:
        faint = dim(colour, 2)
        _arrow(frame, _MIRROR_IN, 3, faint, faint)
        _arrow(frame, _MIRROR_OUT, 4, colour)
    else:
        _arrow(frame, _WALL_RAYS[n], 3 if n in (1, 5) else 4, colour)


def corner_arrow(frame, n, colour=(120, 120, 120)):
    """The corner template's arrow for face ``n``: the corner is bottom left."""
    clear(frame)
    _walls(frame, True)
    pixel(frame, 1, 6, colour)
    _arrow(frame, _CORNER_RAYS[n], 5, colour)


def _walls(frame, corner):
    """The bottom row as the wall, and the left column too for a corner."""
    i = 0
    while i < 8:
        pixel(frame, i, 7, _WALL)
        if corner:
            pixel(frame, 0, i, _WALL)
        i += 1


def bars(frame, rolls):
    """Initiative: one column pair per player, as tall as the face rolled, in its colour.
    ``rolls`` is a list of (box, face)."""
    clear(frame)
    k = 0
    while k < len(rolls):
        _bar(frame, rolls[k][0], rolls[k][1])
        k += 1


def _bar(frame, box, n):
    colour = PLAYER_COLOURS[box]
    x = box * 2
    h = 0
    while h < n:
        pixel(frame, x, 7 - h, colour)
        pixel(frame, x + 1, 7 - h, colour)
        h += 1


def fill(frame, colour):
    for i in range(0, len(frame), 3):
        frame[i] = colour[0]
        frame[i + 1] = colour[1]
        frame[i + 2] = colour[2]
