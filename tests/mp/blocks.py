"""Heap blocks a call allocates on the MicroPython unix port, frees included, without
``micropython.heap_lock()`` (under the lock a bytecode frame of more than 11 words quietly
moves to the C stack, so a locked run cannot see it).

How: ``gc.threshold(n)`` makes the collector run at the first allocation once ``n``
bytes' worth of blocks have been allocated since the last collection; ``gc_alloc`` adds
each allocation's blocks to that count and ``gc_free`` never takes them off (py/gc.c). So
after a collection and a known number ``a0`` of blocks, a threshold of ``a0 + k`` blocks
makes the collector run during ``fn()`` (or at one allocation right after it) exactly
when ``fn()`` allocated ``k`` blocks or more. Whether it ran is seen from garbage planted
before ``fn()``: many small pieces, so that a stale pointer to one of them on the C stack
(the collector is conservative there) cannot hide the collection. A search over ``k``
finds the count. A call that itself frees, or keeps alive, more than half as much as
the planted garbage (about 7 KB) cannot be counted this way.

    blocks(fn)          # -> int: heap blocks fn() allocated (the same on every call of fn)
    blocks(fn, setup)   # setup() runs before each try, uncounted: it brings the state
                        # fn() must start from (a press waiting, a roll begun, ...)
    BLOCK               # bytes in a heap block on this build
"""

import gc

_PIECES = 32
_PIECE = 480          # bytes of each planted piece
_SEEN = _PIECES * _PIECE // 2
LIMIT = 1 << 16       # the most blocks counted


def _block_bytes():
    gc.collect()
    gc.disable()
    sizes = []
    for n in range(1, 130):
        a = gc.mem_alloc()
        bytearray(n)
        sizes.append(gc.mem_alloc() - a)
    gc.enable()
    small = min(sizes)
    for s in sizes:              # the block: the greatest common divisor of the sizes
        while s:
            small, s = s, small % s
    return small


BLOCK = _block_bytes()


def _plant():
    for _ in range(_PIECES):
        bytearray(_PIECE)


def _sentinel():
    return bytearray(1)


def _ran_by(fn, k, setup):
    """True when the collector ran during fn() given a threshold k blocks past the
    blocks taken before fn() starts."""
    gc.threshold(-1)
    if setup is not None:
        setup()
    gc.collect()
    start = gc.mem_alloc()
    _plant()
    before = gc.mem_alloc()
    gc.threshold((before - start) + k * BLOCK)
    fn()
    _sentinel()
    after = gc.mem_alloc()
    gc.threshold(-1)
    return after < before - _SEEN


def _raw(fn, setup=None):
    if not _ran_by(fn, 0, setup):
        raise RuntimeError("the collector never ran: the count cannot be read")
    lo, hi = 0, LIMIT
    if _ran_by(fn, hi, setup):
        raise RuntimeError("more than %d blocks" % LIMIT)
    while hi - lo > 1:                 # _ran_by(fn, lo) holds, _ran_by(fn, hi) does not
        mid = (lo + hi) // 2
        if _ran_by(fn, mid, setup):
            lo = mid
        else:
            hi = mid
    return lo


def _nothing():
    pass


# What the search itself takes once the count has started (measured: 1 block on the
# unix port), found with a function that allocates nothing and taken off every count.
_OWN = _raw(_nothing)


def blocks(fn, setup=None):
    """Heap blocks ``fn()`` allocates (whether freed again or not). ``fn`` must do the
    same work each time it is called (the search calls it about 20 times), from the
    state ``setup()`` leaves when given."""
    return _raw(fn, setup) - _OWN
