"""The link to a real board: finding its serial port (``port``), what it gets (``manifest``),
putting the firmware on it (``deploy``) and MicroPython itself (``flash``).
"""
