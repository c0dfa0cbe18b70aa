"""Deathball in words: square names (a1..h8), heading names, and a one-line position.

The position text is how a laptop or a script starts a game from a given position and how
the referee writes the board into the event stream. Tokens, separated by spaces:

    1@c1      player 1's figure on c1 (players in turn order, Player One first)
    3@x       player 3 is dead
    4@?       player 4 has not set up yet (written during set-up; not read back)
    *b8n      a deathball on b8 heading north (n ne e se s sw w nw); the first is ball 0
    r1        border on the board: r0 8x8, r1 6x6 (b2-g7), r2 4x4 (c3-f6)
    t3        whose turn it is (player 3); omitted when the game is over
    n5        round number (optional, default 1)

Players are numbered 1..4 as on the boxes (box 1 is box index 0 in the firmware).

    text = "1@c1 2@d3 3@x 4@f1 *b8n *g8n r1 t2"
"""

from courtside import events
from courtside.text import words

COLUMNS = "abcdefgh"
HEADINGS = {(0, 1): "n", (1, 1): "ne", (1, 0): "e", (1, -1): "se",
            (0, -1): "s", (-1, -1): "sw", (-1, 0): "w", (-1, 1): "nw"}
_BY_NAME = {}
for _h, _name in HEADINGS.items():
    _BY_NAME[_name] = _h

# The 64 square names, made once, a rank to a tuple (one tuple of 64 would be a table too
# wide for the collector's mark stack: tests/test_mark_stack.py), and kept ready-quoted
# by the encoder with the headings: a refereed game writes them in nearly every line, and
# on the chip a name made afresh and spelled byte by byte took a few ms a line.
_RANKS = tuple(tuple(c + str(rank + 1) for c in COLUMNS) for rank in range(8))
for _rank in _RANKS:
    events.words(*_rank)
events.words(*HEADINGS.values())


def square_name(square):
    if 0 <= square < 64:
        return _RANKS[square >> 3][square & 7]
    return COLUMNS[square & 7] + str((square >> 3) + 1)


def square_of(name):
    """The square number of a name like "e4"; ValueError if it is not one."""
    if len(name) != 2 or name[0] not in COLUMNS or name[1] not in "12345678":
        raise ValueError("not a square: %s" % name)
    return (int(name[1]) - 1) * 8 + COLUMNS.index(name[0])


def heading_name(heading):
    return HEADINGS[(heading[0], heading[1])]


def heading_of(name):
    if name not in _BY_NAME:
        raise ValueError("not a heading: %s" % name)
    return _BY_NAME[name]


def _number(text, token):
    """A whole number in ASCII digits, or ValueError naming the token (``int`` alone would
    read other scripts' digits on CPython and not on MicroPython)."""
    for ch in text:
        if not "0" <= ch <= "9":
            raise ValueError("bad token: %s" % token)
    if not text or len(text) > 6:
        raise ValueError("bad token: %s" % token)
    return int(text)


def parse(text):
    """A dict {order, where, dead, balls, headings, border, turn, round} from position text."""
    order = []
    where = {}
    dead = []
    balls = []
    headings = []
    border = 0
    turn = None
    rnd = 1
    for token in words(text):
        if "@" in token:
            box, at = token.split("@")
            box = _number(box, token) - 1
            if box < 0 or box > 3 or box in order:
                raise ValueError("bad player: %s" % token)
            order.append(box)
            if at == "x":
                dead.append(box)
            else:
                where[box] = square_of(at)
        elif token[0] == "*":
            balls.append(square_of(token[1:3]))
            headings.append(heading_of(token[3:]))
        elif token[0] == "r":
            border = _number(token[1:], token)
        elif token[0] == "t":
            turn = _number(token[1:], token) - 1
        elif token[0] == "n":
            rnd = _number(token[1:], token)
        else:
            raise ValueError("bad token: %s" % token)
    if len(balls) != 2:
        raise ValueError("a position needs two deathballs")
    if len(order) < 2:
        raise ValueError("a position needs two to four players")
    if border < 0 or border > 2:
        raise ValueError("border must be r0, r1 or r2")
    if border > len(dead):
        raise ValueError("border r%d needs %d dead" % (border, border))
    squares = [where[b] for b in where]
    if len(set(squares)) != len(squares):
        raise ValueError("two players on one square")
    lo, hi = border, 7 - border
    for sq in squares + balls:
        if not (lo <= (sq & 7) <= hi and lo <= (sq >> 3) <= hi):
            raise ValueError("%s is outside the border" % square_name(sq))
    for sq in squares:
        if sq in balls:
            raise ValueError("a player on a deathball's square is dead")
    if turn is not None and turn not in where:
        raise ValueError("the player to move must be alive")
    return {"order": order, "where": where, "dead": dead, "balls": balls,
            "headings": headings, "border": border, "turn": turn, "round": rnd}


def write(order, where, balls, headings, border, turn, rnd=1, dead=None):
    parts = []
    for box in order:
        at = square_name(where[box]) if box in where else "x" if dead is None or box in dead else "?"
        parts.append("%d@%s" % (box + 1, at))
    for i in range(len(balls)):
        parts.append("*%s%s" % (square_name(balls[i]), heading_name(headings[i])))
    parts.append("r%d" % border)
    if turn is not None:
        parts.append("t%d" % (turn + 1))
    if rnd > 1:
        parts.append("n%d" % rnd)
    return " ".join(parts)
