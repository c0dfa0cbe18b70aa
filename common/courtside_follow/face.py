"""What people at the table read, beside the follower: sentences, names, colours, the matrix.

Every face (the terminal simulator, the monitor, replay, the page, the text filter) says
an event and draws the game through here, from a ``courtside_follow.follower.Follower``:
event records into sentences, a verdict into a banner, the follower's Deathball chessboard
(``track.Shown``) into squares, what the board waits for into a status line, and frames
(192 bytes of RGB) into cells for a screen. Its choices (colour names, sentences, the
brightness lift) are ``FACE``, plain data a web page can load as JSON. Runs on CPython,
the MicroPython unix port and the page's WebAssembly.

    names = Names({1: "Ann"})
    sentence({"ev": "join", "t": 0, "p": 1}, names)     # 'Ann (red) joins the game.'
    status(follower, names)                              # 'wait: P2 to set up. ...'
    rows(follower.chessboard)                            # the chessboard as text, row 8 first
    cells(frame)                                         # 64 RGB cells, relative brightness
"""

import json

from courtside.deathball import notation
from courtside.deathball.rules import ARROW_NAMES, ARROWS, OPPOSITE, SETUP_SQUARES
from courtside.deathball.view import BALL_COLOURS
from courtside.display import COLOURS

from courtside_follow.follower import BUSY_RUN

FACE: dict = {
    # players 1..4: the colour every view names them by (the box LED has the same colour);
    # "led" the matrix's drive levels, "rgb" the colour a screen shows for them (cells())
    "players": [{"colour": name, "led": list(rgb)} for name, rgb in
                zip(("red", "yellow", "cyan", "blue"), COLOURS)],
    "balls": [{"name": "ball 1", "colour": "white", "led": list(BALL_COLOURS[0])},
              {"name": "ball 2", "colour": "pink", "led": list(BALL_COLOURS[1])}],
    "borders": {"1": "red border (6x6)", "2": "green border (4x4)"},
    "ranks": ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"],
    "early": {"no throw open": "no throw was open",
              "throw already answered": "the throw was already answered"},
    "modes": {"dodgeball": "Dodge Ball", "referee": "Deathball (refereed)", "die": "Deathball die",
              "lobby": "lobby"},
    # Matrix levels are shown relative to the brightest pixel of the frame, then lifted
    # (level ** lift, about a screen's gamma, as the drive levels are linear light) so that
    # dim cues (borders, the pending square, a ball's heading, the blinking figure) stay
    # apart from bright ones; 0 < lift <= 1. An unlit LED is drawn "off", and no lit pixel
    # darker than a luminance of "floor" (WCAG relative luminance), so every cue stands at
    # least 3:1 against an unlit LED (tests/test_contrast.py). Raised that far, a dim red
    # is not much darker than a bright one, so a pixel below "dim" of the frame's brightest
    # level is also drawn in another shape (a hollow circle on the page, a shaded block in the
    # terminal): a figure's blink, a pending square, a heading stay apart.
    "lift": 0.5,
    "off": [20, 20, 20],
    "floor": 0.13,
    "dim": 0.3,
    # the keyboard's boxes: row N is box N+1's four buttons in pin-map order (THROW DODGE
    # CATCH PASS, UP DOWN LEFT RIGHT); Space is the main button, m its long press
    "keys": ["1234", "qwer", "asdf", "zxcv"],
}


def face_json():
    """FACE as JSON, for a web page that draws the same choices."""
    return json.dumps(FACE, indent=1, sort_keys=True)


# players ----------------------------------------------------------------------------------

def colour_name(p):
    return FACE["players"][p - 1]["colour"] if isinstance(p, int) and 1 <= p <= 4 else ""


def rgb(p):
    return tuple(FACE["players"][p - 1]["rgb"]) if isinstance(p, int) and 1 <= p <= 4 else (200, 200, 200)


