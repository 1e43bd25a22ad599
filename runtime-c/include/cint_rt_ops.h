/* cint_rt_ops.h: checked integer operations for generated code (SPEC-01P.1 sections 4, 6).
 *
 * Static inline functions over I8 to U64, named <op>_<form>_<type>:
 *   cint_add_checked_i64(ctx, at, a, b, &r)  and sub, mul: E_OVERFLOW with the exact result
 *   cint_add_wrap_i64(a, b), cint_add_sat_i64(a, b)       and sub, mul: never fault
 *   cint_neg_checked_i64(ctx, at, a, &r)
 *   cint_div_checked_i64, cint_rem_checked_i64            floor division (IM-35): E_DIV_ZERO
 *                                                         for 0, E_OVERFLOW for MIN / -1
 *   cint_shl_checked_i64(ctx, at, a, ktag, k, &r)         and shl_wrap, shr: E_SHIFT unless
 *                                                         0 <= k <= w - 1 (IM-45); the count
 *                                                         k is any integer type ktag, given
 *                                                         as its value converted to uint64_t
 *   cint_as_checked(ctx, at, from, to, v, &r)             E_NARROW
 *   cint_index(ctx, at, a, dim, i)                        E_BOUNDS (IM-186)
 *   cint_elem1 .. cint_elem4(a, i..)                      element addresses of a bound array
 * Functions that can fault return 0, or 1 after the fault is raised (cint_rt_gen.h). No
 * native operation runs on operands that would make it undefined (IM-123 to IM-125): sums,
 * differences and products go through __builtin_*_overflow, divisions test 0 and MIN / -1
 * first, shifts test their count first.
 */
#ifndef CINT_RT_OPS_H
#define CINT_RT_OPS_H

#include "cint_rt_gen.h"

/* Whether v is negative (a function, so that no comparison is flagged as constant for
   unsigned instantiations of the macros below). */
static inline int cint_is_neg(int64_t v) { return v < 0; }

/* --- add, sub, mul ------------------------------------------------------------------------ */

#define CINT_OPS_ASM_(T, SFX, TAG, SIGNED, MINV, MAXV)                                                    \
    static inline int cint_add_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        if (!__builtin_add_overflow(a, b, r)) return 0;                                                    \
        return cint_gen_arith_fault(ctx, at, CINT_OP_ADD, TAG, (uint64_t)a, (uint64_t)b);                  \
    }                                                                                                      \
    static inline int cint_sub_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        if (!__builtin_sub_overflow(a, b, r)) return 0;                                                    \
        return cint_gen_arith_fault(ctx, at, CINT_OP_SUB, TAG, (uint64_t)a, (uint64_t)b);                  \
    }                                                                                                      \
    static inline int cint_mul_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        if (!__builtin_mul_overflow(a, b, r)) return 0;                                                    \
        return cint_gen_arith_fault(ctx, at, CINT_OP_MUL, TAG, (uint64_t)a, (uint64_t)b);                  \
    }                                                                                                      \
    static inline T cint_add_wrap_##SFX(T a, T b)                                                          \
    {                                                                                                      \
        T r;                                                                                               \
        (void)__builtin_add_overflow(a, b, &r);                                                            \
        return r;                                                                                          \
    }                                                                                                      \
    static inline T cint_sub_wrap_##SFX(T a, T b)                                                          \
    {                                                                                                      \
        T r;                                                                                               \
        (void)__builtin_sub_overflow(a, b, &r);                                                            \
        return r;                                                                                          \
    }                                                                                                      \
    static inline T cint_mul_wrap_##SFX(T a, T b)                                                          \
    {                                                                                                      \
        T r;                                                                                               \
        (void)__builtin_mul_overflow(a, b, &r);                                                            \
        return r;                                                                                          \
    }                                                                                                      \
    /* Saturating forms: on overflow the bound on the side of the exact result. */                        \
    static inline T cint_add_sat_##SFX(T a, T b)                                                           \
    {                                                                                                      \
        T r;                                                                                               \
        if (!__builtin_add_overflow(a, b, &r)) return r;                                                   \
        return (SIGNED && cint_is_neg((int64_t)a)) ? (T)(MINV) : (T)(MAXV);                                                 \
    }                                                                                                      \
    static inline T cint_sub_sat_##SFX(T a, T b)                                                           \
    {                                                                                                      \
        T r;                                                                                               \
        if (!__builtin_sub_overflow(a, b, &r)) return r;                                                   \
        return (!SIGNED || cint_is_neg((int64_t)a)) ? (T)(MINV) : (T)(MAXV);                                                \
    }                                                                                                      \
    static inline T cint_mul_sat_##SFX(T a, T b)                                                           \
    {                                                                                                      \
        T r;                                                                                               \
        if (!__builtin_mul_overflow(a, b, &r)) return r;                                                   \
        return (SIGNED && ((cint_is_neg((int64_t)a)) != (cint_is_neg((int64_t)b)))) ? (T)(MINV) : (T)(MAXV);                                  \
    }                                                                                                      \
    static inline int cint_neg_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T *r)             \
    {                                                                                                      \
        if (!__builtin_sub_overflow((T)0, a, r)) return 0;                                                 \
        return cint_gen_arith_fault(ctx, at, CINT_OP_NEG, TAG, (uint64_t)a, 0u);                           \
    }

