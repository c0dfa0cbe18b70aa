"""Replay feeds a saved log's inputs back through the firmware's own core."""

import json
import subprocess
import sys

import pytest
from conftest import ROOT, random_script, simulate
from courtside_host.records import eventlog
from courtside_host.records import replay as rp
from courtside_host.views import render, timeline

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
    assert {"bounce", "death", "move", "ready"} <= {e["ev"] for e in events}
    report = rp.rejudge(events)
    assert report.identical and report.unrecorded == []
    # Where nobody watches, the rolls and the runs are not drawn, yet the board is ready
    # again at the same moments, to the microsecond, as the matrix's schedule has it.
    ready = [(e["t"], e["p"]) for e in events if e["ev"] == "ready"]
    assert [(e["t"], e["p"]) for e in report.sessions[0].replayed if e["ev"] == "ready"] == ready


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


def _script_stream(name, *args):
    run = simulate(sys.executable, *args, ROOT / "tests" / "scripts" / (name + ".jsonl"))
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_each_contest_is_headed_with_its_own_settings():
    report = rp.rejudge(_script_stream("dodgeball_round"))
    windows = [(c.recorded["c"], c.settings["tie_us"], c.recorded["tie_us"]) for c in report.contests]
    assert windows[0][1:] == (1000, 1000) and windows[-1][1:] == (500, 500)   # `set tie_us=500` between
    assert "tie window 0.500 ms, contest 1500 ms" in render.contest_heading(report.contests[-1].recorded,
                                                                             report.contests[-1].settings)


def test_a_deathball_game_is_rejudged_to_its_winner():
    events = _script_stream("deathball_game")
    report = rp.rejudge(events)
    (outcome,) = report.outcomes
    assert outcome.mode == "referee" and outcome.same and outcome.replayed["p"] == 3
    winner = next(e for e in events if e["ev"] == "winner")
    winner["p"] = 1                                     # a log that says someone else won
    (tampered,) = rp.rejudge(events).outcomes
    assert not tampered.same


