"""The Deathball modes as players meet them: the die alone and the referee.

Everything is the firmware's own: the core, its debouncer, the modes, the engine, the die
and the drawing, driven through the core's one entry point by ``tests/corerig.py``. The
clock is moved by exactly what the core asks for, so nothing here waits in real time.
"""

import subprocess

import pytest
from conftest import ROOT
from corerig import Rig
from courtside import clock
from courtside.deathball import engine, view
from courtside.deathball.notation import square_of
from courtside.fair import Fair, seeded

UP, DOWN, LEFT, RIGHT = range(4)


def pixel(frame, x, y):
    i = (y * 8 + x) * 3
    return tuple(frame[i:i + 3])


# -- the die alone -----------------------------------------------------------------------

def test_die_rolls_tumbles_then_face_then_wall_arrow():
    app = Rig("die")
    assert app.cmd("dice 4") is None
    app.clear()
    app.main()
    assert app.events[-1] == ("roll", {"purpose": "die", "face": 4, "forced": True})
    faces = app.stage.roll.faces
    assert all(a != b for a, b in zip(faces, faces[1:]))  # never the same face twice running
    spent = app.settle()
    frames = app.frames
    want_face = bytearray(192)
    view.face(want_face, 4, (160, 160, 160))
    want_arrow = bytearray(192)
    view.wall_arrow(want_arrow, 4)
    assert frames[-2] == app.shown(want_face) and frames[-1] == app.shown(want_arrow)
    assert len(frames) >= 8 and 2000 < spent < 5000
    assert app.tones.count("tick") == len(frames) - 2


def test_die_corner_template_on_request():
    app = Rig("die")
    app.cmd("die corner")
    app.cmd("dice 5")
    app.main()
    app.settle()
    want = bytearray(192)
    view.corner_arrow(want, 5)
    assert app.frames[-1] == app.shown(want)


def test_die_is_not_rolled_again_while_tumbling_and_boxes_do_not_block():
    app = Rig("die")
    app.main()
    app.press(2, UP)  # a box press mid-roll returns at once and changes nothing
    app.main()
    assert app.kinds().count("roll") == 1


def test_die_forced_faces_in_order_then_fair():
    app = Rig("die")
    app.cmd("dice 3 5 1")
    faces = []
    for _ in range(4):
        app.main()
        app.settle()
        faces.append(app.events[-1][1]["face"])
        assert app.events[-1][1]["forced"] == (len(faces) <= 3)
    assert faces[:3] == [3, 5, 1]


def test_die_command_errors_change_nothing():
    app = Rig("die")
    assert app.cmd("dice 7") and app.cmd("dice") and app.cmd("dice x")
    assert app.cmd("die sideways") and app.cmd("fly")
    assert app.stage.dice.queue == [] and not app.stage.corner and app.events == []


# -- the referee --------------------------------------------------------------------------

def new_referee(players=(0, 1, 2, 3), seed=1, dice=(), settings=None):
    app = Rig("referee", players, seed, settings)
    if dice:
        assert app.cmd("dice " + " ".join(str(d) for d in dice)) is None
    return app, app.stage


def test_referee_initiative_on_roll_then_setup_with_the_cursor():
    app, ref = new_referee(dice=(2, 6, 3, 1))
    assert not any(app.leds.values())
    app.main()
    assert ("order", {"order": [2, 3, 4, 1]}) in app.events
    app.settle()  # the initiative bars
    g = ref.game
    assert g.phase == engine.SETUP and g.turn == 1
    assert app.leds == {0: False, 1: True, 2: False, 3: False}
    app.press(1, RIGHT)
    app.press(1, RIGHT)
    app.press(1, UP)     # c1 d1 [e1]: placed on e1
    assert g.where[1] == square_of("e1")
    app.press(0, UP)     # not player 1's turn yet: refused
    assert app.tones[-1] == "refuse" and 0 not in g.where
    app.press(2, LEFT)   # wraps to the last free square, f1
    app.press(2, DOWN)
    assert g.where[2] == square_of("f1")
    app.press(3, UP)
    app.press(0, UP)
    assert g.phase == engine.PLAY and g.turn == 1
    assert app.leds == {0: False, 1: True, 2: False, 3: False}
    assert pixel(app.frames[-1], 4, 7) in (view.PLAYER_COLOURS[1], view.dim(view.PLAYER_COLOURS[1]))


