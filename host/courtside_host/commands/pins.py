"""`courtside pins`: check a pin map, start one of your own, regenerate the hardware documents.

    courtside pins check [FILE...]      validate maps (default: the standard build's map)
    courtside pins init [FILE]          write a copy of the standard map (or --variant NAME)
                                        to edit for your own build, default ./pinmap.json
    courtside pins docs [--check]       rewrite hardware/pins.md, checklist.md, power.md and
                                        the pictures (wiring.svg, box-panel.svg,
                                        main-unit-layout.svg, enclosure.svg); with
                                        --hardware DIR, the documents of your own map
    courtside pins docs --map FILE -o DIR   draw one map's documents (a variant's) into DIR
    courtside pins table [FILE]         print a map's pin table (Markdown)
    courtside pins svg [FILE] -o OUT    write a map's wiring picture

The checks are the firmware's own (``courtside.pinmap``), so a map this accepts is a map
the board accepts; ``courtside deploy --pins FILE`` runs them again before it sends one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from courtside import pinmap

from courtside_host import files, paths, problem


def add_arguments(parser):
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("check", help="validate pin maps")
    p.add_argument("files", nargs="*", type=Path, help="maps to check (default: the standard build's)")
    p = sub.add_parser("init", help="write a copy of the standard pin map to edit for your own build")
    p.add_argument("file", nargs="?", type=Path, default=Path("pinmap.json"),
                   help="where to write it (default ./pinmap.json)")
    p.add_argument("--variant", choices=[v.stem for v in paths.variants()],
                   help="start from a variant instead of the standard build")
    p.add_argument("--force", action="store_true", help="replace the file if it exists")
    p = sub.add_parser("docs", help="regenerate the pin table, power budget, wiring diagram, box panel "
                                    "and main-unit layout, for the map and each variant")
    p.add_argument("--check", action="store_true", help="only report documents that are out of date")
    p.add_argument("--map", type=Path, metavar="FILE",
                   help="draw this map's pin table, pictures and checklist (a variant's, say) into -o DIR")
    p.add_argument("-o", "--output", type=Path, metavar="DIR", help="where --map writes its documents")
    p.add_argument("--hardware", type=Path, default=paths.HARDWARE if paths.CHECKOUT else None,
                   metavar="DIR", help="folder holding pinmap.json to write "
                                       "the documents beside (default: the checkout's hardware/)")
    p = sub.add_parser("table", help="print the pin table of a map")
    p.add_argument("file", nargs="?", type=Path, default=paths.PINMAP)
    p = sub.add_parser("svg", help="write the wiring picture of a map")
    p.add_argument("file", nargs="?", type=Path, default=paths.PINMAP)
    p.add_argument("-o", "--output", type=Path, required=True)


def check_file(path: Path, out=None) -> bool:
    """Print what is wrong with a map file (on ``out``, or on stderr as every command says
    a problem: ``courtside pins check: FILE: what``) or that it is fine (on ``out`` or
    stdout); True when it is valid."""
    def wrong(what):
        if out is None:
            problem.report("pins check", "%s: %s" % (path, what))
        else:
            print("%s: %s" % (path, what), file=out)
    try:
        raw = files.read(path, pinmap.FILE_MAX)
    except files.NotReadable as e:
        wrong(str(e).replace(str(path), "", 1).strip(" :"))   # the path is said once, first
        return False
    except OSError as e:
        wrong("cannot read it (%s)" % (e.strerror or e))
        return False
    try:
        pins = pinmap.read(raw)
    except pinmap.PinMapError as e:
        for what in e.problems:
            wrong(what)
        return False
    out = out or sys.stdout
    print("%s: good: %s, %d box%s, %d buttons" % (path, pins.model, pins.boxes,
                                                   "" if pins.boxes == 1 else "es", pins.main_id + 1),
          file=out)
    for note in pinmap.advice(pins.data):
        print("%s: note: %s" % (path, note), file=out)
    return True


def init(target: Path, variant: str | None = None, force: bool = False) -> int:
    """Copy the standard map (or a variant) to ``target``; never over a file unasked."""
    source = paths.HARDWARE / "variants" / ("%s.json" % variant) if variant else paths.PINMAP
    if target.is_dir():
        target = target / "pinmap.json"
    if target.exists() and not force:
        print("courtside pins init: %s already exists (left as it is; --force replaces it)" % target,
              file=sys.stderr)
        return 1
    target.write_bytes(source.read_bytes())
    print("wrote %s (%s): edit it, then `courtside pins check %s` and "
          "`courtside deploy --pins %s`" % (target, "variant " + variant if variant else "the standard build",
                                            target, target))
    return 0


def _load(path: Path):
    return pinmap.read(files.read(path, pinmap.FILE_MAX)).data


def _docs(args) -> int:
    from courtside_host.hwdocs import documents as hwdocs
    if args.map is not None:
        if args.output is None:
            print("courtside pins docs --map FILE: give -o DIR, the folder to write its documents in",
                  file=sys.stderr)
            return 2
        names = hwdocs.write_map(args.map, args.output)
        print("wrote %s in %s" % (", ".join(names), args.output))
        return 0
    if args.hardware is None:
        print("courtside pins docs: give --hardware DIR, a folder holding your pinmap.json "
              "(`courtside pins init DIR` writes one); the documents are written beside it",
              file=sys.stderr)
        return 2
    if args.check:
        stale = hwdocs.stale(args.hardware)
        for name in stale:
            print("%s is out of date: run `courtside pins docs`" % (args.hardware / name))
        return 1 if stale else 0
    changed = hwdocs.write(args.hardware)
    print("rewrote %s" % ", ".join(changed) if changed else "documents already up to date")
    return 0


def run(args) -> int:
    if args.action == "check":
        files = args.files or [paths.PINMAP]
        good = [check_file(f) for f in files]
        return 0 if all(good) else 1
    try:
        if args.action == "init":
            return init(args.file, args.variant, args.force)
        if args.action == "docs":
            return _docs(args)
        from courtside_host.hwdocs import documents as hwdocs
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
