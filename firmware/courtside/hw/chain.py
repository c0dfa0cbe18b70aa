"""The matrix's byte order: from the firmware's RGB rows to the bytes the LED chain takes.

A frame (``courtside.display``) is 192 bytes of RGB, row by row from the top left. The
chain wants each LED's three bytes in the panel's colour order (GRB on WS2812B), LEDs in
wiring order, which runs back along every other row on a serpentine panel. ``order``
works that out once, as a table of source indices; ``pack`` then copies a frame into a
preallocated buffer through it, byte by byte: no allocation, every value below 256.

    table = order(serpentine=False, grb=True)
    out = bytearray(192)
    pack(frame, table, out)      # out is what the DMA sends, first byte first
"""


def order(serpentine, grb):
    """bytearray(192): chain byte i comes from frame byte ``table[i]``."""
    table = bytearray(192)
    colours = (1, 0, 2) if grb else (0, 1, 2)
    for led in range(64):
        y, x = divmod(led, 8)
        if serpentine and y % 2:
            x = 7 - x
        src = 3 * (8 * y + x)
        for k in range(3):
            table[3 * led + k] = src + colours[k]
    return table


def pack(frame, table, out):
    """Copy ``frame`` into ``out`` in chain order; returns ``out``."""
    for i in range(192):
        out[i] = frame[table[i]]
    return out
