"""Flash: put a MicroPython ``.uf2`` on a Pico in BOOTSEL mode.

A Pico held in BOOTSEL while plugged in shows up as a small USB drive (``RPI-RP2`` for an
RP2040, ``RP2350`` for a Pico 2) with an ``INFO_UF2.TXT`` that names the chip. Copying a
UF2 file onto it writes the flash and the board restarts into the new firmware, which
then appears as a serial port. This module finds the drive by that file, checks the UF2
is for the chip on the board, copies it, waits for the port and asks MicroPython its
version.

    drive = find_drive()                       # or find_drive("/media/me/RPI-RP2")
    info = read_uf2("RPI_PICO-20241129-v1.24.1.uf2")
    copy(info, drive, on_bytes=print)
    port = wait_for_port(None, timeout=20)      # courtside_host.link.port, as every command
"""

import os
import struct
import sys
from pathlib import Path

from courtside_host import files
from courtside_host.link.port import BoardError

MAGIC = (0x0A324655, 0x9E5D5157)
MAGIC_END = 0x0AB16F30
FLAG_FAMILY = 0x00002000
BLOCK = 512
UF2_MAX = 32 << 20      # a UF2 holds each 256 bytes in 512: twice the 16 MB flash a Pico can have
FAMILIES = {0xE48BFF56: "RP2040", 0xE48BFF57: "RP2XXX (absolute)", 0xE48BFF58: "data",
            0xE48BFF59: "RP2350 (Arm, secure)", 0xE48BFF5A: "RP2350 (RISC-V)",
            0xE48BFF5B: "RP2350 (Arm, non-secure)"}
FITS = {"RP2040": {0xE48BFF56},
        "RP2350": {0xE48BFF57, 0xE48BFF58, 0xE48BFF59, 0xE48BFF5A, 0xE48BFF5B}}


class FlashError(BoardError):
    pass


class Uf2:
    def __init__(self, path, data, families, blocks):
        self.path = Path(path)
        self.data = data
        self.families = families
        self.blocks = blocks

    def chips(self):
        return ", ".join(FAMILIES.get(f, "0x%08x" % f) for f in sorted(self.families)) or "no family"


def read_uf2(path):
    """The UF2 file checked block by block; FlashError if it is not one or cannot be read."""
    try:
        data = files.read(path, UF2_MAX)
    except files.NotReadable as e:
        raise FlashError(str(e)) from None
    except OSError as e:
        raise FlashError("cannot read %s (%s)" % (path, e.strerror or e)) from None
    if not data or len(data) % BLOCK:
        raise FlashError("%s is not a UF2 file (its size is not a whole number of 512-byte blocks)" % path)
    families = set()
    for i in range(0, len(data), BLOCK):
        m0, m1, flags = struct.unpack_from("<III", data, i)
        family = struct.unpack_from("<I", data, i + 28)[0]
        end = struct.unpack_from("<I", data, i + BLOCK - 4)[0]
        if (m0, m1) != MAGIC or end != MAGIC_END:
            raise FlashError("%s is not a UF2 file (block %d has no UF2 magic)" % (path, i // BLOCK))
        if flags & FLAG_FAMILY:
            families.add(family)
    return Uf2(path, data, families, len(data) // BLOCK)


def drive_chip(drive):
    """The chip a BOOTSEL drive belongs to ("RP2040", "RP2350"), from its INFO_UF2.TXT."""
    info = (Path(drive) / "INFO_UF2.TXT").read_text(errors="replace")
    fields = {}
    for line in info.splitlines():
        if ":" in line:
            key, value = line.split(":", 1)
            fields[key.strip().lower()] = value.strip()
    board_id = fields.get("board-id", "")
    if board_id.startswith("RPI-RP2") or "RP2040" in board_id:
        return "RP2040"
    if "RP2350" in board_id or "RP2350" in fields.get("model", ""):
        return "RP2350"
    return board_id or "unknown"


def _mount_points():
    points = []
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/mounts") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) > 1:
                        points.append(parts[1].replace("\\040", " "))
        except OSError:
            pass
    user = os.environ.get("USER", "")
    for base in ("/Volumes", "/media/" + user, "/run/media/" + user):
        if os.path.isdir(base):
            points += [os.path.join(base, name) for name in os.listdir(base)]
    if sys.platform == "win32":
        points += ["%s:\\" % c for c in "DEFGHIJKLMNOPQRSTUVWXYZ"]
    return points


def find_drive(drive=None):
    """The BOOTSEL drive: ``drive`` if given (checked), else the one mounted."""
    if drive:
        if not (Path(drive) / "INFO_UF2.TXT").is_file():
            raise FlashError("%s is not a Pico in BOOTSEL mode (no INFO_UF2.TXT)" % drive)
        return Path(drive)
    found = []
    for point in _mount_points():
        try:
            if (Path(point) / "INFO_UF2.TXT").is_file() and drive_chip(point) in FITS:
                found.append(Path(point))
        except OSError:
            continue
    if not found:
        raise FlashError("no Pico in BOOTSEL mode found: hold BOOTSEL while plugging it in, "
                         "wait for the RPI-RP2 (or RP2350) drive, or give --drive")
    if len(found) > 1:
        raise FlashError("several BOOTSEL drives (%s): choose one with --drive"
                         % ", ".join(str(p) for p in found))
    return found[0]


def check_fits(uf2, chip):
    """FlashError unless the UF2 holds code for ``chip``."""
    if chip in FITS and uf2.families and not uf2.families & FITS[chip]:
        raise FlashError("%s is built for %s, but the board is an %s: download the MicroPython "
                         "build for your board" % (uf2.path.name, uf2.chips(), chip))


def copy(uf2, drive, on_bytes=None, chunk=64 * 1024):
    """Write the UF2 onto the drive. The board may restart (and the drive vanish) the moment
    the last block lands, so errors after the last write are expected and ignored."""
    dest = Path(drive) / uf2.path.name
    data = uf2.data
    f = open(dest, "wb")
    try:
        for i in range(0, len(data), chunk):
            f.write(data[i:i + chunk])
            if on_bytes:
                on_bytes(min(chunk, len(data) - i))
        f.flush()
        os.fsync(f.fileno())
    except OSError:
        pass
    finally:
        try:
            f.close()
        except OSError:
            pass
    return dest
