/* fmt.c: the renderings of cint_rt_fmt.h (SPEC-04P.1 LS-201 to LS-215), the same text as
   cint_compiler/fmt.py. A rendering is a short list of pieces (bytes, or a run of '0'),
   measured in Unicode scalar values for the padding, then appended to the print statement. */
#include "cint_rt_fmt.h"

#include <string.h>

typedef struct piece {
    const char *s; /* NULL: n zeros */
    size_t n;
} piece;

typedef struct pieces {
    piece p[8];
    int k;
} pieces;

static void add(pieces *ps, const char *s, size_t n)
{
    if (n == 0 || ps->k >= 8) return;
    ps->p[ps->k].s = s;
    ps->p[ps->k].n = n;
    ps->k++;
}

/* Unicode scalar values in UTF-8 bytes: a well-formed sequence counts one, every other byte one
   (Python's surrogateescape decoding). */
static size_t scalars(const uint8_t *b, size_t n)
{
    size_t count = 0, i = 0;
    while (i < n) {
        uint8_t c = b[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        size_t ok = len;
        if (len == 0 || i + len > n) ok = 0;
        for (size_t j = 1; ok && j < len; j++)
            if ((b[i + j] & 0xC0) != 0x80) ok = 0;
        if (ok >= 2) {
            uint32_t cp = c & (0x7F >> len);
            for (size_t j = 1; j < len; j++) cp = (cp << 6) | (b[i + j] & 0x3Fu);
            static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
            if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) ok = 0;
        }
        if (ok == 0) ok = 1;
        i += ok;
        count++;
    }
    return count;
}

static size_t measure(const pieces *ps)
{
    size_t n = 0;
    for (int k = 0; k < ps->k; k++) n += ps->p[k].s ? scalars((const uint8_t *)ps->p[k].s, ps->p[k].n) : ps->p[k].n;
    return n;
}

static int zeros(cint_ctx *ctx, size_t n)
{
    static const char z[32] = "00000000000000000000000000000000";
    while (n > 0) {
        size_t m = n < sizeof z ? n : sizeof z;
        if (cint_gen_print_bytes(ctx, z, m)) return 1;
        n -= m;
    }
    return 0;
}

static int fills(cint_ctx *ctx, const cint_fmt_spec *fs, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (cint_gen_print_bytes(ctx, fs->fill, fs->fill_len)) return 1;
    return 0;
}

static int put(cint_ctx *ctx, const pieces *ps)
{
    for (int k = 0; k < ps->k; k++) {
        if (ps->p[k].s ? cint_gen_print_bytes(ctx, ps->p[k].s, ps->p[k].n) : zeros(ctx, ps->p[k].n)) return 1;
    }
    return 0;
}

/* fmt._pad: never truncates (LS-211); the default alignment is right. */
static int pad(cint_ctx *ctx, const cint_fmt_spec *fs, const pieces *ps)
{
    size_t len = measure(ps);
    if (fs->width < 0 || len >= (uint64_t)fs->width) return put(ctx, ps);
    size_t gap = (size_t)fs->width - len;
    char align = fs->align ? fs->align : '>';
    size_t left = align == '<' ? 0 : align == '>' ? gap : gap / 2;
    if (fills(ctx, fs, left) || put(ctx, ps)) return 1;
    return fills(ctx, fs, gap - left);
}

/* fmt._numeric: the sign and prefix, then the `0` flag's zeros or the padding. */
static int numeric(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, const char *prefix, const pieces *body)
{
    const char *sign = neg ? "-" : fs->sign == '+' ? "+" : fs->sign == ' ' ? " " : "";
    pieces all = {{{0, 0}}, 0};
    add(&all, sign, strlen(sign));
    add(&all, prefix, strlen(prefix));
    if (fs->zero && fs->width >= 0) {
        size_t have = strlen(sign) + strlen(prefix) + measure(body);
        if ((uint64_t)fs->width > have) add(&all, NULL, (size_t)fs->width - have);
        for (int k = 0; k < body->k; k++) add(&all, body->p[k].s, body->p[k].n);
        return put(ctx, &all);
    }
    for (int k = 0; k < body->k; k++) add(&all, body->p[k].s, body->p[k].n);
    return pad(ctx, fs, &all);
}

