"""The main-unit layout: where each part and wire goes on a 0.1" perfboard.

Seen from the component side, holes counted in columns A, B, ... from the left and rows
1, 2, ... from the top. The input circuits stand in one block on the left, one row each
(box by box, then the main-unit button), between a 3V3 bus and a GND bus of bare wire;
the Pico sits in a socket in the middle, USB at the board's top edge; the 74AHCT125, the
matrix connector and the buzzer driver are on the right. The wires from the circuits to
the Pico are routed like the wiring diagram's (``route``), from the same nets, in
the same colours.

    svg_text = layout_svg(data, "hardware/pinmap.json")

Each wire that lands on a Pico pad carries ``data-pin`` and ``data-net``, as in the
wiring diagram, so the tests can check the two pictures join the same things.
"""

from __future__ import annotations

from courtside import pinmap

from .parts import (
    BOARD_NAMES,
    DATA_R,
    FILTER_C,
    GND_PIN,
    KIND_COLOUR,
    LED_R,
    PULL_UP,
    SERIES,
    V3V3_PIN,
    VBUS_PIN,
    cable_colour,
    net_colour,
    nets,
)
from .route import Plan, clashes, route
from .svg import Svg

P = 16                      # drawing units per 0.1" hole pitch
COLS, ROWS = 54, 56         # board size in holes
X0, Y0 = 190, 100           # the board's top left corner in the drawing
PICO_L, PICO_R = 30, 37     # columns of the Pico's two pin rows
PICO_TOP = 4                # row of pins 1 and 40
BUS_3V3, BUS_GND = 2, 15    # columns of the bare-wire buses in the input block
RIGHT_PARTS = 45            # first column of the right-hand parts
BUZZER = 31                 # row of the buzzer driver's base resistor
BAR = "#9aa5b1"             # bare wire and solder bridges


def hole(col: float, row: float) -> tuple[float, float]:
    return X0 + col * P + P / 2, Y0 + row * P + P / 2


def _name(col: int, row: int) -> str:
    letters = ""
    col += 1
    while col:
        col, k = divmod(col - 1, 26)
        letters = chr(65 + k) + letters
    return "%s%d" % (letters, row + 1)


def member_holes(svg_text: str) -> dict:
    """REF.PIN -> the name of the hole it sits in ("G3"), for the parts a layout drew on the board."""
    import xml.etree.ElementTree as ET
    out = {}
    for el in ET.fromstring(svg_text).iter("{http://www.w3.org/2000/svg}g"):
        if el.get("class") == "part" and el.get("data-ref"):
            terminals = (el.get("data-terminals") or "").split()
            for point, pin in zip(terminals, (el.get("data-pins") or "").split()):
                x, y = (float(v) for v in point.split(","))
                col, row = (x - X0 - P / 2) / P, (y - Y0 - P / 2) / P
                if col == int(col) and row == int(row) and 0 <= col < COLS and 0 <= row < ROWS:
                    out["%s.%s" % (el.get("data-ref"), pin)] = _name(int(col), int(row))
    return out


def _pico_hole(n: int):
    """(column, row) of Pico edge pin n in the socket."""
    return (PICO_L, PICO_TOP + n - 1) if n <= 20 else (PICO_R, PICO_TOP + 40 - n)


def _pad(n: int):
    """The hole beside pin n where its wire lands (bridged to the pin)."""
    col, row = _pico_hole(n)
    return (col - 1, row) if n <= 20 else (col + 1, row)


def _part(s: Svg, a, b, label, fill="#f4e3c1", tall=5.0, size=7.5, ref="", pins="1 2", kind="resistor"):
    """An axial part lying between holes a and b (column, row) on one row; ``pins`` names
    the lead in hole a, then the lead in hole b."""
    (x1, y1), (x2, y2) = hole(*a), hole(*b)
    s.line(x1, y1, x2, y2, stroke="#777777", width=1.5)
    mid = ((x1 + x2) / 2, (y1 + y2) / 2)
    length = max(abs(x2 - x1) * 0.55, 9)
    s.rect(mid[0] - length / 2, mid[1] - tall, length, 2 * tall, fill=fill, stroke="#555555", width=1, rx=3,
           cls="cover")
    if label:
        s.text(mid[0], mid[1] + size * 0.38, label, anchor="middle", size=size, cls="onpart")
    s.part(kind, (x1, y1), (x2, y2), ref=ref, pins=pins)


