"""Routing wires to the Pico's pins through the channels around it.

Both pictures that show wires, the wiring diagram and the main-unit layout, bring every
GPIO's wire from its circuit to its pin the same way: out along the circuit's row to a
track in the channel beside the Pico, along the track to the pin's row, then in. A wire
whose pin is on the far side goes round above or below the Pico. Tracks are shared only by
wires whose stretches leave room between them, so no two wires run along each other.

    plan = Plan(left=844, right=1144, upper=300, lower=1100, step=9, rows=..., span=(0, 2000))
    routes = route(sources, pins, plan)     # net -> list of (x, y) points
    clashes(routes, stubs)                  # [] when nothing would read as joined
"""

from __future__ import annotations

from dataclasses import dataclass

NEAR = 5   # parallel wires closer than this would read as one


@dataclass
class Plan:
    left: float    # x of the first track left of the Pico (further tracks go left)
    right: float   # x of the first track right of the Pico (further tracks go right)
    upper: float   # y of the first track above the Pico (further tracks go up)
    lower: float   # y of the first track below the Pico (further tracks go down)
    step: float    # distance between neighbouring tracks
    rows: dict     # side (-1 left, +1 right) -> the heights of that side's pins
    span: tuple    # x range a wire going round the Pico may use
    skip: int = 0  # tracks kept free for a wire in line with a pin it does not go to
    across_first: bool = False  # wires going round the Pico take the tracks nearest it
    round_step: float = 0       # distance between the tracks above and below (default: step)


def _clash(a, b, gap) -> bool:
    return a[0] - gap < b[1] and b[0] - gap < a[1]


class _Channel:
    """Parallel tracks at fixed positions."""

    def __init__(self, first: float, step: float, gap: float):
        self.first, self.step, self.gap = first, step, gap
        self.used: list = []   # per track: the (lo, hi) stretches taken

    def free(self, lo: float, hi: float, skip: int = 0, limit: int = 40):
        """The tracks (after ``skip``) with room for a wire from lo to hi, nearest first,
        as (index, position)."""
        lo, hi = min(lo, hi), max(lo, hi)
        for k in range(skip, skip + limit):
            spans = self.used[k] if k < len(self.used) else []
            if not any(_clash((lo, hi), s, self.gap) for s in spans):
                yield k, self.first + k * self.step

    def take(self, k: int, lo: float, hi: float):
        while len(self.used) <= k:
            self.used.append([])
        self.used[k].append((min(lo, hi), max(lo, hi)))


