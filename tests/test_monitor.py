"""The monitor reads a real event stream from the firmware on the virtual Pico."""

import subprocess
import sys

import pytest
from courtside_host import deploy as dep
from courtside_host import eventlog, monitor
from courtside_host import replay as rp
from courtside_host.vpico import VirtualPico
from rich.console import Console


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    with VirtualPico(tmp_path_factory.mktemp("monitor") / "flash") as p:
        dep.deploy(p.port)
        yield p


def test_monitor_shows_and_logs_a_live_game(pico, tmp_path):
    log = tmp_path / "game.jsonl"
    sends = ["set tie_us=60000", "sim 1 THROW", "sim 2 THROW", "start",
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
    assert "TIE" in out.stdout and "contest 1" in out.stdout and "P1" in out.stdout
    # ... and the saved game (the monitor came in after the board started) replays from
    # its game start to the same stream, through the same core
    report = rp.rejudge(events)
    assert report.identical and len(report.contests) == 1 and report.contests[0].same
    assert "middle of a session" in report.sessions[0].notes[0]


def test_monitor_fails_clearly_without_a_board(tmp_path):
    out = subprocess.run([sys.executable, "-m", "courtside_host.cli", "monitor", "--port",
                          str(tmp_path / "ttyACM9"), "--no-log"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 1 and "no serial port" in out.stdout


def render(ev):
    console = Console(width=100, record=True, color_system=None)
    console.print(monitor.show(ev))
    return console.export_text()


def test_events_read_as_people_want_them():
    press = render({"ev": "press", "t": 61500000, "p": 3, "b": "CATCH", "c": 4, "lag": 1250,
                    "n": 9, "early": True})
    assert "1:01.500" in press and "P3" in press and "+1.250 ms" in press and "EARLY" in press
    tie = render({"ev": "tie", "t": 0, "c": 1, "rank": 1, "players": [1, 4], "draw": [4, 1], "gap": 300})
    assert "TIE at rank 1" in tie and "0.300 ms" in tie and "P4 then P1" in tie
    assert "STUCK" in render({"ev": "stuck", "t": 0, "p": 2, "b": "DODGE"})
    assert "FAULT" in render({"ev": "fault", "t": 0, "kind": "box", "p": 1, "closed": 3})
    assert "DROPPED 5" in render({"ev": "overflow", "t": 0, "dropped": 9, "new": 5})
    board = render({"ev": "position", "t": 0, "text": "1@c1 2@d3 3@x *b8n *g8s r0 t2"}).splitlines()
    row1 = next(r for r in board if r.startswith("1 "))
    row8 = next(r for r in board if r.startswith("8 "))
    assert row1.split() == ["1", ".", ".", "1", ".", ".", ".", ".", "."]
    assert row8.split() == ["8", ".", "@", ".", ".", ".", ".", "@", "."]
    assert board[-1].split() == list("abcdefgh")
    setup = render({"ev": "position", "t": 0, "text": "1@c1 2@? *b8n *g8n r0"})
    assert "position 1@c1 2@?" in setup   # too few placed to draw: shown as text
