"""Helpers of the C text of the LIR back end: C types and literals of the LIR's types, indented lines, and
small facts about values and loops."""
from __future__ import annotations

from typing import List

from cint_compiler.lower import lir as L
from cint_compiler.semantics.types import BOOL

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

def ctype(t) -> str:
    if t == BOOL:
        return "uint8_t"
    return "%sint%d_t" % ("" if t.signed else "u", t.bits)


def utype(t) -> str:
    return "uint8_t" if t == BOOL else "uint%d_t" % t.bits


def tag(t) -> str:
    return "CINT_TAG_BOOL" if t == BOOL else "CINT_TAG_%s" % t.name()


def lit(t, v: int) -> str:
    """A C constant of type t with value v."""
    v = int(v)
    if t == BOOL:
        return "1" if v else "0"
    if t.bits == 64:
        if t.signed:
            return "INT64_MIN" if v == INT64_MIN else "INT64_C(%d)" % v
        return "UINT64_C(%d)" % v
    if t.signed:
        return "((%s)%d)" % (ctype(t), v) if v >= -(1 << 31) + 1 else "((%s)(%d - 1))" % (ctype(t), v + 1)
    return "((%s)%du)" % (ctype(t), v)


def i64(v: int) -> str:
    return "INT64_MIN" if v == INT64_MIN else "INT64_C(%d)" % v


class Lines:
    def __init__(self):
        self.out: List[str] = []
        self.ind = "    "

    def __call__(self, s: str):
        self.out.append(self.ind + s)

    def open(self, s: str):
        self.out.append(self.ind + s)
        self.ind += "    "

    def close(self, s: str = "}"):
        self.ind = self.ind[:-4]
        self.out.append(self.ind + s)

def _invariant(x) -> bool:
    """A value fixed for a whole dispatch: a kernel's scalar parameter or a size symbol."""
    return isinstance(x, L.Var) and x.kind in ("param", "size")


def _defined_vars(op):
    if isinstance(op, L.Let) and isinstance(op.dst, L.Var):
        yield op.dst


def _wrap(t, v):
    m = 1 << t.bits
    v %= m
    if t.signed and v >= m // 2:
        v -= m
    return v


def _mul_range(t, c):
    """The operands a of type t with a * c within t (c a constant): (lo, hi), empty when lo > hi."""
    if c == 0:
        return t.min, t.max
    if c > 0:
        lo = -((-t.min) // c) if t.min < 0 else 0
        hi = t.max // c
        return max(lo, t.min), hi
    # c < 0: a * c in [min, max] <=> a in [ceil(max / c), floor(min / c)]
    lo = -(t.max // -c)
    hi = (-t.min) // (-c) if t.min < 0 else 0
    return lo, hi


def _trip(lo, hi, st, inclusive):
    last = hi if inclusive else (hi - 1 if st > 0 else hi + 1)
    if st > 0:
        return 0 if last < lo else (last - lo) // st + 1
    return 0 if last > lo else (lo - last) // (-st) + 1


def _fast_reduce_ok(op: L.Reduce) -> bool:
    """The inline reductions of fast mode: sum of a rank-1 array, dot of elements of 32 bits or fewer."""
    if op.kind == "dot":
        return op.arr.elem.bits <= 32
    return op.arr.rank == 1 and op.arr.elem.bits <= 64