/* --- floor division and remainder (IM-35, IM-39, IM-40) ------------------------------------ */

#define CINT_OPS_DIV_(T, SFX, TAG, SIGNED, MINV)                                                          \
    static inline int cint_div_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        if (b == 0 || (SIGNED && a == (T)(MINV) && b == (T)-1))                                            \
            return cint_gen_arith_fault(ctx, at, CINT_OP_DIV, TAG, (uint64_t)a, (uint64_t)b);              \
        T q = (T)(a / b), m = (T)(a % b);                                                                  \
        if (SIGNED && m != 0 && ((cint_is_neg((int64_t)m)) != (cint_is_neg((int64_t)b)))) q = (T)(q - 1);                                      \
        *r = q;                                                                                            \
        return 0;                                                                                          \
    }                                                                                                      \
    static inline int cint_rem_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        if (b == 0) return cint_gen_arith_fault(ctx, at, CINT_OP_REM, TAG, (uint64_t)a, (uint64_t)b);     \
        if (SIGNED && a == (T)(MINV) && b == (T)-1) {                                                      \
            *r = 0;                                                                                        \
            return 0;                                                                                      \
        }                                                                                                  \
        T m = (T)(a % b);                                                                                  \
        if (SIGNED && m != 0 && ((cint_is_neg((int64_t)m)) != (cint_is_neg((int64_t)b)))) m = (T)(m + b);                                      \
        *r = m;                                                                                            \
        return 0;                                                                                          \
    }

/* --- shifts (IM-45) ------------------------------------------------------------------------- */

/* Whether a count k of type ktag, given as its value converted to uint64_t, is in 0..w-1. */
static inline int cint_count_ok(uint32_t ktag, uint64_t k, unsigned w)
{
    int is_signed = (ktag & 0xF0u) == 0x10u;
    if (is_signed && cint_is_neg((int64_t)k)) return 0;
    return k <= (uint64_t)(w - 1u);
}

