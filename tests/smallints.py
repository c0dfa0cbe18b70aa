"""Catch ints of 2**30 and more in the firmware's hot paths, which the unix port cannot.

MicroPython keeps an int in the object word itself only while it fits 31 bits signed on a
32-bit port (a Pico): -2**30 <= v < 2**30. Anything bigger is a heap object, made afresh by
every operation that yields it: garbage in a frame loop, an allocation in an interrupt
handler. The unix port is 64-bit, where the same code allocates nothing, so the heap tests
there cannot see it.

``load(name)`` compiles a firmware module with every arithmetic result (each ``a op b``,
``-a``, ``~a`` and augmented assignment) wrapped in a check, and returns it as a fresh
module. While ``watch()`` is active, any result outside the small-int range raises
``BigInt`` naming the file, line and value. Tests then drive the hot paths with values at
the top of their ranges.
"""

import ast
import contextlib
import importlib.util
import types

SMALL_MIN = -(1 << 30)
SMALL_END = 1 << 30


class BigInt(AssertionError):
    pass


_active = [False]


def _check(value, where):
    if _active[0] and type(value) is int and not SMALL_MIN <= value < SMALL_END:
        raise BigInt("%s: %d (0x%x) is a heap int on a 32-bit port" % (where, value, value))
    return value


class _Wrap(ast.NodeTransformer):
    def __init__(self, filename):
        self.filename = filename

    def _wrap(self, node):
        where = ast.Constant("%s:%d" % (self.filename, node.lineno))
        call = ast.Call(ast.Name("_smallint_check", ast.Load()), [node, where], [])
        return ast.copy_location(call, node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return self._wrap(node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return node
        return self._wrap(node)

    def visit_AugAssign(self, node):
        # ``x op= v`` becomes ``x = check(x op v)``: the targets here have no side effects.
        self.generic_visit(node)
        load = ast.parse(ast.unparse(node.target), mode="eval").body
        value = self._wrap(ast.copy_location(ast.BinOp(load, node.op, node.value), node))
        return ast.copy_location(ast.Assign([node.target], value), node)


def load(name, replace=None):
    """Module ``name`` (e.g. "courtside.piostamp") with its arithmetic checked.

    ``replace`` maps names in the module's namespace to objects to use instead (e.g. the
    checked version of a module it imports from), set after its imports ran."""
    spec = importlib.util.find_spec(name)
    source = open(spec.origin).read()
    short = name.replace(".", "/") + ".py"
    tree = ast.fix_missing_locations(_Wrap(short).visit(ast.parse(source)))
    module = types.ModuleType(name)
    module.__file__ = spec.origin
    module._smallint_check = _check
    exec(compile(tree, spec.origin, "exec"), module.__dict__)
    for key, value in (replace or {}).items():
        setattr(module, key, value)
    return module


@contextlib.contextmanager
def watch():
    _active[0] = True
    try:
        yield
    finally:
        _active[0] = False
