/* test_prelude.c: the helpers of generated code (include/cint_rt_prelude.h, src/prelude.c) on their own,
 * called directly as the C17 emitter's code calls them (tests/run.sh builds it with the runtime sources,
 * plain and under ASan/UBSan).
 *
 *   test_prelude RECORDS_FILE
 *
 * Checks the values of wrapping conversions of every type, the named operations, the exact 128-bit
 * helpers (every rounding mode against an independent reference), fixed point, roots and rotations,
 * views and slices, relations of views, copies, fill, equal, swap, Str comparison and printing, kernel
 * reductions; and writes the canonical bytes of each fault record the helpers build, one "name hex" line
 * each, to RECORDS_FILE, which run.sh compares with the bytes cint_abi.faultrecord encodes
 * (prelude_golden.py).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cint_rt_prelude.h"

static int failures, checks;
#define CHECK(cond)                                                                   \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) {                                                                \
            failures++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)

/* --- a program, p.ci, with one site per fault case (line k, column 7) ------------------------ */

#define S4(k) {k, 7}, {k + 1, 7}, {k + 2, 7}, {k + 3, 7}
static const cint_site_info p_sites[40] = {S4(0),  S4(4),  S4(8),  S4(12), S4(16),
                                           S4(20), S4(24), S4(28), S4(32), S4(36)};
static const cint_module p_module = {"p.ci", 4, 40, p_sites, "p", 1, 0};
static const cint_module *const p_modules[] = {&p_module};
static const cint_program p_program = {
    sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_SOURCE_MAP, p_modules, {0},
    {200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215,
     216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231},
    8, 8, NULL, 0, 0, NULL, NULL, CINT_BACKEND_CPU_C17, 0, NULL};
static const cint_module_info p_info = {sizeof(cint_module_info), CINT_ABI_VERSION, &p_program, 0, 0, NULL};
/* a function export without parameters: every body below runs inside one of its entries */
static const cint_gen_export p_x_run = {&p_program, {0, 0}, CINT_EXPORT_FUNCTION, 0, NULL, 0, 0, NULL};

static uint8_t out_buf[512];
static size_t out_len;
static cint_status capture(void *user, const uint8_t *bytes, size_t len)
{
    (void)user;
    if (out_len + len <= sizeof out_buf) memcpy(out_buf + out_len, bytes, len);
    out_len += len;
    return CINT_OK;
}

static cint_ctx *make(void)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = &p_program;
    c.module = &p_info;
    c.output = capture;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    return ctx;
}

typedef int (*body_fn)(cint_ctx *ctx, const cint_gen_at *at);

/* Runs body in an entry with its site at line `line`; returns the entry's status. */
static cint_status run(cint_ctx *ctx, body_fn body, uint32_t line)
{
    const cint_gen_arg args[1] = {{NULL, 0, 0}};
    cint_gen_array arrays[1];
    int64_t sizes[1];
    cint_gen_at at = {{0, line}, 0, 0};
    cint_status s = cint_gen_enter(ctx, &p_x_run, -1, args, NULL, arrays, sizes);
    if (s != CINT_OK) return s;
    int r = body(ctx, &at);
    s = cint_gen_leave(ctx);
    CHECK((r == 0) == (s == CINT_OK));
    return s;
}

/* --- wrapping conversions ------------------------------------------------------------------ */

/* The integer of width w and signedness sgn whose bits are the low w bits of v, by arithmetic only. */
static int64_t ref_wrap(uint64_t v, unsigned w, int sgn)
{
    uint64_t m = w == 64u ? v : v % (UINT64_C(1) << w); /* v modulo 2^w */
    if (!sgn || m < (UINT64_C(1) << (w - 1u))) return (int64_t)m;
    if (w == 64u) return -(int64_t)(~m) - 1;             /* m - 2^64 = -(~m + 1) */
    return -(int64_t)((UINT64_C(1) << w) - m);
}

static void test_wrap(void)
{
    static const uint64_t vs[] = {0u, 1u, 0x7Fu, 0x80u, 0xFFu, 0x100u, 0x17Fu, 0x7FFFu, 0x8000u, 0xFFFFu, 0x10000u,
                                  0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, UINT64_C(0x100000000),
                                  UINT64_C(0x123456789ABCDEF0), (uint64_t)INT64_MAX, UINT64_C(1) << 63, UINT64_MAX,
                                  UINT64_MAX - 0x80u};
    for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) {
        uint64_t v = vs[k];
        CHECK(cintg_wrap_i8(v) == ref_wrap(v, 8, 1));
        CHECK(cintg_wrap_i16(v) == ref_wrap(v, 16, 1));
        CHECK(cintg_wrap_i32(v) == ref_wrap(v, 32, 1));
        CHECK(cintg_wrap_i64(v) == ref_wrap(v, 64, 1));
        CHECK(cintg_wrap_u8(v) == ref_wrap(v, 8, 0));
        CHECK(cintg_wrap_u16(v) == ref_wrap(v, 16, 0));
        CHECK(cintg_wrap_u32(v) == ref_wrap(v, 32, 0));
        CHECK(cintg_wrap_u64(v) == v);
    }
    CHECK(cintg_wrap_i8(0x80u) == INT8_MIN && cintg_wrap_i8(0x17Fu) == INT8_MAX && cintg_wrap_i8(UINT64_MAX) == -1);
    CHECK(cintg_wrap_i16(0x8000u) == INT16_MIN && cintg_wrap_i32(0x80000000u) == INT32_MIN);
    CHECK(cintg_wrap_i64(UINT64_C(1) << 63) == INT64_MIN && cintg_wrap_u8(0x1FFu) == 0xFFu);
    CHECK(cintg_wrap_u16(0x12345u) == 0x2345u && cintg_wrap_u32(UINT64_C(0x1FFFFFFFE)) == 0xFFFFFFFEu);
}

/* --- named operations over I8 to U64 ------------------------------------------------------- */

