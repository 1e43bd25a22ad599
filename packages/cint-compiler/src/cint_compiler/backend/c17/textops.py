"""cpu-c17 code for `format(buf, "...")`, `utf8(bytes)` and `swap(a, b)` (SPEC-04P.1 LS-216, section 6.8;
docs/language.md decision 26), byte for byte the outcomes of textops (the reference executor). ``em`` is the
backend_c emitter.
"""

from __future__ import annotations

from cint_compiler.syntax import tree as A


def emit(em, e, lines):
    name = e.bname
    if name == "swap":
        a = em.expr(e.argv[0], lines)
        b = em.expr(e.argv[1], lines)
        lines.append("cintg_swap(&(%s), &(%s));" % (a, b))
        return "0"
    u = em.tmp(em.ctype(e.ty, e.span), lines)
    tag = e.ty.errset.tag_of(e.ty.errset.values[0])      # capacity or invalid: tag 1
    if name == "utf8":
        v = em.tmp("cint_gen_array", lines, em.expr(e.argv[0], lines))
        lines.append("if (cintg_utf8_valid(&%s)) { %s.value = %s; %s.value.perm = CINT_VIEW_READ; } "
                     "else %s.tag = %d;" % (v, u, v, u, u, tag))
        return u
    buf = em.tmp("cint_gen_array", lines, em.expr(e.argv[0], lines))
    mark = em.tmp("size_t", lines, "0")
    lines.append("if (cint_gen_format_begin(ctx, &%s)) goto fail;" % mark)
    for p in e.argv[1].parts:
        if isinstance(p, A.Hole):
            v = em.expr(p.expr, lines)
            if p.eq:
                em.print_text((p.source + "=").encode("utf-8"), lines)
            em.print_value(p, p.expr.ty, v, getattr(p, "fspec", None), lines)
        else:
            em.print_text(p.encode("utf-8") if isinstance(p, str) else p, lines)
    n = em.tmp("int64_t", lines, "0")
    r = em.tmp("int", lines, "cint_gen_format_end(ctx, %s, %s.data, %s.stride[0], %s.shape[0], &%s)"
               % (mark, buf, buf, buf, n))
    lines.append("if (%s == 1) goto fail;" % r)
    lines.append("if (%s == 0) { %s.value = %s; %s.value.shape[0] = %s; %s.value.perm = CINT_VIEW_READ; } "
                 "else %s.tag = %d;" % (r, u, buf, u, n, u, u, tag))
    return u
