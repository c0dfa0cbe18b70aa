"""The nets of the pictures, read back out of what they drew, equal the nets the build must
have: every net, the supplies and ground included, on every committed map and on random
valid maps; a cut wire and a bridged pair are caught; no wire ends in the air; labels stay
clear of wires and holes; same-coloured wires never meet; nothing is drawn off the canvas."""

import json
import random
import re
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT
from conftest import draw as _draw

sys.path.insert(0, str(ROOT / "host"))

from courtside import pinmap
from courtside_host.hwdocs import documents as hwdocs
from courtside_host.hwdocs import layout as hwdocs_layout
from courtside_host.hwdocs import netlist as hwdocs_netlist
from courtside_host.hwdocs import parts as hwdocs_parts
from courtside_host.hwdocs import route as hwdocs_route
from courtside_host.hwdocs.netlist import compare, extract, intended

HARDWARE = ROOT / "hardware"
MAPS = [HARDWARE / "pinmap.json", *sorted((HARDWARE / "variants").glob("*.json"))]
SVG = "{http://www.w3.org/2000/svg}"
WIRED = ("wiring.svg", "main-unit-layout.svg")
RANDOM_MAPS = 110


def _required(data, name):
    """The pins a picture must draw: all of them in the wiring diagram; the main unit's
    in the layout (not the boxes, nor the capacitor at the panel, nor the spare contacts)."""
    nets = intended(data)
    members = set().union(*(m for n, m in nets.items() if not n.endswith("spare")))
    if name == "wiring.svg":
        return members
    return {m for m in members if hwdocs_netlist.where(m) == hwdocs_netlist.MAIN}


def _check(data, name, svg=None):
    found = extract(svg or _draw(name, data))
    return compare(intended(data), found, _required(data, name)), found


def random_map(seed):
    """A valid map drawn at random by the firmware's own rules: any board, 1-4 boxes, every
    role on a random usable GPIO, the cable's contacts shuffled."""
    rnd = random.Random(seed)
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    data["board"] = rnd.choice(sorted(pinmap.BOARDS))
    free = [g for g in pinmap.BOARDS[data["board"]] if g not in pinmap.RESERVED_BY[data["board"]]]
    rnd.shuffle(free)
    data["boxes"] = [{"buttons": {b: free.pop() for b in pinmap.BUTTONS}, "led": free.pop()}
                     for _ in range(rnd.randint(1, pinmap.MAX_BOXES))]
    data["main_button"], data["buzzer"], data["matrix"]["pin"] = free.pop(), free.pop(), free.pop()
    roles = [*pinmap.BUTTONS, "LED", "GND", "GND", "spare"]
    rnd.shuffle(roles)
    data["cable"]["pins"] = {str(k + 1): role for k, role in enumerate(roles)}
    assert pinmap.check(data) == []
    return data


# ---------------------------------------------------------------- the nets

def test_the_intended_netlist_has_every_part_pin_once():
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    nets = intended(data)
    seen = [m for members in nets.values() for m in members]
    assert len(seen) == len(set(seen)), "a pin is in two nets"
    assert {"GND", "3V3", "5V"} <= set(nets)
    assert "Pico.38" in nets["GND"] and "Pico.36" in nets["3V3"] and "Pico.40" in nets["5V"]
    assert {"C2.-", "M1.GND", "U1.7", "Q1.E", "U1.5", "U1.9", "U1.12"} <= nets["GND"]
    assert {"C2.+", "U1.14", "U1.4", "U1.10", "U1.13", "D1.K"} <= nets["5V"]
    assert len(nets["3V3"]) == 1 + 17          # the Pico pin and every pull-up
    assert nets["GP0 line"] == {"RPU0.2", "RS0.1", "J1.1", "BOX1J.1", "BOX1THROW.NO"}


@pytest.mark.parametrize("name", WIRED)
@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_every_net_of_the_picture_is_the_maps(path, name):
    data = json.loads(path.read_text())
    problems, found = _check(data, name)
    assert problems == []
    assert _required(data, name) <= found.members and found.loose == []


@pytest.mark.slow
def test_every_net_of_random_maps():
    for seed in range(RANDOM_MAPS):
        data = random_map(seed)
        for name in WIRED:
            problems, _ = _check(data, name)
            assert problems == [], (seed, name, problems[:5])


