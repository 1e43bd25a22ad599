/* cint_rt_prelude.h: the helpers that every translation unit of the C17 emitter includes
 * (backend/c17/emit.py, executor cpu-c17), after cint_rt_ops.h: wrapping conversions, the named
 * integer operations (abs, the division family, muldiv and div_round, isqrt, rotations), exact
 * 128-bit arithmetic, fixed point, views and slices, whole-array operations (copy, fill, equal,
 * swap), the alias tests of calls, Str comparison and printing, kernel reductions.
 *
 * Internal to generated code, like cint_rt_gen.h; host programs never include it. Names are
 * cintg_* and CINTG_*. What is static inline here is what runs at an operation, a slice or a call:
 * the operation and its test, the view of a slice, a local array, a whole-array copy (array literals
 * and assignments), fill, equal, the quick alias test, so that the C compiler sees the operands
 * (constant divisors, rounding modes, element sizes, shapes, slice bounds) and nothing costs a call;
 * every fault record, swap, the element walk of the alias test, the copies of a dispatch's
 * interleaved arguments, printing and Str helpers are functions of src/prelude.c, declared
 * below, built and tested with the rest of the runtime (tests/test_prelude.c). Functions that can
 * fault return 0, or 1 after the fault is raised (cint_rt_gen.h); operands travel as their value
 * converted to uint64_t with their type tag, as in cint_rt_ops.h.
 */
#ifndef CINT_RT_PRELUDE_H
#define CINT_RT_PRELUDE_H

#include "cint_rt_fmt.h"
#include "cint_rt_ops.h"

/* For a static helper that generated code may define and not use. */
#if defined(__GNUC__)
#define CINTG_UNUSED __attribute__((unused))
#else
#define CINTG_UNUSED
#endif

__extension__ typedef __int128 cintg_i128;
__extension__ typedef unsigned __int128 cintg_u128;

/* An exact integer of up to 129 bits as sign and magnitude (the magnitude of a negative one is nonzero). */
typedef struct cintg_z {
    int neg;
    cintg_u128 mag;
} cintg_z;

/* One position of a slice or partial index: an index, or a slice with optional bounds. */
typedef struct cintg_item {
    int slice, has_lo, has_hi, inclusive;
    int64_t lo, hi, step;
} cintg_item;

/* A kernel reduction's accumulator (docs/language.md decision 23): the number of contributions and the
   exact value. */
typedef struct cintg_racc {
    int64_t n;
    cintg_i128 v;
} cintg_racc;

/* --- fault records (src/prelude.c) ------------------------------------------------------------------ */

/* A fault of a named operation on integers of type tag: operands as uint64_t bits, an exact
   value when has_exact (two's complement, any width up to 128 bits) and a limit of type tag. */
int cintg_raise(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t tag,
                uint32_t nops, uint64_t a, uint64_t b, int has_exact, cintg_i128 exact, int has_limit,
                uint64_t limit);
/* A fault with n operands of types tags[k] and 64-bit values vals[k], an optional exact value and an
   optional limit of type ltag. */
int cintg_raise_n(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t n,
                  const uint32_t *tags, const uint64_t *vals, int has_exact, cintg_z exact,
                  int has_limit, uint32_t ltag, uint64_t limit);
/* x as E for an enum (LS-89) when x is no enumerator's value: E_NARROW with the operand x of type tag,
   exact x and no limit. */
int cintg_enum_narrow(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t tag, int sgn,
                      uint64_t x);
/* A typed value of a fault record: an integer of type tag (qf < 0), or a fixed-point value of storage
   tag and qf fraction bits (tag 0x31, storage tag, f as U16, then the raw payload; IM-146). */
void cintg_tv(cint_tvalue *t, uint32_t tag, int32_t qf, uint64_t bits);
/* A fault with nops operands of type (otag, of), an optional exact value and limit of type (ltag, lf). */
int cintg_qfault(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t nops,
                 uint32_t otag, int32_t of, uint64_t a, uint64_t b, int has_exact, cintg_i128 exact,
                 uint32_t ltag, int32_t lf, uint64_t limit);
/* clamp(x, lo, hi): E_DOMAIN when lo > hi (the comparison made by the caller). */
int cintg_clamp_fault(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t tag, uint64_t x,
                      uint64_t lo, uint64_t hi);
/* E_SHAPE bind.shape at a call: parameter, dimension, extent given; limit the extent expected. */
int cintg_bind_shape(cint_ctx *ctx, const cint_gen_at *at, int64_t param, int64_t dim, int64_t got,
                     int64_t want);
