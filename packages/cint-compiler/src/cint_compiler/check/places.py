"""Places: what an assignment, `++`/`--` or an `inout` argument may write.

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (Type)
from cint_compiler.semantics.types import ArenaType, PoolType

from cint_compiler.check.symbols import (
    _err,
)
from cint_compiler.check.features import proposed as proposed_check


class PlaceChecks:
    # ------------------------------------------------------------------ places

    def place(self, e) -> Type:
        """Check an assignable place and return its type."""
        if isinstance(e, A.Name):
            self.expr(e, None)
            sym = e.ref
            if sym.kind == "param" and not sym.mutable:
                raise _err("C2060", e.span, "parameter `%s` cannot be assigned; it is not `inout`" % e.ident)
            if sym.kind == "local" and sym.info == "loopvar":
                raise _err("C2052", e.span, "the loop variable `%s` is read-only" % e.ident)
            if self.is_readonly_view(sym):
                raise _err("C2060", e.span, "view `%s` is read-only: it is declared `in`" % e.ident)
            if sym.kind in ("const", "func", "kernel", "sizeparam", "overvar", "struct", "enum", "error"):
                raise _err("C2058", e.span, "`%s` is not an assignable place" % e.ident)
            if isinstance(sym.type, (ArenaType, PoolType)):
                raise _err("C2058", e.span, "`%s` is an arena or pool; it cannot be re-bound" % e.ident)
            if self.foreign(e):
                raise _err("C2058", e.span, "a module variable of an imported module cannot be assigned (spec: LS-227)")
            if self.fn.kind == "kernel" and sym.kind == "param":
                self.kernel_write_rule(e, e)
            self.note_gwrite(e)
            return e.ty
        if isinstance(e, A.Index):
            proposed_check.subword_place(self, e)      # other writes to a sub-word: C9102 (decision 31)
            self.expr(e, None)
            root = e.base
            while isinstance(root, (A.Index, A.Member)):
                root = root.base
            root = self.view_root(root) or root
            if isinstance(root, A.Name) and self.is_readonly_view(root.ref):
                raise _err("C2060", root.span, "view `%s` is read-only: it is declared `in`" % root.ident)
            if isinstance(root, A.Name) and root.ref.kind == "param" and not root.ref.mutable \
                    and root.ref.info != "out":
                if root.ref.info == "in":
                    raise _err("C2060", root.span, "parameter `%s` is read-only" % root.ident)
            if isinstance(root, A.Name) and root.ref.kind == "const":
                raise _err("C2058", root.span, "a constant cannot be assigned")
            if self.foreign(root):
                raise _err("C2058", root.span, "a module variable of an imported module cannot be assigned (spec: LS-227)")
            if self.fn.kind == "kernel" and isinstance(root, A.Name):
                self.kernel_write_rule(e, root)
            self.note_gwrite(e)
            return e.ty
        if isinstance(e, A.Member):
            self.expr(e, None)
            if e.mkind == "qname":
                raise _err("C2058", e.span, "a module variable of an imported module cannot be assigned (spec: LS-227)")
            if e.mkind != "field":
                raise _err("C2058", e.span, "not an assignable place")
            root = e.base
            while isinstance(root, (A.Index, A.Member)):
                root = root.base
            if self.foreign(root):
                raise _err("C2058", root.span, "a module variable of an imported module cannot be assigned (spec: LS-227)")
            if isinstance(root, A.Name) and root.ref.kind in ("param", "const") and not root.ref.mutable:
                raise _err("C2060", root.span, "`%s` cannot be assigned" % root.ident)
            if isinstance(root, A.Name) and self.is_readonly_view(root.ref):
                raise _err("C2060", root.span, "view `%s` is read-only: it is declared `in`" % root.ident)
            self.note_gwrite(e)
            return e.ty
        if isinstance(e, A.Paren):
            return self.place(e.inner)
        raise _err("C2058", e.span, "not an assignable place")
