# Runs on CPython and on the MicroPython unix port alike: every line of the file argv[2]
# is the hex of one raw script line; each goes through the script reader's own path
# (courtside_sim.script: the UTF-8 check, the line's parse) and its verdict is printed,
# one line each, in a form that is the same bytes on both runtimes when the verdicts agree.
# argv: the firmware folder, the file of hex lines.
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/../common")
import binascii

from courtside import events
from courtside.run import load_pins
from courtside_sim.script import ScriptError, _decode, parse_line

pins = load_pins(sys.argv[1] + "/../hardware/pinmap.json")
with open(sys.argv[2]) as f:
    hexes = f.read().split()
for number, h in enumerate(hexes, 1):
    raw = binascii.unhexlify(h)
    try:
        item, release = parse_line(number, _decode(number, raw), pins)
        shown = "ok " + events._value([list(item) if item else None, list(release) if release else None])
    except ScriptError as e:
        shown = "refused " + events._string(str(e))
    sys.stdout.write(shown + "\n")