/* E_ALIAS bind.alias at a call: parameters a and b. */
int cintg_bind_alias(cint_ctx *ctx, const cint_gen_at *at, int64_t a, int64_t b);
/* A bounds fault of a view: E_BOUNDS op with operands (dim when rank >= 2, then vals), limit ext. */
int cintg_view_fault(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t rank, uint32_t dim,
                     int nv, cintg_i128 v0, cintg_i128 v1, int64_t ext);
/* E_SHAPE copy.shape of a whole-array copy: operands I64 dimension and the source's extent, limit I64 the
   destination's (IM-187). */
int cintg_copy_shape_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t dim, int64_t got, int64_t want);
/* E_ALIAS copy.alias: two views of one array that overlap and are not the same view (IM-187). */
int cintg_copy_alias_fault(cint_ctx *ctx, const cint_gen_at *at);

/* --- fixed-point and Str text, swap (src/prelude.c) ------------------------------------------------- */

/* The default rendering of a fixed-point value: the shortest exact decimal with at least one
   fractional digit (LS-207). */
int cintg_print_q(cint_ctx *ctx, int64_t raw, unsigned f);
/* Str values (read-only rank-1 U8 views): comparison as byte strings, and printing padded to a width counted
   in characters as fmt._pad counts them (the bytes that do not continue a UTF-8 sequence). */
int cintg_strcmp(const cint_gen_array *a, const cint_gen_array *b);
int cintg_print_str(cint_ctx *ctx, const cint_fmt_spec *fs, const cint_gen_array *s);
/* swap(a, b) of two owned arrays of one type and shape (docs/language.md decision 26): the contents are
   exchanged byte for byte (both are contiguous row-major storage of their own). */
void cintg_swap(cint_gen_array *a, cint_gen_array *b);

/* --- the element walk of alias tests, dispatch copies (src/prelude.c) ------------------------------- */

/* The element walk of cintg_overlap (below), for two arrays of one element type whose byte spans meet:
   whether an element of a is an element of b. */
int cintg_overlap_walk(const cint_gen_array *a, const cint_gen_array *b);
/* Whether the bytes two arrays reach overlap (the runtime's bind.alias test at a dispatch, H-13) while
   they share no element (interleaved views of one array, which SPEC-04 LS-121 lets alias-free). */
int cintg_interleaved(const cint_gen_array *a, const cint_gen_array *b);
/* Element-by-element copy in row-major order of two arrays of one shape (no checks). */
void cintg_copy_raw(cint_gen_array *dst, const cint_gen_array *src);
/* Replaces the argument *a of a dispatch by a contiguous copy of it (its lower bounds kept). */
int cintg_detach(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *a);

/* --- kernel reductions (src/prelude.c) -------------------------------------------------------------- */

/* Kernel reductions: the epilogue check of one reduction (kind 0 sum, 1 fold_checked, 2 sum_wrap, 3 sum_sat,
   4 min, 5 max, 6 count; lo..hi the range of the target type ttag); the value's bits (two's complement,
   modulo 2^64) into *out. */
int cintg_reduce_end(cint_ctx *ctx, const cint_gen_at *at, const cintg_racc *r, int kind, uint32_t ttag,
                     cintg_i128 lo, cintg_i128 hi, const char *op, uint64_t *out);
/* The E_OVERFLOW record of a reduction: n operands, the exact value v and the bound of ttag it crosses. */
int cintg_rfault(cint_ctx *ctx, const cint_gen_at *at, const char *op, const cint_tvalue *ops, uint16_t n,
                 cintg_i128 v, uint32_t ttag, cintg_i128 lo, cintg_i128 hi);

/* --- wrapping conversions --------------------------------------------------------------------------- */

/* cintg_wrap_<t>(v): the integer of type t whose bits are the low bits of v (modulo 2^w). */
#define CINTG_WRAP_(T, SFX, W, SIGNED)                                                          \
    static inline T cintg_wrap_##SFX(uint64_t v)                                                \
    {                                                                                           \
        uint64_t m = (W == 64u) ? ~UINT64_C(0) : ((UINT64_C(1) << W) - 1u);                     \
        v &= m;                                                                                 \
        if (SIGNED && (v >> (W - 1u)) != 0u) return (T)(-(int64_t)((~v) & m) - 1);              \
        return (T)v;                                                                            \
    }
CINTG_WRAP_(int8_t, i8, 8u, 1) CINTG_WRAP_(int16_t, i16, 16u, 1) CINTG_WRAP_(int32_t, i32, 32u, 1)
CINTG_WRAP_(int64_t, i64, 64u, 1) CINTG_WRAP_(uint8_t, u8, 8u, 0) CINTG_WRAP_(uint16_t, u16, 16u, 0)
CINTG_WRAP_(uint32_t, u32, 32u, 0) CINTG_WRAP_(uint64_t, u64, 64u, 0)

