"""Calls of built-in functions: the checker's typing handlers, one per row of semantics/builtins.py.

``TYPING`` is the checker's registry: a handler per name as written (``min`` serves the rows ``min``,
``reduce_min`` and ``min_init``).  A handler types the arguments, records what the executors need on the
call (``e.T``, ``e.R``, ``e.elem``, ``e.mode``, ``e.fold_op``, ``e.dim``; ``e.bname`` names the row) and
returns the result type.  A handler registered ``raw`` runs before the common part (named arguments are
refused, ``e.kind``, ``e.bname`` and ``e.argv`` are set).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations

from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import builtins as B
from cint_compiler.semantics.reductions import REDUCTIONS
from cint_compiler.semantics.types import (BOOL, I64, ROUND, ROUND_MODES, ARITH_ERROR, ArrayType, ErrorUnionType,
                                           FixedType, IntType, StrType, TupleType)
from cint_compiler.semantics.values import RoundValue
from cint_compiler.check.symbols import _err
from cint_compiler.check.features import proposed as proposed_check
from cint_compiler.check.features import textops as textops_check

TYPING = B.Registry("check")
RAW = set()          # handlers that take the call as written (their own arguments, their own errors)


def typing(*names, raw=False):
    def deco(fn):
        TYPING.register(*names)(fn)
        if raw:
            RAW.update(names)
        return fn
    return deco


class BuiltinChecks:
    def builtin_call(self, e: A.Call, name, expected):
        """A call of the built-in ``name`` (a name no declaration shadows): its row's handler."""
        handler = TYPING.get(name)
        if name in RAW:
            return handler(self, e, name, None, expected)
        args = []
        for a in e.args:
            if a.name is not None:
                raise _err("C2063", a.span or e.span, "built-in `%s` takes no named arguments" % name)
            args.append(a.value)
        e.kind = "builtin"
        e.bname = name
        e.argv = args
        return handler(self, e, name, args, expected)

    def builtin_untyped(self, e: A.Call) -> bool:
        """Whether a built-in call's type comes from its context: the arguments whose type its result is
        (the row's ``typed_by``) are all untyped (LS-56 rule 7)."""
        row = B.BUILTINS.get(e.callee.ident)
        if row is None or not row.typed_by or self.scope.lookup(e.callee.ident) is not None:
            return False
        if row.typed_by == (B.ALL,):
            return all(self.is_untyped(a.value) for a in e.args if isinstance(a.value, A.Expr))
        args = [a.value for a in e.args]
        return all(k < len(args) and self.is_untyped(args[k]) for k in row.typed_by)

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


# ----------------------------------------------------------------------------- argument helpers

def _want(e, name, n, k):
    if n != k:
        raise _err("C2022", e.span, "`%s` takes %d arguments" % (name, k))


def _mode_arg(e, a):
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


def _type_arg(ck, e, a):
    if isinstance(a, A.TypeExpr):
        return ck.resolve_type(a)
    if isinstance(a, A.Name):
        tn = A.TypeName([a.ident], span=a.span)
        return ck.resolve_type(tn)
    raise _err("C2001", a.span or e.span, "a type argument is expected here")


def _unify(ck, e, name, vals, ctx, numeric=(IntType, FixedType)):
    """Type polymorphic operands: T from the typed ones, else the context, else I64 (LS-56 rule 7)."""
    T = None
    for v in vals:
        if not ck.is_untyped(v):
            t = ck.expr(v, None)
            if T is None:
                T = t
    if T is None:
        T = ctx if isinstance(ctx, numeric) else I64
    for v in vals:
        if ck.is_untyped(v):
            ck.expr(v, T)
    for v in vals:
        if v.ty != T:
            raise _err("C2001", v.span, "expected %s, found %s" % (T, v.ty))
    if not isinstance(T, numeric):
        raise _err("C2103", e.span, "`%s` is not defined for %s" % (name, T))
    return T


# ----------------------------------------------------------------------------- handlers

@typing(*(r.name for r in B.BUILTINS.values() if r.family == "refused"), raw=True)
def _refused(ck, e, name, args, expected):
    raise unsupported(e.span, "the built-in `%s`" % name)


@typing("wrap_bits", raw=True)
def _wrap_bits(ck, e, name, args, expected):
    return proposed_check.wrap_bits(ck, e, expected)      # LS-83 (Proposed), decision 30


