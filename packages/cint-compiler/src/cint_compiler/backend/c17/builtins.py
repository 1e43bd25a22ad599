"""Built-in calls on cpu-c17: the C back end's handlers, one per row of semantics/builtins.py.

``LOWER`` is this executor's registry; :func:`call` dispatches a checked call by its row's name (``e.bname``).
A row without a handler here lists its refusal in the row, and the test of the table checks that no row has
both.  A handler may still refuse some argument types (C9102, ``refuse``): the row's ``limits`` say which.
Every handler writes the C of the interpreter's semantics (interp/builtins.py): the arguments in order, one
counted step (``step++`` in a kernel), its faults with the identifiers of opnames, at the callee name.
``em`` is the Emitter (emit.py)."""
from __future__ import annotations

from cint_compiler.semantics import builtins as B
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


@LOWER.register("copy", "fill", "equal", "transpose", "reverse")
def _arrays(em, e, lines):
    return _array_builtin(em, e, e.bname, lines)


@LOWER.register("wrap_bits")
def _wrap_bits(em, e, lines):
    return proposed_c.wrap_bits(em, e, lines)      # LS-83 (Proposed), decision 30


@LOWER.register("format", "utf8", "swap")
def _text(em, e, lines):
    return textops_c.emit(em, e, lines)


@LOWER.register("min_init", "max_init", "reduce_min", "reduce_max")
def _extremes(em, e, lines):
    if isinstance(e.elem, IntType) and e.elem.bits <= 64:
        return _extreme(em, e, e.bname, lines)
    return _reduction(em, e, e.bname, lines)


@LOWER.register("sum_wrap", "sum_sat", "count", "fold_checked", "dot")
def _reductions(em, e, lines):
    return _reduction(em, e, e.bname, lines)


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


@LOWER.register("mul", "mul_wrap", "mul_sat", "div", "sqrt", "sqrt_wrap", "sqrt_sat")
def _fixed(em, e, lines):
    name, T = e.bname, e.T
    if not isinstance(T, FixedType):
        raise _unsupported(e)
    em.qcheck(e.span)
    n = 1 if name.startswith("sqrt") else 2
    vals = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv[:n]]
    form = {"": "checked", "_wrap": "wrap", "_sat": "sat"}[name[len(name.split("_")[0]):]]
    if name.startswith("sqrt"):
        return em.qsqrt(T, form, e.mode, vals[0], e.callee.span, lines)
    if name == "div":
        return em.qdiv(T, e.mode, vals[0], vals[1], e.callee.span, lines)
    return em.qmul(T, form, e.mode, vals[0], vals[1], e.callee.span, lines)


@LOWER.register(*(r.name for r in B.BUILTINS.values() if r.family == "result"))
def _results(em, e, lines):
    if not isinstance(e.T, IntType):
        raise _unsupported(e)
    return _result_builtin(em, e, e.bname, e.T, lines)


def _wide_first(em, e, lines):
    """The named operations where I128..I1024 take part go to the runtime's cint_w_* (None where this
    back end has no code for the operation on them)."""
    T = e.T
    if isinstance(T, IntType) and (wide(T) or wide(getattr(e, "R", None)) or (e.bname == "mul_full" and T.bits == 64)):
        return _wide_builtin(em, e, e.bname, T, lines)
    return None


@LOWER.register("abs", "div_trunc", "rem_trunc", "div_euclid", "rem_euclid")
def _checked_named(em, e, lines):
    name, T = e.bname, e.T
    r = _wide_first(em, e, lines)
    if r is not None:
        return r
    if not (isinstance(T, IntType) and T.bits <= 64):
        raise _unsupported(e)
    vals = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv]
    r = em.tmp(em.ctype(T), lines)
    lines.append("if (cintg_%s_%s(ctx, %s, %s, &%s)) goto fail;" % (name, T.token, em.at(e.callee.span),
                                                                 ", ".join(vals), r))
    return r


@LOWER.register("divmod")
def _divmod(em, e, lines):
    T = e.T
    r = _wide_first(em, e, lines)
    if r is not None:
        return r
    if not (isinstance(T, IntType) and T.bits <= 64):
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


@LOWER.register("min", "max")
def _min_max(em, e, lines):
    name, T = e.bname, e.T
    r = _wide_first(em, e, lines)
    if r is not None:
        return r
    if not (isinstance(T, IntType) and T.bits <= 64):
        raise _unsupported(e)
    a, b = [em.tmp(em.ctype(T), lines, em.expr(x, lines)) for x in e.argv]
    if em.fn_kind == "kernel":
        lines.append("step++;")
    return "((%s %s %s) ? %s : %s)" % (a, "<" if name == "min" else ">", b, a, b)


