"""Replay pin-map vectors: a map (or a change to the committed default map) in, the
validator's problems and advice out. Runs on CPython and the MicroPython unix port.

Input fields (all optional):
    file     a map under hardware/, e.g. "variants/pico_w.json" (default "pinmap.json")
    text     JSON text to parse instead of a file (to test malformed JSON)
    set      [[path, value], ...] where path is a list of keys and list indexes
    drop     [path, ...] keys to delete
    append   [[path, value], ...] values appended to lists (e.g. a fifth box)
"""

import json

from courtside import pinmap


def _root():
    here = __file__ if "/" in __file__ else "./" + __file__
    return here.rsplit("/", 3)[0]


def _walk(data, path):
    for key in path[:-1]:
        data = data[key]
    return data, path[-1]


def run(case):
    if "text" in case:
        try:
            pins = pinmap.parse(case["text"])
        except pinmap.PinMapError as e:
            # the parser's own detail (line, column) is worded differently by each runtime
            return {"problems": [p.split(" (")[0] for p in e.problems]}
        return {"problems": [], "boxes": pins.boxes}
    with open(_root() + "/hardware/" + case.get("file", "pinmap.json")) as f:
        data = json.load(f)
    for path, value in case.get("set", ()):
        parent, key = _walk(data, path)
        parent[key] = value
    for path in case.get("drop", ()):
        parent, key = _walk(data, path)
        del parent[key]
    for path, value in case.get("append", ()):
        parent, key = _walk(data, path)
        parent[key].append(value)
    problems = pinmap.check(data)
    out = {"problems": problems}
    if not problems:
        pins = pinmap.PinMap(data)
        out["advice"] = pinmap.advice(data)
        out["boxes"] = pins.boxes
        out["main_id"] = pins.main_id
        out["pio_base"] = pins.pio_base
        out["labels"] = [pins.label(0), pins.label(pins.main_id - 1), pins.label(pins.main_id)]
    return out
