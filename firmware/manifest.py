# What a board gets: the courtside package, and nothing of what runs on any Python
# (common/: the simulated board, the follower), which never goes to a board. Anyone who
# builds MicroPython can freeze it into the firmware image, so its bytecode runs from
# flash and leaves the heap to the game:
#
#     cd micropython/ports/rp2
#     make BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/courtside/firmware/manifest.py
#
# main.py, boot.py and the pin map stay files on the board's flash: `courtside deploy`
# puts them there (and, without a frozen build, the package too, compiled to .mpy), and
# `mpremote mip install --target / firmware/package.json` installs the same set as source.
# `courtside deploy` reads this file for the list of what to send.

include("$(PORT_DIR)/boards/manifest.py")   # the port's own frozen modules (asyncio, ...)
package("courtside")
