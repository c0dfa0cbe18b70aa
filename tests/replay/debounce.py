"""Vector suite: debouncing snapshots into presses (courtside.debounce)."""

from courtside.debounce import Debouncer

KINDS = {1: "press", 2: "release", 3: "stuck", 4: "unstuck"}


def run(case):
    d = Debouncer(case["gpio"], case["debounce_us"], case["stuck_us"], case["levels"], case["start"])
    out = []
    for step in case["steps"]:
        if step[0] == "feed":
            d.feed(step[1], step[2], out)
        else:
            d.poll(step[1], out)
    return [[KINDS[k], b, t] for k, b, t in out]
