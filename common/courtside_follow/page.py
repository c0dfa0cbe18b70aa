"""The web page's view: the one follower and the face of this package, run inside the page.

The page hands every event line it receives (from the core running in the page, from a
board over Web Serial, or from ``courtside web --port`` over a WebSocket) to ``View.feed``
with the page's clock, asks ``View.due`` on its timer for what the matrix shows by then
(``courtside_follow.pace``: a run step by step, the die's face after its tumble), and draws
what ``View.state`` says, so a browser shows the same sentences, colours, ranks, board and
status line as the terminal simulator, the monitor and replay, when the matrix shows them.
It runs on MicroPython (WebAssembly in the page) and on CPython (the tests compare both).

    view = View()
    view.feed('{"ev":"join","t":0,"p":1}', 1234.5)   # -> '[{"sentence": "Player 1 (red) joins ..."}]'
    view.due(1300.0)                         # JSON: what the matrix shows by then, as feed
    view.state()                             # JSON: status, verdict, board, ...
    view.cells([0] * 192)                    # JSON: 64 cells, [[r, g, b], dim] or null
    view.matrix()                            # JSON: the frame the stream says the matrix shows
"""

import json

from courtside import display
from courtside.deathball import view as board_view

from courtside_follow import face as words
from courtside_follow import schema
from courtside_follow.follower import Follower
from courtside_follow.pace import Paced


