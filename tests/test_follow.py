"""The follower (``courtside_follow``): the stream read back, checked against the core.

Random games of both games run through the firmware's own core (``corerig``: a real
ring, debouncer and stage), and after every pass the lines it wrote, read and checked by
the schema, go to a ``Follower``, which must then say what the core itself holds: the
mode, the phase, the players, whose turn it is (set-up included), what the board waits
for, the open contest, the settings and the Deathball board. The same streams read on the
MicroPython unix port give the same answers, line for line.
"""

import json
import random
import subprocess
import sys

import pytest
from conftest import FIRMWARE, ROOT, random_script, simulate
from corerig import INPUT_KINDS, T0, Rig
from courtside import clock, events
from courtside.deathball import engine, rules
from courtside.deathball.modes import RefereeMode
from courtside.dodgeball import DodgeBall
from courtside.effects import EVENT, SAVE
from courtside.lobby import Lobby
from courtside.settings import DEFAULTS
from courtside_follow import follower as fo
from courtside_follow.schema import check, read
from courtside_sim.script import Script

BUSY = (fo.BUSY_ROLLS, fo.BUSY_RUN, fo.BUSY_MOVE)
SCRIPTS = sorted((ROOT / "tests" / "scripts").glob("*.jsonl"))
RUNNER = ROOT / "tests" / "mp" / "follow_answers.py"


class Watched(Rig):
    """The core rig, each pass's lines read back by a follower and checked against the core."""

    def __init__(self, *args, unseen=False, **kwargs):
        self.unseen = unseen      # as a replay runs the core: no matrix, nobody watching
        self.follower = fo.Follower()
        self.lines = []
        self.passes = 0
        self.seen = set()         # what the board was found waiting for
        super().__init__(*args, **kwargs)

    def step(self, lines=()):
        if self.unseen:
            self.core.ctx.seen = False
            if self.core.stage is not None and hasattr(self.core.stage, "seen"):
                self.core.stage.seen = False
        wait = self.core.step(self.now, self.ring, list(lines))
        for effect in self.core.effects:
            if effect[0] == SAVE:
                effect[2](None)
            if effect[0] != EVENT:
                continue
            kind, fields = effect[1], effect[3]
            text = events.line(kind, effect[2], fields)
            record, problem = read(text)
            assert problem is None, (problem, text)
            self.follower.feed(record)
            self.lines.append(text)
            (self.inputs if kind in INPUT_KINDS else self.events).append((kind, fields))
        del self.core.effects[:]
        self.passes += 1
        agree(self.core, self.follower, self.lines)
        self.seen.add(self.follower.waiting)
        return wait


def expected(core):
    """What the core holds after a pass, as the follower should say it: (phase, players,
    turn, waiting, open contest, board position), waiting None for "busy"."""
    stage = core.stage
    players = [p + 1 for p in core.ctx.players]
    if isinstance(stage, Lobby):
        return "lobby", players, None, "players to join" if len(players) < 2 else "MAIN to start", None, None
    if isinstance(stage, DodgeBall):
        arb = stage.arbiter
        # being judged (a step a pass), or judged but its verdict line not yet written
        # (it goes out a part a pass): the stream still has it open
        told = stage._judged[0].number if stage._judged and stage._step == 0 else None
        if stage._judging is not None:
            told = stage._judging[1].number
        return "play", players, None, "a press", told if arb.open is None else arb.open.number, None
    if not isinstance(stage, RefereeMode):
        return "die", [], None, "ROLL", None, None      # the die has no players
    g = stage.game
    turn = g.turn + 1 if g.phase in (engine.SETUP, engine.PLAY) and g.turn is not None else None
    held = bool(stage.queue) or stage.roll is not None or bool(g.running)
    board = None if g.running or g.phase == engine.INITIATIVE else g.position()
    if g.phase == engine.INITIATIVE:
        waiting = "ROLL for initiative"
    elif held or (g.phase != engine.OVER and turn is None):
        waiting = None
    elif g.phase == engine.OVER:
        waiting = "ROLL for a new game"
    else:
        doing = "move" if stage.pending is None else "move: %s entered" % rules.ARROW_NAMES[stage.pending]
        waiting = "P%d to %s" % (turn, "set up" if g.phase == engine.SETUP else doing)
    return g.phase, [b + 1 for b in g.players], turn, waiting, None, board


