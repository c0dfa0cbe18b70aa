"""The one renderer on recorded streams of both games: sentences, the status line and the
Deathball board drawn from the one follower of the stream (``courtside_follow``), relative
brightness, and its choices as data a web page can share."""

import json
import subprocess
import sys

import pytest
from conftest import PYPATH, ROOT, simulate
from courtside import display, events
from courtside.deathball import notation, view
from courtside_follow import face
from courtside_follow.follower import Follower
from courtside_host.views import render

SCRIPTS = ROOT / "tests" / "scripts"


def stream(name):
    run = simulate(sys.executable, SCRIPTS / (name + ".jsonl"))
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_every_kind_of_event_has_its_sentence():
    assert set(events.kinds()) <= set(face._SENTENCES) | set(render.QUIET)


@pytest.mark.parametrize("name", ["dodgeball_round", "deathball_game", "deathball_shrink"])
def test_a_recorded_game_reads_as_sentences(name):
    names = render.Names({1: "Ann"})
    for ev in stream(name):
        text = render.sentence(ev, names)
        if ev["ev"] in render.QUIET:
            assert text is None
            continue
        assert text and text[0].isupper() and not text.startswith(ev["ev"] + ":"), (ev, text)
        assert "None" not in text and "Player 1" not in text, (ev, text)   # Ann is Ann everywhere


def test_the_status_line_follows_a_dodgeball_stream():
    f = Follower()
    names = render.Names({2: "Bo"})
    statuses = []
    for ev in stream("dodgeball_round"):
        assert f.take(ev) is None, ev
        statuses.append(render.status(f, names))
    assert all(s.startswith("wait: ") for s in statuses)
    assert "Press a button on your box to join" in statuses[2]
    assert any(s.startswith("wait: a press. Play: press the button") for s in statuses)
    assert f.verdict["ev"] == "verdict" and f.settings["tie_us"] == 500
    lines = render.verdict_lines(f.verdict, names)
    assert lines[0].split()[:2] == ["FIRST", "Bo"]


def test_early_answers_are_named_by_their_reason():
    verdict = {"ev": "verdict", "t": 0, "c": 1, "tie_us": 1000, "order": [
        {"n": 1, "p": 2, "b": "DODGE", "rank": 1, "lag": 0, "tie": False, "early": "no throw open"},
        {"n": 2, "p": 1, "b": "THROW", "rank": 2, "lag": 5000, "tie": False, "early": False},
        {"n": 3, "p": 3, "b": "CATCH", "rank": 3, "lag": 9000, "tie": False,
         "early": "throw already answered"}]}
    text = render.sentence(verdict)
    assert "first Player 2 (yellow) DODGE (EARLY: no throw was open)" in text
    assert "third Player 3 (cyan) CATCH +9.000 ms (EARLY: the throw was already answered)" in text
    lines = render.verdict_lines(verdict)
    assert lines[-2:] == ["EARLY P2 DODGE: no throw was open",
                          "EARLY P3 CATCH: the throw was already answered"]


@pytest.mark.parametrize("name", ["deathball_game", "deathball_shrink"])
def test_the_deathball_board_is_drawn_as_the_follower_has_it(name):
    f = Follower()
    positions = 0
    for ev in stream(name):
        f.take(ev)
        if ev["ev"] == "position":       # the referee's own word for the board: they agree
            positions += 1
            pos = notation.parse(" ".join(t for t in ev["text"].split() if not t.endswith("@?")))
            drawn = render.grid(f.chessboard)
            assert {p + 1 for p in pos["where"] if pos["where"][p] >= 0} == \
                {what for char, what in drawn.values() if isinstance(what, int)}, ev
            assert {notation.square_name(sq) for sq in pos["balls"]} == \
                {sq for sq, (char, what) in drawn.items() if char == "@"}
            assert pos["border"] == f.chessboard.border
            rows = render.rows(f.chessboard)
            assert len(rows) == 9 and rows[-1] == "  a b c d e f g h"
            assert sum(row[2:].count("@") for row in rows) == 2
    assert positions >= 2
    if name == "deathball_game":
        assert render.status(f).startswith("wait: ROLL for a new game. Game over: ")


def test_the_status_line_says_who_sets_up_and_when_the_balls_move():
    """Through set-up the status says whose set-up turn it is (not ROLL for initiative);
    from the round's last move until ``ready`` it says the balls are moving, and names
    nobody to move; after ``ready`` the next mover."""
    f = Follower()
    names = render.Names({2: "Bo"})
    said = []
    for ev in stream("deathball_game"):
        f.take(ev)
        said.append((ev["ev"], render.status(f, names)))
        if ev["ev"] == "ready" and f.phase == "play":
            break
    setups = [s for kind, s in said if kind == "setup"]
    assert setups[:2] == ["wait: Bo (yellow) to set up. LEFT/RIGHT pick a square, UP/DOWN places.",
                          "wait: Player 3 (cyan) to set up. LEFT/RIGHT pick a square, UP/DOWN places."]
    assert not any("initiative" in s for kind, s in said if kind in ("setup", "ready", "turn"))
    first = next(i for i, (kind, _s) in enumerate(said) if kind == "bounce")
    run = said[first:-1]
    assert run and all(s.startswith("wait: the balls are moving.") for kind, s in run)
    assert any(kind == "turn" for kind, _s in run)       # the next turn, while the run is shown
    assert said[-1][1].startswith("wait: Player 1 (red) to move.")


