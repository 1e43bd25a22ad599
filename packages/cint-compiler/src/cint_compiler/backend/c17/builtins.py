"""Built-in calls on cpu-c17: the C back end's handlers, one per row of semantics/builtins.py.

``LOWER`` is this executor's registry; :func:`call` dispatches a checked call by its row's name (``e.bname``).
A row without a handler here lists its refusal in the row, and the test of the table checks that no row has
both.  A handler may still refuse some argument types (C9102, ``refuse``): the row's ``limits`` say which.
Every handler writes the C of the interpreter's semantics (interp/builtins.py): the arguments in order, one
counted step (``step++`` in a kernel), its faults with the identifiers of opnames, at the callee name.
``em`` is the Emitter (emit.py)."""
from __future__ import annotations

from cint_compiler.semantics import builtins as B
from cint_compiler.semantics import reductions as RED
from cint_compiler.semantics.types import ROUND_MODES, ArrayType, FixedType, IntType, StructType
from cint_compiler.backend.c17 import containers as MC
from cint_compiler.backend.c17 import proposed as proposed_c
from cint_compiler.backend.c17 import textops as textops_c
from cint_compiler.backend.c17.common import CT, refuse, wide

LOWER = B.Registry(B.CPU)


def call(em, e, lines):
    """The C of built-in call ``e`` (its value, a C expression)."""
    MC.recheck_builtin_args(em, e, lines)
    handler = LOWER.get(e.bname)
    if handler is None:
        raise refuse(e.span, "the built-in `%s`" % e.bname)
    return handler(em, e, lines)


def _opid(e):
    """The identifier of the fault of call e, from its row (semantics/builtins.py, built by opnames)."""
    return B.BUILTINS[e.bname].faults(e)[0]


def _unsupported(e):
    return refuse(e.span, "the built-in `%s`" % e.bname)


@LOWER.register("offset")
def _offset(em, e, lines):
    return em.const(e.ty, e.cval, e.span)      # a compile-time constant (LS-76); expr() writes it first


@LOWER.register("len")
def _len(em, e, lines):
    v = em.expr(e.argv[0], lines)
    return "(%s).shape[0]" % v


@LOWER.register("extent", "lower", "size")
def _shape(em, e, lines):
    name = e.bname
    v = em.tmp("cint_gen_array", lines, em.expr(e.argv[0], lines))
    if name == "size":
        return "cintg_size(&%s)" % v
    em.expr(e.argv[1], lines)
    return "%s.%s[%d]" % (v, "shape" if name == "extent" else "lower", e.dim)


# ----------------------------------------------------------------------------- arrays (LS-70, LS-145)

def _array_args(em, e, lines):
    """The arguments of copy, fill, equal, transpose and reverse, in order (arrays as they are, scalars in
    temporaries)."""
    vals = []
    for a in e.argv:
        if isinstance(a.ty, (ArrayType, StructType)):
            vals.append(em.expr(a, lines))
        else:
            vals.append(em.tmp(em.ctype(a.ty, a.span), lines, em.expr(a, lines)))
    return vals


def _kstep(em, lines):
    """The call's counted step, in a kernel (its step ordinals; interp: interp/builtins.run)."""
    if em.fn_kind == "kernel":
        lines.append("step++;")


@LOWER.register("copy")
def _copy(em, e, lines):
    """copy(dst, src): copy.shape, then copy.alias, then the writes, in the runtime's cintg_copy (IM-187)."""
    vals = _array_args(em, e, lines)
    t = e.argv[0].ty
    lines.append("if (cintg_copy(ctx, %s, &(%s), &(%s), sizeof(%s))) goto fail;" % (
        em.at(e.callee.span), vals[0], vals[1], em.ctype(t.elem, e.span)))
    return "0"


@LOWER.register("transpose")
def _transpose(em, e, lines):
    vals = _array_args(em, e, lines)
    _kstep(em, lines)
    return em.tmp("cint_gen_array", lines, "cintg_transpose(&(%s))" % vals[0])