def _wire_elements(svg):
    return list(re.finditer(r'<polyline class="wire" points="([^"]+)"', svg))


def _cut(svg, match):
    """The wire shortened by half a unit at its last end: it no longer reaches what it
    reached."""
    points = [tuple(float(v) for v in p.split(",")) for p in match.group(1).split()]
    (ax, ay), (bx, by) = points[-2], points[-1]
    step = ((ax > bx) - (ax < bx), (ay > by) - (ay < by))
    points[-1] = (bx + 0.5 * step[0], by + 0.5 * step[1])
    text = " ".join("%g,%g" % p for p in points)
    return svg[:match.start(1)] + text + svg[match.end(1):]


@pytest.mark.slow
@pytest.mark.parametrize("name", WIRED)
def test_a_cut_wire_is_caught(name):
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    svg = _draw(name, data)
    wires = _wire_elements(svg)
    rnd = random.Random(name)
    for match in rnd.sample(wires, 30):
        problems, _ = _check(data, name, _cut(svg, match))
        assert problems, "cutting %s went unnoticed" % match.group(1)
        assert any("in the air" in p or p.startswith("open") for p in problems)


def _terminal_points(svg):
    root = ET.fromstring(svg)
    out = {}
    for el in root.iter(SVG + "g"):
        if el.get("class") == "part" and el.get("data-ref"):
            for point, pin in zip(el.get("data-terminals").split(), el.get("data-pins").split()):
                out.setdefault("%s.%s" % (el.get("data-ref"), pin), point)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", WIRED)
def test_a_bridged_pair_is_caught(name):
    """A wire (or, on the board, a solder bridge) between two pins of different nets."""
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    svg = _draw(name, data)
    points = _terminal_points(svg)
    nets = intended(data)
    net_of = {m: n for n, members in nets.items() for m in members}
    rnd = random.Random(name)
    drawn = sorted(m for m in points if m in net_of)
    for _ in range(30):
        a, b = rnd.sample(drawn, 2)
        if net_of[a] == net_of[b]:
            continue
        bridge = '<polyline class="wire" points="%s %s" fill="none" stroke="#000"/>' % (points[a], points[b])
        problems, _ = _check(data, name, svg.replace("</svg>", bridge + "</svg>"))
        assert any(p.startswith("short") for p in problems), (a, b, problems)
    if name == "main-unit-layout.svg":   # a solder blob between two neighbouring Pico pads
        pads = re.search(r'<line x1="([\d.]+)" y1="([\d.]+)"[^>]*class="pin" data-pin="1"/>', svg)
        x, y = float(pads.group(1)), float(pads.group(2))
        blob = '<line x1="%g" y1="%g" x2="%g" y2="%g" class="bar"/>' % (x, y, x, y + 16)
        problems, _ = _check(data, name, svg.replace("</svg>", blob + "</svg>"))
        assert any(p.startswith(("short: GP0 joined to", "short: GP1 joined to"))
                   for p in problems), problems


def test_a_junction_dot_is_what_joins_in_the_wiring_diagram():
    """Taking away a dot where three ways meet is caught; a dot put on a crossing of two
    nets joins them, as a reader would take it."""
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    svg = _draw("wiring.svg", data)
    dots = re.findall(r'<circle cx="[\d.]+" cy="[\d.]+" r="3" [^>]*class="dot"/>', svg)
    assert len(dots) > 50
    for dot in random.Random(3).sample(dots, 10):
        problems, _ = _check(data, "wiring.svg", svg.replace(dot, "", 1))
        assert any("without a dot" in p for p in problems), dot
    # the GP0 and GP1 box lines cross on their way to the Pico: a dot where they cross
    found = extract(svg)
    landing = r'<polyline class="wire" points="([^"]+)"[^>]*data-net="(GP\d+)" data-pin'
    routes = {n: [tuple(float(v) for v in p.split(",")) for p in pts.split()]
              for pts, n in re.findall(landing, svg)}
    crossing = None
    for a in sorted(routes):
        for b in sorted(routes):
            for s1 in zip(routes[a], routes[a][1:]):
                for s2 in zip(routes[b], routes[b][1:]):
                    p = hwdocs_netlist._meet(s1, s2) if a < b else None
                    if p and p not in (s1[0], s1[1], s2[0], s2[1]):
                        crossing = crossing or (a, b, p)
    assert crossing and found.undotted == []
    a, b, (x, y) = crossing
    dot = '<circle cx="%g" cy="%g" r="3" fill="#222" class="dot"/>' % (x, y)
    problems, _ = _check(data, "wiring.svg", svg.replace("</svg>", dot + "</svg>"))
    assert any(p.startswith(("short: %s joined to" % a, "short: %s joined to" % b))
               for p in problems), problems


