"""The wiring diagram, the box panel and the main-unit layout: one wire per used pin, the
same nets in both pictures, no two wires along each other, holes that fit the lid, and
every committed picture rendered by a real SVG renderer at the size it claims."""

import json
import random
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pngread
import pytest
from conftest import ROOT
from conftest import draw as _draw

sys.path.insert(0, str(ROOT / "host"))

from courtside import pinmap
from courtside_host.hwdocs import documents as hwdocs
from courtside_host.hwdocs import layout as hwdocs_layout
from courtside_host.hwdocs import panel as hwdocs_panel
from courtside_host.hwdocs import parts as hwdocs_parts
from courtside_host.hwdocs import route as hwdocs_route

HARDWARE = ROOT / "hardware"
MAPS = [HARDWARE / "pinmap.json", *sorted((HARDWARE / "variants").glob("*.json"))]
SVG = "{http://www.w3.org/2000/svg}"
WIRED = ("wiring.svg", "main-unit-layout.svg")


def _wires(svg_text):
    """data-pin -> [(net, points)] for every wire that lands on a Pico pin, and the pin
    stubs: pin -> (x, y) of the end a wire lands on."""
    root = ET.fromstring(svg_text)
    wires: dict = {}
    for el in root.iter(SVG + "polyline"):
        if el.get("class") == "wire" and el.get("data-pin"):
            points = [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]
            wires.setdefault(int(el.get("data-pin")), []).append((el.get("data-net"), points))
    stubs = {int(el.get("data-pin")): (float(el.get("x1")), float(el.get("y1")))
             for el in root.iter(SVG + "line") if el.get("class") == "pin"}
    return wires, stubs


def _used_pins(data):
    used = {n.pin: n.name for n in hwdocs_parts.nets(data)}
    used.update({hwdocs_parts.VBUS_PIN: "VBUS", hwdocs_parts.V3V3_PIN: "3V3", hwdocs_parts.GND_PIN: "GND"})
    return used


def _check_one_wire_per_pin(svg_text, data):
    wires, stubs = _wires(svg_text)
    assert sorted(stubs) == list(range(1, 41))
    used = _used_pins(data)
    assert sorted(wires) == sorted(used), "a wire lands on a pin the map does not use, or one is missing"
    for pin, landed in wires.items():
        assert len(landed) == 1, "pin %d has %d wires" % (pin, len(landed))
        net, points = landed[0]
        assert net == used[pin]
        assert points[-1] == pytest.approx(stubs[pin]), "the wire of pin %d stops short of it" % pin
        for (x1, y1), (x2, y2) in zip(points, points[1:]):
            assert x1 == x2 or y1 == y2, "wires run along the grid"
    routes = {landed[0][0]: landed[0][1] for landed in wires.values()}
    assert hwdocs_route.clashes(routes, {}) == []


@pytest.mark.parametrize("name", WIRED)
@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_every_used_pin_has_exactly_one_wire(path, name):
    data = json.loads(path.read_text())
    svg = _draw(name, data)
    assert svg == hwdocs.PICTURES[name](data, "test")  # deterministic: drawn again
    _check_one_wire_per_pin(svg, data)


def _random_map(seed):
    rnd = random.Random(seed)
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    gpios = list(pinmap.BOARDS["pico"])
    rnd.shuffle(gpios)
    data["boxes"] = [{"buttons": {b: gpios.pop() for b in pinmap.BUTTONS}, "led": gpios.pop()}
                     for _ in range(rnd.randint(1, 4))]
    data["main_button"], data["buzzer"], data["matrix"]["pin"] = gpios.pop(), gpios.pop(), gpios.pop()
    pinmap.PinMap(data)
    return data


@pytest.mark.slow
def test_any_map_is_drawn_with_one_wire_per_pin():
    """Pins scattered at random over the board, not only the committed maps' tidy runs."""
    for seed in range(40):
        data = _random_map(seed)
        for name in WIRED:
            _check_one_wire_per_pin(_draw(name, data), data)


