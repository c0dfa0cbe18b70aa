"""Doctor on the virtual Pico: versions, pin map and the firmware's answer."""

import pytest
from courtside_host import cli
from courtside_host import deploy as dep
from courtside_host.vpico import VirtualPico


@pytest.fixture
def pico(tmp_path):
    with VirtualPico(tmp_path / "flash") as p:
        yield p


def test_doctor_reports_a_healthy_board(pico, capsys):
    dep.deploy(pico.port, ping=False)
    status = cli.main(["doctor", "--port", pico.port])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MicroPython: 1.29.0" in out and "Courtside on the board: %s" % dep.local_version() in out
    assert "sound, same as the laptop's" in out and "firmware answers ping" in out
    assert "all in order" in out


def test_doctor_finds_a_bad_pin_map_and_old_firmware(pico, capsys):
    dep.deploy(pico.port, ping=False)
    pins = pico.flash / "pinmap.json"
    pins.write_text(pins.read_text().replace('"buzzer": 21', '"buzzer": 25'))
    (pico.flash / "courtside" / "__init__.mpy").unlink()
    (pico.flash / "courtside" / "__init__.py").write_text('VERSION = "0.0.1"\n')
    status = cli.main(["doctor", "--port", pico.port, "--no-ping"])
    out = capsys.readouterr().out
    assert status == 1
    assert "0.0.1, this repository has %s" % dep.local_version() in out
    assert "GP25 is reserved" in out
    assert "2 problem(s)" in out


def test_doctor_without_a_board_says_so(tmp_path, capsys):
    assert cli.main(["doctor", "--port", str(tmp_path / "nothing")]) == 1
    assert "no serial port" in capsys.readouterr().out
