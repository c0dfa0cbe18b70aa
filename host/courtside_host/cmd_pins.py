"""`courtside pins`: check a pin map, and regenerate the hardware documents from it.

    courtside pins check [FILE...]      validate maps (default hardware/pinmap.json)
    courtside pins docs [--check]       rewrite hardware/pins.md, power.md and the pictures
                                        (wiring.svg, box-panel.svg, main-unit-layout.svg,
                                        and each variant's under hardware/variants/NAME/)
    courtside pins table [FILE]         print a map's pin table (Markdown)
    courtside pins svg [FILE] -o OUT    write a map's wiring picture

The checks are the firmware's own (``courtside.pinmap``), so a map this accepts is a map
the board accepts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from courtside import pinmap

from . import hwdocs, problem


def add_arguments(parser):
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("check", help="validate pin maps")
    p.add_argument("files", nargs="*", type=Path, help="maps to check (default hardware/pinmap.json)")
    p = sub.add_parser("docs", help="regenerate the pin table, power budget, wiring diagram, box panel "
                                    "and main-unit layout, for the map and each variant")
    p.add_argument("--check", action="store_true", help="only report documents that are out of date")
    p.add_argument("--hardware", type=Path, default=hwdocs.HARDWARE, help=argparse_hide())
    p = sub.add_parser("table", help="print the pin table of a map")
    p.add_argument("file", nargs="?", type=Path, default=hwdocs.HARDWARE / "pinmap.json")
    p = sub.add_parser("svg", help="write the wiring picture of a map")
    p.add_argument("file", nargs="?", type=Path, default=hwdocs.HARDWARE / "pinmap.json")
    p.add_argument("-o", "--output", type=Path, required=True)


def argparse_hide():
    import argparse
    return argparse.SUPPRESS


def check_file(path: Path, out=None) -> bool:
    """Print what is wrong with a map file (or that it is fine); True when it is valid."""
    out = out or sys.stdout
    try:
        text = path.read_text()
    except OSError as e:
        print("%s: cannot read it (%s)" % (path, e.strerror or e), file=out)
        return False
    try:
        pins = pinmap.parse(text)
    except pinmap.PinMapError as e:
        for problem in e.problems:
            print("%s: %s" % (path, problem), file=out)
        return False
    print("%s: good: %s, %d box%s, %d buttons" % (path, pins.board, pins.boxes,
                                                   "" if pins.boxes == 1 else "es", pins.main_id + 1),
          file=out)
    for note in pinmap.advice(pins.data):
        print("%s: note: %s" % (path, note), file=out)
    return True


def _load(path: Path):
    data = json.loads(path.read_text())
    pinmap.PinMap(data)
    return data


def run(args) -> int:
    if args.action == "check":
        files = args.files or [hwdocs.HARDWARE / "pinmap.json"]
        good = [check_file(f) for f in files]
        return 0 if all(good) else 1
    try:
        if args.action == "docs":
            if args.check:
                stale = hwdocs.stale(args.hardware)
                for name in stale:
                    print("%s is out of date: run `courtside pins docs`" % (args.hardware / name))
                return 1 if stale else 0
            changed = hwdocs.write(args.hardware)
            print("rewrote %s" % ", ".join(changed) if changed else "documents already up to date")
            return 0
        if args.action == "table":
            sys.stdout.write(hwdocs.pin_table(_load(args.file), str(args.file)))
            return 0
        if args.action == "svg":
            args.output.write_text(hwdocs.wiring_svg(_load(args.file), str(args.file)))
            print("wrote %s" % args.output)
            return 0
    except (OSError, ValueError) as e:  # PinMapError is a ValueError, and so is bad JSON
        return problem.report("pins", str(e))
    return 2
