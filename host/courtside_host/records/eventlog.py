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

from courtside_host import files
from courtside_host.link.port import event

FORMAT = 1


def default_path(folder="logs"):
    return Path(folder) / time.strftime("courtside-%Y%m%d-%H%M%S.jsonl")


class Writer:
    def __init__(self, path, port=""):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(self.path, "a", encoding="utf-8")
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


LINE_MAX = 1 << 16     # longer lines are not events a board writes: skipped unread


def iterate(path, skipped=None):
    """The log's head line, then every event in it (dicts, in order), as they are read,
    skipping anything else (REPL noise, damaged or overlong lines). ``skipped``, a list,
    gets (line number, the line's start) of each line skipped that was not blank."""
    with files.opened(path) as f:
        number = 0
        while True:
            raw = f.readline(LINE_MAX + 1)
            if not raw:
                return
            if len(raw) > LINE_MAX:          # skip the rest of an overlong line
                while raw and not raw.endswith(b"\n"):
                    raw = f.readline(LINE_MAX)
                number += 1
                if skipped is not None:
                    skipped.append((number, "a line longer than %d bytes" % LINE_MAX))
                continue
            ev = _quick(raw)
            if ev is None:
                line = raw.decode("utf-8", "replace")
                ev = event(line)
                if ev is None and number == 0:
                    ev = _head(line)
            number += 1
            if ev is not None:
                yield ev
            elif skipped is not None and raw.strip():
                skipped.append((number, raw[:40].decode("utf-8", "replace").strip()))


def _quick(raw):
    """The event in a line of valid UTF-8, as ``event`` reads it (its ``ev`` and ``t``
    last), without decoding the line first; None sends every other line, the head line
    and any damage included, the long way round."""
    if raw[:1] != b"{":
        return None
    try:
        obj = _decode(raw.decode())
    except (ValueError, RecursionError):
        return None
    if type(obj) is not dict:
        return None
    kind = obj.pop("ev", None)
    t = obj.pop("t", None)
    if type(kind) is not str or type(t) is not int or t < 0 or kind == "log":
        return None
    obj["ev"] = kind
    obj["t"] = t
    return obj


_decode = json.JSONDecoder().decode


def read(path):
    """Every event in a log, as a list (``iterate`` for a long log)."""
    return list(iterate(path))


def _head(line):
    if not line.startswith('{"ev": "log"') and not line.startswith('{"ev":"log"'):
        return None
    try:
        head = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return head if isinstance(head, dict) and head.get("ev") == "log" else None
