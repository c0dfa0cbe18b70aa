"""Replay feeds a saved log's inputs back through the firmware's own core."""

import json
import subprocess
import sys

import pytest
from conftest import ROOT, random_script, simulate
from courtside_host import eventlog
from courtside_host import replay as rp

# Three players join and start; contest 1 has a 400 us tie (P1, P2) then P3 2.5 ms later;
# contest 2 has P2 first, then P3 and P1 700 us apart (a tie for second); a new game
# follows with one clear contest.
SCRIPT = [
    {"t": 100000, "p": 1, "b": "THROW"}, {"t": 200000, "p": 2, "b": "THROW"},
    {"t": 300000, "p": 3, "b": "THROW"}, {"t": 400000, "cmd": "start"},
    {"t": 1000000, "p": 1, "b": "THROW"}, {"t": 1000400, "p": 2, "b": "DODGE"},
    {"t": 1002500, "p": 3, "b": "CATCH"},
    {"t": 5000000, "p": 2, "b": "THROW"}, {"t": 5030000, "p": 3, "b": "CATCH"},
    {"t": 5030700, "p": 1, "b": "PASS"},
    {"t": 8000000, "cmd": "new"}, {"t": 8100000, "p": 1, "b": "THROW"},
    {"t": 8200000, "p": 2, "b": "THROW"}, {"t": 8300000, "cmd": "start"},
    {"t": 9000000, "p": 2, "b": "THROW"}, {"t": 9250000, "p": 1, "b": "DODGE"},
]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A game recorded from the firmware (headless simulator, virtual time) as a log."""
    where = tmp_path_factory.mktemp("replay")
    script = where / "game.jsonl"
    script.write_text("\n".join(json.dumps(item) for item in SCRIPT) + "\n")
    out = simulate(sys.executable, "--seed", "7", script)
    log = where / "log.jsonl"
    log.write_text('{"ev":"log","format":1}\nMicroPython REPL noise\n' + out.stdout)
    return log


def test_replay_reproduces_the_whole_stream(recorded):
    events = eventlog.read(recorded)
    report = rp.rejudge(events)
    verdicts = [e for e in events if e["ev"] == "verdict"]
    assert len(report.sessions) == 1 and report.identical
    assert len(report.contests) == len(verdicts) == 3 and all(c.same for c in report.contests)
    assert [c.replayed["order"] for c in report.contests] == [v["order"] for v in verdicts]
    assert report.unrecorded == []
    recorded_kinds = [e["ev"] for e in events if e["ev"] not in ("log",)]
    assert [e["ev"] for e in report.sessions[0].replayed] == recorded_kinds


def test_another_tie_window_shows_which_verdicts_change(recorded):
    report = rp.rejudge(eventlog.read(recorded), {"tie_us": 100})
    changed = report.differing()
    assert [c.number for c in changed] == [(1, 1), (1, 2)]
    first = changed[0].replayed["order"]
    assert [(o["p"], o["rank"], o["tie"]) for o in first] == [(1, 1, False), (2, 2, False), (3, 3, False)]
    wider = rp.rejudge(eventlog.read(recorded), {"tie_us": 3000})
    assert [c.number for c in wider.differing()] == [(1, 1)]
    assert wider.unrecorded == [(1, ("tie", (0, 1, 2)))]


def test_replay_command_exit_status_and_output(recorded, tmp_path):
    cli = [sys.executable, "-m", "courtside_host.cli", "replay"]
    same = subprocess.run([*cli, str(recorded)], capture_output=True, text=True, timeout=60, check=False)
    assert same.returncode == 0 and "every verdict the same" in same.stdout
    assert "identical to the log" in same.stdout
    other = subprocess.run([*cli, str(recorded), "--tie-us", "100"], capture_output=True, text=True,
                           timeout=60, check=False, env={"COLUMNS": "160", "PATH": ""})
    assert other.returncode == 0 and "2 verdicts differ" in other.stdout
    tampered = tmp_path / "tampered.jsonl"
    text = recorded.read_text()
    assert '"lag":400,"n":2,"p":2,"rank":1,"tie":true' in text
    tampered.write_text(text.replace('"lag":400,"n":2,"p":2,"rank":1,"tie":true',
                                                     '"lag":400,"n":2,"p":2,"rank":2,"tie":false'))
    bad = subprocess.run([*cli, str(tampered)], capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 1 and "1 verdicts differ" in bad.stdout


def test_replay_across_the_tick_wrap(tmp_path):
    """Ticks wrap every 2**30 us (about 18 minutes); a contest straddling it replays the same."""
    wrap = 1 << 30
    script = [{"t": 100000, "p": 1, "b": "THROW"}, {"t": 200000, "p": 2, "b": "THROW"},
              {"t": 300000, "cmd": "start"},
              {"t": wrap - 300, "p": 2, "b": "THROW"}, {"t": wrap + 200, "p": 1, "b": "CATCH"},
              {"t": wrap + 900000, "p": 1, "b": "THROW"}]
    path = tmp_path / "wrap.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in script) + "\n")
    out = simulate(sys.executable, path)
    log = tmp_path / "log.jsonl"
    log.write_text(out.stdout)
    events = eventlog.read(log)
    verdicts = [e for e in events if e["ev"] == "verdict"]
    assert sorted(o["lag"] for o in verdicts[0]["order"]) == [0, 500, 900300]
    report = rp.rejudge(events)
    assert report.identical and len(report.contests) == len(verdicts)
    assert sorted(o["tie"] for o in verdicts[0]["order"]) == [False, True, True]   # 500 us < 1000 us
    narrow = rp.rejudge(events, {"tie_us": 100})
    assert [o["tie"] for o in narrow.contests[0].replayed["order"]] == [False, False, False]
    assert [o["p"] for o in narrow.contests[0].replayed["order"]] == [2, 1, 1]


def _simulate(where, items):
    script = where / "script.jsonl"
    script.write_text("\n".join(json.dumps(item) for item in items) + "\n")
    return [json.loads(line) for line in simulate(sys.executable, script).stdout.splitlines()]


def test_settings_changed_mid_game_and_withdrawn_presses_replay_as_the_board_judged():
    """The worked example changes the tie window during play and has a box fault."""
    run = simulate(sys.executable, ROOT / "tests" / "scripts" / "dodgeball_round.jsonl")
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert any(e["ev"] == "withdrawn" for e in events) and any(e["ev"] == "stuck" for e in events)
    report = rp.rejudge(events)
    assert report.identical and report.contests and all(c.same for c in report.contests)
    assert len(report.contests) == sum(e["ev"] == "verdict" for e in events)


def test_a_long_pause_between_contests_does_not_confuse_the_replay(tmp_path):
    """Twelve minutes apart, press stamps are more than half the tick circle apart."""
    pause = 12 * 60 * 1_000_000
    items = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 1000, "cmd": "start"},
             {"t": 100_000, "p": 1, "b": "THROW"}, {"t": 100_600, "p": 2, "b": "CATCH"},
             {"t": 100_000 + pause, "p": 2, "b": "THROW"}, {"t": 100_300 + pause, "p": 1, "b": "DODGE"}]
    events = _simulate(tmp_path, items)
    report = rp.rejudge(events)
    assert report.identical and len(report.contests) == 2


@pytest.mark.parametrize("name", ["deathball_game", "deathball_shrink"])
def test_a_refereed_deathball_game_replays_move_for_move(name):
    """The worked Deathball games: forced and fair dice, set-up with the cursor, refused
    arrows, an undo, pushes, bounces, deaths, the board shrinking, positions, the winner."""
    run = simulate(sys.executable, "--seed", "3", ROOT / "tests" / "scripts" / (name + ".jsonl"))
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert {"bounce", "death", "move"} <= {e["ev"] for e in events}
    report = rp.rejudge(events)
    assert report.identical and report.unrecorded == []


def test_fair_rolls_come_from_the_log(tmp_path):
    items = [{"t": 0, "cmd": "mode die"}] + [{"t": 6_000_000 * (i + 1), "p": 0, "b": "MAIN"}
                                              for i in range(6)]
    events = _simulate(tmp_path, items)
    faces = [e["face"] for e in events if e["ev"] == "roll"]
    assert len(faces) == 6 and not any(e["forced"] for e in events if e["ev"] == "roll")
    report = rp.rejudge(events)
    assert report.identical and report.unrecorded == []


def test_a_face_the_dice_command_did_not_give_is_caught():
    run = simulate(sys.executable, ROOT / "tests" / "scripts" / "deathball_game.jsonl")
    events = [json.loads(line) for line in run.stdout.splitlines()]
    bounce = next(e for e in events if e["ev"] == "bounce")
    bounce["face"] = bounce["face"] % 6 + 1          # the log says another face came up
    (session,) = rp.rejudge(events).differences
    index, was, now = session.difference
    assert was["ev"] == now["ev"] == "bounce" and was["face"] == bounce["face"] != now["face"]


def test_every_session_in_a_file_is_replayed_on_its_own(tmp_path):
    first = _simulate(tmp_path, SCRIPT)
    second = _simulate(tmp_path, [{"t": 0, "cmd": "mode referee"}, {"t": 10, "cmd": "join 1"},
                                  {"t": 20, "cmd": "join 2"}, {"t": 30, "cmd": "start"},
                                  {"t": 100_000, "p": 0, "b": "MAIN"}])
    report = rp.rejudge(first + second)
    assert len(report.sessions) == 2 and report.identical


def test_random_play_replays_event_for_event(tmp_path):
    """The differential test's adversarial scripts: bounce, held and stuck buttons, box
    faults, the main button held, commands good and bad."""
    for seed in range(6):
        events = _simulate(tmp_path, random_script(seed))
        report = rp.rejudge(events)
        assert report.identical, (seed, report.differences[0].difference)
