"""The pin map: which GPIO each button, LED, buzzer and the matrix use.

The map is one JSON file (``hardware/pinmap.json`` in the repository, ``/pinmap.json`` on
the board), read by the firmware, the laptop tools and the documentation generator. This
module checks it and turns it into the numbers the firmware needs. It is plain Python so
the laptop validates a map with exactly the rules the board applies.

    pins = PinMap(json.load(f))        # raises PinMapError listing every problem
    pins = parse(text)                 # the same from JSON text; bad JSON is a PinMapError
    pins = read(raw)                   # the same from a file's bytes (what every reader uses)
    pins.button_gpio[4 * box + k]      # k: 0 THROW/UP, 1 DODGE/DOWN, 2 CATCH/LEFT, 3 PASS/RIGHT
    pins.button_gpio[pins.main_id]     # the main-unit button, id 4 * boxes
    pins.label(id)                     # "box 2 CATCH", "main button"
    advice(data)                       # warnings that do not make the map invalid

The file's fields are described in hardware/README.md ("The pin map file").
"""

from courtside.pins import ARROWS, BUTTONS, Pins, button_gpio, run_base  # noqa: F401

MAX_BOXES = 4

# GPIOs brought out to the edge pins of each board. All four boards expose the same 26.
_EDGE = tuple(range(23)) + (26, 27, 28)
BOARDS = {
    "pico": _EDGE,
    "pico_w": _EDGE,
    "pico2": _EDGE,
    "pico2_w": _EDGE,
}

# GPIOs wired to something on the board itself, and what. A button there cannot work: the
# part on the board holds the line, so the internal pull-up cannot bring it high.
_PLAIN = {
    23: "drives the power regulator's power-save input",
    24: "senses VBUS through a resistor divider to GND",
    25: "drives the on-board LED through a resistor to GND",
    29: "measures VSYS through a resistor divider to GND",
}
_WIRELESS = {
    23: "switches the wireless chip's power",
    24: "carries the wireless chip's data line",
    25: "is the wireless chip's select line",
    29: "is the wireless chip's clock (and VSYS sense)",
}
RESERVED_BY = {"pico": _PLAIN, "pico2": _PLAIN, "pico_w": _WIRELESS, "pico2_w": _WIRELESS}
RESERVED = _PLAIN  # board-independent view kept for older callers

# Edge GPIOs whose input pad has a usable internal pull-up (all of them on these boards;
# a board where a pin lacks one lists it here without that pin).
PULL_UP = {
    "pico": _EDGE,
    "pico_w": _EDGE,
    "pico2": _EDGE,
    "pico2_w": _EDGE,
}

# Cable between the main unit and a box: what each contact of the connector carries.
CABLE_ROLES = BUTTONS + ("LED", "GND", "spare")


class PinMapError(ValueError):
    def __init__(self, problems):
        super().__init__("bad pin map: " + "; ".join(problems))
        self.problems = problems


def _is_int(value):
    return type(value) is int and not isinstance(value, bool)


def _show(value):
    """A value for a message, the same text on every runtime (never ``repr``): a string
    quoted with anything not printable ASCII escaped, a whole number as it is, and any
    other value by its JSON kind."""
    if isinstance(value, str):
        out = []
        for ch in value[:40]:
            c = ord(ch)
            out.append(ch if 32 <= c < 127 and ch not in "'\\" else "\\x%02x" % c if c < 256 else
                       "\\u%04x" % c if c < 0x10000 else "\\U%08x" % c)
        return "'%s'%s" % ("".join(out), "..." if len(value) > 40 else "")
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if _is_int(value):
        return str(value) if -10 ** 12 < value < 10 ** 12 else "a number of %d digits" % len(str(abs(value)))
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "a number with a fraction"


def _gpio(where, value, board, button, problems):
    """The GPIO number if it may carry this role on this board, else None (and a problem)."""
    if not _is_int(value) or value < 0:
        problems.append("%s: pin must be a GPIO number, not %s" % (where, _show(value)))
        return None
    reserved = RESERVED_BY[board]
    if button and (value in reserved or (value in BOARDS[board] and value not in PULL_UP[board])):
        why = reserved.get(value, "has no internal pull-up on this board")
        problems.append("%s: GP%d is not a pull-up-capable input for a button on the %s (it %s)"
                        % (where, value, board, why))
        return None
    if value in reserved:
        problems.append("%s: GP%d is reserved on the %s (it %s)" % (where, value, board, reserved[value]))
        return None
    if value not in BOARDS[board]:
        problems.append("%s: GP%d is not a GPIO the %s brings out (usable: GP0-GP22, GP26-GP28)"
                        % (where, value, board))
        return None
    return value


def _check_cable(cable, problems):
    if not isinstance(cable, dict) or not isinstance(cable.get("pins"), dict):
        problems.append("cable: an object with a connector name and pins is required")
        return
    carried = []
    for contact in sorted(cable["pins"]):
        role = cable["pins"][contact]
        if not isinstance(role, str) or role not in CABLE_ROLES:
            problems.append("cable: contact %s carries %s, which is not one of %s"
                            % (_show(contact), _show(role), ", ".join(CABLE_ROLES)))
        elif role in carried and role not in ("GND", "spare"):
            problems.append("cable: %s is on more than one contact" % role)
        carried.append(role)
    for role in BUTTONS + ("LED", "GND"):
        if role not in carried:
            problems.append("cable: no contact carries %s" % role)