class Names:
    """How players are called on screen: a name given on the laptop, else "Player N", and
    always their colour. The stream itself keeps numbers."""

    def __init__(self, given=None):
        self.given = dict(given or {})

    def who(self, p):
        if p == 0:
            return "the main unit"
        if not isinstance(p, int) or not 1 <= p <= 4:
            return "player ?"
        return self.given.get(p) or "Player %d" % p

    def label(self, p):
        """"Ann (red)", "Player 2 (yellow)"."""
        colour = colour_name(p)
        return "%s (%s)" % (self.who(p), colour) if colour else self.who(p)

    def short(self, p):
        """"Ann", "P2": for tight places."""
        return self.given.get(p) or ("P%d" % p if isinstance(p, int) and p else "main")


def parse_names(items):
    """{player: name} from ["1=Ann", "2=Bo"]; ValueError with the reason otherwise."""
    names = {}
    for item in items:
        number, eq, name = item.partition("=")
        if not eq or not number.strip().isdigit() or not 1 <= int(number) <= 4 or not name.strip():
            raise ValueError("a name is given as N=NAME with N from 1 to 4, not %r" % item)
        names[int(number)] = shortened(name.strip(), 16)
    return names


def shortened(text, width):
    """``text`` in at most ``width`` characters, an ellipsis where it was cut."""
    return text if len(text) <= width else text[:width - 1] + "…"


# words --------------------------------------------------------------------------------

def ms(us):
    return "%.3f ms" % (us / 1000.0)


