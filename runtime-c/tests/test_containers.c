/* test_containers.c: the arenas, pools and handles of containers.c (docs/language.md decision 24) and
 * their restore in state.c (H-19a), built with the runtime sources (tests/run.sh), plain and under
 * AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 *   - alloc, child, reset, insert, insert_result, remove, the handle checks, and the exact fault records
 *     (code, operation, operands: the prefix of the canonical bytes cint_fault_get gives);
 *   - a restore of the state of a context with child arenas and a pool into a fresh context, its
 *     counters (M-11), and a restore fuzz: every mutant is refused with the context unchanged, or
 *     accepted only when it is a state the encoder writes back byte for byte.
 *
 *   test_containers [MUTANTS_FILE]
 *
 * writes "A hex" for each mutant accepted and "M hex" for each refused as malformed; run.sh has
 * cint_abi.state.decode_state take every A line and refuse every M line.
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

/* --- t.ci: Arena(I64, 8) a; Pool(I64, 3) p; Arena(I64, 4) b; Handle(I64) h; -------------------- */

enum { T_ENTRY, T_OP, T_COUNT };
static const cint_site_info t_sites[T_COUNT] = {{1, 1}, {3, 7}};
static const cint_module t_module = {"t.ci", 4, T_COUNT, t_sites, "t", 1, 0};
static const cint_module *const t_modules[] = {&t_module};
#define TY(code) {code, 0, 0, 0, 0, 0, 0}
static const cint_global_info t_globals[1] = {{{"t.h", 3, 0}, TY(CINT_TAG_HANDLE), 0, 32}};
static const cint_container_info t_containers[3] = {
    {{"t.a", 3, 0}, CINT_CONTAINER_ARENA, 0, TY(CINT_TAG_I64), 8},
    {{"t.p", 3, 0}, CINT_CONTAINER_POOL, 0, TY(CINT_TAG_I64), 3},
    {{"t.b", 3, 0}, CINT_CONTAINER_ARENA, 0, TY(CINT_TAG_I64), 4},
};
#define REV {7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}
static const cint_program t_program = {sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_REVISION, t_modules,
                                       REV, {0}, 32, 8, NULL, 1, 3, t_globals, t_containers, CINT_BACKEND_CPU_C17,
                                       0, NULL};
static const cint_gen_export t_x = {&t_program, {0, T_ENTRY}, CINT_EXPORT_FUNCTION, 0, NULL, 0, 0, NULL};
static const cint_gen_at AT = {{0, T_OP}, 0, 0};
enum { ARENA_A = 0, ARENA_B = 1, POOL_P = 0 }; /* rows: module arenas in declaration order, then pools */

static cint_ctx *make(void)
{
    cint_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.program = &t_program;
    cint_ctx *ctx = NULL;
    CHECK_EQ(cint_ctx_create(&cfg, &ctx), CINT_OK);
    return ctx;
}

static void begin(cint_ctx *ctx)
{
    cint_gen_array arrays[1];
    int64_t sizes[1];
    const cint_gen_arg args[1] = {{NULL, 0, 0}};
    CHECK_EQ(cint_gen_enter(ctx, &t_x, -1, args, NULL, arrays, sizes), CINT_OK);
}

static uint8_t *encode(cint_ctx *ctx, size_t *len)
{
    size_t n = 0, m = 0;
    CHECK_EQ(cint_gen_state_encode(ctx, NULL, 0, &n), CINT_OK);
    uint8_t *b = malloc(n + 1u);
    CHECK_EQ(cint_gen_state_encode(ctx, b, n, &m), CINT_OK);
    CHECK_EQ(m, n);
    *len = n;
    return b;
}

/* --- expected fault records: the canonical prefix (domain, code, operation, operands) --------- */

typedef struct bytes {
    uint8_t b[512];
    size_t n;
} bytes;

static void put(bytes *o, uint64_t v, unsigned n)
{
    for (unsigned k = 0; k < n; k++) o->b[o->n++] = (uint8_t)(v >> (8u * k));
}

