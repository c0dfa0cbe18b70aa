"""Reading a user's file on the laptop: a regular file only, its size checked first.

Every file the laptop tools are given to read whole (a pin map, a settings file) goes
through ``read``: the file is opened without waiting (a FIFO would otherwise hold the
open for ever), then what it is and how long it is are read from the open file itself,
and nothing is read unless it is a regular file within the limit. A log or a script is
streamed, line by line with a bound on each line, and is only checked to be a regular
file (``opened``).

    raw = files.read("pinmap.json", 8192)         # NotReadable: "is a FIFO, not a file"
"""

import os
import stat

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotReadable(ValueError):
    """A file that is not read, and why, in words for the user."""


def _kind(mode):
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _open_regular(path):
    """A descriptor of ``path``, open for reading, and its stat: NotReadable unless it is a
    regular file (OSError if it cannot be opened at all)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotReadable("%s is %s, not a regular file" % (path, _kind(st.st_mode)))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read(path, limit):
    """The bytes of the regular file at ``path``, at most ``limit`` of them: NotReadable
    for anything else (a FIFO, a device, a directory, a longer file) before any is read;
    OSError if it cannot be opened."""
    fd, st = _open_regular(path)
    with os.fdopen(fd, "rb") as f:
        if st.st_size > limit:
            raise NotReadable("%s is longer than %d bytes" % (path, limit))
        data = f.read(limit + 1)           # a file that grew meanwhile is not read past this
    if len(data) > limit:
        raise NotReadable("%s is longer than %d bytes" % (path, limit))
    return data


def opened(path):
    """The regular file at ``path``, open in binary mode, to be streamed: NotReadable for a
    FIFO, a device or a directory (checked on the open file, without waiting)."""
    fd, _ = _open_regular(path)
    return os.fdopen(fd, "rb")
