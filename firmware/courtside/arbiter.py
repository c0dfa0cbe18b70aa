"""Arbiter: who played first. Presses in, contests and verdicts out.

Presses close together in time form a *contest*: it opens at its first press and takes
every press whose first edge falls within ``contest_us`` of that one. When the window has
passed the contest is judged:

- presses are put in order of first edge (wrap-safe, via ``clock.diff``);
- neighbours in that order closer than ``tie_us`` are chained into one group; a group
  holding two or more players is a *tie*: its presses share a rank, and the players'
  order inside it is a fair draw (their own presses keep their own order);
- every press carries its lag behind the contest's first press.

Separately, an answer (DODGE or CATCH) is *early* when no other player's THROW is open
for it: a THROW opens at its press, stays open ``answer_us``, and is closed by the first
answer from another player. An early answer is one of two things:

- ``NO_THROW`` ("no throw open"): no other player threw within ``answer_us`` before it;
- ``ANSWERED`` ("throw already answered"): there was such a throw, but another answer
  met it first.

Early is known twice, in ``Press.early``. At the press it is True or False, judged on
the order the presses arrived in, for the sound and the box LED at once. At the verdict
it is settled on the judged order, after any tie draw, and becomes False, ``NO_THROW``
or ``ANSWERED``: when two answers tie, the one the draw puts first meets the throw and
the other has answered a throw already answered.

    arb = Arbiter(settings, Fair(os.urandom))
    press = arb.press(player, button, stamp)    # a Press, with contest, lag, early
    for contest in arb.poll(now): ...            # contests judged since, in order
                                                 # (contest.closed: when its window closed)
"""

from courtside.clock import add, diff
from courtside.pins import BUTTONS as NAMES  # noqa: F401 - the names a verdict writes

THROW = 0
DODGE = 1
CATCH = 2
PASS = 3
NO_THROW = "no throw open"
ANSWERED = "throw already answered"
_OPEN_THROWS = 16  # at most this many throws are remembered as open


class Press:
    def __init__(self, n, player, button, stamp):
        self.n = n              # serial number of the press since power-up
        self.player = player    # 0-based box
        self.button = button
        self.stamp = stamp      # tick of the first edge
        self.contest = 0
        self.lag = 0            # us behind the contest's first press
        self.early = False      # on arrival: a bool; from the verdict: NO_THROW, ANSWERED
        self.rank = 0           # 1-based, shared by tied presses
        self.tie = False


class Contest:
    def __init__(self, number, first):
        self.number = number
        self.first = first      # stamp of the press that opened it
        self.presses = []
        self.order = None       # judged order (list of Press)
        self.closed = first     # tick its window closed (when it was judged)
        self.ties = []          # per tie: (rank, players in drawn order, gap in us)


# judge() and its parts are cut so that no frame passes 11 words (a bigger one is
# taken from the heap at every call): loops are while loops or functions of their own.

def judge(presses, tie_us, rng):
    """Order ``presses`` and find ties; returns (order, ties). Pure but for the draw."""
    groups = _grouped(presses, tie_us)
    out = [[], []]
    _rank(groups, 0, len(presses), rng, out)
    _lags(out[0], 0, len(presses), groups[0][0].stamp)
    return out[0], out[1]


def _grouped(presses, tie_us):
    """``presses`` in time order, neighbours closer than ``tie_us`` chained into groups."""
    timed = _in_time_order(presses)
    groups = [[timed[0]]]
    _groups(timed, 1, len(timed), tie_us, groups)
    return groups


STEP = 8     # presses a step of ``judging`` takes (a contest of 25 took 8 ms at once on a board)


def judging(presses, tie_us, rng, out):
    """``judge`` in steps, as a generator: each ``next`` does the work of at most
    ``STEP`` presses (ordering, grouping, ranking with the draws, lags), through the same
    parts ``judge`` uses on the whole contest at once, so a board can judge a storm's
    contest of hundreds over many short passes. At the end ``out`` (given empty) holds
    [order, ties], the very result ``judge`` gives, the draws taken in the same order.
    (A generator's state is made once, on the heap, when it is created; a step makes
    none.)"""
    timed = presses                         # in time order already? (nearly always)
    i = 1
    while i < len(presses):
        end = min(i + STEP, len(presses))
        if _disorder(presses, i, end):
            timed = _sorted(presses, presses[0].stamp)
            break
        i = end
        yield
    yield
    groups = [[timed[0]]]
    i = 1
    while i < len(timed):
        end = min(i + STEP, len(timed))
        _groups(timed, i, end, tie_us, groups)
        i = end
        yield
    out.append([])                          # the order
    out.append([])                          # the ties
    i = 0
    while i < len(groups):
        i = _rank(groups, i, STEP, rng, out)
        yield
    i = 0
    while i < len(presses):
        end = min(i + 4 * STEP, len(presses))
        _lags(out[0], i, end, groups[0][0].stamp)
        i = end
        yield


