"""Vector suite: the core's effects for scripted play (CPython and the MicroPython unix port).

Each case drives the whole core through ``tests/corerig.py``: ``mode`` to start in,
``players`` to join through the lobby (0-based boxes; leave out to stay in the lobby),
``seed``, ``settings`` and ``steps``, each one of

    ["press", box, button]   a clean press of a box button (button 0..3)
    ["chord", [[box, button], ...], gap_us]   several pressed ``gap_us`` apart
    ["main"]                 a short press of the main-unit button
    ["hold", ms]             the main-unit button held ``ms``, then let go
    ["cmd", "line"]          a laptop command
    ["wait", ms]             time passing
    ["settle"]               until the stage has nothing left to animate

and the result is what a player sees and hears and the laptop reads: the events as short
text lines, the inputs and command answers apart, the tunes started, every box LED at
the end, and the last frame as hex.
"""

import sys

from courtside import events


def _here():
    path = __file__ if "/" in __file__ else "./" + __file__
    return path.rsplit("/", 1)[0]


sys.path.insert(0, _here() + "/..")

from corerig import Rig  # noqa: E402


def line(kind, fields):
    return events.line(kind, 0, fields)[len('{"ev":'):].replace(',"t":0', "", 1)


def run(case):
    rig = Rig(case.get("mode", "dodgeball"), case.get("players"), case.get("seed", 1),
              case.get("settings"))
    for step in case["steps"]:
        what = step[0]
        if what == "press":
            rig.press(step[1], step[2])
        elif what == "chord":
            rig.chord(step[1], step[2])
        elif what == "main":
            rig.main()
        elif what == "hold":
            rig.main(step[1])
        elif what == "cmd":
            rig.cmd(step[1])
        elif what == "wait":
            rig.advance(step[1])
        elif what == "settle":
            rig.settle()
        else:
            raise ValueError("unknown step %r" % what)
    frame = rig.frames[-1] if rig.frames else b""
    return {"events": [line(k, f) for k, f in rig.events],
            "inputs": [line(k, f) for k, f in rig.inputs], "tones": rig.tones,
            "leds": [1 if rig.leds.get(b) else 0 for b in range(rig.pins.boxes)],
            "frame": "".join("%02x" % v for v in frame)}
