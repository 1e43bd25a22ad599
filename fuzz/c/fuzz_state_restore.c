/* libFuzzer target: the checked restore of runtime-c/src/state.c (cint_gen_state_restore).
 *
 * The program is test_state.c's s.ci (six module variables); the seeds are the states that
 * test_state writes (fuzz/make_seeds.py). For any input: when a restore into a fresh context
 * succeeds, its state (where a restore has ended every registration, M-11a) restores into another
 * fresh context to the same bytes; a restore into a context that already issued identifiers, when
 * refused, leaves that state as it was, byte for byte. ASan and UBSan report any other fault. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cint_rt_gen.h"

enum { S_ENTRY, S_COUNT };
static const cint_site_info s_sites[S_COUNT] = {{1, 1}};
static const cint_module s_module = {"s.ci", 4, S_COUNT, s_sites, "s", 1, 0};
static const cint_module *const s_modules[] = {&s_module};
#define TY(code) {code, 0, 0, 0, 0, 0, 0}
static const cint_global_info s_globals[6] = {
    {{"s.zeta", 6, 0}, TY(CINT_TAG_I64), 0, 8},
    {{"s.alpha", 7, 0}, TY(CINT_TAG_U16), 8, 2},
    {{"s.flag", 6, 0}, TY(CINT_TAG_BOOL), 10, 1},
    {{"s.b", 3, 0}, TY(CINT_TAG_I8), 11, 1},
    {{"s.q", 3, 0}, {CINT_TAG_Q, CINT_TAG_I32, 0, 8, 0, 0, 0}, 12, 4},
    {{"s.u", 3, 0}, TY(CINT_TAG_U64), 16, 8},
};
static const uint8_t s_init[24] = {5, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1, 0xFE, 0x80, 0x01, 0, 0,
                                   0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
#define REV {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}
static const cint_program s_program = {sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_REVISION, s_modules,
                                       REV, {0}, 24, 8, s_init, 6, 0, s_globals, NULL, CINT_BACKEND_CPU_C17, 0, NULL};

static uint8_t *encode(cint_ctx *ctx, size_t *len)
{
    size_t n = 0;
    if (cint_gen_state_encode(ctx, NULL, 0, &n) != CINT_OK) abort();
    uint8_t *b = malloc(n ? n : 1);
    if (!b || cint_gen_state_encode(ctx, b, n, len) != CINT_OK || *len != n) abort();
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cint_ctx *make(void)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = &s_program;
    if (cint_ctx_create(&c, &ctx) != CINT_OK) abort();
    return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t detail[2] = {0, 0};
    cint_ctx *fresh = make();
    if (cint_gen_state_restore(fresh, data, size, detail) == CINT_OK) {
        size_t n = 0, m = 0;
        uint8_t *b = encode(fresh, &n);
        cint_ctx *again = make();
        if (cint_gen_state_restore(again, b, n, detail) != CINT_OK) abort(); /* its own state restores */
        uint8_t *c = encode(again, &m);
        if (m != n || memcmp(b, c, n) != 0) abort();                        /* to the same bytes */
        free(b);
        free(c);
        cint_ctx_destroy(again);
    }
    cint_ctx_destroy(fresh);

    /* a context with a registration and a created buffer, so that a restore has something to replace */
    cint_ctx *ctx = make();
    int64_t xs[3] = {1, 2, 3};
    cint_type t;
    memset(&t, 0, sizeof t);
    t.code = CINT_TAG_I64;
    cint_buffer_id id;
    uint64_t gen;
    (void)cint_buffer_register_elements(ctx, t, xs, 3, 0, 0, &id, &gen);
    (void)cint_buffer_create(ctx, t, 2, 0, &id, &gen);
    size_t n0 = 0, n1 = 0;
    uint8_t *before = encode(ctx, &n0);
    const cint_status s = cint_gen_state_restore(ctx, data, size, detail);
    uint8_t *after = encode(ctx, &n1);
    if (s != CINT_OK && (n1 != n0 || memcmp(after, before, n0) != 0)) abort(); /* refused: unchanged */
    free(before);
    free(after);
    cint_ctx_destroy(ctx);
    return 0;
}
