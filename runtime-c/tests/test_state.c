/* test_state.c: the canonical state encoder and restore of state.c (SPEC-03P.1 5.1, 6.1 M-11,
 * M-11a, 9.2 H-19, H-19a), built with the runtime sources (tests/run.sh), plain and under
 * AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 *   test_state STATES_FILE
 *
 * writes "name hex" lines of the states it encodes; run.sh has cint_abi decode each one and
 * encode it again to the same bytes (state_check.py), and compares the state of a fresh
 * context with the bytes cint_abi.state.encode_state writes for it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cint_rt_gen.h"

static int failures, checks;
#define CHECK(cond)                                                                   \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) {                                                                \
            if (failures++ < 50)                                                      \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)
#define CHECK_EQ(a, b) CHECK((int64_t)(a) == (int64_t)(b))

/* --- a program s.ci with six module variables, declared out of name order -------------------- */

enum { S_ENTRY, S_ADD, S_CALL, S_COUNT };
static const cint_site_info s_sites[S_COUNT] = {{1, 1}, {4, 9}, {6, 5}};
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
/* the same revision identity with other module variables: a restore refuses it (GLOBALS) */
static const cint_global_info o_globals[1] = {{{"s.zeta", 6, 0}, TY(CINT_TAG_I32), 0, 4}};
static const cint_program o_program = {sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_REVISION, s_modules,
                                       REV, {0}, 8, 8, NULL, 1, 0, o_globals, NULL, CINT_BACKEND_CPU_C17, 0, NULL};
/* another revision identity */
static const cint_program r_program = {sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_REVISION, s_modules,
                                       {9}, {0}, 24, 8, s_init, 6, 0, s_globals, NULL, CINT_BACKEND_CPU_C17, 0, NULL};

static const cint_gen_param s_params[1] = {{CINT_GEN_SCALAR, CINT_MODE_IN, TY(CINT_TAG_I64), 0, 0, {{0}}}};
static const cint_gen_export s_x_step = {&s_program, {0, S_ENTRY}, CINT_EXPORT_FUNCTION, 1, s_params, 0, 0, NULL};

/* export void step(I64 v): zeta += v; alpha += 1; flag = !flag; "step\n"; and for v == 99 a
   call at 6:5 whose body faults E_OVERFLOW at 4:9 with two operands and exact. */
static cint_status step(cint_ctx *ctx, int64_t v)
{
    const cint_gen_arg args[1] = {{NULL, 0, 0}};
    cint_gen_array a[1];
    int64_t sizes[1];
    cint_status s = cint_gen_enter(ctx, &s_x_step, -1, args, NULL, a, sizes);
    if (s != CINT_OK) return s;
    uint8_t *g = cint_gen_globals(ctx);
    int64_t zeta;
    uint16_t alpha;
    memcpy(&zeta, g, 8);
    memcpy(&alpha, g + 8, 2);
    zeta += v;
    alpha++;
    memcpy(g, &zeta, 8);
    memcpy(g + 8, &alpha, 2);
    g[10] = (uint8_t)!g[10];
    if (!cint_gen_print_begin(ctx) && !cint_gen_print_bytes(ctx, "step\n", 5)) {
        cint_gen_at at = {{0, S_ENTRY}, 0, 0};
        (void)cint_gen_print_end(ctx, &at);
    }
    if (v == 99) {
        cint_gen_at call = {{0, S_CALL}, 0, 0}, add = {{0, S_ADD}, 0, 0};
        if (!cint_gen_call_enter(ctx, &call)) {
            cint_tvalue ops[2];
            cint_tv_i64(&ops[0], INT64_MAX);
            cint_tv_i64(&ops[1], 99);
            const uint8_t exact[9] = {0x62, 0, 0, 0, 0, 0, 0, 0x80, 0};
            cint_gen_fault f = {CINT_E_OVERFLOW, 2, 9, "add.checked.i64", ops, exact, NULL};
            cint_gen_raise(ctx, &add, &f);
        }
    }
    return cint_gen_leave(ctx);
}

static cint_ctx *make(const cint_program *p)
{
    cint_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.program = p;
    cint_ctx *ctx = NULL;
    CHECK_EQ(cint_ctx_create(&cfg, &ctx), CINT_OK);
    return ctx;
}

