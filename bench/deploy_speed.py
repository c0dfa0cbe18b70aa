"""Deploy speed on the virtual Pico: courtside deploy against a plain ``mpremote cp -r``.

Both run as the commands a person types (separate processes, so start-up costs count for
both), on the same built tree, on one virtual Pico, side by side in one run:

- ``mpremote cp -r -f`` of the whole tree (a plain copy, every file sent);
- ``mpremote cp -r`` of the whole tree onto an up-to-date board (mpremote's own per-file
  hash check);
- ``courtside deploy`` with nothing changed, and with one module changed (each including
  its soft reset and the ping of the new firmware, which mpremote does not do).

Prints the median of N runs of each, and ratios to the plain copy. The commands are this
environment's (``.venv``: an editable install, whose import hook every Python start pays),
and again those of the wheel installed into a fresh virtual environment, as ``pipx install``
gives them (``--no-wheel`` leaves that part out). Then the same comparison inside one
process (mpremote's own main() against deploy's functions), which
leaves out Python start-up and imports. Goal: a no-change redeploy takes at most 0.3x the
time of the plain copy.

    python bench/deploy_speed.py [--runs 5] [--no-wheel]
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

from courtside_host.link import deploy as dep  # noqa: E402
from courtside_host.vpico.runner import VirtualPico  # noqa: E402

MPREMOTE = str(Path(sys.executable).parent / "mpremote")
MPREMOTE_RM = [MPREMOTE, "connect"]


def mpremote_here(args):
    """``mpremote ARGS`` inside this process (no start-up), its output discarded."""
    import contextlib
    import io

    from mpremote.main import main as mpremote_main
    saved = sys.argv
    sys.argv = ["mpremote", *args]
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            status = mpremote_main()
    finally:
        sys.argv = saved
    if status:
        raise SystemExit("mpremote %s failed" % " ".join(args))
    return time.perf_counter() - start


def measure_phases(port, firmware, phases):
    """One no-change deploy in this process, phase by phase (no process start-up)."""
    from courtside_host.link.port import connect
    t0 = time.perf_counter()
    with connect(port, soft_reset=False) as link:     # as deploy connects
        t1 = time.perf_counter()
        board = dep.probe(link)
        t2 = time.perf_counter()
        the_build = dep.build(firmware, compiler=dep.Compiler())
        dep.apply(link, the_build, dep.Plan(the_build, board))
        t3 = time.perf_counter()
        dep.reset_and_ping(link, the_build.version)
        t4 = time.perf_counter()
    for key, took in (("connect", t1 - t0), ("probe", t2 - t1), ("apply", t3 - t2),
                      ("ping", t4 - t3), ("library", t4 - t0)):
        phases[key].append(took)


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


def installed(work):
    """The wheel of this tree in a fresh virtual environment: its bin folder."""
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "logs"))
    venv = work / "venv"
    timed([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "dist"), str(source)])
    timed([sys.executable, "-m", "venv", str(venv)])
    (wheel,) = (work / "dist").glob("courtside-*.whl")
    timed([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "%s[vpico]" % wheel])
    return venv / "bin"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-wheel", action="store_true", help="only this environment's commands")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="deploy-speed-"))
    try:
        firmware = work / "firmware"
        shutil.copytree(ROOT / "firmware", firmware, ignore=shutil.ignore_patterns("__pycache__"))
        build = dep.build(firmware, compiler=dep.Compiler())
        tree = stage(build, work / "tree")
        nbytes = sum(len(d) for d in build.files.values())
        deploy_cmd = [str(Path(sys.executable).parent / "courtside"), "deploy", "--firmware", str(firmware)]
        wheel_bin = None if args.no_wheel else installed(work)
        times = {k: [] for k in ("plain", "source", "hash", "same", "one", "w_plain", "w_same")}
        phases = {k: [] for k in ("connect", "probe", "apply", "ping", "library", "cp_here")}
        source = [str(firmware / "courtside"), str(firmware / "main.py"), str(firmware / "boot.py")]
        with VirtualPico(work / "flash") as pico:
            cp = [MPREMOTE, "connect", pico.port, "cp", "-r"]
            tweak = firmware / "courtside" / "tones.py"
            original = tweak.read_text()
            for i in range(args.runs):
                times["source"].append(timed([*cp, "-f", *source, ":"]))
                timed([*MPREMOTE_RM, pico.port, "rm", "-r", ":courtside"])
                times["plain"].append(timed([*cp, "-f", *tree, ":"]))
                times["hash"].append(timed([*cp, *tree, ":"]))
                timed([*deploy_cmd, "--port", pico.port])     # settle: board matches the tree
                times["same"].append(timed([*deploy_cmd, "--port", pico.port]))
                tweak.write_text(original + "\n_BENCH_RUN = %d\n" % i)
                times["one"].append(timed([*deploy_cmd, "--port", pico.port]))
                tweak.write_text(original)
                timed([*deploy_cmd, "--port", pico.port])
                if wheel_bin:
                    w_deploy = [str(wheel_bin / "courtside"), "deploy", "--firmware", str(firmware),
                                "--port", pico.port]
                    times["w_plain"].append(timed([str(wheel_bin / "mpremote"), "connect", pico.port,
                                                   "cp", "-r", "-f", *tree, ":"]))
                    timed(w_deploy)
                    times["w_same"].append(timed(w_deploy))
                measure_phases(pico.port, firmware, phases)
                phases["cp_here"].append(mpremote_here(["connect", pico.port, "cp", "-r", "-f", *tree, ":"]))
        med = {k: statistics.median(v) for k, v in times.items() if v}
        print("virtual Pico, %d files, %d bytes, median of %d runs" % (len(build.files), nbytes, args.runs))
        rows = (("mpremote cp -r -f of the source (.py, no compiling)", "source"),
                ("mpremote cp -r -f (plain copy, all files)", "plain"),
                ("mpremote cp -r (its per-file hash check, up to date)", "hash"),
                ("courtside deploy, nothing changed (+reset, ping)", "same"),
                ("courtside deploy, one module changed (+reset, ping)", "one"))
        for label, key in rows:
            print("  %-54s %7.3f s  %5.2fx plain copy" % (label, med[key], med[key] / med["plain"]))
        if wheel_bin:
            print("  installed wheel (fresh venv, as pipx gives it):")
            print("  %-54s %7.3f s  %5.2fx plain copy" % ("mpremote cp -r -f (plain copy, all files)",
                                                          med["w_plain"], 1.0))
            print("  %-54s %7.3f s  %5.2fx plain copy" % ("courtside deploy, nothing changed (+reset, ping)",
                                                          med["w_same"], med["w_same"] / med["w_plain"]))
        ph = {k: statistics.median(v) for k, v in phases.items()}
        print("  no-change deploy inside one process: %.3f s = connect (Ctrl-C, raw REPL) %.3f, "
              "hash probe %.3f, plan %.3f, reset and ping %.3f"
              % (ph["library"], ph["connect"], ph["probe"], ph["apply"], ph["ping"]))
        print("  inside one process: mpremote cp -r -f %.3f s, no-change deploy %.3f s = %.2fx"
              % (ph["cp_here"], ph["library"], ph["library"] / ph["cp_here"]))
        as_commands = med["same"] / med["plain"]
        inside = ph["library"] / ph["cp_here"]
        print("goal no-change <= 0.3x plain copy: as commands %s (%.2fx); inside one process %s (%.2fx)"
              % ("met" if as_commands <= 0.3 else "NOT met", as_commands,
                 "met" if inside <= 0.3 else "NOT met", inside))
        if wheel_bin:
            as_installed = med["w_same"] / med["w_plain"]
            print("goal as installed commands: %s (%.2fx)"
                  % ("met" if as_installed <= 0.3 else "NOT met", as_installed))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
