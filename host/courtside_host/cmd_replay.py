"""``courtside replay``: re-judge a saved log, and show where a verdict would differ.

    courtside replay logs/courtside-20261130-190000.jsonl            # must match the board
    courtside replay game.jsonl --tie-us 5000                        # what if the window were 5 ms?

Every session in the log (one per ``hello``) is replayed through the firmware's own core,
Dodge Ball and Deathball alike (docs/laptop.md#replay). Exit status: 0 when the replay
with the recorded settings gives the board's stream (or when other settings were asked
for), 1 when it does not (a log from other firmware, or a damaged log), 2 when there is
nothing to replay or the command is wrong.
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
        return 2
    overrides = {k: v for k, v in (("tie_us", args.tie_us), ("contest_ms", args.contest_ms),
                                   ("answer_ms", args.answer_ms)) if v is not None}
    if overrides:
        from courtside import settings as config
        try:
            config.merged(config.DEFAULTS, overrides)
        except ValueError as e:
            console.print("[bold red]replay:[/] %s" % e)
            return 2
    report = rp.rejudge(events, overrides)
    if report.skipped:
        console.print("[yellow]%d events before the first hello were not replayed (the log "
                      "starts in the middle of a session)[/]" % report.skipped)
    if not report.sessions:
        console.print("nothing to replay in %s: no session starts in it" % args.log)
        return 2
    import courtside
    if report.firmware and report.firmware != courtside.VERSION:
        console.print("[yellow]the log comes from Courtside %s; replaying with %s[/]"
                      % (report.firmware, courtside.VERSION))
    for session in report.sessions:
        for note in session.notes:
            console.print("session %d: %s" % (session.number, note))
        if session.difference is not None:
            index, was, now = session.difference
            console.print("[bold red]session %d differs[/] at event %s:\n  board:  %s\n  replay: %s"
                          % (session.number, index, was, now))
        for kind, players in session.unrecorded:
            if kind == "tie":
                console.print("  session %d: a new tie between %s that the log holds no draw for: "
                              "lowest player first" % (session.number,
                                                       ", ".join("P%d" % (q + 1) for q in players)))
            else:
                console.print("  session %d: a roll the log holds no face for: rolled afresh"
                              % session.number)
    judging = ", ".join("%s=%s" % (k, v) for k, v in sorted(overrides.items())) or "the recorded settings"
    differing = report.differing()
    for c in report.contests:
        if c.same and not args.all:
            continue
        game, number = c.number
        title = "session %d game %d contest %d" % (c.session, game, number)
        left = monitor.verdict_table(c.recorded, title + ": board") if c.recorded else \
            title + ": no verdict on the board"
        right = monitor.verdict_table(c.replayed, "replay (%s)" % judging) if c.replayed else \
            "replay: no such contest"
        console.print(Columns([left, right], padding=(0, 4)))
        console.print()
    events_replayed = sum(len(s.replayed) for s in report.sessions)
    console.print("%d sessions, %d events replayed with %s: %s; %d contests, %s"
                  % (len(report.sessions), events_replayed, judging,
                     "identical to the log" if report.identical else
                     "%d sessions differ" % len(report.differences) if not overrides else "what if",
                     len(report.contests),
                     "every verdict the same" if not differing else "%d verdicts differ" % len(differing)))
    if not overrides and not report.identical:
        return 1
    return 0
