"""Replay with limits: damaged and hostile logs end in a message and an exit status, never
a traceback; absurd counts and times are refused at once; memory does not grow with a
session's length."""

import copy
import json
import os
import random
import subprocess
import sys
from collections import Counter

import pytest
import replaylogs
from conftest import ROOT
from courtside import driver
from courtside_host import cli
from courtside_host.link.port import event
from courtside_host.records import replay as rp

GOLDENS = ("dodgeball_round", "deathball_game", "random_00", "random_03", "random_07")


@pytest.fixture(scope="module")
def worked():
    """The worked logs: each worked script's stream, and some of the version 1 goldens."""
    logs = {name: replaylogs.stream(name) for name in replaylogs.WORKED}
    for name in GOLDENS:
        logs["v1_" + name] = (ROOT / "tests" / "golden" / "v1" / (name + ".out")).read_text()
    return logs


def replay(path, *args):
    """``courtside replay`` in this process: an exception is a traceback the user would see."""
    return cli.main(["replay", str(path), *args])


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8", errors="surrogatepass")


# the fuzzer -------------------------------------------------------------------------

HOSTILE = [None, "x", "", -1, 0, 5, 2 ** 31, 10 ** 15, 10 ** 100, 1.5, 1e308, True, False, [], {},
           [1, "x"], {"p": None}, "\ud800", "a\udfffb", "[/x]", "[bold]", "\x1b[2J", "A" * 3000,
           "MAIN", "THROW", "UP", 1000000000, [[[[[[[[]]]]]]]], {"tie_us": "x"}]


def _hostile(rng):
    """One of ``HOSTILE``, a copy: a list or dict put into a record may be changed there
    later, and the shared one must not be (once it came to hold itself)."""
    return copy.deepcopy(rng.choice(HOSTILE))


def _nudge(value, rng):
    """A value near ``value`` or of another type, or a hostile one."""
    if rng.random() < 0.5:
        return _hostile(rng)
    if type(value) is int:
        return rng.choice([value + 1, value - 1, -value, value * 1000, str(value), None])
    if isinstance(value, str):
        k = rng.randrange(len(value) + 1)
        return rng.choice([value[:k] + "\ud800" + value[k:], value.upper(), value + "x", 7, [value]])
    if isinstance(value, list):
        return rng.choice([value[::-1], value + value, value[:1], [None], "list"])
    if isinstance(value, dict):
        return rng.choice([{}, dict(value, x=1), list(value), "settings"])
    return _hostile(rng)


def _mutate_value(obj, rng, depth=0):
    """Change one value somewhere inside a record (or its kind)."""
    if isinstance(obj, dict) and obj:
        key = rng.choice(sorted(obj))
        if depth < 3 and isinstance(obj[key], (dict, list)) and obj[key] and rng.random() < 0.6:
            _mutate_value(obj[key], rng, depth + 1)
        elif rng.random() < 0.1:
            del obj[key]
        else:
            obj[key] = _nudge(obj[key], rng)
    elif isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        if depth < 3 and isinstance(obj[i], (dict, list)) and rng.random() < 0.6:
            _mutate_value(obj[i], rng, depth + 1)
        else:
            obj[i] = _nudge(obj[i], rng)


def _record(line):
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def mutate(lines, rng):
    """A damaged copy of a log's lines: one to four kinds of damage."""
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        how = rng.randrange(11)
        i = rng.randrange(len(lines)) if lines else 0
        if not lines:
            lines.append("{}")
        elif how == 0:
            del lines[i]
        elif how == 1:
            lines[i:i] = [lines[i]] * rng.randint(1, 3)
        elif how == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == 3:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        elif how == 4:
            lines = lines[:i]                                   # the log cut off
        elif how == 5:
            k = rng.randrange(len(lines[i]) + 1)                # a raw lone surrogate
            lines[i] = lines[i][:k] + "\\ud800" + lines[i][k:]
        elif how == 6:                                          # another kind
            obj = _record(lines[i])
            if obj is not None:
                obj["ev"] = rng.choice(["hello", "press", "verdict", "start", "tie", "roll", "winner",
                                        "settings", "cmd", "release", "bogus", "\ud800"])
                lines[i] = json.dumps(obj)
        elif how == 7:                                          # a new hello with bad values
            hello = {"ev": "hello", "t": 0, "fw": "0.1.0", "stream": 2, "mode": "dodgeball",
                     "capture": "sim", "boxes": 4, "settings": {"tie_us": 1000}}
            _mutate_value(hello, rng)
            lines.insert(i, json.dumps(hello))
        else:                                                   # a value changed
            obj = _record(lines[i])
            if obj is not None:
                for _ in range(rng.randint(1, 2)):
                    _mutate_value(obj, rng)
                lines[i] = json.dumps(obj)
    return lines


