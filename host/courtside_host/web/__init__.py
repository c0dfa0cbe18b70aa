"""``courtside web``'s server: the page and its bundle over HTTP, the relay to a board over a
WebSocket (``server``, ``wsock``), and the page's MicroPython runtime (``runtime``).
"""
