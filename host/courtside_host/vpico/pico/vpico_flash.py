"""The virtual Pico's flash: a host folder seen as a board's filesystem, and nothing beyond it.

``Flash(host, native)`` is a filesystem object for ``vfs.mount(flash, "/")``. Every path it is
given (absolute or relative to its own working directory) is first reduced to a path
inside the flash, the way littlefs reads paths on a Pico: ``.`` and empty parts are
skipped and ``..`` never climbs above the root, so ``/../../etc`` is ``/etc`` *of the
flash*. A board's filesystem has no symbolic links, so a link in the folder is neither
listed nor followed. Listings, ``stat`` and ``statvfs`` answer as a Pico's littlefs does:
four-field listings with sizes, no host inode or owner, and the 1408 KiB of a 2 MB Pico
(used blocks counted from the files, as littlefs counts them to the nearest block).

A program is never given the host folder itself: the folder's handle lives in a closure
of ``Flash``, not in an attribute or a global. What the module loader reads of it is
checked for native code by the layer every mount gets (``vpico_gate``).

    flash = Flash(vfs.VfsPosix("/path/to/folder"))
    vfs.umount("/"); vfs.mount(flash, "/")          # the board's vfs.mount
"""

import errno

_DIR = 0x4000
_FILE = 0x8000
_LINK = 0xA000
BLOCK = 4096
BLOCKS = 352        # 1408 KiB: the littlefs volume of a 2 MB Pico (rp2 port)


def _rel(inside):
    """The host path, relative to the folder, of a flash path."""
    return inside[1:] or "."


def _refuse(code=errno.ENOENT):
    raise OSError(code)


def Flash(host):  # noqa: C901 - one closure over the host folder: its methods are its branches
    """The flash over ``host`` (a ``VfsPosix`` of the folder)."""
    # The host side is reached with paths relative to the folder, made the process's
    # working directory: the unix port's VfsPosix joins its root to only one absolute
    # path at a time (a rename of two absolute paths fails).
    host.chdir("/")

    class VfsLfs2:
        def __init__(self):
            self._cwd = "/"
            self._links = {}      # folder: (its mtime, the names of the links in it)

        def __repr__(self):
            return "<VfsLfs2>"

        # the mount protocol ----------------------------------------------------------------

        def mount(self, readonly, mkfs):
            pass

        def umount(self):
            pass

        # paths -----------------------------------------------------------------------------

        def _inside(self, path):
            """The flash path that ``path`` names: absolute, normalised, never above the root,
            never through a link."""
            if not isinstance(path, str):
                raise TypeError("path must be a str")
            if not path.startswith("/"):
                path = self._cwd + "/" + path
            parts = []
            for part in path.split("/"):
                if part == "..":
                    if parts:
                        parts.pop()
                elif part and part != ".":
                    parts.append(part)
            here = ""
            for part in parts:
                if self._is_link(here, part):
                    _refuse()
                here += "/" + part
            return here or "/"

        def _is_link(self, folder, name):
            """Whether ``name`` in ``folder`` is a link. A folder's links are listed once and
            listed again when the folder changes (a program here cannot make links; only the
            laptop's user can, in the folder itself)."""
            try:
                changed = host.stat(_rel(folder))[8]
                known = self._links.get(folder)
                if known is None or known[0] != changed:
                    links = [e[0] for e in host.ilistdir(_rel(folder)) if e[1] == _LINK]
                    known = self._links[folder] = (changed, links)
            except OSError:
                return False    # a missing folder: the operation itself says so
            return name in known[1]

        def _not_root(self, path):
            inside = self._inside(path)
            if inside == "/":
                _refuse(errno.EPERM)
            return inside

        # files and folders -----------------------------------------------------------------

        def open(self, path, mode):
            return host.open(_rel(self._inside(path)), mode)

        def ilistdir(self, path):
            folder = self._inside(path)
            prefix = folder.rstrip("/") + "/"
            for entry in host.ilistdir(_rel(folder)):
                name, kind = entry[0], entry[1]
                if kind == _LINK:
                    continue
                st = host.stat(_rel(prefix + name))
                if st[0] & _DIR:
                    yield (name, _DIR, 0, 0)
                else:
                    yield (name, _FILE, 0, st[6])

        def stat(self, path):
            st = host.stat(_rel(self._inside(path)))
            kind = _DIR if st[0] & _DIR else _FILE
            size = 0 if kind == _DIR else st[6]
            return (kind, 0, 0, 0, 0, 0, size, st[7], st[8], st[9])

        def chdir(self, path):
            inside = self._inside(path)
            if not host.stat(_rel(inside))[0] & _DIR:
                _refuse()
            self._cwd = inside

        def getcwd(self):
            return self._cwd

        def mkdir(self, path):
            host.mkdir(_rel(self._not_root(path)))

        def rmdir(self, path):
            inside = self._not_root(path)
            host.rmdir(_rel(inside))
            if self._cwd == inside or self._cwd.startswith(inside + "/"):
                self._cwd = "/"

        def remove(self, path):
            host.remove(_rel(self._not_root(path)))

        def rename(self, old, new):
            host.rename(_rel(self._not_root(old)), _rel(self._not_root(new)))

        def statvfs(self, path):
            self._inside(path)
            free = max(BLOCKS - self._used("/"), 0)
            return (BLOCK, BLOCK, BLOCKS, free, free, 0, 0, 0, 0, 255)

        def _used(self, folder):
            """Blocks in use below ``folder``, counted as littlefs counts them: a pair of
            blocks for each folder, each file rounded up to whole blocks."""
            used = 2
            for name, kind, _, size in self.ilistdir(folder):
                if kind == _DIR:
                    used += self._used(folder.rstrip("/") + "/" + name)
                else:
                    used += (size + BLOCK - 1) // BLOCK
            return used

    return VfsLfs2()
