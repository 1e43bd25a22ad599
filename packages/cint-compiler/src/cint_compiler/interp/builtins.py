"""Built-in calls on the reference executor cpu-sir-interp: one handler per row of semantics/builtins.py.

``IMPL`` is this executor's registry; :func:`run` dispatches a checked call by its row's name (``e.bname``).
Most handlers take the evaluated arguments: :func:`run` evaluates them in order (a rounding mode and
fold_checked's operation name are not values), re-checks the handle of a view of arena storage (M-23),
counts the call's step, runs the handler and positions a fault at the callee name with that step.  The
handlers registered ``own=True`` evaluate their arguments themselves (the shape queries, `len`, the text
operations, `offset`).  ``ev`` is the Evaluator (interp/context.py)."""
from __future__ import annotations

from cint_compiler.syntax import tree as A
from cint_compiler.semantics import builtins as B
from cint_compiler.semantics import intmachine as M
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import ROUND
from cint_compiler.semantics.values import ArrayValue, ErrorValue, LiveStr
from cint_compiler.check.features.proposed import wrap_value
from cint_compiler.interp import textops
from cint_compiler.interp.values import assign_value, compare

IMPL = B.Registry(B.REF)
OWN = set()          # handlers that evaluate their own arguments: (ev, e, env)


def impl(*names, own=False):
    def deco(fn):
        IMPL.register(*names)(fn)
        if own:
            OWN.update(names)
        return fn
    return deco


def run(ev, e, env):
    """The value of built-in call ``e``."""
    name = e.bname
    handler = IMPL.get(name)
    if name in OWN:
        return handler(ev, e, env)
    vals = []
    for a in e.argv:
        if isinstance(a, A.Expr) and a.ty is not ROUND:
            vals.append(ev.eval(a, env))
    for v in vals:
        if getattr(v, "guard", None) is not None:     # a view of arena storage: its handle again (M-23)
            ev.mem_guard(v, e.span)
    st = ev.counted()
    try:
        return handler(ev, e, vals, st)
    except MachineFault as mf:
        ev.fault(mf, e.callee.span, st)


# ----------------------------------------------------------------------------- own arguments, no step

@impl("offset", own=True)
def _offset(ev, e, env):
    return e.cval       # offset(T, field): a compile-time constant (LS-76)


@impl("len", own=True)
def _len(ev, e, env):
    v = ev.eval(e.argv[0], env)
    return len(v) if isinstance(v, (bytes, LiveStr)) else v.shape[0]


@impl("format", "utf8", "swap", own=True)
def _text(ev, e, env):
    return textops.run(ev, e, env)


@impl("extent", "size", "lower", own=True)
def _shape(ev, e, env):
    v = ev.eval(e.argv[0], env)
    if e.bname == "size":
        return v.size
    ev.eval(e.argv[1], env)
    return v.shape[e.dim] if e.bname == "extent" else v.lower[e.dim]


# ----------------------------------------------------------------------------- arrays (LS-70, LS-145)

@impl("transpose")
def _transpose(ev, e, vals, st):
    a = vals[0]
    return ArrayValue(a.elem, a.storage, a.origin, a.shape[::-1], a.strides[::-1], a.lower[::-1], a.writable)


@impl("reverse")
def _reverse(ev, e, vals, st):
    a = vals[0]
    d = e.dim
    strides = list(a.strides)
    origin = a.origin + ((a.shape[d] - 1) * strides[d] if a.shape[d] else 0)
    strides[d] = -strides[d]
    return ArrayValue(a.elem, a.storage, origin, a.shape, tuple(strides), a.lower, a.writable)


@impl("fill")
def _fill(ev, e, vals, st):
    a = vals[0]
    for i in a.indices():
        a.set(i, assign_value(a.get(i), vals[1]))
    return None


@impl("equal")
def _equal(ev, e, vals, st):
    a, b = vals
    if tuple(a.shape) != tuple(b.shape):
        return False
    t = e.argv[0].ty.elem
    return all(compare("==", t, a.get(i), b.get(j)) for i, j in zip(a.indices(), b.indices()))


@impl("copy")
def _copy(ev, e, vals, st):
    # copy(dst, src): the shape check, then the alias check, then the element writes (SPEC-01 IM-187)
    ev.copy_elements(vals[0], vals[1])
    return None


# ----------------------------------------------------------------------------- scalar operations

@impl("wrap_bits")
def _wrap_bits(ev, e, vals, st):
    return wrap_value(vals[0], e.wbits)      # LS-83 (Proposed), decision 30: no fault, one step


@impl("abs")
def _abs(ev, e, vals, st):
    return M.abs_(e.T, vals[0])


@impl("min", "max")
def _min_max(ev, e, vals, st):
    return (M.min2 if e.bname == "min" else M.max2)(e.T, *vals)


@impl("clamp")
def _clamp(ev, e, vals, st):
    return M.clamp(e.T, *vals)


@impl("div_trunc", "rem_trunc", "div_euclid", "rem_euclid")
def _divisions(ev, e, vals, st):
    return getattr(M, e.bname)(e.T, *vals)


@impl("isqrt")
def _isqrt(ev, e, vals, st):
    return M.isqrt(e.T, vals[0])


@impl("isqrt_round")
def _isqrt_round(ev, e, vals, st):
    return M.isqrt_round(e.T, vals[0], e.mode)


@impl("div_round")
def _div_round(ev, e, vals, st):
    return M.div_round(e.T, vals[0], vals[1], e.mode)


@impl("uabs")
def _uabs(ev, e, vals, st):
    return M.uabs(e.T, vals[0])[1]


@impl("mul_full")
def _mul_full(ev, e, vals, st):
    return M.mul_full(e.T, vals[0], vals[1])[1]


@impl("divmod")
def _divmod(ev, e, vals, st):
    return list(M.divmod_(e.T, vals[0], vals[1]))


@impl("muldiv")
def _muldiv(ev, e, vals, st):
    return M.muldiv(e.R, e.T, vals[0], vals[1], vals[2], e.mode)


@impl("rotl", "rotr")
def _rotate(ev, e, vals, st):
    return getattr(M, e.bname)(e.T, vals[0], vals[1], e.argv[1].ty)


_FORM = {"": "checked", "_wrap": "wrap", "_sat": "sat"}


@impl("mul", "mul_wrap", "mul_sat")
def _fixed_mul(ev, e, vals, st):
    return M.fixed_mul(_FORM[e.bname[3:]], e.T, vals[0], vals[1], e.mode)


@impl("div")
def _fixed_div(ev, e, vals, st):
    return M.fixed_div("checked", e.T, vals[0], vals[1], e.mode)


@impl("sqrt", "sqrt_wrap", "sqrt_sat")
def _fixed_sqrt(ev, e, vals, st):
    return M.fixed_sqrt(_FORM[e.bname[4:]], e.T, vals[0], e.mode)


@impl(*(r.name for r in B.BUILTINS.values() if r.family == "result"))
def _results(ev, e, vals, st):
    """add_result .. shl_result (LS-96, IM-188): ArithError!T, never a fault."""
    if e.bname == "shl_result":
        r = M.shl_result(e.T, vals[0], vals[1], e.argv[1].ty)
    else:
        r = getattr(M, e.bname)(e.T, vals[0], vals[1])
    if r[0] == "ok":
        return r
    return ("err", ErrorValue("ArithError", r[1]))


# ----------------------------------------------------------------------------- reductions (semantics/reductions.py)

@impl(*(r.name for r in B.BUILTINS.values() if r.family == "reduction"))
def _reduction(ev, e, vals, st):
    return ev.reduction(e, e.bname, vals, st)
