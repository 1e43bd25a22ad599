/* test_fuzz_regressions.c: inputs that the libFuzzer targets of fuzz/c/ found, each a check that
 * failed before its fix (tests/run.sh runs it plain and under ASan/UBSan, where a sanitizer report
 * fails the run). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cint_rt_gen.h"

extern const cint_module_info cm_4_tour;

static int failures;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "test_fuzz_regressions.c:%d: CHECK failed: %s\n", __LINE__, #cond); \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* fuzz_views: an empty view (one extent 0) whose other extents multiply past INT64_MAX; the
   element count overflowed (signed, undefined) in rt_count before the zero extent was seen. */
static void empty_view_with_huge_extents(void)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = cm_4_tour.program;
    c.module = &cm_4_tour;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    int64_t xs[4] = {1, 2, 3, 4};
    cint_type t;
    memset(&t, 0, sizeof t);
    t.code = CINT_TAG_I64;
    cint_buffer_id id = 0;
    uint64_t gen = 0;
    CHECK(cint_buffer_register_elements(ctx, t, xs, 4, 0, 0, &id, &gen) == CINT_OK);
    cint_view v;
    memset(&v, 0, sizeof v);
    v.buffer = id;
    v.generation = gen;
    v.type = t;
    v.rank = 3;
    v.shape[0] = INT64_C(64456990130176);
    v.shape[1] = INT64_C(10944512);
    v.shape[2] = 0;
    v.stride[0] = v.stride[1] = v.stride[2] = 1;
    int64_t out[1];
    CHECK(cint_buffer_read(ctx, v, out, 0) == CINT_OK); /* nothing to read */
    CHECK(cint_buffer_read(ctx, v, out, 8) == CINT_REFUSED);
    cint_ctx_destroy(ctx);
}

int main(void)
{
    empty_view_with_huge_extents();
    if (failures) return 1;
    printf("test_fuzz_regressions: all passed\n");
    return 0;
}
