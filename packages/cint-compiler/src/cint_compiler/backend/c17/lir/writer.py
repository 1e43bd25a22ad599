"""C text of one LIR function in one of its forms (docs/lir.md, "cpu-c17 over the LIR"): the operations,
their checks in exact mode (a test and a cold block that raises the canonical record) and in fast mode
(give up the block, or accumulate an overflow flag), loops with their fuel, calls and reductions."""
from __future__ import annotations

from typing import Dict, List, Optional

from cint_compiler.backend.c17.lir.arith import ArithMixin
from cint_compiler.backend.c17.lir.common import Lines, _defined_vars, _fast_reduce_ok, ctype, i64, lit, tag
from cint_compiler.backend.c17.lir.loops import LoopMixin
from cint_compiler.lower import lir as L
from cint_compiler.semantics import opnames as O

class FnWriter(ArithMixin, LoopMixin):
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
        self.refund_loop = None             # that loop
        self.names: Dict[int, str] = {}     # id(Var) -> C name
        self.known: Dict[int, int] = {}     # id(Temp or Var) -> constant value (unrolled fast loops)
        self.flag = False                   # fast mode: overflow accumulates into `ovf`, no branch
        self.spec_flag = None               # inside a branch run speculatively: its flag (speculate)
        self.lz: Optional[str] = None       # a function's test that every lower bound is 0 (its proofs hold)

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
        elif v.kind == "global":     # in the context's storage: read and written at each use
            n = "(*(%s *)(void *)(G_ + %d))" % (ctype(v.ty), self.em.globals_layout[v.sym][0])
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
        """A `cint_gen_array *` for a parameter, a local array or a view in a fault or runtime call."""
        if a.kind == "local":
            return "&la_%s" % a.name
        if a.kind == "view":
            return "&vw_%s" % a.name
        return "p_%s" % a.name if self.fn.kind == "function" else "&A[%d]" % a.index

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
        """The extents of a constant or module array (known when the program is compiled)."""
        return list(a.value.shape) if a.kind == "const" else list(a.ty.dims)

    def fixed_data(self, a: L.Arr) -> str:
        """The C array of the elements of a constant or module array."""
        return self.const_decl(a) if a.kind == "const" else "d_%s" % a.name

    def array_prologue(self):
        """Data pointers and layout of every array the function reads or writes."""
        w = self.w
        globs = self.fn.globals
        if globs:
            w("uint8_t *const G_ CINTG_UNUSED = (uint8_t *)cint_gen_globals(ctx);")
        for g in globs:
            if isinstance(g, L.Arr):
                w("%s *const d_%s CINTG_UNUSED = (%s *)(void *)(G_ + %d);" % (ctype(g.elem), g.name, ctype(g.elem),
                                                                           self.em.gdata[g.sym]))
        # restrict: an array that is written overlaps no other argument (the entry and call checks refuse it,
        # E_ALIAS, LS-121), and arrays that overlap are only read; a module array may be viewed by a
        # parameter too, so a function that reads or writes one has no restrict
        restrict = "restrict " if not any(isinstance(g, L.Arr) for g in globs) else ""
        for p in self.fn.params:
            if not isinstance(p, L.Arr):
                continue
            src = "p_%s" % p.name if self.fn.kind == "function" else "(&A[%d])" % p.index
            w("%s *const %sd_%s CINTG_UNUSED = (%s *)(void *)%s->data;" % (ctype(p.elem), restrict, p.name,
                                                                        ctype(p.elem), src))
            for k in range(p.rank):
                w("const int64_t n_%s_%d CINTG_UNUSED = %s->shape[%d];" % (p.name, k, src, k))
                if not (self.spec and k == p.rank - 1):
                    w("const int64_t s_%s_%d CINTG_UNUSED = %s->stride[%d];" % (p.name, k, src, k))
                if not self.spec:
                    w("const int64_t l_%s_%d CINTG_UNUSED = %s->lower[%d];" % (p.name, k, src, k))
        for a in self.fn.consts:
            self.const_decl(a)

    def extent(self, a: L.Arr, k: int) -> str:
        if a.kind in ("const", "global"):
            return i64(self.const_shape(a)[k])
        return "n_%s_%d" % (a.name, k)

    def lower0(self, a: L.Arr) -> bool:
        """Every lower bound of a is 0 here: a local, constant or module array, or a parameter in the body
        that runs when the parameters' lower bounds are 0 (a view keeps the lower bounds of its base)."""
        return a.kind in ("local", "const", "global") or (a.kind == "param" and self.spec)

    def address(self, op: L.Elem) -> str:
        a = op.arr
        idx = [self.val(i) for i in op.idx]
        if a.kind in ("const", "global"):      # row-major, lower bounds 0
            shape = self.const_shape(a)
            terms = []
            for k, i in enumerate(idx):
                stride = 1
                for x in shape[k + 1:]:
                    stride *= x
                terms.append(i if stride == 1 else "%s * INT64_C(%d)" % (i, stride))
            return "%s[%s]" % (self.fixed_data(a), " + ".join(terms))
        terms = []
        for k, i in enumerate(idx):
            rel = i if (self.lower0(a) or op.rel) else "(%s - l_%s_%d)" % (i, a.name, k)
            if self.spec and a.kind == "param" and k == a.rank - 1:
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
            if self.spec_flag is not None:      # a branch run whether taken or not (o_If)
                self.w("%s |= (uint32_t)(%s);" % (self.spec_flag, cond))
            elif self.flag:
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
            self.note_exact(op)

    def flagging(self) -> bool:
        """Checks note a flag and let the item run on (fast mode, flag blocks or a speculated branch)."""
        return self.mode == "fast" and (self.flag or self.spec_flag is not None)

    def is_exact(self, x) -> bool:
        """x holds its exact value: no check that failed without stopping produced it."""
        if not self.flagging() or isinstance(x, L.Imm):
            return True
        if isinstance(x, L.Var):
            return x.kind in ("size", "over", "iv", "param")
        return id(x) in self.exact

    def note_exact(self, op):
        dst = getattr(op, "dst", None)
        if not isinstance(dst, L.Temp):
            return
        if isinstance(op, (L.Load, L.Extent)):
            self.exact.add(id(dst))
            return
        srcs = [x for x in (getattr(op, "a", None), getattr(op, "b", None), getattr(op, "src", None)) if x is not None]
        if getattr(op, "may_fault", False) and not op.safe and self.flagging():
            return
        if isinstance(op, (L.Reduce, L.Call)):
            return
        if all(self.is_exact(x) for x in srcs):
            self.exact.add(id(dst))

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

    def o_LocalArray(self, op: L.LocalArray):
        """A local array (LS-110): its extents, E_SHAPE decl.shape for a negative one, the frame arena's charge
        (in a function), then zero-filled storage; a constant array only charges."""
        w, a = self.w, op.arr
        shp = "sh_%s" % a.name if a.kind == "local" else self.label("shc")
        w("const int64_t %s[4] = {%s};" % (shp, ", ".join([self.val(x) for x in op.shape] +
                                                          ["0"] * (4 - len(op.shape)))))
        at = self.at(op.site)
        if a.kind == "local":
            for k, x in enumerate(op.shape):
                if self.const_of(x) is None:
                    self.fault("%s[%d] < 0" % (shp, k), "cint_gen_decl_shape_fault(ctx, %s, %du, %s[%d])" % (
                        at, k, shp, k))
        self.before_call()
        if not self.stepped:
            w("if (cint_gen_frame_charge(ctx, %s, %du, %s)) goto fail;" % (at, a.rank, shp))
        if a.kind != "local":
            return
        w("cint_gen_array la_%s;" % a.name)
        w("memset(&la_%s, 0, sizeof la_%s);" % (a.name, a.name))
        w("if (cint_gen_local_array(ctx, %s, &la_%s, (cint_type){%s}, %du, %s)) goto fail;" % (
            at, a.name, self.em.type_fields(a.elem), a.rank, shp))
        w("%s *const d_%s CINTG_UNUSED = (%s *)(void *)la_%s.data;" % (ctype(a.elem), a.name, ctype(a.elem), a.name))
        for k in range(a.rank):
            w("const int64_t n_%s_%d CINTG_UNUSED = la_%s.shape[%d];" % (a.name, k, a.name, k))
            w("const int64_t s_%s_%d CINTG_UNUSED = la_%s.stride[%d];" % (a.name, k, a.name, k))

    def o_View(self, op: L.View):
        """A slice or partial index by the runtime's view builder: its checks in order, one counted step."""
        w, a, base = self.w, op.arr, op.base
        items = []
        for it in op.items:
            if it[0] == "index":
                items.append("{0, 1, 0, 0, %s, 0, 1}" % self.val(it[1]))
            else:
                _, lo, hi, step, incl = it
                items.append("{1, %d, %d, %d, %s, %s, INT64_C(%d)}" % (
                    lo is not None, hi is not None, 1 if incl else 0, "0" if lo is None else self.val(lo),
                    "0" if hi is None else self.val(hi), step))
        w("cint_gen_array vw_%s;" % a.name)
        self.before_call()
        w("{ const cintg_item it_[%d] = {%s};" % (len(items), ", ".join(items)))
        w("  if (cintg_view(ctx, %s, \"%s\", \"%s\", %s, %du, it_, &vw_%s)) goto fail; }"
          % (self.at(op.site), O.index(base.elem), O.slice_(base.elem), self.arr_ptr(base), len(items), a.name))
        w("%s *const d_%s CINTG_UNUSED = (%s *)(void *)vw_%s.data;" % (ctype(a.elem), a.name, ctype(a.elem), a.name))
        for k in range(a.rank):
            for f, x in (("n", "shape"), ("s", "stride"), ("l", "lower")):
                w("const int64_t %s_%s_%d CINTG_UNUSED = vw_%s.%s[%d];" % (f, a.name, k, a.name, x, k))
        self.count(op)

    def o_Assert(self, op: L.Assert):
        at = self.at(op.site)
        a = self.val(op.a)
        if op.cmp is None:
            self.fault("!%s" % a, "cint_gen_assert_fault(ctx, %s, 0u, 0u, 0u, 0u, 0u)" % at)
            return
        b = self.val(op.b)
        self.fault("!(%s %s %s)" % (a, op.cmp, b), "cint_gen_assert_fault(ctx, %s, 2u, %s, (uint64_t)%s, %s, "
                   "(uint64_t)%s)" % (at, tag(op.a.ty), a, tag(op.b.ty), b))

    def o_Scope(self, op: L.Scope):
        w = self.w
        n = self.label("fe")
        w.open("{")
        w("const int64_t %s = cint_gen_frame_charged(ctx);" % n)
        self.block(op.body)
        w("cint_gen_frame_release(ctx, %s);" % n)
        w.close("}")

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
                if self.lower0(a) and op.proven and op.proven[k]:
                    continue
                iv = self.val(i)
                lo = "0" if self.lower0(a) else "l_%s_%d" % (a.name, k)
                guard = ""
                if self.lz and a.kind == "param" and op.proven and op.proven[k]:
                    guard = "!%s && " % self.lz     # proved for lower bounds 0: checked only when one is not
                ki = self.const_of(i)
                if ki is not None and a.kind == "const" and 0 <= ki < self.const_shape(a)[k]:
                    continue
                cond = guard + ("(uint64_t)%s - (uint64_t)%s >= (uint64_t)%s" % (iv, lo, self.extent(a, k))
                                if lo != "0" else "(uint64_t)%s >= (uint64_t)%s" % (iv, self.extent(a, k)))
                if a.kind in ("const", "global"):
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
        if self.mode == "fast" and self.spec_flag is None and _speculable(op.then) and _speculable(op.other):
            self.speculate(op)
            return
        self.w_open("if (%s) {" % self.val(op.cond))
        self.block(op.then)
        if op.other.ops:
            self.w.close("} else {")
            self.w.ind += "    "
            self.block(op.other)
        self.w.close("}")

    def speculate(self, op: L.If):
        """Fast mode: both branches run (each assigns shadows of the variables it sets and notes its checks in
        a flag of its own), then the condition selects the values and the flag, with no branch that the data
        decide (if-conversion: the compiler's conditional moves)."""
        w = self.w
        n = self.label("sp")
        assigned = []
        for b in (op.then, op.other):
            for x in L.walk(b):
                if isinstance(x, L.Let) and isinstance(x.dst, L.Var) and x.dst not in assigned:
                    assigned.append(x.dst)
        w.open("{")
        w("const uint8_t %s_c = %s;" % (n, self.val(op.cond)))
        w("uint32_t %s_ft = 0, %s_fe = 0;" % (n, n))
        saved = dict(self.names)
        for side, b in (("t", op.then), ("e", op.other)):
            for v in assigned:
                w("%s %s_%s%d = %s;" % (ctype(v.ty), n, side, v.n, self.vname(v)))
            for v in assigned:
                self.names[id(v)] = "%s_%s%d" % (n, side, v.n)
            self.spec_flag = "%s_f%s" % (n, side)
            w.open("{")
            self.block(b)
            w.close("}")
            self.spec_flag = None
            self.names = dict(saved)
        # selected by masks, not `?:`, which the compiler would turn back into a branch on the condition
        w("const uint64_t %s_m = (uint64_t)0 - (uint64_t)%s_c;" % (n, n))
        for v in assigned:
            ct = ctype(v.ty)
            w("%s = (%s)(((uint64_t)%s_t%d & %s_m) | ((uint64_t)%s_e%d & ~%s_m));" % (
                self.vname(v), ct, n, v.n, n, n, v.n, n))
        f = "(uint32_t)((%s_ft & (uint32_t)%s_m) | (%s_fe & ~(uint32_t)%s_m))" % (n, n, n, n)
        if self.flag:
            w("ovf |= %s;" % f)
        else:
            w("if (CINT_UNLIKELY(%s)) return 1;" % f)
        w.close("}")

    def w_open(self, s):
        self.w.open(s)

    # ------------------------------------------------------------------ loops

    # ------------------------------------------------------------------ calls, reductions, returns

    def o_Call(self, op: L.Call):
        em = self.em
        info = op.callee
        w = self.w
        args = ["ctx"]
        # the arrays as cint_gen_array values (the emitter's call checks read them so)
        vals = [("(*%s)" % self.arr_ptr(a)) if isinstance(a, L.Arr) else None for a in op.args]
        if self.stepped:
            w("step++;")
            at = "&(cint_gen_at){{%du, %du}, wi, step - 1}" % (em.cur_mod, em.site(op.site))
            args += ["wi", "&step"]
            name = em.kuse(info)
        else:
            at = self.at(op.site)
            name = em.fname(info)
        self.before_call()
        sizes = self.bind_shapes(info, vals, at)
        args += [sizes.get(s.name, "0") for s in info.size_params]
        args += ["&%s" % v if v is not None else self.val(a) for a, v in zip(op.args, vals)]
        if op.dst is not None:
            w("%s t%d = 0;" % (ctype(op.dst.ty), op.dst.n))
            args.append("&t%d" % op.dst.n)
        w("if (cint_gen_call_enter(ctx, %s)) goto fail;" % at)
        w("if (%s(%s)) goto fail;" % (name, ", ".join(args)))
        w("cint_gen_call_leave(ctx);")
        self.after_call()

    def bind_shapes(self, info, vals, at) -> dict:
        """The entry checks of a call from cint code (the tree-walking emitter's `call`, in its order): size
        symbols bound from the array arguments' extents and checked (bind.shape), computed extents in a second
        pass, the callee's `where` clause, bind.alias.  The fuel is in the context already.  Returns the C value
        of each size symbol."""
        from cint_compiler.semantics.types import ArrayType, SymExtent
        em, w = self.em, self.w
        sizes, checks, computed = {}, [], []
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if not isinstance(p.type, ArrayType):
                continue
            for d, spec in enumerate(p.type.dims):
                got = "(%s).shape[%d]" % (v, d)
                if isinstance(spec, str):
                    if spec in sizes:
                        checks.append((k, d, got, sizes[spec]))
                    else:
                        sizes[spec] = got
                elif isinstance(spec, int):
                    checks.append((k, d, got, "INT64_C(%d)" % spec))
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if isinstance(p.type, ArrayType):
                for d, spec in enumerate(p.type.dims):
                    if isinstance(spec, SymExtent):
                        off = "INT64_MIN" if spec.off == -(1 << 63) else "INT64_C(%d)" % spec.off
                        computed.append((k, d, "(%s).shape[%d]" % (v, d), sizes.get(spec.sym, "INT64_C(0)"), off))
        for k, d, got, want in checks:
            w("if (%s != %s && cintg_bind_shape(ctx, %s, %d, %d, %s, %s)) goto fail;" % (got, want, at, k, d, got, want))
        for k, d, got, n, off in computed:
            w("if (cintg_extent_differs(%s, %s, %s) && cintg_bind_shape(ctx, %s, %d, %d, %s, "
              "cintg_extent_value(%s, %s))) goto fail;" % (got, n, off, at, k, d, got, n, off))
        lines = []
        if info.decl.where is not None:
            em.where_check(info, sizes, at, lines)
        em.alias_checks(info, [v if v is not None else "0" for v in vals], at, lines)
        for line in lines:
            w(line)
        return sizes

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
            if not (self.spec and op.row_proven):     # (a function checks a proved row too: lz_ guards)
                lo = "0" if (self.spec or op.arr.kind != "param") else "l_%s_0" % op.arr.name
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
        r = op.dst.n
        w("%s t%d = 0;" % (ctype(op.dst.ty), r))
        inline = self.inline_ok(op)
        if inline:
            # first inline, exact by split accumulation; when the shapes differ, the fuel does not cover it or
            # the total leaves its type, the runtime's reduction runs from the start and raises the record
            self.inline_reduce(op, None if op.row is None else self.val(op.row))
            w.open("if (!ok%d) {" % r)
        self.before_call()
        if op.kind == "sum":
            if self.stepped:
                w("if (cint_gen_sum_at(ctx, %s, %s, %s, %s, &t%d)) goto fail;" % (charge_at, at, arr, tag(op.ty), r))
            else:
                w("if (cint_gen_sum(ctx, %s, %s, %s, &t%d)) goto fail;" % (at, arr, tag(op.ty), r))
        else:
            w("uint64_t u%d = 0;" % r)
            w("if (cint_w_dot(ctx, %s, %s, %s, %s, %s, &u%d)) goto fail;" % (
                charge_at, at, arr, self.arr_ptr(op.arr2), tag(op.ty), r))
            w("t%d = cintg_wrap_%s(u%d);" % (r, op.ty.token, r))
        self.after_call()
        if inline:
            w.close("}")

    def inline_ok(self, op: L.Reduce) -> bool:
        """An exact-mode reduction may first run inline: elements the split accumulation covers, over arrays
        that are contiguous here (a parameter in the body for unit strides, a local, module or constant one)."""
        arrs = [op.arr] + ([op.arr2] if op.arr2 is not None else [])
        # 64-bit elements: the runtime's blocked 128-bit sum is faster than three split accumulators
        return _fast_reduce_ok(op) and op.arr.elem.bits <= 32 and \
            all(a.kind in ("local", "const", "global") or (a.kind == "param" and self.spec) for a in arrs)

    def inline_reduce(self, op: L.Reduce, row):
        """The inline attempt of an exact-mode reduction: sets ok<N> and t<N> when it completes."""
        w = self.w
        r = op.dst.n
        a = op.arr
        w("int ok%d = 0;" % r)
        w.open("{")
        n = "rn%d" % r
        w("const int64_t %s = %s;" % (n, self.extent(a, a.rank - 1)))
        conds = ["%s < INT64_C(4294967296)" % n, "(%s + 63) / 64 <= fl - fu" % n]
        if op.arr2 is not None and not op.same_extent:
            conds.insert(0, "%s == %s" % (n, self.extent(op.arr2, 0)))
        w.open("if (%s) {" % " && ".join(conds))
        self.split_sum(op, self.data_of(a, row), n)
        R = op.ty
        w.open("if (s%d >= (cintg_i128)%s && s%d <= (cintg_i128)%s) {" % (r, i64(R.min) if R.signed else "0", r,
                                                                          lit(R, R.max)))
        w("fu += (%s + 63) / 64;" % n)
        w("t%d = (%s)s%d;" % (r, ctype(R), r))
        w("ok%d = 1;" % r)
        w.close("}")
        w.close("}")
        w.close("}")

    def split_sum(self, op: L.Reduce, pa: str, n: str):
        """s<N> = the exact sum (or dot) of n elements from pa (and op.arr2), by split accumulation: each
        element or product u as 64 bits, summing u >> 32, u & 0xFFFFFFFF and the sign u >> 63 apart, which no
        partial sum can wrap for fewer than 2^32 elements (vectorisable)."""
        w = self.w
        r = op.dst.n
        et = op.arr.elem
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
        w("const cintg_i128 s%d = ((cintg_i128)hi%d << 32) + (cintg_i128)lo%d - ((cintg_i128)ng%d << 64);" % (
            r, r, r, r))

    def data_of(self, a: L.Arr, row) -> str:
        """A pointer to the first element (of row `row` for a rank-2 array), in fast mode."""
        if a.kind in ("const", "global"):
            base = self.fixed_data(a)
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
        r = op.dst.n
        self.split_sum(op, self.data_of(a, row), n)
        R = op.ty
        self.fault("s%d < (cintg_i128)%s || s%d > (cintg_i128)%s" % (r, i64(R.min) if R.signed else "0", r,
                                                                        lit(R, R.max)), "")
        self.declare(op.dst, "(%s)s%d" % (ctype(R), r))
        self.count(op)

    def arr_ptr(self, a: L.Arr) -> str:
        """A `cint_gen_array *` of a for a runtime function: a parameter's own, or a view of a constant or
        module array made here."""
        if a.kind in ("param", "local", "view"):
            return self.arr_c(a)
        self.labels += 1
        name = "ga%d" % self.labels
        self.w("cint_gen_array %s;" % name)
        self.w("cintg_inline(&%s, %s, (int64_t)sizeof(%s), (cint_type){%s}, %du, (const int64_t[4]){%s});" % (
            name, self.fixed_data(a), ctype(a.elem), self.em.type_fields(a.elem), a.rank,
            ", ".join(str(x) for x in self.const_shape(a) + [0] * (4 - a.rank))))
        if a.kind == "const":
            self.w("%s.perm = CINT_VIEW_READ;" % name)
        return "&" + name

    def o_Return(self, op: L.Return):
        w = self.w
        if op.value is not None:
            w("*result = %s;" % self.val(op.value))
        if self.refund:     # from inside a loop charged whole: its iterations not begun go back
            w("fu = %s;" % self.refund)
        if self.mode == "fast":
            self.item_end_used = True
            w("goto %s;" % self.item_end)
            return
        w("F->used = fu;")
        if self.fn.frame_charged and not self.stepped:
            w("cint_gen_frame_release(ctx, fe_fn);")
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
        self.exact = set()
        self.mul_ranges: Dict[tuple, tuple] = {}
        self.prologue_at = 0
        self.refs: Dict[int, str] = {}
        self.const_refs: Dict[int, tuple] = {}
        self.loop_stack = []


SPECULABLE = (L.Let, L.Arith, L.Neg, L.Cmp, L.Bitwise, L.MinMax, L.Conv, L.Steps)


def _speculable(b: L.Block) -> bool:
    """Block b may run although its branch is not taken: operations with no effect but their values (and
    flags), divisions and shifts only by constants that cannot fault for lack of a divisor or a count."""
    if len(b.ops) > 12:
        return False
    for op in b.ops:
        if not isinstance(op, SPECULABLE):
            return False
        if isinstance(op, L.Let) and isinstance(op.dst, L.Var) and op.dst.kind != "local":
            return False
        if isinstance(op, L.Arith):
            kb = op.b.value if isinstance(op.b, L.Imm) else None
            if op.op in ("div", "rem") and (kb is None or kb == 0 or kb == -1):
                return False
            if op.op in ("shl", "shr") and (kb is None or not 0 <= kb < op.ty.bits):
                return False
    return True

