"""The core's test vectors, replayed on CPython and on the MicroPython unix port.

Each suite is a folder ``tests/vectors/<suite>/`` of JSON files (cases with ``name``,
``input`` and ``expected``) and a module ``tests/replay/<suite>.py`` that runs one input
through the firmware core. The same module runs under both interpreters, so a case passes
only if both runtimes give the expected answer.
"""

import json
import subprocess
import sys

import pytest
from conftest import ROOT, micropython_binary

VECTORS = ROOT / "tests" / "vectors"
RUNNER = ROOT / "tests" / "replay" / "runner.py"
RUNTIMES = ("cpython", pytest.param("micropython", marks=pytest.mark.unixport))


def _cases():
    for suite in sorted(p for p in VECTORS.iterdir() if p.is_dir()):
        for path in sorted(suite.glob("*.json")):
            cases = json.loads(path.read_text())
            for case in cases if isinstance(cases, list) else [cases]:
                yield suite.name, path, case


CASES = list(_cases())
_results: dict = {}


def _run(runtime, suite):
    key = (runtime, suite)
    if key not in _results:
        exe = sys.executable if runtime == "cpython" else micropython_binary()
        files = sorted(str(p) for p in (VECTORS / suite).glob("*.json"))
        out = subprocess.run([exe, str(RUNNER), suite, *files], capture_output=True, text=True,
                             timeout=600, check=False)
        if out.returncode:
            raise AssertionError("%s runner failed:\n%s" % (runtime, out.stderr[-3000:]))
        _results[key] = {(r["file"], r["name"]): r["actual"]
                         for r in map(json.loads, out.stdout.splitlines())}
    return _results[key]


def test_there_are_vectors():
    assert len({s for s, _, _ in CASES}) >= 1 and len(CASES) >= 10


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("suite,path,case", CASES,
                         ids=["%s/%s/%s" % (s, p.stem, c["name"]) for s, p, c in CASES])
def test_vector(runtime, suite, path, case):
    actual = _run(runtime, suite)[(str(path), case["name"])]
    assert actual == case["expected"]
