"""The lobby: players join by pressing any button on their box; the main button starts.

Two to four boxes may join. A box that has joined shows its colour on the matrix and
lights its LED. Starting with fewer than two players is refused with a sound.
"""

from courtside import display
from courtside.pins import ARROWS
from courtside.stage import NEXT_MODE, Stage
from courtside.text import whole

MIN_PLAYERS = 2


class Lobby(Stage):
    name = "lobby"
    between_games = True
    long_press = NEXT_MODE

    def __init__(self, game):
        self.game = game   # the mode that starts when the lobby is done
        # The referee's modules, loaded one a pass while its lobby waits for players:
        # loading all at once from a board's filesystem is the longest pass there is.
        self.preload = None if game == "dodgeball" else []
        if game != "dodgeball":
            self.buttons = ARROWS  # the lobby of a Deathball game

    def start(self, ctx):
        ctx.players = []
        ctx.emit("lobby", game=self.game)
        if not ctx.seen:
            self.preload = None     # a replay has no board whose pass a load could stretch
            return
        ctx.show(display.lobby(ctx.players, self.game))

    def press(self, ctx, box, button, stamp):
        if box not in ctx.players:
            self._join(ctx, box)

    def _join(self, ctx, box):
        """(Apart from ``press``, whose five arguments leave no room in an 11-word frame,
        over which a frame goes on the heap at every call.)"""
        players = ctx.players
        players.append(box)
        players.sort()
        ctx.emit("join", p=box + 1)
        ctx.led(box, True)
        ctx.tone("join")
        if ctx.seen:
            ctx.show(display.lobby(players, self.game))

    def poll(self, ctx, now):
        preload = self.preload
        if preload is None:
            return None
        import gc
        gc.collect()                # so the module's code packs into the heap, not around garbage
        if not preload:
            from courtside import deathball
            preload.extend(deathball.MODULES.split())
        __import__("courtside.deathball." + preload.pop(0))
        if not preload:
            self.preload = None
            return None
        return 0

    def main(self, ctx, stamp):
        if len(ctx.players) < MIN_PLAYERS:
            ctx.emit("refused", why="need at least %d players" % MIN_PLAYERS,
                     players=[p + 1 for p in ctx.players])
            ctx.tone("refuse")
            return
        ctx.begin()

    def command(self, ctx, words):
        if words == ["start"]:
            if len(ctx.players) < MIN_PLAYERS:
                return "need at least %d players to start" % MIN_PLAYERS
            ctx.begin()
            return None
        if len(words) == 2 and words[0] == "join":
            box = (whole(words[1]) or 0) - 1
            if not 0 <= box < ctx.boxes:
                return "join needs a box number from 1 to %d" % ctx.boxes
            self.press(ctx, box, 0, ctx.now)
            return None
        return "unknown command in the lobby: %s" % " ".join(words)

