"""The pin map as the firmware uses it: GPIO numbers by role, for a map already checked;
and the buttons' names, defined here once.

The checking lives in ``courtside.pinmap`` (shared with the laptop tools), which builds on
this module and never the other way round. A board loads its map file with
``courtside.run.load_pins``, which runs that check once and then lets the checker go, so
the rules' text and code do not sit in the heap for the whole game.

    pins = Pins(data)                   # data: a map already checked
    pins.button_gpio[4 * box + k]      # k: 0 THROW/UP, 1 DODGE/DOWN, 2 CATCH/LEFT, 3 PASS/RIGHT
    pins.button_gpio[pins.main_id]     # the main-unit button, id 4 * boxes
"""

# A box's four buttons, in pin-map order (k = 0..3): their names in Dodge Ball, and the
# same four as Deathball's arrows. Every other name for a button is taken from these.
BUTTONS = ("THROW", "DODGE", "CATCH", "PASS")
ARROWS = ("UP", "DOWN", "LEFT", "RIGHT")


def button_gpio(data):
    """GPIO of each button id of a valid map: boxes' buttons in order, then the main button."""
    gpio = []
    for box in data["boxes"]:
        for b in BUTTONS:
            gpio.append(box["buttons"][b])
    gpio.append(data["main_button"])
    return gpio


def run_base(gpio):
    """The first GPIO if button id n sits on GPIO first+n for every id, else None."""
    for n in range(len(gpio)):
        if gpio[n] != gpio[0] + n:
            return None
    return gpio[0]


class Pins:
    def __init__(self, data):
        self.data = data
        self.name = data.get("name", "")
        self.model = data["board"]          # the board's model ("pico", "pico_w", ...): the map's "board"
        self.boxes = len(data["boxes"])
        gpio = button_gpio(data)
        # button_gpio[id] for ids 0..4*boxes-1, then the main button last
        self.button_gpio = tuple(gpio)
        self.main_id = len(gpio) - 1
        # the PIO backend samples GPIOs pio_base.. pio_base+main_id with one instruction
        self.pio_base = run_base(gpio)
        self.leds = tuple(box["led"] for box in data["boxes"])
        self.buzzer = data["buzzer"]
        m = data["matrix"]
        self.matrix_pin = m["pin"]
        self.grb = m.get("order", "GRB") == "GRB"
        self.serpentine = bool(m.get("serpentine", False))
        self.cable = data.get("cable")
        mask = 0
        for g in gpio:
            mask |= 1 << g
        self.button_mask = mask

    def label(self, bid):
        """A button id as players name it: "box 2 CATCH" or "main button"."""
        if bid == self.main_id:
            return "main button"
        return "box %d %s" % (bid // 4 + 1, BUTTONS[bid % 4])