@LOWER.register("reverse")
def _reverse(em, e, lines):
    vals = _array_args(em, e, lines)
    _kstep(em, lines)
    return em.tmp("cint_gen_array", lines, "cintg_reverse(&(%s), %du)" % (vals[0], e.dim))


@LOWER.register("fill")
def _fill(em, e, lines):
    vals = _array_args(em, e, lines)
    t = e.argv[0].ty
    _kstep(em, lines)
    v = em.tmp(em.ctype(t.elem, e.span), lines, vals[1])
    lines.append("cintg_fill(&(%s), &%s);" % (vals[0], v))
    return "0"


@LOWER.register("equal")
def _equal(em, e, lines):
    vals = _array_args(em, e, lines)
    t = e.argv[0].ty
    _kstep(em, lines)
    if isinstance(t.elem, StructType):
        raise refuse(e.span, "`equal` on arrays of structs")
    return em.tmp("uint8_t", lines, "(uint8_t)cintg_equal(&(%s), &(%s))" % (vals[0], vals[1]))


@LOWER.register("wrap_bits")
def _wrap_bits(em, e, lines):
    return proposed_c.wrap_bits(em, e, lines)      # LS-83 (Proposed), decision 30


@LOWER.register("format", "utf8", "swap")
def _text(em, e, lines):
    return textops_c.emit(em, e, lines)


# ----------------------------------------------------------------------------- reductions (semantics/reductions.py)

def _reduction_args(em, e, lines):
    """A reduction's arguments in order (an init in the element type, then its arrays), its counted step and
    the two positions of the runtime's cint_w_* reductions: (init, arrays, at of the step, at of the charge,
    one ordinal on; interp: Context.reduction)."""
    red = RED.BY_CALL[e.bname]
    et = e.elem
    init = None
    if e.bname in _INIT_ARG:
        x = e.argv[_INIT_ARG[e.bname]]
        init = em.tmp(em.ctype(et, e.span), lines, em.coerce(em.expr(x, lines), x.ty, et))
    arrs = e.argv[-red.arrays:]
    xs = [em.tmp("cint_gen_array", lines, em.expr(a, lines)) for a in arrs]
    k = em.site(e.callee.span)
    if em.fn_kind == "kernel":
        lines.append("step++;")
        cat = "&(cint_gen_at){{%du, %du}, wi, step}" % (em.cur_mod, k)
        at = "&(cint_gen_at){{%du, %du}, wi, step - 1}" % (em.cur_mod, k)
    else:
        cat = at = em.tmp("const cint_gen_at *", lines, em.at_nostep(e.callee.span))
    return init, xs, cat, at


# the argument that is a reduction's init, by call; the kinds with the form's flag of cint_w_sum_form and the
# max flag of cint_w_extreme
_INIT_ARG = {"fold_checked": 1, "min_init": 0, "max_init": 0}
_SUM_FORM = {"sum_wrap": 0, "sum_sat": 1}


@LOWER.register("count")
def _count(em, e, lines):
    _, xs, cat, _ = _reduction_args(em, e, lines)
    r = em.tmp("int64_t", lines, "0")
    lines.append("if (cint_w_count(ctx, %s, &%s, &%s)) goto fail;" % (cat, xs[0], r))
    return r


@LOWER.register("sum_wrap", "sum_sat")
def _sum_form(em, e, lines):
    _, xs, cat, _ = _reduction_args(em, e, lines)
    out, rl = em.wout(e.elem, lines)
    lines.append("if (%s) goto fail;" % ("cint_w_sum_form(ctx, %s, &%s, %d, %s)" % (
        cat, xs[0], _SUM_FORM[e.bname], rl)))
    return out


@LOWER.register("fold_checked")
def _fold_checked(em, e, lines):
    init, xs, cat, at = _reduction_args(em, e, lines)
    et = e.elem
    out, rl = em.wout(et, lines)
    lines.append("if (%s) goto fail;" % ("cint_w_fold(ctx, %s, %s, &%s, %d, %s, %s)" % (
        cat, at, xs[0], e.fold_op == "mul", em.limbs(et, init), rl)))
    return out