static void test_named(void)
{
    cint_gen_at at;
    memset(&at, 0, sizeof at);
    int8_t r8;
    int32_t r32;
    int64_t r64;
    uint16_t ru16;
    CHECK(cintg_abs_i8(NULL, &at, -127, &r8) == 0 && r8 == 127);
    CHECK(cintg_abs_i32(NULL, &at, 5, &r32) == 0 && r32 == 5);
    CHECK(cintg_abs_i64(NULL, &at, INT64_MIN + 1, &r64) == 0 && r64 == INT64_MAX);
    CHECK(cintg_abs_u16(NULL, &at, 65535, &ru16) == 0 && ru16 == 65535);
    static const int64_t xs[] = {7, -7, 6, -6, 1, -1, 0, INT64_MAX, INT64_MIN};
    static const int64_t ds[] = {2, -2, 3, -3, 1, -1, 7};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        for (size_t j = 0; j < sizeof ds / sizeof ds[0]; j++) {
            int64_t a = xs[i], b = ds[j], q = 0, m = 0;
            if (a == INT64_MIN && b == -1) continue;
            /* C's / and % truncate; Euclid's remainder is never negative */
            int64_t tq = a / b, tr = a % b, eq = tq, er = tr;
            if (tr < 0) {
                er = b < 0 ? tr - b : tr + b;
                eq = b < 0 ? tq + 1 : tq - 1;
            }
            CHECK(cintg_div_trunc_i64(NULL, &at, a, b, &q) == 0 && q == tq);
            CHECK(cintg_rem_trunc_i64(NULL, &at, a, b, &m) == 0 && m == tr);
            CHECK(cintg_div_euclid_i64(NULL, &at, a, b, &q) == 0 && q == eq);
            CHECK(cintg_rem_euclid_i64(NULL, &at, a, b, &m) == 0 && m == er && m >= 0);
            CHECK((uint64_t)q * (uint64_t)b + (uint64_t)m == (uint64_t)a); /* modulo 2^64 */
        }
    }
    CHECK(cintg_rem_trunc_i64(NULL, &at, INT64_MIN, -1, &r64) == 0 && r64 == 0);
    CHECK(cintg_rem_euclid_i8(NULL, &at, INT8_MIN, -1, &r8) == 0 && r8 == 0);
    CHECK(cintg_div_euclid_i8(NULL, &at, -7, 2, &r8) == 0 && r8 == -4);
    CHECK(cintg_rem_euclid_i8(NULL, &at, -7, -2, &r8) == 0 && r8 == 1);
    uint8_t u8;
    uint64_t u64;
    CHECK(cintg_div_trunc_u8(NULL, &at, 255, 7, &u8) == 0 && u8 == 36);
    CHECK(cintg_rem_euclid_u8(NULL, &at, 255, 7, &u8) == 0 && u8 == 3);
    CHECK(cintg_div_euclid_u64(NULL, &at, UINT64_MAX, 2, &u64) == 0 && u64 == UINT64_MAX / 2);
    CHECK(cintg_divcheck_i16(NULL, &at, "divmod.checked.i16", INT16_MIN, -1, 0) == 0); /* remainder only */
}

/* --- exact 128-bit helpers ----------------------------------------------------------------- */

/* n / d rounded by mode (ROUND_MODES: floor, ceil, trunc, away, half_even, half_away, half_trunc, half_up,
   half_down) for small integers, by a floor quotient and a comparison of twice the remainder with d. */
static int64_t ref_round(int64_t n, int64_t d, int mode)
{
    if (d < 0) n = -n, d = -d;
    int64_t f = n / d;
    if (n % d != 0 && n < 0) f -= 1;
    int64_t r = n - f * d, c = f + 1;
    if (r == 0) return f;
    switch (mode) {
    case 0: return f;
    case 1: return c;
    case 2: return n < 0 ? c : f;
    case 3: return n < 0 ? f : c;
    default: break;
    }
    if (2 * r < d) return f;
    if (2 * r > d) return c;
    switch (mode) {
    case 4: return (f % 2 == 0) ? f : c;
    case 5: return n < 0 ? f : c;
    case 6: return n < 0 ? c : f;
    case 7: return c;
    default: return f;
    }
}

static cintg_z zof(int64_t v) { return cintg_zv((uint64_t)v, 1); }
static int64_t zval(cintg_z z) { return z.neg ? -(int64_t)z.mag : (int64_t)z.mag; }

