# Runs at every reset, soft ones included: switch off a watchdog left running by a
# previous start, so an mpremote session or a REPL is never reset under the user.
# MicroPython's WDT cannot be stopped through its API, so this clears the enable bit
# (WATCHDOG CTRL bit 30) through the register's atomic clear alias (+0x3000). It imports
# nothing of the firmware, so it works with the courtside package half deployed, and
# an error here is shown, not hidden. Other ports (the virtual Pico) have no such
# register and nothing to switch off.
import sys

if sys.platform == "rp2":
    from machine import mem32
    mem32[(0x400D8000 if "RP2350" in sys.implementation._machine else 0x40058000) + 0x3000] = 0x40000000
