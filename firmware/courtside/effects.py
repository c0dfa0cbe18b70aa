"""Effects: what the core asks a driver to do, as small tuples.

    (EVENT, kind, t, fields)   an event line (``courtside.events``)
    (FRAME, frame)             the matrix, 192 bytes RGB, scaled and within the power cap
    (LED, box, on)             a box LED
    (TONE, freq, ms, tune)     the buzzer (freq 0: silence); ``tune`` names the tune on
                               its first note, else ""
    (SAVE, settings, saved)    write the settings to flash (only ever between games), then
                               call ``saved`` with why not, or None: the core writes the
                               command's one answer (``ok`` or ``error``)

The board writes lines to USB and frames to the matrix, the simulator draws them, and a
replay compares them with a log; the core never knows which.
"""

EVENT = 0
FRAME = 1
LED = 2
TONE = 3
SAVE = 4
