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

Early is known twice. At the press (``Contest.came_early``) it is True or False, judged on
the order the presses arrived in, for the sound and the box LED at once. At the verdict
it is settled on the judged order, after any tie draw, and becomes False, ``NO_THROW`` or
``ANSWERED`` (``Contest.early``, an index into ``EARLY``): when two answers tie, the one
the draw puts first meets the throw and the other has answered a throw already answered.

    arb = Arbiter(settings, Fair(os.urandom))
    place = arb.press(player, button, stamp)    # its place in arb.open, the contest it joined
    arb.open.press(place)                       # the same as a Press (tools, tests)
    for contest in arb.poll(now):                # contests judged since, in order
        contest.closed                           # when its window closed
        contest.order                            # places in judged order; by place:
        contest.rank, contest.lag, contest.tie, contest.early, contest.player, ...
        contest.judged()                         # the same as Press objects (tools, tests)
"""

from array import array

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
    """One of a contest's presses as an object, with its verdict once judged
    (``Contest.press``: for tools and tests, and a press withdrawn; a board reads the
    columns)."""

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


EARLY = (False, NO_THROW, ANSWERED)     # a verdict's early, by the code a contest keeps


class Contest:
    """A contest's presses in columns, one entry per press, at its *place*: its index in
    the order the presses came. A storm makes a contest of hundreds; kept as a list of
    ``Press`` objects, each took about 150 bytes of a board's heap, and the list held more
    objects than MicroPython's collector can mark in one go, so every collection in a
    storm looked through the whole heap again (docs/firmware.md, "Collections"). Columns
    of numbers hold nothing the collector marks.

    Judging fills ``order`` (the places in judged order) and, by place, ``rank``,
    ``lag``, ``tie`` (1 when tied) and ``early`` (an index into ``EARLY``)."""

    def __init__(self, number, first):
        self.number = number
        self.first = first      # stamp of the press that opened it
        self.n = array("i")     # by place: the press's serial number
        self.stamp = array("i")     # by place: the tick of its first edge (< 2**30)
        self.player = bytearray()   # by place: its 0-based box
        self.button = bytearray()
        self.came_early = bytearray()   # by place: 1 when early as it came
        self.order = None       # judged: the places in judged order
        self.rank = None
        self.lag = None
        self.tie = None
        self.early = None
        self.closed = first     # tick its window closed (when it was judged)
        self.ties = []          # per tie: (rank, players in drawn order, gap in us)

    def __len__(self):
        return len(self.n)

    def add(self, n, player, button, stamp):
        """Press number ``n`` joins the contest; returns its place."""
        self.n.append(n)
        self.stamp.append(stamp)
        self.player.append(player)
        self.button.append(button)
        self.came_early.append(0)
        return len(self.n) - 1

    def lag_of(self, place):
        """Microseconds the press at ``place`` came after the contest's first."""
        return diff(self.stamp[place], self.first)

    def press(self, place):
        """The press at ``place`` as a ``Press``, with its verdict once judged."""
        p = Press(self.n[place], self.player[place], self.button[place], self.stamp[place])
        p.contest = self.number
        p.lag = self.lag_of(place)
        p.early = self.came_early[place] == 1
        if self.order is not None:
            self._verdict_of(p, place)
        return p

    def _verdict_of(self, p, place):
        p.lag = self.lag[place]
        p.rank = self.rank[place]
        p.tie = self.tie[place] == 1
        p.early = EARLY[self.early[place]]

    def judged(self):
        """The presses in judged order, as ``Press`` objects (for tools and tests: a
        board reads the columns)."""
        return [self.press(place) for place in self.order]

    def withdraw(self, player, since):
        """Take ``player``'s presses at or after ``since`` out; returns them (``Press``)."""
        gone = []
        place = 0
        while place < len(self.n):
            if self.player[place] == player and diff(self.stamp[place], since) >= 0:
                gone.append(self.press(place))
                self._drop(place)
            else:
                place += 1
        return gone

    def _drop(self, place):
        self.n = self.n[:place] + self.n[place + 1:]
        self.stamp = self.stamp[:place] + self.stamp[place + 1:]
        self.player = self.player[:place] + self.player[place + 1:]
        self.button = self.button[:place] + self.button[place + 1:]
        self.came_early = self.came_early[:place] + self.came_early[place + 1:]


# judging and its parts are cut so that no frame passes 11 words (a bigger one is taken
# from the heap at every call): loops are while loops or functions of their own.

STEP = 8     # presses a step of ``judging`` takes (a contest of 25 took 8 ms at once on a board)


def judge(contest, tie_us, rng):
    """Judge ``contest`` at once: ``judging`` to its end."""
    for _ in judging(contest, tie_us, rng):
        pass


