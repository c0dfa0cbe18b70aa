"""The interactive simulator's screen, read back through a terminal emulator (pyte) at 80x24.

The keyboard loop itself needs a terminal; here the Terminal is driven the way its key
handler drives it (keys handed to ``keys``, while the firmware runs on the simulated
board) and every screen it draws is fed to a pyte screen of 80 columns by 24 rows, whose
cells (characters and colours) are what the test reads.
"""

import argparse
import asyncio
import json
import re

import pyte
import pytest
from conftest import ROOT
from courtside import display
from courtside.deathball import view
from courtside.fair import seeded
from courtside_host.views import render, terminal

OFF = "%02x%02x%02x" % tuple(render.FACE["off"])     # an unlit LED's dots

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def make_terminal(mode="dodgeball", names=None):
    args = argparse.Namespace(pins=str(ROOT / "hardware" / "pinmap.json"), set=[], mode=mode, busy_ms=0)
    # seeded dice, so that a test's game goes the same way each time it runs
    return terminal.Terminal(args, names, seeded(2))


def screen_of(term):
    screen = pyte.Screen(terminal.WIDTH, terminal.HEIGHT)
    pyte.Stream(screen).feed(term.render())
    return screen


def text_of(screen):
    return [line.rstrip() for line in screen.display]


def play(term, steps):
    """Run the firmware while ``steps`` go in: keys, ("line", text), seconds to wait,
    ("until", text) to wait for a line holding text, or a function to call at that point."""
    async def run():
        task = asyncio.create_task(term.firmware())
        await asyncio.sleep(0.02)
        for step in steps:
            if callable(step):
                step()
            elif isinstance(step, float):
                await asyncio.sleep(step)
            elif isinstance(step, tuple) and step[0] == "until":     # an event, within 15 s
                for _ in range(300):
                    if any(step[1] in line for line in term.log):
                        break
                    await asyncio.sleep(0.05)
            elif isinstance(step, tuple):
                term.sim.feed_line(step[1])
                await asyncio.sleep(0.05)
            else:
                term.keys(step.encode())
                await asyncio.sleep(0.12)
        task.cancel()
    asyncio.run(run())


def test_every_screen_fits_80x24_and_says_what_to_do():
    term = make_terminal(names={1: "Ann"})
    screens = []
    shot = lambda: screens.append(screen_of(term))  # noqa: E731
    play(term, [shot, "1", "q", shot, " ", "1", shot])
    for screen in screens:
        lines = text_of(screen)
        assert lines[0].startswith("Courtside simulator")        # nothing scrolled off the top
        assert lines[21].startswith("▶ ")                          # the status line, in its place
    raw = term.render()
    assert raw.count("\r\n") == terminal.HEIGHT - 1
    assert all(len(ANSI.sub("", line)) < terminal.WIDTH for line in raw.split("\r\n"))
    first, joined, playing = (text_of(s) for s in screens)
    assert "Press a button on your box to join; Space starts" in first[21]
    assert "Joined: Ann, P2" in joined[21]
    assert "Play: press the button" in playing[21]
    assert any("Ann (red) plays THROW (contest 1, first)." in line for line in playing)
    assert "CONTEST 1  open" in playing[1] and "Ann (red)" in playing[2] and "THROW  first" in playing[2]
    assert any(line.startswith("box 1 ") and "Ann (red)" in line and "keys 1 2 3 4" in line
               for line in playing)


