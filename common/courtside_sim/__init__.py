"""The simulator's side of the firmware: a simulated board, scripts of timed inputs, and
the headless runner. It runs on any Python (CPython, the MicroPython unix port, the page's
MicroPython), sits in ``common/`` beside the follower, and is never deployed to a board
(``firmware/manifest.py`` leaves it out): off a board it takes the place of
``courtside.hw.pico``, under the unchanged ``courtside`` core.

- ``board``: ``SimBoard``, the hardware layer in virtual time;
- ``live``: ``LiveBoard``, the same in real time (the keyboard, the virtual Pico);
- ``script``: reading and checking scripts (docs/simulator.md), as a stream;
- ``console``: command lines and ``sim`` presses from standard input (the virtual Pico);
- ``start``: the virtual Pico's start-up and bring-up (its ``main.py`` starts it);
- ``headless``: ``python -m courtside_sim.headless SCRIPT`` prints the event stream.
"""
