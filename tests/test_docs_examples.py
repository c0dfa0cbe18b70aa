"""The documents' example outputs are what the tools print.

A fenced block right after a marker ``<!-- example: monitor SCRIPT [--name P=NAME ...]
[--from TEXT] -->`` is the monitor's screen for the event stream the simulator writes for
SCRIPT, from the first line holding TEXT on. The test plays the script and renders it as
the monitor does (without colour, wide enough for no line to wrap), so an example cannot
keep words, names, colours or tables the tools no longer print. To bring the examples up to
date after a deliberate change, set
``COURTSIDE_REWRITE_EXAMPLES=1`` to write the tool's output into the documents instead.
"""

import io
import json
import os
import re
import shlex
import sys

import pytest
from conftest import ROOT, simulate
from courtside_host.views import render
from courtside_host.views.monitor import Monitor
from rich.console import Console

MARKER = re.compile(r"<!-- example: (.+?) -->\n```\n(.*?)```\n", re.S)
DOCS = sorted((ROOT / "docs").glob("*.md"))


def examples():
    return [(doc, m) for doc in DOCS for m in MARKER.finditer(doc.read_text())]


def monitor_screen(args):
    script, names, start = None, {}, None
    words = iter(args)
    for word in words:
        if word == "--name":
            p, name = next(words).split("=", 1)
            names[int(p)] = name
        elif word == "--from":
            start = next(words)
        else:
            script = word
    stream = simulate(sys.executable, str(ROOT / script)).stdout
    mon = Monitor(render.Names(names))
    console = Console(file=io.StringIO(), width=400, color_system=None, force_terminal=False)
    for line in stream.splitlines():
        for shown in mon.show(json.loads(line)):
            console.print(shown)
    lines = [line.rstrip() for line in console.file.getvalue().splitlines()]
    if start is not None:
        lines = lines[next(i for i, line in enumerate(lines) if start in line):]
    return "\n".join(lines) + "\n"


def produce(command):
    tool, *args = shlex.split(command)
    assert tool == "monitor", "no way to check an example of %r" % tool
    return monitor_screen(args)


def test_there_are_examples_to_check():
    assert len(examples()) >= 1


@pytest.mark.parametrize("doc,match", examples(), ids=lambda x: getattr(x, "name", None) or x.group(1)[:40])
def test_a_documents_example_is_what_the_tool_prints(doc, match):
    want = produce(match.group(1))
    if os.environ.get("COURTSIDE_REWRITE_EXAMPLES"):
        text = doc.read_text()
        fresh = "<!-- example: %s -->\n```\n%s```\n" % (match.group(1), want)
        doc.write_text(text.replace(match.group(0), fresh))
    assert match.group(2) == want