def judging(contest, tie_us, rng):
    """Judge ``contest`` in steps, as a generator: each ``next`` does the work of at most
    ``STEP`` presses (ordering, grouping, ranking with the draws, lags), so a board can
    judge a storm's contest of hundreds over many short passes. At the end the contest
    holds its order, ranks, ties and lags (pure but for the draw, taken group by group in
    judged order). A generator's state is made once, on the heap, when it is created; a
    step makes none but the columns it fills."""
    j = _Judgement(contest, tie_us, rng)
    k = len(contest)
    i = 1
    while i < k:                            # in time order already? (nearly always)
        end = min(i + STEP, k)
        if _disorder(contest.stamp, i, end):
            j.timed = time_order(contest)
            break
        i = end
        yield
    yield
    i = 1
    while i < k:
        end = min(i + STEP, k)
        j.chain(i, end)
        i = end
        yield
    j.groups.append(k)                      # where the last group ends
    j.begin(k)
    g = 0
    while g < len(j.groups) - 1:
        g = j.rank(g)
        yield
    i = 0
    while i < k:
        end = min(i + 4 * STEP, k)
        _lags(contest, i, end, contest.stamp[j.timed[0]])
        i = end
        yield


def time_order(contest):
    """The places of ``contest`` by first edge (wrap-safe from the first press), then press
    number. They come in that order nearly always (snapshots are taken in time order),
    which ``judging`` checks first; otherwise each press's key is made once and the keys
    are sorted. (MicroPython's ``sort(key=...)`` calls the key at every comparison: for a
    storm's contest of 200 presses that took a board over a second.)"""
    ref = contest.stamp[0]
    keyed = [(diff(contest.stamp[i], ref), contest.n[i], i) for i in range(len(contest))]
    keyed.sort()
    return array("i", [k[2] for k in keyed])


def _disorder(stamps, i, end):
    """True when one of ``stamps[i:end]`` came before the one ahead of it."""
    while i < end:
        if diff(stamps[i], stamps[i - 1]) < 0:
            return True
        i += 1
    return False


def _zeros(k):
    return array("i", bytes(4 * k))


class _Judgement:
    """A contest being judged: its places in time order (``timed``), the groups they
    chain into (``groups``: where each starts in ``timed``), the last rank given."""

    def __init__(self, contest, tie_us, rng):
        self.contest = contest
        self.tie_us = tie_us
        self.rng = rng
        self.timed = array("i", range(len(contest)))
        self.groups = array("i", [0])
        self.placed = 0         # presses put in the order so far
        self.last = 0           # the last rank given

    def chain(self, i, end):
        """``timed[i:end]`` chained into groups: each press joins the group before it when
        closer than ``tie_us`` to the press before it, else starts a group of its own."""
        stamp = self.contest.stamp
        timed = self.timed
        while i < end:
            if diff(stamp[timed[i]], stamp[timed[i - 1]]) >= self.tie_us:
                self.groups.append(i)
            i += 1

    def begin(self, k):
        """The contest's verdict columns, made at their size at once."""
        c = self.contest
        c.order = _zeros(k)
        c.rank = _zeros(k)
        c.lag = _zeros(k)
        c.tie = bytearray(k)
        c.early = bytearray(k)

    def rank(self, g):
        """Rank the groups from the ``g``-th on until ``STEP`` presses are placed (a whole
        group at least); returns the index of the next group."""
        most = STEP
        groups = self.groups
        while g < len(groups) - 1 and most > 0:
            self._group(groups[g], groups[g + 1])
            most -= groups[g + 1] - groups[g]
            g += 1
        return g

    def _group(self, start, end):
        """One group's presses ranked after those placed: one player's own presses in
        clock order, rank after rank; two players or more share a rank, in a drawn order
        (the tie recorded: rank, players in drawn order, gap in us)."""
        players = self._players(start, end)
        if len(players) == 1:
            self._alone(start, end)
        else:
            self._tied(start, end, players)

    def _tied(self, start, end, players):
        self.last += 1
        self.rng.shuffle(players)
        self._each(start, end, players)
        gap = self._gap(start, end)
        tie = (self.last, players, gap)
        self.contest.ties.append(tie)

    def _players(self, start, end):
        c = self.contest
        players = []
        while start < end:
            player = c.player[self.timed[start]]
            if player not in players:
                players.append(player)
            start += 1
        return players

    def _alone(self, start, end):
        """One player's own presses: the clock orders them exactly."""
        while start < end:
            self.last += 1
            self._put(self.timed[start], 0)
            start += 1

    def _each(self, start, end, players):
        """The group's presses, player by player in the drawn order."""
        i = 0
        while i < len(players):
            self._take(start, end, players[i])
            i += 1

    def _take(self, start, end, player):
        c = self.contest
        while start < end:
            place = self.timed[start]
            if c.player[place] == player:
                self._put(place, 1)
            start += 1

    def _put(self, place, tie):
        c = self.contest
        c.order[self.placed] = place
        self.placed += 1
        c.rank[place] = self.last
        c.tie[place] = tie

    def _gap(self, start, end):
        stamp = self.contest.stamp
        return diff(stamp[self.timed[end - 1]], stamp[self.timed[start]])


