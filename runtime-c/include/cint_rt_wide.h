/* cint_rt_wide.h: I128, I256, I512 and I1024 for generated code (SPEC-01P.1 sections 2 to 6).
 *
 * A wide integer is a structure of uint64_t limbs, least significant first, two's complement
 * at its width (SPEC-03P.1 7.2 paragraph 3: "wide integers cross as structures of uint64_t
 * limbs"); its bytes are those of one little-endian integer of w / 8 bytes (IM-144).
 *
 * The generic functions below take every integer operand as (tag, limbs): a wide type's w / 64
 * limbs, or, for I8 to U64, one limb holding the value converted to uint64_t (the convention of
 * cint_rt_ops.h). They compute the exact result in Z first and then apply the operator form, so
 * each faulting one writes the record the reference interpreter writes (intmachine.py): the
 * operation identifier, the operands as typed values, exact and the bound crossed. Like
 * cint_rt_ops.h, a function that can fault returns 0, or 1 after raising the fault. Results are
 * written in the same convention (a narrow result as its value converted to uint64_t).
 *
 * Per width, static inline wrappers with the names of cint_rt_ops.h (cint_add_checked_i256,
 * cint_add_wrap_i256, cint_shl_checked_i256, ...) take and return the limb structures, so that
 * the emitter writes the same calls for every width. Forms: CINT_W_CHECKED, _WRAP, _SAT.
 */
#ifndef CINT_RT_WIDE_H
#define CINT_RT_WIDE_H

#include "cint_rt_gen.h"

typedef struct cint_i128 { uint64_t l[2]; } cint_i128;
typedef struct cint_i256 { uint64_t l[4]; } cint_i256;
typedef struct cint_i512 { uint64_t l[8]; } cint_i512;
typedef struct cint_i1024 { uint64_t l[16]; } cint_i1024;

#define CINT_W_CHECKED 0u
#define CINT_W_WRAP 1u
#define CINT_W_SAT 2u

/* Division kinds of cint_w_divide: floor (/ and %), trunc and euclid, quotient or remainder. */
#define CINT_W_DIV_FLOOR 0u
#define CINT_W_REM_FLOOR 1u
#define CINT_W_DIV_TRUNC 2u
#define CINT_W_REM_TRUNC 3u
#define CINT_W_DIV_EUCLID 4u
#define CINT_W_REM_EUCLID 5u

/* The number of limbs of an integer type (1 for I8 to U64), and its width in bits (0: not an
   integer type). */
unsigned cint_w_limbs(uint32_t tag);
unsigned cint_w_width(uint32_t tag);

/* A typed value for a fault record. */
void cint_w_tv(cint_tvalue *t, uint32_t tag, const uint64_t *v);

/* a + b, a - b, a * b (op CINT_OP_ADD, _SUB, _MUL) and -a (CINT_OP_NEG, b unused) in form;
   only the checked form faults (E_OVERFLOW <op>.checked.<t>, exact, limit). */
int cint_w_arith(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t form, uint32_t tag, const uint64_t *a,
                 const uint64_t *b, uint64_t *r);
/* Division of kind CINT_W_*: E_DIV_ZERO for b = 0, E_OVERFLOW for a quotient MIN / -1; name is
   the operation identifier (div.checked.i256, rem_euclid.checked.i128). */
int cint_w_divide(cint_ctx *ctx, const cint_gen_at *at, const char *name, uint32_t kind, uint32_t tag,
                  const uint64_t *a, const uint64_t *b, uint64_t *r);
/* div_round (nops 2: a / b) and muldiv (nops 3: a * b / c), operands of type ttag, rounded
   once by mode (an index of ROUND_MODES) and checked against rtag. */
int cint_w_rounddiv(cint_ctx *ctx, const cint_gen_at *at, const char *name, uint32_t ttag, uint32_t nops,
                    const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t rtag, int mode, uint64_t *r);
/* a << k (CINT_OP_SHL), a <<% k (CINT_OP_SHL_WRAP), a >> k (CINT_OP_SHR); the count is of any
   integer type ktag (IM-45). */
int cint_w_shift(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t tag, const uint64_t *a, uint32_t ktag,
                 const uint64_t *k, uint64_t *r);
/* v as to (checked: E_NARROW as.checked.<from>.<to>), as% (wrap), as| (sat). */
int cint_w_convert(cint_ctx *ctx, const cint_gen_at *at, uint32_t form, uint32_t from, const uint64_t *v, uint32_t to,
                   uint64_t *r);
/* The result-returning forms (LS-96, SPEC-01P.1 IM-188) on type tag, for every integer type:
   add_result, sub_result, mul_result, div_result, rem_result and shl_result (op CINT_OP_ADD,
   _SUB, _MUL, _DIV, _REM, _SHL; b is of type btag: tag, or the count's type for _SHL).  Never
   faults: 0 with the result in r, or the ArithError of the fault the checked operation would
   raise: CINT_W_ERR_OVERFLOW, CINT_W_ERR_DIV_ZERO (b = 0) or CINT_W_ERR_SHIFT (a count outside
   0 to w - 1, checked before the value). */
