"""Flash: a UF2 onto a (stand-in) BOOTSEL drive, then the board comes back as a virtual Pico.

The BOOTSEL drive is a folder with the INFO_UF2.TXT a Pico's boot ROM shows; the board that
restarts into MicroPython is the virtual Pico, appearing on the port the command waits for.
"""

import struct
import threading
import time

import pytest
from courtside_host import cli
from courtside_host.link import flash as fl
from courtside_host.vpico.runner import VirtualPico

RP2040_INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"


def uf2_bytes(family, blocks=4):
    out = b""
    for i in range(blocks):
        payload = bytes([i]) * 256
        head = struct.pack("<IIIIIIII", 0x0A324655, 0x9E5D5157, 0x2000, 0x10000000 + 256 * i, 256,
                           i, blocks, family)
        out += head + payload + b"\0" * (476 - 256) + struct.pack("<I", 0x0AB16F30)
    return out


@pytest.fixture
def drive(tmp_path):
    d = tmp_path / "RPI-RP2"
    d.mkdir()
    (d / "INFO_UF2.TXT").write_text(RP2040_INFO)
    return d


@pytest.mark.vpico
def test_flash_copies_and_reports_the_version_of_the_board_that_comes_back(drive, tmp_path, capsys):
    image = tmp_path / "RPI_PICO-v1.29.0.uf2"
    image.write_bytes(uf2_bytes(0xE48BFF56, blocks=40))
    link = tmp_path / "ttyACM0"
    boards = []

    def boot_rom():   # once the whole file has landed, the "board" restarts as MicroPython
        end = time.monotonic() + 20
        target = drive / image.name
        while time.monotonic() < end:
            if target.exists() and target.stat().st_size == image.stat().st_size:
                boards.append(VirtualPico(tmp_path / "flash", link=link).start())
                return
            time.sleep(0.01)

    rom = threading.Thread(target=boot_rom)
    rom.start()
    try:
        status = cli.main(["flash", str(image), "--drive", str(drive), "--port", str(link), "--wait", "15"])
        out = capsys.readouterr().out
    finally:
        rom.join()
        for b in boards:
            b.stop()
    assert status == 0, out
    assert (drive / image.name).read_bytes() == image.read_bytes()
    assert "MicroPython 1.29.0" in out and "RP2040" in out


def test_a_uf2_for_another_chip_is_refused(drive, tmp_path, capsys):
    image = tmp_path / "RPI_PICO2.uf2"
    image.write_bytes(uf2_bytes(0xE48BFF59))
    assert cli.main(["flash", str(image), "--drive", str(drive), "--wait", "1"]) == 1
    assert "built for RP2350" in capsys.readouterr().err
    assert not (drive / image.name).exists()


def test_not_a_uf2_and_not_a_drive_are_refused(drive, tmp_path):
    junk = tmp_path / "firmware.bin"
    junk.write_bytes(b"\x00" * 1024)
    with pytest.raises(fl.FlashError, match="not a UF2"):
        fl.read_uf2(junk)
    with pytest.raises(fl.FlashError, match="not a Pico in BOOTSEL"):
        fl.find_drive(tmp_path)
    rp2350 = tmp_path / "RP2350"
    rp2350.mkdir()
    (rp2350 / "INFO_UF2.TXT").write_text(
        "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n")
    assert fl.drive_chip(rp2350) == "RP2350" and fl.drive_chip(drive) == "RP2040"


def test_a_uf2_that_is_not_there_is_named_plainly(drive, tmp_path, capsys):
    assert cli.main(["flash", str(tmp_path / "x.uf2"), "--drive", str(drive), "--wait", "1"]) == 1
    err = capsys.readouterr().err
    assert "cannot read %s (No such file or directory)" % (tmp_path / "x.uf2") in err and "Errno" not in err
