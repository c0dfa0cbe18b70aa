"""One text, one set of bytes: the same input gives the same event bytes on every runtime.

Random text fed to the firmware as command lines, and random bytes fed to the script
reader as script lines, go through CPython and the MicroPython unix port; what comes out
(the event stream, the script's verdict on each line) must be identical, byte for byte.
The inputs lean on what once differed: lone surrogates, DEL, NUL and other control
characters after or inside the JSON, Unicode spaces, ``set`` with several bad words,
lenient JSON (``01``, ``\\x``, a trailing comma, ``NaN``). A script line that escapes half
a surrogate pair is not JSON a reader takes (``courtside.jsoncheck``): it is refused, alike
on both, and the commands streamed through the core are the rest. The page's WebAssembly
runtime is compared on a fixed list of them and on random commands in
tests/test_web_page.py.
"""

import binascii
import json
import subprocess
import sys

import pytest
from conftest import FIRMWARE, ROOT, simulate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HOSTILE_COMMANDS = [
    "\ud800", "\udfff", "ping\ud800", "\ud83d\ude00", "\ud800\udc00", "a\x7fb", "\x7f", "ping\x00",
    "\x00", "set tie_us=x sound=y", "set sound=y tie_us=x", "set nonsense tie_us=-1",
    "set tie_us=2000000 contest_ms=1", "set brightness=\u0661\u0662", "p\ting", "ping\u0085",
    "\u2028ping", "ping\u00a0", "\u00e9", "\U0001f600" * 3, "x" * 201, "\ud800" * 201,
    "\U0001f600" * 200, "join \u0663", "mode \x7f", "dice 2 6\x00", "\\", '"', "\x1b[2J",
]
HOSTILE_LINES = [
    b'{"t":0,"cmd":"ping"}\x00', b'{"t":0,"cmd":"ping"}\x00junk', b'{"t":0,"cmd":"p\x00ing"}',
    b'{"t":0,"cmd":"p\ting"}', b'{"t":0,\t"cmd":"ping"}', b'{"t":0,"cmd":"ping"}\x0c',
    b'{"t":0,"cmd":"ping"}\x0b', b'{"t":01,"cmd":"ping"}', b'{"t":0,"cmd":"\\x"}',
    b'{"t":0,"cmd":"ping",}', b'{"t":NaN,"cmd":"ping"}', b'{"t":Infinity,"cmd":"ping"}',
    b'{"t":0,"cmd":"\\ud800"}', b'{"t":0,"cmd":"\\ud83d\\ude00"}', b'{"t":0,"cmd":"\x7f"}',
    b'{"t":0,"p":1,"b":"\\u00e9"}', b'{"t":0,"p":1,"b":"\\u0085"}',
    b'{"t":0,"p":1,"b":"THROW","e":"\\ud800"}',
    b'[' * 5000, b'{"a":' * 40 + b'1' + b'}' * 40, b'{"t":0,"cmd":"ping"} x', b'\xff\xfe',
    b'{"t":0,"cmd":"\xed\xa0\x80"}', b'{"t":0,"cmd":"\xc0\x80"}', b'{"t":1e3,"cmd":"ping"}',
    b'{"t":-0,"cmd":"ping"}', b'{"t":0,"t":1,"cmd":"ping"}', b'{"t":0,"cmd":"ping"}\xc2\xa0',
    b'# a comment \x00', b'{"t":0,"p":true,"b":"THROW"}', b'{"t":0,"p":1.0,"b":"THROW"}',
    b'{"t":123456789012345678901234567890,"cmd":"ping"}', b'{"t":0,"cmd":"a\\u0000b"}',
]


def lone(text):
    """Whether ``text`` holds half a surrogate pair (a whole pair is one character)."""
    try:
        text.encode("utf-16", "surrogatepass").decode("utf-16").encode("utf-8")
    except UnicodeError:
        return True
    return False


