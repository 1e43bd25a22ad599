"""Indexing and views (SPEC-04 4.3, 5.1, 7.6).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations


from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import builtins as B
from cint_compiler.semantics.types import (BOOL, I64, VOID, ArrayType, BoolType, EnumType,
                    ErrorSetType, FixedType, IntType, StrType, U8)
from cint_compiler.semantics.types import ArenaType, PoolType

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    ViewInfo,
    Symbol,
    _err,
)
from cint_compiler.check.features import proposed as proposed_check
from cint_compiler.check.features import textops as textops_check
from math import gcd


class ViewChecks:
    # ------------------------------------------------------------------ indexing

    def e_Index(self, e: A.Index, expected):
        rt = proposed_check.subword(self, e)      # `x.byte[k]` and friends (LS-85, Proposed), decision 31
        if rt is not None:
            return rt
        bt = self.expr(e.base, None)
        if isinstance(bt, (ArenaType, PoolType)):
            return self.container_index(e, bt)
        if isinstance(bt, StrType):
            if len(e.items) != 1 or isinstance(e.items[0], A.SliceItem):
                raise unsupported(e.span, "slicing a Str")
            self.expr(e.items[0], I64)
            if e.items[0].ty != I64:
                raise _err("C2001", e.items[0].span, "an index has type I64, not %s" % e.items[0].ty)
            return U8
        if not isinstance(bt, ArrayType):
            raise _err("C2103", e.span, "%s cannot be indexed" % bt)
        if isinstance(e.base, A.Index) and isinstance(e.base.base.ty, ArrayType) and \
                len(e.base.items) < e.base.base.ty.rank:
            raise _err("C2010", e.span, "write m[i, j], not m[i][j]")
        view = False
        for it in e.items:
            if isinstance(it, A.SliceItem):
                view = True
                self.slice_item(it)
                continue
            self.expr(it, I64)
            if it.ty != I64:
                raise _err("C2001", it.span, "an index has type I64, not %s; convert it with `as I64`" % it.ty)
        if len(e.items) > bt.rank:
            raise _err("C2010", e.span, "%d indices for an array of rank %d" % (len(e.items), bt.rank))
        # a slice, or a partial index (LS-65): a view of the remaining dimensions
        e.view = view or len(e.items) < bt.rank
        if not e.view:
            return bt.elem
        return ArrayType(bt.elem, self.slice_dims(bt, e.items))

    # ------------------------------------------------------------------ views (SPEC-04 4.3, 5.1, 7.6)

    @staticmethod
    def slice_fill(lo, hi, inclusive, step, lower, ext):
        """One dimension of a slice (LS-161): the two bounds after omitted ones are filled in, whether they are
        valid, the index of the first element and the element count."""
        if step > 0:
            f = lower if lo is None else lo
            g = (lower + ext - (1 if inclusive else 0)) if hi is None else hi
            end = g + 1 if inclusive else g           # exact: `hi` at the I64 maximum stays a bounds fault
            ok = lower <= f <= end <= lower + ext
            n = (end - f + step - 1) // step if ok else 0
        else:
            f = lower + ext - 1 if lo is None else lo
            g = (lower if inclusive else lower - 1) if hi is None else hi
            end = g - 1 if inclusive else g
            ok = lower - 1 <= end <= f <= lower + ext - 1
            n = (f - end - step - 1) // -step if ok else 0
        return f, g, ok, n

    @staticmethod
    def view_relation(a, b):
        """`identical`, `disjoint` or `overlap` for two views (origin, shape, strides) of one buffer, by the
        tests of SPEC-02 A-5 that LS-70 names: T0 (an empty view), T1 (bounding intervals), T2 (the gcd of the
        strides does not divide the distance of the origins), T3 (exactly the same view)."""
        (oa, sa, ta), (ob, sb, tb) = a, b
        if any(x == 0 for x in sa) or any(x == 0 for x in sb):
            return "disjoint"                                                  # T0

        def interval(o, shape, strides):
            lo = hi = o
            for n, s in zip(shape, strides):
                if s < 0:
                    lo += (n - 1) * s
                else:
                    hi += (n - 1) * s
            return lo, hi

        la, ha = interval(oa, sa, ta)
        lb, hb = interval(ob, sb, tb)
        if ha < lb or hb < la:
            return "disjoint"                                                  # T1
        g = 0
        for shape, strides in ((sa, ta), (sb, tb)):
            for n, s in zip(shape, strides):
                if n > 1:
                    g = gcd(g, abs(s))
        if g > 1 and (oa - ob) % g != 0:
            return "disjoint"                                                  # T2
        if oa == ob and tuple(sa) == tuple(sb) and all(s == t for n, s, t in zip(sa, ta, tb) if n > 1):
            return "identical"                                                 # T3
        return "overlap"

    def slice_item(self, it: A.SliceItem):
        """Type the bounds of one slice position; `by` takes a nonzero constant (C2053)."""
        for b in (it.lo, it.hi):
            if b is not None:
                self.expr(b, I64)
                if b.ty != I64:
                    raise _err("C2001", start_span(b), "a slice bound has type I64, not %s; convert it with "
                               "`as I64`" % b.ty)
                self.fold(b)
        if it.step is not None:
            self.expr(it.step, I64)
            self.fold(it.step)
            if it.step.ty != I64 or it.step.cval is NOTCONST or it.step.cval == 0:
                raise _err("C2053", start_span(it.step), "`by` takes a nonzero constant")

    @staticmethod
    def _view_dim(d):
        """An extent a view type can carry: a constant, a size symbol, or `_` (a run-time extent)."""
        return d if isinstance(d, (int, str)) else None

    def slice_dims(self, bt: ArrayType, items):
        """The extents of a slice or partial index of ``bt``, where they are known at compile time."""
        dims = []
        for d, ext in enumerate(bt.dims):
            if d >= len(items):
                dims.append(self._view_dim(ext))
                continue
            it = items[d]
            if not isinstance(it, A.SliceItem):
                continue
            step = it.step.cval if it.step is not None else 1
            lo = it.lo.cval if it.lo is not None else None
            hi = it.hi.cval if it.hi is not None else None
            if lo is NOTCONST or hi is NOTCONST:
                dims.append(None)
            elif lo is None and hi is None and step == 1:
                dims.append(self._view_dim(ext))
            elif isinstance(ext, int):
                _, _, ok, n = self.slice_fill(lo, hi, it.inclusive, step, 0, ext)
                dims.append(n if ok else None)
            elif lo is not None and hi is not None:
                # the extent is not known: a slice it does not admit faults before its value is used
                end = hi + (1 if it.inclusive else 0) if step > 0 else hi - (1 if it.inclusive else 0)
                span = end - lo if step > 0 else lo - end
                dims.append((span + abs(step) - 1) // abs(step) if span >= 0 else None)
            else:
                dims.append(None)
        return tuple(dims)

    def view_root(self, e):
        """The variable an array expression views (a Name), through fields, indices, slices, parentheses and
        `transpose`/`reverse`; None for a value that is not stored in a variable."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, (A.Index, A.Member)):
                e = e.base
            elif isinstance(e, A.Call) and e.kind == "builtin" and \
                    e.bname in ("transpose", "reverse"):
                e = e.argv[0]
            elif isinstance(e, A.Name):
                return e if e.ref is not None else None
            else:
                return None

    @staticmethod
    def is_readonly_view(sym):
        return isinstance(sym.info, ViewInfo) and sym.info.mode == "in"

    def view_decl(self, d: A.VarDecl):
        """`in T[_] v = e;` or `inout T[_] v = e;`: a view variable (LS-106); no element is copied."""
        if d.type is None:
            raise unsupported(d.span, "`var` declarations")
        t = self.resolve_type(d.type)
        self.storable(t, d.type.span or d.span)
        if not isinstance(t, ArrayType):
            raise unsupported(d.type.span or d.span, "a view variable of type %s (a view here views an array)" % t)
        if d.init is None:
            raise _err("C2050", d.span, "view `%s` needs an initializer: the array it views" % d.name)
        self.expr(d.init, None)
        it = d.init.ty
        if not isinstance(it, ArrayType) or it.elem != t.elem or it.rank != t.rank:
            raise _err("C2001", start_span(d.init), "expected %s, found %s" % (t, it))
        root = self.view_root(d.init)
        if root is None or root.ref.kind not in ("local", "global", "param", "const", "module", "container"):
            raise _err("C2051", start_span(d.init), "a view views a variable, a parameter, or a part of one; "
                       "this value does not outlive the statement")
        if d.mode == "inout":
            self.require_writable(d.init)
        dims = []
        for want, got in zip(t.dims, it.dims):
            if want is None or want == got:
                dims.append(self._view_dim(got))
            elif isinstance(want, int) and isinstance(got, int):
                raise _err("C2012", start_span(d.init), "the shapes do not agree: %s and %s" % (t, it))
            else:
                raise unsupported(d.type.span or d.span, "a view variable whose extent is checked at run time "
                                  "(declare it `_`)")
        self.fold(d.init)
        rsym = root.ref
        if isinstance(rsym.info, ViewInfo):
            rsym = rsym.info.root
        sym = Symbol("local", d.name, ArrayType(t.elem, tuple(dims)), decl=d, mutable=d.mode == "inout",
                     span=d.span)
        sym.info = ViewInfo(d.mode, rsym, self._view_tick())
        d.resolved = sym.type
        d.sym = sym
        self.declare(self.scope, d.name, sym, d.span)

    def _view_tick(self):
        n = self._view_ticks + 1
        self._view_ticks = n
        return n

    def view_used(self, e: A.Name, sym):
        """A use of a view variable: C5011 when a dispatch that writes its array came between (LS-253)."""
        vi = sym.info
        if vi.mark is not None:
            what = "swap exchanges" if id(vi.mark) in self._swap_spans else "dispatch writes"
            raise _err("C5011", vi.mark, "`%s` views `%s`, which this %s, and is used after it "
                       "(spec: LS-253)" % (sym.name, vi.root.name, what))
        vi.uses.append(self._view_tick())

    def views_across_dispatch(self, e, info, args):
        """Mark the view variables in scope that view an `out` or `inout` argument of a dispatch (LS-253)."""
        written = set()
        for p, a in zip(info.params, args):
            if p.info in ("out", "inout"):
                r = self.view_root(a)
                if r is not None:
                    s = r.ref
                    written.add(id(s.info.root if isinstance(s.info, ViewInfo) else s))
        if not written:
            return
        if self._str_info:
            textops_check.mark(self, e.span, written, "dispatch writes")
        marks = self._view_marks
        sc = self.scope
        tick = self._view_tick()
        while sc is not None:
            for s in sc.names.values():
                if isinstance(s.info, ViewInfo) and id(s.info.root) in written and s.info.mark is None:
                    s.info.mark = e.span
                    marks.append((s, tick))
            sc = sc.parent

    def view_iterated(self, it):
        """`for x in v`: the view ``v`` is used by every iteration, so a dispatch in the body that writes its
        array is C5011 (LS-253)."""
        r = self.view_root(it)
        if r is not None and isinstance(r.ref.info, ViewInfo) and r.ref.info.mark is not None:
            vi = r.ref.info
            raise _err("C5011", vi.mark, "`%s` views `%s`, which this dispatch writes, while a loop iterates it "
                       "(spec: LS-253)" % (r.ref.name, vi.root.name))

    def views_in_loop(self, start):
        """After a loop body: a view variable declared before the loop and used in it is live across a dispatch
        in the body that writes its array (LS-253)."""
        if self._str_info:
            textops_check.in_loop(self, start)
        for s, tick in self._view_marks:
            vi = s.info
            if tick > start and vi.declared < start and any(u > start for u in vi.uses):
                raise _err("C5011", vi.mark, "`%s` views `%s`, which this dispatch writes, and is used again in "
                           "the loop (spec: LS-253)" % (s.name, vi.root.name))

    def static_view(self, e):
        """(path, origin, shape, strides) of an array expression whose elements are known at compile time,
        relative to the variable or field ``path`` names; None otherwise."""
        if isinstance(e, A.Paren):
            return self.static_view(e.inner)
        if isinstance(e, A.Index) and e.view:
            base = self.static_view(e.base)
            if base is None:
                return None
            path, origin, shape, strides = base
            out_shape, out_strides = [], []
            for d, (n, s) in enumerate(zip(shape, strides)):
                if d >= len(e.items):
                    out_shape.append(n)
                    out_strides.append(s)
                    continue
                it = e.items[d]
                if isinstance(it, A.SliceItem):
                    lo, hi = (self._const_of(b) for b in (it.lo, it.hi))
                    if lo is NOTCONST or hi is NOTCONST:
                        return None
                    step = it.step.cval if it.step is not None else 1
                    f, _, ok, k = self.slice_fill(lo, hi, it.inclusive, step, 0, n)
                    if not ok:
                        return None
                    origin += f * s if k else 0
                    out_shape.append(k)
                    out_strides.append(s * step)
                else:
                    i = self._const_of(it)
                    if i is NOTCONST or i is None or not 0 <= i < n:
                        return None
                    origin += i * s
            return path, origin, tuple(out_shape), tuple(out_strides)
        if isinstance(e, A.Call) and e.kind == "builtin" and \
                e.bname in ("transpose", "reverse"):
            base = self.static_view(e.argv[0])
            if base is None:
                return None
            path, origin, shape, strides = base
            if e.bname == "transpose":
                return path, origin, shape[::-1], strides[::-1]
            d = e.dim
            strides = list(strides)
            if shape[d]:
                origin += (shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
            return path, origin, shape, tuple(strides)
        path = self.place_path(e)
        t = e.ty
        if path is None or not isinstance(t, ArrayType) or not all(isinstance(x, int) for x in t.dims):
            return None
        if isinstance(e, A.Name) and t.rank > 1 and (e.ref.kind == "param" or isinstance(e.ref.info,
                                                                                          ViewInfo)):
            return None     # a parameter or view variable of rank 2 or more may have any layout
        strides, acc = [], 1
        for n in reversed(t.dims):
            strides.append(acc)
            acc *= n
        return path, 0, tuple(t.dims), tuple(reversed(strides))

    def _const_of(self, e):
        if e is None:
            return None
        if e.cval is NOTCONST and self.is_const(e):
            self.fold(e)
        return e.cval if isinstance(e.cval, int) and not isinstance(e.cval, bool) else NOTCONST

    @staticmethod
    def _offsets(v, limit=1 << 16):
        origin, shape, strides = v[1:]
        total = 1
        for n in shape:
            total *= n
        if total > limit:
            return None
        out = {origin}
        for n, s in zip(shape, strides):
            out = {o + i * s for o in out for i in range(n)} if n else set()
        return out

    def copy_alias_static(self, dst, src, span):
        """C5010 when the destination and source of a copy are views of one variable that the tests of LS-70
        cannot prove disjoint and that are not the same view."""
        a, b = self.static_view(dst), self.static_view(src)
        if a is None or b is None or a[0] != b[0]:
            return
        if self.view_relation(a[1:], b[1:]) == "overlap":
            raise _err("C5010", span, "the source and destination of this copy overlap: they share elements of "
                       "one array and are not the same view (spec: LS-70)",
                       help="copy through storage the program declares")

    def view_path(self, e):
        """The variable and field path of the array that a view expression views, or None."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, A.Index) and e.view:
                e = e.base
            elif isinstance(e, A.Call) and e.kind == "builtin" and \
                    e.bname in ("transpose", "reverse"):
                e = e.argv[0]
            else:
                return self.place_path(e)

    def views_overlap_static(self, a, b):
        """Whether two arguments, one of them a view, are known to share an element (LS-121): views of one
        array whose elements are known, or a view of an array field of a struct that is the other argument."""
        x, y = self.view_path(a), self.view_path(b)
        if x is not None and y is not None and x != y and (x[:len(y)] == y or y[:len(x)] == x):
            inner = a if len(x) > len(y) else b
            v = self.static_view(inner)
            return v is not None and all(n > 0 for n in v[2])     # otherwise checked at entry (E_ALIAS)
        if not (isinstance(a.ty, ArrayType) and isinstance(b.ty, ArrayType)):
            return False
        x, y = self.static_view(a), self.static_view(b)
        if x is None or y is None or x[0] != y[0]:
            return False
        ox, oy = self._offsets(x), self._offsets(y)
        return ox is not None and oy is not None and bool(ox & oy)

    def array_builtin(self, e, name, args):
        """extent, size, lower, copy, fill, equal, transpose and reverse (LS-145)."""
        arity = B.BUILTINS[name].arity[0]
        if len(args) != arity:
            raise _err("C2022", e.span, "`%s` takes %d argument%s" % (name, arity, "s" if arity > 1 else ""))
        for a in args:
            if not isinstance(a, A.Expr):
                raise _err("C2001", a.span or e.span, "a type is not a value")
        a0 = args[0]
        self.expr(a0, None)
        t = a0.ty
        if not isinstance(t, ArrayType):
            raise _err("C2103", e.span, "`%s` takes an array or a view, not %s" % (name, t))
        if name in ("extent", "lower", "reverse"):
            d = args[1]
            self.expr(d, I64)
            if d.ty != I64:
                raise _err("C2001", start_span(d), "a dimension has type I64, not %s" % d.ty)
            self.fold(d)
            if d.cval is NOTCONST:
                raise _err("C6004", start_span(d), "the dimension argument of `%s` is a constant" % name)
            if not 0 <= d.cval < t.rank:
                raise _err("C2014", start_span(d), "an array of rank %d has no dimension %d" % (t.rank, d.cval))
            e.dim = d.cval
            if name == "reverse":
                return ArrayType(t.elem, tuple(self._view_dim(x) for x in t.dims))
            return I64
        if name == "size":
            return I64
        if name == "transpose":
            if t.rank != 2:
                raise _err("C2014", e.span, "`transpose` takes an array or view of rank 2, not %d" % t.rank)
            return ArrayType(t.elem, (self._view_dim(t.dims[1]), self._view_dim(t.dims[0])))
        if name in ("copy", "fill"):
            if self.view_root(a0) is None:
                raise _err("C2058", start_span(a0), "the destination of `%s` is an array variable or a view of one"
                           % name)
            self.require_writable(a0)
        if name == "fill":
            v = args[1]
            self.expr(v, t.elem)
            self.assignable(t.elem, v, v.span)
            self.fold(v)
            return VOID
        b = args[1]
        self.expr(b, t)
        if not (isinstance(b.ty, ArrayType) and b.ty.elem == t.elem and b.ty.rank == t.rank):
            raise _err("C2001", start_span(b), "expected an array of %s of rank %d, found %s" % (t.elem, t.rank, b.ty))
        if name == "equal":
            if not isinstance(t.elem, (IntType, FixedType, BoolType, EnumType, ErrorSetType)):
                raise _err("C2103", e.span, "`equal` compares arrays whose elements have `==`, not %s" % t.elem)
            return BOOL
        self.check_shapes(t, b.ty, start_span(b))
        self.copy_alias_static(a0, b, start_span(b))
        return VOID