def _bridge(s: Svg, a, b, width=5):
    s.bar(*hole(*a), *hole(*b), stroke=BAR, width=width)


def _wire(s: Svg, holes, colour="#222222", width=2.0):
    """An insulated wire on the component side: it joins the holes at its two ends only."""
    s.wire([hole(*p) for p in holes], colour, width=width)


def _label(s: Svg, col: float, row: int, text: str, **kw):
    """A label on the board, between row ``row`` and the next, where there are no holes."""
    kw.setdefault("size", 7.5)
    s.text(hole(col, 0)[0], hole(0, row + 0.5)[1] + kw["size"] * 0.35, text, **kw)


def _circuits(data: dict):
    """(net, kind, box, role) for each row of the input block, top to bottom."""
    by_gpio = {n.gpio: n for n in nets(data)}
    rows = []
    for box in data["boxes"]:
        for b in pinmap.BUTTONS:
            rows.append(by_gpio[box["buttons"][b]])
        rows.append(by_gpio[box["led"]])
    rows.append(by_gpio[data["main_button"]])
    return rows


def layout_svg(data: dict, source: str) -> str:
    """The perfboard layout of a valid map, as SVG text (same map, same bytes)."""
    pinmap.PinMap(data)
    s = Svg(X0 + COLS * P + 60, Y0 + ROWS * P + 250, netlist="board")
    s.text(20, 30, "Courtside main unit on a 0.1\" perfboard: %s" % data.get("name", ""), size=18, bold=True)
    s.text(20, 48, "generated by courtside pins docs from %s; do not edit by hand" % source, size=10,
           fill="#777777")
    s.text(20, 66, "Component side. %d x %d holes (%.0f x %.0f mm). Grey bars: bare wire or solder bridges"
           " on the underside; coloured lines: insulated wires, in the wiring diagram's colours."
           % (COLS, ROWS, COLS * 2.54, ROWS * 2.54), size=11)
    s.rect(X0, Y0, COLS * P, ROWS * P, fill="#f3ead2", stroke="#8a7a4a", rx=6, width=1.5)
    for c in range(COLS):
        for r in range(ROWS):
            s.circle(*hole(c, r), 1.6, fill="#c9b98e", stroke="#c9b98e", width=0.3)
    for c in range(0, COLS, 5):
        s.text(hole(c, 0)[0], Y0 - 5, _name(c, 0)[:-1], anchor="middle", size=8, fill="#777777")
    for r in range(0, ROWS, 5):
        s.text(X0 + COLS * P + 5, hole(0, r)[1] + 3, str(r + 1), size=8, fill="#777777")
    circuits = _circuits(data)
    rows_of = []
    r = 2
    for net in circuits:   # a row for the parts, one for the wire out, one more for an LED's ground
        rows_of.append(r)
        r += 4 if net.kind in ("led", "main") else 2
    last = r
    for col, label, colour in ((BUS_3V3, "3V3 bus", KIND_COLOUR["3v3"]), (BUS_GND, "GND bus", "#222222")):
        s.bar(*hole(col, 0 if col == BUS_3V3 else 1), *hole(col, last if col == BUS_3V3 else ROWS - 1),
              stroke=BAR)
        s.text(hole(col, 0)[0], Y0 + ROWS * P + 14, label, anchor="middle", size=9, fill=colour, bold=True)
    # the two ground buses are one: bare wire along the bottom row joins them
    s.bar(*hole(BUS_GND, ROWS - 1), *hole(COLS - 1, ROWS - 1), stroke=BAR)
    sources: dict = {}
    starts: dict = {}   # the hole a wire starts in, when its route begins beside it
    colours: dict = {}
    for net, r in zip(circuits, rows_of):
        colour, stripe = net_colour(data, net)
        colours[net.name] = (colour, stripe)
        g = net.name[2:]
        if net.kind in ("button", "main"):
            _part(s, (BUS_3V3, r), (6, r), PULL_UP, ref="RPU" + g)
            _part(s, (8, r), (12, r), SERIES, ref="RS" + g)
            _part(s, (13, r), (BUS_GND, r), FILTER_C.replace(" nF", "n"), fill="#f2c94c", tall=4, size=6,
                  ref="CF" + g, kind="capacitor")
            _bridge(s, (6, r), (8, r))
        else:
            _part(s, (8, r), (12, r), LED_R, ref="RL" + g)
            _bridge(s, (7, r), (8, r))
            _bridge(s, (BUS_GND, r), (17, r))
        _bridge(s, (12, r), (13, r))
        _bridge(s, (13, r), (13, r + 1))
        starts[net.name] = hole(13, r + 1)
        sources[net.name] = (*hole(13, r + 1.5), +1)   # along the board between two rows of holes
        _incoming(s, data, net, r, colour, stripe)
    # supply feeds: 3V3 bus top, GND bus top, and the 5 V bus on the right
    colours.update({"3V3": (KIND_COLOUR["3v3"], ""), "GND": ("#222222", ""),
                    "VBUS": (KIND_COLOUR["power"], "")})
    sources["3V3"] = (*hole(BUS_3V3, 0), +1)
    sources["GND"] = (*hole(BUS_GND, 1), +1)
    _right_parts(s, data, sources, starts, colours)
    _pico(s, data)
    wanted = {n.name: n.pin for n in nets(data)}
    wanted.update({"VBUS": VBUS_PIN, "3V3": V3V3_PIN, "GND": GND_PIN})
    ends = {}
    for net, n in wanted.items():
        col, row = _pad(n)
        ends[net] = (*hole(col, row), -1 if n <= 20 else 1)
    rows = {side: [hole(*_pad(n))[1] for n in range(1, 41) if (n <= 20) == (side < 0)] for side in (-1, 1)}
    # tracks beside the Pico half a pitch apart; above and below it between the rows of holes
    plan = Plan(left=hole(PICO_L - 1.5, 0)[0], right=hole(PICO_R + 1.5, 0)[0],
                upper=hole(0, PICO_TOP - 1.5)[1], lower=hole(0, PICO_TOP + 21)[1], step=P / 2, rows=rows,
                span=(0, 10000), skip=2, across_first=True, round_step=P)
    routes = route(sources, ends, plan)
    problems = clashes(routes, {})
    if problems:
        raise ValueError("cannot lay out %s without wires running along each other: %s" % (source, problems))
    for net in sorted(routes, key=lambda n: wanted[n]):
        colour, stripe = colours[net]
        points = routes[net]
        start = starts.get(net)
        if start:
            points = [start, *points]
        s.wire(points, colour, stripe=stripe, net=net, pin=wanted[net], width=2.5)
    _notes(s, data)
    return s.svg()