static void test_exact(void)
{
    /* sign and magnitude */
    cintg_z z = cintg_zv(UINT64_MAX, 1);
    CHECK(z.neg == 1 && z.mag == 1u && cintg_zbits(z) == UINT64_MAX);
    z = cintg_zv(UINT64_MAX, 0);
    CHECK(z.neg == 0 && z.mag == UINT64_MAX && cintg_zbits(z) == UINT64_MAX);
    z = cintg_zv((uint64_t)INT64_MIN, 1);
    CHECK(z.neg == 1 && z.mag == (cintg_u128)1 << 63 && cintg_zbits(z) == (uint64_t)INT64_MIN);
    CHECK(cintg_zinc(zof(-1)).neg == 0 && cintg_zinc(zof(-1)).mag == 0u && zval(cintg_zinc(zof(-5))) == -4);
    CHECK(zval(cintg_zinc(zof(0))) == 1);
    /* ranges and the bound crossed */
    CHECK(cintg_zfits(zof(127), 1, 8) && !cintg_zfits(zof(128), 1, 8) && cintg_zfits(zof(-128), 1, 8));
    CHECK(!cintg_zfits(zof(-129), 1, 8) && !cintg_zfits(zof(-1), 0, 8) && cintg_zfits(zof(255), 0, 8));
    CHECK(!cintg_zfits(zof(256), 0, 8) && cintg_zfits(cintg_zv(UINT64_MAX, 0), 0, 64));
    cintg_z big = {0, (cintg_u128)1 << 64};
    CHECK(!cintg_zfits(big, 0, 64) && !cintg_zfits(big, 1, 64) && cintg_zbound(big, 0, 64) == UINT64_MAX);
    CHECK(cintg_zbound(big, 1, 64) == (uint64_t)INT64_MAX && cintg_zbound(zof(-300), 1, 8) == (uint64_t)(int64_t)-128);
    CHECK(cintg_zbound(zof(-1), 0, 32) == 0u && cintg_zbound(zof(70000), 0, 16) == 65535u);
    cintg_z low = {1, ((cintg_u128)1 << 63) + 1u};
    CHECK(!cintg_zfits(low, 1, 64) && cintg_zbound(low, 1, 64) == (uint64_t)INT64_MIN);

    /* cintg_rdiv and cintg_qrdiv in every mode against the reference */
    for (int mode = 0; mode < 9; mode++) {
        for (int64_t n = -25; n <= 25; n++) {
            for (int64_t d = -8; d <= 8; d++) {
                if (d == 0) continue;
                int64_t want = ref_round(n, d, mode);
                CHECK(zval(cintg_rdiv(zof(n), zof(d), mode)) == want);
                CHECK(cintg_qrdiv((cintg_i128)n, (cintg_i128)d, mode) == (cintg_i128)want);
                cintg_z q = cintg_rdiv(zof(n), zof(d), mode);
                CHECK(q.neg == 0 || q.mag != 0u); /* no negative zero */
            }
        }
    }
    /* operands of up to 128 bits: (2^64 - 1)^2 / (2^64 - 1), (2^127 - 1) / 2 and its negation */
    cintg_u128 m64 = UINT64_MAX;
    cintg_z sq = {0, m64 * m64}, dm = {0, m64};
    CHECK(cintg_rdiv(sq, dm, 0).mag == m64 && cintg_rdiv(sq, dm, 1).mag == m64);
    cintg_u128 top = ~(cintg_u128)0 >> 1;
    cintg_z ztop = {0, top}, ntop = {1, top}, two = {0, 2u};
    CHECK(cintg_rdiv(ztop, two, 0).mag == top / 2u && cintg_rdiv(ztop, two, 1).mag == top / 2u + 1u);
    CHECK(cintg_rdiv(ztop, two, 4).mag == top / 2u + 1u);   /* ... .5, odd floor: rounds to even, up */
    CHECK(cintg_rdiv(ntop, two, 0).neg && cintg_rdiv(ntop, two, 0).mag == top / 2u + 1u);
    CHECK(cintg_rdiv(ntop, two, 2).mag == top / 2u && cintg_rdiv(ntop, two, 8).mag == top / 2u + 1u);
    CHECK(cintg_qrdiv(-(cintg_i128)top, (cintg_i128)1 << 64, 0) == -((cintg_i128)1 << 63));
    CHECK(cintg_qrdiv((cintg_i128)top, -((cintg_i128)1 << 120), 2) == -127);

    /* muldiv and div_round: exact 128-bit intermediates, rounded once, checked against the result type */
    cint_gen_at at;
    memset(&at, 0, sizeof at);
    uint64_t r = 0;
    CHECK(cintg_rounddiv(NULL, &at, "muldiv.checked.i64.i64.floor", CINT_TAG_I64, 1, 3u, (uint64_t)INT64_MAX,
                         (uint64_t)INT64_MAX, (uint64_t)INT64_MAX, CINT_TAG_I64, 1, 64u, 0, &r) == 0 &&
          r == (uint64_t)INT64_MAX);
    CHECK(cintg_rounddiv(NULL, &at, "muldiv.checked.u64.u64.ceil", CINT_TAG_U64, 0, 3u, UINT64_MAX, UINT64_MAX - 1u,
                         UINT64_MAX, CINT_TAG_U64, 0, 64u, 1, &r) == 0 && r == UINT64_MAX - 1u);
    CHECK(cintg_rounddiv(NULL, &at, "muldiv.checked.i32.i8.half_even", CINT_TAG_I32, 1, 3u, (uint64_t)(int64_t)-1000,
                         1000u, (uint64_t)(int64_t)-8000, CINT_TAG_I8, 1, 8u, 4, &r) == 0 && r == 125u);
    CHECK(cintg_rounddiv(NULL, &at, "div_round.checked.i8.half_even", CINT_TAG_I8, 1, 2u, (uint64_t)(int64_t)-5, 2u,
                         0u, CINT_TAG_I8, 1, 8u, 4, &r) == 0 && (int64_t)r == -2);
    CHECK(cintg_rounddiv(NULL, &at, "div_round.checked.i8.half_away", CINT_TAG_I8, 1, 2u, (uint64_t)(int64_t)-5, 2u,
                         0u, CINT_TAG_I8, 1, 8u, 5, &r) == 0 && (int64_t)r == -3);
    CHECK(cintg_rounddiv(NULL, &at, "div_round.checked.u8.away", CINT_TAG_U8, 0, 2u, 255u, 2u, 0u, CINT_TAG_U8, 0,
                         8u, 3, &r) == 0 && r == 128u);
}

/* --- fixed point, roots, rotations ------------------------------------------------------------ */

