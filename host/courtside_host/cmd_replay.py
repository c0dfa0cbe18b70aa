"""``courtside replay``: re-judge a saved log, and show where a verdict would differ.

    courtside replay logs/courtside-20261130-190000.jsonl            # must match the board
    courtside replay game.jsonl --tie-us 5000                        # what if the window were 5 ms?

Exit status: 0 when the replay with the recorded settings gives the board's verdicts (or
when other settings were asked for), 1 when it does not (a log from other firmware, or a
damaged log), 2 when the log holds no Dodge Ball game.
"""

from pathlib import Path

from rich.columns import Columns
from rich.console import Console

from courtside_host import eventlog, monitor
from courtside_host import replay as rp


def add_arguments(parser):
    parser.add_argument("log", type=Path, help="a JSON-lines log saved by courtside monitor")
    parser.add_argument("--tie-us", type=int, help="judge with this tie window (us)")
    parser.add_argument("--contest-ms", type=int, help="judge with this contest window (ms)")
    parser.add_argument("--answer-ms", type=int, help="judge with this answer window (ms)")
    parser.add_argument("--all", action="store_true", help="show every contest, not only differences")


def run(args):
    console = Console(highlight=False)
    try:
        events = eventlog.read(args.log)
    except OSError as e:
        console.print("[bold red]replay:[/] %s" % e)
        return 1
    overrides = {k: v for k, v in (("tie_us", args.tie_us), ("contest_ms", args.contest_ms),
                                   ("answer_ms", args.answer_ms)) if v is not None}
    if overrides:
        from courtside import settings as config
        try:
            config.merged(config.DEFAULTS, overrides)
        except ValueError as e:
            console.print("[bold red]replay:[/] %s" % e)
            return 1
    report = rp.rejudge(events, overrides)
    if not report.games:
        console.print("no Dodge Ball game in %s" % args.log)
        return 2
    import courtside
    if report.firmware and report.firmware != courtside.VERSION:
        console.print("[yellow]the log comes from Courtside %s; judging with %s[/]"
                      % (report.firmware, courtside.VERSION))
    judging = ", ".join("%s=%s" % (k, report.settings[k]) for k in rp.JUDGING)
    differing = report.differing()
    for c in report.contests:
        if c.same and not args.all:
            continue
        left = monitor.verdict_table(c.recorded, "game %d contest %d: board" % (c.game, c.number)) \
            if c.recorded else "game %d contest %d: no verdict on the board" % (c.game, c.number)
        right = monitor.verdict_table(c.replayed, "replay (%s)" % judging) \
            if c.replayed else "replay: no such contest"
        console.print(Columns([left, right], padding=(0, 4)))
        for n, was, now in c.early:
            console.print("  press #%d: early %s on the board, %s in the replay" % (n, was, now))
        console.print()
    for game, c, players in report.unrecorded:
        console.print("  game %d contest %d: new tie between %s (no draw recorded; lowest player "
                      "first)" % (game, c, ", ".join("P%d" % (q + 1) for q in players)))
    console.print("%d games, %d presses, %d contests re-judged with %s: %s"
                  % (report.games, report.presses, len(report.contests), judging,
                     "every verdict the same" if not differing else
                     "%d verdicts differ" % len(differing)))
    if differing and not overrides:
        return 1
    return 0