WHOLE_COMMANDS = [c for c in HOSTILE_COMMANDS if not lone(c)]


def both(*args, stdin=None, micropython):
    runs = [simulate(exe, *args, check=False, stdin=stdin) for exe in (sys.executable, micropython)]
    return runs


def script_of(commands):
    return "".join(json.dumps({"t": 1000 * i, "cmd": c}) + "\n" for i, c in enumerate(commands))


def stream_of_both(tmp_path, commands, micropython):
    path = tmp_path / "cmds.jsonl"
    path.write_text(script_of(commands))
    cpy, mpy = both(path, micropython=micropython)
    assert cpy.returncode == 0, cpy.stderr[-2000:]
    return cpy, mpy


def test_hostile_commands_give_the_same_bytes_on_both_runtimes(tmp_path, micropython):
    cpy, mpy = stream_of_both(tmp_path, WHOLE_COMMANDS, micropython)
    assert mpy.returncode == 0 and mpy.stdout == cpy.stdout and cpy.stderr == mpy.stderr == ""
    lines = cpy.stdout.splitlines()
    at = 1000 * WHOLE_COMMANDS.index("a\x7fb")
    assert '{"ev":"cmd","t":%d,"line":"a\\u007fb"}' % at in lines         # DEL escaped, everywhere
    assert '{"ev":"cmd","t":0,"line":"\\ud83d\\ude00"}' in lines       # a whole pair: one character
    assert all(ord(c) < 127 for c in cpy.stdout)
    two_bad = [json.loads(x) for x in lines if '"error"' in x and "set " in x][:2]
    assert [e["msg"] for e in two_bad] == ["tie_us must be a whole number, not 'x'",
                                           "sound must be a whole number, not 'y'"]   # the first word given


def test_a_command_with_half_a_surrogate_pair_is_refused_alike_on_both(tmp_path, micropython):
    for command in [c for c in HOSTILE_COMMANDS if lone(c)]:
        path = tmp_path / "lone.jsonl"
        path.write_text(script_of(["ping", command]))
        cpy, mpy = both(path, micropython=micropython)
        assert (cpy.returncode, cpy.stdout, cpy.stderr) == (mpy.returncode, mpy.stdout, mpy.stderr)
        assert cpy.returncode == 2 and "script line 2: not JSON" in cpy.stderr, command


# Command text: any code point, surrogates and controls included (a half pair left out:
# such a script is refused, as above).
ANY_CHAR = st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x7F),
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()),
    st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "\x7f", "\x00", "\u0085", "\u2028", "\u00a0",
                     " ", "\t", "=", "-", "0", "9"]))
WORDS = st.sampled_from(["ping", "get", "set", "mode", "join", "dice", "help", "new", "start",
                         "tie_us=", "sound=", "brightness=", "referee", "die", "dodgeball"])
COMMAND = st.lists(st.one_of(WORDS, st.text(ANY_CHAR, max_size=6)), max_size=6).map("".join).filter(
    lambda c: not lone(c))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(COMMAND, min_size=1, max_size=40))
def test_random_commands_give_the_same_bytes_on_both_runtimes(tmp_path, micropython, commands):
    cpy, mpy = stream_of_both(tmp_path, commands, micropython)
    assert (mpy.returncode, mpy.stdout, mpy.stderr) == (cpy.returncode, cpy.stdout, cpy.stderr)
    assert all(ord(c) < 127 for c in cpy.stdout)


def verdicts(tmp_path, lines, micropython):
    path = tmp_path / "lines.hex"
    path.write_text("\n".join(binascii.hexlify(line).decode() or "00"[:0] for line in lines) + "\n")
    driver = str(ROOT / "tests" / "mp" / "script_verdicts.py")
    out = []
    for exe in (sys.executable, micropython):
        run = subprocess.run([exe, driver, str(FIRMWARE), str(path)], capture_output=True, text=True,
                             timeout=120, check=False)
        assert run.returncode == 0, run.stderr[-2000:]
        out.append(run.stdout)
    return out