/* --- named operations (abs, the division family) over I8 to U64 ------------------------------------- */

#define CINTG_NAMED_(T, SFX, TAG, SIGNED, MINV, MAXV)                                                      \
    static inline int cintg_abs_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T *r)                     \
    {                                                                                                       \
        if (SIGNED && a == (T)(MINV))                                                                       \
            return cintg_raise(ctx, at, CINT_E_OVERFLOW, "abs.checked." #SFX, TAG, 1u, (uint64_t)a, 0u, 1,  \
                               -(cintg_i128)a, 1, (uint64_t)(T)(MAXV));                                     \
        *r = (SIGNED && cint_is_neg((int64_t)a)) ? (T)-a : a;                                              \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_divcheck_##SFX(cint_ctx *ctx, const cint_gen_at *at, const char *op, T a, T b,  \
                                           int quotient)                                                    \
    {                                                                                                       \
        if (b == 0) return cintg_raise(ctx, at, CINT_E_DIV_ZERO, op, TAG, 2u, (uint64_t)a, (uint64_t)b, 0,  \
                                       0, 0, 0u);                                                           \
        if (quotient && SIGNED && a == (T)(MINV) && b == (T)-1)                                             \
            return cintg_raise(ctx, at, CINT_E_OVERFLOW, op, TAG, 2u, (uint64_t)a, (uint64_t)b, 1,          \
                               -(cintg_i128)a, 1, (uint64_t)(T)(MAXV));                                     \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_div_trunc_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)          \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "div_trunc.checked." #SFX, a, b, 1)) return 1;                    \
        *r = (T)(a / b);                                                                                    \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_rem_trunc_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)          \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "rem_trunc.checked." #SFX, a, b, 0)) return 1;                    \
        *r = (SIGNED && b == (T)-1) ? (T)0 : (T)(a % b);                                                   \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_div_euclid_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)         \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "div_euclid.checked." #SFX, a, b, 1)) return 1;                   \
        T q = (T)(a / b), m = (T)(a % b);                                                                   \
        if (SIGNED && cint_is_neg((int64_t)m)) q = cint_is_neg((int64_t)b) ? (T)(q + 1) : (T)(q - 1);      \
        *r = q;                                                                                             \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_rem_euclid_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)         \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "rem_euclid.checked." #SFX, a, b, 0)) return 1;                   \
        if (SIGNED && b == (T)-1) { *r = 0; return 0; }                                                     \
        T m = (T)(a % b);                                                                                   \
        if (SIGNED && cint_is_neg((int64_t)m)) m = cint_is_neg((int64_t)b) ? (T)(m - b) : (T)(m + b);      \
        *r = m;                                                                                             \
        return 0;                                                                                           \
    }
CINTG_NAMED_(int8_t, i8, CINT_TAG_I8, 1, INT8_MIN, INT8_MAX)
CINTG_NAMED_(int16_t, i16, CINT_TAG_I16, 1, INT16_MIN, INT16_MAX)
CINTG_NAMED_(int32_t, i32, CINT_TAG_I32, 1, INT32_MIN, INT32_MAX)
CINTG_NAMED_(int64_t, i64, CINT_TAG_I64, 1, INT64_MIN, INT64_MAX)
CINTG_NAMED_(uint8_t, u8, CINT_TAG_U8, 0, 0, UINT8_MAX)
CINTG_NAMED_(uint16_t, u16, CINT_TAG_U16, 0, 0, UINT16_MAX)
CINTG_NAMED_(uint32_t, u32, CINT_TAG_U32, 0, 0, UINT32_MAX)
CINTG_NAMED_(uint64_t, u64, CINT_TAG_U64, 0, 0, UINT64_MAX)

/* --- named operations with wide intermediates (IM-44, IM-49 to IM-53) ------------------------------- */

/* The value whose 64 bits are v, of a signed or unsigned type. */
static inline cintg_z cintg_zv(uint64_t v, int sgn)
{
    cintg_z z;
    z.neg = sgn && cint_is_neg((int64_t)v);
    z.mag = z.neg ? (cintg_u128)(0u - v) : (cintg_u128)v;
    return z;
}

static inline cintg_z cintg_zinc(cintg_z q)
{
    if (!q.neg) q.mag += 1u;
    else if (--q.mag == 0u) q.neg = 0;
    return q;
}

