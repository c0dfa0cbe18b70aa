"""Shared fixtures and helpers: where things are, the MicroPython unix-port interpreter,
and the headless simulator on either runtime."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))


from courtside_host.vpico import micropython_binary  # noqa: E402  (the laptop tools' own lookup)


@pytest.fixture(scope="session")
def micropython():
    return micropython_binary()


@pytest.fixture
def firmware_env():
    env = dict(os.environ)
    env["MICROPYPATH"] = str(FIRMWARE) + ":.frozen"
    return env


def simulate(exe, *args, check=True, timeout=120, stdin=None):
    """Run the headless simulator (``courtside_sim.headless``) with ``args`` on ``exe``,
    CPython's or MicroPython's interpreter; returns the finished process."""
    env = dict(os.environ, PYTHONPATH=str(FIRMWARE), MICROPYPATH=str(FIRMWARE) + ":.frozen")
    run = subprocess.run([exe, "-m", "courtside_sim.headless", *map(str, args)], capture_output=True,
                         text=True, timeout=timeout, check=False, env=env, input=stdin)
    if check:
        assert run.returncode == 0, run.stderr[-2000:]
    return run