def _said_what(code, out, err):
    """The message a run gave for its exit status, or None when it gave none."""
    if code == 2:
        return err.strip() or None
    text = " ".join(out.split())
    if code == 0:
        return next((said for said in ("identical to the log", "what if") if said in text), None)
    for said in ("were left out", "differs at event", "was not replayed", "verdicts differ",
                 "but the replay says", "not identical to the log"):
        if said in text:
            return said
    return None


@pytest.mark.slow
def test_hundreds_of_damaged_logs_give_a_message_and_a_status_never_a_traceback(worked, tmp_path, capsys):
    rng = random.Random(2026)
    tally = Counter()
    tried = 0
    for name, text in sorted(worked.items()):
        lines = text.splitlines()
        for k in range(50):
            path = tmp_path / ("%s_%d.jsonl" % (name, k))
            _write(path, mutate(lines, rng))
            args = rng.choice([[], [], ["--all"], ["--tie-us", "100"], ["--svg", str(tmp_path / "svg")]])
            code = replay(path, *args)
            out, err = capsys.readouterr()
            assert code in (0, 1, 2), (path.read_text()[:2000], out[-1500:], err)
            said = _said_what(code, out, err)
            assert said, (code, path.read_text()[:2000], out[-1500:], err)
            tally[code, said.split(": ")[1].split(" in ")[0] if code == 2 else said] += 1
            tried += 1
    with capsys.disabled():
        print("\n%d damaged logs replayed:" % tried)
        for (code, said), n in sorted(tally.items()):
            print("  exit %d, %4d logs: %s" % (code, n, said))
    assert tried >= 400 and tally[1, "were left out"] and tally[0, "identical to the log"]


# the cases found before, one by one -----------------------------------------------------

def _with(lines, match, change):
    """``lines`` with ``change(record)`` applied to the first record ``match`` picks."""
    out = []
    done = False
    for line in lines:
        obj = _record(line)
        if not done and obj is not None and match(obj):
            change(obj)
            line = json.dumps(obj)
            done = True
        out.append(line)
    assert done
    return out


def _hello(change):
    return lambda lines: _with(lines, lambda e: e["ev"] == "hello", change)


def _first(kind, change):
    return lambda lines: _with(lines, lambda e: e["ev"] == kind, change)


def _set(**fields):
    return lambda e: e.update(fields)


CASES = {
    "settings with a bad value": (_hello(lambda e: e["settings"].update(tie_us="x")),
                                  "1 was not replayed: hello event: settings are not a board's: tie_us"),
    "settings of another type": (_hello(_set(settings=[1, 2])), "settings are not an object"),
    "boxes that are text": (_hello(_set(boxes="x")), "replayed: hello event: boxes is not a whole number"),
    "a billion boxes": (_hello(_set(boxes=1000000000)), "hello event: 1000000000 boxes, where a board has 1"),
    "five boxes": (_hello(_set(boxes=5)), "not replayed: hello event: 5 boxes, where a board has 1 to 4"),
    "a bogus mode": (_hello(_set(mode="bogus")), "hello event: the mode 'bogus', which this firmware"),
    "a press from a box hello does not have": (
        lambda lines: _hello(_set(boxes=2))(_first("press", _set(p=3))(lines)),
        "box 3, where the session's hello has 2 boxes"),
    "p null": (_first("press", _set(p=None)), "press event: p is null"),
    "a rank that is not a number": (_first("verdict", lambda e: e["order"][0].update(rank="first")),
                                    "(the first: verdict event: order holds a malformed press)"),
    "a lone surrogate in a command": (_first("cmd", _set(line="\ud800")), "lone surrogate"),
    "a lone surrogate in a kind": (_first("cmd", _set(ev="\ud800")), "kind is not text a board writes"),
    "markup in a command": (_first("cmd", _set(line="[/x] [bold]")), "differs at event"),
    "a time of 10**15": (_first("press", _set(t=10 ** 15)), "press event: t is out of range"),
    "a negative time": (_first("release", _set(t=-5)), "differs at event"),
    "a face of 7": (_first("bounce", _set(face=7)), "bounce event: face 7"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_hostile_log_found_before_gives_its_message(case, worked, tmp_path):
    change, message = CASES[case]
    name = "deathball_game" if "face" in case else "dodgeball_round"
    path = tmp_path / "log.jsonl"
    _write(path, change(worked[name].splitlines()))
    run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "replay", str(path)],
                         capture_output=True, text=True, timeout=120, check=False,
                         env=dict(os.environ, COLUMNS="300"))
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert message in " ".join(run.stdout.split()), run.stdout