def test_hostile_script_lines_get_the_same_verdict_on_both_runtimes(tmp_path, micropython):
    cpy, mpy = verdicts(tmp_path, HOSTILE_LINES, micropython)
    assert mpy == cpy
    said = cpy.splitlines()
    assert len(said) == len(HOSTILE_LINES)
    for line, verdict in zip(HOSTILE_LINES, said):
        if b"\x00" in line and not line.startswith(b"#") or b"NaN" in line or b"01" in line:
            assert verdict.startswith("refused "), line


VALID = st.sampled_from([b'{"t":0,"cmd":"ping"}', b'{"t":120000,"p":1,"b":"THROW","e":"down"}',
                         b'{"t":5,"p":0,"b":"MAIN","e":"tap"}', b'{"t":7,"p":2,"b":"UP"}'])


@st.composite
def script_line(draw):
    """A valid line with random bytes put in, taken out or changed, or random bytes."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=40)).replace(b"\n", b"")
    line = bytearray(draw(VALID))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(line)))
        action = draw(st.sampled_from(["insert", "delete", "change"]))
        byte = draw(st.one_of(st.integers(0, 255), st.sampled_from(b'\x00\x7f\\"{}[],:0 \t\x0b\x0c\xa0')))
        if byte == 10:
            continue
        if action == "insert":
            line[at:at] = bytes((byte,))
        elif at < len(line):
            line[at:at + 1] = b"" if action == "delete" else bytes((byte,))
    return bytes(line)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(script_line(), min_size=1, max_size=60))
def test_random_script_lines_get_the_same_verdict_on_both_runtimes(tmp_path, micropython, lines):
    cpy, mpy = verdicts(tmp_path, [line.strip(b" \t\r") or b"#" for line in lines], micropython)
    assert mpy == cpy


@pytest.mark.parametrize("bad", [b'{"t":0,"cmd":"ping"}\x00', b'{"t":01,"cmd":"ping"}', b"[" * 5000,
                                 b'{"t":0,"cmd":"\\x"}', b'\xff'])
def test_a_bad_line_anywhere_refuses_the_script_before_anything_runs(tmp_path, micropython, bad):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"t":0,"cmd":"ping"}\n' * 50 + bad + b"\n" + b'{"t":9,"cmd":"get"}\n')
    cpy, mpy = both(path, micropython=micropython)
    assert (cpy.returncode, cpy.stdout) == (mpy.returncode, mpy.stdout) == (2, "")
    assert cpy.stderr == mpy.stderr and cpy.stderr.startswith("courtside sim: script line 51: ")
    assert all(32 <= ord(c) < 127 for c in cpy.stderr.rstrip("\n"))     # shown escaped, not raw


@settings(max_examples=3000, deadline=None)
@given(st.binary(max_size=12))
def test_the_utf8_check_agrees_with_cpythons_decoder(raw):
    from courtside.text import utf8
    try:
        expected = raw.decode()
    except UnicodeError:
        expected = None
    try:
        got = utf8(raw)
    except UnicodeError:
        got = None
    assert got == expected


JSONISH = st.lists(st.sampled_from(['{', '}', '[', ']', ',', ':', '"', '"a"', '1', '-', '0', '.', 'e',
                                    '01', 'true', 'nul', ' ', '\t', '\x00', '\\', '\\u', '\\n', '12a']),
                   max_size=14).map("".join)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(JSONISH, st.text(max_size=10)))
def test_the_strict_json_check_agrees_with_cpythons_strict_parser(text):
    from courtside.jsoncheck import strict_json
    try:
        json.loads(text, parse_constant=lambda name: 1 / 0)
        expected = True
    except (ValueError, ZeroDivisionError, RecursionError):
        expected = False
    assert strict_json(text) == expected