@LOWER.register("dot")
def _dot(em, e, lines):
    _, xs, cat, at = _reduction_args(em, e, lines)
    out, rl = em.wout(e.R, lines)
    lines.append("if (%s) goto fail;" % ("cint_w_dot(ctx, %s, %s, &%s, &%s, %s, %s)" % (
        cat, at, xs[0], xs[1], em.tag(e.R), rl)))
    return out


@LOWER.register("min_init", "max_init", "reduce_min", "reduce_max")
def _extremes(em, e, lines):
    """min(xs), max(xs), min(init, xs), max(init, xs) (IM-77): over I8..U64 inline (_extreme), over wider
    elements by the runtime's cint_w_extreme."""
    if isinstance(e.elem, IntType) and e.elem.bits <= 64:
        return _extreme(em, e, lines)
    init, xs, cat, at = _reduction_args(em, e, lines)
    et = e.elem
    out, rl = em.wout(et, lines)
    lines.append("if (%s) goto fail;" % ("cint_w_extreme(ctx, %s, %s, &%s, %d, %s, %s)" % (
        cat, at, xs[0], RED.BY_CALL[e.bname].kind == "max", em.limbs(et, init) if init else "NULL", rl)))
    return out


def _extreme(em, e, lines):
    """min(xs), max(xs), min(init, xs), max(init, xs) (SPEC-01 IM-77) over I8..U64: the arguments in
    order, one counted step, the charge ceil(n / 64) at the next ordinal (IM-139), then E_SHAPE for an
    empty xs without init at the call's own ordinal (interp: Context.reduction)."""
    red = RED.BY_CALL[e.bname]
    et = e.elem
    ct = em.ctype(et, e.span)
    init = None
    if e.bname in _INIT_ARG:
        init = em.tmp(ct, lines, em.coerce(em.expr(e.argv[0], lines), e.argv[0].ty, et))
    xs = em.tmp("cint_gen_array", lines, em.expr(e.argv[-1], lines))
    k = em.site(e.callee.span)
    if em.fn_kind == "kernel":
        lines.append("step++;")
        at_st = "(at.pos.index = %du, at.step = step - 1, &at)" % k
    else:
        at_st = em.at_nostep(e.callee.span)
    r = em.tmp(ct, lines, init or "0")
    lines.append("if (cint_gen_charge(ctx, %s, (cintg_size(&%s) + 63) / 64)) goto fail;" % (
        em.at_nostep(e.callee.span), xs))
    if init is None:
        lines.append("if (cintg_empty(&%s)) { cint_tvalue ops_[1]; cint_tv_i64(&ops_[0], 0); const cint_gen_fault "
                     "f_ = {CINT_E_SHAPE, 1u, 0u, \"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); "
                     "goto fail; }" % (xs, _opid(e), at_st))
        lines.append("%s = *(const %s *)%s.data;" % (r, ct, xs))
    op = "<" if red.kind == "min" else ">"
    lines.append("if (!cintg_empty(&%s)) { int64_t ix_[4] = {0, 0, 0, 0}; do { %s x_ = *(const %s *)cintg_at(&%s, ix_); "
                 "if (x_ %s %s) %s = x_; } while (cintg_next(&%s, ix_)); }" % (xs, ct, ct, xs, op, r, r, xs))
    return r


