"""Statements on the reference executor cpu-sir-interp (SPEC-04P.1 section 10; SPEC-01P.1 evaluation order and
fuel): a mixin of :class:`cint_compiler.interp.context.Context`, with the control signals that carry
`break`, `continue`, `return`, `fallthrough` and `try` through Python's stack."""
from __future__ import annotations

import bisect

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.operators import ARITH_OPS, CMP_OPS, SHIFT_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import intmachine as M
from cint_compiler.check.symbols import bitfield_of
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (BOOL, I64, ArrayType, FixedType, IntType)
from cint_compiler.semantics.values import ArrayValue, ErrorValue, copy_value
from cint_compiler.interp.values import (assign_value, compare,
                                        zero_value)
from cint_compiler.check.features.proposed import subword_store
from cint_compiler.semantics import fmt

I64_MAX = (1 << 63) - 1


# ----------------------------------------------------------------------------- control signals


# ----------------------------------------------------------------------------- control signals

class _Break(Exception):
    def __init__(self, label):
        self.label = label


class _Continue(Exception):
    def __init__(self, label):
        self.label = label


class _Return(Exception):
    def __init__(self, value, is_err=False):
        self.value = value
        self.is_err = is_err      # `return .name;`: an error exit, which runs `errdefer` (LS-189)


class _ErrorProp(Exception):
    """An error leaving a function (or a test block) by `try` propagation."""

    def __init__(self, err: ErrorValue, errset=None):
        self.err = err
        self.errset = errset      # the static error set of the operand of `try`


class _Fallthrough(Exception):
    """`fallthrough;` at the end of a case body (LS-178)."""


