"""The web page's view (``courtside_host.views.webview``): the one renderer, run in the page by
MicroPython, says the same as on CPython, and says what a table needs to see."""

import json
import subprocess
import sys

from conftest import FIRMWARE, ROOT, simulate
from courtside_host.views import render, webview

HOST = ROOT / "host"

# Every line through the view, and the view's state after it, one JSON text per line.
DRIVER = """
import sys
from courtside_host.views.webview import View
view = View()
view.name(1, "Ann")
with open(sys.argv[-1]) as f:
    for line in f:
        print(view.feed(line.rstrip("\\n")))
        print(view.state())
print(view.cells(bytes(range(192))))
"""


def views(exe, stream, tmp_path):
    path = tmp_path / "stream.jsonl"
    path.write_text(stream)
    script = tmp_path / "drive.py"
    script.write_text(DRIVER)
    env = {"PYTHONPATH": "%s:%s" % (FIRMWARE, HOST), "MICROPYPATH": "%s:%s:.frozen" % (FIRMWARE, HOST)}
    run = subprocess.run([exe, str(script), str(path)], capture_output=True, text=True, timeout=120,
                         env=env, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return [json.loads(line) if line else "" for line in run.stdout.splitlines()]


def test_the_view_says_the_same_on_micropython_and_cpython(micropython, tmp_path):
    for script in ("dodgeball_round", "deathball_game"):
        stream = simulate(sys.executable, ROOT / "tests" / "scripts" / (script + ".jsonl")).stdout
        on_cpython = views(sys.executable, stream, tmp_path)
        assert views(micropython, stream, tmp_path) == on_cpython
        assert len(on_cpython) == 2 * stream.count("\n") + 1


def test_a_verdict_reads_as_ranks_with_lag_and_early():
    view = webview.View()
    view.name(2, "Bo")
    view.feed('{"ev":"hello","t":0,"mode":"dodgeball"}')
    said = json.loads(view.feed('{"ev":"verdict","t":5,"c":3,"tie_us":1000,"order":['
                                '{"p":1,"b":"THROW","rank":1,"tie":true},'
                                '{"p":2,"b":"CATCH","rank":1,"tie":true,"lag":400},'
                                '{"p":3,"b":"DODGE","rank":3,"lag":250000,"early":"no throw open"}]}'))
    assert said["ev"] == "verdict" and said["sentence"] == render.sentence(view.last, view.names)
    order = json.loads(view.state())["verdict"]["order"]
    assert [(o["rank_word"], o["tie"], o["who"]) for o in order] == [
        ("first", True, "Player 1 (red)"), ("first", True, "Bo (yellow)"),
        ("third", False, "Player 3 (green)")]
    assert order[1]["lag"] == "0.400 ms" and order[2]["early"] == "no throw was open"
    assert order[0]["rgb"] == list(render.rgb(1))


def test_the_board_is_drawn_from_the_stream():
    view = webview.View()
    view.feed('{"ev":"hello","t":0,"mode":"referee"}')
    view.feed('{"ev":"position","t":1,"phase":"play","text":"1@c3 2@f3 *b7n *g7s t2"}')
    board = json.loads(view.state())["board"]
    assert board["squares"]["c3"]["p"] == 1 and board["squares"]["f3"]["rgb"] == list(render.rgb(2))
    assert board["squares"]["b7"]["what"] == "ball1" and board["squares"]["g6"]["what"] == "ahead2"
    assert board["turn"] == 2 and len(board["inside"]) == 64
    assert view.feed("MicroPython v1.27 on 2026-01-01") == ""     # not an event: nothing to say
