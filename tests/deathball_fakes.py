"""A stand-in for the app's services, for driving the Deathball modes in tests.

Only the app is faked (it is another module's job); the modes, the engine and the die run
as they do on the board. The clock is a number the test moves on.
"""

from courtside import clock
from courtside.fair import Fair, seeded


class FakeApp:
    def __init__(self, players=(0, 1, 2, 3), seed=1):
        self.players = list(players)
        self.rng = Fair(seeded(seed))
        self.now = 1000
        self.events = []
        self.frames = []
        self.leds = {}
        self.tones = []

    def emit(self, kind, **fields):
        self.events.append((kind, fields))

    def show(self, frame):
        self.frames.append(bytes(frame))

    def led(self, box, on):
        self.leds[box] = on

    def tone(self, name):
        self.tones.append(name)

    def ticks(self):
        return self.now

    def kinds(self):
        return [k for k, _ in self.events]

    def settle(self, mode, limit_ms=600000):
        """Poll the mode as the main loop would, moving the clock on by what it asks for,
        until it has nothing left to animate; returns the ms of clock that passed."""
        spent = 0
        while spent < limit_ms:
            wait = mode.poll(self.now)
            busy = getattr(mode, "queue", None) or getattr(mode, "roll", None) is not None \
                or getattr(mode, "until", None) is not None
            if wait is None or not busy:
                return spent
            wait = max(1, wait)
            self.now = clock.add(self.now, wait * 1000)
            spent += wait
        raise AssertionError("the mode never settled")