def test_a_log_that_starts_mid_game_is_rejudged_as_far_as_it_can_be(tmp_path):
    events = _script_stream("dodgeball_round")
    start = next(i for i, e in enumerate(events) if e["ev"] == "start")
    mid = events[start + 4:]                            # in the middle of contest 1
    report = rp.rejudge(mid)
    assert report.identical and not report.sessions
    assert [c.recorded["c"] for c in report.contests] == [2, 3, 4]
    assert any("contest 1 was already open" in note for note in report.notes)
    log = tmp_path / "mid.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in mid))
    cli = [sys.executable, "-m", "courtside_host.cli", "replay", str(log)]
    run = subprocess.run(cli, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0 and "3 contests, every verdict the same" in " ".join(run.stdout.split())
    verdict = next(e for e in mid if e["ev"] == "verdict" and e["c"] == 2)
    verdict["order"][0], verdict["order"][1] = verdict["order"][1], verdict["order"][0]
    log.write_text("".join(json.dumps(e) + "\n" for e in mid))
    bad = subprocess.run(cli, capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 1 and "1 verdicts differ" in " ".join(bad.stdout.split())


def test_a_deathball_log_without_its_start_says_what_cannot_be_rejudged():
    events = _script_stream("deathball_game")
    turn = next(i for i, e in enumerate(events) if e["ev"] == "turn")
    report = rp.rejudge(events[turn:])
    assert any("middle of a Deathball game" in note for note in report.notes)


def test_a_contest_drawn_as_a_timeline(tmp_path):
    import xml.etree.ElementTree as ET

    verdict = {"ev": "verdict", "t": 0, "c": 2, "tie_us": 1000, "order": [
        {"n": 1, "p": 1, "b": "THROW", "rank": 1, "lag": 0, "tie": False, "early": False},
        {"n": 3, "p": 3, "b": "CATCH", "rank": 2, "lag": 300700, "tie": True, "early": False},
        {"n": 2, "p": 2, "b": "CATCH", "rank": 2, "lag": 300000, "tie": True,
         "early": "throw already answered"}]}
    svg = ET.fromstring(timeline.draw(verdict, render.Names({3: "Cy"})))
    ns = "{http://www.w3.org/2000/svg}"
    assert len(svg.findall(ns + "line[@class='lane']")) == 3
    assert len(svg.findall(ns + "circle[@class='press']")) == 3
    windows = svg.findall(ns + "rect[@class='tie-window']")
    assert len(windows) == 2 and float(windows[1].get("width")) > 0       # one per rank
    text = " ".join(t.text or "" for t in svg.iter(ns + "text"))
    assert "Cy (cyan)" in text and "=second CATCH +300.7 ms" in text and "first THROW (first)" in text
    assert "EARLY: the throw was already answered" in text and "tie window 1.000 ms" in text
    log = tmp_path / "round.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in _script_stream("dodgeball_round")))
    out = subprocess.run([sys.executable, "-m", "courtside_host.cli", "replay", str(log), "--svg",
                          str(tmp_path / "svg")], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    drawn = sorted(p.name for p in (tmp_path / "svg").iterdir())
    assert len(drawn) == 4 and drawn[0] == "session1-game1-contest1.svg"
    assert all(ET.parse(tmp_path / "svg" / name).getroot().tag == ns + "svg" for name in drawn)


class _Flash:
    """A board whose flash refuses its first write and takes the next (``answers``)."""

    def __init__(self, board, answers):
        self.board, self.answers, self.asked = board, list(answers), []

    def __call__(self, settings):
        self.asked.append(settings)
        return self.answers.pop(0)


def test_a_board_log_with_a_failed_and_a_successful_save_replays_identical(tmp_path):
    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair, seeded
    from courtside_sim.board import SimBoard
    from courtside_sim.script import Script
    items = [{"t": 100_000, "cmd": "save"}, {"t": 200_000, "cmd": "set tie_us=800"},
             {"t": 300_000, "cmd": "save"}, {"t": 400_000, "p": 1, "b": "THROW"},
             {"t": 500_000, "p": 2, "b": "THROW"}, {"t": 600_000, "cmd": "start"},
             {"t": 700_000, "cmd": "save"}, {"t": 1_000_000, "p": 1, "b": "THROW"}]
    path = tmp_path / "saves.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    lines = []
    board = SimBoard(rp.pins_for(4), out=lines.append)
    board.save_settings = flash = _Flash(board, ["flash write failed: worn out", None])
    board.play(Script(lambda: open(path, "rb"), board.pins))
    core = Core(board.pins, None, Fair(seeded(3)), now=board.ticks_us(), levels=board.levels(),
                capture="sim", can_save=True)
    driver.run_virtual(core, board)
    events = [json.loads(line) for line in lines]
    answers = [(e["ev"], e.get("msg")) for e in events if e["ev"] in ("ok", "error")]
    # one answer a save: the failed write's error, the written one's ok, and the core's own
    # refusal during the game (the flash is not asked)
    assert answers == [("error", "flash write failed: worn out"), ("ok", None), ("ok", None),
                       ("error", "save only between games (in a lobby): flash writes pause capture")]
    assert len(flash.asked) == 2 and flash.asked[1]["tie_us"] == 800
    assert events[0]["can_save"] is True and events[0]["stream"] == 6
    cmd_t = {e["t"] for e in events if e["ev"] == "cmd" and e["line"] == "save"}
    assert {e["t"] for e in events if e["ev"] in ("ok", "error") and e.get("line", "save") == "save"
            and e.get("cmd", "save") == "save"} == cmd_t   # the time of the pass that saved
    report = rp.rejudge(events)
    assert report.identical, report.sessions[0].difference
    assert [e["ev"] for e in report.sessions[0].replayed] == [e["ev"] for e in events]
    # the same log told the board had nowhere to save does not replay identical
    told = [dict(e, can_save=False) if e["ev"] == "hello" else e for e in events]
    assert not rp.rejudge(told).identical


def test_a_timeline_keeps_late_labels_on_its_canvas_and_its_tie_window_visible():
    """A press at the end of a long contest is labelled to the left of its dot, its EARLY
    reason on a line of its own, all on the canvas; a 1 ms window in 300 ms is still wide
    enough to see."""
    import xml.etree.ElementTree as ET

    verdict = {"ev": "verdict", "t": 0, "c": 1, "tie_us": 1000, "order": [
        {"n": 1, "p": 1, "b": "THROW", "rank": 1, "lag": 0, "tie": False, "early": False},
        {"n": 2, "p": 4, "b": "CATCH", "rank": 2, "lag": 300000, "tie": False,
         "early": "throw already answered"}]}
    svg = ET.fromstring(timeline.draw(verdict))
    ns = "{http://www.w3.org/2000/svg}"
    width = float(svg.get("width"))
    for label in svg.iter(ns + "text"):
        if "label" in (label.get("class") or ""):
            left = float(label.get("x"))
            assert 0 <= left and left + timeline._CHAR * len(label.text) <= width, label.text
    early = [t.text for t in svg.iter(ns + "text") if (t.get("class") or "").endswith("early")]
    assert early == ["EARLY: the throw was already answered"]
    windows = svg.findall(ns + "rect[@class='tie-window']")
    assert windows and all(float(w.get("width")) >= timeline._MIN_WINDOW for w in windows)


@pytest.mark.parametrize("name", ["deathball_game", "deathball_shrink"])
def test_a_version_4_log_still_replays_identical(name):
    """tests/streams/v4_*.jsonl: the worked games as the firmware streamed them in version 4,
    before ``hold`` (and before a refusal named what it waits for by it). Today's core
    replays them identical: its ``hold`` lines are set aside for a log that has none."""
    path = ROOT / "tests" / "streams" / ("v4_%s.jsonl" % name)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert events[0]["stream"] == 4 and not [e for e in events if e["ev"] == "hold"]
    report = rp.rejudge(events)
    assert report.identical and not report.damaged
    assert any(e["ev"] == "hold" for e in report.sessions[0].replayed)
    # a v5 log whose hold lines were lost is not identical: the hold is compared there
    today = _script_stream(name)
    assert today[0]["stream"] == 6
    assert rp.rejudge(today).identical
    assert not rp.rejudge([e for e in today if e["ev"] != "hold"]).identical


def _v5_shrink_log():
    path = ROOT / "tests" / "streams" / "v5_deathball_shrink.jsonl"
    return path.read_text().splitlines()


def test_a_version_5_log_with_shrinks_ring_still_replays_and_follows():
    """tests/streams/v5_deathball_shrink.jsonl: a game in which the red border goes on, as the firmware
    streamed it in version 5, when ``shrink`` named its border ``ring``. Replay reads it
    with today's name and finds it identical; the follower keeps the border from it."""
    from courtside_follow.follower import Follower
    lines = _v5_shrink_log()
    events = [json.loads(line) for line in lines]
    shrinks = [e for e in events if e["ev"] == "shrink"]
    assert events[0]["stream"] == 5 and [e["ring"] for e in shrinks] == [1]
    assert not [e for e in shrinks if "border" in e]
    report = rp.rejudge(events)
    assert report.identical and not report.damaged
    follower = Follower()
    seen = []
    for line in lines:
        record, problem = follower.feed_line(line)
        assert problem is None, (line, problem)
        if record["ev"] == "shrink":
            seen.append(follower.chessboard.border)
    assert seen == [1] and follower.unread == 0


def test_the_stream_names_the_border_border_and_no_longer_ring():
    """Since stream 6 ``shrink`` says ``border``, never ``ring``; a stream-6 record with the
    old name is not an event (the schema says what it lacks)."""
    from courtside_follow import schema
    today = _script_stream("deathball_shrink")
    shrinks = [e for e in today if e["ev"] == "shrink"]
    assert today[0]["stream"] == 6 and [e["border"] for e in shrinks] == [1]
    assert not [e for e in today if "ring" in e]
    old = {"ev": "shrink", "t": 1, "ring": 1, "size": 6, "corners": ["b2", "g7"]}
    assert schema.check(dict(old), 6) == "shrink event without border"
    assert schema.check(dict(old), 5) is None
    assert schema.upgrade(dict(old), 5) == {"ev": "shrink", "t": 1, "border": 1, "size": 6,
                                            "corners": ["b2", "g7"]}


def _replay_command(path):
    run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "replay", str(path)],
                         capture_output=True, text=True, timeout=120, check=False)
    return run.returncode, run.stdout, run.stderr


@pytest.mark.parametrize("text, why", [
    ("not a log\n", "none of its 1 lines is an event of the stream (line 1: 'not a log')"),
    ('{"ev":"hello"\n', "none of its 1 lines is an event"),
    ("", "it holds no event"),
    ('{"ev":"hello","t":0,"fw":"0.1.0","stream":5,"mode":"dodgeball","capture":"sim","boxes":4,'
     '"settings":{},"can_save":false}\n', "it holds the board's start (hello) and no event after it"),
])
def test_a_file_that_is_no_log_gets_one_clear_error_and_no_report(tmp_path, text, why):
    path = tmp_path / "not-a-log.jsonl"
    path.write_text(text)
    code, out, err = _replay_command(path)
    assert code == 2 and err.startswith("courtside replay: nothing to replay in ") and why in err
    assert out == ""                       # no "0 sessions ... every verdict the same"


def test_a_damaged_line_in_a_log_is_said_before_anything_is_blamed(tmp_path):
    lines = _stream_lines("dodgeball_round")
    lines[5] = "garbage"
    path = tmp_path / "damaged.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = _replay_command(path)
    said = " ".join(out.split())
    left_out = "1 lines of the log are not events and were left out (the first, line 6: 'garbage')"
    assert code == 1 and left_out in said
    assert said.index(left_out) < said.index("session 1 differs")


def test_a_log_picked_up_mid_session_says_so_once_and_replays_identical(tmp_path):
    lines = _stream_lines("dodgeball_round")
    first_join = next(i for i, line in enumerate(lines) if '"ev":"join"' in line)
    path = tmp_path / "monitor.jsonl"
    path.write_text("\n".join(lines[first_join + 2:]) + "\n")
    code, out, _ = _replay_command(path)
    said = " ".join(out.split())
    assert code == 0 and said.count("middle of a session") == 1, said
    assert "replayed from its first game start" in said and "identical to the log" in said


def _stream_lines(name):
    return simulate(sys.executable, ROOT / "tests" / "scripts" / (name + ".jsonl")).stdout.splitlines()


def test_a_log_picked_up_mid_game_is_rejudged_only_until_the_board_leaves_the_game():
    """A monitor log may begin with the main button already held: its long press takes
    the board to a lobby the replay, which never saw the button go down, cannot reach.
    The game's contests before it are re-judged; the lobby's joining presses after it are
    not taken for contests."""
    import replaylogs
    script = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 1000, "cmd": "start"},
              {"t": 50_000, "p": 0, "b": "MAIN", "e": "down"},
              {"t": 100_000, "p": 1, "b": "THROW"}, {"t": 100_400, "p": 2, "b": "DODGE"},
              {"t": 1_500_000, "p": 0, "b": "MAIN", "e": "up"},
              {"t": 2_000_000, "p": 1, "b": "PASS"}, {"t": 3_000_000, "p": 2, "b": "CATCH"},
              {"t": 4_000_000, "p": 3, "b": "THROW"}]
    events = replaylogs.play(script)
    kinds = [e["ev"] for e in events]
    assert kinds.count("lobby") == 2 and kinds.count("join") == 5 and kinds.count("verdict") == 1
    mid = events[next(i for i, e in enumerate(events) if e["ev"] == "press"):]
    report = rp.rejudge(mid)
    assert report.identical and not report.differing_count, [c.replayed for c in report.contests]
    assert [c.number for c in report.contests] == [(0, 1)] and report.contests[0].same