def _in_time_order(presses):
    """``presses`` by first edge (wrap-safe from the first), then press number. They come
    in that order nearly always (snapshots are taken in time order), so that is checked
    first in one loop; otherwise each press's key is made once and the keys are sorted.
    (MicroPython's ``sort(key=...)`` calls the key at every comparison: for a storm's
    contest of 200 presses that took a board over a second.)"""
    if _disorder(presses, 1, len(presses)):
        return _sorted(presses, presses[0].stamp)
    return list(presses)


def _disorder(presses, i, end):
    """True when one of ``presses[i:end]`` came before the press ahead of it."""
    while i < end:
        if diff(presses[i].stamp, presses[i - 1].stamp) < 0:
            return True
        i += 1
    return False


def _sorted(presses, ref):
    keyed = [(diff(p.stamp, ref), p.n, i) for i, p in enumerate(presses)]
    keyed.sort()
    return [presses[k[2]] for k in keyed]


def _groups(timed, i, end, tie_us, groups):
    """``timed[i:end]`` chained onto ``groups``: each joins the last group when closer
    than ``tie_us`` to the press before it, else starts a group of its own."""
    while i < end:
        after = timed[i]
        if diff(after.stamp, timed[i - 1].stamp) < tie_us:
            groups[-1].append(after)
        else:
            groups.append([after])
        i += 1


def _rank(groups, i, most, rng, out):
    """Rank ``groups`` from the ``i``-th on into ``out`` ([order, ties]), until ``most``
    presses are placed (a whole group at least); returns the index of the next group."""
    while i < len(groups) and most > 0:
        tie = _place(groups[i], rng, out[0])
        if tie is not None:
            out[1].append(tie)
        most -= len(groups[i])
        i += 1
    return i


def _place(group, rng, order):
    """Rank one group's presses after those in ``order``: one player's own presses in
    clock order, rank after rank; two players or more share a rank in a drawn order
    (returns the tie: rank, players in drawn order, gap in us)."""
    rank = order[-1].rank if order else 0
    players = _players(group)
    if len(players) == 1:
        _alone(group, rank, order)
        return None
    rank += 1
    rng.shuffle(players)
    _tied(group, players, rank, order)
    return (rank, players, _gap(group))


def _gap(group):
    return diff(group[-1].stamp, group[0].stamp)


def _players(group):
    players = []
    for p in group:
        if p.player not in players:
            players.append(p.player)
    return players


def _alone(group, rank, order):
    for p in group:  # one player's own presses: the clock orders them exactly
        rank += 1
        p.rank, p.tie = rank, False
        order.append(p)


def _tied(group, players, rank, order):
    i = 0
    while i < len(players):
        _take(group, players[i], rank, order)
        i += 1


def _take(group, player, rank, order):
    i = 0
    while i < len(group):
        p = group[i]
        if p.player == player:
            p.rank, p.tie = rank, True
            order.append(p)
        i += 1


def _lags(order, i, end, first):
    """Each press of ``order[i:end]`` its lag behind ``first``."""
    while i < end:
        p = order[i]
        p.lag = diff(p.stamp, first)
        i += 1