def test_a_clash_is_found():
    """The overlap check itself: two wires along each other, and one merely crossing."""
    routes = {"a": [(0, 0), (100, 0)], "b": [(50, 3), (200, 3)], "c": [(60, -50), (60, 50)]}
    assert hwdocs_route.clashes(routes, {}) == [("a", "b")]
    stub = {"pin 1": ("", ((120, 40), (160, 40)))}
    assert hwdocs_route.clashes({"d": [(0, 40), (130, 40)]}, stub) == [("d", "pin 1")]


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_wiring_and_layout_join_the_same_things(path):
    data = json.loads(path.read_text())
    joined = [{pin: landed[0][0] for pin, landed in _wires(_draw(name, data))[0].items()} for name in WIRED]
    assert joined[0] == joined[1]


def _stroke_colours(svg_text, net):
    root = ET.fromstring(svg_text)
    out = set()
    for el in root.iter(SVG + "polyline"):
        if el.get("data-net") == net:
            out.add(el.get("stroke"))
    return out


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_box_lines_wear_their_cable_colour(path):
    data = json.loads(path.read_text())
    svg = _draw("wiring.svg", data)
    stripes = {}
    root = ET.fromstring(svg)
    elements = list(root.iter(SVG + "polyline"))
    for el, after in zip(elements, elements[1:]):   # a striped wire: white, then its dashes
        if el.get("class") == "wire" and el.get("stroke") == "#ffffff":
            stripes.setdefault(el.get("data-net"), set()).add(after.get("stroke"))
    for net in hwdocs_parts.nets(data):
        if net.box < 0:
            continue
        name, colour, striped = hwdocs_parts.cable_colour(data, net.contact)
        assert name == hwdocs_parts.WIRE_COLOURS["T568B"][int(net.contact) - 1]
        if striped:
            assert stripes[net.name] == {colour}, net.label
            assert _stroke_colours(svg, net.name) == {"#ffffff"}
        else:
            assert _stroke_colours(svg, net.name) == {colour}, net.label


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_wiring_diagram_draws_every_part(path):
    data = json.loads(path.read_text())
    root = ET.fromstring(_draw("wiring.svg", data))
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    boxes = len(data["boxes"])
    assert [t for t in texts if re.fullmatch(r"Box \d", t)] == ["Box %d" % (i + 1) for i in range(boxes)]
    for b, arrow in zip(pinmap.BUTTONS, pinmap.ARROWS):
        assert texts.count("%s / %s" % (b, arrow)) == boxes
    assert texts.count("LED") == boxes
    assert texts.count(hwdocs_parts.PULL_UP) == 4 * boxes + 1     # one pull-up per button line
    assert texts.count(hwdocs_parts.FILTER_C) == 4 * boxes + 1
    for part in ("1N4148", "74AHCT125", "ROLL / MENU", "piezo", "1000 µF, 6.3 V or more, at the panel"):
        assert part in texts


def test_layout_has_one_input_row_per_line():
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    texts = [t.text or "" for t in ET.fromstring(_draw("main-unit-layout.svg", data)).iter(SVG + "text")]
    for i in range(4):
        for contact in ("1", "2", "3", "6", "4"):
            assert any(t.startswith("J%d contact %s (" % (i + 1, contact)) for t in texts)
    assert texts.count(hwdocs_parts.PULL_UP) == 17
    assert texts.count(hwdocs_parts.LED_R) == 4 + (hwdocs_parts.DATA_R == hwdocs_parts.LED_R)  # + matrix data


# ---------------------------------------------------------------- the box panel

def test_panel_holes_fit_the_lid_and_each_other():
    p = hwdocs_panel
    centres = {role: p.hole_position(role) for role in (*pinmap.BUTTONS, "LED")}
    assert centres["THROW"][1] < centres["CATCH"][1] < centres["DODGE"][1]          # UP above DOWN
    assert centres["CATCH"][0] < centres["THROW"][0] < centres["PASS"][0]          # LEFT, RIGHT
    for size in (30, 24):
        r = p.COLLAR[size] / 2
        for role in pinmap.BUTTONS:
            x, y = centres[role]
            assert min(x, y, p.PANEL_W - x, p.PANEL_H - y) - r >= 3, (size, role)
            for other in pinmap.BUTTONS:
                if other != role:
                    ox, oy = centres[other]
                    assert ((x - ox) ** 2 + (y - oy) ** 2) ** 0.5 >= 2 * r + 3, (size, role, other)
            lx, ly = centres["LED"]
            assert ((x - lx) ** 2 + (y - ly) ** 2) ** 0.5 >= r + p.LED_CLIP_HOLE / 2 + 3
    lx, ly = centres["LED"]
    assert min(lx, ly, p.PANEL_W - lx, p.PANEL_H - ly) >= 8


