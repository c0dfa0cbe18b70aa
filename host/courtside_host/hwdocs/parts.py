"""What is joined to what: the facts every hardware document shares.

The pin table, the wiring diagram, the box panel and the main-unit layout all read the
Pico's edge pins, the part values and the list of nets from here, so they cannot
disagree about which pin carries what.

    nets(data)          # one Net per GPIO the map uses, in GPIO order
    physical_pin(17)    # 22: the Pico edge pin that carries GP17
    cable_colour(data, "1")   # ("white/orange", "#e8730c", True): name, colour, striped
"""

from __future__ import annotations

from dataclasses import dataclass

from courtside import pinmap

# The 40 edge pins of a Pico (the Pico W and Pico 2 share the layout): 1-20 down the left
# side with the USB connector at the top, 21-40 up the right side.
_LEFT = ["GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7", "GP8", "GP9", "GND",
         "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15"]
_RIGHT = ["GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN", "GP26",
          "GP27", "AGND", "GP28", "ADC_VREF", "3V3(OUT)", "3V3_EN", "GND", "VSYS", "VBUS"]
EDGE_PINS = _LEFT + _RIGHT  # EDGE_PINS[n - 1] is the name of physical pin n
VBUS_PIN, V3V3_PIN, GND_PIN = 40, 36, 38

BOARD_NAMES = {"pico": "Pico", "pico_w": "Pico W", "pico2": "Pico 2", "pico2_w": "Pico 2 W"}

WIRE_COLOURS = {
    "T568B": ("white/orange", "orange", "white/green", "blue", "white/blue", "green",
              "white/brown", "brown"),
    "T568A": ("white/green", "green", "white/orange", "blue", "white/blue", "orange",
              "white/brown", "brown"),
}
SWATCH = {"orange": "#e8730c", "green": "#2f9e44", "blue": "#1c64d8", "brown": "#8a5a2b"}

# Part values shared by the pictures, the pin table and the build guide.
PULL_UP = "4.7 kΩ"
SERIES = "1 kΩ"
FILTER_C = "10 nF"
LED_R = "330 Ω"
DATA_R = "330 Ω"
BASE_R = "1 kΩ"
PIEZO_R = "1 kΩ"

# Wire colours of the lines that do not run in a box cable.
KIND_COLOUR = {"button": "#2b6cb0", "main": "#b7791f", "led": "#c05621", "buzzer": "#6b46c1",
               "matrix": "#0d9488", "power": "#d32f2f", "3v3": "#e0528f", "ground": "#222222"}


@dataclass(frozen=True)
class Net:
    """One GPIO the map uses and everything along its wire."""
    gpio: int
    kind: str          # "button", "led", "main", "buzzer" or "matrix"
    label: str         # "box 1 THROW (UP)", "buzzer", ...
    box: int = -1      # 0-based box number for box lines, else -1
    role: str = ""     # THROW, DODGE, CATCH, PASS or LED for box lines
    contact: str = ""  # cable contact for box lines ("" if the cable is not described)

    @property
    def pin(self) -> int:
        return physical_pin(self.gpio)

    @property
    def name(self) -> str:
        return "GP%d" % self.gpio


def physical_pin(gpio: int) -> int:
    """The Pico edge pin (1-40) that carries a GPIO."""
    return EDGE_PINS.index("GP%d" % gpio) + 1


def contacts(data: dict) -> dict:
    """Role carried (THROW, ..., LED) -> cable contact, for the roles a single contact carries."""
    out: dict = {}
    for contact, carried in sorted(((data.get("cable") or {}).get("pins") or {}).items(),
                                   key=lambda kv: int(kv[0])):
        out.setdefault(carried, contact)
    return out


def cable_colour(data: dict, contact: str):
    """(name, colour, striped) of a cable contact's wire; a grey plain wire if unknown."""
    colours = WIRE_COLOURS.get(str((data.get("cable") or {}).get("wiring")), ())
    if not contact or len(colours) < int(contact):
        return ("-", "#777777", False)
    name = colours[int(contact) - 1]
    return (name, SWATCH[name.split("/")[-1]], name.startswith("white/"))


def nets(data: dict) -> list:
    """Every GPIO the map uses, as Nets in GPIO order."""
    c = contacts(data)
    out = []
    for i, box in enumerate(data["boxes"]):
        for b, arrow in zip(pinmap.BUTTONS, pinmap.ARROWS):
            out.append(Net(box["buttons"][b], "button", "box %d %s (%s)" % (i + 1, b, arrow), i, b,
                           c.get(b, "")))
        out.append(Net(box["led"], "led", "box %d LED" % (i + 1), i, "LED", c.get("LED", "")))
    out.append(Net(data["main_button"], "main", "main-unit button (ROLL / MENU)"))
    out.append(Net(data["buzzer"], "buzzer", "buzzer"))
    out.append(Net(data["matrix"]["pin"], "matrix", "matrix data in"))
    return sorted(out, key=lambda n: n.gpio)


def net_colour(data: dict, net: Net):
    """(colour, stripe) a net's wire is drawn in: its cable pair's colour for box lines."""
    if net.box >= 0 and net.contact:
        _, colour, striped = cable_colour(data, net.contact)
        return ("#ffffff", colour) if striped else (colour, "")
    return (KIND_COLOUR[net.kind], "")
