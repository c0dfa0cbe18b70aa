"""The web page in a real browser (headless Chromium): the unchanged core in MicroPython
WebAssembly, played with the keyboard, drawn by the one renderer.

Each test loads the page from ``courtside web`` as a user would, presses keys through
the browser's own input events, and checks three things: the stream the page's core
wrote (it replays through the same core on CPython to the same stream), what the page
drew (the DOM, and the matrix in a screenshot's pixels), and, for scripts, that the page
gives the headless simulator's stream byte for byte.
"""

import json
import re
import subprocess
import sys
import time

import pytest
from browser import Web, chromium, close, open_page, pixels, wait_for
from conftest import ROOT, deployed_pico, simulate
from courtside_host.views import render
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def web():
    server = Web()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def driver():
    d = chromium()
    yield d
    close(d)


def keys(driver, *steps):
    """Each step a key tapped (down, then up), or a number of seconds to wait."""
    for step in steps:
        if isinstance(step, float):
            time.sleep(step)
            continue
        ActionChains(driver).key_down(step).pause(0.06).key_up(step).perform()
        time.sleep(0.08)


def lines(driver):
    return driver.execute_script("return window.courtside.lines")


def events(driver, kind):
    return [json.loads(line) for line in lines(driver) if json.loads(line)["ev"] == kind]


def wait_event(driver, kind, timeout=30, after=0):
    """Until the page has more than ``after`` events of ``kind`` (``count`` gives it now)."""
    return wait_for(driver, "return window.courtside.lines.filter(l => JSON.parse(l).ev === %r).length > %d"
                    % (kind, after), timeout, "a %s event" % kind)


def count(driver, kind):
    return driver.execute_script("return window.courtside.lines.filter(l => JSON.parse(l).ev === %r).length"
                                 % kind)


def check_matrix(driver):
    """The canvas in a screenshot shows every cell in the colour the renderer gives the
    last frame (checked here on CPython, from the frame the page's core produced).

    A blinking cue or the die's tumbling may change the frame while the shot is taken,
    and the screen shows a frame a paint after the page drew it; so a shot counts only if
    no frame was drawn while it was taken, and a mismatch is tried again a few times: a
    page that draws wrongly fails every time."""
    wrong = None
    for _ in range(20):
        frame, shot, steady = matrix_shot(driver)
        if not steady:
            continue
        assert frame and len(frame) == 192
        wrong = _wrong_cells(shot, frame)
        if not wrong:
            return frame
        time.sleep(0.1)
    pytest.fail("the matrix on screen is not the frame the core drew: %s" % wrong)


def matrix_shot(driver):
    """(the page's last frame, a screenshot of the matrix, whether no frame was drawn
    while it was taken)."""
    frame, count = driver.execute_script("const c = window.courtside; return [c.frame, c.frames]")
    shot = pixels(driver.find_element(By.ID, "matrix").screenshot_as_png)
    return frame, shot, driver.execute_script("return window.courtside.frames") == count


def _wrong_cells(shot, frame):
    """[(cell, on screen, wanted)] for every cell the shot shows otherwise than the
    renderer says; a frame that lights nothing is wrong too."""
    off = tuple(render.FACE["off"])
    wanted = [want or off for want in render.cells(bytes(frame))]
    if all(want == off for want in wanted):
        return ["the frame lights nothing"]
    wrong = []
    for i, (got, want) in enumerate(zip(seen_cells(shot, frame), wanted)):
        if any(abs(g - w) > 2 for g, w in zip(got, want)):
            wrong.append((i, got, want))
    return wrong