def clock(t):
    t = int(t or 0)
    return "%d:%02d.%03d" % (t // 60000000, t // 1000000 % 60, t // 1000 % 1000)


def rank_word(rank):
    ranks = FACE["ranks"]
    return ranks[rank - 1] if 1 <= rank <= len(ranks) else "#%d" % rank


def early_words(why):
    """The reason an answer was early, in words ("" when it was not)."""
    if not why:
        return ""
    return FACE["early"].get(why, "no throw was open") if isinstance(why, str) else "no throw was open"


def mode_name(mode):
    return FACE["modes"].get(mode, mode or "")


def _joined(names, players, word="and"):
    labels = [names.label(p) for p in players or ()]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " " + word + " " + labels[-1]


def _press(ev, n):
    who = n.label(ev.get("p"))
    when = "first" if not ev.get("lag") else "+" + ms(ev["lag"])
    text = "%s plays %s (contest %s, %s)." % (who, ev.get("b"), ev.get("c"), when)
    if ev.get("early"):   # on arrival; the verdict settles it, in the same words
        text += " Early: %s (the verdict settles it)." % early_words("no throw open")
    return text


def _verdict(ev, n):
    parts = []
    for o in ev.get("order", []):
        part = "%s%s %s %s" % ("=" if o.get("tie") else "", rank_word(o.get("rank", 0)),
                               n.label(o.get("p")), o.get("b"))
        if o.get("lag"):
            part += " +" + ms(o["lag"])
        if o.get("early"):
            part += " (EARLY: %s)" % early_words(o["early"])
        parts.append(part)
    return "Contest %s: %s." % (ev.get("c"), "; ".join(parts))


def _tie(ev, n):
    return "Tie for %s between %s, %s apart; the fair draw puts %s." % (
        rank_word(ev.get("rank", 0)), _joined(n, ev.get("players")), ms(ev.get("gap", 0)),
        _joined(n, ev.get("draw"), "then"))


def _death(ev, n):
    cause = {"entered": "walked into a deathball", "pushed": "was pushed onto a deathball by %s"
             % n.label(ev.get("by")), "ball": "was hit by ball %s" % ev.get("ball"),
             "clamped": "was moved in onto a deathball"}.get(ev.get("cause"), "died")
    return "%s %s on %s and is out." % (n.label(ev.get("p")), cause, ev.get("square"))


def _winner(ev, n):
    if ev.get("p"):
        return "%s wins the game!" % n.label(ev["p"])
    return "Nobody wins: %s died together." % _joined(n, ev.get("together"))


def _roll(ev, n):
    if ev.get("purpose") == "initiative":
        return "%s rolls %s for initiative." % (n.label(ev.get("p")), ev.get("face"))
    return "The die shows %s." % ev.get("face")


def _clamp(ev, n):
    what = n.label(ev["p"]) if "p" in ev else "ball %s" % ev.get("ball")
    return "%s is moved in from %s to %s." % (what, ev.get("start"), ev.get("end"))


_HOLDING = {"rolls": "the initiative rolls", "move": "the move", "run": "the deathballs' run"}

_SENTENCES = {
    "hello": lambda e, n: "Courtside %s started in %s (stream %s, capture %s in use)." % (
        e.get("fw"), mode_name(e.get("mode")), e.get("stream"), e.get("capture")),
    "pong": lambda e, n: "Courtside %s answers, in %s." % (e.get("fw"), mode_name(e.get("mode"))),
    "mode": lambda e, n: "Mode: %s." % mode_name(e.get("mode")),
    "lobby": lambda e, n: "Lobby for %s: press a button on your box to join." % mode_name(e.get("game")),
    "join": lambda e, n: "%s joins the game." % n.label(e.get("p")),
    "refused": lambda e, n: "Not started: %s." % e.get("why"),
    "start": lambda e, n: "%s starts with %s." % (mode_name(e.get("mode")), _joined(n, e.get("players"))),
    "press": _press,
    "verdict": _verdict,
    "tie": _tie,
    "ignored": lambda e, n: "%s pressed %s, ignored: %s." % (n.label(e.get("p")), e.get("b"), e.get("why")),
    "withdrawn": lambda e, n: "Press %s of %s taken back: %s." % (
        e.get("n"), n.label(e.get("p")), e.get("why")),
    "stuck": lambda e, n: "%s: %s is stuck (held down); ignored until released." % (
        n.label(e.get("p")), e.get("b")),
    "unstuck": lambda e, n: "%s: %s released again." % (n.label(e.get("p")), e.get("b")),
    "fault": lambda e, n: ("%s: box fault, %s buttons closed at once; its presses are ignored." % (
        n.label(e.get("p")), e.get("closed")) if e.get("kind") == "box" else
        "%s: box fault cleared." % n.label(e.get("p"))),
    "overflow": lambda e, n: "DROPPED %s button edges (capture ring full; %s in all)." % (
        e.get("new"), e.get("dropped")),
    "unsent": lambda e, n: "%s event lines were not sent (the laptop was not reading)." % e.get("lines"),
    "mem": lambda e, n: "The board's heap: %s bytes in use, %s free; its C stack at most %s of %s bytes deep." % (  # noqa: E501
        e.get("heap_used"), e.get("heap_free"), e.get("stack_peak", "?"), e.get("stack_size", "?")),
    "error": lambda e, n: "Refused: %s." % e.get("msg"),
    "settings": lambda e, n: "Settings: tie window %s us, contest %s ms, answer %s ms%s." % (
        e.get("tie_us"), e.get("contest_ms"), e.get("answer_ms"),
        ", the deathballs' run at %s %%" % e["pace"] if e.get("pace", 100) != 100 else ""),
    "referee": lambda e, n: "Refereed Deathball with %s." % _joined(n, e.get("players")),
    "roll": _roll,
    "initiative": lambda e, n: "%s tied on %s and roll again." % (_joined(n, e.get("tied")), e.get("face")),
    "order": lambda e, n: "Turn order: %s." % _joined(n, e.get("order"), "then"),
    "setup": lambda e, n: "%s sets up on %s." % (n.label(e.get("p")), e.get("square")),
    "turn": lambda e, n: ("%s to set up." % n.label(e.get("p")) if e.get("phase") == "setup" else
                          "Round %s: %s to move." % (e.get("round"), n.label(e.get("p")))),
    "hold": lambda e, n: "The matrix shows %s; presses wait." % _HOLDING.get(e.get("why"), e.get("why")),
    "ready": lambda e, n: "The board takes %s's presses again." % n.label(e.get("p"))
    if e.get("p") is not None else "The board has shown it all.",
    "skip": lambda e, n: "%s has no legal move and skips." % n.label(e.get("p")),
    "move": lambda e, n: "%s moves %s from %s to %s." % (
        n.label(e.get("p")), " ".join(e.get("arrows") or ()), e.get("start"), e.get("end") or "death"),
    "push": lambda e, n: "%s pushes %s from %s to %s." % (
        n.label(e.get("by")), n.label(e.get("p")), e.get("start"), e.get("end")),
    "cursor": lambda e, n: "%s's set-up cursor on %s." % (n.label(e.get("p")), e.get("square")),
    "pending": lambda e, n: "%s enters %s: one more arrow moves (the opposite takes it back)." % (
        n.label(e.get("p")), " ".join(e.get("arrows") or ())),
    "undo": lambda e, n: "%s takes back %s." % (n.label(e.get("p")), " ".join(e.get("arrows") or ())),
    "refuse": lambda e, n: "%s: refused, %s." % (n.label(e.get("p")), e.get("reason")),
    "bounce": lambda e, n: "Ball %s bounces on %s: rolled %s, now heading %s." % (
        e.get("ball"), e.get("square"), e.get("face"), e.get("heading")),
    "ball": lambda e, n: "Ball %s steps to %s." % (e.get("ball"), e.get("end")),
    "death": _death,
    "shrink": lambda e, n: "The board shrinks: %s." % FACE["borders"].get(str(e.get("border")), "a border"),
    "clamp": _clamp,
    "winner": _winner,
    "position": lambda e, n: "Position: %s." % e.get("text"),
    "help": lambda e, n: "Commands: %s." % (", ".join(map(str, e["commands"])) if isinstance(
        e.get("commands"), list) else e.get("commands")),
}
QUIET = ("cmd", "ok", "button", "release")   # inputs and acknowledgements: not a sentence


def sentence(ev, names=None):
    """One event as a sentence in the game's words, or None for an event not worth one."""
    kind = ev.get("ev")
    if kind in QUIET:
        return None
    words = _SENTENCES.get(kind)
    if words is None:
        fields = ", ".join("%s=%s" % (k, v) for k, v in ev.items() if k not in ("ev", "t"))
        return "%s: %s" % (kind, fields)
    return words(ev, names or Names())


def verdict_lines(ev, names=None):
    """A verdict as a banner, a line per press: rank (= for a tie), who, button, lag, early."""
    names = names or Names()
    lines = []
    for o in ev.get("order", []):
        line = "%-2s%-7s %-18s %-6s" % ("=" if o.get("tie") else "", rank_word(o.get("rank", 0)).upper(),
                                       shortened(names.label(o.get("p")), 18), o.get("b"))
        line += " +%s" % ms(o["lag"]) if o.get("lag") else "         "
        if o.get("early"):
            line += "  EARLY"
        lines.append(line)
    for o in ev.get("order", []):
        if o.get("early"):
            lines.append("EARLY %s %s: %s" % (names.short(o.get("p")), o.get("b"), early_words(o["early"])))
    return lines


def contest_heading(ev, settings=None):
    """The heading of one contest, with the settings it was judged with."""
    settings = settings or {}
    text = "contest %s: tie window %s" % (ev.get("c"), ms(ev.get("tie_us", settings.get("tie_us", 0))))
    if "contest_ms" in settings:
        text += ", contest %s ms, answer %s ms" % (settings["contest_ms"], settings.get("answer_ms"))
    return text


# the matrix ---------------------------------------------------------------------------

def cells(frame):
    """The 64 pixels of a frame (row by row, top first) as RGB for a screen, or None for a
    dark pixel. Levels are relative to the frame's brightest value and lifted by
    ``FACE["lift"]``, so the brightness and power cap the core applied do not hide how a
    dim cue differs from a bright one; then raised to ``FACE["floor"]``, so none is lost
    against an unlit LED."""
    top = max(frame) if frame else 0
    out = []
    for i in range(0, 192, 3):
        r, g, b = frame[i], frame[i + 1], frame[i + 2]
        out.append(shown((r, g, b), top) if r or g or b else None)
    return out


def dims(frame):
    """For each of the 64 pixels (as ``cells``), True where it is lit but dim: below
    ``FACE["dim"]`` of the frame's brightest level, drawn in the dim shape."""
    top = max(frame) if frame else 0
    edge = FACE["dim"] * top
    return [0 < max(frame[i], frame[i + 1], frame[i + 2]) < edge for i in range(0, 192, 3)]


def shown(led, top=255):
    """The screen colour of one lit pixel of drive levels ``led`` in a frame whose
    brightest level is ``top``. Lifted, then its luminance is mapped from (0, the hue's
    brightest] onto [the floor, the hue's brightest], so levels keep their order and none
    falls below the floor; a hue whose brightest is under the floor (a pure blue) is paled
    to it."""
    lift = FACE["lift"]
    lin = [_linear((v / top) ** lift) if v else 0.0 for v in led]
    floor = FACE["floor"]
    most = max(lin)
    full = [v / most for v in lin]          # the hue at its brightest
    y_full = luminance(full)
    if y_full < floor:
        t = (floor - y_full) / (1 - y_full)
        lin = [v + t * (1 - v) for v in full]
    else:
        y = luminance(lin)
        k = (floor + (y_full - floor) * y / y_full) / y
        lin = [v * k for v in lin]
    return tuple(_encoded(v) for v in lin)


def screen_rgb(led):
    """A matrix colour at full brightness as every screen draws it (swatches, names)."""
    return shown(led, max(led))


def luminance(lin):
    """WCAG relative luminance of linear RGB (0..1 each)."""
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b):
    """WCAG contrast ratio of two sRGB colours (0..255 each), 1 to 21."""
    ya = luminance([_linear(v / 255) for v in a]) + 0.05
    yb = luminance([_linear(v / 255) for v in b]) + 0.05
    return max(ya, yb) / min(ya, yb)


