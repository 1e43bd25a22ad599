"""Checker rules of Proposed constructs of SPEC-04P.1 (docs/language.md decisions 27 to 30).

* ``var name = expr;`` (LS-105) and ``var (a, b) = f();`` (LS-98): the type of the initializer;
* struct field defaults (LS-77): ``U16 flags = 0;``, a constant that construction may omit;
* ``type M = distinct T;`` (LS-103);

Called from checker.py at the few places that refused them with C9102."""
from __future__ import annotations

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.diagnostics import CompileError, unsupported
from cint_compiler.semantics.types import (ArrayType, BoolType, EnumType, ErrorSetType, FixedType, HandleType, IntType, StrType,
                    StructType, VoidType, ZType)
from cint_compiler.check.features import textops as textops_check
from cint_compiler.check.symbols import FnCtx, Scope, Symbol
from cint_compiler.semantics.types import TupleType
from cint_compiler.semantics.types import DistinctIntType
from cint_compiler.semantics.types import I64
from cint_compiler.semantics.types import INT_TYPES


def _err(code, span, msg):
    return CompileError(code, span, msg)


_unsupported = unsupported  # C9102, worded once in diagnostics.py


# ------------------------------------------------------------------ var (LS-105)

def _var_type(ck, d, t):
    """Whether a `var` may take type `t` from its initializer: scalars, Str, structs, handles, and arrays
    whose extents are constants or size parameters in scope (decision 27)."""
    if isinstance(t, (VoidType, ZType)) or t is None:
        raise _err("C2001", d.init.span, "`var %s` takes the type of its initializer, which has no value"
                   % d.name)
    if isinstance(t, ArrayType):
        for x in t.dims:
            if isinstance(x, int):
                continue
            if isinstance(x, str):
                s = ck.scope.lookup(x)
                if s is not None and s.kind == "sizeparam":
                    continue
            raise _unsupported(d.span, "a `var` array whose extent is known only at run time (write its type)")
        if ck.fn is not None and ck.fn.kind == "kernel":
            raise _unsupported(d.span, "a `var` array in a kernel (write its type)")
        return
    if isinstance(t, (IntType, FixedType, BoolType, StrType, EnumType, ErrorSetType, StructType, HandleType)):
        return
    raise _unsupported(d.span, "a `var` of type %s" % t)


def var_decl(ck, d: A.VarDecl):
    """A local (or script-level) `var name = expr;`: check the initializer without a context, so a
    literal-only one is I64 (LS-56 rule 8), then declare the name with its type."""
    if d.init is None:
        raise _err("C2050", d.span, "`var %s` needs an initializer: its type is the initializer's (spec: LS-105)"
                   % d.name)
    t = ck.expr(d.init, None)
    _var_type(ck, d, t)
    ck.storable(t, d.span)
    d.resolved = t
    ck.fold(d.init)
    sym = Symbol("local", d.name, t, decl=d, mutable=True, span=d.span)
    d.sym = sym
    ck.declare(ck.scope, d.name, sym, d.span)
    if isinstance(t, StrType):
        textops_check.declared(ck, sym, d.init)


def global_var(ck, g: A.GlobalDecl):
    """A module-level `var name = expr;` in a module without top-level statements: a constant
    initializer (C6004), whose type the variable takes."""
    d = g.decl
    if d.init is None:
        raise _err("C2050", d.span, "`var %s` needs an initializer: its type is the initializer's (spec: LS-105)"
                   % d.name)
    ck.fn = FnCtx(kind="const")
    ck.scope = Scope(ck.top)
    t = ck.expr(d.init, None)
    _var_type(ck, d, t)
    ck.storable(t, d.span)
    if isinstance(t, (StrType, HandleType)):
        raise _err("C2051", d.span, "a module-level variable cannot have type %s" % t)
    ck.fold(d.init)
    ck.flush_pending()
    ck.fn = None
    ck.scope = ck.top
    value = d.init.cval if d.init.cval is not NOTCONST else ck.const_array(t, d.init)
    if value is NOTCONST:
        raise _err("C6004", A.first_span(d.init), "a constant expression is required here")
    d.resolved = t
    sym = Symbol("global", d.name, t, decl=d, mutable=True, module=ck.modname, span=d.span)
    sym.value = value
    ck.declare(ck.top, d.name, sym, d.span)
    ck.globals.append(sym)