/* Whether z is in the range of the integer type of width w and signedness sgn. */
static inline int cintg_zfits(cintg_z z, int sgn, unsigned w)
{
    cintg_u128 top = (cintg_u128)1 << (sgn ? w - 1u : w);
    if (z.neg) return sgn && z.mag <= top;
    return z.mag <= top - 1u;
}

/* The bound of that type that z crosses, as 64 bits. */
static inline uint64_t cintg_zbound(cintg_z z, int sgn, unsigned w)
{
    if (z.neg) return sgn ? (uint64_t)0 - ((uint64_t)1 << (w - 1u)) : 0u;
    return sgn ? ((uint64_t)1 << (w - 1u)) - 1u : (w == 64u ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1u);
}

/* The low 64 bits of z in two's complement. */
static inline uint64_t cintg_zbits(cintg_z z) { return z.neg ? (uint64_t)0 - (uint64_t)z.mag : (uint64_t)z.mag; }

/* The rational n / d (d nonzero) rounded once by mode (the index of a name of ROUND_MODES). */
static inline cintg_z cintg_rdiv(cintg_z n, cintg_z d, int mode)
{
    if (d.neg) {
        d.neg = 0;
        if (n.mag != 0u) n.neg = !n.neg;
    }
    cintg_u128 qm = n.mag / d.mag, rm = n.mag % d.mag, r;
    cintg_z q;
    if (!n.neg) {
        q.neg = 0;
        q.mag = qm;
        r = rm;
    } else if (rm == 0u) {
        q.neg = qm != 0u;
        q.mag = qm;
        r = 0u;
    } else {
        q.neg = 1;
        q.mag = qm + 1u;
        r = d.mag - rm;
    }
    if (r == 0u) return q;
    int negative = n.neg;
    switch (mode) {
    case 0: return q;                                     /* floor */
    case 1: return cintg_zinc(q);                         /* ceil */
    case 2: return negative ? cintg_zinc(q) : q;          /* trunc */
    case 3: return negative ? q : cintg_zinc(q);          /* away */
    default: break;
    }
    if (r < d.mag - r) return q;
    if (r > d.mag - r) return cintg_zinc(q);
    switch (mode) {
    case 4: return (q.mag & 1u) ? cintg_zinc(q) : q;      /* half_even */
    case 5: return negative ? q : cintg_zinc(q);          /* half_away */
    case 6: return negative ? cintg_zinc(q) : q;          /* half_trunc */
    case 7: return cintg_zinc(q);                         /* half_up */
    default: return q;                                    /* half_down */
    }
}

/* muldiv (nops 3: a * b / c) and div_round (nops 2: a / b) on operands of type ttag, rounded once by
   mode and checked against the result type (rtag, width rw): E_DIV_ZERO, else E_OVERFLOW with the
   exact quotient. *r receives the result's 64 bits. */
static inline int cintg_rounddiv(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t ttag, int tsg,
                                 uint32_t nops, uint64_t a, uint64_t b, uint64_t c, uint32_t rtag, int rsg,
                                 unsigned rw, int mode, uint64_t *r)
{
    const uint32_t tags[3] = {ttag, ttag, ttag};
    const uint64_t vals[3] = {a, b, c};
    cintg_z n = cintg_zv(a, tsg), d = cintg_zv(b, tsg), none = {0, 0u};
    if (nops == 3u) {
        cintg_z y = cintg_zv(b, tsg);
        n.mag *= y.mag;
        n.neg = n.mag != 0u && (n.neg != y.neg);
        d = cintg_zv(c, tsg);
    }
    if (d.mag == 0u) return cintg_raise_n(ctx, at, CINT_E_DIV_ZERO, op, nops, tags, vals, 0, none, 0, rtag, 0u);
    cintg_z q = cintg_rdiv(n, d, mode);
    if (!cintg_zfits(q, rsg, rw))
        return cintg_raise_n(ctx, at, CINT_E_OVERFLOW, op, nops, tags, vals, 1, q, 1, rtag, cintg_zbound(q, rsg, rw));
    *r = cintg_zbits(q);
    return 0;
}

/* --- fixed point (IM-54 to IM-69) ------------------------------------------------------------------- */

/* The form rule (0 checked, 1 wrap, 2 sat) on the exact value v against [lo, hi]; *r its low 64 bits. */
static inline int cintg_qfin(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t nops,
                             uint32_t otag, int32_t of, uint64_t a, uint64_t b, uint32_t rtag, int32_t rf,
                             cintg_i128 lo, cintg_i128 hi, int form, cintg_i128 v, uint64_t *r)
{
    if (v < lo || v > hi) {
        if (form == 0)
            return cintg_qfault(ctx, at, code, op, nops, otag, of, a, b, 1, v, rtag, rf, (uint64_t)(v > hi ? hi : lo));
        if (form == 2) v = v > hi ? hi : lo;
    }
    *r = (uint64_t)(cintg_u128)v;
    return 0;
}