def test_panel_labels_each_button_with_both_names_and_its_contact():
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    root = ET.fromstring(_draw("box-panel.svg", data))
    assert root.get("width") == "%gmm" % hwdocs_panel.PAGE_W
    assert root.get("viewBox") == "0 0 %g %g" % (hwdocs_panel.PAGE_W, hwdocs_panel.PAGE_H)
    holes = [(c.get("data-role"), float(c.get("data-diameter")), float(c.get("r")))
             for c in root.iter(SVG + "circle") if c.get("class") == "hole"]
    for role in pinmap.BUTTONS:
        assert (role, 30.0, 15.0) in holes and (role, 24.0, 12.0) in holes
    assert ("LED", 5.0, 2.5) in holes
    texts = [(t.text or "", float(t.get("x")), float(t.get("y"))) for t in root.iter(SVG + "text")]
    for role, arrow in zip(pinmap.BUTTONS, pinmap.ARROWS):
        x, y = (hwdocs_panel.PANEL_X + v for v in hwdocs_panel.hole_position(role))
        inside = [t for t, tx, ty in texts if abs(tx - x) < 12 and abs(ty - y) < 12]
        contact = [k for k, v in data["cable"]["pins"].items() if v == role][0]
        assert role in inside and arrow in inside and "contact %s" % contact in inside


# ---------------------------------------------------------------- rendered by a real renderer

def _renderer():
    """A real SVG renderer: librsvg's ``rsvg-convert`` where it is installed (CI installs
    it), else resvg, which the development extra brings (``resvg-cli``)."""
    found = shutil.which("rsvg-convert")
    if found:
        return "rsvg", found
    beside = Path(sys.executable).parent / "resvg"
    found = str(beside) if beside.exists() else shutil.which("resvg")
    assert found, "no SVG renderer: install librsvg2-bin, or the dev extra (resvg-cli)"
    return "resvg", found


def _png(path):
    return pngread.read(path.read_bytes())


def _render(svg, png, dpi=None, width=None, height=None, decode=True):
    kind, exe = _renderer()
    args = []
    if dpi:
        args += ["--dpi-x", str(dpi), "--dpi-y", str(dpi)] if kind == "rsvg" else ["--dpi", str(dpi)]
    if width:
        args += ["-w", str(width), "-h", str(height)]
    files = ["-o", str(png), str(svg)] if kind == "rsvg" else [str(svg), str(png)]
    subprocess.run([exe, *args, *files], check=True, timeout=60)
    if not decode:
        return struct.unpack(">II", png.read_bytes()[16:24])
    return _png(png)


COMMITTED = sorted(n for n in hwdocs.outputs() if n.endswith(".svg"))


