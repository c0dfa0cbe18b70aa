"""``courtside web``'s server: the page and its bundle over HTTP, the relay to a board over a
WebSocket (``server``, on h11 and websockets), and the page's MicroPython runtime (``runtime``).
"""
