"""Kernel admissibility (LS-250) and dispatch.

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (ArrayType, StructType, U8)
from cint_compiler.semantics.types import SymExtent

from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    ViewInfo,
    Symbol,
    _err,
)
from cint_compiler.check.features.reduce import out_arg


class KernelChecks:
    # -------------------------------------------------------------- kernel admissibility (LS-250)

    def knote(self, code, span, what):
        """A function body breaks the LS-250 restriction `code`: the first such fact makes it not
        kernel-admissible (a kernel itself raises its own C5020..C5025 where it checks them)."""
        if self.fn is not None and self.fn.kind == "func" and self.fn.kviol is None:
            self.fn.kviol = (code, span, what)

    def kernel_write_rule(self, place, root):
        """LS-248: a write to a kernel's `out` or `inout` array has the `over` variables, in order, as its
        leading indices (further indices address the work-item's owned block); anything else is C5031 at
        the write place."""
        sym = root.ref
        if sym is None or sym.kind != "param" or sym.info not in ("out", "inout") \
                or not isinstance(sym.type, ArrayType):
            return
        items = []
        x = place
        while isinstance(x, A.Index):
            items[:0] = list(x.items)
            x = x.base
        over = self.fn.info.over
        ok = x is root and len(items) >= len(over)
        for ov, it in zip(over, items):
            ref = it.ref if isinstance(it, A.Name) else None
            if ref is not ov and not (ref is not None and ref.kind == "overvar" and ref.name == ov.name):
                ok = False
        if not ok:
            raise _err("C5031", start_span(place), "a write to the kernel's `%s` parameter `%s` has the `over` "
                       "variables %s, in order, as its leading indices: it may write only the work-item's "
                       "own block (spec: LS-248)" % (sym.info, sym.name, ", ".join(ov.name for ov in over)))

    def kernel_coverage(self, info, body):
        """LS-248: every element of an `out` array's owned block is written on every path that completes.
        Established by two patterns only: a write at the `over` variables alone, reached on every path
        (an `if` covers when both branches do), and a write whose further indices are the variables of
        enclosing `for v in 0..E` loops, E the extent of that dimension, without `break` or `continue`.
        Anything else is C5031 at the first write of the array (at the parameter when it has none)."""
        outs = [p for p in info.params if p.info == "out" and isinstance(p.type, ArrayType)]
        if not outs:
            return
        nover = len(info.over)
        first = {}

        def jumps(x):
            if isinstance(x, (A.Break, A.Continue)):
                return True
            return any(jumps(y) for y in vars(x).values() for y in (y if isinstance(y, list) else [y])
                       if isinstance(y, A.Stmt))

        def written(place, loops):
            x = place
            items = []
            while isinstance(x, A.Index):
                items[:0] = list(x.items)
                x = x.base
            sym = x.ref if isinstance(x, A.Name) else None
            if sym not in outs:
                return None
            first.setdefault(sym, start_span(place))
            deps = set()
            for k, it in enumerate(items[nover:]):
                dim = sym.type.dims[nover + k] if nover + k < sym.type.rank else None
                ref = it.ref if isinstance(it, A.Name) else None
                if ref is None or ref not in loops or ref in deps or dim is None or loops[ref] != dim:
                    return None
                deps.add(ref)
            if len(items) != sym.type.rank:
                return None
            return (sym, frozenset(deps))

        def done(cur):
            return {t[0] for t in cur if not t[1]}

        def cov(x, cur, loops):
            if cur is None:
                return None
            if isinstance(x, A.Block):
                for y in x.stmts:
                    cur = cov(y, cur, loops)
                return cur
            if isinstance(x, (A.Assign, A.IncDec)):
                t = written(x.place, loops)
                return cur | {t} if t is not None else cur
            if isinstance(x, A.If):
                a = cov(x.then, cur, loops)
                b = cov(x.other, cur, loops) if x.other is not None else cur
                return b if a is None else a if b is None else a & b
            if isinstance(x, A.ForRange):
                hi = x.hi
                key = hi.ref.name if isinstance(hi, A.Name) and getattr(hi.ref, "kind", None) == "sizeparam" \
                    else hi.value if isinstance(hi, A.IntLit) else None
                sym = x.sym
                if sym is None or key is None or x.inclusive or x.step is not None \
                        or not (isinstance(x.lo, A.IntLit) and x.lo.value == 0) or jumps(x.body):
                    cov(x.body, set(), loops)
                    return cur
                inner = cov(x.body, set(), {**loops, sym: key})
                if inner is None:
                    return cur
                return cur | {(t[0], t[1] - {sym}) for t in inner if sym in t[1]}
            if isinstance(x, (A.While, A.DoWhile, A.ForC, A.ForEach)):
                cov(x.body, set(), loops)
                return cur
            if isinstance(x, A.Switch):
                for c in x.cases:
                    cov(A.Block(c.body), set(), loops)
                if x.default is not None:
                    cov(A.Block(x.default), set(), loops)
                return cur
            if isinstance(x, A.Return):
                missing = [p for p in outs if p not in done(cur)]
                if missing:
                    raise _err("C5031", x.span, "this return completes the work-item before every element of "
                               "its block of `%s` is written (spec: LS-248)" % missing[0].name)
                return None
            if isinstance(x, (A.Break, A.Continue)):
                return None
            return cur

        end = cov(body, set(), {})
        if end is None:
            return
        for p in outs:
            if p not in done(end):
                raise _err("C5031", first.get(p, p.span), "the kernel does not write every element of its block "
                           "of `out` parameter `%s` on every path that completes (spec: LS-248)" % p.name)

    def kernel_call_args(self, info, args):
        """A kernel's `out` and `inout` arrays are written only by the kernel body at its own index tuple
        (LS-248): passing one to a called function is refused."""
        for p, a in zip(info.params, args):
            if not isinstance(a.ty, ArrayType):
                continue
            r = self.view_root(a)
            sym = r.ref if r is not None else None
            if sym is not None and isinstance(sym.info, ViewInfo):
                sym = getattr(sym.info.root, "ref", sym.info.root)
            if sym is not None and sym.kind == "param" and sym.info in ("out", "inout"):
                span = start_span(a) if isinstance(a, A.Index) else a.span
                if p.info == "inout":
                    raise _err("C5031", span, "a called function cannot write the kernel's `%s` parameter `%s`: "
                               "writes go to the work-item's own element (spec: LS-248)" % (sym.info, sym.name))
                raise unsupported(span, "passing a kernel's `%s` parameter to a function" % sym.info)

    def kernel_call_verdict(self, info, e, final=False) -> bool:
        """Whether the call `e` from a kernel to `info` could be judged: raises C5024 when `info` is not
        kernel-admissible (it, or a function it calls, breaks a restriction of LS-250) and C5026 when the
        call leads into recursion. False while some function it reaches is not checked yet."""
        state = {}

        def visit(f, chain):
            if not f.kchecked:
                return "pending"
            k = id(f)
            if state.get(k) == 1:
                return ("C5026", chain)
            if state.get(k) == 2:
                return None
            state[k] = 1
            if f.kviol is not None:
                return ("C5024", chain)
            for g, _ in f.kcalls:
                r = visit(g, chain + [g])
                if r is not None:
                    return r
            state[k] = 2
            return None

        r = visit(info, [info])
        if r == "pending":
            if final:
                raise unsupported(e.span, "a call from a kernel to a function that is not checked yet")
            return False
        if r is None:
            return True
        code, chain = r
        names = " -> ".join("`%s`" % f.decl.name for f in chain)
        if code == "C5026":
            raise _err("C5026", e.span, "a kernel cannot recurse: the call of `%s` leads into recursion (%s)"
                       % (info.decl.name, names))
        last = chain[-1]
        vcode, vspan, what = last.kviol
        raise _err("C5024", e.span, "a kernel cannot call `%s`: it is not kernel-admissible, since %s %s at %d:%d "
                   "(%s) (spec: LS-250)" % (info.decl.name, names if len(chain) > 1 else "it", what, vspan.line,
                                     vspan.column, vcode))

    def arg(self, p: Symbol, a):
        if a.is_default:
            return
        pt = p.type
        if isinstance(pt, ArrayType) and isinstance(a, A.StrLit) and pt.elem == U8 \
                and pt.rank == 1 and p.info not in ("inout", "out"):
            # a string or byte-string literal binds an `in U8[...]` parameter as a read-only view of its
            # bytes (SPEC-09 BOOT-02), with its static extent
            self.expr(a, None)
            data = b"".join(x.encode("utf-8") if isinstance(x, str) else x for x in a.parts)
            a.ty = ArrayType(U8, (len(data),))
            a.as_view = True
            return
        if isinstance(pt, ArrayType):
            self.expr(a, None)
            if not isinstance(a.ty, ArrayType) or a.ty.elem != pt.elem or a.ty.rank != pt.rank:
                raise _err("C2001", a.span, "expected %s, found %s" % (pt, a.ty))
            if p.info in ("inout", "out"):
                self.require_writable(a)
            return
        if p.info == "out":         # a kernel's scalar `out`: the variable its `reduce` publishes into
            out_arg(self, p, a)
            return
        self.expr(a, pt)
        self.assignable(pt, a, a.span)
        if p.info == "inout":
            self.require_writable(a)
        self.fold(a)

    def static_entry_checks(self, e, info, args):
        """What the entry checks of a call decide at compile time: C2012 (shape) and C5010 (alias)."""
        bound = {}
        for p, a in zip(info.params, args):
            if isinstance(p.type, ArrayType) and isinstance(a.ty, ArrayType):
                aspan = start_span(a) if isinstance(a, A.Index) else a.span      # a slice: its first character
                for spec, ext in zip(p.type.dims, a.ty.dims):
                    if isinstance(spec, str) and isinstance(ext, int):
                        if spec in bound and bound[spec] != ext:
                            raise _err("C2012", aspan, "size `%s` is bound to %d and %d" % (spec, bound[spec], ext))
                        bound.setdefault(spec, ext)
                    elif isinstance(spec, int) and isinstance(ext, int) and spec != ext:
                        raise _err("C2012", aspan, "extent %d where %d is expected" % (ext, spec))
        for p, a in zip(info.params, args):     # the second pass: computed extents (SPEC-02 K-6)
            if isinstance(p.type, ArrayType) and isinstance(a.ty, ArrayType):
                aspan = start_span(a) if isinstance(a, A.Index) else a.span
                for spec, ext in zip(p.type.dims, a.ty.dims):
                    if isinstance(spec, SymExtent) and isinstance(ext, int) and spec.sym in bound \
                            and bound[spec.sym] + spec.off != ext:
                        raise _err("C2012", aspan, "extent %d where %s = %d is expected (%s = %d)"
                                   % (ext, spec, bound[spec.sym] + spec.off, spec.sym, bound[spec.sym]))
        paths = [self.place_path(a) for a in args]
        for i, (p, a) in enumerate(zip(info.params, args)):
            if p.info not in ("inout", "out") or paths[i] is None:
                continue
            for j, q in enumerate(paths):
                if j == i or q is None:
                    continue
                x, y = paths[i], q
                if x[:len(y)] == y or y[:len(x)] == x:
                    later = args[max(i, j)]
                    raise _err("C5010", start_span(later), "a written argument overlaps another argument of the call")
        for i, (p, a) in enumerate(zip(info.params, args)):
            if p.info not in ("inout", "out"):
                continue
            for j, b in enumerate(args):
                if j != i and self.views_overlap_static(a, b):
                    raise _err("C5010", start_span(args[max(i, j)]), "a written argument shares elements with "
                               "another argument of the call (spec: LS-121)")

    def place_path(self, a):
        """The variable and field path an argument names, when it names a whole variable or field."""
        if isinstance(a, A.Paren):
            return self.place_path(a.inner)
        if isinstance(a, A.Name) and a.ref is not None and a.ref.kind in ("local", "global",
                                                                                             "param"):
            if not isinstance(a.ty, (ArrayType, StructType)):
                return None
            return (id(a.ref),)
        if isinstance(a, A.Member) and a.mkind == "field":
            base = self.place_path(a.base)
            return None if base is None else base + (a.name,)
        return None

    def require_writable(self, a):
        self.note_gwrite(a)
        root = a
        while isinstance(root, (A.Index, A.Member, A.Paren)):
            root = root.base if not isinstance(root, A.Paren) else root.inner
        root = self.view_root(root) or root
        span = a.span
        if isinstance(a, (A.Index, A.Call)):
            span = start_span(a)          # a slice or a view: its first character (LS-278)
        if isinstance(root, A.Name) and self.is_readonly_view(root.ref):
            raise _err("C2067", span, "a read-only view cannot be bound to a writable parameter or view")
        if isinstance(root, A.Name) and root.ref.kind in ("param",) and root.ref.info == "in":
            raise _err("C2067", span, "a read-only argument cannot be bound to a writable parameter")
        if isinstance(root, A.Name) and root.ref.kind == "const":
            raise _err("C2067", span, "a constant cannot be bound to a writable parameter")
        if isinstance(root, A.StrLit):
            raise _err("C2067", span, "a literal is read-only: it cannot be bound to a writable parameter; "
                       "declare an array initialized from it and pass that")
        if self.foreign(root):
            raise _err("C2067", a.span, "a module variable of an imported module cannot be bound to a writable "
                       "parameter (spec: LS-227)")
