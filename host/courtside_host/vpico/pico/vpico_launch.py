"""Start the virtual Pico's interpreter, fenced in by the kernel where it can be.

Run by ``courtside_host.vpico.runner`` with CPython (``python -S -E vpico_launch.py MODULES FLASH
ARGS...``), this loads the MicroPython unix port from the ``micropython_run`` extension in
the folder MODULES and runs it with ARGS. Before it does, on Linux 5.13 or newer it asks
the kernel (Landlock) to let this process and its children open, list, create, rename or
delete files only inside FLASH (and read the board script's own folder and the simulated
board's, ``courtside_sim`` in the folder ``VPICO_ROM`` names), and, where the kernel's
Landlock has them (ABI 4 and 6), to bind or connect no TCP socket and reach no abstract
unix socket or process outside. That is a second wall: the board's own modules
(``vpico_gate`` with ``vpico_guard``'s rules, ``vpico_flash``) already close every way to
the host, and they are all
there is where Landlock is missing or ``VPICO_LANDLOCK=off``. The supervisor is told
which, in a note on stderr.

Without ``site`` the interpreter starts three to four times faster, which matters because
every soft reset starts a fresh one. On Linux it also asks to be ended with the process
that started it, so a laptop-side crash never leaves an interpreter behind.
"""

import ctypes
import os
import struct
import sys

_ABI_RIGHTS = {1: 0x1FFF, 2: 0x3FFF, 3: 0x7FFF, 5: 0xFFFF}   # all fs rights per Landlock ABI
_READ = 0x4 | 0x8                   # READ_FILE, READ_DIR
_FLASH = 0x2 | _READ | 0x10 | 0x20 | 0x80 | 0x100 | 0x2000 | 0x4000
#        WRITE_FILE, REMOVE_DIR, REMOVE_FILE, MAKE_DIR, MAKE_REG, REFER, TRUNCATE
_NET_TCP = 0x1 | 0x2                # BIND_TCP, CONNECT_TCP
_SCOPED = 0x1 | 0x2                 # ABSTRACT_UNIX_SOCKET, SIGNAL
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38


def _fence(libc, flash, readable):
    """Landlock: full use of ``flash``, reading of ``readable``; True when in force."""
    abi = libc.syscall(_CREATE_RULESET, None, 0, 1)          # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return False
    handled = _ABI_RIGHTS[max(k for k in _ABI_RIGHTS if k <= abi)]
    # ABI 4: TCP bind and connect, with no rule allowing any port; ABI 6: no abstract
    # unix socket or signal reaching outside the fence.
    attr = struct.pack("=Q", handled) if abi < 4 else struct.pack(
        "=QQ", handled, _NET_TCP) if abi < 6 else struct.pack("=QQQ", handled, _NET_TCP, _SCOPED)
    ruleset = libc.syscall(_CREATE_RULESET, attr, len(attr), 0)
    if ruleset < 0:
        return False
    try:
        for path, rights in [(flash, _FLASH & handled)] + [(p, _READ) for p in readable]:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = struct.pack("=Qi", rights, fd)
                if libc.syscall(_ADD_RULE, ruleset, 1, rule, 0) != 0:   # PATH_BENEATH
                    return False
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def main():
    modules, flash, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    fenced = False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)            # SIGKILL when the supervisor dies
        if os.getppid() == 1:
            return 0
        sys.path.insert(0, modules)
        from micropython_run import run_main
        readable = [os.getcwd()]
        rom = os.environ.get("VPICO_ROM")
        if rom:                          # the simulated board's code, read before the flash is mounted
            readable.append(os.path.join(rom, "courtside_sim"))
        if os.environ.get("VPICO_LANDLOCK") != "off":
            fenced = _fence(libc, flash, readable)
    except (OSError, AttributeError):
        sys.path.insert(0, modules)
        from micropython_run import run_main
    sys.stderr.write("vpico: fence %s\n" % ("landlock" if fenced else "none"))
    sys.stderr.flush()
    return run_main(["micropython", *args])


if __name__ == "__main__":
    sys.exit(main())