@LOWER.register("clamp", "uabs", "mul_full", "isqrt", "isqrt_round", "div_round", "muldiv", "rotl", "rotr")
def _named(em, e, lines):
    T = e.T
    r = _wide_first(em, e, lines)
    if r is not None:
        return r
    if isinstance(T, IntType) and T.bits <= 64:
        r = _named_op(em, e, e.bname, T, lines)
        if r is not None:
            return r
    raise _unsupported(e)


def _result_builtin(em, e, name, T, lines):
    """add_result .. shl_result (LS-96) on every integer type T: ArithError!T, one counted step, never a
    fault; the error is the ArithError value of the fault the checked operation would raise (SPEC-01P.1
    IM-188: overflow, div_zero, shift; interp: Evaluator.builtin, intmachine._result), computed exactly by
    cint_w_result (cint_rt_wide.h)."""
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
    op = {"add_result": "ADD", "sub_result": "SUB", "mul_result": "MUL", "div_result": "DIV",
          "rem_result": "REM", "shl_result": "SHL"}[name]
    tags = {code: ut.errset.tag_of(("ArithError", err)) for code, err in (
        ("OVERFLOW", "overflow"), ("DIV_ZERO", "div_zero"), ("SHIFT", "shift"))}
    k = "k%d" % (em.tmpn + 1)
    em.tmpn += 1
    lines.append("{ int %s = cint_w_result(CINT_OP_%s, %s, %s, %s, %s, %s); if (%s == 0) %s.value = %s; else %s.tag = "
                 "%s == CINT_W_ERR_DIV_ZERO ? %d : %s == CINT_W_ERR_SHIFT ? %d : %d; }" % (
                     k, op, em.tag(T), em.limbs(T, a), em.tag(bt), em.limbs(bt, b), rl, k, u, val, u,
                     k, tags["DIV_ZERO"], k, tags["SHIFT"], tags["OVERFLOW"]))
    return u

def _extreme(em, e, name, lines):
    """min(xs), max(xs), min(init, xs), max(init, xs) (SPEC-01 IM-77) over I8..U64: the arguments in
    order, one counted step, the charge ceil(n / 64) at the next ordinal (IM-139), then E_SHAPE for an
    empty xs without init at the call's own ordinal (interp: Context.reduction)."""
    et = e.elem
    ct = em.ctype(et, e.span)
    init = None
    if name.endswith("_init"):
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
    op = "<" if name.startswith(("min", "reduce_min")) else ">"
    lines.append("if (!cintg_empty(&%s)) { int64_t ix_[4] = {0, 0, 0, 0}; do { %s x_ = *(const %s *)cintg_at(&%s, ix_); "
                 "if (x_ %s %s) %s = x_; } while (cintg_next(&%s, ix_)); }" % (xs, ct, ct, xs, op, r, r, xs))
    return r

def _reduction(em, e, name, lines):
    """sum_wrap, sum_sat, count, fold_checked, dot, and min/max over I128..I1024 (SPEC-01 IM-77 to IM-87) by
    the runtime's cint_w_* reductions: the arguments in order, one counted step, the charge ceil(n / 64) at
    the next ordinal, a fault of the reduction at the counted step (interp: Context.reduction)."""
    et = e.elem
    init = None
    if name in ("fold_checked", "min_init", "max_init"):
        x = e.argv[1] if name == "fold_checked" else e.argv[0]
        init = em.tmp(em.ctype(et, e.span), lines, em.coerce(em.expr(x, lines), x.ty, et))
    arrs = e.argv[1:] if name == "dot" else e.argv[-1:]
    xs = [em.tmp("cint_gen_array", lines, em.expr(a, lines)) for a in arrs]
    k = em.site(e.callee.span)
    if em.fn_kind == "kernel":
        lines.append("step++;")
        cat = "&(cint_gen_at){{%du, %du}, wi, step}" % (em.cur_mod, k)
        at = "&(cint_gen_at){{%du, %du}, wi, step - 1}" % (em.cur_mod, k)
    else:
        cat = at = em.tmp("const cint_gen_at *", lines, em.at_nostep(e.callee.span))
    if name == "count":
        r = em.tmp("int64_t", lines, "0")
        lines.append("if (cint_w_count(ctx, %s, &%s, &%s)) goto fail;" % (cat, xs[0], r))
        return r
    out, rl = em.wout(e.R if name == "dot" else et, lines)
    if name in ("sum_wrap", "sum_sat"):
        call = "cint_w_sum_form(ctx, %s, &%s, %d, %s)" % (cat, xs[0], name == "sum_sat", rl)
    elif name == "fold_checked":
        call = "cint_w_fold(ctx, %s, %s, &%s, %d, %s, %s)" % (cat, at, xs[0], e.fold_op == "mul",
                                                             em.limbs(et, init), rl)
    elif name == "dot":
        call = "cint_w_dot(ctx, %s, %s, &%s, &%s, %s, %s)" % (cat, at, xs[0], xs[1], em.tag(e.R), rl)
    else:
        call = "cint_w_extreme(ctx, %s, %s, &%s, %d, %s, %s)" % (
            cat, at, xs[0], "max" in name, em.limbs(et, init) if init else "NULL", rl)
    lines.append("if (%s) goto fail;" % call)
    return out