@typing("offset", raw=True)
def _offset(ck, e, name, args, expected):
    return ck.offset_call(e)


@typing("extent", "size", "lower", "copy", "fill", "equal", "transpose", "reverse")
def _array(ck, e, name, args, expected):
    return ck.array_builtin(e, name, args)


@typing("format", "utf8", "swap")
def _text(ck, e, name, args, expected):
    return textops_check.builtin(ck, e, name, args)


@typing("min", "max")
def _min_max(ck, e, name, args, expected):
    n = len(args)
    if n == 2 and ck._arrayish(args[1]):
        # `min(init, xs)`: the least element of xs and init, in the element type (SPEC-01 IM-77)
        ck.expr(args[1], None)
        t = args[1].ty
        if not isinstance(t, ArrayType) or not isinstance(t.elem, (IntType, FixedType)):
            raise _err("C2103", e.span, "`%s(init, xs)` reduces an array of integers" % name)
        ck.expr(args[0], t.elem)
        ck.assignable(t.elem, args[0], args[0].span)
        e.bname = REDUCTIONS[name].calls[1]
        e.elem = t.elem
        return t.elem
    if n == 1:
        ck.expr(args[0], None)
        t = args[0].ty
        if not isinstance(t, ArrayType):
            raise _err("C2022", e.span, "`%s` takes two scalars or one array" % name)
        e.bname = REDUCTIONS[name].calls[0]
        e.elem = t.elem
        return t.elem
    return _operand_typed(ck, e, name, args, expected)


@typing("abs", "clamp", "div_trunc", "rem_trunc", "div_euclid", "rem_euclid", "isqrt")
def _operand_typed(ck, e, name, args, expected):
    _want(e, name, len(args), B.BUILTINS[name].arity[0])
    T = _unify(ck, e, name, args, expected)
    if B.BUILTINS[name].args[0] == "integer" and not isinstance(T, IntType):
        raise _err("C2103", e.span, "`%s` is defined on integer types" % name)
    e.T = T
    return T


@typing(*(r.name for r in B.BUILTINS.values() if r.family == "result"))
def _result(ck, e, name, args, expected):
    _want(e, name, len(args), 2)
    if name == "shl_result":
        T = _unify(ck, e, name, args[:1], None, (IntType,))
        ck.expr(args[1], None)
    else:
        T = _unify(ck, e, name, args, None, (IntType,))
    e.T = T
    return ErrorUnionType(ARITH_ERROR, T)


@typing("uabs")
def _uabs(ck, e, name, args, expected):
    _want(e, name, len(args), 1)
    T = _unify(ck, e, name, args, None, (IntType,))
    if not T.signed or T.bits > 64:
        raise _err("C2103", e.span, "`uabs` is defined on I8 to I64")
    e.T = T
    return IntType(False, T.bits)


@typing("div_round")
def _div_round(ck, e, name, args, expected):
    _want(e, name, len(args), 3)
    T = _unify(ck, e, name, args[:2], expected, (IntType,))
    e.mode = _mode_arg(e, args[2])
    e.T = T
    return T


@typing("isqrt_round")
def _isqrt_round(ck, e, name, args, expected):
    _want(e, name, len(args), 2)
    T = _unify(ck, e, name, args[:1], expected, (IntType,))
    e.mode = _mode_arg(e, args[1])
    e.T = T
    return T


@typing("rotl", "rotr")
def _rotate(ck, e, name, args, expected):
    _want(e, name, len(args), 2)
    T = _unify(ck, e, name, args[:1], expected, (IntType,))
    if T.signed:
        raise _err("C2103", e.span, "`%s` is defined on unsigned types" % name)
    ck.expr(args[1], None)
    if not isinstance(args[1].ty, IntType):
        raise _err("C2001", args[1].span, "a rotation count is an integer")
    e.T = T
    return T


@typing("divmod")
def _divmod(ck, e, name, args, expected):
    _want(e, name, len(args), 2)
    T = _unify(ck, e, name, args, None, (IntType,))
    e.T = T
    return TupleType((T, T))


@typing("mul_full")
def _mul_full(ck, e, name, args, expected):
    _want(e, name, len(args), 2)
    T = _unify(ck, e, name, args, None, (IntType,))
    if T.bits >= 1024 or (not T.signed and T.bits == 64):
        raise _err("C2103", e.span, "`mul_full` is not defined for %s" % T)
    e.T = T
    return IntType(T.signed, T.bits * 2)


