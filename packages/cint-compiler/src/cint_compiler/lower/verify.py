"""The LIR verifier: the rules every Function keeps after lowering and after each pass (docs/lir.md)."""
from __future__ import annotations

from cint_compiler.lower import lir as L
from cint_compiler.semantics.types import BOOL, I64, IntType


class VerifyError(AssertionError):
    """A broken rule, with the pass after which it was found."""


OPS = (L.Assert, L.View, L.Switch, L.LocalArray, L.Scope, L.Let, L.Arith, L.Neg, L.Cmp, L.Bitwise, L.MinMax, L.Conv, L.Elem, L.Extent, L.Load, L.Store, L.Steps,
       L.Charge, L.Call, L.Reduce, L.If, L.ForRange, L.Loop, L.Break, L.Continue, L.Return)


def verify(fn: L.Function, after: str):
    def bad(op, why):
        raise VerifyError("LIR of %s after %s: %s: %s" % (fn.name, after, type(op).__name__, why))

    defined = set()       # temporaries, each defined once
    refs = set()
    params = {id(p) for p in fn.params} | {id(s) for s in fn.sizes}
    if fn.items is not None:
        params |= {id(v) for v in fn.items.over}
        if fn.body is not None:
            bad(fn.items, "a kernel with a function body")
    elif fn.body is None:
        bad(fn, "a function without a body")

    def use(op, x):
        if isinstance(x, L.Temp) and id(x) not in defined:
            bad(op, "%s read before it is defined" % x)
        if isinstance(x, L.Var) and x.kind in ("param", "size", "over") and id(x) not in params:
            bad(op, "%s is not a parameter of the function" % x)
        if not isinstance(x, (L.Temp, L.Var, L.Imm)):
            bad(op, "%r is not a value" % (x,))

    def define(op, t):
        if isinstance(t, L.Temp):
            if id(t) in defined:
                bad(op, "%s defined twice" % t)
            defined.add(id(t))

    def scalar_ty(op, t):
        if not (t == BOOL or (isinstance(t, IntType) and t.bits <= 64)):
            bad(op, "type %s is not a scalar of the LIR" % t)

    def block(b, loops):
        for op in b.ops:
            if not isinstance(op, OPS):
                bad(op, "not an operation of the LIR")
            one(op, loops)

    def one(op, loops):
        if isinstance(op, L.Let):
            use(op, op.src)
            if isinstance(op.dst, L.Var) and op.dst.kind in ("param", "size", "over", "iv"):
                bad(op, "assigns the read-only %s" % op.dst)
            define(op, op.dst)
        elif isinstance(op, (L.Arith, L.MinMax)):
            use(op, op.a)
            use(op, op.b)
            scalar_ty(op, op.ty)
            if isinstance(op, L.Arith):
                if op.op not in ("add", "sub", "mul", "div", "rem", "shl", "shr"):
                    bad(op, "unknown operation %s" % op.op)
                if op.form not in ("checked", "wrap", "sat"):
                    bad(op, "unknown form %s" % op.form)
                if op.op in ("shl", "shr") and op.bty is None:
                    bad(op, "a shift without its count's type")
                if op.site is None:
                    bad(op, "an operation that can fault has no site")
            define(op, op.dst)
        elif isinstance(op, L.Neg):
            use(op, op.a)
            define(op, op.dst)
        elif isinstance(op, (L.Cmp, L.Bitwise)):
            use(op, op.a)
            if op.b is not None:
                use(op, op.b)
            define(op, op.dst)
        elif isinstance(op, L.Conv):
            use(op, op.a)
            scalar_ty(op, op.to)
            if op.form == "checked" and op.site is None:
                bad(op, "a conversion without a site")
            define(op, op.dst)
        elif isinstance(op, L.Elem):
            if len(op.idx) != op.arr.rank:
                bad(op, "%d indices for rank %d" % (len(op.idx), op.arr.rank))
            if len(op.proven) != len(op.idx):
                bad(op, "a proof mark per index expected")
            for i in op.idx:
                use(op, i)
                if i.ty != I64:
                    bad(op, "an index of type %s" % i.ty)
            if not op.rel and op.site is None:
                bad(op, "an index check without a site")
            if op.ref.n in refs:
                bad(op, "element reference %s defined twice" % op.ref)
            refs.add(op.ref.n)
        elif isinstance(op, (L.Load, L.Store)):
            if op.ref.n not in refs:
                bad(op, "element reference %s used before its check" % op.ref)
            if isinstance(op, L.Load):
                define(op, op.dst)
            else:
                use(op, op.src)
        elif isinstance(op, L.Extent):
            define(op, op.dst)
        elif isinstance(op, L.LocalArray):
            if len(op.shape) != op.arr.rank or op.arr.kind not in ("local", "const") or op.site is None:
                bad(op, "a local array with %d extents for rank %d, or of kind %s" % (len(op.shape), op.arr.rank,
                                                                                     op.arr.kind))
            for x in op.shape:
                use(op, x)
        elif isinstance(op, L.Scope):
            block(op.body, loops)
        elif isinstance(op, L.Assert):
            use(op, op.a)
            if op.cmp is not None:
                use(op, op.b)
            if op.site is None:
                bad(op, "an assert without a site")
        elif isinstance(op, L.View):
            if op.arr.kind != "view" or len(op.items) > op.base.rank or op.site is None:
                bad(op, "a view of %d items over rank %d" % (len(op.items), op.base.rank))
            for it in op.items:
                for x in (it[1:2] if it[0] == "index" else it[1:3]):
                    if x is not None:
                        use(op, x)
        elif isinstance(op, L.Switch):
            use(op, op.value)
            if len(op.falls) != len(op.bodies):
                bad(op, "a fallthrough mark per case expected")
            for b in op.bodies:
                block(b, loops + [op])
        elif isinstance(op, L.Call):
            for a, p in zip(op.args, op.callee.params):
                if isinstance(a, L.Arr):
                    if a.rank != p.type.rank:
                        bad(op, "an array of rank %d for a parameter of rank %d" % (a.rank, p.type.rank))
                else:
                    use(op, a)
            if op.dst is not None:
                define(op, op.dst)
        elif isinstance(op, L.Reduce):
            if op.kind not in ("sum", "dot") or (op.kind == "dot") != (op.arr2 is not None):
                bad(op, "a reduction %s with %s operands" % (op.kind, 1 + (op.arr2 is not None)))
            if op.row is not None:
                use(op, op.row)
                if op.arr.rank != 2 or op.row_site is None:
                    bad(op, "a row of an array of rank %d, or without its site" % op.arr.rank)
            define(op, op.dst)
        elif isinstance(op, L.If):
            use(op, op.cond)
            block(op.then, loops)
            block(op.other, loops)
        elif isinstance(op, L.ForRange):
            use(op, op.lo)
            use(op, op.hi)
            if op.stride == 0:
                bad(op, "a stride of 0")
            if op.site is None:
                bad(op, "a loop without the site of its fuel charge")
            block(op.body, loops + [op])
        elif isinstance(op, L.Loop):
            if op.site is None:
                bad(op, "a loop without the site of its fuel charge")
            block(op.head, loops)
            if op.cond is not None:
                use(op, op.cond)
            block(op.body, loops + [op])
            block(op.latch, loops + [op])
        elif isinstance(op, (L.Break, L.Continue)):
            if not any(op.target is lp for lp in loops):
                bad(op, "a jump to a loop it is not inside")
            if isinstance(op, L.Continue) and isinstance(op.target, L.Switch):
                bad(op, "continue to a switch")
        elif isinstance(op, L.Return):
            if op.value is not None:
                use(op, op.value)
                if fn.result is None:
                    bad(op, "a value returned from a void function")

    block(L.body_of(fn), [])
