"""The pin map: which GPIO each button, LED, buzzer and the matrix use.

The map is one JSON file (``hardware/pinmap.json`` in the repository, ``/pinmap.json`` on
the board), read by the firmware, the laptop tools and the documentation generator. This
module checks it and turns it into the numbers the firmware needs. It is plain Python so
the laptop validates a map with exactly the rules the board applies.

    pins = PinMap(json.load(f))        # raises PinMapError listing every problem
    pins.button_gpio[4 * box + k]      # k: 0 THROW/UP, 1 DODGE/DOWN, 2 CATCH/LEFT, 3 PASS/RIGHT
    pins.button_gpio[pins.main_id]     # the main-unit button, id 4 * boxes
"""

BUTTONS = ("THROW", "DODGE", "CATCH", "PASS")
MAX_BOXES = 4

# GPIOs brought out on each board; the others are wired on the board itself
# (GP23 SMPS mode / wireless, GP24 VBUS sense, GP25 LED / wireless, GP29 VSYS sense).
BOARDS = {
    "pico": tuple(range(23)) + (26, 27, 28),
    "pico_w": tuple(range(23)) + (26, 27, 28),
    "pico2": tuple(range(23)) + (26, 27, 28),
}
RESERVED = {23: "SMPS power-save / wireless power", 24: "VBUS sense / wireless data",
            25: "on-board LED / wireless chip select", 29: "VSYS sense / wireless clock"}


class PinMapError(ValueError):
    def __init__(self, problems):
        ValueError.__init__(self, "bad pin map: " + "; ".join(problems))
        self.problems = problems


def _gpio(where, value, board, problems):
    if type(value) is not int or isinstance(value, bool):
        problems.append("%s: pin must be a GPIO number, not %r" % (where, value))
        return None
    if value in RESERVED:
        problems.append("%s: GP%d is reserved on the board (%s)" % (where, value, RESERVED[value]))
        return None
    if value not in BOARDS.get(board, ()):
        problems.append("%s: GP%d is not a GPIO the %s brings out" % (where, value, board))
        return None
    return value


def check(data):
    """Every problem with a pin-map dict, as readable sentences (empty when it is good)."""
    problems = []
    if not isinstance(data, dict):
        return ["the pin map must be a JSON object"]
    if data.get("format") != 1:
        problems.append("format: expected 1, got %r" % (data.get("format"),))
    board = data.get("board")
    if board not in BOARDS:
        problems.append("board: %r is not one of %s" % (board, ", ".join(sorted(BOARDS))))
        return problems
    used = {}

    def claim(where, value):
        pin = _gpio(where, value, board, problems)
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
                claim("%s %s" % (name, b), buttons[b])
        for b in buttons:
            if b not in BUTTONS:
                problems.append("%s: unknown button %r (buttons are %s)" % (name, b, ", ".join(BUTTONS)))
        if "led" not in box:
            problems.append("%s: led missing" % name)
        else:
            claim("%s led" % name, box["led"])
    for role in ("main_button", "buzzer"):
        if role not in data:
            problems.append("%s missing" % role)
        else:
            claim(role, data[role])
    matrix = data.get("matrix")
    if not isinstance(matrix, dict) or "pin" not in matrix:
        problems.append("matrix: an object with the data pin is required")
    else:
        claim("matrix", matrix["pin"])
        if matrix.get("width", 8) != 8 or matrix.get("height", 8) != 8:
            problems.append("matrix: only an 8x8 panel is supported")
        if matrix.get("order", "GRB") not in ("GRB", "RGB"):
            problems.append("matrix: order must be GRB or RGB")
    return problems


class PinMap:
    def __init__(self, data):
        problems = check(data)
        if problems:
            raise PinMapError(problems)
        self.data = data
        self.board = data["board"]
        self.boxes = len(data["boxes"])
        gpio = []
        for box in data["boxes"]:
            for b in BUTTONS:
                gpio.append(box["buttons"][b])
        gpio.append(data["main_button"])
        # button_gpio[id] for ids 0..4*boxes-1, then the main button last
        self.button_gpio = tuple(gpio)
        self.main_id = len(gpio) - 1
        self.leds = tuple(box["led"] for box in data["boxes"])
        self.buzzer = data["buzzer"]
        m = data["matrix"]
        self.matrix_pin = m["pin"]
        self.grb = m.get("order", "GRB") == "GRB"
        self.serpentine = bool(m.get("serpentine", False))
        mask = 0
        for g in gpio:
            mask |= 1 << g
        self.button_mask = mask


def load(path):
    import json
    with open(path) as f:
        return PinMap(json.load(f))