def var_destructure(ck, s: A.Destructure):
    """`var (a, b) = f();` (LS-98, Proposed): each name takes its tuple element's type."""
    v = s.value
    t = ck.expr(v, None, allow_tuple=True)
    if not isinstance(t, TupleType):
        raise _err("C2001", A.first_span(v), "a destructuring takes a tuple result, not %s (spec: LS-98)" % t)
    if len(t.items) != len(s.binds):
        raise _err("C2001", A.first_span(v), "%s has %d elements; the destructuring names %d"
                   % (t, len(t.items), len(s.binds)))
    ck.fold(v)
    for b, et in zip(s.binds, t.items):
        b.sym = None
        if b.name is None:
            continue
        sym = Symbol("local", b.name, et, decl=b, mutable=True, span=b.span)
        ck.declare(ck.scope, b.name, sym, b.span)
        b.sym = sym


# ------------------------------------------------------------------ struct field defaults (LS-77)

def field_default(ck, f: A.FieldDecl, ft, width):
    """`U16 flags = 0;` (LS-77, Proposed): a constant expression of the field's type, checked and folded
    once, in the struct's module, like a default argument (LS-125); an array field takes a constant
    array.  A bit field's default fits its width (C2003).  Decision 28."""
    dflt = f.default
    saved_fn, saved_scope = ck.fn, ck.scope
    ck.fn = FnCtx(kind="const")
    ck.scope = Scope(ck.top)
    try:
        if isinstance(ft, ArrayType):
            ck.expr(dflt, ft)
            if not isinstance(dflt.ty, ArrayType) or dflt.ty.elem != ft.elem or dflt.ty.rank != ft.rank:
                raise _err("C2001", dflt.span, "expected %s, found %s" % (ft, dflt.ty))
            ck.check_shapes(ft, dflt.ty, dflt.span)
            ck.fold(dflt)
            ck.flush_pending()
            dflt.cval = ck.const_array(ft, dflt)
        else:
            ck.expr(dflt, ft)
            ck.assignable(ft, dflt, dflt.span)
            ck.fold(dflt)
            ck.flush_pending()
    finally:
        ck.fn, ck.scope = saved_fn, saved_scope
    if dflt.cval is NOTCONST:
        raise _err("C6004", A.first_span(dflt), "a field default is a constant expression (spec: LS-77, LS-264)")
    if width is not None and not isinstance(ft, BoolType):
        v = dflt.cval
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if ft.signed else (0, (1 << width) - 1)
        if not lo <= v <= hi:
            raise _err("C2003", A.first_span(dflt), "the default %d does not fit the %d-bit field `%s` (%d ..= %d)"
                       % (v, width, f.name, lo, hi))
    dflt.csteps = 0
    dflt.is_default = True


def fill_defaults(t, out, order):
    """The fields a construction omits take their folded defaults, after the written arguments (as an
    omitted default argument does, LS-125): no evaluation, no step."""
    decl = t.decl
    if decl is None:
        return
    for i, v in enumerate(out):
        if v is None and i < len(decl.fields):
            dflt = decl.fields[i].default
            if dflt is not None and dflt.is_default:
                out[i] = dflt
                order.append(i)


# ------------------------------------------------------------------ distinct types (LS-103)

def distinct_type(ck, d: A.TypeAlias, target):
    """`type Meters = distinct I64;`: a new integer type with the representation of an integer target
    (I8..I1024, U8..U64); other targets are refused (decision 29)."""
    if not isinstance(target, IntType) or isinstance(target, DistinctIntType):
        raise _unsupported(d.target.span or d.span, "`distinct` of %s (only of an integer type)" % target)
    return DistinctIntType(target.signed, target.bits, "%s.%s" % (ck.modname, d.name))


# ------------------------------------------------------------------ wrap_bits (LS-83)