/* Digits of a in base (2, 8, 10, 16), lowercase, into the end of buf; returns the first. */
static char *radix(char *end, uint64_t a, unsigned base, int upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char *p = end;
    do {
        *--p = digits[a % base];
        a /= base;
    } while (a != 0);
    return p;
}

/* digits grouped from the right every `every`, separated by sep, into out; returns the length. */
static size_t grouped(char *out, const char *d, size_t n, char sep, size_t every)
{
    size_t head = n % every ? n % every : every, o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i >= head && (i - head) % every == 0) out[o++] = sep;
        out[o++] = d[i];
    }
    return o;
}

static size_t utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int cint_fmt_int(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, uint64_t mag, uint32_t full_width)
{
    char kind = fs->kind ? fs->kind : 'd';
    pieces ps = {{{0, 0}}, 0};
    if (kind == 'c') {
        char u[4];
        add(&ps, u, utf8(u, (uint32_t)mag));
        return pad(ctx, fs, &ps);
    }
    if (kind == 't') {
        /* the minimal balanced-ternary literal (LS-205); -v swaps P and N */
        char t[48], *p = t + sizeof t;
        uint64_t a = mag;
        if (a == 0) *--p = '0';
        while (a != 0) {
            unsigned r = (unsigned)(a % 3);
            if (r == 0) {
                *--p = '0';
            } else if (r == 1) {
                *--p = neg ? 'N' : 'P';
                a -= 1;
            } else {
                *--p = neg ? 'P' : 'N';
                a += 1;
            }
            a /= 3;
        }
        add(&ps, "0t", 2);
        add(&ps, p, (size_t)(t + sizeof t - p));
        return pad(ctx, fs, &ps);
    }
    char d[72], g[96];
    char *end = d + sizeof d;
    if (fs->scale >= 0) {
        /* whole.frac with exactly k fractional digits */
        uint64_t k = (uint64_t)fs->scale, p10 = 1;
        int big = 0;
        for (uint64_t i = 0; i < k; i++) {
            if (p10 > UINT64_MAX / 10) {
                big = 1;
                break;
            }
            p10 *= 10;
        }
        uint64_t whole = big ? 0 : mag / p10, frac = big ? mag : mag % p10;
        char w[24], f[24];
        char *pw = radix(w + sizeof w, whole, 10, 0), *pf = radix(f + sizeof f, frac, 10, 0);
        size_t nf = (size_t)(f + sizeof f - pf);
        pieces body = {{{0, 0}}, 0};
        add(&body, pw, (size_t)(w + sizeof w - pw));
        add(&body, ".", 1);
        if (k > nf) add(&body, NULL, (size_t)(k - nf));
        add(&body, pf, nf);
        return numeric(ctx, fs, neg, "", &body);
    }
    pieces body = {{{0, 0}}, 0};
    if (kind == 'd') {
        char *p = radix(end, mag, 10, 0);
        size_t n = (size_t)(end - p);
        if (fs->group) {
            add(&body, g, grouped(g, p, n, fs->group, 3));
        } else {
            add(&body, p, n);
        }
        return numeric(ctx, fs, neg, "", &body);
    }
    unsigned base = kind == 'o' ? 8 : kind == 'b' ? 2 : 16;
    unsigned per = base == 16 ? 4 : base == 8 ? 3 : 1;
    const char *prefix = !fs->alt ? "" : base == 16 ? "0x" : base == 8 ? "0o" : "0b";
    char *p = radix(end, mag, base, kind == 'X');
    if (full_width > 0) {
        size_t want = (full_width + per - 1) / per;
        while ((size_t)(end - p) < want) *--p = '0';
    }
    size_t n = (size_t)(end - p);
    if (fs->group) {
        add(&body, g, grouped(g, p, n, '_', 4));
    } else {
        add(&body, p, n);
    }
    return numeric(ctx, fs, neg, prefix, &body);
}