@LOWER.register("sum")
def _sum(em, e, lines):
    xs = e.argv[-1]
    if wide(e.elem) or wide(e.R):
        v = em.expr(xs, lines)
        out, rl = em.wout(e.R, lines)
        if em.fn_kind == "kernel":
            # as below: the counted step positions an overflow, the fuel charge the next ordinal
            k = em.site(e.callee.span)
            lines.append("step++;")
            lines.append("if (cint_w_sum_at(ctx, &(cint_gen_at){{%du, %du}, wi, step}, &(cint_gen_at){{%du, "
                         "%du}, wi, step - 1}, &(%s), %s, %s)) goto fail;" % (
                             em.cur_mod, k, em.cur_mod, k, v, em.tag(e.R), rl))
            return out
        lines.append("if (cint_w_sum(ctx, %s, &(%s), %s, %s)) goto fail;" % (
            em.at_nostep(e.callee.span), v, em.tag(e.R), rl))
        return out
    v = em.expr(xs, lines)
    r = em.tmp(em.ctype(e.R), lines)
    if em.fn_kind == "kernel":
        # one counted step (its ordinal positions an overflow), the fuel charge at the next ordinal
        k = em.site(e.callee.span)
        lines.append("step++;")
        lines.append("if (cint_gen_sum_at(ctx, &(cint_gen_at){{%du, %du}, wi, step}, &(cint_gen_at){{%du, %du}, "
                     "wi, step - 1}, &(%s), %s, &%s)) goto fail;" % (em.cur_mod, k, em.cur_mod, k, v,
                                                                    em.tag(e.R), r))
        return r
    lines.append("if (cint_gen_sum(ctx, %s, &(%s), %s, &%s)) goto fail;" % (em.at_nostep(e.callee.span),
                                                                            v, em.tag(e.R), r))
    return r


# ----------------------------------------------------------------------------- fixed point (IM-64 to IM-67)

_FORM = {"": "checked", "_wrap": "wrap", "_sat": "sat"}


@LOWER.register("mul", "mul_wrap", "mul_sat")
def _fixed_mul(em, e, lines):
    T = _fixed_operands(em, e)
    vals = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv[:2]]
    return em.qmul(T, _FORM[e.bname[3:]], e.mode, vals[0], vals[1], e.callee.span, lines)


@LOWER.register("div")
def _fixed_div(em, e, lines):
    T = _fixed_operands(em, e)
    vals = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv[:2]]
    return em.qdiv(T, e.mode, vals[0], vals[1], e.callee.span, lines)


@LOWER.register("sqrt", "sqrt_wrap", "sqrt_sat")
def _fixed_sqrt(em, e, lines):
    T = _fixed_operands(em, e)
    vals = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv[:1]]
    return em.qsqrt(T, _FORM[e.bname[4:]], e.mode, vals[0], e.callee.span, lines)


def _fixed_operands(em, e):
    if not isinstance(e.T, FixedType):
        raise _unsupported(e)
    em.qcheck(e.span)
    return e.T


# ----------------------------------------------------------------------------- result forms (LS-96, IM-188)

_RESULT_OP = {"add_result": "ADD", "sub_result": "SUB", "mul_result": "MUL", "div_result": "DIV",
              "rem_result": "REM", "shl_result": "SHL"}


@LOWER.register(*(r.name for r in B.BUILTINS.values() if r.family == "result"))
def _results(em, e, lines):
    """add_result .. shl_result (LS-96) on every integer type T: ArithError!T, one counted step, never a
    fault; the error is the ArithError value of the fault the checked operation would raise (SPEC-01P.1
    IM-188: overflow, div_zero, shift; interp: interp/builtins.py, intmachine._result), computed exactly by
    cint_w_result (cint_rt_wide.h)."""
    name, T = e.bname, e.T
    if not isinstance(T, IntType):
        raise _unsupported(e)
    ut = e.ty
    a = em.tmp(em.ctype(T), lines, em.expr(e.argv[0], lines))
    bt = e.argv[1].ty if name == "shl_result" else T
    if not isinstance(bt, IntType):
        raise refuse(e.span, "the built-in `%s` with a count of type %s" % (name, bt))
    b = em.tmp(em.ctype(bt), lines, em.expr(e.argv[1], lines))
    if em.fn_kind == "kernel":
        lines.append("step++;")
    u = em.tmp(em.ctype(ut, e.span), lines)
    val, rl = em.wout(T, lines)
    op = _RESULT_OP[name]
    tags = {code: ut.errset.tag_of(("ArithError", err)) for code, err in (
        ("OVERFLOW", "overflow"), ("DIV_ZERO", "div_zero"), ("SHIFT", "shift"))}
    k = "k%d" % (em.tmpn + 1)
    em.tmpn += 1
    lines.append("{ int %s = cint_w_result(CINT_OP_%s, %s, %s, %s, %s, %s); if (%s == 0) %s.value = %s; else %s.tag = "
                 "%s == CINT_W_ERR_DIV_ZERO ? %d : %s == CINT_W_ERR_SHIFT ? %d : %d; }" % (
                     k, op, em.tag(T), em.limbs(T, a), em.tag(bt), em.limbs(bt, b), rl, k, u, val, u,
                     k, tags["DIV_ZERO"], k, tags["SHIFT"], tags["OVERFLOW"]))
    return u


