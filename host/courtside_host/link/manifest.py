"""What a board gets, read from ``firmware/manifest.py``; and the mip ``package.json``.

The manifest is MicroPython's own format (``package``, ``module``, ``include``, ...), so
the file that freezes the firmware into a build is also the list ``courtside deploy``
sends. Here it is read by running it with stand-ins for those functions: ``package``
and ``module`` name files, the rest (the port's own manifest, metadata) is not ours. The
page ``courtside web`` serves is listed the same way (``courtside_host/web/page/manifest.py``).

    files(firmware)                 # ["courtside/__init__.py", ...]
    read(path, {"FIRMWARE": ...})   # [(source, "courtside/core.py", opt), ...]: any manifest
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


VARIABLE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def read(path, variables=None):
    """Every file the manifest at ``path`` names, in the order named, as (source, name, opt):
    ``source`` the file's path, ``name`` where it goes (``courtside/core.py``), ``opt`` the
    optimisation level asked for (None). As MicroPython reads a manifest: ``package(name,
    files=None, base_path=".", opt=None)`` is every ``.py`` under ``base_path/name`` (or
    the ``files`` named, relative to it), ``module(name, base_path=".", opt=None)`` one
    file, a relative ``base_path`` is from the manifest's folder, and ``$(NAME)`` in one is
    ``variables[NAME]`` (as ``makemanifest.py -v NAME=PATH`` gives it). ``include``,
    ``require``, ``metadata`` and ``freeze`` are the port's or mip's business, not read."""
    path = Path(path)
    folder = path.parent
    variables = {name: str(value) for name, value in (variables or {}).items()}
    found = []

    def base(base_path):
        def value(m):
            if m.group(1) not in variables:
                raise ManifestError("%s uses $(%s), which nothing gives" % (path, m.group(1)))
            return variables[m.group(1)]
        return folder / VARIABLE.sub(value, base_path)

    def package(name, files=None, base_path=".", opt=None):
        root = base(base_path)
        if not (root / name).is_dir():
            raise ManifestError("manifest names package %r, not found in %s" % (name, root))
        if files is None:
            named = [p for p in sorted((root / name).rglob("*.py")) if "__pycache__" not in p.parts]
        else:
            named = [root / name / file for file in files]
        for source in named:
            if not source.is_file():
                raise ManifestError("manifest names %r in package %r, not found in %s"
                                    % (source.relative_to(root / name).as_posix(), name, root))
            found.append((source, source.relative_to(root).as_posix(), opt))

    def module(name, base_path=".", opt=None):
        root = base(base_path)
        if not (root / name).is_file():
            raise ManifestError("manifest names module %r, not found in %s" % (name, root))
        found.append((root / name, name, opt))

    def ignored(*args, **kwargs):
        return None

    names = {"package": package, "module": module, "include": ignored, "metadata": ignored,
             "require": ignored, "freeze": ignored, "options": type("Options", (), {})()}
    try:
        exec(compile(path.read_text(), str(path), "exec"), names)
    except OSError as e:
        raise ManifestError("cannot read %s (%s)" % (path, e)) from None
    return found


def files(firmware):
    """The package files ``firmware/manifest.py`` names, relative to ``firmware``, sorted."""
    return sorted(name for _, name, _ in read(Path(firmware) / "manifest.py"))


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