static void test_fixed_roots(void)
{
    cint_gen_at at;
    memset(&at, 0, sizeof at);
    uint64_t r = 0;
    /* Q3.4 (I8 storage): the wrap and sat forms of 4.0 * 4.0 = 16.0 (raw 256) */
    CHECK(cintg_qfin(NULL, &at, CINT_E_OVERFLOW, "mul.wrap.q3.4.floor", 2u, CINT_TAG_I8, 4, 64u, 64u, CINT_TAG_I8,
                     4, -128, 127, 1, cintg_qrdiv((cintg_i128)64 * 64, 16, 0), &r) == 0 && cintg_wrap_i8(r) == 0);
    CHECK(cintg_qfin(NULL, &at, CINT_E_OVERFLOW, "mul.sat.q3.4.floor", 2u, CINT_TAG_I8, 4, 64u, 64u, CINT_TAG_I8, 4,
                     -128, 127, 2, 256, &r) == 0 && cintg_wrap_i8(r) == 127);
    CHECK(cintg_qfin(NULL, &at, CINT_E_OVERFLOW, "mul.sat.q3.4.floor", 2u, CINT_TAG_I8, 4, 64u, 64u, CINT_TAG_I8, 4,
                     -128, 127, 2, -300, &r) == 0 && cintg_wrap_i8(r) == -128);
    CHECK(cintg_qfin(NULL, &at, CINT_E_OVERFLOW, "mul.checked.q3.4.floor", 2u, CINT_TAG_I8, 4, 8u, 8u, CINT_TAG_I8, 4,
                     -128, 127, 0, -3, &r) == 0 && cintg_wrap_i8(r) == -3);
    /* sqrt of a Q value (the raw value shifted by f): floor and the nearest */
    CHECK(cintg_qsqrt((cintg_u128)(2u << 16) << 16, 0) == 92681);   /* sqrt(2) in Q.16: 1.41420 */
    CHECK(cintg_qsqrt((cintg_u128)(2u << 16) << 16, 1) == 92682);
    CHECK(cintg_qsqrt((cintg_u128)(2u << 16) << 16, 4) == 92682);   /* 92681.9... */
    CHECK(cintg_qsqrt((cintg_u128)16u, 0) == 4 && cintg_qsqrt((cintg_u128)17u, 1) == 5);
    CHECK(cintg_qsqrt(((cintg_u128)1 << 126) - 1u, 0) == (cintg_i128)(((cintg_u128)1 << 63) - 1u));
    /* floor(sqrt(x)) of 64 bits */
    CHECK(cintg_isqrt64(0) == 0 && cintg_isqrt64(1) == 1 && cintg_isqrt64(3) == 1 && cintg_isqrt64(4) == 2);
    CHECK(cintg_isqrt64(UINT64_MAX) == 0xFFFFFFFFu && cintg_isqrt64(UINT64_C(0xFFFFFFFE00000001)) == 0xFFFFFFFFu);
    CHECK(cintg_isqrt64(UINT64_C(0xFFFFFFFE00000000)) == 0xFFFFFFFEu);
    for (uint64_t s = 1; s < UINT64_C(0x100000000); s = s * 3u + 1u) {
        CHECK(cintg_isqrt64(s * s) == s && cintg_isqrt64(s * s - 1u) == s - 1u);
        if (s < UINT64_C(0xFFFFFFFF)) CHECK(cintg_isqrt64(s * s + 2u * s) == s);
    }
    /* isqrt and isqrt_round: 8 (2.83), 6 (2.45) */
    CHECK(cintg_isqrt(NULL, &at, "isqrt.checked.i32", CINT_TAG_I32, 1, 32u, 8u, -1, &r) == 0 && r == 2u);
    CHECK(cintg_isqrt(NULL, &at, "isqrt_round.checked.i32.ceil", CINT_TAG_I32, 1, 32u, 8u, 1, &r) == 0 && r == 3u);
    CHECK(cintg_isqrt(NULL, &at, "isqrt_round.checked.i32.half_even", CINT_TAG_I32, 1, 32u, 8u, 4, &r) == 0 && r == 3u);
    CHECK(cintg_isqrt(NULL, &at, "isqrt_round.checked.u8.half_up", CINT_TAG_U8, 0, 8u, 6u, 7, &r) == 0 && r == 2u);
    CHECK(cintg_isqrt(NULL, &at, "isqrt_round.checked.u64.ceil", CINT_TAG_U64, 0, 64u, UINT64_MAX, 1, &r) == 0 &&
          r == UINT64_C(0x100000000));
    /* rotations */
    CHECK(cintg_rotate(NULL, &at, "rotl.checked.u8", CINT_TAG_U8, 8u, 0x81u, CINT_TAG_I32, 1u, 1, &r) == 0 && r == 0x03u);
    CHECK(cintg_rotate(NULL, &at, "rotr.checked.u16", CINT_TAG_U16, 16u, 1u, CINT_TAG_U8, 1u, 0, &r) == 0 &&
          r == 0x8000u);
    CHECK(cintg_rotate(NULL, &at, "rotl.checked.i32", CINT_TAG_I32, 32u, (uint64_t)(int64_t)-2, CINT_TAG_I64, 0u, 1,
                       &r) == 0 && cintg_wrap_i32(r) == -2);
    CHECK(cintg_rotate(NULL, &at, "rotr.checked.i64", CINT_TAG_I64, 64u, 1u, CINT_TAG_I64, 63u, 0, &r) == 0 && r == 2u);
    /* extents computed as n + off */
    CHECK(!cintg_extent_differs(7, 3, 4) && cintg_extent_differs(7, 3, 5));
    CHECK(cintg_extent_differs(INT64_MAX, INT64_MAX, 1) && cintg_extent_value(INT64_MAX, 1) == INT64_MAX);
    CHECK(cintg_extent_value(10, -2) == 8);
}

/* --- kernel reductions ----------------------------------------------------------------------- */

static void test_reductions(void)
{
    cint_gen_at at;
    memset(&at, 0, sizeof at);
    static const int32_t xs[] = {2000000000, 2000000000, -5, 3};
    const cintg_i128 lo = INT32_MIN, hi = INT32_MAX;
    cintg_racc r[7];
    for (int k = 0; k < 7; k++) r[k].n = 0, r[k].v = 0;
    for (size_t i = 0; i < 4; i++)
        for (int k = 0; k < 7; k++)
            if (k != 1) CHECK(cintg_reduce_add(NULL, &at, &r[k], k, xs[i], CINT_TAG_I32, lo, hi, "r") == 0);
    uint64_t v = 0;
    CHECK(r[0].n == 4 && r[0].v == (cintg_i128)3999999998);                    /* sum: exact */
    CHECK(cintg_reduce_end(NULL, &at, &r[0], 0, CINT_TAG_I64, INT64_MIN, INT64_MAX, "r", &v) == 0 &&
          v == UINT64_C(3999999998));
    CHECK(cintg_reduce_end(NULL, &at, &r[2], 2, CINT_TAG_I32, lo, hi, "r", &v) == 0 &&
          cintg_wrap_i32(v) == (int32_t)(3999999998 - 4294967296));           /* sum_wrap */
    CHECK(r[3].v == (cintg_i128)INT32_MAX - 2);                                 /* sum_sat: per contribution */
    CHECK(r[4].v == -5 && r[5].v == 2000000000 && r[6].v == 4);                  /* min, max, count */
    cintg_racc f = {0, 7};
    CHECK(cintg_reduce_add(NULL, &at, &f, 1, -8, CINT_TAG_I8, INT8_MIN, INT8_MAX, "r") == 0 && f.v == -1 && f.n == 1);
    cintg_racc none = {0, 0};
    CHECK(cintg_reduce_end(NULL, &at, &none, 6, CINT_TAG_I64, INT64_MIN, INT64_MAX, "r", &v) == 0 && v == 0u);
}

/* --- views, relations, copies ---------------------------------------------------------------- */

static const cint_type T_I32 = {CINT_TAG_I32, 0, 0, 0, 0, 0, 0};
static const cint_type T_U8 = {CINT_TAG_U8, 0, 0, 0, 0, 0, 0};

static int32_t geti(const cint_gen_array *a, int64_t i, int64_t j)
{
    int64_t idx[4] = {i, j, 0, 0};
    int32_t v;
    memcpy(&v, cintg_at(a, idx), sizeof v);
    return v;
}

static cintg_item ix(int64_t i)
{
    cintg_item it = {0, 0, 0, 0, i, 0, 1};
    return it;
}
static cintg_item sl(int has_lo, int64_t lo, int has_hi, int64_t hi, int inclusive, int64_t step)
{
    cintg_item it = {1, has_lo, has_hi, inclusive, lo, hi, step};
    return it;
}

static int32_t grid[12], other[12];

/* the 3 x 4 I32 array 0..11 over grid */
static cint_gen_array make_grid(void)
{
    cint_gen_array a;
    for (int k = 0; k < 12; k++) grid[k] = k;
    cintg_inline(&a, grid, 4, T_I32, 2u, (const int64_t[4]){3, 4});
    return a;
}