def _linear(e):
    """sRGB encoded (0..1) to linear light."""
    return e / 12.92 if e <= 0.04045 else ((e + 0.055) / 1.055) ** 2.4


def _encoded(v):
    v = min(max(v, 0.0), 1.0)
    return round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055))


for _each in FACE["players"] + FACE["balls"]:
    _each["rgb"] = list(screen_rgb(_each["led"]))


# the Deathball chessboard, as the follower has it -----------------------------------------

def figures(chessboard):
    """{player (1 to 4): square name} of the figures on a chessboard (``track.Shown``)."""
    return {box + 1: notation.square_name(sq) for box, sq in chessboard.where.items()
            if isinstance(sq, int) and sq >= 0}


def balls(chessboard):
    """[(ball number, square name, heading name)] of a chessboard's deathballs."""
    return [(i + 1, notation.square_name(sq), notation.heading_name(chessboard.headings[i]))
            for i, sq in enumerate(chessboard.balls)]


def grid(chessboard):
    """{square name: (char, what)}: what is a player number, "ball1"/"ball2" or "ahead1"/
    "ahead2" (a ball's next square)."""
    out = {}
    shown = balls(chessboard)
    for i, square, heading in shown:
        ahead = _step(square, heading)
        if ahead and ahead not in out:
            out[ahead] = ("+", "ahead%d" % i)
    for p, square in figures(chessboard).items():
        out[square] = (str(p), p)
    for i, square, _heading in shown:
        out[square] = ("@", "ball%d" % i)
    return out


