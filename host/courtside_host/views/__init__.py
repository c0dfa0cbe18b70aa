"""The faces of a game: the one renderer (``render``) and what stands on it: the terminal,
the monitor, the SVG timeline and the web page's view (``webview``, which also runs inside
the page on MicroPython, so this file imports nothing).
"""