class View:
    def __init__(self):
        self.names = words.Names()
        self.follow = Follower()
        self.paced = Paced(self.follow)
        self.last = None      # the last event record shown

    def name(self, p, text):
        """Call player ``p`` by ``text`` on screen ("" gives the number back)."""
        if text:
            from courtside_follow.face import shortened
            self.names.given[p] = shortened(text, 16)
        else:
            self.names.given.pop(p, None)

    def feed(self, line, now_ms=None):
        """One line, arrived at ``now_ms`` on the page's clock (None: shown at once); the
        records the matrix shows by then, as ``due``, or "" for a line that is not an event
        (REPL noise, a line cut short). The follower takes the events the schema finds
        nothing wrong with."""
        got = schema.record(line)
        if got is None:
            return ""
        self.paced.put(got, None if now_ms is None else int(now_ms * 1000))
        return self.due(now_ms)

    def due(self, now_ms=None):
        """What the matrix shows by ``now_ms``, as JSON: a list of ``{"ev", "t", "clock",
        "sentence"}`` (the sentence null for an event not worth one)."""
        out = []
        for ev in self.paced.due(None if now_ms is None else int(now_ms * 1000)):
            self.last = ev
            out.append({"ev": ev["ev"], "t": ev["t"], "clock": words.clock(ev["t"]),
                        "sentence": words.sentence(ev, self.names)})
        return json.dumps(out)

    def state(self):
        """What a screen shows now, as JSON: what the follower knows, in the face's words."""
        f = self.follow
        n = self.names
        stage = words.stage(f)
        out = {"mode": f.mode, "mode_name": words.mode_name(f.mode), "stage": stage,
               "status": words.status(f, n), "status_board": words.status(f, n, keys=False),
               "waiting": f.waiting, "busy": f.busy,
               "turn": words.mover(f), "players": f.players if stage == "game" else [],
               "joined": f.players if stage == "lobby" else [],
               "labels": {str(p): n.label(p) for p in range(1, 5)},
               "winner": words.winner_sentence(f, n)}
        v = f.verdict
        if v is not None:
            out["verdict"] = {"c": v.get("c"), "lines": words.verdict_lines(v, n),
                              "order": [self._placing(o) for o in v.get("order", [])],
                              "sentence": words.sentence(v, n)}
        if f.chessboard is not None:
            out["board"] = self._board()
        if f.roll is not None:
            r = f.roll
            out["roll"] = {"face": r.get("face"), "sentence": words.sentence(r, n)}
        return json.dumps(out)

    def _placing(self, o):
        p = o.get("p")
        return {"rank": o.get("rank"), "rank_word": words.rank_word(o.get("rank", 0)),
                "tie": bool(o.get("tie")), "p": p, "who": self.names.label(p),
                "name": self.names.who(p),
                "rgb": list(words.rgb(p)), "b": o.get("b"),
                "lag": words.ms(o["lag"]) if o.get("lag") else "",
                "early": words.early_words(o.get("early"))}

    def _board(self):
        """The board as the follower has it; ``turn`` the player whose presses it takes."""
        b = self.follow.chessboard
        squares = {}
        for square, (char, what) in words.grid(b).items():
            if isinstance(what, int):
                squares[square] = {"p": what, "rgb": list(words.rgb(what)), "char": char}
            else:
                squares[square] = {"what": what, "char": char}
        for i, square, heading in words.balls(b):         # each ball with where it heads
            squares[square]["heading"] = heading
            squares[square]["rgb"] = words.FACE["balls"][i - 1]["rgb"]   # as the matrix draws it
        inside = [sq for sq in _SQUARES if words.inside(b, sq)]
        pending = words.pending_square(self.follow)
        cursor = words.setup_cursor(self.follow)
        return {"squares": squares, "inside": inside, "turn": words.mover(self.follow),
                "rows": words.rows(b), "pending": None if pending is None else _SQUARES[pending],
                "cursor": None if cursor is None else _SQUARES[cursor[0][cursor[1]]]}

    def cells(self, frame):
        """The matrix as a screen shows it, as JSON: each pixel's colour (``words.cells``;
        null for unlit) and whether it is drawn in the dim shape (``words.dims``)."""
        dims = words.dims(frame)
        return json.dumps([[list(c), dims[i]] if c else None for i, c in enumerate(words.cells(frame))])

    def matrix(self):
        """What the board's matrix shows, rebuilt from the stream for a page that watches a
        board (the stream carries events, not frames), as a JSON frame of 192 levels: the lobby's
        quadrants, the last contest's bands, the Deathball board with the mover (a
        half-entered move's square, the set-up cursor), the die's last face; "" while
        nothing is known. It follows the board's matrix step by step (the follower takes
        each event when the matrix shows it: each step of a run, the die's face after its
        tumble); the tumble and the blink themselves are not drawn."""
        frame = self._frame()
        return json.dumps(list(frame)) if frame is not None else ""

    def _frame(self):
        f = self.follow
        stage = words.stage(f)
        if stage == "lobby":
            game = "referee" if f.mode == "referee" else "dodgeball"
            return display.lobby({p - 1 for p in f.players}, game)
        if f.mode == "dodgeball" and f.verdict is not None:
            return display.contest(*display.bands_of(_Judged(f.verdict.get("order", []))))
        chessboard = f.chessboard
        if f.mode == "referee" and chessboard is not None:
            frame = bytearray(192)
            mover = words.mover(f)
            cursor = words.setup_cursor(f)
            if cursor is not None:          # set-up: the free squares and the cursor, as the board draws them
                board_view.setup(frame, chessboard, cursor[0], cursor[1],
                                 board_view.PLAYER_COLOURS[mover - 1])
                return frame
            board_view.board(frame, chessboard, turn=mover - 1 if mover else None, blink=True,
                             pending=words.pending_square(f))
            return frame
        if f.mode == "die" and f.roll is not None and f.roll.get("face"):
            frame = bytearray(192)
            board_view.face(frame, f.roll["face"], board_view.BALL_COLOURS[0])
            return frame
        return None


_SQUARES = [c + str(r) for r in range(1, 9) for c in "abcdefgh"]


class _Judged:
    """A verdict's entries as ``display.bands_of`` reads a judged contest (the firmware's
    ``arbiter.Contest``): by place, here each entry's index in judged order."""

    def __init__(self, entries):
        self.order = range(len(entries))
        self.rank = [o.get("rank") for o in entries]
        self.player = [o["p"] - 1 for o in entries]
        self.early = [bool(o.get("early")) for o in entries]


def face():
    """The renderer's choices (``courtside_follow.face.FACE``) as JSON, for the page's own drawing."""
    return json.dumps(words.FACE)