def route(sources: dict, pins: dict, plan: Plan, stubs=None, colours=None) -> dict:
    """net -> the points of its wire. ``sources``: net -> (x, y, way), where way is +1 for a
    wire leaving its circuit rightwards and -1 leftwards; ``pins``: net -> (x, y, side) of
    the pin's outer end, side -1 for the Pico's left side and +1 for its right. Each wire
    takes the nearest tracks on which it runs along no wire already placed (and, given
    ``stubs`` as for ``clashes``, in line with no pin it does not go to; given ``colours``,
    net -> colour, with no end or corner near a wire of another net in the same colour,
    where the two would read as one wire turning)."""
    gap = 1.6 * plan.step
    left = _Channel(plan.left, -plan.step, gap)
    right = _Channel(plan.right, plan.step, gap)
    upper = _Channel(plan.upper, -(plan.round_step or plan.step), gap)
    lower = _Channel(plan.lower, plan.round_step or plan.step, gap)
    centre = (plan.upper + plan.lower) / 2
    same = [n for n in sources if (sources[n][2] > 0) == (pins[n][2] < 0)]
    across = [n for n in sources if n not in same]
    placed: list = []   # (net, segment) of every wire so far

    def clean(net, points):
        mine = segments(points)
        if any(overlap(p, q) for p in mine for other, q in placed if other != net):
            return False
        if colours and any(other != net and colours[other] == colours[net] and touches(p, q)
                           for p in mine for other, q in placed):
            return False
        return not any(owner != net and overlap(p, stub, 2 * NEAR)
                       for owner, stub in (stubs or {}).values() for p in mine)

    def place(net, points):
        placed.extend((net, seg) for seg in segments(points))
        out[net] = points

    def skip(y, side):
        return plan.skip if any(abs(y - r) < 2 * NEAR for r in plan.rows[side]) else 0

    def order(net):  # wires from above take the tracks nearest the Pico first, then those from below
        sy, py = sources[net][1], pins[net][1]
        return (0, sy) if sy <= py else (1, -sy)

    out: dict = {}

    def same_side():
        for net in sorted(same, key=order):
            sx, sy, _ = sources[net]
            px, py, side = pins[net]
            if abs(sy - py) < 0.5:
                place(net, [(sx, sy), (px, py)])
                continue
            channel = left if side < 0 else right
            first = None
            for k, x in channel.free(sy, py, skip(sy, side)):
                points = [(sx, sy), (x, sy), (x, py), (px, py)]
                first = first or (k, points)
                if clean(net, points):
                    first = (k, points)
                    break
            channel.take(first[0], sy, py)
            place(net, first[1])

    def round_the_pico():
        for net in sorted(across, key=lambda n: (sources[n][1], n)):
            sx, sy, way = sources[net]
            px, py, side = pins[net]
            around = upper if (sy + py) / 2 < centre else lower     # the channel above or below the Pico
            near, far = (left, right) if way > 0 else (right, left)
            first = None
            for ky, y in around.free(*plan.span):
                for k1, x1 in near.free(sy, y, skip(sy, -way), limit=20):
                    for k2, x2 in far.free(y, py, limit=20):
                        points = [(sx, sy), (x1, sy), (x1, y), (x2, y), (x2, py), (px, py)]
                        first = first or (ky, k1, k2, points)
                        if clean(net, points):
                            first = (ky, k1, k2, points)
                            break
                    else:
                        continue
                    break
                else:
                    continue
                break
            ky, k1, k2, points = first
            around.take(ky, *plan.span)
            near.take(k1, sy, points[2][1])
            far.take(k2, points[2][1], py)
            place(net, points)

    for step in ((round_the_pico, same_side) if plan.across_first else (same_side, round_the_pico)):
        step()
    return out


def _distance(p, a, b):
    cx = min(max(p[0], min(a[0], b[0])), max(a[0], b[0]))
    cy = min(max(p[1], min(a[1], b[1])), max(a[1], b[1]))
    return ((p[0] - cx) ** 2 + (p[1] - cy) ** 2) ** 0.5


def touches(s1, s2, near=2 * NEAR) -> bool:
    """True when an end of either segment comes within ``near`` of the other: where two
    wires would seem to meet rather than cross."""
    return any(_distance(p, *s2) < near for p in s1) or any(_distance(p, *s1) < near for p in s2)


def same_colour_meetings(routes: dict, colours: dict) -> list:
    """Pairs of nets drawn in the same colour whose wires meet (an end or corner of one
    near the other), which a reader would take for one wire."""
    names = sorted(routes)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
            if colours[a] == colours[b] and any(touches(p, q) for p in segments(routes[a])
                                                for q in segments(routes[b]))]


def segments(points):
    return list(zip(points, points[1:]))


def overlap(s1, s2, near=NEAR) -> bool:
    """True when two axis-parallel segments run along each other closer than ``near``."""
    (ax, ay), (bx, by) = s1
    (cx, cy), (dx, dy) = s2
    if ay == by and cy == dy and abs(ay - cy) < near:
        return _clash(sorted((ax, bx)), sorted((cx, dx)), -1)
    if ax == bx and cx == dx and abs(ax - cx) < near:
        return _clash(sorted((ay, by)), sorted((cy, dy)), -1)
    return False


def clashes(routes: dict, stubs: dict) -> list:
    """Pairs of nets whose wires run along each other (they would read as joined), and
    wires that run on in line with a pin they do not go to. ``stubs``: pin name ->
    (the net that lands on it or "", its stub drawn longer outwards)."""
    out = []
    names = sorted(routes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if any(overlap(p, q) for p in segments(routes[a]) for q in segments(routes[b])):
                out.append((a, b))
        for pin, (owner, stub) in stubs.items():
            if owner != a and any(overlap(p, stub, 2 * NEAR) for p in segments(routes[a])):
                out.append((a, pin))
    return out
