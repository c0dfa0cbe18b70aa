# Runs on CPython and on the MicroPython unix port: display.contest against the algorithm
# it replaced (kept here, as it was: a function call per column and per pixel), on every
# contest of up to 4 ranks and 4 players. Prints "cases N differ M" and, for each of the
# first few that differ, the case; on MicroPython also "extra bytes B": the most heap a
# contest took beyond the bytearray(192) it returns. tests/test_contest.py runs it on
# both runtimes. bench/frame_cost.py imports the reference from here.
# argv: the firmware folder.
import sys

COLOURS = ((255, 0, 0), (255, 170, 0), (0, 170, 255), (0, 40, 255))
WHITE = (255, 255, 255)
PLAYERS = 4


# The reference: display.contest before it drew rows by slice assignment -------------------

def _pix(frame, at, rgb):
    i = 3 * at
    frame[i] = rgb[0]
    frame[i + 1] = rgb[1]
    frame[i + 2] = rgb[2]


def old_contest(bands, early=None):
    frame = bytearray(192)
    r = 0
    n = min(4, len(bands))
    while r < n:
        _old_band(frame, r, bands[r], early[r] if early else 0)
        r += 1
    return frame


def _old_band(frame, r, players, thin):
    at = 16 * r
    end = at + 8
    while at < end:
        _old_band_column(frame, at, players, thin)
        at += 1


def _old_band_column(frame, at, players, thin):
    x = at & 7
    player = players[x * len(players) // 8]
    colour = COLOURS[player]
    _pix(frame, at, colour)
    if thin >> player & 1:
        return
    if len(players) == 1:
        _pix(frame, at + 8, colour)
    elif x % 2 == 0:
        _pix(frame, at + 8, WHITE)


# The cases ----------------------------------------------------------------------------------

def sequences(length, distinct):
    """Every list of ``length`` players (each at most once when ``distinct``)."""
    if length == 0:
        yield []
        return
    for head in sequences(length - 1, distinct):
        for p in range(PLAYERS):
            if not (distinct and p in head):
                yield head + [p]


def cuts(players):
    """Every way to cut a list of players, in order, into bands of one or more."""
    if not players:
        yield []
        return
    for i in range(1, len(players) + 1):
        for rest in cuts(players[i:]):
            yield [players[:i]] + rest


def marks(bands):
    """Every choice of early answers among the players in ``bands``: per band, its bits."""
    players = [(r, p) for r, band in enumerate(bands) for p in band]
    for pick in range(1 << len(players)):
        early = [0] * len(bands)
        for j, (r, p) in enumerate(players):
            if pick >> j & 1:
                early[r] |= 1 << p
        yield early


def games():
    """What a game can show: every subset of the players in every order, cut into ranks
    every way (a tie is a band of several), with every choice of early answers, and with
    no early list at all."""
    for k in range(PLAYERS + 1):
        for players in sequences(k, True):
            for bands in cuts(players):
                yield bands, None
                for early in marks(bands):
                    yield bands, early


def lone_bands():
    """Every band on its own at each of the 4 ranks, under other bands: any list of 1 to 4
    players (repeats too) with every early mask of all 4 bits (a bit for a player not in
    the band included)."""
    above = [[0], [1, 2], [3, 0, 1]]
    for r in range(4):
        for length in range(1, 5):
            for band in sequences(length, False):
                for thin in range(1 << PLAYERS):
                    yield above[:r] + [band], [0] * r + [thin]


def arrivals():
    """The arrivals as Dodge Ball shows them, one band a press (a player may press more
    than once): every sequence of up to 5 presses, each early or not; 5 shows only 4."""
    for length in range(1, 6):
        for players in sequences(length, False):
            for pick in range(1 << length):
                yield [[p] for p in players], [(1 << p) * (pick >> j & 1) for j, p in enumerate(players)]


def more_ranks():
    """Five and six bands, ties among them: only the first 4 are drawn."""
    for extra in ([[0]], [[1, 2]], [[3], [0, 1, 2, 3]]):
        for bands, early in games():
            if len(bands) == 4:
                yield bands + extra, (early + [15] * len(extra)) if early else None


def check():
    from courtside import display
    cases = 0
    differ = 0
    for source in (games, lone_bands, arrivals, more_ranks):
        for bands, early in source():
            cases += 1
            got = display.contest(bands, early)
            want = old_contest(bands, early)
            if got != want or len(got) != 192:
                differ += 1
                if differ <= 5:
                    print("differs:", bands, early)
    print("cases", cases, "differ", differ)


def heap():
    """The most bytes a contest allocated beyond a bytearray(192) (unix port only)."""
    from courtside import display
    from measure import allocated
    frame = allocated(lambda: bytearray(192))
    extra = 0
    for case in ([[0], [1], [2], [3]], [0, 2, 0, 8]), ([[3, 1, 0, 2]], [2]), \
            ([[2], [0, 1, 3]], None), ([[1], [2], [3], [0], [1]], [0, 0, 0, 0, 0]):
        used = allocated(lambda c=case: display.contest(c[0], c[1])) - frame
        extra = used if used > extra else extra
    print("extra bytes", extra)


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    check()
    if sys.implementation.name == "micropython":
        heap()
