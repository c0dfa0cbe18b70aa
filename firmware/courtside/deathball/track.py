"""Follows a Deathball game from its events alone.

The referee shows the deathballs' run step by step after the engine has already worked it
out, so the matrix needs a copy of the board that moves on one event at a time. The same
class lets a laptop rebuild the board from a saved event stream, which is how anyone can
check afterwards that the stream tells the whole story.

    shown = Shown.from_position("1@c1 2@d1 *b8n *g8n r0 t1")
    shown.apply("ball", {"ball": 1, "end": "b7", "heading": "s", ...})
    shown.where, shown.balls, shown.headings, shown.border, shown.turn
"""

from courtside.deathball import notation, rules


class Shown:
    def __init__(self):
        self.where = {}
        self.balls = list(rules.BALL_STARTS)
        self.headings = [rules.BALL_START_HEADING, rules.BALL_START_HEADING]
        self.border = 0
        self.turn = None
        self.order = []
        self.dead = []
        self.winner = None
        self.over = False
        self.round = 1

    @classmethod
    def from_position(cls, text):
        p = notation.parse(text)
        s = cls()
        s.where = dict(p["where"])
        s.balls = list(p["balls"])
        s.headings = list(p["headings"])
        s.border = p["border"]
        s.turn = p["turn"]
        s.order = list(p["order"])
        s.dead = list(p["dead"])
        s.round = p["round"]
        return s

    def apply(self, kind, f):
        """Move the copy on by one event (kinds it does not know change nothing)."""
        if kind == "order":
            self.order = [p - 1 for p in f["order"]]
            self.turn = self.order[0]
        elif kind == "setup":
            self.where[f["p"] - 1] = notation.square_of(f["square"])
        elif kind in ("turn", "skip"):
            self.turn = f["p"] - 1
            self.round = f["round"]
        elif kind == "move":
            if f.get("end") is not None:
                self.where[f["p"] - 1] = notation.square_of(f["end"])
        elif kind == "push":
            self.where[f["p"] - 1] = notation.square_of(f["end"])
        elif kind == "death":
            self.where.pop(f["p"] - 1, None)
            self.dead.append(f["p"] - 1)
        elif kind == "ball":
            self.turn = None
            self.balls[f["ball"] - 1] = notation.square_of(f["end"])
            self.headings[f["ball"] - 1] = notation.heading_of(f["heading"])
        elif kind == "bounce":
            self.headings[f["ball"] - 1] = notation.heading_of(f["heading"])
        elif kind == "shrink":
            self.border = f["border"]
        elif kind == "clamp":
            if "ball" in f:
                self.balls[f["ball"] - 1] = notation.square_of(f["end"])
            else:
                self.where[f["p"] - 1] = notation.square_of(f["end"])
        elif kind == "winner":
            self.winner = None if f["p"] is None else f["p"] - 1
            self.over = True
            self.turn = None

    def position(self):
        return notation.write(self.order, self.where, self.balls, self.headings, self.border,
                              self.turn, self.round, self.dead)