#define CINT_W_ERR_OVERFLOW 1
#define CINT_W_ERR_DIV_ZERO 2
#define CINT_W_ERR_SHIFT 3
int cint_w_result(uint32_t op, uint32_t tag, const uint64_t *a, uint32_t btag, const uint64_t *b, uint64_t *r);
/* Whether the value v of type from is in the range of type to (`as?`, LS-95). */
int cint_w_fits(uint32_t from, const uint64_t *v, uint32_t to);
/* abs(a): E_OVERFLOW abs.checked.<t> for MIN. */
int cint_w_abs(cint_ctx *ctx, const cint_gen_at *at, uint32_t tag, const uint64_t *a, uint64_t *r);
/* isqrt(a) (mode -1) and isqrt_round(a, mode): E_DOMAIN for a < 0, E_OVERFLOW past the type. */
int cint_w_isqrt(cint_ctx *ctx, const cint_gen_at *at, const char *name, uint32_t tag, const uint64_t *a, int mode,
                 uint64_t *r);
/* clamp(x, lo, hi): E_DOMAIN clamp.checked.<t> when lo > hi. */
int cint_w_clamp(cint_ctx *ctx, const cint_gen_at *at, uint32_t tag, const uint64_t *x, const uint64_t *lo,
                 const uint64_t *hi, uint64_t *r);
/* mul_full(a, b): the exact product of two values of type tag in the type rtag (never faults). */
void cint_w_mul_full(uint32_t tag, const uint64_t *a, const uint64_t *b, uint32_t rtag, uint64_t *r);
/* -1, 0 or 1 as a is below, equal to or above b (both of type tag). */
int cint_w_cmp(uint32_t tag, const uint64_t *a, const uint64_t *b);
/* The decimal text of v (at most 310 characters, NUL-terminated); returns its length. */
size_t cint_w_dec(uint32_t tag, const uint64_t *v, char out[320]);
/* Appends the decimal text of v to the print statement being formed. */
int cint_w_print(cint_ctx *ctx, uint32_t tag, const uint64_t *v);
/* sum(R, xs) with a wide element or result type: charges ceil(n / 64) at at, then the exact sum
   checked against rtag (E_OVERFLOW sum.checked.<E>.<R>, operand I64 n) into out. */
int cint_w_sum(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t rtag, uint64_t *out);
/* The same in a kernel: the fuel charge positioned at charge_at, an overflow at at (the counted step). */
int cint_w_sum_at(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
                  uint32_t rtag, uint64_t *out);
/* The other reductions of SPEC-01P.1 IM-77 to IM-87 over I8 .. I1024 elements (count: Bool), in row-major
   order, with the records of intmachine.py. Each charges ceil(n / 64) at charge_at (in a kernel the
   ordinal after the counted step) before its own fault, which is positioned at at (the counted step);
   results are in the limb convention of the element type (dot: of rtag).
   sum_wrap (sat 0) or sum_sat (sat 1): the exact sum wrapped, or each step saturated. */
int cint_w_sum_form(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_array *a, int sat, uint64_t *out);
/* count(xs): the true elements of a Bool array. */
int cint_w_count(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_array *a, int64_t *out);
/* fold_checked(add | mul, init, xs): E_OVERFLOW fold_checked.<op>.<E> at the first element j whose step does
   not fit, operands I64 j, E acc, E x. */
int cint_w_fold(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a, int mul,
                const uint64_t *init, uint64_t *out);
/* dot(R, a, b) over rank 1: E_SHAPE dot.checked.<E>.<R> (operands I64 0, I64 len b; limit I64 len a) before
   the charge, then the exact sum of products checked against rtag (E_OVERFLOW, operand I64 n). */
int cint_w_dot(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
               const cint_gen_array *b, uint32_t rtag, uint64_t *out);
/* min(xs) / max(xs) (init NULL: E_SHAPE reduce_min|reduce_max.checked.<E>, operand I64 0, for an empty xs) and
   min(init, xs) / max(init, xs). */
int cint_w_extreme(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
                   int max, const uint64_t *init, uint64_t *out);

/* --- per width: the names of cint_rt_ops.h ---------------------------------------------------- */

