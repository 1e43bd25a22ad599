/* prelude.c: the out-of-line helpers of generated code declared in cint_rt_prelude.h (the C17 emitter's
   prelude): the fault records of the named operations, fixed point, enums, clamp, calls and views;
   printing of fixed-point and Str values; swap; the element walk of the alias test (LS-121) and the
   copies of a dispatch's interleaved arguments; the records of kernel reductions.
   Each builds exactly the record the reference interpreter (cint_compiler.interp) raises;
   tests/test_prelude.c compares them with cint_abi's encoder. */
#include "cint_rt_prelude.h"

/* --- fault records ---------------------------------------------------------------------------------- */

int cintg_raise(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t tag,
                uint32_t nops, uint64_t a, uint64_t b, int has_exact, cintg_i128 exact, int has_limit,
                uint64_t limit)
{
    cint_tvalue ops[2], lim;
    uint8_t ex[16];
    cint_tv_int(&ops[0], tag, a);
    cint_tv_int(&ops[1], tag, b);
    cint_tv_int(&lim, tag, limit);
    for (int k = 0; k < 16; k++) ex[k] = (uint8_t)((cintg_u128)exact >> (8 * k));
    const cint_gen_fault f = {code, (uint16_t)nops, has_exact ? 16u : 0u, op, ops, has_exact ? ex : NULL,
                              has_limit ? &lim : NULL};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_raise_n(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t n,
                  const uint32_t *tags, const uint64_t *vals, int has_exact, cintg_z exact,
                  int has_limit, uint32_t ltag, uint64_t limit)
{
    cint_tvalue ops[3], lim;
    uint8_t ex[17];
    for (uint32_t k = 0; k < n && k < 3u; k++) cint_tv_int(&ops[k], tags[k], vals[k]);
    cint_tv_int(&lim, ltag, limit);
    cintg_u128 m = exact.neg ? (cintg_u128)0 - exact.mag : exact.mag;
    for (int k = 0; k < 16; k++) ex[k] = (uint8_t)(m >> (8 * k));
    ex[16] = exact.neg ? 0xFFu : 0u;
    const cint_gen_fault f = {code, (uint16_t)n, has_exact ? 17u : 0u, op, ops, has_exact ? ex : NULL,
                              has_limit ? &lim : NULL};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_enum_narrow(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t tag, int sgn,
                      uint64_t x)
{
    cintg_z z;
    z.neg = sgn && (int64_t)x < 0;
    z.mag = z.neg ? (cintg_u128)((uint64_t)0 - x) : (cintg_u128)x;
    return cintg_raise_n(ctx, at, CINT_E_NARROW, op, 1u, &tag, &x, 1, z, 0, tag, 0u);
}

void cintg_tv(cint_tvalue *t, uint32_t tag, int32_t qf, uint64_t bits)
{
    cint_tv_int(t, tag, bits);
    if (qf < 0) return;
    uint32_t n = t->len - 1u;
    memmove(t->bytes + 4, t->bytes + 1, n);
    t->bytes[0] = 0x31u;
    t->bytes[1] = (uint8_t)tag;
    t->bytes[2] = (uint8_t)((uint32_t)qf & 0xFFu);
    t->bytes[3] = (uint8_t)((uint32_t)qf >> 8);
    t->len = 4u + n;
}

int cintg_qfault(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t nops,
                 uint32_t otag, int32_t of, uint64_t a, uint64_t b, int has_exact, cintg_i128 exact,
                 uint32_t ltag, int32_t lf, uint64_t limit)
{
    cint_tvalue ops[2], lim;
    uint8_t ex[16];
    cintg_tv(&ops[0], otag, of, a);
    cintg_tv(&ops[1], otag, of, b);
    cintg_tv(&lim, ltag, lf, limit);
    for (int k = 0; k < 16; k++) ex[k] = (uint8_t)((cintg_u128)exact >> (8 * k));
    const cint_gen_fault f = {code, (uint16_t)nops, has_exact ? 16u : 0u, op, ops, has_exact ? ex : NULL,
                              has_exact ? &lim : NULL};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_clamp_fault(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t tag, uint64_t x,
                      uint64_t lo, uint64_t hi)
{
    const uint32_t tags[3] = {tag, tag, tag};
    const uint64_t vals[3] = {x, lo, hi};
    cintg_z none = {0, 0u};
    return cintg_raise_n(ctx, at, CINT_E_DOMAIN, op, 3u, tags, vals, 0, none, 0, tag, 0u);
}

int cintg_bind_shape(cint_ctx *ctx, const cint_gen_at *at, int64_t param, int64_t dim, int64_t got,
                     int64_t want)
{
    cint_tvalue ops[3], lim;
    cint_tv_i64(&ops[0], param);
    cint_tv_i64(&ops[1], dim);
    cint_tv_i64(&ops[2], got);
    cint_tv_i64(&lim, want);
    const cint_gen_fault f = {CINT_E_SHAPE, 3u, 0u, "bind.shape", ops, NULL, &lim};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_bind_alias(cint_ctx *ctx, const cint_gen_at *at, int64_t a, int64_t b)
{
    cint_tvalue ops[2];
    cint_tv_i64(&ops[0], a);
    cint_tv_i64(&ops[1], b);
    const cint_gen_fault f = {CINT_E_ALIAS, 2u, 0u, "bind.alias", ops, NULL, NULL};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_view_fault(cint_ctx *ctx, const cint_gen_at *at, const char *op, uint32_t rank, uint32_t dim,
                     int nv, cintg_i128 v0, cintg_i128 v1, int64_t ext)
{
    cint_tvalue ops[3], lim;
    uint16_t n = 0;
    if (rank >= 2) cint_tv_i64(&ops[n++], (int64_t)dim);
    cint_tv_i64(&ops[n++], (int64_t)v0);
    if (nv > 1) cint_tv_i64(&ops[n++], (int64_t)v1);
    cint_tv_i64(&lim, ext);
    const cint_gen_fault f = {CINT_E_BOUNDS, n, 0u, op, ops, NULL, &lim};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_copy_shape_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t dim, int64_t got, int64_t want)
{
    cint_tvalue ops[2], lim;
    cint_tv_i64(&ops[0], (int64_t)dim);
    cint_tv_i64(&ops[1], got);
    cint_tv_i64(&lim, want);
    const cint_gen_fault f = {CINT_E_SHAPE, 2u, 0u, "copy.shape", ops, NULL, &lim};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_copy_alias_fault(cint_ctx *ctx, const cint_gen_at *at)
{
    const cint_gen_fault f = {CINT_E_ALIAS, 0u, 0u, "copy.alias", NULL, NULL, NULL};
    return cint_gen_raise(ctx, at, &f);
}
/* --- fixed-point and Str text, swap ----------------------------------------------------------------- */

int cintg_print_q(cint_ctx *ctx, int64_t raw, unsigned f)
{
    char buf[96], ib[24];
    int n = 0, m = 0;
    uint64_t a = raw < 0 ? (uint64_t)0 - (uint64_t)raw : (uint64_t)raw;
    uint64_t mask = f == 0u ? 0u : (((uint64_t)1 << f) - 1u);
    uint64_t whole = a >> f;
    cintg_u128 frac = a & mask;
    do { ib[m++] = (char)('0' + whole % 10u); whole /= 10u; } while (whole != 0u);
    if (raw < 0) buf[n++] = '-';
    while (m > 0) buf[n++] = ib[--m];
    buf[n++] = '.';
    if (frac == 0u) buf[n++] = '0';
    while (frac != 0u) {
        frac *= 10u;
        buf[n++] = (char)('0' + (int)(frac >> f));
        frac &= mask;
    }
    return cint_gen_print_bytes(ctx, buf, (size_t)n);
}

int cintg_strcmp(const cint_gen_array *a, const cint_gen_array *b)
{
    int64_t n = a->shape[0] < b->shape[0] ? a->shape[0] : b->shape[0];
    int c = 0;
    if (n > 0 && a->stride[0] == 1 && b->stride[0] == 1) c = memcmp(a->data, b->data, (size_t)n);
    else for (int64_t k = 0; k < n && c == 0; k++)      /* a Str of a strided U8 view (format, utf8) */
        c = (int)a->data[k * a->stride[0]] - (int)b->data[k * b->stride[0]];
    if (c != 0) return c;
    return (a->shape[0] > b->shape[0]) - (a->shape[0] < b->shape[0]);
}

int cintg_print_str(cint_ctx *ctx, const cint_fmt_spec *fs, const cint_gen_array *s)
{
    int64_t n = s->shape[0], chars = 0;
    for (int64_t k = 0; k < n; k++) chars += (s->data[k * s->stride[0]] & 0xC0u) != 0x80u;
    int64_t gap = (fs != NULL && fs->width > chars) ? fs->width - chars : 0;
    char align = (fs != NULL && fs->align) ? fs->align : '>';
    int64_t left = align == '<' ? 0 : align == '>' ? gap : gap / 2;
    for (int64_t k = 0; k < left; k++)
        if (cint_gen_print_bytes(ctx, fs->fill, fs->fill_len)) return 1;
    if (n > 0 && s->stride[0] == 1 && cint_gen_print_bytes(ctx, s->data, (size_t)n)) return 1;
    if (n > 0 && s->stride[0] != 1)
        for (int64_t k = 0; k < n; k++)
            if (cint_gen_print_bytes(ctx, s->data + k * s->stride[0], 1u)) return 1;
    for (int64_t k = left; k < gap; k++)
        if (cint_gen_print_bytes(ctx, fs->fill, fs->fill_len)) return 1;
    return 0;
}

void cintg_swap(cint_gen_array *a, cint_gen_array *b)
{
    int64_t n = a->elem_size;
    for (uint32_t d = 0; d < a->rank; d++) n *= a->shape[d];
    if (a->data == b->data) return;
    for (int64_t k = 0; k < n; k++) {
        uint8_t t = a->data[k];
        a->data[k] = b->data[k];
        b->data[k] = t;
    }
}
/* --- the element walk of alias tests, dispatch copies ----------------------------------------------- */

/* Whether element offset k (from b's first element) is an element of b from dimension d on. */
static int cintg_member(const cint_gen_array *b, uint32_t d, int64_t k)
{
    if (d + 1u >= b->rank) {
        int64_t s = b->stride[d];
        if (s == 0) return k == 0 && b->shape[d] > 0;
        if (k % s != 0) return 0;
        return k / s >= 0 && k / s < b->shape[d];
    }
    for (int64_t i = 0; i < b->shape[d]; i++)
        if (cintg_member(b, d + 1u, k - i * b->stride[d])) return 1;
    return 0;
}

int cintg_overlap_walk(const cint_gen_array *a, const cint_gen_array *b)
{
    int64_t idx[4] = {0, 0, 0, 0}, base = ((int64_t)(uintptr_t)a->data - (int64_t)(uintptr_t)b->data);
    if (base % a->elem_size != 0) return 0;
    base /= a->elem_size;
    for (;;) {
        int64_t k = base;
        for (uint32_t d = 0; d < a->rank; d++) k += idx[d] * a->stride[d];
        if (cintg_member(b, 0u, k)) return 1;
        int d = (int)a->rank - 1;
        for (; d >= 0; d--) {
            if (++idx[d] < a->shape[d]) break;
            idx[d] = 0;
        }
        if (d < 0) return 0;
    }
}

int cintg_interleaved(const cint_gen_array *a, const cint_gen_array *b)
{
    int64_t la, ha, lb, hb;
    if (cintg_empty(a) || cintg_empty(b)) return 0;
    cintg_span(a, &la, &ha);
    cintg_span(b, &lb, &hb);
    if (!(la < hb + b->elem_size && lb < ha + a->elem_size)) return 0;
    return !cintg_overlap(a, b);
}

void cintg_copy_raw(cint_gen_array *dst, const cint_gen_array *src)
{
    int64_t idx[4] = {0, 0, 0, 0};
    if (cintg_empty(dst)) return;
    do memcpy(cintg_at(dst, idx), cintg_at(src, idx), (size_t)dst->elem_size);
    while (cintg_next(dst, idx));
}

int cintg_detach(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *a)
{
    cint_gen_array t;
    if (cintg_local_array(ctx, at, &t, a->type, a->elem_size, a->rank, a->shape)) return 1;
    cintg_copy_raw(&t, a);
    for (uint32_t d = 0; d < a->rank; d++) t.lower[d] = a->lower[d];
    t.perm = a->perm;
    *a = t;
    return 0;
}

/* --- kernel reductions (docs/language.md decision 23) ----------------------------------------------- */

int cintg_rfault(cint_ctx *ctx, const cint_gen_at *at, const char *op, const cint_tvalue *ops, uint16_t n,
                 cintg_i128 v, uint32_t ttag, cintg_i128 lo, cintg_i128 hi)
{
    uint8_t ex[16];
    cint_tvalue lim;
    for (int k = 0; k < 16; k++) ex[k] = (uint8_t)((cintg_u128)v >> (8 * k));
    cint_tv_int(&lim, ttag, (uint64_t)(v > hi ? hi : lo));
    const cint_gen_fault f = {CINT_E_OVERFLOW, n, 16u, op, ops, ex, &lim};
    return cint_gen_raise(ctx, at, &f);
}

int cintg_reduce_end(cint_ctx *ctx, const cint_gen_at *at, const cintg_racc *r, int kind, uint32_t ttag,
                     cintg_i128 lo, cintg_i128 hi, const char *op, uint64_t *out)
{
    if (kind == 0 && (r->v < lo || r->v > hi)) {
        cint_tvalue o;
        cint_tv_i64(&o, r->n);
        return cintg_rfault(ctx, at, op, &o, 1u, r->v, ttag, lo, hi);
    }
    if ((kind == 4 || kind == 5) && r->n == 0) {
        cint_tvalue o;
        cint_tv_i64(&o, 0);
        const cint_gen_fault f = {CINT_E_SHAPE, 1u, 0u, op, &o, NULL, NULL};
        return cint_gen_raise(ctx, at, &f);
    }
    *out = (uint64_t)(cintg_u128)r->v;
    return 0;
}