def test_a_press_twelve_days_into_a_session_takes_few_passes(monkeypatch):
    """Idle stretches are jumped in steps short of half the tick circle, and a time past
    ``MAX_T`` is refused, so no time in a log can make a replay run on."""
    passes = []
    real = driver.one_pass

    def counted(core, hw, lines):
        passes.append(1)
        return real(core, hw, lines)

    monkeypatch.setattr(driver, "one_pass", counted)
    events = replaylogs.play([{"t": 0, "cmd": "ping"}])
    far = rp.MAX_T - 10 ** 9
    late = [dict(e, t=far) for e in replaylogs.play([{"t": 0, "cmd": "get"}])
            if e["ev"] in ("cmd", "settings")]
    report = rp.rejudge(events + late)
    assert report.session_count == 1 and not report.damaged_count
    assert len(passes) < 10 + 2 * rp.MAX_T // (driver.IDLE_JUMP_MS * 1000)     # a few thousand
    passes.clear()
    report = rp.rejudge(events + [dict(e, t=rp.MAX_T + 1) for e in late])
    assert report.damaged_count == 2 and "t is out of range" in report.damaged[0]
    assert len(passes) < 1000
    game = replaylogs.play([{"t": 0, "cmd": "mode referee"}, {"t": 10, "cmd": "join 1"},
                            {"t": 20, "cmd": "join 2"}, {"t": 30, "cmd": "start"},
                            {"t": 100_000, "p": 0, "b": "MAIN"}])         # initiative rolled: set-up
    assert [e["ev"] for e in game[-4:]] == ["order", "turn", "hold", "ready"]   # P? to set up, once shown
    passes.clear()
    report = rp.rejudge(game + late)       # the referee waits twelve days for the first move
    assert report.identical and len(passes) < 10_000


# memory --------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_long_single_session_replays_in_bounded_memory(tmp_path):
    """A session of a few thousand contests (one contest's events repeated, numbers and
    times moved on) replays identical to the log, with the peak memory of the command
    within ``MEMORY_MB`` and no more than a short log's peak plus a little."""
    long_log = tmp_path / "long.jsonl"
    contests = replaylogs.long_session(long_log, 6000)
    short_log = tmp_path / "short.jsonl"
    replaylogs.long_session(short_log, 20)
    peaks = {}
    for name, path in (("short", short_log), ("long", long_log)):
        with open(tmp_path / (name + ".out"), "w") as f:
            code, _, peak_mb = replaylogs.measured(["replay", str(path)], f)
        out = (tmp_path / (name + ".out")).read_text()
        out = " ".join(out.split())
        assert code == 0 and "identical to the log" in out, out[-2000:]
        peaks[name] = peak_mb
    assert "%d contests, every verdict the same" % contests in out
    assert long_log.stat().st_size > 4e6
    assert peaks["long"] < rp.MEMORY_MB, peaks
    assert peaks["long"] < peaks["short"] + 12, peaks        # the log's length is not in it


def test_many_sessions_keep_nothing_that_is_the_same(worked):
    report = rp.rejudge([event(line) for line in worked["dodgeball_round"].splitlines() * 30], keep=False)
    assert report.session_count == 30 and report.identical
    assert report.sessions == [] and report.contests == [] and report.contest_count == 30 * 4