def _incoming(s: Svg, data: dict, net, r: int, colour: str, stripe: str):
    """The wire from the jack (or the main-unit button) that lands in this row."""
    x, y = hole(7, r)
    edge = X0 - 8
    if net.box >= 0:
        name, _, _ = cable_colour(data, net.contact)
        label = "J%d contact %s (%s)" % (net.box + 1, net.contact or "-", name)
        s.part("offboard", (edge, y - P), ref="J%d" % (net.box + 1), pins=net.contact)
    else:
        label = "main-unit button NO tab"
        s.part("offboard", (edge, y - P), ref="SW0", pins="NO")
    s.wire([(edge, y - P), (x, y - P), (x, y)], colour, stripe=stripe, width=2.5)
    s.circle(x, y, 3, fill="#ffffff", stroke="#555555", width=1)
    s.text(edge - 4, y - P + 3, label, anchor="end", size=8.5)
    if net.kind == "led":
        grounds = [c for c, v in sorted(((data.get("cable") or {}).get("pins") or {}).items())
                   if v == "GND"]
        gx, gy = hole(17, r)
        s.wire([(edge, gy + 2 * P), (gx, gy + 2 * P), (gx, gy)], "#222222", width=2)
        if grounds:
            s.part("offboard", *[(edge, gy + 2 * P)] * len(grounds), ref="J%d" % (net.box + 1),
                   pins=" ".join(grounds))
        s.text(edge - 4, gy + 2 * P + 3, "J%d contacts %s (ground)"
               % (net.box + 1, ", ".join(grounds) or "-"), anchor="end", size=8.5)
    if net.kind == "main":
        gx, gy = hole(17, r)
        _bridge(s, (BUS_GND, r), (17, r))
        s.wire([(edge, gy + 2 * P), (gx, gy + 2 * P), (gx, gy)], "#222222", width=2)
        s.part("offboard", (edge, gy + 2 * P), ref="SW0", pins="COM")
        s.text(edge - 4, gy + 2 * P + 3, "main-unit button COM tab", anchor="end", size=8.5)