#define CINT_OPS_SHIFT_(T, UT, SFX, TAG, SIGNED, W, MAXV)                                                  \
    static inline int cint_shl_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, uint32_t ktag,    \
                                             uint64_t k, T *r)                                             \
    {                                                                                                      \
        if (!cint_count_ok(ktag, k, W))                                                                    \
            return cint_gen_shift_fault(ctx, at, CINT_OP_SHL, TAG, (uint64_t)a, ktag, k);                  \
        /* in range exactly when (MIN / 2^k) <= a <= (MAX / 2^k); MIN / 2^k is -2^(w-1-k) */               \
        T hi = (T)((T)(MAXV) >> k);                                                                        \
        int fits = a <= hi;                                                                                \
        if (SIGNED && cint_is_neg((int64_t)a)) fits = (uint64_t)0 - (uint64_t)a <= ((uint64_t)1 << (W - 1u - k));            \
        if (!fits) return cint_gen_shift_fault(ctx, at, CINT_OP_SHL, TAG, (uint64_t)a, ktag, k);                 \
        *r = (T)(UT)((UT)a << k);                                                                          \
        return 0;                                                                                          \
    }                                                                                                      \
    static inline int cint_shl_wrap_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, uint32_t ktag,       \
                                          uint64_t k, T *r)                                                \
    {                                                                                                      \
        if (!cint_count_ok(ktag, k, W))                                                                    \
            return cint_gen_shift_fault(ctx, at, CINT_OP_SHL_WRAP, TAG, (uint64_t)a, ktag, k);             \
        *r = (T)(UT)((UT)a << k);                                                                          \
        return 0;                                                                                          \
    }                                                                                                      \
    static inline int cint_shr_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, uint32_t ktag,    \
                                             uint64_t k, T *r)                                             \
    {                                                                                                      \
        if (!cint_count_ok(ktag, k, W))                                                                    \
            return cint_gen_shift_fault(ctx, at, CINT_OP_SHR, TAG, (uint64_t)a, ktag, k);                  \
        /* floor(a / 2^k): for negative a, ~(~a >> k) shifts only a non-negative value */                \
        *r = (SIGNED && cint_is_neg((int64_t)a)) ? (T)~(T)((T)~a >> k) : (T)(a >> k);                                        \
        return 0;                                                                                          \
    }

#define CINT_OPS_ALL_(T, UT, SFX, TAG, SIGNED, W, MINV, MAXV)                                             \
    CINT_OPS_ASM_(T, SFX, TAG, SIGNED, MINV, MAXV)                                                         \
    CINT_OPS_DIV_(T, SFX, TAG, SIGNED, MINV)                                                               \
    CINT_OPS_SHIFT_(T, UT, SFX, TAG, SIGNED, W, MAXV)

CINT_OPS_ALL_(int8_t, uint8_t, i8, CINT_TAG_I8, 1, 8u, INT8_MIN, INT8_MAX)
CINT_OPS_ALL_(int16_t, uint16_t, i16, CINT_TAG_I16, 1, 16u, INT16_MIN, INT16_MAX)
CINT_OPS_ALL_(int32_t, uint32_t, i32, CINT_TAG_I32, 1, 32u, INT32_MIN, INT32_MAX)
CINT_OPS_ALL_(int64_t, uint64_t, i64, CINT_TAG_I64, 1, 64u, INT64_MIN, INT64_MAX)
CINT_OPS_ALL_(uint8_t, uint8_t, u8, CINT_TAG_U8, 0, 8u, 0, UINT8_MAX)
CINT_OPS_ALL_(uint16_t, uint16_t, u16, CINT_TAG_U16, 0, 16u, 0, UINT16_MAX)
CINT_OPS_ALL_(uint32_t, uint32_t, u32, CINT_TAG_U32, 0, 32u, 0, UINT32_MAX)
CINT_OPS_ALL_(uint64_t, uint64_t, u64, CINT_TAG_U64, 0, 64u, 0, UINT64_MAX)

/* --- conversions (as) ------------------------------------------------------------------------ */

/* The value of an integer of type tag given as uint64_t bits: whether it is negative. */
static inline int cint_int_negative(uint32_t tag, uint64_t v) { return (tag & 0xF0u) == 0x10u && cint_is_neg((int64_t)v); }

