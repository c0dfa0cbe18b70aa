"""Event logs: the event stream saved as JSON lines, and read back.

A log holds the lines exactly as the board sent them (one event per line, see
docs/events.md), after one first line that says where and when it was recorded:

    {"ev":"log","format":1,"port":"/dev/ttyACM0","started":"2026-11-30T06:50:00Z"}

Readers skip every line that is not a JSON object with an ``ev`` (REPL noise, a traceback),
as the event stream's rules ask.

    with Writer(path, port) as log: log.line(raw_text)
    events = read(path)
"""

import json
import time
from pathlib import Path

from courtside_host.board import event

FORMAT = 1


def default_path(folder="logs"):
    return Path(folder) / time.strftime("courtside-%Y%m%d-%H%M%S.jsonl")


class Writer:
    def __init__(self, path, port=""):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        head = {"ev": "log", "format": FORMAT, "port": port,
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.f.write(json.dumps(head) + "\n")
        self.f.flush()

    def line(self, text):
        """Store one event line as received (callers pass only event lines)."""
        self.f.write(text.rstrip("\r\n") + "\n")
        self.f.flush()

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read(path):
    """The log's head line, then every event in it (dicts, in order), skipping anything
    else."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f):
            ev = event(line)
            if ev is None and number == 0:
                ev = _head(line)
            if ev is not None:
                out.append(ev)
    return out


def _head(line):
    try:
        head = json.loads(line)
    except ValueError:
        return None
    return head if isinstance(head, dict) and head.get("ev") == "log" else None
