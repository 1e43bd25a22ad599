"""Checking of `format(buf, "...")`, `utf8(bytes)` and `swap(a, b)` (SPEC-04P.1 LS-216, LS-217, section 6.8), and the
derivation of Str values (LS-106): which variables' storage a Str views, so that one derived from a local is not
returned (C2051) or kept past the block of its storage (C2051), and is not used after a `swap` or a dispatch of
that storage (LS-253, C5011).

The checker calls the functions here from small hooks; ``ck`` is the Checker. docs/language.md decision 26.
"""

from __future__ import annotations

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.diagnostics import CompileError, unsupported
from cint_compiler.semantics.types import (FORMAT_ERROR, STR, UTF8_ERROR, U8, VOID, ArrayType, ErrorUnionType, StrType)


def _err(code, span, msg):
    return CompileError(code, span, msg)


_unsupported = unsupported  # C9102, worded once in diagnostics.py


def _info(ck):
    d = ck._str_info
    if d is None:
        d = ck._str_info = {}
    return d


def _resolve(ck, sym):
    """The variable whose storage ``sym`` (an array variable, a view variable or a parameter) is."""
    vi = getattr(sym, "info", None)
    root = getattr(vi, "root", None)
    if root is not None and type(vi).__name__ == "ViewInfo":
        return root
    return sym


def array_roots(ck, e):
    """The variables whose storage the array expression ``e`` views (empty for a literal or a temporary)."""
    r = ck.view_root(e)
    if r is None:
        return set()
    sym = r.ref
    if sym.kind == "const":
        return set()
    return {_resolve(ck, sym)}


def str_roots(ck, e):
    """The variables whose storage the Str expression ``e`` views; empty for static storage (a literal)."""
    if isinstance(e, A.Paren):
        return str_roots(ck, e.inner)
    if isinstance(e, A.StrLit):
        return set()
    if isinstance(e, A.Name):
        sym = e.ref
        if sym is None:
            return set()
        ent = _info(ck).get(id(sym))
        if ent is not None:
            return set(ent["roots"])
        if sym.kind == "param":
            return {sym}
        return set()
    if isinstance(e, A.Cond):
        return str_roots(ck, e.then) | str_roots(ck, e.other)
    if isinstance(e, A.Try):
        return str_roots(ck, e.operand)
    if isinstance(e, A.Catch):
        out = str_roots(ck, e.operand)
        if e.value is not None:
            out |= str_roots(ck, e.value)
        return out
    if isinstance(e, A.Call):
        kind = e.kind
        argv = e.argv or []
        if kind == "builtin" and e.bname in ("format", "utf8"):
            return array_roots(ck, argv[0])
        out = set()
        for a in argv:
            t = getattr(a, "ty", None)
            if isinstance(t, StrType):
                out |= str_roots(ck, a)
            elif isinstance(t, ArrayType):
                out |= array_roots(ck, a)
        return out
    return set()


def _scope_depth(ck, sym):
    """How far out from the current scope ``sym`` is declared (0: this scope); None when not found."""
    sc, k = ck.scope, 0
    while sc is not None:
        if any(v is sym for v in sc.names.values()):
            return k
        sc, k = sc.parent, k + 1
    return None


def _check_lifetime(ck, var, roots, span):
    """A Str variable must not view storage whose block ends before the variable's (LS-106, C2051)."""
    dv = _scope_depth(ck, var)
    if dv is None:
        return
    for r in roots:
        if r.kind not in ("local",):
            continue
        dr = _scope_depth(ck, r)
        if dr is not None and dr < dv:
            raise _err("C2051", span, "this Str views `%s`, whose block ends before `%s` is out of scope (spec: LS-106)"
                       % (r.name, var.name))


def declared(ck, sym, init):
    """`Str s = e;`: s views what e views."""
    roots = str_roots(ck, init) if init is not None else set()
    _info(ck)[id(sym)] = {"sym": sym, "roots": roots, "mark": None, "what": None, "declared": ck._view_tick(),
                          "uses": []}


def assigned(ck, place, value):
    """`s = e;` rebinds the Str variable s (LS-107)."""
    if not isinstance(place, A.Name) or place.ref is None:
        return
    sym = place.ref
    roots = str_roots(ck, value)
    _check_lifetime(ck, sym, roots, start_span(value))
    ent = _info(ck).get(id(sym))
    if ent is not None:
        ent["roots"] = roots
        ent["mark"] = None


def used(ck, e, sym):
    """A use of a Str variable: C5011 when a swap or dispatch of the storage it views came between (LS-253)."""
    ent = _info(ck).get(id(sym))
    if ck._str_lhs is e:
        ck._str_lhs = None
        return
    if ent is None:
        return
    if ent["mark"] is not None:
        raise _err("C5011", ent["mark"], "`%s` views `%s`, which this %s, and is used after it (spec: LS-253)"
                   % (sym.name, ent["what"][0], ent["what"][1]))
    ent["uses"].append(ck._view_tick())


def mark(ck, span, written_ids, verb):
    """Mark the Str variables that view one of the variables (ids of resolved symbols) in ``written_ids``."""
    tick = ck._view_tick()
    for ent in _info(ck).values():
        if ent["mark"] is None:
            hit = [r for r in ent["roots"] if id(r) in written_ids]
            if hit:
                ent["mark"] = span
                ent["what"] = (hit[0].name, verb)
                ent["tick"] = tick