static int views_body(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), v;
    CHECK(a.rank == 2 && a.shape[0] == 3 && a.shape[1] == 4 && a.stride[0] == 4 && a.stride[1] == 1);
    CHECK(a.lower[0] == 0 && a.perm == CINT_VIEW_WRITE && a.owner == CINT_OWNER_CONTEXT && a.elem_size == 4);
    CHECK(cintg_size(&a) == 12 && !cintg_empty(&a) && !cintg_flat(&a));
    /* a[1]: the second row */
    cintg_item it1[1] = {ix(1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, it1, &v) == 0);
    CHECK(v.rank == 1 && v.shape[0] == 4 && v.stride[0] == 1 && geti(&v, 0, 0) == 4 && cintg_flat(&v));
    CHECK(v.shape[1] == 0 && v.stride[1] == 0);
    /* a[.., 2]: the third column */
    cintg_item it2[2] = {sl(0, 0, 0, 0, 0, 1), ix(2)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it2, &v) == 0);
    CHECK(v.rank == 1 && v.shape[0] == 3 && v.stride[0] == 4 && geti(&v, 2, 0) == 10 && !cintg_flat(&v));
    /* a[0..3 by 2, 1..=2] */
    cintg_item it3[2] = {sl(1, 0, 1, 3, 0, 2), sl(1, 1, 1, 2, 1, 1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it3, &v) == 0);
    CHECK(v.rank == 2 && v.shape[0] == 2 && v.shape[1] == 2 && v.stride[0] == 8 && geti(&v, 0, 0) == 1);
    CHECK(geti(&v, 1, 1) == 10 && geti(&v, 1, 0) == 9);
    /* a[1, 3..0 by -1]: 7, 6, 5 */
    cintg_item it4[2] = {ix(1), sl(1, 3, 1, 0, 0, -1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it4, &v) == 0);
    CHECK(v.rank == 1 && v.shape[0] == 3 && v.stride[0] == -1 && geti(&v, 0, 0) == 7 && geti(&v, 2, 0) == 5);
    /* a[.., ..] by -1 without bounds: every column, last first */
    cintg_item it5[2] = {sl(0, 0, 0, 0, 0, 1), sl(0, 0, 0, 0, 0, -1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it5, &v) == 0);
    CHECK(v.shape[1] == 4 && geti(&v, 0, 0) == 3 && geti(&v, 2, 3) == 8);
    /* an empty slice keeps its place */
    cintg_item it6[2] = {ix(2), sl(1, 2, 1, 2, 0, 1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it6, &v) == 0);
    CHECK(v.rank == 1 && v.shape[0] == 0 && cintg_empty(&v) && cintg_size(&v) == 0);
    /* lower bounds: a 0-based dimension seen as 10..12; a slice keeps the parent's lower bound */
    cint_gen_array b = a;
    b.lower[0] = 10;
    cintg_item it7[1] = {ix(11)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &b, 1u, it7, &v) == 0 && geti(&v, 0, 0) == 4);
    cintg_item it8[1] = {sl(1, 11, 0, 0, 0, 1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &b, 1u, it8, &v) == 0);
    CHECK(v.rank == 2 && v.shape[0] == 2 && v.lower[0] == 10 && geti(&v, 0, 0) == 4);
    /* transpose, reverse, the row-major walk */
    v = cintg_transpose(&a);
    CHECK(v.shape[0] == 4 && v.shape[1] == 3 && geti(&v, 1, 2) == 9 && geti(&v, 3, 0) == 3);
    v = cintg_reverse(&a, 1u);
    CHECK(geti(&v, 0, 0) == 3 && geti(&v, 2, 3) == 8 && v.stride[1] == -1);
    int64_t idx[4] = {0, 0, 0, 0}, n = 0, sum = 0;
    do {
        int32_t e;
        memcpy(&e, cintg_at(&v, idx), 4);
        CHECK(e == (int32_t)((n / 4) * 4 + 3 - n % 4));
        sum += e, n++;
    } while (cintg_next(&v, idx));
    CHECK(n == 12 && sum == 66);
    /* a local array: zero-filled frame-arena storage, row-major */
    cint_gen_array loc;
    CHECK(cintg_local_array(ctx, at, &loc, T_I32, 4, 2u, (const int64_t[4]){2, 5}) == 0);
    CHECK(loc.shape[1] == 5 && loc.stride[0] == 5 && cintg_size(&loc) == 10 && geti(&loc, 1, 4) == 0);
    /* detach: a strided view becomes a contiguous copy with its lower bounds and permission */
    cint_gen_array col = a;
    cintg_item it9[2] = {sl(0, 0, 0, 0, 0, 1), ix(1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it9, &col) == 0);
    col.lower[0] = 5;
    col.perm = CINT_VIEW_READ;
    CHECK(cintg_detach(ctx, at, &col) == 0);
    CHECK(col.stride[0] == 1 && col.lower[0] == 5 && col.perm == CINT_VIEW_READ && geti(&col, 2, 0) == 9);
    CHECK((uint8_t *)col.data < (uint8_t *)grid || (uint8_t *)col.data >= (uint8_t *)(grid + 12));
    return 0;
}

