"""The reductions of cint-core-1 (SPEC-01P.1 IM-77 to IM-87, IM-139; SPEC-04P.1 LS-145, LS-249): one table.

Each kind is a row: the built-in calls that perform it (what the checker records as the call's built-in
name: ``min(xs)`` is ``reduce_min``, ``min(init, xs)`` is ``min_init``), the rule that gives its result
type, the element types it takes, how many arrays it reads, the identifier of its fault (from opnames),
and its number in a kernel's ``reduce`` statement (the ``kind`` of the C runtime's ``cintg_reduce_add``;
``dot`` has no statement form).  Every reduction over ``n`` elements charges :func:`fuel` ``(n)`` before
it reads one (IM-139).  The checker (``check/builtins.py``, ``check/features/reduce.py``), the reference
interpreter (``interp/builtins.py``) and the C back end (``backend/c17/builtins.py``, ``reduce.py``) read
the kinds from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from cint_compiler.semantics import intmachine as M
from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.types import BOOL, I64, Type


def fuel(n: int) -> int:
    """The charge of a reduction over ``n`` elements: ceil(n / 64), 0 for none (IM-139)."""
    return (n + 63) // 64


@dataclass(frozen=True)
class Reduction:
    kind: str
    calls: Tuple[str, ...]          # the built-in names of its calls (e.bname), the plain form first
    result: str                     # the rule of its result type, in words
    elements: str                   # "integer" or "Bool"
    arrays: int                     # arrays it reads (dot: 2)
    statement: Optional[int]        # its kind in a `reduce` statement (decision 23), None where it has none
    fault: str                      # the operation of its identifier (IM-134), with `form` below
    form: str
    second_type: bool = False       # the identifier names the result type too (sum, dot; IM-132)

    def result_type(self, elem: Type, R: Optional[Type] = None) -> Type:
        """The type of a call over elements of ``elem`` with the result type argument ``R`` (sum, dot)."""
        if self.kind == "count":
            return I64
        if self.kind in ("sum", "dot"):
            return R if R is not None else elem
        return elem

    def opid(self, elem: Type, R: Optional[Type] = None, fold_op: str = "add") -> str:
        """The identifier of a fault of this reduction over ``elem`` (IM-134)."""
        if self.kind == "fold_checked":
            return O.op(self.fault, fold_op, elem)
        if self.second_type:
            return O.op(self.fault, self.form, elem, R if R is not None else elem)
        return O.op(self.fault, self.form, BOOL if self.kind == "count" else elem)


REDUCTIONS: Dict[str, Reduction] = {r.kind: r for r in (
    Reduction("sum", ("sum",), "R when given (sum(R, xs)), else the element type", "integer", 1, 0,
              "sum", "checked", second_type=True),
    Reduction("fold_checked", ("fold_checked",), "the element type", "integer", 1, 1, "fold_checked", "add"),
    Reduction("sum_wrap", ("sum_wrap",), "the element type", "integer", 1, 2, "sum_wrap", "wrap"),
    Reduction("sum_sat", ("sum_sat",), "the element type", "integer", 1, 3, "sum_sat", "sat"),
    Reduction("min", ("reduce_min", "min_init"), "the element type", "integer", 1, 4, "reduce_min", "checked"),
    Reduction("max", ("reduce_max", "max_init"), "the element type", "integer", 1, 5, "reduce_max", "checked"),
    Reduction("count", ("count",), "I64", "Bool", 1, 6, "count", "checked"),
    Reduction("dot", ("dot",), "R (dot(R, a, b))", "integer", 2, None, "dot", "checked", second_type=True),
)}

# a call's built-in name -> its reduction
BY_CALL: Dict[str, Reduction] = {name: r for r in REDUCTIONS.values() for name in r.calls}
# the kinds a kernel's `reduce` statement takes (LS-249), in the order of their numbers
STATEMENT_KINDS: Tuple[str, ...] = tuple(sorted((r.kind for r in REDUCTIONS.values() if r.statement is not None),
                                                key=lambda k: REDUCTIONS[k].statement))


# a call's built-in name -> its value over the elements xs (ys: dot's second array), with the integer
# machine's faults: (elem, R, xs, init, ys, fold_op) -> value; the caller charges fuel(n) first (IM-139)
EVALUATE = {
    "sum": lambda elem, R, xs, init, ys, op: M.reduce_sum(elem, R, xs),
    "sum_wrap": lambda elem, R, xs, init, ys, op: M.sum_wrap(elem, xs),
    "sum_sat": lambda elem, R, xs, init, ys, op: M.sum_sat(elem, xs),
    "count": lambda elem, R, xs, init, ys, op: M.count(xs),
    "reduce_min": lambda elem, R, xs, init, ys, op: M.reduce_min(elem, xs),
    "reduce_max": lambda elem, R, xs, init, ys, op: M.reduce_max(elem, xs),
    "min_init": lambda elem, R, xs, init, ys, op: M.min_init(elem, init, xs),
    "max_init": lambda elem, R, xs, init, ys, op: M.max_init(elem, init, xs),
    "fold_checked": lambda elem, R, xs, init, ys, op: M.fold_checked(op, elem, init, xs),
    "dot": lambda elem, R, xs, init, ys, op: M.dot(elem, R, xs, ys),
}
assert set(EVALUATE) == set(BY_CALL)