/* n / d (d nonzero) rounded once by mode (an index of ROUND_MODES); |n|, |d| < 2^127.  Computed on
   magnitudes by cintg_rdiv: no signed 128-bit division (GCC 12 -O2 miscompiles some of those). */
static inline cintg_i128 cintg_qrdiv(cintg_i128 n, cintg_i128 d, int mode)
{
    cintg_z zn, zd;
    zn.neg = n < 0;
    zn.mag = zn.neg ? (cintg_u128)0 - (cintg_u128)n : (cintg_u128)n;
    zd.neg = d < 0;
    zd.mag = zd.neg ? (cintg_u128)0 - (cintg_u128)d : (cintg_u128)d;
    cintg_z q = cintg_rdiv(zn, zd, mode);
    return q.neg ? -(cintg_i128)q.mag : (cintg_i128)q.mag;
}

/* sqrt(x) rounded by mode, x < 2^126 (no ties). */
static inline cintg_i128 cintg_qsqrt(cintg_u128 x, int mode)
{
    cintg_u128 r = 0u, bit = (cintg_u128)1 << 126, y = x;
    while (bit > y) bit >>= 2;
    while (bit != 0u) {
        if (y >= r + bit) {
            y -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    if (r * r != x) {
        if (mode == 1 || mode == 3) r += 1u;
        else if (mode >= 4 && x > r * r + r) r += 1u;
    }
    return (cintg_i128)r;
}

/* --- roots, rotations ------------------------------------------------------------------------------- */

/* floor(sqrt(x)) of a 64-bit x, bit by bit. */
static inline uint64_t cintg_isqrt64(uint64_t x)
{
    uint64_t r = 0u, bit = (uint64_t)1 << 62;
    while (bit > x) bit >>= 2;
    while (bit != 0u) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

/* isqrt (mode < 0: floor) and isqrt_round on x of type tag: E_DOMAIN for x < 0, then the root rounded
   by mode and checked (E_OVERFLOW with the exact root). */
static inline int cintg_isqrt(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t tag, int sgn,
                              unsigned w, uint64_t x, int mode, uint64_t *r)
{
    cintg_z none = {0, 0u};
    if (sgn && cint_is_neg((int64_t)x)) return cintg_raise_n(ctx, at, CINT_E_DOMAIN, op, 1u, &tag, &x, 0, none, 0, tag, 0u);
    uint64_t s = cintg_isqrt64(x);
    cintg_z q = {0, s};
    if (s * s != x && mode >= 0) {
        if (mode == 1 || mode == 3) q.mag += 1u;                  /* ceil, away */
        else if (mode >= 4 && x > s * s + s) q.mag += 1u;          /* nearest: no ties */
    }
    if (!cintg_zfits(q, sgn, w))
        return cintg_raise_n(ctx, at, CINT_E_OVERFLOW, op, 1u, &tag, &x, 1, q, 1, tag, cintg_zbound(q, sgn, w));
    *r = cintg_zbits(q);
    return 0;
}

/* rotl (left 1) and rotr of a (type tag, width w) by k of type ktag: E_SHIFT with limit I64(w - 1)
   unless 0 <= k <= w - 1. */
static inline int cintg_rotate(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t tag, unsigned w,
                               uint64_t a, uint32_t ktag, uint64_t k, int left, uint64_t *r)
{
    if (!cint_count_ok(ktag, k, w)) {
        const uint32_t tags[2] = {tag, ktag};
        const uint64_t vals[2] = {a, k};
        cintg_z none = {0, 0u};
        return cintg_raise_n(ctx, at, CINT_E_SHIFT, op, 2u, tags, vals, 0, none, 1, CINT_TAG_I64, (uint64_t)(w - 1u));
    }
    uint64_t mask = w == 64u ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1u;
    unsigned s = left ? (unsigned)k : (unsigned)((w - (unsigned)k) % w);
    a &= mask;
    *r = s == 0u ? a : ((a << s) | (a >> (w - s))) & mask;
    return 0;
}

/* --- arrays: layout, extents, element walks, alias tests of calls, local arrays, views -------------- */

/* Whether an array is rank 1, contiguous and 0-based: the layout of the elementwise fast path. */
static inline int cintg_flat(const cint_gen_array *a)
{
    return a->rank == 1 && a->stride[0] == 1 && a->lower[0] == 0;
}

/* A computed extent n + off (SPEC-02 K-6): whether `got` differs from it, and its value, I64's
   maximum when it is beyond I64 (n >= 0, so only above). */
static inline int cintg_extent_differs(int64_t got, int64_t n, int64_t off)
{
    int64_t w;
    return __builtin_add_overflow(n, off, &w) || w != got;
}

static inline int64_t cintg_extent_value(int64_t n, int64_t off)
{
    int64_t w;
    return __builtin_add_overflow(n, off, &w) ? INT64_MAX : w;
}

/* The starts of the first and last elements of a nonempty view, in bytes. */
static inline void cintg_span(const cint_gen_array *a, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0;
    for (uint32_t d = 0; d < a->rank; d++) {
        if (a->stride[d] < 0) l += (a->shape[d] - 1) * a->stride[d];
        else h += (a->shape[d] - 1) * a->stride[d];
    }
    *lo = (int64_t)(uintptr_t)a->data + l * a->elem_size;
    *hi = (int64_t)(uintptr_t)a->data + h * a->elem_size;
}

static inline int cintg_empty(const cint_gen_array *a)
{
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] == 0) return 1;
    return 0;
}

/* Whether a nonempty array lies in the n bytes of a struct value at s (a view of its fields). */
static inline int cintg_within(const void *s, size_t n, const cint_gen_array *w)
{
    uintptr_t p = (uintptr_t)w->data, b = (uintptr_t)s;
    return !cintg_empty(w) && p >= b && p < b + n;
}

/* Whether two arrays of one element type share an element (bind.alias, SPEC-04 LS-121), tested at every
   call with an inout array: disjoint byte spans are answered here, the element walk by cintg_overlap_walk. */
static inline int cintg_overlap(const cint_gen_array *a, const cint_gen_array *b)
{
    int64_t la, ha, lb, hb;
    if (a->elem_size != b->elem_size || memcmp(&a->type, &b->type, sizeof a->type) != 0) return 0;
    if (cintg_empty(a) || cintg_empty(b)) return 0;
    cintg_span(a, &la, &ha);
    cintg_span(b, &lb, &hb);
    if (ha < lb || hb < la) return 0;
    return cintg_overlap_walk(a, b);
}

static inline int64_t cintg_gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The relation of two views of one element type by the tests of LS-70 (T0 to T3): 0 disjoint,
   1 the same view, 2 overlapping. Views of distinct storage are disjoint by T1. */
static inline int cintg_relation(const cint_gen_array *a, const cint_gen_array *b)
{
    int64_t la, ha, lb, hb;
    if (cintg_empty(a) || cintg_empty(b)) return 0;
    cintg_span(a, &la, &ha);
    cintg_span(b, &lb, &hb);
    if (ha < lb || hb < la) return 0;
    if (a->elem_size != b->elem_size) return 2;
    int64_t ob = ((int64_t)(uintptr_t)b->data - (int64_t)(uintptr_t)a->data) / a->elem_size, g = 0;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] > 1) g = cintg_gcd(g, a->stride[d] < 0 ? -a->stride[d] : a->stride[d]);
    for (uint32_t d = 0; d < b->rank; d++)
        if (b->shape[d] > 1) g = cintg_gcd(g, b->stride[d] < 0 ? -b->stride[d] : b->stride[d]);
    if (g > 1 && ob % g != 0) return 0;
    if (ob == 0 && a->rank == b->rank) {
        int same = 1;
        for (uint32_t d = 0; d < a->rank; d++)
            if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->stride[d] != b->stride[d])) same = 0;
        if (same) return 1;
    }
    return 2;
}

