"""One event model: every line the firmware writes has the fields ``courtside.events``
names for its kind, the documentation lists the same kinds and fields, and a line is the
same bytes on CPython and on the MicroPython unix port whatever its strings hold."""

import json
import subprocess
import sys

from conftest import FIRMWARE, ROOT, simulate
from courtside import events
from hypothesis import given, settings
from hypothesis import strategies as st

SCRIPTS = sorted((ROOT / "tests" / "scripts").glob("*.jsonl")) + \
    sorted((ROOT / "tests" / "golden" / "v1").glob("*.jsonl"))


def documented():
    """{kind: text of its fields cell} from the docs' event tables (those headed
    ``| `ev` | when | fields |``)."""
    rows = {}
    for doc in ("events.md", "deathball.md"):
        inside = False
        for line in (ROOT / "docs" / doc).read_text().splitlines():
            if line.startswith("| `ev` |"):
                inside = True
            elif not line.startswith("|"):
                inside = False
            elif inside and not line.startswith("|---"):
                cells = [c.strip() for c in line.strip("|").split("|")]
                kind = cells[0].strip("`")
                assert kind not in rows, "%s documented twice" % kind
                rows[kind] = cells[-1]
    return rows


def test_every_line_of_every_script_has_its_kinds_fields():
    seen = set()
    for script in SCRIPTS:
        for line in simulate(sys.executable, script).stdout.splitlines():
            kind, t, fields = events.parse(line)
            events.check(kind, fields)
            assert events.line(kind, t, fields) == line   # and reads back to the same line
            seen.add(kind)
    # the scripts between them write most kinds (what they miss is named here)
    assert set(events.kinds()) - seen <= {"overflow", "unsent", "skip", "initiative", "mem"}


def test_the_docs_name_every_kind_and_field():
    rows = documented()
    assert sorted(rows) == sorted(events.kinds())
    for kind in events.kinds():
        always, sometimes = events.fields_of(kind)
        if kind == "settings":      # the row points at the settings table
            continue
        for name in always + sometimes:
            assert "`%s`" % name in rows[kind], (kind, name)


def test_check_refuses_what_the_model_does_not_hold():
    for kind, fields in (("press", {"p": 1}), ("bogus", {}), ("join", {"p": 1, "extra": 2})):
        try:
            events.check(kind, fields)
        except ValueError:
            continue
        raise AssertionError((kind, fields))
    events.check("fault", {"kind": "cleared", "p": 2})          # "closed" is sometimes


MP_ENCODE = """
import sys, json
sys.path.insert(0, %r)
from courtside import events
for line in sys.stdin:
    points = json.loads(line)
    text = "".join(chr(c) for c in points)
    sys.stdout.write(events.line("error", 7, {"msg": text, "line": [text]}) + "\\n")
"""

TEXT = st.lists(st.one_of(st.integers(0, 0x7f), st.integers(0x80, 0xd7ff), st.integers(0xe000, 0x10ffff),
                          st.integers(0xd800, 0xdfff)), max_size=40)     # lone surrogates too


@settings(max_examples=1, deadline=None)
@given(st.lists(TEXT, min_size=300, max_size=300))
def test_strings_are_written_alike_on_both_runtimes(micropython, batch):
    here = [events.line("error", 7, {"msg": "".join(map(chr, p)), "line": ["".join(map(chr, p))]})
            for p in batch]
    there = subprocess.run([micropython, "-c", MP_ENCODE % str(FIRMWARE)], capture_output=True,
                           text=True, timeout=120, check=True,
                           input="".join(json.dumps(p) + "\n" for p in batch)).stdout.splitlines()
    assert there == here
    for line, points in zip(here, batch):
        assert line.isascii() and "\x7f" not in line
        text = "".join(map(chr, points))
        if not any(0xd800 <= a < 0xdc00 <= b < 0xe000 for a, b in zip(points, points[1:])):
            assert json.loads(line)["msg"] == text        # (a high and a low half read back as one)
        assert json.dumps(text).replace("\x7f", "\\u007f") in line  # CPython's spelling, DEL escaped


def test_a_lone_surrogate_and_del_are_escaped():
    assert events.line("cmd", 0, {"line": "\ud800"}) == '{"ev":"cmd","t":0,"line":"\\ud800"}'
    assert events.line("cmd", 0, {"line": "a\x7fb"}) == '{"ev":"cmd","t":0,"line":"a\\u007fb"}'
    assert events.line("cmd", 0, {"line": "\u00e9\x7f"}) == '{"ev":"cmd","t":0,"line":"\\u00e9\\u007f"}'
    assert events.line("cmd", 0, {"line": "ping"}) == '{"ev":"cmd","t":0,"line":"ping"}'   # as before
