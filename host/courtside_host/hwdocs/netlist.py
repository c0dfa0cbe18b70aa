"""Nets: what the build must join (``intended``) and what a picture actually joins (``extract``).

A net is a set of part pins, each named ``REF.PIN``: ``Pico.38`` (the Pico's pin 38),
``J2.5`` (contact 5 of the main unit's second jack), ``RS4.2`` (the Pico end of GP4's 1 kΩ
series resistor). ``intended(data)`` lists every net of a pin map, the supplies and ground
included; ``extract(svg_text)`` reads the same kind of list back out of a picture from what
it drew: the end points and corners of its wires, its bare wire (buses, solder bridges), its
junction dots, its supply and ground symbols and the terminal points of its parts. Nothing
in between is trusted: a wire that stops short of a pin leaves that pin out of its net, and
two wires that meet join two nets.

    nets = intended(data)                 # {"GND": frozenset({"Pico.38", ...}), ...}
    found = extract(svg_text)             # Extraction: .groups (frozensets), .loose (points)
    compare(nets, found)                  # [] when the picture joins exactly what it should

The continuity checklist (``checklist(data)``, written to hardware/checklist.md) is made
from ``intended``, so the meter checks the same nets the pictures are checked against.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from courtside import pinmap

from .parts import GND_PIN, V3V3_PIN, VBUS_PIN, contacts, nets

SVG = "{http://www.w3.org/2000/svg}"

# 74AHCT125 pins: the first buffer carries the matrix data; the other three are unused, their
# enables (active low) held at VCC so their outputs float, their inputs held at GND.
BUFFER_UNUSED_ENABLES = (4, 10, 13)
BUFFER_UNUSED_INPUTS = (5, 9, 12)

# Where each part sits: in a box, on the main unit's board (or wired to it), or at the panel.
BOX, MAIN, PANEL = "box", "main", "panel"


def _box_ref(b: int, role: str) -> str:
    return "BOX%d%s" % (b + 1, role)


def intended(data: dict) -> dict:
    """Net name -> frozenset of REF.PIN, for every net the build has (a valid map)."""
    pinmap.PinMap(data)
    cable = ((data.get("cable") or {}).get("pins")) or {}
    c = contacts(data)
    grounds = [k for k, v in sorted(cable.items(), key=lambda kv: int(kv[0])) if v == "GND"]
    out: dict = {}

    def add(name, *members):
        out.setdefault(name, set()).update(members)

    add("GND", "Pico.%d" % GND_PIN, "Q1.E", "U1.1", "U1.7", "C1.2", "M1.GND", "C2.-", "SW0.COM",
        *("U1.%d" % p for p in BUFFER_UNUSED_INPUTS))
    add("3V3", "Pico.%d" % V3V3_PIN)
    add("5V", "Pico.%d" % VBUS_PIN, "U1.14", "C1.1", "M1.5V", "C2.+", "BZ1.1", "RP.1", "D1.K",
        *("U1.%d" % p for p in BUFFER_UNUSED_ENABLES))
    for net in nets(data):
        g, pin = net.gpio, "Pico.%d" % net.pin
        if net.kind in ("button", "main"):
            add(net.name, pin, "RS%d.2" % g, "CF%d.1" % g)
            add("3V3", "RPU%d.1" % g)
            add("GND", "CF%d.2" % g)
            line = ["RPU%d.2" % g, "RS%d.1" % g]
            if net.kind == "main":
                line.append("SW0.NO")
            else:
                line += ["J%d.%s" % (net.box + 1, net.contact),
                         "%s.%s" % (_box_ref(net.box, "J"), net.contact),
                         "%s.NO" % _box_ref(net.box, net.role)]
            add("%s line" % net.name, *line)
        elif net.kind == "led":
            add(net.name, pin, "RL%d.2" % g)
            add("%s line" % net.name, "RL%d.1" % g, "J%d.%s" % (net.box + 1, net.contact),
                "%s.%s" % (_box_ref(net.box, "J"), net.contact), "%s.A" % _box_ref(net.box, "LED"))
        elif net.kind == "buzzer":
            add(net.name, pin, "RB.1")
            add("buzzer base", "RB.2", "Q1.B")
            add("buzzer collector", "Q1.C", "BZ1.2", "RP.2", "D1.A")
        else:
            add(net.name, pin, "U1.2")
            add("matrix data", "U1.3", "RD.1")
            add("matrix DIN", "RD.2", "M1.DIN")
    for b in range(len(data["boxes"])):
        box_j = _box_ref(b, "J")
        add("GND", "%s.K" % _box_ref(b, "LED"), *("%s.COM" % _box_ref(b, r) for r in pinmap.BUTTONS),
            *("J%d.%s" % (b + 1, k) for k in grounds), *("%s.%s" % (box_j, k) for k in grounds))
        for k, carried in cable.items():
            if carried == "spare":
                add("J%d.%s spare" % (b + 1, k), "J%d.%s" % (b + 1, k), "%s.%s" % (box_j, k))
    assert c or not cable
    return {name: frozenset(members) for name, members in out.items()}


def where(member: str) -> str:
    """BOX, MAIN or PANEL: where the part of a REF.PIN sits."""
    ref = member.split(".", maxsplit=1)[0]
    if ref.startswith("BOX"):
        return BOX
    return PANEL if ref == "C2" else MAIN


# ---------------------------------------------------------------- reading a picture


def _key(x, y):
    return (round(float(x), 1), round(float(y), 1))


def _points(text):
    return [_key(*p.split(",")) for p in text.split()]


def _on(p, a, b) -> bool:
    """p lies on the axis-parallel segment a-b (ends included)."""
    if a[0] == b[0] == p[0]:
        return min(a[1], b[1]) <= p[1] <= max(a[1], b[1])
    if a[1] == b[1] == p[1]:
        return min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
    return False


def _meet(s, t):
    """Where two axis-parallel segments touch (a point), or None."""
    (a, b), (c, d) = s, t
    for p in (a, b):
        if _on(p, c, d):
            return p
    for p in (c, d):
        if _on(p, a, b):
            return p
    if a[0] == b[0] and c[1] == d[1]:
        p = (a[0], c[1])
    elif a[1] == b[1] and c[0] == d[0]:
        p = (c[0], a[1])
    else:
        return None
    return p if _on(p, a, b) and _on(p, c, d) else None


@dataclass
class Extraction:
    mode: str
    groups: list                                   # frozensets of REF.PIN, one per joined group
    loose: list = field(default_factory=list)      # wire ends joined to nothing but their own wire
    undotted: list = field(default_factory=list)   # schematic joins of three or more ways with no dot
    needless: list = field(default_factory=list)   # dots where no wire branches
    floating: list = field(default_factory=list)   # wires or bars that join no part pin
    members: set = field(default_factory=set)      # every REF.PIN the picture draws
    endpoints: int = 0                             # wire and bar ends the reading looked at


class _Union:
    def __init__(self):
        self.parent: dict = {}

    def find(self, p):
        self.parent.setdefault(p, p)
        while self.parent[p] != p:
            self.parent[p] = self.parent[self.parent[p]]
            p = self.parent[p]
        return p

    def join(self, a, b):
        self.parent[self.find(a)] = self.find(b)


def _terminals(root) -> list:
    """(point, REF.PIN or None, supply or ground label or None) for each part terminal."""
    out = []
    for el in root.iter(SVG + "g"):
        if el.get("class") != "part":
            continue
        points = _points(el.get("data-terminals"))
        kind = el.get("data-kind")
        if kind in ("rail", "ground"):
            label = "GND" if kind == "ground" else el.get("data-name")
            out += [(p, None, label) for p in points]
        elif el.get("data-ref"):
            names = el.get("data-pins").split()
            if len(names) != len(points):
                raise ValueError("part %s has %d terminals and %d pin names"
                                 % (el.get("data-ref"), len(points), len(names)))
            out += [(p, "%s.%s" % (el.get("data-ref"), n), None)  # type: ignore[misc]
                    for p, n in zip(points, names)]
    return out


def _check_dots(out: Extraction, conductors, terminals, attached, dots):
    """Where three or more ways meet a schematic must show a dot, and nowhere else."""
    ends = {p for _, _, pts in conductors for p in (pts[0], pts[-1])}
    leads = [p for p, member, _ in terminals if member]   # a supply or ground flag is no way on
    for p in sorted(ends | set(leads) | dots):
        ways = leads.count(p)
        for kind, k, pts in conductors:
            if (kind, k) in attached.get(p, ()):
                ways += 1 if p in (pts[0], pts[-1]) else 2
        if ways >= 3 and p not in dots:
            out.undotted.append(p)
        elif ways < 3 and p in dots:
            out.needless.append(p)


class _InLine:
    """The points by column and by row, so a segment looks only at those in line with it
    (the picture's order of them kept: spots in the order the set gives them)."""

    def __init__(self, spots, mode):
        self.mode = mode
        self.listed = list(spots)
        self.rank = {p: k for k, p in enumerate(self.listed)}
        self.by_x: dict = {}
        self.by_y: dict = {}
        for p in self.listed:
            self.by_x.setdefault(p[0], []).append(p)
            self.by_y.setdefault(p[1], []).append(p)

    def touching(self, kind, pts):
        """The points a conductor touches: anywhere along it, or for an insulated wire on
        a board only its ends."""
        if kind == "wire" and self.mode == "board":
            ends = (pts[0], pts[-1])
            return [p for p in self.listed if p in ends]
        hit = set()
        for a, b in zip(pts, pts[1:]):
            if a[0] == b[0]:
                hit.update(p for p in self.by_x.get(a[0], ()) if _on(p, a, b))
            if a[1] == b[1]:
                hit.update(p for p in self.by_y.get(a[1], ()) if _on(p, a, b))
        return sorted(hit, key=self.rank.__getitem__)


def extract(svg_text: str) -> Extraction:
    """The nets a picture draws, read from its wires, bare wire, symbols and part pins."""
    root = ET.fromstring(svg_text)
    mode = next((g.get("data-mode") for g in root.iter(SVG + "g") if g.get("class") == "netlist"), "")
    if mode not in ("schematic", "board"):
        raise ValueError("the picture does not say how its conductors join (no netlist mode)")
    wires = [_points(el.get("points")) for el in root.iter(SVG + "polyline") if el.get("class") == "wire"]
    bars = [[_key(el.get("x1"), el.get("y1")), _key(el.get("x2"), el.get("y2"))]
            for el in root.iter(SVG + "line") if el.get("class") == "bar"
            or (mode == "board" and el.get("class") == "pin")]
    terminals = _terminals(root)
    u = _Union()
    # every conductor is a node; what lies on it joins it
    conductors = [("wire", k, w) for k, w in enumerate(wires)] + [("bar", k, b) for k, b in enumerate(bars)]
    for kind, k, pts in conductors:
        u.find((kind, k))
        for p in (pts if kind == "bar" or mode == "schematic" else (pts[0], pts[-1])):
            u.join((kind, k), ("at", p))
    # a point joins a conductor it lies on: anywhere along a schematic wire or bare wire,
    # only at its ends for an insulated wire on a board
    spots = {p for p, _, _ in terminals}
    for _, _, pts in conductors:
        spots.update((pts[0], pts[-1]))
    # a junction dot joins every wire it sits on, as a reader takes it to
    dots = {_key(c.get("cx"), c.get("cy")) for c in root.iter(SVG + "circle") if c.get("class") == "dot"}
    if mode == "schematic":
        spots |= dots

    in_line = _InLine(spots, mode)
    attached: dict = {}   # point -> the conductors touching it
    for kind, k, pts in conductors:
        for p in in_line.touching(kind, pts):
            u.join((kind, k), ("at", p))
            attached.setdefault(p, set()).add((kind, k))
    # bare wires that cross touch
    for i, (_, _, s) in enumerate([c for c in conductors if c[0] == "bar"]):
        for j, (_, _, t) in enumerate([c for c in conductors if c[0] == "bar"]):
            if i < j and _meet(tuple(s), tuple(t)):
                u.join(("bar", i), ("bar", j))
    labels: dict = {}
    for p, member, label in terminals:
        u.find(("at", p))
        if member:
            u.join(("member", member), ("at", p))
        else:
            first = labels.setdefault(label, ("at", p))
            u.join(first, ("at", p))
    groups: dict = {}
    members = {m for _, m, _ in terminals if m}
    for m in members:
        groups.setdefault(u.find(("member", m)), set()).add(m)
    out = Extraction(mode, [frozenset(g) for g in groups.values()], members=members)
    if mode == "schematic":
        _check_dots(out, conductors, terminals, attached, dots)
    # a wire end must land on something: a part pin, a symbol, or another conductor
    for kind, k, pts in conductors:
        if u.find((kind, k)) not in groups:
            out.floating.append((kind, pts))
        for p in (pts[0], pts[-1]):
            out.endpoints += 1
            others = attached.get(p, set()) - {(kind, k)}
            if kind == "wire" and not others and p not in {q for q, _, _ in terminals}:
                out.loose.append(p)
    return out


def compare(wanted: dict, found: Extraction, only=None) -> list:
    """What a picture joins wrongly, as sentences (empty when it joins exactly the wanted
    nets, restricted to the pins it draws). ``only``: the pins it must draw."""
    problems = ["%s is not drawn" % m for m in sorted(set(only or ()) - found.members)]
    drawn = found.members
    group_of = {m: g for g in found.groups for m in g}
    named = set()
    for name, members in sorted(wanted.items()):
        members = members & drawn
        if not members:
            continue
        named |= members
        pieces = sorted({group_of[m] for m in members}, key=sorted)
        if len(pieces) > 1:
            problems.append("open in %s: %s" % (name, " | ".join(
                ", ".join(sorted(piece & members)) for piece in pieces)))
        for piece in pieces:
            extra = piece - members
            if extra:
                problems.append("short: %s joined to %s" % (name, ", ".join(sorted(extra))))
    for m in sorted(drawn - named):
        if len(group_of[m]) > 1:
            problems.append("%s is in no net of the map but is joined to %s"
                            % (m, ", ".join(sorted(group_of[m] - {m}))))
    problems += ["a wire ends in the air at %g, %g" % p for p in found.loose]
    problems += ["wires join at %g, %g without a dot" % p for p in found.undotted]
    problems += ["a dot at %g, %g where nothing branches" % p for p in found.needless]
    problems += ["a %s joins no part (%s)" % (kind, " ".join("%g,%g" % p for p in pts))
                 for kind, pts in found.floating]
    return list(dict.fromkeys(problems))


# ---------------------------------------------------------------- the continuity checklist

_LEADS = {
    "RPU": ("%s kΩ pull-up" % "4.7", {"1": "3V3-bus lead", "2": "jack-side lead"}),
    "RS": ("1 kΩ series", {"1": "jack-side lead", "2": "Pico-side lead"}),
    "CF": ("10 nF", {"1": "Pico-side lead", "2": "GND-bus lead"}),
    "RL": ("330 Ω LED resistor", {"1": "jack-side lead", "2": "Pico-side lead"}),
}
_FIXED = {
    "SW0.NO": "main-unit button NO tab", "SW0.COM": "main-unit button COM tab",
    "RB.1": "buzzer 1 kΩ base resistor, Pico-side lead",
    "RB.2": "buzzer 1 kΩ base resistor, transistor-side lead",
    "Q1.E": "transistor E", "Q1.B": "transistor B", "Q1.C": "transistor C",
    "BZ1.1": "piezo header, 5V pin", "BZ1.2": "piezo header, collector pin",
    "RP.1": "1 kΩ across the piezo, 5V lead", "RP.2": "1 kΩ across the piezo, collector lead",
    "D1.A": "1N4148 anode", "D1.K": "1N4148 cathode (band)",
    "C1.1": "100 nF, 5V lead", "C1.2": "100 nF, GND lead",
    "RD.1": "330 Ω data resistor, chip-side lead", "RD.2": "330 Ω data resistor, header-side lead",
    "M1.DIN": "matrix header DIN", "M1.5V": "matrix header 5V", "M1.GND": "matrix header GND",
    "C2.+": "1000 µF + lead", "C2.-": "1000 µF - lead (stripe)",
}


def describe(member: str) -> str:
    """A REF.PIN in words a builder finds on the board: "J1 contact 5", "GP4 1 kΩ series,
    Pico-side lead"."""
    from .parts import EDGE_PINS
    ref, pin = member.split(".")
    if member in _FIXED:
        return _FIXED[member]
    if ref == "Pico":
        return "Pico socket pin %s (%s)" % (pin, EDGE_PINS[int(pin) - 1])
    if ref == "U1":
        return "74AHCT125 pin %s" % pin
    if ref.startswith("BOX"):
        box, what = ref[3], ref[4:]
        if what == "J":
            return "box %s jack contact %s" % (box, pin)
        if what == "LED":
            return "box %s LED %s" % (box, "anode (long leg)" if pin == "A" else "cathode (short leg)")
        return "box %s %s button %s tab" % (box, what, pin)
    if ref.startswith("J"):
        return "%s contact %s" % (ref, pin)
    for prefix, (part, leads) in _LEADS.items():
        if ref.startswith(prefix) and ref[len(prefix):].isdigit():
            return "GP%s %s, %s" % (ref[len(prefix):], part, leads[pin])
    raise ValueError("no description for %s" % member)


def _order(name: str):
    """Supplies first, then the lines in GPIO order, each GPIO's net before its line's."""
    rails = ["GND", "5V", "3V3"]
    if name in rails:
        return (0, rails.index(name), "")
    if name.startswith("GP"):
        return (1, int(name[2:].split(maxsplit=1)[0]), name)
    return (2, 0, name)


def _chain(members, holes) -> list:
    """Probe pairs that prove a net joined: the first point against each of the others."""
    def say(m):
        return describe(m) + (" (%s)" % holes[m] if m in holes else "")
    def rank(m):   # probe from the Pico's socket, else from a jack, else from the board
        ref = m.split(".")[0]
        return (0 if ref == "Pico" else 1 if ref[0] == "J" or ref.endswith("J") else 2, m not in holes,
                _natural(m))
    first, *rest = sorted(members, key=rank)
    return ["- [ ] %s to %s: **beeps**" % (say(first), say(m))
            for m in sorted(rest, key=lambda m: _natural(say(m)))]


def _natural(text: str):
    """Sort key that puts GP2 before GP10."""
    import re
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def checklist(data: dict, holes=None, source: str = "hardware/pinmap.json") -> str:
    """The continuity checklist of a map, as Markdown: the beeps that prove every net joined
    and the silences that prove no two nets touch, in the order a builder tests before the
    first power-up. ``holes``: REF.PIN -> the perfboard hole it sits in, from the layout."""
    holes = holes or {}
    wanted = intended(data)
    boxes = len(data["boxes"])
    cable = (data.get("cable") or {}).get("pins") or {}
    lines = ["# Continuity checklist: %s" % data.get("name", "Courtside"), "",
             "<!-- generated by `courtside pins docs` from %s; do not edit by hand -->" % source, "",
             "Made from the same netlist the tests read back out of the wiring diagram and the layout."
             " Use the meter's continuity (beep) setting, everything unpowered. A resistor of 330 Ω or"
             " more never beeps, so a beep across one means a solder bridge. Holes are the layout's"
             " (column letter, row number).", ""]
    # 1. boxes
    lines += ["## 1. Each button box, before closing it (cable unplugged)", "",
              "Do this for each of the %d boxes; contacts are the box's jack's." % boxes, ""]
    for name in sorted(wanted, key=_order):
        members = {m for m in wanted[name] if m.startswith("BOX1")}
        if len(members) > 1:
            lines += _chain(members, {})
    grounds = sorted(k for k, v in cable.items() if v == "GND")
    for contact in sorted(cable, key=int):
        role = cable[contact]
        if role in pinmap.BUTTONS and grounds:
            lines.append("- [ ] box 1 jack contact %s to contact %s: **silent**; hold %s pressed: **beeps**"
                         % (contact, grounds[0], role))
        elif role == "LED" and grounds:
            lines.append("- [ ] box 1 jack contact %s to contact %s: **silent** (the LED; on the diode"
                         " setting, red probe on %s, it glows faintly)" % (contact, grounds[0], contact))
    # 2. cables
    from .parts import cable_colour
    lines += ["", "## 2. Each patch cable", "",
              "Straight through: each contact at one plug to the same contact at the other.", ""]
    for contact in sorted(cable, key=int):
        name, _, _ = cable_colour(data, contact)
        after = str(int(contact) % len(cable) + 1)
        lines.append("- [ ] contact %s (%s) to contact %s: **beeps**; to contact %s at the other plug:"
                     " **silent**" % (contact, name, contact, after))
    # 3. the main unit
    lines += ["", "## 3. The main unit: Pico out of its socket; boxes, panel and piezo unplugged", "",
              "### 3.1 The supplies against each other: must not beep", ""]
    rails = {"GND": "Pico socket pin %d (GND)", "5V": "Pico socket pin %d (VBUS)",
             "3V3": "Pico socket pin %d (3V3(OUT))"}
    pins = {"GND": GND_PIN, "5V": VBUS_PIN, "3V3": V3V3_PIN}
    for a, b, note in (("5V", "GND", " (the 100 nF may chirp once as it charges)"), ("3V3", "GND", ""),
                       ("5V", "3V3", "")):
        lines.append("- [ ] %s to %s: **silent**%s" % (rails[a] % pins[a], rails[b] % pins[b], note))
    lines += ["", "### 3.2 Every net joined: must beep", ""]
    main = {name: {m for m in members if where(m) == MAIN} for name, members in wanted.items()}
    for name in sorted(main, key=_order):
        members = main[name]
        if len(members) > 1 and not name.endswith("spare"):
            lines += ["**%s**" % name, ""] + _chain(members, holes) + [""]
    lines += ["### 3.3 No line touching a supply or its neighbour: must not beep", ""]
    used = {n.pin: n.name for n in nets(data)}
    from .parts import EDGE_PINS
    for pin in sorted(used, key=lambda p: int(used[p][2:])):
        neighbours = [p for p in (pin - 1, pin + 1) if (p <= 20) == (pin <= 20) and 1 <= p <= 40
                      and (p in used or EDGE_PINS[p - 1] in ("GND", "VBUS", "3V3(OUT)"))]
        lines.append("- [ ] Pico socket pin %d (%s) to pins %d (GND), %d (3V3(OUT)), %d (VBUS)%s: **silent**"
                     % (pin, used[pin], GND_PIN, V3V3_PIN, VBUS_PIN,
                        "".join(" and %d (%s)" % (p, used.get(p, EDGE_PINS[p - 1])) for p in neighbours)))
    lines += ["", "Then go on with the build guide's section 6: the resistance checks, the Pico in its"
              " socket and the first power-up.", ""]
    return "\n".join(lines)
