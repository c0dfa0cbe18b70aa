"""Replay shared test vectors through the firmware core and print what it returned.

Runs unchanged on CPython and on the MicroPython unix port:

    micropython tests/replay/runner.py SUITE FILE...

For every case in every file it prints one JSON line ``{"file", "name", "actual"}``; the
pytest side (tests/test_vectors.py) compares ``actual`` with the case's ``expected``.
A suite is a module ``tests/replay/<SUITE>.py`` with ``run(input) -> JSON-able result``.
"""

import json
import sys


def _here():
    path = __file__ if "/" in __file__ else "./" + __file__
    return path.rsplit("/", 1)[0]


def main(argv):
    here = _here()
    sys.path.insert(0, here)
    sys.path.insert(0, here + "/../../firmware")
    sys.path.insert(0, here + "/../../common")
    suite = __import__(argv[1])
    for path in argv[2:]:
        with open(path) as f:
            cases = json.load(f)
        if isinstance(cases, dict):
            cases = [cases]
        for case in cases:
            try:
                actual = suite.run(case["input"])
            except Exception as e:  # reported as a result, so one case cannot hide the rest
                actual = {"exception": "%s: %s" % (type(e).__name__, e)}
            print(json.dumps({"file": path, "name": case["name"], "actual": actual}))


if __name__ == "__main__":
    main(sys.argv)