class StatementExec:
    # -------------------------------------------------------------- statements

    def read(self, sym, env):
        if sym.kind == "global":
            return self.globals[sym]
        if sym.kind == "container":
            return self.mem.container(sym)
        return env[sym]

    # the arena and pool identifier counters of the canonical state live in the Memory (containers.py)
    next_arena = property(lambda self: self.mem.next_arena, lambda self, v: setattr(self.mem, "next_arena", v))
    next_pool = property(lambda self: self.mem.next_pool, lambda self, v: setattr(self.mem, "next_pool", v))

    def block(self, b, env):
        # LS-110: the local arrays a block declares are released when it exits, however it exits
        charges = b.frame_decls
        if charges is None:
            charges = b.frame_decls = any(type(s) is A.VarDecl and s.mode is None and
                                          isinstance(s.resolved, ArrayType) for s in b.stmts)
        if charges:
            mark = self.frame_used
            try:
                self._block(b, env)
            finally:
                self.frame_used = mark
            return
        self._block(b, env)

    def _block(self, b, env):
        has_defer = b.has_defer
        if has_defer is None:
            has_defer = b.has_defer = any(type(s) is A.Defer for s in b.stmts)
        if not has_defer:
            for s in b.stmts:
                getattr(self, "s_" + type(s).__name__)(s, env)
            return
        # LS-185: deferred statements are scheduled as reached and run in reverse order at every exit of the
        # block except a fault (LS-188); `errdefer` only when an error leaves (LS-189).
        pending = []
        try:
            for s in b.stmts:
                if type(s) is A.Defer:
                    pending.append(s)
                else:
                    getattr(self, "s_" + type(s).__name__)(s, env)
        except _Return as r:
            self.run_deferred(pending, env, r.is_err)
            raise
        except _ErrorProp:
            self.run_deferred(pending, env, True)
            raise
        except (_Break, _Continue, _Fallthrough):
            self.run_deferred(pending, env, False)
            raise
        self.run_deferred(pending, env, False)

    def run_deferred(self, pending, env, error_exit):
        """Run the deferred statements of a block, latest first; no fuel of their own (LS-317)."""
        for d in reversed(pending):
            if d.is_err and not error_exit:
                continue
            st = d.stmt
            getattr(self, "s_" + type(st).__name__)(st, env)

    def s_Defer(self, s, env):
        raise AssertionError("a deferred statement is scheduled by its block")

    def s_Block(self, s, env):
        self.block(s, env)

    def s_VarDecl(self, d, env):
        t = d.resolved
        if d.mode is not None:
            env[d.sym] = self.eval(d.init, env)
            return
        if isinstance(t, ArrayType):
            shape = []
            for k, x in enumerate(t.dims):
                if isinstance(x, int):
                    shape.append(x)
                elif isinstance(x, str):
                    shape.append(env[next(s for s in env if getattr(s, "name", None) == x
                                          and s.kind == "sizeparam")])
                else:
                    shape.append(self.eval(x, env))
            for k, x in enumerate(shape):
                if x < 0:
                    self.fault(MachineFault("E_SHAPE", O.DECL_SHAPE, [(I64, k), (I64, x)], None, (I64, 0)), d.span)
            if self.kernel is None:
                self.frame_charge(shape, d.span)
            if d.init is None:
                env[d.sym] = ArrayValue.new(t.elem, shape, lambda: zero_value(t.elem))
                return
            v = self.eval(d.init, env)
            for k, (want, got) in enumerate(zip(shape, v.shape)):
                if want != got:
                    self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, got)], None, (I64, want)),
                               d.eq_span or d.span)
            env[d.sym] = copy_value(v)
            return
        if d.init is None:
            env[d.sym] = zero_value(t)
            return
        v = self.eval(d.init, env)
        if isinstance(t, ArrayType):
            v = self.copy_checked(t, v, d.eq_span or d.span)
        else:
            v = copy_value(v)
        env[d.sym] = v

    def frame_charge(self, shape, span):
        """LS-110: charge a local array's element count (whatever its element type) to the frame arena,
        after its decl.shape check and before its initializer; E_BOUNDS arena.alloc when it does not fit."""
        n = 1
        for x in shape:
            n *= x
        n = min(n, I64_MAX)
        if n > self.frame_cap - self.frame_used:
            self.fault(MachineFault("E_BOUNDS", O.ARENA_ALLOC,
                                    [(I64, n), (I64, self.frame_used), (I64, self.frame_cap)], None, None), span)
        self.frame_used += n

    def copy_checked(self, t, v, span):
        dims = t.dims
        for k, (want, got) in enumerate(zip(dims, v.shape)):
            if isinstance(want, int) and want != got:
                self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, got)], None, (I64, want)), span)
        return copy_value(v)

    def s_GlobalDecl(self, s, env):
        self.s_VarDecl(s.decl, env)

    def render_text(self, text, env) -> bytes:
        """The UTF-8 bytes of an interpolated text (print, format): its parts in order."""
        out = []
        for p in text.parts:
            if isinstance(p, A.Hole):
                v = self.eval(p.expr, env)
                try:
                    s = fmt.format_value(p.expr.ty, v, p.fspec)
                except MachineFault as mf:
                    self.fault(mf, p.expr.span)
                if p.eq:
                    out.append((p.source + "=").encode("utf-8"))
                out.append(s.encode("utf-8"))
            else:
                out.append(p.encode("utf-8") if isinstance(p, str) else p)
        return b"".join(out)

    def s_Print(self, s, env):
        self.emit(self.render_text(s.text, env))

    def place_ref(self, place, env):
        """Evaluate a place's subexpressions and checks; return (setter, getter) (IM-98)."""
        if isinstance(place, A.Paren):
            return self.place_ref(place.inner, env)
        if isinstance(place, A.Name):
            sym = place.ref
            if sym.kind == "global":
                return (lambda v: self.globals.__setitem__(sym, v)), (lambda: self.globals[sym])
            return (lambda v: env.__setitem__(sym, v)), (lambda: env[sym])
        if isinstance(place, A.Index):
            if place.ckind is not None:
                return self.mem_place(place, env)
            if place.view:
                view = self.form_view(place, env)
                return None, (lambda: view)
            base = self.eval(place.base, env)
            idx = [self.eval(i, env) for i in place.items]
            st = self.counted()
            off = self.index_offset(base, idx, place, st)
            cells = base.storage.cells
            return (lambda v: cells.__setitem__(off, v)), (lambda: cells[off])
        if isinstance(place, A.Member):
            sv = self.eval(place.base, env)
            return (lambda v: sv.fields.__setitem__(place.name, v)), (lambda: sv.fields[place.name])
        raise AssertionError("not a place")

    def s_Assign(self, s, env):
        if s.subword is not None:      # `x.byte[k] = v;` (LS-86, Proposed): cannot fault
            setter, getter = self.place_ref(s.place.subword_x, env)
            v = self.eval(s.value, env)
            setter(subword_store(getter(), v, *s.subword))
            return
        setter, getter = self.place_ref(s.place, env)
        if s.op == "=":
            v = self.eval(s.value, env)
            t = s.place.ty
            if isinstance(t, ArrayType):
                cur = getter()
                try:
                    self.copy_elements(cur, v)
                except MachineFault as mf:
                    self.fault(mf, s.span)
                return
            bf = bitfield_of(s.place)
            if bf is not None:
                self.bitfield_check(bf, v, s.span)
            setter(assign_value(getter(), v))
            return
        cur = getter()
        v = self.eval(s.value, env)
        op = s.op[:-1]
        t = s.place.ty
        st = self.counted()
        try:
            if op in SHIFT_OPS:
                name, form = SHIFT_OPS[op]
                r = M.shr(t, cur, v, s.value.ty) if name == "shr" else M.shl(form, t, cur, v, s.value.ty)
            elif op == "&":
                r = M.bitand(t, cur, v)
            elif op == "|":
                r = M.bitor(t, cur, v)
            elif op == "^":
                r = M.bitxor(t, cur, v)
            else:
                name, form = ARITH_OPS[op]
                if name == "div":
                    r = M.div(t, cur, v)
                elif name == "rem":
                    r = M.rem(t, cur, v)
                else:
                    r = M.arith(name, form, t, cur, v)
        except MachineFault as mf:
            self.fault(mf, s.span, st)
        bf = bitfield_of(s.place)
        if bf is not None:
            self.bitfield_check(bf, r, s.span)
        setter(r)

    def s_IncDec(self, s, env):
        setter, getter = self.place_ref(s.place, env)
        cur = getter()
        st = self.counted()
        try:
            r = M.arith("add" if s.op == "++" else "sub", "checked", s.place.ty, cur, 1)
        except MachineFault as mf:
            self.fault(mf, s.span, st)
        bf = bitfield_of(s.place)
        if bf is not None:
            self.bitfield_check(bf, r, s.span)
        setter(r)

    def s_ExprStmt(self, s, env):
        self.eval(s.expr, env)

    def s_Discard(self, s, env):
        self.eval(s.value, env)

    def s_If(self, s, env):
        if self.eval(s.cond, env):
            self.block(s.then, env)
        elif s.other is not None:
            if isinstance(s.other, A.If):
                self.s_If(s.other, env)
            else:
                self.block(s.other, env)

    def _loop_body(self, s, env):
        """Run a loop body; return 'break' / None; re-raise jumps for other loops."""
        try:
            self.block(s.body, env)
        except _Break as b:
            if b.label is None or b.label == s.label:
                return "break"
            raise
        except _Continue as c:
            if c.label is None or c.label == s.label:
                return None
            raise
        return None

    def s_While(self, s, env):
        while self.eval(s.cond, env):
            self.charge(1, s.span)
            if self._loop_body(s, env) == "break":
                return

    def s_DoWhile(self, s, env):
        while True:
            self.charge(1, s.span)
            if self._loop_body(s, env) == "break":
                return
            if not self.eval(s.cond, env):
                return

    def s_ForC(self, s, env):
        if s.init is not None:
            getattr(self, "s_" + type(s.init).__name__)(s.init, env)
        while self.eval(s.cond, env):
            self.charge(1, s.span)
            if self._loop_body(s, env) == "break":
                return
            if s.update is not None:
                getattr(self, "s_" + type(s.update).__name__)(s.update, env)

    def s_ForRange(self, s, env):
        lo = self.eval(s.lo, env)
        hi = self.eval(s.hi, env)
        step = s.step.cval if s.step is not None else 1
        if step > 0:
            last = hi if s.inclusive else hi - 1
            i = lo
            while i <= last:
                self.charge(1, s.span)
                env[s.sym] = i
                if self._loop_body(s, env) == "break":
                    return
                if last - i < step:
                    return
                i += step
        else:
            last = hi if s.inclusive else hi + 1
            i = lo
            while i >= last:
                self.charge(1, s.span)
                env[s.sym] = i
                if self._loop_body(s, env) == "break":
                    return
                if i - last < -step:
                    return
                i += step

    def s_ForEach(self, s, env):
        arr = self.eval(s.iterable, env)
        n = arr.shape[0]
        lo = arr.lower[0]
        for k in range(n):
            self.charge(1, s.span)
            env[s.isym] = lo + k
            env[s.xsym] = copy_value(arr.get((k,)))
            if self._loop_body(s, env) == "break":
                return

    def s_Break(self, s, env):
        raise _Break(s.label)

    def s_Continue(self, s, env):
        raise _Continue(s.label)

    def s_Return(self, s, env):
        if s.value is None:
            raise _Return(None)
        v = self.eval(s.value, env)
        if s.is_error:
            raise _Return(("err", v), True)
        raise _Return(copy_value(v))

    # -------------------------------------------------------------- switch (LS-177 to LS-184)

    def s_Switch(self, s, env):
        v = self.eval(s.scrutinee, env)
        kind = s.key_kind
        if kind == "int":
            key = v
        elif kind == "enum":
            key = v.value
        elif kind == "bool":
            key = bool(v)
        else:
            key = (v.set, v.name)
        k = s.table.get(key)
        if k is None:
            if s.ranges:
                i = bisect.bisect_right(s.range_los, key) - 1
                if i >= 0 and s.ranges[i][1] >= key:
                    k = s.ranges[i][2]
            if k is None:
                k = s.default_index
        bodies = s.bodies
        while True:
            try:
                self.block(bodies[k], env)
                return
            except _Fallthrough:
                k += 1
            except _Break as b:
                if b.label is None:
                    return
                raise

    def s_Fallthrough(self, s, env):
        raise _Fallthrough()

    # -------------------------------------------------------------- tuples (LS-98 to LS-101)

    def s_Destructure(self, s, env):
        if s.declare:
            vals = self.eval(s.value, env)
            for b, v in zip(s.binds, vals):
                if b.sym is not None:
                    env[b.sym] = copy_value(v)
            return
        # LS-100: the places are evaluated and checked left to right before the right-hand side
        refs = [self.place_ref(b.place, env) if b.place is not None else None for b in s.binds]
        vals = self.eval(s.value, env)
        for b, ref, v in zip(s.binds, refs, vals):
            if ref is None:
                continue
            setter, getter = ref
            if isinstance(b.place.ty, ArrayType):
                cur = getter()
                if tuple(cur.shape) != tuple(v.shape):
                    k = next(i for i, (x, y) in enumerate(zip(cur.shape, v.shape)) if x != y)
                    self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, v.shape[k])], None,
                                            (I64, cur.shape[k])), s.span)
                for i, j in zip(cur.indices(), v.indices()):
                    cur.set(i, copy_value(v.get(j)))
            else:
                bf = bitfield_of(b.place)
                if bf is not None:
                    self.bitfield_check(bf, v, s.span)
                setter(copy_value(v))

    def s_Assert(self, s, env):
        c = s.cond
        if isinstance(c, A.Binary) and c.op in CMP_OPS:
            a = self.eval(c.left, env)
            b = self.eval(c.right, env)
            if compare(c.op, c.left.ty, a, b):
                return
            ops = []
            for x, v in ((c.left, a), (c.right, b)):
                if isinstance(x.ty, (IntType, FixedType)):
                    ops.append((x.ty, v))
                elif x.ty == BOOL:
                    ops.append((BOOL, 1 if v else 0))
            self.fault(MachineFault("E_ASSERT", O.ASSERT, ops), s.span)
        if not self.eval(c, env):
            self.fault(MachineFault("E_ASSERT", O.ASSERT, []), s.span)

    def s_StaticAssert(self, s, env):
        pass

    # -------------------------------------------------------------- error unions

    def x_Try(self, e, env):
        r = self.eval(e.operand, env)
        if r[0] == "err":
            raise _ErrorProp(r[1], e.operand.ty.errset)
        return r[1]

    def x_Catch(self, e, env):
        r = self.eval(e.operand, env)
        if r[0] == "ok":
            return r[1]
        if e.block is not None:
            env[e.sym] = r[1]
            self.block(e.block, env)
            raise AssertionError("a catch block leaves")
        return self.eval(e.value, env)
