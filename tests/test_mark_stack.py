"""No table the firmware keeps is too wide for MicroPython's collector to mark in one go.

MicroPython marks the heap depth first, keeping the blocks it has still to look into on a
stack of 64 (``MICROPY_ALLOC_GC_STACK_SIZE`` on the rp2 port). A block that holds more
objects not yet marked than the stack has room for makes it give up its place and, once
it is done, look through the whole heap again for blocks whose children were missed. On
the chip that doubled every collection (9-11 ms to 21-22 ms) once the encoder's dict of
quoted names had grown past 50 entries in a session (docs/firmware.md, "Collections").

The rule these tests hold: no container the firmware keeps — module data, class data, the
core and everything it holds after a Dodge Ball game and a refereed Deathball game, the
encoder's names once every kind of line has been written — holds more than ``WIDEST``
objects that a MicroPython heap would have to mark (ints of 2**30 or more, floats, bytes,
lists, tuples, dicts, instances; not small ints, None, booleans or strings, which the
firmware's are interned). Modules' and classes' own namespaces are not data and are left
out (the widest, ``RefereeMode``, holds 48 functions: measured on the chip, it does not
overflow the stack).

A storm's contest is held here too: 150 presses open in one contest. A contest keeps its
presses in columns of numbers (``arbiter.Contest``), which hold nothing to mark; as a list
of objects it held one per press, and on the chip every collection in a storm overflowed
the stack on it.
"""

import subprocess
import sys
import types

from conftest import FIRMWARE
from corerig import Rig
from courtside import events

WIDEST = 32


def _heapish(v):
    if v is None or isinstance(v, (bool, str, types.ModuleType, types.FunctionType, type)):
        return False
    if isinstance(v, int):
        return not -(1 << 30) <= v < (1 << 30)
    return not (isinstance(v, tuple) and not v)       # the empty tuple is not on the heap


def _firmware(module_name):
    return module_name == "courtside" or module_name.startswith("courtside.")


def _ours(v):
    return _firmware(type(v).__module__)


def widest(roots):
    """(count, where) of the widest container reachable from ``roots`` ({name: object})."""
    seen = set()
    found = []
    todo = list(roots.items())
    while todo:
        where, v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, dict):
            kids = [(where + "[%r]" % (k,), x) for k, x in v.items()]
            kids += [(where + " key", k) for k in v if _heapish(k)]
        elif isinstance(v, (list, tuple, set, frozenset)):
            kids = [(where + "[%d]" % i, x) for i, x in enumerate(v)]
        elif _ours(v) and hasattr(v, "__dict__") and not isinstance(v, type):
            kids = [(where + "." + k, x) for k, x in vars(v).items()]
        else:
            continue
        found.append((sum(1 for _, x in kids if _heapish(x)), where))
        todo.extend(kids)
    return max(found)


def _module_data():
    roots = {}
    for name, module in sorted(sys.modules.items()):
        if not _firmware(name):
            continue
        for key, v in vars(module).items():
            if key.startswith("__") or isinstance(v, (types.ModuleType, types.FunctionType)):
                continue
            if isinstance(v, type):
                if v.__module__ == name:
                    for attr, av in vars(v).items():
                        if not attr.startswith("__") and not callable(av):
                            roots["%s.%s.%s" % (name, key, attr)] = av
                continue
            roots[name + "." + key] = v
    return roots


def _every_line_written():
    for kind in events.kinds():
        always, sometimes = events.fields_of(kind)
        events.encode(kind, 1, {n: 1 for n in always + sometimes})


def _dodgeball_game():
    rig = Rig("dodgeball", players=(0, 1, 2, 3))
    for k in range(60):
        rig.press(k % 4, k % 3)
        if k % 7 == 0:
            rig.chord([(k % 4, 0), ((k + 1) % 4, 1)], gap_us=40)
    rig.settle()
    for line in ("help", "get", "ping"):
        rig.cmd(line)
    return rig.core


STORM = 150


def _storm_contest():
    """A Dodge Ball core with a storm's contest open: ``STORM`` presses on every box in a
    10 s window."""
    rig = Rig("dodgeball", players=(0, 1, 2, 3), settings={"contest_ms": 10000})
    rig.settle()
    for k in range(STORM):
        rig.press(k % 4, k // 4 % 4)
    contest = rig.core.stage.arbiter.open
    assert contest is not None and len(contest) == STORM
    return rig.core


def _refereed_game():
    rig = Rig("referee", (0, 1, 2, 3), 2)
    assert rig.play_referee(most=400) > 0
    return rig.core


def test_no_table_of_the_firmware_is_too_wide_for_the_mark_stack():
    dodge = _dodgeball_game()
    referee = _refereed_game()
    _every_line_written()
    roots = _module_data()
    roots["a Dodge Ball core"] = dodge
    roots["a referee core"] = referee
    roots["a core in a storm's contest"] = _storm_contest()
    count, where = widest(roots)
    assert count <= WIDEST, "%s holds %d objects to mark" % (where, count)


def test_the_rule_sees_a_wide_table():
    # the check itself: a dict of 40 bytes objects, as the quoted names once were, fails it
    count, where = widest({"names": {"n%d" % i: b'"n"' for i in range(40)}, "small": [1, 2]})
    assert (count, where) == (40, "names")
    count, _ = widest({"big ints": [1 << 30, 5, 1 << 31], "floats": (0.5,)})
    assert count == 2


SHELVES = """
import sys
sys.path.insert(0, %r)
from courtside import events, dodgeball, lobby
from courtside.deathball import modes, diemode
for kind in events.kinds():
    always, sometimes = events.fields_of(kind)
    events.encode(kind, 1, {n: 1 for n in always + sometimes})
print(len(events._QUOTED), max(len(s) for s in events._QUOTED), sum(len(s) for s in events._QUOTED))
"""


def test_the_quoted_names_sit_on_shelves_on_micropython(micropython):
    # MicroPython's string hash, as on the chip: no shelf of the encoder's names is wide
    out = subprocess.run([micropython, "-c", SHELVES % str(FIRMWARE)], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    shelves, fullest, names = map(int, out.stdout.split())
    assert names > 180               # every kind and field name, the referee's words
    # marking one shelf, the tuple's other shelves and that shelf's words wait on the
    # collector's stack together: 32 shelves (the fullest 14) made the sum 46 and overflowed it
    # on the chip in 6 collections of 227; 16 shelves (the fullest 17) make it 33
    assert shelves + fullest <= 36, out.stdout

