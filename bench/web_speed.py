"""The web page: load to first frame, and the core's speed in WebAssembly beside the unix
port and CPython, in one run.

Starts ``courtside web`` on a free port and a headless Chromium (Debian's, through
selenium), then:

- loads the page LOADS times in a fresh browser profile each time (nothing cached), and
  reports the median time from navigation start to MicroPython and the firmware ready,
  and to the first frame drawn on the matrix;
- in each of those loads, taps the four boxes' keys in the lobby and times each key, from
  the browser's keydown event to the matrix drawn with that box joined (key to frame);
- runs ``courtside_sim.timing`` (the worked Dodge Ball round, in virtual time, five runs;
  and 5,000 idle steps, five runs) in the page, on the MicroPython unix port and on
  CPython, and prints each one's medians and their ratios to the unix port.

    python bench/web_speed.py [LOADS]       # default 5
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host"), os.path.join(ROOT, "firmware"),
                os.path.join(ROOT, "common")]

SCRIPT = os.path.join(ROOT, "tests", "scripts", "dodgeball_round.jsonl")
MEASURE = """
import json, sys
from courtside_sim import timing
text = open(sys.argv[-2]).read()
out = timing.measure(text, 5, 5000, sys.argv[-1] + "/timing.jsonl")
out["version"] = ".".join(str(v) for v in sys.implementation.version[:3])
print(json.dumps(out))
"""


def in_page(url, loads):
    from browser import chromium, close, open_page, wait_for
    ready, first, keyed = [], [], []
    for _ in range(loads):
        driver = chromium()
        try:
            open_page(driver, url + "?mode=dodgeball")
            wait_for(driver, "return window.courtside.firstFrameMs !== null")
            ready.append(driver.execute_script("return window.courtside.loadedMs"))
            first.append(driver.execute_script("return window.courtside.firstFrameMs"))
            keyed.extend(key_to_frame(driver))
        finally:
            close(driver)
    driver = chromium()
    try:
        open_page(driver, url)
        with open(SCRIPT) as f:
            timing = driver.execute_script("return window.courtside.timing(arguments[0], 5)", f.read())
        agent = driver.execute_script("return navigator.userAgent")
    finally:
        close(driver)
    return ready, first, keyed, timing, agent


def key_to_frame(driver):
    """ms from each box key's keydown (the page's clock, as the event has it) to the frame
    that shows the box joined, for the four boxes in turn."""
    from selenium.webdriver.common.action_chains import ActionChains
    driver.execute_script("document.addEventListener('keydown', (e) => { window.keyAt = e.timeStamp; },"
                          " {capture: true})")
    driver.find_element("tag name", "body").click()
    out = []
    for key in "1qaz":
        before = driver.execute_script("return window.courtside.frames")
        ActionChains(driver).key_down(key).pause(0.05).key_up(key).perform()
        for _ in range(200):
            if driver.execute_script("return window.courtside.frames") > before:
                break
            time.sleep(0.01)
        out.append(driver.execute_script("return window.courtside.frameAt - window.keyAt"))
    return out


def elsewhere(exe):
    with tempfile.TemporaryDirectory() as where:
        prog = os.path.join(where, "measure.py")
        with open(prog, "w") as f:
            f.write(MEASURE)
        code = os.path.join(ROOT, "firmware") + ":" + os.path.join(ROOT, "common")
        env = dict(os.environ, PYTHONPATH=code, MICROPYPATH=code + ":.frozen")
        out = subprocess.run([exe, prog, SCRIPT, where], capture_output=True, text=True, check=True,
                             env=env).stdout
    return json.loads(out)


def main():
    loads = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    from browser import Web
    server = Web()
    try:
        ready, first, keyed, page, agent = in_page(server.url, loads)
    finally:
        server.stop()
    unix = elsewhere(os.path.join(os.path.dirname(sys.executable), "micropython"))
    cpython = elsewhere(sys.executable)
    browser = re.search(r"Chrome/[\d.]+", agent)
    print("page load, %d loads in a fresh %s profile each (median, ms): runtime and firmware ready %.0f, "
          "first frame %.0f (range %.0f-%.0f)" % (loads, browser.group(0) if browser else "browser",
                                                  statistics.median(ready), statistics.median(first),
                                                  min(first), max(first)))
    print("key to frame, %d keys (ms): median %.1f, range %.1f-%.1f (keydown to the lobby's frame drawn)"
          % (len(keyed), statistics.median(keyed), min(keyed), max(keyed)))
    print("the core's speed, median of 5 runs each (us):")
    print("  %-34s %10s %10s %8s %8s" % ("", "per pass", "idle step", "x unix", "x unix"))
    base = statistics.median(unix["pass_us"]), statistics.median(unix["idle_us"])
    for name, r in (("WebAssembly (MicroPython 1.27)", page),
                    ("unix port (MicroPython %s)" % unix["version"], unix),
                    ("CPython %d.%d" % sys.version_info[:2], cpython)):
        pass_us, idle_us = statistics.median(r["pass_us"]), statistics.median(r["idle_us"])
        print("  %-34s %10.1f %10.1f %8.2f %8.2f"
              % (name, pass_us, idle_us, pass_us / base[0], idle_us / base[1]))
    print("  (a pass: one of the %d passes of the worked Dodge Ball round, effects applied; "
          "an idle step: Core.step with nothing to do)" % page["passes"])


if __name__ == "__main__":
    main()
