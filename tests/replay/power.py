"""Replay power-cap vectors: a frame in, the scale the cap applied and the current after.

Input: {"fill": [r, g, b]} paints every pixel; {"pixels": [[index, r, g, b], ...]} paints
some. Runs on CPython and the MicroPython unix port.
"""

from courtside import power


def run(case):
    frame = bytearray(64 * 3)
    if "fill" in case:
        for i in range(64):
            frame[3 * i:3 * i + 3] = bytes(case["fill"])
    for i, r, g, b in case.get("pixels", ()):
        frame[3 * i:3 * i + 3] = bytes((r, g, b))
    before = power.frame_ua(frame)
    scale = power.limit(frame)
    return {"scale": scale, "ua_before": before, "ua_after": power.frame_ua(frame),
            "first": list(frame[:3]), "unit_ma": power.unit_ma(frame)}