def check(data):
    """Every problem with a pin-map dict, as readable sentences (empty when it is good)."""
    problems = []
    if not isinstance(data, dict):
        return ["the pin map must be a JSON object"]
    if not _is_int(data.get("format")) or data.get("format") != 1:
        problems.append("format: expected 1, got %s" % _show(data.get("format")))
    board = data.get("board")
    if not isinstance(board, str) or board not in BOARDS:
        problems.append("board: %s is not one of %s" % (_show(board), ", ".join(sorted(BOARDS))))
        return problems
    used = {}

    def claim(where, value, button=False):
        pin = _gpio(where, value, board, button, problems)
        if pin is None:
            return
        if pin in used:
            problems.append("%s: GP%d is already used by %s" % (where, pin, used[pin]))
        else:
            used[pin] = where

    boxes = data.get("boxes")
    if not isinstance(boxes, list) or not boxes:
        problems.append("boxes: a list of 1 to %d button boxes is required" % MAX_BOXES)
        boxes = []
    elif len(boxes) > MAX_BOXES:
        problems.append("boxes: %d boxes given, at most %d are supported" % (len(boxes), MAX_BOXES))
        boxes = boxes[:MAX_BOXES]
    for i, box in enumerate(boxes):
        name = "box %d" % (i + 1)
        if not isinstance(box, dict):
            problems.append("%s: must be an object with buttons and led" % name)
            continue
        buttons = box.get("buttons")
        if not isinstance(buttons, dict):
            problems.append("%s: buttons missing" % name)
            buttons = {}
        for b in BUTTONS:
            if b not in buttons:
                problems.append("%s: button %s missing" % (name, b))
            else:
                claim("%s %s" % (name, b), buttons[b], True)
        for b in sorted(buttons):
            if b not in BUTTONS:
                problems.append("%s: unknown button %s (buttons are %s)"
                                % (name, _show(b), ", ".join(BUTTONS)))
        if "led" not in box:
            problems.append("%s: led missing" % name)
        else:
            claim("%s led" % name, box["led"])
    if "main_button" not in data:
        problems.append("main_button missing")
    else:
        claim("main_button", data["main_button"], True)
    if "buzzer" not in data:
        problems.append("buzzer missing")
    else:
        claim("buzzer", data["buzzer"])
    matrix = data.get("matrix")
    if not isinstance(matrix, dict) or "pin" not in matrix:
        problems.append("matrix: an object with the data pin is required")
    else:
        claim("matrix", matrix["pin"])
        if not _is_int(matrix.get("width", 8)) or not _is_int(matrix.get("height", 8)) or \
                matrix.get("width", 8) != 8 or matrix.get("height", 8) != 8:
            problems.append("matrix: only an 8x8 panel is supported")
        order = matrix.get("order", "GRB")
        if not isinstance(order, str) or order not in ("GRB", "RGB"):
            problems.append("matrix: order must be GRB or RGB")
    if "cable" in data:
        _check_cable(data["cable"], problems)
    return problems


def advice(data):
    """Warnings about a valid map: things that work, but not with every part of Courtside."""
    notes = []
    gpio = button_gpio(data)
    if run_base(gpio) is None:
        notes.append("buttons are not on one run of consecutive GPIOs in id order (box 1 THROW "
                     "first, main button last): the PIO capture backend needs that, so only "
                     "the IRQ backend will work with this map")
    return notes


class PinMap(Pins):
    """A checked pin map: PinMapError listing every problem, or the runtime view."""

    def __init__(self, data):
        problems = check(data)
        if problems:
            raise PinMapError(problems)
        Pins.__init__(self, data)


FILE_MAX = 8 * 1024         # bytes: the maps in hardware/ take about 1.5 KB
DEPTH_MAX = 8               # arrays and objects nested in a map (a map needs 4)


def parse(text):
    """A PinMap from JSON text; text that is not JSON (by the standard's grammar, the same
    on every runtime), or nested deeper than DEPTH_MAX, is a PinMapError saying so."""
    import json

    from courtside.jsoncheck import fault
    wrong = fault(text, DEPTH_MAX)
    if wrong is not None:
        raise PinMapError(["%s (line %d column %d)" % wrong])
    try:
        data = json.loads(text)
    except (ValueError, RuntimeError, MemoryError):     # RuntimeError: nested too deep
        raise PinMapError(["not valid JSON"]) from None
    return PinMap(data)


def read(raw):
    """A PinMap from a file's bytes: at most FILE_MAX of them, UTF-8, then ``parse``."""
    from courtside.text import utf8
    if len(raw) > FILE_MAX:
        raise PinMapError(["longer than %d bytes" % FILE_MAX])
    try:
        text = utf8(raw)
    except UnicodeError:
        raise PinMapError(["not UTF-8 text"]) from None
    return parse(text)


def load(path):
    """A PinMap from a file (OSError if it cannot be read)."""
    raw = b""
    with open(path, "rb") as f:     # in pieces: a board's heap has no room for FILE_MAX at once
        while len(raw) <= FILE_MAX:
            part = f.read(512)
            if not part:
                break
            raw += part
    return read(raw)
