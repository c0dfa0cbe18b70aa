"""The four player colours stay apart for everyone, as every screen draws them.

Each pair is compared in CIELAB (the CIE 1976 colour difference, where about 2.3 is just
noticeable and a few tens reads as another colour at a glance) for normal colour vision
and under a simulation of the two common red-green deficiencies: protanopia and
deuteranopia, with the matrices of Machado, Oliveira and Fernandes (IEEE TVCG 15(6), 2009)
at full severity, applied in linear RGB. The colours are those a screen shows for the
matrix's drive levels (``face.screen_rgb``), the ones the page, the terminal, the monitor
and the SVG timeline draw.
"""

import itertools
import math

import pytest
from courtside.deathball import view
from courtside.display import COLOURS
from courtside_follow import face

MACHADO = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
}
OLD = ((255, 0, 0), (255, 150, 0), (0, 210, 40), (255, 60, 0))   # the palette before, as drawn then


def seen(rgb, vision):
    lin = [face._linear(v / 255) for v in rgb]
    m = MACHADO[vision]
    return [min(max(sum(m[i][j] * lin[j] for j in range(3)), 0.0), 1.0) for i in range(3)]


def lab(lin):
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def delta(a, b, vision):
    return math.dist(lab(seen(a, vision)), lab(seen(b, vision)))


def worst(colours, vision):
    return min(delta(a, b, vision) for a, b in itertools.combinations(colours, 2))


def players():
    return [face.screen_rgb(c) for c in COLOURS]


@pytest.mark.parametrize("vision", sorted(MACHADO))
def test_the_four_player_colours_are_far_apart(vision):
    assert worst(players(), vision) >= 30


@pytest.mark.parametrize("vision", sorted(MACHADO))
def test_a_player_is_never_mistaken_for_a_deathball(vision):
    balls = [face.screen_rgb(c) for c in view.BALL_COLOURS]
    assert min(delta(p, b, vision) for p in players() for b in balls) >= 30


def test_the_old_palette_fails_the_same_check():
    """The check can fail: red, orange and green collapse under a deficiency."""
    assert worst(OLD, "deuteranopia") < 10 and worst(OLD, "protanopia") < 10


def test_every_face_names_and_draws_the_same_colours():
    names = [p["colour"] for p in face.FACE["players"]]
    assert names == ["red", "yellow", "cyan", "blue"]
    assert [p["led"] for p in face.FACE["players"]] == [list(c) for c in COLOURS]
    assert [tuple(p["rgb"]) for p in face.FACE["players"]] == players()
    assert [face.rgb(p) for p in range(1, 5)] == players()
    # a swatch is the matrix's own pixel: a frame lit in one player's colour draws it so
    for p, led in enumerate(COLOURS, 1):
        frame = bytearray(192)
        frame[0:3] = bytes(led)
        assert face.cells(frame)[0] == face.rgb(p)