static void head(bytes *o, uint16_t code, const char *op, uint32_t count)
{
    static const char dom[] = "cint-core-1/fault/v2";
    o->n = 0;
    put(o, sizeof dom - 1u, 4);
    memcpy(o->b + o->n, dom, sizeof dom - 1u);
    o->n += sizeof dom - 1u;
    put(o, code, 2);
    put(o, strlen(op), 4);
    memcpy(o->b + o->n, op, strlen(op));
    o->n += strlen(op);
    put(o, count, 4);
}

static void operand(bytes *o, uint8_t tag, uint64_t v, unsigned n)
{
    o->b[o->n++] = tag;
    put(o, v, n);
}

/* The entry ends in a fault whose record starts with want; the fault is cleared. */
static void expect_fault(cint_ctx *ctx, const bytes *want, int line)
{
    CHECK_EQ(cint_gen_leave(ctx), CINT_FAULT);
    uint8_t buf[4096];
    size_t n = 0;
    CHECK_EQ(cint_fault_get(ctx, buf, sizeof buf, &n), CINT_OK);
    bool same = n >= want->n && memcmp(buf, want->b, want->n) == 0;
    if (!same) fprintf(stderr, "test_containers: the fault record at line %d differs\n", line);
    CHECK(same);
    CHECK_EQ(cint_ctx_clear_fault(ctx), CINT_OK);
}

static void stale_want(bytes *o, const char *op, const cint_handle *h, uint64_t cur, uint8_t reason)
{
    head(o, CINT_E_STALE_HANDLE, op, 7);
    operand(o, CINT_TAG_U64, h->slot, 8);
    operand(o, CINT_TAG_I64, (uint64_t)h->len, 8);
    operand(o, CINT_TAG_U64, h->gen, 8);
    operand(o, CINT_TAG_U32, h->cont, 4);
    operand(o, CINT_TAG_U8, h->kind, 1);
    operand(o, CINT_TAG_U64, cur, 8);
    operand(o, CINT_TAG_U8, reason, 1);
}

static void bounds_want(bytes *o, const char *op, int64_t a, int64_t b, int64_t c)
{
    head(o, CINT_E_BOUNDS, op, 3);
    operand(o, CINT_TAG_I64, (uint64_t)a, 8);
    operand(o, CINT_TAG_I64, (uint64_t)b, 8);
    operand(o, CINT_TAG_I64, (uint64_t)c, 8);
}

static bool same_handle(const cint_handle *h, uint64_t slot, int64_t len, uint64_t gen, uint32_t cont, uint8_t kind)
{
    return h->slot == slot && h->len == len && h->gen == gen && h->cont == cont && h->kind == kind;
}

/* --- arenas ------------------------------------------------------------------------------------ */

