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
    return cint_gen_index_fault_of(ctx, at, a->type, a->rank, dim < 4 ? a->shape[dim] : 0, dim, index);
}

int cint_gen_assert_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t nops, uint32_t atag, uint64_t a,
                          uint32_t btag, uint64_t b)
{
    cint_tvalue ops[2];
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = CINT_E_ASSERT;
    f.operation = "assert.checked.bool";
    if (nops == 2u) {
        cint_tv_int(&ops[0], atag, a);
        cint_tv_int(&ops[1], btag, b);
        f.operands = ops;
        f.operand_count = 2;
    }
    rt_raise(ctx, at, &f);
    return 1;
}

int cint_gen_decl_shape_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t dim, int64_t extent)
{
    cint_tvalue ops[2], limit;
    cint_tv_i64(&ops[0], (int64_t)dim);
    cint_tv_i64(&ops[1], extent);
    cint_tv_i64(&limit, 0);
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = CINT_E_SHAPE;
    f.operation = "decl.shape";
    f.operands = ops;
    f.operand_count = 2;
    f.limit = &limit;
    rt_raise(ctx, at, &f);
    return 1;
}

int cint_gen_index_fault_of(cint_ctx *ctx, const cint_gen_at *at, cint_type type, uint32_t rank, int64_t extent,
                            uint32_t dim, int64_t index)
{
    char name[48], sfx[16];
    cint_tvalue ops[2], limit;
    elem_suffix(&type, sfx, sizeof sfx);
    snprintf(name, sizeof name, "index.checked.%s", sfx);
    uint16_t n = 0;
    if (rank >= 2) cint_tv_i64(&ops[n++], (int64_t)dim);
    cint_tv_i64(&ops[n++], index);
    cint_tv_i64(&limit, extent);
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

/* --- sum (IM-77 to IM-81) ------------------------------------------------------------------------

   The exact sum accumulates in a signed 128-bit integer: every element is below 2^64 in
   magnitude, so n <= 2^63 elements sum to less than 2^127 and the accumulator never
   overflows. A run of contiguous elements is summed in blocks of at most 2^30 elements with
   64-bit partial sums that cannot wrap (see each loop), each block added to the total. */

__extension__ typedef __int128 rt_i128;
__extension__ typedef unsigned __int128 rt_u128;
#ifndef RT_SUM_BLOCK /* tests/run.sh also builds the tests with small blocks */
#define RT_SUM_BLOCK (INT64_C(1) << 30)
#endif

#if defined(__GNUC__)
typedef uint64_t rt_v2u64 __attribute__((vector_size(16)));
#define RT_SUM_VECTORS 1
#endif

/* n I64 (sign 1) or U64 (sign 0) elements at p, contiguous, n <= RT_SUM_BLOCK. Each element,
   with its sign bit flipped when signed (x + 2^63, in 0 .. 2^64 - 1), is split into 32-bit
   halves; the halves of at most 2^30 elements sum below 2^62 in each lane. */
static rt_i128 sum_block_64(const uint8_t *p, int64_t n, int sign)
{
    uint64_t flip = sign ? UINT64_C(1) << 63 : 0u;
    uint64_t lo = 0, hi = 0;
    int64_t i = 0;
#ifdef RT_SUM_VECTORS
    const rt_v2u64 mask = {0xFFFFFFFFu, 0xFFFFFFFFu}, fv = {flip, flip};
    rt_v2u64 l0 = {0, 0}, h0 = {0, 0}, l1 = {0, 0}, h1 = {0, 0};
    for (; i + 8 <= n; i += 8) { /* one 64-byte line per iteration, the line 4 KiB ahead prefetched */
        rt_v2u64 a, b, c, d;
        const uint8_t *q = p + i * 8;
        __builtin_prefetch((const void *)((uintptr_t)q + 4096u)); /* an address, never dereferenced */
        memcpy(&a, q, 16);
        memcpy(&b, q + 16, 16);
        memcpy(&c, q + 32, 16);
        memcpy(&d, q + 48, 16);
        a ^= fv, b ^= fv, c ^= fv, d ^= fv;
        l0 += (a & mask) + (c & mask);
        h0 += (a >> 32) + (c >> 32);
        l1 += (b & mask) + (d & mask);
        h1 += (b >> 32) + (d >> 32);
    }
    l0 += l1;
    h0 += h1;
    lo = l0[0] + l0[1];
    hi = h0[0] + h0[1];
#endif
    for (; i < n; i++) {
        uint64_t v;
        memcpy(&v, p + i * 8, 8);
        v ^= flip;
        lo += v & 0xFFFFFFFFu;
        hi += v >> 32;
    }
    rt_i128 s = ((rt_i128)hi << 32) + (rt_i128)lo;
    if (sign) s -= (rt_i128)n << 63;
    return s;
}

/* n elements of 1, 2 or 4 bytes at p, step elements apart: at most 2^30 of them sum below
   2^62 in magnitude in each of four 64-bit accumulators. */
#define RT_SUM_NARROW_(NAME, T, ACC)                                                                     \
    static rt_i128 NAME(const uint8_t *p, int64_t n, int64_t step)                                     \
    {                                                                                                  \
        ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                            \
        int64_t i = 0;                                                                                 \
        if (step == 1) {                                                                               \
            for (; i + 4 <= n; i += 4) {                                                               \
                T v[4];                                                                                \
                memcpy(v, p + i * (int64_t)sizeof(T), sizeof v);                                       \
                a0 += v[0], a1 += v[1], a2 += v[2], a3 += v[3];                                        \
            }                                                                                          \
        }                                                                                              \
        for (; i < n; i++) {                                                                           \
            T v;                                                                                       \
            memcpy(&v, p + i * step * (int64_t)sizeof(T), sizeof v);                                   \
            a0 += v;                                                                                   \
        }                                                                                              \
        return (rt_i128)a0 + (rt_i128)a1 + (rt_i128)a2 + (rt_i128)a3;                                  \
    }
RT_SUM_NARROW_(sum_block_i8, int8_t, int64_t)
RT_SUM_NARROW_(sum_block_i16, int16_t, int64_t)
RT_SUM_NARROW_(sum_block_i32, int32_t, int64_t)
RT_SUM_NARROW_(sum_block_u8, uint8_t, uint64_t)
RT_SUM_NARROW_(sum_block_u16, uint16_t, uint64_t)
RT_SUM_NARROW_(sum_block_u32, uint32_t, uint64_t)
#undef RT_SUM_NARROW_

/* n I64 or U64 elements step elements apart (step != 1). */
static rt_i128 sum_strided_64(const uint8_t *p, int64_t n, int64_t step, int sign)
{
    rt_i128 s = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, p + i * step * 8, 8);
        s += sign ? (rt_i128)(int64_t)v : (rt_i128)v;
    }
    return s;
}

