"""The virtual Pico: ``runner`` starts the MicroPython unix port on a pseudo-terminal; the
files in ``pico/`` are the board's side, run by that interpreter as scripts (not imported here).
"""
