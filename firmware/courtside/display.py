"""What the 8x8 matrix shows, as pure functions from game facts to frames.

A frame is a ``bytearray(192)``: RGB for pixel (x, y) at ``3 * (8 * y + x)``, y = 0 the top
row. Colour carries player identity; shape carries meaning, so the matrix still reads
for a player who cannot tell two colours apart (box LEDs repeat each verdict).

Player colours: box 1 red, box 2 yellow, box 3 cyan, box 4 blue, the colour of each box's
LED too. Two warm colours far apart in lightness and two cool ones, so they stay apart for
the common red-green colour-vision deficiencies, where red, orange and green look alike
(``tests/test_palette.py`` checks them under a simulation). The levels are the LEDs' drive,
linear light: yellow needs less green than a screen's yellow because a WS2812's green is
the brightest of its three.

Dodge Ball contest: one band of two rows per rank, top band first. A band in one colour
is a player alone on that rank. A tie is a band split into the tied players' colours over
a dashed white bottom row: the tie mark. An early answer's part of its band is thin (its
bottom row dark): the early mark.

The lobby shows its game in the four centre pixels: white for Dodge Ball, a deathball's
pink for the refereed Deathball (the die mode shows a dim six).
"""

COLOURS = ((255, 0, 0), (255, 170, 0), (0, 170, 255), (0, 40, 255))  # players 1..4
WHITE = (255, 255, 255)
DIM = 12


def blank():
    return bytearray(192)


def put(frame, x, y, rgb):
    i = 3 * (8 * y + x)
    frame[i] = rgb[0]
    frame[i + 1] = rgb[1]
    frame[i + 2] = rgb[2]