/* The state bytes of ctx, malloc'd; *len their length. */
static uint8_t *encode(cint_ctx *ctx, size_t *len)
{
    size_t n = 0;
    CHECK_EQ(cint_gen_state_encode(ctx, NULL, 0, &n), CINT_OK);
    uint8_t *b = malloc(n + 1u);
    size_t m = 0;
    CHECK_EQ(cint_gen_state_encode(ctx, b, n, &m), CINT_OK);
    CHECK_EQ(m, n);
    *len = n;
    return b;
}

static bool same_state(cint_ctx *ctx, const uint8_t *want, size_t want_len)
{
    size_t n;
    uint8_t *b = encode(ctx, &n);
    bool same = n == want_len && memcmp(b, want, n) == 0;
    free(b);
    return same;
}

static FILE *out;

static void emit(const char *name, const uint8_t *b, size_t n)
{
    fprintf(out, "%s ", name);
    for (size_t k = 0; k < n; k++) fprintf(out, "%02x", b[k]);
    fprintf(out, "\n");
}

static uint8_t *fault_bytes(cint_ctx *ctx, size_t *len)
{
    size_t n = 0;
    CHECK_EQ(cint_fault_get(ctx, NULL, 0, &n), CINT_OK);
    uint8_t *b = malloc(n + 1u);
    CHECK_EQ(cint_fault_get(ctx, b, n, len), CINT_OK);
    return b;
}

/* --- the tests ---------------------------------------------------------------------------------- */

static void test_encode(void)
{
    cint_ctx *ctx = make(&s_program);
    size_t n;
    uint8_t *b = encode(ctx, &n);
    emit("fresh", b, n);
    CHECK(n > 24 && memcmp(b, "\x14\x00\x00\x00" "cint-core-1/state/v1", 24) == 0);
    /* a short buffer gets the first bytes and the whole length */
    uint8_t part[10];
    size_t m = 0;
    CHECK_EQ(cint_gen_state_encode(ctx, part, sizeof part, &m), CINT_OK);
    CHECK_EQ(m, n);
    CHECK(memcmp(part, b, sizeof part) == 0);
    CHECK_EQ(cint_gen_state_encode(ctx, NULL, 5, &m), CINT_REFUSED);
    CHECK_EQ(cint_gen_state_encode(ctx, b, n, NULL), CINT_REFUSED);
    CHECK_EQ(cint_gen_state_encode(NULL, b, n, &m), CINT_REFUSED);
    free(b);
    CHECK_EQ(step(ctx, 3), CINT_OK);
    CHECK_EQ(step(ctx, 4), CINT_OK);
    b = encode(ctx, &n);
    emit("two-steps", b, n);
    free(b);
    /* registrations: borrowed and created, one released */
    static int64_t mem[4];
    cint_buffer_id id;
    uint64_t gen;
    CHECK_EQ(cint_buffer_register_elements(ctx, (cint_type)TY(CINT_TAG_I64), mem, 4, 1, 1, &id, &gen), CINT_OK);
    CHECK_EQ(cint_buffer_create(ctx, (cint_type)TY(CINT_TAG_U8), 10, 0, &id, &gen), CINT_OK);
    CHECK_EQ(cint_buffer_register_elements(ctx, (cint_type)TY(CINT_TAG_I64), mem, 2, 0, 0, &id, &gen), CINT_OK);
    CHECK_EQ(cint_buffer_release(ctx, 1), CINT_OK);
    b = encode(ctx, &n);
    emit("registry", b, n);
    free(b);
    CHECK_EQ(step(ctx, 99), CINT_FAULT);
    b = encode(ctx, &n);
    emit("faulted", b, n);
    free(b);
    cint_ctx_destroy(ctx);
}

/* M-1: the same values with different registration histories are different states. */
static void test_histories(void)
{
    cint_ctx *a = make(&s_program), *b = make(&s_program);
    static int64_t mem[2];
    cint_buffer_id id;
    uint64_t gen;
    CHECK_EQ(cint_buffer_register_elements(b, (cint_type)TY(CINT_TAG_I64), mem, 2, 0, 0, &id, &gen), CINT_OK);
    CHECK_EQ(cint_buffer_release(b, id), CINT_OK);
    size_t na, nb;
    uint8_t *sa = encode(a, &na), *sb = encode(b, &nb);
    CHECK(na == nb && memcmp(sa, sb, na) != 0);
    free(sa);
    free(sb);
    cint_ctx_destroy(a);
    cint_ctx_destroy(b);
}