def test_the_faults_the_pictures_had_are_caught():
    """The right-hand ground bus joined to nothing, and the 1000 µF capacitor's minus lead
    in the air: put back, each is found."""
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    layout = _draw("main-unit-layout.svg", data)
    (x1, y1), (x2, _) = (hwdocs_layout.hole(hwdocs_layout.BUS_GND, hwdocs_layout.ROWS - 1),
                         hwdocs_layout.hole(hwdocs_layout.COLS - 1, hwdocs_layout.ROWS - 1))
    join = '<line x1="%g" y1="%g" x2="%g" y2="%g"' % (x1, y1, x2, y1)
    assert layout.count(join) == 1
    gone = join.replace('x1="%g"' % x1, 'x1="%g"' % x2)    # the bar shrunk to a point at the far bus
    problems, _ = _check(data, "main-unit-layout.svg", layout.replace(join, gone))
    assert any(p.startswith("open in GND") for p in problems), problems
    wiring = _draw("wiring.svg", data)
    lead = re.search(r'<polyline class="wire" points="([\d.]+),([\d.]+) ([\d.]+),\2 \3,([\d.]+)" fill="none" '
                     r'stroke="#222222" stroke-width="3"', wiring)
    short = "%s,%s %g,%s %g,%s" % (lead.group(1), lead.group(2), float(lead.group(1)) - 30, lead.group(2),
                                   float(lead.group(1)) - 30, lead.group(4))
    problems, _ = _check(data, "wiring.svg", wiring.replace(lead.group(0).split('"')[1], short))
    assert any("open in GND" in p and "C2.-" in p for p in problems), problems


# ---------------------------------------------------------------- legibility


def _text_boxes(root):
    """Each label's box, estimated from its font size (DejaVu Sans is about 0.58 em wide a
    character), for the labels not printed on a part's body."""
    for t in root.iter(SVG + "text"):
        if t.get("class") == "onpart" or t.get("transform"):
            continue
        size = float(t.get("font-size") or root.get("font-size"))
        x, y, width = float(t.get("x")), float(t.get("y")), len(t.text or "") * size * 0.58
        x0 = {"start": x, "middle": x - width / 2, "end": x - width}[t.get("text-anchor")]
        yield t.text, (x0, y - 0.72 * size, x0 + width, y + 0.18 * size)


def _conductors(root):
    for el in root.iter(SVG + "polyline"):
        if el.get("class") == "wire":
            points = [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]
            for a, b in zip(points, points[1:]):
                yield a, b, float(el.get("stroke-width")) / 2
    for el in root.iter(SVG + "line"):
        if el.get("class") in ("bar", "pin"):
            yield ((float(el.get("x1")), float(el.get("y1"))), (float(el.get("x2")), float(el.get("y2"))),
                   float(el.get("stroke-width")) / 2)


def _visible_holes(root):
    covers = [(float(r.get("x")), float(r.get("y")), float(r.get("x")) + float(r.get("width")),
               float(r.get("y")) + float(r.get("height"))) for r in root.iter(SVG + "rect")
              if r.get("class") == "cover"]
    for c in root.iter(SVG + "circle"):
        if c.get("fill") == "#c9b98e":   # a perfboard hole
            x, y = float(c.get("cx")), float(c.get("cy"))
            if not any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in covers):
                yield (x, y), (x, y), float(c.get("r"))


def _overlaps(box, a, b, r):
    x0, y0, x1, y1 = box
    return (min(a[0], b[0]) - r < x1 and max(a[0], b[0]) + r > x0
            and min(a[1], b[1]) - r < y1 and max(a[1], b[1]) + r > y0)