def inside(chessboard, square):
    """True for a square inside the chessboard's border."""
    border = chessboard.border
    col, row = "abcdefgh".index(square[0]), int(square[1]) - 1
    return border <= col <= 7 - border and border <= row <= 7 - border


def rows(chessboard):
    """Row 8 first: "8 . . @ . . . . ." with "1".."4" figures, "@" balls, "+" a ball's
    next square, "." inside the border, " " outside; then the letters."""
    cells_ = grid(chessboard)
    out = []
    for row in range(8, 0, -1):
        line = "%d " % row
        for col in "abcdefgh":
            sq = col + str(row)
            line += (cells_[sq][0] if sq in cells_ else "." if inside(chessboard, sq) else " ") + " "
        out.append(line.rstrip())
    out.append("  a b c d e f g h")
    return out


def _step(square, heading):
    if not square or heading not in notation.HEADINGS.values():
        return None
    dx, dy = next(k for k, v in notation.HEADINGS.items() if v == heading)
    col, row = "abcdefgh".index(square[0]) + dx, int(square[1]) + dy
    return "abcdefgh"[col] + str(row) if 0 <= col < 8 and 1 <= row <= 8 else None


# what the board waits for -----------------------------------------------------------------

def stage(f):
    """"lobby", "game" (a game being played or just over), "die" or "" (before the hello)."""
    if f.phase in ("lobby", "die"):
        return f.phase
    return "game" if f.phase is not None else ""