def dim(rgb, level=DIM):
    return (rgb[0] * level // 255, rgb[1] * level // 255, rgb[2] * level // 255)


_REFEREE_MARK = (160, 12, 48)   # a deathball's pink


# Each drawing function keeps its frame within 11 words (a bigger one is taken from the
# heap at every call): loops are while loops or functions of their own, and pixels are
# named by their index 8 * y + x where that saves arguments.

def _pix(frame, at, rgb):
    """Pixel ``at`` (8 * y + x) set to ``rgb``."""
    i = 3 * at
    frame[i] = rgb[0]
    frame[i + 1] = rgb[1]
    frame[i + 2] = rgb[2]


def lobby(joined, game="dodgeball"):
    """One 4x4 quadrant per box: bright when joined, a dim corner when not; the centre
    four pixels say which game the lobby is for."""
    frame = blank()
    box = 0
    while box < 4:
        _quadrant(frame, box, box in joined)
        box += 1
    if game == "dodgeball":
        _centre(frame, WHITE)
    elif game == "referee":
        _centre(frame, _REFEREE_MARK)
    return frame


def _quadrant(frame, box, joined):
    """A joined box: its colour with a dim pixel on each inner diagonal square (1, 1)
    and (2, 2), a check of a kind; a box not joined: two dim corners."""
    colour = COLOURS[box]
    top = 32 * (box // 2) + 4 * (box % 2)          # the quadrant's top-left pixel
    if joined:
        _fill_quadrant(frame, top, colour)
        _pix(frame, top + 9, dim(colour, 60))
        _pix(frame, top + 18, dim(colour, 60))
    else:
        _pix(frame, top, dim(colour, 40))
        _pix(frame, top + 27, dim(colour, 40))


def _fill_quadrant(frame, top, colour):
    i = 0
    while i < 16:
        _pix(frame, top + 8 * (i >> 2) + (i & 3), colour)
        i += 1


def _centre(frame, mark):
    _pix(frame, 27, mark)
    _pix(frame, 28, mark)
    _pix(frame, 35, mark)
    _pix(frame, 36, mark)


BANDS = 4        # ranks a contest's picture shows


def contest(bands, early=None):
    """``bands``: per rank, the list of players in it (two or more = a tie); the first
    ``BANDS`` ranks shown. ``early``: per band, a bit (1 << player) for each player whose
    press in it was an early answer."""
    n = min(BANDS, len(bands))
    r = 0
    while r < n:
        _band(48 * r, bands[r], early[r] if early else 0)
        r += 1
    r = 48 * n
    while r < 192:                       # the rows below the last band: dark
        _work[r:r + 24] = _DARK
        r += 24
    return bytearray(_frame)


# A band is drawn a row at a time, by slice assignment from the rows below: no call per
# pixel, and no slice object on the heap (a store into a slice of a bytearray makes none
# on a MicroPython that keeps such a slice on the C stack, as 1.29 does; docs/firmware.md).
# A tie's part of a row is written as a whole row from its first column on; the part to
# its right is written after it, over what ran past, and the last part of a row runs into
# the row below, which is drawn next. So ``_work`` has a row's room past the frame's 192
# bytes, and ``contest`` hands out a copy of the frame's part of it.
_ROWS = tuple(bytes(rgb * 8) for rgb in COLOURS)          # a row in each player's colour
_DASHES = (bytes(WHITE + (0, 0, 0)) * 4, bytes((0, 0, 0) + WHITE) * 4)   # from an even, odd column
_DARK = bytes(24)
_work = bytearray(192 + 24)
_frame = memoryview(_work)[:192]


def _band(top, players, thin):
    """The band whose top row starts at byte ``top``. A player alone: two rows of their
    colour (the bottom one dark for an early answer). A tie: ``_tie``."""
    if len(players) > 1:
        return _tie(top, players, thin)
    player = players[0]
    row = _ROWS[player]
    _work[top:top + 24] = row
    _work[top + 24:top + 48] = _DARK if thin >> player & 1 else row


def _tie(top, players, thin):
    """Column x of a tie of n belongs to ``players[x * n // 8]``: their colour on top, and
    below it a dash of the tie mark on an even column, nothing on an odd one or under an
    early answer. Player k's part starts at column ceil(8k / n)."""
    n = len(players)
    k = 0
    while k < n:
        at = top + 3 * ((8 * k + n - 1) // n)
        _work[at:at + 24] = _ROWS[players[k]]
        k += 1
    k = 0
    while k < n:     # the bottom row: it starts at an even byte, so ``at`` is as odd as x
        at = top + 24 + 3 * ((8 * k + n - 1) // n)
        _work[at:at + 24] = _DARK if thin >> players[k] & 1 else _DASHES[at & 1]
        k += 1


def bands_of(contest):
    """(bands, early) for ``contest``, a judged ``arbiter.Contest``: a band for each of
    its first ``BANDS`` ranks in judged order, with its players, and the players whose
    press there was early. (All the picture shows: a storm's verdict has hundreds of
    ranks, and a band each was hundreds of lists made for nothing.)"""
    bands = []
    early = []
    i = 0
    while i < len(contest.order) and _in_band(bands, early, contest, i):
        i += 1
    return bands, early


def _in_band(bands, early, contest, i):
    """The ``i``-th press in judged order into its rank's band (a new one if its rank is
    new); False, adding nothing, when that band would be past the ``BANDS``-th."""
    place = contest.order[i]
    if not i or contest.rank[place] != contest.rank[contest.order[i - 1]]:
        if len(bands) == BANDS:
            return False
        bands.append([])
        early.append(0)
    player = contest.player[place]
    if player not in bands[-1]:
        bands[-1].append(player)
    if contest.early[place]:
        early[-1] |= 1 << player
    return True


def fault(box):
    """A box's colour behind a white X: that box has a fault (stuck button, bad cable)."""
    frame = blank()
    colour = dim(COLOURS[box], 80)
    for y in range(8):
        for x in range(8):
            put(frame, x, y, WHITE if x == y or x == 7 - y else colour)
    return frame


_levels = bytearray(256)     # value -> value * brightness // 255, for the last brightness
_levels_for = [-1]


def levels(brightness):
    """The 256-entry table value -> value * brightness // 255 (one table, rebuilt only
    when the brightness differs from the last one asked for)."""
    table = _levels
    if _levels_for[0] != brightness:
        for v in range(256):
            table[v] = v * brightness // 255
        _levels_for[0] = brightness
    return table


def scale(frame, brightness):
    """Scale a frame in place by a 1..255 brightness setting."""
    if brightness < 255:
        table = levels(brightness)
        for i in range(len(frame)):
            v = frame[i]
            if v:
                frame[i] = table[v]
    return frame