def label_clashes(svg):
    """Labels over a wire, a bare wire, a visible hole or another label."""
    root = ET.fromstring(svg)
    things = list(_conductors(root)) + list(_visible_holes(root))
    boxes = list(_text_boxes(root))
    found = [(text, a) for text, box in boxes for a, b, r in things if _overlaps(box, a, b, r)]
    return found + [(t, u) for k, (t, p) in enumerate(boxes) for u, q in boxes[k + 1:]
                    if _overlaps(p, (q[0], q[1]), (q[2], q[3]), 0)]


@pytest.mark.parametrize("name", sorted(hwdocs.PICTURES))
@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_labels_are_clear_of_wires_and_holes(path, name):
    assert label_clashes(_draw(name, json.loads(path.read_text()))) == []


def test_the_label_check_finds_a_label_on_a_hole():
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    svg = _draw("main-unit-layout.svg", data)
    hole = re.search(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="1.6" fill="#c9b98e"', svg)
    label = '<text x="%s" y="%s" text-anchor="middle" font-size="8">note</text>' % hole.groups()
    assert label_clashes(svg.replace("</svg>", label + "</svg>"))
    two = '<text x="5" y="5" text-anchor="start" font-size="8">one</text>' * 2
    assert label_clashes('<svg xmlns="http://www.w3.org/2000/svg" font-size="8">%s</svg>' % two)


def _coloured_wires(svg):
    root = ET.fromstring(svg)
    elements = list(root.iter(SVG + "polyline"))
    out = {}
    for el, after in zip(elements, elements[1:] + [None]):
        if el.get("class") == "wire" and el.get("data-net"):
            stripe = after.get("stroke") if el.get("stroke") == "#ffffff" and after is not None else ""
            points = [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]
            out.setdefault(el.get("data-net"), []).append(((el.get("stroke"), stripe), points))
    return out


def same_colour_meetings(svg):
    wires = _coloured_wires(svg)
    found = []
    for a in sorted(wires):
        for b in sorted(wires):
            if a < b:
                for colour_a, pa in wires[a]:
                    for colour_b, pb in wires[b]:
                        if colour_a == colour_b and any(hwdocs_route.touches(s, t) for s in zip(pa, pa[1:])
                                                        for t in zip(pb, pb[1:])):
                            found.append((a, b))
    return sorted(set(found))


def test_no_two_nets_of_one_colour_meet_in_the_wiring_diagram():
    for path in MAPS:
        assert same_colour_meetings(_draw("wiring.svg", json.loads(path.read_text()))) == [], path.stem
    for seed in range(20):
        assert same_colour_meetings(_draw("wiring.svg", random_map(seed))) == [], seed
    # the supplies and the data lines wear colours of their own
    kinds = hwdocs_parts.KIND_COLOUR
    assert len(set(kinds.values())) == len(kinds)


def test_the_colour_check_finds_two_wires_meeting():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg">'
           '<polyline class="wire" points="0,0 100,0" stroke="#1c64d8" data-net="GP1"/>'
           '<polyline class="wire" points="104,0 104,50" stroke="#1c64d8" data-net="GP2"/>'
           '<polyline class="wire" points="50,-20 50,20" stroke="#1c64d8" data-net="GP3"/></svg>')
    assert same_colour_meetings(svg) == [("GP1", "GP2")]


# ---------------------------------------------------------------- on the canvas


