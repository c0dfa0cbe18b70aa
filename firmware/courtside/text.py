"""Command text, read the same way on every runtime.

CPython's ``str.split``, ``strip``, ``int``, ``isdigit``, ``upper`` and ``repr`` know all of
Unicode; MicroPython's know ASCII. A command from the laptop must mean the same on a board
and in the simulator on either interpreter, so commands are read with these instead:
words are split on spaces and tabs only, numbers are ASCII digits, and text is quoted in
messages as it is, never through ``repr``.

    words("set  tie_us=800\\t sound=0")    # ["set", "tie_us=800", "sound=0"]
    whole("-12"), whole("١٢")              # -12, None
"""



def words(line):
    """The words of ``line``, split on spaces and tabs alone."""
    out = []
    for word in line.replace("\t", " ").split(" "):
        if word:
            out.append(word)
    return out


def strip(line):
    """``line`` without spaces, tabs and line ends around it (nothing else)."""
    return line.strip(" \t\r\n")  # noqa: B005 - a set of characters, on purpose


def whole(text, most=9):
    """The whole number ``text`` spells in at most ``most`` ASCII digits (an optional ``-``
    first), or None; nine digits keep it a small int on a 32-bit board."""
    digits = text[1:] if text[:1] == "-" else text
    if not digits or len(digits) > most:
        return None
    for ch in digits:
        if not "0" <= ch <= "9":
            return None
    return int(text)


def upper(text):
    """``text`` with its ASCII letters in capitals (only those)."""
    return "".join(chr(ord(ch) - 32) if "a" <= ch <= "z" else ch for ch in text)


def quoted(text):
    """``text`` in quotes for a message, as it is."""
    return "'" + text + "'"