def pending_square(f):
    """The square (0-63, a1 = 0) the first arrow of the move being entered reaches, as the
    matrix shows it dim, or None."""
    p = mover(f)
    if p is None or f.pending not in ARROW_NAMES or f.chessboard is None or p - 1 not in f.chessboard.where:
        return None
    dx, dy = ARROWS[ARROW_NAMES.index(f.pending)]
    sq = f.chessboard.where[p - 1]
    col, row = (sq & 7) + dx, (sq >> 3) + dy
    return row * 8 + col if 0 <= col < 8 and 0 <= row < 8 else None


def setup_cursor(f):
    """Set-up: (the free set-up squares, the index of the one the cursor is on) as the
    matrix shows them, or None outside a set-up turn."""
    if f.phase != "setup" or f.chessboard is None or mover(f) is None:
        return None
    taken = set(f.chessboard.where.values())
    free = [sq for sq in SETUP_SQUARES if sq not in taken]
    if not free:
        return None
    at = notation.square_of(f.cursor) if f.cursor else free[0]
    return free, free.index(at) if at in free else 0


def mover(f):
    """The player whose presses the board takes now (set-up or move), or None."""
    return f.turn if f.busy is None and f.phase in ("setup", "play") else None


def waiting(f, names=None):
    """``f.waiting`` with the player it waits for by name: "Ann (red) to move"."""
    p = mover(f)
    if p is None:
        return f.waiting
    return "%s to %s" % ((names or Names()).label(p), f.doing())


def winner_sentence(f, names=None):
    """The game's end as a sentence, or None while the game is not over or the matrix
    still shows how it ended (the deathballs' run)."""
    if not f.over or f.busy is not None:
        return None
    return _winner({"p": f.winner, "together": f.together}, names or Names())


_BUSY_ADVICE = "Presses wait until the matrix has shown it."


def advice(f, names=None, keys=True):
    """What to do about what the board waits for, in a sentence ("" for nothing).
    ``keys``: the players press the laptop's keys (the simulator, the page playing its own
    core), so the keys are named; False where the presses are a real board's (the monitor,
    a page watching a board), which only its buttons work for."""
    n = names or Names()
    phase = f.phase
    if phase == "lobby":
        joined = "Joined: %s. " % ", ".join(n.short(p) for p in f.players) if f.players else ""
        return joined + "Press a button on your box to join; %s starts." % ("Space" if keys else "MAIN")
    if phase == "die":
        return ("Press ROLL (Space) to roll; hold it (m) for the next mode." if keys else
                "Press ROLL to roll; hold it for the next mode.")
    if f.mode == "dodgeball" and phase == "play":
        return "Play: press the button of the card you slap down; first wins."
    if phase == "initiative":
        return "Press ROLL%s; then each player sets up in turn." % (" (Space)" if keys else "")
    if f.busy == BUSY_RUN or (f.busy is None and f.turn is None and phase == "play"):
        return "ROLL%s skips to the end of the run." % (" (Space)" if keys else "")
    if f.busy is not None:
        return _BUSY_ADVICE
    if f.over:
        return "Game over: %s" % winner_sentence(f, n)
    if phase == "setup":
        return "LEFT/RIGHT pick a square, UP/DOWN places."
    if phase == "play":
        return _arrows(f, keys)
    return ""


def _arrows(f, keys):
    """What the player to move does: two arrows, or with the first in, one more."""
    if f.pending in ARROW_NAMES:
        back = ARROW_NAMES[OPPOSITE[ARROW_NAMES.index(f.pending)]]
        return "One more arrow moves; %s takes %s back." % (back.upper(), f.pending.upper())
    return "Two arrows (the arrow keys work for this box)." if keys else "Two arrows on the box."


def status(f, names=None, keys=True):
    """One line: what the board waits for, then what to do about it (``keys``: see
    ``advice``)."""
    more = advice(f, names, keys)
    return "wait: %s.%s" % (waiting(f, names), " " + more if more else "")