def _pico(s: Svg, data: dict):
    (x1, y1), (x2, y2) = hole(PICO_L - 0.4, PICO_TOP - 1.2), hole(PICO_R + 0.4, PICO_TOP + 19.7)
    s.rect(x1, y1, x2 - x1, y2 - y1, fill="#dff0df", stroke="#2f6b2f", rx=5, width=1.5, cls="cover")
    s.part("pico", *(hole(*_pico_hole(n)) for n in range(1, 41)), ref="Pico",
           pins=" ".join(str(n) for n in range(1, 41)))
    ux = (x1 + x2) / 2
    s.rect(ux - 16, Y0 - 10, 32, y1 - Y0 + 16, fill="#c0c0c0", rx=3)
    s.text(ux, Y0 - 14, "USB", anchor="middle", size=9)
    s.text(ux, (y1 + y2) / 2 - 6, "Raspberry Pi", anchor="middle", size=11, bold=True, rotate=-90,
           cls="onpart")
    s.text(ux + 14, (y1 + y2) / 2 - 6, BOARD_NAMES[data["board"]] + " in a socket", anchor="middle", size=10,
           rotate=-90, cls="onpart")
    for n in range(1, 41):
        col, row = _pico_hole(n)
        x, y = hole(col, row)
        s.circle(x, y, 4, fill="#e8c15a", stroke="#7a5b12", width=1)
        s.text(x + (10 if n <= 20 else -10), y + 3, str(n), anchor="start" if n <= 20 else "end", size=7.5,
               cls="onpart")
        s.line(*hole(*_pad(n)), x, y, stroke=BAR, width=4, cls="pin", data={"pin": n})