def in_loop(ck, start):
    """After a loop body: a Str variable declared before the loop, used in it, and marked in it (LS-253)."""
    for ent in _info(ck).values():
        if ent["mark"] is not None and ent.get("tick", 0) > start and ent["declared"] < start and \
                any(u > start for u in ent["uses"]):
            raise _err("C5011", ent["mark"], "`%s` views `%s`, which this %s, and is used again in the loop "
                       "(spec: LS-253)" % (ent["sym"].name, ent["what"][0], ent["what"][1]))


def check_return(ck, value):
    """A returned Str may view only the function's parameters or static storage (LS-106, LS-217, C2051)."""
    rt = ck.fn.result
    if isinstance(rt, ErrorUnionType):
        rt = rt.value
    if not isinstance(rt, StrType) or not isinstance(getattr(value, "ty", None), StrType):
        return
    bad = [r for r in str_roots(ck, value) if r.kind != "param"]
    if bad:
        r = sorted(bad, key=lambda s: s.name)[0]
        raise _err("C2051", start_span(value), "this Str views `%s`, which is not a parameter of the function: it "
                   "cannot be returned (spec: LS-106, LS-217)" % r.name)


# ---------------------------------------------------------------------------------------------- the built-ins

def builtin(ck, e, name, args):
    if ck.fn is not None and ck.fn.kind == "kernel":
        raise _unsupported(e.span, "`%s` in a kernel" % name)
    ck.knote("C9102", e.span, "calls `%s`" % name)
    if name == "swap":
        return _swap(ck, e, args)
    if len(args) != 2 and name == "format":
        raise _err("C2022", e.span, "`format` takes 2 arguments: a writable U8 view and a string")
    if len(args) != 1 and name == "utf8":
        raise _err("C2022", e.span, "`utf8` takes 1 argument: a U8 view")
    for a in args:
        if not isinstance(a, A.Expr):
            raise _err("C2001", a.span or e.span, "a type is not a value")
    b = args[0]
    ck.expr(b, None)
    if not (isinstance(b.ty, ArrayType) and b.ty.elem == U8 and b.ty.rank == 1):
        raise _err("C2001", start_span(b), "`%s` takes a U8 view of rank 1, not %s" % (name, b.ty))
    if ck.view_root(b) is None:
        if not (isinstance(b, A.StrLit) and b.is_bytes):
            raise _err("C2051", start_span(b), "`%s` views a variable, a parameter, or a part of one; this value "
                       "does not outlive the statement" % name)
    if name == "utf8":
        return ErrorUnionType(UTF8_ERROR, STR)
    if isinstance(b, A.StrLit) or ck.view_root(b).ref.kind == "const":
        raise _err("C2067", start_span(b), "`format` writes into its buffer: a writable U8 view")
    ck.require_writable(b)
    s = args[1]
    if not isinstance(s, A.StrLit) or s.is_bytes:
        raise _err("C2001", start_span(s), "the second argument of `format` is a string literal with holes")
    ck.check_holes(s)
    s.ty = STR
    return ErrorUnionType(FORMAT_ERROR, STR)


def _owned(ck, a, k):
    x = a
    while isinstance(x, A.Paren):
        x = x.inner
    sym = x.ref if isinstance(x, A.Name) else None
    if sym is not None and sym.kind == "param":
        raise _err("C2060", start_span(a), "`swap` exchanges the storage of owned arrays; `%s` is a parameter"
                   % sym.name)
    if sym is None or sym.kind not in ("local", "global") or type(sym.info).__name__ == "ViewInfo" or \
            not isinstance(sym.type, ArrayType):
        raise _err("C2058", start_span(a), "`swap` takes two owned arrays: array variables declared here or at "
                   "module level, not a view, a slice or a value")
    return sym


def _swap(ck, e, args):
    if len(args) != 2:
        raise _err("C2022", e.span, "`swap` takes 2 arguments")
    for a in args:
        if not isinstance(a, A.Expr):
            raise _err("C2001", a.span or e.span, "a type is not a value")
    a, b = args
    ck.expr(a, None)
    ck.expr(b, None)
    sa = _owned(ck, a, 0)
    sb = _owned(ck, b, 1)
    ta, tb = sa.type, sb.type
    if ta.elem != tb.elem or ta.rank != tb.rank:
        raise _err("C2001", start_span(b), "`swap` exchanges arrays of one type: %s and %s" % (ta, tb))
    for x, y in zip(ta.dims, tb.dims):
        if isinstance(x, int) and isinstance(y, int):
            if x != y:
                raise _err("C2012", start_span(b), "`swap` exchanges arrays of one shape: %s and %s" % (ta, tb))
        elif x is not y and x != y:
            raise _unsupported(start_span(b), "`swap` of arrays whose extents only run time knows")
    ck.require_writable(a)
    ck.require_writable(b)
    views_across_swap(ck, e.span, {id(sa), id(sb)})
    return VOID


def views_across_swap(ck, span, written):
    """View and Str variables of either array are C5011 when used after the swap (LS-253)."""
    marks = ck._view_marks
    swaps = ck._swap_spans
    tick = ck._view_tick()
    sc = ck.scope
    while sc is not None:
        for s in sc.names.values():
            vi = s.info
            if type(vi).__name__ == "ViewInfo" and id(vi.root) in written and vi.mark is None:
                vi.mark = span
                swaps.add(id(span))
                marks.append((s, tick))
        sc = sc.parent
    mark(ck, span, written, "swap exchanges")
