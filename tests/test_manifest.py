"""Package boundaries: the manifest says what a board gets, mip can install it, and the
simulator never goes to a board."""

import json
import subprocess
import sys

import courtside
import pytest
from conftest import FIRMWARE
from courtside_host.link import deploy as dep
from courtside_host.link import manifest
from courtside_host.link.port import connect
from courtside_host.vpico.runner import VirtualPico


def test_the_manifest_names_the_firmware_package_and_nothing_of_the_simulator():
    names = manifest.files(FIRMWARE)
    package = sorted(p.relative_to(FIRMWARE).as_posix() for p in (FIRMWARE / "courtside").rglob("*.py"))
    assert names == package and "courtside/core.py" in names
    assert not [n for n in names if n.startswith(("courtside_sim", "courtside_follow"))]


def test_package_json_is_up_to_date():
    """After adding or removing a module: python -m courtside_host.link.manifest"""
    committed = (FIRMWARE / "package.json").read_text()
    assert committed == manifest.dumps(manifest.package_json(FIRMWARE))
    urls = json.loads(committed)["urls"]
    assert ["main.py", "main.py"] in urls and ["pinmap.json", "../hardware/pinmap.json"] in urls


def test_deploy_sends_what_the_manifest_names(tmp_path):
    firmware = tmp_path / "firmware"
    subprocess.run(["cp", "-r", str(FIRMWARE), str(firmware)], check=True)
    (firmware / "courtside" / "spare.py").write_text("X = 1\n")       # not in the manifest...
    (firmware / "manifest.py").write_text('package("courtside")\n')   # ...until it names the package
    built = dep.build(firmware, FIRMWARE.parent / "hardware" / "pinmap.json", source=True)
    assert "courtside/spare.py" in built.files
    (firmware / "manifest.py").write_text('module("main.py")\n')
    built = dep.build(firmware, FIRMWARE.parent / "hardware" / "pinmap.json", source=True)
    assert not [n for n in built.files if n.startswith("courtside/")]
    (firmware / "manifest.py").write_text('package("courtside_missing")\n')
    with pytest.raises(dep.DeployError, match="courtside_missing"):
        dep.build(firmware, FIRMWARE.parent / "hardware" / "pinmap.json", source=True)


def test_the_reader_takes_base_paths_variables_files_and_opt(tmp_path):
    """As MicroPython reads a manifest: a relative base_path is from the manifest's folder,
    $(NAME) is a variable given, files= names some of a package, opt rides along."""
    (tmp_path / "libs" / "pkg" / "sub").mkdir(parents=True)
    for name in ("pkg/__init__.py", "pkg/a.py", "pkg/sub/b.py", "solo.py"):
        (tmp_path / "libs" / name).write_text("")
    (tmp_path / "libs" / "pkg" / "notes.txt").write_text("")
    (tmp_path / "m").mkdir()
    path = tmp_path / "m" / "manifest.py"
    path.write_text('include("$(PORT_DIR)/boards/manifest.py")\nmetadata(version="1")\n'
                    'package("pkg", base_path="../libs", opt=3)\n'
                    'package("pkg", files=["sub/b.py"], base_path="$(LIBS)")\n'
                    'module("solo.py", base_path="$(LIBS)")\n')
    read = manifest.read(path, {"LIBS": tmp_path / "libs"})
    assert [(name, opt) for _, name, opt in read] == [
        ("pkg/__init__.py", 3), ("pkg/a.py", 3), ("pkg/sub/b.py", 3),
        ("pkg/sub/b.py", None), ("solo.py", None)]
    assert read[-1][0] == tmp_path / "libs" / "solo.py"
    with pytest.raises(manifest.ManifestError, match=r"\$\(LIBS\), which nothing gives"):
        manifest.read(path)
    path.write_text('package("pkg", files=["missing.py"], base_path="../libs")\n')
    with pytest.raises(manifest.ManifestError, match="'missing.py' in package 'pkg'"):
        manifest.read(path)


@pytest.mark.vpico
def test_mip_installs_the_firmware_from_a_path_and_the_board_runs_it(tmp_path):
    """The real mpremote's mip, from firmware/package.json, onto the virtual Pico; after a
    reset the board answers ping with the firmware's version."""
    with VirtualPico(tmp_path / "flash", run_main=False) as pico:
        run = subprocess.run([sys.executable, "-m", "mpremote", "connect", pico.port, "mip", "install",
                              "--target", "/", str(FIRMWARE / "package.json")],
                             capture_output=True, text=True, timeout=240, check=False)
        assert run.returncode == 0, run.stdout + run.stderr
        flash = tmp_path / "flash"
        for name, _ in json.loads((FIRMWARE / "package.json").read_text())["urls"]:
            assert (flash / name).is_file(), name
        assert not (flash / "courtside_sim").exists() and not (flash / "courtside_follow").exists()
        with connect(pico.port) as link:
            pong = dep.reset_and_ping(link, dep.local_version(FIRMWARE), timeout=60)
        assert pong["stream"] == courtside.STREAM
