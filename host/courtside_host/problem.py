"""One way for every ``courtside`` command to say that something went wrong.

Every command prints its problems the same way, on stderr, and leaves the same exit
status: ``courtside deploy: no Pico found (...)``, then 1 when the work failed (no
board, a check that did not pass, a replay that differs) and 2 when the command cannot
start (a wrong option or value, a file that cannot be read or holds nothing to use).

    return problem.report("monitor", "the board went away (%s)" % e)
"""

import sys

FAILED = 1
UNUSABLE = 2


def report(command, message, status=FAILED):
    """Print ``courtside COMMAND: MESSAGE`` on stderr; returns ``status`` for ``run``."""
    sys.stderr.write("courtside %s: %s\n" % (command, message))
    sys.stderr.flush()
    return status