static int copies_body(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), o, v, w;
    for (int k = 0; k < 12; k++) other[k] = -1;
    cintg_inline(&o, other, 4, T_I32, 2u, (const int64_t[4]){3, 4});
    CHECK(!cintg_equal(&a, &o));
    CHECK(cintg_copy(ctx, at, &o, &a, 4u) == 0 && cintg_equal(&a, &o) && other[11] == 11);
    /* the same view: no effect */
    CHECK(cintg_copy(ctx, at, &a, &a, 4u) == 0 && grid[5] == 5);
    /* the transpose into a 4 x 3 array */
    cint_gen_array t = cintg_transpose(&a), o2;
    cintg_inline(&o2, other, 4, T_I32, 2u, (const int64_t[4]){4, 3});
    CHECK(cintg_copy(ctx, at, &o2, &t, 4u) == 0 && other[1] == 4 && other[3] == 1 && other[11] == 11);
    CHECK(cintg_equal(&o2, &t) && !cintg_equal(&o2, &a));
    /* two views of one array that share no element: the even and the odd columns */
    cintg_item ev[2] = {sl(0, 0, 0, 0, 0, 1), sl(1, 0, 0, 0, 0, 2)}, od[2] = {sl(0, 0, 0, 0, 0, 1), sl(1, 1, 0, 0, 0, 2)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, ev, &v) == 0);
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, od, &w) == 0);
    CHECK(cintg_relation(&v, &w) == 0 && !cintg_overlap(&v, &w) && cintg_interleaved(&v, &w));
    CHECK(cintg_copy(ctx, at, &v, &w, 4u) == 0 && grid[0] == 1 && grid[2] == 3 && grid[10] == 11 && grid[11] == 11);
    /* relations: the same view, overlapping rows, disjoint rows, other storage */
    a = make_grid();
    cintg_item r0[1] = {sl(1, 0, 1, 2, 0, 1)}, r1[1] = {sl(1, 1, 1, 3, 0, 1)}, r2[1] = {sl(1, 2, 1, 3, 0, 1)};
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, r0, &v) == 0);
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, r1, &w) == 0);
    CHECK(cintg_relation(&a, &a) == 1 && cintg_relation(&v, &w) == 2 && cintg_overlap(&v, &w));
    CHECK(!cintg_interleaved(&v, &w) && cintg_relation(&a, &o) == 0 && !cintg_overlap(&a, &o));
    CHECK(cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, r2, &w) == 0);
    CHECK(cintg_relation(&v, &w) == 0 && !cintg_overlap(&v, &w) && !cintg_interleaved(&v, &w));
    /* the same bytes as another element type: overlapping, not sharing an element (bind.alias) */
    cint_gen_array bytes;
    cintg_inline(&bytes, grid, 1, T_U8, 1u, (const int64_t[4]){48});
    CHECK(cintg_relation(&a, &bytes) == 2 && !cintg_overlap(&a, &bytes));
    /* within: a view inside the bytes of a value */
    CHECK(cintg_within(grid, sizeof grid, &w) && !cintg_within(other, sizeof other, &w));
    int64_t lo, hi;
    cintg_span(&w, &lo, &hi);
    CHECK(lo == (int64_t)(uintptr_t)&grid[8] && hi == (int64_t)(uintptr_t)&grid[11]);
    cint_gen_array rv = cintg_reverse(&w, 0u);
    cintg_span(&rv, &lo, &hi);
    CHECK(lo == (int64_t)(uintptr_t)&grid[8] && hi == (int64_t)(uintptr_t)&grid[11]);
    /* fill, copy_raw, swap */
    int32_t seven = 7;
    cintg_fill(&v, &seven);
    CHECK(grid[0] == 7 && grid[7] == 7 && grid[8] == 8);
    cintg_copy_raw(&o, &a);
    CHECK(cintg_equal(&o, &a));
    for (int k = 0; k < 12; k++) other[k] = 100 + k;
    cintg_swap(&a, &o);
    CHECK(grid[0] == 100 && grid[11] == 111 && other[0] == 7 && other[11] == 11);
    cintg_swap(&a, &a);
    CHECK(grid[3] == 103);
    /* Str: byte order, then length; a strided U8 view */
    static const uint8_t abc[] = "abcabd";
    cint_gen_array s1, s2, s3, s4;
    cintg_inline(&s1, abc, 1, T_U8, 1u, (const int64_t[4]){3});
    cintg_inline(&s2, abc + 3, 1, T_U8, 1u, (const int64_t[4]){3});
    cintg_inline(&s3, abc, 1, T_U8, 1u, (const int64_t[4]){2});
    s4 = s1;
    s4.stride[0] = 3;
    s4.shape[0] = 2; /* "aa" */
    CHECK(cintg_strcmp(&s1, &s2) < 0 && cintg_strcmp(&s2, &s1) > 0 && cintg_strcmp(&s1, &s1) == 0);
    CHECK(cintg_strcmp(&s3, &s1) < 0 && cintg_strcmp(&s4, &s3) < 0 && cintg_strcmp(&s3, &s4) > 0);
    CHECK(cintg_utf8_valid(&s1));
    static const uint8_t bad[] = {0x61, 0xC3, 0x28};
    cint_gen_array sb;
    cintg_inline(&sb, bad, 1, T_U8, 1u, (const int64_t[4]){3});
    CHECK(!cintg_utf8_valid(&sb));
    return 0;
}

/* print statements through cintg_print_q and cintg_print_str */
static int print_body(cint_ctx *ctx, const cint_gen_at *at)
{
    static const uint8_t hello[] = "h\xC3\xA9llo";   /* 5 characters, 6 bytes */
    cint_gen_array s, rs;
    cintg_inline(&s, hello, 1, T_U8, 1u, (const int64_t[4]){6});
    rs = s;
    rs.stride[0] = 3;
    rs.shape[0] = 2;                                  /* "hl": a strided view */
    const cint_fmt_spec centre = {"*", 1u, '^', 0, 0, 0, 0, 0, 9, -1, -1};
    const cint_fmt_spec left = {"\xC2\xB7", 2u, '<', 0, 0, 0, 0, 0, 7, -1, -1};
    if (cint_gen_print_begin(ctx) || cintg_print_q(ctx, -24, 4u) || cint_gen_print_bytes(ctx, " ", 1) ||
        cintg_print_q(ctx, 16, 4u) || cint_gen_print_bytes(ctx, " ", 1) || cintg_print_q(ctx, 1, 63u) ||
        cint_gen_print_bytes(ctx, " ", 1) || cintg_print_q(ctx, INT64_MIN, 63u) ||
        cint_gen_print_bytes(ctx, " ", 1) || cintg_print_q(ctx, 5, 0u) || cint_gen_print_end(ctx, at))
        return 1;
    if (cint_gen_print_begin(ctx) || cintg_print_str(ctx, NULL, &s) || cintg_print_str(ctx, &centre, &s) ||
        cintg_print_str(ctx, &left, &rs) || cint_gen_print_end(ctx, at))
        return 1;
    return 0;
}

/* --- fault records ------------------------------------------------------------------------- */

