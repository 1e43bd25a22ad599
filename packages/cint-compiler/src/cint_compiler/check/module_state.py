"""Module state: module variables, their writers and C5012 (LS-122).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (VOID, ArrayType, StructType)

from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    ViewInfo,
    Symbol,
    FuncInfo,
    _err,
)
from cint_compiler.check.features import proposed as proposed_check


class ModuleStateChecks:
    # ------------------------------------------------------------------ module state (LS-122, C5012)

    def global_root(self, e):
        """The module variable (a Symbol of kind global) that ``e`` is or views, else None."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, A.Member) and e.mkind == "qname":
                g = e.ref
                return g if g is not None and g.kind == "global" else None
            elif isinstance(e, (A.Index, A.Member)):
                e = e.base
            elif isinstance(e, A.Call) and e.kind == "builtin" and \
                    e.bname in ("transpose", "reverse"):
                e = e.argv[0]
            elif isinstance(e, A.Name):
                g = e.ref
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
        bare = isinstance(inner, A.Name) or (isinstance(inner, A.Member) and inner.mkind == "qname")
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
            if a.is_default:
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
