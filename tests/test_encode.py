"""``events.encode``: the event line as bytes, the board's way of writing it, is the same
text as ``events.line`` and as JSON itself would write it, for every value an event can
carry: names the firmware writes (printable ASCII, written as they are), strings that
need escaping (quotes, backslashes, control characters, non-ASCII: spelled by
``events._string``), numbers past 2**30, nested lists and dicts with sorted keys."""

import json

import pytest
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
