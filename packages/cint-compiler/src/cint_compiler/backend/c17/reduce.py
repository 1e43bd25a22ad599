"""`reduce` statements on cpu-c17 (docs/language.md decision 23); the reference is kernel_reduce.py.

A reduction's accumulator (`cintg_racc`: the number of contributions and an exact 128-bit value) lives in
the dispatching function; the work-item body (`kb_...`) takes a pointer to it in place of the scalar `out`
parameter and adds its contribution with `cintg_reduce_add` (one step; `fold_checked` is checked there).
After the last work-item the dispatch enters its epilogue phase (`cint_gen_dispatch_epilogue`), checks each
reduction in source order with `cintg_reduce_end`, ends the dispatch, and only then stores the values
into the scalar `out` arguments.  Targets and contributions of I8..U64 only (wider ones: C9102).
`cintg_racc`, `cintg_reduce_add` (inline) and `cintg_reduce_end` are runtime C, in
runtime-c/include/cint_rt_prelude.h and src/prelude.c, which every translation unit includes (docs/runtime.md)."""
from __future__ import annotations

from cint_compiler.semantics.reductions import REDUCTIONS, STATEMENT_KINDS
from cint_compiler.semantics.types import ArrayType, IntType
from cint_compiler.backend.c17.common import int_lit, refuse

# the kind numbers of cintg_reduce_add and cintg_reduce_end below: the rows of semantics/reductions.py
KINDS = {k: REDUCTIONS[k].statement for k in STATEMENT_KINDS}


def _narrow(t):
    return isinstance(t, IntType) and t.bits <= 64


def is_target(p) -> bool:
    return p.info == "out" and not isinstance(p.type, ArrayType)


def has_scalar_out(info) -> bool:
    """A kernel with a scalar `out` parameter has no C carrier for it (SPEC-03P.1 7.3 A-13: a scalar crosses
    by value), so its export gets no wrapper and no row (as A-25), and stays callable from cint code."""
    return info.is_kernel and any(is_target(p) for p in info.params)


def _range(em, t):
    return "(cintg_i128)%s" % int_lit(t, t.min), "(cintg_i128)%s" % int_lit(t, t.max)


def _opname(s):
    """The identifier the runtime writes for a fault of reduction s (the kinds that cannot fault pass their
    kind, which it never writes)."""
    if s.form in ("sum", "fold_checked", "min", "max"):
        return REDUCTIONS[s.form].opid(s.elem, s.T) if s.form == "sum" else REDUCTIONS[s.form].opid(s.T)
    return s.form


def s_reduce(em, s, lines):
    """The work-item's contribution: its operand, then one step (the statement's) for `cintg_reduce_add`."""
    if not (_narrow(s.T) and (s.form == "count" or _narrow(s.elem))):
        raise refuse(s.span, "a `reduce` of a type wider than 64 bits")
    x = em.tmp(em.ctype(s.arg.ty, s.arg.span), lines, em.expr(s.arg, lines))
    lo, hi = _range(em, s.T)
    lines.append("if (cintg_reduce_add(ctx, %s, %s, %d, (cintg_i128)%s, %s, %s, %s, \"%s\")) goto fail;" % (
        em.at(s.callee_span), em.vars[s.sym], KINDS[s.form], x, em.tag(s.T), lo, hi, _opname(s)))


def dispatch_accumulators(em, e, name, lines):
    """The accumulators of a dispatch's reductions, by parameter index: C expressions `&<name>_R<k>`."""
    info = e.info
    out = {}
    for r in getattr(info.decl, "reduces", None) or []:
        k = info.params.index(r.sym)
        init = "(cintg_i128)%s" % _range_lit(r.T, r.init) if r.form == "fold_checked" else "0"
        lines.append("cintg_racc %s_R%d = {0, %s};" % (name, k, init))
        out[k] = "&%s_R%d" % (name, k)
    return out


def _range_lit(t, v):
    return int_lit(t, v)


def dispatch_epilogue(em, e, name, lines, end_fail):
    """The epilogue after the last work-item: each reduction's check in source order, phase epilogue; the
    values to store after the dispatch ends, as (place, C value)."""
    info = e.info
    reduces = getattr(info.decl, "reduces", None) or []
    if not reduces:
        return []
    lines.append("cint_gen_dispatch_epilogue(ctx);")
    stores = []
    for r in reduces:
        k = info.params.index(r.sym)
        lo, hi = _range(em, r.T)
        v = em.tmp("uint64_t", lines, "0")
        lines.append("if (cintg_reduce_end(ctx, %s, &%s_R%d, %d, %s, %s, %s, \"%s\", &%s)) %s" % (
            em.at_nostep(r.callee_span), name, k, KINDS[r.form], em.tag(r.T), lo, hi, _opname(r), v, end_fail))
        stores.append((e.argv[k], "cintg_wrap_%s(%s)" % (r.T.token, v)))
    return stores