@pytest.mark.svg
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(hwdocs.PICTURES))
@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_nothing_is_drawn_outside_the_canvas(path, name, tmp_path):
    """Rendered by a real renderer with a wide margin added round the canvas, the margin
    stays empty: the committed pictures, and a variant's as drawn on demand."""
    from test_hwdocs_pictures import _render
    if path == MAPS[0]:
        text = (HARDWARE / name).read_text()
    else:
        text = hwdocs.map_outputs(json.loads(path.read_text()), str(path))[name]
    root = ET.fromstring(text)
    _, _, w, h = (float(v) for v in root.get("viewBox").split())
    m = max(w, h) / 4
    scale = 1200 / (w + 2 * m)
    size = 'width="%g" height="%g" viewBox="%g %g %g %g"' % ((w + 2 * m) * scale, (h + 2 * m) * scale, -m, -m,
                                                           w + 2 * m, h + 2 * m)
    grown = re.sub(r'width="[^"]+" height="[^"]+" viewBox="[^"]+"', size, text, count=1)
    (tmp_path / "g.svg").write_text(grown)
    width, height, rows = _render(tmp_path / "g.svg", tmp_path / "g.png")
    x0, y0 = round(m * scale) - 1, round(m * scale) - 1
    x1, y1 = round((m + w) * scale) + 1, round((m + h) * scale) + 1
    outside = sum(1 for y, row in enumerate(rows) for x in range(width)
                  if row[4 * x + 3] > 0 and not (x0 <= x <= x1 and y0 <= y <= y1))
    inside = sum(1 for y, row in enumerate(rows[y0 + 2:y1 - 2]) for x in range(x0 + 2, x1 - 2)
                 if row[4 * x + 3] > 0)
    assert inside > 0 and outside == 0, "%d pixels drawn outside %s's canvas" % (outside, name)


def test_the_canvas_check_sees_a_stray_mark(tmp_path):
    from test_hwdocs_pictures import _render
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="-100 -100 400 400">'
           '<rect width="200" height="200" fill="#fff"/><circle cx="-50" cy="50" r="5" fill="#000"/></svg>')
    (tmp_path / "s.svg").write_text(svg)
    width, height, rows = _render(tmp_path / "s.svg", tmp_path / "s.png")
    assert rows[150][4 * 50 + 3] > 0 and rows[10][4 * 10 + 3] == 0


# ---------------------------------------------------------------- the continuity checklist


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_checklist_proves_every_net_and_keeps_the_rails_apart(path):
    data = json.loads(path.read_text())
    source = "hardware/pinmap.json" if path == MAPS[0] else str(path)
    text = hwdocs.map_outputs(data, source)["checklist.md"]
    if path == MAPS[0]:
        assert (HARDWARE / "checklist.md").read_text() == text, "run `courtside pins docs`"
    holes = hwdocs_layout.member_holes(_draw("main-unit-layout.svg", data))
    beeps = [line for line in text.splitlines() if line.endswith("**beeps**")]
    for name, members in intended(data).items():
        main = {m for m in members if hwdocs_netlist.where(m) == hwdocs_netlist.MAIN}
        if len(main) > 1 and not name.endswith("spare"):
            for m in main:   # every point of the net is probed, at its hole on the board
                said = hwdocs_netlist.describe(m) + (" (%s)" % holes[m] if m in holes else "")
                assert any(said in line for line in beeps), (name, said)
            assert "**%s**" % name in text
    rails = re.search(r"### 3.1 .*?\n\n(.*?)\n\n", text, re.S).group(1).splitlines()
    assert len(rails) == 3 and all(line.endswith("**silent**") or "**silent** (" in line for line in rails)
    for a, b in (("40 (VBUS)", "38 (GND)"), ("36 (3V3(OUT))", "38 (GND)"), ("40 (VBUS)", "36 (3V3(OUT))")):
        assert any("pin %s to Pico socket pin %s" % (a, b) in line for line in rails)
    order = [text.index(h) for h in ("## 1. Each button box", "## 2. Each patch cable", "## 3. The main unit",
                                     "### 3.1", "### 3.2", "### 3.3")]
    assert order == sorted(order)   # boxes, cables, then the main unit's rails before anything else
    for net in hwdocs_parts.nets(data):   # every line kept off the supplies and its neighbours
        kept = r"^- \[ \] Pico socket pin %d \(%s\) to pins 38 \(GND\), 36 \(3V3\(OUT\)\), 40 \(VBUS\)"
        assert re.search(kept % (net.pin, net.name), text, re.M)


def test_checklist_follows_the_netlist():
    """A map change that moves a line moves its checks."""
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    data["buzzer"], data["matrix"]["pin"] = data["matrix"]["pin"], data["buzzer"]
    text = hwdocs.checklist(data)
    assert "Pico socket pin 29 (GP22) (AL16) to buzzer 1 kΩ base resistor, Pico-side lead" in text
    assert "Pico socket pin 27 (GP21) (AL18) to 74AHCT125 pin 2" in text
