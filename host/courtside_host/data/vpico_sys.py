"""The board's ``sys``: the unix port's, with a board's streams and no trace of the host.

Installed as ``sys.modules["sys"]`` before any program runs. ``path`` and ``modules`` are
the interpreter's own, so changing them works as on a board; ``argv`` and ``executable``
are empty, as on a board; ``stdin``, ``stdout`` and ``stderr`` are the serial port
(``vpico_port``). ``platform`` stays ``"linux"``: it is how firmware tells that it runs
without a Pico's hardware.
"""

from sys import *  # noqa: F403 - the unix port's sys, to be completed below

import vpico_port

__name__ = "sys"
argv = []
executable = ""
stdin = vpico_port.stdin
stdout = vpico_port.stdout
stderr = vpico_port.stderr
print_exception = vpico_port.print_exception
del vpico_port