def test_the_verdict_banner_names_ranks_ties_and_early():
    term = make_terminal()
    play(term, ["1", "q", " ", "w", 1.7])        # box 2 answers with no throw open
    lines = text_of(screen_of(term))
    side = "\n".join(line[20:] for line in lines[1:10])
    assert "CONTEST 1" in side and "tie window 1.000 ms" in side
    assert "FIRST" in side and "Player 2 (yellow)" in side and "EARLY" in side
    assert "EARLY P2 DODGE: no throw was open" in side
    assert any("Contest 1: first Player 2 (yellow) DODGE (EARLY: no throw was open)." in line
               for line in lines)
    screen = screen_of(term)           # on the matrix: box 2's band, thin (the early mark)
    top = colours(screen, [matrix_cell(x, 0) for x in range(8)])
    under = colours(screen, [matrix_cell(x, 1) for x in range(8)])
    assert len(set(top)) == 1 and top[0] not in (OFF, "default")
    assert top[0].startswith("ff") and top[0].endswith("00")          # yellow: red and green, no blue
    assert set(under) == {OFF}


def colours(screen, cells):
    """The foreground colour of each (column, row) cell."""
    return [screen.buffer[y][x].fg for x, y in cells]


def matrix_cell(x, y):
    return 2 + 2 * x, 1 + y


def test_every_deathball_cue_has_its_own_colour():
    # A board with every cue at once: two figures, the mover's pending square, both balls
    # and the pixel ahead of each, the red border; then the same board with the mover dimmed
    # (the blink), and the green border; all scaled by the brightness setting, as the core does.
    frame = bytearray(192)
    where = {0: 2 * 8 + 3, 1: 4 * 8 + 5}                 # player 1 on d3, player 2 on f5
    balls = [6 * 8 + 1, 1 * 8 + 6]                        # b7 and g2
    view.board(frame, _shown(where, balls, [(1, 0), (0, 1)], 1), turn=0, blink=True, pending=3 * 8 + 3)
    dimmed = bytearray(192)
    view.board(dimmed, _shown(where, balls, [(1, 0), (0, 1)], 2), turn=0, blink=False)
    term = make_terminal("referee")
    term.follow.mode = "referee"
    found = {}
    for name, f, (col, row) in (
            ("figure 1", frame, (3, 2)), ("figure 2", frame, (5, 4)), ("pending", frame, (3, 3)),
            ("ball 1", frame, (1, 6)), ("ball 2", frame, (6, 1)), ("ahead 1", frame, (2, 6)),
            ("ahead 2", frame, (6, 2)), ("red border", frame, (0, 0)), ("figure 1 blinking", dimmed, (3, 2)),
            ("green border", dimmed, (1, 1)), ("inside", frame, (4, 6))):
        term.frame(display.scale(bytearray(f), 96))
        screen = screen_of(term)
        x, y = matrix_cell(col, 7 - row)
        found[name] = screen.buffer[y][x].fg
    assert len(set(found.values())) == len(found), found
    assert found["inside"] == OFF                        # an empty square is the dark dot
    # each cue, as the escape codes colour it, at least 3:1 against an unlit LED's dots
    rgb = {name: tuple(int(hex_[i:i + 2], 16) for i in (0, 2, 4)) for name, hex_ in found.items()}
    low = min((render.contrast(c, rgb["inside"]), name) for name, c in rgb.items() if name != "inside")
    assert low[0] >= 3.0, low


def test_the_die_wall_ball_and_arrow_are_told_apart():
    frame = bytearray(192)
    view.wall_arrow(frame, 3)                                # straight in: up from the ball
    term = make_terminal("die")
    term.frame(display.scale(frame, 96))
    screen = screen_of(term)
    wall, ball, shaft, head = colours(screen, [matrix_cell(0, 7), matrix_cell(3, 6), matrix_cell(3, 5),
                                               matrix_cell(3, 2)])
    assert len({wall, ball, shaft, head}) == 4


