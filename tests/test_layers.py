"""The laptop package's layers, read from its source: no import cycles among the modules of
``courtside_host`` (imports inside functions count too), and no library module importing a
command (``courtside_host.commands``: only ``cli`` and the commands themselves may); and
the subpackages as layers (no two import each other; ``link`` stands on nothing but
``paths``, the views on ``link`` at most).

The graph is built from the AST, so a module is never run to be checked; ``vpico/pico/``
holds the virtual Pico's board-side scripts, run by the MicroPython unix port, not modules
of this package.

And the packages by where they run, each in the folder that says so: ``firmware/`` holds
what goes to a board (``courtside``), ``common/`` what runs on any Python and is never
deployed (``courtside_sim``, ``courtside_follow``), ``host/`` what runs on the laptop alone.
The board's package imports nothing that stays off a board (not the simulated board, not
the follower, not the laptop's package), has no import cycle (``pins`` stands below
``pinmap``), and keeps its drivers (``courtside.run``: the start-up, the bring-up) apart
from the core, which never imports them; only ``main.py`` starts the simulated board, on
the virtual Pico. What runs on any Python never imports the laptop-only package."""

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


# The packages by where they run: ``firmware/`` holds what goes to a board (and runs
# everywhere), ``common/`` what runs on any Python (the laptop, the unix port, the page)
# and never goes to a board; ``courtside_host`` runs on the laptop alone.
FIRMWARE = ROOT / "firmware"
COMMON = ROOT / "common"
BOARD = "courtside"
ANY_PYTHON = ("courtside_sim", "courtside_follow")
OFF_BOARD = (*ANY_PYTHON, NAME)
# The board's drivers, a subpackage apart from the core: the start-up (the package itself,
# so a start loads no module more for it) and the bring-up.
DRIVERS = BOARD + ".run"


def packages_in(folder):
    """The packages a folder holds (its subfolders with an ``__init__.py``)."""
    return sorted(p.name for p in folder.iterdir() if (p / "__init__.py").is_file())


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
                targets.update(node.module + "." + alias.name for alias in node.names)
        found[name] = targets
    return found


def board_graph():
    """The board package's modules and the package's modules each imports, as for the
    laptop's package (``imported``: every import form, inside functions too)."""
    known = {}
    for path in sorted((FIRMWARE / BOARD).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(FIRMWARE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        known[".".join(parts)] = path
    return {name: imported(path, name, known) for name, path in known.items()}


def test_each_folder_holds_what_runs_where_it_says():
    """``firmware/`` holds the one package a board gets, every module of it named by the
    manifest deploy reads; ``common/`` holds the packages that run on any Python and
    nothing else; none of them sits in the laptop's folder."""
    from courtside_host.link import manifest
    assert packages_in(FIRMWARE) == [BOARD]
    sent = manifest.files(FIRMWARE)
    package = sorted(p.relative_to(FIRMWARE).as_posix() for p in (FIRMWARE / BOARD).rglob("*.py"))
    assert sent == package and len(sent) > 30
    assert packages_in(COMMON) == sorted(ANY_PYTHON)
    assert [p.name for p in COMMON.iterdir() if p.suffix == ".py"] == []
    assert not [p for p in PACKAGE.iterdir() if p.name in (BOARD, *ANY_PYTHON)]


def test_code_that_runs_anywhere_never_reaches_the_laptop_only_package():
    for root, package in ((FIRMWARE, BOARD), *((COMMON, p) for p in ANY_PYTHON)):
        modules = imports_of(root, package)
        assert modules, package
        for name, targets in modules.items():
            assert not [t for t in targets if t.split(".")[0] == NAME], name


def test_the_board_package_reaches_nothing_that_stays_off_a_board():
    """Not the simulated board, not the follower, not the laptop's package: nowhere in it,
    its drivers included, not even inside a function."""
    modules = imports_of(FIRMWARE, BOARD)
    assert len(modules) > 30 and DRIVERS in modules
    wrong = {name: sorted(t for t in targets if t.split(".")[0] in OFF_BOARD)
             for name, targets in modules.items()}
    assert {name: found for name, found in wrong.items() if found} == {}


def test_the_board_package_has_no_import_cycle():
    """``pins`` (the runtime view, the buttons' names) stands below ``pinmap`` (the checker),
    never both ways; and no other two modules of the board's package import each other."""
    edges = board_graph()
    assert BOARD + ".pins" in edges[BOARD + ".pinmap"]
    assert BOARD + ".pinmap" not in edges[BOARD + ".pins"]
    assert edges[BOARD + ".pins"] == set()                    # a leaf: the core's names come from it
    assert cycles(edges) == []


def test_the_drivers_stand_apart_from_the_core():
    """The drivers (``courtside.run``: the start-up and the bring-up) are a subpackage of
    their own; nothing of the core or the hardware layer imports them, and none sits among
    the core's modules."""
    edges = board_graph()
    drivers = sorted(n for n in edges if n == DRIVERS or n.startswith(DRIVERS + "."))
    assert drivers == [DRIVERS, DRIVERS + ".bringup"]
    reaching = {name: sorted(t for t in targets if t in drivers)
                for name, targets in edges.items() if name not in drivers}
    assert {name: found for name, found in reaching.items() if found} == {}
    assert BOARD + ".start" not in edges and BOARD + ".bringup" not in edges
    assert BOARD + ".driver" in edges[DRIVERS]              # the loop they drive the core with


def test_only_main_starts_the_simulated_board_and_only_off_a_pico():
    """``main.py`` starts the board's start-up, and the simulated board's only where the
    platform is not a Pico's (the virtual Pico, whose image holds it)."""
    tree = ast.parse((FIRMWARE / "main.py").read_text())
    froms = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert ("courtside", "run") in [(n.module, a.name) for n in froms for a in n.names]
    simulated = [n for n in froms if n.module.split(".")[0] in ANY_PYTHON]
    assert len(simulated) == 1 and simulated[0].module == "courtside_sim.start"
    guards = [n for n in ast.walk(tree) if isinstance(n, ast.If) and simulated[0] in n.body]
    assert len(guards) == 1 and ast.unparse(guards[0].test) == "sys.platform != 'rp2'"


def test_the_simulator_and_the_follower_stand_apart():
    """The follower reads a stream from anywhere: it never needs the simulated board; the
    simulated board writes a stream and never needs its reader."""
    for name, targets in imports_of(COMMON, "courtside_follow").items():
        assert not [t for t in targets if t.startswith("courtside_sim")], name
    for name, targets in imports_of(COMMON, "courtside_sim").items():
        assert not [t for t in targets if t.startswith("courtside_follow")], name


def test_the_buttons_are_named_in_one_place():
    """The four buttons' names, in Dodge Ball's and Deathball's words, are written in
    ``courtside.pins`` alone; every other module takes them from there."""
    from courtside import arbiter, pins
    names = set(pins.BUTTONS + pins.ARROWS)
    assert len(names) == 8
    written = {}
    for folder in (FIRMWARE, COMMON, PACKAGE):
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Constant) and node.value in names:
                    written.setdefault(path.relative_to(ROOT).as_posix(), set()).add(node.value)
    assert written == {"firmware/courtside/pins.py": names}
    assert arbiter.NAMES is pins.BUTTONS
