"""Every reader is bounded before it reads: pin maps, settings, logs, scripts, UF2 images.

Once had: a pin map was read whole before its size was checked (a 2 GB sparse file took
2.1 GB of memory, ``/dev/zero`` was read until the kernel ended the process, a FIFO held
``pins check`` for ever), and ``"\\ud800"`` (half a surrogate pair, no character at all)
passed. Now a file must be a regular file within its limit, both checked on the open file
before a byte is read, and every JSON reader refuses an escaped half of a surrogate pair.
"""

import os
import subprocess
import sys
import threading

import pytest
from conftest import FIRMWARE, ROOT, simulate
from courtside import jsoncheck, pinmap
from courtside import settings as config
from courtside_host import cli, files
from courtside_host.link import deploy as dep

PINMAP = (ROOT / "hardware" / "pinmap.json").read_bytes()


@pytest.fixture
def odd(tmp_path):
    """Files no reader may take: a FIFO, a device, a directory, a 2 GB sparse file."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(2 << 30)                  # sparse: no disk, 2 GB to a reader
    return {"a FIFO": fifo, "a character device": "/dev/zero", "a directory": tmp_path, "longer than": big}


def test_the_file_reader_says_what_a_file_is_before_reading_it(odd):
    for kind, path in odd.items():
        with pytest.raises(files.NotReadable) as e:
            files.read(path, 8192)
        assert kind in str(e.value) and str(path) in str(e.value)
    for kind, path in odd.items():
        if kind != "longer than":
            with pytest.raises(files.NotReadable, match=kind):
                files.opened(path)


def under_a_memory_limit(*args):
    """``courtside ARGS`` in a process allowed 1 GB of address space, that nothing feeds."""
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "from courtside_host import cli\n"
            "sys.exit(cli.main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=60, check=False, stdin=subprocess.DEVNULL)


def test_pins_check_refuses_each_with_a_clear_message_and_no_traceback(odd):
    for kind, path in odd.items():
        run = under_a_memory_limit("pins", "check", path)
        assert run.returncode == 1, run.stderr
        assert kind in run.stderr and "Traceback" not in run.stderr and "MemoryError" not in run.stderr


def test_deploy_and_the_page_refuse_them_before_touching_a_board(odd):
    master, slave = os.openpty()               # a port with nothing behind it: never reached
    try:
        for kind, path in odd.items():
            with pytest.raises(dep.DeployError, match=kind):
                dep.pin_map(path)              # what deploy --pins and web --pins read with
            run = under_a_memory_limit("deploy", "--pins", path, "--port", os.ttyname(slave))
            assert run.returncode != 0 and kind in run.stderr and "Traceback" not in run.stderr
            with pytest.raises(dep.DeployError, match=kind):
                dep.settings_from(path)
        os.set_blocking(master, False)
        with pytest.raises(BlockingIOError):   # deploy wrote nothing to the port
            os.read(master, 1 << 16)
    finally:
        os.close(master)
        os.close(slave)


def test_a_log_that_is_not_a_file_is_refused_at_once(odd, capsys):
    for kind, path in odd.items():
        if kind == "longer than":
            continue
        assert cli.main(["replay", str(path)]) != 0
        assert kind in capsys.readouterr().err


def test_flash_refuses_them_too(odd):
    from courtside_host.link import flash
    for kind, path in odd.items():
        with pytest.raises(flash.FlashError, match=kind):
            flash.read_uf2(path)


def test_a_script_or_pin_map_that_is_not_a_file_is_refused_on_both_runtimes(odd, micropython):
    script = ROOT / "tests" / "scripts" / "dodgeball_round.jsonl"
    for exe in (sys.executable, micropython):
        for kind, path in odd.items():
            if kind == "longer than":
                continue
            for args in ((path,), ("--pins", path, script)):
                run = simulate(exe, *args, check=False, timeout=30)
                assert run.returncode == 2 and kind in run.stderr, (exe, args, run.stderr)


def test_a_fifo_that_is_written_to_is_still_not_read():
    """Refused before a byte is read, even when a writer is there."""
    import tempfile
    folder = tempfile.mkdtemp()
    fifo = os.path.join(folder, "p.json")
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(PINMAP), daemon=True)
    writer.start()
    with pytest.raises(files.NotReadable, match="a FIFO"):
        files.read(fifo, 8192)
    os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)      # let the writer finish
    writer.join(5)


# lone surrogates -----------------------------------------------------------------------------

LONE = ['"\\ud800"', '"\\udc00"', '"a\\ud83d"', '"\\ud83d\\u0041"', '"\\uDBFF x"',
        '["\\ud800\\udc00\\udc00"]']
PAIRED = ['"\\ud83d\\ude00"', '"\\\\ud800"', '"\\u00e9"', '"\\uD83D\\uDE00"', '["\\\\\\ud83d\\ude00"]']


def test_strict_json_refuses_half_a_surrogate_pair_and_keeps_whole_ones():
    for text in LONE:
        assert not jsoncheck.strict_json(text), text
        assert "surrogate" in jsoncheck.fault(text)[0]
    for text in PAIRED:
        assert jsoncheck.strict_json(text), text


def test_every_json_reader_refuses_half_a_surrogate_pair(tmp_path, micropython):
    good = pinmap.read(PINMAP).data
    bad = PINMAP.replace(b'"format"', b'"note": "\\ud800", "format"', 1)
    assert bad != PINMAP
    with pytest.raises(pinmap.PinMapError, match="surrogate"):
        pinmap.read(bad)
    assert good
    with pytest.raises(ValueError, match="surrogate"):
        config.read(b'{"tie_us": 500, "\\udfff": 1}')
    assert config.read(b'{"tie_us": 500}')["tie_us"] == 500
    # a log's line is read as the board wrote it, and the stream's schema names the fault
    # (replay reports it: tests/test_replay_limits.py)
    from courtside_follow import schema
    got = schema.read('{"ev":"cmd","t":1,"line":"\\ud800","ok":true}')
    assert got is not None and "lone surrogate" in got[1]
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 1000, "cmd": "set tie_us=500\\ud800"}\n')
    for exe in (sys.executable, micropython):
        run = simulate(exe, script, check=False)
        assert run.returncode == 2 and "line 1" in run.stderr, (exe, run.stderr)
    # the same on the board's own reading of its settings, on the unix port
    (tmp_path / "settings.json").write_bytes(b'{"\\ud800": 1}')
    code = "from courtside import settings\ntry:\n settings.load(%r)\nexcept ValueError as e:\n print(e)\n" \
        % str(tmp_path / "settings.json")
    run = subprocess.run([micropython, "-c", code], capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, MICROPYPATH=str(FIRMWARE)), check=False)
    assert "surrogate" in run.stdout, run.stdout + run.stderr
