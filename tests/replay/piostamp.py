"""Vector suite: PIO counts onto the press timeline, and the drain (courtside.piostamp).

Input ``{"op": "place", "freq", "start", "count0", "words": [[count, now], ...]}`` gives the
stamps; ``{"op": "drain", ..., "words": [...], "passes": [[written, now], ...]}`` gives the
snapshots put into the ring and the drain's counters.
"""

from array import array

from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring


def run(case):
    stamper = Stamper(case["freq"])
    stamper.start(case["start"])
    stamper.count = case.get("count0", 0)
    if case["op"] == "place":
        return [stamper.place(c, now) for c, now in case["words"]]
    size = case["buffer_words"]
    halves = array("H", bytes(4 * size))
    ring = Ring(case.get("ring", 64))
    drain = Drain(ring, stamper, halves, case["in_base"], case["width"], case["mask"])
    drain.last = case["last"]
    words = case["words"]
    done = 0
    out = []
    pair = [0, 0]
    for written, now in case["passes"]:
        while done < written:
            w = words[done]
            j = 2 * (done % size)
            halves[j] = w & 0xFFFF
            halves[j + 1] = (w >> 16) & 0xFFFF
            done += 1
        drain.take(written, now)
        while ring.get(pair):
            out.append([pair[0], pair[1]])
    return {"snapshots": out, "overrun": drain.overrun, "unpaired": drain.unpaired,
            "marks": drain.marks, "noise": drain.noise, "dropped": ring.dropped}
