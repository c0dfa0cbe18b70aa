"""Every cue the matrix shows stands out on a screen: at least 3:1 against an unlit LED.

The frames are the firmware's own pictures (``courtside.display``, ``courtside.deathball
.view``), every cue of both games at once where it can be: the lobby's dim corners, the
bands, a tie's dashed row and the thin early band, a box fault; the Deathball board with
its figures, the mover's pending square and its blink, both balls and the dim pixel ahead
of each, both borders; each die face, the wall and corner arrows with their heads, the
initiative bars. Each is scaled by several brightness settings, as the core sends them,
and drawn by ``face.cells`` (what the page and the terminal draw). The contrast is WCAG's
ratio of relative luminances; a cue's dim shape (``face.dims``) is checked too.
"""

import pytest
from courtside import display
from courtside.deathball import view
from courtside.deathball.track import Shown
from courtside_follow import face

OFF = tuple(face.FACE["off"])
BRIGHTNESS = (1, 8, 40, 96, 255)


def board(border, blink, pending):
    shown = Shown()
    shown.where, shown.balls, shown.headings, shown.border = {0: 19, 1: 37, 2: 42, 3: 28}, [49, 14], \
        [(1, 0), (0, 1)], border
    frame = bytearray(192)
    view.board(frame, shown, turn=0, blink=blink, pending=pending)
    return frame


def pictures():
    yield "lobby", display.lobby({0, 2}, "referee")
    yield "lobby, Dodge Ball", display.lobby({1, 3})
    yield "a contest with a tie and an early answer", display.contest([[0], [1, 2], [3]], [0, 0, 1 << 3])
    yield "a box fault", display.fault(2)
    for border in (1, 2):
        yield "board, border %d" % border, board(border, True, 27)
        yield "board, border %d, the mover dimmed" % border, board(border, False, None)
    for n in range(1, 7):
        frame = bytearray(192)
        view.face(frame, n, view.BALL_COLOURS[n % 2])
        yield "die face %d" % n, frame
    for n in range(1, 7):
        frame = bytearray(192)
        view.wall_arrow(frame, n)
        yield "wall arrow %d" % n, frame
        frame = bytearray(192)
        view.corner_arrow(frame, n)
        yield "corner arrow %d" % n, frame
    frame = bytearray(192)
    view.bars(frame, [(0, 6), (1, 3), (2, 1), (3, 5)])
    yield "initiative bars", frame


@pytest.mark.parametrize("brightness", BRIGHTNESS)
def test_every_lit_pixel_stands_3_to_1_against_an_unlit_led(brightness):
    worst = []
    for name, frame in pictures():
        scaled = display.scale(bytearray(frame), brightness)
        for i, rgb in enumerate(face.cells(scaled)):
            if rgb is not None:
                worst.append((face.contrast(rgb, OFF), name, i, tuple(scaled[3 * i:3 * i + 3])))
    assert len(worst) > 100          # at brightness 1 the dimmest cues are dark on the matrix too
    low = min(worst)
    assert low[0] >= 3.0, low


def test_the_old_drawing_fell_short():
    """The check can fail: drawn as before (grey unlit LEDs, no floor), the red border had
    about 1.1:1."""
    old_off = (38, 38, 38)
    border = display.scale(board(1, True, None), 96)
    top = max(border)
    old = tuple(round(255 * (v / top) ** 0.5) for v in border[0:3])
    assert face.contrast(old, old_off) < 1.3
    assert face.contrast(face.cells(border)[0], OFF) >= 3.0


def test_a_dim_cue_keeps_its_order_and_its_shape():
    """The blink and the pending square stay apart from the figure they belong to: darker
    on screen, and drawn in the dim shape."""
    frame = display.scale(board(1, True, 27), 96)
    dimmed = display.scale(board(1, False, 27), 96)
    figure, pending = 8 * 5 + 3, 8 * 4 + 3            # d3 and d4
    bright = face.cells(frame)[figure]
    for cue in (face.cells(dimmed)[figure], face.cells(frame)[pending]):
        assert face.contrast(cue, OFF) < face.contrast(bright, OFF)
    assert not face.dims(frame)[figure] and face.dims(dimmed)[figure] and face.dims(frame)[pending]
    assert face.dims(frame)[0]                          # the border
