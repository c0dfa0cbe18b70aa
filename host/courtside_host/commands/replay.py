"""``courtside replay``: re-judge a saved log, and show where a verdict would differ.

    courtside replay logs/courtside-20261130-190000.jsonl            # must match the board
    courtside replay game.jsonl --tie-us 5000                        # what if the window were 5 ms?
    courtside replay game.jsonl --svg pictures --name 1=Ann          # every contest as a timeline

Every session in the log (one per ``hello``) is replayed through the firmware's own core,
Dodge Ball and Deathball alike (docs/laptop.md#4-replay), as the log is read: each contest
is shown (headed with the settings it was judged with) as soon as both sides have judged
it, and each game's end (a Deathball winner) is compared too. With ``--svg DIR`` every
contest is also drawn as a timeline (``courtside_host.views.timeline``). Records that are not
events are left out and counted, and a session whose ``hello`` cannot be a board's is not
replayed; nothing from the log is printed unescaped.
Exit status: 0 when the replay with the recorded settings gives the board's stream (or
when other settings were asked for), 1 when it does not (a log from other firmware, a
damaged log, a session that could not be replayed), 2 when there is nothing to replay,
the log cannot be read or the command is wrong.
"""

from pathlib import Path

from rich.columns import Columns
from rich.console import Console
from rich.markup import escape

from courtside_host import files, problem
from courtside_host.records import eventlog
from courtside_host.records import replay as rp
from courtside_host.views import monitor, render, timeline


def add_arguments(parser):
    parser.add_argument("log", type=Path, help="a JSON-lines log saved by courtside monitor")
    parser.add_argument("--tie-us", type=int, help="judge with this tie window (us)")
    parser.add_argument("--contest-ms", type=int, help="judge with this contest window (ms)")
    parser.add_argument("--answer-ms", type=int, help="judge with this answer window (ms)")
    parser.add_argument("--all", action="store_true",
                        help="show every contest, not only the first %d that differ" % SHOWN_MAX)
    parser.add_argument("--svg", type=Path, metavar="DIR",
                        help="draw every contest as a timeline, one SVG file each, into DIR")
    parser.add_argument("--name", action="append", default=[], metavar="N=NAME",
                        help="show player N by this name (repeatable)")


SHOWN_MAX = 50     # differing contests shown in full; the rest are counted (--all shows all)


def run(args):
    console = Console(highlight=False)
    try:
        names = render.Names(render.parse_names(args.name))
        files.opened(args.log).close()            # a FIFO, a device, a folder: said now
        skipped = []                              # lines that are not events: (number, start)
        events = eventlog.iterate(args.log, skipped)    # read as it is replayed: any length
    except ValueError as e:
        return problem.report("replay", str(e), problem.UNUSABLE)
    except OSError as e:
        return problem.report("replay", "cannot read %s (%s)" % (args.log, e.strerror or e), problem.UNUSABLE)
    overrides = {k: v for k, v in (("tie_us", args.tie_us), ("contest_ms", args.contest_ms),
                                   ("answer_ms", args.answer_ms)) if v is not None}
    if overrides:
        from courtside import settings as config
        try:
            config.merged(config.DEFAULTS, overrides)
        except ValueError as e:
            return problem.report("replay", str(e), problem.UNUSABLE)
    judging = ", ".join("%s=%s" % (k, v) for k, v in sorted(overrides.items())) or "the recorded settings"

    shown = [0]

    def show(c):                                  # each contest as soon as both sides judged it
        if args.svg:
            _draw(args.svg, c, names)
        if not args.all and (c.same or shown[0] >= SHOWN_MAX):
            return
        shown[0] += 1
        game, number = c.number
        where = "session %d game %d" % (c.session, game) if c.session else "before the first game start"
        title = "%s, %s" % (where, render.contest_heading(c.recorded or c.replayed, c.settings))
        left = monitor.verdict_table(c.recorded, title + ": board", names) if c.recorded else \
            title + ": no verdict on the board"
        right = monitor.verdict_table(c.replayed, "replay (%s)" % judging, names) if c.replayed else \
            "replay: no such contest"
        console.print(Columns([left, right], padding=(0, 4)))
        console.print()

    try:
        report = rp.rejudge(events, overrides, keep=False, on_contest=show)
    except OSError as e:                          # the log while read, or the timelines' folder
        return problem.report("replay", "%s (%s)" % (e.strerror or e, e.filename or args.log),
                              problem.UNUSABLE)
    nothing = _nothing(report, skipped)
    if nothing:
        return problem.report("replay", "nothing to replay in %s: %s" % (args.log, nothing), problem.UNUSABLE)
    if skipped:
        number, start = skipped[0]
        console.print("[yellow]%d lines of the log are not events and were left out (the first, line %d: "
                      "%s)[/]" % (len(skipped), number, escape(repr(start))))
    unshown = report.differing_count - shown[0]
    if not args.all and unshown > 0:
        console.print("[yellow]%d more contests differ, not shown (the first %d are; --all shows every "
                      "contest)[/]" % (unshown, SHOWN_MAX))
    _summary(console, report, names, overrides, judging, args)
    if not overrides and (not report.identical or report.outcome_differing or report.damaged_count):
        return problem.FAILED
    return 0