@pytest.mark.svg
@pytest.mark.parametrize("name", COMMITTED)
def test_every_picture_renders_at_its_size(name, tmp_path):
    path = HARDWARE / name
    root = ET.parse(path).getroot()
    width, height = root.get("width"), root.get("height")
    if width.endswith("mm"):   # drawn in millimetres: at 254 dpi, 10 pixels to the millimetre
        size = _render(path, tmp_path / "p.png", dpi=254, decode=False)
        assert size == (round(float(width[:-2]) * 10), round(float(height[:-2]) * 10))
    else:
        size = _render(path, tmp_path / "p.png", decode=False)
        assert size == (int(width), int(height))
    # and something was drawn: in a small rendering, at least 5 % of the pixels are not white
    w, h, rows = _render(path, tmp_path / "small.png", width=300, height=300 * size[1] // size[0])
    inked = sum(1 for row in rows for k in range(0, len(row), 4)
                if row[k + 3] > 128 and min(row[k:k + 3]) < 200)
    assert inked > w * h // 20, "the picture came out (nearly) blank: %d of %d pixels" % (inked, w * h)


@pytest.mark.svg
def test_panel_scale_bar_measures_fifty_millimetres(tmp_path):
    """Rendered at 254 dpi, the 50 mm bar must span 500 pixels (plus its outline)."""
    w, h, rows = _render(HARDWARE / "box-panel.svg", tmp_path / "p.png", dpi=254)
    p = hwdocs_panel
    y = round((p.PANEL_Y + p.PANEL_H + 10 + 1) * 10)     # the middle of the bar
    row = rows[y]
    dark = [k for k in range(w) if row[4 * k] < 100 and row[4 * k + 3] > 200]
    first, last = dark[0], [k for k in dark if k < (p.PANEL_X + p.SCALE_BAR + 2) * 10][-1]
    assert first == pytest.approx(p.PANEL_X * 10, abs=3)
    assert last - first + 1 == pytest.approx(p.SCALE_BAR * 10, abs=4)


# ---------------------------------------------------------------- the build guide

def _section(guide, number):
    return re.search(r"^## %d\. .*?(?=^## )" % number, guide, re.M | re.S).group(0)


def test_build_guide_links_each_picture_where_it_is_needed():
    guide = (HARDWARE / "README.md").read_text()
    boxes, cables, main_unit = (_section(guide, n) for n in (2, 3, 4))
    assert "(box-panel.svg)" in boxes and "(wiring.svg)" in boxes
    assert "(wiring.svg)" in cables
    assert "(main-unit-layout.svg)" in main_unit and "(wiring.svg)" in main_unit
    for path in MAPS[1:]:
        assert "(variants/%s.json)" % path.stem in guide
    assert "courtside pins docs --map hardware/variants/" in guide
    assert "(checklist.md)" in _section(guide, 6) and "(enclosure.svg)" in boxes


def test_build_guide_and_bom_quote_the_drawings_figures():
    guide = (HARDWARE / "README.md").read_text()
    p = hwdocs_panel
    up, down = p.hole_position("THROW"), p.hole_position("DODGE")
    left, right = p.hole_position("CATCH"), p.hole_position("PASS")
    apart = (down[1] - up[1], right[0] - left[0])
    assert "UP and DOWN are %g mm apart, LEFT and RIGHT %g mm" % apart in guide
    gap = min(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5
              for a in (up, down, left, right) for b in (up, down, left, right) if a != b) - p.COLLAR[30]
    edge = min(up[1], p.PANEL_H - down[1], left[0], p.PANEL_W - right[0]) - p.COLLAR[30] / 2
    assert "collars of 30 mm buttons keep at least %g mm between them and %g mm from the lid's edge" % (
        int(gap), edge) in guide
    size = "at least %d x %d holes (%.0f x %.0f mm)" % (hwdocs_layout.COLS, hwdocs_layout.ROWS,
                                                         hwdocs_layout.COLS * 2.54, hwdocs_layout.ROWS * 2.54)
    assert size in (HARDWARE / "bom.md").read_text()


# ---------------------------------------------------------------- following the drawn wires

class _Picture:
    """The connections a reader sees: wires joined end to end, a wire ending on another
    wire, and the parts allowed to pass a line through (resistors)."""

    def __init__(self, svg_text, through=("resistor", "jack")):
        root = ET.fromstring(svg_text)
        self.parent: dict = {}
        self.segments = []
        for el in root.iter(SVG + "polyline"):
            if el.get("class") == "wire":
                points = [self._key(p.split(",")) for p in el.get("points").split()]
                for a, b in zip(points, points[1:]):
                    self.join(a, b)
                    self.segments.append((a, b))
        self.parts = []
        for el in root.iter(SVG + "g"):
            if el.get("class") == "part":
                terminals = [self._key(p.split(",")) for p in el.get("data-terminals").split()]
                self.parts.append((el.get("data-kind"), el.get("data-net"), el.get("data-name"), terminals))
                if el.get("data-kind") in through:
                    self.join(*terminals)
        for a, b in list(self.segments):   # a wire that ends on another wire joins it
            for point in list(self.parent):
                if point not in (a, b) and self._on(point, a, b):
                    self.join(point, a)
        self.pins = {pin: self._key((x, y)) for pin, (x, y) in _wires(svg_text)[1].items()}

    @staticmethod
    def _key(p):
        return (round(float(p[0]), 1), round(float(p[1]), 1))

    @staticmethod
    def _on(p, a, b):
        return (a[0] == b[0] == p[0] and min(a[1], b[1]) < p[1] < max(a[1], b[1])) or \
               (a[1] == b[1] == p[1] and min(a[0], b[0]) < p[0] < max(a[0], b[0]))

    def find(self, p):
        self.parent.setdefault(p, p)
        while self.parent[p] != p:
            self.parent[p] = self.parent[self.parent[p]]
            p = self.parent[p]
        return p

    def join(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    def part(self, kind, net=None, name=None):
        found = [t for k, n, nm, t in self.parts if k == kind and (net is None or n == net)
                 and (name is None or nm == name)]
        assert len(found) == 1, (kind, net, name, len(found))
        return found[0]


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_wiring_diagram_joins_each_part_to_its_pin_and_nothing_else(path):
    _check_joins(json.loads(path.read_text()))


def test_wiring_diagram_of_any_map_joins_each_part_to_its_pin():
    for seed in range(10):
        _check_joins(_random_map(seed))


def _check_joins(data):
    picture = _Picture(_draw("wiring.svg", data))
    pin_of = {n.name: n.pin for n in hwdocs_parts.nets(data)}
    for net in hwdocs_parts.nets(data):
        if net.kind in ("button", "main"):
            start = picture.part("button", net.name)[1 if net.kind == "button" else 0]   # the NO tab
        elif net.kind == "led":
            start = picture.part("led", net.name)[0]                                   # the anode
        elif net.kind == "buzzer":
            start = picture.part("npn")[0]                                              # the base
        else:
            start = picture.part("buffer", net.name)[0]                                 # 1A
            out = picture.part("buffer", net.name)[1]
            assert picture.find(out) == picture.find(picture.part("matrix", net.name)[0])  # 1Y to DIN
        assert picture.find(start) == picture.find(picture.pins[net.pin]), net.label
        if net.contact:   # through its own contact, at both ends of the cable
            through = [t for k, _, name, t in picture.parts if k == "jack" and name == net.contact
                       and picture.find(t[0]) == picture.find(start)]
            assert len(through) == 2, net.label
    # and no two pins the map uses are joined by the drawing
    used = sorted(set(pin_of.values()) | {36, 38, 40})
    roots = [picture.find(picture.pins[n]) for n in used]
    assert len(set(roots)) == len(used)
    # the supplies reach their rails
    assert picture.find(picture.pins[40]) in {picture.find(t[0]) for k, _, nm, t in picture.parts
                                              if k == "rail" and nm == "5V"}
    assert picture.find(picture.pins[36]) in {picture.find(t[0]) for k, _, nm, t in picture.parts
                                              if k == "rail" and nm == "3V3"}
    assert picture.find(picture.pins[38]) in {picture.find(t[0]) for k, _, _, t in picture.parts
                                              if k == "ground"}


def test_following_the_wires_finds_a_break():
    """The follower itself: cut one box line's cable and the button no longer reaches its pin."""
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    svg = _draw("wiring.svg", data)
    cable = re.search(r'<polyline class="wire" points="(3\d\d,[\d.]+ 440,[\d.]+)"[^>]*data-net="GP2"', svg)
    assert cable
    cut = svg.replace(cable.group(1), cable.group(1).replace("440,", "430,"))
    picture = _Picture(cut)
    assert picture.find(picture.part("button", "GP2")[1]) != picture.find(picture.pins[4])


def test_a_map_without_a_cable_is_drawn_too():
    """``cable`` is optional in a map: the pictures number the contacts themselves."""
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    del data["cable"]
    for name in WIRED:
        _check_one_wire_per_pin(_draw(name, data), data)
    _check_joins(data)
    root = ET.fromstring(_draw("box-panel.svg", data))
    assert "THROW" in [t.text for t in root.iter(SVG + "text")]


# ---------------------------------------------------------------- the enclosures


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_enclosure_has_a_cut_out_per_jack_and_both_contact_views(path):
    from courtside_host.hwdocs import enclosure as e
    data = json.loads(path.read_text())
    root = ET.fromstring(_draw("enclosure.svg", data))
    assert root.get("width") == "%gmm" % e.PAGE_W and root.get("height") == "%gmm" % e.PAGE_H
    cutouts = [(float(r.get("width")), float(r.get("height"))) for r in root.iter(SVG + "rect")
               if r.get("class") == "cutout"]
    assert cutouts == [e.KEYSTONE] * (1 + len(data["boxes"]))   # a box's wall, then J1...
    texts = [(t.text, float(t.get("x")), float(t.get("y"))) for t in root.iter(SVG + "text")]
    for k in range(len(data["boxes"])):
        assert "J%d" % (k + 1) in [t for t, _, _ in texts]
    rows: dict = {}
    for text, x, y in texts:
        if text and text.isdigit() and len(text) == 1:
            rows.setdefault(y, []).append((x, text))
    front, back = (["".join(t for _, t in sorted(row)) for _, row in sorted(rows.items())])
    assert (front, back) == ("12345678", "87654321")      # into the socket, then from the solder side
    holes = [float(c.get("data-diameter")) for c in root.iter(SVG + "circle") if c.get("class") == "hole"]
    assert holes == [hwdocs_panel.HOLES[30]]
    for contact, role in data["cable"]["pins"].items():
        name = hwdocs_parts.cable_colour(data, contact)[0]
        assert "%s  %s: %s" % (contact, name, role) in [t for t, _, _ in texts]


@pytest.mark.svg
def test_enclosure_scale_bar_measures_fifty_millimetres(tmp_path):
    root = ET.parse(HARDWARE / "enclosure.svg").getroot()
    bar = [r for r in root.iter(SVG + "rect") if r.get("class") == "scale-bar"][0]
    x, y, width = (float(bar.get(k)) for k in ("x", "y", "width"))
    w, h, rows = _render(HARDWARE / "enclosure.svg", tmp_path / "e.png", dpi=254)
    row = rows[round((y + 1) * 10)]
    dark = [k for k in range(w) if row[4 * k] < 100 and row[4 * k + 3] > 200 and k < (x + width + 2) * 10]
    assert dark[0] == pytest.approx(x * 10, abs=3)
    assert dark[-1] - dark[0] + 1 == pytest.approx(width * 10, abs=4) and width == hwdocs_panel.SCALE_BAR


def test_parts_list_names_snap_in_buttons_and_how_each_switch_is_wired():
    """The template's spacing is for buttons without a panel nut, and the list says so; for
    each switch it names the tab size and the crimp or the solder joint."""
    bom = (HARDWARE / "bom.md").read_text()
    rows = {int(m.group(1)): m.group(0) for m in re.finditer(r"^\| (\d+) \|.*$", bom, re.M)}
    assert "snap-in" in rows[21] and "snap-in" in rows[11] and "nut" in rows[21]
    switches = re.search(r"^### The switches' tabs: crimp or solder\n\n(.*?)\n\n", bom, re.M | re.S).group(1)
    lines = [line for line in switches.splitlines()[2:]]
    assert any("item 21" in line and "crimp" in line and "solder" in line for line in lines)
    assert any("item 11" in line and "crimp" in line and "solder" in line for line in lines)
    p = hwdocs_panel
    up, left = p.hole_position("THROW"), p.hole_position("CATCH")
    nearest = ((up[0] - left[0]) ** 2 + (up[1] - left[1]) ** 2) ** 0.5
    assert nearest < 38, "the spacing would clear a 38 mm nut: the snap-in requirement could go"