static void test_round_trip(void)
{
    cint_ctx *a = make(&s_program), *b = make(&s_program);
    CHECK_EQ(step(a, 10), CINT_OK);
    CHECK_EQ(step(a, -3), CINT_OK);
    size_t n;
    uint8_t *s = encode(a, &n);
    uint64_t detail[2] = {7, 7};
    CHECK_EQ(cint_gen_state_restore(b, s, n, detail), CINT_OK);
    CHECK_EQ(detail[0], 0);
    CHECK(same_state(b, s, n));
    /* and on: both contexts go the same way */
    CHECK_EQ(step(a, 1), CINT_OK);
    CHECK_EQ(step(b, 1), CINT_OK);
    size_t n2;
    uint8_t *s2 = encode(a, &n2);
    CHECK(same_state(b, s2, n2));
    free(s2);
    /* restoring into the context it came from, after more entries */
    CHECK_EQ(cint_gen_state_restore(a, s, n, NULL), CINT_OK);
    CHECK(same_state(a, s, n));
    free(s);

    /* a faulted state: the restored context holds the same record bytes, and is Faulted */
    CHECK_EQ(step(a, 99), CINT_FAULT);
    s = encode(a, &n);
    size_t fa, fb;
    uint8_t *ra = fault_bytes(a, &fa);
    cint_ctx *c = make(&s_program);
    CHECK_EQ(cint_gen_state_restore(c, s, n, NULL), CINT_OK);
    uint8_t *rc = fault_bytes(c, &fb);
    CHECK(fa == fb && fa > 0 && memcmp(ra, rc, fa) == 0);
    CHECK(same_state(c, s, n));
    cint_fault_record rec;
    CHECK_EQ(cint_ctx_fault(c, &rec), CINT_OK);
    CHECK_EQ(rec.code, CINT_E_OVERFLOW);
    CHECK_EQ(rec.stack_count, 1);
    CHECK_EQ(rec.position.index, S_ADD);
    CHECK_EQ(step(c, 1), CINT_FAULTED);
    CHECK_EQ(cint_ctx_clear_fault(c), CINT_OK);
    CHECK_EQ(cint_ctx_clear_fault(a), CINT_OK);
    CHECK_EQ(step(a, 2), CINT_OK);
    CHECK_EQ(step(c, 2), CINT_OK);
    size_t n3;
    uint8_t *s3 = encode(a, &n3);
    CHECK(same_state(c, s3, n3));
    free(s3);
    free(ra);
    free(rc);
    free(s);
    cint_ctx_destroy(a);
    cint_ctx_destroy(b);
    cint_ctx_destroy(c);
}