def test_random_play_that_once_gave_a_negative_lag_replays_identical():
    """Random play seed 24 once drained a press after one stamped later, so it lagged its
    contest's first by a negative time. Edges are now judged in stamp order, so no press
    comes out before an earlier one; the log still replays as the board judged it."""
    from conftest import random_script
    events = replaylogs.play(sorted(random_script(24), key=lambda item: item["t"]))
    presses = [e for e in events if e["ev"] == "press"]
    assert presses and all(e["lag"] >= 0 for e in presses)
    report = rp.rejudge(events)
    assert report.identical and not report.damaged_count


def test_a_log_that_is_a_folder_or_timelines_that_cannot_be_written_are_refused(worked, tmp_path, capsys):
    assert replay(tmp_path) == 2 and "is a directory, not a regular file" in capsys.readouterr().err
    log = tmp_path / "round.jsonl"
    log.write_text(worked["dodgeball_round"])
    (tmp_path / "taken").write_text("a file where the pictures should go")
    assert replay(log, "--svg", str(tmp_path / "taken")) == 2
    assert "File exists" in capsys.readouterr().err


def test_a_replay_draws_nothing_and_lights_nothing(worked, monkeypatch):
    """A replay has no matrix, box lights or buzzer: no stage draws a frame, no light
    pattern or tune is started, and every worked log still replays identical."""
    from courtside import display, lights, tones
    from courtside.deathball import view
    drawn = Counter()

    def counted(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            drawn[name] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    for module, names in ((view, ("board", "face", "bars", "clear", "corner_arrow", "wall_arrow")),
                          (display, ("lobby", "contest", "blank"))):
        for name in names:
            counted(module, name)
    counted(lights.Lights, "set")
    counted(tones.Tunes, "play")
    for name in replaylogs.WORKED:
        report = rp.rejudge([event(line) for line in worked[name].splitlines()])
        assert report.identical, name
    assert drawn == Counter(), drawn
    # where a matrix is watched, the same counters see the lobby drawn and its LEDs set
    from courtside import settings as config
    from courtside.clock import Timeline
    from courtside.lobby import Lobby
    from courtside.stage import Context
    ctx = Context(dict(config.DEFAULTS), None, 4, Timeline(0), [], 0)
    lobby = Lobby("dodgeball")
    lobby.start(ctx)
    lobby.press(ctx, 0, 0, 0)
    assert drawn["lobby"] == 2 and drawn["set"] == 1 and drawn["play"] == 1, drawn


def test_a_log_cut_at_any_event_stops_there_and_is_no_mismatch(worked):
    """Cut after any of its events (a cable pulled, a board reset, a monitor stopped), a
    worked log replays identical, with no verdict, end or draw said to differ: what the
    replay writes after the cut is counted and said ("the log stops here"), not compared."""
    said = Counter()
    for name in replaylogs.WORKED:
        lines = worked[name].splitlines()
        for k in range(1, len(lines) + 1):
            report = rp.rejudge([event(line) for line in lines[:k]])
            assert report.identical and not report.differing_count and not report.outcome_differing, (name, k)
            assert report.unrecorded == [], (name, k)
            for note in report.sessions[0].notes:
                said[note.split(",")[0].split(":")[0]] += 1
    assert said["the log stops here"] > 150
    assert said["the log stops inside the board's pass at 17.000 s"] >= 1   # a fault whose cause was cut off


def test_a_cut_log_still_differs_where_the_board_and_the_replay_disagree(worked):
    lines = worked["dodgeball_round"].splitlines()
    at = next(i for i, line in enumerate(lines) if '"ev":"verdict"' in line)
    tampered = lines[:at] + [lines[at].replace('"rank":2', '"rank":3', 1)] + lines[at + 1:at + 3]
    assert tampered[at] != lines[at]
    report = rp.rejudge([event(line) for line in tampered])
    assert not report.identical and report.differing_count == 1


def test_the_virtual_pico_refusing_a_sim_line_is_not_a_difference(worked):
    """The console's refusal of a bad ``sim`` line is the virtual board's, not the core's:
    a log with one replays identical (any other error the core did not write differs)."""
    lines = worked["dodgeball_round"].splitlines()
    at = next(i for i, line in enumerate(lines) if '"ev":"press"' in line)
    t = json.loads(lines[at])["t"]
    refusal = json.dumps({"ev": "error", "t": t, "msg": "sim needs: sim BOX BUTTON [down|up|tap]",
                          "line": "sim 9"})
    assert rp.rejudge([event(line) for line in lines[:at] + [refusal] + lines[at:]]).identical
    other = refusal.replace('"line": "sim 9"', '"line": "simulate"')
    assert not rp.rejudge([event(line) for line in lines[:at] + [other] + lines[at:]]).identical


def test_what_if_pairs_contests_by_their_presses():
    """Judged with a shorter contest window, a contest splits and the numbers after it
    move on; each board contest is compared with the replay's that starts with the same
    press, not with the one that has its number."""
    script = [{"t": 100000, "p": 1, "b": "THROW"}, {"t": 150000, "p": 2, "b": "THROW"},
              {"t": 200000, "cmd": "start"},
              {"t": 1000000, "p": 1, "b": "THROW"}, {"t": 1400000, "p": 2, "b": "DODGE"},
              {"t": 5000000, "p": 2, "b": "THROW"}, {"t": 5000300, "p": 1, "b": "CATCH"},
              {"t": 9000000, "p": 1, "b": "THROW"}, {"t": 9000200, "p": 2, "b": "PASS"}]
    events = replaylogs.play(script)
    assert [e["c"] for e in events if e["ev"] == "verdict"] == [1, 2, 3]
    report = rp.rejudge(events, {"contest_ms": 300})
    pairs = [c for c in report.contests if c.recorded and c.replayed]
    assert len(pairs) == 3
    for c in pairs:
        assert min(p["n"] for p in c.recorded["order"]) == min(p["n"] for p in c.replayed["order"])
    assert [c.replayed["c"] for c in pairs] == [1, 3, 4]       # the first contest split in two
    assert [c.number[1] for c in pairs] == [1, 2, 3]           # shown by the board's numbers


def test_a_deathball_winner_is_reported_without_asking(worked, tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_text(worked["deathball_game"])
    run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "replay", str(log)],
                         capture_output=True, text=True, timeout=120, check=False,
                         env=dict(os.environ, COLUMNS="200"))
    assert run.returncode == 0, run.stdout
    assert "session 1 game 1, Deathball (refereed): Player 3 (cyan) wins the game! (the board and the " \
           "replay agree)" in run.stdout


