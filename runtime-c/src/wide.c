/* wide.c: the operations of cint_rt_wide.h on I128 to I1024 (and on I8 to U64 where a wide type
   takes part). Every operation computes its exact result in Z (sign and magnitude, WZ_L limbs:
   enough for a product of two I1024 values, a shifted I1024 and any sum the runtime can hold),
   then applies the operator form of SPEC-01P.1 IM-30 and, for a fault, writes the record of
   intmachine.py: operands as typed values, exact as a minimal Z and the bound crossed. */
#include <stdio.h>

#include "rt_internal.h"

__extension__ typedef unsigned __int128 w_u128;

#define WZ_L 34u

typedef struct wz {
    bool neg;           /* never set for zero */
    uint64_t m[WZ_L];   /* magnitude, least significant limb first */
} wz;

/* --- types ------------------------------------------------------------------------------------- */

unsigned cint_w_width(uint32_t tag)
{
    switch (tag) {
    case CINT_TAG_I8: case CINT_TAG_U8: return 8;
    case CINT_TAG_I16: case CINT_TAG_U16: return 16;
    case CINT_TAG_I32: case CINT_TAG_U32: return 32;
    case CINT_TAG_I64: case CINT_TAG_U64: return 64;
    case CINT_TAG_I128: return 128;
    case CINT_TAG_I256: return 256;
    case CINT_TAG_I512: return 512;
    case CINT_TAG_I1024: return 1024;
    default: return 0;
    }
}

unsigned cint_w_limbs(uint32_t tag)
{
    unsigned w = cint_w_width(tag);
    return w <= 64u ? 1u : w / 64u;
}

static bool w_signed(uint32_t tag) { return (tag & 0xF0u) == 0x10u; }

void cint_w_tv(cint_tvalue *t, uint32_t tag, const uint64_t *v)
{
    unsigned w = cint_w_width(tag);
    if (w <= 64u) {
        cint_tv_int(t, tag, v[0]);
        return;
    }
    memset(t, 0, sizeof *t);
    t->bytes[0] = (uint8_t)tag;
    for (unsigned k = 0; k < w / 8u; k++) t->bytes[1 + k] = (uint8_t)(v[k / 8u] >> (8u * (k % 8u)));
    t->len = 1u + w / 8u;
}

/* --- magnitudes ---------------------------------------------------------------------------------- */

static unsigned m_len(const uint64_t *m)
{
    unsigned n = WZ_L;
    while (n > 0 && m[n - 1u] == 0) n--;
    return n;
}

