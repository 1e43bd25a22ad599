/* cint_rt_fmt.h: format specifications of print holes for generated code (SPEC-04P.1 LS-201 to
 * LS-215). Internal to generated code and the runtime, like cint_rt_gen.h; host programs never
 * include it.
 *
 * The emitter checks a hole's conversion and spec at compile time (cint_compiler.fmt.parse_spec)
 * and passes the checked spec here; each function appends the exact rendering of one value to the
 * open print statement (cint_gen_print_bytes), byte for byte the text of cint_compiler.fmt. Widths
 * count Unicode scalar values; every digit is ASCII; no float is involved. Each returns 0, or 1
 * after the runtime has raised a fault (host.resource when the print buffer cannot grow).
 */
#ifndef CINT_RT_FMT_H
#define CINT_RT_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "cint_rt_gen.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cint_fmt_spec {
    const char *fill;   /* the fill character, UTF-8 */
    uint32_t fill_len;
    char align;         /* 0 (none), '<', '>' or '^' */
    char sign;          /* 0, '+', '-' or ' ' */
    char kind;          /* 0 (d), 'd', 'x', 'X', 'o', 'b', 't' or 'c' */
    char group;         /* 0, '_' or ',' */
    uint8_t alt;        /* '#' */
    uint8_t zero;       /* '0' */
    int64_t width;      /* -1: none */
    int64_t precision;  /* -1: none */
    int64_t scale;      /* digits of the scale /10^k; -1: none */
} cint_fmt_spec;

/* An integer of magnitude mag, negative when neg. full_width > 0 (the !bits conversion): x, o and
   b digits are zero-extended to the digits of full_width bits. Kind 'c' takes a Unicode scalar
   value (the caller has checked it, format.char). */
int cint_fmt_int(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, uint64_t mag, uint32_t full_width);

/* The same for I128..I1024 (and the !bits conversion on them): the n limbs (n <= 16, least significant
   first) of a two's-complement value when is_signed, of an unsigned one otherwise. */
int cint_fmt_wide(cint_ctx *ctx, const cint_fmt_spec *fs, int is_signed, const uint64_t *limbs, uint32_t n,
                  uint32_t full_width);

/* A fixed-point value of raw storage neg/mag with f fractional bits (f <= 64): the exact digits,
   trimmed, or with fs->precision digits rounded half to even (LS-207, LS-208). */
int cint_fmt_fixed(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, uint64_t mag, uint32_t f);

/* The !ratio conversion: raw/2^f, padded. */
int cint_fmt_ratio(cint_ctx *ctx, const cint_fmt_spec *fs, int neg, uint64_t mag, uint32_t f);

/* Text (a name, true/false, a Str's bytes) padded to the width. */
int cint_fmt_text(cint_ctx *ctx, const cint_fmt_spec *fs, const void *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