@typing("muldiv")
def _muldiv(ck, e, name, args, expected):
    _want(e, name, len(args), 5)
    R = _type_arg(ck, e, args[0])
    if not isinstance(R, IntType):
        raise _err("C2001", args[0].span, "muldiv's result type is an integer type")
    T = _unify(ck, e, name, args[1:4], None, (IntType,))
    e.mode = _mode_arg(e, args[4])
    e.T = T
    e.R = R
    return R


@typing("mul", "div", "mul_wrap", "mul_sat")
def _fixed2(ck, e, name, args, expected):
    _want(e, name, len(args), 3)
    T = _unify(ck, e, name, args[:2], expected, (FixedType,))
    e.mode = _mode_arg(e, args[2])
    e.T = T
    return T


@typing("sqrt", "sqrt_wrap", "sqrt_sat")
def _fixed_sqrt(ck, e, name, args, expected):
    n = len(args)
    if n not in (1, 2):
        raise _err("C2022", e.span, "`%s` takes one or two arguments" % name)
    T = _unify(ck, e, name, args[:1], expected, (FixedType,))
    e.mode = _mode_arg(e, args[1]) if n == 2 else "half_even"
    e.T = T
    return T


@typing("len")
def _len(ck, e, name, args, expected):
    _want(e, name, len(args), 1)
    ck.expr(args[0], None)
    t = args[0].ty
    if isinstance(t, StrType):
        return I64
    if not isinstance(t, ArrayType):
        raise _err("C2103", e.span, "`len` takes an array, a view or a Str")
    if t.rank != 1:
        raise _err("C2014", e.span, "`len` is for rank 1; use extent(a, d)")
    return I64


@typing("sum", "sum_wrap", "sum_sat", "count")
def _sum(ck, e, name, args, expected):
    R = None
    if name == "sum" and len(args) == 2:
        R = _type_arg(ck, e, args[0])
        xs = args[1]
    else:
        _want(e, name, len(args), 1)
        xs = args[0]
    ck.expr(xs, None)
    t = xs.ty
    if not isinstance(t, ArrayType):
        raise _err("C2103", e.span, "`%s` takes an array" % name)
    red = REDUCTIONS[name]
    if red.elements == "Bool":
        if t.elem != BOOL:
            raise _err("C2103", e.span, "`count` takes a Bool array")
        e.elem = BOOL
        return red.result_type(BOOL)
    if not isinstance(t.elem, IntType):
        raise _err("C2103", e.span, "`%s` takes an integer array" % name)
    e.elem = t.elem
    e.R = red.result_type(t.elem, R)
    return e.R


@typing("fold_checked")
def _fold_checked(ck, e, name, args, expected):
    _want(e, name, len(args), 3)
    op = args[0]
    if not (isinstance(op, A.Name) and op.ident in ("add", "mul")):
        raise _err("C2001", op.span or e.span, "fold_checked takes `add` or `mul`")
    e.fold_op = op.ident
    op.ty = ROUND          # an operation name: not a value, never evaluated (LS-146)
    ck.expr(args[2], None)
    t = args[2].ty
    if not isinstance(t, ArrayType) or not isinstance(t.elem, IntType):
        raise _err("C2103", e.span, "`fold_checked` takes an integer array")
    ck.expr(args[1], t.elem)
    ck.assignable(t.elem, args[1], args[1].span)
    e.elem = t.elem
    return REDUCTIONS[name].result_type(t.elem)


@typing("dot")
def _dot(ck, e, name, args, expected):
    _want(e, name, len(args), 3)
    R = _type_arg(ck, e, args[0])
    for x in args[1:]:
        ck.expr(x, None)
    ta, tb = args[1].ty, args[2].ty
    if not (isinstance(ta, ArrayType) and isinstance(tb, ArrayType) and ta.elem == tb.elem
            and ta.rank == 1 and tb.rank == 1 and isinstance(ta.elem, IntType)):
        raise _err("C2103", e.span, "`dot` takes two rank-1 arrays of one integer type")
    e.elem = ta.elem
    e.R = R
    return REDUCTIONS[name].result_type(ta.elem, R)