/* M-11, M-11a: a restore ends every registration, and no identifier is issued twice. */
static void test_registry(void)
{
    cint_ctx *a = make(&s_program), *b = make(&s_program);
    static int64_t mem[8];
    cint_buffer_id id;
    uint64_t gen;
    CHECK_EQ(cint_buffer_register_elements(a, (cint_type)TY(CINT_TAG_I64), mem, 8, 1, 0, &id, &gen), CINT_OK);
    CHECK_EQ(cint_buffer_create(a, (cint_type)TY(CINT_TAG_I32), 100, 0, &id, &gen), CINT_OK);
    size_t n;
    uint8_t *s = encode(a, &n); /* next buffer identifier 3 */
    for (int k = 0; k < 5; k++)
        CHECK_EQ(cint_buffer_create(b, (cint_type)TY(CINT_TAG_U8), 16, 0, &id, &gen), CINT_OK);
    CHECK_EQ(cint_gen_state_restore(b, s, n, NULL), CINT_OK); /* frees b's five buffers (ASan) */
    CHECK_EQ(cint_buffer_create(b, (cint_type)TY(CINT_TAG_U8), 16, 0, &id, &gen), CINT_OK);
    CHECK_EQ(id, 6);                                          /* max(3, 6) */
    CHECK_EQ(cint_buffer_release(b, 1), CINT_REFUSED);        /* ended by the restore */
    /* into a itself: both registrations end; the next identifier is 3, never 1 or 2 again */
    CHECK_EQ(cint_gen_state_restore(a, s, n, NULL), CINT_OK);
    CHECK_EQ(cint_buffer_create(a, (cint_type)TY(CINT_TAG_U8), 1, 0, &id, &gen), CINT_OK);
    CHECK_EQ(id, 3);
    const void *ptr;
    uint64_t lease;
    CHECK_EQ(cint_buffer_lease(a, id, &ptr, &lease), CINT_OK);
    size_t before_n;
    uint8_t *before = encode(a, &before_n);
    CHECK_EQ(cint_gen_state_restore(a, s, n, NULL), CINT_BUSY); /* a live lease */
    uint32_t reason = 0;
    CHECK_EQ(cint_ctx_refusal(a, &reason), CINT_OK);
    CHECK_EQ(reason, CINT_REFUSAL_LEASED);
    CHECK(same_state(a, before, before_n));
    CHECK_EQ(cint_lease_end(a, lease), CINT_OK);
    CHECK_EQ(cint_gen_state_restore(a, s, n, NULL), CINT_OK);
    free(before);
    free(s);
    cint_ctx_destroy(a);
    cint_ctx_destroy(b);
}

/* M-11: the identifier 2^64 - 1 is never issued. A checkpoint whose next buffer identifier is 2^64 - 1 is
   restored (M-11 takes the greater counter), and a registration then returns CINT_RESOURCE and changes nothing;
   from 2^64 - 2, one identifier is issued and the state still encodes. */
