"""The wiring diagram: every connection of a pin map drawn as a wire, part to Pico pin.

On the left, each button box as a schematic (four buttons and the LED to its jack), its
patch cable in the T568B colours, the main unit's jack and the input circuit of each line
(pull-up, series resistor, filter capacitor) or the LED resistor. In the middle the Pico,
pins where they are on the board. On the right the supply rails, the main-unit button, the
buzzer driver and the matrix with its level shifter. Each GPIO's last wire, from its
circuit to its pin, is routed through the channels around the Pico and keeps its cable
pair's colour, so a line can be followed by eye from button to pin.

    svg_text = wiring_svg(data)     # data: a valid pin map (dict)

Every wire that lands on a Pico pin carries ``data-pin`` (the edge pin) and ``data-net``
(the GPIO, or VBUS / 3V3 / GND), which is what the tests count. The router (``route``)
refuses to produce a picture in which two wires of different nets run along each other.
"""

from __future__ import annotations

from courtside import pinmap

from .parts import (
    BASE_R,
    BOARD_NAMES,
    DATA_R,
    EDGE_PINS,
    FILTER_C,
    GND_PIN,
    KIND_COLOUR,
    LED_R,
    PIEZO_R,
    PULL_UP,
    SERIES,
    V3V3_PIN,
    VBUS_PIN,
    cable_colour,
    net_colour,
    nets,
)
from .route import Plan, clashes, route, same_colour_meetings
from .svg import INK, Svg

WIDTH = 1960
BUTTON_ROW, OTHER_ROW = 52, 40
PITCH = 36                 # Pico pin pitch in the drawing
TRACK = 9                  # distance between neighbouring wires in a routing channel
X_JACK_BOX, X_JACK_MAIN = 300, 440
X_A, X_R, X_B = 500, 550, 600   # input circuit: pull-up node, series resistor, filter node
X_LEFT_PINS = 860          # outer end of the Pico's left pin stubs
PICO_W, STUB = 240, 24
X_RIGHT_PINS = X_LEFT_PINS + 2 * STUB + PICO_W
X_RIGHT = X_RIGHT_PINS + 230    # where the right-hand circuits start
STUB_RUN = 60              # a wire in line with a pin it does not go to stays this far from it
KEY_HEIGHT = 210            # the key below the matrix
GROUND = KIND_COLOUR["ground"]
FIVE_V, THREE_V = KIND_COLOUR["power"], KIND_COLOUR["3v3"]


class WiringError(ValueError):
    """The router could not draw the map without two wires overlapping."""


# ---------------------------------------------------------------- the boxes (left)

def _rows(data: dict):
    """(contact, carried, row height) for each cable contact, in contact order."""
    cable = (data.get("cable") or {}).get("pins") or {}
    if not cable:  # no cable described: one line per role, numbered in the map's order
        cable = {str(k + 1): r for k, r in enumerate((*pinmap.BUTTONS, "LED", "GND"))}
    out = []
    for contact in sorted(cable, key=int):
        carried = cable[contact]
        out.append((contact, carried, BUTTON_ROW if carried in pinmap.BUTTONS else OTHER_ROW))
    return out


def _box_height(data: dict) -> int:
    return 44 + sum(h for _, _, h in _rows(data)) + 14


