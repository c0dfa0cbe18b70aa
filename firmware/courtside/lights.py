"""Box LED patterns: what each box says about its player's last press.

A pattern is a tuple of millisecond durations, alternately on and off, starting on;
an empty tuple means steady off and ``ON`` steady on. Each change of a LED is an effect
``(LED, box, on)`` appended to the list the core hands in (see ``courtside.stage``).
"""

from courtside.clock import add, diff
from courtside.effects import LED

ON = (-1,)
OFF = ()
FIRST = (1500,)                                  # one long glow: you were first
TIE = (80, 80, 80, 80, 80, 80, 80, 80)           # fast flicker: a tie
FAULT = (600, 300, 600, 300, 600)                # slow blink: check this box


def rank(n):
    """Later ranks blink their rank: 2 blinks for second, and so on."""
    if n <= 1:
        return FIRST
    out = []
    for _ in range(n):
        out.append(200)
        out.append(200)
    return tuple(out[:-1])


class Lights:
    """Runs one pattern per box LED from the main loop's clock."""

    def __init__(self, effects, boxes, now=0):
        self.effects = effects
        self.pattern = [OFF] * boxes
        self.step = [0] * boxes
        self.until = [now] * boxes
        for box in range(boxes):
            self._led(box, False)

    def _led(self, box, on):
        self.effects.append((LED, box, on))

    def set(self, box, pattern, now):
        if box >= len(self.pattern):
            return
        self.pattern[box] = pattern
        self.step[box] = 0
        self.until[box] = add(now, pattern[0] * 1000) if pattern and pattern[0] > 0 else now
        self._led(box, bool(pattern))

    def run(self, now):
        """Advance every pattern; ms until the next change, or None when all are steady."""
        soonest = None
        box = 0
        boxes = len(self.pattern)
        while box < boxes:          # a while, not a for: a for's iterator takes frame words
            pattern = self.pattern[box]
            if pattern and pattern[0] >= 0:
                left = self._advance(box, now)
                if left is not None and (soonest is None or left // 1000 + 1 < soonest):
                    soonest = left // 1000 + 1
            box += 1
        return soonest

    def _advance(self, box, now):
        """Step one box's running pattern up to ``now``; us until its next change, or None
        when it has ended. (Apart from ``run`` so that neither frame passes 11 words,
        which would put it on the heap at every pass.)"""
        pattern = self.pattern[box]
        left = diff(self.until[box], now)
        while left <= 0:
            step = self.step[box] + 1
            if step >= len(pattern):
                self.pattern[box] = OFF
                self._led(box, False)
                return None
            self.step[box] = step
            self.until[box] = add(self.until[box], pattern[step] * 1000)
            self._led(box, step % 2 == 0)
            left = diff(self.until[box], now)
        return left