def _lags(contest, i, end, first):
    """Each press at places ``i`` to ``end`` its lag behind ``first``."""
    stamp = contest.stamp
    lag = contest.lag
    while i < end:
        lag[i] = diff(stamp[i], first)
        i += 1


class Arbiter:
    def __init__(self, settings, rng):
        self.rng = rng
        self.configure(settings)
        self.presses = 0
        self.contests = 0
        self.open = None        # the contest still taking presses
        self.done = []          # judged contests not yet collected by poll
        self.throws = []        # open throws as the presses arrived: [stamp, player, n]
        self.judged = []        # throws in judged order: [stamp, player, answered]

    def configure(self, settings):
        self.tie_us = settings["tie_us"]
        self.contest_us = settings["contest_ms"] * 1000
        self.answer_us = settings["answer_ms"] * 1000

    def press(self, player, button, stamp):
        """Record a press; returns its place in ``open``, the contest it joined (no
        object is made for it: a storm brings hundreds)."""
        self.presses += 1
        contest = self._open_for(stamp)
        contest.add(self.presses, player, button, stamp)
        if self._answer(player, button, stamp):
            contest.came_early[-1] = 1
        return len(contest.n) - 1      # its place (no call to __len__: a storm's hot path)

    def _open_for(self, stamp):
        """The contest a press stamped ``stamp`` joins: the open one, or a new one (the
        open one judged as its window closed)."""
        contest = self.open
        if contest is None or diff(stamp, contest.first) >= self.contest_us:
            if contest is not None:
                self._window_closed(contest)
            self.contests += 1
            contest = self.open = Contest(self.contests, stamp)
        return contest

    def _answer(self, player, button, stamp):
        """True when this press is an answer no other player's open throw is there for."""
        throws = self.throws
        while throws and diff(stamp, throws[0][0]) >= self.answer_us:
            throws.pop(0)
        if button == THROW:
            if len(throws) >= _OPEN_THROWS:
                throws.pop(0)
            throws.append([stamp, player, self.presses])
            return False
        if button not in (DODGE, CATCH):
            return False
        return not _meets(throws, player)

    def withdraw(self, player, since):
        """Take back ``player``'s presses at or after ``since`` from the open contest
        (returns them, as ``Press`` objects)."""
        contest = self.open
        if contest is None:
            return []
        gone = contest.withdraw(player, since)
        for p in gone:
            _forget(self.throws, p.n)
        if not len(contest):
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
        yield from judging(contest, self.tie_us, self.rng)
        i = 0
        while i < len(contest):
            end = min(i + STEP, len(contest))
            self._settled(contest, i, end)
            i = end
            yield

    def _window_closed(self, contest):
        """Judge ``contest`` as of the moment its window closed."""
        self.done.append(self._judged(contest, add(contest.first, self.contest_us)))

    def _judged(self, contest, closed):
        if contest is self.open:
            self.open = None
        contest.closed = closed
        judge(contest, self.tie_us, self.rng)
        self._settled(contest, 0, len(contest))
        return contest

    def _settled(self, contest, i, end):
        """Each press in judged order from ``i`` to ``end`` its early, settled on that
        order."""
        while i < end:
            place = contest.order[i]
            contest.early[place] = self._settle(contest, place)
            i += 1

    def _settle(self, contest, place):
        """Early or not for the press at ``place``, taken in judged order: an index into
        ``EARLY``."""
        throws = self.judged
        stamp = contest.stamp[place]
        while throws and diff(stamp, throws[0][0]) >= self.answer_us:
            throws.pop(0)
        button = contest.button[place]
        if button == THROW:
            if len(throws) >= _OPEN_THROWS:
                throws.pop(0)
            throws.append([stamp, contest.player[place], False])
            return 0
        if button not in (DODGE, CATCH):
            return 0
        return _meet(throws, contest.player[place])


def _meet(throws, player):
    """An answer from ``player`` against the throws open in judged order: 0 when it
    meets one (now answered), else the index of ANSWERED or NO_THROW in ``EARLY``."""
    seen = False
    for throw in throws:
        if throw[1] != player:
            if not throw[2]:
                throw[2] = True   # this answer meets that throw
                return 0
            seen = True
    return 2 if seen else 1


def _meets(throws, player):
    """An answer from ``player`` as it comes: True when it meets a throw open from
    another player (taken off the open throws)."""
    i = 0
    while i < len(throws):
        if throws[i][1] != player:
            throws.pop(i)
            return True
        i += 1
    return False


def _forget(throws, n):
    """Take press ``n`` off the open throws (it was withdrawn)."""
    i = 0
    while i < len(throws):
        if throws[i][2] == n:
            throws.pop(i)
            return
        i += 1
