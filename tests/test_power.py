"""The matrix power cap keeps the whole unit inside 500 mA for every frame."""

from courtside import power
from hypothesis import given, settings
from hypothesis import strategies as st

FRAME = 64 * 3
frames = st.binary(min_size=FRAME, max_size=FRAME).map(bytearray)


def _inside_budget(frame):
    assert power.frame_ua(frame) <= power.MATRIX_BUDGET_MA * 1000
    assert power.unit_ma(frame) + power.MARGIN_MA <= power.USB_MA


def test_budget_adds_up():
    rest = (power.PICO_MA + power.BOX_LEDS * power.BOX_LED_MA + power.BUZZER_MA + power.PULL_UP_MA
            + power.MARGIN_MA)
    assert power.MATRIX_BUDGET_MA == power.USB_MA - rest
    # the dark matrix alone must leave room for light
    assert power.PIXELS * power.PIXEL_IDLE_UA < power.MATRIX_BUDGET_MA * 1000
    assert power.BUDGET_UNITS > 255 * 3  # at least one pixel at full white is never dimmed


def test_all_white_frame_is_capped_inside_the_budget():
    frame = bytearray(b"\xff" * FRAME)
    assert power.unit_ma(frame) > power.USB_MA  # uncapped it would overload the port
    scale = power.limit(frame)
    assert 0 < scale < 256
    assert len(set(frame)) == 1  # every channel scaled alike: still white
    _inside_budget(frame)


@settings(max_examples=400, deadline=None)
@given(frames)
def test_no_frame_exceeds_the_budget_after_limit(frame):
    original = bytes(frame)
    scale = power.limit(frame)
    _inside_budget(frame)
    if scale == 256:
        assert bytes(frame) == original
        return
    # colours keep their order channel by channel, and the cap does not waste the budget
    for a, b in ((0, 1), (1, 2), (0, 2)):
        if original[a] <= original[b]:
            assert frame[a] <= frame[b]
    total = sum(original)
    assert sum(frame) >= power.BUDGET_UNITS - FRAME - total // 256 - 1


@settings(max_examples=200, deadline=None)
@given(frames)
def test_limit_is_idempotent(frame):
    power.limit(frame)
    again = bytearray(frame)
    assert power.limit(again) == 256
    assert again == frame


@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
def test_frame_current_is_linear_in_channel_values(r, g, b):
    frame = bytearray(bytes((r, g, b)) * 64)
    expected = power.PIXELS * power.PIXEL_IDLE_UA + (r + g + b) * 64 * power.CHANNEL_FULL_UA // 255
    assert power.frame_ua(frame) == expected