def test_the_replay_runs_the_core_itself_by_the_drivers_loop(worked, monkeypatch):
    """No core of its own: each session is the firmware's ``Core``, run by the driver's
    ``run_virtual`` on a board whose matrix is never drawn on."""
    from courtside.core import Core
    ran = []
    real = driver.run_virtual

    def spy(core, board):
        ran.append((type(core), board))
        return real(core, board)

    monkeypatch.setattr(driver, "run_virtual", spy)
    report = rp.rejudge([event(line) for line in (worked["deathball_game"] + worked["dodgeball_round"])
                         .splitlines()])
    assert report.identical and report.session_count == 2
    assert [kind for kind, _ in ran] == [Core, Core]
    assert all(board.frame == bytearray(192) for _, board in ran)


def test_a_layer_that_takes_events_is_handed_records_not_lines():
    """``driver.apply``: a layer with ``take_event`` (a replay's board) gets each event as
    it is; any other gets its line."""
    from courtside.effects import EVENT

    class Taker:
        def __init__(self):
            self.taken = []

        def take_event(self, kind, t, fields):
            self.taken.append((kind, t, fields))

        def write_line(self, text):
            raise AssertionError(text)

    class Writer:
        def __init__(self):
            self.lines = []
            self.write_line = self.lines.append

    taker, writer = Taker(), Writer()
    start = {"mode": "dodgeball", "players": [1, 2]}
    for hw in (taker, writer):
        assert driver.apply([(EVENT, "join", 5, {"p": 2}), (EVENT, "start", 9, start)], hw) == 0
    assert taker.taken == [("join", 5, {"p": 2}), ("start", 9, start)]
    assert writer.lines == ['{"ev":"join","t":5,"p":2}',
                            '{"ev":"start","t":9,"mode":"dodgeball","players":[1,2]}']
