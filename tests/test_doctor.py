"""Doctor on the virtual Pico: versions, pin map and the firmware's answer."""

import re

from conftest import ROOT
from courtside_host import cli
from courtside_host.link import deploy as dep


def test_doctor_reports_a_healthy_board(vpico, capsys):
    dep.deploy(vpico.port, ping=False)
    status = cli.main(["doctor", "--port", vpico.port])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MicroPython: 1.29.0" in out and "Courtside on the board: %s" % dep.local_version() in out
    assert "sound, same as the laptop's" in out and "firmware answers ping" in out
    assert "all in order" in out
    # docs/laptop.md's example, from a Pico on USB, has the same lines in the same order,
    # each with the same words up to its first colon; only the USB line needs a real port
    doc = (ROOT / "docs" / "laptop.md").read_text()
    example = re.search(r"## 5\. Doctor.*?Example output:\n\n```\n(.*?)```", doc, re.S).group(1)
    heads = [line.split(":")[0] for line in example.splitlines() if not line.startswith("ok       Pico on ")]
    assert heads == [line.split(":")[0] for line in out.replace(str(ROOT) + "/", "").splitlines()]


def test_doctor_finds_a_bad_pin_map_and_old_firmware(vpico, capsys):
    dep.deploy(vpico.port, ping=False)
    pins = vpico.flash / "pinmap.json"
    pins.write_text(pins.read_text().replace('"buzzer": 21', '"buzzer": 25'))
    (vpico.flash / "courtside" / "__init__.mpy").unlink()
    (vpico.flash / "courtside" / "__init__.py").write_text('VERSION = "0.0.1"\n')
    status = cli.main(["doctor", "--port", vpico.port, "--no-ping"])
    out = capsys.readouterr().out
    assert status == 1
    assert "0.0.1, this repository has %s" % dep.local_version() in out
    assert "GP25 is reserved" in out
    assert "2 problem(s)" in out


def test_doctor_without_a_board_says_so(tmp_path, capsys):
    assert cli.main(["doctor", "--port", str(tmp_path / "nothing")]) == 1
    assert "no serial port" in capsys.readouterr().out


def test_doctor_never_breaks_a_path_inside(tmp_path):
    """On a narrow terminal a long path stays whole on its line (the terminal wraps it), so
    it can be copied; only the words around it may wrap."""
    import subprocess
    import sys
    deep = tmp_path / ("a-folder-with-a-long-name-" * 3) / "pinmap.json"
    deep.parent.mkdir(parents=True)
    deep.write_text((ROOT / "hardware" / "pinmap.json").read_text())
    run = subprocess.run([sys.executable, "-m", "courtside_host.cli", "doctor", "--pins", str(deep),
                          "--port", str(tmp_path / "nothing")], capture_output=True, text=True,
                         timeout=60, check=False, env={"COLUMNS": "40", "PATH": ""})
    assert len(str(deep)) > 40 and str(deep) in run.stdout.splitlines()[0], run.stdout