def agree(core, f, lines):
    phase, players, turn, waiting, contest, board = expected(core)
    where = lines[-3:]
    assert f.mode == core.mode, where
    assert (f.phase, f.players, f.turn) == (phase, players, turn), where
    if waiting is None:
        assert f.waiting in BUSY, (f.waiting, where)
    else:
        assert f.waiting == waiting, where
    assert (None if f.contest is None else f.contest["c"]) == contest, where
    assert f.settings == core.settings
    if board is not None:
        assert f.chessboard.position() == board, where


def play_script(rig, inputs):
    """Timed inputs (``Script.take``: t, kind, a, b) through ``rig``, each at its time,
    with a pass whenever the core asked for one in between."""
    for t, kind, a, _ in inputs:
        at = clock.add(T0, t)
        while clock.diff(at, rig.now) > 0:
            wait = max(1, rig.step())
            rig.now = clock.add(rig.now, min(wait * 1000, clock.diff(at, rig.now)))
        if kind == "cmd":
            rig.step([a])
        else:
            rig.edge(a, b_closed(rig, a, inputs))
    rig.advance(15000)


def b_closed(rig, button, _inputs):
    """The edge's direction: Script hands it as the 4th item; kept by ``scripted``."""
    return rig.pending.pop(0)


def scripted(path, seed):
    rig = Watched(seed=seed)
    script = Script(lambda: open(path, "rb"), rig.pins)
    items = []
    while script.next_time() is not None:
        items.append(script.take())
    rig.pending = [closed for _, kind, _, closed in items if kind == "edge"]
    play_script(rig, items)
    return rig


def deathball_game(seed, unseen=False):
    """A refereed game of random players: ROLL, arrows from the player to move and from
    others, at random moments (in the rolls and the runs too), ``state``, ``dice``, a
    ``new`` game now and then, time passing."""
    rng = random.Random(seed)
    boxes = sorted(rng.sample(range(4), rng.randint(2, 4)))
    rig = Watched("referee", players=boxes, seed=seed, unseen=unseen)
    for _ in range(rng.randint(150, 350)):
        stage = rig.stage
        if isinstance(stage, Lobby):
            for box in boxes:
                rig.cmd("join %d" % (box + 1))
            rig.cmd("start")
            continue
        g = stage.game
        r = rng.random()
        if g.phase in (engine.INITIATIVE, engine.OVER) and r < 0.5 or r < 0.03:
            rig.main()
        elif r < 0.06:
            rig.cmd(rng.choice(("state", "dice 3 5 1 6", "roll", "get", "set tie_us=900", "new")))
        elif r < 0.6 and g.turn is not None:
            rig.press(g.turn, rng.randrange(4))
        elif r < 0.7:
            rig.press(rng.choice(boxes), rng.randrange(4))
        else:
            rig.advance(rng.choice((5, 60, 300, 1000, 3000)))
    rig.advance(15000)
    return rig


@pytest.mark.parametrize("seed", range(24))
def test_the_follower_says_what_the_core_holds_in_random_refereed_games(seed):
    rig = deathball_game(seed)
    kinds = {json.loads(line)["ev"] for line in rig.lines}
    assert rig.passes > 1000 and {"turn", "ready", "move", "refuse"} <= kinds
    assert {"ROLL for initiative", fo.BUSY_ROLLS} <= rig.seen
    assert any(w.endswith("to set up") for w in rig.seen) and any(w.endswith("to move") for w in rig.seen)


@pytest.mark.parametrize("seed", range(6))
def test_the_follower_says_what_the_core_holds_where_nobody_watches(seed):
    """The same games as a replay runs the core: nothing drawn, the run worked out at once."""
    rig = deathball_game(seed, unseen=True)
    assert rig.passes > 500 and {"ROLL for initiative", fo.BUSY_ROLLS} <= rig.seen
    assert rig.lines == deathball_game(seed).lines      # the same lines, times and all


