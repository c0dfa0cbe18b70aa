"""The MicroPython WebAssembly runtime the web page runs the firmware in: fetched, checked, found.

``courtside web`` serves the page with MicroPython's WebAssembly port (the npm package
``@micropython/micropython-webassembly-pyscript``, MIT licence), two files:
``micropython.mjs`` and ``micropython.wasm``. They are not part of Courtside's repository
or its wheel. ``courtside web --fetch-runtime`` downloads the one pinned version from the
npm registry (the only network any of this touches), checks the tarball against the
registry's sha512 integrity before anything is unpacked, and keeps the two files (and the
package's ``package.json``, for its version) in a per-user cache::

    $XDG_CACHE_HOME/courtside/micropython-webassembly-1.27.0/   (else ~/.cache/courtside/...)

The folder appears whole or not at all: everything is written into a temporary folder
beside it and renamed into place, so a download cut off half way or a tarball that fails
its check leaves nothing behind.

    folder = fetch()                 # the cache (or fetch(dest) for another folder)
    folder = find(args.wasm)         # --wasm DIR, else $COURTSIDE_WASM, else the cache
"""

import base64
import contextlib
import hashlib
import http.client
import io
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

PACKAGE = "@micropython/micropython-webassembly-pyscript"
VERSION = "1.27.0"
TARBALL = ("https://registry.npmjs.org/@micropython/micropython-webassembly-pyscript/-/"
           "micropython-webassembly-pyscript-%s.tgz" % VERSION)
INTEGRITY = ("sha512-DnXx4EqxgkeaFESrS3uKrL7mLMk4mRTd0mMzaOd3HUSiZU"
             "OAE7t11uLnjf3ftF87N2xm4knHnWEKcVK4IYIUDA==")
FILES = ("micropython.mjs", "micropython.wasm")
KEPT = (*FILES, "package.json")
ENV = "COURTSIDE_WASM"
FIX = "courtside web --fetch-runtime"
MAX_TARBALL = 16 * 1024 * 1024     # the real one is 0.2 MB: anything this big is not it


class RuntimeMissing(Exception):
    """The runtime is not where it was looked for; the message says how to get it."""


class FetchError(Exception):
    """The runtime could not be fetched, or what came was not the pinned package."""


def cache_folder():
    """Where ``fetch`` keeps the runtime by default: the user's cache, in a checkout too."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "courtside" / ("micropython-webassembly-%s" % VERSION)


def complete(folder):
    """Whether ``folder`` holds both runtime files."""
    return all((Path(folder) / name).is_file() for name in FILES)


def find(explicit=None):
    """The folder holding ``micropython.mjs`` and ``micropython.wasm``: ``explicit`` (the
    ``--wasm DIR`` option) if given, else ``$COURTSIDE_WASM`` if set, else the cache.
    Raises RuntimeMissing naming the folder and the fix."""
    if explicit:
        where, source = Path(explicit), "--wasm %s" % explicit
    elif os.environ.get(ENV):
        where, source = Path(os.environ[ENV]), "$%s (%s)" % (ENV, os.environ[ENV])
    else:
        where = cache_folder()
        if complete(where):
            return where
        raise RuntimeMissing("the MicroPython WebAssembly runtime %s is not in %s: fetch it once with `%s` "
                             "(it downloads %s from the npm registry)" % (VERSION, where, FIX, PACKAGE))
    if complete(where):
        return where
    raise RuntimeMissing("%s does not hold %s and %s: fetch them with `%s` (or `%s --wasm DIR` to put "
                         "them in a folder of your own)" % (source, FILES[0], FILES[1], FIX, FIX))


def check_integrity(data, integrity=INTEGRITY):
    """Raise FetchError unless ``data`` matches an npm ``sha512-<base64>`` integrity string."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise FetchError("unsupported integrity %r (expected sha512-...)" % integrity)
    got = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != expected:
        raise FetchError("the tarball does not match its integrity: expected sha512-%s, got sha512-%s; "
                         "nothing was kept" % (expected, got))


def download(url, timeout=60.0, limit=MAX_TARBALL):
    """The bytes at ``url``, all of them: a response cut short raises FetchError."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            data = response.read(limit + 1)
            length = response.headers.get("Content-Length")
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise FetchError("cannot download %s (%s)" % (url, getattr(e, "reason", None) or e)) from None
    except http.client.HTTPException as e:
        raise FetchError("the download of %s was cut off (%s)" % (url, type(e).__name__)) from None
    if len(data) > limit:
        raise FetchError("%s is larger than %d bytes: not the runtime" % (url, limit))
    if length is not None and length.isdigit() and int(length) != len(data):
        raise FetchError("the download of %s was cut off (%d of %s bytes)" % (url, len(data), length))
    return data


def unpack(data):
    """``{name: bytes}`` of the kept files in an npm tarball (``package/NAME``), read
    member by member (nothing is extracted by the tar's own paths), its version checked."""
    found = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                name = member.name[len("package/"):] if member.name.startswith("package/") else None
                if name in KEPT and member.isfile():
                    found[name] = tar.extractfile(member).read()
    except (tarfile.TarError, OSError, EOFError) as e:
        raise FetchError("the tarball cannot be read (%s)" % e) from None
    missing = [name for name in KEPT if name not in found]
    if missing:
        raise FetchError("the tarball lacks %s" % ", ".join("package/" + n for n in missing))
    try:
        meta = json.loads(found["package.json"])
    except ValueError as e:
        raise FetchError("the tarball's package.json is not JSON (%s)" % e) from None
    if not isinstance(meta, dict) or meta.get("name") != PACKAGE or meta.get("version") != VERSION:
        raise FetchError("the tarball holds %s %s, not %s %s" % (
            meta.get("name") if isinstance(meta, dict) else "?",
            meta.get("version") if isinstance(meta, dict) else "?", PACKAGE, VERSION))
    return found


def fetch(dest=None, *, url=TARBALL, integrity=INTEGRITY, timeout=60.0):
    """Download the pinned runtime into ``dest`` (default: the cache), replacing what was
    there; returns the folder. Raises FetchError, leaving ``dest`` as it was."""
    dest = Path(dest) if dest else cache_folder()
    data = download(url, timeout)
    check_integrity(data, integrity)
    files = unpack(data)
    parent = dest.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".%s." % dest.name, suffix=".part", dir=parent))
    except OSError as e:
        raise FetchError("cannot write in %s (%s)" % (parent, e.strerror or e)) from None
    old = None
    try:
        for name, content in files.items():
            (work / name).write_bytes(content)
        work.chmod(0o755)
        if dest.exists():
            old = parent / (".%s.old.%d" % (dest.name, os.getpid()))
            os.replace(dest, old)
        os.replace(work, dest)
    except OSError as e:
        if old is not None and not dest.exists():
            with contextlib.suppress(OSError):
                os.replace(old, dest)
            old = None
        raise FetchError("cannot write the runtime to %s (%s)" % (dest, e.strerror or e)) from None
    finally:
        for left in (work, old):
            if left is not None and left.exists():
                shutil.rmtree(left, ignore_errors=True)
    return dest


def version_of(folder):
    """The version in ``folder``'s package.json, or None."""
    try:
        return json.loads((Path(folder) / "package.json").read_text()).get("version")
    except (OSError, ValueError, AttributeError):
        return None


if __name__ == "__main__":
    print(fetch())