def _box(s: Svg, data: dict, i: int, y0: float, sources: dict):
    """Box ``i`` with its cable and the main unit's circuits for its lines; records where
    each GPIO's last wire starts in ``sources``."""
    box = data["boxes"][i]
    cable = data.get("cable") or {}
    rows = _rows(data)
    ys, y = [], y0 + 44
    for _, _, h in rows:
        ys.append(y + h / 2 + 4)
        y += h
    bottom = y + 4
    s.rect(20, y0 + 24, X_JACK_BOX - 20, bottom - y0 - 24, fill="#f5f6fb", stroke="#555577", rx=8)
    s.text(30, y0 + 18, "Box %d" % (i + 1), bold=True, size=14)
    s.text(90, y0 + 18, "inside the box", size=10, fill="#555555")
    what = ("patch cable %s, %s, up to 2 m" % (cable.get("connector", ""), cable.get("wiring", ""))
            if cable else "cable up to 2 m (the map names no connector)")
    s.text((X_JACK_BOX + X_JACK_MAIN) / 2 + 11, y0 + 18, what, anchor="middle", size=10)
    s.text(X_JACK_MAIN + 11, y0 + 36, "J%d" % (i + 1), anchor="middle", bold=True, size=11)
    s.text(X_JACK_BOX + 11, y0 + 36, "jack", anchor="middle", size=9)
    # the jacks at both ends of the cable
    for x in (X_JACK_BOX, X_JACK_MAIN):
        s.rect(x, ys[0] - 12, 22, ys[-1] - ys[0] + 24, fill="#eeeeee", rx=2)
    bus = [y for (_, carried, _), y in zip(rows, ys) if carried in (*pinmap.BUTTONS, "LED", "GND")]
    s.wire([(60, min(bus)), (60, max(bus))], GROUND, width=2)
    s.text(56, min(bus) - 8, "COM tabs, LED cathode", size=8, fill="#555555")
    s.text(X_JACK_BOX - 6, min(bus) - 8, "NO tabs, LED anode", size=8, anchor="end", fill="#555555")
    for (contact, carried, _), y in zip(rows, ys):
        name, colour, striped = cable_colour(data, contact)
        base, stripe = ("#ffffff", colour) if striped else (colour, "")
        net = ""
        if carried in pinmap.BUTTONS:
            net = "GP%d" % box["buttons"][carried]
            arrow = pinmap.ARROWS[pinmap.BUTTONS.index(carried)]
            com, no = s.button(170, y, "%s / %s" % (carried, arrow), net=net,
                               ref="BOX%d%s" % (i + 1, carried))
            s.wire([(60, y), com], GROUND, width=2)
            if min(bus) < y < max(bus):   # the bus branches here
                s.dot(60, y)
            s.wire([no, (X_JACK_BOX, y)], base, stripe=stripe, net=net)
        elif carried == "LED":
            net = "GP%d" % box["led"]
            anode, cathode = s.diode(170, y, "LED", cathode="left", led=True, net=net,
                                     ref="BOX%dLED" % (i + 1))
            s.wire([(60, y), cathode], GROUND, width=2)
            if min(bus) < y < max(bus):   # the bus branches here
                s.dot(60, y)
            s.wire([anode, (X_JACK_BOX, y)], base, stripe=stripe, net=net)
        elif carried == "GND":
            s.wire([(60, y), (X_JACK_BOX, y)], GROUND, width=2)
            if min(bus) < y < max(bus):   # the bus branches here
                s.dot(60, y)
        else:
            s.line(X_JACK_BOX - 14, y, X_JACK_BOX, y, stroke="#999999")
            s.text(X_JACK_BOX - 18, y + 3, "not connected", size=8, anchor="end", fill="#777777")
        s.text(X_JACK_BOX + 11, y + 3.5, contact, anchor="middle", size=9)
        s.text(X_JACK_MAIN + 11, y + 3.5, contact, anchor="middle", size=9)
        for x, ref in ((X_JACK_BOX, "BOX%dJ" % (i + 1)), (X_JACK_MAIN, "J%d" % (i + 1))):
            # a jack contact joins its two sides
            s.part("jack", (x, y), (x + 22, y), name=contact, ref=ref, pins="%s %s" % (contact, contact))
        s.wire([(X_JACK_BOX + 22, y), (X_JACK_MAIN, y)], base, stripe=stripe, net=net, width=4)
        if name != "-":
            s.text(X_JACK_BOX + 30, y - 5, name, size=8, fill="#555555")
        _main_unit_line(s, carried, net, y, base, stripe, sources)


