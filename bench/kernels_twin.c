/* kernels_twin.c: the checked plain-C twins of the exports of bench/kernels.ci, and the STREAM
 * triad, for bench/kernels.py.
 *
 * Each twin is the same loop as the cint source, written as a C programmer who wants cint's checks
 * would write it: every operation that cint checks goes through __builtin_*_overflow, in the order
 * cint evaluates it, and the loop stops at the first fault and returns its index (the work item of a
 * kernel, in row-major order for a 2-D `over`; the loop index of a function), or -1 when nothing
 * faulted.  A kernel's twin writes its output directly (it does not stage), a function's twin writes
 * its inout array in place as cint does, so the stores before the fault are the same.
 *
 * Index checks: none of these loops has one, because every index cint checks here is provably in
 * range (the loop bounds, the `over` ranges and the size symbols prove `x[i]`, `x[i + k]` against
 * `I32[m + 4]`, `u[i + 2, j + 1]` against `I32[h + 2, w + 2]`, `a[i]` of `I32[r, c]`), and the
 * histogram index `img[r, c] as I64` is a U8, so below 256, the extent of `hist`.
 *
 * Nothing here is vectorised by hand.  Compiled by bench/kernels.py with cint_runtime.compiler()
 * and cint_runtime.CFLAGS (-std=c17 -Wall -Wextra -Wpedantic -O2 -fPIC -fvisibility=hidden), the
 * compiler and flags cint builds libraries with, plus -shared.
 */
#include <stdint.h>

#define API __attribute__((visibility("default")))

/* 1. prefix_sum: acc += x[i] is add.checked.i64; s[i] = acc is stored before the next step. */
API int64_t prefix_sum_chk(const int64_t *x, int64_t *s, int64_t n)
{
    int64_t acc = 0;
    for (int64_t i = 0; i < n; i++) {
        if (__builtin_add_overflow(acc, x[i], &acc)) return i;
        s[i] = acc;
    }
    return -1;
}

/* 2. fir5: TAPS[k] * x[i + k] is mul.checked.i32, acc += ... add.checked.i32. */
static const int32_t TAPS[5] = {1, 4, 6, 4, 1};

API int64_t fir5_chk(const int32_t *x, int32_t *y, int64_t m)
{
    for (int64_t i = 0; i < m; i++) {
        int32_t acc = 0;
        for (int k = 0; k < 5; k++) {
            int32_t p;
            if (__builtin_mul_overflow(TAPS[k], x[i + k], &p)) return i;
            if (__builtin_add_overflow(acc, p, &acc)) return i;
        }
        y[i] = acc;
    }
    return -1;
}

/* 3. histogram: hist[v] += 1 is add.checked.i64 (the only check: see the index note above).
 * Returns the flat index r * w + c of the faulting pixel. */
API int64_t histogram_chk(const uint8_t *img, int64_t h, int64_t w, int64_t *hist)
{
    for (int64_t r = 0; r < h; r++) {
        const uint8_t *row = img + r * w;
        for (int64_t c = 0; c < w; c++) {
            int64_t *cell = &hist[row[c]], t;
            if (__builtin_add_overflow(*cell, (int64_t)1, &t)) return r * w + c;   /* nothing stored */
            *cell = t;
        }
    }
    return -1;
}

/* 4. stencil: u[i+1, j+1] * 4 (mul.checked.i32), then four sub.checked.i32, left to right.
 * u is (h + 2) x (w + 2), v is h x w, both row-major; returns the work item i * w + j. */
API int64_t stencil_chk(const int32_t *u, int32_t *v, int64_t h, int64_t w)
{
    const int64_t uw = w + 2;
    for (int64_t i = 0; i < h; i++) {
        const int32_t *up = u + i * uw, *mid = u + (i + 1) * uw, *dn = u + (i + 2) * uw;
        for (int64_t j = 0; j < w; j++) {
            int32_t t;
            if (__builtin_mul_overflow(mid[j + 1], (int32_t)4, &t)) return i * w + j;
            if (__builtin_sub_overflow(t, up[j + 1], &t)) return i * w + j;
            if (__builtin_sub_overflow(t, dn[j + 1], &t)) return i * w + j;
            if (__builtin_sub_overflow(t, mid[j], &t)) return i * w + j;
            if (__builtin_sub_overflow(t, mid[j + 2], &t)) return i * w + j;
            v[i * w + j] = t;
        }
    }
    return -1;
}

