"""C17 code of Proposed constructs of SPEC-04P.1 (docs/language.md decisions 27 to 31): `wrap_bits`
(LS-83) and sub-word access (LS-85, LS-86).  Field defaults, `var` and distinct types need no code of
their own: the checker resolves them to what the backend already emits."""
from __future__ import annotations


def wrap_bits(bk, e, lines):
    """`wrap_bits(v, w)` for T of I8..I64 and a constant w (proposed_check.wrap_bits): the low w bits of v's
    two's complement, the bit w - 1 taken as the sign.  One step (a kernel's ordinal), no fault."""
    T = e.T
    w = e.wbits
    v = bk.tmp(bk.ctype(T), lines, bk.expr(e.argv[0], lines))
    bk.expr(e.argv[1], lines)       # a folded constant: nothing to evaluate
    if bk.fn_kind == "kernel":
        lines.append("step++;")
    if w == T.bits:
        return v
    half = 1 << (w - 1)
    # (low bits below the sign) - (the sign bit's weight): no shift of a negative value, no overflow
    return "((%s)((int64_t)((uint64_t)(int64_t)%s & UINT64_C(%d)) - (int64_t)((uint64_t)(int64_t)%s & UINT64_C(%d))))" % (
        bk.ctype(T), v, half - 1, v, half)


def _mask(width):
    return "UINT64_C(%d)" % ((1 << width) - 1)


def subword_read(bk, e, lines):
    """`x.bits[lo..hi]`, `x.byte[k]`, `x.lanes(T)[k]` of an I8..I64/U8..U64 `x`: the bits of its two's
    complement (the conversion to uint64_t is exact modulo 2^64), shifted down and masked.  No step."""
    shift, width, _, _ = e.subword
    x = bk.expr(e.subword_x, lines)
    return "((%s)(((uint64_t)(%s) >> %d) & %s))" % (bk.ctype(e.ty), x, shift, _mask(width))


def subword_write(bk, s, lines):
    """`x.byte[k] = v;`: x's place first (its checks), then v, then x with those bits replaced; a signed x
    is rebuilt from its bits without an out-of-range conversion."""
    shift, width, signed, bits = s.subword
    xe = s.place.subword_x
    place = bk.place(xe, lines)
    v = bk.tmp(bk.ctype(s.value.ty), lines, bk.expr(s.value, lines))
    u = bk.tmp("uint64_t", lines, "(((uint64_t)(%s) & %s & ~(%s << %d)) | ((uint64_t)(%s) << %d))" % (
        place, _mask(bits), _mask(width), shift, v, shift))
    ct = bk.ctype(xe.ty)
    if signed:
        lines.append("%s = ((%s >> %d) & 1u) ? (%s)(-(int64_t)(~%s & %s) - 1) : (%s)(int64_t)%s;" % (
            place, u, bits - 1, ct, u, _mask(bits), ct, u))
    else:
        lines.append("%s = (%s)%s;" % (place, ct, u))