def _main_unit_line(s: Svg, carried: str, net: str, y: float, colour: str, stripe: str, sources: dict):
    """The main unit's end of one cable contact."""
    x0 = X_JACK_MAIN + 22
    if carried in pinmap.BUTTONS:
        s.wire([(x0, y), (X_A, y)], colour, stripe=stripe, net=net)
        _input_circuit(s, y, colour, stripe, net, rightwards=True)
        sources[net] = (X_B, y, +1)
    elif carried == "LED":
        left, right = s.resistor(X_R, y, LED_R, length=40, label_side=-1, ref="RL" + net[2:])
        s.wire([(x0, y), left], colour, stripe=stripe, net=net)
        sources[net] = (right[0], y, +1)
    elif carried == "GND":
        s.wire([(x0, y), (x0 + 12, y)], GROUND, width=2)
        s.ground(x0 + 12, y)
    else:
        s.line(x0, y, x0 + 12, y, stroke="#999999")
        s.text(x0 + 15, y + 3, "n.c.", size=8, fill="#777777")


def _input_circuit(s: Svg, y: float, colour: str, stripe: str, net: str, *, rightwards: bool, x=None):
    """Pull-up at node A, series resistor, filter capacitor at node B, drawn between
    ``X_A`` and ``X_B`` (or mirrored, starting at ``x`` and running left to right from B)."""
    if rightwards:
        a, r, b = X_A, X_R, X_B
    else:
        b, r, a = x, x + 60, x + 120
    g = net[2:]
    top, _ = s.resistor(a, y - 14, PULL_UP, vertical=True, length=28, ref="RPU" + g)
    s.rail(top[0], top[1], "3V3", THREE_V)
    s.dot(a, y)
    left, right = s.resistor(r, y, SERIES, length=40, label_side=-1, ref="RS" + g,
                             pins="1 2" if rightwards else "2 1")
    s.wire([(a, y), left if rightwards else right], colour, stripe=stripe, net=net)
    s.wire([right if rightwards else left, (b, y)], colour, stripe=stripe, net=net)
    _, bottom = s.capacitor(b, y + 10, FILTER_C, length=20, label_side=1 if rightwards else -1, ref="CF" + g)
    s.ground(*bottom)
    s.dot(b, y)


# ---------------------------------------------------------------- the Pico (middle)

def _pin_end(n: int, top: float):
    """Outer end of edge pin n's stub, and the side it leaves on (-1 left, +1 right)."""
    k = n - 1 if n <= 20 else 40 - n
    y = top + 20 + k * PITCH
    return (X_LEFT_PINS, y, -1) if n <= 20 else (X_RIGHT_PINS, y, +1)


def _pico(s: Svg, data: dict, top: float, labels: dict):
    x = X_LEFT_PINS + STUB
    h = PITCH * 20 + 4
    s.rect(x, top, PICO_W, h, fill="#e9f5e9", stroke="#2f6b2f", rx=6)
    s.part("pico", *(_pin_end(n, top)[:2] for n in range(1, 41)), ref="Pico",
           pins=" ".join(str(n) for n in range(1, 41)))
    s.rect(x + PICO_W / 2 - 22, top - 14, 44, 20, fill="#c0c0c0", rx=3)
    s.text(x + PICO_W / 2, top - 1, "USB", anchor="middle", size=9)
    s.text(x + PICO_W / 2, top - 20, "Raspberry Pi %s, seen from above" % BOARD_NAMES[data["board"]],
           anchor="middle", bold=True, size=12)
    for n, name in enumerate(EDGE_PINS, 1):
        px, py, side = _pin_end(n, top)
        inner = x if side < 0 else x + PICO_W
        s.line(px, py, inner, py, stroke="#555555", width=2, cls="pin", data={"pin": n})
        s.text(inner - side * 5, py + 3.5, name, anchor="start" if side < 0 else "end", size=9.5)
        s.text(px - side * 2, py - 4, str(n), anchor="end" if side < 0 else "start", size=8,
               fill="#777777")
        if n in labels:
            text, colour = labels[n]
            s.text(inner - side * 50, py + 3.5, text, anchor="start" if side < 0 else "end", size=8,
                   fill=colour)


# ---------------------------------------------------------------- the right-hand circuits

