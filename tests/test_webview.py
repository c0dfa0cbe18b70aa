"""The web page's view (``courtside_follow.page``): the one renderer, run in the page by
MicroPython, says the same as on CPython, and says what a table needs to see."""

import json
import subprocess
import sys

from conftest import PYPATH, ROOT, simulate
from courtside_follow import page as webview
from courtside_host.views import render

HOST = ROOT / "host"

# Every line through the view, arriving at its own time on the page's clock, what the view
# shows by then and its state after it, one JSON text per line; then what is left.
DRIVER = """
import json, sys
from courtside_follow.page import View
view = View()
view.name(1, "Ann")
now = 0
with open(sys.argv[-1]) as f:
    for line in f:
        now = max(now, json.loads(line)["t"] // 1000)
        print(view.feed(line.rstrip("\\n"), now))
        print(view.state())
print(view.due())
print(view.cells(bytes(range(192))))
"""


def views(exe, stream, tmp_path):
    path = tmp_path / "stream.jsonl"
    path.write_text(stream)
    script = tmp_path / "drive.py"
    script.write_text(DRIVER)
    env = {"PYTHONPATH": PYPATH, "MICROPYPATH": "%s:.frozen" % PYPATH}     # no laptop package
    run = subprocess.run([exe, str(script), str(path)], capture_output=True, text=True, timeout=120,
                         env=env, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return [json.loads(line) if line else "" for line in run.stdout.splitlines()]


def test_the_view_says_the_same_on_micropython_and_cpython(micropython, tmp_path):
    for script in ("dodgeball_round", "deathball_game"):
        stream = simulate(sys.executable, ROOT / "tests" / "scripts" / (script + ".jsonl")).stdout
        on_cpython = views(sys.executable, stream, tmp_path)
        assert views(micropython, stream, tmp_path) == on_cpython
        assert len(on_cpython) == 2 * stream.count("\n") + 2
        shown = [said for item in on_cpython[0:-2:2] for said in item] + on_cpython[-2]
        assert len(shown) == stream.count("\n")             # each event once, in the end


HELLO = ('{"ev":"hello","t":0,"boxes":4,"can_save":false,"capture":"sim","fw":"0.1.0","mode":"%s",'
         '"settings":{"answer_ms":3000,"brightness":96,"capture":"pio","contest_ms":1500,"debounce_ms":20,'
         '"long_ms":1000,"sound":1,"stuck_ms":3000,"tie_us":1000},"stream":4}')


def test_a_verdict_reads_as_ranks_with_lag_and_early():
    view = webview.View()
    view.name(2, "Bo")
    view.feed(HELLO % "dodgeball")
    (said,) = json.loads(view.feed('{"ev":"verdict","t":5,"c":3,"tie_us":1000,"order":['
                                   '{"n":1,"p":1,"b":"THROW","rank":1,"tie":true,"lag":0,"early":false},'
                                   '{"n":2,"p":2,"b":"CATCH","rank":1,"tie":true,"lag":400,"early":false},'
                                   '{"n":3,"p":3,"b":"DODGE","rank":3,"lag":250000,"tie":false,'
                                   '"early":"no throw open"}]}'))
    assert said["ev"] == "verdict" and said["sentence"] == render.sentence(view.last, view.names)
    order = json.loads(view.state())["verdict"]["order"]
    assert [(o["rank_word"], o["tie"], o["who"]) for o in order] == [
        ("first", True, "Player 1 (red)"), ("first", True, "Bo (yellow)"),
        ("third", False, "Player 3 (cyan)")]
    assert order[1]["lag"] == "0.400 ms" and order[2]["early"] == "no throw was open"
    assert order[0]["rgb"] == list(render.rgb(1))
    # the name alone, which the page may cut with an ellipsis; "who" begins with it
    assert [o["name"] for o in order] == ["Player 1", "Bo", "Player 3"]
    assert all(o["who"].startswith(o["name"] + " (") for o in order)


def test_the_board_is_drawn_from_the_stream():
    view = webview.View()
    view.feed(HELLO % "referee")
    view.feed('{"ev":"position","t":1,"phase":"play","text":"1@c3 2@f3 *b7n *g7s t2"}')
    view.feed('{"ev":"turn","t":1,"p":2,"phase":"play","round":1}')     # as the board says it
    board = json.loads(view.state())["board"]
    assert board["squares"]["c3"]["p"] == 1 and board["squares"]["f3"]["rgb"] == list(render.rgb(2))
    assert board["squares"]["b7"]["what"] == "ball1" and board["squares"]["g6"]["what"] == "ahead2"
    assert board["turn"] == 2 and len(board["inside"]) == 64
    assert view.feed("MicroPython v1.27 on 2026-01-01") == ""     # not an event: nothing to say


def test_the_status_and_the_winner_follow_the_board(tmp_path):
    """Through set-up the status says who sets up; through the deathballs' run that the
    balls are moving (the board, the turn and the winner not ahead of the matrix); a win,
    then ROLL: the winner is gone with the new game."""
    script = tmp_path / "again.jsonl"
    script.write_text((ROOT / "tests" / "scripts" / "deathball_game.jsonl").read_text()
                      + '{"t": 51000000, "p": 0, "b": "MAIN"}\n')
    view = webview.View()
    view.name(2, "Bo")
    seen = []      # (kind, the view's state once the matrix shows it and what came with it)
    now = 0
    said = []

    def shown():
        state = json.loads(view.state())
        seen.extend((item["ev"], state) for item in said)
        del said[:]

    for line in simulate(sys.executable, script).stdout.splitlines():
        t = json.loads(line)["t"] // 1000       # each line arrives at its time (the lines of
        if t > now:                             # one pass at once, the page drawing after them)
            shown()
        while now + 20 < t:                     # the page's timer asking meanwhile
            now += 20
            said.extend(json.loads(view.due(now)))
            shown()
        now = max(now, t)
        said.extend(json.loads(view.feed(line, now)))
    shown()
    setups = [s for kind, s in seen if kind == "setup"]
    assert [s["status"].split(".")[0] for s in setups] == [
        "wait: Bo (yellow) to set up", "wait: Player 3 (cyan) to set up", "wait: Player 1 (red) to move"]
    assert [s["turn"] for s in setups[:2]] == [2, 3]
    runs = [s for kind, s in seen if kind in ("bounce", "ball")]
    assert runs and all(s["status"].startswith("wait: the balls are moving.") for s in runs)
    bad = [s for s in runs if not (s["turn"] is None and s["board"]["turn"] is None and s["busy"])]
    assert not bad, [(s["turn"], s["board"]["turn"], s["busy"]) for s in bad]
    won = [i for i, (kind, s) in enumerate(seen) if s["winner"]]
    assert seen[won[0]][0] == "winner"                 # once the matrix has shown the end
    assert seen[won[0] - 1][1]["status"].startswith("wait: the balls are moving.")
    assert seen[won[0]][1]["winner"] == "Player 3 (cyan) wins the game!"
    new = next(i for i, (kind, _s) in enumerate(seen) if kind == "referee" and i > won[0])
    assert all(s["winner"] is None for kind, s in seen[new:])
    assert seen[-1][1]["status"].startswith("wait: ROLL for initiative.")
    # what a page watching a board says: the same waits, with the board's buttons, no keys
    last = seen[-1][1]
    assert last["status"].endswith("Press ROLL (Space); then each player sets up in turn.")
    assert last["status_board"] == "wait: ROLL for initiative. Press ROLL; then each player sets up in turn."
    assert not [s for _, s in seen if "Space" in s["status_board"] or "arrow keys" in s["status_board"]]
    assert seen[-1][1]["stage"] == "game" and not seen[-1][1]["board"]["squares"].get("f4")


def test_a_half_entered_move_is_said_and_shown():
    """The first arrow of a move (``pending``, stream 5): the status says it and how to take
    it back, the board marks the square it reaches, the matrix rebuilt for a page watching
    a board draws it dim, as the board's own matrix does."""
    view = webview.View()
    view.feed(HELLO.replace('"stream":4', '"stream":5') % "referee")
    view.feed('{"ev":"referee","t":1,"players":[1,2]}')
    view.feed('{"ev":"position","t":1,"phase":"play","text":"1@c3 2@f3 *b7n *g7s t1"}')
    view.feed('{"ev":"turn","t":1,"p":1,"phase":"play","round":1}')
    before = view.matrix()
    said = json.loads(view.feed('{"ev":"pending","t":2,"p":1,"arrows":["up"]}'))
    assert said[0]["sentence"].startswith("Player 1 (red) enters up")
    state = json.loads(view.state())
    assert state["status"].startswith("wait: Player 1 (red) to move: up entered. One more arrow moves; "
                                      "DOWN takes UP back.")
    assert state["board"]["pending"] == "c4"
    after, before = json.loads(view.matrix()), json.loads(before)
    lit = [i for i in range(64) if after[3 * i:3 * i + 3] != before[3 * i:3 * i + 3]]
    assert lit == [(8 - 4) * 8 + 2]                      # c4 (row 8 on top), and nothing else
    view.feed('{"ev":"undo","t":3,"p":1,"arrows":["up"]}')
    state = json.loads(view.state())
    assert state["board"]["pending"] is None and state["status"].startswith("wait: Player 1 (red) to move.")


def test_a_watched_board_shows_the_set_up_cursor_as_the_board_does():
    """``cursor`` (stream 5): the page watching a board draws the set-up squares and the
    cursor on its rebuilt matrix, the very picture the board's matrix shows
    (``view.setup``), and marks the square on its board."""
    from courtside.deathball import view as board_view
    from courtside.deathball.track import Shown
    view = webview.View()
    for line in (HELLO.replace('"stream":4', '"stream":5') % "referee",
                 '{"ev":"referee","t":1,"players":[1,2]}',
                 '{"ev":"order","t":2,"order":[2,1]}',
                 '{"ev":"turn","t":2,"p":2,"phase":"setup","round":0}'):
        view.feed(line)
    first = json.loads(view.matrix())
    assert json.loads(view.state())["board"]["cursor"] == "c1"
    view.feed('{"ev":"cursor","t":3,"p":2,"square":"e1"}')
    assert json.loads(view.state())["board"]["cursor"] == "e1"
    want = bytearray(192)
    shown = Shown()
    board_view.setup(want, shown, [2, 3, 4, 5], 2, board_view.PLAYER_COLOURS[1])
    assert json.loads(view.matrix()) == list(want) != first
    view.feed('{"ev":"setup","t":4,"p":2,"square":"e1"}')
    view.feed('{"ev":"turn","t":4,"p":1,"phase":"setup","round":0}')
    assert json.loads(view.state())["board"]["cursor"] == "c1"        # the next turn: the first free