def wrap_bits(ck, e: A.Call, expected):
    """`wrap_bits(v, w)` (LS-83, Proposed; decision 30): `v` of a signed type T of I8..I64 (a literal-only
    `v` is typed by the context, else I64, LS-56 rule 7), `w` a constant from 1 to T's width; the result,
    of type T, is `v` reduced modulo 2^w into -2^(w-1) ..= 2^(w-1) - 1.  No fault; one step."""
    args = []
    for a in e.args:
        if a.name is not None:
            raise _err("C2063", a.span or e.span, "built-in `wrap_bits` takes no named arguments")
        args.append(a.value)
    if len(args) != 2:
        raise _err("C2022", e.span, "`wrap_bits` takes 2 arguments")
    v, w = args
    if ck.is_untyped(v):
        T = ck.expr(v, expected if isinstance(expected, IntType) else None)
    else:
        T = ck.expr(v, None)
    if not isinstance(T, IntType) or not T.signed:
        raise _err("C2103", e.span, "`wrap_bits` is defined on signed integer types, not %s (an unsigned value "
                   "wraps with a mask) (spec: LS-83)" % T)
    if T.bits > 64:
        raise _unsupported(A.first_span(e), "`wrap_bits` on %s" % T)
    ck.expr(w, I64)
    if not isinstance(w.ty, IntType):
        raise _err("C2001", w.span, "a bit width is an integer")
    ck.fold(w)
    if w.cval is NOTCONST or not isinstance(w.cval, int):
        raise _err("C6004", A.first_span(w), "the width of `wrap_bits` is a constant (decision 30)")
    if not 1 <= w.cval <= T.bits:
        raise _err("C2003", A.first_span(w), "the width of `wrap_bits` on %s is 1 to %d, not %d"
                   % (T, T.bits, w.cval))
    e.kind = "builtin"
    e.bname = "wrap_bits"
    e.argv = args
    e.T = T
    e.wbits = w.cval
    return T


def wrap_value(v: int, w: int) -> int:
    """`v` reduced modulo 2^w into the signed range of w bits."""
    half = 1 << (w - 1)
    return ((v + half) % (1 << w)) - half


# ------------------------------------------------------------------ sub-word access (LS-85, LS-86)

def _subword_form(e):
    """(kind, x, type argument) when `e` has the shape `x.byte[k]`, `x.bits[lo..hi]` or `x.lanes(T)[k]`."""
    if not isinstance(e, A.Index) or len(e.items) != 1:
        return None
    b = e.base
    if isinstance(b, A.Member) and b.name in ("byte", "bits"):
        return b.name, b.base, None
    if isinstance(b, A.Call) and isinstance(b.callee, A.Member) and b.callee.name == "lanes":
        return "lanes", b.callee.base, b.args
    return None


def _const_index(ck, x, what):
    ck.expr(x, I64)
    if not isinstance(x.ty, IntType):
        raise _err("C2001", A.first_span(x), "%s is an integer" % what)
    ck.fold(x)
    if x.cval is NOTCONST or not isinstance(x.cval, int):
        raise _unsupported(A.first_span(x), "%s that is not a constant (its E_BOUNDS record is not "
                           "specified; decision 31)" % what)
    return x.cval