static void test_arenas(void)
{
    cint_ctx *ctx = make();
    bytes want;
    cint_handle h1, h2, h3;
    cint_gen_array v;
    uint32_t c1 = 0, c2 = 0;

    begin(ctx);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_A, 3, &h1), 0);
    CHECK(same_handle(&h1, 0, 3, 0, 1, CINT_HANDLE_ARENA));
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_A, 2, &h2), 0);
    CHECK(same_handle(&h2, 3, 2, 0, 1, CINT_HANDLE_ARENA));
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_A, &h2, &v), 0);
    CHECK_EQ(v.shape[0], 2);
    CHECK_EQ(v.owner, CINT_OWNER_ARENA);
    int64_t x = 41;
    memcpy(v.data + 8, &x, 8);
    CHECK_EQ(cint_gen_arena_recheck(ctx, &AT, &v), 0);
    /* a child of 2 elements after them, and a grandchild of 1 */
    CHECK_EQ(cint_gen_arena_child(ctx, &AT, ARENA_A, 2, &c1), 0);
    CHECK_EQ(c1, 2u); /* rows: a, b, then the child */
    CHECK_EQ(cint_gen_arena_child(ctx, &AT, c1, 1, &c2), 0);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, c2, 1, &h3), 0);
    CHECK(same_handle(&h3, 0, 1, 0, 4, CINT_HANDLE_ARENA)); /* ids: a 1, b 2, children 3 and 4 */
    int full = 0;
    cint_handle hf;
    CHECK_EQ(cint_gen_arena_alloc_result(ctx, &AT, ARENA_A, 4, &hf, &full), 0);
    CHECK_EQ(full, 1);
    CHECK_EQ(cint_gen_arena_alloc_result(ctx, &AT, ARENA_A, 1, &hf, &full), 0);
    CHECK_EQ(full, 0);
    CHECK(same_handle(&hf, 7, 1, 0, 1, CINT_HANDLE_ARENA));
    /* full: E_BOUNDS arena.alloc (requested, used, capacity) */
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_A, 2, &hf), 1);
    bounds_want(&want, "arena.alloc", 2, 8, 8);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_B, -1, &hf), 1);
    bounds_want(&want, "arena.alloc", -1, 0, 4);
    expect_fault(ctx, &want, __LINE__);

    /* index beyond the handle's run is the view's business; a run beyond used is RANGE */
    begin(ctx);
    cint_handle forged = {6, 3, 0, 1, CINT_HANDLE_ARENA};
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_A, &forged, &v), 1);
    stale_want(&want, "handle.check", &forged, 0, 4);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    cint_handle null = {0, 0, 0, 0, CINT_HANDLE_NULL};
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_A, &null, &v), 1);
    stale_want(&want, "handle.check", &null, 0, 1);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx); /* a handle of arena a into arena b: CONTAINER */
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_B, &h1, &v), 1);
    stale_want(&want, "handle.check", &h1, 0, 6);
    expect_fault(ctx, &want, __LINE__);

    /* reset: generation 1, the children retired */
    begin(ctx);
    CHECK_EQ(cint_gen_arena_reset(ctx, &AT, ARENA_A), 0);
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_A, &h1, &v), 1);
    stale_want(&want, "handle.check", &h1, 1, 3);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, c2, &h3, &v), 1);
    stale_want(&want, "handle.check", &h3, 0, 2);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx); /* alloc on a retired arena: the arena as a handle of its whole capacity */
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, c1, 1, &hf), 1);
    cint_handle whole = {0, 2, 0, 3, CINT_HANDLE_ARENA};
    stale_want(&want, "arena.alloc", &whole, 0, 2);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    CHECK_EQ(cint_gen_arena_reset(ctx, &AT, c1), 1);
    stale_want(&want, "arena.reset", &whole, 0, 2);
    expect_fault(ctx, &want, __LINE__);

    /* after the reset the arena is zero-filled as it allocates again */
    begin(ctx);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_A, 5, &hf), 0);
    CHECK(same_handle(&hf, 0, 5, 1, 1, CINT_HANDLE_ARENA));
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_A, &hf, &v), 0);
    memcpy(&x, v.data + 4 * 8, 8);
    CHECK_EQ(x, 0);
    CHECK_EQ(cint_gen_leave(ctx), CINT_OK);
    cint_ctx_destroy(ctx);
}

/* --- pools ------------------------------------------------------------------------------------- */

