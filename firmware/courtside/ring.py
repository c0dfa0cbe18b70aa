"""The capture ring: preallocated storage that interrupt handlers write press snapshots into.

Each entry is one snapshot: the tick stamp and the raw level of every GPIO at that moment
(bit n is GPIO n; a button reads 0 while pressed). ``put`` is safe in a hard IRQ: it only
indexes preallocated arrays with small integers, so it never touches the heap. When the
ring is full the newest snapshot is dropped and counted; the oldest are kept because a
press counts at its first edge.

    ring = Ring(256)
    ring.put(stamp, levels)        # interrupt side
    while ring.get(out):           # main-loop side; out is a 2-slot list reused
        stamp, levels = out
"""

from array import array

_HEAD = 0
_TAIL = 1
_DROPPED = 2


class Ring:
    def __init__(self, size=256):
        if size < 2 or size & (size - 1):
            raise ValueError("ring size must be a power of two")
        self.mask = size - 1
        # Filled from a range: sized from its length at once, with no temporary of the
        # same size first (``bytes(4 * size)`` would leave holes that size in the heap).
        # The values do not matter: an entry is read only after ``put`` wrote it.
        self.stamps = array("I", range(size))
        self.levels = array("I", range(size))
        # head, tail, dropped: kept in an array so the IRQ side never rebinds an attribute
        self.ix = array("I", (0, 0, 0))

    def put(self, stamp, levels):
        ix = self.ix
        head = ix[_HEAD]
        nxt = (head + 1) & self.mask
        if nxt == ix[_TAIL]:
            if ix[_DROPPED] < 0x3FFFFFFF:
                ix[_DROPPED] += 1
            return
        self.stamps[head] = stamp
        self.levels[head] = levels
        ix[_HEAD] = nxt

    def get(self, out):
        """Move the oldest snapshot into ``out[0], out[1]``; False when empty."""
        ix = self.ix
        tail = ix[_TAIL]
        if tail == ix[_HEAD]:
            return False
        out[0] = self.stamps[tail]
        out[1] = self.levels[tail]
        ix[_TAIL] = (tail + 1) & self.mask
        return True

    def stamp(self, k):
        """The stamp of the ``k``-th oldest snapshot (0: the next ``get``); k < len."""
        return self.stamps[(self.ix[_TAIL] + k) & self.mask]

    def __len__(self):
        return (self.ix[_HEAD] - self.ix[_TAIL]) & self.mask

    @property
    def dropped(self):
        return self.ix[_DROPPED]