def _nothing(report, skipped):
    """Why a file holds nothing to replay (not a log, an empty one, a board's start and no
    more), or "" when it holds something."""
    if report.contest_count or report.read_count:
        return ""
    if report.session_count:
        return "it holds the board's start (hello) and no event after it"
    if skipped:
        return "none of its %d lines is an event of the stream (line %d: %r)" % (
            len(skipped), skipped[0][0], skipped[0][1])
    return "it holds no event"


def _summary(console, report, names, overrides, judging, args):
    """What the replay found, after the contests: damage, notes, sessions, ends, counts."""
    if report.damaged_count:
        console.print("[yellow]%d records in the log are not events as the stream has them and "
                      "were left out (the first: %s)[/]" % (report.damaged_count, escape(report.damaged[0])))
    if report.skipped:
        console.print("[yellow]the log starts in the middle of a session: its first %d events, before any "
                      "game start, were re-judged on their own, not replayed through the whole firmware[/]"
                      % report.skipped)
    for note in report.notes:
        console.print("[yellow]%s[/]" % escape(note))
    import courtside
    if report.firmware and report.firmware != courtside.VERSION:
        console.print("[yellow]the log comes from Courtside %s; replaying with %s[/]"
                      % (escape(str(report.firmware)), courtside.VERSION))
    for session in report.sessions:
        for note in session.notes:
            console.print("session %d: %s" % (session.number, escape(note)))
        if session.problem is not None:
            console.print("[bold red]session %d was not replayed[/]: %s"
                          % (session.number, escape(session.problem)))
        if session.difference is not None:
            index, was, now = session.difference
            console.print("[bold red]session %d differs[/] at event %s:\n  board:  %s\n  replay: %s"
                          % (session.number, index, escape(str(was)), escape(str(now))))
        for kind, players in session.unrecorded:
            if kind == "tie":
                console.print("  session %d: a new tie between %s that the log holds no draw for: "
                              "lowest player first" % (session.number,
                                                       ", ".join("P%d" % (q + 1) for q in players)))
            else:
                console.print("  session %d: a roll the log holds no face for: rolled afresh"
                              % session.number)
    for o in report.outcomes:
        if o.recorded is None and o.replayed is None:
            continue
        end = render.sentence(o.recorded, names) if o.recorded else "no end on the board"
        same = "(the board and the replay agree)" if o.same else "[bold red]but the replay says: %s[/]" % (
            escape(render.sentence(o.replayed, names)) if o.replayed else "no end")
        console.print("session %d game %d, %s: %s %s" % (o.session, o.game, escape(render.mode_name(o.mode)),
                                                         escape(end), same))
    more = report.ended_count - len(report.outcomes)
    if more > 0:
        console.print("and %d more games ended, not shown" % more)
    if args.svg:
        console.print("timelines of %d contests in %s" % (report.contest_count, escape(str(args.svg))))
    failed = report.failed_count
    console.print("%d sessions, %d events replayed with %s: %s; %d contests, %s"
                  % (report.session_count, report.event_count, judging,
                     "what if" if overrides else "identical to the log" if report.identical else
                     "%d sessions differ" % failed if failed else "not identical to the log",
                     report.contest_count,
                     "every verdict the same" if not report.differing_count else
                     "%d verdicts differ" % report.differing_count))


def _draw(folder, contest, names):
    verdict = contest.replayed or contest.recorded
    game, number = contest.number
    folder.mkdir(parents=True, exist_ok=True)
    name = "session%d-game%d-contest%d.svg" % (contest.session, game, number)
    title = "%s: %s" % ("session %d game %d" % (contest.session, game) if contest.session else
                        "before the first game start", render.contest_heading(verdict, contest.settings))
    (folder / name).write_text(timeline.draw(verdict, names, title), encoding="utf-8")
