"""``courtside analyse``: a Deathball balance check by many automatic games.

Plays ``--games`` whole games on the firmware's own engine with simple automatic players,
from ``--seed`` (the same seed gives the same report), and reports how often each seat
(Player One to Four, in turn order) and each set-up square (c1 to f1) wins, with 95%
Wilson score intervals, and a chi-square test of "every seat wins equally often".

Automatic players set up on a random free centre square and then move by a policy:

    random   any legal move, walking into a deathball included
    careful  never walks into a deathball if it can help it, pushes others into one when it
             can, and keeps off the squares the deathballs will cross before their next bounce

    courtside analyse --games 20000 --seed 1
    courtside analyse --games 5000 --players 3 --policy random --json
"""

import json
import math
import sys
import time

from courtside.deathball import rules
from courtside.deathball.die import Dice
from courtside.deathball.engine import OVER, PLAY, SETUP, Game
from courtside.fair import Fair, seeded

from courtside_host import problem

Z95 = 1.959964  # two-sided 95% normal quantile
# Upper 5% points of chi-square for 1..3 degrees of freedom (NIST/SEMATECH e-Handbook,
# section 1.3.6.7.4): the bound for "seats differ" with 2, 3 or 4 players.
CHI2_05 = {1: 3.841, 2: 5.991, 3: 7.815}
SQUARES = ("c1", "d1", "e1", "f1")
MAX_ROUNDS = 10000


def wilson(wins, n, z=Z95):
    """The Wilson score interval (low, high) for a proportion ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def chi_square_equal(counts):
    total = sum(counts)
    if not total:
        return 0.0
    expected = total / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def ball_paths(game):
    """Squares each deathball will surely cross before its next bounce this run."""
    lo, hi = rules.border_bounds(game.border)
    danger = set()
    for square, (dx, dy) in zip(game.balls, game.headings):
        x, y = square & 7, square >> 3
        for _ in range(rules.BALL_STEPS):
            x += dx
            y += dy
            if not (lo <= x <= hi and lo <= y <= hi):
                break
            danger.add(y * 8 + x)
    return danger


def careful_move(game, box, chooser):
    danger = ball_paths(game)
    best = None
    choices = []
    for first, second in game.legal_moves(box):
        _, end, killed = game.preview(box, first, second)
        score = 10 * killed
        if end is None:
            score -= 100
        elif end in danger:
            score -= 5
        if best is None or score > best:
            best = score
            choices = [(first, second)]
        elif score == best:
            choices.append((first, second))
    return choices[chooser.below(len(choices))]


def random_move(game, box, chooser):
    legal = game.legal_moves(box)
    return legal[chooser.below(len(legal))]


POLICIES = {"careful": careful_move, "random": random_move}


def play(seed, players, policy):
    """One game; returns (winner box or None, turn order, box -> set-up square, rounds)."""
    game = Game(players, Dice(Fair(seeded(seed))))
    chooser = Fair(seeded(seed * 7919 + 17))
    game.initiative()
    setup = {}
    while game.phase == SETUP:
        free = game.free_setup_squares()
        square = free[chooser.below(len(free))]
        setup[game.turn] = SQUARES[rules.SETUP_SQUARES.index(square)]
        game.setup(game.turn, square)
    choose = POLICIES[policy]
    while game.phase == PLAY and game.round < MAX_ROUNDS:
        box = game.turn
        first, second = choose(game, box, chooser)
        game.move(box, first, second)
        game.events = []
    if game.phase != OVER:
        raise RuntimeError("game from seed %d did not end in %d rounds" % (seed, MAX_ROUNDS))
    return game.winner, game.order, setup, game.round


def analyse(games, seed, players=4, policy="careful"):
    boxes = list(range(players))
    seat_wins = [0] * players
    square_wins = {s: 0 for s in SQUARES}
    square_games = {s: 0 for s in SQUARES}
    no_winner = 0
    rounds = 0
    started = time.perf_counter()
    for i in range(games):
        winner, order, setup, n = play(seed * 1000003 + i, boxes, policy)
        rounds += n
        for box in order:
            square_games[setup[box]] += 1
        if winner is None:
            no_winner += 1
            continue
        seat_wins[order.index(winner)] += 1
        square_wins[setup[winner]] += 1
    seconds = time.perf_counter() - started
    seats = []
    for s in range(players):
        low, high = wilson(seat_wins[s], games)
        seats.append({"seat": s + 1, "wins": seat_wins[s], "rate": seat_wins[s] / games,
                      "low": low, "high": high})
    squares = []
    for name in SQUARES:
        n = square_games[name]
        low, high = wilson(square_wins[name], n)
        squares.append({"square": name, "games": n, "wins": square_wins[name],
                        "rate": square_wins[name] / n if n else 0.0, "low": low, "high": high})
    chi2 = chi_square_equal(seat_wins)
    return {"games": games, "seed": seed, "players": players, "policy": policy,
            "no_winner": no_winner, "no_winner_low": wilson(no_winner, games)[0],
            "no_winner_high": wilson(no_winner, games)[1],
            "mean_rounds": rounds / games if games else 0.0,
            "seats": seats, "squares": squares,
            "seat_chi2": chi2, "seat_chi2_bound": CHI2_05[players - 1],
            "seats_differ": chi2 > CHI2_05[players - 1],
            "seconds": seconds, "games_per_second": games / seconds if seconds else 0.0}


def report(r, out):
    pct = "%5.1f%%  (%4.1f-%4.1f%%)"
    out.write("Deathball balance: %d games, %d players, %s players, seed %d\n"
              % (r["games"], r["players"], r["policy"], r["seed"]))
    out.write("mean rounds per game %.1f; %.1f games/s\n\n" % (r["mean_rounds"], r["games_per_second"]))
    out.write("win rate by seat (turn order), 95%% Wilson interval; fair share %.1f%%\n"
              % (100.0 / r["players"]))
    for s in r["seats"]:
        out.write("  Player %d   " % s["seat"] + pct % (100 * s["rate"], 100 * s["low"], 100 * s["high"])
                  + "  %d wins\n" % s["wins"])
    out.write("  no winner  " + pct % (100 * r["no_winner"] / r["games"], 100 * r["no_winner_low"],
                                       100 * r["no_winner_high"]) + "  %d games\n" % r["no_winner"])
    out.write("  chi-square for equal seats %.2f (5%% bound %.3f): %s\n\n"
              % (r["seat_chi2"], r["seat_chi2_bound"],
                 "the seats differ" if r["seats_differ"] else "no evidence the seats differ"))
    out.write("win rate by set-up square (of the games a player started there)\n")
    for s in r["squares"]:
        out.write("  %s         " % s["square"] + pct % (100 * s["rate"], 100 * s["low"], 100 * s["high"])
                  + "  %d of %d\n" % (s["wins"], s["games"]))


def add_arguments(parser):
    parser.add_argument("--games", type=int, default=10000, help="games to play (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="seed for dice and players (default 1)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    parser.add_argument("--policy", choices=sorted(POLICIES), default="careful",
                        help="how the automatic players move (default careful)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args):
    if args.games < 1:
        return problem.report("analyse", "--games must be at least 1", problem.UNUSABLE)
    result = analyse(args.games, args.seed, args.players, args.policy)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        report(result, sys.stdout)
    return 0
