"""The export boundary of a library (SPEC-03P.1 7.3 A-13, 7.5 A-20 to A-25): which exports of the root
module a host can call, and the forms no C wrapper or type signature can carry.

`cint check` and `cint build --lib` give one verdict: the driver runs :func:`check_export_boundary` on the
root module after checking it, so a form the C back end cannot wrap, or whose type signature a host's
decoder would reject (A-24), is a compile error (C5050) that says what to write instead, never a build
failure or a load failure later.  The back end reuses :func:`has_c_wrapper` and :func:`signature_model`.

Exports that A-25 itself leaves without a wrapper (an arena, a pool or a handle in the signature; a
kernel's scalar `out`, decision 23) are not errors: they stay callable from cint code.  The rule applies
only to `export` functions and kernels of the root module; an imported module's `export` is visibility
(LS-227), not a host export.
"""
from __future__ import annotations

from typing import Optional

from cint_abi import typesig as S

from cint_compiler.check.features.containers import mentions_memory
from cint_compiler.check.symbols import struct_layout, type_layout
from cint_compiler.diagnostics import CompileError
from cint_compiler.semantics.types import (VOID, ArrayType, BoolType, EnumType, ErrorSetType, ErrorUnionType,
                                           FixedType, IntType, StrType, StructType, SymExtent, TupleType)

CODE = "C5050"


def _refuse(span, what: str) -> CompileError:
    return CompileError(CODE, span, "%s (spec: SPEC-03P.1 7.5 A-25)" % what)


class _UnknownMember(CompileError):
    """A combined error set with a member of another module, which the root's types do not hold."""


def has_scalar_out(info) -> bool:
    """A kernel with a scalar `out` parameter has no C carrier for it (7.3 A-13: a scalar crosses by value)."""
    return info.is_kernel and any(p.info == "out" and not isinstance(p.type, ArrayType) for p in info.params)


def has_c_wrapper(info) -> bool:
    """Whether export ``info`` gets a C wrapper and a reflection row; A-25 leaves the others callable only
    from cint code."""
    if mentions_memory(info.result) or any(mentions_memory(p.type) for p in info.params):
        return False
    return not has_scalar_out(info)


def has_bit_fields(t: StructType, seen=()) -> bool:
    """Whether struct ``t`` has a bit field, itself or in a struct field (LS-82)."""
    for _, ft, bits in t.fields:
        et = ft.elem if isinstance(ft, ArrayType) else ft
        if bits or (isinstance(et, StructType) and et.qname not in seen and has_bit_fields(et, seen + (t.qname,))):
            return True
    return False


def _record(t: StructType, span, seen=()) -> None:
    """A struct that a host passes in its memory: A-13 checks only Bool bytes at entry, so a field whose
    bytes could name no member of its type (an enum or an error set) cannot cross."""
    if t.qname in seen:
        return
    for fname, ft, _bits in t.fields:
        et = ft.elem if isinstance(ft, ArrayType) else ft
        if isinstance(et, StructType):
            _record(et, span, seen + (t.qname,))
        elif isinstance(et, (EnumType, ErrorSetType)):
            raise _refuse(span, "the field %s.%s of type %s cannot cross the export boundary: a host could pass "
                                "a value that is no member of %s (the entry checks only Bool bytes); "
                                "declare the field as its underlying integer %s and convert it inside the export"
                          % (t.name(), fname, et, et, et.underlying))
        elif not isinstance(et, (IntType, BoolType, FixedType)):
            raise _refuse(span, "the field %s.%s of type %s cannot cross the export boundary; only Bool, integer, "
                                "Q<i>.<f> and struct fields (and arrays of those) cross" % (t.name(), fname, et))


