"""The ``courtside`` command: one entry point for every laptop tool.

Each subcommand lives in its own module ``courtside_host.cmd_<name>`` (or ``sim``) with
``add_arguments(parser)`` and ``run(args) -> exit status``; modules load only when used.
"""

import argparse
import importlib
import sys

COMMANDS = {
    "sim": ("courtside_host.sim", "run the firmware on this computer: keyboard and terminal, or a script"),
    "deploy": ("courtside_host.cmd_deploy", "compile and copy the firmware to a Pico, then check it answers"),
    "flash": ("courtside_host.cmd_flash", "copy a MicroPython .uf2 to a Pico in BOOTSEL mode"),
    "monitor": ("courtside_host.cmd_monitor", "show the live event stream and save it to a log"),
    "replay": ("courtside_host.cmd_replay", "re-judge a saved log, optionally with other settings"),
    "doctor": ("courtside_host.cmd_doctor", "what is connected, which versions, is the pin map sound"),
    "analyse": ("courtside_host.cmd_analyse", "Deathball balance: many automatic games, win rates by seat"),
    "pins": ("courtside_host.cmd_pins", "check a pin map, regenerate the pin table and wiring picture"),
    "bringup": ("courtside_host.cmd_bringup", "test every LED, tone and button of a newly built unit"),
    "vpico": ("courtside_host.cmd_vpico", "a virtual Pico on a pseudo-terminal, to try tools on"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="courtside", description="Courtside laptop tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    argv = sys.argv[1:] if argv is None else argv
    wanted = argv[0] if argv and argv[0] in COMMANDS else None
    modules = {}
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == wanted:
            modules[name] = importlib.import_module(module)
            modules[name].add_arguments(p)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return modules[args.command].run(args) or 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