def test_ties_for_initiative_roll_again():
    app, ref = new_referee(dice=(5, 5, 1, 2, 4, 6))
    app.main()
    assert ("initiative", {"tied": [1, 2], "face": 5}) in app.events
    assert ref.game.order == [1, 2, 3, 0]


def playing(position, players=(0, 1, 2, 3), dice=()):
    app, ref = new_referee(players, dice=dice)
    assert app.cmd("position " + position) is None
    app.settle()
    return app, app.stage


def test_two_arrows_move_and_the_opposite_arrow_undoes():
    app, ref = playing("1@d4 2@a1 3@h1 4@h8 *b8n *g8n r0 t1")
    app.press(0, UP)
    assert ref.pending == UP and app.tones[-1] == "tick"
    assert pixel(app.frames[-1], 3, 3) == view.dim(view.PLAYER_COLOURS[0], 2)  # d5 shown dim
    app.press(0, DOWN)
    assert ref.pending is None and app.events[-1] == ("undo", {"p": 1, "arrows": ["up"]})
    assert ref.game.where[0] == square_of("d4")
    app.press(0, RIGHT)
    app.press(0, UP)
    assert ref.game.where[0] == square_of("e5") and ref.game.turn == 1
    assert app.leds[1] and not app.leds[0]


def test_an_illegal_first_arrow_is_refused_at_once():
    app, ref = playing("1@d6 2@d7 3@d8 4@h1 *b8n *g8n r0 t1")
    before = ref.game.position()
    app.press(0, UP)       # would push player 3 off the far edge
    assert app.tones[-1] == "refuse" and ref.pending is None
    assert app.events[-1] == ("refuse", {"p": 1, "reason": "no legal move starts that way",
                                         "arrows": ["up"]})
    assert ref.game.position() == before
    app.press(0, LEFT)     # c6 is free: accepted
    app.press(0, UP)
    assert ref.game.where[0] == square_of("c7")


def test_an_illegal_second_arrow_is_refused_and_changes_nothing():
    app, ref = playing("1@a2 2@a1 3@h1 4@h8 *b8n *g8n r0 t1")
    app.press(0, UP)
    before = ref.game.position()
    count = len(app.events)
    app.press(0, LEFT)     # a3, then off the board to the left
    assert app.tones[-1] == "refuse" and ref.game.position() == before
    assert app.events[count:] == [("refuse", {"p": 1, "reason": "off the board",
                                              "arrows": ["up", "left"]})]
    assert ref.pending == UP        # the first arrow stands; another second arrow may follow
    app.press(0, RIGHT)
    assert ref.game.where[0] == square_of("b3")


def test_presses_out_of_turn_are_refused():
    app, ref = playing("1@d4 2@a1 3@h1 4@h8 *b8n *g8n r0 t1")
    app.press(2, UP)
    assert app.events[-1] == ("refuse", {"p": 3, "reason": "not your turn", "arrows": None})
    assert ref.game.where[2] == square_of("h1")


def round_of_moves(app, moves):
    for box, a, b in moves:
        app.press(box, a)
        app.press(box, b)


def test_the_deathballs_run_is_shown_step_by_step_with_each_bounce():
    app, ref = playing("1@d1 2@e1 *b8n *g8n r0 t1", players=(0, 1), dice=(3, 5))
    shown = len(app.frames)
    round_of_moves(app, [(0, UP, UP), (1, UP, UP)])
    assert ref.queue and not any(app.leds.values())   # the run is being shown
    app.press(0, UP)
    assert app.events[-1][1]["reason"] == "wait for the deathballs"
    spent = app.settle()
    frames = app.frames[shown:]
    face3 = bytearray(192)
    view.face(face3, 3, view.BALL_COLOURS[0])
    face5 = bytearray(192)
    view.face(face5, 5, view.BALL_COLOURS[1])
    assert app.shown(face3) in frames and app.shown(face5) in frames
    assert frames.index(app.shown(face3)) < frames.index(app.shown(face5))
    assert spent > 6 * 200  # six steps, each held on the matrix
    assert app.leds[0] and ref.game.turn == 0
    last = app.frames[-1]
    assert pixel(last, 1, 6) == view.BALL_COLOURS[0]   # ball 1: b8 -> 3 straight in -> b2
    assert pixel(last, 1, 1) != view.BALL_COLOURS[0]


