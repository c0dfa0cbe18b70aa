"""The matrix power cap: scale a frame so the whole unit stays inside a USB port's 500 mA.

The current of a frame is computed, not guessed: each WS2812B colour channel draws current
in proportion to its PWM value, plus a fixed quiescent draw per pixel. The figures below
are the single source for the firmware's cap and for the power budget in hardware/
(hardware/power.md is generated from this module, and a test checks that no frame the
firmware can draw exceeds the budget after ``limit``).

    scale = limit(frame)    # frame is a 64*3 bytearray, scaled in place; returns 0..256
    scale = finish(frame, brightness)    # the brightness setting first, then the cap

Where the figures come from (all currents at the USB connector, 5 V):

- WS2812B channel at full PWM: Worldsemi's WS2812B-V5 and WS2812B-2020 datasheets give a
  12 mA constant-current output per channel; older and clone 5050 parts on cheap 8x8
  panels are commonly measured at 16-20 mA (the usual "60 mA per white pixel" rule of
  thumb). The budget takes 20 mA so the cap holds whichever part a panel carries.
- WS2812B quiescent draw with the LEDs dark: measured at 0.5-1 mA per pixel; 1 mA taken.
- Pico: 18-38 mA measured running MicroPython at 125 MHz with USB; 50 mA taken.
- Box LED: 330 ohm from a 3.3 V GPIO, about 4 mA; 10 mA allowed each.
- Buzzer: a passive piezo through a transistor, a few mA; 30 mA allowed (a magnetic
  buzzer fitted by mistake draws about that).
- Button pull-ups: 4.7 kohm to 3.3 V draws 0.7 mA per pressed button, 17 buttons 12 mA.
- Margin: level shifter, regulator losses, tolerances.
"""

from micropython import const

from courtside import display

USB_MA = const(500)          # what a USB 2.0 port must supply
PICO_MA = const(50)          # Pico at 125 MHz with USB active, generous
BOX_LED_MA = const(10)       # each of up to 4 box LEDs, at its series resistor
BOX_LEDS = const(4)
BUZZER_MA = const(30)        # passive piezo driven from a GPIO through a transistor
PULL_UP_MA = const(12)       # every button held down: 17 x 3.3 V / 4.7 kohm
MARGIN_MA = const(40)        # level shifter, regulator losses, tolerance
PIXELS = const(64)
PIXEL_IDLE_UA = const(1000)  # quiescent draw of one WS2812B, LEDs dark
CHANNEL_FULL_UA = const(20000)  # one colour channel at value 255 (worst part; see above)

# Left for the matrix once everything else draws its worst case.
MATRIX_BUDGET_MA = USB_MA - PICO_MA - BOX_LEDS * BOX_LED_MA - BUZZER_MA - PULL_UP_MA - MARGIN_MA
_LED_BUDGET_UA = MATRIX_BUDGET_MA * 1000 - PIXELS * PIXEL_IDLE_UA
# The same budget as a sum of channel values (0..255 each): the cap works in these units,
# so every product stays a small integer on a 32-bit port.
BUDGET_UNITS = _LED_BUDGET_UA * 255 // CHANNEL_FULL_UA


def frame_ua(frame):
    """Microamps the matrix draws showing ``frame`` (LEDs plus idle current)."""
    return PIXELS * PIXEL_IDLE_UA + sum(frame) * CHANNEL_FULL_UA // 255


def unit_ma(frame):
    """Worst-case milliamps of the whole unit while ``frame`` is shown (margin not included)."""
    rest = PICO_MA + BOX_LEDS * BOX_LED_MA + BUZZER_MA + PULL_UP_MA
    return rest + (frame_ua(frame) + 999) // 1000


def limit(frame):
    """Scale ``frame`` in place to fit the budget; returns the scale applied, out of 256."""
    total = sum(frame)
    if total <= BUDGET_UNITS:
        return 256
    scale = BUDGET_UNITS * 256 // total  # rounds down, and so does each channel below
    for i in range(len(frame)):
        v = frame[i]
        if v:
            frame[i] = v * scale >> 8
    return scale


def finish(frame, brightness):
    """A frame as the matrix shows it, in place: ``display.scale`` by the brightness
    setting (1..255), then ``limit``; returns the cap's scale. The core's finisher unless
    its board hands it one with the same results in machine code
    (``courtside.hw.native.finish``)."""
    display.scale(frame, brightness)
    return limit(frame)
