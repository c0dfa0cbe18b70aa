"""The monitor reads a real event stream from the firmware on the virtual Pico, and draws
recorded streams of both games through the one renderer."""

import json
import subprocess
import sys

from conftest import ROOT, simulate
from courtside_host.records import eventlog
from courtside_host.records import replay as rp
from courtside_host.views import monitor, render
from rich.console import Console


def test_monitor_shows_and_logs_a_live_game(pico, tmp_path):
    log = tmp_path / "game.jsonl"
    sends = ["set tie_us=60000", "sim 9 THROW", "sim 1 THROW", "sim 2 THROW", "start",
             "sim 1 THROW down;sim 2 CATCH down", "sim 1 THROW up;sim 2 CATCH up"]
    cmd = [sys.executable, "-m", "courtside_host.cli", "monitor", "--port", pico.port,
           "--log", str(log), "--until", "tie", "--for", "20"]
    for line in sends:
        cmd += ["--send", line]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False,
                         env={"COLUMNS": "120", "PATH": ""})
    assert out.returncode == 0, out.stdout + out.stderr
    events = eventlog.read(log)
    kinds = [e["ev"] for e in events]
    assert kinds[0] == "log" and "pong" in kinds and "settings" in kinds
    assert [e["p"] for e in events if e["ev"] == "join"] == [1, 2]
    presses = [e for e in events if e["ev"] == "press"]
    assert sorted((e["p"], e["b"]) for e in presses) == [(1, "THROW"), (2, "CATCH")]
    verdict = next(e for e in events if e["ev"] == "verdict")
    assert verdict["tie_us"] == 60000
    assert [(o["rank"], o["tie"]) for o in verdict["order"]] == [(1, True), (1, True)]
    tie = next(e for e in events if e["ev"] == "tie")
    assert tie["players"] == [1, 2] and sorted(tie["draw"]) == [1, 2] and tie["gap"] < 60000
    assert "Tie for first between Player 1 (red) and Player 2 (yellow)" in out.stdout
    assert "contest 1: tie window 60.000 ms, contest 1500 ms, answer 3000 ms" in out.stdout
    # the virtual Pico's console refuses a bad sim line, stamped on the core's timeline
    refused = next(e for e in events if e["ev"] == "error")
    assert refused["line"] == "sim 9 THROW" and refused["t"] >= events[kinds.index("settings")]["t"] > 0
    # ... and the saved game (the monitor came in after the board started) replays from
    # its game start to the same stream, through the same core (the console's refusal is
    # the virtual board's, not the core's: not compared)
    report = rp.rejudge(events)
    assert report.identical, (report.sessions[0].difference, report.sessions[0].notes)
    assert len(report.contests) == 1 and report.contests[0].same
    assert "replayed from its first game start" in report.sessions[0].notes[0]


