/* test_wide.c: unit checks of the wide-integer helpers (src/wide.c, include/cint_rt_wide.h) that need no
   context: the forms that never fault, comparisons, conversions by wrapping, mul_full, fits and the
   decimal text. The faulting paths are compared with the reference interpreter, record for record,
   by packages/cint-compiler/tests/test_backend_wide.py. Built and run by run.sh (plain and sanitized). */
#include <stdio.h>
#include <stdlib.h>

#include "cint_rt_wide.h"

static int failures;

static void expect_dec(const char *what, uint32_t tag, const uint64_t *v, const char *want)
{
    char got[320];
    cint_w_dec(tag, v, got);
    if (strcmp(got, want) != 0) {
        printf("test_wide: %s: got %s, want %s\n", what, got, want);
        failures++;
    }
}

static void expect_int(const char *what, long long got, long long want)
{
    if (got != want) {
        printf("test_wide: %s: got %lld, want %lld\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    cint_i128 max128 = {{~UINT64_C(0), ~UINT64_C(0) >> 1}}, min128 = {{0, UINT64_C(1) << 63}};
    cint_i128 one = {{1, 0}}, m1 = {{~UINT64_C(0), ~UINT64_C(0)}}, zero = {{0, 0}};
    expect_dec("max128", CINT_TAG_I128, max128.l, "170141183460469231731687303715884105727");
    expect_dec("min128", CINT_TAG_I128, min128.l, "-170141183460469231731687303715884105728");
    expect_dec("zero", CINT_TAG_I128, zero.l, "0");
    expect_dec("-1", CINT_TAG_I128, m1.l, "-1");
    /* wrap and sat forms at the bounds */
    cint_i128 r = cint_add_wrap_i128(max128, one);
    expect_int("max+%1 = min", cint_cmp_i128(r, min128), 0);
    r = cint_add_sat_i128(max128, one);
    expect_int("max+|1 = max", cint_cmp_i128(r, max128), 0);
    r = cint_sub_sat_i128(min128, one);
    expect_int("min-|1 = min", cint_cmp_i128(r, min128), 0);
    r = cint_mul_sat_i128(min128, m1);
    expect_int("min*|-1 = max", cint_cmp_i128(r, max128), 0);
    r = cint_mul_wrap_i128(min128, m1);
    expect_int("min*%-1 = min", cint_cmp_i128(r, min128), 0);
    r = cint_neg_wrap_i128(min128);
    expect_int("0-%min = min", cint_cmp_i128(r, min128), 0);
    expect_int("min < max", cint_cmp_i128(min128, max128), -1);
    expect_int("-1 < 0", cint_cmp_i128(m1, zero), -1);
    expect_int("~max = min", cint_cmp_i128(cint_not_i128(max128), min128), 0);
    /* I1024: 2^1023 - 1 and -2^1023 */
    cint_i1024 max1024, min1024;
    for (unsigned k = 0; k < 16; k++) {
        max1024.l[k] = ~UINT64_C(0);
        min1024.l[k] = 0;
    }
    max1024.l[15] >>= 1;
    min1024.l[15] = UINT64_C(1) << 63;
    char text[320];
    expect_int("digits of max1024", (long long)cint_w_dec(CINT_TAG_I1024, max1024.l, text), 308);
    expect_int("digits of min1024", (long long)cint_w_dec(CINT_TAG_I1024, min1024.l, text), 309);
    cint_i1024 s = cint_mul_sat_i1024(max1024, max1024);
    expect_int("max*|max", cint_cmp_i1024(s, max1024), 0);
    /* conversions by wrapping, to narrow and wide types */
    uint64_t narrow = 0;
    expect_int("as% i8", cint_w_convert(NULL, NULL, CINT_W_WRAP, CINT_TAG_I1024, max1024.l, CINT_TAG_I8, &narrow), 0);
    expect_int("max1024 as% i8 = -1", (long long)(int64_t)narrow, -1);
    (void)cint_w_convert(NULL, NULL, CINT_W_SAT, CINT_TAG_I1024, min1024.l, CINT_TAG_U16, &narrow);
    expect_int("min1024 as| u16 = 0", (long long)narrow, 0);
    cint_i256 w;
    (void)cint_w_convert(NULL, NULL, CINT_W_WRAP, CINT_TAG_I128, min128.l, CINT_TAG_I256, w.l);
    expect_dec("min128 as i256", CINT_TAG_I256, w.l, "-170141183460469231731687303715884105728");
    expect_int("fits", cint_w_fits(CINT_TAG_I128, max128.l, CINT_TAG_I64), 0);
    expect_int("fits -1", cint_w_fits(CINT_TAG_I128, m1.l, CINT_TAG_I8), 1);
    expect_int("fits -1 u8", cint_w_fits(CINT_TAG_I128, m1.l, CINT_TAG_U8), 0);
    /* mul_full: (-2^127)^2 = 2^254 */
    cint_w_mul_full(CINT_TAG_I128, min128.l, min128.l, CINT_TAG_I256, w.l);
    expect_dec("mul_full", CINT_TAG_I256, w.l,
               "28948022309329048855892746252171976963317496166410141009864396001978282409984");
    cint_i128 big = cint_from64_i128(CINT_TAG_I64, (uint64_t)INT64_MIN);
    expect_dec("from64", CINT_TAG_I128, big.l, "-9223372036854775808");
    /* typed values: tag and w / 8 bytes */
    cint_tvalue tv;
    cint_w_tv(&tv, CINT_TAG_I512, (cint_i512){{1, 2, 3, 4, 5, 6, 7, 8}}.l);
    expect_int("tv len", tv.len, 65);
    expect_int("tv tag", tv.bytes[0], CINT_TAG_I512);
    expect_int("tv limb 7", tv.bytes[1 + 56], 8);
    if (failures) return 1;
    printf("test_wide: all passed\n");
    return 0;
}
