"""While a Dodge Ball contest is judged and its verdict given out, a step and a part a pass,
new presses wait in the ring.

Judging a contest (``Arbiter.judging``) and giving its verdict (its line, each tie's
line, then the matrix, lights and sound) take several passes. A press that came
meanwhile used to be taken at once, and before it could be written the whole rest was
done in that same pass (``catch_up``): on the chip that pass was as long as the verdict.
Now the core takes no snapshot while the stage holds them (``Stage.hold``), and keeps its
pass's time short of the first one waiting, so nothing is judged ahead of it. A ring half
full is taken at once all the same: a storm must not overflow it. Either way the stream
is the one written at any pass length (tests/test_pass_timing.py)."""

from corerig import Rig
from courtside import clock, dodgeball
from courtside.arbiter import DODGE, THROW


def busy(stage):
    """A contest being judged, or a verdict being given."""
    return stage._judging is not None or len(stage._judged) > 0


def _until_verdict(rig):
    """Step a ms at a time until the contest is judged and its verdict is under way."""
    for _ in range(5000):
        rig.now = clock.add(rig.now, 1000)
        rig.step()
        if busy(rig.stage):
            return
    raise AssertionError("no verdict")


def _tie_then_verdict():
    rig = Rig("dodgeball", players=(0, 1, 2))
    rig.chord([(0, THROW), (1, DODGE), (2, DODGE)], gap_us=300)     # 300 us apart: one tie
    _until_verdict(rig)
    return rig


def _press_snapshot(rig, box, button):
    bit = 1 << rig.pins.button_gpio[4 * box + button]
    rig.level &= ~bit
    rig.ring.put(rig.now, rig.level)


def test_a_press_waits_while_the_verdict_is_given_then_comes_after_it():
    rig = _tie_then_verdict()
    _press_snapshot(rig, 0, THROW)
    waited = 0
    while busy(rig.stage):
        assert len(rig.ring) == 1                 # not taken while a part is still to come
        rig.step()
        waited += 1
    assert waited >= 2                            # the verdict's line, the tie's, the matrix
    rig.step()
    assert len(rig.ring) == 0
    kinds = [k for k, _ in rig.times]
    assert kinds.index("press", kinds.index("verdict")) > kinds.index("tie")
    press = [f for k, f in rig.inputs if k == "press"] + [f for k, f in rig.events if k == "press"]
    assert press[-1]["c"] == 2                     # the next contest's first press


def test_a_ring_half_full_is_taken_at_once():
    rig = _tie_then_verdict()
    for i in range(rig.ring.mask // 2 + 1):       # a storm on one button: closed, open, ...
        bit = 1 << rig.pins.button_gpio[0]
        rig.level ^= bit
        rig.ring.put(clock.add(rig.now, i), rig.level)
    before = len(rig.ring)
    rig.step()
    assert len(rig.ring) < before
    assert not busy(rig.stage)                   # the verdict was brought out first (catch_up)


def test_a_press_after_the_window_waits_for_the_judging():
    """A press that comes after the open contest's window has closed is not taken (which
    would judge the contest whole in its pass): the contest is judged first, a step a
    pass, then its verdict given, then the press is taken."""
    rig = Rig("dodgeball", players=(0, 1, 2))
    rig.chord([(0, THROW), (1, DODGE), (2, DODGE)], gap_us=300)
    contest = rig.stage.arbiter.open
    close = clock.add(contest.first, rig.stage.arbiter.contest_us)
    rig.now = clock.add(close, 5000)             # no pass at the close: the press comes first
    _press_snapshot(rig, 1, THROW)
    passes = 0
    while len(rig.ring):
        rig.step()
        passes += 1
        assert passes < 50
        if len(rig.ring):
            assert rig.stage.arbiter.open is None or rig.stage.arbiter.open is contest
    assert passes >= 4                           # judged in steps, then each part of its verdict
    kinds = [k for k, _ in rig.times]
    assert kinds.index("verdict") < kinds.index("press", kinds.index("verdict"))


def test_a_storms_verdict_makes_its_entries_a_part_a_pass():
    """A contest of 100 presses: its verdict's entries are made at most ``ENTRIES`` a pass
    (a storm's hundreds were made in one pass), and its line, written once they are all
    made, holds every press in judged order."""
    rig = Rig("dodgeball", players=(0, 1, 2, 3), settings={"contest_ms": 10000})
    for k in range(100):
        rig.press(k % 4, k // 4 % 4)
    contest = rig.stage.arbiter.open
    _until_verdict(rig)
    made = [0]
    while "verdict" not in rig.kinds():
        rig.step()
        if rig.stage._step == 0 and rig.stage._judged:
            made.append(len(rig.stage._entries))
    steps = [b - a for a, b in zip(made, made[1:])]
    assert max(steps) <= dodgeball.ENTRIES and len(steps) >= 100 // dodgeball.ENTRIES
    verdict = [f for k, f in rig.events if k == "verdict"][-1]
    assert [o["n"] for o in verdict["order"]] == [contest.n[place] for place in contest.order]
    assert len(verdict["order"]) == 100 and rig.stage._entries == []


def test_a_storms_picture_and_lights_read_no_further_than_they_show():
    """A verdict of 60 ranks: its picture's bands stop at the ``BANDS`` the matrix shows
    (a band each was a list made for every rank), drawing what all the bands would; each
    player's light is their best press, found without reading the rest."""
    from courtside import display, lights
    from courtside.arbiter import Arbiter
    from courtside.fair import Fair, seeded
    arb = Arbiter({"tie_us": 1000, "contest_ms": 1500, "answer_ms": 3000}, Fair(seeded(2)))
    for k in range(60):
        arb.press(k % 4, k // 4 % 4, 1000 + 3000 * k)
    (contest,) = arb.poll(10_000_000)
    every, marks, ranks = [], [], []         # every rank's band, as the picture would read it
    for place in contest.order:
        if contest.rank[place] not in ranks:
            ranks.append(contest.rank[place])
            every.append([])
            marks.append(0)
        if contest.player[place] not in every[-1]:
            every[-1].append(contest.player[place])
        if contest.early[place]:
            marks[-1] |= 1 << contest.player[place]
    assert len(every) == 60
    bands, early = display.bands_of(contest)
    assert (bands, early) == (every[:display.BANDS], marks[:display.BANDS])
    assert display.contest(bands, early) == display.contest(every, marks)
    firsts = {}
    for place in contest.order:
        firsts.setdefault(contest.player[place], lights.rank(contest.rank[place]))
    assert dodgeball._best(contest, 4) == firsts == {0: lights.rank(1), 1: lights.rank(2),
                                                      2: lights.rank(3), 3: lights.rank(4)}
