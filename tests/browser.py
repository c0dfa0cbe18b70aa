"""A real browser for the web page's tests: Debian's headless Chromium, driven by selenium
through Debian's chromedriver, on pages that ``courtside web`` serves on 127.0.0.1.

The flags keep Chromium off the network (it reaches for Google's services at every start
otherwise) and give every browser an empty profile.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pngread
import pytest
from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--window-size=1400,1000", "--force-device-scale-factor=1",
         "--force-color-profile=srgb", "--autoplay-policy=no-user-gesture-required")


def chromium():
    """A selenium driver for a fresh headless Chromium."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            pytest.fail("%s is missing: install Debian's chromium and chromium-driver "
                        "(.ci/run does)" % path)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="courtside-chromium-")
    options.add_argument("--user-data-dir=" + profile)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(120)
    driver.courtside_profile = profile
    return driver


def close(driver):
    driver.quit()
    shutil.rmtree(driver.courtside_profile, ignore_errors=True)


class Web:
    """``courtside web`` as a user starts it (a subprocess), on a free port."""

    def __init__(self, *args):
        code = [str(ROOT / "host"), str(ROOT / "firmware"), str(ROOT / "common")]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(code),
                   PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "courtside_host.cli", "web", "--http-port", "0",
                                      *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=env)
        self.output = []
        self.url = None
        end = time.monotonic() + 60
        while self.url is None:
            line = self.proc.stdout.readline()
            if not line or time.monotonic() > end:
                self.stop()
                pytest.fail("courtside web did not start:\n" + "".join(self.output))
            self.output.append(line)
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if found:
                self.url = found.group(0)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def wait_for(driver, script, timeout=60, what="the page"):
    """Run ``script`` (JavaScript returning a value) until it gives something true."""
    end = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script)
        if value:
            return value
        error = driver.execute_script("return window.courtside && window.courtside.error")
        if error:
            pytest.fail("the page stopped: %s" % error)
        if time.monotonic() > end:
            logs = "\n".join(str(e) for e in driver.get_log("browser"))
            pytest.fail("%s never got there (%s)\n%s" % (what, script, logs))
        time.sleep(0.05)


def open_page(driver, url, keep=False):
    """Load the page at ``url`` and wait until it is ready; what an earlier test left in
    the page's storage (names, settings) is cleared first unless ``keep``."""
    if not keep:
        origin = re.match(r"https?://[^/]+/", url).group(0)
        driver.get(origin + "config.json")
        driver.execute_script("localStorage.clear()")
    driver.get(url)
    wait_for(driver, "return window.courtside && window.courtside.ready", what="the page's start")


def pixels(png_bytes):
    """A screenshot's pixels: ``get(x, y) -> (r, g, b)``."""
    width, _height, rows = pngread.read(png_bytes)

    def get(x, y):
        row = rows[y]
        return tuple(row[4 * x:4 * x + 3])
    get.width = width
    return get
