"""``courtside flash``: MicroPython onto a Pico in BOOTSEL mode, then check it answers.

    courtside flash RPI_PICO-20241129-v1.24.1.uf2
    courtside flash RPI_PICO2-v1.24.1.uf2 --drive /media/me/RP2350 --port /dev/ttyACM0
"""

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from courtside_host import problem
from courtside_host.link import flash as fl
from courtside_host.link.port import BoardError, connect, wait_for_port


def add_arguments(parser):
    parser.add_argument("uf2", type=Path,
                        help="the MicroPython .uf2 for the board (micropython.org/download)")
    parser.add_argument("--drive", help="the BOOTSEL drive (default: the one mounted, found by INFO_UF2.TXT)")
    parser.add_argument("--port", help="the serial port the board comes back on (default: the Pico found)")
    parser.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the board to come back")


def board_version(port, wait):
    """MicroPython's own words about itself (its version, the machine), the board opened as
    every command opens it, given ``wait`` seconds to finish starting."""
    with connect(port, wait=wait) as link:
        return link.eval("__import__('sys').implementation.version[:3]"), \
            link.eval("getattr(__import__('os'), 'uname', lambda: None)() and "
                      "__import__('os').uname().machine or __import__('sys').platform")


def run(args):
    console = Console(highlight=False)
    try:
        uf2 = fl.read_uf2(args.uf2)
        drive = fl.find_drive(args.drive)
        chip = fl.drive_chip(drive)
        fl.check_fits(uf2, chip)
        console.print("%s (%s, %d blocks) -> %s (%s)" % (uf2.path.name, uf2.chips(), uf2.blocks, drive, chip))
        with Progress(TextColumn("copying"), BarColumn(), DownloadColumn(), console=console,
                      transient=True) as progress:
            task = progress.add_task("copy", total=len(uf2.data))
            fl.copy(uf2, drive, lambda n: progress.advance(task, n))
        console.print("copied; the board restarts into MicroPython, waiting for its serial port ...")
        port = wait_for_port(args.port, timeout=args.wait)
        version, machine = board_version(port, args.wait)
    except (BoardError, OSError) as e:
        return problem.report("flash", str(e))
    console.print("[bold green]ok:[/] MicroPython %s on %s at %s; next: courtside deploy"
                  % (".".join(str(v) for v in version), machine, port))
    return 0
