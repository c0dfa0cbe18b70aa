"""The bounce die: fairness by a chi-square test, forced faces, and the roll animation.

Critical value: chi-square with 5 degrees of freedom (six faces) at significance 0.001 is
20.515 (NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.4, table of
upper critical values of the chi-square distribution).
"""

import pytest
from courtside import clock
from courtside.deathball.die import Dice, Roll, tumble_delays, tumble_faces
from courtside.fair import Fair, seeded

CHI2_5DF_0001 = 20.515
ROLLS = 60000


def chi_square(counts):
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def counts_of(roll, n):
    counts = [0] * 6
    for _ in range(n):
        counts[roll() - 1] += 1
    return counts


@pytest.mark.parametrize("seed", [1, 2024, 77777])
def test_die_is_fair_by_chi_square(seed):
    dice = Dice(Fair(seeded(seed)))
    counts = counts_of(lambda: dice.roll()[0], ROLLS)
    assert chi_square(counts) < CHI2_5DF_0001, counts


def test_chi_square_catches_a_loaded_die():
    # The same statistic on a die whose 1 shows as 6 one time in five is far past the bound.
    rng = Fair(seeded(5))

    def loaded():
        face = rng.d6()
        return 6 if face == 1 and rng.below(5) == 0 else face

    assert chi_square(counts_of(loaded, ROLLS)) > 5 * CHI2_5DF_0001


def test_rejection_sampling_has_no_modulo_bias():
    # Of the 256 byte values, 252 are kept (42 per face); 252..255 are drawn again.
    per_face = [0] * 6
    for value in range(252):
        per_face[value % 6] += 1
    assert per_face == [42] * 6
    stream = iter([255, 254, 253, 252, 7])
    fair = Fair(lambda n: bytes([next(stream) for _ in range(n)]))
    assert fair.d6() == 2  # the four top values were rejected, 7 % 6 + 1 = 2


def test_forced_faces_come_first_then_fair_ones():
    dice = Dice(Fair(seeded(1)))
    dice.force([3, 5])
    dice.force([1])
    assert [dice.roll() for _ in range(3)] == [(3, True), (5, True), (1, True)]
    assert dice.roll()[1] is False
    with pytest.raises(ValueError):
        dice.force([7])


def test_tumble_never_shows_the_same_face_twice_in_a_row():
    rng = Fair(seeded(9))
    for _ in range(3000):
        face = rng.d6()
        shown = tumble_faces(face, 12, rng) + [face]
        assert all(a != b for a, b in zip(shown, shown[1:]))


def test_tumble_faces_are_spread_over_all_faces():
    rng = Fair(seeded(4))
    seen = counts_of(lambda: tumble_faces(3, 1, rng)[0], 6000)
    # The last tumble face never equals the result (3); the other five come up evenly.
    assert seen[2] == 0 and min(c for i, c in enumerate(seen) if i != 2) > 1000


@pytest.mark.parametrize("fast", [False, True])
def test_the_tumble_slows_down(fast):
    delays = tumble_delays(fast)
    assert len(delays) >= 5
    assert all(b > a for a, b in zip(delays, delays[1:]))
    assert delays[-1] >= 3 * delays[0]


def walk(roll, start, step_us=1000):
    """Every (part, face) the roll shows, sampling each millisecond: no sleeping."""
    seen = []
    now = start
    while True:
        part, face, wait = roll.at(now)
        if not seen or seen[-1] != (part, face):
            seen.append((part, face))
        if part == "done":
            return seen, now
        assert wait > 0
        now = clock.add(now, step_us)


def test_roll_shows_tumble_then_face_then_arrow_across_the_tick_wrap():
    start = clock.MASK - 500000  # the tick counter wraps half a second into the roll
    roll = Roll(4, start, Fair(seeded(3)))
    seen, end = walk(roll, start)
    parts = [s for s, _ in seen]
    assert parts[-3:] == ["face", "arrow", "done"]
    assert set(parts[:-3]) == {"tumble"} and len(parts) > 8
    faces = [f for s, f in seen if s == "tumble"] + [4]
    assert all(a != b for a, b in zip(faces, faces[1:]))
    assert 2000 < clock.diff(end, start) // 1000 < 6000


def test_finish_skips_to_the_end():
    roll = Roll(2, 1000, Fair(seeded(3)))
    roll.finish(5000)
    assert roll.at(5000)[0] == "done"
