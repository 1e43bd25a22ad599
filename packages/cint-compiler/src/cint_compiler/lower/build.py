"""Lowering: a checked function or kernel (the annotated tree and its FuncInfo) to LIR (lower/lir.py).

The lowering follows the evaluation order and the step-counting rules the reference interpreter
implements (SPEC-01P.1 section 8, IM-113): places before values, operands left to right, one counted step
for each arithmetic operator, conversion and subscript access, the steps of a folded constant where the
constant stands.  What it does not cover yet raises `NotLowered`, and the function stays with the
tree-walking emitter (docs/lir.md lists the subset).
"""
from __future__ import annotations

from typing import Dict, List

from cint_compiler.lower import lir as L
from cint_compiler.semantics.operators import ARITH_OPS, BIT_OPS, CMP_OPS, SHIFT_OPS
from cint_compiler.semantics.types import BOOL, I64, VOID, ArrayType, BoolType, IntType
from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import NOTCONST


def scalar(t) -> bool:
    """The scalar types the LIR carries: Bool and the integers of 64 bits or fewer (not distinct types)."""
    if isinstance(t, BoolType):
        return True
    return type(t) is IntType and t.bits <= 64


def charged(d) -> bool:
    """Statement d declares a local array the frame arena charges (LS-110; a constant one too)."""
    return isinstance(d, A.VarDecl) and d.mode is None and isinstance(getattr(d, "resolved", None), ArrayType)


def frame_charges(node) -> bool:
    return any(charged(n) for n in A.descendants(node))


def frame_use(node) -> bool:
    """Node may take frame-arena storage (a local array, an array literal, a call), which a loop gives back
    at its next iteration (as the tree-walking emitter does)."""
    for n in A.descendants(node):
        if isinstance(n, A.VarDecl) and n.mode is None and isinstance(getattr(n, "resolved", None), ArrayType):
            return True
        if isinstance(n, A.ArrayLit) or (isinstance(n, A.Call) and getattr(n, "kind", None) == "func"):
            return True
    return False


def _name_of(d):
    """A name expression for the constant declared by d (its checked symbol)."""
    e = A.Name(d.name, span=d.span)
    e.ref = d.sym
    return e


def lower(info, kernel: bool = False, kvariant: bool = False) -> L.Function:
    """The LIR of the checked function or kernel `info`; kvariant: the work-item form of a function
    (steps counted on its caller's ordinal, LS-250).  Raises NotLowered for what LIR does not cover."""
    return Lowerer(info, kernel or kvariant or info.is_kernel).function()


