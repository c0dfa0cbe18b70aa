"""Named sounds: each a short tune of (frequency Hz, milliseconds) notes; 0 Hz is a rest.

Tones are chosen to be told apart without looking: rising for good news, low for faults.
Each note is an effect ``(TONE, freq, ms, tune)`` (``tune`` named on a tune's first
note only) appended to the list the core hands in.
"""

from courtside.clock import add, diff
from courtside.effects import TONE

TUNES = {
    "first": ((1760, 90),),
    "later": ((880, 60),),
    "tie": ((1319, 70), (0, 40), (1319, 70), (0, 40), (1319, 70)),
    "fault": ((196, 350),),
    "refuse": ((247, 120), (0, 40), (196, 160)),
    "join": ((1047, 60), (1568, 60)),
    "start": ((1047, 80), (1319, 80), (1568, 120)),
    "tick": ((2093, 6),),
    "roll": ((1568, 40), (2093, 60)),
    "turn": ((1175, 70),),
    "death": ((392, 120), (330, 120), (262, 240)),
    "win": ((1047, 100), (1319, 100), (1568, 100), (2093, 300)),
    "mode": ((1568, 50), (1047, 50)),
}


class Tunes:
    """Steps through a tune on a buzzer, driven by the main loop's clock."""

    def __init__(self, effects):
        self.effects = effects
        self.name = ""
        self.notes = ()
        self.index = 0
        self.until = 0

    def play(self, name, now):
        self.name = name
        self.notes = TUNES[name]
        self.index = -1
        self.until = now
        self.step(now)

    def step(self, now):
        """Start the next note if the current one is over; ms until the next step or None."""
        if self.index >= len(self.notes):
            return None
        left = diff(self.until, now)
        if left > 0:
            return left // 1000 + 1
        return self._next(now)

    def _next(self, now):
        """Start the next note, or the silence after the last; its ms, or None (apart from
        ``step`` so that neither frame passes 11 words and goes on the heap)."""
        self.index += 1
        if self.index >= len(self.notes):
            self.effects.append((TONE, 0, 0, ""))
            return None
        freq, ms = self.notes[self.index]
        # the tune's name goes with its first note, for a laptop that shows what it plays
        name = self.name if self.index == 0 else ""
        self.effects.append((TONE, freq, ms, name))
        self.until = add(now, ms * 1000)
        return ms
