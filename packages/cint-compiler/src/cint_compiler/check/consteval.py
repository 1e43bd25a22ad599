"""Constant folding (SPEC-01 IM-23) and compile-time calls (LS-264 to LS-268).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.semantics.operators import LOGIC_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import builtins as B
from cint_compiler.diagnostics import CompileError
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (ROUND, ROUND_MODES, ArrayType, BoolType, EnumType,
                    ErrorUnionType, FixedType, IntType, StrType)
from cint_compiler.semantics.values import ArrayValue, copy_value

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.check.symbols import (
    FuncInfo,
    Program,
    _err,
)
from cint_compiler.semantics.faults import EntryFault


class ConstEvalChecks:
    # ------------------------------------------------------------------ constant folding

    def is_const(self, e) -> bool:
        """Whether ``e`` is a constant expression (SPEC-01 IM-23): literals, constants, operators, named ops.

        During one `fold` the answers are remembered per node: `fold` asks it at every level of a tree,
        which without the memo costs n^2 for a chain of n operators (issue 11 item 12)."""
        memo = self.const_memo
        if memo is None:
            return self._is_const(e)
        r = memo.get(id(e))
        if r is None:
            r = memo[id(e)] = self._is_const(e)
        return r

    def _is_const(self, e) -> bool:
        # the most frequent nodes first, by exact class (node classes do not subclass each other), with the
        # answers of the chain below (issue 11: 1 MB in seconds)
        t = type(e)
        if t is A.Binary:
            return self.is_const(e.left) and self.is_const(e.right)
        if t is A.IntLit:
            return True
        if isinstance(e, (A.IntLit, A.FracLit, A.BoolLit)):
            return True
        if isinstance(e, A.Name):
            return e.ref is not None and e.ref.kind == "const" and not isinstance(e.ty, ArrayType)
        if isinstance(e, (A.TypeMember, A.DotName)):
            return e.cval is not NOTCONST
        if isinstance(e, A.Index) and e.subword is not None:
            return self.is_const(e.subword_x)      # `C.byte[k]` of a constant (decision 31)
        if isinstance(e, A.Member):
            return e.mkind == "const" or (e.mkind == "raw" and self.is_const(e.base))
        if isinstance(e, A.Paren):
            return self.is_const(e.inner)
        if isinstance(e, A.Unary):
            return self.is_const(e.operand)
        if isinstance(e, A.Binary):
            return self.is_const(e.left) and self.is_const(e.right)
        if isinstance(e, A.Cond):
            return self.is_const(e.cond) and self.is_const(e.then) and self.is_const(e.other)
        if isinstance(e, A.Convert):
            return e.literal or self.is_const(e.operand)
        if isinstance(e, A.Call) and e.kind == "builtin":
            if not B.BUILTINS[e.bname].const:
                return False
            return all(self.is_const(a) for a in e.argv if isinstance(a, A.Expr) and a.ty != ROUND
                       and not (isinstance(a, A.Name) and a.ident in ROUND_MODES))
        if isinstance(e, A.Call) and e.kind == "raw":
            return self.is_const(e.args[0].value)
        if isinstance(e, A.Call) and e.kind == "func" and e.const_call:
            return all(self.is_const(a) for a in e.argv if isinstance(a, A.Expr))
        return False

    def fold(self, e):
        """Evaluate every maximal constant subexpression of ``e`` at compile time (SPEC-01 IM-23)."""
        if self.const_memo is not None:
            return self._fold(e)
        self.const_memo = {}
        try:
            return self._fold(e)
        finally:
            self.const_memo = None

    def _fold(self, e):
        if e is None:
            return
        if self.is_const(e):
            self.eval_const(e)
            return
        # Not constant: fold the children, except the operands that &&, || and ?: may skip.
        if type(e) is A.Binary:     # the most frequent node, as below (issue 11: 1 MB in seconds)
            self._fold(e.left)
            if e.op in LOGIC_OPS:
                self.mark_runtime(e.right)
            else:
                self._fold(e.right)
            return
        if isinstance(e, A.Binary) and e.op in LOGIC_OPS:
            self._fold(e.left)
            self.mark_runtime(e.right)
            return
        if isinstance(e, A.Cond):
            self._fold(e.cond)
            self.mark_runtime(e.then)
            self.mark_runtime(e.other)
            return
        for ch in self.children(e):
            self._fold(ch)
        if isinstance(e, A.Call) and e.kind == "builtin" and e.bname == "clamp":
            self.check_clamp_bounds(e)

    def check_clamp_bounds(self, e):
        """C6006 (LS-313): `clamp` whose constant `lo` exceeds its constant `hi`, at the callee name."""
        argv = e.argv or []
        if len(argv) != 3:
            return
        lo, hi = (a.cval for a in argv[1:])
        if lo is NOTCONST or hi is NOTCONST or lo is None or hi is None:
            return
        try:
            bad = lo > hi
        except TypeError:
            return
        if bad:
            raise _err("C6006", e.callee.span or e.span, "clamp: the constant lo %s exceeds the constant hi %s"
                       % (lo, hi))

    def mark_runtime(self, e):
        """A constant operand that run time may skip: evaluated only if reached (IM-23)."""
        if self.is_const(e):
            e.skip_fold = True
            # its literal range errors stay pending (C2003 after evaluation)
            return
        self._fold(e)

    def children(self, e):
        if isinstance(e, A.Paren):
            return [e.inner]
        if isinstance(e, A.Unary):
            return [e.operand]
        if isinstance(e, A.Binary):
            return [e.left, e.right]
        if isinstance(e, A.Cond):
            return [e.cond, e.then, e.other]
        if isinstance(e, A.Convert):
            return [] if e.literal else [e.operand]
        if isinstance(e, A.Call):
            return [a for a in (e.argv or []) if isinstance(a, A.Expr)]
        if isinstance(e, A.Index):
            out = [e.base]
            for i in e.items:
                if isinstance(i, A.SliceItem):
                    out.extend(b for b in (i.lo, i.hi) if b is not None)
                elif isinstance(i, A.Expr):
                    out.append(i)
            return out
        if isinstance(e, A.Member):
            return [e.base]
        if isinstance(e, (A.ArrayLit, A.TupleExpr)):
            return list(e.items)
        if isinstance(e, (A.Try,)):
            return [e.operand]
        if isinstance(e, A.Catch):
            return [e.operand] + ([e.value] if e.value is not None else [])
        return []

    # ------------------------------------------------------------------ compile-time calls (LS-264..LS-268)

    CONST_FUEL_BUDGET = 1_000_000_000   # fuel-v1 units of compile-time calls per module (LS-267); tests lower it
    # evaluation steps (expressions evaluated, statements run) of compile-time calls per module: bounds the
    # time `cint check` spends evaluating whatever the source (docs/language.md decision 32)
    CONST_WORK_BUDGET = 500_000

    def ensure_checked(self, info: FuncInfo):
        """Check a function's body now, out of pass order, when a constant calls it (LS-264)."""
        if info.kchecked:
            return
        if id(info) in self.checking:
            raise _err("C6004", info.decl.span, "`%s` is called by a constant while its own body is being "
                       "checked" % info.qname)
        saved = (self.fn, self.scope, self.pending, self.in_case_item)
        self.pending = []
        self.in_case_item = False
        self.checking.add(id(info))
        try:
            self.check_function(info)
        finally:
            self.checking.discard(id(info))
            self.fn, self.scope, self.pending, self.in_case_item = saved

    def const_ineligible(self, info: FuncInfo, seen=None):
        """None when `info` is const-eligible (LS-265), else why not.  Checks bodies on demand."""
        seen = set() if seen is None else seen
        if id(info) in seen:
            return None
        seen.add(id(info))
        if info.is_kernel:
            return "it is a kernel"
        scalar = (IntType, BoolType, EnumType, FixedType)
        for p in info.params:
            if not isinstance(p.type, scalar):
                return "parameter `%s` is not of an integer, Bool, enum or fixed-point type" % p.name
        if isinstance(info.result, ErrorUnionType):
            return "it returns an error union"
        if not isinstance(info.result, scalar):
            return "its result is not of an integer, Bool, enum or fixed-point type"
        if info.size_params or getattr(info.decl, "where", None) is not None:
            return "it has size parameters"
        self.ensure_checked(info)
        if info.prints:
            return "it prints"
        found = []

        def walk(n, memo):
            if id(n) in memo or found:
                return
            memo.add(id(n))
            if isinstance(n, A.Name) and n.ref is not None and n.ref.kind == "global":
                found.append("it uses the module variable `%s`" % n.ref.name)
                return
            if isinstance(n, A.Call) and n.kind == "dispatch":
                found.append("it dispatches a kernel")
                return
            if isinstance(n, A.Call) and n.kind == "func":
                why = self.const_ineligible(n.info, seen)
                if why is not None:
                    found.append("it calls `%s`, and %s" % (n.info.qname, why))
                    return
            for v in vars(n).values():
                if isinstance(v, A.Node):
                    walk(v, memo)
                elif isinstance(v, (list, tuple)):
                    for x in v:
                        if isinstance(x, A.Node):
                            walk(x, memo)
                        elif isinstance(x, (list, tuple)):
                            for y in x:
                                if isinstance(y, A.Node):
                                    walk(y, memo)
        walk(info.decl.body, set())
        return found[0] if found else None

    def run_const_call(self, e, args):
        """Run the const-eligible function of call `e` with the argument values, with the run-time semantics
        (LS-266); a fault is C6001 at the call, exhausting the module's budget C6002 (LS-267)."""
        ev = self.evaluation
        if self.const_ctx is None:
            prog = Program(self.m, [], self.functions, self.kernels, [], None, None, self.types)
            self.const_ctx = ev.CompileTimeContext(prog, b"", self.CONST_WORK_BUDGET)
        ctx = self.const_ctx
        ctx.begin(self.CONST_FUEL_BUDGET - self.const_fuel, 256)
        span = e.callee.span or e.span
        try:
            r = ctx.enter_function(e.info, list(args), span)
        except ev.CompileTimeBudgetExceeded:
            raise _err("C6002", span, "E_FUEL in constant evaluation: calling `%s` exceeds this implementation's "
                       "compile-time budget of %d evaluation steps per module (docs/language.md decision 32); "
                       "compute the value at run time, or a smaller one at compile time"
                       % (e.info.qname, self.CONST_WORK_BUDGET))
        except EntryFault as ef:
            self.const_fuel += ctx.fuel
            rec = ef.record
            if rec.code == "E_FUEL":
                raise _err("C6002", span, "E_FUEL in constant evaluation: the compile-time fuel budget of "
                           "%d units per module is exhausted calling `%s`" % (self.CONST_FUEL_BUDGET,
                                                                               e.info.qname))
            raise _err("C6001", span, "%s in constant evaluation: %s (in `%s` at %s:%d:%d)"
                       % (rec.code, rec.operation, e.info.qname, rec.position.path, rec.position.line,
                          rec.position.column))
        self.const_fuel += ctx.fuel
        return r

    def eval_const(self, e):
        if type(e) is A.IntLit and getattr(e, "lit_error", None) is None:
            # what ConstEvaluator gives a literal without a pending range error (x_IntLit, no step), without
            # making one: a third of the nodes a program folds are such literals (issue 11, 1 MB in seconds)
            e.cval = e.raw if isinstance(e.ty, FixedType) else e.value
            e.csteps = 0
            return
        ev = self.evaluation.ConstEvaluator()
        ev.user_call = self.run_const_call
        try:
            v = ev.eval(e)
        except MachineFault as mf:
            raise _err("C6001", ev.last_span or e.span, "%s in constant evaluation: %s" % (mf.code, mf.operation),
                       fault=mf)
        except CompileError:
            raise
        # literal errors in skipped operands remain pending; those evaluated were raised
        self.pending = [p for p in self.pending if p not in ev.checked_literals]
        e.cval = v
        e.csteps = ev.step

    def const_array(self, t, e):
        """The value of a constant array's initializer (LS-111, SPEC-04 5.2), evaluated at compile time: an
        array literal, nested for rank 2 to 4, whose elements are constant expressions (already folded) or
        constant arrays; NOTCONST for anything else.  The value is shared by every read of the constant,
        which nothing can write (C2058, C2067)."""
        if not isinstance(t, ArrayType):
            return NOTCONST

        def leaves(x):
            if isinstance(x, A.ArrayLit):
                return all(leaves(i) for i in x.items)
            if isinstance(x, A.Name) and isinstance(x.ty, ArrayType):
                return x.ref is not None and x.ref.kind == "const" and x.ref.value is not NOTCONST
            return x.cval is not NOTCONST and not x.skip_fold and not isinstance(x.ty, (ArrayType, StrType))

        if not isinstance(e, (A.ArrayLit, A.Name)) or not leaves(e):
            return NOTCONST
        ev = self.evaluation.ConstEvaluator()
        try:
            v = ev.eval(e)
        except MachineFault as mf:
            raise _err("C6001", ev.last_span or e.span, "%s in constant evaluation: %s" % (mf.code, mf.operation),
                       fault=mf)
        if not isinstance(v, ArrayValue):
            return NOTCONST
        if any(isinstance(want, int) and want != got for want, got in zip(t.dims, v.shape)):
            k = next(k for k, (want, got) in enumerate(zip(t.dims, v.shape)) if isinstance(want, int) and want != got)
            raise _err("C2012", e.span, "the constant has extent %d in dimension %d, not %d" % (v.shape[k], k,
                                                                                                 t.dims[k]))
        return copy_value(v) if isinstance(e, A.ArrayLit) else v

    def const_int(self, e, t):
        self.expr(e, t)
        self.fold(e)
        self.flush_pending()
        if e.cval is NOTCONST or not isinstance(e.cval, int):
            raise _err("C6004", e.span, "a constant is required here")
        return e.cval