def _wide_builtin(em, e, name, T, lines):
    """The named operations where I128..I1024 take part (cint_rt_wide.h), with the records of intmachine.py;
    None for one this backend does not implement on them."""
    at = em.at(e.callee.span)
    tg = em.tag(T)

    def vals(xs):
        return [em.tmp(em.ctype(x.ty), lines, em.expr(x, lines)) for x in xs]

    def L(x):
        return em.limbs(T, x)
    kinds = {"div_trunc": "CINT_W_DIV_TRUNC", "rem_trunc": "CINT_W_REM_TRUNC", "div_euclid": "CINT_W_DIV_EUCLID",
             "rem_euclid": "CINT_W_REM_EUCLID"}
    if name in ("min", "max"):
        a, b = vals(e.argv)
        if em.fn_kind == "kernel":
            lines.append("step++;")     # every named operation counts one step (interp: Evaluator.builtin)
        return "((cint_cmp_%s(%s, %s) %s 0) ? %s : %s)" % (T.token, a, b, "<=" if name == "min" else ">=", a, b)
    if name == "abs":
        (a,) = vals(e.argv)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_abs(ctx, %s, %s, %s, %s)) goto fail;" % (at, tg, L(a), rl))
        return out
    if name in kinds:
        a, b = vals(e.argv)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_divide(ctx, %s, \"%s\", %s, %s, %s, %s, %s)) goto fail;" % (
            at, _opid(e), kinds[name], tg, L(a), L(b), rl))
        return out
    if name == "clamp":
        x, lo, hi = vals(e.argv)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_clamp(ctx, %s, %s, %s, %s, %s, %s)) goto fail;" % (at, tg, L(x), L(lo), L(hi), rl))
        return out
    if name == "mul_full":
        a, b = vals(e.argv)
        out, rl = em.wout(e.ty, lines)
        if em.fn_kind == "kernel":
            lines.append("step++;")
        lines.append("cint_w_mul_full(%s, %s, %s, %s, %s);" % (tg, L(a), L(b), em.tag(e.ty), rl))
        return out
    if name in ("isqrt", "isqrt_round"):
        (x,) = vals(e.argv[:1])
        mode = ROUND_MODES.index(e.mode) if name == "isqrt_round" else -1
        op = _opid(e)
        out, rl = em.wout(T, lines)
        lines.append("if (cint_w_isqrt(ctx, %s, \"%s\", %s, %s, %d, %s)) goto fail;" % (at, op, tg, L(x), mode, rl))
        return out
    if name in ("div_round", "muldiv"):
        if name == "muldiv":
            R = e.R
            if not isinstance(R, IntType):
                return None
            a, b, c = vals(e.argv[1:4])
            op = _opid(e)
            n = 3
        else:
            R = T
            a, b = vals(e.argv[:2])
            c = a
            op = _opid(e)
            n = 2
        out, rl = em.wout(R, lines)
        lines.append("if (cint_w_rounddiv(ctx, %s, \"%s\", %s, %du, %s, %s, %s, %s, %d, %s)) goto fail;" % (
            at, op, tg, n, L(a), L(b), L(c), em.tag(R), ROUND_MODES.index(e.mode), rl))
        return out
    return None