def test_relative_brightness_keeps_every_level_apart():
    frame = bytearray(192)
    view.board(frame, _shown({0: 19, 1: 37}, [49, 14], [(1, 0), (0, 1)], 1), turn=0, blink=True, pending=27)
    scaled = display.scale(bytearray(frame), 40)          # a low brightness, as the core sends it
    before = {tuple(frame[i:i + 3]) for i in range(0, 192, 3)} - {(0, 0, 0)}
    after = {c for c in render.cells(scaled) if c is not None}
    assert len(after) == len(before) >= 8                # no two cues merged into one colour
    assert max(max(c) for c in after) == 255             # the brightest shown at full
    border = render.cells(scaled)[0]                        # a8: outside the red border
    assert border[0] > 40 and border[1] == border[2] == 0      # dim red, yet visible
    assert render.dims(scaled)[0] and not render.dims(scaled)[8 * 5 + 3]   # drawn as dim; d3 (a figure) not


def test_names_are_checked():
    assert render.parse_names(["1=Ann", "4= Dee "]) == {1: "Ann", 4: "Dee"}
    for bad in ("Ann", "5=Eve", "1=", "x=Ann"):
        with pytest.raises(ValueError, match="N=NAME"):
            render.parse_names([bad])


def test_the_choices_are_data_a_web_page_can_share():
    face = json.loads(render.face_json())
    assert [p["led"] for p in face["players"]] == [list(c) for c in display.COLOURS]
    assert [p["colour"] for p in face["players"]] == ["red", "yellow", "cyan", "blue"]
    assert [p["rgb"] for p in face["players"]] == [list(render.rgb(p)) for p in range(1, 5)]
    assert set(face["early"]) == {"no throw open", "throw already answered"}


def test_the_text_filter_reads_a_headless_stream():
    run = simulate(sys.executable, SCRIPTS / "deathball_game.jsonl")
    env = {"PYTHONPATH": "%s:%s" % (PYPATH, ROOT / "host"), "PATH": ""}
    out = subprocess.run([sys.executable, "-m", "courtside_host.views.render", "--name", "3=Cy"],
                         input=run.stdout, capture_output=True, text=True, timeout=60, check=False, env=env)
    assert out.returncode == 0, out.stderr
    assert "Cy (cyan) wins the game!" in out.stdout and '"ev"' not in out.stdout
    bad = subprocess.run([sys.executable, "-m", "courtside_host.views.render", "--name", "Cy"], input="",
                         capture_output=True, text=True, timeout=60, check=False, env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("courtside render: ")


def test_the_headless_simulator_reads_as_sentences_with_names():
    import subprocess
    import sys
    from pathlib import Path
    cli = [str(Path(sys.executable).parent / "courtside"), "sim", "--script",
           str(ROOT / "tests" / "scripts" / "dodgeball_round.jsonl"), "--format", "text", "--name", "1=Ann"]
    run = subprocess.run(cli, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines and not any(line.lstrip().startswith("{") for line in lines)
    assert any("Ann (red) joins" in line for line in lines)
    assert any("Tie" in line or "tie" in line for line in lines)
    bad = subprocess.run([*cli[:-1], "1"], capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "courtside sim:" in bad.stderr


def _shown(where, balls, headings, border):
    """A board as the referee holds it (courtside.deathball.track.Shown), set directly."""
    from courtside.deathball.track import Shown
    shown = Shown()
    shown.where, shown.balls, shown.headings, shown.border = dict(where), list(balls), list(headings), border
    return shown


def test_a_long_name_is_shortened_with_an_ellipsis():
    assert render.parse_names(["1=Alexandra Konstantinopoulou"]) == {1: "Alexandra Konst…"}
    from courtside_follow.face import shortened
    assert shortened("Ann", 16) == "Ann" and len(shortened("x" * 40, 16)) == 16


def test_a_settings_line_names_the_runs_pace_when_it_is_not_the_usual():
    fields = {"ev": "settings", "t": 0, "tie_us": 1000, "contest_ms": 1500, "answer_ms": 3000}
    assert render.sentence(dict(fields, pace=200), render.Names()).endswith("the deathballs' run at 200 %.")
    assert "run" not in render.sentence(dict(fields, pace=100), render.Names())
    assert render.sentence(fields, render.Names()) == render.sentence(dict(fields, pace=100), render.Names())


def test_an_early_answer_has_one_wording_at_the_press_and_in_the_verdict():
    press = render.sentence({"ev": "press", "t": 0, "n": 1, "p": 2, "b": "DODGE", "c": 1, "lag": 0,
                             "early": True})
    verdict = render.sentence({"ev": "verdict", "t": 1, "c": 1, "tie_us": 1000, "order": [
        {"n": 1, "p": 2, "b": "DODGE", "rank": 1, "lag": 0, "tie": False, "early": "no throw open"}]})
    words = render.early_words("no throw open")
    assert words == "no throw was open"
    assert ("Early: %s" % words) in press and ("EARLY: %s" % words) in verdict
