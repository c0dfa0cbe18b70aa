"""The virtual Pico's line editor: how a Pico's friendly REPL and ``input()`` read a line.

Echo as it is typed, Backspace (over a whole auto-indent step when the line is only
indent), escape sequences swallowed, Enter ends the line; Ctrl-A to Ctrl-E on an empty
line and Ctrl-C on any line are handed back to the caller. ``continues()`` and
``indent_for()`` are a board's rules for ``... `` continuation lines and their
auto-indent. No line history and no tab completion.
"""

import vpico_port as port


def getc():
    """The next byte from the laptop; Ctrl-C if an interrupt lands while waiting."""
    try:
        return port.next_byte()
    except KeyboardInterrupt:
        port.forget()
        return 3


def continues(source):
    """Whether the friendly REPL asks for another line (``... ``), by a board's rules:
    an open bracket or triple quote, a trailing backslash, or a compound statement
    whose last line is not yet empty."""
    if not source:
        return False
    head = source.split(None, 1)[0] if source.split() else ""
    compound = source[0] == "@" or head.rstrip(":").split("(")[0] in (
        "if", "while", "for", "try", "with", "def", "class", "async")
    depth, quote, i = 0, None, 0
    while i < len(source):
        c = source[i]
        if quote:
            if c == "\\":
                i += 1
            elif source.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif c in "'\"":
            quote = c * 3 if source.startswith(c * 3, i) else c
            i += len(quote) - 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    if quote and len(quote) == 3:
        return True
    if depth > 0 and not quote:
        return True
    return source[-1] == "\\" or (compound and source[-1] != "\n")


def indent_for(source):
    """The spaces a board's REPL puts at the start of the next ``... `` line."""
    lines = source.split("\n")          # source ends with the newline just typed
    last = lines[-2]
    if len(lines) > 3 and not last.strip(" ") and not lines[-3].strip(" "):
        return ""                         # two blank lines in a row: back to the margin
    n = (len(last) - len(last.lstrip(" "))) // 4
    if last.endswith(":"):
        n += 1
    return "    " * n


def read_line(prompt, start=""):
    """One line with echo, as a board's readline edits it: (control, text). control is
    the Ctrl-A/B/C/D/E that ended an empty line (Ctrl-C also ends a non-empty one), or
    None when Enter ended it; ``start`` is the auto-indent already on the line."""
    port.send(prompt + start)
    line = bytearray(start.encode())
    while True:
        c = getc()
        if 1 <= c <= 5 and len(line) == len(start) and (c != 4 or not start):
            return c, ""
        if c == 3:
            return 3, ""
        if c == 13:
            port.send("\r\n")
            return None, line.decode()
        if c == 27:                                   # an escape sequence: ignored
            skip_escape()
        elif c in (8, 127):
            if line:
                n = 4 if line.count(b" ") == len(line) and len(line) % 4 == 0 else 1
                line = line[:-n]
                port.send("\b" * n + "\x1b[K")
        elif c >= 32:
            line.append(c)
            port.send(bytes((c,)))


def skip_escape():
    c = getc()
    if c in (91, 79):                                 # CSI or SS3: up to a final byte
        while not 64 <= getc() <= 126:
            pass


def board_input(prompt=""):
    """``input()`` as on a board: the line editor on the serial port."""
    c, line = read_line(prompt)
    if c == 3:
        raise KeyboardInterrupt
    if c == 4:
        raise EOFError
    return line
