"""What the 8x8 matrix shows, as pure functions from game facts to frames.

A frame is a ``bytearray(192)``: RGB for pixel (x, y) at ``3 * (8 * y + x)``, y = 0 the top
row. Colour carries player identity; shape carries meaning, so the matrix still reads
for a player who cannot tell two colours apart (box LEDs repeat each verdict).

Player colours are the ones a box LED can have (red, yellow, green, orange: LEDs of
about 2 V, which the Pico's 3.3 V pins can drive), so a box's LED and its player's colour
on the matrix are the same colour: box 1 red, box 2 yellow, box 3 green, box 4 orange.

Dodge Ball contest: one band of two rows per rank, top band first. A band in one colour
is a player alone on that rank. A tie is a band split into the tied players' colours over
a dashed white bottom row: the tie mark. An early answer's part of its band is thin (its
bottom row dark): the early mark.

The lobby shows its game in the four centre pixels: white for Dodge Ball, a deathball's
violet for the refereed Deathball (the die mode shows a dim six).
"""

COLOURS = ((255, 0, 0), (255, 150, 0), (0, 210, 40), (255, 60, 0))  # players 1..4
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


_REFEREE_MARK = (110, 0, 150)   # a deathball's violet


def lobby(joined, game="dodgeball"):
    """One 4x4 quadrant per box: bright when joined, a dim corner when not; the centre
    four pixels say which game the lobby is for."""
    frame = blank()
    for box in range(4):
        ox, oy = 4 * (box % 2), 4 * (box // 2)
        colour = COLOURS[box]
        for y in range(4):
            for x in range(4):
                if box in joined:
                    edge = x in (0, 3) or y in (0, 3)
                    put(frame, ox + x, oy + y, colour if edge or (x + y) % 2 else dim(colour, 60))
                elif (x, y) == (0, 0) or (x, y) == (3, 3):
                    put(frame, ox + x, oy + y, dim(colour, 40))
    if game in ("dodgeball", "referee"):
        mark = WHITE if game == "dodgeball" else _REFEREE_MARK
        for y in (3, 4):
            put(frame, 3, y, mark)
            put(frame, 4, y, mark)
    return frame


def contest(bands, early=None):
    """``bands``: per rank, the list of players in it (two or more = a tie); 4 ranks shown.
    ``early``: per band, a bit (1 << player) for each player whose press in it was an
    early answer."""
    frame = blank()
    for r in range(min(4, len(bands))):
        players = bands[r]
        thin = early[r] if early else 0
        k = len(players)
        for x in range(8):
            player = players[x * k // 8]
            colour = COLOURS[player]
            put(frame, x, 2 * r, colour)
            if thin >> player & 1:
                continue
            if k == 1:
                put(frame, x, 2 * r + 1, colour)
            elif x % 2 == 0:
                put(frame, x, 2 * r + 1, WHITE)
    return frame


def bands_of(order):
    """(bands, early) for ``contest`` from presses in judged order (rank, player,
    early)."""
    bands = []
    early = []
    last = None
    for p in order:
        if p.rank != last:
            bands.append([p.player])
            early.append(0)
            last = p.rank
        elif p.player not in bands[-1]:
            bands[-1].append(p.player)
        if p.early:
            early[-1] |= 1 << p.player
    return bands, early


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


def scale(frame, brightness):
    """Scale a frame in place by a 1..255 brightness setting."""
    if brightness < 255:
        table = _levels
        if _levels_for[0] != brightness:      # rebuilt only when the setting changes
            for v in range(256):
                table[v] = v * brightness // 255
            _levels_for[0] = brightness
        for i in range(len(frame)):
            v = frame[i]
            if v:
                frame[i] = table[v]
    return frame