def _right_parts(s: Svg, data: dict, sources: dict, starts: dict, colours: dict):
    """The 5 V bus, the 74AHCT125 with the matrix header, and the buzzer driver."""
    bus, gbus = COLS - 2, COLS - 1
    top_row = PICO_TOP + 40 - VBUS_PIN
    _bridge(s, (RIGHT_PARTS + 1, top_row), (bus, top_row))
    _bridge(s, (bus, top_row), (bus, BUZZER + 10))
    _label(s, bus + 0.3, top_row - 1, "5V bus", fill=KIND_COLOUR["power"], bold=True, anchor="end", size=9)
    sources["VBUS"] = (*hole(RIGHT_PARTS + 1, top_row), -1)
    _bridge(s, (gbus, 6), (gbus, ROWS - 1))
    _label(s, gbus, 4, "GND", bold=True, anchor="middle", size=9)
    # 74AHCT125: pins 1-7 down column c, 14-8 up column c + 3
    c, r0 = RIGHT_PARTS + 2, 9
    (x1, y1), (x2, y2) = hole(c - 0.3, r0 - 0.6), hole(c + 3.3, r0 + 6.6)
    s.rect(x1, y1, x2 - x1, y2 - y1, fill="#333333", stroke="#111111", rx=3, cls="cover")
    s.text((x1 + x2) / 2, (y1 + y2) / 2, "74AHCT125", anchor="middle", size=8, fill="#ffffff", rotate=-90,
           cls="onpart")
    pin_hole = {k + 1: (c, r0 + k) for k in range(7)}
    pin_hole.update({14 - k: (c + 3, r0 + k) for k in range(7)})
    for pin in range(1, 15):
        s.circle(*hole(*pin_hole[pin]), 3.5, fill="#cccccc", stroke="#555555", width=0.8)
    s.part("dip14", *(hole(*pin_hole[pin]) for pin in range(1, 15)), ref="U1",
           pins=" ".join(str(pin) for pin in range(1, 15)))
    s.text(*hole(c - 0.05, r0 - 0.15), "1", size=6, anchor="end", fill="#ffffff", cls="onpart")
    net = "GP%d" % data["matrix"]["pin"]
    colours[net] = (KIND_COLOUR["matrix"], "")
    _bridge(s, (c - 1, r0 + 1), (c, r0 + 1))                 # pin 2, 1A: the matrix GPIO
    sources[net] = (*hole(c - 1, r0 + 1.5), -1)             # along the board between two rows
    starts[net] = hole(c - 1, r0 + 1)
    for pin in (14, 13, 10):                                  # VCC and the unused enables to 5 V
        _bridge(s, pin_hole[pin], (bus, pin_hole[pin][1]))
    for pin in (12, 9):                                       # unused inputs to GND, over the 5 V bus
        _wire(s, [pin_hole[pin], (gbus, pin_hole[pin][1])])
    _part(s, (bus, r0 + 3), (gbus, r0 + 3), "", fill="#f2c94c", tall=3.5, ref="C1", kind="capacitor")
    s.text(*hole(gbus + 0.6, r0 + 3.2), "100n", size=7)
    _wire(s, [pin_hole[1], (c - 1, r0), (c - 1, r0 - 2), (gbus, r0 - 2)])      # pin 1, 1OE, to GND
    _wire(s, [pin_hole[4], (c - 3, r0 + 3), (c - 3, r0 - 1), (bus, r0 - 1)], KIND_COLOUR["power"])  # 2OE
    _wire(s, [pin_hole[5], (c - 4, r0 + 4), (c - 4, r0 + 7), (gbus, r0 + 7)])  # pin 5, 2A, to GND
    _wire(s, [pin_hole[7], (c, r0 + 8), (gbus, r0 + 8)])                       # pin 7, GND
    # pin 3, 1Y, through the data resistor to the matrix header (DIN, 5V, GND)
    _bridge(s, pin_hole[3], (c - 1, r0 + 2))
    _bridge(s, (c - 1, r0 + 2), (c - 1, r0 + 10), width=3)
    _part(s, (c - 1, r0 + 10), (c + 3, r0 + 10), DATA_R, ref="RD")
    hc = c + 4
    _bridge(s, (c + 3, r0 + 10), (hc, r0 + 10))
    _bridge(s, (hc, r0 + 10), (hc, r0 + 12))
    _bridge(s, (hc, r0 + 13), (bus, r0 + 13), width=4)
    _wire(s, [(hc, r0 + 14), (gbus, r0 + 14)])
    (x1, y1), (x2, y2) = hole(hc - 0.45, r0 + 11.55), hole(hc + 0.45, r0 + 14.45)
    s.rect(x1, y1, x2 - x1, y2 - y1, fill="#222222", stroke="#111111", rx=1.5, cls="cover")
    for k, label in enumerate(("DIN", "5V", "GND")):
        x, y = hole(hc, r0 + 12 + k)
        s.text(x, y + 2, label, anchor="middle", size=5.5, fill="#ffffff", cls="onpart")
    s.part("header", *(hole(hc, r0 + 12 + k) for k in range(3)), ref="M1", pins="DIN 5V GND")
    _label(s, hc - 0.6, r0 + 14, "matrix", anchor="end", size=7)
    # buzzer driver: base resistor, NPN, then piezo, 1 kΩ and 1N4148 from C to 5 V
    b = BUZZER
    net = "GP%d" % data["buzzer"]
    colours[net] = (KIND_COLOUR["buzzer"], "")
    sources[net] = (*hole(RIGHT_PARTS, b + 0.5), -1)
    starts[net] = hole(RIGHT_PARTS, b)
    _part(s, (RIGHT_PARTS, b), (RIGHT_PARTS + 4, b), "1 kΩ", ref="RB")
    e, base, col = RIGHT_PARTS + 3, RIGHT_PARTS + 4, RIGHT_PARTS + 5
    _bridge(s, (base, b), (base, b + 3))
    # the transistor, flat side towards the board's bottom edge (a 2N3904 then reads E B C)
    (x1, y1), (x2, y2) = hole(e - 0.55, b + 2.1), hole(col + 0.55, b + 3.45)
    s.polyline([(x1, y2), (x1, y1 + 6), (x1 + 8, y1), (x2 - 8, y1), (x2, y1 + 6), (x2, y2), (x1, y2)],
               fill="#444444", stroke="#111111", width=0.8)
    s.out[-1] = s.out[-1].replace("<polyline ", '<polyline class="cover" ')
    for x_col, pin in ((e, "E"), (base, "B"), (col, "C")):  # type: ignore[assignment]
        x, y = hole(x_col, b + 3)
        s.circle(x, y, 3, fill="#cccccc", stroke="#111111", width=0.8)
        s.text(x, y - 5, pin, anchor="middle", size=6, fill="#ffffff", cls="onpart")
    s.part("npn", *(hole(x_col, b + 3) for x_col in (e, base, col)), ref="Q1", pins="E B C")
    _label(s, base - 0.6, b + 1, "2N3904", anchor="end", size=7)
    _wire(s, [(e, b + 3), (e - 1, b + 3), (e - 1, b + 12), (gbus, b + 12)])
    _bridge(s, (col, b + 3), (col + 1, b + 3), width=4)
    _bridge(s, (col + 1, b + 3), (col + 1, b + 9), width=4)
    for k, (label, fill, ref, pins) in enumerate((("piezo", "#e2d9f3", "BZ1", "2 1"),
                                                  ("1 kΩ", "#f4e3c1", "RP", "2 1"),
                                                  ("1N4148", "#f7c6c6", "D1", "A K"))):
        row = b + 5 + 2 * k
        _part(s, (col + 1, row), (bus, row), "", fill=fill, tall=4, ref=ref, pins=pins,
              kind="header" if ref == "BZ1" else "part")
        _label(s, col + 0.6, row - 1, label, anchor="end", size=7)
    (x, y) = hole(bus, b + 9)
    s.rect(x - 4.5, y - 2, 9, 3, fill="#222222", stroke="#222222", width=0.5)   # the diode's band


