"""Courtside's house readings of the Deathball text, all in one place.

The design text leaves gaps (its bounce template pictures are missing, and it says little
about moments when several things happen at once). Every choice Courtside makes to fill
them lives in this module, is explained for players in docs/deathball.md and has a test in
tests/test_deathball_rules.py. The engine asks this module; it never decides these itself.

Squares are numbers ``row * 8 + column``: column 0..7 is a..h, row 0..7 is 1..8, row 1 is
the starting edge. A heading is a step ``(dx, dy)`` with dy > 0 towards row 8 (north).

    rules.border_bounds(1)                   # (1, 6): the 6x6 board b2-g7
    rules.wall_heading(3, (0, -1), (0, 1))   # straight in from the north wall: (0, -1)
"""

from micropython import const

from courtside.pins import ARROWS as BUTTON_ARROWS

SIZE = const(8)

# Set-up: players stand on the four centre squares of the starting edge, c1 d1 e1 f1.
SETUP_SQUARES = (2, 3, 4, 5)

# The deathballs start one square in from each far corner, b8 and g8, facing north (off
# the board), so their first move always begins with a bounce off the far wall.
BALL_STARTS = (7 * 8 + 1, 7 * 8 + 6)
BALL_START_HEADING = (0, 1)

# Players move exactly this many orthogonal steps; deathballs this many steps each.
MOVE_STEPS = const(2)
BALL_STEPS = const(6)

# The four arrows in button order: UP, DOWN, LEFT, RIGHT = north, south, west, east.
# On the matrix row 8 is at the top, so UP on a box moves a figure up the matrix.
ARROWS = ((0, 1), (0, -1), (-1, 0), (1, 0))
ARROW_NAMES = tuple(name.lower() for name in BUTTON_ARROWS)   # as the stream and commands say them
OPPOSITE = (1, 0, 3, 2)

# Borders: after the first death the red border (6x6, b2-g7), after the second the
# green border (4x4, c3-f6). Later deaths shrink nothing further.
BORDERS = (8, 6, 4)
LAST_BORDER = const(2)


def border_bounds(border):
    """(lowest, highest) column and row index on the board inside ``border`` (0, 1 or 2)."""
    return border, SIZE - 1 - border


def border_after(deaths):
    """The border that must be on the board once ``deaths`` players have died."""
    return deaths if deaths < LAST_BORDER else LAST_BORDER


def turn_order(players, first):
    """Clockwise from Player One. Courtside reads clockwise as rising box number (box 1, 2,
    3, 4 sit clockwise round the table), wrapping round after the last box."""
    ordered = sorted(players)
    i = ordered.index(first)
    return ordered[i:] + ordered[:i]


def clamp(square, border):
    """The nearest square inside ``border``: each coordinate is brought inside on its own,
    so an edge square moves one square in and a corner square moves in diagonally."""
    lo, hi = border_bounds(border)
    x = square & 7
    y = square >> 3
    x = lo if x < lo else hi if x > hi else x
    y = lo if y < lo else hi if y > hi else y
    return y * 8 + x


def clamp_order(order):
    """Who moves in, in what order, when a border goes on: the deathballs first (the engine
    does them before calling this), then the players one by one in turn order, Player One
    first. Shrinking happens border by border: if two players die in the same moment the red
    border goes on, with all its moving in, before the green one. A player moved onto another
    pushes it on in the direction of its own move (diagonally from a corner), chains
    allowed; anyone landing on a deathball dies."""
    return list(order)


def second_step(mover_alive, players_left):
    """Whether a move goes on to its second step. A move is legal when every step it takes
    is legal; walking into a deathball is allowed. A player who dies on the first step
    takes no second step, and nobody does once the first step has ended the game."""
    return mover_alive and players_left > 1


def game_over(players_left):
    """Deaths in one "moment" happen at the same time. A moment is one step of a player's
    move (with its pushes), one step of the two deathballs (they move together), or one
    border going on (with all its moving in). The game ends at the end of the first moment
    that leaves one player (the winner) or none (no winner: the last died together)."""
    return players_left <= 1


def walls(square, border):
    """Inward headings of the walls of ``border`` that ``square`` touches (0, 1 or 2)."""
    lo, hi = border_bounds(border)
    x = square & 7
    y = square >> 3
    out = []
    if x == lo:
        out.append((1, 0))
    elif x == hi:
        out.append((-1, 0))
    if y == lo:
        out.append((0, 1))
    elif y == hi:
        out.append((0, -1))
    return out


def _left(heading):
    # Turning a quarter to the left (anticlockwise seen from above, north up).
    return (-heading[1], heading[0])


def wall_heading(face, inward, incoming):
    """Wall template, seen from the wall looking into the board (``inward``):
    1 along the wall to the left, 2 diagonal left, 3 straight in, 4 diagonal right,
    5 along the wall to the right, 6 the mirror reflection of the incoming heading."""
    left = _left(inward)
    right = (-left[0], -left[1])
    if face == 1:
        return left
    if face == 2:
        return (inward[0] + left[0], inward[1] + left[1])
    if face == 3:
        return inward
    if face == 4:
        return (inward[0] + right[0], inward[1] + right[1])
    if face == 5:
        return right
    # 6: the part of the heading that crosses the wall turns round, the rest carries on.
    if inward[0]:
        return (-incoming[0], incoming[1])
    return (incoming[0], -incoming[1])


def corner_heading(face, inward):
    """Corner template, seen from the corner looking into the board along the diagonal
    ``inward``: 1-2 along the left wall, 3-4 diagonally out of the corner, 5-6 along the
    right wall."""
    along_x = (inward[0], 0)
    along_y = (0, inward[1])
    left = _left(inward)
    if along_x[0] * left[0] > 0:
        on_left, on_right = along_x, along_y
    else:
        on_left, on_right = along_y, along_x
    if face <= 2:
        return on_left
    if face <= 4:
        return inward
    return on_right


def bounce(face, square, border, incoming):
    """(template, new heading) for a ball on ``square`` whose next step would leave the
    board: "corner" on a corner square of the border, else "wall"."""
    inward = walls(square, border)
    if len(inward) == 2:
        return "corner", corner_heading(face, (inward[0][0] + inward[1][0], inward[0][1] + inward[1][1]))
    return "wall", wall_heading(face, inward[0], incoming)