def test_roll_during_the_run_shows_the_end_at_once():
    app, ref = playing("1@d1 2@e1 *b8n *g8n r0 t1", players=(0, 1), dice=(3, 3))
    round_of_moves(app, [(0, UP, UP), (1, UP, UP)])
    app.main()
    ref = app.stage
    assert not ref.queue and ref.roll is None and app.settle() == 0
    assert ref.shown.balls == ref.game.balls and app.leds[0]


def test_the_winner_is_shown_and_roll_starts_a_new_game():
    app, ref = playing("1@b5 2@b6 *b7n *g8n r0 t1", players=(0, 1))
    round_of_moves(app, [(0, UP, UP)])
    app.settle()
    assert ref.game.phase == engine.OVER and ref.game.winner == 0
    assert "win" in app.tones and "death" in app.tones
    assert (app.leds[0], app.leds[1]) == (True, False)
    app.main()
    assert ref.game.phase == engine.INITIATIVE and app.events[-1][0] == "referee"


def test_commands_position_move_state_and_errors():
    app, ref = playing("1@d4 2@a1 3@h1 4@h8 *b8n *g8n r0 t1")
    before = ref.game.position()
    count = len(app.events)
    for bad in ("position 1@d4 2@d4 *b8n *g8n", "position 1@z9", "move 2 up up", "move 1 up down",
                "move 1 up sideways", "setup 1 c1", "setup x c1", "move -1 up up", "dice 0",
                "teleport"):
        assert isinstance(app.cmd(bad), str), bad
    assert ref.game.position() == before and len(app.events) == count
    assert app.cmd("move 1 right up") is None
    assert ref.game.where[0] == square_of("e5")
    assert app.cmd("state") is None
    assert app.events[-1] == ("position", {"text": "1@e5 2@a1 3@h1 4@h8 *b8n *g8n r0 t2",
                                           "phase": "play"})


def script(seed, settings=None):
    """A whole four-player game, each input once the board has shown the last: its events."""
    app, _ = new_referee(seed=seed, settings=settings)
    play_to_the_end(app)
    return app.events


def play_to_the_end(app, after_move=None):
    """ROLL, set-up and moves on ``app`` (a rig in the referee) to the game's end, each
    input once the board has shown the last; ``after_move(app)`` after each move."""
    g = app.stage.game
    app.main()
    app.settle()
    while g.phase == engine.SETUP:
        app.press(g.turn, UP)
    pick = 0
    while g.phase == engine.PLAY and pick < 400:
        legal = g.legal_moves(g.turn)
        a, b = legal[pick % len(legal)]
        round_of_moves(app, [(g.turn, a, b)])
        if after_move is not None:
            after_move(app)
        app.settle()
        pick += 7


def test_the_same_script_and_seed_give_the_same_stream():
    first = script(5)
    assert first == script(5)
    assert first != script(6)
    assert ("winner" in [k for k, _ in first])


def test_presses_while_the_initiative_bars_show_are_refused():
    app, ref = new_referee(dice=(2, 6, 3, 1))
    app.press(0, UP)
    assert app.events[-1][1]["reason"] == "no move now"
    app.main()
    app.press(1, UP)   # Player One, but the bars are still up
    assert app.events[-1][1]["reason"] == "wait for the rolls" and 1 not in ref.game.where
    app.settle()
    app.press(1, UP)
    assert ref.game.where[1] == square_of("c1")


@pytest.mark.slow
def test_any_button_mashing_keeps_the_referee_sound():
    # Random presses from every box, ROLL presses and time passing, for many games: the
    # referee never fails, a refused press never changes the game, and the board shown
    # after the matrix settles is the engine's board.
    phases = []
    for seed in range(40):
        app, ref = new_referee(players=(0, 1, 2, 3)[: 2 + seed % 3], seed=seed)
        mash = Fair(seeded(seed + 1000))
        for _ in range(600):
            what = mash.below(20)
            before = ref.game.position()
            count = len(app.events)
            if what == 0:
                app.main()
                ref = app.stage   # ROLL after the end starts a new game
            elif what < 4:
                app.settle() if what == 1 else app.advance(mash.below(400))
            else:
                app.press(mash.below(4), mash.below(4))
                if app.events[count:] and app.events[-1][0] == "refuse":
                    assert ref.game.position() == before
            if ref.game.phase == engine.OVER:
                break
        app.settle()
        g = ref.game
        phases.append(g.phase)
        if g.phase in (engine.PLAY, engine.OVER):
            assert ref.shown.where == g.where and ref.shown.balls == g.balls
            assert ref.shown.border == g.border
    assert phases.count(engine.OVER) >= 20  # most mashed games get to the end