def _supplies(s: Svg, y: float, sources: dict) -> float:
    s.text(X_RIGHT, y, "Supply rails", bold=True)
    rows = [("VBUS", "5V", FIVE_V, "5 V from USB: matrix, 74AHCT125, buzzer"),
            ("3V3", "3V3", THREE_V, "3.3 V: every pull-up"),
            ("GND", "", GROUND, "ground: every ground symbol")]
    for k, (net, flag, colour, what) in enumerate(rows):
        yy = y + 24 + k * 30
        end = X_RIGHT + 24
        s.wire([(X_RIGHT, yy), (end, yy)], colour, net=net)
        if flag:
            s.rail(end, yy, flag, colour, side="right")
        else:
            s.ground(end, yy)
        s.text(end + 40, yy + 4, what, size=10)
        sources[net] = (X_RIGHT, yy, -1)
    return y + 24 + 3 * 30


def _main_button(s: Svg, data: dict, y: float, sources: dict) -> float:
    s.text(X_RIGHT, y, "Main-unit button (ROLL / MENU)", bold=True)
    wy = y + 52
    net = "GP%d" % data["main_button"]
    colour = KIND_COLOUR["main"]
    _input_circuit(s, wy, colour, "", net, rightwards=False, x=X_RIGHT)
    no, com = s.button(X_RIGHT + 175, wy, "ROLL / MENU", net=net, ref="SW0", pins="NO COM")
    s.wire([(X_RIGHT + 120, wy), no], colour, net=net)
    s.wire([com, (X_RIGHT + 215, wy)], GROUND, width=2)
    s.ground(X_RIGHT + 215, wy)
    s.text(X_RIGHT + 240, wy + 4, "the same input circuit as a box line;", size=10)
    s.text(X_RIGHT + 240, wy + 18, "NO tab to the circuit, COM to GND", size=10)
    sources[net] = (X_RIGHT, wy, -1)
    return wy + 50


def _buzzer(s: Svg, data: dict, y: float, sources: dict) -> float:
    s.text(X_RIGHT, y, "Buzzer driver", bold=True)
    wy = y + 150
    net = "GP%d" % data["buzzer"]
    colour = KIND_COLOUR["buzzer"]
    left, right = s.resistor(X_RIGHT + 40, wy, BASE_R, length=40, label_side=-1, ref="RB")
    s.wire([(X_RIGHT, wy), left], colour, net=net)
    base, collector, emitter = s.npn(X_RIGHT + 80, wy, "NPN 2N3904 or BC547", ref="Q1")   # base on the lead
    s.ground(*emitter)
    cx = collector[0]
    node, top = wy - 42, wy - 118
    s.wire([collector, (cx, node)], INK, width=2)
    xs = (cx, cx + 45, cx + 95)
    p_top, p_bottom = s.piezo(cx, (node + top) / 2, "", ref="BZ1")
    s.text(cx - 13, (node + top) / 2 + 4, "piezo", size=10, anchor="end")
    r_top, r_bottom = s.resistor(xs[1], (node + top) / 2, PIEZO_R, vertical=True, length=40, ref="RP")
    anode, cathode = s.diode(xs[2], (node + top) / 2, "1N4148", cathode="up", ref="D1")
    for upper, lower in ((p_top, p_bottom), (r_top, r_bottom), (cathode, anode)):
        s.wire([(upper[0], top), upper], INK, width=2)
        s.wire([lower, (lower[0], node)], INK, width=2)
    s.wire([(xs[0], node), (xs[2], node)], INK, width=2)
    s.wire([(xs[0], top), (xs[2], top)], INK, width=2)
    for x in xs[:2]:
        s.dot(x, node)
    s.dot(xs[1], top)   # the left end is a corner under the 5V flag
    s.rail(cx, top, "5V", FIVE_V)
    s.text(xs[2] + 12, top + 16, "band (cathode) to 5V", size=9, fill="#555555")
    s.text(cx - 13, (node + top) / 2 + 18, "passive", size=9, anchor="end", fill="#555555")
    sources[net] = (X_RIGHT, wy, -1)
    return wy + 50


