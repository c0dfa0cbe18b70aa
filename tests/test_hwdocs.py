"""The hardware documents are generated from the pin map and the power figures, and the
committed copies equal what the generator makes of the committed map."""

import argparse
import io
import json
import re
import shutil
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "host"))

from courtside import pinmap, power
from courtside_host.commands import pins as cmd_pins
from courtside_host.hwdocs import documents as hwdocs

HARDWARE = ROOT / "hardware"
MAPS = [HARDWARE / "pinmap.json", *sorted((HARDWARE / "variants").glob("*.json"))]


def _cli(*argv):
    parser = argparse.ArgumentParser()
    cmd_pins.add_arguments(parser)
    return cmd_pins.run(parser.parse_args([str(a) for a in argv]))


def test_committed_documents_match_the_map():
    assert hwdocs.stale() == [], "run `courtside pins docs` and commit the result"


def test_edge_pins_of_the_pico():
    assert len(hwdocs.EDGE_PINS) == 40
    gpios = [n for n in hwdocs.EDGE_PINS if n.startswith("GP")]
    assert sorted(int(n[2:]) for n in gpios) == sorted(pinmap.BOARDS["pico"])
    assert hwdocs.EDGE_PINS.count("GND") == 7 and "AGND" in hwdocs.EDGE_PINS
    assert [hwdocs.physical_pin(g) for g in (0, 2, 15, 16, 22, 26, 28)] == [1, 4, 20, 21, 29, 31, 34]
    assert hwdocs.EDGE_PINS[39] == "VBUS" and hwdocs.EDGE_PINS[35] == "3V3(OUT)"


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_table_lists_every_pin_of_the_map(path):
    data = json.loads(path.read_text())
    table = hwdocs.pin_table(data)
    pins = pinmap.PinMap(data)
    rows = re.findall(r"^\| GP(\d+) \| (\d+) \| ([^|]+) \|", table, re.M)
    used = {int(g): (int(p), what.strip()) for g, p, what in rows}
    assert set(used) == set(pins.button_gpio) | set(pins.leds) | {pins.buzzer, pins.matrix_pin}
    for bid, gpio in enumerate(pins.button_gpio):
        assert used[gpio][1].startswith(pins.label(bid).replace("main button", "main-unit button"))
        assert used[gpio][0] == hwdocs.physical_pin(gpio)
    for contact, carried in data["cable"]["pins"].items():
        assert re.search(r"^\| %s \| [a-z/]+ \| %s \|" % (contact, carried), table, re.M)


@pytest.mark.parametrize("path", MAPS, ids=[p.stem for p in MAPS])
def test_wiring_picture_shows_the_map(path):
    data = json.loads(path.read_text())
    svg = hwdocs.wiring_svg(data)
    assert svg == hwdocs.wiring_svg(data)  # deterministic
    root = ET.fromstring(svg)
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    pins = pinmap.PinMap(data)
    for i in range(pins.boxes):
        assert "Box %d" % (i + 1) in texts
        for b in pinmap.BUTTONS:
            assert "GP%d" % data["boxes"][i]["buttons"][b] in texts
        assert "GP%d" % pins.leds[i] in texts
    assert "Box %d" % (pins.boxes + 1) not in texts
    assert "GP%d" % pins.matrix_pin in texts and "GP%d" % pins.buzzer in texts
    assert "GP%d" % pins.button_gpio[pins.main_id] in texts
    assert any(t.startswith("main-unit button") for t in texts)


def test_power_document_uses_the_firmware_figures(monkeypatch):
    doc = hwdocs.power_doc()
    assert "**left for the matrix** | **%d**" % power.MATRIX_BUDGET_MA in doc
    assert "| Pico (RP2040 at 125 MHz, USB active) | %d |" % power.PICO_MA in doc
    capped = re.search(r"\*\*(\d+) mA\*\* for the unit, (\d+) mA with the margin", doc)
    assert int(capped.group(2)) <= power.USB_MA
    # a change to the firmware's figures changes the document
    monkeypatch.setattr(power, "PICO_MA", power.PICO_MA + 7)
    assert hwdocs.power_doc() != doc