# ----------------------------------------------------------------------------- named scalar operations
# On I8..U64 the generated helpers (cintg_*, emit.PRELUDE) or plain C; on I128..I1024 the runtime's cint_w_*
# (cint_rt_wide.h).  The wide form names the operation's site first (its position in the site table).

def _vals(em, xs, lines):
    return [em.tmp(em.ctype(x.ty), lines, em.expr(x, lines)) for x in xs]


def _narrow(t) -> bool:
    return isinstance(t, IntType) and t.bits <= 64


def _bits(v):
    return "(uint64_t)%s" % v


def _wide_site(em, e):
    """The site and type tag of a named operation over I128..I1024."""
    return em.at(e.callee.span), em.tag(e.T)


def _checked_helper(em, e, lines):
    """abs, div_trunc, rem_trunc, div_euclid, rem_euclid on I8..U64: cintg_<name>_<T> (emit.PRELUDE)."""
    T = e.T
    vals = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv]
    r = em.tmp(em.ctype(T), lines)
    lines.append("if (cintg_%s_%s(ctx, %s, %s, &%s)) goto fail;" % (e.bname, T.token, em.at(e.callee.span),
                                                                 ", ".join(vals), r))
    return r


@LOWER.register("abs")
def _abs(em, e, lines):
    T = e.T
    if wide(T):
        at, tg = _wide_site(em, e)
        (a,) = _vals(em, e.argv, lines)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_abs(ctx, %s, %s, %s, %s)) goto fail;" % (at, tg, em.limbs(T, a), rl))
        return out
    if not _narrow(T):
        raise _unsupported(e)
    return _checked_helper(em, e, lines)


_DIVISIONS = {"div_trunc": "CINT_W_DIV_TRUNC", "rem_trunc": "CINT_W_REM_TRUNC", "div_euclid": "CINT_W_DIV_EUCLID",
              "rem_euclid": "CINT_W_REM_EUCLID"}


@LOWER.register(*_DIVISIONS)
def _divisions(em, e, lines):
    T = e.T
    if wide(T):
        at, tg = _wide_site(em, e)
        a, b = _vals(em, e.argv, lines)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_divide(ctx, %s, \"%s\", %s, %s, %s, %s, %s)) goto fail;" % (
            at, _opid(e), _DIVISIONS[e.bname], tg, em.limbs(T, a), em.limbs(T, b), rl))
        return out
    return _checked_helper(em, e, lines)


@LOWER.register("divmod")
def _divmod(em, e, lines):
    T = e.T
    if not _narrow(T):
        raise _unsupported(e)
    a, b = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv]
    r = em.tmp(em.ctype(e.ty, e.span), lines)
    lines.append("if (cintg_divcheck_%s(ctx, %s, \"%s\", %s, %s, 1)) goto fail;" % (
        T.token, em.at(e.callee.span), _opid(e), a, b))
    lines.append("%s.f0 = (%s)(%s / %s); %s.f1 = (%s)(%s %% %s);" % (r, em.ctype(T), a, b, r, em.ctype(T),
                                                                  a, b))
    if T.signed:
        lines.append("if (%s.f1 != 0 && ((%s.f1 < 0) != (%s < 0))) { %s.f0 = (%s)(%s.f0 - 1); "
                     "%s.f1 = (%s)(%s.f1 + %s); }" % (r, r, b, r, em.ctype(T), r, r, em.ctype(T), r, b))
    return r


