"""The pin map: the committed maps are valid, and bad maps are refused with a reason.

The message for each kind of mistake is pinned down by the shared vectors
(tests/vectors/pinmap, run on both runtimes); these tests cover the committed files and
properties over many generated maps.
"""

import copy
import json

import pytest
from conftest import ROOT
from courtside import pinmap
from hypothesis import given, settings
from hypothesis import strategies as st

HARDWARE = ROOT / "hardware"
MAPS = [HARDWARE / "pinmap.json", *sorted((HARDWARE / "variants").glob("*.json"))]
USABLE = list(range(23)) + [26, 27, 28]


def _default():
    return json.loads((HARDWARE / "pinmap.json").read_text())


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_committed_maps_are_valid_and_pio_ready(path):
    data = json.loads(path.read_text())
    assert pinmap.check(data) == []
    assert pinmap.advice(data) == []
    pins = pinmap.load(str(path))
    assert pins.pio_base == 0
    assert pins.main_id == 4 * pins.boxes
    assert pins.button_gpio[pins.main_id] == data["main_button"]


def test_the_required_variants_exist():
    names = {p.stem for p in MAPS}
    assert {"pinmap", "pico_w", "pico2", "two_boxes"} <= names
    boards = {json.loads(p.read_text())["board"] for p in MAPS}
    assert {"pico", "pico_w", "pico2"} <= boards


@pytest.mark.parametrize("variant", ["pico_w", "pico2"])
def test_board_variants_wire_the_same_pins(variant):
    """Swapping the board must not mean rewiring: only the board and name differ."""
    data = json.loads((HARDWARE / "variants" / (variant + ".json")).read_text())
    base = _default()
    for key in ("board", "name"):
        data.pop(key)
        base.pop(key)
    assert data == base


def test_two_box_build():
    pins = pinmap.load(str(HARDWARE / "variants" / "two_boxes.json"))
    assert pins.boxes == 2
    assert pins.button_gpio == tuple(range(9))
    assert pins.button_mask == 0x1FF
    assert pins.label(8) == "main button"
    assert pins.label(6) == "box 2 CATCH"


def test_default_map_numbers():
    pins = pinmap.PinMap(_default())
    assert pins.button_gpio == tuple(range(17))
    assert pins.button_mask == (1 << 17) - 1
    assert pins.leds == (17, 18, 19, 20)
    assert (pins.buzzer, pins.matrix_pin, pins.grb, pins.serpentine) == (21, 22, True, False)
    assert [pins.label(i) for i in (0, 5, 10, 15)] == ["box 1 THROW", "box 2 DODGE", "box 3 CATCH",
                                                      "box 4 PASS"]


def test_error_lists_every_problem(tmp_path):
    data = _default()
    data["buzzer"] = 25
    data["boxes"][0]["led"] = 0
    with pytest.raises(pinmap.PinMapError) as err:
        pinmap.PinMap(data)
    assert len(err.value.problems) == 2
    assert "GP25 is reserved" in str(err.value)
    assert "box 1 led: GP0 is already used by box 1 THROW" in str(err.value)


def test_malformed_file_is_a_pin_map_error(tmp_path):
    path = tmp_path / "pinmap.json"
    path.write_text('{"format": 1, "board": "pico",\n  "boxes": [}')
    with pytest.raises(pinmap.PinMapError) as err:
        pinmap.load(str(path))
    assert err.value.problems[0].startswith("not valid JSON (")
    assert err.value.problems[0] == "not valid JSON (line 2 column 13)"   # where, on every runtime


def test_a_pin_without_pull_up_is_refused_for_buttons_only(monkeypatch):
    """A board whose table lacks a pull-up on GP28: a button there is refused, an LED is not."""
    monkeypatch.setitem(pinmap.PULL_UP, "pico", tuple(g for g in USABLE if g != 28))
    data = _default()
    data["boxes"][1]["buttons"]["DODGE"] = 28
    assert pinmap.check(data) == [
        "box 2 DODGE: GP28 is not a pull-up-capable input for a button on the pico "
        "(it has no internal pull-up on this board)"]
    data = _default()
    data["boxes"][1]["led"] = 28
    assert pinmap.check(data) == []


@st.composite
def wired_maps(draw):
    """A map for 1 to 4 boxes with every role on a distinct usable GPIO."""
    boxes = draw(st.integers(1, 4))
    needed = 5 * boxes + 3
    pins = draw(st.permutations(USABLE))[:needed]
    it = iter(pins)
    data = {"format": 1, "board": draw(st.sampled_from(sorted(pinmap.BOARDS))), "boxes": []}
    for _ in range(boxes):
        data["boxes"].append({"buttons": {b: next(it) for b in pinmap.BUTTONS}, "led": next(it)})
    data["main_button"] = next(it)
    data["buzzer"] = next(it)
    data["matrix"] = {"pin": next(it)}
    return data


@settings(max_examples=150, deadline=None)
@given(wired_maps())
def test_any_distinct_assignment_is_valid(data):
    assert pinmap.check(data) == []
    pins = pinmap.PinMap(data)
    assert bin(pins.button_mask).count("1") == 4 * pins.boxes + 1
    contiguous = sorted(pins.button_gpio) == list(pins.button_gpio) and \
        pins.button_gpio[-1] - pins.button_gpio[0] == pins.main_id
    assert (pins.pio_base is not None) == contiguous
    assert (pinmap.advice(data) == []) == contiguous


@settings(max_examples=150, deadline=None)
@given(wired_maps(), st.data())
def test_any_pin_used_twice_is_named(data, pick):
    roles = [("boxes", i, "buttons", b) for i in range(len(data["boxes"])) for b in pinmap.BUTTONS]
    roles += [("boxes", i, "led") for i in range(len(data["boxes"]))]
    roles += [("main_button",), ("buzzer",), ("matrix", "pin")]
    a, b = pick.draw(st.lists(st.sampled_from(roles), min_size=2, max_size=2, unique=True))
    bad = copy.deepcopy(data)

    def at(path):
        node = bad
        for key in path[:-1]:
            node = node[key]
        return node, path[-1]

    node, key = at(a)
    pin = node[key]
    node, key = at(b)
    node[key] = pin
    problems = pinmap.check(bad)
    assert len(problems) == 1
    assert "GP%d is already used by" % pin in problems[0]


@pytest.mark.parametrize("pin", [23, 24, 25, 29])
@pytest.mark.parametrize("board", sorted(pinmap.BOARDS))
def test_board_pins_are_refused_on_every_board(board, pin):
    data = _default()
    data["board"] = board
    data["buzzer"] = pin
    [problem] = pinmap.check(data)
    assert problem.startswith("buzzer: GP%d is reserved on the %s" % (pin, board))
    data = _default()
    data["board"] = board
    data["boxes"][0]["buttons"]["PASS"] = pin
    [problem] = pinmap.check(data)
    assert "not a pull-up-capable input" in problem
