"""The built-in functions of cint-core-1 (SPEC-04P.1 LS-145; SPEC-01P.1 sections 4 to 6): one row each.

A row says what a built-in is: the name the checker records on the call (``e.bname``; the forms of
``min`` and ``max`` over arrays are rows of their own, ``spelled`` as written), the counts of arguments
it takes, the families of their types, its result type, the identifiers of its faults (built by
opnames from the checked call), its fuel (IM-139: 0, or ceil(n/64) for a reduction), whether it counts
a step, whether a call with constant arguments is folded at compile time (LS-266), and, per executor,
whether the executor implements it or refuses it (C9102) and why.

The checker and each executor dispatch a call by its row's name through a :class:`Registry` of their own
(``check/builtins.py``, ``interp/builtins.py``, ``backend/c17/builtins.py``): one handler registered per
row, the model being Numba's typing and lowering registries.  ``tests/test_builtins_table.py`` checks that
every row has a typing handler and, on each executor, a handler or a listed refusal, never both.

Adding a built-in: a row here, a handler in each of the three registries (or a refusal in the row), and
its operation in ``semantics/intmachine.py`` when it is new (docs/architecture.md, the recipe).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.reductions import BY_CALL, REDUCTIONS

REF, CPU = "cpu-sir-interp", "cpu-c17"
EXECUTORS = (REF, CPU)

# the families of argument types a row names (`T` is one type shared by the arguments that name it)
FAMILIES = {
    "integer": "an integer type I8..I1024, U8..U64",
    "signed": "a signed integer type",
    "unsigned": "an unsigned integer type",
    "number": "an integer type or a fixed-point type Q<i>.<f>",
    "fixed": "a fixed-point type Q<i>.<f>",
    "mode": "a rounding mode (SPEC-01P.1 4.5)",
    "type": "a type (the result type)",
    "fold op": "`add` or `mul`",
    "integer array": "an array or view of integers, any rank",
    "Bool array": "an array or view of Bool, any rank",
    "array": "an array or view, any rank and element",
    "rank-1 array": "an array or view of rank 1",
    "U8 view": "a U8 view of rank 1",
    "string": "a string literal with holes",
    "dimension": "a constant I64 dimension",
    "struct type": "a struct type",
    "field": "a field name of that struct",
    "any": "a value of any type the row's notes allow",
}

ALL = -1                                    # typed_by: every argument

REFUSED_EVERYWHERE = "not yet supported (docs/status.md): SPEC-04P.1 names it, this implementation does not run it"


@dataclass(frozen=True)
class Builtin:
    name: str                               # the call's built-in name (e.bname), the key of every registry
    arity: Tuple[int, ...]                  # the argument counts it takes
    args: Tuple[str, ...]                   # the families of its argument types, in order (FAMILIES)
    result: str                             # its result type
    faults: Optional[Callable] = None       # the checked call -> the identifiers of its faults (opnames)
    fuel: str = "0"                         # fuel-v1 units (IM-139)
    step: bool = True                       # counts one step (a kernel's step ordinals)
    const: bool = True                      # a call with constant arguments folds at compile time (LS-266)
    clause: str = "LS-145"
    spelled: str = ""                       # the name as written, where it is not `name` (min, max)
    reserved: bool = True                   # declaring a function of its name is C3001 (`offset` is not)
    family: str = "scalar"                  # scalar, result, fixed, reduction, array, text, layout, proposed, refused
    refused: Tuple[Tuple[str, str], ...] = ()   # (executor, why) where an executor refuses the built-in
    limits: Tuple[Tuple[str, str], ...] = ()    # (executor, what it refuses of it): argument types it does not run
    typed_by: Tuple[int, ...] = ()          # the arguments whose type the result is: untyped when they all
                                            # are (LS-56 rule 7); (ALL,) for every argument

    @property
    def written(self) -> str:
        return self.spelled or self.name

    def refusal(self, executor: str) -> Optional[str]:
        return dict(self.refused).get(executor)


def _t(name, form="checked"):
    return lambda c: (O.op(name, form, c.T),)


def _tm(name, form="checked"):
    return lambda c: (O.op(name, form, c.T, mode=c.mode),)


def _red(kind):
    r = REDUCTIONS[kind]
    return lambda c: (r.opid(c.elem, c.R, c.fold_op or "add"),)


_NUM, _INT, _ARR = ("number",), ("integer",), ("array",)
_NO_Q_CPU = ((CPU, "on fixed-point operands"),)
_NO_WIDE_CPU = ((CPU, "on I128 and wider"),)

_ROWS = [
    # scalar operations whose result is the operand type T (LS-56 rule 7 types untyped operands)
    Builtin("abs", (1,), _NUM, "T", _t("abs"), clause="LS-145, IM-48", limits=_NO_Q_CPU, typed_by=(ALL,)),
    Builtin("min", (2,), _NUM * 2, "T", clause="LS-145, IM-49", limits=_NO_Q_CPU, typed_by=(ALL,)),
    Builtin("max", (2,), _NUM * 2, "T", clause="LS-145, IM-49", limits=_NO_Q_CPU, typed_by=(ALL,)),
    Builtin("clamp", (3,), _NUM * 3, "T", _t("clamp"), clause="LS-145, IM-49, C6006", limits=_NO_Q_CPU, typed_by=(ALL,)),
    Builtin("div_trunc", (2,), _INT * 2, "T", _t("div_trunc"), clause="LS-145, IM-40", typed_by=(ALL,)),
    Builtin("rem_trunc", (2,), _INT * 2, "T", _t("rem_trunc"), clause="LS-145, IM-40", typed_by=(ALL,)),
    Builtin("div_euclid", (2,), _INT * 2, "T", _t("div_euclid"), clause="LS-145, IM-41", typed_by=(ALL,)),
    Builtin("rem_euclid", (2,), _INT * 2, "T", _t("rem_euclid"), clause="LS-145, IM-41", typed_by=(ALL,)),
    Builtin("isqrt", (1,), _INT, "T", _t("isqrt"), clause="LS-145, IM-52", typed_by=(ALL,)),
    # other named scalar operations
    Builtin("uabs", (1,), ("signed",), "the unsigned type of T's width (I8..I64)", clause="LS-145, IM-48"),
    Builtin("div_round", (3,), _INT * 2 + ("mode",), "T", _tm("div_round"), clause="LS-145, IM-44", typed_by=(0, 1)),
    Builtin("isqrt_round", (2,), _INT + ("mode",), "T", _tm("isqrt_round"), clause="LS-145, IM-53", typed_by=(0,)),
    Builtin("rotl", (2,), ("unsigned", "integer"), "T", _t("rotl"), clause="LS-145, IM-47", limits=_NO_WIDE_CPU, typed_by=(0,)),
    Builtin("rotr", (2,), ("unsigned", "integer"), "T", _t("rotr"), clause="LS-145, IM-47", limits=_NO_WIDE_CPU, typed_by=(0,)),
    Builtin("divmod", (2,), _INT * 2, "(T, T)", _t("divmod"), clause="LS-145, IM-42", limits=_NO_WIDE_CPU),
    Builtin("mul_full", (2,), _INT * 2, "the integer type of twice T's width (not U64, not I1024)",
            clause="LS-145, IM-50"),
    Builtin("muldiv", (5,), ("type",) + _INT * 3 + ("mode",), "R, the type argument",
            lambda c: (O.op("muldiv", "checked", c.T, c.R, mode=c.mode),), clause="LS-145, IM-51"),
    # result forms (LS-96, IM-188): never a fault, the error value of the fault the checked form raises
    Builtin("add_result", (2,), _INT * 2, "ArithError!T", const=False, family="result", clause="LS-96, IM-188"),
    Builtin("sub_result", (2,), _INT * 2, "ArithError!T", const=False, family="result", clause="LS-96, IM-188"),
    Builtin("mul_result", (2,), _INT * 2, "ArithError!T", const=False, family="result", clause="LS-96, IM-188"),
    Builtin("div_result", (2,), _INT * 2, "ArithError!T", const=False, family="result", clause="LS-96, IM-188"),
    Builtin("rem_result", (2,), _INT * 2, "ArithError!T", const=False, family="result", clause="LS-96, IM-188"),
    Builtin("shl_result", (2,), _INT * 2, "ArithError!T", const=False, family="result", clause="LS-96, IM-188"),
    # fixed point (IM-64 to IM-67)
    Builtin("mul", (3,), ("fixed", "fixed", "mode"), "Q", _tm("mul"), family="fixed", clause="LS-145, IM-64"),
    Builtin("mul_wrap", (3,), ("fixed", "fixed", "mode"), "Q", _tm("mul", "wrap"), family="fixed",
            clause="LS-145, IM-64"),
    Builtin("mul_sat", (3,), ("fixed", "fixed", "mode"), "Q", _tm("mul", "sat"), family="fixed",
            clause="LS-145, IM-64"),
    Builtin("div", (3,), ("fixed", "fixed", "mode"), "Q", _tm("div"), family="fixed", clause="LS-145, IM-65"),
    Builtin("sqrt", (1, 2), ("fixed", "mode"), "Q (mode half_even when not given)", _tm("sqrt"), family="fixed",
            clause="LS-145, IM-67"),
    Builtin("sqrt_wrap", (1, 2), ("fixed", "mode"), "Q", _tm("sqrt", "wrap"), family="fixed", clause="LS-145, IM-67"),
    Builtin("sqrt_sat", (1, 2), ("fixed", "mode"), "Q", _tm("sqrt", "sat"), family="fixed", clause="LS-145, IM-67"),
    # reductions (semantics/reductions.py): fuel ceil(n/64), never folded at compile time
    Builtin("sum", (1, 2), ("type", "integer array"), REDUCTIONS["sum"].result, _red("sum"), "ceil(n/64)",
            const=False, family="reduction", clause="LS-145, IM-77, IM-81"),
    Builtin("sum_wrap", (1,), ("integer array",), REDUCTIONS["sum_wrap"].result, None, "ceil(n/64)",
            const=False, family="reduction", clause="LS-145, IM-82"),
    Builtin("sum_sat", (1,), ("integer array",), REDUCTIONS["sum_sat"].result, None, "ceil(n/64)",
            const=False, family="reduction", clause="LS-145, IM-82"),
    Builtin("fold_checked", (3,), ("fold op", "integer", "integer array"), REDUCTIONS["fold_checked"].result,
            _red("fold_checked"), "ceil(n/64)", const=False, family="reduction", clause="LS-145, IM-83"),
    Builtin("count", (1,), ("Bool array",), REDUCTIONS["count"].result, None, "ceil(n/64)", const=False,
            family="reduction", clause="LS-145, IM-84"),
    Builtin("reduce_min", (1,), ("integer array",), REDUCTIONS["min"].result, _red("min"), "ceil(n/64)",
            const=False, spelled="min", family="reduction", clause="LS-145, IM-77, IM-85"),
    Builtin("reduce_max", (1,), ("integer array",), REDUCTIONS["max"].result, _red("max"), "ceil(n/64)",
            const=False, spelled="max", family="reduction", clause="LS-145, IM-77, IM-85"),
    Builtin("min_init", (2,), ("integer", "integer array"), REDUCTIONS["min"].result, None, "ceil(n/64)",
            const=False, spelled="min", family="reduction", clause="LS-145, IM-77"),
    Builtin("max_init", (2,), ("integer", "integer array"), REDUCTIONS["max"].result, None, "ceil(n/64)",
            const=False, spelled="max", family="reduction", clause="LS-145, IM-77"),
    Builtin("dot", (3,), ("type", "rank-1 array", "rank-1 array"), REDUCTIONS["dot"].result, _red("dot"),
            "ceil(n/64)", const=False, family="reduction", clause="LS-145, IM-87"),
    # arrays and views (LS-65 to LS-72); len, extent, size and lower read a shape and count no step
    Builtin("len", (1,), ("rank-1 array",), "I64 (also of a Str)", step=False, const=False, family="array"),
    Builtin("extent", (2,), ("array", "dimension"), "I64", step=False, family="array"),
    Builtin("size", (1,), _ARR, "I64", step=False, family="array"),
    Builtin("lower", (2,), ("array", "dimension"), "I64", step=False, family="array"),
    Builtin("copy", (2,), ("array", "array"), "void", lambda c: (O.COPY_SHAPE, O.COPY_ALIAS), family="array",
            clause="LS-70, IM-187"),
    Builtin("fill", (2,), ("array", "any"), "void", family="array"),
    Builtin("equal", (2,), ("array", "array"), "Bool", family="array",
            limits=((CPU, "on arrays of structs"),)),
    Builtin("transpose", (1,), _ARR, "a view of rank 2, dimensions exchanged", family="array"),
    Builtin("reverse", (2,), ("array", "dimension"), "a view, dimension d reversed", family="array"),
    # text (LS-216, LS-217, section 6.8; decision 26): they evaluate their own arguments
    Builtin("format", (2,), ("U8 view", "string"), "FormatError!Str", step=False, const=False, family="text",
            clause="LS-216"),
    Builtin("utf8", (1,), ("U8 view",), "Utf8Error!Str", const=False, family="text", clause="section 6.8"),
    Builtin("swap", (2,), ("array", "array"), "void", const=False, family="text", clause="section 6.8"),
    # layout (LS-76): a compile-time constant; `offset` is not a reserved name
    Builtin("offset", (2,), ("struct type", "field"), "I64, a constant", step=False, reserved=False,
            family="layout", clause="LS-76"),
    # Proposed (docs/language.md decision 30)
    Builtin("wrap_bits", (2,), ("signed", "dimension"), "T", family="proposed", clause="LS-83 (Proposed)",
            limits=((REF, "on I128 and wider"), (CPU, "on I128 and wider"))),
]
# names SPEC-04P.1 gives that this implementation refuses on every executor (C9102 at check)
for _name, _why in (("reshape", "reshape"), ("random", "random"), ("embed", "embed"), ("to_device", "devices"),
                    ("to_host", "devices"), ("sign", "ternary values (SPEC-05)"), ("rescale3", "ternary values"),
                    ("rescale3_rem", "ternary values"), ("shl3", "ternary values"), ("tdot", "ternary values")):
    _ROWS.append(Builtin(_name, (), (), "", family="refused", clause="LS-145",
                         refused=tuple((x, "%s: %s" % (REFUSED_EVERYWHERE, _why)) for x in EXECUTORS)))

BUILTINS: Dict[str, Builtin] = {r.name: r for r in _ROWS}
assert len(BUILTINS) == len(_ROWS)
assert all(name in BUILTINS for name in BY_CALL)

# the names a program writes: what `declare` refuses (C3001) and calls resolve to when nothing else is named so
WRITTEN = frozenset(r.written for r in _ROWS if r.reserved)
# every name a call may resolve to a built-in by (`offset` too)
CALLABLE = frozenset(r.written for r in _ROWS)


def row(name: str) -> Builtin:
    return BUILTINS[name]


class Registry:
    """The handlers of one phase (the checker, or an executor), one per row name: Numba's typing and lowering
    registries in small.  ``@registry.register("abs", "min")`` registers a function for those rows."""

    def __init__(self, phase: str):
        self.phase = phase
        self.handlers: Dict[str, Callable] = {}

    def register(self, *names: str):
        def deco(fn):
            for n in names:
                if n not in BUILTINS:
                    raise KeyError("%s: no built-in row is named %r (semantics/builtins.py)" % (self.phase, n))
                if n in self.handlers:
                    raise KeyError("%s: the built-in %r has a handler already" % (self.phase, n))
                self.handlers[n] = fn
            return fn
        return deco

    def get(self, name: str) -> Optional[Callable]:
        return self.handlers.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self.handlers