_ORDER = {"min": ("<", "<="), "max": (">", ">=")}      # narrow comparison, wide cint_cmp test


@LOWER.register("min", "max")
def _min_max(em, e, lines):
    T = e.T
    if wide(T):
        _wide_site(em, e)
        a, b = _vals(em, e.argv, lines)
        _kstep(em, lines)     # every named operation counts one step (interp: interp/builtins.run)
        return "((cint_cmp_%s(%s, %s) %s 0) ? %s : %s)" % (T.token, a, b, _ORDER[e.bname][1], a, b)
    if not _narrow(T):
        raise _unsupported(e)
    a, b = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv]
    _kstep(em, lines)
    return "((%s %s %s) ? %s : %s)" % (a, _ORDER[e.bname][0], b, a, b)


@LOWER.register("clamp")
def _clamp(em, e, lines):
    T = e.T
    if wide(T):
        at, tg = _wide_site(em, e)
        x, lo, hi = _vals(em, e.argv, lines)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_clamp(ctx, %s, %s, %s, %s, %s, %s)) goto fail;" % (
            at, tg, em.limbs(T, x), em.limbs(T, lo), em.limbs(T, hi), rl))
        return out
    if not _narrow(T):
        raise _unsupported(e)
    em.ctype(T)
    x, lo, hi = _vals(em, e.argv, lines)
    lines.append("if (%s > %s) { (void)cintg_clamp_fault(ctx, %s, \"%s\", %s, %s, %s, %s); goto fail; }" % (
        lo, hi, em.at(e.callee.span), _opid(e), em.tag(T), _bits(x), _bits(lo), _bits(hi)))
    if em.fn_kind == "kernel":
        lines.append("else step++;")
    return "((%s < %s) ? %s : (%s > %s) ? %s : %s)" % (x, lo, lo, x, hi, hi, x)


@LOWER.register("uabs")
def _uabs(em, e, lines):
    T = e.T
    if not _narrow(T):
        raise _unsupported(e)
    em.ctype(T)
    (a,) = _vals(em, e.argv, lines)
    _kstep(em, lines)
    ut = CT[(False, T.bits)]
    return "((%s)(cint_is_neg((int64_t)%s) ? (uint64_t)0 - (uint64_t)%s : (uint64_t)%s))" % (ut, a, a, a)


@LOWER.register("mul_full")
def _mul_full(em, e, lines):
    T = e.T
    if wide(T) or T.bits == 64:
        _, tg = _wide_site(em, e)
        a, b = _vals(em, e.argv, lines)
        out, rl = em.wout(e.ty, lines)
        _kstep(em, lines)
        lines.append("cint_w_mul_full(%s, %s, %s, %s, %s);" % (tg, em.limbs(T, a), em.limbs(T, b), em.tag(e.ty), rl))
        return out
    em.ctype(T)
    a, b = _vals(em, e.argv, lines)
    _kstep(em, lines)
    wt = CT[(T.signed, T.bits * 2)]
    return "((%s)((%s)%s * (%s)%s))" % (wt, wt, a, wt, b)


def _mode_index(e):
    """The rounding mode's number in the runtime's helpers (-1: isqrt, which does not round)."""
    return ROUND_MODES.index(e.mode) if B.BUILTINS[e.bname].args[-1] == "mode" else -1


