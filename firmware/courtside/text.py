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
    return line.strip(" \t\r\n")


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


def utf8(raw):
    """``raw`` (bytes) decoded as UTF-8, or UnicodeError, by the standard's rules on every
    runtime: MicroPython's own ``decode`` also takes overlong forms (``C0 80``) and encoded
    surrogates (``ED A0 80``), which CPython's refuses."""
    raw = bytes(raw)
    if raw and max(raw) >= 0x80:
        i, n = 0, len(raw)
        while i < n:
            b = raw[i]
            if b < 0x80:
                i += 1
                continue
            if 0xC2 <= b <= 0xDF:
                size, lo, hi = 2, 0x80, 0xBF
            elif 0xE0 <= b <= 0xEF:
                size = 3
                lo, hi = (0xA0, 0xBF) if b == 0xE0 else (0x80, 0x9F) if b == 0xED else (0x80, 0xBF)
            elif 0xF0 <= b <= 0xF4:
                size = 4
                lo, hi = (0x90, 0xBF) if b == 0xF0 else (0x80, 0x8F) if b == 0xF4 else (0x80, 0xBF)
            else:
                raise UnicodeError("not UTF-8")
            if i + size > n or not lo <= raw[i + 1] <= hi:
                raise UnicodeError("not UTF-8")
            for k in range(i + 2, i + size):
                if not 0x80 <= raw[k] <= 0xBF:
                    raise UnicodeError("not UTF-8")
            i += size
    return raw.decode()