def test_pins_check_command(tmp_path, capsys):
    assert _cli("check", *MAPS) == 0
    assert capsys.readouterr().out.count(": good:") == len(MAPS)
    bad = json.loads((HARDWARE / "pinmap.json").read_text())
    bad["boxes"][1]["buttons"]["PASS"] = 25
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "broken.json").write_text("{\"format\": 1,,}")
    assert _cli("check", tmp_path / "bad.json", tmp_path / "broken.json", tmp_path / "absent.json") == 1
    seen = capsys.readouterr()
    out, err = seen.out, seen.err                     # what is wrong goes to stderr
    assert "bad.json: box 2 PASS: GP25 is not a pull-up-capable input" in err
    assert "broken.json: not valid JSON" in err
    assert "absent.json: cannot read it" in err and "cannot read" not in out
    # in the form every command says a problem in (courtside_host.problem)
    assert err and all(line.startswith("courtside pins check: ") for line in err.splitlines())


def test_pins_check_prints_advice(tmp_path, capsys):
    data = json.loads((HARDWARE / "pinmap.json").read_text())
    data["main_button"] = 26
    (tmp_path / "m.json").write_text(json.dumps(data))
    assert _cli("check", tmp_path / "m.json") == 0
    assert "note: buttons are not on one run" in capsys.readouterr().out


def test_pins_docs_command_rewrites_stale_documents(tmp_path, capsys):
    hw = tmp_path / "hardware"
    (hw / "variants").mkdir(parents=True)
    shutil.copy(HARDWARE / "pinmap.json", hw / "pinmap.json")
    shutil.copy(HARDWARE / "variants" / "two_boxes.json", hw / "variants" / "two_boxes.json")
    for name in hwdocs.outputs():
        shutil.copy(HARDWARE / name, hw / name)
    assert _cli("docs", "--check", "--hardware", hw) == 0
    data = json.loads((hw / "pinmap.json").read_text())
    data["buzzer"], data["matrix"]["pin"] = data["matrix"]["pin"], data["buzzer"]
    (hw / "pinmap.json").write_text(json.dumps(data))
    assert _cli("docs", "--check", "--hardware", hw) == 1
    out = capsys.readouterr().out
    for name in ("pins.md", "wiring.svg", "main-unit-layout.svg", "checklist.md"):
        assert "%s is out of date" % (hw / name) in out
    assert "box-panel.svg" not in out and "power.md" not in out and "two_boxes" not in out
    assert _cli("docs", "--hardware", hw) == 0
    assert _cli("docs", "--check", "--hardware", hw) == 0
    assert "| GP21 | 27 | matrix data in |" in (hw / "pins.md").read_text()
    for name in ("wiring.svg", "main-unit-layout.svg"):   # the matrix wire now lands on pin 27
        assert re.search(r'data-net="GP21" data-pin="27"', (hw / name).read_text())
    assert "Pico socket pin 27 (GP21)" in (hw / "checklist.md").read_text()


def test_variant_documents_are_drawn_on_demand(tmp_path, capsys):
    """The repository carries the default map's documents only; a variant's are drawn
    from its map when asked for, and differ from the default's where the map does."""
    assert not [p for p in (HARDWARE / "variants").iterdir() if p.is_dir()], "no committed near-copies"
    assert all(not name.startswith("variants/") for name in hwdocs.outputs())
    two = HARDWARE / "variants" / "two_boxes.json"
    assert _cli("docs", "--map", two, "-o", tmp_path / "two") == 0
    assert "wrote pins.md" in capsys.readouterr().out
    written = sorted(p.name for p in (tmp_path / "two").iterdir())
    assert written == sorted(hwdocs.map_outputs(json.loads(two.read_text()), str(two)))
    wiring = (tmp_path / "two" / "wiring.svg").read_text()
    assert "Box 2" in wiring and "Box 3" not in wiring
    assert 'data-net="GP8" data-pin="11"' in wiring        # the two-box build's main button
    assert _cli("docs", "--map", two) == 2                  # -o is needed
    bad = json.loads(two.read_text())
    bad["buzzer"] = 25
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert _cli("docs", "--map", tmp_path / "bad.json", "-o", tmp_path / "bad") == 1
    assert not (tmp_path / "bad").exists()


