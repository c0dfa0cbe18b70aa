"""What a board gets, read from ``firmware/manifest.py``; and the mip ``package.json``.

The manifest is MicroPython's own format (``package``, ``module``, ``include``, ...), so
the file that freezes the firmware into a build is also the list ``courtside deploy``
sends. Here it is read by running it with stand-ins for those functions: ``package``
and ``module`` name files, the rest (the port's own manifest, metadata) is not ours.

    files(firmware)                 # ["courtside/__init__.py", ...]
    package_json(firmware)          # the dict of firmware/package.json

``python -m courtside_host.link.manifest`` rewrites ``firmware/package.json`` after a module
is added or removed (a test fails while it is out of date).
"""

import json
import re
import sys
from pathlib import Path

ROOT_FILES = ("main.py", "boot.py")     # on the flash beside the package
PACKAGE = "courtside"                   # the package that holds the firmware's VERSION
PINMAP = "../hardware/pinmap.json"      # the default map, as mip fetches it


class ManifestError(ValueError):
    pass


def files(firmware):
    """The package files the manifest names, relative to ``firmware``, sorted."""
    firmware = Path(firmware)
    found = []

    def package(name, files=None, base_path=".", opt=None):
        root = firmware / base_path / name
        if not root.is_dir():
            raise ManifestError("manifest names package %r, not found in %s" % (name, firmware))
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" not in path.parts:
                found.append(path.relative_to(firmware / base_path).as_posix())

    def module(name, base_path=".", opt=None):
        if not (firmware / base_path / name).is_file():
            raise ManifestError("manifest names module %r, not found in %s" % (name, firmware))
        found.append(name)

    def ignored(*args, **kwargs):
        return None

    names = {"package": package, "module": module, "include": ignored, "metadata": ignored,
             "require": ignored, "freeze": ignored, "options": type("Options", (), {})()}
    path = firmware / "manifest.py"
    try:
        exec(compile(path.read_text(), str(path), "exec"), names)
    except OSError as e:
        raise ManifestError("cannot read %s (%s)" % (path, e)) from None
    return sorted(found)


def version(firmware):
    """The firmware's ``VERSION``, read from its package's ``__init__.py``."""
    try:
        text = (Path(firmware) / PACKAGE / "__init__.py").read_text()
    except OSError as e:
        raise ManifestError("cannot read the firmware's version in %s/%s/__init__.py (%s)"
                            % (firmware, PACKAGE, e.strerror or e)) from None
    m = re.search(r'^VERSION\s*=\s*"([^"]+)"', text, re.M)
    if not m:
        raise ManifestError("no VERSION in %s/%s/__init__.py" % (firmware, PACKAGE))
    return m.group(1)


def package_json(firmware):
    """mip's package description: the package and the root files, as source."""
    urls = [[name, name] for name in (*ROOT_FILES, *files(firmware))]
    urls.append(["pinmap.json", PINMAP])
    return {"urls": urls, "version": version(firmware)}


def dumps(package):
    """package.json's text: one file to a line, so a change reads as one line."""
    rows = ",\n".join("    " + json.dumps(pair) for pair in package["urls"])
    return '{\n  "urls": [\n%s\n  ],\n  "version": %s\n}\n' % (rows, json.dumps(package["version"]))


def main(argv=None):
    from courtside_host import paths
    firmware = Path(argv[0]) if argv else paths.FIRMWARE
    text = dumps(package_json(firmware))
    (firmware / "package.json").write_text(text)
    print("wrote %s (%d files)" % (firmware / "package.json", len(json.loads(text)["urls"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
