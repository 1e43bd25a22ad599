"""Calls of functions, built-ins and kernels.

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (I64, FixedType)

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.semantics import builtins as B
from cint_compiler.check.symbols import (
    FuncInfo,
    _err,
    struct_layout,
)


class CallChecks:
    # ------------------------------------------------------------------ calls

    def e_Call(self, e: A.Call, expected):
        c = e.callee
        if isinstance(c, A.TypeMember):
            t = self.resolve_type(c.type)
            if isinstance(t, FixedType) and c.name == "raw":
                if len(e.args) != 1 or e.args[0].name is not None or not isinstance(e.args[0].value, A.Expr):
                    raise _err("C2022", e.span, "%s.raw takes one storage integer" % t)
                a = e.args[0].value
                self.expr(a, t.storage)
                if a.ty != t.storage:
                    raise _err("C2001", a.span, "%s.raw takes %s, not %s" % (t, t.storage, a.ty))
                e.kind = "raw"
                return t
            raise _err("C3005", c.span, "%s has no constructor `%s`" % (t, c.name))
        if isinstance(c, A.Member):
            rt = self.container_receiver(c)
            if rt is not None:
                return self.container_call(e, rt)
            sym = self.qualified(c)
            if sym is None:
                raise unsupported(c.span, "a qualified call")
            name = "%s.%s" % (c.base.ident, c.name)
        elif not isinstance(c, A.Name):
            raise _err("C1050", c.span, "not callable")
        else:
            name = c.ident
            sym = self.scope.lookup(name)
        if sym is None:
            if name in B.CALLABLE:
                return self.builtin_call(e, name, expected)
            raise _err("C3005", c.span, "undefined function `%s`" % name)
        c.ref = sym
        if sym.kind == "struct":
            return self.struct_ctor(e, sym.type)
        if sym.kind == "func":
            return self.user_call(e, sym.info)
        if sym.kind == "kernel":
            return self.dispatch(e, sym.info)
        raise _err("C3007", c.span, "`%s` is not a function" % name)

    def complete(self, t, span):
        """C3006 when the layout of struct ``t`` is asked for before its fields are defined (a bit width)."""
        if t.qname in self.fielding:
            raise _err("C3006", span, "type `%s` is used before it is complete: its fields are not defined yet"
                       % t.name())

    def offset_call(self, e):
        """`offset(T, field)` (LS-76): the field's byte offset in the layout of LS-73 to LS-75, a compile-time
        I64 constant; a bit field's offset is that of its storage unit (LS-82).  `offset` is not a reserved
        name: a user function of that name is called instead."""
        if len(e.args) != 2 or any(a.name is not None for a in e.args):
            raise _err("C2022", e.span, "offset takes a struct type and a field name: offset(T, field)")
        tx, fx = e.args[0].value, e.args[1].value
        sym = self.scope.lookup(tx.ident) if isinstance(tx, A.Name) else None
        if sym is None or sym.kind != "struct":
            raise _err("C3007", getattr(tx, "span", None) or e.span, "offset takes a struct type first")
        t = sym.type
        self.complete(t, getattr(tx, "span", None) or e.span)
        if not isinstance(fx, A.Name) or t.field(fx.ident) is None:
            raise _err("C3005", getattr(fx, "span", None) or e.span, "%s has no such field" % t)
        e.kind = "builtin"
        e.bname = "offset"
        e.argv = []
        e.cval = struct_layout(t)[2][fx.ident]
        return I64

    def bind_args(self, e, params):
        """Positional then named arguments -> one Expr per parameter (defaults unsupported)."""
        out = [None] * len(params)
        order = []
        pos = 0
        seen_named = False
        names = [p.name for p in params]
        for a in e.args:
            if a.name is None:
                if seen_named:
                    raise _err("C2069", a.span or e.span, "a positional argument follows a named one")
                if pos >= len(params):
                    raise _err("C2022", start_span(e), "`%s` takes %d arguments" % (self.callee_name(e),
                                                                                  len(params)))
                out[pos] = a.value
                order.append(pos)
                pos += 1
            else:
                seen_named = True
                if a.name not in names:
                    raise _err("C2063", a.span or e.span, "no parameter is named `%s`" % a.name)
                i = names.index(a.name)
                if out[i] is not None:
                    raise _err("C2062", a.span or e.span, "parameter `%s` receives two arguments" % a.name)
                out[i] = a.value
                order.append(i)
        for i, v in enumerate(out):
            dflt = getattr(params[i].decl, "default", None) if v is None else None
            if dflt is not None and dflt.cval is not NOTCONST:
                out[i] = dflt           # a default: its folded value, after the written arguments (LS-125)
                order.append(i)
        e.order = order     # arguments are evaluated in the order written (LS-137)
        for i, v in enumerate(out):
            if v is None:
                raise _err("C2022", start_span(e), "`%s` takes %d arguments; `%s` is missing"
                           % (self.callee_name(e), len(params), names[i]))
            if not isinstance(v, A.Expr):
                raise _err("C2001", v.span or e.span, "a type is not a value")
        return out

    @staticmethod
    def callee_name(e):
        c = e.callee
        if isinstance(c, A.Member) and isinstance(c.base, A.Name):
            return "%s.%s" % (c.base.ident, c.name)
        return getattr(c, "ident", "?")

    def user_call(self, e, info: FuncInfo):
        const_call = self.fn is not None and (self.fn.kind == "const" or self.in_case_item)
        if const_call:
            why = self.const_ineligible(info)
            if why is not None:
                raise _err("C6004", e.span, "a constant expression cannot call `%s`: %s (spec: LS-264)"
                           % (self.callee_name(e), why))
            e.const_call = True
        args = self.bind_args(e, info.params)
        for p, a in zip(info.params, args):
            self.arg(p, a)
        if self.fn is not None and self.fn.kind == "func":
            self.fn.kcalls.append((info, e.span))
        if self.fn is not None and self.fn.kind == "kernel":
            self.kernel_call_args(info, args)
            if not self.kernel_call_verdict(info, e):
                self.kpending.append((info, e))
        for a in args:
            if isinstance(a, A.Expr):
                g = self.arg_global(a)
                if g is not None:
                    self.gargs.append((info, g, a))
        self.static_entry_checks(e, info, args)
        e.kind = "func"
        e.info = info
        e.argv = args
        if self.fn is not None and info.prints:
            self.fn.prints = True
        return info.result
