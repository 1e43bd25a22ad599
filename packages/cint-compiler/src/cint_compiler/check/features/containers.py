"""Checker rules of arenas, pools and handles (docs/notes/arenas-pools.md, docs/language.md decision 24).

:class:`ContainerChecks` is a mixin of :class:`cint_compiler.checker.Checker`: module-level container
declarations (``Arena(T, N) name;`` / ``Pool(T, N) name;``), the types ``Arena(T)``, ``Pool(T)``,
``Handle(T[])`` and ``Handle(T)``, the member calls alloc / alloc_result / child / reset / insert /
insert_result / remove, and indexing ``a[h]`` / ``p[h]``.  It annotates the tree for the reference
executor (:mod:`cint_compiler.containers`):

* a container Symbol has kind ``container``, type ArenaType/PoolType and ``value`` = (kind, id);
* a member call gets ``kind = "mem"``, ``mop`` (the operation name), ``mrecv`` (the receiver) and
  ``margs`` (the argument expressions);
* ``a[h]`` gets ``ckind = "arena"`` and type ``T[_]`` (a view); ``p[h]`` gets ``ckind = "pool"`` and
  type T (a place).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.diagnostics import CompileError
from cint_compiler.semantics.types import (ALLOC_ERROR, I64, VOID, ArenaType, ArrayType, ErrorUnionType, HandleType, PoolType, StrType,
                    TupleType)
from cint_compiler.check.symbols import FnCtx, Scope, Symbol
from cint_compiler.check.symbols import ViewInfo

ARENA_OPS = ("alloc", "alloc_result", "child", "reset")
POOL_OPS = ("insert", "insert_result", "remove")
MEMORY_TYPES = (ArenaType, PoolType, HandleType)


def _err(code, span, msg):
    return CompileError(code, span, msg)


@dataclass
class ContainerInfo:
    """A module-level arena or pool as the checker declares it (ids count from 1 per kind, in order)."""

    kind: str          # 'arena' or 'pool'
    id: int
    name: str
    qname: str
    elem: object       # Type
    capacity: int
    decl: object = field(default=None, repr=False)


def mentions_memory(t) -> bool:
    """Whether type ``t`` is or holds an arena, a pool or a handle (struct fields, arrays, error unions)."""
    seen = set()

    def walk(x):
        if isinstance(x, MEMORY_TYPES):
            return True
        if isinstance(x, ArrayType):
            return walk(x.elem)
        if isinstance(x, ErrorUnionType):
            return walk(x.value)
        if isinstance(x, TupleType):
            return any(walk(i) for i in x.items)
        fields = getattr(x, "fields", None)
        qn = getattr(x, "qname", None)
        if fields and qn is not None and qn not in seen:
            seen.add(qn)
            return any(walk(ft) for _, ft, _ in fields)
        return False
    return walk(t)


class ContainerChecks:
    """Mixin of Checker (see the module docstring)."""

    # ------------------------------------------------------------ declarations and types

    def declare_containers(self, items):
        """Pass 2: every ``Arena(T, N) x;`` / ``Pool(T, N) x;`` of the module, numbered per kind in declaration
        order; the capacity is a constant I64 (C6004) that is not negative (C6006), both at the expression."""
        counts = {"arena": 0, "pool": 0}
        for it in items:
            if not isinstance(it, A.ContainerDecl):
                continue
            for a in it.attrs:
                raise _err("C9102", a.span, "the attribute @%s on an arena or pool is not supported" % a.name)
            elem = self.resolve_type(it.elem)
            self.container_elem_ok(elem, it.elem.span or it.span)
            saved_fn, saved_scope = self.fn, self.scope
            self.fn = FnCtx(kind="const")
            self.scope = Scope(self.top)
            cap = it.capacity
            try:
                try:
                    self.expr(cap, I64)
                except CompileError as ce:
                    if ce.code in ("C3005", "C3004", "C5025"):
                        raise
                    raise _err("C6004", start_span(cap), "the capacity of an arena or pool is a constant I64 "
                               "expression") from None
                if cap.ty != I64:
                    raise _err("C2001", start_span(cap), "a capacity has type I64, not %s" % cap.ty)
                self.fold(cap)
                self.flush_pending()
            finally:
                self.fn, self.scope = saved_fn, saved_scope
            if cap.cval is NOTCONST or not isinstance(cap.cval, int):
                raise _err("C6004", start_span(cap), "the capacity of %s `%s` is not a constant expression"
                           % (it.kind, it.name))
            if cap.cval < 0:
                raise _err("C6006", start_span(cap), "the capacity of %s `%s` is %d: a capacity is not negative"
                           % (it.kind, it.name, cap.cval))
            counts[it.kind] += 1
            t = ArenaType(elem) if it.kind == "arena" else PoolType(elem)
            info = ContainerInfo(it.kind, counts[it.kind], it.name, "%s.%s" % (self.modname, it.name), elem,
                                 cap.cval, it)
            sym = Symbol("container", it.name, t, decl=it, module=self.modname, span=it.span)
            sym.value = (it.kind, info.id)
            sym.info = info
            self.declare(self.top, it.name, sym, it.span)
            self.containers.append(info)

    def container_elem_ok(self, elem, span):
        if isinstance(elem, (ArenaType, PoolType, StrType, ArrayType, ErrorUnionType, TupleType)) or elem is VOID:
            raise _err("C2001", span, "the element of an arena, pool or handle is a value type, not %s" % elem)

    def container_type(self, te):
        """``Arena(T)``, ``Pool(T)``, ``Handle(T[])``, ``Handle(T)`` (resolve_type)."""
        text = te.text
        args = te.type_args
        if not args:
            raise _err("C2001", te.span, "`%s` takes an element type: `%s(T)`" % (text, text))
        if te.capacity is not None:
            raise _err("C4012", te.span, "`%s(T, N)` declares a module-level %s; a type is written `%s(T)`"
                       % (text, text.lower(), text))
        if self.fn is not None and self.fn.kind == "kernel":
            raise _err("C9102", te.span, "a kernel cannot use arenas, pools or handles (docs/language.md decision 24)")
        a = args[0]
        if text == "Handle":
            if isinstance(a, A.ArrayTypeExpr):
                if len(a.dims) != 1 or not a.dims[0].any:
                    raise _err("C2001", a.span or te.span, "a run handle is written `Handle(T[])`")
                elem = self.resolve_type(a.elem)
                self.container_elem_ok(elem, a.span or te.span)
                return HandleType(elem, True)
            elem = self.resolve_type(a)
            self.container_elem_ok(elem, a.span or te.span)
            return HandleType(elem, False)
        elem = self.resolve_type(a)
        self.container_elem_ok(elem, a.span or te.span)
        return ArenaType(elem) if text == "Arena" else PoolType(elem)

    def memory_in_kernel(self, span):
        if self.fn is not None and self.fn.kind == "kernel":
            raise _err("C5025", span, "a kernel cannot use arenas, pools or handles (docs/language.md decision 24)")
        self.knote("C5025", span, "uses an arena or pool")

    # ------------------------------------------------------------ member calls

    def container_receiver(self, c):
        """The type of ``c.base`` when the callee ``c`` is a member call on an arena or pool, else None (without
        typing anything that is not one)."""
        b = c.base
        if isinstance(b, A.Name):
            sym = self.scope.lookup(b.ident)
            if sym is None or not isinstance(sym.type, (ArenaType, PoolType)):
                return None
        self.expr(b, None)
        return b.ty if isinstance(b.ty, (ArenaType, PoolType)) else None

    def _receiver_sym(self, b):
        while isinstance(b, A.Paren):
            b = b.inner
        return b.ref if isinstance(b, A.Name) and b.ref is not None else None

    def container_call(self, e: A.Call, rt):
        c = e.callee
        name = c.name
        self.memory_in_kernel(c.span)
        is_arena = isinstance(rt, ArenaType)
        ops = ARENA_OPS if is_arena else POOL_OPS
        if name not in ops:
            raise _err("C3005", c.span, "%s has no operation `%s` (%s)" % (rt, name, ", ".join(ops)))
        for a in e.args:
            if a.name is not None or not isinstance(a.value, A.Expr):
                raise _err("C2022", a.span or c.span, "`%s` takes positional value arguments" % name)
        want = 0 if name == "reset" else 1
        if len(e.args) != want:
            raise _err("C2022", c.span, "`%s` takes %d argument%s" % (name, want, "" if want == 1 else "s"))
        sym = self._receiver_sym(c.base)
        if sym is not None and sym.kind == "param" and sym.info == "in":
            raise _err("C2067", start_span(c.base), "`%s` changes %s `%s`, an `in` parameter; declare it `inout`"
                       % (name, "arena" if is_arena else "pool", sym.name))
        args = [a.value for a in e.args]
        T = rt.elem
        if name in ("alloc", "alloc_result", "child"):
            n = args[0]
            self.expr(n, I64)
            if n.ty != I64:
                raise _err("C2001", start_span(n), "`%s` takes an I64 element count, not %s" % (name, n.ty))
            self.fold(n)
            res = {"alloc": HandleType(T, True), "alloc_result": ErrorUnionType(ALLOC_ERROR, HandleType(T, True)),
                   "child": ArenaType(T)}[name]
        elif name == "reset":
            self.reset_marks_views(sym, c.span)
            res = VOID
        elif name in ("insert", "insert_result"):
            v = args[0]
            self.expr(v, T)
            self.assignable(T, v, v.span)
            self.fold(v)
            res = HandleType(T, False) if name == "insert" else ErrorUnionType(ALLOC_ERROR, HandleType(T, False))
        else:   # remove
            h = args[0]
            self.expr(h, None)
            if h.ty != HandleType(T, False):
                raise _err("C2001", start_span(h), "`remove` on %s takes Handle(%s), not %s" % (rt, T, h.ty))
            res = VOID
        e.kind = "mem"
        e.mop = name
        e.mrecv = c.base
        e.margs = args
        return res

    def reset_marks_views(self, sym, span):
        """C5011 (conservative, within one function): a view variable derived from this arena, or from an arena
        local (a child arena may descend from it), is not used after the reset."""
        s = self.scope
        while s is not None and s is not self.top:
            for vs in s.names.values():
                vi = vs.info if isinstance(getattr(vs, "info", None), ViewInfo) else None
                if vi is None or vi.mark is not None or not isinstance(vi.root.type, ArenaType):
                    continue
                if vi.root is sym or vi.root.kind in ("local", "param"):
                    vi.mark = span
            s = s.parent

    # ------------------------------------------------------------ indexing

    def container_index(self, e: A.Index, bt):
        self.memory_in_kernel(e.span)
        if len(e.items) != 1 or isinstance(e.items[0], A.SliceItem):
            raise _err("C2010", e.span, "%s is indexed by one handle: `x[h]`" % bt)
        h = e.items[0]
        self.expr(h, None)
        is_arena = isinstance(bt, ArenaType)
        want = HandleType(bt.elem, is_arena)
        if h.ty != want:
            raise _err("C2001", start_span(h), "%s is indexed by %s, not %s" % (bt, want, h.ty))
        e.view = False
        if is_arena:
            e.ckind = "arena"
            return ArrayType(bt.elem, (None,))
        e.ckind = "pool"
        return bt.elem


def first_memory_construct(modules):
    """The span of the first arena or pool declaration, or of the first ``Arena``/``Pool``/``Handle`` type, in
    the modules (dependencies first, each in source order); None when there is none.  cpu-c17 refuses such
    a program with C9102 there (docs/status.md)."""
    for m in modules:
        best = None
        for n in A.descendants(m):
            sp = None
            if isinstance(n, A.ContainerDecl):
                sp = n.type_span or n.span
            elif isinstance(n, A.TypeName) and n.text in ("Arena", "Pool", "Handle"):
                sp = n.span
            if sp is not None and (best is None or (sp.line, sp.column) < (best.line, best.column)):
                best = sp
        if best is not None:
            return best
    return None