class Lowerer:
    def __init__(self, info, stepped: bool):
        self.info = info
        self.stepped = stepped          # in a work item: operations count steps
        self.vars: Dict[int, L.Var] = {}   # id(Symbol) -> Var
        self.arrs: Dict[int, L.Arr] = {}   # id(Symbol) -> Arr
        self.consts: Dict[int, L.Arr] = {}
        self.globals: Dict[int, object] = {}    # id(Symbol) -> its Var or Arr
        self.ntemps = 0
        self.nrefs = 0
        self.nvars = 0
        self.cur: L.Block = L.Block()
        self.loops: List[tuple] = []     # (label, LIR loop op)

    # ------------------------------------------------------------------ values

    def temp(self, ty) -> L.Temp:
        self.ntemps += 1
        return L.Temp(self.ntemps, ty)

    def var(self, name, ty, kind="local") -> L.Var:
        self.nvars += 1
        return L.Var(name, ty, kind, self.nvars)

    def emit(self, op):
        self.cur.ops.append(op)
        return op

    def block(self, fill) -> L.Block:
        saved, self.cur = self.cur, L.Block()
        try:
            fill()
            return self.cur
        finally:
            self.cur = saved

    # ------------------------------------------------------------------ the function

    def function(self) -> L.Function:
        info = self.info
        d = info.decl
        res = info.result if not info.is_kernel else VOID
        if res is not VOID and not scalar(res):
            raise L.NotLowered(d.span, "a result of type %s" % res)
        sizes = []
        for s in info.size_params:
            v = L.Var(s.name, I64, "size")
            self.vars[id(s)] = v
            sizes.append(v)
        params = []
        for k, p in enumerate(info.params):
            t = p.type
            if isinstance(t, ArrayType):
                if not scalar(t.elem) or t.rank > 4:
                    raise L.NotLowered(p.span, "an array parameter of %s" % t)
                a = L.Arr(p.name, t, "param", k, p.info or "in", sym=p)
                self.arrs[id(p)] = a
                params.append(a)
            elif scalar(t):
                if p.info in ("inout", "out"):
                    raise L.NotLowered(p.span, "an %s scalar parameter" % p.info)
                v = L.Var(p.name, t, "param")
                self.vars[id(p)] = v
                params.append(v)
            else:
                raise L.NotLowered(p.span, "a parameter of type %s" % t)
        fn = L.Function(d.name, "kernel" if info.is_kernel else "function", info, sizes, params,
                        None if res is VOID else res)
        self.sizes = sizes
        if info.is_kernel:
            over = []
            extents = []
            for ov, ovd in zip(info.over, d.over):
                v = L.Var(ov.name, I64, "over")
                self.vars[id(ov)] = v
                over.append(v)
                ext = next((s for s in sizes if s.name == getattr(ovd.extent, "ident", None)), None)
                if ext is None:
                    raise L.NotLowered(ovd.span, "an over extent that is not a size symbol")
                extents.append(ext)
            body = self.block(lambda: self.s_Block(d.body))
            fn.items = L.ItemLoop(over, extents, body, frame_reset=frame_use(d.body))
        else:
            fn.body = self.block(lambda: self.s_Block(d.body))
            fn.frame_charged = not self.stepped and frame_charges(d.body)
        fn.consts = list(self.consts.values())
        fn.globals = list(self.globals.values())
        fn.ntemps, fn.nrefs = self.ntemps, self.nrefs
        return fn

    # ------------------------------------------------------------------ statements

    def stmts(self, stmts):
        for s in stmts:
            m = getattr(self, "s_" + type(s).__name__, None)
            if m is None:
                raise L.NotLowered(s.span, "the statement %s" % type(s).__name__)
            m(s)

    def s_Block(self, s):
        if not self.stepped and any(charged(x) for x in s.stmts):
            self.emit(L.Scope(self.block(lambda: self.stmts(s.stmts))))
        else:
            self.stmts(s.stmts)

    def local_array(self, d, t):
        """`T[e, ...] a;` (zero-filled) or `const T[...] a = [...];` (its elements folded): LS-110."""
        if not scalar(t.elem) or t.rank > 4:
            raise L.NotLowered(d.span, "a local array of %s" % t)
        if d.is_const:
            def steps(x):
                if isinstance(x, A.ArrayLit):
                    return sum(steps(i) for i in x.items)
                return x.csteps if x.cval is not NOTCONST and not isinstance(x.ty, ArrayType) else 0
            n = steps(d.init)
            if self.stepped and n:
                self.emit(L.Steps(n))
            arr = self.array(_name_of(d))
            if not self.stepped:
                self.emit(L.LocalArray(arr, [L.Imm(x, I64) for x in arr.value.shape], site=d.span))
            return
        if d.init is not None:
            raise L.NotLowered(d.span, "an array initializer")
        shape = []
        for x in t.dims:
            if isinstance(x, int):
                shape.append(L.Imm(x, I64))
            elif isinstance(x, str):
                shape.append(next(v for v in self.sizes if v.name == x))
            elif isinstance(x, A.Expr):
                shape.append(self.snapshot(self.expr(x)))
            else:
                raise L.NotLowered(d.span, "a local array extent %s" % x)
        self.nvars += 1
        arr = L.Arr("a%d_%s" % (self.nvars, d.name), t, "local", sym=d.sym)
        self.arrs[id(d.sym)] = arr
        self.emit(L.LocalArray(arr, shape, site=d.span))

    def s_VarDecl(self, d):
        t = d.resolved
        if d.mode is None and isinstance(t, ArrayType):
            self.local_array(d, t)
            return
        if d.mode is not None and isinstance(t, ArrayType) and scalar(t.elem) and d.init is not None:
            self.arrs[id(d.sym)] = self.array(d.init)      # a view variable: the view itself (LS-106)
            return
        if d.mode is not None or not scalar(t):
            raise L.NotLowered(d.span, "a declaration of %s" % t)
        if d.is_const:
            if d.init is not None:
                self.expr(d.init)       # the steps of its folded initializer (decision 5)
            return
        v = self.var(d.name, t)
        self.vars[id(d.sym)] = v
        if d.init is None:
            self.emit(L.Let(v, L.Imm(0, t)))
        else:
            self.emit(L.Let(v, self.expr(d.init)))

    def place(self, e):
        """The place of an assignment: ('var', Var) or ('elem', ElemRef), its index checks made."""
        if isinstance(e, A.Paren):
            return self.place(e.inner)
        if isinstance(e, A.Name):
            v = self.vars.get(id(e.ref))
            if v is None and e.ref.kind == "global":
                v = self.x_Name(e)
            if v is None or v.kind not in ("local", "global"):
                raise L.NotLowered(e.span, "this assignment target")
            return ("var", v)
        if isinstance(e, A.Index) and getattr(e, "subword", None) is None:
            return ("elem", self.elem(e))
        raise L.NotLowered(e.span, "this assignment target")

    def read(self, pl):
        kind, x = pl
        if kind == "var":
            return x
        t = self.temp(x.arr.elem)
        self.emit(L.Load(t, x))
        return t

    def write(self, pl, v):
        kind, x = pl
        if kind == "var":
            self.emit(L.Let(x, v))
        else:
            self.emit(L.Store(x, v))

    def s_Assign(self, s):
        t = s.place.ty
        if not scalar(t) or getattr(s, "subword", None) is not None:
            raise L.NotLowered(s.span, "an assignment of %s" % t)
        pl = self.place(s.place)
        if s.op == "=":
            self.write(pl, self.expr(s.value))
            return
        cur = self.read(pl)
        if isinstance(cur, L.Var):          # the value before the right side runs (IM-98)
            c = self.temp(t)
            self.emit(L.Let(c, cur))
            cur = c
        v = self.expr(s.value)
        op = s.op[:-1]
        if op in BIT_OPS and self.stepped:
            self.emit(L.Steps(1))           # a compound assignment counts one step (interp: s_Assign)
        self.write(pl, self.binop(op, t, cur, v, s.value.ty, s.span))

    def s_IncDec(self, s):
        t = s.place.ty
        if not isinstance(t, IntType) or not scalar(t):
            raise L.NotLowered(s.span, "`%s` on %s" % (s.op, t))
        pl = self.place(s.place)
        cur = self.read(pl)
        if isinstance(cur, L.Var):
            c = self.temp(t)
            self.emit(L.Let(c, cur))
            cur = c
        self.write(pl, self.binop("+" if s.op == "++" else "-", t, cur, L.Imm(1, t), t, s.span))

    def s_ExprStmt(self, s):
        if s.in_place:
            raise L.NotLowered(s.span, "in_place")
        self.expr(s.expr, void_ok=True)

    def s_Discard(self, s):
        self.expr(s.value, void_ok=True)

    def s_If(self, s):
        c = self.expr(s.cond)
        then = self.block(lambda: self.s_Block(s.then))
        if s.other is None:
            other = L.Block()
        elif isinstance(s.other, A.If):
            other = self.block(lambda: self.s_If(s.other))
        else:
            other = self.block(lambda: self.s_Block(s.other))
        self.emit(L.If(c, then, other))

    def loop_body(self, s, op, fill):
        op.frame_reset = frame_use(s.body)
        op.frame_charged = not self.stepped and frame_charges(s.body)
        self.loops.append((s.label, op))
        try:
            return self.block(fill)
        finally:
            self.loops.pop()

    def s_While(self, s):
        op = L.Loop(L.Block(), None, L.Block(), L.Block(), label=s.label, site=s.span)
        op.head = self.block(lambda: setattr(op, "cond", self.expr(s.cond)))
        op.body = self.loop_body(s, op, lambda: self.s_Block(s.body))
        self.emit(op)

    def s_DoWhile(self, s):
        op = L.Loop(L.Block(), None, L.Block(), L.Block(), label=s.label, site=s.span, cond_after=True)
        op.body = self.loop_body(s, op, lambda: self.s_Block(s.body))
        op.head = self.block(lambda: setattr(op, "cond", self.expr(s.cond)))
        self.emit(op)

    def s_ForC(self, s):
        if s.init is not None:
            self.stmts([s.init])
        op = L.Loop(L.Block(), None, L.Block(), L.Block(), label=s.label, site=s.span)
        op.head = self.block(lambda: setattr(op, "cond", self.expr(s.cond)))
        op.body = self.loop_body(s, op, lambda: self.s_Block(s.body))
        if s.update is not None:
            op.latch = self.block(lambda: self.stmts([s.update]))
        self.emit(op)

    def s_ForRange(self, s):
        lo = self.expr(s.lo)
        hi = self.expr(s.hi)
        stride = s.step.cval if s.step is not None else 1
        # both bounds are read before the first iteration: a variable bound is copied
        lo, hi = self.snapshot(lo), self.snapshot(hi)
        iv = self.var(s.var or "_", I64, "iv")
        self.vars[id(s.sym)] = iv
        op = L.ForRange(iv, lo, hi, int(stride), bool(s.inclusive), L.Block(), label=s.label, site=s.span)
        op.body = self.loop_body(s, op, lambda: self.s_Block(s.body))
        self.emit(op)

    def snapshot(self, v):
        if isinstance(v, L.Var) and v.kind in ("local", "global"):
            t = self.temp(v.ty)
            self.emit(L.Let(t, v))
            return t
        return v

    def s_ForEach(self, s):
        arr = self.array(s.iterable)
        if arr.rank != 1:
            raise L.NotLowered(s.span, "for-in over an array of rank %d" % arr.rank)
        n = self.temp(I64)
        self.emit(L.Extent(n, arr, 0))      # the extent, read once
        k = self.var("k", I64, "iv")
        op = L.ForRange(k, L.Imm(0, I64), n, 1, False, L.Block(), label=s.label, site=s.span)

        def body():
            if s.index is not None:
                self.vars[id(s.isym)] = k
            if s.var is not None:
                ref = self.ref(arr)
                self.emit(L.Elem(ref, arr, [k], [True], rel=True))     # element k: no check, no step
                x = self.var(s.var, arr.elem)
                t = self.temp(arr.elem)
                self.emit(L.Load(t, ref))
                self.emit(L.Let(x, t))
                self.vars[id(s.xsym)] = x
            self.s_Block(s.body)
        if s.index is not None:
            raise L.NotLowered(s.span, "for-in with an index")    # lower[0] + k: not yet
        op.body = self.loop_body(s, op, body)
        self.emit(op)

    def target(self, s, loops_only):
        for label, op in reversed(self.loops):
            if loops_only and isinstance(op, L.Switch):
                continue
            if s.label is None or label == s.label:
                return op
        raise L.NotLowered(s.span, "this jump")

    def s_Assert(self, s):
        c = s.cond      # as the tree-walking emitter: a comparison of integers or Bool reports both sides
        if isinstance(c, A.Binary) and c.op in CMP_OPS and isinstance(c.left.ty, (IntType, BoolType)):
            if not scalar(c.left.ty):
                raise L.NotLowered(s.span, "an assert over %s" % c.left.ty)
            a = self.snapshot(self.expr(c.left))
            b = self.snapshot(self.expr(c.right))
            self.emit(L.Assert(c.op, a, b, site=s.span))
            return
        self.emit(L.Assert(None, self.expr(s.cond), site=s.span))

    def s_StaticAssert(self, s):
        pass

    def s_Switch(self, s):
        if s.key_kind not in ("int", "bool") or not scalar(s.scrutinee.ty):
            raise L.NotLowered(s.span, "a switch over %s" % s.scrutinee.ty)
        v = self.snapshot(self.expr(s.scrutinee))
        table = [(int(k), idx) for k, idx in s.table.items()]
        op = L.Switch(v, table, [(int(lo), int(hi), idx) for lo, hi, idx in s.ranges], s.default_index, [],
                      [bool(b.stmts) and isinstance(b.stmts[-1], A.Fallthrough) for b in s.bodies], site=s.span)
        op.frame_charged = not self.stepped and any(frame_charges(b) for b in s.bodies)
        self.loops.append((None, op))
        try:
            op.bodies = [self.block(lambda b=b: self.s_Block(b)) for b in s.bodies]
        finally:
            self.loops.pop()
        self.emit(op)

    def s_Fallthrough(self, s):
        pass

    def s_Break(self, s):
        self.emit(L.Break(self.target(s, False)))

    def s_Continue(self, s):
        self.emit(L.Continue(self.target(s, True)))

    def s_Return(self, s):
        if getattr(s, "is_error", False):
            raise L.NotLowered(s.span, "returning an error")
        if s.value is None:
            self.emit(L.Return(None))
            return
        self.emit(L.Return(self.expr(s.value)))

    # ------------------------------------------------------------------ expressions

    def expr(self, e, void_ok=False):
        cv = e.cval
        if cv is not NOTCONST and not e.skip_fold:
            if not scalar(e.ty):
                raise L.NotLowered(e.span, "a constant of type %s" % e.ty)
            if self.stepped and e.csteps:
                self.emit(L.Steps(e.csteps))
            return L.Imm(int(cv), e.ty)
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            raise L.NotLowered(e.span, "the expression %s" % type(e).__name__)
        if isinstance(e, A.Call):
            return m(e, void_ok)
        if not scalar(e.ty):
            raise L.NotLowered(e.span, "a value of type %s" % e.ty)
        return m(e)

    def x_Paren(self, e):
        return self.expr(e.inner)

    def x_IntLit(self, e):
        return L.Imm(e.value, e.ty)

    def x_BoolLit(self, e):
        return L.Imm(int(e.value), BOOL)

    def x_Name(self, e):
        sym = e.ref
        if sym.kind == "const" and scalar(sym.type):
            return L.Imm(int(sym.value), sym.type)
        v = self.vars.get(id(sym))
        if v is None and sym.kind == "global" and scalar(sym.type):
            v = self.globals.get(id(sym))
            if v is None:
                v = self.globals[id(sym)] = L.Var(sym.name, sym.type, "global", sym=sym)
        if v is None:
            raise L.NotLowered(e.span, "the name %s" % sym.name)
        return v

    def x_Unary(self, e):
        v = self.expr(e.operand)
        t = e.ty
        if e.op in ("~", "!"):
            r = self.temp(t)
            self.emit(L.Bitwise(r, e.op, t, v))
            return r
        r = self.temp(t)
        self.emit(L.Neg(r, "wrap" if e.op == "-%" else "checked", t, v, site=e.span, step=True))
        return r

    def binop(self, op, t, a, b, bt, span):
        r = self.temp(t)
        if op in BIT_OPS:
            self.emit(L.Bitwise(r, op, t, a, b))
        elif op in SHIFT_OPS:
            name, form = SHIFT_OPS[op]
            if not scalar(bt) or not isinstance(bt, IntType):
                raise L.NotLowered(span, "a shift count of type %s" % bt)
            self.emit(L.Arith(r, name, form, t, a, b, bty=bt, site=span, step=True))
        else:
            name, form = ARITH_OPS[op]
            self.emit(L.Arith(r, name, form, t, a, b, site=span, step=True))
        return r

    def x_Binary(self, e):
        op = e.op
        if op in ("&&", "||"):
            r = self.var("sc", BOOL)
            self.emit(L.Let(r, self.expr(e.left)))
            other = self.block(lambda: self.emit(L.Let(r, self.expr(e.right))))
            if op == "&&":
                self.emit(L.If(r, other, L.Block()))
            else:
                self.emit(L.If(r, L.Block(), other))
            return r
        a = self.expr(e.left)
        b = self.expr(e.right)
        if op in CMP_OPS:
            if not scalar(e.left.ty):
                raise L.NotLowered(e.span, "comparing %s" % e.left.ty)
            r = self.temp(BOOL)
            self.emit(L.Cmp(r, op, a, b))
            return r
        if not isinstance(e.ty, IntType):
            raise L.NotLowered(e.span, "arithmetic on %s" % e.ty)
        return self.binop(op, e.ty, a, b, e.right.ty, e.span)

    def x_Cond(self, e):
        c = self.expr(e.cond)
        r = self.var("cond", e.ty)
        then = self.block(lambda: self.emit(L.Let(r, self.expr(e.then))))
        other = self.block(lambda: self.emit(L.Let(r, self.expr(e.other))))
        self.emit(L.If(c, then, other))
        return r

    def x_Convert(self, e):
        src, dst = e.src, e.ty
        if e.op not in ("as", "as%", "as|") or not scalar(src) or not isinstance(dst, IntType) or not scalar(dst):
            raise L.NotLowered(e.span, "this conversion")
        v = self.expr(e.operand)
        r = self.temp(dst)
        form = "bool" if src == BOOL else {"as": "checked", "as%": "wrap", "as|": "sat"}[e.op]
        if form == "sat":
            raise L.NotLowered(e.span, "as|")
        self.emit(L.Conv(r, form, src, dst, v, site=e.span, step=True))
        return r

    def array(self, e) -> L.Arr:
        """The array an expression denotes: a parameter, a constant, module or local array, a view variable,
        or a view formed here (a slice or a partial index)."""
        if isinstance(e, A.Paren):
            return self.array(e.inner)
        if isinstance(e, A.Index) and getattr(e, "ckind", None) is None and getattr(e, "subword", None) is None \
                and isinstance(e.base.ty, ArrayType) and (getattr(e, "view", False) or len(e.items) < e.base.ty.rank
                                                          or any(isinstance(i, A.SliceItem) for i in e.items)):
            return self.view(e)
        if isinstance(e, A.Name):
            sym = e.ref
            a = self.arrs.get(id(sym))
            if a is not None:
                return a
            t = sym.type
            if sym.kind == "global" and isinstance(t, ArrayType) and scalar(t.elem) and \
                    all(isinstance(d, int) for d in t.dims):
                a = self.globals.get(id(sym))
                if a is None:
                    a = self.globals[id(sym)] = L.Arr("g_%s" % sym.name, t, "global", sym=sym)
                return a
            if sym.kind == "const" and isinstance(sym.type, ArrayType) and scalar(sym.type.elem):
                a = self.consts.get(id(sym.value))
                if a is None:
                    a = L.Arr("c%d_%s" % (len(self.consts), sym.name), sym.type, "const", value=sym.value,
                              sym=sym)
                    self.consts[id(sym.value)] = a
                return a
        raise L.NotLowered(e.span, "this array")

    def view(self, e) -> L.Arr:
        """A slice or partial index: the base, then every index and bound left to right, then the view's step
        (the tree-walking emitter's `view`)."""
        base = self.array(e.base)
        items = []
        for it in e.items:
            if isinstance(it, A.SliceItem):
                lo = None if it.lo is None else self.snapshot(self.expr(it.lo))
                hi = None if it.hi is None else self.snapshot(self.expr(it.hi))
                step = it.step.cval if it.step is not None else 1
                items.append(("slice", lo, hi, int(step), bool(it.inclusive)))
            else:
                items.append(("index", self.snapshot(self.expr(it))))
        if not isinstance(e.ty, ArrayType):
            raise L.NotLowered(e.span, "a view of type %s" % e.ty)
        self.nvars += 1
        arr = L.Arr("v%d" % self.nvars, e.ty, "view")
        self.emit(L.View(arr, base, items, site=e.span, step=True))
        return arr

    def ref(self, arr) -> L.ElemRef:
        self.nrefs += 1
        return L.ElemRef(self.nrefs, arr)

    def elem(self, e) -> L.ElemRef:
        if getattr(e, "ckind", None) is not None or getattr(e, "view", False) or any(isinstance(i, A.SliceItem) for i in e.items):
            raise L.NotLowered(e.span, "a view")
        arr = self.array(e.base)
        if len(e.items) != arr.rank:
            raise L.NotLowered(e.span, "a partial index")
        idx = [self.expr(i) for i in e.items]
        ref = self.ref(arr)
        self.emit(L.Elem(ref, arr, idx, [False] * len(idx), site=e.span, step=True))
        return ref

    def x_Index(self, e):
        if getattr(e, "subword", None) is not None:
            raise L.NotLowered(e.span, "a sub-word access")
        ref = self.elem(e)
        t = self.temp(ref.arr.elem)
        self.emit(L.Load(t, ref))
        return t

    def x_Call(self, e, void_ok=False):
        kind = e.kind
        if kind == "func":
            return self.call(e)
        if kind == "builtin":
            return self.builtin(e)
        raise L.NotLowered(e.span, "this call")

    def call(self, e):
        """A call of a user function: scalar arguments, and whole arrays (a parameter, a constant or a module
        array), whose shapes the call binds and checks (bind.shape, `where`, bind.alias) as it enters."""
        info = e.info

        def param_ok(p):
            if isinstance(p.type, ArrayType):
                return scalar(p.type.elem)
            return scalar(p.type) and p.info != "inout"
        if not all(param_ok(p) for p in info.params) or (info.result is not VOID and not scalar(info.result)):
            raise L.NotLowered(e.span, "a call of %s" % info.qname)
        vals = [None] * len(e.argv)
        for i in e.order:
            a = e.argv[i]
            if getattr(a, "is_default", False):
                raise L.NotLowered(e.span, "a default argument")
            if isinstance(a.ty, ArrayType):
                vals[i] = self.array(a)
                continue
            if not scalar(a.ty):
                raise L.NotLowered(e.span, "this argument")
            v = self.expr(a)
            vals[i] = self.snapshot(v) if isinstance(v, L.Var) else v
        r = None if info.result is VOID else self.temp(info.result)
        self.emit(L.Call(r, info, vals, site=e.callee.span, step=True))
        return r if r is not None else L.Imm(0, I64)

    def reduce_operand(self, x):
        """A rank-1 operand of a reduction: a whole array (arr, None, None) or a row `m[i]` of a rank-2 array
        (arr, the row index, the site of its view)."""
        while isinstance(x, A.Paren):
            x = x.inner
        if isinstance(x, A.Index) and len(x.items) == 1 and not isinstance(x.items[0], A.SliceItem) and \
                getattr(x, "ckind", None) is None and getattr(x, "subword", None) is None:
            arr = self.array(x.base)
            if arr.rank == 2:
                return arr, self.expr(x.items[0]), x.span
        arr = self.array(x)
        if arr.rank != 1:
            raise L.NotLowered(x.span, "a reduction over an array of rank %d" % arr.rank)
        return arr, None, None

    def builtin(self, e):
        name = e.bname
        T = getattr(e, "T", None)
        if name == "sum" and len(e.argv) == 1:
            arr = self.array(e.argv[0])
            R = e.R
            if not isinstance(R, IntType) or not scalar(R) or not isinstance(arr.elem, IntType):
                raise L.NotLowered(e.span, "this sum")
            r = self.temp(R)
            self.emit(L.Reduce(r, "sum", R, arr, site=e.callee.span, step=True))
            return r
        if name == "dot" and len(e.argv) == 3:
            R = e.R
            a, row, rsite = self.reduce_operand(e.argv[1])
            b, row2, _ = self.reduce_operand(e.argv[2])
            if row2 is not None or not isinstance(R, IntType) or not scalar(R) or not isinstance(a.elem, IntType) \
                    or a.elem != b.elem:
                raise L.NotLowered(e.span, "this dot")
            r = self.temp(R)
            self.emit(L.Reduce(r, "dot", R, a, b, row=row, row_site=rsite, site=e.callee.span, step=True))
            return r
        if name in ("min", "max") and len(e.argv) == 2 and isinstance(T, IntType) and scalar(T):
            a, b = [self.expr(x) for x in e.argv]
            r = self.temp(T)
            self.emit(L.MinMax(r, name, T, a, b, step=True))
            return r
        raise L.NotLowered(e.span, "the built-in %s" % name)
