"""``events.encode``: the event line as bytes, the board's way of writing it, is the same
text as ``events.line`` and as JSON itself would write it, for every value an event can
carry: names the firmware writes (printable ASCII, written as they are), strings that
need escaping (quotes, backslashes, control characters, non-ASCII: spelled by
``events._string``), numbers past 2**30, nested lists and dicts with sorted keys."""

import json
import random
import subprocess

import pytest
from conftest import FIRMWARE
from courtside import events
from hypothesis import given, settings
from hypothesis import strategies as st

printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12)
anything = st.text(max_size=12)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), printable)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(printable, inner, max_size=4)), max_leaves=12)


def reference(kind, t, fields):
    body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    head = '{"ev":%s,"t":%d' % (json.dumps(kind), t)
    return head + ("," + body[1:] if fields else "}")


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(printable, st.integers(0, 2**45), st.dictionaries(printable, values, max_size=6))
def test_encode_writes_what_json_writes(kind, t, fields):
    line = events.line(kind, t, fields)
    assert line == reference(kind, t, fields)
    assert bytes(events.encode(kind, t, fields)) == line.encode()


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(anything)
def test_strings_that_need_escaping_are_spelled_as_the_string_writer_spells_them(text):
    line = events.line("cmd", 5, {"line": text})
    assert line == '{"ev":"cmd","t":5,"line":%s}' % events._string(text)
    assert bytes(events.encode("cmd", 5, {"line": text})) == line.encode() and line.isascii()
    assert json.loads(line)["line"] == text


# On MicroPython ``encode`` builds lines in one buffer kept between them. Each line is
# written three times there: as read, with its fields (and every dict inside) in the
# reverse order, and again as read: the keys come out sorted whatever order they came in,
# and nothing of one line is left in the next.
MP_ENCODE = """
import sys, json
sys.path.insert(0, %r)
from courtside import events
def reversed_(v):
    if type(v) is dict:
        return {k: reversed_(v[k]) for k in reversed(list(v))}
    if type(v) is list:
        return [reversed_(x) for x in v]
    return v
for text in sys.stdin:
    kind, t, fields = json.loads(text)
    for f in (fields, reversed_(fields), fields):
        sys.stdout.write(bytes(events.encode(kind, t, f)).decode() + "\\n")
"""

KINDS = ["press", "tie", "verdict", "fault", "k%d", "%s", "\u00e9", "a b"]
NAMES = ["n", "p", "b", "lag", "early", "a%sb", "%d", "%", "closed", "x y", 'q"', "\u00e9"]


def _value(rng, depth=0):
    pick = rng.randrange(9 if depth < 2 else 6)
    if pick == 0:
        return rng.choice([None, True, False])
    if pick in (1, 2):
        return rng.randrange(-2**40, 2**40) if rng.random() < 0.3 else rng.randrange(-9, 100000)
    if pick in (3, 4):
        return rng.choice(["THROW", "no throw open", "", "tab\t", "\u00e9", "%s", "%d%%"])
    if pick == 5:
        return -rng.randrange(2**31)    # no floats: a board writes none, and the runtimes spell them apart
    if pick in (6, 7):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return _fields(rng, depth + 1)


def _fields(rng, depth=0):
    return {rng.choice(NAMES): _value(rng, depth) for _ in range(rng.randrange(7))}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_micropython_writes_what_cpython_writes(micropython, seed):
    rng = random.Random(seed)
    batch = [(rng.choice(KINDS), rng.randrange(2**45), _fields(rng)) for _ in range(400)]
    here = [events.line(kind, t, fields) for kind, t, fields in batch for _ in range(3)]
    there = subprocess.run([micropython, "-c", MP_ENCODE % str(FIRMWARE)], capture_output=True,
                           text=True, timeout=120, check=True,
                           input="".join(json.dumps(x) + "\n" for x in batch)).stdout.splitlines()
    assert there == here