def _named_op(em, e, name, T, lines):
    """clamp, uabs, mul_full, isqrt, isqrt_round, div_round, muldiv, rotl and rotr on I8..U64 with the
    records of intmachine.py; each counts one step (interp: Evaluator.builtin)."""
    em.ctype(T)
    sg = 1 if T.signed else 0

    def vals(xs):
        return [em.tmp(em.ctype(x.ty), lines, em.expr(x, lines)) for x in xs]

    def bits(v):
        return "(uint64_t)%s" % v

    def step():
        if em.fn_kind == "kernel":
            lines.append("step++;")
    if name == "clamp":
        x, lo, hi = vals(e.argv)
        op = _opid(e)
        lines.append("if (%s > %s) { (void)cintg_clamp_fault(ctx, %s, \"%s\", %s, %s, %s, %s); goto fail; }" % (
            lo, hi, em.at(e.callee.span), op, em.tag(T), bits(x), bits(lo), bits(hi)))
        if em.fn_kind == "kernel":
            lines.append("else step++;")
        return "((%s < %s) ? %s : (%s > %s) ? %s : %s)" % (x, lo, lo, x, hi, hi, x)
    if name == "uabs":
        (a,) = vals(e.argv)
        step()
        ut = CT[(False, T.bits)]
        return "((%s)(cint_is_neg((int64_t)%s) ? (uint64_t)0 - (uint64_t)%s : (uint64_t)%s))" % (ut, a, a, a)
    if name == "mul_full":
        if T.bits > 32:
            return None
        a, b = vals(e.argv)
        step()
        wt = CT[(T.signed, T.bits * 2)]
        return "((%s)((%s)%s * (%s)%s))" % (wt, wt, a, wt, b)
    r = em.tmp("uint64_t", lines, "0")
    if name in ("isqrt", "isqrt_round"):
        (x,) = vals(e.argv[:1])
        mode = ROUND_MODES.index(e.mode) if name == "isqrt_round" else -1
        op = _opid(e)
        lines.append("if (cintg_isqrt(ctx, %s, \"%s\", %s, %d, %du, %s, %d, &%s)) goto fail;" % (
            em.at(e.callee.span), op, em.tag(T), sg, T.bits, bits(x), mode, r))
        return "cintg_wrap_%s(%s)" % (T.token, r)
    if name in ("div_round", "muldiv"):
        if name == "muldiv":
            R = e.R
            if not isinstance(R, IntType) or R.bits > 64:
                return None
            a, b, c = vals(e.argv[1:4])
            op = _opid(e)
            n = 3
        else:
            R = T
            a, b = vals(e.argv[:2])
            c = "0"
            op = _opid(e)
            n = 2
        lines.append("if (cintg_rounddiv(ctx, %s, \"%s\", %s, %d, %du, %s, %s, %s, %s, %d, %du, %d, &%s)) goto fail;"
                     % (em.at(e.callee.span), op, em.tag(T), sg, n, bits(a), bits(b), "(uint64_t)" + c,
                        em.tag(R), 1 if R.signed else 0, R.bits, ROUND_MODES.index(e.mode), r))
        return "cintg_wrap_%s(%s)" % (R.token, r)
    if name in ("rotl", "rotr"):
        a, k = vals(e.argv[:2])
        kt = e.argv[1].ty
        if not isinstance(kt, IntType) or kt.bits > 64:
            return None
        lines.append("if (cintg_rotate(ctx, %s, \"%s\", %s, %du, %s, %s, %s, %d, &%s)) goto fail;" % (
            em.at(e.callee.span), _opid(e), em.tag(T), T.bits, bits(a), em.tag(kt), bits(k),
            1 if name == "rotl" else 0, r))
        return "cintg_wrap_%s(%s)" % (T.token, r)
    return None

def _array_builtin(em, e, name, lines):
    """copy, fill, equal, transpose and reverse (SPEC-04 LS-70, LS-145): the arguments in order, one
    counted step, a fault at the callee name (interp: Evaluator.array_builtin)."""
    vals = []
    for a in e.argv:
        if isinstance(a.ty, (ArrayType, StructType)):
            vals.append(em.expr(a, lines))
        else:
            vals.append(em.tmp(em.ctype(a.ty, a.span), lines, em.expr(a, lines)))
    t = e.argv[0].ty
    if name == "copy":
        lines.append("if (cintg_copy(ctx, %s, &(%s), &(%s), sizeof(%s))) goto fail;" % (
            em.at(e.callee.span), vals[0], vals[1], em.ctype(t.elem, e.span)))
        return "0"
    if em.fn_kind == "kernel":
        lines.append("step++;")
    if name == "transpose":
        return em.tmp("cint_gen_array", lines, "cintg_transpose(&(%s))" % vals[0])
    if name == "reverse":
        return em.tmp("cint_gen_array", lines, "cintg_reverse(&(%s), %du)" % (vals[0], e.dim))
    if name == "fill":
        v = em.tmp(em.ctype(t.elem, e.span), lines, vals[1])
        lines.append("cintg_fill(&(%s), &%s);" % (vals[0], v))
        return "0"
    if isinstance(t.elem, StructType):
        raise refuse(e.span, "`equal` on arrays of structs")
    return em.tmp("uint8_t", lines, "(uint8_t)cintg_equal(&(%s), &(%s))" % (vals[0], vals[1]))