def test_random_refereed_games_reach_runs_and_winners():
    seen, kinds = set(), set()
    for seed in range(24):
        rig = deathball_game(seed)
        seen |= rig.seen
        kinds |= {json.loads(line)["ev"] for line in rig.lines}
    assert {fo.BUSY_RUN, fo.BUSY_MOVE, "ROLL for a new game", "players to join", "MAIN to start"} <= seen
    assert {"ball", "bounce", "death", "shrink", "winner", "position", "clamp", "push"} <= kinds


@pytest.mark.parametrize("seed", range(30))
def test_the_follower_says_what_the_core_holds_in_random_play(seed, tmp_path):
    """Dodge Ball with bouncing contacts, held buttons, long presses and commands that
    go to the die mode and the referee."""
    path = tmp_path / "random.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in random_script(seed)))
    rig = scripted(path, seed)
    kinds = {json.loads(line)["ev"] for line in rig.lines}
    assert rig.passes > 100 and ("verdict" in kinds or "mode" in kinds), kinds


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_the_follower_says_what_the_core_holds_in_the_worked_scripts(path):
    rig = scripted(path, 1)
    assert rig.follower.events == len(rig.lines)


def test_a_set_up_turn_and_ready_in_the_worked_game():
    """Fed as a face feeds it (``courtside_follow.pace``, the lines arriving at their own
    times), the follower says what the matrix holds the board for, then whose turn it is."""
    from courtside_follow.pace import Paced
    rig = scripted(ROOT / "tests" / "scripts" / "deathball_game.jsonl", 1)
    f = fo.Follower()
    paced = Paced(f)
    said = []
    now = 0
    for line in rig.lines:
        record = read(line)[0]
        now = max(now, record["t"])
        paced.put(record, now)
        shown = paced.next(now)
        while shown is not None:
            said.append((shown["ev"], f.waiting))
            shown = paced.next(now)
    at = [i for i, (kind, _) in enumerate(said) if kind == "order"][0]
    # the rolls are on the matrix: the board holds presses (hold, before the order is shown)...
    assert said[at - 1] == ("hold", fo.BUSY_ROLLS)
    ready = next(i for i in range(at, len(said)) if said[i][0] == "ready")
    assert said[ready][1] == "P%d to set up" % [json.loads(x) for x in rig.lines
                                                if '"order"' in x][0]["order"][0]
    # ... and the turn that comes after a run is taken once the run has been shown
    run = next(i for i in range(ready, len(said)) if said[i][0] == "ball")
    assert "hold" in [kind for kind, _ in said[ready:run]]
    assert all(w == fo.BUSY_RUN for kind, w in said[run:run + 3])
    turn = next(i for i in range(run, len(said)) if said[i][0] == "turn")
    assert said[turn][1] == fo.BUSY_RUN
    after = next(i for i in range(turn, len(said)) if said[i][0] == "ready")
    assert said[after][1].endswith("to move")
    assert all(w == fo.BUSY_RUN for kind, w in said[turn:after] if kind == "refuse")


def test_take_feeds_only_what_the_schema_accepts():
    """``take``: a record checked against the session's stream, then fed; a record the
    schema refuses changes nothing and says why."""
    f = fo.Follower()
    assert f.take({"ev": "mode", "t": 5, "mode": "dodgeball"}) is None
    assert (f.mode, f.phase, f.events) == ("dodgeball", "lobby", 1)
    assert f.take({"ev": "join", "t": 6, "p": "two"}) is not None        # not a player
    assert f.take({"ev": "join", "t": 6}) is not None                     # p missing
    assert (f.players, f.events) == ([], 1)
    assert f.take({"ev": "join", "t": 7, "p": 2}) is None and f.players == [2]


