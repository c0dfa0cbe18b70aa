# Runs on the MicroPython unix port: heap blocks one pass of the main loop allocates,
# call frames included (tests/mp/blocks.py counts them with gc.threshold, not
# heap_lock). The loop is the real one (courtside.driver.one_pass) on the real Pico
# layer (courtside.hw.pico, with stand-ins for machine and rp2 only: board_standins.py).
# Prints one JSON object:
#   "idle <mode>"      a loop pass with nothing to do, after warm-up
#   "step <mode>"      Core.step alone, no input (no hardware layer)
#   "press", "release", "verdict"   the passes of one THROW in a Dodge Ball game
#   "join frame"       a lobby pass that takes a join and draws its frame
#   "die frame"        a die-mode pass that draws a roll's first tumbling face
# argv: the firmware folder, the pin map.
import json
import sys

sys.path.insert(0, sys.argv[1])
import board_standins
from blocks import blocks

board_standins.install()

from courtside import driver  # noqa: E402
from courtside.clock import add  # noqa: E402
from courtside.core import Core  # noqa: E402
from courtside.fair import Fair, seeded  # noqa: E402
from courtside.hw.pico import Pico  # noqa: E402
from courtside.run import load_pins  # noqa: E402

pins = load_pins(sys.argv[2])
hw = Pico(pins, {"capture": "irq"})
ring = hw.ring
lines = []
figures = {}
clock = [0x3FFFFFFF - 5000000]        # ticks, started just before the wrap
OPEN = pins.button_mask


def ticks():
    return clock[0]


hw.ticks_us = ticks                   # the loop's clock is the virtual one


def levels_with(button):
    return OPEN & ~(1 << pins.button_gpio[button])


class Unit:
    """A core on the Pico layer, stepped by the real loop pass in virtual time."""

    def __init__(self, mode, commands=()):
        self.core = Core(pins, None, Fair(seeded(1)), now=clock[0], levels=OPEN, mode=mode)
        self.core.step(clock[0], ring, list(commands))
        driver.apply(self.core.effects, hw)
        self.settle()

    def later(self, ms):
        clock[0] = add(clock[0], ms * 1000)

    def loop_pass(self):
        driver.one_pass(self.core, hw, lines)

    def step(self):
        self.core.step(clock[0], ring, lines)
        self.core.effects.clear()

    def settle(self, passes=60, ms=100):
        for _ in range(passes):       # warm up: tunes, lights, module loads play out
            self.later(ms)
            self.loop_pass()


def idle(name, unit):
    def loop_pass():
        unit.later(100)
        unit.loop_pass()

    def step():
        unit.later(100)
        unit.step()

    figures["idle " + name] = blocks(loop_pass)
    figures["step " + name] = blocks(step)


idle("lobby", Unit("dodgeball"))
idle("dodgeball", Unit("dodgeball", ["join 1", "join 2", "start"]))
idle("die", Unit("die"))
idle("referee lobby", Unit("referee"))

# One THROW in a Dodge Ball game: the press pass, its release, the verdict pass.
game = Unit("dodgeball", ["join 1", "join 2", "start"])


def quiet():
    ring.put(clock[0], OPEN)          # every button up
    game.settle(30, 100)              # contest judged, lights and tunes over


def press():
    ring.put(clock[0], levels_with(0))
    game.loop_pass()


def pressed():
    quiet()
    press()
    game.later(60)


def release():
    ring.put(clock[0], OPEN)
    game.loop_pass()


def released():
    pressed()
    release()
    game.later(60)
    game.loop_pass()
    game.later(200)


def verdict():
    game.later(1500)                  # the contest window (contest_ms) has passed
    game.loop_pass()


figures["press"] = blocks(press, quiet)
figures["release"] = blocks(release, pressed)
figures["verdict"] = blocks(verdict, released)

# Frame building: a join in the lobby (event, LED, tune, a new lobby frame) and a tumble
# frame of the die.
lobby = Unit("dodgeball")


def fresh_lobby():
    lobby.core.enter("dodgeball")
    driver.apply(lobby.core.effects, hw)
    lobby.settle(20, 100)


def join():
    ring.put(clock[0], levels_with(4))
    lobby.loop_pass()
    lobby.later(60)
    ring.put(clock[0], OPEN)


figures["join frame"] = blocks(join, fresh_lobby)
die = Unit("die")


def rolling():
    die.settle(40, 100)               # the last roll over, its arrow on the matrix
    die.core.stage.main(die.core.ctx, clock[0])
    driver.apply(die.core.effects, hw)


def first_face():
    die.loop_pass()


figures["die frame"] = blocks(first_face, rolling)
print(json.dumps(figures))