def test_pins_table_and_svg_commands(tmp_path, capsys):
    two = HARDWARE / "variants" / "two_boxes.json"
    assert _cli("table", two) == 0
    assert "| GP8 | 11 | main-unit button" in capsys.readouterr().out
    assert _cli("svg", two, "-o", tmp_path / "two.svg") == 0
    ET.parse(tmp_path / "two.svg")
    stream = io.StringIO()
    assert cmd_pins.check_file(two, stream) and "2 boxes, 9 buttons" in stream.getvalue()


def _kohm(text):
    value = float(text.split()[0])
    return value * (1000 if "k" in text else 1)


def test_build_guide_figures_follow_from_the_part_values():
    """The RC, pull-up and LED figures quoted in the guide, recomputed from the parts."""
    import math

    from courtside import settings

    guide = (HARDWARE / "README.md").read_text()
    r_pull, r_series = _kohm(hwdocs.PULL_UP), _kohm(hwdocs.SERIES)
    c = float(hwdocs.FILTER_C.split()[0]) * 1e-9
    tau_us = r_series * c * 1e6
    assert "= %.0f µs" % tau_us in guide
    fastest = tau_us * math.log(3.3 / 2.0)   # threshold at VIH min
    slowest = tau_us * math.log(3.3 / 0.8)   # threshold at VIL max
    assert "between **%.1f µs and %.1f µs**" % (fastest, slowest) in guide
    spread = 0.01 + 0.05                     # 1 % resistor, 5 % C0G capacitor
    assert "at most **%.1f µs**" % (2 * spread * slowest) in guide
    assert "(%.1f µs with 10 %% X7R" % (2 * 0.11 * slowest) in guide
    rise_us = (r_pull + r_series) * c * 1e6
    assert "(time constant %.0f µs)" % rise_us in guide
    assert "after about **%.0f µs**" % (rise_us * math.log(3.3 / (3.3 - 2.0))) in guide
    assert "contact closes" in guide and "%.2f mA" % (3.3 / r_pull * 1000) in guide
    held = 17 * 3.3 / r_pull * 1000
    assert round(held) == power.PULL_UP_MA
    assert re.search(r"cost only\s+%d mA" % power.PULL_UP_MA, guide)
    assert "(%d µs by default" % settings.DEFAULTS["tie_us"] in guide
    assert 2 * spread * slowest * 100 < settings.DEFAULTS["tie_us"]  # bias far inside a tie
    led_ma = (3.3 - 2.0) / _kohm(hwdocs.LED_R) * 1000
    assert "**%.1f mA**" % led_ma in guide and led_ma <= power.BOX_LED_MA
    for value in (hwdocs.PULL_UP, hwdocs.SERIES, hwdocs.FILTER_C, hwdocs.LED_R):
        assert value in guide and value in (HARDWARE / "bom.md").read_text().replace(" kΩ, 1 %", " kΩ")


def test_hardware_links_resolve():
    for doc in [HARDWARE / "README.md", HARDWARE / "bom.md", ROOT / "docs" / "hardware.md"]:
        for target in re.findall(r"\]\(([^)#]+)", doc.read_text()):
            if "://" not in target:
                assert (doc.parent / target).exists(), "%s links to missing %s" % (doc.name, target)