static int f_abs(cint_ctx *ctx, const cint_gen_at *at)
{
    int8_t r;
    return cintg_abs_i8(ctx, at, INT8_MIN, &r);
}
static int f_div_zero(cint_ctx *ctx, const cint_gen_at *at)
{
    uint32_t r;
    return cintg_div_trunc_u32(ctx, at, 7u, 0u, &r);
}
static int f_div_min(cint_ctx *ctx, const cint_gen_at *at)
{
    int64_t r;
    return cintg_div_euclid_i64(ctx, at, INT64_MIN, -1, &r);
}
static int f_rem_zero(cint_ctx *ctx, const cint_gen_at *at)
{
    int16_t r;
    return cintg_rem_euclid_i16(ctx, at, -5, 0, &r);
}
static int f_divmod_min(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_divcheck_i8(ctx, at, "divmod.checked.i8", INT8_MIN, -1, 1);
}
static int f_bitfield(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_raise(ctx, at, CINT_E_NARROW, "bitfield.checked.u8", CINT_TAG_U8, 1u, 200u, 0u, 1, 200, 1, 15u);
}
static int f_muldiv(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_rounddiv(ctx, at, "muldiv.checked.i64.i64.floor", CINT_TAG_I64, 1, 3u, (uint64_t)INT64_MAX,
                          (uint64_t)INT64_MAX, 1u, CINT_TAG_I64, 1, 64u, 0, &r);
}
static int f_muldiv_low(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_rounddiv(ctx, at, "muldiv.checked.u64.i8.ceil", CINT_TAG_U64, 0, 3u, UINT64_MAX, UINT64_MAX, 3u,
                          CINT_TAG_I8, 1, 8u, 1, &r);
}
static int f_muldiv_zero(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_rounddiv(ctx, at, "muldiv.checked.i16.i16.half_even", CINT_TAG_I16, 1, 3u, (uint64_t)(int64_t)-3, 4u,
                          0u, CINT_TAG_I16, 1, 16u, 4, &r);
}
static int f_div_round(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_rounddiv(ctx, at, "div_round.checked.i8.half_even", CINT_TAG_I8, 1, 2u, (uint64_t)(int64_t)-128,
                          (uint64_t)(int64_t)-1, 0u, CINT_TAG_I8, 1, 8u, 4, &r);
}
static int f_isqrt(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_isqrt(ctx, at, "isqrt.checked.i32", CINT_TAG_I32, 1, 32u, (uint64_t)(int64_t)-4, -1, &r);
}
static int f_rotate(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_rotate(ctx, at, "rotl.checked.u16", CINT_TAG_U16, 16u, 0x1234u, CINT_TAG_I8, (uint64_t)(int64_t)-1,
                        1, &r);
}
static int f_rotate_wide(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_rotate(ctx, at, "rotr.checked.i64", CINT_TAG_I64, 64u, 1u, CINT_TAG_U64, 64u, 0, &r);
}
static int f_clamp(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_clamp_fault(ctx, at, "clamp.checked.i32", CINT_TAG_I32, 5u, 9u, (uint64_t)(int64_t)-3);
}
static int f_enum(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_enum_narrow(ctx, at, "as.checked.i16.p.Color", CINT_TAG_I16, 1, (uint64_t)(int64_t)-7);
}
static int f_enum_u64(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_enum_narrow(ctx, at, "as.checked.u64.p.Big", CINT_TAG_U64, 0, UINT64_MAX);
}
static int f_qmul(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_qfin(ctx, at, CINT_E_OVERFLOW, "mul.checked.q3.4.floor", 2u, CINT_TAG_I8, 4, 64u, 64u, CINT_TAG_I8, 4,
                      -128, 127, 0, cintg_qrdiv((cintg_i128)64 * 64, 16, 0), &r);
}
static int f_qneg(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;
    return cintg_qfin(ctx, at, CINT_E_OVERFLOW, "sub.checked.q47.16", 2u, CINT_TAG_I64, 16, (uint64_t)INT64_MIN, 1u,
                      CINT_TAG_I64, 16, INT64_MIN, INT64_MAX, 0, (cintg_i128)INT64_MIN - 1, &r);
}
static int f_qconv(cint_ctx *ctx, const cint_gen_at *at)
{
    uint64_t r;   /* Q7.8 (I16) 100.0 as Q3.4 (I8): an operand and a result of other types */
    return cintg_qfin(ctx, at, CINT_E_NARROW, "as.checked.q7.8.q3.4.floor", 1u, CINT_TAG_I16, 8, 25600u, 0u,
                      CINT_TAG_I8, 4, -128, 127, 0, 1600, &r);
}
static int f_qdiv_zero(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_qfault(ctx, at, CINT_E_DIV_ZERO, "div.checked.q15.16.floor", 2u, CINT_TAG_I32, 16, 65536u, 0u, 0, 0,
                        CINT_TAG_I32, 16, 0u);
}
static int f_qsqrt_domain(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_qfault(ctx, at, CINT_E_DOMAIN, "sqrt.checked.q15.16.floor", 1u, CINT_TAG_I32, 16,
                        (uint64_t)(int64_t)-65536, 0u, 0, 0, CINT_TAG_I32, 16, 0u);
}
static int f_bind_shape(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_bind_shape(ctx, at, 1, 0, 3, 4);
}
static int f_bind_shape_max(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_extent_differs(5, INT64_MAX, 2) && cintg_bind_shape(ctx, at, 0, 1, 5, cintg_extent_value(INT64_MAX, 2));
}
static int f_bind_alias(cint_ctx *ctx, const cint_gen_at *at)
{
    return cintg_bind_alias(ctx, at, 2, 0);
}
static int f_view_index(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), v;
    cintg_item it[1] = {ix(3)};
    return cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, it, &v);
}
static int f_view_index_low(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), v;
    cintg_item it[2] = {ix(0), ix(-1)};
    return cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it, &v);
}
static int f_view_slice(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a, v;
    int64_t shape[1] = {5};
    cintg_inline(&a, grid, 4, T_I32, 1u, shape);
    a.lower[0] = 2;                                   /* indices 2..6 */
    cintg_item it[1] = {sl(1, 1, 1, 4, 0, 1)};
    return cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, it, &v);
}
static int f_view_slice_dim(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), v;
    cintg_item it[2] = {ix(1), sl(1, 2, 1, 9, 1, 1)};
    return cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 2u, it, &v);
}
static int f_view_slice_down(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), v;
    cintg_item it[2] = {sl(1, 3, 0, 0, 0, -1)};
    return cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, it, &v);
}
static int f_copy_shape(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), o;
    cintg_inline(&o, other, 4, T_I32, 2u, (const int64_t[4]){3, 3});
    return cintg_copy(ctx, at, &o, &a, 4u);
}
static int f_copy_alias(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_array a = make_grid(), v, w;
    cintg_item r0[1] = {sl(1, 0, 1, 2, 0, 1)}, r1[1] = {sl(1, 1, 1, 3, 0, 1)};
    if (cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, r0, &v) ||
        cintg_view(ctx, at, "index.checked.i32", "slice.checked.i32", &a, 1u, r1, &w))
        return 1;
    int r = cintg_copy(ctx, at, &v, &w, 4u);
    CHECK(grid[0] == 0 && grid[11] == 11);           /* nothing copied */
    return r;
}