#define CINT_WIDE_OPS_(T, SFX, TAG, N)                                                                     \
    static inline int cint_add_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        return cint_w_arith(ctx, at, CINT_OP_ADD, CINT_W_CHECKED, TAG, a.l, b.l, r->l);                    \
    }                                                                                                      \
    static inline int cint_sub_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        return cint_w_arith(ctx, at, CINT_OP_SUB, CINT_W_CHECKED, TAG, a.l, b.l, r->l);                    \
    }                                                                                                      \
    static inline int cint_mul_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        return cint_w_arith(ctx, at, CINT_OP_MUL, CINT_W_CHECKED, TAG, a.l, b.l, r->l);                    \
    }                                                                                                      \
    static inline int cint_neg_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T *r)             \
    {                                                                                                      \
        return cint_w_arith(ctx, at, CINT_OP_NEG, CINT_W_CHECKED, TAG, a.l, a.l, r->l);                    \
    }                                                                                                      \
    static inline T cint_w2_##SFX(uint32_t op, uint32_t form, T a, T b)                                    \
    {                                                                                                      \
        T r;                                                                                               \
        (void)cint_w_arith(NULL, NULL, op, form, TAG, a.l, b.l, r.l);                                      \
        return r;                                                                                          \
    }                                                                                                      \
    static inline T cint_add_wrap_##SFX(T a, T b) { return cint_w2_##SFX(CINT_OP_ADD, CINT_W_WRAP, a, b); } \
    static inline T cint_sub_wrap_##SFX(T a, T b) { return cint_w2_##SFX(CINT_OP_SUB, CINT_W_WRAP, a, b); } \
    static inline T cint_mul_wrap_##SFX(T a, T b) { return cint_w2_##SFX(CINT_OP_MUL, CINT_W_WRAP, a, b); } \
    static inline T cint_add_sat_##SFX(T a, T b) { return cint_w2_##SFX(CINT_OP_ADD, CINT_W_SAT, a, b); }   \
    static inline T cint_sub_sat_##SFX(T a, T b) { return cint_w2_##SFX(CINT_OP_SUB, CINT_W_SAT, a, b); }   \
    static inline T cint_mul_sat_##SFX(T a, T b) { return cint_w2_##SFX(CINT_OP_MUL, CINT_W_SAT, a, b); }   \
    static inline T cint_neg_wrap_##SFX(T a) { return cint_w2_##SFX(CINT_OP_NEG, CINT_W_WRAP, a, a); }      \
    static inline int cint_div_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        return cint_w_divide(ctx, at, "div.checked." #SFX, CINT_W_DIV_FLOOR, TAG, a.l, b.l, r->l);         \
    }                                                                                                      \
    static inline int cint_rem_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)        \
    {                                                                                                      \
        return cint_w_divide(ctx, at, "rem.checked." #SFX, CINT_W_REM_FLOOR, TAG, a.l, b.l, r->l);         \
    }                                                                                                      \
    static inline int cint_shl_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, uint32_t ktag,    \
                                             uint64_t k, T *r)                                             \
    {                                                                                                      \
        return cint_w_shift(ctx, at, CINT_OP_SHL, TAG, a.l, ktag, &k, r->l);                               \
    }                                                                                                      \
    static inline int cint_shl_wrap_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, uint32_t ktag,       \
                                          uint64_t k, T *r)                                                \
    {                                                                                                      \
        return cint_w_shift(ctx, at, CINT_OP_SHL_WRAP, TAG, a.l, ktag, &k, r->l);                          \
    }                                                                                                      \
    static inline int cint_shr_checked_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, uint32_t ktag,    \
                                             uint64_t k, T *r)                                             \
    {                                                                                                      \
        return cint_w_shift(ctx, at, CINT_OP_SHR, TAG, a.l, ktag, &k, r->l);                               \
    }                                                                                                      \
    static inline int cint_cmp_##SFX(T a, T b) { return cint_w_cmp(TAG, a.l, b.l); }                       \
    static inline T cint_and_##SFX(T a, T b)                                                               \
    {                                                                                                      \
        for (unsigned k_ = 0; k_ < N; k_++) a.l[k_] &= b.l[k_];                                            \
        return a;                                                                                          \
    }                                                                                                      \
    static inline T cint_or_##SFX(T a, T b)                                                                \
    {                                                                                                      \
        for (unsigned k_ = 0; k_ < N; k_++) a.l[k_] |= b.l[k_];                                            \
        return a;                                                                                          \
    }                                                                                                      \
    static inline T cint_xor_##SFX(T a, T b)                                                               \
    {                                                                                                      \
        for (unsigned k_ = 0; k_ < N; k_++) a.l[k_] ^= b.l[k_];                                            \
        return a;                                                                                          \
    }                                                                                                      \
    static inline T cint_not_##SFX(T a)                                                                    \
    {                                                                                                      \
        for (unsigned k_ = 0; k_ < N; k_++) a.l[k_] = ~a.l[k_];                                            \
        return a;                                                                                          \
    }                                                                                                      \
    /* The value of a narrow integer of type ftag given as uint64_t bits, sign- or zero-extended. */      \
    static inline T cint_from64_##SFX(uint32_t ftag, uint64_t v)                                           \
    {                                                                                                      \
        T r;                                                                                               \
        uint64_t ext = ((ftag & 0xF0u) == 0x10u && (v >> 63) != 0u) ? ~(uint64_t)0 : 0u;                   \
        r.l[0] = v;                                                                                        \
        for (unsigned k_ = 1; k_ < N; k_++) r.l[k_] = ext;                                                 \
        return r;                                                                                          \
    }

CINT_WIDE_OPS_(cint_i128, i128, CINT_TAG_I128, 2u)
CINT_WIDE_OPS_(cint_i256, i256, CINT_TAG_I256, 4u)
CINT_WIDE_OPS_(cint_i512, i512, CINT_TAG_I512, 8u)
CINT_WIDE_OPS_(cint_i1024, i1024, CINT_TAG_I1024, 16u)

#endif /* CINT_RT_WIDE_H */
