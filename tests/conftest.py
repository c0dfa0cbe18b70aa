"""Shared pytest fixtures: where things are, and the MicroPython unix-port interpreter."""

import os
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