static void test_pools(void)
{
    cint_ctx *ctx = make();
    bytes want;
    cint_handle h[3], hf;
    void *p = NULL;
    int64_t val;

    begin(ctx);
    for (int k = 0; k < 3; k++) {
        val = 10 + k;
        CHECK_EQ(cint_gen_pool_insert(ctx, &AT, POOL_P, &val, &h[k]), 0);
        CHECK(same_handle(&h[k], (uint64_t)k, 1, 0, 1, CINT_HANDLE_POOL));
    }
    CHECK_EQ(cint_gen_pool_deref(ctx, &AT, POOL_P, &h[1], &p), 0);
    memcpy(&val, p, 8);
    CHECK_EQ(val, 11);
    int full = 0;
    CHECK_EQ(cint_gen_pool_insert_result(ctx, &AT, POOL_P, &val, &hf, &full), 0);
    CHECK_EQ(full, 1);
    CHECK_EQ(cint_gen_pool_insert(ctx, &AT, POOL_P, &val, &hf), 1);
    bounds_want(&want, "pool.insert", 3, 0, 3); /* live, retired, capacity */
    expect_fault(ctx, &want, __LINE__);

    begin(ctx); /* remove: generation 1, on the free list, reused first (LIFO) */
    CHECK_EQ(cint_gen_pool_remove(ctx, &AT, POOL_P, &h[1]), 0);
    CHECK_EQ(cint_gen_pool_remove(ctx, &AT, POOL_P, &h[0]), 0);
    val = 77;
    CHECK_EQ(cint_gen_pool_insert(ctx, &AT, POOL_P, &val, &hf), 0);
    CHECK(same_handle(&hf, 0, 1, 1, 1, CINT_HANDLE_POOL));
    CHECK_EQ(cint_gen_pool_deref(ctx, &AT, POOL_P, &h[1], &p), 1);
    stale_want(&want, "pool.deref", &h[1], 1, 3);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx); /* a handle of the right generation on a vacant slot */
    cint_handle vac = {1, 1, 1, 1, CINT_HANDLE_POOL};
    CHECK_EQ(cint_gen_pool_remove(ctx, &AT, POOL_P, &vac), 1);
    stale_want(&want, "pool.deref", &vac, 1, 5);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    cint_handle beyond = {3, 1, 0, 1, CINT_HANDLE_POOL};
    CHECK_EQ(cint_gen_pool_deref(ctx, &AT, POOL_P, &beyond, &p), 1);
    stale_want(&want, "pool.deref", &beyond, 0, 4);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    cint_handle arena = {0, 1, 0, 1, CINT_HANDLE_ARENA};
    CHECK_EQ(cint_gen_pool_deref(ctx, &AT, POOL_P, &arena, &p), 1);
    stale_want(&want, "pool.deref", &arena, 0, 6);
    expect_fault(ctx, &want, __LINE__);

    begin(ctx);
    cint_handle null = {0, 0, 0, 0, CINT_HANDLE_NULL};
    CHECK_EQ(cint_gen_pool_deref(ctx, &AT, POOL_P, &null, &p), 1);
    stale_want(&want, "pool.deref", &null, 0, 1);
    expect_fault(ctx, &want, __LINE__);
    cint_ctx_destroy(ctx);
}

/* --- restore ----------------------------------------------------------------------------------- */

static FILE *out; /* the mutants accepted (A) or refused as malformed (M), for tests/run.sh to give cint_abi */

/* A context with a module arena, two child arenas (one retired), a pool with a free slot and a
   handle in its global. */
static cint_ctx *busy(void)
{
    cint_ctx *ctx = make();
    cint_handle h, g;
    uint32_t c = 0, d = 0;
    int64_t val = 5;
    begin(ctx);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_A, 2, &h), 0);
    CHECK_EQ(cint_gen_arena_child(ctx, &AT, ARENA_A, 3, &c), 0);
    CHECK_EQ(cint_gen_arena_child(ctx, &AT, c, 2, &d), 0);
    CHECK_EQ(cint_gen_arena_reset(ctx, &AT, c), 0);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, c, 1, &g), 0);
    CHECK_EQ(cint_gen_arena_alloc(ctx, &AT, ARENA_B, 3, &g), 0);
    cint_gen_array v;
    CHECK_EQ(cint_gen_arena_view(ctx, &AT, ARENA_A, &h, &v), 0);
    memcpy(v.data, &val, 8);
    CHECK_EQ(cint_gen_pool_insert(ctx, &AT, POOL_P, &val, &h), 0);
    CHECK_EQ(cint_gen_pool_insert(ctx, &AT, POOL_P, &val, &g), 0);
    CHECK_EQ(cint_gen_pool_remove(ctx, &AT, POOL_P, &h), 0);
    memcpy(cint_gen_globals(ctx), &g, sizeof g);
    CHECK_EQ(cint_gen_leave(ctx), CINT_OK);
    return ctx;
}

