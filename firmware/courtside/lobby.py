"""The lobby: players join by pressing any button on their box; the main button starts.

Two to four boxes may join. A box that has joined shows its colour on the matrix and
lights its LED. Starting with fewer than two players is refused with a sound.
"""

from courtside import display

MIN_PLAYERS = 2


class Lobby:
    name = "lobby"

    def __init__(self, app, game):
        self.app = app
        self.game = game   # the mode that starts when the lobby is done

    def start(self):
        self.app.players = []
        self.app.emit("lobby", game=self.game)
        self.app.show(display.lobby(self.app.players))

    def press(self, player, button, stamp):
        app = self.app
        if player in app.players:
            return
        app.players.append(player)
        app.players.sort()
        app.emit("join", p=player + 1)
        app.led(player, True)
        app.tone("join")
        app.show(display.lobby(app.players))

    def main(self, stamp):
        app = self.app
        if len(app.players) < MIN_PLAYERS:
            app.emit("refused", why="need at least %d players" % MIN_PLAYERS,
                     players=[p + 1 for p in app.players])
            app.tone("refuse")
            return
        app.begin()

    def poll(self, now):
        return None

    def command(self, words):
        if words == ["start"]:
            if len(self.app.players) < MIN_PLAYERS:
                return "need at least %d players to start" % MIN_PLAYERS
            self.app.begin()
            return None
        if len(words) == 2 and words[0] == "join":
            try:
                box = int(words[1]) - 1
            except ValueError:
                box = -1
            if not 0 <= box < self.app.boxes:
                return "join needs a box number from 1 to %d" % self.app.boxes
            self.press(box, 0, self.app.ticks())
            return None
        return "unknown command in the lobby: %s" % " ".join(words)
