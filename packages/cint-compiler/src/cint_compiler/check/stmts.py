"""Function bodies and statements.

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.semantics.operators import SHIFT_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (BOOL, I64, VOID, ArrayType, BoolType, EnumType,
                    ErrorSetType, ErrorUnionType, FixedType, IntType, StrType, StructType, TupleType)
from cint_compiler.semantics.types import ArenaType, PoolType

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    Symbol,
    FuncInfo,
    _elem_bytes,
    has_zero,
    _err,
    Scope,
    FnCtx,
)
from cint_compiler.check.features.reduce import finish_kernel
from cint_compiler.check.features import proposed as proposed_check
from cint_compiler.check.features import textops as textops_check
from cint_compiler.semantics import fmt
from cint_abi.codes import FAULT_CODES


class StmtChecks:
    # ------------------------------------------------------------------ function bodies

    def check_function(self, info: FuncInfo):
        d = info.decl
        self.fn = FnCtx(info, "kernel" if info.is_kernel else "func", info.result)
        self.scope = Scope(self.top)
        for s in info.size_params:
            self.declare(self.scope, s.name, s, d.span)
        for p in info.params:
            self.declare(self.scope, p.name, p, p.span)
        for ov in info.over:
            self.declare(self.scope, ov.name, ov, ov.span)
        if info.is_kernel:
            for ov in d.over:
                self.expr(ov.extent, I64)
                if not (isinstance(ov.extent, A.Name) and ov.extent.ref.kind == "sizeparam"):
                    raise unsupported(ov.extent.span, "an `over` extent that is not a size symbol")
            for p in info.params:
                if not (isinstance(p.type, ArrayType) or isinstance(p.type, (IntType, FixedType))):
                    raise _err("C5028", p.span, "a kernel parameter has an integer or fixed-point element type")
        if isinstance(info.result, ErrorUnionType):
            self.knote("C5022", d.result.span or d.span, "returns an error union")
        if info.is_kernel:
            for w in d.where or []:
                self.where_clause(w)
        elif d.where is not None:
            self.where_clause(d.where)
        self.block(d.body, new_scope=False)
        if info.is_kernel:
            self.kernel_coverage(info, d.body)
            finish_kernel(self, info)
        if info.result is not VOID and self.can_complete(d.body) and not (
                isinstance(info.result, ErrorUnionType) and info.result.value is VOID):   # E!void ends ok (LS-190)
            raise _err("C4001", d.span, "`%s` can reach its end without returning a value" % d.name)
        self.flush_pending()
        info.prints = self.fn.prints
        info.kviol = self.fn.kviol
        info.kcalls = self.fn.kcalls
        info.gwrites = self.fn.gwrites
        info.kchecked = True
        self.fn = None
        self.scope = self.top

    def check_test(self, t: A.TestDecl):
        if t.expect_fault is not None:
            if t.expect_fault not in FAULT_CODES:
                raise _err("C1011", t.expect_fault_span or t.span, "unknown fault name %s" % t.expect_fault)
        self.fn = FnCtx(kind="test", result=VOID)
        self.scope = Scope(self.top)
        self.block(t.body, new_scope=False)
        self.flush_pending()
        self.fn = None
        self.scope = self.top

    def check_static_assert(self, s: A.StaticAssert):
        self.fn = FnCtx(kind="const")
        self.scope = Scope(self.top)
        self.expr(s.cond, BOOL)
        if s.cond.ty != BOOL:
            raise _err("C2002", s.cond.span, "a static_assert condition is Bool")
        self.fold(s.cond)
        self.flush_pending()
        self.fn = None
        self.scope = self.top
        if s.cond.cval is NOTCONST:
            raise _err("C6004", s.cond.span, "static_assert needs a constant condition")
        if s.cond.cval is not True:
            raise _err("C6010", s.span, "static_assert failed")   # LS-313: the `static_assert` keyword

    def can_complete(self, s) -> bool:
        """Whether a statement can complete normally (LS-116: every loop can complete)."""
        if isinstance(s, A.Block):
            for x in s.stmts:
                if not self.can_complete(x):
                    return False
            return True
        if isinstance(s, (A.Return, A.Break, A.Continue, A.Fallthrough)):
            # a `fallthrough` continues into the next body, which is judged on its own
            return False
        if isinstance(s, A.If):
            if s.other is None:
                return True
            return self.can_complete(s.then) or self.can_complete(s.other)
        if isinstance(s, A.Switch):
            if s.default is None and not s.exhaustive:
                return True
            bodies = [c.body for c in s.cases] + ([s.default] if s.default is not None else [])
            return any(self.can_complete(A.Block(b)) for b in bodies) or any(
                self._breaks_switch(b) for b in bodies)
        if isinstance(s, A.Assert):
            return True
        return True

    def _breaks_switch(self, stmts):
        """Whether an unlabelled `break` in these statements leaves the switch that holds them (LS-180)."""
        for x in stmts:
            if isinstance(x, A.Break):
                if x.label is None:
                    return True
            elif isinstance(x, A.Block):
                if self._breaks_switch(x.stmts):
                    return True
            elif isinstance(x, A.If):
                if self._breaks_switch(x.then.stmts) or (
                        x.other is not None and self._breaks_switch([x.other])):
                    return True
            # a loop or a nested switch takes its own unlabelled breaks; a deferred statement cannot leave
            if any(self._breaks_switch(b.stmts) for b in self._catch_blocks(x)):
                return True
        return False

    def _catch_blocks(self, s):
        """The `catch (e) { ... }` blocks in the expressions of statement ``s`` itself (not of nested blocks)."""
        out = []
        todo = []
        for name in ("value", "init", "expr", "cond", "place", "scrutinee"):
            v = getattr(s, name, None)
            if isinstance(v, A.Expr):
                todo.append(v)
        if isinstance(s, A.Print):
            todo.extend(p.expr for p in s.text.parts if isinstance(p, A.Hole))
        while todo:
            e = todo.pop()
            if isinstance(e, A.Catch) and e.block is not None:
                out.append(e.block)
            for f in vars(e).values():
                if isinstance(f, A.Expr):
                    todo.append(f)
                elif isinstance(f, list):
                    for x in f:
                        if isinstance(x, A.Expr):
                            todo.append(x)
                        elif isinstance(x, A.Arg) and isinstance(x.value, A.Expr):
                            todo.append(x.value)
        return out

    def block(self, b: A.Block, new_scope=True):
        if new_scope:
            saved = self.scope
            self.scope = Scope(saved)
        for s in b.stmts:
            self.stmt(s)
        if new_scope:
            self.scope = saved

    def stmt(self, s):
        meth = getattr(self, "s_" + type(s).__name__, None)
        if meth is None:
            raise unsupported(s.span, "this statement form (%s)" % type(s).__name__)
        meth(s)
        self.flush_pending()

    def flush_pending(self):
        if self.pending:
            errs = sorted(self.pending, key=lambda e: e.sort_key())
            self.pending = []
            raise errs[0]

    def s_Block(self, s):
        self.block(s)

    def s_GlobalDecl(self, s):
        self.s_VarDecl(s.decl)

    def s_VarDecl(self, d: A.VarDecl):
        if d.mode is not None:
            return self.view_decl(d)
        if d.type is None:
            return proposed_check.var_decl(self, d)        # LS-105 (Proposed), decision 27
        t = self.resolve_type(d.type, allow_runtime_dims=True)
        self.storable(t, d.type.span or d.span)
        d.resolved = t
        if isinstance(t, ArrayType) and any(x is None for x in t.dims):
            raise _err("C2010", d.type.span, "a declared array has known extents")
        if isinstance(t, ArrayType):
            self.private_array(d, t)
        if d.init is None:
            if d.is_const:
                raise _err("C1050", d.span, "a constant has an initializer")
            if isinstance(t, (ArenaType, PoolType)):
                raise _err("C2050", d.span, "`%s` needs an initializer: an arena or pool it names" % d.name)
            if isinstance(t, (IntType, FixedType, BoolType, StrType, EnumType, ErrorSetType)) and not isinstance(
                    t, ArrayType):
                if isinstance(t, EnumType) and 0 in t.members.values():
                    pass
                else:
                    raise _err("C2050", d.span, "`%s` needs an initializer" % d.name)
            if isinstance(t, (ArrayType, StructType)) and not has_zero(t):
                # at the first character of the declaration, its type (LS-278)
                raise _err("C2054", d.type.span if d.type is not None else d.span,
                           "`%s` needs an initializer: %s has no zero value (an error set, or an enum "
                           "without an enumerator of value 0, inside it) (spec: LS-91)" % (d.name, t.name()))
        else:
            self.expr(d.init, t)
            self.assignable(t, d.init, d.init.span)
            self.fold(d.init)
        sym = Symbol("const" if d.is_const else "local", d.name, t, decl=d, mutable=not d.is_const, span=d.span)
        if d.is_const:
            self.flush_pending()
            value = d.init.cval if d.init.cval is not NOTCONST else self.const_array(t, d.init)
            if value is NOTCONST:
                raise _err("C6004", d.init.span, "a constant expression is required here")
            sym.value = value
        d.sym = sym
        self.declare(self.scope, d.name, sym, d.span)
        if isinstance(t, StrType):
            textops_check.declared(self, sym, d.init)

    def s_Assign(self, s: A.Assign):
        if proposed_check.subword_assign(self, s):     # `x.byte[k] = v;` (LS-86, Proposed), decision 31
            return
        if isinstance(s.place, A.Name) and s.op == "=" and self._str_info:
            self._str_lhs = s.place      # rebinding a Str variable is not a use of it (textops_check.used)
        pt = self.place(s.place)
        if s.op == "=":
            self.expr(s.value, pt)
            self.assignable(pt, s.value, s.value.span)
            if isinstance(pt, ArrayType):
                self.copy_alias_static(s.place, s.value, start_span(s.value))
            if isinstance(pt, StrType):
                textops_check.assigned(self, s.place, s.value)
        else:
            op = s.op[:-1]
            if isinstance(pt, (ArrayType, StructType)):
                raise _err("C2103", s.span, "`%s` is not defined for %s" % (s.op, pt))
            if op in SHIFT_OPS:
                self.expr(s.value, None)
                if not isinstance(s.value.ty, IntType):
                    raise _err("C2001", s.value.span, "a shift count is an integer")
                if not isinstance(pt, IntType):
                    raise _err("C2103", s.span, "a shift is defined on integers")
            else:
                self.expr(s.value, pt)
                if s.value.ty != pt:
                    raise _err("C2001", s.value.span, "expected %s, found %s" % (pt, s.value.ty))
                self.check_binop_types(op, pt, s.span)
        self.fold(s.value)

    def s_IncDec(self, s: A.IncDec):
        pt = self.place(s.place)
        if not isinstance(pt, (IntType, FixedType)):
            raise _err("C2103", s.span, "`%s` is defined on integers" % s.op)
        if isinstance(pt, FixedType):
            raise _err("C2103", s.span, "`%s` is defined on integers" % s.op)

    def s_ExprStmt(self, s: A.ExprStmt):
        e = s.expr
        if s.in_place:
            raise unsupported(s.span, "`in_place` dispatch")
        inner = e.operand if isinstance(e, A.Try) else e
        if not isinstance(inner, A.Call):
            raise _err("C4012", s.span, "only calls, assignments, declarations and prints stand as statements")
        self.expr(e, None, allow_tuple=True)
        if isinstance(e, A.Call) and isinstance(e.ty, ErrorUnionType):
            raise _err("C2040", e.span, "an error union is consumed with try, catch or `_ =`")
        if e.ty not in (VOID, None) and not isinstance(e, A.Try):
            raise _err("C4011", e.span, "the result of this call is unused; discard it with `_ = ...;`")
        if isinstance(e, A.Try) and e.ty is not VOID:
            raise _err("C4011", e.span, "the result of this call is unused; discard it with `_ = ...;`")

    KERNEL_PRIVATE_BYTES = 4096    # SPEC-04 LS-110, SPEC-02 K-13

    def private_array(self, d, t):
        """C5029 (LS-110): a kernel's private arrays have compile-time extents and take at most 4,096 bytes
        per work-item, counting every private array the body declares; a function with a run-time extent is
        not kernel-admissible."""
        k = next((k for k, x in enumerate(t.dims) if not isinstance(x, int)), None)
        if k is not None:
            dm = d.type.dims[k] if isinstance(d.type, A.ArrayTypeExpr) and k < len(d.type.dims) else None
            span = (start_span(dm.expr) if dm is not None and dm.expr is not None else None) or d.type.span or d.span
            if self.fn.kind == "kernel":
                raise _err("C5029", span, "a private array of a kernel has compile-time extents (spec: LS-110)")
            self.knote("C5029", span, "declares an array with a run-time extent")
            return
        if self.fn.kind != "kernel":
            return
        n = 1
        for x in t.dims:
            n *= x
        self.fn.kbytes += n * _elem_bytes(t.elem)
        if self.fn.kbytes > self.KERNEL_PRIVATE_BYTES:
            raise _err("C5029", d.type.span or d.span, "the private arrays of this kernel take %d bytes per "
                       "work-item; at most %d are allowed (spec: LS-110)" % (self.fn.kbytes, self.KERNEL_PRIVATE_BYTES))

    def s_Discard(self, s: A.Discard):
        self.expr(s.value, None, allow_union=True, allow_tuple=True)
        self.fold(s.value)

    def s_Print(self, s: A.Print):
        if self.fn.kind == "kernel":
            raise _err("C5020", s.span, "a kernel cannot print")
        self.knote("C5020", s.span, "prints")
        self.fn.prints = True
        self.check_holes(s.text)

    def check_holes(self, text: A.StrLit):
        for p in text.parts:
            if isinstance(p, A.Hole):
                self.expr(p.expr, None)
                self.fold(p.expr)
                p.fspec = fmt.parse_spec(p.spec, p.conv, p.expr.ty, p.span)

    def s_If(self, s: A.If):
        self.cond(s.cond)
        self.block(s.then)
        if s.other is not None:
            if isinstance(s.other, A.If):
                self.s_If(s.other)
            else:
                self.block(s.other)

    def cond(self, e):
        self.expr(e, BOOL)
        if e.ty != BOOL:
            raise _err("C2002", e.span if not isinstance(e, A.Binary) else start_span(e),
                       "a condition is Bool; write `x != 0`")
        self.fold(e)

    def loop_body(self, body, label):
        start = self._view_tick()
        self.fn.loops.append(label)
        self.block(body)
        self.fn.loops.pop()
        self.views_in_loop(start)

    def s_While(self, s: A.While):
        self.cond(s.cond)
        self.loop_body(s.body, s.label)

    def s_DoWhile(self, s: A.DoWhile):
        self.loop_body(s.body, s.label)
        self.cond(s.cond)

    def s_ForC(self, s: A.ForC):
        saved = self.scope
        self.scope = Scope(saved)
        if s.init is not None:
            self.stmt(s.init)
        self.cond(s.cond)
        start = self._view_tick()
        self.fn.loops.append(s.label)
        self.block(s.body)
        if s.update is not None:
            self.stmt(s.update)
        self.fn.loops.pop()
        self.views_in_loop(start)
        self.scope = saved

    def s_ForRange(self, s: A.ForRange):
        for e in (s.lo, s.hi):
            self.expr(e, I64)
            if e.ty != I64:
                raise _err("C2001", e.span, "a range bound has type I64, not %s" % e.ty)
            self.fold(e)
        if s.step is not None:
            self.expr(s.step, I64)
            self.fold(s.step)
            if s.step.ty != I64 or s.step.cval is NOTCONST or s.step.cval == 0:
                raise _err("C2053", s.step.span, "`by` takes a nonzero constant")
        saved = self.scope
        self.scope = Scope(saved)
        sym = Symbol("local", s.var, I64, mutable=False, span=s.var_span or s.span)
        sym.info = "loopvar"
        s.sym = sym
        if s.var is not None:
            self.declare(self.scope, s.var, sym, s.var_span or s.span)
        self.loop_body(s.body, s.label)
        self.scope = saved

    def s_ForEach(self, s: A.ForEach):
        self.expr(s.iterable, None)
        t = s.iterable.ty
        if not isinstance(t, ArrayType) or t.rank != 1:
            raise _err("C2103", s.iterable.span, "`for x in` iterates a rank-1 array or view")
        saved = self.scope
        self.scope = Scope(saved)
        s.isym = Symbol("local", s.index, I64, mutable=False)
        s.isym.info = "loopvar"
        s.xsym = Symbol("local", s.var, t.elem, mutable=False)
        s.xsym.info = "loopvar"
        if s.index is not None:
            self.declare(self.scope, s.index, s.isym, s.span)
        if s.var is not None:
            self.declare(self.scope, s.var, s.xsym, s.span)
        self.loop_body(s.body, s.label)
        self.view_iterated(s.iterable)
        self.scope = saved

    def s_Break(self, s: A.Break):
        self.check_jump(s, "break", switch_ok=True)

    def s_Continue(self, s: A.Continue):
        self.check_jump(s, "continue", switch_ok=False)

    def check_jump(self, s, word, switch_ok):
        """A break or continue needs an enclosing loop (or, for an unlabelled break, a switch) and
        must not leave a deferred statement (LS-184, LS-187)."""
        fn = self.fn
        if s.label is None and (fn.loops or (switch_ok and fn.in_switch)):
            return
        if s.label is not None and s.label in fn.loops:
            return
        if fn.in_defer:
            raise _err("C4030", s.span, "`%s` would leave the deferred statement (spec: LS-187)" % word)
        if s.label is None:
            raise _err("C4013", s.span, "`%s` outside a loop%s" % (word, " or switch" if switch_ok else ""))
        raise _err("C3005", s.span, "no enclosing loop is labelled `%s`" % s.label)

    def s_Return(self, s: A.Return):
        rt = self.fn.result
        if self.fn.kind in ("kernel",):
            raise _err("C4012", s.span, "a kernel has no result")
        if self.fn.in_defer:
            raise _err("C4030", s.span, "`return` would leave the deferred statement (spec: LS-187)")
        if s.value is None:
            if rt is not VOID and not (isinstance(rt, ErrorUnionType) and rt.value is VOID):
                raise _err("C2066", s.span, "`return` needs a value of type %s" % rt)
            return
        if rt is VOID:
            raise _err("C2066", s.value.span, "a void function returns no value")
        if isinstance(rt, ErrorUnionType):
            v = s.value
            # an error value of the set, or a success value
            if isinstance(v, (A.DotName, A.Member, A.Name)) and self._is_error_value(v, rt.errset):
                self.expr(v, rt.errset)
                s.is_error = True
                return
            if rt.value is VOID:
                raise _err("C2066", s.value.span, "an `E!void` function returns no success value")
            self.expr(v, rt.value, allow_tuple=isinstance(rt.value, TupleType))
            if isinstance(v.ty, ErrorSetType):
                if not all(rt.errset.tag_of(x) for x in v.ty.values):
                    # a wider set never converts to the result's set: C2042 at `return` (LS-97)
                    raise _err("C2042", start_span(v), "a value of %s is not a value of %s, the error set of "
                                                       "the result" % (v.ty, rt.errset))
                self.assignable(rt.errset, v, v.span)
                s.is_error = True
                return
            self.assignable(rt.value, v, v.span)
            self.fold(v)
            textops_check.check_return(self, v)
            return
        self.expr(s.value, rt, allow_tuple=isinstance(rt, TupleType))
        self.assignable(rt, s.value, s.value.span)
        self.fold(s.value)
        if isinstance(rt, StrType):
            textops_check.check_return(self, s.value)

    def _is_error_value(self, e, errset):
        if isinstance(e, A.DotName):
            return any(n == e.name for _, n in errset.values)
        if isinstance(e, A.Member) and isinstance(e.base, A.Name):
            sym = self.scope.lookup(e.base.ident)
            return sym is not None and sym.kind == "error"
        return False

    def s_Assert(self, s: A.Assert):
        self.cond(s.cond)
        if s.message is not None:
            self.check_holes(s.message)

    def s_StaticAssert(self, s):
        self.check_static_assert(s)