def test_arrow_keys_move_the_box_whose_turn_it_is():
    term = make_terminal("referee")
    # on row 1 no deathball can reach a figure in one turn (at most six steps from row 8),
    # whatever the dice: how many draws the initiative roll's tumbling takes depends on time
    running = []
    steps = ["1", "q", " ", ("line", "position 1@c1 2@f1 *b8n *g8n r0 t2"), "\x1b[C", "\x1b[C",
             lambda: running.append(text_of(screen_of(term))), " "]     # ROLL skips the run
    play(term, steps)
    moves = [line for line in term.log if '"ev":"move"' in line]
    assert moves and '"p":2' in moves[0] and '"end":"h1"' in moves[0]
    # the round's last move: the deathballs run, and the status says so until the board
    # takes presses again (not "Player 1 to move" while player 1's presses are refused)
    assert running[0][21].startswith("▶ wait: the balls are moving.")
    assert not any("◀" in line for line in running[0])
    assert any("wait: the balls are moving" in line for line in running[0][1:10])
    assert '"ev":"ready"' in term.log[-1] or any('"ev":"ready"' in line for line in term.log[-3:])
    lines = text_of(screen_of(term))
    assert lines[0].startswith("Courtside simulator · Deathball (refereed) · game")
    assert "Player 1 (red) to move" in lines[21]
    assert any("◀ to move" in line for line in lines[1:10])


def test_the_winner_screen():
    term = make_terminal("referee", {3: "Cy"})
    running = []
    play(term, ["1", "q", "a", " ", ("line", "position 1@b3 2@g3 3@d4 *b8s *g8s t1"),
                "1", "1", "q", "q", "a", "a", lambda: running.append(text_of(screen_of(term))),
                " "])                       # ROLL: the run shown to its end at once
    # not ahead of the board: while the matrix runs the deathballs, no winner yet
    assert not any("W I N N E R" in line for line in running[0])
    assert running[0][21].startswith("▶ wait: the balls are moving.")
    lines = text_of(screen_of(term))
    assert any("W I N N E R" in line for line in lines) and any("Cy (cyan)" in line for line in lines)
    assert "Game over: Cy (cyan) wins the game!" in lines[21]
    assert lines[21].startswith("▶ wait: ROLL for a new game.")


def test_the_winner_screen_clears_when_a_new_game_starts():
    term = make_terminal("referee", {3: "Cy"})
    won = []
    play(term, ["1", "q", "a", " ", ("line", "position 1@b3 2@g3 3@d4 *b8s *g8s t1"),
                "1", "1", "q", "q", "a", "a", " ", lambda: won.append(text_of(screen_of(term))), " "])
    assert any("W I N N E R" in line for line in won[0])
    assert any('"ev":"referee"' in line for line in term.log[-8:])     # ROLL: a new game
    lines = text_of(screen_of(term))
    assert not any("W I N N E R" in line or "Game over" in line for line in lines), lines
    assert lines[21].startswith("▶ wait: ROLL for initiative.")


@pytest.mark.slow          # the matrix shows the initiative rolls for seconds
def test_the_status_says_whose_set_up_turn_it_is():
    term = make_terminal("referee", {2: "Bo"})
    rolled = []
    play(term, ["1", "q", " ", " ", lambda: rolled.append(text_of(screen_of(term))),
                ("until", '"ev":"ready"'), 0.05])
    assert rolled[0][21].startswith("▶ wait: the rolls are shown.")       # presses held back
    order = next(line for line in term.log if '"ev":"order"' in line)
    first = int(order.split('"order":[')[1][0])
    lines = text_of(screen_of(term))
    who = term.names.label(first)
    assert lines[21].startswith("▶ wait: %s to set up." % who), lines[21]
    assert "initiative" not in lines[21]
    assert any(("%s not placed yet  ◀ to set up" % who) in line for line in lines[1:10]), lines[1:10]


def test_a_long_answer_wraps_in_the_log():
    term = make_terminal()
    play(term, [("line", "help")])
    lines = text_of(screen_of(term))
    log = "\n".join(lines[14:21])
    assert "Commands: ping, help, mode dodgeball|referee|die, new" in log
    assert "…" not in log and "[" not in log
    assert all(len(line) < terminal.WIDTH for line in lines)