def test_monitor_fails_clearly_without_a_board(tmp_path):
    out = subprocess.run([sys.executable, "-m", "courtside_host.cli", "monitor", "--port",
                          str(tmp_path / "ttyACM9"), "--no-log"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 1 and out.stderr.startswith("courtside monitor: no serial port")
    names = subprocess.run([sys.executable, "-m", "courtside_host.cli", "monitor", "--name", "Ann",
                            "--no-log"], capture_output=True, text=True, timeout=60, check=False)
    assert names.returncode == 2 and "N=NAME" in names.stderr


def shown(ev, mon=None):
    console = Console(width=160, record=True, color_system=None)
    for thing in (mon or monitor.Monitor()).show(ev):
        console.print(thing)
    return console.export_text()


def test_events_read_as_people_want_them():
    press = shown({"ev": "press", "t": 61500000, "p": 3, "b": "CATCH", "c": 4, "lag": 1250,
                   "n": 9, "early": True})
    assert press.startswith("1:01.500") and "Player 3 (cyan) plays CATCH" in press
    assert "+1.250 ms" in press and "Early" in press
    tie = shown({"ev": "tie", "t": 0, "c": 1, "rank": 1, "players": [1, 4], "draw": [4, 1], "gap": 300})
    assert "Tie for first between Player 1 (red) and Player 4 (blue), 0.300 ms apart" in tie
    assert "the fair draw puts Player 4 (blue) then Player 1 (red)" in tie
    assert "PASS is stuck" in shown({"ev": "stuck", "t": 0, "p": 2, "b": "PASS"})
    assert "box fault, 3 buttons" in shown({"ev": "fault", "t": 0, "kind": "box", "p": 1, "closed": 3})
    assert "DROPPED 5" in shown({"ev": "overflow", "t": 0, "dropped": 9, "new": 5})
    board = shown({"ev": "position", "t": 0, "phase": "play",
                   "text": "1@c1 2@d3 3@x *b8n *g8s r0 t2"}).splitlines()
    rows = {r.split()[0]: r.split()[1:] for r in board if r[:1].isdigit()}
    assert rows["1"] == [".", ".", "1", ".", ".", ".", ".", "."]
    assert rows["8"] == [".", "@", ".", ".", ".", ".", "@", "."]
    assert rows["7"] == [".", ".", ".", ".", ".", ".", "+", "."]     # ball 2's next square
    assert board[-1].split() == list("abcdefgh")
    setup = shown({"ev": "position", "t": 0, "phase": "setup", "text": "1@c1 2@? *b8n *g8n r0"})
    assert "Position: 1@c1 2@?" in setup   # too few placed to draw: shown as text


def test_a_verdict_table_shows_early_answers_and_names():
    verdict = {"ev": "verdict", "t": 0, "c": 2, "tie_us": 1000, "order": [
        {"n": 1, "p": 1, "b": "THROW", "rank": 1, "lag": 0, "tie": False, "early": False},
        {"n": 2, "p": 2, "b": "DODGE", "rank": 2, "lag": 300, "tie": True, "early": False},
        {"n": 3, "p": 3, "b": "CATCH", "rank": 2, "lag": 500, "tie": True,
         "early": "throw already answered"}]}
    text = shown(verdict, monitor.Monitor(render.Names({3: "Cy"})))
    assert "contest 2: tie window 1.000 ms" in text
    assert "second (tie)" in text and "Cy (cyan)" in text
    assert "EARLY: the throw was already answered" in text


def test_the_deathball_board_is_drawn_live_from_a_game_stream():
    run = simulate(sys.executable, str(ROOT / "tests" / "scripts" / "deathball_game.jsonl"))
    events = [json.loads(line) for line in run.stdout.splitlines()]
    mon = monitor.Monitor()
    console = Console(width=100, record=True, color_system=None)
    for ev in events:
        if ev["ev"] == "position":
            break           # the script asks for the position only after the first round
        for thing in mon.show(ev):
            console.print(thing)
    text = console.export_text()
    boards = text.count("  a b c d e f g h")
    turns = sum(1 for ev in events[:events.index(ev)] if ev["ev"] == "turn" and ev["phase"] == "play")
    assert turns >= 4 and boards == turns       # a board after every move, no `state` asked
    last = text[text.rindex("Round 2"):].splitlines()
    rows = {r.split()[0]: r.split()[1:] for r in last if r[:1].isdigit()}
    assert rows["3"][2] == "1" and rows["3"][4] == "2"          # c3 and e3
    assert rows["2"][2] == "3" and rows["2"][1] == "@" and rows["2"][6] == "@"   # c2; balls b2, g2


def test_the_monitor_says_what_the_board_waits_for():
    """Each time it changes: whose set-up turn it is, that the balls are moving through
    the run (no one to move until the board takes presses again), the winner once shown."""
    run = simulate(sys.executable, str(ROOT / "tests" / "scripts" / "deathball_game.jsonl"))
    mon = monitor.Monitor(render.Names({2: "Bo"}))
    console = Console(width=160, record=True, color_system=None)
    now = 0
    for text in run.stdout.splitlines():        # each line arrives at its time, a pass's at once
        ev = json.loads(text)
        while now + 20_000 < ev["t"]:           # the monitor's loop, meanwhile
            now += 20_000
            for thing in mon.due(now):
                console.print(thing)
        if ev["t"] > now:
            for thing in mon.due(now):
                console.print(thing)
        now = max(now, ev["t"])
        mon.put(ev, now)
    for thing in mon.due():
        console.print(thing)
    lines = console.export_text().splitlines()
    said = [line.strip() for line in lines if line.startswith("  wait: ")]
    assert said.index("wait: Player 1 (red) to set up. LEFT/RIGHT pick a square, UP/DOWN places.") \
        < said.index("wait: Bo (yellow) to set up. LEFT/RIGHT pick a square, UP/DOWN places.")
    first = lines.index(next(line for line in lines if "Ball 1 bounces" in line))
    held = lines.index(next(line for line in lines if "shows the deathballs' run" in line))
    moving = "wait: the balls are moving. ROLL skips to the end of the run."
    assert held < first and moving in [line.strip() for line in lines[held:first]]
    assert not any("Round 2" in line for line in lines[:first])      # not ahead of the matrix
    # the board takes its buttons, not this laptop's keys: the monitor names none of them
    assert not [line for line in said if "Space" in line or "arrow keys" in line or "(m)" in line]
    assert "wait: Player 1 (red) to move. Two arrows on the box." in said
    ready = next(i for i, line in enumerate(lines) if i > first and "takes Player 1 (red)'s presses" in line)
    assert not any(line.startswith("  wait: ") for line in lines[first + 2:ready])   # through the run
    assert lines[ready + 1].strip().startswith("wait: Player 1 (red) to move.")
    assert said[-1] == "wait: ROLL for a new game. Game over: Player 3 (cyan) wins the game!"
    assert not any("initiative" in s for s in said[said.index(
        "wait: Player 1 (red) to set up. LEFT/RIGHT pick a square, UP/DOWN places."):])


def test_typed_lines_split_as_sent_lines_do():
    """``a;b`` typed at the monitor is two lines, as with ``--send``; blanks are dropped."""
    from courtside_host.commands.monitor import together
    assert together("sim 1 THROW down; sim 2 CATCH down") == "sim 1 THROW down\nsim 2 CATCH down"
    assert together("ping") == "ping" and together("get;;") == "get"
