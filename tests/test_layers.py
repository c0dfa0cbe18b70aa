"""The laptop package's layers, read from its source: no import cycles among the modules of
``courtside_host`` (imports inside functions count too), and no library module importing a
command (``courtside_host.commands``: only ``cli`` and the commands themselves may); and
the subpackages as layers (no two import each other; ``link`` stands on nothing but
``paths``, the views on ``link`` at most).

The graph is built from the AST, so a module is never run to be checked; ``vpico/pico/``
holds the virtual Pico's board-side scripts, run by the MicroPython unix port, not modules
of this package.

And the packages by where they run: what goes to a board (``courtside``) and what runs on
any Python (``courtside_sim``, ``courtside_follow``) never import the laptop-only package;
the board's package never imports the follower, and of it only the drivers (``start``,
``bringup``) start the simulated board. (Not held here yet: ``courtside.pins`` and
``courtside.pinmap`` import each other.)"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "host" / "courtside_host"
NAME = "courtside_host"
BOARD_SIDE = PACKAGE / "vpico" / "pico"


def module_name(path):
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [NAME, *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package=PACKAGE):
    """Every module of the package: name -> path."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        if BOARD_SIDE in path.parents or "__pycache__" in path.parts:
            continue
        found[module_name(path)] = path
    return found


def imported(path, name, known):
    """The package's modules that the module ``name`` at ``path`` imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                source = base + ("." + node.module if node.module else "")
            else:
                source = node.module or ""
            # ``from package import name``: name is a module when there is one by that name
            targets = [source + "." + alias.name if source + "." + alias.name in known else source
                       for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def graph(package=PACKAGE):
    known = modules(package)
    return {name: imported(path, name, known) for name, path in known.items()}


def cycles(edges):
    """Each strongly connected set of more than one module (or a module importing itself)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges.get(v, ()):
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def is_command(name):
    return name == NAME + ".commands" or name.startswith(NAME + ".commands.")


def test_the_graph_is_read_from_the_package():
    edges = graph()
    assert len(edges) > 40
    # a few edges known to be there, of each import form
    assert NAME + ".link.port" in edges[NAME + ".commands.deploy"]      # from PACKAGE.MODULE import
    assert NAME + ".link.manifest" in edges[NAME + ".link.deploy"]      # from PACKAGE import MODULE
    assert NAME + ".hwdocs.parts" in edges[NAME + ".hwdocs.layout"]     # from .MODULE import
    assert NAME + ".views.render" in edges[NAME + ".views.monitor"]
    assert NAME + ".vpico.runner" in edges[NAME + ".cli"]               # inside a function


def test_no_import_cycles():
    assert cycles(graph()) == []


def package_of(name):
    """The subpackage a module is in (``link``, ``views``, ...), or the module itself at the top."""
    return name.split(".")[1] if name != NAME else NAME


def test_the_packages_are_layers():
    """Not only modules: no two packages import each other, even through different modules."""
    edges = {}
    for name, targets in graph().items():
        edges.setdefault(package_of(name), set()).update(
            package_of(t) for t in targets if package_of(t) != package_of(name))
    assert cycles(edges) == []
    assert "commands" not in set().union(*(v for k, v in edges.items() if k != "cli"))
    assert edges["link"] <= {"paths", "files"} and edges["views"] <= {"link", "paths", "files"}
    assert edges.get("files", set()) == set()          # a leaf, as paths is


def test_no_library_module_imports_a_command():
    edges = graph()
    wrong = {name: sorted(filter(is_command, targets)) for name, targets in edges.items()
             if name != NAME + ".cli" and not is_command(name) and any(map(is_command, targets))}
    assert wrong == {}


@pytest.mark.parametrize("source, expect", [
    ("import courtside_host.b\n", {"courtside_host.b"}),
    ("from courtside_host import b\n", {"courtside_host.b"}),
    ("def f():\n    from . import b\n", {"courtside_host.b"}),
    ("from .b import x\n", {"courtside_host.b"}),
    ("from courtside_host.b import x as y\n", {"courtside_host.b"}),
])
def test_each_import_form_is_an_edge(tmp_path, source, expect):
    (tmp_path / "a.py").write_text(source)
    (tmp_path / "b.py").write_text("x = 1\n")
    known = {"courtside_host.a": tmp_path / "a.py", "courtside_host.b": tmp_path / "b.py"}
    assert imported(tmp_path / "a.py", "courtside_host.a", known) == expect


def test_a_cycle_and_a_library_importing_a_command_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# The packages by where they run: ``courtside`` goes to a board (and runs everywhere);
# ``courtside_sim`` and ``courtside_follow`` run on any Python (the laptop, the unix port,
# the page) and never go to a board; ``courtside_host`` runs on the laptop alone.
FIRMWARE = ROOT / "firmware"
COMMON = ROOT / "common"
ANY_PYTHON = ("courtside_sim", "courtside_follow")
# The firmware's drivers: what starts the core on a board or a simulated one (they may
# reach the simulated board, ``courtside_sim``); the rest of ``courtside`` is the core and
# its hardware layer, which never do.
DRIVERS = ("courtside.start", "courtside.bringup")


def imports_of(root, package):
    """{module: the top packages and courtside modules it imports, anywhere in it}."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(root).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets.add(node.module)
        found[name] = targets
    return found


def test_code_that_runs_anywhere_never_reaches_the_laptop_only_package():
    for package in ("courtside",) + ANY_PYTHON:
        for name, targets in imports_of(FIRMWARE if package == "courtside" else COMMON, package).items():
            assert not [t for t in targets if t.split(".")[0] == NAME], name


def test_what_goes_to_a_board_reaches_no_laptop_package_and_only_its_drivers_the_simulator():
    """The board's package never imports the follower (the laptop's reading of the stream);
    of it only the drivers start the simulated board, never the core or the hardware layer."""
    modules = imports_of(FIRMWARE, "courtside")
    assert len(modules) > 30 and set(DRIVERS) <= set(modules)
    for name, targets in modules.items():
        tops = {t.split(".")[0] for t in targets}
        assert "courtside_follow" not in tops, name
        if name not in DRIVERS:
            assert "courtside_sim" not in tops, name


def test_the_simulator_and_the_follower_stand_apart():
    """The follower reads a stream from anywhere: it never needs the simulated board; the
    simulated board writes a stream and never needs its reader."""
    for name, targets in imports_of(COMMON, "courtside_follow").items():
        assert not [t for t in targets if t.startswith("courtside_sim")], name
    for name, targets in imports_of(COMMON, "courtside_sim").items():
        assert not [t for t in targets if t.startswith("courtside_follow")], name