class Arbiter:
    def __init__(self, settings, rng):
        self.rng = rng
        self.configure(settings)
        self.presses = 0
        self.contests = 0
        self.open = None        # the contest still taking presses
        self.done = []          # judged contests not yet collected by poll
        self.throws = []        # open throws as the presses arrived: Press objects
        self.judged = []        # throws in judged order: [Press, answered]

    def configure(self, settings):
        self.tie_us = settings["tie_us"]
        self.contest_us = settings["contest_ms"] * 1000
        self.answer_us = settings["answer_ms"] * 1000

    def press(self, player, button, stamp):
        """Record a press; returns its Press."""
        self.presses += 1
        p = Press(self.presses, player, button, stamp)
        contest = self.open
        if contest is None or diff(stamp, contest.first) >= self.contest_us:
            if contest is not None:
                self._window_closed(contest)
            self.contests += 1
            contest = self.open = Contest(self.contests, stamp)
        contest.presses.append(p)
        p.contest = contest.number
        p.lag = diff(stamp, contest.first)
        p.early = self._answer(p)
        return p

    def _answer(self, p):
        throws = self.throws
        while throws and diff(p.stamp, throws[0].stamp) >= self.answer_us:
            throws.pop(0)
        if p.button == THROW:
            if len(throws) >= _OPEN_THROWS:
                throws.pop(0)
            throws.append(p)
            return False
        if p.button not in (DODGE, CATCH):
            return False
        for i in range(len(throws)):
            if throws[i].player != p.player:
                throws.pop(i)  # this answer meets that throw
                return False
        return True

    def withdraw(self, player, since):
        """Take back ``player``'s presses at or after ``since`` from the open contest."""
        contest = self.open
        if contest is None:
            return []
        gone = [p for p in contest.presses if p.player == player and diff(p.stamp, since) >= 0]
        for p in gone:
            contest.presses.remove(p)
            if p in self.throws:
                self.throws.remove(p)
        if not contest.presses:
            self.open = None
        return gone

    def due(self, now):
        """Microseconds until the open contest closes (None when none is open)."""
        if self.open is None:
            return None
        return max(0, self.contest_us - diff(now, self.open.first))

    def poll(self, now):
        """Contests judged since the last poll, oldest first (often an empty list)."""
        contest = self.open
        if contest is not None and diff(now, contest.first) >= self.contest_us:
            self._window_closed(contest)
        done = self.done
        if done:
            self.done = []
        return done

    def close(self, now):
        """Judge the open contest at tick ``now``, whatever its window (new game, mode
        change)."""
        if self.open is not None:
            self.done.append(self._judged(self.open, now))
        done, self.done = self.done, []
        return done

    def closing(self, now):
        """The open contest, if its window has closed by ``now``: taken off (no longer
        open, ``closed`` set) to be judged in steps (``judging``)."""
        contest = self.open
        if contest is None or diff(now, contest.first) < self.contest_us:
            return None
        self.open = None
        contest.closed = add(contest.first, self.contest_us)
        return contest

    def judging(self, contest):
        """``closing``'s contest judged in steps (a generator, as ``judging``): its
        order and ties, then each press's early settled on that order, a few a step."""
        out = []
        yield from judging(contest.presses, self.tie_us, self.rng, out)
        contest.order, contest.ties = out
        i = 0
        while i < len(out[0]):
            end = min(i + STEP, len(out[0]))
            self._settled(out[0], i, end)
            i = end
            yield

    def _window_closed(self, contest):
        """Judge ``contest`` as of the moment its window closed."""
        self.done.append(self._judged(contest, add(contest.first, self.contest_us)))

    def _judged(self, contest, closed):
        if contest is self.open:
            self.open = None
        contest.closed = closed
        contest.order, contest.ties = judge(contest.presses, self.tie_us, self.rng)
        self._settled(contest.order, 0, len(contest.order))
        return contest

    def _settled(self, order, i, end):
        """Each press of ``order[i:end]`` its early, settled on the judged order."""
        while i < end:
            p = order[i]
            p.early = self._settle(p)
            i += 1

    def _settle(self, p):
        """Early or not for ``p``, taken in judged order: False, NO_THROW or ANSWERED."""
        throws = self.judged
        while throws and diff(p.stamp, throws[0][0].stamp) >= self.answer_us:
            throws.pop(0)
        if p.button == THROW:
            if len(throws) >= _OPEN_THROWS:
                throws.pop(0)
            throws.append([p, False])
            return False
        if p.button not in (DODGE, CATCH):
            return False
        return _meet(throws, p.player)


def _meet(throws, player):
    """An answer from ``player`` against the throws open in judged order: False when it
    meets one (now answered), else ANSWERED or NO_THROW."""
    seen = False
    for throw in throws:
        if throw[0].player != player:
            if not throw[1]:
                throw[1] = True   # this answer meets that throw
                return False
            seen = True
    return ANSWERED if seen else NO_THROW
