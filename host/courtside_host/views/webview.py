"""The web page's view: the one renderer (``courtside_host.views.render``) run inside the page.

The page hands every event line it receives (from the core running in the page, from a
board over Web Serial, or from ``courtside web --port`` over a WebSocket) to ``View.feed``
and draws what ``View.state`` says, so a browser shows the same sentences, colours, ranks
and board as the terminal simulator, the monitor and replay. It runs on MicroPython
(WebAssembly in the page) and on CPython (the tests compare both).

    view = View()
    view.feed('{"ev":"join","t":0,"p":1}')   # -> '{"sentence": "Player 1 (red) joins ..."}'
    view.state()                             # JSON: status, verdict, board, ...
    view.cells([0] * 192)                    # JSON: 64 cells, [r, g, b] or null
"""

import json

from courtside_host.views import render


class View:
    def __init__(self):
        self.names = render.Names()
        self.game = render.Game(self.names)
        self.last = None      # the last event record

    def name(self, p, text):
        """Call player ``p`` by ``text`` on screen ("" gives the number back)."""
        if text:
            self.names.given[p] = text[:16]
        else:
            self.names.given.pop(p, None)

    def feed(self, line):
        """One line; JSON ``{"ev": kind, "sentence": text or null}``, or "" for a line that
        is not an event (REPL noise, a damaged line)."""
        from courtside import events
        parsed = events.parse(line)
        if parsed is None:
            return ""
        kind, t, ev = parsed
        ev["ev"] = kind
        ev["t"] = t
        self.game.feed(ev)
        self.last = ev
        return json.dumps({"ev": kind, "t": t, "clock": render.clock(t),
                           "sentence": render.sentence(ev, self.names)})

    def state(self):
        """What a screen shows now, as JSON."""
        g = self.game
        n = self.names
        out = {"mode": g.mode, "mode_name": render.mode_name(g.mode), "stage": g.stage,
               "status": g.status(), "turn": g.turn, "players": g.players, "joined": g.joined,
               "labels": {str(p): n.label(p) for p in range(1, 5)},
               "winner": render.sentence(g.winner, n) if g.winner else None}
        v = g.verdict
        if v is not None:
            out["verdict"] = {"c": v.get("c"), "lines": render.verdict_lines(v, n),
                              "order": [self._placing(o) for o in v.get("order", [])],
                              "sentence": render.sentence(v, n)}
        if g.mode in ("referee", "die"):
            out["board"] = self._board()
        return json.dumps(out)

    def _placing(self, o):
        p = o.get("p")
        return {"rank": o.get("rank"), "rank_word": render.rank_word(o.get("rank", 0)),
                "tie": bool(o.get("tie")), "p": p, "who": self.names.label(p),
                "rgb": list(render.rgb(p)), "b": o.get("b"),
                "lag": render.ms(o["lag"]) if o.get("lag") else "",
                "early": render.early_words(o.get("early"))}

    def _board(self):
        b = self.game.board
        squares = {}
        for square, (char, what) in b.grid().items():
            if isinstance(what, int):
                squares[square] = {"p": what, "rgb": list(render.rgb(what)), "char": char}
            else:
                squares[square] = {"what": what, "char": char}
        inside = [sq for sq in _SQUARES if b.inside(sq)]
        return {"squares": squares, "inside": inside, "turn": b.turn, "rows": b.rows()}

    def cells(self, frame):
        """The matrix as a screen shows it (``render.cells``), as JSON."""
        return json.dumps([list(c) if c else None for c in render.cells(frame)])


_SQUARES = [c + str(r) for r in range(1, 9) for c in "abcdefgh"]


def face():
    """The renderer's choices (``render.FACE``) as JSON, for the page's own drawing."""
    return json.dumps(render.FACE)