@LOWER.register("isqrt", "isqrt_round")
def _isqrt(em, e, lines):
    T = e.T
    if wide(T):
        at, tg = _wide_site(em, e)
        (x,) = _vals(em, e.argv[:1], lines)
        mode = _mode_index(e)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_isqrt(ctx, %s, \"%s\", %s, %s, %d, %s)) goto fail;" % (
            at, _opid(e), tg, em.limbs(T, x), mode, rl))
        return out
    em.ctype(T)
    r = em.tmp("uint64_t", lines, "0")
    (x,) = _vals(em, e.argv[:1], lines)
    lines.append("if (cintg_isqrt(ctx, %s, \"%s\", %s, %d, %du, %s, %d, &%s)) goto fail;" % (
        em.at(e.callee.span), _opid(e), em.tag(T), 1 if T.signed else 0, T.bits, _bits(x), _mode_index(e), r))
    return "cintg_wrap_%s(%s)" % (T.token, r)


@LOWER.register("div_round")
def _div_round(em, e, lines):
    T = e.T
    if wide(T):
        at, tg = _wide_site(em, e)
        a, b = _vals(em, e.argv[:2], lines)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_rounddiv(ctx, %s, \"%s\", %s, %du, %s, %s, %s, %s, %d, %s)) goto fail;" % (
            at, _opid(e), tg, 2, em.limbs(T, a), em.limbs(T, b), em.limbs(T, a), em.tag(T),
            ROUND_MODES.index(e.mode), rl))
        return out
    em.ctype(T)
    r = em.tmp("uint64_t", lines, "0")
    a, b = _vals(em, e.argv[:2], lines)
    lines.append("if (cintg_rounddiv(ctx, %s, \"%s\", %s, %d, %du, %s, %s, %s, %s, %d, %du, %d, &%s)) goto fail;"
                 % (em.at(e.callee.span), _opid(e), em.tag(T), 1 if T.signed else 0, 2, _bits(a), _bits(b),
                    "(uint64_t)0", em.tag(T), 1 if T.signed else 0, T.bits, ROUND_MODES.index(e.mode), r))
    return "cintg_wrap_%s(%s)" % (T.token, r)


@LOWER.register("muldiv")
def _muldiv(em, e, lines):
    T, R = e.T, e.R
    if wide(T) or wide(R):
        at, tg = _wide_site(em, e)
        a, b, c = _vals(em, e.argv[1:4], lines)
        out, rl = em.wout(R, lines)
        lines.append("if (cint_w_rounddiv(ctx, %s, \"%s\", %s, %du, %s, %s, %s, %s, %d, %s)) goto fail;" % (
            at, _opid(e), tg, 3, em.limbs(T, a), em.limbs(T, b), em.limbs(T, c), em.tag(R),
            ROUND_MODES.index(e.mode), rl))
        return out
    em.ctype(T)
    r = em.tmp("uint64_t", lines, "0")
    a, b, c = _vals(em, e.argv[1:4], lines)
    lines.append("if (cintg_rounddiv(ctx, %s, \"%s\", %s, %d, %du, %s, %s, %s, %s, %d, %du, %d, &%s)) goto fail;"
                 % (em.at(e.callee.span), _opid(e), em.tag(T), 1 if T.signed else 0, 3, _bits(a), _bits(b),
                    "(uint64_t)" + c, em.tag(R), 1 if R.signed else 0, R.bits, ROUND_MODES.index(e.mode), r))
    return "cintg_wrap_%s(%s)" % (R.token, r)


_ROTATE_LEFT = {"rotl": 1, "rotr": 0}


@LOWER.register("rotl", "rotr")
def _rotate(em, e, lines):
    T = e.T
    kt = e.argv[1].ty
    if not _narrow(T) or not _narrow(kt):
        raise _unsupported(e)
    em.ctype(T)
    r = em.tmp("uint64_t", lines, "0")
    a, k = _vals(em, e.argv[:2], lines)
    lines.append("if (cintg_rotate(ctx, %s, \"%s\", %s, %du, %s, %s, %s, %d, &%s)) goto fail;" % (
        em.at(e.callee.span), _opid(e), em.tag(T), T.bits, _bits(a), em.tag(kt), _bits(k),
        _ROTATE_LEFT[e.bname], r))
    return "cintg_wrap_%s(%s)" % (T.token, r)
