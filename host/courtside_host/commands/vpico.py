"""``courtside vpico``: a virtual Pico on a pseudo-terminal, to try deploy and monitor
without hardware.

    courtside vpico board/ --link ./ttyACM0      # then: courtside deploy --port ./ttyACM0
"""

from courtside_host.vpico.runner import add_arguments, run

__all__ = ["add_arguments", "run"]
