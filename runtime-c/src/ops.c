/* ops.c: the slow paths of cint_rt_ops.h. Each computes the exact result of the faulting
   operation in Z and builds its record (SPEC-01P.1 IM-30 to IM-45, IM-77 to IM-81, IM-106,
   IM-186). Operands of at most 64 bits give exact results below 2^128 in magnitude, so a
   sign and a 128-bit magnitude hold every value here. */
#include <stdio.h>

#include "rt_internal.h"

typedef struct zval {
    bool neg;
    uint64_t lo, hi; /* magnitude */
} zval;

static zval z_of(uint32_t tag, uint64_t bits)
{
    zval z = {false, bits, 0};
    if (rt_int_signed(tag) && (int64_t)bits < 0) {
        z.neg = true;
        z.lo = (uint64_t)0 - bits;
    }
    return z;
}

static bool z_is_zero(zval a) { return a.lo == 0 && a.hi == 0; }

/* -1, 0, 1 as the magnitude of a is below, equal to or above that of b. */
static int mag_cmp(zval a, zval b)
{
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
    return 0;
}

static zval z_add(zval a, zval b)
{
    zval r;
    if (a.neg == b.neg) {
        r.neg = a.neg;
        r.lo = a.lo + b.lo;
        r.hi = a.hi + b.hi + (r.lo < a.lo);
        return r;
    }
    if (mag_cmp(a, b) < 0) {
        zval t = a;
        a = b;
        b = t;
    }
    r.neg = a.neg;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    if (z_is_zero(r)) r.neg = false;
    return r;
}

static zval z_neg(zval a)
{
    a.neg = !a.neg && !z_is_zero(a);
    return a;
}

/* The product of two magnitudes below 2^64. */
static zval z_mul(zval a, zval b)
{
    uint64_t x = a.lo, y = b.lo;
    uint64_t x0 = x & 0xFFFFFFFFu, x1 = x >> 32, y0 = y & 0xFFFFFFFFu, y1 = y >> 32;
    uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    zval r;
    r.lo = (p00 & 0xFFFFFFFFu) | (mid << 32);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    r.neg = (a.neg != b.neg) && !z_is_zero(r);
    return r;
}

static zval z_shl(zval a, unsigned k)
{
    if (k == 0) return a;
    a.hi = (a.hi << k) | (a.lo >> (64u - k));
    a.lo <<= k;
    return a;
}

/* 17 bytes of little-endian two's complement; the runtime keeps the minimal Z of them. */
static void z_bytes(zval a, uint8_t out[17])
{
    uint64_t lo = a.lo, hi = a.hi, top = 0;
    if (a.neg) { /* two's complement of the magnitude over 136 bits */
        lo = ~lo + 1u;
        hi = ~hi + (lo == 0);
        top = ~(uint64_t)0;
    }
    for (unsigned k = 0; k < 8; k++) {
        out[k] = (uint8_t)(lo >> (8u * k));
        out[8 + k] = (uint8_t)(hi >> (8u * k));
    }
    out[16] = (uint8_t)top;
}

/* The bounds of an integer type as values and as bits. */
static uint64_t max_bits(uint32_t tag)
{
    unsigned w = rt_int_width(tag);
    if (rt_int_signed(tag)) return (UINT64_C(1) << (w - 1u)) - 1u;
    return w == 64u ? UINT64_MAX : (UINT64_C(1) << w) - 1u;
}

static uint64_t min_bits(uint32_t tag)
{
    unsigned w = rt_int_width(tag);
    return rt_int_signed(tag) ? (uint64_t)0 - (UINT64_C(1) << (w - 1u)) : 0u;
}

/* Raises E_OVERFLOW (or E_NARROW) for exact outside type tag: limit the bound crossed. */
static int raise_range(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, const cint_tvalue *ops,
                       uint16_t n, zval exact, uint32_t tag)
{
    uint8_t bytes[17];
    cint_tvalue limit;
    z_bytes(exact, bytes);
    cint_tv_int(&limit, tag, exact.neg ? min_bits(tag) : max_bits(tag));
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = code;
    f.operation = op;
    f.operands = ops;
    f.operand_count = n;
    f.exact = bytes;
    f.exact_len = sizeof bytes;
    f.limit = &limit;
    rt_raise(ctx, at, &f);
    return 1;
}

static const char *const k_op_names[] = {"", "add", "sub", "mul", "neg", "div", "rem", "shl", "shl", "shr"};

int cint_gen_arith_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t tag, uint64_t a, uint64_t b)
{
    char name[32];
    cint_tvalue ops[2];
    if (op < CINT_OP_ADD || op > CINT_OP_REM || rt_int_width(tag) == 0) return cint_gen_raise(ctx, at, NULL);
    snprintf(name, sizeof name, "%s.checked.%s", k_op_names[op], rt_type_suffix(tag));
    cint_tv_int(&ops[0], tag, a);
    cint_tv_int(&ops[1], tag, b);
    zval x = z_of(tag, a), y = z_of(tag, b), e;
    switch (op) {
    case CINT_OP_ADD: e = z_add(x, y); break;
    case CINT_OP_SUB: e = z_add(x, z_neg(y)); break;
    case CINT_OP_MUL: e = z_mul(x, y); break;
    case CINT_OP_NEG: return raise_range(ctx, at, CINT_E_OVERFLOW, name, ops, 1, z_neg(x), tag);
    default: /* DIV, REM */
        if (b == 0) {
            cint_gen_fault f;
            memset(&f, 0, sizeof f);
            f.code = CINT_E_DIV_ZERO;
            f.operation = name;
            f.operands = ops;
            f.operand_count = 2;
            rt_raise(ctx, at, &f);
            return 1;
        }
        e = z_neg(x); /* MIN / -1: the quotient -MIN */
        break;
    }
    return raise_range(ctx, at, CINT_E_OVERFLOW, name, ops, 2, e, tag);
}

