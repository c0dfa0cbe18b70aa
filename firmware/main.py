# Courtside starts here at power-up. Hold the main-unit button while plugging in for
# safe mode (nothing starts). If the firmware cannot load (say a deploy was cut off half
# way) this file reports why and leaves the REPL free, so the board can be redeployed.
# On a Pico the board's start-up runs (courtside.run); on the virtual Pico, whose image
# holds the simulated board as a board holds frozen modules, the simulated board's own
# (courtside_sim.start, never deployed).
import sys

try:
    from courtside import run
    start = run.main
    if sys.platform != "rp2":
        from courtside_sim.start import main as start
except Exception as e:
    try:
        from courtside.events import line
        print(line("error", 0, {"msg": "courtside cannot load: %r" % e, "line": ""}))
    except Exception:
        print("courtside cannot load: %r" % e)
else:
    start()