static void test_identifier_exhaustion(void)
{
    static const uint64_t tops[2] = {UINT64_MAX, UINT64_MAX - 1u};
    for (int t = 0; t < 2; t++) {
        cint_ctx *a = make(&s_program), *b = make(&s_program);
        static int64_t mem[4];
        cint_buffer_id id = 0;
        uint64_t gen = 0;
        CHECK_EQ(cint_buffer_create(a, (cint_type)TY(CINT_TAG_I64), 2, 0, &id, &gen), CINT_OK);
        size_t n;
        uint8_t *s = encode(a, &n);
        /* the counters: next buffer 2, next arena 1, next pool 1, each a U64 */
        static const uint8_t want[24] = {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
        size_t at = n;
        for (size_t k = 0; k + 24 <= n; k++)
            if (memcmp(s + k, want, 24) == 0) at = k;
        CHECK(at < n);
        if (at < n) {
            for (int k = 0; k < 8; k++) s[at + (size_t)k] = (uint8_t)(tops[t] >> (8 * k));
            CHECK_EQ(cint_gen_state_restore(b, s, n, NULL), CINT_OK);
            if (t == 1) {
                CHECK_EQ(cint_buffer_create(b, (cint_type)TY(CINT_TAG_I64), 2, 0, &id, &gen), CINT_OK);
                CHECK(id == UINT64_MAX - 1u);
            }
            size_t before_n;
            uint8_t *before = encode(b, &before_n);
            CHECK(before != NULL);
            CHECK_EQ(cint_buffer_create(b, (cint_type)TY(CINT_TAG_I64), 2, 0, &id, &gen), CINT_RESOURCE);
            CHECK_EQ(cint_buffer_register_elements(b, (cint_type)TY(CINT_TAG_I64), mem, 4, 1, 0, &id, &gen),
                     CINT_RESOURCE);
            CHECK(same_state(b, before, before_n));
            free(before);
        }
        free(s);
        cint_ctx_destroy(a);
        cint_ctx_destroy(b);
    }
}

/* A host that makes several registrations for one call (the Python package: every bare array of a call)
   asks cint_gen_registry_reserve for room for all of them first, so a call that cannot have them all changes
   nothing, identifier counter included (H-12, P-20). Registering one by one and releasing what was made when a
   later one returns CINT_RESOURCE would consume the earlier identifiers: the state would differ. */
static void test_registry_reserve(void)
{
    cint_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.program = &s_program;
    cfg.max_buffers = 3;
    cint_ctx *a = NULL;
    CHECK_EQ(cint_ctx_create(&cfg, &a), CINT_OK);
    static int64_t mem[4][2];
    cint_buffer_id id[4] = {0, 0, 0, 0};
    uint64_t gen = 0;
    cint_type i64 = TY(CINT_TAG_I64);
    CHECK_EQ(cint_gen_registry_reserve(NULL, 1), CINT_REFUSED);
    CHECK_EQ(cint_buffer_register_elements(a, i64, mem[0], 2, 1, 0, &id[0], &gen), CINT_OK);
    size_t n0;
    uint8_t *s0 = encode(a, &n0);                     /* one live registration, next buffer 2 */
    CHECK_EQ(cint_gen_registry_reserve(a, 3), CINT_RESOURCE);   /* 1 + 3 > max_buffers */
    CHECK_EQ(cint_gen_registry_reserve(a, UINT32_MAX), CINT_RESOURCE);
    CHECK(same_state(a, s0, n0));
    CHECK_EQ(cint_gen_registry_reserve(a, 0), CINT_OK);
    CHECK_EQ(cint_gen_registry_reserve(a, 2), CINT_OK);
    CHECK(same_state(a, s0, n0));                     /* room is not state */
    CHECK_EQ(cint_buffer_register_elements(a, i64, mem[1], 2, 1, 0, &id[1], &gen), CINT_OK);
    CHECK_EQ(cint_buffer_create(a, i64, 2, 0, &id[2], &gen), CINT_OK);
    CHECK_EQ(id[1], 2);
    CHECK_EQ(id[2], 3);
    CHECK_EQ(cint_gen_registry_reserve(a, 1), CINT_RESOURCE);   /* max_buffers live */
    CHECK_EQ(cint_buffer_register_elements(a, i64, mem[3], 2, 1, 0, &id[3], &gen), CINT_RESOURCE);
    CHECK_EQ(cint_buffer_release(a, id[2]), CINT_OK);
    CHECK_EQ(cint_gen_registry_reserve(a, 1), CINT_OK);
    CHECK_EQ(cint_gen_registry_reserve(a, 2), CINT_RESOURCE);
    /* the hazard the reservation removes: one made, the next refused, the first released: identifier 4 is gone */
    size_t n1;
    uint8_t *s1 = encode(a, &n1);
    CHECK_EQ(cint_buffer_register_elements(a, i64, mem[2], 2, 1, 0, &id[2], &gen), CINT_OK);
    CHECK_EQ(cint_buffer_register_elements(a, i64, mem[3], 2, 1, 0, &id[3], &gen), CINT_RESOURCE);
    CHECK_EQ(cint_buffer_release(a, id[2]), CINT_OK);
    CHECK(!same_state(a, s1, n1));
    free(s1);
    free(s0);
    cint_ctx_destroy(a);

    /* identifiers: from next buffer 2^64 - 3, two more can be issued (2^64 - 1 never is, M-11), not three */
    cint_ctx *b = make(&s_program), *c = make(&s_program);
    size_t n;
    uint8_t *s = encode(b, &n);
    static const uint8_t want[24] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    size_t at = n;
    for (size_t k = 0; k + 24 <= n; k++)
        if (memcmp(s + k, want, 24) == 0) at = k;
    CHECK(at < n);
    if (at < n) {
        const uint64_t top = UINT64_MAX - 2u;
        for (int k = 0; k < 8; k++) s[at + (size_t)k] = (uint8_t)(top >> (8 * k));
        CHECK_EQ(cint_gen_state_restore(c, s, n, NULL), CINT_OK);
        size_t cn;
        uint8_t *cs = encode(c, &cn);
        CHECK_EQ(cint_gen_registry_reserve(c, 3), CINT_RESOURCE);
        CHECK(same_state(c, cs, cn));
        CHECK_EQ(cint_gen_registry_reserve(c, 2), CINT_OK);
        CHECK_EQ(cint_buffer_register_elements(c, i64, mem[0], 2, 1, 0, &id[0], &gen), CINT_OK);
        CHECK(id[0] == UINT64_MAX - 2u);
        CHECK_EQ(cint_gen_registry_reserve(c, 2), CINT_RESOURCE);
        CHECK_EQ(cint_gen_registry_reserve(c, 1), CINT_OK);
        free(cs);
    }
    free(s);
    cint_ctx_destroy(b);
    cint_ctx_destroy(c);
}

/* H-19: another revision identity, or other module variables, are refused. */
static void test_refusals(void)
{
    cint_ctx *a = make(&s_program), *o = make(&o_program), *r = make(&r_program);
    size_t n;
    uint8_t *s = encode(a, &n);
    uint64_t detail[2];
    size_t on, rn;
    uint8_t *os = encode(o, &on), *rs = encode(r, &rn);
    CHECK_EQ(cint_gen_state_restore(r, s, n, detail), CINT_REFUSED);
    CHECK_EQ(detail[0], CINT_STATE_REVISION);
    CHECK_EQ(detail[1], 24);
    CHECK(same_state(r, rs, rn));
    CHECK_EQ(cint_gen_state_restore(o, s, n, detail), CINT_REFUSED);
    CHECK_EQ(detail[0], CINT_STATE_GLOBALS);
    CHECK(same_state(o, os, on));
    CHECK_EQ(cint_gen_state_restore(a, os, on, detail), CINT_REFUSED);
    CHECK_EQ(detail[0], CINT_STATE_GLOBALS);
    uint32_t reason = 0;
    CHECK_EQ(cint_ctx_refusal(a, &reason), CINT_OK);
    CHECK_EQ(reason, CINT_REFUSAL_CALL);
    CHECK_EQ(cint_gen_state_restore(a, NULL, 3, detail), CINT_REFUSED);
    CHECK_EQ(cint_gen_state_restore(a, NULL, 0, detail), CINT_REFUSED);
    CHECK_EQ(detail[0], CINT_STATE_MALFORMED);
    CHECK_EQ(cint_gen_state_restore(NULL, s, n, detail), CINT_REFUSED);
    free(s);
    free(os);
    free(rs);
    cint_ctx_destroy(a);
    cint_ctx_destroy(o);
    cint_ctx_destroy(r);
}

/* --- v.ci: an enum (U8: 1, 2, 9) and an error set (U16, 3 values) as module variables ------------ */

static const cint_global_info v_globals[2] = {
    {{"v.t", 3, 0}, TY(CINT_TAG_U16), 2, 2},
    {{"v.e", 3, 0}, TY(CINT_TAG_U8), 0, 1},
};
static const uint8_t v_init[4] = {2, 0, 1, 0};
static const uint8_t v_gear[3] = {1, 2, 9};
static const cint_value_set v_sets[2] = {{CINT_VALUES_GLOBALS, 0, CINT_VALUES_ERROR_SET, 2, 3, NULL},
                                         {CINT_VALUES_GLOBALS, 1, CINT_VALUES_ENUM, 1, 3, v_gear}};
static const cint_program v_program = {sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_REVISION, s_modules,
                                       REV, {0}, 4, 8, v_init, 2, 0, v_globals, NULL, CINT_BACKEND_CPU_C17, 2, v_sets};

static size_t find(const uint8_t *b, size_t n, const char *text)
{
    size_t m = strlen(text);
    for (size_t k = 0; k + m <= n; k++)
        if (memcmp(b + k, text, m) == 0) return k;
    return 0;
}

/* A value that is no enumerator, or no tag 1..count of the error set, is malformed at its offset and
   changes nothing; an enumerator and a tag in range restore. A table out of order, of an unknown
   kind or with an enum's values out of order is an invalid program. */
static void test_value_sets(void)
{
    cint_ctx *ctx = make(&v_program);
    size_t n;
    uint8_t *s = encode(ctx, &n);
    size_t e_at = find(s, n, "v.e") + 3u + 1u, t_at = find(s, n, "v.t") + 3u + 1u;
    CHECK_EQ(s[e_at], 2);
    CHECK_EQ(s[t_at], 1);
    uint64_t detail[2];
    static const uint8_t bad_e[] = {0, 3, 8, 10, 255};
    for (size_t k = 0; k < sizeof bad_e; k++) {
        uint8_t *m = malloc(n);
        memcpy(m, s, n);
        m[e_at] = bad_e[k];
        CHECK_EQ(cint_gen_state_restore(ctx, m, n, detail), CINT_REFUSED);
        CHECK_EQ(detail[0], CINT_STATE_MALFORMED);
        CHECK_EQ(detail[1], e_at);
        CHECK(same_state(ctx, s, n));
        free(m);
    }
    static const uint16_t bad_t[] = {0, 4, 0x100, 0xFFFF};
    for (size_t k = 0; k < sizeof bad_t / sizeof bad_t[0]; k++) {
        uint8_t *m = malloc(n);
        memcpy(m, s, n);
        m[t_at] = (uint8_t)bad_t[k];
        m[t_at + 1u] = (uint8_t)(bad_t[k] >> 8);
        CHECK_EQ(cint_gen_state_restore(ctx, m, n, detail), CINT_REFUSED);
        CHECK_EQ(detail[0], CINT_STATE_MALFORMED);
        CHECK_EQ(detail[1], t_at);
        CHECK(same_state(ctx, s, n));
        free(m);
    }
    uint8_t *m = malloc(n);
    memcpy(m, s, n);
    m[e_at] = 9;
    m[t_at] = 3;
    CHECK_EQ(cint_gen_state_restore(ctx, m, n, detail), CINT_OK);
    CHECK(same_state(ctx, m, n));
    free(m);
    free(s);
    cint_ctx_destroy(ctx);

    cint_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cint_program p = v_program;
    cfg.program = &p;
    cint_ctx *bad = NULL;
    cint_value_set swapped[2] = {v_sets[1], v_sets[0]};
    p.value_sets = swapped;
    CHECK_EQ(cint_ctx_create(&cfg, &bad), CINT_REFUSED);
    static const uint8_t unsorted[3] = {2, 1, 9};
    cint_value_set odd[2] = {v_sets[0], v_sets[1]};
    odd[1].values = unsorted;
    p.value_sets = odd;
    CHECK_EQ(cint_ctx_create(&cfg, &bad), CINT_REFUSED);
    odd[1].values = v_gear;
    odd[1].kind = 3;
    CHECK_EQ(cint_ctx_create(&cfg, &bad), CINT_REFUSED);
    odd[1].kind = CINT_VALUES_ENUM;
    odd[0].width = 9;
    CHECK_EQ(cint_ctx_create(&cfg, &bad), CINT_REFUSED);
    odd[0].width = 2;
    odd[1].row = 2;
    CHECK_EQ(cint_ctx_create(&cfg, &bad), CINT_REFUSED);
    p.value_sets = NULL;
    CHECK_EQ(cint_ctx_create(&cfg, &bad), CINT_REFUSED);
    CHECK(bad == NULL);
}

/* A restore from the output callback of a running entry is CINT_BUSY, as an encode is. */
static cint_ctx *busy_ctx;
static int busy_seen;
static cint_status busy_output(void *user, const uint8_t *bytes, size_t len)
{
    (void)user;
    (void)bytes;
    (void)len;
    size_t n = 0;
    uint8_t one = 0;
    if (cint_gen_state_encode(busy_ctx, NULL, 0, &n) == CINT_BUSY) busy_seen++;
    if (cint_gen_state_restore(busy_ctx, &one, 1, NULL) == CINT_BUSY) busy_seen++;
    return CINT_OK;
}

static void test_busy(void)
{
    cint_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.program = &s_program;
    cfg.output = busy_output;
    CHECK_EQ(cint_ctx_create(&cfg, &busy_ctx), CINT_OK);
    CHECK_EQ(step(busy_ctx, 1), CINT_OK);
    CHECK_EQ(busy_seen, 2);
    cint_ctx_destroy(busy_ctx);
}

/* H-19a: every truncation, every single-byte change of a faulted state with registrations and a
   sample of random changes are either refused, with the context unchanged, or accepted as a
   valid state, whose bytes the context then gives back and takes again. */
static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int accepted;

static void try_mutant(cint_ctx **pctx, const uint8_t *before, size_t before_n, const uint8_t *m, size_t n)
{
    uint64_t detail[2];
    cint_ctx *ctx = *pctx;
    cint_status st = cint_gen_state_restore(ctx, m, n, detail);
    if (st == CINT_OK) {
        accepted++;
        size_t got_n; /* the state it gave is one a restore takes back exactly */
        uint8_t *got = encode(ctx, &got_n);
        CHECK_EQ(cint_gen_state_restore(ctx, got, got_n, NULL), CINT_OK);
        if (!same_state(ctx, got, got_n) && failures < 3) emit("mutant-diff", got, got_n);
        CHECK(same_state(ctx, got, got_n));
        free(got);
        /* a context in the original state again, for the next mutant (counters only grow, M-11) */
        cint_ctx_destroy(ctx);
        *pctx = ctx = make(&s_program);
        CHECK_EQ(cint_gen_state_restore(ctx, before, before_n, NULL), CINT_OK);
        CHECK(same_state(ctx, before, before_n));
    } else {
        CHECK_EQ(st, CINT_REFUSED);
        CHECK(detail[0] >= CINT_STATE_MALFORMED && detail[0] <= CINT_STATE_UNREPRESENTABLE);
        CHECK(detail[1] <= n);
        CHECK(same_state(ctx, before, before_n));
    }
}

static void test_fuzz(void)
{
    cint_ctx *a = make(&s_program);
    CHECK_EQ(step(a, 5), CINT_OK);
    static int64_t mem[3];
    cint_buffer_id id;
    uint64_t gen;
    CHECK_EQ(cint_buffer_register_elements(a, (cint_type)TY(CINT_TAG_I64), mem, 3, 1, 1, &id, &gen), CINT_OK);
    CHECK_EQ(step(a, 99), CINT_FAULT);
    size_t n;
    uint8_t *s = encode(a, &n);
    /* the target: a context in the state s without registrations (what a restore of s gives) */
    cint_ctx *t = make(&s_program);
    CHECK_EQ(cint_gen_state_restore(t, s, n, NULL), CINT_OK);
    size_t tn;
    uint8_t *ts = encode(t, &tn);
    uint8_t *m = malloc(n + 16u);
    for (size_t len = 0; len < n; len++) { /* every truncation */
        memcpy(m, s, len);
        uint64_t detail[2];
        CHECK_EQ(cint_gen_state_restore(t, m, len, detail), CINT_REFUSED);
        CHECK(same_state(t, ts, tn));
    }
    memcpy(m, s, n); /* a trailing byte */
    m[n] = 0;
    CHECK_EQ(cint_gen_state_restore(t, m, n + 1u, NULL), CINT_REFUSED);
    static const uint8_t flips[] = {0x01, 0x80, 0xFF, 0x10};
    for (size_t k = 0; k < n; k++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(m, s, n);
            m[k] ^= flips[f];
            try_mutant(&t, ts, tn, m, n);
        }
    for (int round = 0; round < 20000; round++) {
        memcpy(m, s, n);
        size_t len = n;
        int edits = 1 + (int)(next_rand() % 4u);
        for (int e = 0; e < edits; e++) {
            uint64_t r = next_rand();
            size_t at = (size_t)(r % len);
            switch ((r >> 32) % 4u) {
            case 0: m[at] = (uint8_t)(r >> 40); break;
            case 1: /* a length field grows or shrinks */
                if (at + 4u <= len) {
                    uint32_t v;
                    memcpy(&v, m + at, 4);
                    v += (uint32_t)((r >> 40) % 5u) - 2u;
                    memcpy(m + at, &v, 4);
                }
                break;
            case 2: if (len > 1) len--; break;
            default: m[at] = 0; break;
            }
        }
        try_mutant(&t, ts, tn, m, len);
    }
    printf("test_state: fuzz: %d mutants accepted as other valid states\n", accepted);
    free(m);
    free(s);
    free(ts);
    cint_ctx_destroy(a);
    cint_ctx_destroy(t);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_state STATES_FILE\n");
        return 2;
    }
    out = fopen(argv[1], "w");
    if (out == NULL) return 2;
    test_encode();
    test_histories();
    test_round_trip();
    test_registry();
    test_identifier_exhaustion();
    test_registry_reserve();
    test_refusals();
    test_value_sets();
    test_busy();
    test_fuzz();
    fclose(out);
    printf("test_state: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
