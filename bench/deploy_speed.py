"""Deploy speed on the virtual Pico: courtside deploy against a plain ``mpremote cp -r``.

Both run as the commands a person types (separate processes, so start-up costs count for
both), on the same built tree, on one virtual Pico, side by side in one run:

- ``mpremote cp -r -f`` of the whole tree (a plain copy, every file sent);
- ``mpremote cp -r`` of the whole tree onto an up-to-date board (mpremote's own per-file
  hash check);
- ``courtside deploy`` with nothing changed, and with one module changed (each including
  its soft reset and the ping of the new firmware, which mpremote does not do).

Prints the median of N runs of each, and ratios to the plain copy. Goal: a no-change
redeploy takes at most 0.3x the time of the plain copy.

    python bench/deploy_speed.py [--runs 5]
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "firmware"))

from courtside_host import deploy as dep  # noqa: E402
from courtside_host.vpico import VirtualPico  # noqa: E402

MPREMOTE = str(Path(sys.executable).parent / "mpremote")


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    took = time.perf_counter() - start
    if out.returncode:
        raise SystemExit("failed: %s\n%s%s" % (" ".join(cmd), out.stdout, out.stderr))
    return took


def stage(build, where):
    """The built tree as files, for mpremote to copy."""
    for path, data in build.files.items():
        dest = where / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return sorted(str(where / name) for name in {p.split("/")[0] for p in build.files})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="deploy-speed-"))
    try:
        firmware = work / "firmware"
        shutil.copytree(ROOT / "firmware", firmware, ignore=shutil.ignore_patterns("__pycache__"))
        build = dep.build(firmware, compiler=dep.Compiler())
        tree = stage(build, work / "tree")
        nbytes = sum(len(d) for d in build.files.values())
        deploy_cmd = [sys.executable, "-m", "courtside_host.cli", "deploy", "--firmware", str(firmware)]
        times = {k: [] for k in ("plain", "hash", "same", "one")}
        with VirtualPico(work / "flash") as pico:
            cp = [MPREMOTE, "connect", pico.port, "cp", "-r"]
            tweak = firmware / "courtside" / "tones.py"
            original = tweak.read_text()
            for i in range(args.runs):
                times["plain"].append(timed([*cp, "-f", *tree, ":"]))
                times["hash"].append(timed([*cp, *tree, ":"]))
                timed([*deploy_cmd, "--port", pico.port])     # settle: board matches the tree
                times["same"].append(timed([*deploy_cmd, "--port", pico.port]))
                tweak.write_text(original + "\n_BENCH_RUN = %d\n" % i)
                times["one"].append(timed([*deploy_cmd, "--port", pico.port]))
                tweak.write_text(original)
        med = {k: statistics.median(v) for k, v in times.items()}
        print("virtual Pico, %d files, %d bytes, median of %d runs" % (len(build.files), nbytes, args.runs))
        rows = (("mpremote cp -r -f (plain copy, all files)", "plain"),
                ("mpremote cp -r (its per-file hash check, up to date)", "hash"),
                ("courtside deploy, nothing changed (+reset, ping)", "same"),
                ("courtside deploy, one module changed (+reset, ping)", "one"))
        for label, key in rows:
            print("  %-54s %7.3f s  %5.2fx plain copy" % (label, med[key], med[key] / med["plain"]))
        ok = med["same"] <= 0.3 * med["plain"]
        print("goal no-change <= 0.3x plain copy: %s (%.2fx)" % ("met" if ok else "NOT met",
                                                                  med["same"] / med["plain"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
