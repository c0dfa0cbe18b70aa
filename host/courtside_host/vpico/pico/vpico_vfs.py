"""The board's ``vfs``: mounting and the board's filesystem types, and no host filesystem.

The unix port's ``vfs`` also offers ``VfsPosix``, a window onto any host folder; a Pico has
no such thing, so a program on the virtual Pico is not given it.
"""

from vfs import VfsFat, VfsLfs1, VfsLfs2, mount, umount  # noqa: F401 - the module's contents

__name__ = "vfs"

del __file__               # a Pico's modules are built in, not files of the host