def test_players_are_named_on_the_screen_alone():
    term = make_terminal()
    for ch in "/name 2 Bo\r":
        term.keys(ch.encode())
    assert term.names.label(2) == "Bo (yellow)" and term.log == []     # nothing went to the firmware
    lines = text_of(screen_of(term))
    assert any(line.startswith("box 2 ") and "Bo (yellow)" in line for line in lines)
    for ch in "/name 9 X\r":
        term.keys(ch.encode())
    assert "N=NAME" in text_of(screen_of(term))[22]


def test_the_help_overlay_fits():
    term = make_terminal()
    term.keys(b"?")
    lines = text_of(screen_of(term))
    assert any("arrow keys" in line for line in lines) and any("Press ? again" in line for line in lines)
    assert not any("…" in line for line in lines)                  # nothing of the help is cut
    assert lines[21].startswith("▶ ")
    term.keys(b"?")
    assert not any("Press ? again" in line for line in text_of(screen_of(term)))


@pytest.mark.slow     # the real command on a pty, read for seconds
def test_the_real_command_on_a_pseudo_terminal():
    """`courtside sim` itself, on a pty of 80x24: its screen read through pyte, keys typed
    in, keys it does not know let go, Esc to ask and Esc again to leave with exit status 0
    and the terminal given back."""
    import fcntl
    import os
    import select
    import struct
    import subprocess
    import sys
    import termios
    import time

    main, child = os.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", terminal.HEIGHT, terminal.WIDTH, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "courtside_host.cli", "sim"], stdin=child, stdout=child,
                            stderr=child, close_fds=True)
    os.close(child)
    screen = pyte.Screen(terminal.WIDTH, terminal.HEIGHT)
    stream = pyte.ByteStream(screen)

    def read_for(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([main], [], [], 0.05)
            if ready:
                try:
                    stream.feed(os.read(main, 65536))
                except OSError:
                    return

    try:
        read_for(2.0)
        assert screen.display[0].startswith("Courtside simulator · Dodge Ball")
        for key in (b"1", b"q"):
            os.write(main, key)
            read_for(0.4)
        assert "Joined: P1, P2" in screen.display[21]
        for key in (b"\x1b[H", b"\x1bOP", b"\x1b[A\x1b[B"):        # Home, F1, two arrows at once
            os.write(main, key)
            read_for(0.3)
            assert proc.poll() is None and "Quit the simulator?" not in screen.display[23]
        os.write(main, b"\x1b")
        read_for(0.4)
        assert proc.poll() is None and "Quit the simulator?" in screen.display[23]
        os.write(main, b"x")                         # any other key: play on
        read_for(0.4)
        assert proc.poll() is None and "Quit the simulator?" not in screen.display[23]
        os.write(main, b"\x1b")
        read_for(0.3)
        os.write(main, b"\x1b")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)


def _shown(where, balls, headings, border):
    """A board as the referee holds it (courtside.deathball.track.Shown), set directly."""
    from courtside.deathball.track import Shown
    shown = Shown()
    shown.where, shown.balls, shown.headings, shown.border = dict(where), list(balls), list(headings), border
    return shown


def test_a_terminal_smaller_than_80x24_is_told_so():
    shown = terminal.too_small(60, 20)
    assert "at least 80x24; this one is 60x20" in shown and "Make the window larger" in shown


def test_dead_figures_and_figures_not_placed_read_apart():
    term = make_terminal()
    board = _shown({0: 9}, [], [], 0)
    board.dead = [1]                                  # box 2's figure walked into a ball
    term.follow.chessboard = board
    term.follow.players = [1, 2, 3]
    legend = " | ".join(term._legend())
    assert "on b2" in legend and "out of the game" in legend and "not placed yet" in legend


def _worked_game_lines():
    import sys

    from conftest import simulate
    return simulate(sys.executable, ROOT / "tests" / "scripts" / "deathball_game.jsonl").stdout.splitlines()


