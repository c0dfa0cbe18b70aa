"""Fair draws from a random byte source: no modulo bias, ever.

On the board the source is ``os.urandom`` (the RP2040's ring-oscillator random bit), in
the simulator a seeded generator so a script replays exactly. ``below(n)`` rejects the
top sliver of byte values that would favour small results, the way a fair die must.

    rng = Fair(os.urandom)
    rng.d6()                 # 1..6, each exactly 1/6
    rng.shuffle(players)     # every order equally likely (Fisher-Yates)
"""


class Fair:
    def __init__(self, source):
        self.source = source  # source(n) -> n random bytes

    def below(self, n):
        """A uniform integer in 0..n-1 (1 <= n <= 2**24)."""
        if n < 1 or n > 0x1000000:
            raise ValueError("below(n) needs 1 <= n <= 2**24")
        if n == 1:
            return 0
        nbytes = 1 if n <= 0x100 else 2 if n <= 0x10000 else 3
        span = 1 << (8 * nbytes)
        limit = span - span % n  # values at or above this would bias the result
        while True:
            value = 0
            for b in self.source(nbytes):
                value = (value << 8) | b
            if value < limit:
                return value % n

    def d6(self):
        return self.below(6) + 1

    def shuffle(self, items):
        """Shuffle a list in place and return it."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def seeded(seed):
    """A deterministic byte source (xorshift32) for the simulator and tests; not for play."""
    state = [(seed * 2654435761 + 1) & 0xFFFFFFFF or 1]

    def source(n):
        out = bytearray(n)
        x = state[0]
        for i in range(n):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            out[i] = x >> 24
        state[0] = x
        return bytes(out)

    return source