/* Whole-array copy in row-major order after the copy.shape check, then the copy.alias check of two
   views of one array that overlap and are not the same view (the same view: no effect) (IM-187). */
static inline int cintg_copy(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *dst, const cint_gen_array *src,
                             size_t esize)
{
    for (uint32_t d = 0; d < dst->rank; d++) {
        if (dst->shape[d] != src->shape[d]) return cintg_copy_shape_fault(ctx, at, d, src->shape[d], dst->shape[d]);
    }
    int rel = cintg_relation(dst, src);
    if (rel == 1) return 0;
    if (rel == 2) return cintg_copy_alias_fault(ctx, at);
    int64_t idx[4] = {0, 0, 0, 0}, total = 1;
    for (uint32_t d = 0; d < dst->rank; d++) total *= dst->shape[d];
    for (int64_t k = 0; k < total; k++) {
        int64_t so = 0, doff = 0;
        for (uint32_t d = 0; d < dst->rank; d++) {
            so += idx[d] * src->stride[d];
            doff += idx[d] * dst->stride[d];
        }
        memmove(dst->data + doff * (int64_t)esize, src->data + so * (int64_t)esize, esize);
        for (int d = (int)dst->rank - 1; d >= 0; d--) {
            if (++idx[d] < dst->shape[d]) break;
            idx[d] = 0;
        }
    }
    return 0;
}