def _matrix(s: Svg, data: dict, y: float, sources: dict) -> float:
    s.text(X_RIGHT, y, "Matrix: 8x8 WS2812B panel (%s order) and its level shifter"
           % data["matrix"].get("order", "GRB"), bold=True)
    wy = y + 100
    net = "GP%d" % data["matrix"]["pin"]
    colour = KIND_COLOUR["matrix"]
    chip_x, chip_w = X_RIGHT + 40, 130
    s.wire([(X_RIGHT, wy), (chip_x, wy)], colour, net=net)
    s.rect(chip_x, wy - 36, chip_w, 72, fill="#ffffff", width=1.5)
    s.text(chip_x + 100, wy + 22, "74AHCT125", anchor="middle", size=9, bold=True)
    tri = [(chip_x + 45, wy - 14), (chip_x + 45, wy + 14), (chip_x + 73, wy), (chip_x + 45, wy - 14)]
    s.polyline(tri, fill="#ffffff", width=1.4)
    s.line(chip_x, wy, chip_x + 45, wy)
    s.line(chip_x + 73, wy, chip_x + chip_w, wy)
    oe_x = chip_x + 59
    s.circle(oe_x, wy + 9.5, 2.5, fill="#ffffff", width=1.2)   # output enable, active low
    s.line(oe_x, wy + 12, oe_x, wy + 36, width=1)
    s.text(chip_x + 4, wy - 5, "2 1A", size=8)
    s.text(chip_x + chip_w - 4, wy - 5, "3 1Y", size=8, anchor="end")
    # every pin that is joined to something, the three unused buffers' too: enables to
    # 5V (their outputs then float, harmlessly), inputs to GND (an input must never float)
    top_pins = [(14, chip_x + 14), (4, chip_x + 34), (13, chip_x + 94), (10, chip_x + 114)]
    bottom_pins = [(5, chip_x + 14), (9, chip_x + 34), (1, oe_x), (12, chip_x + 94), (7, chip_x + 114)]
    terminals = []
    for pins, edge, d in ((top_pins, wy - 36, -1), (bottom_pins, wy + 36, 1)):
        for pin, px in pins:
            s.line(px, edge, px, edge + 8 * d, width=1.3)
            s.text(px + 3, edge - 3 * d + (3 if d < 0 else 0), str(pin), size=8)
            terminals.append((pin, (px, edge + 8 * d)))
            s.wire([(px, edge + 8 * d), (px, edge + 18 * d)], FIVE_V if d < 0 else GROUND, width=2)
        xs = [px for _, px in pins]
        s.wire([(xs[0], edge + 18 * d), (xs[-1], edge + 18 * d)], FIVE_V if d < 0 else GROUND, width=2)
        for px in xs[1:-1]:
            s.dot(px, edge + 18 * d)
    s.part("buffer", (chip_x, wy), (chip_x + chip_w, wy), *(t for _, t in terminals), net=net, ref="U1",
           pins=" ".join(["2", "3"] + [str(pin) for pin, _ in terminals]))
    s.rail(chip_x + 14, wy - 54, "5V", FIVE_V)
    s.ground(chip_x + 114, wy + 54)
    s.text(chip_x + 40, wy - 58, "unused enables 4, 10, 13 to 5V", size=8, fill="#555555")
    s.text(chip_x + 2, wy + 70, "unused inputs 5, 9, 12 and 1OE (1) to GND;", size=8, fill="#555555")
    s.text(chip_x + 2, wy + 80, "outputs 6, 8, 11 not connected", size=8, fill="#555555")
    # decoupling capacitor at the chip
    c_top, c_bottom = s.capacitor(chip_x - 22, wy + 62, "100 nF", length=28, label_side=-1, ref="C1")
    s.rail(c_top[0], c_top[1], "5V", FIVE_V)
    s.ground(*c_bottom)
    s.text(chip_x - 20, wy + 112, "100 nF from pin 14 to pin 7, at the chip", size=9, fill="#555555")
    # data resistor and the panel
    left, right = s.resistor(chip_x + chip_w + 40, wy, DATA_R, length=50, label_side=1, ref="RD")
    s.wire([(chip_x + chip_w, wy), left], colour, net=net)
    panel_x = chip_x + chip_w + 150
    s.wire([right, (panel_x, wy)], colour, net=net)
    s.part("matrix", (panel_x, wy), (panel_x, wy + 34), (panel_x, wy + 66), net=net, ref="M1",
           pins="DIN 5V GND")
    s.rect(panel_x, wy - 40, 150, 130, fill="#203028", stroke="#203028", rx=4)
    for row in range(4):
        for col in range(6):
            s.rect(panel_x + 40 + col * 17, wy - 30 + row * 17, 11, 11, fill="#3b5345", stroke="#3b5345",
                   width=0.5, rx=2)
    s.text(panel_x + 90, wy + 58, "8x8 panel", anchor="middle", fill="#ffffff", size=10)
    for label, yy in (("DIN", wy), ("5V", wy + 34), ("GND", wy + 66)):
        s.text(panel_x + 5, yy + 3.5, label, size=8, fill="#ffffff")
    s.wire([(panel_x, wy + 34), (panel_x - 80, wy + 34)], FIVE_V, width=3)
    s.rail(panel_x - 80, wy + 34, "5V", FIVE_V, side="left")
    s.wire([(panel_x, wy + 66), (panel_x - 80, wy + 66), (panel_x - 80, wy + 76)], GROUND, width=3)
    s.ground(panel_x - 80, wy + 76)
    s.capacitor(panel_x - 45, wy + 50, "", length=32, polarised=True, ref="C2", pins="+ -")
    s.dot(panel_x - 45, wy + 34)
    s.dot(panel_x - 45, wy + 66)
    s.text(panel_x - 36, wy + 48, "1000 µF", size=8)
    s.text(panel_x - 52, wy + 104, "1000 µF, 6.3 V or more, at the panel", size=9)
    s.text(panel_x - 52, wy + 116, "(its stripe, minus, to GND)", size=9)
    sources[net] = (X_RIGHT, wy, -1)
    return wy + 130


