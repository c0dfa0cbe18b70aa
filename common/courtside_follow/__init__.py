"""Following a board from its event stream: the laptop's side of the line, in MicroPython.

The board says everything in its stream (docs/events.md); this package reads it back, so
every face (the terminal, the page, the monitor, replay) stands on one reading of it:

- ``schema``: one line read and checked against the stream's one schema, the kinds and
  fields of ``courtside.events.FIELDS`` with the type of every field;
- ``follower``: a ``Follower`` fed the events one by one, that knows the mode, the
  phase, the players, whose turn it is (set-up included), what the board is waiting
  for, the open contest, the last verdict, the winner, the settings in force, and the
  Deathball chessboard (``chessboard``, a ``courtside.deathball.track.Shown``);
- ``pace``: the matrix's schedule read from the stream: each record held back until the
  matrix shows it (a run step by step, the die's face after its tumble), then fed to the
  follower, so no face tells what the matrix has not shown yet;
- ``face``: what every face says and draws from a follower, in the game's words: each
  event's sentence, names and colours, a verdict's banner, the status line (``wait: P2 to
  set up``, ``wait: the balls are moving``), the board's squares, the matrix's cells.

It runs on CPython, on the MicroPython unix port and in the page's WebAssembly, and never
goes to a board (it is not in ``firmware/manifest.py``).

    from courtside_follow.schema import read
    from courtside_follow.follower import Follower
    f = Follower()
    for text in lines:
        got = read(text)               # None: not an event line
        if got is not None and got[1] is None:
            f.feed(got[0])
    f.waiting, f.turn, f.chessboard.position()
"""