def test_a_stream_before_version_4_is_followed_through_its_set_up():
    """Stream 3 said no set-up turn and no ``ready``, and its ``turn`` had no phase: the
    follower reads whose set-up turn it is from the order and the figures placed."""
    rig = scripted(ROOT / "tests" / "scripts" / "deathball_game.jsonl", 1)
    old, turns = [], []
    for line in rig.lines:
        kind, t, fields = events.parse(line)
        if kind == "ready" or kind == "turn" and fields.pop("phase") == "setup":
            continue
        if kind == "hello":
            del fields["can_save"]
            fields["stream"] = 3
        old.append(events.line(kind, t, fields))
    then, now = fo.Follower(), fo.Follower()
    for line in old:
        assert then.feed_line(line)[1] is None, line
        if json.loads(line)["ev"] in ("order", "setup"):
            turns.append(then.turn)
    for line in rig.lines:
        assert now.feed_line(line)[1] is None, line
    said = [json.loads(line) for line in rig.lines]
    set_up = [ev["p"] for ev in said if ev["ev"] == "turn" and ev["phase"] == "setup"]
    assert len(set_up) == 3 and turns == [*set_up, None]     # then the first turn of play
    assert then.chessboard.position() == now.chessboard.position() and then.winner == now.winner


# -- the schema ---------------------------------------------------------------------------

def test_every_line_of_the_worked_scripts_is_an_event_of_the_schema():
    for path in SCRIPTS:
        for line in simulate(sys.executable, path).stdout.splitlines():
            record, problem = read(line)
            assert problem is None, (problem, line)


@pytest.mark.parametrize("record, problem", [
    ({"ev": "nosuch", "t": 1}, "unknown event kind 'nosuch'"),
    ({"ev": "join", "t": -1, "p": 1}, "join event: t is out of range"),
    ({"ev": "join", "t": 1}, "join event without p"),
    ({"ev": "join", "p": 1}, "join event: t is null"),
    ({"ev": "join", "t": "1", "p": 1}, "join event: t is not a whole number"),
    ({"ev": "join", "t": 1, "p": 1, "x": 2}, "join event with unknown field 'x'"),
    ({"ev": "join", "t": 1, "p": "2"}, "join event: p is not a whole number"),
    ({"ev": "join", "t": 1, "p": 5}, "join event: p is out of range"),
    ({"ev": "press", "t": 1, "n": 1, "p": 0, "b": "THROW", "c": 1, "lag": 0, "early": False},
     "press event: no button 'THROW' of box 0"),
    ({"ev": "ready", "t": 1, "p": None}, None),
    ({"ev": "winner", "t": 1, "p": None, "together": [1, 2]}, None),
    ({"ev": "move", "t": 1, "p": 1, "arrows": ["up", "up"], "start": "d4", "end": None}, None),
    ({"ev": "turn", "t": 1, "p": 1, "round": 0, "phase": 3}, "turn event: phase is not text"),
    ({"ev": "turn", "t": 1, "p": 1, "round": 1}, "turn event without phase"),
    ({"ev": "order", "t": 1, "order": [1, 7]}, "order event: order holds a player that is not 1 to 4"),
    ({"ev": "verdict", "t": 1, "c": 1, "tie_us": 1000, "order": [{"n": 1, "p": 1}]},
     "verdict event: order holds a malformed press"),
    ({"ev": "roll", "t": 1, "purpose": "die", "face": 7, "forced": False}, "roll event: face 7"),
    (dict(DEFAULTS, ev="settings", t=1, tie_us=-4), "settings event: tie_us must be between 0 and 100000"),
    ({"ev": "settings", "t": 1, "tie_us": 500}, "settings event without contest_ms"),
    ({"ev": "refuse", "t": 1, "p": 1, "reason": "x", "arrows": None}, None),
    ({"ev": "death", "t": 1, "p": 1, "square": "d4", "cause": "ball", "ball": "1"},
     "death event: ball is not a whole number"),
])
def test_the_schema_says_what_is_wrong(record, problem):
    assert check(record) == problem


def test_a_hello_is_checked_against_its_own_stream_version():
    hello = json.loads(simulate(sys.executable, SCRIPTS[0]).stdout.splitlines()[0])
    assert check(hello) is None and hello["stream"] == events.STREAM
    old = {k: v for k, v in hello.items() if k != "can_save"}
    assert check(old) == "hello event without can_save"
    assert check(dict(old, stream=3)) is None
    assert check(dict(hello, boxes=6)).startswith("hello event: 6 boxes")
    assert check(dict(hello, settings={"tie_us": "wide"})).startswith("hello event: settings are not")
    assert read("MicroPython v1.27 banner") is None and read('{"ev":"join","t":1,"p":1') is None
    assert read('{"ev":"join","t":1,"p":1}') == ({"ev": "join", "t": 1, "p": 1}, None)