def subword(ck, e, write=False):
    """Check a sub-word access (decision 31) and annotate `e.subword = (shift, width, signed_x, x_bits)`;
    returns its type, or None when `e` is no sub-word access (a struct field named `byte`, ...).  The
    integer `x` has I8..I1024 or U8..U64 (a distinct type too); indices are constants in range."""
    form = _subword_form(e)
    if form is None:
        return None
    kind, x, targs = form
    if isinstance(x, A.Name):
        sym = ck.scope.lookup(x.ident)
        if sym is None or sym.kind in ("struct", "enum", "error", "alias", "func", "kernel"):
            return None
    xt = ck.expr(x, None)
    if not isinstance(xt, IntType):
        return None
    if xt.bits > 64:
        raise _unsupported(A.first_span(e), "sub-word access to %s (I8..I64, U8..U64 only)" % xt)
    if write:
        ck.place(x)
        if ck.fn is not None and ck.fn.kind == "kernel":
            raise _unsupported(A.first_span(e), "assigning to a sub-word in a kernel")
        if isinstance(x, A.Member) and x.bitfield is not None:
            raise _unsupported(A.first_span(e), "assigning to a sub-word of a bit field")
    w = xt.bits
    item = e.items[0]
    if kind == "bits":
        if not isinstance(item, A.SliceItem) or item.lo is None or item.hi is None or item.step is not None:
            raise _err("C1050", e.span, "`.bits` takes a range `lo..hi` (spec: LS-85)")
        if write:
            raise _unsupported(A.first_span(e), "assigning to `.bits[lo..hi]` (its E_NARROW record is not specified)")
        lo = _const_index(ck, item.lo, "a bit position")
        hi = _const_index(ck, item.hi, "a bit position") + (1 if item.inclusive else 0)
        if not 0 <= lo < hi <= w:
            raise _unsupported(A.first_span(e), "a `.bits` range outside 0 <= lo < hi <= %d (E_BOUNDS at run time; its record "
                               "is not specified)" % w)
        rt = INT_TYPES["U%d" % w]
        e.subword = (lo, hi - lo, xt.signed, w)
    else:
        if isinstance(item, A.SliceItem):
            raise _err("C1050", e.span, "`.%s` takes one index (spec: LS-85)" % kind)
        if kind == "byte":
            rt = INT_TYPES["U8"]
        else:
            if not targs or len(targs) != 1 or targs[0].name is not None:
                raise _err("C2022", e.base.span, "`lanes` takes one type argument: `x.lanes(U16)[k]`")
            ta = targs[0].value
            if isinstance(ta, A.Name):
                ta = A.TypeName([ta.ident], span=ta.span)
            if not isinstance(ta, A.TypeExpr):
                raise _err("C2001", ta.span or e.span, "a lane type is expected here")
            rt = ck.resolve_type(ta)
            if not isinstance(rt, IntType) or rt.signed or rt.bits > 64 or type(rt) is not IntType:
                raise _unsupported(ta.span or e.span, "lanes of type %s (lanes are U8..U64)" % rt)
            if w % rt.bits:
                raise _err("C2103", ta.span or e.span, "a lane of %d bits does not divide %s (spec: LS-85)" % (rt.bits, xt))
        k = _const_index(ck, item, "a %s index" % kind)
        n = w // rt.bits
        if not 0 <= k < n:
            raise _unsupported(A.first_span(item), "a %s index outside 0 ..= %d (E_BOUNDS at run time; its record "
                               "is not specified)" % (kind, n - 1))
        e.subword = (k * rt.bits, rt.bits, xt.signed, w)
    e.subword_x = x
    e.ty = rt
    return rt


def subword_assign(ck, s):
    """`x.byte[k] = v;`, `x.lanes(T)[k] = v;` (LS-86): `v` has the lane's type exactly (a literal that does
    not fit is C2003), so no store can fault; compound forms and `.bits` stores are C9102."""
    if _subword_form(s.place) is None:
        return False
    if s.op != "=":
        raise _unsupported(A.first_span(s.place), "a compound assignment to a sub-word")
    rt = subword(ck, s.place, write=True)
    if rt is None:
        return False
    ck.expr(s.value, rt)
    ck.assignable(rt, s.value, s.value.span)
    ck.fold(s.value)
    s.subword = s.place.subword
    return True


def subword_place(ck, e):
    """Any other write to a sub-word (`++`, an `inout` argument): C9102."""
    form = _subword_form(e)
    if form is not None and not (isinstance(form[1], A.Name) and (ck.scope.lookup(form[1].ident) is None or
                                                                   ck.scope.lookup(form[1].ident).kind in (
            "struct", "enum", "error", "alias", "func", "kernel"))):
        t = ck.expr(form[1], None)
        if isinstance(t, IntType):
            raise _unsupported(A.first_span(e), "this write to a sub-word (only `x.byte[k] = v;` and `x.lanes(T)[k] = v;`)")


def subword_bits(v: int, shift: int, width: int) -> int:
    """The unsigned value of bits shift .. shift + width of v's two's complement."""
    return (v >> shift) & ((1 << width) - 1)


def subword_store(x: int, v: int, shift: int, width: int, signed: bool, bits: int) -> int:
    """x with bits shift .. shift + width replaced by v (an unsigned value that fits), as x's type."""
    mask = ((1 << width) - 1) << shift
    u = ((x & ((1 << bits) - 1)) & ~mask) | (v << shift)
    if signed and u >> (bits - 1):
        u -= 1 << bits
    return u