static int m_cmp(const uint64_t *a, const uint64_t *b)
{
    for (unsigned k = WZ_L; k-- > 0;)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static void m_add(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    uint64_t c = 0;
    for (unsigned k = 0; k < WZ_L; k++) {
        uint64_t s = a[k] + c;
        uint64_t c1 = s < c;
        r[k] = s + b[k];
        c = c1 + (r[k] < s);
    }
}

/* r = a - b for a >= b. */
static void m_sub(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    uint64_t br = 0;
    for (unsigned k = 0; k < WZ_L; k++) {
        uint64_t d = a[k] - b[k];
        uint64_t b1 = a[k] < b[k];
        r[k] = d - br;
        br = b1 + (d < br);
    }
}

static void m_mul(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    uint64_t t[WZ_L];
    unsigned na = m_len(a), nb = m_len(b);
    memset(t, 0, sizeof t);
    for (unsigned i = 0; i < na; i++) {
        uint64_t c = 0;
        for (unsigned j = 0; j < nb && i + j < WZ_L; j++) {
            w_u128 p = (w_u128)a[i] * b[j] + t[i + j] + c;
            t[i + j] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        if (i + nb < WZ_L) t[i + nb] = c;
    }
    memcpy(r, t, sizeof t);
}

static void m_shl(uint64_t *r, const uint64_t *a, unsigned k)
{
    uint64_t t[WZ_L];
    unsigned q = k / 64u, s = k % 64u;
    memset(t, 0, sizeof t);
    for (unsigned i = WZ_L; i-- > q;) {
        t[i] = a[i - q] << s;
        if (s != 0 && i - q >= 1u) t[i] |= a[i - q - 1u] >> (64u - s);
    }
    memcpy(r, t, sizeof t);
}

static void m_shr(uint64_t *r, const uint64_t *a, unsigned k)
{
    uint64_t t[WZ_L];
    unsigned q = k / 64u, s = k % 64u;
    memset(t, 0, sizeof t);
    for (unsigned i = 0; i + q < WZ_L; i++) {
        t[i] = a[i + q] >> s;
        if (s != 0 && i + q + 1u < WZ_L) t[i] |= a[i + q + 1u] << (64u - s);
    }
    memcpy(r, t, sizeof t);
}

static unsigned m_bits(const uint64_t *m)
{
    unsigned n = m_len(m);
    if (n == 0) return 0;
    return 64u * (n - 1u) + (64u - (unsigned)__builtin_clzll(m[n - 1u]));
}

/* q = a / b, r = a % b (b nonzero); q or r may be NULL. */
static void m_divmod(const uint64_t *a, const uint64_t *b, uint64_t *q, uint64_t *r)
{
    uint64_t qq[WZ_L], rr[WZ_L];
    memset(qq, 0, sizeof qq);
    memset(rr, 0, sizeof rr);
    if (m_len(b) == 1u) { /* one-limb divisor: limb by limb */
        uint64_t d = b[0], rem = 0;
        for (unsigned k = m_len(a); k-- > 0;) {
            w_u128 cur = ((w_u128)rem << 64) | a[k];
            qq[k] = (uint64_t)(cur / d);
            rem = (uint64_t)(cur % d);
        }
        rr[0] = rem;
    } else {
        for (unsigned i = m_bits(a); i-- > 0;) {
            m_shl(rr, rr, 1);
            rr[0] |= (a[i / 64u] >> (i % 64u)) & 1u;
            if (m_cmp(rr, b) >= 0) {
                m_sub(rr, rr, b);
                qq[i / 64u] |= (uint64_t)1 << (i % 64u);
            }
        }
    }
    if (q != NULL) memcpy(q, qq, sizeof qq);
    if (r != NULL) memcpy(r, rr, sizeof rr);
}

/* --- Z ---------------------------------------------------------------------------------------------- */

static bool z_zero(const wz *a) { return m_len(a->m) == 0; }

static wz z_small(int64_t v)
{
    wz z;
    memset(&z, 0, sizeof z);
    z.neg = v < 0;
    z.m[0] = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return z;
}

/* The value of an integer of type tag in the limb convention of cint_rt_wide.h. */
static wz z_load(uint32_t tag, const uint64_t *v)
{
    wz z;
    memset(&z, 0, sizeof z);
    unsigned n = cint_w_limbs(tag);
    bool neg = w_signed(tag) && (v[n - 1u] >> 63) != 0;
    if (!neg) {
        memcpy(z.m, v, n * sizeof(uint64_t));
        return z;
    }
    uint64_t c = 1;
    for (unsigned k = 0; k < n; k++) {
        z.m[k] = ~v[k] + c;
        c = c && z.m[k] == 0;
    }
    z.neg = true;
    return z;
}

static wz z_neg(wz a)
{
    a.neg = !a.neg && !z_zero(&a);
    return a;
}

static wz z_add(wz a, wz b)
{
    wz r;
    memset(&r, 0, sizeof r);
    if (a.neg == b.neg) {
        m_add(r.m, a.m, b.m);
        r.neg = a.neg;
        return r;
    }
    if (m_cmp(a.m, b.m) < 0) {
        wz t = a;
        a = b;
        b = t;
    }
    m_sub(r.m, a.m, b.m);
    r.neg = a.neg && !z_zero(&r);
    return r;
}

static wz z_sub(wz a, wz b) { return z_add(a, z_neg(b)); }

static wz z_mul(wz a, wz b)
{
    wz r;
    m_mul(r.m, a.m, b.m);
    r.neg = (a.neg != b.neg) && !z_zero(&r);
    return r;
}

static int z_cmp(const wz *a, const wz *b)
{
    if (a->neg != b->neg) return a->neg ? -1 : 1;
    int c = m_cmp(a->m, b->m);
    return a->neg ? -c : c;
}

/* Truncating division: q rounds toward zero, r has the sign of a. */
static void z_divmod_trunc(const wz *a, const wz *b, wz *q, wz *r)
{
    m_divmod(a->m, b->m, q->m, r->m);
    q->neg = (a->neg != b->neg) && !z_zero(q);
    r->neg = a->neg && !z_zero(r);
}

/* Floor division: q = floor(a / b), r = a - b q (the sign of b). */
static void z_divmod_floor(const wz *a, const wz *b, wz *q, wz *r)
{
    z_divmod_trunc(a, b, q, r);
    if (!z_zero(r) && r->neg != b->neg) {
        *q = z_sub(*q, z_small(1));
        *r = z_add(*r, *b);
    }
}

/* round_div of intmachine.py: n / d rounded once by mode (index into ROUND_MODES). */
static wz z_round_div(wz n, wz d, int mode)
{
    if (d.neg) {
        n = z_neg(n);
        d = z_neg(d);
    }
    wz q, r;
    z_divmod_floor(&n, &d, &q, &r);
    if (z_zero(&r)) return q;
    bool negative = n.neg;
    wz one = z_small(1), up = z_add(q, one);
    switch (mode) {
    case 0: return q;                   /* floor */
    case 1: return up;                  /* ceil */
    case 2: return negative ? up : q;   /* trunc */
    case 3: return negative ? q : up;   /* away */
    default: break;
    }
    wz twice = z_add(r, r);
    int c = z_cmp(&twice, &d);
    if (c < 0) return q;
    if (c > 0) return up;
    switch (mode) {
    case 4: { /* half_even */
        bool odd = (q.m[0] & 1u) != 0;
        return odd ? up : q;
    }
    case 5: return negative ? q : up;   /* half_away */
    case 6: return negative ? up : q;   /* half_trunc */
    case 7: return up;                  /* half_up */
    default: return q;                  /* half_down */
    }
}

/* floor(sqrt(x)) for x >= 0; *rest receives x - floor(sqrt(x))^2. */
static wz z_isqrt(wz x, wz *rest)
{
    wz res, bit;
    memset(&res, 0, sizeof res);
    memset(&bit, 0, sizeof bit);
    unsigned nb = m_bits(x.m);
    if (nb > 0) {
        unsigned top = (nb - 1u) & ~1u;
        bit.m[top / 64u] = (uint64_t)1 << (top % 64u);
    }
    while (!z_zero(&bit)) {
        wz t = z_add(res, bit);
        if (m_cmp(x.m, t.m) >= 0) {
            m_sub(x.m, x.m, t.m);
            m_shr(res.m, res.m, 1);
            res = z_add(res, bit);
        } else {
            m_shr(res.m, res.m, 1);
        }
        m_shr(bit.m, bit.m, 2);
    }
    *rest = x;
    return res;
}

/* The bounds of an integer type. */
static wz z_max(uint32_t tag)
{
    wz z;
    memset(&z, 0, sizeof z);
    unsigned w = cint_w_width(tag) - (w_signed(tag) ? 1u : 0u);
    for (unsigned k = 0; k < w; k++) z.m[k / 64u] |= (uint64_t)1 << (k % 64u);
    return z;
}

static wz z_min(uint32_t tag)
{
    wz z;
    memset(&z, 0, sizeof z);
    if (!w_signed(tag)) return z;
    unsigned k = cint_w_width(tag) - 1u;
    z.m[k / 64u] = (uint64_t)1 << (k % 64u);
    z.neg = true;
    return z;
}

static bool z_fits(const wz *z, uint32_t tag)
{
    wz lo = z_min(tag), hi = z_max(tag);
    return z_cmp(z, &lo) >= 0 && z_cmp(z, &hi) <= 0;
}

/* wrap(T, z) in the limb convention: two's complement over all limbs, cut to the width and, for
   I8 to U64, extended to 64 bits by the type's signedness. */
static void z_store(const wz *z, uint32_t tag, uint64_t *out)
{
    uint64_t t[WZ_L];
    memcpy(t, z->m, sizeof t);
    if (z->neg) {
        uint64_t c = 1;
        for (unsigned k = 0; k < WZ_L; k++) {
            t[k] = ~t[k] + c;
            c = c && t[k] == 0;
        }
    }
    unsigned w = cint_w_width(tag);
    if (w >= 64u) {
        memcpy(out, t, (w / 64u) * sizeof(uint64_t));
        return;
    }
    uint64_t v = t[0] & ((UINT64_C(1) << w) - 1u);
    if (w_signed(tag) && ((v >> (w - 1u)) & 1u)) v |= ~((UINT64_C(1) << w) - 1u);
    out[0] = v;
}

/* The record of a fault: operands, exact (when has_exact) and the bound of ltag z crosses (when
   has_limit). */
static int w_raise(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *name, const cint_tvalue *ops,
                   uint16_t nops, const wz *exact, uint32_t ltag)
{
    uint8_t bytes[WZ_L * 8u + 1u];
    cint_tvalue limit;
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = code;
    f.operation = name;
    f.operands = ops;
    f.operand_count = nops;
    if (exact != NULL) {
        uint64_t t[WZ_L];
        memcpy(t, exact->m, sizeof t);
        if (exact->neg) {
            uint64_t c = 1;
            for (unsigned k = 0; k < WZ_L; k++) {
                t[k] = ~t[k] + c;
                c = c && t[k] == 0;
            }
        }
        for (unsigned k = 0; k < WZ_L * 8u; k++) bytes[k] = (uint8_t)(t[k / 8u] >> (8u * (k % 8u)));
        bytes[WZ_L * 8u] = exact->neg ? 0xFFu : 0u;
        f.exact = bytes;
        f.exact_len = sizeof bytes;
        if (ltag != 0) {
            wz b = exact->neg ? z_min(ltag) : z_max(ltag);
            uint64_t lb[16];
            z_store(&b, ltag, lb);
            cint_w_tv(&limit, ltag, lb);
            f.limit = &limit;
        }
    }
    return cint_gen_raise(ctx, at, &f);
}

/* The form rule (IM-30) on the exact value v for type tag; 1 after a checked fault. */
static int w_form(cint_ctx *ctx, const cint_gen_at *at, uint32_t form, uint32_t tag, const wz *v, const char *name,
                  const cint_tvalue *ops, uint16_t nops, uint64_t *r)
{
    if (z_fits(v, tag)) {
        z_store(v, tag, r);
        return 0;
    }
    if (form == CINT_W_WRAP) {
        z_store(v, tag, r);
        return 0;
    }
    if (form == CINT_W_SAT) {
        wz b = v->neg ? z_min(tag) : z_max(tag);
        z_store(&b, tag, r);
        return 0;
    }
    return w_raise(ctx, at, CINT_E_OVERFLOW, name, ops, nops, v, tag);
}

/* --- operations ---------------------------------------------------------------------------------- */

static const char *const k_names[] = {"", "add", "sub", "mul", "neg", "div", "rem", "shl", "shl", "shr"};
static const char *const k_forms[] = {"checked", "wrap", "sat"};

int cint_w_arith(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t form, uint32_t tag, const uint64_t *a,
                 const uint64_t *b, uint64_t *r)
{
    wz x = z_load(tag, a), v;
    switch (op) {
    case CINT_OP_ADD: v = z_add(x, z_load(tag, b)); break;
    case CINT_OP_SUB: v = z_sub(x, z_load(tag, b)); break;
    case CINT_OP_MUL: v = z_mul(x, z_load(tag, b)); break;
    default: v = z_neg(x); break;
    }
    if (form == CINT_W_CHECKED && !z_fits(&v, tag)) {
        char name[40];
        cint_tvalue ops[2];
        uint16_t n = op == CINT_OP_NEG ? 1u : 2u;
        snprintf(name, sizeof name, "%s.%s.%s", k_names[op <= CINT_OP_NEG ? op : 0], k_forms[0], rt_type_suffix(tag));
        cint_w_tv(&ops[0], tag, a);
        if (n == 2u) cint_w_tv(&ops[1], tag, b);
        return w_raise(ctx, at, CINT_E_OVERFLOW, name, ops, n, &v, tag);
    }
    return w_form(ctx, at, form, tag, &v, "", NULL, 0, r);
}

int cint_w_divide(cint_ctx *ctx, const cint_gen_at *at, const char *name, uint32_t kind, uint32_t tag,
                  const uint64_t *a, const uint64_t *b, uint64_t *r)
{
    cint_tvalue ops[2];
    wz x = z_load(tag, a), y = z_load(tag, b), q, m;
    if (z_zero(&y)) {
        cint_w_tv(&ops[0], tag, a);
        cint_w_tv(&ops[1], tag, b);
        return w_raise(ctx, at, CINT_E_DIV_ZERO, name, ops, 2, NULL, 0);
    }
    if (kind == CINT_W_DIV_FLOOR || kind == CINT_W_REM_FLOOR) {
        z_divmod_floor(&x, &y, &q, &m);
    } else {
        z_divmod_trunc(&x, &y, &q, &m);
        if ((kind == CINT_W_DIV_EUCLID || kind == CINT_W_REM_EUCLID) && m.neg) {
            if (!y.neg) {
                q = z_sub(q, z_small(1));
                m = z_add(m, y);
            } else {
                q = z_add(q, z_small(1));
                m = z_sub(m, y);
            }
        }
    }
    if (kind % 2u == 1u) {
        z_store(&m, tag, r);
        return 0;
    }
    if (!z_fits(&q, tag)) {
        cint_w_tv(&ops[0], tag, a);
        cint_w_tv(&ops[1], tag, b);
        return w_raise(ctx, at, CINT_E_OVERFLOW, name, ops, 2, &q, tag);
    }
    z_store(&q, tag, r);
    return 0;
}

int cint_w_rounddiv(cint_ctx *ctx, const cint_gen_at *at, const char *name, uint32_t ttag, uint32_t nops,
                    const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t rtag, int mode, uint64_t *r)
{
    cint_tvalue ops[3];
    wz num = z_load(ttag, a), den = z_load(ttag, b);
    if (nops == 3u) {
        num = z_mul(num, den);
        den = z_load(ttag, c);
    }
    cint_w_tv(&ops[0], ttag, a);
    cint_w_tv(&ops[1], ttag, b);
    if (nops == 3u) cint_w_tv(&ops[2], ttag, c);
    if (z_zero(&den)) return w_raise(ctx, at, CINT_E_DIV_ZERO, name, ops, (uint16_t)nops, NULL, 0);
    wz q = z_round_div(num, den, mode);
    if (!z_fits(&q, rtag)) return w_raise(ctx, at, CINT_E_OVERFLOW, name, ops, (uint16_t)nops, &q, rtag);
    z_store(&q, rtag, r);
    return 0;
}

int cint_w_shift(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t tag, const uint64_t *a, uint32_t ktag,
                 const uint64_t *k, uint64_t *r)
{
    unsigned w = cint_w_width(tag);
    wz x = z_load(tag, a), cnt = z_load(ktag, k);
    bool in_range = !cnt.neg && m_len(cnt.m) <= 1u && cnt.m[0] <= (uint64_t)(w - 1u);
    char name[40];
    cint_tvalue ops[2];
    snprintf(name, sizeof name, "%s.%s.%s", k_names[op >= CINT_OP_SHL && op <= CINT_OP_SHR ? op : 0],
             op == CINT_OP_SHL_WRAP ? "wrap" : "checked", rt_type_suffix(tag));
    if (!in_range) {
        cint_tvalue limit;
        cint_gen_fault f;
        cint_w_tv(&ops[0], tag, a);
        cint_w_tv(&ops[1], ktag, k);
        cint_tv_i64(&limit, (int64_t)(w - 1u));
        memset(&f, 0, sizeof f);
        f.code = CINT_E_SHIFT;
        f.operation = name;
        f.operands = ops;
        f.operand_count = 2;
        f.limit = &limit;
        return cint_gen_raise(ctx, at, &f);
    }
    unsigned s = (unsigned)cnt.m[0];
    wz v = x;
    if (op == CINT_OP_SHR) {
        /* floor(a / 2^s) */
        if (!x.neg) {
            m_shr(v.m, x.m, s);
        } else {
            wz p;
            memset(&p, 0, sizeof p);
            p.m[s / 64u] = (uint64_t)1 << (s % 64u);
            wz q, m;
            z_divmod_floor(&x, &p, &q, &m);
            v = q;
        }
        z_store(&v, tag, r);
        return 0;
    }
    m_shl(v.m, x.m, s);
    if (op == CINT_OP_SHL_WRAP || z_fits(&v, tag)) {
        z_store(&v, tag, r);
        return 0;
    }
    cint_w_tv(&ops[0], tag, a);
    cint_w_tv(&ops[1], ktag, k);
    return w_raise(ctx, at, CINT_E_OVERFLOW, name, ops, 2, &v, tag);
}

int cint_w_result(uint32_t op, uint32_t tag, const uint64_t *a, uint32_t btag, const uint64_t *b, uint64_t *r)
{
    wz x = z_load(tag, a), y = z_load(btag, b), v, m;
    switch (op) {
    case CINT_OP_ADD: v = z_add(x, y); break;
    case CINT_OP_SUB: v = z_sub(x, y); break;
    case CINT_OP_MUL: v = z_mul(x, y); break;
    case CINT_OP_DIV:
    case CINT_OP_REM:
        if (z_zero(&y)) return CINT_W_ERR_DIV_ZERO;
        z_divmod_floor(&x, &y, &v, &m);
        if (op == CINT_OP_REM) v = m; /* |m| < |b|: always in range */
        break;
    default: { /* CINT_OP_SHL: the count first (E_SHIFT), then the value (E_OVERFLOW) */
        unsigned w = cint_w_width(tag);
        if (y.neg || m_len(y.m) > 1u || y.m[0] > (uint64_t)(w - 1u)) return CINT_W_ERR_SHIFT;
        v = x;
        m_shl(v.m, x.m, (unsigned)y.m[0]);
        break;
    }
    }
    if (!z_fits(&v, tag)) return CINT_W_ERR_OVERFLOW;
    z_store(&v, tag, r);
    return 0;
}

int cint_w_convert(cint_ctx *ctx, const cint_gen_at *at, uint32_t form, uint32_t from, const uint64_t *v, uint32_t to,
                   uint64_t *r)
{
    wz x = z_load(from, v);
    char name[40];
    cint_tvalue op;
    snprintf(name, sizeof name, "as.checked.%s.%s", rt_type_suffix(from), rt_type_suffix(to));
    cint_w_tv(&op, from, v);
    if (form == CINT_W_CHECKED && !z_fits(&x, to)) return w_raise(ctx, at, CINT_E_NARROW, name, &op, 1, &x, to);
    return w_form(ctx, at, form, to, &x, name, &op, 1, r);
}

int cint_w_fits(uint32_t from, const uint64_t *v, uint32_t to)
{
    wz x = z_load(from, v);
    return z_fits(&x, to);
}

int cint_w_abs(cint_ctx *ctx, const cint_gen_at *at, uint32_t tag, const uint64_t *a, uint64_t *r)
{
    wz x = z_load(tag, a);
    x.neg = false;
    char name[40];
    cint_tvalue op;
    snprintf(name, sizeof name, "abs.checked.%s", rt_type_suffix(tag));
    cint_w_tv(&op, tag, a);
    return w_form(ctx, at, CINT_W_CHECKED, tag, &x, name, &op, 1, r);
}

int cint_w_isqrt(cint_ctx *ctx, const cint_gen_at *at, const char *name, uint32_t tag, const uint64_t *a, int mode,
                 uint64_t *r)
{
    wz x = z_load(tag, a), rest;
    cint_tvalue op;
    cint_w_tv(&op, tag, a);
    if (x.neg) return w_raise(ctx, at, CINT_E_DOMAIN, name, &op, 1, NULL, 0);
    wz s = z_isqrt(x, &rest);
    if (mode >= 0 && !z_zero(&rest)) {
        /* sqrt(x) lies strictly between s and s + 1 */
        bool up;
        if (mode == 0 || mode == 2) up = false;          /* floor, trunc */
        else if (mode == 1 || mode == 3) up = true;      /* ceil, away */
        else up = z_cmp(&rest, &s) > 0;                  /* nearest: x > s^2 + s */
        if (up) s = z_add(s, z_small(1));
    }
    return w_form(ctx, at, CINT_W_CHECKED, tag, &s, name, &op, 1, r);
}

int cint_w_clamp(cint_ctx *ctx, const cint_gen_at *at, uint32_t tag, const uint64_t *x, const uint64_t *lo,
                 const uint64_t *hi, uint64_t *r)
{
    wz zx = z_load(tag, x), zl = z_load(tag, lo), zh = z_load(tag, hi);
    unsigned n = cint_w_limbs(tag);
    if (z_cmp(&zl, &zh) > 0) {
        char name[40];
        cint_tvalue ops[3];
        snprintf(name, sizeof name, "clamp.checked.%s", rt_type_suffix(tag));
        cint_w_tv(&ops[0], tag, x);
        cint_w_tv(&ops[1], tag, lo);
        cint_w_tv(&ops[2], tag, hi);
        return w_raise(ctx, at, CINT_E_DOMAIN, name, ops, 3, NULL, 0);
    }
    const uint64_t *pick = z_cmp(&zx, &zl) < 0 ? lo : z_cmp(&zx, &zh) > 0 ? hi : x;
    memmove(r, pick, n * sizeof(uint64_t));
    return 0;
}

void cint_w_mul_full(uint32_t tag, const uint64_t *a, const uint64_t *b, uint32_t rtag, uint64_t *r)
{
    wz p = z_mul(z_load(tag, a), z_load(tag, b));
    z_store(&p, rtag, r);
}

int cint_w_cmp(uint32_t tag, const uint64_t *a, const uint64_t *b)
{
    unsigned n = cint_w_limbs(tag);
    if (w_signed(tag)) {
        int64_t x = (int64_t)a[n - 1u], y = (int64_t)b[n - 1u];
        if (x != y) return x < y ? -1 : 1;
    } else if (a[n - 1u] != b[n - 1u]) {
        return a[n - 1u] < b[n - 1u] ? -1 : 1;
    }
    for (unsigned k = n - 1u; k-- > 0;)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

size_t cint_w_dec(uint32_t tag, const uint64_t *v, char out[320])
{
    wz x = z_load(tag, v);
    char rev[320];
    size_t n = 0;
    uint64_t ten19[WZ_L];
    memset(ten19, 0, sizeof ten19);
    ten19[0] = UINT64_C(10000000000000000000);
    do {
        uint64_t q[WZ_L], rm[WZ_L];
        m_divmod(x.m, ten19, q, rm);
        uint64_t chunk = rm[0];
        memcpy(x.m, q, sizeof q);
        bool last = m_len(x.m) == 0;
        for (unsigned d = 0; d < 19u && (!last || chunk != 0 || d == 0); d++) {
            rev[n++] = (char)('0' + chunk % 10u);
            chunk /= 10u;
        }
    } while (m_len(x.m) != 0);
    size_t len = 0;
    if (x.neg) out[len++] = '-';
    while (n > 0) out[len++] = rev[--n];
    out[len] = '\0';
    return len;
}

int cint_w_print(cint_ctx *ctx, uint32_t tag, const uint64_t *v)
{
    char text[320];
    size_t n = cint_w_dec(tag, v, text);
    return cint_gen_print_bytes(ctx, text, n);
}

int cint_w_sum(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t rtag, uint64_t *out)
{
    return cint_w_sum_at(ctx, at, at, a, rtag, out);
}

int cint_w_sum_at(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
                  uint32_t rtag, uint64_t *out)
{
    uint32_t etag = a->type.code;
    unsigned ew = cint_w_width(etag);
    if (ew == 0 || cint_w_width(rtag) == 0) return cint_gen_raise(ctx, at, NULL);
    int64_t n = rt_count(a);
    if (cint_gen_charge(ctx, charge_at, n / 64 + (n % 64 != 0))) return 1;
    wz total;
    memset(&total, 0, sizeof total);
    rt_runs r;
    uint8_t *p;
    rt_runs_begin(&r, a);
    while (rt_runs_next(&r, &p))
        for (int64_t i = 0; i < r.len; i++) {
            const uint8_t *e = p + i * r.step * a->elem_size;
            uint64_t limbs[16];
            if (ew >= 64u) {
                memcpy(limbs, e, ew / 8u);
            } else {
                uint64_t bits = 0;
                for (unsigned k = 0; k < ew / 8u; k++) bits |= (uint64_t)e[k] << (8u * k);
                if (w_signed(etag) && ((bits >> (ew - 1u)) & 1u)) bits |= ~((UINT64_C(1) << ew) - 1u);
                limbs[0] = bits;
            }
            total = z_add(total, z_load(etag, limbs));
        }
    if (!z_fits(&total, rtag)) {
        char name[40];
        cint_tvalue op;
        snprintf(name, sizeof name, "sum.checked.%s.%s", rt_type_suffix(etag), rt_type_suffix(rtag));
        cint_tv_i64(&op, n);
        return w_raise(ctx, at, CINT_E_OVERFLOW, name, &op, 1, &total, rtag);
    }
    z_store(&total, rtag, out);
    return 0;
}

/* --- reductions (SPEC-01P.1 IM-77 to IM-87) ---------------------------------------------------------
   sum_wrap, sum_sat, count, fold_checked, dot and min/max over xs, elements in row-major order (rt_runs),
   with the records of intmachine.py. I8 to U64 elements run typed loops (a contiguous run as one
   stride-1 loop); I128 to I1024 elements go through Z. */

__extension__ typedef __int128 w_i128;

static int w_red_charge(cint_ctx *ctx, const cint_gen_at *at, int64_t n)
{
    return cint_gen_charge(ctx, at, n / 64 + (n % 64 != 0));
}

/* The element at p of type tag in the limb convention. */
static void w_elem(uint32_t tag, const uint8_t *p, uint64_t *limbs)
{
    unsigned w = cint_w_width(tag);
    if (w >= 64u) {
        memcpy(limbs, p, w / 8u);
        return;
    }
    uint64_t bits = 0;
    for (unsigned k = 0; k < w / 8u; k++) bits |= (uint64_t)p[k] << (8u * k);
    if (w_signed(tag) && ((bits >> (w - 1u)) & 1u)) bits |= ~((UINT64_C(1) << w) - 1u);
    limbs[0] = bits;
}

/* Z of a 128-bit two's complement value (sign: w_i128) or of an unsigned one. */
static wz z_i128(w_i128 v)
{
    wz z;
    memset(&z, 0, sizeof z);
    w_u128 mag = v < 0 ? (w_u128)0 - (w_u128)v : (w_u128)v;
    z.m[0] = (uint64_t)mag;
    z.m[1] = (uint64_t)(mag >> 64);
    z.neg = v < 0;
    return z;
}

static wz z_u128(w_u128 v)
{
    wz z;
    memset(&z, 0, sizeof z);
    z.m[0] = (uint64_t)v;
    z.m[1] = (uint64_t)(v >> 64);
    return z;
}

/* Z of hi * 2^128 + lo. */
static wz z_acc(int64_t hi, w_u128 lo)
{
    wz z;
    memset(&z, 0, sizeof z);
    uint64_t t[3] = {(uint64_t)lo, (uint64_t)(lo >> 64), (uint64_t)hi};
    if (hi < 0) {
        uint64_t c = 1;
        for (unsigned k = 0; k < 3u; k++) {
            t[k] = ~t[k] + c;
            c = c && t[k] == 0;
        }
        z.neg = true;
    }
    memcpy(z.m, t, sizeof t);
    return z;
}

/* Loops over the n elements of a run (step elements apart) as x of C type T. */
#define W_RUN_(T, p, n, step, BODY)                                                                       \
    do {                                                                                                 \
        const int64_t sb_ = (step) * (int64_t)sizeof(T);                                                 \
        if (sb_ == (int64_t)sizeof(T)) {                                                                 \
            for (int64_t i_ = 0; i_ < (n); i_++) {                                                       \
                T x;                                                                                     \
                memcpy(&x, (p) + i_ * (int64_t)sizeof(T), sizeof x);                                     \
                BODY                                                                                     \
            }                                                                                            \
        } else {                                                                                         \
            for (int64_t i_ = 0; i_ < (n); i_++) {                                                       \
                T x;                                                                                     \
                memcpy(&x, (p) + i_ * sb_, sizeof x);                                                    \
                BODY                                                                                     \
            }                                                                                            \
        }                                                                                                \
    } while (0)

/* The I8 .. U64 element types: X(tag, C type, signed) */
#define W_NARROW_TYPES_(X)                                                                                \
    X(CINT_TAG_I8, int8_t, 1) X(CINT_TAG_I16, int16_t, 1) X(CINT_TAG_I32, int32_t, 1)                      \
    X(CINT_TAG_I64, int64_t, 1) X(CINT_TAG_U8, uint8_t, 0) X(CINT_TAG_U16, uint16_t, 0)                    \
    X(CINT_TAG_U32, uint32_t, 0) X(CINT_TAG_U64, uint64_t, 0)

static w_i128 w_lo128(uint32_t tag) { return w_signed(tag) ? -((w_i128)1 << (cint_w_width(tag) - 1u)) : 0; }
static w_i128 w_hi128(uint32_t tag)
{
    return ((w_i128)1 << (cint_w_width(tag) - (w_signed(tag) ? 1u : 0u))) - 1;
}

int cint_w_sum_form(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_array *a, int sat, uint64_t *out)
{
    uint32_t tag = a->type.code;
    unsigned w = cint_w_width(tag);
    if (w == 0) return cint_gen_raise(ctx, charge_at, NULL);
    if (w_red_charge(ctx, charge_at, rt_count(a))) return 1;
    rt_runs r;
    uint8_t *p;
    rt_runs_begin(&r, a);
    if (w <= 64u && !sat) {
        /* the sum modulo 2^64, cut to the width */
        uint64_t s = 0;
        while (rt_runs_next(&r, &p)) switch (tag) {
#define X(TAG, T, S)                                                                                      \
    case TAG: W_RUN_(T, p, r.len, r.step, s += (uint64_t)x;); break;
                W_NARROW_TYPES_(X)
#undef X
            default: break;
            }
        wz z = z_u128(s);
        z_store(&z, tag, out);
        return 0;
    }
    if (w <= 64u) {
        /* each step saturates (IM-30): an I8 .. U64 sum plus one element fits 128 bits */
        const w_i128 lo = w_lo128(tag), hi = w_hi128(tag);
        w_i128 acc = 0;
        while (rt_runs_next(&r, &p)) switch (tag) {
#define X(TAG, T, S)                                                                                      \
    case TAG:                                                                                             \
        W_RUN_(T, p, r.len, r.step, acc += (w_i128)x; acc = acc > hi ? hi : acc < lo ? lo : acc;);        \
        break;
                W_NARROW_TYPES_(X)
#undef X
            default: break;
            }
        out[0] = (uint64_t)acc;
        return 0;
    }
    unsigned nl = w / 64u;
    uint64_t acc[16], e[16];
    memset(acc, 0, sizeof acc);
    wz zacc, zlo = z_min(tag), zhi = z_max(tag);
    memset(&zacc, 0, sizeof zacc);
    while (rt_runs_next(&r, &p))
        for (int64_t i = 0; i < r.len; i++) {
            memcpy(e, p + i * r.step * a->elem_size, nl * 8u);
            if (!sat) {
                /* limb-wise, modulo 2^w */
                uint64_t c = 0;
                for (unsigned k = 0; k < nl; k++) {
                    uint64_t s = acc[k] + c;
                    uint64_t c1 = s < c;
                    acc[k] = s + e[k];
                    c = c1 + (acc[k] < s);
                }
            } else {
                zacc = z_add(zacc, z_load(tag, e));
                if (z_cmp(&zacc, &zhi) > 0) zacc = zhi;
                else if (z_cmp(&zacc, &zlo) < 0) zacc = zlo;
            }
        }
    if (sat) z_store(&zacc, tag, acc);
    memcpy(out, acc, nl * 8u);
    return 0;
}

int cint_w_count(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_array *a, int64_t *out)
{
    if (a->elem_size != 1) return cint_gen_raise(ctx, charge_at, NULL);
    if (w_red_charge(ctx, charge_at, rt_count(a))) return 1;
    int64_t c = 0;
    rt_runs r;
    uint8_t *p;
    rt_runs_begin(&r, a);
    while (rt_runs_next(&r, &p)) W_RUN_(uint8_t, p, r.len, r.step, c += x != 0;);
    *out = c;
    return 0;
}

/* The E_OVERFLOW of fold_checked at element j: operands I64 j, E acc, E x; exact v. */
static int w_fold_fault(cint_ctx *ctx, const cint_gen_at *at, int mul, uint32_t tag, int64_t j, const uint64_t *acc,
                        const uint64_t *x, const wz *v)
{
    char name[48];
    cint_tvalue ops[3];
    snprintf(name, sizeof name, "fold_checked.%s.%s", mul ? "mul" : "add", rt_type_suffix(tag));
    cint_tv_i64(&ops[0], j);
    cint_w_tv(&ops[1], tag, acc);
    cint_w_tv(&ops[2], tag, x);
    return w_raise(ctx, at, CINT_E_OVERFLOW, name, ops, 3, v, tag);
}

int cint_w_fold(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a, int mul,
                const uint64_t *init, uint64_t *out)
{
    uint32_t tag = a->type.code;
    unsigned w = cint_w_width(tag);
    if (w == 0) return cint_gen_raise(ctx, at, NULL);
    if (w_red_charge(ctx, charge_at, rt_count(a))) return 1;
    rt_runs r;
    uint8_t *p;
    int64_t j = 0;
    rt_runs_begin(&r, a);
    if (w <= 64u) {
        /* the running value in its own type, each step checked with the compiler's overflow built-ins; only
           a failing step computes its exact value (signed: it fits w_i128; unsigned: w_u128, a U64 product
           being below 2^128) for the fault record */
        switch (tag) {
#define X(TAG, T, S)                                                                                      \
    case TAG: {                                                                                           \
        T acc = S ? (T)(int64_t)init[0] : (T)init[0];                                                     \
        while (rt_runs_next(&r, &p)) {                                                                    \
            W_RUN_(T, p, r.len, r.step, {                                                                 \
                T v;                                                                                      \
                if (mul ? __builtin_mul_overflow(acc, x, &v) : __builtin_add_overflow(acc, x, &v)) {       \
                    uint64_t la = S ? (uint64_t)(int64_t)acc : (uint64_t)acc;                             \
                    uint64_t lx = S ? (uint64_t)(int64_t)x : (uint64_t)x;                                 \
                    wz z = S ? z_i128(mul ? (w_i128)acc * (w_i128)x : (w_i128)acc + (w_i128)x)            \
                             : z_u128(mul ? (w_u128)acc * (w_u128)x : (w_u128)acc + (w_u128)x);           \
                    return w_fold_fault(ctx, at, mul, tag, j + i_, &la, &lx, &z);                          \
                }                                                                                         \
                acc = v;                                                                                  \
            });                                                                                           \
            j += r.len;                                                                                   \
        }                                                                                                 \
        out[0] = S ? (uint64_t)(int64_t)acc : (uint64_t)acc;                                              \
        return 0;                                                                                         \
    }
            W_NARROW_TYPES_(X)
#undef X
        default: break;
        }
        return cint_gen_raise(ctx, at, NULL);
    }
    unsigned nl = w / 64u;
    uint64_t acc[16], e[16];
    memcpy(acc, init, nl * 8u);
    while (rt_runs_next(&r, &p))
        for (int64_t i = 0; i < r.len; i++, j++) {
            memcpy(e, p + i * r.step * a->elem_size, nl * 8u);
            wz za = z_load(tag, acc), zx = z_load(tag, e);
            wz v = mul ? z_mul(za, zx) : z_add(za, zx);
            if (!z_fits(&v, tag)) return w_fold_fault(ctx, at, mul, tag, j, acc, e, &v);
            z_store(&v, tag, acc);
        }
    memcpy(out, acc, nl * 8u);
    return 0;
}

int cint_w_dot(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
               const cint_gen_array *b, uint32_t rtag, uint64_t *out)
{
    uint32_t tag = a->type.code;
    unsigned w = cint_w_width(tag);
    if (w == 0 || cint_w_width(rtag) == 0 || a->rank != 1u || b->rank != 1u) return cint_gen_raise(ctx, at, NULL);
    char name[48];
    snprintf(name, sizeof name, "dot.checked.%s.%s", rt_type_suffix(tag), rt_type_suffix(rtag));
    int64_t n = a->shape[0];
    if (b->shape[0] != n) {
        /* the shape check precedes the charge (IM-87) */
        cint_tvalue ops[2], limit;
        cint_tv_i64(&ops[0], 0);
        cint_tv_i64(&ops[1], b->shape[0]);
        cint_tv_i64(&limit, n);
        cint_gen_fault f;
        memset(&f, 0, sizeof f);
        f.code = CINT_E_SHAPE;
        f.operation = name;
        f.operands = ops;
        f.operand_count = 2;
        f.limit = &limit;
        return cint_gen_raise(ctx, at, &f);
    }
    if (w_red_charge(ctx, charge_at, n)) return 1;
    const uint8_t *pa = a->data, *pb = b->data;
    const int64_t sa = a->stride[0] * a->elem_size, sb = b->stride[0] * b->elem_size;
    wz total;
    if (w <= 32u) {
        /* elements of 32 bits or fewer: each product fits a 64-bit word W (int64_t, or uint64_t for the
           unsigned types), so the products are summed in W and moved into a 128-bit total only when the next
           addition would overflow it; the exact sum of n < 2^63 such products fits w_i128, signed or not */
        w_i128 acc = 0;
        switch (tag) {
#define X(TAG, T, W)                                                                                      \
    case TAG: {                                                                                           \
        W s = 0;                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                                 \
            T x, y;                                                                                       \
            memcpy(&x, pa + i * sa, sizeof x);                                                            \
            memcpy(&y, pb + i * sb, sizeof y);                                                            \
            W t, q = (W)x * (W)y;                                                                         \
            if (__builtin_add_overflow(s, q, &t)) { acc += s; s = q; } else s = t;                         \
        }                                                                                                 \
        acc += s;                                                                                         \
        break;                                                                                            \
    }
        X(CINT_TAG_I8, int8_t, int64_t) X(CINT_TAG_I16, int16_t, int64_t) X(CINT_TAG_I32, int32_t, int64_t)
        X(CINT_TAG_U8, uint8_t, uint64_t) X(CINT_TAG_U16, uint16_t, uint64_t) X(CINT_TAG_U32, uint32_t, uint64_t)
#undef X
        default: break;
        }
        total = z_acc(acc < 0 ? -1 : 0, (w_u128)acc);
    } else if (w <= 64u) {
        /* the exact sum as hi * 2^128 + lo: each product fits 128 bits */
        int64_t hi = 0;
        w_u128 lo = 0;
        switch (tag) {
#define X(TAG, T, S)                                                                                      \
    case TAG:                                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                                 \
            T x, y;                                                                                       \
            memcpy(&x, pa + i * sa, sizeof x);                                                            \
            memcpy(&y, pb + i * sb, sizeof y);                                                            \
            if (S) {                                                                                      \
                w_i128 q = (w_i128)x * (w_i128)y;                                                         \
                w_u128 l2 = lo + (w_u128)q;                                                               \
                hi += (int64_t)(l2 < lo) - (int64_t)(q < 0);                                              \
                lo = l2;                                                                                  \
            } else {                                                                                      \
                w_u128 l2 = lo + (w_u128)x * (w_u128)y;                                                   \
                hi += (int64_t)(l2 < lo);                                                                 \
                lo = l2;                                                                                  \
            }                                                                                             \
        }                                                                                                 \
        break;
            W_NARROW_TYPES_(X)
#undef X
        default: break;
        }
        total = z_acc(hi, lo);
    } else {
        uint64_t x[16], y[16];
        memset(&total, 0, sizeof total);
        for (int64_t i = 0; i < n; i++) {
            w_elem(tag, pa + i * sa, x);
            w_elem(tag, pb + i * sb, y);
            total = z_add(total, z_mul(z_load(tag, x), z_load(tag, y)));
        }
    }
    if (!z_fits(&total, rtag)) {
        cint_tvalue op;
        cint_tv_i64(&op, n);
        return w_raise(ctx, at, CINT_E_OVERFLOW, name, &op, 1, &total, rtag);
    }
    z_store(&total, rtag, out);
    return 0;
}

int cint_w_extreme(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
                   int max, const uint64_t *init, uint64_t *out)
{
    uint32_t tag = a->type.code;
    unsigned w = cint_w_width(tag);
    if (w == 0) return cint_gen_raise(ctx, at, NULL);
    int64_t n = rt_count(a);
    if (w_red_charge(ctx, charge_at, n)) return 1;
    unsigned nl = cint_w_limbs(tag);
    uint64_t best[16], e[16];
    bool have = init != NULL;
    if (have) memcpy(best, init, nl * 8u);
    if (!have && n == 0) {
        char name[48];
        cint_tvalue op;
        snprintf(name, sizeof name, "%s.checked.%s", max ? "reduce_max" : "reduce_min", rt_type_suffix(tag));
        cint_tv_i64(&op, 0);
        return w_raise(ctx, at, CINT_E_SHAPE, name, &op, 1, NULL, 0);
    }
    rt_runs r;
    uint8_t *p;
    rt_runs_begin(&r, a);
    while (rt_runs_next(&r, &p))
        for (int64_t i = 0; i < r.len; i++) {
            w_elem(tag, p + i * r.step * a->elem_size, e);
            int c = have ? cint_w_cmp(tag, e, best) : 0;
            if (!have || (max ? c > 0 : c < 0)) memcpy(best, e, nl * 8u);
            have = true;
        }
    memcpy(out, best, nl * 8u);
    return 0;
}
