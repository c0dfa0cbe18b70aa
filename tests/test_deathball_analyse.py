"""``courtside analyse``: the balance report's arithmetic and its bookkeeping."""

import argparse
import contextlib
import io
import json

import pytest
from courtside_host.commands import analyse as cmd_analyse


def test_wilson_interval_matches_the_textbook_figures():
    # 50 of 100: 0.4038-0.5962; 0 of 10: 0-0.2775 (Wilson 1927 score interval, z = 1.96).
    low, high = cmd_analyse.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = cmd_analyse.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)


def test_chi_square_of_equal_seats():
    assert cmd_analyse.chi_square_equal([25, 25, 25, 25]) == 0
    assert cmd_analyse.chi_square_equal([40, 20, 20, 20]) == pytest.approx(12.0)


@pytest.mark.parametrize("players,policy", [(4, "careful"), (3, "random"), (2, "careful")])
def test_every_game_is_counted_once(players, policy):
    r = cmd_analyse.analyse(150, 3, players, policy)
    assert sum(s["wins"] for s in r["seats"]) + r["no_winner"] == 150
    assert sum(s["wins"] for s in r["squares"]) + r["no_winner"] == 150
    assert sum(s["games"] for s in r["squares"]) == 150 * players
    for s in r["seats"] + r["squares"]:
        assert s["low"] <= s["rate"] <= s["high"]


def test_the_same_seed_gives_the_same_report():
    a = cmd_analyse.analyse(100, 9)
    b = cmd_analyse.analyse(100, 9)
    c = cmd_analyse.analyse(100, 10)
    for r in (a, b, c):
        for key in ("seconds", "games_per_second"):
            r.pop(key)
    assert a == b and a != c


def test_careful_players_outlive_random_ones():
    careful = cmd_analyse.analyse(300, 2, 4, "careful")
    reckless = cmd_analyse.analyse(300, 2, 4, "random")
    assert careful["mean_rounds"] > reckless["mean_rounds"]


def test_command_line_json():
    parser = argparse.ArgumentParser()
    cmd_analyse.add_arguments(parser)
    args = parser.parse_args(["--games", "40", "--seed", "5", "--players", "3", "--json"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cmd_analyse.run(args) == 0
    data = json.loads(out.getvalue())
    assert data["games"] == 40 and data["players"] == 3 and len(data["seats"]) == 3
    text = io.StringIO()
    cmd_analyse.report(data, text)
    assert "Player 3" in text.getvalue() and "c1" in text.getvalue()