def seen_cells(shot, frame):
    """Each cell's colour in the shot: at the centre of a bright pixel's disc or an unlit
    LED, on the outline of a dim pixel (drawn as a hollow circle, radius 0.34 of a cell)."""
    cell = shot.width / 8
    dims = render.dims(bytes(frame))
    return [shot(int((i % 8 + 0.5 + (0.34 if dims[i] else 0)) * cell), int((i // 8 + 0.5) * cell))
            for i in range(64)]


def replays_identically(tmp_path, text):
    log = tmp_path / "page.jsonl"
    log.write_text(text)
    run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "replay", str(log)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "identical to the log" in run.stdout, run.stdout
    return run.stdout


def test_a_dodge_ball_round_played_with_the_keyboard(web, driver, tmp_path):
    open_page(driver, web.url + "?mode=dodgeball")
    wait_event(driver, "lobby")
    name = driver.find_element(By.CSS_SELECTOR, "#names input[data-player='1']")
    name.send_keys("Ann", Keys.TAB)         # shown in every view; the stream keeps numbers
    driver.find_element(By.TAG_NAME, "body").click()
    keys(driver, "1", "q")
    assert driver.find_element(By.ID, "joined").text.split("\n") == ["Ann (red)", "Player 2 (yellow)"]
    keys(driver, " ")
    wait_event(driver, "start")
    assert "Play: press the button" in driver.find_element(By.ID, "status").text
    assert driver.execute_script("return window.courtside.tones") > 0     # the start tune
    # player 1 throws, player 2 catches a clear 0.3 s later: no tie, no early answer
    keys(driver, "1", 0.3, "e")
    wait_event(driver, "verdict")
    verdict = events(driver, "verdict")[0]
    assert [(o["p"], o["b"], o["rank"]) for o in verdict["order"]] == [(1, "THROW", 1), (2, "CATCH", 2)]
    assert [p["p"] for p in events(driver, "join")] == [1, 2]
    shown = [" ".join(li.text.split()) for li in driver.find_elements(By.CSS_SELECTOR, "#verdict-order li")]
    assert shown[0].startswith("FIRST") and "Ann (red) THROW" in shown[0]
    assert shown[1].startswith("SECOND") and "Player 2 (yellow) CATCH" in shown[1] and "+" in shown[1]
    check_matrix(driver)
    # the page's stream is the core's: replay runs its inputs through the core on CPython
    # (with the page's own tie draws) and gets the same stream back
    log = driver.execute_script("return window.courtside.logText()")
    assert "Ann" not in log
    replays_identically(tmp_path, log)


def test_a_deathball_turn_with_the_arrow_keys(web, driver, tmp_path):
    open_page(driver, web.url + "?mode=referee&seed=2")
    wait_event(driver, "lobby")
    keys(driver, "1", "q", " ")
    wait_event(driver, "start")
    box = driver.find_element(By.ID, "command-line")
    # on row 1 no deathball can reach a figure in one turn (at most six steps from row 8),
    # whatever the dice: how many draws the initiative roll's tumbling takes depends on time
    box.send_keys("position 1@c1 2@f1 *b8n *g8n r0 t2", Keys.ENTER)
    wait_event(driver, "position")
    driver.find_element(By.TAG_NAME, "body").click()
    keys(driver, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    wait_event(driver, "move")
    move = events(driver, "move")[0]
    assert (move["p"], move["start"], move["end"], move["arrows"]) == (2, "f1", "h1", ["right", "right"])
    wait_for(driver, "return document.getElementById('status').textContent"
                     ".includes('Player 1 (red) to move')", what="player 1's turn")
    drawn = driver.execute_script(
        "const out = {};"
        "for (const sq of document.querySelectorAll('#board [data-square]')) {"
        "  const fig = sq.querySelector('.fig'), ball = sq.querySelector('.ball1, .ball2');"
        "  if (fig) out[sq.dataset.square] = fig.textContent + (fig.classList.contains('turn') ? '*' : '');"
        "  if (ball) out[sq.dataset.square] = ball.className; }"
        "return out;")
    figures = {sq: what for sq, what in drawn.items() if not what.startswith("ball")}
    assert figures == {"c1": "1*", "h1": "2"}, drawn
    assert sorted(what for what in drawn.values() if what.startswith("ball")) == ["ball1", "ball2"]
    check_matrix(driver)
    replays_identically(tmp_path, driver.execute_script("return window.courtside.logText()"))


def status(driver):
    return driver.find_element(By.ID, "status").text


def test_the_status_says_who_sets_up_and_the_winner_goes_with_a_new_game(web, driver):
    open_page(driver, web.url + "?mode=referee&seed=2")
    wait_event(driver, "lobby")
    keys(driver, "1", "q", "a", " ")
    wait_event(driver, "start")
    keys(driver, " ")                       # ROLL for initiative
    wait_event(driver, "ready")
    first = events(driver, "order")[0]["order"][0]
    assert status(driver).startswith("wait: %s to set up." % render.Names().label(first))
    box = driver.find_element(By.ID, "command-line")
    box.send_keys("position 1@b3 2@g3 3@d4 *b8s *g8s t1", Keys.ENTER)
    wait_event(driver, "position")
    driver.find_element(By.TAG_NAME, "body").click()
    keys(driver, "1", "1", "q", "q", "a", "a")
    wait_event(driver, "winner")
    # the deathballs' run on the matrix: the page says so, and names no winner yet
    assert status(driver).startswith("wait: the balls are moving.")
    assert not driver.find_element(By.ID, "winner").is_displayed()
    keys(driver, " ")                       # ROLL: the run to its end
    wait_for(driver, "return !document.getElementById('winner').hidden", what="the winner")
    assert "Player 3 (cyan) wins the game!" in driver.find_element(By.ID, "winner").text
    assert status(driver).startswith("wait: ROLL for a new game.")
    keys(driver, " ")                       # ROLL: a new game with the same players
    wait_for(driver, "return document.getElementById('winner').hidden", what="the winner gone")
    assert status(driver).startswith("wait: ROLL for initiative.")


def test_names_and_saved_settings_come_back_after_a_reload(web, driver):
    open_page(driver, web.url + "?mode=dodgeball")
    wait_event(driver, "lobby")
    driver.find_element(By.CSS_SELECTOR, "#names input[data-player='2']").send_keys("Bo", Keys.TAB)
    box = driver.find_element(By.ID, "command-line")
    box.send_keys("set tie_us=800", Keys.ENTER)
    box.send_keys("save", Keys.ENTER)
    wait_for(driver, "return localStorage.getItem('courtside.settings')", what="the saved settings")
    open_page(driver, web.url + "?mode=dodgeball", keep=True)
    wait_event(driver, "hello")
    assert events(driver, "hello")[0]["settings"]["tie_us"] == 800
    driver.find_element(By.TAG_NAME, "body").click()
    keys(driver, "q")
    wait_event(driver, "join")
    assert driver.find_element(By.ID, "joined").text == "Bo (yellow)"


def test_the_bounce_die_rolls_on_the_main_button(web, driver):
    open_page(driver, web.url + "?mode=die&seed=5")
    wait_event(driver, "mode")
    keys(driver, " ")
    wait_event(driver, "roll")
    wait_for(driver, "return document.getElementById('status').textContent.includes('Press ROLL')",
             what="the die's instructions")
    check_matrix(driver)


@pytest.mark.parametrize("script", ["dodgeball_round", "deathball_game"])
def test_a_script_in_the_page_gives_the_headless_stream(web, driver, script):
    path = ROOT / "tests" / "scripts" / (script + ".jsonl")
    open_page(driver, web.url)
    streamed = driver.execute_script("return window.courtside.script(arguments[0], 7)", path.read_text())
    assert streamed == simulate(sys.executable, "--seed", "7", path).stdout
    assert streamed.count("\n") > 20


def test_the_page_loads_nothing_from_elsewhere(web, driver):
    open_page(driver, web.url)
    wait_for(driver, "return window.courtside.firstFrameMs !== null", what="the first frame")
    urls = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert any(u.endswith("micropython.wasm") for u in urls) and any(u.endswith("bundle.json") for u in urls)
    assert all(u.startswith(web.url) for u in urls), urls
    for source in (ROOT / "host" / "courtside_host" / "web" / "page").iterdir():
        assert not re.search(r"(https?|wss?):/|//[a-z0-9-]+\.[a-z]", source.read_text()), source


@pytest.fixture(scope="module")
def relayed(tmp_path_factory):
    """A virtual Pico running the deployed firmware, relayed by ``courtside web --port``."""
    with deployed_pico(tmp_path_factory.mktemp("relay")) as pico:
        server = Web("--port", pico.port)
        yield server
        server.stop()


TV = """
const inView = (r) => r.width > 0 && r.height > 0;
const texts = [...document.querySelectorAll("body *")].filter((e) =>
    e.checkVisibility() && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
return {
  height: innerHeight, width: innerWidth, tv: document.body.classList.contains("tv"),
  first: document.querySelector("#verdict-order li .rank")?.getBoundingClientRect().height || 0,
  board: document.querySelector("#board")?.checkVisibility() || false,
  matrix: document.querySelector("#matrix").getBoundingClientRect().width,
  controls: [...document.querySelectorAll("button, input")].filter((e) => e.checkVisibility())
      .map((e) => e.id || e.textContent.trim()),
  texts: texts.map((e) => { const r = e.getBoundingClientRect();
      return {text: e.textContent.trim().slice(0, 40), box: [r.left, r.top, r.right, r.bottom],
              fits: e.scrollWidth <= e.clientWidth + 1 || getComputedStyle(e).display === "inline",
              inside: r.left >= -0.5 && r.right <= innerWidth + 0.5,
              above: r.bottom <= innerHeight + 0.5}; }).filter((t) => inView({
      width: t.box[2] - t.box[0], height: t.box[3] - t.box[1]})),
};
"""


def tv_layout(driver, where):
    """The TV layout as a room sees it: the page's controls that do nothing gone, no text
    clipped, off the screen's side or over another, and where the table stands beside the
    matrix (wider than 70rem: a laptop's screen, a TV's, which do not scroll) none below the
    bottom edge; what the DOM's boxes say."""
    got = driver.execute_script(TV)
    assert got["tv"], where
    assert set(got["controls"]) <= {"tv", "save", "try-here", "connect-relay", "connect-serial"}, (where, got)
    texts = got["texts"]
    beside = got["width"] > 70 * 16
    for i, a in enumerate(texts):
        assert a["inside"] and a["fits"], ("clipped", where, a)
        assert a["above"] or not beside, ("below the bottom edge", where, a)
        for b in texts[i + 1:]:
            if not (_contains(a["box"], b["box"]) or _contains(b["box"], a["box"])):
                assert not _overlap(a["box"], b["box"]), ("overlap", where, a, b)
    return got


def _contains(outer, inner):
    return outer[0] <= inner[0] + 0.5 and outer[1] <= inner[1] + 0.5 and inner[2] <= outer[2] + 0.5 \
        and inner[3] <= outer[3] + 0.5


@pytest.mark.vpico
def test_watching_a_board_through_the_relay(relayed, driver, tmp_path):
    """Watching shows the TV layout by itself: the verdict's first line at least 5 % of the
    screen's height at a laptop's and a TV's size, the matrix rebuilt from the stream, none
    of the page's own buttons (they would do nothing for a board); the game replays."""
    open_page(driver, relayed.url + "?watch=relay")
    assert "watching" in driver.find_element(By.TAG_NAME, "body").get_attribute("class")
    wait_event(driver, "pong")
    for line in ("mode dodgeball", "sim 1 THROW", "sim 2 THROW", "start", "sim 1 THROW down",
                 "sim 1 THROW up", 0.3, "sim 2 CATCH down", "sim 2 CATCH up"):
        if isinstance(line, float):
            time.sleep(line)
            continue
        driver.execute_script("window.courtside.send(arguments[0])", line)
        time.sleep(0.15)
    wait_event(driver, "verdict")
    verdict = events(driver, "verdict")[-1]
    assert [(o["p"], o["b"]) for o in verdict["order"]] == [(1, "THROW"), (2, "CATCH")]
    shown = [" ".join(li.text.split()) for li in driver.find_elements(By.CSS_SELECTOR, "#verdict-order li")]
    assert shown[0].startswith("FIRST") and "Player 1 (red) THROW" in shown[0]
    status = driver.find_element(By.ID, "status").text
    assert "Space" not in status and "arrow keys" not in status, status
    try:
        for width, height in ((1280, 800), (1920, 1080)):
            driver.set_window_size(width, height)
            wait_for(driver, "return innerWidth === %d" % width, what="the window at %d" % width)
            time.sleep(0.3)
            got = tv_layout(driver, (width, height))
            assert got["first"] >= 0.05 * got["height"], ("the verdict's first line", width, got["first"])
            assert got["matrix"] >= 0.25 * got["height"], got
            low, _, frame = screen_contrast(driver)           # the rebuilt matrix: the contest's bands
            assert low >= 3.0 and any(frame), frame
    finally:
        driver.set_window_size(1400, 1000)
    log = driver.execute_script("return window.courtside.logText()")
    assert json.loads(log.splitlines()[0])["port"] == "browser relay"
    report = replays_identically(tmp_path, log)
    assert "every verdict the same" in report


def test_a_board_that_is_not_there_is_said_plainly_when_watching(driver, tmp_path):
    server = Web("--port", str(tmp_path / "ttyACM9"))
    try:
        open_page(driver, server.url + "?watch=relay")
        wait_for(driver, "return document.getElementById('status').textContent.includes('not here')",
                 what="the sentence for a missing board")
        said = driver.find_element(By.ID, "status").text
        assert said.startswith("The board is not here: no board answers on ") and "plugged in?" in said
        assert "Errno" not in driver.find_element(By.TAG_NAME, "body").text
    finally:
        server.stop()


def test_the_tv_layout_on_a_key_in_both_games_and_the_die(web, driver):
    """Key t gives the TV layout while the page plays too: a Dodge Ball verdict, the
    Deathball board and the die's roll, large, at 1280x800 and 1920x1080, nothing clipped
    or overlapping; t again brings the controls back."""
    tap = "const c = window.courtside; for (const b of arguments[0]) { c.press(b, true); c.press(b, false); }"
    try:
        for width, height in ((1280, 800), (1920, 1080)):
            driver.set_window_size(width, height)
            open_page(driver, web.url + "?mode=dodgeball&seed=3")
            wait_event(driver, "lobby")
            driver.execute_script(tap, [0, 4])
            driver.find_element(By.TAG_NAME, "body").click()
            keys(driver, " ", "t")
            wait_event(driver, "start")
            driver.execute_script(tap, [0])
            time.sleep(0.3)
            driver.execute_script(tap, [6])
            wait_event(driver, "verdict")
            time.sleep(0.3)
            got = tv_layout(driver, ("Dodge Ball", width))
            assert got["first"] >= 0.05 * height, ("the verdict's first line", width, got["first"])
            lobbies = count(driver, "lobby")
            driver.execute_script("window.courtside.send('mode referee')")
            wait_event(driver, "lobby", after=lobbies)
            driver.execute_script(tap, [0, 4])
            keys(driver, " ")
            wait_event(driver, "referee")
            driver.execute_script("window.courtside.send('position 1@c3 2@f4 *b7e *g2n r0 t1')")
            wait_event(driver, "position")
            time.sleep(0.3)
            got = tv_layout(driver, ("Deathball", width))
            assert got["board"] and got["matrix"] >= 0.25 * height, got
            modes, rolls = count(driver, "mode"), count(driver, "roll")
            driver.execute_script("window.courtside.send('mode die')")
            wait_event(driver, "mode", after=modes)
            time.sleep(0.5)
            keys(driver, " ")
            wait_event(driver, "roll", after=rolls)
            face = events(driver, "roll")[-1]["face"]
            # the face is told once the die has stopped tumbling, as on the matrix
            wait_for(driver, "return document.getElementById('roll-face').textContent.endsWith(%r)"
                     % str(face), what="the die's face after its tumble")
            big = driver.find_element(By.ID, "roll-face")
            assert big.text.endswith(str(face)) and big.size["height"] >= 0.1 * height, (big.text, big.size)
            tv_layout(driver, ("the die", width))
            keys(driver, "t")
            assert driver.find_element(By.ID, "command-line").is_displayed()
    finally:
        driver.set_window_size(1400, 1000)


def test_hostile_text_gives_the_unix_ports_bytes_in_the_page(web, driver, micropython, tmp_path):
    """The WebAssembly runtime, on the commands that once gave different bytes on different
    runtimes (lone surrogates, DEL, NUL, several bad words in a set, Unicode spaces)."""
    from test_one_text import WHOLE_COMMANDS, script_of
    text = script_of(WHOLE_COMMANDS)
    open_page(driver, web.url)
    streamed = driver.execute_script("return window.courtside.script(arguments[0], 7)", text)
    path = tmp_path / "hostile.jsonl"
    path.write_text(text)
    assert streamed == simulate(micropython, "--seed", "7", path).stdout
    assert '"line":"\\ud83d\\ude00"' in streamed and '"line":"a\\u007fb"' in streamed


def _random_commands():
    from test_one_text import COMMAND
    return st.lists(COMMAND, min_size=1, max_size=40)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=_random_commands())
@example(commands=["", "", ""])                    # blank lines only: the stream says its start alone
def test_random_commands_give_the_unix_ports_bytes_in_the_page(web, driver, micropython, tmp_path, commands):
    """The third runtime on random command text (any code point, surrogates and controls
    among command words), as tests/test_one_text.py compares CPython and the unix port."""
    from test_one_text import script_of
    text = script_of(commands)
    open_page(driver, web.url)
    streamed = driver.execute_script("return window.courtside.script(arguments[0], 7)", text)
    path = tmp_path / "random.jsonl"
    path.write_text(text)
    expected = simulate(micropython, "--seed", "7", path).stdout
    said = [c for c in commands if c.strip()]      # a blank line is no command: nothing is said of it
    assert streamed == expected and expected.count("\n") > len(said)


# Every text box of the verdict's rows, the name fields and the matrix, as the page lays
# them out: [left, top, right, bottom], and whether each box's text fits inside it.
LAYOUT = """
const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const texts = [...document.querySelectorAll(
  '#verdict-order .rank, #verdict-order .who > span, #verdict-order .lag, #verdict-order .early')];
return {
  page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
  texts: texts.map((e) => ({text: e.textContent, box: box(e), fits: e.scrollWidth <= e.clientWidth,
                            lines: e.getClientRects().length, height: e.getBoundingClientRect().height,
                            font: parseFloat(getComputedStyle(e).fontSize)})),
  cells: [...document.querySelectorAll('#verdict-order li > span')].map(
    (e) => ({text: e.textContent, fits: e.scrollWidth <= e.clientWidth})),
  names: {box: box(document.getElementById('names')),
          fits: document.getElementById('names').scrollWidth <= document.getElementById('names').clientWidth,
          inputs: [...document.querySelectorAll('#names input')].map(box)},
  matrix: box(document.getElementById('matrix')),
};
"""

LONG_NAMES = ("Bartholomew Alexander", "Maximiliana Rosewood", "Christopher Q", "Wilhelmina Fairweather")


def _overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def test_the_page_lays_itself_out_from_a_phone_to_a_tv(web, driver):
    """A verdict with long names, a tie and early answers, at a phone's, a laptop's and a
    TV's window: no two texts of the verdict overlap, none is clipped or breaks inside a
    rank, the name fields fit, nothing scrolls sideways, and the matrix grows."""
    open_page(driver, web.url + "?mode=dodgeball")
    wait_event(driver, "lobby")
    for p, name in enumerate(LONG_NAMES, 1):
        driver.find_element(By.CSS_SELECTOR, "#names input[data-player='%d']" % p).send_keys(name, Keys.TAB)
    # two presses in one script are stamped a pass of the page apart: a few ms, tens on a
    # busy machine; the widest window (100 ms) ties them, and the late press stays apart
    driver.execute_script("window.courtside.send('set tie_us=100000')")
    tap = "const c = window.courtside; for (const b of arguments[0]) { c.press(b, true); c.press(b, false); }"
    driver.execute_script(tap, [0, 4, 8, 12])           # all four join
    driver.find_element(By.TAG_NAME, "body").click()
    keys(driver, " ")                                   # start
    wait_event(driver, "start")
    driver.execute_script(tap, [0])                     # player 1 throws
    time.sleep(0.4)
    driver.execute_script(tap, [6, 10])                 # players 2 and 3 catch together
    time.sleep(0.4)
    driver.execute_script(tap, [14])                    # player 4 late
    wait_event(driver, "verdict")
    order = events(driver, "verdict")[0]["order"]
    assert sum(o["tie"] for o in order) == 2 and any(o["early"] for o in order), order
    ranks = [" ".join(e.text.split()) for e in driver.find_elements(By.CSS_SELECTOR, "#verdict-order .rank")]
    assert ranks[1:3] == ["= SECOND", "= SECOND"], ranks
    matrix = {}
    try:
        for width, height in ((390, 844), (1280, 800), (1920, 1080)):
            driver.set_window_size(width, height)
            wait_for(driver, "return innerWidth === %d" % width, what="the window at %d" % width)
            time.sleep(0.3)
            got = driver.execute_script(LAYOUT)
            where = "at %dx%d" % (width, height)
            assert got["page"][0] <= got["page"][1], ("the page scrolls sideways", where, got["page"])
            texts = got["texts"]
            assert len(texts) >= 4 * 4 and any("…" in t["text"] for t in texts), texts
            for i, a in enumerate(texts):
                assert a["fits"], ("clipped", where, a)
                if not a["text"].startswith("EARLY"):         # a sentence, it may wrap
                    assert a["lines"] == 1 and a["height"] < 1.6 * a["font"], ("broken", where, a)
                for b in texts[i + 1:]:
                    assert not _overlap(a["box"], b["box"]), ("overlap", where, a, b)
            assert all(c["fits"] for c in got["cells"]), (where, got["cells"])
            names = got["names"]
            assert names["fits"], (where, names)
            for field in names["inputs"]:
                assert names["box"][0] - 0.5 <= field[0] and field[2] <= names["box"][2] + 0.5, (where, names)
            if width >= 1280:                           # the four name fields on one line
                assert len({round(field[1]) for field in names["inputs"]}) == 1, (where, names)
            matrix[width] = got["matrix"][2] - got["matrix"][0]
    finally:
        driver.set_window_size(1400, 1000)
    assert matrix[1920] > 1.25 * matrix[1280], matrix
    check_matrix(driver)
    assert screen_contrast(driver)[0] >= 3.0         # the bands, the tie mark, the thin early band


def test_the_page_says_keyboard_presses_are_too_far_apart_for_a_tie(web, driver):
    open_page(driver, web.url)
    note = driver.find_element(By.ID, "keyboard-ties").text
    assert "2–7 ms apart" in note and "set tie_us=10000" in note


def screen_contrast(driver):
    """(the lowest contrast of a lit cell with an unlit LED, measured in a screenshot of
    the matrix, the cell, the frame): both colours read from the shot's pixels."""
    for _ in range(20):
        frame, shot, steady = matrix_shot(driver)
        if steady:
            break
    seen = seen_cells(shot, frame)
    lit = [i for i in range(64) if any(frame[3 * i:3 * i + 3])]
    unlit = [i for i in range(64) if not any(frame[3 * i:3 * i + 3])]
    assert lit and unlit, frame
    off = seen[unlit[0]]
    assert all(seen[i] == off for i in unlit), "unlit LEDs drawn in more than one colour"
    return min((render.contrast(seen[i], off), i) for i in lit) + (frame,)


def test_every_cue_on_the_pages_matrix_stands_3_to_1_against_an_unlit_led(web, driver):
    """Measured in screenshots at a laptop's and a TV's size: the Deathball board with the
    red border, both balls and the pixel ahead of each, the figures and the mover's blink
    (both phases); the pending square after a first arrow; the bounce die's face, wall and
    arrow; a Dodge Ball contest with a tie mark and a thin early band."""
    try:
        for width, height in ((1280, 800), (1920, 1080)):
            driver.set_window_size(width, height)
            open_page(driver, web.url + "?mode=referee&seed=2")
            wait_event(driver, "lobby")
            keys(driver, "1", "q", "a", "z", " ")
            wait_event(driver, "start")
            box = driver.find_element(By.ID, "command-line")
            box.send_keys("position 1@c3 2@f4 3@d5 4@x *b7e *g2n r1 t1", Keys.ENTER)
            wait_event(driver, "position")
            driver.find_element(By.TAG_NAME, "body").click()
            low = []
            for _ in range(4):                          # the blink's two phases, at least
                low.append(screen_contrast(driver)[:2])
                time.sleep(0.2)
            keys(driver, Keys.ARROW_UP)                 # the first arrow: the pending square
            time.sleep(0.2)
            low.append(screen_contrast(driver)[:2])
            rendered = {i for _, i in low}
            assert len(low) == 5 and rendered, low
            assert min(low)[0] >= 3.0, ("Deathball", width, min(low))
            modes, rolls = count(driver, "mode"), count(driver, "roll")
            driver.execute_script("window.courtside.send('mode die')")
            wait_event(driver, "mode", after=modes)
            time.sleep(0.5)
            keys(driver, " ")                           # roll: the face, then the arrow
            wait_event(driver, "roll", after=rolls)
            time.sleep(3.0)
            got = screen_contrast(driver)
            assert got[0] >= 3.0, ("die", width, got)
    finally:
        driver.set_window_size(1400, 1000)


NAMES = ["Alexandra", "Bartholomew", "Christopher", "Dominique"]


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800), (1920, 1080)])
def test_the_tv_layout_fits_four_ranks_with_early_notes_and_the_bounce_die(web, driver, width, height):
    """Four players with long names, a verdict with four ranks and two EARLY notes, then a
    Deathball bounce: in the TV layout at a phone's, a laptop's and a TV's size no text is
    cut, none runs over another or off the side, and beside the matrix none runs below the
    bottom edge; a phone stacks the verdict above the matrix, never under it."""
    tap = "const c = window.courtside; for (const b of arguments[0]) { c.press(b, true); c.press(b, false); }"
    try:
        driver.set_window_size(width, height)
        open_page(driver, web.url + "?mode=dodgeball&seed=3")
        for p, name in enumerate(NAMES):
            driver.execute_script("const i = document.querySelectorAll('#names input')[arguments[0]];"
                                  "i.value = arguments[1]; i.dispatchEvent(new Event('change'));", p, name)
        wait_event(driver, "lobby")
        driver.execute_script(tap, [0, 4, 8, 12])
        driver.find_element(By.TAG_NAME, "body").click()
        keys(driver, " ", "t")
        wait_event(driver, "start")
        for button in (1, 4, 10, 14):     # an early DODGE, a THROW, its CATCH, a CATCH too late
            driver.execute_script(tap, [button])
            time.sleep(0.05)
        wait_event(driver, "verdict")
        verdict = events(driver, "verdict")[-1]
        assert len({o["rank"] for o in verdict["order"]}) == 4
        assert [bool(o["early"]) for o in verdict["order"]].count(True) == 2
        time.sleep(0.3)
        got = tv_layout(driver, ("four ranks", width))
        ranks = [t for t in got["texts"] if t["text"] in ("FIRST", "SECOND", "THIRD", "FOURTH")]
        assert len(ranks) == 4 and any(t["text"].startswith("EARLY: the throw") for t in got["texts"])
        table, matrix = driver.execute_script(
            "return ['table', 'matrix'].map((id) => document.getElementById(id).getBoundingClientRect())"
            ".map((r) => [r.left, r.top, r.right, r.bottom])")
        assert not _overlap(table, matrix), (table, matrix)
        for name in NAMES:                # a whole name, never cut
            assert any(t["text"] == name for t in got["texts"]), name
        lobbies = count(driver, "lobby")
        driver.execute_script("window.courtside.send('mode referee')")
        wait_event(driver, "lobby", after=lobbies)
        driver.execute_script(tap, [0, 4, 16])
        wait_event(driver, "referee")
        for line in ("position 1@d1 2@e1 *b8n *g8n r0 t1", "dice 3 5", "move 1 up up", "move 2 up up"):
            driver.execute_script("window.courtside.send(arguments[0])", line)
            time.sleep(0.1)
        wait_for(driver, "return document.getElementById('roll-face').checkVisibility()",
                 what="the bounce die's face")
        got = tv_layout(driver, ("the bounce die", width))
        assert any(t["text"].startswith("Ball 1 bounces") for t in got["texts"])
    finally:
        driver.set_window_size(1400, 1000)
