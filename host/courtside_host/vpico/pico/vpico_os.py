"""The board's ``os``: what a Pico's has, and nothing of the host's.

The unix port's ``os`` also has ``system``, ``getenv``, ``putenv`` and ``VfsPosix``; a
Pico has none of them, so a program on the virtual Pico is not given them. Paths reach
the flash only (``vpico_flash``); ``uname()`` says what is answering.
"""

import os as _os
from os import chdir, getcwd, listdir, mkdir, remove, rename, rmdir, sep, stat, statvfs, urandom  # noqa: F401

from vpico_vfs import VfsFat, VfsLfs1, VfsLfs2, mount, umount  # noqa: F401

__name__ = "os"
ilistdir = _os.ilistdir  # type: ignore[attr-defined]  # MicroPython's own


class _Uname(tuple):
    sysname = property(lambda self: self[0])
    nodename = property(lambda self: self[1])
    release = property(lambda self: self[2])
    version = property(lambda self: self[3])
    machine = property(lambda self: self[4])

    def __repr__(self):
        return "(sysname=%r, nodename=%r, release=%r, version=%r, machine=%r)" % tuple(self)

    __str__ = __repr__


def uname():
    import sys
    v = sys.implementation.version
    release = "%d.%d.%d" % (v[0], v[1], v[2])
    built = sys.version.split(" on ")[-1] if " on " in sys.version else "?"
    return _Uname(("rp2", "rp2", release, "v%s on %s (MicroPython unix port)" % (release, built),
                   "virtual Pico (MicroPython unix port) with RP2040"))


def sync():
    pass

del _os, __file__               # a Pico's modules are built in, not files of the host