def _stubs(top: float, owners: dict) -> dict:
    out = {}
    for n in range(1, 41):
        x, y, side = _pin_end(n, top)
        out["pin %d" % n] = (owners.get(n, ""), ((x - side * STUB, y), (x + side * STUB_RUN, y)))
    return out


# ---------------------------------------------------------------- the whole picture

def wiring_svg(data: dict, source: str) -> str:
    """The wiring diagram of a valid map, as SVG text (same map, same bytes)."""
    pins = pinmap.PinMap(data)
    box_h = _box_height(data)
    boxes_bottom = 90 + pins.boxes * (box_h + 14)
    # draw the parts once into a scratch picture to learn where each last wire starts
    scratch = Svg(1, 1)
    sources: dict = {}
    for i in range(pins.boxes):
        _box(scratch, data, i, 90 + i * (box_h + 14), sources)
    y = 90.0
    y = _supplies(scratch, y, sources) + 26
    y = _main_button(scratch, data, y, sources) + 26
    y = _buzzer(scratch, data, y, sources) + 26
    right_bottom = _matrix(scratch, data, y, sources)
    wanted = {n.name: n.pin for n in nets(data)}
    wanted.update({"VBUS": VBUS_PIN, "3V3": V3V3_PIN, "GND": GND_PIN})
    colours = {n.name: net_colour(data, n) for n in nets(data)}
    colours.update({"VBUS": (FIVE_V, ""), "3V3": (THREE_V, ""), "GND": (GROUND, "")})
    # place the Pico near the middle, at the first height where no two wires overlap
    pico_h = PITCH * 20 + 4
    middle = max(160.0, (max(boxes_bottom, right_bottom) - pico_h) / 2)
    for shift in sorted(range(-2 * PITCH, 2 * PITCH + 1), key=abs):
        top = middle + shift
        ends = {net: _pin_end(n, top) for net, n in wanted.items()}
        rows = {side: [_pin_end(n, top)[1] for n in range(1, 41) if _pin_end(n, top)[2] == side]
                for side in (-1, 1)}
        plan = Plan(left=X_LEFT_PINS - 16, right=X_RIGHT_PINS + 16, upper=top - 60, lower=top + pico_h + 30,
                    step=TRACK, rows=rows, span=(X_LEFT_PINS - 300, X_RIGHT_PINS + 300),
                    skip=-(-(STUB_RUN - 16) // TRACK))
        stubs = _stubs(top, {n: net for net, n in wanted.items()})
        routes = route(sources, ends, plan, stubs, colours)
        problems = clashes(routes, stubs) + same_colour_meetings(routes, colours)
        if not problems:
            break
    else:
        raise WiringError("cannot route %s without wires running along each other or meeting one of"
                          " their colour: %s" % (source, problems))
    lowest = max(max(y for _, y in r) for r in routes.values())
    height = int(max(boxes_bottom, right_bottom + KEY_HEIGHT, lowest) + 40)
    s = Svg(WIDTH, height, netlist="schematic")
    s.text(20, 30, "Courtside wiring: %s" % data.get("name", ""), size=18, bold=True)
    s.text(20, 48, "generated by courtside pins docs from %s; do not edit by hand" % source, size=10,
           fill="#777777")
    wiring = (data.get("cable") or {}).get("wiring")
    s.text(20, 66, ("Every wire of a box line is drawn in its cable wire's colour (%s), from the button"
                    " to the Pico pin. " % wiring if wiring else "Every box line is drawn from the button"
                    " to the Pico pin. ") + "Wires that cross without a dot are not joined.", size=11)
    s.text(X_A - 20, 86, "at the main unit", size=10, fill="#555555")
    for i in range(pins.boxes):
        _box(s, data, i, 90 + i * (box_h + 14), {})
    y = 90.0
    y = _supplies(s, y, {}) + 26
    y = _main_button(s, data, y, {}) + 26
    y = _buzzer(s, data, y, {}) + 26
    key_top = _matrix(s, data, y, {}) + 40
    labels = {n.pin: (n.label.split(" (")[0], net_colour(data, n)[1] or net_colour(data, n)[0])
              for n in nets(data)}
    _pico(s, data, top, labels)
    for net in sorted(routes, key=lambda n: wanted[n]):
        colour, stripe = colours[net]
        s.wire(routes[net], colour, stripe=stripe, net=net, pin=wanted[net])
        (sx, sy), way = routes[net][0], sources[net][2]
        where = "pin %d" % wanted[net] if net in ("VBUS", "3V3", "GND") else net
        s.text(sx + (40 if way > 0 else -6), sy - 5, "to " + where, anchor="start" if way > 0 else "end",
               size=8, fill="#555555")
    _key(s, data, key_top)
    return s.svg()


def _key(s: Svg, data: dict, y: float):
    """What the symbols and the cable colours mean."""
    x = X_RIGHT
    s.text(x, y, "Key", bold=True)
    s.resistor(x + 20, y + 24, length=34)
    s.text(x + 50, y + 28, "resistor", size=10)
    s.capacitor(x + 20, y + 56, length=26)
    s.text(x + 50, y + 60, "capacitor (+: electrolytic, mind the stripe)", size=10)
    s.ground(x + 20, y + 80)
    s.text(x + 50, y + 90, "ground: all joined, to any GND pin", size=10)
    s.rail(x + 20, y + 128, "3V3", THREE_V)
    s.text(x + 50, y + 120, "joined to that supply rail", size=10)
    s.line(x + 5, y + 148, x + 35, y + 148)
    s.line(x + 20, y + 140, x + 20, y + 156)
    s.circle(x + 20, y + 148, 3, fill=INK, stroke=INK, width=0.5)   # a sample: joins nothing
    s.text(x + 50, y + 152, "joined; wires crossing without a dot are not", size=10)
    cable = data.get("cable") or {}
    s.text(x + 330, y, "Cable colours (%s)" % cable.get("wiring", "-"), bold=True)
    for k, contact in enumerate(sorted(cable.get("pins") or {}, key=int)):
        name, colour, striped = cable_colour(data, contact)
        yy = y + 22 + k * 18
        base, stripe = ("#ffffff", colour) if striped else (colour, "")
        s.wire([(x + 330, yy), (x + 380, yy)], base, stripe=stripe, width=4, legend=True)
        s.text(x + 388, yy + 4, "%s  %s: %s" % (contact, name, cable["pins"][contact]), size=10)
