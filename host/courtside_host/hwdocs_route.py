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

    def take(self, lo: float, hi: float, skip: int = 0) -> float:
        """The first track (after ``skip``) with room for a wire from lo to hi."""
        lo, hi = min(lo, hi), max(lo, hi)
        while len(self.used) < skip:
            self.used.append([])
        for k, spans in enumerate(self.used):
            if k >= skip and not any(_clash((lo, hi), s, self.gap) for s in spans):
                spans.append((lo, hi))
                return self.first + k * self.step
        self.used.append([(lo, hi)])
        return self.first + (len(self.used) - 1) * self.step


def route(sources: dict, pins: dict, plan: Plan) -> dict:
    """net -> the points of its wire. ``sources``: net -> (x, y, way), where way is +1 for a
    wire leaving its circuit rightwards and -1 leftwards; ``pins``: net -> (x, y, side) of
    the pin's outer end, side -1 for the Pico's left side and +1 for its right."""
    gap = 1.6 * plan.step
    left = _Channel(plan.left, -plan.step, gap)
    right = _Channel(plan.right, plan.step, gap)
    upper = _Channel(plan.upper, -(plan.round_step or plan.step), gap)
    lower = _Channel(plan.lower, plan.round_step or plan.step, gap)
    centre = (plan.upper + plan.lower) / 2
    same = [n for n in sources if (sources[n][2] > 0) == (pins[n][2] < 0)]
    across = [n for n in sources if n not in same]

    # A wire leaving its circuit on the height of another wire's pin must take a track
    # further out than that wire's, or the two would run along each other.
    blockers = {a: [b for b in sources if b != a and abs(sources[a][1] - pins[b][1]) < 2 * NEAR
                    and pins[b][2] == (pins[a][2] if a in same else -sources[a][2])]
                for a in sources}
    landed: dict = {}   # net -> index of the track it reaches its pin from

    def skip(net, y, side):
        k = plan.skip if any(abs(y - r) < 2 * NEAR for r in plan.rows[side]) else 0
        return max([k] + [landed[b] + 1 for b in blockers[net] if b in landed])

    def index(channel, x):
        return round((x - channel.first) / channel.step)

    def order(net):  # wires from above take the tracks nearest the Pico first, then those from below
        sy, py = sources[net][1], pins[net][1]
        blocking = any(net in blockers[a] for a in sources)
        return (not blocking, 0, sy) if sy <= py else (not blocking, 1, -sy)

    out = {}

    def same_side():
        for net in sorted(same, key=order):
            sx, sy, _ = sources[net]
            px, py, side = pins[net]
            if abs(sy - py) < 0.5:
                out[net] = [(sx, sy), (px, py)]
                continue
            channel = left if side < 0 else right
            x = channel.take(sy, py, skip(net, sy, side))
            landed[net] = index(channel, x)
            out[net] = [(sx, sy), (x, sy), (x, py), (px, py)]

    def round_the_pico():
        for net in sorted(across, key=lambda n: (order(n)[0], sources[n][1], n)):
            sx, sy, way = sources[net]
            px, py, side = pins[net]
            y = (upper if (sy + py) / 2 < centre else lower).take(*plan.span)
            x1 = (left if way > 0 else right).take(sy, y, skip(net, sy, -way))
            channel = right if side > 0 else left
            x2 = channel.take(y, py)
            landed[net] = index(channel, x2)
            out[net] = [(sx, sy), (x1, sy), (x1, y), (x2, y), (x2, py), (px, py)]

    for step in ((round_the_pico, same_side) if plan.across_first else (same_side, round_the_pico)):
        step()
    return out


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
