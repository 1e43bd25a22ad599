"""Imports and qualified names (SPEC-04 section 11).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.semantics.operators import CMP_OPS, LOGIC_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (BOOL, I64, VOID, ArrayType, BoolType, EnumType,
                    ErrorSetType, FixedType, IntType, StrType, StructType, U16)
from cint_compiler.check.features.containers import mentions_memory
from cint_compiler.semantics.types import ArenaType, PoolType

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.check.symbols import (
    Symbol,
    FuncInfo,
    Program,
    has_zero,
    _err,
    Scope,
    FnCtx,
)
from cint_compiler.check.features import proposed as proposed_check
from cint_compiler.check.features.reduce import element_form


class ImportChecks:
    # ------------------------------------------------------------------ imports (SPEC-04 section 11)

    def bind_imports(self):
        """Bind each import's alias (its last path segment unless `as` names one), or its selected names."""
        for d in self.m.imports:
            prog = self.modules[d.target]
            if prog.script is not None:
                raise _err("C3010", d.span, "module %s is a script (it has top-level statements); a script "
                           "cannot be imported" % prog.module.name)
            if d.selected is None:
                name = d.alias or d.path[-1]
                span = d.name_span or d.span
                self.declare(self.top, name, Symbol("module", name, info=prog, span=span), span)
                continue
            spans = d.selected_spans or [d.span] * len(d.selected)
            for n, sp in zip(d.selected, spans):
                sym = self.imported(prog, n, sp, "C3005")
                if n in self.top.names:
                    raise _err("C3002", sp, "the selected name `%s` is already bound in this module (spec: LS-228)" % n)
                self.declare(self.top, n, sym, sp)
                self.selected.add(n)

    def imported(self, prog: Program, name, span, missing="C3005"):
        """The declaration ``name`` of an imported module: C3005 (C3006 for a type) if it has none, C3008
        if it does not export it (LS-227).  Imports are not transitive: a module's own imports are not
        among its declarations."""
        sym = prog.decls.get(name)
        if sym is None:
            raise _err(missing, span, "module %s has no declaration named `%s`" % (prog.module.name, name))
        if name not in prog.exported:
            raise _err("C3008", span, "`%s` is private to module %s; only `export` declarations are visible "
                       "to importers (spec: LS-227)" % (name, prog.module.name),
                       help="add `export` to its declaration in %s" % prog.module.path)
        return sym

    def qualified(self, e):
        """The symbol that ``alias.name`` names, or None when ``e`` is not a name of an imported module."""
        if not (isinstance(e, A.Member) and isinstance(e.base, A.Name)):
            return None
        base = self.scope.lookup(e.base.ident)
        if base is None or base.kind != "module":
            return None
        e.base.ref = base
        sym = self.imported(base.info, e.name, e.span)
        e.ref = sym
        return sym

    def foreign(self, root):
        """Whether the name ``root`` reaches a declaration of an imported module: an alias, or a selected
        name.  Whether an importer may assign a module variable of another module is open (LS-227): we refuse."""
        return isinstance(root, A.Name) and root.ref is not None and (
            root.ref.kind == "module" or (root.ident in self.selected and root.ref is self.top.names.get(root.ident)))

    def part_span(self, te, k):
        """The position of the ``k``-th part of the qualified type name ``te`` (``vec.V3``: 0 ``vec``, 1 ``V3``)."""
        if k == 0 or te.part_spans is None or k >= len(te.part_spans):
            return te.span
        return te.part_spans[k]

    def _first_span(self, decl: A.VarDecl):
        return decl.stmt_span or decl.type.span if decl.type is not None else decl.span

    def define_enum(self, d: A.EnumDecl):
        if d.underlying is None:
            raise _err("C2030", d.span, "an enum declares its underlying integer type: `enum %s : U8 { ... }`" % d.name)
        ut = self.resolve_type(d.underlying)
        if not isinstance(ut, IntType):
            raise _err("C2030", d.underlying.span, "the underlying type of an enum is an integer type")
        qn = "%s.%s" % (self.modname, d.name)
        members = {}
        nxt = 0
        for e in d.members:
            if e.value is not None:
                nxt = self.const_int(e.value, ut)
            if not ut.contains(nxt) or nxt in members.values():
                raise _err("C2031", e.span, "enumerator `%s` has a duplicate value or does not fit %s" % (e.name, ut))
            if e.name in members:
                raise _err("C3001", e.span, "duplicate enumerator `%s`" % e.name)
            members[e.name] = nxt
            nxt += 1
        t = EnumType(qn, ut, members)
        self.top.names[d.name].type = t
        self.types[qn] = t

    def define_error(self, d: A.ErrorDecl):
        ut = U16
        if d.underlying is not None:
            ut = self.resolve_type(d.underlying)
            if not isinstance(ut, IntType) or ut.signed:
                raise _err("C2030", d.underlying.span, "the underlying type of an error set is an unsigned type")
        qn = "%s.%s" % (self.modname, d.name)
        if d.combined is not None:
            values, members = [], []
            for tn in d.combined:
                t = self.resolve_type(tn)
                if not isinstance(t, ErrorSetType):
                    raise _err("C3007", tn.span, "`%s` is not an error set" % tn.text)
                if t.qname in members:
                    continue
                members.append(t.qname)
                for v in t.values:
                    if v not in values:
                        values.append(v)
        else:
            values, members = [], []
            seen = set()
            for v in d.values:
                if v.name in seen:
                    raise _err("C3001", v.span, "duplicate error value `%s`" % v.name)
                seen.add(v.name)
                values.append((qn, v.name))
        if len(values) > ut.max:
            raise _err("C2031", d.span, "error set %s has more values than %s can number" % (d.name, ut))
        t = ErrorSetType(qn, ut, values, members)
        self.top.names[d.name].type = t
        self.types[qn] = t

    def define_struct_shell(self, d: A.StructDecl):
        for a in d.attrs:
            if a.name == "packed" and not a.args:
                continue    # LS-75: alignment 1, no padding (struct_layout)
            raise unsupported(a.span, "the attribute @%s" % a.name)
        qn = "%s.%s" % (self.modname, d.name)
        t = StructType(qn, d, [])
        self.top.names[d.name].type = t
        self.types[qn] = t

    def define_struct_fields(self, d: A.StructDecl):
        t = self.top.names[d.name].type
        seen = set()
        for f in d.fields:
            if f.name in seen:
                raise _err("C3001", f.span, "duplicate field `%s`" % f.name)
            seen.add(f.name)
            ft = self.resolve_type(f.type)
            self.storable(ft, f.type.span or f.span)
            if isinstance(ft, (ArenaType, PoolType)):
                raise _err("C2051", f.type.span or f.span, "a struct field cannot be an arena or a pool: they are "
                           "second-class values, like views")
            if isinstance(ft, StrType):
                raise _err("C2051", f.span, "a struct field cannot have type Str or a view type")
            width = None
            if f.bits is not None:
                width = self.bit_width(f, ft)
            if f.default is not None:
                proposed_check.field_default(self, f, ft, width)     # LS-77 (Proposed), decision 28
            for a in f.attrs:
                raise unsupported(a.span, "the attribute @%s" % a.name)
            if isinstance(ft, ArrayType) and any(not isinstance(x, int) for x in ft.dims):
                raise _err("C2010", f.type.span, "a struct field array has constant extents")
            t.fields.append((f.name, ft, width))
        self.fielding.discard(t.qname)
        self._check_no_self(t, t, d.span)

    def bit_width(self, f, ft):
        """A bit field's width (LS-81, LS-82): a constant I64 from 1 to the width of its type, which is
        I8..I64, U8..U64 (C2001 otherwise; our choice), or Bool with width 1.  Enum, fixed-point and
        I128..I1024 bit fields: C9102."""
        if isinstance(ft, (EnumType, FixedType)) or (isinstance(ft, IntType) and ft.bits > 64):
            raise unsupported(f.bits.span or f.span, "a bit field of type %s" % ft)
        if not isinstance(ft, (IntType, BoolType)):
            raise _err("C2001", f.type.span or f.span, "a bit field has an integer type or Bool, not %s" % ft)
        saved_fn, saved_scope = self.fn, self.scope
        self.fn = FnCtx(kind="const")
        self.scope = Scope(self.top)
        try:
            w = self.const_int(f.bits, I64)
        finally:
            self.fn, self.scope = saved_fn, saved_scope
        top = 1 if isinstance(ft, BoolType) else ft.bits
        if not 1 <= w <= top:
            raise _err("C2003", f.bits.span or f.span, "the width of a %s bit field is %s, not %d (spec: LS-82)"
                       % (ft, "1" if top == 1 else "1 to %d" % top, w))
        return w

    @staticmethod
    def _extent_names(te, name):
        """Whether the parameter type ``te`` names the size parameter ``name`` as an extent (LS-117)."""
        return isinstance(te, A.ArrayTypeExpr) and any(
            dm.expr is not None and isinstance(dm.expr, A.Name) and dm.expr.ident == name for dm in te.dims)

    def _check_no_self(self, root, t, span, seen=None):
        for i, (_, ft, _) in enumerate(t.fields):
            if t is root and root.decl is not None and i < len(root.decl.fields):
                span = root.decl.fields[i].span or span   # C2055 at the field that closes the cycle
            inner = ft.elem if isinstance(ft, ArrayType) else ft
            if isinstance(inner, StructType):
                if inner == root:
                    raise _err("C2055", span, "struct %s contains itself" % root.name())
                self._check_no_self(root, inner, span)

    def declare_function(self, d):
        for a in d.attrs:
            raise unsupported(a.span, "the attribute @%s" % a.name)
        is_kernel = isinstance(d, A.KernelDecl)
        qn = "%s.%s" % (self.modname, d.name)
        sizes = []
        for s in d.size_params:
            sizes.append(Symbol("sizeparam", s, I64, decl=d))
        info = FuncInfo(d, qn, VOID, [], sizes, is_kernel, module=self.modname)
        sym = Symbol("kernel" if is_kernel else "func", d.name, decl=d, info=info, span=d.span)
        self.declare(self.top, d.name, sym, d.span)
        # parameters need size symbols in scope for their types
        sc = Scope(self.top)
        size_spans = d.size_param_spans or [d.span] * len(sizes)
        for s, sp in zip(sizes, size_spans):
            self.declare(sc, s.name, s, sp)
        if not is_kernel:
            for s, sp in zip(sizes, size_spans):
                if not any(self._extent_names(p.type, s.name) for p in d.params):
                    raise _err("C2065", sp, "size parameter `%s` is bound by no view parameter; name it as an "
                               "extent of one, such as `in I64[%s] xs`" % (s.name, s.name))
        saved = self.scope
        self.scope = sc
        try:
            if not is_kernel:
                if d.result_mode is not None:
                    raise unsupported(d.result.span or d.span, "a view result")
                info.result = VOID if isinstance(d.result, A.VoidTypeExpr) else self.resolve_type(d.result)
                if d.where is not None and not sizes:
                    raise _err("C2001", d.where.span, "a `where` clause states requirements on size parameters, "
                               "and `%s` has none (spec: LS-118)" % d.name)
            seen_default = False
            self.computed_syms = set()
            for i, p in enumerate(d.params):
                pt = self.resolve_type(p.type, param=True)
                self.storable(pt, p.type.span or p.span)
                if is_kernel and mentions_memory(pt):
                    raise _err("C9102", p.type.span or p.span, "a kernel cannot take arenas, pools or handles "
                               "(docs/language.md decision 24)")
                mode = p.mode or "in"
                if not is_kernel and mode == "out":
                    raise _err("C5001", p.span, "`out` is for kernels; a function returns results or takes `inout`")
                if mode == "inout" and not isinstance(pt, (ArrayType, StructType, ArenaType, PoolType)):
                    raise _err("C2064", p.span, "an `inout` parameter is an array or a struct")
                if p.default is not None:
                    if mode == "inout" and not is_kernel:
                        # LS-125: there is no shared mutable default (our reading: none for `inout`)
                        raise _err("C2058", p.default.span or p.span, "an `inout` parameter has no default: "
                                   "there is no shared mutable default (spec: LS-125)")
                    if is_kernel or isinstance(pt, (StructType, StrType)):
                        raise unsupported(p.default.span or p.span, "a default argument of this parameter")
                    seen_default = True
                elif seen_default:
                    raise _err("C2061", p.span, "parameter `%s` has no default but follows one that has (spec: LS-124)"
                               % p.name)
                ps = Symbol("param", p.name, pt, decl=p, mutable=(mode == "inout"), span=p.span)
                ps.info = mode
                info.params.append(ps)
            for s, sp in zip(sizes, size_spans):
                # only a plain extent binds a size parameter (SPEC-02 K-6); `n + 1` alone cannot
                if s.name in self.computed_syms and not any(self._extent_names(p.type, s.name) for p in d.params):
                    raise _err("C2065", sp, "size parameter `%s` occurs only in computed extents, which do not "
                               "bind it; name it alone as an extent of one parameter, such as `in I64[%s] xs`"
                               % (s.name, s.name))
            if is_kernel:
                if d.over is None:      # element form (LS-247): rewritten into the over form
                    element_form(d, info)
                for ov in d.over:
                    info.over.append(Symbol("overvar", ov.name, I64, decl=ov, span=ov.span))
                if d.where and not sizes:
                    raise _err("C2001", d.where[0].span, "a `where` clause states requirements on size "
                               "symbols, and `%s` has none (spec: LS-244)" % d.name)
        finally:
            self.scope = saved
        if is_kernel:
            self.kernels[d.name] = info
        else:
            self.functions[d.name] = info

    def where_clause(self, w):
        """A function's `where` clause (LS-118, Proposed; our reading, docs/language.md): a Bool expression of
        comparisons, `&&`, `||` and `!` whose operands are the size parameters and constant expressions, so that
        it cannot fault and counts no step.  It is checked at the call after `bind.shape` and before
        `bind.alias`; false faults E_SHAPE `bind.where` at the callee name."""
        self.expr(w, BOOL)
        if w.ty != BOOL:
            raise _err("C2002", w.span, "a `where` clause is a Bool condition, not %s" % w.ty)
        self.fold(w)
        self.flush_pending()

        def ok(x):
            if x.cval is not NOTCONST or isinstance(x, (A.IntLit, A.BoolLit)):
                return True
            if isinstance(x, A.Paren):
                return ok(x.inner)
            if isinstance(x, A.Name):
                return x.ref.kind == "sizeparam"
            if isinstance(x, A.Unary) and x.op == "!":
                return ok(x.operand)
            if isinstance(x, A.Binary) and (x.op in CMP_OPS or x.op in LOGIC_OPS):
                return ok(x.left) and ok(x.right)
            raise unsupported(x.span, "this operation in a `where` clause (only comparisons, `&&`, `||` and `!` "
                              "of size parameters and constants)")
        ok(w)

    def check_defaults(self, info):
        """Default arguments (LS-124, LS-125): constant expressions of the parameter's type, evaluated at
        compile time, once, in the callee's module; a call that omits the argument uses the folded value
        and evaluates nothing (no step)."""
        for p in info.params:
            dflt = p.decl.default
            if dflt is None:
                continue
            self.fn = FnCtx(kind="const")
            self.scope = Scope(self.top)
            try:
                if isinstance(p.type, ArrayType):
                    # an `in` array: a constant array (an array literal of constants or a constant array's
                    # name), folded once; an omitted argument binds a read-only view of it (LS-125)
                    self.expr(dflt, p.type)
                    if not isinstance(dflt.ty, ArrayType) or dflt.ty.elem != p.type.elem \
                            or dflt.ty.rank != p.type.rank:
                        raise _err("C2001", dflt.span, "expected %s, found %s" % (p.type, dflt.ty))
                    self.fold(dflt)
                    self.flush_pending()
                    dflt.cval = self.const_array(p.type, dflt)
                else:
                    self.expr(dflt, p.type)
                    self.assignable(p.type, dflt, dflt.span)
                    self.fold(dflt)
                    self.flush_pending()
            finally:
                self.fn = None
                self.scope = self.top
            if dflt.cval is NOTCONST:
                raise _err("C6004", dflt.span, "a default argument is a constant expression (spec: LS-125)")
            dflt.csteps = 0
            dflt.is_default = True      # checked here, in the callee's module; `arg` leaves it alone

    def declare_global(self, g: A.GlobalDecl, is_script):
        d = g.decl
        if d.mode is not None:
            raise _err("C2051", d.span, "a module-level variable cannot be a view")
        if d.type is None:
            return proposed_check.global_var(self, g)      # LS-105 (Proposed), decision 27
        t = self.resolve_type(d.type)
        self.storable(t, d.type.span or d.span)
        if isinstance(t, StrType):
            raise _err("C2051", d.span, "a module-level variable cannot have type Str")
        if isinstance(t, (ArenaType, PoolType)):
            raise _err("C2051", d.type.span or d.span, "a module-level variable cannot be an arena or a pool; "
                       "declare one with a capacity: `Arena(T, N) name;`")
        if isinstance(t, ArrayType) and any(not isinstance(x, int) for x in t.dims):
            raise _err("C6004", d.span, "a module-level array has constant extents")
        sym = Symbol("const" if d.is_const else "global", d.name, t, decl=d, mutable=not d.is_const,
                     module=self.modname, span=d.span)
        if d.init is not None:
            self.fn = FnCtx(kind="const")
            self.scope = Scope(self.top)
            self.expr(d.init, t)
            self.assignable(t, d.init, d.init.span)
            self.fold(d.init)
            self.flush_pending()
            self.fn = None
            self.scope = self.top
            value = d.init.cval if d.init.cval is not NOTCONST else self.const_array(t, d.init)
            if value is NOTCONST:
                raise _err("C6004", d.init.span, "a constant expression is required here",
                           help="this file is a module, not a script, because every top-level item is a declaration")
            sym.value = value
        elif d.is_const:
            raise _err("C1050", d.span, "a constant has an initializer")
        elif not has_zero(t):
            # at the first character of the declaration, its type (LS-278)
            raise _err("C2054", d.type.span if d.type is not None else d.span,
                       "`%s` needs an initializer: %s has no zero value (an error set, or an enum "
                       "without an enumerator of value 0, inside it) (spec: LS-91)" % (d.name, t.name()))
        self.declare(self.top, d.name, sym, d.span)
        if not d.is_const:
            self.globals.append(sym)
