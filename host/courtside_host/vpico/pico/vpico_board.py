"""The inside of the virtual Pico: the MicroPython unix port made to look like a Pico.

``courtside_host.vpico.runner`` starts this script as ``micropython vpico_board.py FLASH START``
with stdin a pipe of what the laptop sent and stdout going back to it. Before any program
runs, the interpreter is made into a board:

- the folder FLASH becomes the whole filesystem (``vpico_flash``): no path leads out;
- ``vpico_gate`` closes every other way to the host by ``vpico_guard``'s rules: ``import``
  by name (sockets, ``uctypes``, ``termios`` refused; ``os``, ``sys``, ``vfs``,
  ``machine`` always the board's), and native code (in ``compile``, ``exec``, ``eval``
  and in every module file the loader reads, whatever is mounted);
- ``sys``, ``os``, ``vfs`` and ``machine`` are a Pico's (``vpico_sys``, ``vpico_os``,
  ``vpico_vfs``, ``vpico_machine``), with the serial port as stdin, stdout and stderr
  (``vpico_port``), and ``print``, ``input`` and ``help`` using it as a board's do;
- the simulated board's own code (``courtside_sim``, from the folder ``VPICO_ROM`` names)
  is loaded first, as a board holds frozen modules;
- then ``vpico_repl`` boots (lines edited by ``vpico_readline``): at START ``power`` or
  ``friendly`` it runs ``boot.py`` and ``main.py`` and offers the friendly REPL, at
  ``raw`` (a soft reset from the raw REPL) ``boot.py`` and the raw REPL.

Programs run in this script's own module, ``__main__``, emptied first.
"""

import builtins
import os
import sys

import vfs
import vpico_flash
import vpico_gate
import vpico_guard
import vpico_machine
import vpico_os
import vpico_port
import vpico_readline
import vpico_repl
import vpico_sys
import vpico_vfs

_start = sys.argv[2] if len(sys.argv) > 2 else "power"
# The simulated board (courtside_sim) is loaded before the flash is mounted, as a board
# holds frozen modules: importable, but no file on the flash. It takes the courtside
# modules it needs only when the firmware, from the flash, builds a board (main.py starts
# courtside_sim.start off a Pico).
_rom = os.getenv("VPICO_ROM")
if _rom:
    sys.path.insert(0, _rom)
    import courtside_sim.board
    import courtside_sim.console
    import courtside_sim.live
    import courtside_sim.script
    import courtside_sim.start  # noqa: F401
    sys.path.pop(0)
vpico_gate.install({"sys": vpico_sys, "os": vpico_os, "vfs": vpico_vfs, "machine": vpico_machine},
                   globals(), vpico_guard)
vfs.umount("/")
vpico_vfs.mount(vpico_flash.Flash(vfs.VfsPosix(sys.argv[1])), "/")
os.chdir("/")
sys.argv[:] = []
sys.path[:] = ["", ".frozen", "/lib"]
builtins.print = vpico_port.print
builtins.__repl_print__ = vpico_port.repl_print  # type: ignore[attr-defined]
builtins.help = vpico_port.help
builtins.input = vpico_readline.board_input
for _name, _module in (("sys", vpico_sys), ("os", vpico_os), ("vfs", vpico_vfs),
                       ("machine", vpico_machine)):
    sys.modules[_name] = _module
for _name in ("vpico_flash", "vpico_gate", "vpico_guard", "vpico_machine", "vpico_os", "vpico_port",
              "vpico_readline", "vpico_repl", "vpico_sys", "vpico_vfs"):
    sys.modules.pop(_name, None)
vpico_repl.main(globals(), _start)