static int f_reduce_fold(cint_ctx *ctx, const cint_gen_at *at)
{
    cintg_racc r = {2, 100};
    return cintg_reduce_add(ctx, at, &r, 1, 50, CINT_TAG_I8, INT8_MIN, INT8_MAX, "fold_checked.add.i8");
}
static int f_reduce_sum(cint_ctx *ctx, const cint_gen_at *at)
{
    cintg_racc r = {3, -200};
    uint64_t v;
    return cintg_reduce_end(ctx, at, &r, 0, CINT_TAG_I8, INT8_MIN, INT8_MAX, "sum.checked.i16.i8", &v);
}
static int f_reduce_min_empty(cint_ctx *ctx, const cint_gen_at *at)
{
    cintg_racc r = {0, 0};
    uint64_t v;
    return cintg_reduce_end(ctx, at, &r, 4, CINT_TAG_I32, INT32_MIN, INT32_MAX, "reduce_min.checked.i32", &v);
}

static const struct {
    const char *name;
    body_fn body;
    uint32_t line; /* the site of the case (p_sites[line]) */
    uint16_t code;
} cases[] = {
    {"p_abs", f_abs, 1, CINT_E_OVERFLOW},
    {"p_div_zero", f_div_zero, 2, CINT_E_DIV_ZERO},
    {"p_div_min", f_div_min, 3, CINT_E_OVERFLOW},
    {"p_rem_zero", f_rem_zero, 4, CINT_E_DIV_ZERO},
    {"p_divmod_min", f_divmod_min, 5, CINT_E_OVERFLOW},
    {"p_bitfield", f_bitfield, 6, CINT_E_NARROW},
    {"p_muldiv", f_muldiv, 7, CINT_E_OVERFLOW},
    {"p_muldiv_low", f_muldiv_low, 8, CINT_E_OVERFLOW},
    {"p_muldiv_zero", f_muldiv_zero, 9, CINT_E_DIV_ZERO},
    {"p_div_round", f_div_round, 10, CINT_E_OVERFLOW},
    {"p_isqrt", f_isqrt, 11, CINT_E_DOMAIN},
    {"p_rotate", f_rotate, 12, CINT_E_SHIFT},
    {"p_rotate_wide", f_rotate_wide, 13, CINT_E_SHIFT},
    {"p_clamp", f_clamp, 14, CINT_E_DOMAIN},
    {"p_enum", f_enum, 15, CINT_E_NARROW},
    {"p_enum_u64", f_enum_u64, 16, CINT_E_NARROW},
    {"p_qmul", f_qmul, 17, CINT_E_OVERFLOW},
    {"p_qneg", f_qneg, 18, CINT_E_OVERFLOW},
    {"p_qconv", f_qconv, 19, CINT_E_NARROW},
    {"p_qdiv_zero", f_qdiv_zero, 20, CINT_E_DIV_ZERO},
    {"p_qsqrt_domain", f_qsqrt_domain, 21, CINT_E_DOMAIN},
    {"p_bind_shape", f_bind_shape, 22, CINT_E_SHAPE},
    {"p_bind_shape_max", f_bind_shape_max, 23, CINT_E_SHAPE},
    {"p_bind_alias", f_bind_alias, 24, CINT_E_ALIAS},
    {"p_view_index", f_view_index, 25, CINT_E_BOUNDS},
    {"p_view_index_low", f_view_index_low, 26, CINT_E_BOUNDS},
    {"p_view_slice", f_view_slice, 27, CINT_E_BOUNDS},
    {"p_view_slice_dim", f_view_slice_dim, 28, CINT_E_BOUNDS},
    {"p_view_slice_down", f_view_slice_down, 29, CINT_E_BOUNDS},
    {"p_copy_shape", f_copy_shape, 30, CINT_E_SHAPE},
    {"p_copy_alias", f_copy_alias, 31, CINT_E_ALIAS},
    {"p_reduce_fold", f_reduce_fold, 35, CINT_E_OVERFLOW},
    {"p_reduce_sum", f_reduce_sum, 36, CINT_E_OVERFLOW},
    {"p_reduce_min_empty", f_reduce_min_empty, 37, CINT_E_SHAPE},
};

static FILE *records;

static void dump_record(cint_ctx *ctx, const char *name)
{
    uint8_t buf[4096];
    size_t len = 0;
    CHECK(cint_fault_get(ctx, buf, sizeof buf, &len) == CINT_OK && len > 0 && len <= sizeof buf);
    fprintf(records, "%s ", name);
    for (size_t k = 0; k < len && k < sizeof buf; k++) fprintf(records, "%02x", buf[k]);
    fprintf(records, "\n");
}

static void test_records(void)
{
    cint_ctx *ctx = make();
    static cint_fault_record rec;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK(run(ctx, cases[k].body, cases[k].line) == CINT_FAULT);
        CHECK(cint_ctx_fault(ctx, &rec) == CINT_OK && rec.code == cases[k].code);
        if (rec.code != cases[k].code) fprintf(stderr, "test_prelude: %s: code %u\n", cases[k].name, rec.code);
        dump_record(ctx, cases[k].name);
        CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    }
    cint_ctx_destroy(ctx);
}

static void test_in_entries(void)
{
    cint_ctx *ctx = make();
    CHECK(run(ctx, views_body, 32) == CINT_OK);
    CHECK(run(ctx, copies_body, 33) == CINT_OK);
    out_len = 0;
    CHECK(run(ctx, print_body, 34) == CINT_OK);
    static const char want[] = "-1.5 1.0 0.000000000000000000108420217248550443400745280086994171142578125 -1.0 5.0"
                               "h\xC3\xA9llo**h\xC3\xA9llo**hl\xC2\xB7\xC2\xB7\xC2\xB7\xC2\xB7\xC2\xB7";
    CHECK(out_len == sizeof want - 1 && memcmp(out_buf, want, sizeof want - 1) == 0);
    if (out_len != sizeof want - 1 || memcmp(out_buf, want, out_len) != 0)
        fprintf(stderr, "test_prelude: printed %.*s\n", (int)(out_len < sizeof out_buf ? out_len : sizeof out_buf),
                (const char *)out_buf);
    cint_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_prelude RECORDS_FILE\n");
        return 2;
    }
    records = fopen(argv[1], "w");
    if (records == NULL) return 2;
    test_wrap();
    test_named();
    test_exact();
    test_fixed_roots();
    test_reductions();
    test_in_entries();
    test_records();
    fclose(records);
    printf("test_prelude: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