/* The exact sum of the n elements of a run (n <= RT_SUM_BLOCK). */
static rt_i128 sum_block(uint32_t tag, const uint8_t *p, int64_t n, int64_t step)
{
    switch (tag) {
    case CINT_TAG_I8: return sum_block_i8(p, n, step);
    case CINT_TAG_I16: return sum_block_i16(p, n, step);
    case CINT_TAG_I32: return sum_block_i32(p, n, step);
    case CINT_TAG_U8: return sum_block_u8(p, n, step);
    case CINT_TAG_U16: return sum_block_u16(p, n, step);
    case CINT_TAG_U32: return sum_block_u32(p, n, step);
    case CINT_TAG_I64: return step == 1 ? sum_block_64(p, n, 1) : sum_strided_64(p, n, step, 1);
    default: return step == 1 ? sum_block_64(p, n, 0) : sum_strided_64(p, n, step, 0);
    }
}

int cint_gen_sum(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t rtag, void *out)
{
    return cint_gen_sum_at(ctx, at, at, a, rtag, out);
}

int cint_gen_sum_at(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
                    uint32_t rtag, void *out)
{
    uint32_t etag = a->type.code;
    if (rt_int_width(etag) == 0 || rt_int_width(rtag) == 0) return cint_gen_raise(ctx, at, NULL);
    int64_t n = rt_count(a);
    if (cint_gen_charge(ctx, charge_at, n / 64 + (n % 64 != 0))) return 1;
    /* the exact sum, run by run (one run for a contiguous array) */
    rt_i128 total = 0;
    rt_runs r;
    uint8_t *p;
    rt_runs_begin(&r, a);
    while (rt_runs_next(&r, &p))
        for (int64_t done = 0; done < r.len; done += RT_SUM_BLOCK) {
            int64_t m = r.len - done < RT_SUM_BLOCK ? r.len - done : RT_SUM_BLOCK;
            total += sum_block(etag, p + done * r.step * a->elem_size, m, r.step);
        }
    zval s = {total < 0, 0, 0};
    {
        /* |total| < 2^127: its magnitude as two limbs */
        rt_u128 mag = total < 0 ? (rt_u128)0 - (rt_u128)total : (rt_u128)total;
        s.lo = (uint64_t)mag;
        s.hi = (uint64_t)(mag >> 64);
    }
    /* the range check of the result type */
    zval lo = z_of(rtag, min_bits(rtag)), hi = z_of(rtag, max_bits(rtag));
    bool fits = s.neg ? (lo.neg && mag_cmp(s, lo) <= 0) : mag_cmp(s, hi) <= 0;
    if (!fits) {
        char name[40];
        cint_tvalue op;
        /* the second type is always present (SPEC-01P.1 section 9.8) */
        snprintf(name, sizeof name, "sum.checked.%s.%s", rt_type_suffix(etag), rt_type_suffix(rtag));
        cint_tv_i64(&op, n);
        return raise_range(ctx, at, CINT_E_OVERFLOW, name, &op, 1, s, rtag);
    }
    uint64_t bits = s.neg ? (uint64_t)0 - s.lo : s.lo;
    unsigned w = rt_int_width(rtag) / 8u;
    for (unsigned k = 0; k < w; k++) ((uint8_t *)out)[k] = (uint8_t)(bits >> (8u * k));
    return 0;
}