def test_the_deathballs_run_is_computed_one_step_a_pass():
    """The arrow that ends a round does not compute the whole run in its pass: each pass
    of the loop takes one step of both balls (two ``ball`` events at most), the next pass
    comes at once, and every event of the run carries the time the round ended."""
    app, ref = playing("1@d1 2@e1 *b8n *g8n r0 t1", players=(0, 1), dice=(3, 5))
    round_of_moves(app, [(0, UP, UP)])
    app.press(1, UP)
    app.clear()
    ended = app.now
    app.edge(4 * 1 + UP, True)                 # the second arrow of the last move
    steps = [app.kinds().count("ball")]
    waits = []
    while ref.game.running:
        count = len(app.events)
        app.now = clock.add(app.now, 1000)     # each pass takes a millisecond
        waits.append(app.step())
        steps.append([k for k, _ in app.events[count:]].count("ball"))
    assert max(steps) == 2 and sum(steps) == 12 and len([s for s in steps if s]) == 6
    assert set(waits[:-1]) == {0}              # no sleeping while the run is being computed
    run = [t for k, t in app.times if k in ("move", "bounce", "ball", "turn")]
    assert len(run) == 2 + 2 + 12 and len(set(run)) == 1 and ref.game.turn == 0
    assert clock.diff(app.now, ended) == 1000 * (len(steps) - 1)


DIE_ENTRY = r"""
import sys
from courtside import driver
from courtside.run import load_pins
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside_sim.board import SimBoard
pins = load_pins(sys.argv[1])
board = SimBoard(pins, out=lambda text: None)
core = Core(pins, None, Fair(seeded(1)), now=board.ticks_us(), levels=board.levels(), mode="die")
shown = []
board.show = shown.append
for n in range(3):
    wait = driver.one_pass(core, board, [])
    print(n, wait, " ".join(sorted(k[20:] for k in sys.modules if k.startswith("courtside.deathball."))),
          "frame" if shown else "dark")
"""


def test_entering_the_die_mode_loads_it_over_two_passes(micropython, tmp_path, firmware_env):
    """The die mode has no lobby to load its modules in: the pass that enters it loads
    only its own module and the die's (not the referee's) and shows nothing yet; the next
    one loads the drawing and shows the die waiting; on the unix port, from source."""
    probe = tmp_path / "die_entry.py"
    probe.write_text(DIE_ENTRY)
    run = subprocess.run([micropython, str(probe), str(ROOT / "hardware" / "pinmap.json")],
                         capture_output=True, text=True, timeout=120, check=False, env=firmware_env)
    assert run.returncode == 0, run.stdout + run.stderr
    passes = [line.split(" ", 2) for line in run.stdout.splitlines()]
    assert passes[0] == ["0", "0", "die diemode dark"]
    assert passes[1] == ["1", "1000", "die diemode view frame"]
    assert "engine" not in run.stdout and "modes" not in run.stdout.replace("diemode", "")


def test_a_press_while_a_death_is_shown_waits_for_the_move_and_the_hold_says_why():
    """The board says when it holds presses and why (``hold``, stream 5); a press refused
    meanwhile is told what it waits for in the same words: a death shown is not "the
    rolls", and a run is "the deathballs" to its end."""
    app, ref = playing("1@b6 2@e1 3@h1 *b8n *g8n r0 t1", players=(0, 1, 2), dice=(3, 5, 3, 5))
    app.clear()
    round_of_moves(app, [(0, UP, UP)])          # Player 1 walks into ball 1 on b8
    assert ("death", {"p": 1, "square": "b8", "cause": "entered"}) in app.events
    assert ("hold", {"why": "move"}) in app.events and ref.queue     # the turn, after it
    app.press(1, UP)                            # Player 2, while the death is shown
    assert app.events[-1] == ("refuse", {"p": 2, "reason": "wait for the move to be shown",
                                         "arrows": None})
    app.settle()
    assert app.kinds()[-1] == "ready"
    app.clear()
    round_of_moves(app, [(1, UP, UP), (2, UP, UP)])     # the round ends: the deathballs run
    assert app.kinds().count("hold") == 1 and ("hold", {"why": "run"}) in app.events
    app.press(1, UP)
    assert app.events[-1][1]["reason"] == "wait for the deathballs"
    app.settle()
    held = [k for k in app.kinds() if k in ("hold", "ready")]
    assert held == ["hold", "ready"]                    # once held, once taken again
