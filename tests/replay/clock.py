"""Vector suite: wrap-safe tick arithmetic (courtside.clock)."""

from courtside import clock


def run(case):
    if case["op"] == "diff":
        return clock.diff(case["a"], case["b"])
    if case["op"] == "add":
        return clock.add(case["t"], case["d"])
    line = clock.Timeline(case["start"])
    return [line.now(t) for t in case["ticks"]]
