# Runs on CPython and on the MicroPython unix port: each stream file's lines read and
# checked by courtside_follow.schema and fed to a courtside_follow.follower.Follower;
# prints one JSON line per line read: the schema's problem (or null), then what the
# follower knows after it. tests/test_follow.py compares the two runtimes' output.
# argv: the firmware folder, then stream files.
import json
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/../common")

from courtside_follow.follower import Follower


def answers(f):
    contest = f.contest
    verdict = f.verdict
    board = f.chessboard
    return [f.mode, f.phase, f.players, f.turn, f.waiting, f.busy,
            None if contest is None else [contest["c"], len(contest["presses"])],
            None if verdict is None else [verdict["c"], len(verdict["ties"])],
            f.winner, f.over, f.together, f.settings["tie_us"], f.can_save,
            None if board is None else board.position()]


def main(paths):
    for path in paths:
        f = Follower()
        with open(path) as lines:
            for line in lines:
                got = f.feed_line(line)
                if got is None:
                    print(json.dumps(["not an event"]))
                else:
                    print(json.dumps([got[1]] + answers(f)))


main(sys.argv[2:])