def _c_layout(t):
    """(size, alignment, {field: offset}) of the C struct the back end emits for ``t`` (no bit fields): each
    field at its natural alignment, @packed or not (the layout of Emitter.c_layout)."""
    if not isinstance(t, StructType):
        if isinstance(t, ArrayType):
            n = 1
            for x in t.dims:
                n *= x
            size, align = _c_layout(t.elem)[:2]
            return size * max(n, 1), align, {}
        return type_layout(t) + ({},)
    size, align, offs = 0, 1, {}
    for fname, ft, _bits in t.fields:
        fs, fa, _ = _c_layout(ft)
        size = -(-size // fa) * fa
        offs[fname] = size
        size += fs
        align = max(align, fa)
    if not t.fields:
        size = 1
    size = -(-size // align) * align
    return size, align, offs


def _bit_field_record(t: StructType, span, seen=()) -> None:
    """A struct with bit fields crosses as its record's bytes, copied field by field into the C struct: a
    struct field whose record (@packed) lies otherwise than its C struct cannot be copied whole."""
    if t.qname in seen:
        return
    for fname, ft, bits in t.fields:
        et = ft.elem if isinstance(ft, ArrayType) else ft
        if bits or not isinstance(et, StructType):
            continue
        if has_bit_fields(et):
            _bit_field_record(et, span, seen + (t.qname,))
            continue
        rec, c = struct_layout(et), _c_layout(et)
        if rec[0] != c[0] or rec[2] != c[2]:
            raise _refuse(span, "the field %s.%s cannot cross the export boundary inside a struct with bit fields: "
                                "struct %s is @packed, so its record lies otherwise than in C; drop @packed from "
                                "%s, or pass it as a parameter of its own" % (t.name(), fname, et.name(), et.name()))


def _no_result(res, d) -> Optional[CompileError]:
    what = res.value if isinstance(res, ErrorUnionType) else res
    if isinstance(what, ArrayType):
        return _refuse(d.span, "the export %s cannot return an array (%s): an array crosses only as a parameter; "
                               "take an `inout` array parameter and write the result into it" % (d.name, res))
    if isinstance(what, TupleType):
        return _refuse(d.span, "the export %s cannot return a tuple (%s); return a struct with one field per "
                               "item, or write the items into `inout` parameters" % (d.name, res))
    if isinstance(what, StrType):
        return _refuse(d.span, "the export %s cannot return Str: Str never crosses the export boundary; "
                               "write the bytes into an `inout U8[_]` parameter" % d.name)
    if isinstance(res, ErrorUnionType) and isinstance(what, StructType) and has_bit_fields(what):
        return _refuse(d.span, "the export %s cannot return %s: a struct with bit fields crosses only on its own; "
                               "return %s and report the error in a field, or declare %s without bit widths"
                       % (d.name, res, what.name(), what.name()))
    if isinstance(res, StructType) and has_bit_fields(res):
        _record(res, d.span)
        _bit_field_record(res, d.span)
    return None


def _no_param(p, info) -> Optional[CompileError]:
    t, kind = p.type, "kernel" if info.is_kernel else "function"
    if isinstance(t, ArrayType):
        if isinstance(t.elem, StrType):
            return _refuse(p.span, "the parameter %s, an array of Str, cannot cross the export boundary; "
                                   "pass the bytes as U8 arrays" % p.name)
        if isinstance(t.elem, StructType):
            _record(t.elem, p.span)
            if has_bit_fields(t.elem):
                return _refuse(p.span, "the parameter %s, an array of struct %s, which holds bit fields, cannot "
                                       "cross the export boundary (one such struct crosses as an `in` or `inout` "
                                       "parameter or a result); declare %s without bit widths"
                               % (p.name, t.elem.name(), t.elem.name()))
        return None
    if isinstance(t, (BoolType, FixedType)) or (isinstance(t, IntType) and t.bits <= 64):
        return None
    if isinstance(t, (EnumType, ErrorSetType)):
        return _refuse(p.span, "the parameter %s of type %s cannot cross the export boundary: a host could pass "
                               "a value that is no member of %s; take its underlying integer %s and convert it "
                               "inside the export" % (p.name, t, t, t.underlying))
    if isinstance(t, StrType):
        return _refuse(p.span, "the parameter %s of type Str cannot cross the export boundary; pass the "
                               "bytes as an `in U8[_]` array" % p.name)
    if isinstance(t, StructType) and not info.is_kernel and p.info in (None, "in", "inout"):
        _record(t, p.span)
        if has_bit_fields(t):
            _bit_field_record(t, p.span)
        return None
    if isinstance(t, IntType) and not info.is_kernel:
        return None         # I128..I1024: a pointer to the limb structure
    if info.is_kernel and isinstance(t, (StructType, IntType)):
        return _refuse(p.span, "the parameter %s of type %s cannot cross the export boundary of a kernel (a "
                               "kernel's scalars cross by value, up to 64 bits); export a function that takes it "
                               "and dispatches the kernel" % (p.name, t))
    return _refuse(p.span, "the parameter %s of type %s of the %s %s has no C form at the export boundary"
                   % (p.name, t, kind, info.decl.name))


def export_refusal(info, types=None) -> Optional[CompileError]:
    """Why the C back end cannot wrap export ``info`` (C5050, saying what to write instead), or None."""
    if not has_c_wrapper(info):
        return None
    try:
        for p in info.params:
            err = _no_param(p, info)
            if err is not None:
                return err
        if not info.is_kernel:
            err = _no_result(info.result, info.decl)
            if err is not None:
                return err
        data = S.encode_signature(signature_model(info, types))
        S.decode_signature(data)        # what a host will decode
    except _UnknownMember:
        return None     # left to the build: the root's types lack another module's sets (not yet checked here)
    except CompileError as ex:
        return ex if ex.span is not None else CompileError(ex.code, info.decl.span, ex.message)
    except S.SignatureError as ex:
        return _refuse(info.decl.span, "the export %s has no type signature a host can decode: %s"
                       % (info.decl.name, ex))
    return None


def check_export_boundary(prog, types=None) -> None:
    """Raise the first refusal among the exported functions and kernels of the root module ``prog``,
    in declaration order."""
    decls = [i for i in list(prog.functions.values()) + list(prog.kernels.values()) if i.decl.exported]
    decls.sort(key=lambda i: (i.decl.span.line, i.decl.span.column))
    for info in decls:
        err = export_refusal(info, types if types is not None else prog.types)
        if err is not None:
            raise err


# ---------------------------------------------------------------- the type signature (7.5)

class _Map:
    """The compiler's types onto ``cint_abi.typesig``'s model (its byte format and rules live there)."""

    def __init__(self, sizes, types=None):
        self.sizes = sizes
        self.defs = {}
        self.types = types or {}

    def member(self, es: ErrorSetType, qname: str) -> ErrorSetType:
        """The member set ``qname`` of the combined set ``es``, from the program's types."""
        t = self.types.get(qname)
        if not isinstance(t, ErrorSetType):
            raise _UnknownMember(CODE, None, "a combined error set whose member %s is not known here has no C form in a type "
                                "signature; name the member sets' module in the root module (spec: SPEC-03P.1 7.5 A-25)"
                                % qname)
        return t

    def errset(self, es: ErrorSetType):
        if es.qname not in self.defs:
            if "." not in es.qname:         # the built-in ArithError belongs to no module (A-21 names)
                raise _refuse(None, "the error set %s has no qualified name for a type signature; declare an "
                                    "error set of your own in the module and return it" % es.qname)
            tag = S.Int(False, es.underlying.bits)
            if es.members:
                # a combined set lists its member sets (SPEC-03P.1 7.5 item 2, form 01)
                members = tuple(self.errset(self.member(es, m)) for m in es.members)
                self.defs[es.qname] = S.CombinedErrorSetDef(es.qname, tag, members)
            else:
                self.defs[es.qname] = S.ErrorSetDef(es.qname, tag, tuple(v[1] for v in es.values))
        return self.defs[es.qname]

    def struct(self, t: StructType):
        if t.qname not in self.defs:
            fields = tuple((n, bits or 0, self.type(ft, field=True)) for n, ft, bits in t.fields)
            self.defs[t.qname] = S.StructDef(t.qname, 0, fields)
        return self.defs[t.qname]

    def type(self, t, field=False, span=None):
        if isinstance(t, BoolType):
            return S.Bool()
        if isinstance(t, IntType):
            return S.Int(t.signed, t.bits)
        if isinstance(t, FixedType):
            return S.Fixed(t.bits, t.f)
        if isinstance(t, EnumType):
            return S.Int(t.underlying.signed, t.underlying.bits)
        if isinstance(t, ErrorSetType):
            return S.ErrorSetRef(defn=self.errset(t))
        if isinstance(t, StructType):
            return S.StructRef(defn=self.struct(t))
        if isinstance(t, ArrayType):
            dims = []
            for d in t.dims:
                if d is None:
                    dims.append(S.Any())
                elif isinstance(d, str):
                    dims.append(S.Extent(S.Bound(self.sizes.index(d), 0)))
                elif isinstance(d, int):
                    dims.append(S.Extent(S.Bound(None, d)))
                elif isinstance(d, SymExtent):      # `n + 1` is (index of n, 1), `n - 2` is (index of n, -2)
                    dims.append(S.Extent(S.Bound(self.sizes.index(d.sym), d.off)))
                else:
                    raise _refuse(span, "a computed extent has no C form in a type signature; write the extent "
                                        "as a size symbol, a literal, or a size symbol plus or minus a literal")
            return S.Array(self.type(t.elem, span=span), tuple(dims))
        raise _refuse(span, "the type %s has no C form in a type signature" % t)


def signature_model(info, types=None) -> S.Signature:
    m = _Map([s.name for s in info.size_params], types)
    params = []
    for p in info.params:
        mode = p.info if p.info in ("inout", "out") else "in"
        params.append(S.Param(mode, m.type(p.type, span=p.span)))
    res = None
    r = VOID if info.is_kernel else info.result
    if isinstance(r, ErrorUnionType):
        res = S.ErrorUnion(value=None if r.value is VOID else m.type(r.value, span=info.decl.span),
                           defn=m.errset(r.errset))
    elif r is not VOID:
        res = m.type(r, span=info.decl.span)
    return S.build_signature(params, res, len(info.size_params))
