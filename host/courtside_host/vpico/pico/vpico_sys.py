"""The board's ``sys``: the unix port's, with a board's streams and no trace of the host.

Installed as ``sys.modules["sys"]`` before any program runs. ``path`` and ``modules`` are
the interpreter's own, so changing them works as on a board; ``argv`` and ``executable``
are empty, as on a board; ``stdin``, ``stdout`` and ``stderr`` are the serial port
(``vpico_port``). ``platform`` stays ``"linux"``: it is how firmware tells that it runs
without a Pico's hardware. ``implementation._mpy`` names no native architecture: native
code is not run here (``vpico_guard``).
"""

import sys as _sys
from sys import *  # noqa: F403 - the unix port's sys, to be completed below

import vpico_port

__name__ = "sys"
path = _sys.path          # the interpreter's own list (not copied by the * import)
ps1 = _sys.ps1
ps2 = _sys.ps2
argv = []
executable = ""
stdin = vpico_port.stdin
stdout = vpico_port.stdout
stderr = vpico_port.stderr
print_exception = vpico_port.print_exception


class _Implementation(tuple):
    name = property(lambda self: self[0])
    version = property(lambda self: self[1])
    _machine = property(lambda self: self[2])
    _mpy = property(lambda self: self[3])
    _build = property(lambda self: self[4])

    def __repr__(self):
        return "(name=%r, version=%r, _machine=%r, _mpy=%r, _build=%r)" % tuple(self)

    __str__ = __repr__


# No native code runs here (vpico_guard), so none is offered: no architecture in _mpy.
implementation = _Implementation((  # type: ignore[assignment]
    _sys.implementation.name, _sys.implementation.version,
                                  _sys.implementation._machine, _sys.implementation._mpy & ~(0xF << 10),
                                  _sys.implementation._build))
del vpico_port, _sys

del __file__               # a Pico's modules are built in, not files of the host
