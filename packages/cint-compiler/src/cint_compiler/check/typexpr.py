"""Type expressions: names, arrays, tuples, error unions, extents.

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (BOOL, I64, ROUND, STR, VOID, ARITH_ERROR, ArrayType, ErrorSetType, ErrorUnionType, TupleType, Type, INT_TYPES,
                    fixed_valid, parse_fixed_name)
from cint_compiler.semantics.types import ALLOC_ERROR
from cint_compiler.semantics.types import FORMAT_ERROR, UTF8_ERROR
from cint_compiler.semantics.types import SymExtent

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.check.symbols import (
    _err,
)


class TypeExprChecks:
    # ------------------------------------------------------------------ types

    def resolve_type(self, te, allow_runtime_dims=False, param=False) -> Type:
        if isinstance(te, A.TypeName):
            text = te.text
            if text in INT_TYPES:
                return INT_TYPES[text]
            if text == "Bool":
                return BOOL
            if text == "Str":
                return STR
            if text == "Round":
                return ROUND
            if text in ("T1", "T27", "PT5", "PT4"):
                raise unsupported(te.span, "the ternary type %s" % text)
            if text in ("Arena", "Pool", "Handle"):
                return self.container_type(te)
            ft = parse_fixed_name(text)
            if ft is not None:
                if not fixed_valid(ft):
                    raise _err("C2005", te.span, "%s is not a fixed-point type: i + f is 8, 16, 32 or 64 and i >= 1" % text)
                return ft
            if len(te.parts) > 1:
                return self.qualified_type(te)
            sym = self.scope.lookup(text) or self.top.lookup(text)
            if text == "ArithError":
                return ARITH_ERROR
            if text == "AllocError" and sym is None:
                return ALLOC_ERROR
            if text in ("FormatError", "Utf8Error") and sym is None:
                return FORMAT_ERROR if text == "FormatError" else UTF8_ERROR
            if sym is None:
                raise _err("C3006", te.span, "unknown type `%s`" % text)
            if sym.kind not in ("struct", "enum", "error", "alias"):
                raise _err("C3007", te.span, "`%s` is not a type" % text)
            if sym.type is None:
                raise _err("C3006", te.span, "type `%s` is used before it is complete" % text)
            return sym.type
        if isinstance(te, A.ArrayTypeExpr):
            elem = self.resolve_type(te.elem)
            self.storable(elem, te.elem.span or te.span)
            if isinstance(elem, ArrayType):
                raise _err("C2010", te.span, "an array of arrays is written with one shape: T[a, b]")
            if len(te.dims) > 4:
                raise _err("C2010", te.span, "an array has rank 1 to 4")
            dims = []
            for dm in te.dims:
                if dm.lower is not None:
                    raise unsupported(dm.span or te.span, "a declared lower bound")
                if dm.any:
                    dims.append(None)
                    continue
                e = dm.expr
                if isinstance(e, A.Name):
                    s = self.scope.lookup(e.ident)
                    if s is not None and s.kind == "sizeparam":
                        dims.append(s.name)
                        continue
                if param:
                    x = self.computed_extent(e)
                    if x is not None:
                        dims.append(x)
                        continue
                self.expr(e, I64)
                if e.ty != I64:
                    raise _err("C2001", e.span, "an extent has type I64, not %s" % e.ty)
                self.fold(e)
                if e.cval is not NOTCONST:
                    if e.cval < 0:
                        raise _err("C2015", e.span, "extent %d is negative" % e.cval)
                    dims.append(e.cval)
                elif allow_runtime_dims:
                    dims.append(e)
                elif param:
                    raise _err("C6004", e.span, "an extent of a parameter type is `_`, a constant, a size "
                               "parameter `s`, or `s + c`, `s - c` or `c + s` with a constant c")
                else:
                    raise _err("C6004", e.span, "an extent here is a constant or a size parameter")
            return ArrayType(elem, tuple(dims))
        if isinstance(te, A.ErrorUnionTypeExpr):
            es = self.resolve_type(te.errset)
            if not isinstance(es, ErrorSetType):
                raise _err("C3007", te.errset.span, "`%s` is not an error set" % te.errset.text)
            vt = VOID if te.value is None else self.resolve_type(te.value)
            return ErrorUnionType(es, vt)
        if isinstance(te, A.TupleTypeExpr):
            items = []
            for x in te.items:
                xt = self.resolve_type(x)
                if isinstance(xt, TupleType):
                    raise _err("C2041", x.span or te.span, "tuples do not nest (spec: LS-101)")
                if xt is VOID or isinstance(xt, ErrorUnionType):
                    raise _err("C2001", x.span or te.span, "a tuple element is a value type, not %s" % xt)
                items.append(xt)
            return TupleType(tuple(items))
        if isinstance(te, A.VoidTypeExpr):
            return VOID
        raise _err("C1050", te.span, "not a type")

    def computed_extent(self, e):
        """A computed extent of a parameter type (A-21's (symbol, offset)): `s + c`, `s - c` or `c + s` with
        `s` a size parameter of the callee and `c` a constant I64 expression; None for any other form.
        The size parameter is recorded in ``self.computed_syms``: it must also be a plain extent
        somewhere (C2065), since only plain extents bind (SPEC-02 K-6)."""
        if not (isinstance(e, A.Binary) and e.op in ("+", "-")):
            return None

        def size_name(x):
            if isinstance(x, A.Name):
                s = self.scope.lookup(x.ident)
                if s is not None and s.kind == "sizeparam":
                    return s
            return None
        sym, c, sign = size_name(e.left), e.right, 1
        if sym is None:
            if e.op != "+":
                return None
            sym, c = size_name(e.right), e.left
            if sym is None:
                return None
        elif e.op == "-":
            sign = -1
        if size_name(c) is not None:
            return None
        self.expr(c, I64)
        if c.ty != I64:
            raise _err("C2001", c.span, "the constant of an extent has type I64, not %s" % c.ty)
        self.fold(c)
        if c.cval is NOTCONST:
            raise _err("C6004", c.span, "an extent of a parameter type is `_`, a constant, a size parameter "
                       "`s`, or `s + c`, `s - c` or `c + s` with a constant c")
        off = sign * c.cval
        if not -(1 << 63) <= off < (1 << 63):
            raise _err("C6004", c.span, "the offset %d of extent `%s` is not an I64" % (off, sym.name))
        self.computed_syms.add(sym.name)
        return sym.name if off == 0 else SymExtent(sym.name, off)

    def qualified_type(self, te) -> Type:
        """``alias.Name``: an exported type of an imported module (LS-225, LS-227)."""
        head = te.parts[0]
        base = self.scope.lookup(head)
        if base is None:
            raise _err("C3006", te.span, "unknown type `%s`: `%s` is not an imported module" % (te.text, head))
        if base.kind != "module":
            raise _err("C3007", te.span, "`%s` is not an imported module, so `%s` does not name a type"
                       % (head, te.text))
        span = self.part_span(te, 1)
        sym = self.imported(base.info, te.parts[1], span, "C3006")
        if len(te.parts) > 2 or sym.kind not in ("struct", "enum", "error", "alias"):
            raise _err("C3007", span, "`%s.%s` is not a type" % (head, te.parts[1]))
        if sym.type is None:
            raise _err("C3006", span, "type `%s` is used before it is complete" % te.text)
        return sym.type

    def storable(self, t, span):
        """Tuples exist only as results, consumed by destructuring (LS-101)."""
        if isinstance(t, TupleType):
            raise _err("C2041", span, "a tuple cannot be stored in a variable, array, field or parameter (spec: LS-101)")
