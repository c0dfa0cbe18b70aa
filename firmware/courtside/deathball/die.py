"""The bounce die: fair faces, faces forced by a script, and the rolling animation.

``Dice`` hands out faces: first any queued by a script (``force``), else a fair d6 from
``courtside.fair.Fair`` (rejection sampling, no modulo bias). ``Roll`` is the animation of
one roll as a pure state step: the face is decided before it starts, the tumbling faces
slow down and never repeat the face just shown, then the face stays, then the bounce arrow.
Nothing here sleeps; the caller asks ``Roll.at(now)`` what to show and when to ask again.

    dice = Dice(Fair(os.urandom))
    face, forced = dice.roll()
    roll = Roll(face, now, dice.rng)
    shown, face, wait_ms = roll.at(now)      # shown: "tumble", "face", "arrow" or "done"
"""

from micropython import const

from courtside import clock
from courtside.settings import scaled
from courtside.text import whole

_FIRST_MS = const(45)       # first tumble
_SLOWEST_MS = const(340)    # the tumble stops once a face would stay this long
_FACE_MS = const(900)
_ARROW_MS = const(1400)


class Dice:
    def __init__(self, rng):
        self.rng = rng
        self.queue = []

    def force(self, faces):
        """Queue faces for the next rolls (a script replaying a real game, or a test)."""
        for face in faces:
            if face < 1 or face > 6:
                raise ValueError("a die face is 1 to 6")
        self.queue.extend(faces)

    def force_words(self, words):
        """The words after ``dice`` (``dice 3 5``, in either mode): the faces queued, or
        why not."""
        forced = faces(words)
        if not forced:
            return "dice wants faces 1 to 6"
        self.force(forced)
        return None

    def roll(self):
        """(face, forced)."""
        if self.queue:
            return self.queue.pop(0), True
        return self.rng.d6(), False


def tumble_delays(fast=False):
    """Milliseconds each tumbling face stays, each longer than the last (slowing down):
    about a second of tumbling, or 0.7 s for the quick rolls shown during a game."""
    out = []
    ms = _FIRST_MS * 2 // 3 if fast else _FIRST_MS
    while ms < (_SLOWEST_MS * 3 // 4 if fast else _SLOWEST_MS):
        out.append(ms)
        ms += (ms * 2 // 5 if fast else ms // 4) + 4
    return out


def face_ms(fast=False, pace=100):
    """How long a roll's face stays before the arrow (or the end), in ms at ``pace``."""
    return scaled(_FACE_MS // 2 if fast else _FACE_MS, pace)


def times(fast=False, pace=100):
    """(face shown, face ends): ms from a roll's start until its face shows and until it
    is gone, as ``Roll`` shows it; for a laptop that follows the stream (no rng needed)."""
    total = 0
    for ms in tumble_delays(fast):
        total += scaled(ms, pace)
    return total, total + face_ms(fast, pace)


def tumble_faces(face, count, rng):
    """``count`` faces to show before ``face``: none equal to the one shown just before it,
    and the last differs from ``face`` too. Each is a fair pick among the five allowed."""
    out = []
    previous = 0
    for i in range(count):
        banned_next = face if i == count - 1 else 0
        while True:
            pick = rng.below(6) + 1
            if pick not in (previous, banned_next):
                break
        out.append(pick)
        previous = pick
    return out


class Roll:
    """One roll's animation, driven by the caller's clock."""

    def __init__(self, face, now, rng, fast=False, arrow=True, pace=100):
        """``pace``: percent of normal speed (the ``pace`` setting). It scales how long
        each picture stays, never how many tumbles there are, so the same faces are drawn
        from ``rng`` at any pace."""
        self.face = face
        self.start = now
        delays = tumble_delays(fast)
        self.faces = tumble_faces(face, len(delays), rng)
        # Cumulative end time of each part of the roll, in ms from the start.
        self.ends = []
        total = 0
        for ms in delays:
            total += scaled(ms, pace)
            self.ends.append(total)
        self.face_end = total + face_ms(fast, pace)
        self.arrow_end = self.face_end + (scaled(_ARROW_MS // 2 if fast else _ARROW_MS, pace) if arrow else 0)

    def at(self, now):
        """(part of the roll, face shown, ms until the picture changes): the part is "tumble",
        "face", "arrow", then "done" at the end."""
        ms = clock.diff(now, self.start) // 1000
        ends = self.ends
        for i in range(len(ends)):
            if ms < ends[i]:
                return "tumble", self.faces[i], ends[i] - ms
        if ms < self.face_end:
            return "face", self.face, self.face_end - ms
        if ms < self.arrow_end:
            return "arrow", self.face, self.arrow_end - ms
        return "done", self.face, 0

    def left(self, now, end):
        """ms from ``now`` until ``end`` ms into the roll (at least 1)."""
        return max(1, end - clock.diff(now, self.start) // 1000)

    def finish(self, now):
        """Skip to the end (the ROLL button during an animation)."""
        self.start = clock.add(now, -self.arrow_end * 1000)


def faces(words):
    """The faces a script or the laptop forces (``dice 3 5``), or None if any word is not
    a face 1 to 6."""
    out = []
    for w in words:
        face = whole(w)
        if face is None or not 1 <= face <= 6:
            return None
        out.append(face)
    return out
