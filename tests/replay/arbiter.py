"""Vector suite: contests, order, ties and early answers (courtside.arbiter).

The draw inside a tie depends on the random source, so the result lists tied players
sorted; the drawn order itself is checked by the property tests and the simulator's
byte-identical streams.
"""

from courtside.arbiter import NAMES, Arbiter
from courtside.fair import Fair, seeded


def run(case):
    arb = Arbiter(case["settings"], Fair(seeded(case.get("seed", 1))))
    presses = []
    verdicts = []
    for player, button, stamp in case["presses"]:
        verdicts.extend(arb.poll(stamp))
        place = arb.press(player, NAMES.index(button), stamp)
        p = arb.open.press(place)
        presses.append([p.n, p.contest, p.lag, p.early])
    verdicts.extend(arb.poll(case["end"]))
    out = []
    for c in verdicts:
        order = c.judged()
        ranks = {}
        for p in order:
            ranks.setdefault(p.rank, []).append(p.n)
        out.append({
            "c": c.number,
            "ranks": [sorted(ranks[r]) for r in sorted(ranks)],
            "lags": [p.lag for p in sorted(order, key=lambda p: p.n)],
            "ties": [[rank, sorted(players), gap] for rank, players, gap in c.ties],
            "early": [[p.n, p.early] for p in order if p.early],
        })
    return {"presses": presses, "verdicts": out, "open": arb.open is not None}