NOTES = [
    "Each input row: %s pull-up from the 3V3 bus, %s series, %s to the GND bus; the wire from the jack"
    " lands between the two resistors, the wire to the Pico leaves below the capacitor."
    % (PULL_UP, SERIES, FILTER_C),
    "LED rows: %s from the jack's LED contact; the box's ground contacts land on the GND bus. The two GND"
    " buses are joined by the bare wire along the bottom row." % LED_R,
    "Keystone jacks sit in the enclosure wall (see enclosure.svg): wire each jack to its rows with a short"
    " piece of the same cable.",
    "74AHCT125 (notch and pin 1 at the top left): pin 14 and the unused enables 13, 10 and 4 to the 5V bus;"
    " pin 7, pin 1 and the unused inputs 12, 9 and 5 to GND;",
    "   outputs 6, 8 and 11 stay free. 100 nF from the 5V bus to GND beside pin 14. Insulated wires cross the"
    " bare 5V bus without touching it.",
    "Matrix header (3-way, 0.1\"): DIN, 5V, GND from the top, to the panel's input end.",
    "Buzzer: a 2N3904 goes in with its flat side towards the board's bottom edge (E B C from the left, as"
    " drawn); a BC547 (C B E) goes in turned round, flat side towards the top edge.",
    "The piezo header (2-way), the 1 kΩ and the 1N4148 sit side by side between the collector wire and the"
    " 5V bus, in holes 0.1\" apart: stand the resistor and the diode upright,",
    "   body over the collector hole and the top lead bent down into the 5V bus hole; the diode's band"
    " (cathode) goes to the 5V bus.",
    "The pin numbers are the Pico's; the wiring diagram shows what each wire carries; checklist.md lists"
    " what to test with a meter before the first power-up.",
]


def _notes(s: Svg, data: dict):
    y = Y0 + ROWS * P + 40
    for k, text in enumerate(NOTES):
        s.text(20, y + 16 * k, text, size=10)
