"""JSON text checked by the standard's grammar, the same on every runtime.

MicroPython's ``json`` takes more than the standard allows (a NUL or another control
character after the value or inside a string, ``01``, ``"\\x"``, a trailing comma), and
CPython's takes ``NaN`` and ``Infinity``; both may run out of stack on text nested deep
enough; and both take an escaped half of a surrogate pair (``"\\ud800"``), a string no
UTF-8 text can hold, which fails later wherever it is written out. Text that passes
``strict_json`` first gets the same value from both, so a script line or a pin map means
the same to the simulator on either runtime, the laptop's tools and the board.

    strict_json('{"t": 0}')          # True
    strict_json('{"t": 01}')         # False
"""

_ESCAPES = '"\\/bfnrt'
_HEX = "0123456789abcdefABCDEF"
_DIGITS = "0123456789"


def _string_end(text, i):
    """Past the JSON string starting at ``text[i]`` (a quote), or -1."""
    i += 1
    while True:
        end = text.find('"', i)
        if end < 0:
            return -1
        part = text[i:end]
        if part and min(part) < " ":           # a raw control character
            return -1
        slash = part.find("\\")
        if slash < 0:
            return end + 1
        i += slash + 1                         # at the escaped character
        if i >= len(text):
            return -1
        c = text[i]
        if c == "u":
            digits = text[i + 1:i + 5]
            if len(digits) < 4 or any(d not in _HEX for d in digits):
                return -1
            i += 5
        elif c in _ESCAPES:
            i += 1
        else:
            return -1


def _number_end(text, i):
    """Past the JSON number starting at ``text[i]``, or -1."""
    n = len(text)

    def digits(j):
        k = j
        while k < n and text[k] in _DIGITS:
            k += 1
        return k

    if i < n and text[i] == "-":
        i += 1
    if i < n and text[i] == "0":
        i += 1
    else:
        j = digits(i)
        if j == i:
            return -1
        i = j
    if i < n and text[i] == ".":
        j = digits(i + 1)
        if j == i + 1:
            return -1
        i = j
    if i < n and text[i] in "eE":
        i += 1
        if i < n and text[i] in "+-":
            i += 1
        j = digits(i)
        if j == i:
            return -1
        i = j
    return i


def _scalar_end(text, i):
    """Past the string, number, true, false or null at ``text[i]``, or -1."""
    c = text[i]
    if c == '"':
        return _string_end(text, i)
    if c == "-" or c in _DIGITS:
        return _number_end(text, i)
    for word in ("true", "false", "null"):
        if text.startswith(word, i):
            return i + len(word)
    return -1


def strict_json(text, depth_max=32):
    """Whether ``text`` is one JSON value by the standard's grammar, nested at most
    ``depth_max`` deep. MicroPython's ``json`` also takes what the standard refuses (a NUL
    or other control character after the value or in a string, ``01``, ``\\x``, a trailing
    comma) and CPython's takes ``NaN``; checked first, a line gets the same verdict and
    the same value on both."""
    return fault(text, depth_max) is None


def lone_surrogate(text):
    """The index of the first escape of half a surrogate pair (``\\ud800`` not followed by
    ``\\udc00``...``\\udfff``, or the second half alone) in JSON text, or -1."""
    i = text.find("\\")
    while i >= 0:
        if text[i + 1:i + 2] != "u":
            i = text.find("\\", i + 2)               # an escape of one character (\\\\ too)
            continue
        code = _hex(text[i + 2:i + 6])
        if 0xD800 <= code < 0xDC00:                  # first half: the second must follow
            if text[i + 6:i + 8] != "\\u" or not 0xDC00 <= _hex(text[i + 8:i + 12]) < 0xE000:
                return i
            i += 6
        elif 0xDC00 <= code < 0xE000:
            return i
        i = text.find("\\", i + 6)
    return -1


def _hex(digits):
    if len(digits) != 4 or any(d not in _HEX for d in digits):
        return -1
    return int(digits, 16)


def fault(text, depth_max=32):
    """None for good JSON text (see ``strict_json``), else what is wrong and where:
    ``(why, line, column)``, counted from 1."""
    at = _fault_at(text, depth_max)
    why = "not valid JSON"
    if at is None:
        at = lone_surrogate(text)
        if at < 0:
            return None
        why = "half a surrogate pair escaped (no character)"
    elif at < 0:
        at, why = -at - 1, "nested deeper than %d" % depth_max
    line = text.count("\n", 0, at) + 1
    return why, line, at - (text.rfind("\n", 0, at) + 1) + 1


def _fault_at(text, depth_max):
    """None, the index of the first wrong character, or -1 - index where the nesting
    goes past ``depth_max``."""
    n = len(text)
    stack = []             # "{" or "[" for each open container
    want = "value"         # value, key, colon, next (a comma or the container's end), end
    i = 0
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            return None if want == "end" else n
        c = text[i]
        if want in ("value", "first"):
            if c == "]" and want == "first" and stack[-1] == "[":
                stack.pop()
                i += 1
                want = "next" if stack else "end"
                continue
            if c in "{[":
                if len(stack) >= depth_max:
                    return -1 - i
                stack.append(c)
                i += 1
                want = "key?" if c == "{" else "first"
                continue
            end = _scalar_end(text, i)
            if end < 0:
                return i
            i = end
            want = "next" if stack else "end"
        elif want in ("key", "key?"):
            if c == "}" and want == "key?":
                stack.pop()
                i += 1
                want = "next" if stack else "end"
                continue
            end = _string_end(text, i) if c == '"' else -1
            if end < 0:
                return i
            i = end
            want = "colon"
        elif want == "colon":
            if c != ":":
                return i
            i += 1
            want = "value"
        elif want == "next":
            close = "}" if stack[-1] == "{" else "]"
            if c == ",":
                i += 1
                want = "key" if close == "}" else "value"
            elif c == close:
                stack.pop()
                i += 1
                want = "next" if stack else "end"
            else:
                return i
        else:                                  # end: nothing may follow the value
            return i