/* 5. collatz: 3 * v (mul.checked.i64), + 1 (add.checked.i64), s += 1 (add.checked.i64).
 * v % 2 and v / 2 divide by the constant 2, which can neither be zero nor overflow (I64 MIN / -1),
 * so those checks of cint's can never fire and are not written. */
API int64_t collatz_chk(const int64_t *x, int64_t *steps, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t v = x[i], s = 0;
        while (v != 1) {
            if (v % 2 == 0) {
                v = v / 2;
            } else {
                if (__builtin_mul_overflow((int64_t)3, v, &v)) return i;
                if (__builtin_add_overflow(v, (int64_t)1, &v)) return i;
            }
            if (__builtin_add_overflow(s, (int64_t)1, &s)) return i;
        }
        steps[i] = s;
    }
    return -1;
}

/* dot(I64, a, b) over I32: each product of two I32 fits I64 exactly, so only the sum is checked,
 * and, as cint's `dot`, the check is on the mathematical total, not on each partial sum: an add
 * that wraps is counted (+1 up, -1 down), and the total fits I64 exactly when the count ends at 0
 * (then the wrapped sum is the total).  Returns 0 and stores the total, or 1 (overflow). */
static int dot_i32_i64(const int32_t *a, const int32_t *b, int64_t n, int64_t *out)
{
    int64_t s = 0, wraps = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t p = (int64_t)a[k] * b[k];
        if (__builtin_add_overflow(s, p, &s)) wraps += p > 0 ? 1 : -1;
    }
    if (wraps != 0) return 1;
    *out = s;
    return 0;
}

/* 6. matvec: y[i] = dot(I64, a[i], x); returns the faulting row. */
API int64_t matvec_chk(const int32_t *a, const int32_t *x, int64_t *y, int64_t r, int64_t c)
{
    for (int64_t i = 0; i < r; i++)
        if (dot_i32_i64(a + i * c, x, c, &y[i])) return i;
    return -1;
}

/* advance: vel[i] * dt (mul.checked.i64), pos[i] + ... (add.checked.i64). */
API int64_t advance_chk(const int64_t *pos, const int64_t *vel, int64_t dt, int64_t *next, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t m, r;
        if (__builtin_mul_overflow(vel[i], dt, &m)) return i;
        if (__builtin_add_overflow(pos[i], m, &r)) return i;
        next[i] = r;
    }
    return -1;
}

/* total: sum(x), checked on the mathematical total as cint's `sum` (the wrap count, as in dot).
 * Returns 0 and stores the total, or 1 (overflow). */
API int total_chk(const int64_t *x, int64_t n, int64_t *out)
{
    int64_t s = 0, wraps = 0;
    for (int64_t i = 0; i < n; i++)
        if (__builtin_add_overflow(s, x[i], &s)) wraps += x[i] > 0 ? 1 : -1;
    if (wraps != 0) return 1;
    *out = s;
    return 0;
}

/* dot64: dot(I64, a, b) of two I32 vectors. */
API int dot64_chk(const int32_t *a, const int32_t *b, int64_t n, int64_t *out)
{
    return dot_i32_i64(a, b, n, out);
}

/* The STREAM triad over int64, unchecked: the memory traffic of advance (two streams read, one
 * written) with the least work per element.  Unsigned arithmetic, so wrapping is defined. */
API void triad(int64_t *a, const int64_t *b, int64_t s, const int64_t *c, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = (int64_t)((uint64_t)b[i] + (uint64_t)s * (uint64_t)c[i]);
}
