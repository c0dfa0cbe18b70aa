"""The one renderer, for the laptop's faces: ``courtside_follow.face`` (sentences, names,
colours, the board and the status line drawn from a ``courtside_follow.follower.Follower``),
and the text filter.

Every laptop view draws through here: the interactive simulator (``terminal``), the
live ``monitor``, ``replay`` and the text filter below, each standing on the one follower
of the stream. Its choices (colour names, sentences, the brightness lift) are ``FACE``,
plain data that a web page can load as JSON (``python -m courtside_host.views.render --face``).

    names = Names({1: "Ann"})
    sentence({"ev": "join", "t": 0, "p": 1}, names)     # 'Ann (red) joins the game.'
    f = Follower(); f.feed(ev); status(f, names)         # what the board waits for
    cells(frame)                                         # 64 RGB cells, relative brightness

Text filter: ``courtside sim --script S | python -m courtside_host.views.render`` prints a
script's stream as sentences (``--name 1=Ann`` gives players names).
"""

import sys

from courtside_follow.face import (
    FACE,
    QUIET,
    Names,
    advice,
    balls,
    cells,
    clock,
    colour_name,
    contest_heading,
    contrast,
    dims,
    early_words,
    face_json,
    figures,
    grid,
    inside,
    mode_name,
    mover,
    ms,
    parse_names,
    rank_word,
    rgb,
    rows,
    sentence,
    stage,
    status,
    verdict_lines,
    waiting,
    winner_sentence,
)

__all__ = [
    "FACE", "Names", "QUIET", "advice", "balls", "cells", "clock", "colour_name", "contrast",
    "contest_heading", "dims", "early_words", "face_json", "figures", "grid", "inside", "mode_name",
    "mover", "ms", "parse_names", "rank_word", "rgb", "rows", "sentence", "stage",
    "status",
    "verdict_lines", "waiting", "winner_sentence",
]


def main(argv=None):
    """Read event lines on stdin, print them as sentences."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m courtside_host.views.render",
                                     description="an event stream on stdin as sentences")
    parser.add_argument("--name", action="append", default=[], metavar="N=NAME", help="a player's name")
    parser.add_argument("--face", action="store_true", help="print the renderer's choices as JSON")
    args = parser.parse_args(argv)
    if args.face:
        print(face_json())
        return 0
    try:
        names = Names(parse_names(args.name))
    except ValueError as e:
        print("courtside render: %s" % e, file=sys.stderr)
        return 2
    from courtside_host.link.port import event
    for line in sys.stdin:
        ev = event(line)
        if ev is None:
            continue
        text = sentence(ev, names)
        if text:
            print("%s  %s" % (clock(ev.get("t")), text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
