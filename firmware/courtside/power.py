"""The matrix power cap: scale a frame so the whole unit stays inside a USB port's 500 mA.

The current of a frame is computed, not guessed: each WS2812B channel draws current in
proportion to its PWM value, plus a fixed quiescent draw per pixel. The figures below are
the single source for the firmware's cap and for the power budget in hardware/ (a test
checks that the two agree and that no frame the firmware can draw exceeds the budget).

    scale = limit(frame)    # frame is a 64*3 bytearray, scaled in place; returns 0..256
"""

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

USB_MA = const(500)          # what a USB 2.0 port must supply
PICO_MA = const(50)          # Pico at 125 MHz with USB active, generous
BOX_LED_MA = const(10)       # each of up to 4 box LEDs, at its series resistor
BUZZER_MA = const(30)        # passive piezo driven from a GPIO through a transistor
MARGIN_MA = const(40)        # cable losses, level shifter, tolerance
PIXELS = const(64)
PIXEL_IDLE_UA = const(1000)  # quiescent draw of one WS2812B, LEDs dark
CHANNEL_FULL_UA = const(12000)  # one colour channel at value 255

# Left for the matrix's LEDs once everything else draws its worst case.
MATRIX_BUDGET_MA = USB_MA - PICO_MA - 4 * BOX_LED_MA - BUZZER_MA - MARGIN_MA
_LED_BUDGET_UA = MATRIX_BUDGET_MA * 1000 - PIXELS * PIXEL_IDLE_UA


def frame_ua(frame):
    """Microamps the matrix draws showing ``frame`` (LEDs plus idle current)."""
    return PIXELS * PIXEL_IDLE_UA + sum(frame) * CHANNEL_FULL_UA // 255


def limit(frame):
    """Scale ``frame`` in place to fit the budget; returns the scale applied, out of 256."""
    total = sum(frame)
    led_ua = total * CHANNEL_FULL_UA // 255
    if led_ua <= _LED_BUDGET_UA:
        return 256
    scale = _LED_BUDGET_UA * 256 // led_ua  # rounds down, so the result stays inside
    for i in range(len(frame)):
        frame[i] = frame[i] * scale >> 8
    return scale
