"""Module state: module variables, their writers and C5012 (LS-122).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (BOOL, I64, ROUND, ROUND_MODES, VOID, ARITH_ERROR, ArrayType, ErrorUnionType, FixedType, IntType, StrType, StructType, TupleType)
from cint_compiler.semantics.values import RoundValue

from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    ViewInfo,
    SCALAR_T_BUILTINS,
    RESULT_BUILTINS,
    UNSUPPORTED_BUILTINS,
    Symbol,
    FuncInfo,
    _err,
)
from cint_compiler.check.features import proposed as proposed_check
from cint_compiler.check.features import textops as textops_check


class ModuleStateChecks:
    # ------------------------------------------------------------------ module state (LS-122, C5012)

    def global_root(self, e):
        """The module variable (a Symbol of kind global) that ``e`` is or views, else None."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, A.Member) and getattr(e, "mkind", None) == "qname":
                g = getattr(e, "ref", None)
                return g if g is not None and g.kind == "global" else None
            elif isinstance(e, (A.Index, A.Member)):
                e = e.base
            elif isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin" and \
                    getattr(e, "bname", None) in ("transpose", "reverse"):
                e = e.argv[0]
            elif isinstance(e, A.Name):
                g = getattr(e, "ref", None)
                if g is not None and isinstance(g.info, ViewInfo):
                    g = g.info.root
                return g if g is not None and g.kind == "global" else None
            else:
                return None

    def note_gwrite(self, e):
        """A write to (a part of) ``e``: the function being checked writes its module variable, if any."""
        g = self.global_root(e)
        if g is not None and self.fn is not None:
            self.fn.gwrites[id(g)] = g

    def arg_global(self, a):
        """The module variable an argument is, or is a view of (LS-122): a name (or an imported module's
        variable), or an array or struct expression that views one; an element read is neither."""
        inner = a
        while isinstance(inner, A.Paren):
            inner = inner.inner
        bare = isinstance(inner, A.Name) or (isinstance(inner, A.Member) and getattr(inner, "mkind", None) == "qname")
        if bare or isinstance(getattr(a, "ty", None), (ArrayType, StructType)):
            return self.global_root(a)
        return None

    def module_state_args(self):
        """C5012 (LS-122): an argument that is, or is a view of, a module-level variable passed to a function
        that writes that variable, directly or through the functions it calls (transitively)."""
        closure = {}

        def writes(info):
            if id(info) in closure:
                return closure[id(info)]
            out = {}
            seen, todo = {id(info)}, [info]
            while todo:
                f = todo.pop()
                out.update(getattr(f, "gwrites", {}) or {})
                for g, _ in getattr(f, "kcalls", ()) or ():
                    if id(g) not in seen:
                        seen.add(id(g))
                        todo.append(g)
            closure[id(info)] = out
            return out

        for info, g, a in self.gargs:
            if id(g) in writes(info):
                raise _err("C5012", start_span(a), "`%s` writes the module variable `%s`, and this argument "
                           "%s it (spec: LS-122)" % (
                               info.qname.rsplit(".", 1)[-1], g.name,
                               "is" if self.arg_is_bare(a) else "views"))
        self.gargs = []

    @staticmethod
    def arg_is_bare(a):
        while isinstance(a, A.Paren):
            a = a.inner
        return isinstance(a, (A.Name, A.Member))

    def dispatch(self, e, info: FuncInfo):
        if self.fn is not None and self.fn.kind == "kernel":
            raise _err("C5023", e.span, "a kernel cannot dispatch a kernel")
        self.knote("C5023", e.span, "dispatches a kernel")
        args = self.bind_args(e, info.params)
        for p, a in zip(info.params, args):
            self.arg(p, a)
        self.static_entry_checks(e, info, args)
        self.views_across_dispatch(e, info, args)
        e.kind = "dispatch"
        e.info = info
        e.argv = args
        return VOID

    def struct_ctor(self, e, t: StructType):
        params = [Symbol("param", n, ft) for n, ft, _ in t.fields]
        for p in params:
            p.info = "in"
        if len([a for a in e.args if a.name is None]) > len(params):
            raise _err("C2022", e.span, "%s has %d fields" % (t, len(params)))
        out = [None] * len(params)
        order = []
        pos = 0
        names = [p.name for p in params]
        for a in e.args:
            if a.name is None:
                out[pos] = a.value
                order.append(pos)
                pos += 1
            else:
                if a.name not in names:
                    raise _err("C3005", a.span or e.span, "%s has no field `%s`" % (t, a.name))
                i = names.index(a.name)
                if out[i] is not None:
                    raise _err("C2062", a.span or e.span, "field `%s` is given twice" % a.name)
                out[i] = a.value
                order.append(i)
        proposed_check.fill_defaults(t, out, order)      # LS-77 field defaults (Proposed), decision 28
        e.order = order
        for i, v in enumerate(out):
            if v is None:
                raise _err("C2020", e.span, "field `%s` of %s is not supplied" % (names[i], t))
        for p, a in zip(params, out):
            if getattr(a, "is_default", False):
                continue
            if isinstance(p.type, ArrayType):
                self.expr(a, p.type)
                if not isinstance(a.ty, ArrayType) or a.ty.elem != p.type.elem or a.ty.rank != p.type.rank:
                    raise _err("C2001", a.span, "expected %s, found %s" % (p.type, a.ty))
                self.check_shapes(p.type, a.ty, a.span)
            else:
                self.expr(a, p.type)
                self.assignable(p.type, a, a.span)
                self.fold(a)
        e.kind = "struct"
        e.stype = t
        e.argv = out
        return t

    def builtin_call(self, e: A.Call, name, expected):
        if name == "wrap_bits":      # LS-83 (Proposed), decision 30
            return proposed_check.wrap_bits(self, e, expected)
        if name in UNSUPPORTED_BUILTINS:
            raise unsupported(e.span, "the built-in `%s`" % name)
        args = []
        for a in e.args:
            if a.name is not None:
                raise _err("C2063", a.span or e.span, "built-in `%s` takes no named arguments" % name)
            args.append(a.value)
        e.kind = "builtin"
        e.bname = name
        e.argv = args
        n = len(args)
        if name in self.ARRAY_BUILTINS:
            return self.array_builtin(e, name, args)
        if name in ("format", "utf8", "swap"):
            return textops_check.builtin(self, e, name, args)

        def want(k):
            if n != k:
                raise _err("C2022", e.span, "`%s` takes %d arguments" % (name, k))

        def mode_arg(a):
            if isinstance(a, A.Name) and a.ident in ROUND_MODES:
                a.ty = ROUND
                a.cval = RoundValue(a.ident)
                return a.ident
            if isinstance(a, A.TypeName) and len(a.parts) == 1 and a.parts[0] in ROUND_MODES:
                return a.parts[0]
            if isinstance(a, A.Name) or (isinstance(a, A.TypeName) and len(a.parts) == 1):
                raise _err("C3007", a.span or e.span, "`%s` is not a rounding mode (spec: SPEC-01 4.5)"
                           % (a.ident if isinstance(a, A.Name) else a.parts[0]))
            raise _err("C2009", a.span or e.span, "a rounding-mode name is expected here")

        def type_arg(a):
            if isinstance(a, A.TypeExpr):
                return self.resolve_type(a)
            if isinstance(a, A.Name):
                tn = A.TypeName([a.ident], span=a.span)
                return self.resolve_type(tn)
            raise _err("C2001", a.span or e.span, "a type argument is expected here")

        def unify(vals, ctx, numeric=(IntType, FixedType)):
            """Type polymorphic operands: T from the typed ones, else the context, else I64 (LS-56 rule 7)."""
            T = None
            for v in vals:
                if not self.is_untyped(v):
                    t = self.expr(v, None)
                    if T is None:
                        T = t
            if T is None:
                T = ctx if isinstance(ctx, numeric) else I64
            for v in vals:
                if self.is_untyped(v):
                    self.expr(v, T)
            for v in vals:
                if v.ty != T:
                    raise _err("C2001", v.span, "expected %s, found %s" % (T, v.ty))
            if not isinstance(T, numeric):
                raise _err("C2103", e.span, "`%s` is not defined for %s" % (name, T))
            return T

        if name in ("min", "max") and n == 2 and self._arrayish(args[1]):
            # `min(init, xs)`: the least element of xs and init, in the element type (SPEC-01 IM-77)
            self.expr(args[1], None)
            t = args[1].ty
            if not isinstance(t, ArrayType) or not isinstance(t.elem, (IntType, FixedType)):
                raise _err("C2103", e.span, "`%s(init, xs)` reduces an array of integers" % name)
            self.expr(args[0], t.elem)
            self.assignable(t.elem, args[0], args[0].span)
            e.bname = name + "_init"
            e.elem = t.elem
            return t.elem
        if name in ("min", "max") and n == 1:
            self.expr(args[0], None)
            t = args[0].ty
            if not isinstance(t, ArrayType):
                raise _err("C2022", e.span, "`%s` takes two scalars or one array" % name)
            e.bname = "reduce_" + name
            e.elem = t.elem
            return t.elem
        if name in SCALAR_T_BUILTINS:
            want(SCALAR_T_BUILTINS[name])
            T = unify(args, expected)
            if name in ("div_trunc", "rem_trunc", "div_euclid", "rem_euclid", "isqrt") and not isinstance(T, IntType):
                raise _err("C2103", e.span, "`%s` is defined on integer types" % name)
            e.T = T
            return T
        if name in RESULT_BUILTINS:
            want(2)
            if name == "shl_result":
                T = unify(args[:1], None, (IntType,))
                self.expr(args[1], None)
            else:
                T = unify(args, None, (IntType,))
            e.T = T
            return ErrorUnionType(ARITH_ERROR, T)
        if name == "uabs":
            want(1)
            T = unify(args, None, (IntType,))
            if not T.signed or T.bits > 64:
                raise _err("C2103", e.span, "`uabs` is defined on I8 to I64")
            e.T = T
            return IntType(False, T.bits)
        if name == "div_round":
            want(3)
            T = unify(args[:2], expected, (IntType,))
            e.mode = mode_arg(args[2])
            e.T = T
            return T
        if name == "isqrt_round":
            want(2)
            T = unify(args[:1], expected, (IntType,))
            e.mode = mode_arg(args[1])
            e.T = T
            return T
        if name in ("rotl", "rotr"):
            want(2)
            T = unify(args[:1], expected, (IntType,))
            if T.signed:
                raise _err("C2103", e.span, "`%s` is defined on unsigned types" % name)
            self.expr(args[1], None)
            if not isinstance(args[1].ty, IntType):
                raise _err("C2001", args[1].span, "a rotation count is an integer")
            e.T = T
            return T
        if name == "divmod":
            want(2)
            T = unify(args, None, (IntType,))
            e.T = T
            return TupleType((T, T))
        if name == "mul_full":
            want(2)
            T = unify(args, None, (IntType,))
            if T.bits >= 1024 or (not T.signed and T.bits == 64):
                raise _err("C2103", e.span, "`mul_full` is not defined for %s" % T)
            e.T = T
            return IntType(T.signed, T.bits * 2)
        if name == "muldiv":
            want(5)
            R = type_arg(args[0])
            if not isinstance(R, IntType):
                raise _err("C2001", args[0].span, "muldiv's result type is an integer type")
            T = unify(args[1:4], None, (IntType,))
            e.mode = mode_arg(args[4])
            e.T = T
            e.R = R
            return R
        if name in ("mul", "div", "mul_wrap", "mul_sat"):
            want(3)
            T = unify(args[:2], expected, (FixedType,))
            e.mode = mode_arg(args[2])
            e.T = T
            return T
        if name in ("sqrt", "sqrt_wrap", "sqrt_sat"):
            if n not in (1, 2):
                raise _err("C2022", e.span, "`%s` takes one or two arguments" % name)
            T = unify(args[:1], expected, (FixedType,))
            e.mode = mode_arg(args[1]) if n == 2 else "half_even"
            e.T = T
            return T
        if name == "len":
            want(1)
            self.expr(args[0], None)
            t = args[0].ty
            if isinstance(t, StrType):
                return I64
            if not isinstance(t, ArrayType):
                raise _err("C2103", e.span, "`len` takes an array, a view or a Str")
            if t.rank != 1:
                raise _err("C2014", e.span, "`len` is for rank 1; use extent(a, d)")
            return I64
        if name in ("sum", "sum_wrap", "sum_sat", "count"):
            R = None
            if name == "sum" and n == 2:
                R = type_arg(args[0])
                xs = args[1]
            else:
                want(1)
                xs = args[0]
            self.expr(xs, None)
            t = xs.ty
            if not isinstance(t, ArrayType):
                raise _err("C2103", e.span, "`%s` takes an array" % name)
            if name == "count":
                if t.elem != BOOL:
                    raise _err("C2103", e.span, "`count` takes a Bool array")
                e.elem = BOOL
                return I64
            if not isinstance(t.elem, IntType):
                raise _err("C2103", e.span, "`%s` takes an integer array" % name)
            e.elem = t.elem
            e.R = R or t.elem
            return e.R
        if name == "fold_checked":
            want(3)
            op = args[0]
            if not (isinstance(op, A.Name) and op.ident in ("add", "mul")):
                raise _err("C2001", op.span or e.span, "fold_checked takes `add` or `mul`")
            e.fold_op = op.ident
            op.ty = ROUND          # an operation name: not a value, never evaluated (LS-146)
            self.expr(args[2], None)
            t = args[2].ty
            if not isinstance(t, ArrayType) or not isinstance(t.elem, IntType):
                raise _err("C2103", e.span, "`fold_checked` takes an integer array")
            self.expr(args[1], t.elem)
            self.assignable(t.elem, args[1], args[1].span)
            e.elem = t.elem
            return t.elem
        if name == "dot":
            want(3)
            R = type_arg(args[0])
            for x in args[1:]:
                self.expr(x, None)
            ta, tb = args[1].ty, args[2].ty
            if not (isinstance(ta, ArrayType) and isinstance(tb, ArrayType) and ta.elem == tb.elem
                    and ta.rank == 1 and tb.rank == 1 and isinstance(ta.elem, IntType)):
                raise _err("C2103", e.span, "`dot` takes two rank-1 arrays of one integer type")
            e.elem = ta.elem
            e.R = R
            return R
        raise unsupported(e.span, "the built-in `%s`" % name)

    def _arrayish(self, a):
        """Whether a second argument of min/max names an array (the reduction form `min(init, xs)`)."""
        if isinstance(a, A.Name):
            s = self.scope.lookup(a.ident)
            return s is not None and isinstance(s.type, ArrayType)
        if isinstance(a, A.Paren):
            return self._arrayish(a.inner)
        if isinstance(a, A.Index):
            return any(isinstance(i, A.SliceItem) for i in a.items)
        if isinstance(a, A.ArrayLit):
            return True
        if isinstance(a, A.Call) and isinstance(a.callee, A.Name) and a.callee.ident in ("transpose", "reverse"):
            return self.scope.lookup(a.callee.ident) is None
        return False
