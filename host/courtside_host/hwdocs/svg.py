"""A small SVG writer and the schematic symbols the hardware pictures are drawn with.

Every picture under hardware/ is built from these calls, so the same part looks the same
in the wiring diagram and the main-unit layout, and the output is deterministic: the same
calls give the same bytes.

    s = Svg(800, 600)                              # pixels; Svg(170, 130, unit="mm") for 1:1
    s.wire([(10, 10), (80, 10), (80, 40)], "#1c64d8", net="GP3", pin=5)
    s.resistor(120, 40, "4.7 kΩ", vertical=True)   # returns its two terminal points
    text = s.svg()

A wire is one ``<polyline class="wire">``; ``net`` and ``pin`` become ``data-net`` and
``data-pin`` attributes, which is how the tests find the wire that lands on each Pico pin.
Everything that conducts is marked so that ``netlist`` can read the netlist back
out of the picture: wires, bare wire (``bar``), junction dots, and each part's pins
(``part(..., ref="R1", pins="1 2")``: the terminal points and the pin each one is).
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

INK = "#222222"
FONT = "DejaVu Sans, Arial, sans-serif"


def _pts(points) -> str:
    return " ".join("%g,%g" % (round(x, 2), round(y, 2)) for x, y in points)


class Svg:
    def __init__(self, width: float, height: float, *, unit: str = "", font_size: float = 12,
                 netlist: str = ""):
        """``netlist`` says how the picture's conductors join, for ``netlist``:
        "schematic" (a wire joins whatever lies on it) or "board" (an insulated wire joins
        only the holes at its two ends; bare wire joins every hole it passes)."""
        self.width, self.height = width, height
        self.out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%g%s" height="%g%s" '
                    'viewBox="0 0 %g %g" font-family="%s" font-size="%g">'
                    % (width, unit, height, unit, width, height, FONT, font_size),
                    '<rect width="%g" height="%g" fill="#ffffff"/>' % (width, height)]
        if netlist:
            self.out.append('<g class="netlist" data-mode="%s"/>' % netlist)

    # ------------------------------------------------------------ primitives

    def rect(self, x, y, w, h, *, fill="none", stroke=INK, rx=0, width=1.5, dash="", cls=""):
        extra = (' stroke-dasharray="%s"' % dash if dash else "") + (' class="%s"' % cls if cls else "")
        self.out.append('<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s" stroke="%s" '
                        'stroke-width="%g"%s/>' % (x, y, w, h, rx, fill, stroke, width, extra))

    def line(self, x1, y1, x2, y2, *, stroke=INK, width=1.5, dash="", cls="", data=None):
        extra = (' stroke-dasharray="%s"' % dash if dash else "") + (' class="%s"' % cls if cls else "")
        for key, value in (data or {}).items():
            extra += " data-%s=%s" % (key, quoteattr(str(value)))
        self.out.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g"%s/>'
                        % (x1, y1, x2, y2, stroke, width, extra))

    def circle(self, x, y, r, *, fill="none", stroke=INK, width=1.5, dash="", cls="", data=None):
        extra = (' stroke-dasharray="%s"' % dash if dash else "") + (' class="%s"' % cls if cls else "")
        for key, value in (data or {}).items():
            extra += " data-%s=%s" % (key, quoteattr(str(value)))
        self.out.append('<circle cx="%g" cy="%g" r="%g" fill="%s" stroke="%s" stroke-width="%g"%s/>'
                        % (x, y, r, fill, stroke, width, extra))

    def polyline(self, points, *, stroke=INK, width=1.5, fill="none"):
        self.out.append('<polyline points="%s" fill="%s" stroke="%s" stroke-width="%g" '
                        'stroke-linejoin="round"/>' % (_pts(points), fill, stroke, width))

    def text(self, x, y, s, *, anchor="start", size=None, fill=INK, bold=False, rotate=0, cls=""):
        attrs = ' class="%s"' % cls if cls else ""
        attrs += ' font-size="%g"' % size if size is not None else ""
        attrs += ' font-weight="bold"' if bold else ""
        attrs += ' transform="rotate(%g %g %g)"' % (rotate, x, y) if rotate else ""
        self.out.append('<text x="%g" y="%g" text-anchor="%s" fill="%s"%s>%s</text>'
                        % (x, y, anchor, fill, attrs, escape(s)))

    def dot(self, x, y, r=3.0, fill=INK):
        """A junction: wires that meet here are joined."""
        self.circle(x, y, r, fill=fill, stroke=fill, width=0.5, cls="dot")

    def bar(self, x1, y1, x2, y2, *, stroke="#9aa5b1", width=5):
        """Bare wire (a bus or a solder bridge on a board): it joins everything along it."""
        self.line(x1, y1, x2, y2, stroke=stroke, width=width, cls="bar")

    def wire(self, points, colour, *, net="", pin=0, stripe="", width=3.0, legend=False):
        """One wire along ``points``. ``stripe`` (a colour) draws it as a striped wire
        (the white/colour wires of a network cable): white with dashes of the colour.
        ``legend``: a sample of a wire in a key, which joins nothing."""
        attrs = ""
        if net:
            attrs += " data-net=%s" % quoteattr(net)
        if pin:
            attrs += ' data-pin="%d"' % pin
        base = "#ffffff" if stripe else colour
        self.out.append('<polyline class="%s" points="%s" fill="none" stroke="%s" stroke-width="%g" '
                        'stroke-linejoin="round"%s/>' % ("legend" if legend else "wire", _pts(points), base,
                                                         width, attrs))
        if stripe:
            self.out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%g" '
                            'stroke-dasharray="%g %g"/>' % (_pts(points), stripe, width, 3 * width,
                                                             2 * width))
            self.out.append('<polyline points="%s" fill="none" stroke="#666666" stroke-width="0.6" '
                            'stroke-dasharray="%g %g"/>' % (_pts(points), 3 * width, 2 * width))

    def part(self, kind: str, *terminals, **data):
        """Record a drawn part and where its terminals are (an empty group: it draws
        nothing), so a test can follow the picture's connections from part to pin.
        ``ref`` and ``pins`` (one pin name per terminal, space separated) name the part
        and its pins in the netlist; a part without a ref (a key's sample) joins nothing."""
        attrs = "".join(" data-%s=%s" % (k, quoteattr(str(v))) for k, v in data.items() if v)
        self.out.append('<g class="part" data-kind="%s" data-terminals="%s"%s/>'
                        % (kind, _pts(terminals), attrs))
        return terminals

    def svg(self) -> str:
        return "\n".join([*self.out, "</svg>"]) + "\n"

    # ------------------------------------------------------------ symbols
    # Each symbol is centred on (x, y) and returns its terminals, so wires can start there.

    def resistor(self, x, y, label="", *, vertical=False, length=30, label_side=1, ref="", pins="1 2"):
        """A resistor (IEC box); terminals at the ends of its leads."""
        half = length / 2
        if vertical:
            self.line(x, y - half, x, y - 9)
            self.line(x, y + 9, x, y + half)
            self.rect(x - 4, y - 9, 8, 18, fill="#ffffff", width=1.3)
            if label:
                self.text(x + 7 * label_side, y + 4, label, size=10,
                          anchor="start" if label_side > 0 else "end")
            return self.part("resistor", (x, y - half), (x, y + half), ref=ref, pins=ref and pins)
        self.line(x - half, y, x - 9, y)
        self.line(x + 9, y, x + half, y)
        self.rect(x - 9, y - 4, 18, 8, fill="#ffffff", width=1.3)
        if label:
            self.text(x, y - 7 * label_side + (0 if label_side > 0 else 8), label, anchor="middle", size=10)
        return self.part("resistor", (x - half, y), (x + half, y), ref=ref, pins=ref and pins)

    def capacitor(self, x, y, label="", *, length=24, polarised=False, label_side=1, ref="", pins="1 2"):
        """A capacitor on a vertical lead, plates across it."""
        half = length / 2
        self.line(x, y - half, x, y - 3)
        self.line(x, y + 3, x, y + half)
        self.line(x - 8, y - 3, x + 8, y - 3, width=2.2)
        if polarised:
            self.polyline([(x - 8, y + 5), (x, y + 3), (x + 8, y + 5)], width=2.2)
            self.text(x - 11, y - 5, "+", size=10, anchor="end")
        else:
            self.line(x - 8, y + 3, x + 8, y + 3, width=2.2)
        if label:
            self.text(x + 11 * label_side, y + 4, label, size=10, anchor="start" if label_side > 0 else "end")
        return self.part("capacitor", (x, y - half), (x, y + half), ref=ref, pins=ref and pins)

    def ground(self, x, y):
        """The ground symbol hanging from (x, y)."""
        self.line(x, y, x, y + 4)
        self.line(x - 7, y + 4, x + 7, y + 4, width=1.8)
        self.line(x - 4.5, y + 7.5, x + 4.5, y + 7.5, width=1.4)
        self.line(x - 2, y + 11, x + 2, y + 11, width=1.2)
        self.part("ground", (x, y))

    def rail(self, x, y, name, colour, *, side="up"):
        """A supply flag (3V3, 5V) on the end of a wire at (x, y): the wire joins that rail.
        ``side`` is where the flag stands: up, left or right of the point."""
        self.part("rail", (x, y), name=name)
        if side == "up":
            self.line(x, y, x, y - 5, stroke=colour)
            self.line(x - 6, y - 5, x + 6, y - 5, stroke=colour, width=2)
            self.text(x, y - 9, name, anchor="middle", size=9, fill=colour, bold=True)
            return
        d = -1 if side == "left" else 1
        self.line(x, y, x + 5 * d, y, stroke=colour)
        self.line(x + 5 * d, y - 6, x + 5 * d, y + 6, stroke=colour, width=2)
        self.text(x + 9 * d, y + 4, name, anchor="end" if d < 0 else "start", size=9, fill=colour,
                  bold=True)

    def button(self, x, y, label="", *, size=28, net="", ref="", pins="COM NO"):
        """A normally-open push button across a horizontal line; terminals left and right."""
        half = size / 2
        self.line(x - half, y, x - 8, y)
        self.line(x + 8, y, x + half, y)
        self.circle(x - 8, y, 1.8, fill="#ffffff", width=1.2)
        self.circle(x + 8, y, 1.8, fill="#ffffff", width=1.2)
        self.line(x - 10, y - 6, x + 10, y - 6, width=1.6)
        self.line(x, y - 6, x, y - 12, width=1.6)
        self.line(x - 4, y - 12, x + 4, y - 12, width=1.6)
        if label:
            self.text(x, y + 13, label, anchor="middle", size=9)
        return self.part("button", (x - half, y), (x + half, y), net=net, ref=ref, pins=ref and pins)

    def diode(self, x, y, label="", *, cathode="up", led=False, length=30, net="", ref=""):
        """A diode (or LED) centred on (x, y), its cathode towards ``cathode`` (up, down,
        left or right); returns (anode, cathode) terminals."""
        half = length / 2
        ux, uy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[cathode]
        px, py = -uy, ux  # across the lead

        def at(a, b):
            return (x + ux * a + px * b, y + uy * a + py * b)

        self.line(*at(-half, 0), *at(-6, 0))
        self.line(*at(6, 0), *at(half, 0))
        self.polyline([at(-6, -7), at(-6, 7), at(6, 0), at(-6, -7)], fill="#ffffff", width=1.3)
        self.line(*at(6, -7), *at(6, 7), width=1.6)
        if led:
            for k in (-1, 4):
                a, b = at(k, 9), at(k - 6, 16)
                self.line(*a, *b, width=1)
                self.circle(*b, 1.2, fill=INK, width=0.5)
        if label:
            lx, ly = (x + (20 if led else 12), y + 4) if uy else (x, y + 19)
            self.text(lx, ly, label, size=10, anchor="start" if uy else "middle")
        return self.part("led" if led else "diode", at(-half, 0), at(half, 0), net=net, ref=ref,
                         pins=ref and "A K")

    def npn(self, x, y, label="", *, ref=""):
        """An NPN transistor, base on the left; returns (base, collector, emitter)."""
        self.circle(x, y, 15, fill="#ffffff", width=1.3)
        self.line(x - 5, y - 9, x - 5, y + 9, width=2)
        self.line(x - 20, y, x - 5, y)
        self.line(x - 5, y - 4, x + 7, y - 12)
        self.line(x + 7, y - 12, x + 7, y - 22)
        self.line(x - 5, y + 4, x + 7, y + 12)
        self.line(x + 7, y + 12, x + 7, y + 22)
        self.polyline([(x + 1, y + 11), (x + 7, y + 12), (x + 4, y + 7)], width=1.3)
        if label:
            self.text(x + 18, y + 4, label, size=10)
        return self.part("npn", (x - 20, y), (x + 7, y - 22), (x + 7, y + 22), ref=ref, pins=ref and "B C E")

    def piezo(self, x, y, label="", *, ref=""):
        """A piezo sounder on a vertical lead; returns (top, bottom) terminals."""
        self.line(x, y - 15, x, y - 6)
        self.line(x, y + 6, x, y + 15)
        self.rect(x - 9, y - 6, 18, 12, fill="#ffffff", width=1.3)
        self.line(x - 6, y - 2, x + 6, y - 2, width=1)
        self.line(x - 6, y + 2, x + 6, y + 2, width=1)
        if label:
            self.text(x + 13, y + 4, label, size=10)
        return self.part("piezo", (x, y - 15), (x, y + 15), ref=ref, pins=ref and "1 2")