/* as.checked.<from>.<to> for I8 to U64: *r receives the value converted to uint64_t. */
static inline int cint_as_checked(cint_ctx *ctx, const cint_gen_at *at, uint32_t from, uint32_t to, uint64_t v,
                                  uint64_t *r)
{
    unsigned w = 8u << ((to & 0x0Fu) - 1u);
    int neg = cint_int_negative(from, v);
    int fits;
    if ((to & 0xF0u) == 0x10u) { /* signed target */
        int64_t lo = (w == 64u) ? INT64_MIN : -(INT64_C(1) << (w - 1u));
        int64_t hi = (w == 64u) ? INT64_MAX : (INT64_C(1) << (w - 1u)) - 1;
        fits = neg ? (int64_t)v >= lo : v <= (uint64_t)hi;
    } else {
        fits = !neg && (w == 64u || v <= ((UINT64_C(1) << w) - 1u));
    }
    if (!fits) return cint_gen_narrow_fault(ctx, at, from, to, v);
    *r = v;
    return 0;
}

/* --- arrays ----------------------------------------------------------------------------------- */

/* Checks index i of dimension dim: E_BOUNDS unless lower <= i < lower + shape. */
static inline int cint_index(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t dim, int64_t i)
{
    int64_t rel;
    if (__builtin_sub_overflow(i, a->lower[dim], &rel) || rel < 0 || rel >= a->shape[dim])
        return cint_gen_index_fault(ctx, at, a, dim, i);
    return 0;
}

/* The operands a with a * c within I64 (or U64): lo <= a <= hi; for the fast blocks of the LIR back end,
   which test a multiplication by a value fixed for the whole block (a kernel's scalar) this way, with no
   branch (docs/lir.md). */
static inline void cint_mul_range_i64(int64_t c, int64_t *lo, int64_t *hi)
{
    if (c == 0 || c == 1) {
        *lo = INT64_MIN;
        *hi = INT64_MAX;
    } else if (c == -1) {
        *lo = -INT64_MAX;
        *hi = INT64_MAX;
    } else if (c > 0) { /* C's division truncates: the quotient of a negative is its ceiling */
        *lo = INT64_MIN / c;
        *hi = INT64_MAX / c;
    } else {
        *lo = INT64_MAX / c;
        *hi = INT64_MIN / c;
    }
}
static inline void cint_mul_range_u64(uint64_t c, uint64_t *lo, uint64_t *hi)
{
    *lo = 0;
    *hi = c == 0 ? UINT64_MAX : UINT64_MAX / c;
}

/* Row i (checked) of a rank-2 array: the rank-1 view of its last dimension at index i of its first. */
static inline void cint_gen_row(const cint_gen_array *a, int64_t i, cint_gen_array *out)
{
    *out = *a;
    out->data = a->data + (i - a->lower[0]) * a->stride[0] * a->elem_size;
    out->rank = 1u;
    out->shape[0] = a->shape[1];
    out->stride[0] = a->stride[1];
    out->lower[0] = a->lower[1];
    for (uint32_t d = 1; d < 4u; d++) out->shape[d] = out->stride[d] = out->lower[d] = 0;
}

/* Element addresses of checked indices. */
static inline void *cint_elem1(const cint_gen_array *a, int64_t i0)
{
    return a->data + (i0 - a->lower[0]) * a->stride[0] * a->elem_size;
}
static inline void *cint_elem2(const cint_gen_array *a, int64_t i0, int64_t i1)
{
    return a->data + ((i0 - a->lower[0]) * a->stride[0] + (i1 - a->lower[1]) * a->stride[1]) * a->elem_size;
}
static inline void *cint_elem3(const cint_gen_array *a, int64_t i0, int64_t i1, int64_t i2)
{
    return a->data + ((i0 - a->lower[0]) * a->stride[0] + (i1 - a->lower[1]) * a->stride[1] +
                      (i2 - a->lower[2]) * a->stride[2]) * a->elem_size;
}
static inline void *cint_elem4(const cint_gen_array *a, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
    return a->data + ((i0 - a->lower[0]) * a->stride[0] + (i1 - a->lower[1]) * a->stride[1] +
                      (i2 - a->lower[2]) * a->stride[2] + (i3 - a->lower[3]) * a->stride[3]) * a->elem_size;
}

#endif /* CINT_RT_OPS_H */