/* a := a / d over n limbs; returns the remainder. */
static unsigned wdiv(uint64_t *a, unsigned n, unsigned d)
{
    __extension__ typedef unsigned __int128 u128;
    u128 rem = 0;
    for (unsigned k = n; k-- > 0;) {
        u128 cur = (rem << 64) | a[k];
        a[k] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (unsigned)rem;
}

static int wzero(const uint64_t *a, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        if (a[k] != 0) return 0;
    return 1;
}

/* Digits of the magnitude a (consumed) in base, into the end of a buffer; returns the first. */
static char *wradix(char *end, uint64_t *a, unsigned n, unsigned base, int upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char *p = end;
    do {
        *--p = digits[wdiv(a, n, base)];
    } while (!wzero(a, n));
    return p;
}

int cint_fmt_wide(cint_ctx *ctx, const cint_fmt_spec *fs, int is_signed, const uint64_t *limbs, uint32_t n,
                  uint32_t full_width)
{
    uint64_t a[16] = {0};
    if (n > 16) n = 16;
    memcpy(a, limbs, n * sizeof a[0]);
    int neg = is_signed && n > 0 && (a[n - 1] >> 63) != 0;
    if (neg) {                              /* the magnitude: two's complement negation */
        unsigned carry = 1;
        for (unsigned k = 0; k < n; k++) {
            a[k] = ~a[k] + carry;
            carry = carry && a[k] == 0;
        }
    }
    char kind = fs->kind ? fs->kind : 'd';
    pieces ps = {{{0, 0}}, 0};
    if (kind == 'c') {
        char u[4];
        add(&ps, u, utf8(u, (uint32_t)a[0]));
        return pad(ctx, fs, &ps);
    }
    char d[1100], g[1400];
    char *end = d + sizeof d;
    if (kind == 't') {
        /* the minimal balanced-ternary literal (LS-205) of the magnitude; -v swaps P and N */
        char *p = end;
        if (wzero(a, n)) *--p = '0';
        while (!wzero(a, n)) {
            unsigned r = wdiv(a, n, 3);
            if (r == 0) {
                *--p = '0';
            } else if (r == 1) {
                *--p = neg ? 'N' : 'P';
            } else {                        /* (a + 1) / 3 = a / 3 + 1 */
                *--p = neg ? 'P' : 'N';
                for (unsigned k = 0; k < n && ++a[k] == 0; k++) {
                }
            }
        }
        add(&ps, "0t", 2);
        add(&ps, p, (size_t)(end - p));
        return pad(ctx, fs, &ps);
    }
    pieces body = {{{0, 0}}, 0};
    if (fs->scale >= 0) {
        /* whole.frac with exactly k fractional digits: the last k decimal digits are the fraction */
        char *p = wradix(end, a, n, 10, 0);
        size_t nd = (size_t)(end - p), k = (size_t)fs->scale;
        if (nd > k) {
            add(&body, p, nd - k);
            add(&body, ".", 1);
            add(&body, p + (nd - k), k);
        } else {
            add(&body, "0.", 2);
            add(&body, NULL, k - nd);
            add(&body, p, nd);
        }
        return numeric(ctx, fs, neg, "", &body);
    }
    if (kind == 'd') {
        char *p = wradix(end, a, n, 10, 0);
        size_t nd = (size_t)(end - p);
        if (fs->group) {
            add(&body, g, grouped(g, p, nd, fs->group, 3));
        } else {
            add(&body, p, nd);
        }
        return numeric(ctx, fs, neg, "", &body);
    }
    unsigned base = kind == 'o' ? 8 : kind == 'b' ? 2 : 16;
    unsigned per = base == 16 ? 4 : base == 8 ? 3 : 1;
    const char *prefix = !fs->alt ? "" : base == 16 ? "0x" : base == 8 ? "0o" : "0b";
    char *p = wradix(end, a, n, base, kind == 'X');
    if (full_width > 0) {
        size_t want = (full_width + per - 1) / per;
        while ((size_t)(end - p) < want) *--p = '0';
    }
    size_t nd = (size_t)(end - p);
    if (fs->group) {
        add(&body, g, grouped(g, p, nd, '_', 4));
    } else {
        add(&body, p, nd);
    }
    return numeric(ctx, fs, neg, prefix, &body);
}

int cint_fmt_fixed(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, uint64_t mag, uint32_t f)
{
    __extension__ typedef unsigned __int128 u128;
    uint64_t whole = f >= 64 ? 0 : mag >> f;
    u128 one = (u128)1 << f;               /* f <= 64 */
    u128 frac = f >= 64 ? (u128)mag : (u128)(mag & ((UINT64_C(1) << f) - 1u));
    char w[24], digits[72];
    char *pw = radix(w + sizeof w, whole, 10, 0);
    size_t nd = 0, extra = 0;
    pieces body = {{{0, 0}}, 0};
    if (fs->precision < 0) {
        /* exactly: at most f digits, trailing zeros trimmed, at least one */
        while (frac != 0 && nd < sizeof digits) {
            frac *= 10;
            digits[nd++] = (char)('0' + (unsigned)(frac >> f));
            frac &= one - 1;
        }
        if (nd == 0) digits[nd++] = '0';
    } else {
        uint64_t p = (uint64_t)fs->precision;
        while (nd < p && nd < 64) {
            frac *= 10;
            digits[nd++] = (char)('0' + (unsigned)(frac >> f));
            frac &= one - 1;
        }
        extra = (size_t)(p - nd);          /* beyond f digits every digit is 0 (frac is 0 by then) */
        /* round half to even on what is left: frac / 2^f of one unit of the last digit */
        u128 twice = frac * 2;
        int last_odd = nd > 0 ? (digits[nd - 1] - '0') & 1 : (int)(whole & 1u);
        if (twice > one || (twice == one && last_odd)) {
            size_t i = nd;
            int carry = 1;
            while (carry && i > 0) {
                i--;
                if (digits[i] == '9') {
                    digits[i] = '0';
                } else {
                    digits[i]++;
                    carry = 0;
                }
            }
            if (carry) {
                whole += 1;
                pw = radix(w + sizeof w, whole, 10, 0);
            }
        }
        int all_zero = whole == 0;
        for (size_t i = 0; i < nd && all_zero; i++)
            if (digits[i] != '0') all_zero = 0;
        if (all_zero) neg = 0;             /* no negative zero */
    }
    add(&body, pw, (size_t)(w + sizeof w - pw));
    if (nd > 0 || extra > 0) {
        add(&body, ".", 1);
        add(&body, digits, nd);
        add(&body, NULL, extra);
    }
    return numeric(ctx, fs, neg, "", &body);
}

int cint_fmt_text(cint_ctx *ctx, const cint_fmt_spec *fs, const void *s, size_t n)
{
    pieces ps = {{{0, 0}}, 0};
    add(&ps, (const char *)s, n);
    return pad(ctx, fs, &ps);
}

int cint_fmt_ratio(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, uint64_t mag, uint32_t f)
{
    char t[48], e[12];
    char *p = radix(t + sizeof t, mag, 10, 0);
    if (neg) *--p = '-';
    char *q = radix(e + sizeof e, f, 10, 0);
    pieces ps = {{{0, 0}}, 0};
    add(&ps, p, (size_t)(t + sizeof t - p));
    add(&ps, "/2^", 3);
    add(&ps, q, (size_t)(e + sizeof e - q));
    return pad(ctx, fs, &ps);
}
