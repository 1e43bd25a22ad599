"""The type signature of an export (SPEC-03P.1 7.5), from the checker's types.

The byte format and its rules belong to ``cint_abi.typesig``; this module only maps the
compiler's types onto that model.
"""
from __future__ import annotations

from cint_abi import typesig as S

from cint_compiler.diagnostics import CompileError
from cint_compiler.semantics.types import (VOID, ArrayType, BoolType, EnumType, ErrorSetType, ErrorUnionType, FixedType, IntType,
                    StructType, SymExtent)


def _refuse(span, what):
    return CompileError("C5050", span, "%s has no C form in a type signature (SPEC-03P.1 A-25)" % what)


class _Map:
    def __init__(self, sizes, types=None):
        self.sizes = sizes
        self.defs = {}
        self.types = types or {}

    def member(self, es: ErrorSetType, qname: str) -> ErrorSetType:
        """The member set ``qname`` of the combined set ``es``, from the program's types."""
        t = self.types.get(qname)
        if not isinstance(t, ErrorSetType):
            raise _refuse(None, "a combined error set whose member %s is not known here" % qname)
        return t

    def errset(self, es: ErrorSetType):
        if es.qname not in self.defs:
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
                    raise _refuse(span, "a computed extent")
            return S.Array(self.type(t.elem, span=span), tuple(dims))
        raise _refuse(span, "the type %s" % t)


def signature_model(info, types=None) -> S.Signature:
    m = _Map([s.name for s in info.size_params], types)
    params = []
    for p in info.params:
        mode = p.info if p.info in ("inout", "out") else "in"
        params.append(S.Param(mode, m.type(p.type, span=p.span)))
    res = None
    r = VOID if info.is_kernel else info.result
    if isinstance(r, ErrorUnionType):
        res = S.ErrorUnion(value=None if r.value is VOID else m.type(r.value), defn=m.errset(r.errset))
    elif r is not VOID:
        res = m.type(r)
    return S.build_signature(params, res, len(info.size_params))


def signature_bytes(info, module_name=None, types=None) -> bytes:
    return S.encode_signature(signature_model(info, types))