/* The view of storage inside a value (an array field of a struct), a module variable or new storage:
   row-major, lower bounds 0. */
static inline void cintg_inline(cint_gen_array *a, const void *data, int64_t esize, cint_type type, uint32_t rank,
                                const int64_t *shape)
{
    memset(a, 0, sizeof *a);
    a->data = (uint8_t *)(uintptr_t)data;
    a->elem_size = esize;
    a->rank = rank;
    a->perm = CINT_VIEW_WRITE;
    a->type = type;
    a->owner = CINT_OWNER_CONTEXT;
    int64_t stride = 1;
    for (uint32_t d = rank; d-- > 0;) {
        a->shape[d] = shape[d];
        a->stride[d] = stride;
        stride *= shape[d] ? shape[d] : 1;
    }
}

/* A local array of any element type (structs included) over frame-arena storage, zero-filled. */
static inline int cintg_local_array(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *out, cint_type type,
                                    int64_t esize, uint32_t rank, const int64_t *shape)
{
    int64_t n = 1, bytes = 0;
    int big = 0;
    memset(out, 0, sizeof *out);
    for (uint32_t d = 0; d < rank; d++)
        if (__builtin_mul_overflow(n, shape[d], &n)) big = 1;
    if (big || __builtin_mul_overflow(n, esize, &bytes)) bytes = INT64_MAX;
    uint8_t *p = cint_gen_frame_alloc(ctx, at, (size_t)bytes, 8u);
    if (p == NULL) return 1;
    cintg_inline(out, p, esize, type, rank, shape);
    return 0;
}

/* The view a[items] of a slice or partial index (SPEC-04 LS-65, LS-72, LS-161): dimensions checked in
   order (IM-186), an index removes its dimension, a slice keeps the parent's lower bound. */
static inline int cintg_view(cint_ctx *ctx, const cint_gen_at *at, const char *iop, const char *sop,
                             const cint_gen_array *a, uint32_t n, const cintg_item *items, cint_gen_array *out)
{
    cint_gen_array v = *a;
    int64_t origin = 0;
    uint32_t r = 0;
    for (uint32_t d = 0; d < a->rank; d++) {
        int64_t ext = a->shape[d], lo = a->lower[d], stride = a->stride[d];
        if (d >= n) {
            v.shape[r] = ext;
            v.stride[r] = stride;
            v.lower[r] = lo;
            r++;
            continue;
        }
        const cintg_item *it = &items[d];
        if (!it->slice) {
            cintg_i128 k = (cintg_i128)it->lo - lo;
            if (k < 0 || k >= ext) return cintg_view_fault(ctx, at, iop, a->rank, d, 1, it->lo, 0, ext);
            origin += (int64_t)k * stride;
            continue;
        }
        cintg_i128 f, g, end, cnt = 0;
        int ok;
        if (it->step > 0) {
            f = it->has_lo ? it->lo : lo;
            g = it->has_hi ? (cintg_i128)it->hi : (cintg_i128)lo + ext - (it->inclusive ? 1 : 0);
            end = it->inclusive ? g + 1 : g;
            ok = lo <= f && f <= end && end <= (cintg_i128)lo + ext;
            if (ok) cnt = (end - f + it->step - 1) / it->step;
        } else {
            f = it->has_lo ? (cintg_i128)it->lo : (cintg_i128)lo + ext - 1;
            g = it->has_hi ? (cintg_i128)it->hi : (cintg_i128)lo - (it->inclusive ? 0 : 1);
            end = it->inclusive ? g - 1 : g;
            ok = (cintg_i128)lo - 1 <= end && end <= f && f <= (cintg_i128)lo + ext - 1;
            if (ok) cnt = (f - end - it->step - 1) / -(cintg_i128)it->step;
        }
        if (!ok) return cintg_view_fault(ctx, at, sop, a->rank, d, 2, f, g, ext);
        if (cnt) origin += (int64_t)(f - lo) * stride;
        v.shape[r] = (int64_t)cnt;
        v.stride[r] = stride * it->step;
        v.lower[r] = lo;
        r++;
    }
    for (uint32_t d = r; d < 4; d++) v.shape[d] = v.stride[d] = v.lower[d] = 0;
    v.rank = r;
    v.data = a->data + origin * a->elem_size;
    *out = v;
    return 0;
}

