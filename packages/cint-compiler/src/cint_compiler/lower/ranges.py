"""The bounds pass: value ranges, and what they prove (docs/lir.md, "Bounds facts").

Every value gets an interval whose ends are affine in the size symbols (and in the extents of `_`
dimensions), all of which are extents: integers from 0 to 2^63 - 1.  A loop variable ranges over its loop's
range, an `over` variable over 0 .. extent - 1, a size symbol is itself; a temporary's interval follows from
its operands'; a mutable local has its type's range.  With them the pass marks:

* `Elem.proven[k]`: index k lies in 0 .. extent - 1 of its dimension (so it is in range whenever the array's
  lower bound is 0, which the back end tests once per call);
* `safe` on an arithmetic operation or a conversion that cannot fault (its exact result lies in its type).

A proved operation still counts its step (IM-114); only its check goes.  The proofs are sound and not
complete: `a <= b` is proved when b - a is a constant >= 0 plus symbols with coefficients >= 0.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from cint_compiler.lower import lir as L
from cint_compiler.semantics.types import BOOL, IntType, SymExtent

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


class Aff:
    """c + sum(coef * symbol), symbols standing for integers in 0 .. 2^63 - 1."""

    __slots__ = ("c", "terms")

    def __init__(self, c: int, terms: Tuple[Tuple[str, int], ...] = ()):
        self.c = c
        self.terms = tuple(sorted((s, k) for s, k in terms if k))

    @staticmethod
    def sym(name: str) -> "Aff":
        return Aff(0, ((name, 1),))

    def __add__(self, o: "Aff") -> "Aff":
        d = dict(self.terms)
        for s, k in o.terms:
            d[s] = d.get(s, 0) + k
        return Aff(self.c + o.c, tuple(d.items()))

    def scale(self, k: int) -> "Aff":
        return Aff(self.c * k, tuple((s, c * k) for s, c in self.terms))

    def __sub__(self, o: "Aff") -> "Aff":
        return self + o.scale(-1)

    def shift(self, k: int) -> "Aff":
        return Aff(self.c + k, self.terms)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def __repr__(self):
        return " + ".join([str(self.c)] + ["%d*%s" % (k, s) for s, k in self.terms])


def le(a: Optional[Aff], b: Optional[Aff]) -> bool:
    """a <= b for every value of the symbols (None: unbounded)."""
    if a is None or b is None:
        return False
    d = b - a
    return d.c >= 0 and all(k >= 0 for _, k in d.terms)


class Rng:
    __slots__ = ("lo", "hi")

    def __init__(self, lo: Optional[Aff], hi: Optional[Aff]):
        self.lo = lo
        self.hi = hi

    def __repr__(self):
        return "[%r, %r]" % (self.lo, self.hi)


def const(v: int) -> Rng:
    return Rng(Aff(v), Aff(v))


def of_type(t) -> Rng:
    if t == BOOL:
        return Rng(Aff(0), Aff(1))
    return Rng(Aff(t.min), Aff(t.max))


class Ranges:
    def __init__(self, fn: L.Function):
        self.fn = fn
        self.env: Dict[int, Rng] = {}
        self.extents = []       # the affine forms known to be extents (each <= 2^63 - 1)
        for s in fn.sizes:
            self.env[id(s)] = Rng(Aff.sym(s.name), Aff.sym(s.name))
            self.extents.append(Aff.sym(s.name))
        for p in fn.params:
            if isinstance(p, L.Arr):
                for k in range(p.rank):
                    self.extents.append(self.extent(p, k))
        if fn.items is not None:
            for v, e in zip(fn.items.over, fn.items.extents):
                self.env[id(v)] = Rng(Aff(0), Aff.sym(e.name).shift(-1))

    # ------------------------------------------------------------------ facts

    def extent(self, a: L.Arr, k: int) -> Aff:
        if a.kind == "const":
            return Aff(list(a.value.shape)[k])
        d = a.ty.dims[k]     # a module array's extents are integers
        if isinstance(d, int):
            return Aff(d)
        if isinstance(d, str):
            return Aff.sym(d)
        if isinstance(d, SymExtent):
            return Aff.sym(d.sym).shift(d.off)
        return Aff.sym("%s#%d" % (a.name, k))

    def below_max(self, hi: Optional[Aff], top: int) -> bool:
        """hi <= top (top >= 2^63 - 1 counts any extent as below it)."""
        if hi is None:
            return False
        if hi.is_const:
            return hi.c <= top
        if all(k <= 0 for _, k in hi.terms) and hi.c <= top:
            return True
        return top >= INT64_MAX and any(le(hi, e) for e in self.extents)

    def above_min(self, lo: Optional[Aff], bottom: int) -> bool:
        if lo is None:
            return False
        if lo.is_const:
            return lo.c >= bottom
        neg = -sum(k for _, k in lo.terms if k < 0)
        # each symbol is at most 2^63 - 1: lo >= c - neg * (2^63 - 1)
        return lo.c - neg * INT64_MAX >= bottom

    def fits(self, r: Rng, t) -> bool:
        if t == BOOL:
            return False
        return self.above_min(r.lo, t.min) and self.below_max(r.hi, t.max)

    def rng(self, x) -> Rng:
        if isinstance(x, L.Imm):
            return const(int(x.value))
        r = self.env.get(id(x))
        if r is not None:
            return r
        return of_type(x.ty)

    def clip(self, r: Rng, t) -> Rng:
        """r, or the range of t where r is not known to lie inside it (the result of a completed operation)."""
        if t == BOOL:
            return of_type(t)
        lo = r.lo if self.above_min(r.lo, t.min) else Aff(t.min)
        hi = r.hi if self.below_max(r.hi, t.max) else Aff(t.max)
        return Rng(lo, hi)

    # ------------------------------------------------------------------ the walk

    def block(self, b: L.Block):
        for op in b.ops:
            m = getattr(self, "o_" + type(op).__name__, None)
            if m is not None:
                m(op)
            for sub in L.sub_blocks(op):
                if isinstance(op, L.ForRange) and sub is op.body:
                    self.iv(op)
                self.block(sub)

    def set(self, dst, r: Rng):
        if isinstance(dst, L.Temp):
            self.env[id(dst)] = r

    def o_Let(self, op):
        self.set(op.dst, self.rng(op.src))

    def o_Extent(self, op):
        e = self.extent(op.arr, op.dim)
        self.set(op.dst, Rng(e, e))

    def o_Load(self, op):
        a = op.ref.arr
        if a.kind == "const":
            vals = [int(v) for v in a.value.elements()]
            if vals:
                self.set(op.dst, Rng(Aff(min(vals)), Aff(max(vals))))
                return
        self.set(op.dst, of_type(op.dst.ty))

    def o_Conv(self, op):
        r = self.rng(op.a)
        if op.form in ("bool",) or L.fits_in(op.src, op.to) or self.fits(r, op.to):
            op.safe = op.form == "checked"
            self.set(op.dst, r)
        else:
            self.set(op.dst, self.clip(r, op.to) if op.form == "checked" else of_type(op.to))

    def o_Neg(self, op):
        r = self.rng(op.a)
        t = op.ty
        res = Rng(None if r.hi is None else r.hi.scale(-1), None if r.lo is None else r.lo.scale(-1))
        if op.form == "checked" and self.fits(res, t):
            op.safe = True
        self.set(op.dst, self.clip(res, t) if op.form == "checked" else of_type(t))

    def o_MinMax(self, op):
        a, b = self.rng(op.a), self.rng(op.b)
        if op.which == "min":
            lo = a.lo if le(a.lo, b.lo) else (b.lo if le(b.lo, a.lo) else None)
            hi = a.hi if le(a.hi, b.hi) else b.hi
        else:
            hi = a.hi if le(b.hi, a.hi) else (b.hi if le(a.hi, b.hi) else None)
            lo = a.lo if le(b.lo, a.lo) else b.lo
        self.set(op.dst, self.clip(Rng(lo, hi), op.ty))

    def o_Arith(self, op):
        t = op.ty
        a, b = self.rng(op.a), self.rng(op.b)
        res = self.exact(op, a, b)
        if op.form == "checked" or op.op in ("div", "rem", "shl", "shr"):
            if res is not None and self.fits(res, t) and self.no_other_fault(op, a, b):
                op.safe = True
        if op.form == "wrap" or res is None:
            self.set(op.dst, of_type(t) if op.form != "sat" else of_type(t))
            if op.form != "wrap" and res is not None:
                self.set(op.dst, self.clip(res, t))
        else:
            r = self.clip(res, t)
            c = self.const_factor(op, a, b)
            if op.form == "checked" and op.op == "mul" and c is not None and abs(c) > 1:
                # a product that completed is a multiple of c: within c * ceil(MIN / c) .. c * floor(MAX / c)
                lo = -((-t.min) // abs(c)) * abs(c) if t.min < 0 else 0
                hi = (t.max // abs(c)) * abs(c)
                r = Rng(r.lo if r.lo is not None and not r.lo.is_const or (r.lo is not None and r.lo.c > lo)
                        else Aff(lo), r.hi if r.hi is not None and not r.hi.is_const or (r.hi is not None and
                                                                                            r.hi.c < hi) else Aff(hi))
            self.set(op.dst, r)

    def const_factor(self, op, a: Rng, b: Rng):
        for r in (a, b):
            if r.lo is not None and r.hi is not None and r.lo.is_const and r.hi.is_const and r.lo.c == r.hi.c:
                return r.lo.c
        return None

    def exact(self, op, a: Rng, b: Rng) -> Optional[Rng]:
        """The interval of the exact result of op over operands in a and b, or None when not known."""
        if op.op == "add":
            if None in (a.lo, b.lo, a.hi, b.hi):
                return None
            return Rng(a.lo + b.lo, a.hi + b.hi)
        if op.op == "sub":
            if None in (a.lo, b.lo, a.hi, b.hi):
                return None
            return Rng(a.lo - b.hi, a.hi - b.lo)
        if op.op == "mul":
            for x, y in ((a, b), (b, a)):
                if y.lo is not None and y.lo.is_const and y.hi is not None and le(y.hi, y.lo):
                    c = y.lo.c
                    if x.lo is None or x.hi is None:
                        return None
                    return Rng(x.lo.scale(c), x.hi.scale(c)) if c >= 0 else Rng(x.hi.scale(c), x.lo.scale(c))
            if all(r is not None and r.is_const for r in (a.lo, a.hi, b.lo, b.hi)):
                cs = [p * q for p in (a.lo.c, a.hi.c) for q in (b.lo.c, b.hi.c)]
                return Rng(Aff(min(cs)), Aff(max(cs)))
            return None
        if op.op in ("div", "rem"):
            if not (b.lo is not None and b.lo.is_const and b.hi is not None and b.hi.is_const and b.lo.c == b.hi.c):
                return None
            c = b.lo.c
            if c <= 0:
                return None
            if op.op == "rem":
                return Rng(Aff(0), Aff(c - 1))
            if a.lo is not None and a.lo.is_const and a.hi is not None and a.hi.is_const:
                return Rng(Aff(a.lo.c // c), Aff(a.hi.c // c))
            return None
        if op.op in ("shl", "shr"):
            if not (b.lo is not None and b.lo.is_const and b.hi is not None and b.hi.is_const and b.lo.c == b.hi.c):
                return None
            k = b.lo.c
            if not 0 <= k < op.ty.bits:
                return None
            if a.lo is None or a.hi is None:
                return None
            if op.op == "shl":
                return Rng(a.lo.scale(1 << k), a.hi.scale(1 << k))
            if a.lo.is_const and a.hi.is_const:
                return Rng(Aff(a.lo.c >> k), Aff(a.hi.c >> k))
            return None
        return None

    def no_other_fault(self, op, a: Rng, b: Rng) -> bool:
        """The faults beyond the result's range: a zero divisor, a shift count outside 0 .. w - 1."""
        if op.op in ("div", "rem"):
            return b.lo is not None and b.lo.is_const and b.lo.c > 0
        if op.op in ("shl", "shr"):
            return b.lo is not None and b.lo.is_const and b.hi is not None and b.hi.is_const and \
                0 <= b.lo.c and b.hi.c < op.ty.bits
        return True

    def o_Reduce(self, op):
        if op.row is not None:
            op.row_proven = self.in_extent(self.rng(op.row), self.extent(op.arr, 0))
        if op.arr2 is not None:
            d = self.extent(op.arr, op.arr.rank - 1) - self.extent(op.arr2, 0)
            op.same_extent = d.is_const and d.c == 0
        self.set(op.dst, of_type(op.dst.ty))

    def o_Elem(self, op):
        if op.rel:
            return
        op.proven = [self.in_extent(self.rng(i), self.extent(op.arr, k)) for k, i in enumerate(op.idx)]

    def in_extent(self, r: Rng, e: Aff) -> bool:
        return le(Aff(0), r.lo) and le(r.hi, e.shift(-1))

    def iv(self, op: L.ForRange):
        lo, hi = self.rng(op.lo), self.rng(op.hi)
        if op.stride > 0:
            last = hi.hi if op.inclusive else (None if hi.hi is None else hi.hi.shift(-1))
            r = Rng(lo.lo, last)
        else:
            last = hi.lo if op.inclusive else (None if hi.lo is None else hi.lo.shift(1))
            r = Rng(last, lo.hi)
        self.env[id(op.iv)] = r


def run(fn: L.Function) -> L.Function:
    Ranges(fn).block(L.body_of(fn))
    return fn


__all__ = ["Aff", "Rng", "le", "run", "IntType"]