def test_the_log_and_the_legend_tell_the_run_as_the_matrix_shows_it(monkeypatch):
    """The worked game's lines, each arriving at its own time on the simulator's clock:
    once the round's last move is in, the log tells no ball step, the legend shows the board
    before the run and the status says the balls are moving; the steps come as the matrix
    shows them, and the next turn after the run."""
    term = make_terminal("referee")
    clock = [0]
    monkeypatch.setattr(terminal, "_now_us", lambda: clock[0])
    lines = _worked_game_lines()
    first_run = next(i for i, line in enumerate(lines) if '"ev":"ball"' in line)
    ready = next(i for i in range(first_run, len(lines)) if '"ev":"ready"' in lines[i])
    for line in lines[:ready]:                       # the whole run is in: the board sent it
        clock[0] = max(clock[0], json.loads(line)["t"])
        term.event(line)
    sent = clock[0]
    assert not [s for s in term.story if "steps to" in s or "Round 2" in s]
    assert render.status(term.follow).startswith("wait: the balls are moving.")
    legend = text_of(screen_of(term))
    steps = []
    while clock[0] < json.loads(lines[ready])["t"]:
        clock[0] += 20_000
        term.shown()
        steps.append(len([s for s in term.story if "steps to" in s]))
    assert steps[0] == 0 and steps[-1] > 4 and len(set(steps)) > 4     # one step after another
    term.event(lines[ready])
    assert clock[0] - sent > 3_000_000                                  # seconds of the matrix's run
    assert render.status(term.follow).endswith("Two arrows (the arrow keys work for this box).")
    assert legend != text_of(screen_of(term))                           # the board moved on since


def test_a_wide_terminal_gives_the_status_and_the_log_their_room():
    term = make_terminal("referee", names={3: "Annabelle Longname-Smith"})
    for line in _worked_game_lines():
        term.event(line)
    term.shown(1 << 40)
    status = render.status(term.follow, term.names)
    assert len(status) > terminal.WIDTH - 3
    narrow = text_of(screen_of(term))
    assert narrow[21].endswith("…") and status[:40] in narrow[21]
    screen = pyte.Screen(120, 40)
    pyte.Stream(screen).feed(term.render(120, 40))
    wide = text_of(screen)
    assert wide[37] == "▶ " + status                                   # whole, on the 120 columns
    log = wide[15:37]
    assert sum(1 for line in log if line.strip()) > 20                  # 16 lines more of the log


def test_page_up_scrolls_the_log_back_through_the_game():
    term = make_terminal("referee")
    for line in _worked_game_lines():
        term.event(line)
    term.shown(1 << 40)
    told = next(s for s in term.story if "bounces" in s)          # the first run
    assert not any(told[:30] in line for line in text_of(screen_of(term)))     # long gone by
    for _ in range(40):
        term.keys(b"\x1b[5~")                                           # PgUp
        if any(told[:30] in line for line in text_of(screen_of(term))):
            break
    lines = text_of(screen_of(term))
    assert any(told[:30] in line for line in lines) and any("PgDn" in line for line in lines)
    for _ in range(40):
        term.keys(b"\x1b[6~")                                           # PgDn, back to now
    assert term.back == 0 and not any("PgDn" in line for line in text_of(screen_of(term))[11:21])


def test_the_game_is_kept_in_a_log_for_replay(tmp_path):
    from courtside_host.records import eventlog, replay
    args = argparse.Namespace(pins=str(ROOT / "hardware" / "pinmap.json"), set=[], mode="referee",
                              busy_ms=0)
    term = terminal.Terminal(args, None, seeded(2), eventlog.Writer(tmp_path / "game.jsonl", "simulator"))
    for line in _worked_game_lines():
        term.event(line)
    term.saver.close()
    events = list(eventlog.iterate(tmp_path / "game.jsonl"))[1:]
    assert len(events) == len(_worked_game_lines()) and replay.rejudge(events).identical