/* transpose(a): the dimensions in reverse order, the same elements. */
static inline cint_gen_array cintg_transpose(const cint_gen_array *a)
{
    cint_gen_array v = *a;
    for (uint32_t d = 0; d < a->rank; d++) {
        v.shape[d] = a->shape[a->rank - 1u - d];
        v.stride[d] = a->stride[a->rank - 1u - d];
        v.lower[d] = a->lower[a->rank - 1u - d];
    }
    return v;
}

/* reverse(a, d): dimension d in reverse order. */
static inline cint_gen_array cintg_reverse(const cint_gen_array *a, uint32_t d)
{
    cint_gen_array v = *a;
    if (a->shape[d] > 0) v.data = a->data + (a->shape[d] - 1) * a->stride[d] * a->elem_size;
    v.stride[d] = -a->stride[d];
    return v;
}

/* The address of the k-th element of a in row-major order (idx holds its indices, advanced). */
static inline int cintg_next(const cint_gen_array *a, int64_t *idx)
{
    for (int d = (int)a->rank - 1; d >= 0; d--) {
        if (++idx[d] < a->shape[d]) return 1;
        idx[d] = 0;
    }
    return 0;
}
static inline uint8_t *cintg_at(const cint_gen_array *a, const int64_t *idx)
{
    int64_t off = 0;
    for (uint32_t d = 0; d < a->rank; d++) off += idx[d] * a->stride[d];
    return a->data + off * a->elem_size;
}

/* fill(a, v): every element of a receives the value at v. */
static inline void cintg_fill(cint_gen_array *a, const void *v)
{
    int64_t idx[4] = {0, 0, 0, 0};
    if (cintg_empty(a)) return;
    do memcpy(cintg_at(a, idx), v, (size_t)a->elem_size);
    while (cintg_next(a, idx));
}

/* equal(a, b): the same shape and equal elements (integers, Bool). */
static inline int cintg_equal(const cint_gen_array *a, const cint_gen_array *b)
{
    int64_t idx[4] = {0, 0, 0, 0};
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    if (cintg_empty(a)) return 1;
    do
        if (memcmp(cintg_at(a, idx), cintg_at(b, idx), (size_t)a->elem_size) != 0) return 0;
    while (cintg_next(a, idx));
    return 1;
}

/* The number of elements of a (size). */
static inline int64_t cintg_size(const cint_gen_array *a)
{
    int64_t n = 1;
    for (uint32_t d = 0; d < a->rank; d++) n *= a->shape[d];
    return n;
}

/* utf8(bytes) (docs/language.md decision 26): whether the U8 view holds well-formed UTF-8 (the runtime's
   check, which also reads Str payloads of a state). */
static inline int cintg_utf8_valid(const cint_gen_array *a)
{
    return cint_gen_utf8_valid(a->data, a->shape[0], a->stride[0]);
}

/* --- kernel reductions (docs/language.md decision 23) ----------------------------------------------- */

/* One contribution x; kind 0 sum, 1 fold_checked, 2 sum_wrap, 3 sum_sat, 4 min, 5 max, 6 count; lo..hi is
   the range of the target type. Fewer than 2^63 contributions below 2^64 in magnitude: no 128-bit overflow. */
static inline int cintg_reduce_add(cint_ctx *ctx, const cint_gen_at *at, cintg_racc *r, int kind, cintg_i128 x,
                                   uint32_t ttag, cintg_i128 lo, cintg_i128 hi, const char *op)
{
    cintg_i128 t = r->v + x;
    switch (kind) {
    case 1:
        if (t < lo || t > hi) {
            cint_tvalue ops[3];
            cint_tv_i64(&ops[0], r->n);
            cint_tv_int(&ops[1], ttag, (uint64_t)r->v);
            cint_tv_int(&ops[2], ttag, (uint64_t)x);
            return cintg_rfault(ctx, at, op, ops, 3u, t, ttag, lo, hi);
        }
        r->v = t;
        break;
    case 3: r->v = t < lo ? lo : t > hi ? hi : t; break;
    case 4: if (r->n == 0 || x < r->v) r->v = x; break;
    case 5: if (r->n == 0 || x > r->v) r->v = x; break;
    case 6: r->v += x != 0; break;
    default: r->v = t; break;
    }
    r->n++;
    return 0;
}

#endif /* CINT_RT_PRELUDE_H */
