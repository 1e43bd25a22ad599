"""cpu-c17 over the LIR: C17 for the functions and kernels that lower (docs/lir.md).

Each LIR function becomes C in one of four forms, all of one signature family with the tree-walking
emitter's (emit.py), so that code of either calls code of the other:

* `f_NAME(ctx, sizes.., params.., result)`: a function; checks inline (a test and an unlikely branch to a
  cold block that raises the canonical record), fuel counted in a register and written back at every call,
  fault and return, the innermost counted loop charged once when the budget covers it;
* `kg_NAME(ctx, wi, stepp, ...)`: the same function in a work item (steps counted on the caller's ordinal);
* `kb_NAME(ctx, A, S, scalars.., wi, over..)`: one work item of a kernel in exact mode (step ordinals);
* `kf_NAME(...)`: a block of work items in fast mode, which gives up (returns 1, no record) at the first
  sign of a fault or of fuel running out, and `ki_NAME(ctx, A, S, scalars..)`, the item loop: blocks on the
  fast path, and the block that gave up run again item by item in exact mode, which reports the fault of
  the lowest work item byte for byte (staging: nothing of a faulting dispatch is published).

A function with arrays has two bodies: one for the common case (every lower bound 0, unit stride in the
last dimension), where index checks the bounds pass proved are left out and addresses are plain, and the
general one, with every check.  Which is run is decided once per call.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional

from cint_compiler.lower import lir as L
from cint_compiler.semantics.types import BOOL

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


def enabled() -> bool:
    """CINT_LIR=0 turns the LIR back end off (every function then takes the tree-walking emitter)."""
    return os.environ.get("CINT_LIR", "1") != "0"


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


class FnWriter:
    """C text of one form of one LIR function."""

    def __init__(self, em, fn: L.Function, mode: str, spec: bool):
        self.em = em
        self.fn = fn
        self.mode = mode            # func, kvar, item, fast
        self.spec = spec            # lower bounds 0 and unit last strides assumed; proofs used
        self.stepped = mode in ("kvar", "item")
        self.w = Lines()
        self.labels = 0
        self.refund: Optional[str] = None   # inside a batched loop: the fuel count at the current iteration
        self.names: Dict[int, str] = {}     # id(Var) -> C name
        self.known: Dict[int, int] = {}     # id(Temp or Var) -> constant value (unrolled fast loops)
        self.flag = False                   # fast mode: overflow accumulates into `ovf`, no branch

    # ------------------------------------------------------------------ names

    def vname(self, v: L.Var) -> str:
        n = self.names.get(id(v))
        if n is not None:
            return n
        fn = self.fn
        if v.kind == "param":
            n = "p_%s" % v.name
        elif v.kind == "size":
            n = "z_%s" % v.name if fn.kind == "function" else "S[%d]" % fn.sizes.index(v)
        elif v.kind == "over":
            n = "o_%s" % v.name
        else:
            n = "v_%s_%d" % (v.name if v.name.isidentifier() else "x", v.n)
        self.names[id(v)] = n
        return n

    def val(self, x) -> str:
        k = self.known.get(id(x))
        if k is not None:
            return lit(x.ty, k)
        if isinstance(x, L.Imm):
            return lit(x.ty, x.value)
        if isinstance(x, L.Temp):
            return "t%d" % x.n
        return self.vname(x)

    def const_of(self, x) -> Optional[int]:
        if isinstance(x, L.Imm):
            return int(x.value)
        return self.known.get(id(x))

    def label(self, what) -> str:
        self.labels += 1
        return "%s%d" % (what, self.labels)

    # ------------------------------------------------------------------ arrays

    def arr_c(self, a: L.Arr) -> str:
        """A `cint_gen_array *` for a in a fault or runtime call."""
        if a.kind == "param":
            return "p_%s" % a.name if self.fn.kind == "function" else "&A[%d]" % a.index
        return "&g_%s" % a.name

    def const_decl(self, a: L.Arr) -> str:
        """The static storage of constant array a (once per translation unit)."""
        names = self.em.__dict__.setdefault("lir_consts", {})
        key = id(a.value)
        if key not in names:
            name = "lc%d" % len(names)
            cells = [lit(a.elem, int(x)) for x in a.value.elements()] or ["0"]
            self.em.descs.append("static const %s %s[%d] = {%s};" % (ctype(a.elem), name, len(cells),
                                                                     ", ".join(cells)))
            names[key] = name
        return names[key]

    def const_shape(self, a: L.Arr) -> List[int]:
        return list(a.value.shape)

    def array_prologue(self):
        """Data pointers and layout of every array the function reads or writes."""
        w = self.w
        for p in self.fn.params:
            if not isinstance(p, L.Arr):
                continue
            src = "p_%s" % p.name if self.fn.kind == "function" else "(&A[%d])" % p.index
            # restrict: an array that is written overlaps no other argument (the entry and call checks refuse it,
            # E_ALIAS, LS-121), and arrays that overlap are only read
            w("%s *const restrict d_%s CINTG_UNUSED = (%s *)(void *)%s->data;" % (ctype(p.elem), p.name, ctype(p.elem),
                                                                               src))
            for k in range(p.rank):
                w("const int64_t n_%s_%d CINTG_UNUSED = %s->shape[%d];" % (p.name, k, src, k))
                if not (self.spec and k == p.rank - 1):
                    w("const int64_t s_%s_%d CINTG_UNUSED = %s->stride[%d];" % (p.name, k, src, k))
                if not self.spec:
                    w("const int64_t l_%s_%d CINTG_UNUSED = %s->lower[%d];" % (p.name, k, src, k))
        for a in self.fn.consts:
            self.const_decl(a)

    def extent(self, a: L.Arr, k: int) -> str:
        if a.kind == "const":
            return i64(self.const_shape(a)[k])
        return "n_%s_%d" % (a.name, k)

    def address(self, op: L.Elem) -> str:
        a = op.arr
        idx = [self.val(i) for i in op.idx]
        if a.kind == "const":
            shape = self.const_shape(a)
            terms = []
            for k, i in enumerate(idx):
                stride = 1
                for x in shape[k + 1:]:
                    stride *= x
                terms.append(i if stride == 1 else "%s * INT64_C(%d)" % (i, stride))
            return "%s[%s]" % (self.const_decl(a), " + ".join(terms))
        terms = []
        for k, i in enumerate(idx):
            rel = i if (self.spec or op.rel) else "(%s - l_%s_%d)" % (i, a.name, k)
            if self.spec and k == a.rank - 1:
                terms.append(rel)
            else:
                terms.append("%s * s_%s_%d" % (rel, a.name, k))
        return "d_%s[%s]" % (a.name, " + ".join(terms))

    # ------------------------------------------------------------------ sites, faults, fuel

    def at(self, site, counted=True) -> str:
        mod = self.em.cur_mod
        k = self.em.site(site)
        if self.stepped:
            return "&(cint_gen_at){{%du, %du}, wi, step}" % (mod, k)
        return "&(cint_gen_at){{%du, %du}, 0, 0}" % (mod, k)

    def sync(self) -> str:
        """Writes the register fuel count back into the context (before anything else may read it)."""
        if self.mode == "fast":
            return ""
        pre = "fu = %s; " % self.refund if self.refund else ""
        return pre + "F->used = fu; "

    def fault(self, cond: str, call: str):
        """If cond, the fault call (which raises the record) and the exit of a failed entry; in fast mode,
        give up the block (flag mode: only note it)."""
        if self.mode == "fast":
            if self.flag:
                self.w("ovf |= (uint32_t)(%s);" % cond)
            else:
                self.w("if (CINT_UNLIKELY(%s)) return 1;" % cond)
            return
        self.w("if (CINT_UNLIKELY(%s)) { %s(void)%s; goto fail; }" % (cond, self.sync(), call))

    def count(self, op):
        if self.stepped and op.step:
            self.w("step++;")

    def charge(self, site):
        if self.mode == "fast":
            self.w("if (fu >= fl) return 1;")
            self.w("fu++;")
            return
        self.w("if (CINT_UNLIKELY(fu >= fl)) { %s(void)cint_gen_charge(ctx, %s, 1); goto fail; }" % (
            self.sync(), self.at(site, False)))
        self.w("fu++;")

    def before_call(self):
        if self.mode != "fast":
            self.w("F->used = fu;")

    def after_call(self):
        if self.mode != "fast":
            self.w("fu = F->used;")

    # ------------------------------------------------------------------ operations

    def declare(self, t: L.Temp, expr: str):
        self.w("const %s t%d CINTG_UNUSED = %s;" % (ctype(t.ty), t.n, expr))

    def block(self, b: L.Block):
        for op in b.ops:
            getattr(self, "o_" + type(op).__name__)(op)

    def o_Let(self, op: L.Let):
        k = self.const_of(op.src)
        if isinstance(op.dst, L.Temp):
            if k is not None and self.mode == "fast":
                self.known[id(op.dst)] = k
            self.declare(op.dst, self.val(op.src))
        else:
            self.w("%s = %s;" % (self.vname(op.dst), self.val(op.src)))

    def o_Steps(self, op: L.Steps):
        if self.stepped:
            self.w("step += %d;" % op.n)

    def o_Extent(self, op: L.Extent):
        self.declare(op.dst, self.extent(op.arr, op.dim))

    def o_Cmp(self, op: L.Cmp):
        self.declare(op.dst, "(uint8_t)(%s %s %s)" % (self.val(op.a), op.op, self.val(op.b)))

    def o_Bitwise(self, op: L.Bitwise):
        a = self.val(op.a)
        if op.op == "!":
            self.declare(op.dst, "(uint8_t)!%s" % a)
        elif op.op == "~":
            self.declare(op.dst, "(%s)~%s" % (ctype(op.ty), a))
        else:
            self.declare(op.dst, "(%s)(%s %s %s)" % (ctype(op.ty), a, op.op, self.val(op.b)))

    def o_MinMax(self, op: L.MinMax):
        a, b = self.val(op.a), self.val(op.b)
        self.declare(op.dst, "(%s %s %s) ? %s : %s" % (a, "<" if op.which == "min" else ">", b, a, b))
        self.count(op)

    def o_Neg(self, op: L.Neg):
        t = op.ty
        a = self.val(op.a)
        self.declare(op.dst, "(%s)(0u - (%s)%s)" % (ctype(t), utype(t), a))
        if op.form == "checked" and not op.safe:
            if t.signed:
                self.fault("%s == %s" % (a, lit(t, t.min)), "cint_gen_arith_fault(ctx, %s, CINT_OP_NEG, %s, (uint64_t)%s, 0u)"
                           % (self.at(op.site), tag(t), a))
            else:
                self.fault("%s != 0" % a, "cint_gen_arith_fault(ctx, %s, CINT_OP_NEG, %s, (uint64_t)%s, 0u)"
                           % (self.at(op.site), tag(t), a))
        self.count(op)

    def o_Arith(self, op: L.Arith):
        getattr(self, "a_" + op.op)(op)
        self.count(op)

    def arith_fault(self, op, code, a, b):
        return "cint_gen_arith_fault(ctx, %s, %s, %s, (uint64_t)%s, (uint64_t)%s)" % (
            self.at(op.site), code, tag(op.ty), a, b)

    def _asm(self, op, name, code):
        t = op.ty
        ct, ut = ctype(t), utype(t)
        a, b = self.val(op.a), self.val(op.b)
        ka, kb = self.const_of(op.a), self.const_of(op.b)
        if op.form == "wrap" or op.safe:
            cop = {"add": "+", "sub": "-", "mul": "*"}[name]
            if ka is not None and kb is not None and self.mode == "fast":
                self.known[id(op.dst)] = _wrap(t, {"add": ka + kb, "sub": ka - kb, "mul": ka * kb}[name])
            if op.safe:     # proved in range: plain arithmetic (which the vectoriser reads as affine)
                self.declare(op.dst, "(%s)(%s %s %s)" % (ct, a, cop, b))
            else:
                self.declare(op.dst, "(%s)((%s)%s %s (%s)%s)" % (ct, ut, a, cop, ut, b))
            return
        if op.form == "sat":
            self.declare(op.dst, "cint_%s_sat_%s(%s, %s)" % (name, t.token, a, b))
            return
        if self.mode == "fast" and self.flag:
            self.flag_asm(op, name, a, b, ka, kb)
            return
        self.w("%s t%d;" % (ct, op.dst.n))
        self.fault("__builtin_%s_overflow(%s, %s, &t%d)" % (name, a, b, op.dst.n), self.arith_fault(op, code, a, b))

    def flag_asm(self, op, name, a, b, ka, kb):
        """Fast mode, flags: the wrapped result and an overflow bit, with no branch (vectorisable)."""
        t = op.ty
        ct, ut = ctype(t), utype(t)
        r = "t%d" % op.dst.n
        w = t.bits
        if name == "mul":
            if ka is not None and kb is None:
                a, b, ka, kb = b, a, kb, ka
            if kb is not None:
                self.declare(op.dst, "(%s)((%s)%s * (%s)%s)" % (ct, ut, a, ut, b))
                lo, hi = _mul_range(t, kb)
                conds = []
                if lo > t.min:
                    conds.append("(%s < %s)" % (a, lit(t, lo)))
                if hi < t.max:
                    conds.append("(%s > %s)" % (a, lit(t, hi)))
                if lo > hi:
                    conds = ["1"]
                if conds:
                    self.w("ovf |= (uint32_t)(%s);" % " | ".join(conds))
                return
            if w <= 32:
                wide = "int64_t" if t.signed else "uint64_t"
                self.w("const %s m%d = (%s)%s * (%s)%s;" % (wide, op.dst.n, wide, a, wide, b))
                self.declare(op.dst, "(%s)m%d" % (ct, op.dst.n))
                self.w("ovf |= (uint32_t)(m%d != (%s)%s);" % (op.dst.n, wide, r))
                return
            self.w("%s %s;" % (ct, r))
            self.w("ovf |= (uint32_t)__builtin_mul_overflow(%s, %s, &%s);" % (a, b, r))
            return
        cop = "+" if name == "add" else "-"
        self.declare(op.dst, "(%s)((%s)%s %s (%s)%s)" % (ct, ut, a, cop, ut, b))
        if t.signed:
            if name == "add":
                self.w("ovf |= (uint32_t)((%s)((%s ^ %s) & (%s ^ %s)) >> %d);" % (ut, a, r, b, r, w - 1))
            else:
                self.w("ovf |= (uint32_t)((%s)((%s ^ %s) & (%s ^ %s)) >> %d);" % (ut, a, b, a, r, w - 1))
        elif name == "add":
            self.w("ovf |= (uint32_t)(%s < %s);" % (r, a))
        else:
            self.w("ovf |= (uint32_t)(%s < %s);" % (a, b))

    def a_add(self, op):
        self._asm(op, "add", "CINT_OP_ADD")

    def a_sub(self, op):
        self._asm(op, "sub", "CINT_OP_SUB")

    def a_mul(self, op):
        self._asm(op, "mul", "CINT_OP_MUL")

    def _divrem(self, op, quotient):
        """Floor division and remainder (IM-35): E_DIV_ZERO for a zero divisor, and for a quotient
        E_OVERFLOW for MIN / -1 (whose remainder is 0)."""
        t = op.ty
        ct = ctype(t)
        a, b = self.val(op.a), self.val(op.b)
        kb = self.const_of(op.b)
        code = "CINT_OP_DIV" if quotient else "CINT_OP_REM"
        if not op.safe:
            conds = []
            if kb is None or kb == 0:
                conds.append("%s == 0" % b)
            if quotient and t.signed and (kb is None or kb == -1):
                conds.append("(%s == %s && %s == %s)" % (a, lit(t, t.min), b, lit(t, -1)))
            if conds:
                self.fault(" || ".join(conds), self.arith_fault(op, code, a, b))
        r = "t%d" % op.dst.n
        if not t.signed:
            self.declare(op.dst, "(%s)(%s %s %s)" % (ct, a, "/" if quotient else "%", b))
            return
        if kb is not None and kb > 0:
            q = "(%s)(%s / %s)" % (ct, a, b)
            m = "(%s)(%s %% %s)" % (ct, a, b)
        else:   # b == -1: the quotient is -a (a != MIN here), the remainder 0; C's MIN % -1 is undefined
            q = "(%s)(%s == -1 ? (%s)(0u - (%s)%s) : %s / %s)" % (ct, b, ct, utype(t), a, a, b)
            m = "(%s)(%s == -1 ? 0 : %s %% %s)" % (ct, b, a, b)
        if quotient:
            self.w("%s %s = %s;" % (ct, r, q))
            self.w("if (%s != 0 && ((%s < 0) != (%s < 0))) %s = (%s)(%s - 1);" % (m, m, b, r, ct, r))
        else:
            self.w("%s %s = %s;" % (ct, r, m))
            self.w("if (%s != 0 && ((%s < 0) != (%s < 0))) %s = (%s)(%s + %s);" % (r, r, b, r, ct, r, b))

    def a_div(self, op):
        self._divrem(op, True)

    def a_rem(self, op):
        self._divrem(op, False)

    def _shift(self, op):
        t = op.ty
        ct, ut = ctype(t), utype(t)
        a, k = self.val(op.a), self.val(op.b)
        kt = op.bty
        w = t.bits
        r = "t%d" % op.dst.n
        code = {"shl": "CINT_OP_SHL" if op.form == "checked" else "CINT_OP_SHL_WRAP", "shr": "CINT_OP_SHR"}[op.op]
        call = "cint_gen_shift_fault(ctx, %s, %s, %s, (uint64_t)%s, %s, (uint64_t)%s)" % (
            self.at(op.site), code, tag(t), a, tag(kt), k)
        kk = self.const_of(op.b)
        if kk is None:
            bad = "(%s > %s)" % (k, lit(kt, w - 1)) if kt.max > w - 1 else "0"
            if kt.signed:
                bad = "(%s < 0 || %s)" % (k, bad)
            if bad != "0":
                self.fault(bad, call)
        elif not 0 <= kk <= w - 1:
            self.fault("1", call)
        cnt = "(unsigned)%s" % k
        if op.op == "shr":
            if t.signed:
                self.declare(op.dst, "(%s < 0) ? (%s)~(%s)((%s)~%s >> %s) : (%s)(%s >> %s)" % (
                    a, ct, ct, ct, a, cnt, ct, a, cnt))
            else:
                self.declare(op.dst, "(%s)(%s >> %s)" % (ct, a, cnt))
            return
        self.w("%s %s = (%s)((%s)%s << %s);" % (ct, r, ct, ut, a, cnt))
        if op.form == "checked" and not op.safe:
            # in range exactly when shifting back gives a again (a's sign kept)
            if t.signed:
                self.fault("(%s)(%s >> %s) != %s" % (ct, r, cnt, a) if w >= 32 else
                           "(%s)((int32_t)%s >> %s) != %s" % (ct, r, cnt, a), call)
            else:
                self.fault("(%s)(%s >> %s) != %s" % (ct, r, cnt, a), call)

    def a_shl(self, op):
        self._shift(op)

    def a_shr(self, op):
        self._shift(op)

    def o_Conv(self, op: L.Conv):
        src, to = op.src, op.to
        a = self.val(op.a)
        if op.form == "bool" or L.fits_in(src, to):
            self.declare(op.dst, "(%s)%s" % (ctype(to), a))
        elif op.form == "wrap":
            self.declare(op.dst, "cintg_wrap_%s((uint64_t)%s)" % (to.token, a))
        else:
            self.declare(op.dst, "(%s)%s" % (ctype(to), a))
            if not op.safe:
                conds = []
                if src.signed and to.min > src.min:
                    conds.append("(int64_t)%s < %s" % (a, i64(to.min)))
                if to.max < src.max:
                    if src.signed:
                        conds.append("(int64_t)%s > %s" % (a, i64(to.max)))
                    else:
                        conds.append("(uint64_t)%s > UINT64_C(%d)" % (a, to.max))
                self.fault(" || ".join(conds), "cint_gen_narrow_fault(ctx, %s, %s, %s, (uint64_t)%s)" % (
                    self.at(op.site), tag(src), tag(to), a))
        self.count(op)

    def o_Elem(self, op: L.Elem):
        a = op.arr
        if not op.rel:
            for k, i in enumerate(op.idx):
                if self.spec and op.proven and op.proven[k]:
                    continue
                iv = self.val(i)
                lo = "0" if self.spec else "l_%s_%d" % (a.name, k)
                if a.kind == "const":
                    lo = "0"
                ki = self.const_of(i)
                if ki is not None and a.kind == "const" and 0 <= ki < self.const_shape(a)[k]:
                    continue
                cond = "(uint64_t)%s - (uint64_t)%s >= (uint64_t)%s" % (iv, lo, self.extent(a, k)) if lo != "0" else \
                    "(uint64_t)%s >= (uint64_t)%s" % (iv, self.extent(a, k))
                if a.kind == "const":
                    call = "cint_gen_index_fault_of(ctx, %s, (cint_type){%s}, %du, %s, %du, %s)" % (
                        self.at(op.site), self.em.type_fields(a.elem), a.rank, self.extent(a, k), k, iv)
                else:
                    call = "cint_gen_index_fault(ctx, %s, %s, %du, %s)" % (self.at(op.site), self.arr_c(a), k, iv)
                self.fault(cond, call)
        self.refs[op.ref.n] = self.address(op)
        if a.kind == "const" and self.mode == "fast":
            ks = [self.const_of(i) for i in op.idx]
            if all(x is not None for x in ks):
                self.const_refs[op.ref.n] = (a, ks)
        self.count(op)

    def o_Load(self, op: L.Load):
        c = self.const_refs.get(op.ref.n)
        if c is not None:
            a, ks = c
            shape = self.const_shape(a)
            flat = 0
            for k, x in enumerate(ks):
                flat = flat * shape[k] + x
            v = list(a.value.elements())[flat]
            self.known[id(op.dst)] = int(v)
        self.declare(op.dst, self.refs[op.ref.n])

    def o_Store(self, op: L.Store):
        self.w("%s = %s;" % (self.refs[op.ref.n], self.val(op.src)))

    def o_If(self, op: L.If):
        k = self.const_of(op.cond)
        if k is not None and self.mode == "fast":
            self.w("{")
            self.block(op.then if k else op.other)
            self.w("}")
            return
        self.w_open("if (%s) {" % self.val(op.cond))
        self.block(op.then)
        if op.other.ops:
            self.w.close("} else {")
            self.w.ind += "    "
            self.block(op.other)
        self.w.close("}")

    def w_open(self, s):
        self.w.open(s)

    # ------------------------------------------------------------------ loops

    def jump_labels(self, op):
        entry = {"next": self.label("Ln"), "end": self.label("Le"), "used_next": False, "used_end": False}
        self.loop_stack.append((op, entry))
        return entry

    def o_Break(self, op: L.Break):
        for lop, entry in reversed(self.loop_stack):
            if lop is op.target:
                entry["used_end"] = True
                self.w("goto %s;" % entry["end"])
                return
        raise AssertionError("break outside its loop")

    def o_Continue(self, op: L.Continue):
        for lop, entry in reversed(self.loop_stack):
            if lop is op.target:
                entry["used_next"] = True
                self.w("goto %s;" % entry["next"])
                return
        raise AssertionError("continue outside its loop")

    def o_ForRange(self, op: L.ForRange):
        w = self.w
        st = op.stride
        lo, hi = self.val(op.lo), self.val(op.hi)
        n = self.label("r")
        w.open("{")
        w("const int64_t %s_lo = %s, %s_hi = %s;" % (n, lo, n, hi))
        # the range: empty, or tm1 + 1 iterations (tm1 = (last - lo) / |stride|, exactly, in 64-bit unsigned)
        if st > 0:
            last = "%s_hi" % n if op.inclusive else "(%s_hi - 1)" % n
            empty = "%s_hi < %s_lo" % (n, n) if op.inclusive else "%s_hi == INT64_MIN || %s_hi - 1 < %s_lo" % (n, n, n)
            span = "(uint64_t)%s - (uint64_t)%s_lo" % (last, n)
        else:
            last = "%s_hi" % n if op.inclusive else "(%s_hi + 1)" % n
            empty = "%s_hi > %s_lo" % (n, n) if op.inclusive else "%s_hi == INT64_MAX || %s_hi + 1 > %s_lo" % (n, n, n)
            span = "(uint64_t)%s_lo - (uint64_t)%s" % (n, last)
        w("if (!(%s)) {" % empty)
        w.ind += "    "
        w("const uint64_t %s_tm1 CINTG_UNUSED = (%s) / UINT64_C(%d);" % (n, span, abs(st)))
        ivn = self.vname(op.iv)
        step_expr = "(int64_t)((uint64_t)%s_lo %s it_%s * UINT64_C(%d))" % (n, "+" if st > 0 else "-", n, abs(st))
        trip = None
        klo, khi = self.const_of(op.lo), self.const_of(op.hi)
        if klo is not None and khi is not None:
            trip = _trip(klo, khi, st, op.inclusive)
        if self.mode == "fast":
            if self.flag:       # charged by the block: a constant trip, unrolled
                for it in range(trip):
                    w.open("{")
                    w("const int64_t %s CINTG_UNUSED = %s;" % (ivn, i64(klo + it * st)))
                    self.known[id(op.iv)] = klo + it * st
                    self.jump_labels(op)
                    self.block(op.body)
                    self.loop_stack.pop()
                    w.close("}")
                self.known.pop(id(op.iv), None)
            else:
                w("if ((uint64_t)(fl - fu) <= %s_tm1) return 1;" % n)
                w("fu += (int64_t)%s_tm1 + 1;" % n)
                w.open("for (uint64_t it_%s = 0; it_%s <= %s_tm1; it_%s++) {" % (n, n, n, n))
                self.range_body(op, ivn, step_expr)
                w.close("}")
        elif getattr(op, "batch", False):
            w.open("if (%s_tm1 < (uint64_t)(fl - fu)) {" % n)
            w("const int64_t %s_fb = fu;" % n)
            w("fu += (int64_t)%s_tm1 + 1;" % n)
            w("const uint64_t %s_n = %s_tm1 + 1;" % (n, n))
            w.open("for (uint64_t it_%s = 0; it_%s < %s_n; it_%s++) {" % (n, n, n, n))
            saved, self.refund = self.refund, "%s_fb + (int64_t)it_%s + 1" % (n, n)
            self.range_body(op, ivn, step_expr)
            self.refund = saved
            w.close("}")
            w.close("} else {")
            w.ind += "    "
            self.range_loop(op, n, ivn, step_expr)
            w.close("}")
        else:
            self.range_loop(op, n, ivn, step_expr)
        w.close("}")
        w.close("}")

    def range_loop(self, op, n, ivn, step_expr):
        w = self.w
        w.open("for (uint64_t it_%s = 0;; it_%s++) {" % (n, n))
        self.charge(op.site)
        entry = self.range_body(op, ivn, step_expr, last_test="if (it_%s == %s_tm1) break;" % (n, n))
        w.close("}")
        if entry["used_end"]:
            w("%s:;" % entry["end"])

    def range_body(self, op, ivn, step_expr, last_test=None):
        w = self.w
        w("const int64_t %s = %s;" % (ivn, step_expr))
        entry = self.jump_labels(op)
        w.open("{")
        self.block(op.body)
        w.close("}")
        self.loop_stack.pop()
        if entry["used_next"]:
            w("%s:;" % entry["next"])
        if last_test:
            w(last_test)
        elif entry["used_end"]:
            raise AssertionError("break in a loop without its end label")
        return entry

    def o_Loop(self, op: L.Loop):
        w = self.w
        entry = self.jump_labels(op)
        w.open("for (;;) {")
        if not op.cond_after:
            w.open("{")
            self.block(op.head)
            if op.cond is not None:
                w("if (!%s) break;" % self.val(op.cond))
            w.close("}")
            # the condition's temporaries stay inside their block: the test above read them
        self.charge(op.site)
        w.open("{")
        self.block(op.body)
        w.close("}")
        if entry["used_next"]:
            w("%s:;" % entry["next"])
        self.block(op.latch)
        if op.cond_after:
            w.open("{")
            self.block(op.head)
            if op.cond is not None:
                w("if (!%s) break;" % self.val(op.cond))
            w.close("}")
        w.close("}")
        self.loop_stack.pop()
        if entry["used_end"]:
            w("%s:;" % entry["end"])

    # ------------------------------------------------------------------ calls, reductions, returns

    def o_Call(self, op: L.Call):
        em = self.em
        info = op.callee
        w = self.w
        args = ["ctx"]
        if self.stepped:
            w("step++;")
            at = "&(cint_gen_at){{%du, %du}, wi, step - 1}" % (em.cur_mod, em.site(op.site))
            args += ["wi", "&step"]
            name = em.kuse(info)
        else:
            at = self.at(op.site)
            name = em.fname(info)
        args += [self.val(a) for a in op.args]
        if op.dst is not None:
            w("%s t%d = 0;" % (ctype(op.dst.ty), op.dst.n))
            args.append("&t%d" % op.dst.n)
        self.before_call()
        w("if (cint_gen_call_enter(ctx, %s)) goto fail;" % at)
        w("if (%s(%s)) goto fail;" % (name, ", ".join(args)))
        w("cint_gen_call_leave(ctx);")
        self.after_call()

    def o_Reduce(self, op: L.Reduce):
        if self.mode == "fast":
            self.fast_reduce(op)
            return
        em = self.em
        w = self.w
        arr = self.arr_ptr(op.arr)
        if op.row is not None:
            # the view m[i]: one counted step, its index checked against the first dimension
            row = self.val(op.row)
            if not (self.spec and op.row_proven):
                lo = "0" if (self.spec or op.arr.kind == "const") else "l_%s_0" % op.arr.name
                self.fault("(uint64_t)%s - (uint64_t)%s >= (uint64_t)%s" % (row, lo, self.extent(op.arr, 0)),
                           "cint_gen_index_fault(ctx, %s, %s, 0u, %s)" % (self.at(op.row_site), arr, row))
            if self.stepped:
                w("step++;")
            rv = "rv%d" % op.dst.n
            w("cint_gen_array %s;" % rv)
            w("cint_gen_row(%s, %s, &%s);" % (arr, row, rv))
            arr = "&" + rv
        k = em.site(op.site)
        if self.stepped:
            w("step++;")
            charge_at = "&(cint_gen_at){{%du, %du}, wi, step}" % (em.cur_mod, k)
            at = "&(cint_gen_at){{%du, %du}, wi, step - 1}" % (em.cur_mod, k)
        else:
            charge_at = at = self.at(op.site)
        if op.kind == "sum":
            w("%s t%d = 0;" % (ctype(op.dst.ty), op.dst.n))
            self.before_call()
            if self.stepped:
                w("if (cint_gen_sum_at(ctx, %s, %s, %s, %s, &t%d)) goto fail;" % (charge_at, at, arr, tag(op.ty),
                                                                                op.dst.n))
            else:
                w("if (cint_gen_sum(ctx, %s, %s, %s, &t%d)) goto fail;" % (at, arr, tag(op.ty), op.dst.n))
        else:
            w("uint64_t u%d = 0;" % op.dst.n)
            self.before_call()
            w("if (cint_w_dot(ctx, %s, %s, %s, %s, %s, &u%d)) goto fail;" % (
                charge_at, at, arr, self.arr_ptr(op.arr2), tag(op.ty), op.dst.n))
            self.declare(op.dst, "cintg_wrap_%s(u%d)" % (op.ty.token, op.dst.n))
        self.after_call()

    def data_of(self, a: L.Arr, row) -> str:
        """A pointer to the first element (of row `row` for a rank-2 array), in fast mode."""
        if a.kind == "const":
            base = self.const_decl(a)
            if row is None:
                return base
            return "%s + %s * INT64_C(%d)" % (base, row, self.const_shape(a)[1])
        if row is None:
            return "d_%s" % a.name
        return "d_%s + %s * s_%s_0" % (a.name, row, a.name)

    def fast_reduce(self, op: L.Reduce):
        """sum or dot inline, exact by split accumulation (vectorisable): each element (or product) u as 64
        bits, summed as its high and low halves and its sign, so that no partial sum can wrap for fewer than
        2^32 elements; then one range check of the exact total."""
        w = self.w
        a = op.arr
        n = "rn%d" % op.dst.n
        row = None
        if op.row is not None:
            row = self.val(op.row)
            if not op.row_proven:
                self.fault("(uint64_t)%s >= (uint64_t)%s" % (row, self.extent(a, 0)), "")
                if self.flag:   # go on over row 0, the block gives up anyway
                    row = "((uint64_t)%s < (uint64_t)%s ? %s : 0)" % (row, self.extent(a, 0), row)
        w("int64_t %s = %s;" % (n, self.extent(a, a.rank - 1)))
        if not self.flag:   # its fuel, ceil(n / 64), before it reads an element (a flag block charged it)
            w("if ((%s + 63) / 64 > fl - fu) return 1;" % n)
            w("fu += (%s + 63) / 64;" % n)
        if op.arr2 is not None and not op.same_extent:
            m = self.extent(op.arr2, 0)
            self.fault("%s != %s" % (n, m), "")
            w("if (%s < %s) %s = %s;" % (m, n, n, m))
        self.fault("%s >= INT64_C(4294967296)" % n, "")
        if self.flag:
            w("if (%s >= INT64_C(4294967296)) %s = 0;" % (n, n))
        et = a.elem
        pa = self.data_of(a, row)
        r = op.dst.n
        w("uint64_t hi%d = 0, lo%d = 0, ng%d = 0;" % (r, r, r))
        w.open("for (int64_t k_ = 0; k_ < %s; k_++) {" % n)
        if op.kind == "dot":
            pb = self.data_of(op.arr2, None)
            wide = "int64_t" if et.signed else "uint64_t"
            w("const uint64_t u_ = (uint64_t)((%s)(%s)[k_] * (%s)(%s)[k_]);" % (wide, pa, wide, pb))
        else:
            w("const uint64_t u_ = (uint64_t)(%s)[k_];" % pa)
        w("hi%d += u_ >> 32;" % r)
        w("lo%d += u_ & UINT64_C(0xFFFFFFFF);" % r)
        if et.signed:
            w("ng%d += u_ >> 63;" % r)
        w.close("}")
        tot = "((cintg_i128)hi%d << 32) + (cintg_i128)lo%d - ((cintg_i128)ng%d << 64)" % (r, r, r)
        w("const cintg_i128 s%d = %s;" % (r, tot))
        R = op.ty
        self.fault("s%d < (cintg_i128)%s || s%d > (cintg_i128)%s" % (r, i64(R.min) if R.signed else "0", r,
                                                                        lit(R, R.max)), "")
        self.declare(op.dst, "(%s)s%d" % (ctype(R), r))
        self.count(op)

    def arr_ptr(self, a: L.Arr) -> str:
        if a.kind == "param":
            return self.arr_c(a)
        name = "g_%s" % a.name
        self.w("cint_gen_array %s;" % name)
        self.w("cintg_inline(&%s, %s, (int64_t)sizeof(%s), (cint_type){%s}, %du, (const int64_t[4]){%s});" % (
            name, self.const_decl(a), ctype(a.elem), self.em.type_fields(a.elem), a.rank,
            ", ".join(str(x) for x in self.const_shape(a) + [0] * (4 - a.rank))))
        self.w("%s.perm = CINT_VIEW_READ;" % name)
        return "&" + name

    def o_Return(self, op: L.Return):
        w = self.w
        if op.value is not None:
            w("*result = %s;" % self.val(op.value))
        if self.mode == "fast":
            self.item_end_used = True
            w("goto %s;" % self.item_end)
            return
        w("F->used = fu;")
        if self.mode == "kvar":
            w("*stepp = step;")
        w("return 0;")

    # ------------------------------------------------------------------ whole functions

    def locals_decl(self, body: L.Block):
        seen = set()
        for op in L.walk(body):
            for v in _defined_vars(op):
                if id(v) not in seen and v.kind == "local":
                    seen.add(id(v))
                    self.w("%s %s = 0;" % (ctype(v.ty), self.vname(v)))

    def start(self):
        self.refs: Dict[int, str] = {}
        self.const_refs: Dict[int, tuple] = {}
        self.loop_stack = []


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


# ---------------------------------------------------------------------------------------------- entry points

def _signature(em, fn: L.Function, mode: str, name: str) -> str:
    info = fn.info
    params = ["cint_ctx *ctx"]
    if mode == "kvar":
        params += ["int64_t wi", "int64_t *stepp"]
    for s in info.size_params:
        params.append("int64_t z_%s" % s.name)
    for p in fn.params:
        if isinstance(p, L.Arr):
            params.append("cint_gen_array *p_%s" % p.name)
        else:
            params.append("%s p_%s" % (ctype(p.ty), p.name))
    if fn.result is not None:
        params.append("%s *result" % ctype(fn.result))
    return "CINTG_UNUSED static int %s(%s)" % (name, ", ".join(params))


def _call_args(fn: L.Function, mode: str) -> str:
    args = ["ctx"] + (["wi", "stepp"] if mode == "kvar" else [])
    args += ["z_%s" % s.name for s in fn.info.size_params]
    args += ["p_%s" % p.name for p in fn.params]
    if fn.result is not None:
        args.append("result")
    return ", ".join(args)


def _spec_test(fn: L.Function, arr_c) -> str:
    """The C test that every array parameter has lower bounds 0 and a unit stride in its last dimension."""
    conds = []
    for p in fn.params:
        if isinstance(p, L.Arr):
            a = arr_c(p)
            conds += ["%s->lower[%d] == 0" % (a, k) for k in range(p.rank)]
            conds.append("%s->stride[%d] == 1" % (a, p.rank - 1))
    return " && ".join(conds)


def function_c(em, fn: L.Function, mode: str):
    """The C of a function (mode func: f_NAME) or of its work-item form (mode kvar: kg_NAME): (protos, bodies)."""
    name = em.kuse(fn.info) if mode == "kvar" else em.fname(fn.info)
    has_arrays = any(isinstance(p, L.Arr) for p in fn.params)
    bodies = []
    protos = [_signature(em, fn, mode, name) + ";"]
    if has_arrays:
        test = _spec_test(fn, lambda p: "p_%s" % p.name)
        variants = [("s", True), ("g", False)]
        disp = [_signature(em, fn, mode, name), "{",
                "    if (%s) return %s_s(%s);" % (test, name, _call_args(fn, mode)),
                "    return %s_g(%s);" % (name, _call_args(fn, mode)), "}", ""]
    else:
        variants = [("", False)]
        disp = []
    for sfx, spec in variants:
        vname = name + ("_" + sfx if sfx else "")
        sig = _signature(em, fn, mode, vname)
        if sfx:
            protos.append(sig + ";")
        fw = FnWriter(em, fn, mode, spec)
        fw.start()
        w = fw.w
        if mode == "kvar":
            w("int64_t step = *stepp;")
        w("cint_gen_fuel *const F = cint_gen_fuel_of(ctx);")
        w("int64_t fu = F->used;")
        w("const int64_t fl CINTG_UNUSED = F->limit;")
        fw.array_prologue()
        fw.locals_decl(fn.body)
        fw.block(fn.body)
        w("F->used = fu;")
        if mode == "kvar":
            w("*stepp = step;")
        w("return 0;")
        w.out.append("fail:")
        w("return 1;")
        bodies.append("%s\n{\n%s\n}\n" % (sig, "\n".join(w.out)))
    if disp:
        bodies.append("\n".join(disp))
    return protos, bodies


# ---------------------------------------------------------------------------------------------- kernels

BLOCK = 1024    # work items of one fast block (the last dimension of the over clause)


def _kscalars(fn: L.Function):
    return [p for p in fn.params if not isinstance(p, L.Arr)]


def kernel_c(em, fn: L.Function):
    """kb_NAME (one work item, exact), kf_NAME (a block, fast; when the body allows) and ki_NAME (the item
    loop): (protos, bodies)."""
    K = em.use(fn.info)
    items = fn.items
    scal = ["%s p_%s" % (ctype(p.ty), p.name) for p in _kscalars(fn)]
    scal_args = ["p_%s" % p.name for p in _kscalars(fn)]
    over = ["int64_t o_%s" % v.name for v in items.over]
    protos, bodies = [], []

    # one work item, exact
    sig = "CINTG_UNUSED static int kb_%s(%s)" % (K, ", ".join(["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"]
                                                               + scal + ["int64_t wi"] + over))
    protos.append(sig + ";")
    fw = FnWriter(em, fn, "item", False)
    fw.start()
    w = fw.w
    w("(void)A; (void)S; (void)wi;")
    w("int64_t step = 0;")
    w("cint_gen_fuel *const F = cint_gen_fuel_of(ctx);")
    w("int64_t fu = F->used;")
    w("const int64_t fl CINTG_UNUSED = F->limit;")
    fw.array_prologue()
    fw.locals_decl(items.body)
    fw.block(items.body)
    w("F->used = fu;")
    w("return 0;")
    w.out.append("fail:")
    w("(void)step;")
    w("return 1;")
    bodies.append("%s\n{\n%s\n}\n" % (sig, "\n".join(w.out)))

    # a block of work items, fast
    mode = fast_mode(fn)
    last = items.over[-1]
    outer = items.over[:-1]
    if mode is not None:
        flag, static = mode
        ksig = "static int kf_%s(%s)" % (K, ", ".join(
            ["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"] + scal +
            ["int64_t o_%s" % v.name for v in outer] + ["int64_t jb", "int64_t je", "int64_t *fup", "int64_t fl"]))
        protos.append("CINTG_UNUSED " + ksig + ";")
        fw = FnWriter(em, fn, "fast", True)
        fw.start()
        fw.flag = flag
        w = fw.w
        w("(void)ctx; (void)A; (void)S;")
        fw.array_prologue()
        w("int64_t fu = *fup;")
        if flag:   # the fuel of the whole block, charged at its end when no item gave up
            w("const int64_t ch_ = %s;" % static)
            w("if (ch_ > 0 && (uint64_t)(fl - fu) / (uint64_t)(je - jb) < (uint64_t)ch_) return 1;")
            w("uint32_t ovf = 0;")
        fw.item_end = fw.label("Li")
        fw.item_end_used = False
        w.open("for (int64_t o_%s = jb; o_%s < je; o_%s++) {" % (last.name, last.name, last.name))
        fw.locals_decl(items.body)
        fw.block(items.body)
        if fw.item_end_used:
            w("%s:;" % fw.item_end)
        w.close("}")
        if flag:
            w("if (ovf) return 1;")
            w("fu += ch_ * (je - jb);")
        w("*fup = fu;")
        w("return 0;")
        attr = "CINT_GEN_VECTOR " if flag else ""
        bodies.append("%s%s\n{\n%s\n}\n" % (attr, ksig, "\n".join(w.out)))

    # the item loop
    isig = "CINTG_UNUSED static int ki_%s(%s)" % (K, ", ".join(["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"]
                                                              + scal))
    protos.append(isig + ";")
    ext = ["S[%d]" % fn.sizes.index(e) for e in items.extents]
    lin = "0"
    for v, e in zip(items.over, ext):
        lin = "o_%s" % v.name if lin == "0" else "(%s) * %s + o_%s" % (lin, e, v.name)
    kb_args = ", ".join(["ctx", "A", "S"] + scal_args + ["wi_"] + ["o_%s" % v.name for v in items.over])
    out = ["(void)S;"]
    if mode is not None:
        test = _spec_test(fn, lambda p: "(&A[%d])" % p.index) or "1"
        out.append("if (%s) {" % test)
        out.append("    cint_gen_fuel *const F = cint_gen_fuel_of(ctx);")
        ind = "    "
        for v, e in zip(outer, ext):
            out.append("%sfor (int64_t o_%s = 0; o_%s < %s; o_%s++) {" % (ind, v.name, v.name, e, v.name))
            ind += "    "
        je = ext[-1]
        out.append("%sfor (int64_t jb_ = 0; jb_ < %s; jb_ += %d) {" % (ind, je, BLOCK))
        out.append("%s    const int64_t je_ = %s - jb_ < %d ? %s : jb_ + %d;" % (ind, je, BLOCK, je, BLOCK))
        out.append("%s    int64_t fu_ = F->used;" % ind)
        kf_args = ", ".join(["ctx", "A", "S"] + scal_args + ["o_%s" % v.name for v in outer] +
                            ["jb_", "je_", "&fu_", "F->limit"])
        out.append("%s    if (kf_%s(%s) == 0) { F->used = fu_; continue; }" % (ind, K, kf_args))
        out.append("%s    for (int64_t o_%s = jb_; o_%s < je_; o_%s++) {" % (ind, last.name, last.name, last.name))
        out.append("%s        const int64_t wi_ = %s;" % (ind, lin))
        out.append("%s        if (kb_%s(%s)) return 1;" % (ind, K, kb_args))
        out.append("%s    }" % ind)
        out.append("%s}" % ind)
        for _ in outer:
            ind = ind[:-4]
            out.append("%s}" % ind)
        out.append("    return 0;")
        out.append("}")
    out.append("{")
    out.append("    int64_t wi_ = 0;")
    ind = "    "
    for v, e in zip(items.over, ext):
        out.append("%sfor (int64_t o_%s = 0; o_%s < %s; o_%s++) {" % (ind, v.name, v.name, e, v.name))
        ind += "    "
    out.append("%sif (kb_%s(%s)) return 1;" % (ind, K, kb_args))
    out.append("%swi_++;" % ind)
    for _ in items.over:
        ind = ind[:-4]
        out.append("%s}" % ind)
    out.append("}")
    out.append("return 0;")
    bodies.append("%s\n{\n%s\n}\n" % (isig, "\n".join("    " + x for x in out)))
    return protos, bodies


def fast_mode(fn: L.Function):
    """Whether the work items of kernel fn have a fast block, and its kind: (flag, charge) with flag True when
    every check can accumulate into a flag with no branch (and then `charge`, a C expression, is the fuel of
    one item, the same for every item), or None when every item needs the exact path (a call)."""
    body = fn.items.body
    loaded, stored = set(), set()
    for op in L.walk(body):
        if isinstance(op, (L.Call, L.Charge)):
            return None
        if isinstance(op, L.Reduce):
            if not _fast_reduce_ok(op):
                return None
            loaded |= {id(op.arr), id(op.arr2)}
        if isinstance(op, L.Load):
            loaded.add(id(op.ref.arr))
        if isinstance(op, L.Store):
            stored.add(id(op.ref.arr))
    if loaded & stored:
        # an item that reads an array it writes would read its own fast-path store when its block is re-run
        return None
    charge = _static_charge(fn, body)
    if charge is not None and _flaggable(fn, body):
        return True, charge
    return False, None


def _fast_reduce_ok(op: L.Reduce) -> bool:
    """The inline reductions of fast mode: sum of a rank-1 array, dot of elements of 32 bits or fewer."""
    if op.kind == "dot":
        return op.arr.elem.bits <= 32
    return op.arr.rank == 1 and op.arr.elem.bits <= 64


def _shape_c(a: L.Arr, k: int) -> str:
    if a.kind == "const":
        return i64(list(a.value.shape)[k])
    return "(&A[%d])->shape[%d]" % (a.index, k)


def _static_charge(fn, b: L.Block) -> Optional[str]:
    """The fuel one run of block b charges as a C expression over the kernel's arrays, when it is the same for
    every item (loops of constant trip, reductions over whole extents), else None."""
    parts = []
    for op in b.ops:
        if isinstance(op, L.ForRange):
            lo, hi = op.lo, op.hi
            if not (isinstance(lo, L.Imm) and isinstance(hi, L.Imm)):
                return None
            inner = _static_charge(fn, op.body)
            if inner is None:
                return None
            trip = _trip(int(lo.value), int(hi.value), op.stride, op.inclusive)
            parts.append("INT64_C(%d) * (1 + %s)" % (trip, inner))
        elif isinstance(op, L.Loop):
            return None
        elif isinstance(op, L.If):
            a, b2 = _static_charge(fn, op.then), _static_charge(fn, op.other)
            if a is None or b2 is None or a != b2:
                return None
            parts.append(a)
        elif isinstance(op, L.Reduce):
            parts.append("((%s + 63) / 64)" % _shape_c(op.arr, op.arr.rank - 1))
    return "(%s)" % " + ".join(parts) if parts else "0"


UNROLL = 16


def _flaggable(fn, body) -> bool:
    """Every check of body can set a flag and let the item run on (no branch): no loop but short constant
    ranges (unrolled), no jump, every index proved in range from values that are exact whatever the flags."""
    exact = set()
    for op in L.walk(body):
        if isinstance(op, (L.Loop, L.Break, L.Continue, L.Return, L.Call)):
            return False
        if isinstance(op, L.ForRange):
            if not (isinstance(op.lo, L.Imm) and isinstance(op.hi, L.Imm)):
                return False
            if _trip(int(op.lo.value), int(op.hi.value), op.stride, op.inclusive) > UNROLL:
                return False
        if isinstance(op, L.Arith):
            if op.op in ("div", "rem") and not (isinstance(op.b, L.Imm) and op.b.value != 0):
                return False
            if op.op in ("shl", "shr") and not (isinstance(op.b, L.Imm) and 0 <= op.b.value < op.ty.bits):
                return False
        if isinstance(op, L.Elem) and not op.rel:
            if not all(op.proven) or not all(_exact(i, exact) for i in op.idx):
                return False
        if isinstance(op, L.Reduce) and op.row is not None and not _exact(op.row, exact):
            return False
        # the values that are exact whatever the flags: no unproved check on their way
        dst = getattr(op, "dst", None)
        if isinstance(dst, L.Temp):
            srcs = [x for x in (getattr(op, "a", None), getattr(op, "b", None), getattr(op, "src", None))
                    if x is not None]
            ok = all(_exact(x, exact) for x in srcs)
            if isinstance(op, (L.Arith, L.Neg)) and op.may_fault and not op.safe:
                ok = False
            if isinstance(op, L.Conv) and op.may_fault and not op.safe:
                ok = False
            if isinstance(op, (L.Load, L.Extent)):
                ok = True
            if isinstance(op, L.Reduce):
                ok = False
            if ok:
                exact.add(id(dst))
    return True


def _exact(x, exact) -> bool:
    if isinstance(x, L.Imm):
        return True
    if isinstance(x, L.Var):
        return x.kind in ("size", "over", "iv", "param")
    return id(x) in exact