static void test_restore(void)
{
    cint_ctx *src = busy(), *dst = make();
    size_t n = 0, m = 0, fresh_n = 0;
    uint8_t *state = encode(src, &n), *fresh = encode(dst, &fresh_n);
    uint64_t detail[2];
    CHECK_EQ(cint_gen_state_restore(dst, state, n, detail), CINT_OK);
    uint8_t *back = encode(dst, &m);
    CHECK(m == n && memcmp(back, state, n) == 0);
    free(back);
    /* the restored context runs on: the next child takes the next identifier, after the restored ones */
    begin(dst);
    uint32_t c = 0;
    cint_handle h;
    CHECK_EQ(cint_gen_arena_child(dst, &AT, ARENA_A, 1, &c), 0);
    CHECK_EQ(c, 4u);
    CHECK_EQ(cint_gen_arena_alloc(dst, &AT, c, 1, &h), 0);
    CHECK(same_handle(&h, 0, 1, 0, 5, CINT_HANDLE_ARENA));
    CHECK_EQ(cint_gen_leave(dst), CINT_OK);
    /* M-11: an early state into a context whose counter is ahead keeps the context's counter */
    CHECK_EQ(cint_gen_state_restore(dst, fresh, fresh_n, detail), CINT_OK);
    begin(dst);
    CHECK_EQ(cint_gen_arena_child(dst, &AT, ARENA_A, 1, &c), 0);
    CHECK_EQ(c, 2u);
    CHECK_EQ(cint_gen_arena_alloc(dst, &AT, c, 1, &h), 0);
    CHECK_EQ(h.cont, 6u);
    CHECK_EQ(cint_gen_leave(dst), CINT_OK);

    /* the fuzz: every byte of the state flipped in turn, and some set to 0xFF and 0. A fresh context
       (counters at their least) takes a mutant only when it is a state the encoder writes back; a
       mutant it refuses, dst (which holds the state, its counters ahead) refuses too, unchanged. */
    CHECK_EQ(cint_gen_state_restore(dst, state, n, detail), CINT_OK);
    size_t base_n = 0;
    uint8_t *base = encode(dst, &base_n);
    size_t accepted = 0, refused = 0;
    uint8_t *mut = malloc(n);
    static const uint8_t masks[] = {0x01, 0x80, 0xFF, 0x02};
    for (size_t at = 0; at < n; at++) {
        for (size_t k = 0; k < sizeof masks; k++) {
            memcpy(mut, state, n);
            mut[at] ^= masks[k];
            cint_ctx *f = make();
            cint_status st = cint_gen_state_restore(f, mut, n, detail);
            size_t len = 0;
            uint8_t *now = encode(f, &len);
            if (out != NULL && (st == CINT_OK || detail[0] == CINT_STATE_MALFORMED)) {
                fprintf(out, "%c ", st == CINT_OK ? 'A' : 'M');
                for (size_t j = 0; j < n; j++) fprintf(out, "%02x", mut[j]);
                fprintf(out, "\n");
            }
            if (st == CINT_OK) {
                accepted++;
                CHECK(len == n && memcmp(now, mut, n) == 0); /* only canonical states */
            } else {
                refused++;
                CHECK_EQ(st, CINT_REFUSED);
                CHECK(detail[0] >= CINT_STATE_MALFORMED && detail[0] <= CINT_STATE_UNREPRESENTABLE);
                CHECK(detail[1] <= n);
                CHECK_EQ(cint_gen_state_restore(dst, mut, n, detail), CINT_REFUSED);
                free(now);
                now = encode(dst, &len);
                CHECK(len == base_n && memcmp(now, base, len) == 0); /* unchanged */
            }
            free(now);
            cint_ctx_destroy(f);
        }
    }
    /* truncations and a trailing byte */
    for (size_t len = 0; len < n; len += 7) {
        CHECK_EQ(cint_gen_state_restore(dst, state, len, detail), CINT_REFUSED);
    }
    uint8_t *longer = malloc(n + 1u);
    memcpy(longer, state, n);
    longer[n] = 0;
    CHECK_EQ(cint_gen_state_restore(dst, longer, n + 1u, detail), CINT_REFUSED);
    back = encode(dst, &m);
    CHECK(m == base_n && memcmp(back, base, m) == 0);
    free(base);
    printf("test_containers: fuzz: %zu mutants refused, %zu accepted as other valid states\n", refused, accepted);
    free(back);
    free(longer);
    free(mut);
    free(state);
    free(fresh);
    cint_ctx_destroy(src);
    cint_ctx_destroy(dst);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (out = fopen(argv[1], "w")) == NULL) return 2;
    test_arenas();
    test_pools();
    test_restore();
    if (out != NULL) fclose(out);
    printf("test_containers: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