int cint_gen_shift_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t tag, uint64_t a, uint32_t ktag,
                         uint64_t k)
{
    char name[32];
    cint_tvalue ops[2], limit;
    unsigned w = rt_int_width(tag);
    if (op < CINT_OP_SHL || op > CINT_OP_SHR || w == 0 || rt_int_width(ktag) == 0) return cint_gen_raise(ctx, at, NULL);
    snprintf(name, sizeof name, "%s.%s.%s", k_op_names[op], op == CINT_OP_SHL_WRAP ? "wrap" : "checked",
             rt_type_suffix(tag));
    cint_tv_int(&ops[0], tag, a);
    cint_tv_int(&ops[1], ktag, k);
    bool in_range = !(rt_int_signed(ktag) && (int64_t)k < 0) && k <= w - 1u;
    if (in_range && op == CINT_OP_SHL)
        return raise_range(ctx, at, CINT_E_OVERFLOW, name, ops, 2, z_shl(z_of(tag, a), (unsigned)k), tag);
    cint_tv_i64(&limit, (int64_t)(w - 1u));
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = CINT_E_SHIFT;
    f.operation = name;
    f.operands = ops;
    f.operand_count = 2;
    f.limit = &limit;
    rt_raise(ctx, at, &f);
    return 1;
}

int cint_gen_narrow_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t from, uint32_t to, uint64_t v)
{
    char name[40];
    cint_tvalue op;
    if (rt_int_width(from) == 0 || rt_int_width(to) == 0) return cint_gen_raise(ctx, at, NULL);
    snprintf(name, sizeof name, "as.checked.%s.%s", rt_type_suffix(from), rt_type_suffix(to));
    cint_tv_int(&op, from, v);
    return raise_range(ctx, at, CINT_E_NARROW, name, &op, 1, z_of(from, v), to);
}

/* The element type's part of an operation identifier: i64, struct, q16_16 (IM-130). */
static void elem_suffix(const cint_type *t, char *out, size_t cap)
{
    if (t->code == CINT_TAG_Q) {
        unsigned w = rt_int_width(t->storage);
        snprintf(out, cap, "q%u_%u", w - t->frac, (unsigned)t->frac);
    } else {
        snprintf(out, cap, "%s", rt_type_suffix(t->code));
    }
}

int cint_gen_index_fault(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t dim, int64_t index)
{
    char name[48], sfx[16];
    cint_tvalue ops[2], limit;
    elem_suffix(&a->type, sfx, sizeof sfx);
    snprintf(name, sizeof name, "index.checked.%s", sfx);
    uint16_t n = 0;
    if (a->rank >= 2) cint_tv_i64(&ops[n++], (int64_t)dim);
    cint_tv_i64(&ops[n++], index);
    cint_tv_i64(&limit, dim < 4 ? a->shape[dim] : 0);
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = CINT_E_BOUNDS;
    f.operation = name;
    f.operands = ops;
    f.operand_count = n;
    f.limit = &limit;
    rt_raise(ctx, at, &f);
    return 1;
}

static uint64_t load_bits(const uint8_t *p, uint32_t tag)
{
    switch (tag) {
    case CINT_TAG_I8: { int8_t v; memcpy(&v, p, 1); return (uint64_t)(int64_t)v; }
    case CINT_TAG_I16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
    case CINT_TAG_I32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    case CINT_TAG_I64: { int64_t v; memcpy(&v, p, 8); return (uint64_t)v; }
    case CINT_TAG_U8: return p[0];
    case CINT_TAG_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case CINT_TAG_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

int cint_gen_sum(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t rtag, void *out)
{
    uint32_t etag = a->type.code;
    if (rt_int_width(etag) == 0 || rt_int_width(rtag) == 0) return cint_gen_raise(ctx, at, NULL);
    int64_t n = rt_count(a);
    if (cint_gen_charge(ctx, at, n / 64 + (n % 64 != 0))) return 1;
    zval s = {false, 0, 0};
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < a->rank; d++) off += idx[d] * a->stride[d];
        s = z_add(s, z_of(etag, load_bits(a->data + off * a->elem_size, etag)));
        for (uint32_t d = a->rank; d-- > 0;) {
            if (++idx[d] < a->shape[d]) break;
            idx[d] = 0;
        }
    }
    /* the range check of the result type */
    zval lo = z_of(rtag, min_bits(rtag)), hi = z_of(rtag, max_bits(rtag));
    bool fits = s.neg ? (lo.neg && mag_cmp(s, lo) <= 0) : mag_cmp(s, hi) <= 0;
    if (!fits) {
        char name[40];
        cint_tvalue op;
        if (rtag == etag) snprintf(name, sizeof name, "sum.checked.%s", rt_type_suffix(etag));
        else snprintf(name, sizeof name, "sum.checked.%s.%s", rt_type_suffix(etag), rt_type_suffix(rtag));
        cint_tv_i64(&op, n);
        return raise_range(ctx, at, CINT_E_OVERFLOW, name, &op, 1, s, rtag);
    }
    uint64_t bits = s.neg ? (uint64_t)0 - s.lo : s.lo;
    unsigned w = rt_int_width(rtag) / 8u;
    for (unsigned k = 0; k < w; k++) ((uint8_t *)out)[k] = (uint8_t)(bits >> (8u * k));
    return 0;
}
