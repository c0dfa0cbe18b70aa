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
    commands = (("join", "join N", 2), ("start", "start", 1))
    where = " in the lobby"

    def __init__(self, game):
        self.game = game   # the mode that starts when the lobby is done
        # The game's modules, loaded one a pass while its lobby waits for players:
        # loading them at once from a board's filesystem is the longest pass there is,
        # and loading them before ``hello`` would hold up the start.
        self.preload = []
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
        if not preload:
            _modules(self.game, preload)
            return 0        # loading starts in the next pass: nothing holds up the first
        _load(preload.pop(0))
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

    def _cmd_start(self, ctx, words):
        if len(ctx.players) < MIN_PLAYERS:
            return "need at least %d players to start" % MIN_PLAYERS
        ctx.begin()
        return None

    def _cmd_join(self, ctx, words):
        box = (whole(words[1]) or 0) - 1
        if not 0 <= box < ctx.boxes:
            return "join needs a box number from 1 to %d" % ctx.boxes
        self.press(ctx, box, 0, ctx.now)
        return None



def _modules(game, into):
    """The modules ``game`` needs beyond the lobby's, in the order they import each other."""
    if game == "dodgeball":
        into.append("courtside.arbiter")
        into.append("courtside.dodgeball")
        return
    from courtside import deathball
    for name in deathball.MODULES.split():
        into.append("courtside.deathball." + name)


def _load(name):
    import sys
    if name in sys.modules:
        return              # loaded by an earlier game
    import gc
    gc.collect()            # so the module's code packs into the heap, not around garbage
    __import__(name)