# -- the unix port ---------------------------------------------------------------------------

def _answers(exe, paths):
    run = subprocess.run([exe, str(RUNNER), str(FIRMWARE), *map(str, paths)], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.splitlines()


def test_the_unix_port_follows_as_cpython_does(micropython, tmp_path):
    paths = []
    for i, path in enumerate(SCRIPTS):
        paths.append(tmp_path / ("script_%d.jsonl" % i))
        paths[-1].write_text(simulate(sys.executable, path).stdout)
    for seed in (2, 5):
        paths.append(tmp_path / ("deathball_%d.jsonl" % seed))
        paths[-1].write_text("\n".join(deathball_game(seed).lines) + "\n")
    paths.append(tmp_path / "damaged.jsonl")
    paths[-1].write_text('banner\n{"ev":"join","t":1,"p":"x"}\n{"ev":"nosuch","t":1}\n')
    cpython = _answers(sys.executable, paths)
    assert len(cpython) > 1000
    assert _answers(micropython, paths) == cpython
    answers = [json.loads(line) for line in cpython]
    waiting = {a[5] for a in answers if len(a) > 5}
    assert {fo.BUSY_RUN, fo.BUSY_ROLLS, "ROLL for initiative", "a press"} <= waiting
    assert answers[-3:-1] == [["not an event"], ["join event: p is not a whole number"] + answers[-2][1:]]



def test_a_move_that_ends_in_a_death_is_an_event_to_replay():
    """A mover who walks into a deathball has no end square (``"end": null``): replay takes
    the record as the board wrote it (random game 1 has one)."""
    from courtside_host.records import replay as rp
    lines = [line for line in deathball_game(1).lines if '"ev":"move"' in line and '"end":null' in line]
    assert lines and rp.damaged(json.loads(lines[0])) is None
    assert check(json.loads(lines[0]), 4) is None


def test_a_record_with_values_no_board_writes_is_counted_not_a_crash():
    """The schema checks types; a heading, a square or an order that no board writes (a
    damaged log, a line garbled on its way) leaves what the follower knew standing and is
    counted, so no face stops on it."""
    f = fo.Follower()
    hello = {"ev": "hello", "t": 0, "fw": "0.1.0", "stream": 5, "mode": "referee", "capture": "sim",
             "boxes": 4, "settings": {}, "can_save": False}
    for record in (hello, {"ev": "referee", "t": 1, "players": [1, 2]},
                   {"ev": "position", "t": 1, "phase": "play", "text": "1@c3 2@f3 *b7n *g7s t1"}):
        assert f.take(record) is None
    before = dict(f.chessboard.where)
    bad = [{"ev": "ball", "t": 2, "ball": 1, "step": 1, "start": "b7", "end": "b6", "heading": "up-ish"},
           {"ev": "setup", "t": 3, "p": 1, "square": "z9"},
           {"ev": "order", "t": 4, "order": []}]
    for record in bad:
        assert f.take(record) is None          # the types are right: the schema lets them by
    assert f.unread == 3 and f.events == 6 and f.chessboard.where == before


def test_games_are_counted_from_the_hello():
    """``games``: the games started since the board's hello, so that a game's number (a
    replay's report numbers each game's contests and end by it) is read from the stream."""
    hello = {"ev": "hello", "t": 0, "fw": "0.1.0", "stream": 5, "mode": "dodgeball", "capture": "sim",
             "boxes": 4, "settings": {}, "can_save": False}
    start = {"ev": "start", "t": 2, "mode": "dodgeball", "players": [1, 2]}
    f = fo.Follower()
    for record in (hello, {"ev": "mode", "t": 1, "mode": "dodgeball"}, start,
                   {"ev": "lobby", "t": 3, "game": "dodgeball"}):
        assert f.take(record) is None
    assert f.games == 1 and f.phase == "lobby"
    assert f.take(dict(start, t=4)) is None and f.games == 2 and f.phase == "play"
    assert f.take(dict(hello, t=5)) is None and f.games == 0      # a restart: a new session
