/* test_runtime.c: tests of the cint runtime through its host interface and through the API of
 * generated code, built with the runtime sources and both fixtures (tests/run.sh).
 *
 *   test_runtime RECORDS_FILE
 *
 * writes the canonical bytes of the fault records it provokes, one "name hex" line each, to
 * RECORDS_FILE; run.sh compares them with the bytes cint_abi.faultrecord encodes (golden.py).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cint_rt_gen.h"
#include "cint_rt_ops.h"

static int failures, checks;
#define CHECK(cond)                                                                   \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) {                                                                \
            failures++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)
#define CHECK_EQ(a, b) CHECK((int64_t)(a) == (int64_t)(b))

/* --- the fixtures' wrappers and descriptors ------------------------------------------------ */

typedef struct {
    uint16_t tag;
    int64_t value;
} parse_result;
extern const cint_module_info cm_7_advance, cm_4_tour;
cint_status cx_7_advance_7_advance(cint_ctx *, int64_t, cint_view, cint_view, int64_t, cint_view);
cint_status cx_7_advance_5_total(cint_ctx *, int64_t, cint_view, int64_t *);
cint_status cx_4_tour_10_parse_x5Fu(cint_ctx *, int64_t, cint_view, parse_result *);
cint_status cx_4_tour_5_scale(cint_ctx *, int64_t, cint_view, int64_t, cint_view);
cint_status cx_4_tour_5_greet(cint_ctx *, int64_t, int64_t, int64_t *);

/* --- a test program, t.ci, written against cint_rt_gen.h as the emitter would -------------- */

enum { T_REC, T_REC_CALL, T_OPS, T_DIV, T_SHL, T_AS, T_INDEX, T_SUM, T_SUB, T_NEG, T_MIXED, T_MIXED_IX, T_FLAGS,
       T_PRINT, T_SHL_OVF, T_COUNT };
static const cint_site_info t_sites[T_COUNT] = {{1, 12}, {1, 40}, {2, 12}, {3, 5},   {4, 5},  {5, 5},   {6, 5}, {7, 5},
                                                {8, 5},  {9, 5},  {10, 15}, {11, 5}, {12, 12}, {13, 5}, {14, 5}};
static const cint_module t_module = {"t.ci", 4, T_COUNT, t_sites, "t", 1, 0};
static const cint_module *const t_modules[] = {&t_module};
static const cint_program t_program = {
    sizeof(cint_program), CINT_ABI_VERSION, 1, CINT_PROGRAM_HAS_SOURCE_MAP, t_modules, {0},
    {100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115,
     116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131},
    8, 8, NULL, 0, 0, NULL, NULL, CINT_BACKEND_CPU_C17, 0};
static const cint_module_info t_info = {sizeof(cint_module_info), CINT_ABI_VERSION, &t_program, 0, 0, NULL};

#define TY(code) {code, 0, 0, 0, 0, 0, 0}
#define SYM(k) {CINT_SHAPE_EXTENT, k, 0, 0}
static const cint_gen_param t_scalar2[2] = {{CINT_GEN_SCALAR, CINT_MODE_IN, TY(CINT_TAG_I64), 0, 0, {{0}}},
                                            {CINT_GEN_SCALAR, CINT_MODE_IN, TY(CINT_TAG_I64), 0, 0, {{0}}}};
static const cint_gen_export t_x_rec = {&t_program, {0, T_REC}, CINT_EXPORT_FUNCTION, 1, t_scalar2, 0, 1, NULL};
static const cint_gen_export t_x_ops = {&t_program, {0, T_OPS}, CINT_EXPORT_FUNCTION, 2, t_scalar2, 0, 1, NULL};
static const cint_gen_param t_mixed_params[2] = {{CINT_GEN_ARRAY, CINT_MODE_IN, TY(CINT_TAG_I64), 1, 0, {SYM(0)}},
                                                 {CINT_GEN_ARRAY, CINT_MODE_OUT, TY(CINT_TAG_U8), 1, 0, {SYM(1)}}};
static const cint_gen_kernel t_k_mixed = {{"t.mixed", 7, 0}, 2, 2, t_mixed_params, 1, 0, {SYM(1)}};
static const cint_gen_export t_x_mixed = {&t_program, {0, T_MIXED}, CINT_EXPORT_KERNEL, 2, t_mixed_params, 2, 0,
                                          &t_k_mixed};
static const cint_gen_param t_fill2_params[1] = {
    {CINT_GEN_ARRAY, CINT_MODE_OUT, TY(CINT_TAG_U8), 2, 0, {SYM(0), SYM(1)}}};
static const cint_gen_kernel t_k_fill2 = {{"t.fill2", 7, 0}, 1, 2, t_fill2_params, 2, 0, {SYM(0), SYM(1)}};
static const cint_gen_export t_x_fill2 = {&t_program, {0, T_MIXED}, CINT_EXPORT_KERNEL, 1, t_fill2_params, 2, 0,
                                          &t_k_fill2};
static const cint_gen_param t_flags_params[2] = {{CINT_GEN_SCALAR, CINT_MODE_IN, TY(CINT_TAG_BOOL), 0, 0, {{0}}},
                                                 {CINT_GEN_ARRAY, CINT_MODE_INOUT, TY(CINT_TAG_BOOL), 1, 0, {SYM(0)}}};
static const cint_gen_export t_x_flags = {&t_program, {0, T_FLAGS}, CINT_EXPORT_FUNCTION, 2, t_flags_params, 1, 1,
                                          NULL};

/* I64 rec(I64 d) { return d == 0 ? 0 : rec(d - 1); }  (the call at 1:40) */
static int t_rec(cint_ctx *ctx, int64_t d, int64_t *ret)
{
    cint_gen_at at = {{0, T_REC_CALL}, 0, 0};
    if (d == 0) return *ret = 0, 0;
    if (cint_gen_call_enter(ctx, &at) || t_rec(ctx, d - 1, ret)) return 1;
    cint_gen_call_leave(ctx);
    *ret += 1;
    return 0;
}

static cint_status cx_t_rec(cint_ctx *ctx, int64_t fuel, int64_t d, int64_t *result)
{
    const cint_gen_arg args[1] = {{NULL, 0, 0}};
    cint_gen_array a[1];
    int64_t sizes[1], r = 0;
    cint_status s = cint_gen_enter(ctx, &t_x_rec, fuel, args, result, a, sizes);
    if (s != CINT_OK) return s;
    (void)t_rec(ctx, d, &r);
    s = cint_gen_leave(ctx);
    if (s == CINT_OK) *result = r;
    return s;
}

/* I64 ops(I64 which, I64 a): one faulting operation per case. */
static int t_ops(cint_ctx *ctx, int64_t which, int64_t v, int64_t *ret)
{
    cint_gen_at at = {{0, T_DIV}, 0, 0};
    switch (which) {
    case 0: return cint_div_checked_i64(ctx, &at, v, 0, ret);
    case 1: return cint_div_checked_i64(ctx, &at, INT64_MIN, -1, ret);
    case 2: {
        int32_t r = 0;
        at.pos.index = T_SHL;
        if (cint_shl_checked_i32(ctx, &at, 1, CINT_TAG_U8, 40u, &r)) return 1;
        return *ret = r, 0;
    }
    case 3: {
        uint64_t r = 0;
        at.pos.index = T_AS;
        if (cint_as_checked(ctx, &at, CINT_TAG_I64, CINT_TAG_I8, (uint64_t)v, &r)) return 1;
        return *ret = (int8_t)r, 0;
    }
    case 4: {
        int64_t shape[1] = {3};
        cint_gen_array a;
        at.pos.index = T_INDEX;
        if (cint_gen_local_array(ctx, &at, &a, (cint_type)TY(CINT_TAG_I64), 1, shape)) return 1;
        if (cint_index(ctx, &at, &a, 0, v)) return 1;
        return *ret = 0, 0;
    }
    case 5: {
        int64_t shape[1] = {2};
        cint_gen_array a;
        int8_t r = 0;
        at.pos.index = T_SUM;
        if (cint_gen_local_array(ctx, &at, &a, (cint_type)TY(CINT_TAG_I8), 1, shape)) return 1;
        a.data[0] = 100, a.data[1] = (uint8_t)v;
        if (cint_gen_sum(ctx, &at, &a, CINT_TAG_I8, &r)) return 1;
        return *ret = r, 0;
    }
    case 6: {
        uint8_t r = 0;
        at.pos.index = T_SUB;
        if (cint_sub_checked_u8(ctx, &at, 3, (uint8_t)v, &r)) return 1;
        return *ret = r, 0;
    }
    case 7:
        at.pos.index = T_NEG;
        return cint_neg_checked_i64(ctx, &at, v, ret);
    case 8: {
        int8_t r = 0;
        at.pos.index = T_SHL_OVF;
        if (cint_shl_checked_i8(ctx, &at, (int8_t)v, CINT_TAG_I64, 1u, &r)) return 1;
        return *ret = r, 0;
    }
    default: return *ret = v, 0;
    }
}

static cint_status cx_t_ops(cint_ctx *ctx, int64_t fuel, int64_t which, int64_t v, int64_t *result)
{
    const cint_gen_arg args[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    cint_gen_array a[2];
    int64_t sizes[1], r = 0;
    cint_status s = cint_gen_enter(ctx, &t_x_ops, fuel, args, result, a, sizes);
    if (s != CINT_OK) return s;
    (void)t_ops(ctx, which, v, &r);
    s = cint_gen_leave(ctx);
    if (s == CINT_OK) *result = r;
    return s;
}

/* kernel mixed[n, m](in I64[n] a, out U8[m] b) over [i: m] { b[i] = i < fail ? i : overflow } */
static cint_status cx_t_mixed(cint_ctx *ctx, int64_t fuel, cint_view a, cint_view b, int64_t fail_at)
{
    const cint_gen_arg args[2] = {{&a, 0, 0}, {&b, 0, 0}};
    cint_gen_array arr[2];
    int64_t sizes[2];
    cint_status s = cint_gen_enter(ctx, &t_x_mixed, fuel, args, NULL, arr, sizes);
    if (s != CINT_OK) return s;
    for (int64_t i = 0; i < sizes[1]; i++) {
        cint_gen_at at = {{0, T_MIXED_IX}, i, 0};
        uint8_t v;
        if (cint_index(ctx, &at, &arr[1], 0, i)) break;
        at.step = 1;
        if (cint_add_checked_u8(ctx, &at, (uint8_t)(i == fail_at ? 255 : 10), (uint8_t)(i + 1), &v)) break;
        *(uint8_t *)cint_elem1(&arr[1], i) = v;
    }
    cint_gen_dispatch_end(ctx);
    return cint_gen_leave(ctx);
}

/* kernel fill2[h, w](out U8[h, w] b) over [i: h, j: w] { b[i, j] = i * w + j + 1; } */
static cint_status cx_t_fill2(cint_ctx *ctx, int64_t fuel, cint_view b)
{
    const cint_gen_arg args[1] = {{&b, 0, 0}};
    cint_gen_array arr[1];
    int64_t sizes[2];
    cint_status s = cint_gen_enter(ctx, &t_x_fill2, fuel, args, NULL, arr, sizes);
    if (s != CINT_OK) return s;
    for (int64_t i = 0; i < sizes[0]; i++)
        for (int64_t j = 0; j < sizes[1]; j++)
            *(uint8_t *)cint_elem2(&arr[0], i, j) = (uint8_t)(i * sizes[1] + j + 1);
    cint_gen_dispatch_end(ctx);
    return cint_gen_leave(ctx);
}

/* I64 flags(Bool f, inout Bool[n] fs): prints "f\n" when f, counts the true elements and
   flips each element in place. */
static cint_status cx_t_flags(cint_ctx *ctx, int64_t fuel, uint8_t f, cint_view fs, int64_t *result)
{
    const cint_gen_arg args[2] = {{NULL, f, 0}, {&fs, 0, 0}};
    cint_gen_array a[2];
    int64_t sizes[1], count = 0;
    cint_status s = cint_gen_enter(ctx, &t_x_flags, fuel, args, result, a, sizes);
    if (s != CINT_OK) return s;
    cint_gen_at at = {{0, T_PRINT}, 0, 0};
    if (f && (cint_gen_print_begin(ctx) || cint_gen_print_bytes(ctx, "f\n", 2) || cint_gen_print_end(ctx, &at)))
        return cint_gen_leave(ctx);
    for (int64_t i = 0; i < sizes[0]; i++) {
        uint8_t *p = cint_elem1(&a[1], i);
        count += *p;
        *p = (uint8_t)!*p;
    }
    s = cint_gen_leave(ctx);
    if (s == CINT_OK) *result = count;
    return s;
}

/* --- helpers ---------------------------------------------------------------------------------- */

static FILE *records;

/* Writes the held record's canonical bytes as "name hex" and checks cint_fault_get's cap rule. */
static void dump_record(cint_ctx *ctx, const char *name)
{
    uint8_t buf[4096], small[10];
    size_t len = 0, len2 = 0;
    CHECK(cint_fault_get(ctx, NULL, 0, &len) == CINT_OK && len > 0 && len <= sizeof buf);
    CHECK(cint_fault_get(ctx, buf, sizeof buf, &len2) == CINT_OK && len2 == len);
    memset(small, 0xEE, sizeof small);
    CHECK(cint_fault_get(ctx, small, 4, &len2) == CINT_OK && len2 == len && memcmp(small, buf, 4) == 0 &&
          small[4] == 0xEE);
    /* the structure form encodes to the same bytes */
    static cint_fault_record r;
    uint8_t again[4096];
    CHECK(cint_ctx_fault(ctx, &r) == CINT_OK);
    CHECK(cint_fault_encode(&r, again, sizeof again, &len2) == CINT_OK && len2 == len && memcmp(again, buf, len) == 0);
    fprintf(records, "%s ", name);
    for (size_t k = 0; k < len; k++) fprintf(records, "%02x", buf[k]);
    fprintf(records, "\n");
}

static cint_view view1(cint_buffer_id id, uint64_t gen, uint16_t code, int64_t n, uint8_t perm)
{
    cint_view v;
    memset(&v, 0, sizeof v);
    v.buffer = id;
    v.generation = gen;
    v.type.code = code;
    v.rank = 1;
    v.perm = perm;
    v.shape[0] = n;
    v.stride[0] = 1;
    return v;
}

static cint_type type_of(uint16_t code)
{
    cint_type t;
    memset(&t, 0, sizeof t);
    t.code = code;
    return t;
}

static cint_status reg(cint_ctx *ctx, void *p, uint16_t code, int64_t n, uint32_t writable, uint32_t publish,
                       cint_view *v)
{
    cint_buffer_id id = 0;
    uint64_t gen = 0;
    cint_status s = cint_buffer_register_elements(ctx, type_of(code), p, n, writable, publish, &id, &gen);
    *v = view1(id, gen, code, n, writable ? CINT_VIEW_WRITE : CINT_VIEW_READ);
    return s;
}

static uint32_t refusal(cint_ctx *ctx)
{
    uint32_t why = 99;
    CHECK(cint_ctx_refusal(ctx, &why) == CINT_OK);
    return why;
}

static cint_ctx *make(const cint_module_info *m, uint32_t max_buffers, int64_t depth, cint_output_fn out, void *user)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.max_buffers = max_buffers;
    c.program = m->program;
    c.module = m;
    c.depth_limit = depth;
    c.output = out;
    c.output_user = user;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    return ctx;
}

static int64_t fuel_of(cint_ctx *ctx)
{
    int64_t f = -99;
    CHECK(cint_fuel_consumed(ctx, &f) == CINT_OK);
    return f;
}

static uint16_t code_of(cint_ctx *ctx)
{
    static cint_fault_record r;
    CHECK(cint_ctx_fault(ctx, &r) == CINT_OK);
    return r.code;
}

/* --- allocator that counts ----------------------------------------------------------------- */

typedef struct counting {
    long live;
    long fail_after; /* allocations allowed before failing; -1 never fails */
} counting;

static void *count_alloc(void *user, size_t size, size_t align)
{
    counting *c = user;
    (void)align;
    if (c->fail_after == 0) return NULL;
    if (c->fail_after > 0) c->fail_after--;
    c->live++;
    return malloc(size);
}

static void count_release(void *user, void *p, size_t size, size_t align)
{
    counting *c = user;
    (void)size;
    (void)align;
    c->live--;
    free(p);
}

/* --- tests ------------------------------------------------------------------------------------ */

static void test_create(void)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = &t_program;
    CHECK(cint_abi_version() == ((3u << 16) | 2u));
    CHECK(cint_ctx_create(NULL, &ctx) == CINT_REFUSED);
    CHECK(cint_ctx_create(&c, NULL) == CINT_REFUSED);
    c.size = 95;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    c.size = sizeof c;
    c.program = NULL;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    c.program = &t_program;
    c.allocator.alloc = count_alloc;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED); /* alloc with no release */
    c.allocator.alloc = NULL;
    c.depth_limit = -1;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    c.depth_limit = 0;
    c.frame_arena_bytes = -1;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    c.frame_arena_bytes = 0;
    c.module = &cm_4_tour; /* a module of another program */
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    cint_module_info other = t_info;
    other.abi = (2u << 16) | 9u; /* another major version */
    c.module = &other;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    cint_program bad = t_program;
    bad.abi = 4u << 16;
    c.module = NULL;
    c.program = &bad;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    c.program = &t_program;
    c.device_count = 1;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_REFUSED);
    c.device_count = 0;
    CHECK(ctx == NULL);

    /* the allocator: every allocation is released, and no room is CINT_RESOURCE */
    for (long fail = 0; fail < 4; fail++) {
        counting cnt = {0, fail};
        c.allocator.alloc = count_alloc;
        c.allocator.release = count_release;
        c.allocator.user = &cnt;
        c.module = &t_info;
        CHECK(cint_ctx_create(&c, &ctx) == CINT_RESOURCE);
        CHECK(cnt.live == 0);
    }
    counting cnt = {0, -1};
    c.allocator.user = &cnt;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    int64_t xs[4] = {1, 2, 3, 4};
    cint_view v;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &v) == CINT_OK);
    cint_buffer_id id;
    uint64_t gen;
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I32), 100, 0, &id, &gen) == CINT_OK);
    int64_t r;
    CHECK(cx_t_ops(ctx, CINT_FUEL_UNBOUNDED, 4, 1, &r) == CINT_OK); /* uses the frame arena */
    CHECK(cnt.live > 0);
    cint_ctx_destroy(ctx);
    CHECK(cnt.live == 0);
    cint_ctx_destroy(NULL);
}

/* the order of the registration checks, each refused with its reason, nothing issued. */
static void test_register_order(void)
{
    cint_ctx *ctx = make(&cm_4_tour, 0, 0, NULL, NULL);
    int64_t xs[4] = {0};
    cint_buffer_desc d;
    cint_buffer_id id = 0;
    uint64_t gen = 0;
    memset(&d, 0, sizeof d);
    d.size = sizeof d - 1;                    /* CALL */
    d.writable = 0;
    d.sync.kind = 7;                          /* UNSUPPORTED */
    d.type.code = 0x15;                       /* TYPE: I128 is not an element type of a registration */
    d.mem.kind = CINT_MEM_HOST;
    d.mem.u.host.ptr = (uint8_t *)xs + 1;     /* ALIGN */
    d.extent = -1;                            /* EXTENT */
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    d.size = sizeof d;
    d.publish = CINT_PUBLISH_COPY;            /* CALL: copy needs a writable registration */
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    d.publish = CINT_PUBLISH_NONE;
    d.mem.reserved = 1;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    d.mem.reserved = 0;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_UNSUPPORTED);
    d.sync.kind = 0;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_TYPE);
    d.type.code = CINT_TAG_I64;
    d.type.reserved2 = 1;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_TYPE);
    d.type.reserved2 = 0;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_EXTENT);
    d.extent = INT64_MAX / 4;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_SIZE);
    d.extent = 4;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_ALIGN);
    d.mem.u.host.ptr = NULL;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_ALIGN);
    d.extent = 0; /* NULL is fine for no bytes */
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_OK && id == 1 && gen == 1 && refusal(ctx) == 0);
    CHECK(id == 1); /* the refusals issued nothing */
    d.mem.u.host.ptr = xs;
    d.extent = 4;
    d.mem.kind = CINT_MEM_DEVICE;
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_UNSUPPORTED);
    d.mem.kind = CINT_MEM_HOST;
    CHECK(cint_buffer_register(ctx, &d, NULL, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    CHECK(cint_buffer_register_bytes(ctx, type_of(CINT_TAG_I64), xs, 31, 0, 0, &id, &gen) == CINT_REFUSED &&
          refusal(ctx) == CINT_REFUSAL_EXTENT);
    CHECK(cint_buffer_register_bytes(ctx, type_of(CINT_TAG_I64), xs, 32, 0, 0, &id, &gen) == CINT_OK && id == 2);
    cint_type q = type_of(CINT_TAG_Q);
    q.storage = CINT_TAG_I32;
    q.frac = 16;
    CHECK(cint_buffer_register_elements(ctx, q, xs, 8, 1, CINT_PUBLISH_COPY, &id, &gen) == CINT_OK && id == 3);
    q.frac = 32; /* f above w - 1 */
    CHECK(cint_buffer_register_elements(ctx, q, xs, 8, 1, 0, &id, &gen) == CINT_REFUSED &&
          refusal(ctx) == CINT_REFUSAL_TYPE);
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), -1, 0, &id, &gen) == CINT_REFUSED &&
          refusal(ctx) == CINT_REFUSAL_EXTENT);
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 2, 1, &id, &gen) == CINT_REFUSED &&
          refusal(ctx) == CINT_REFUSAL_UNSUPPORTED);
    cint_ctx_destroy(ctx);
}

/* 6.1: identifiers from 1, never reused; release; generations; max_buffers. */
static void test_registry(void)
{
    cint_ctx *ctx = make(&cm_4_tour, 3, 0, NULL, NULL);
    int64_t xs[4] = {1, 2, 3, 4}, ys[4] = {0};
    cint_view a, b, c, d;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &a) == CINT_OK && a.buffer == 1);
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &b) == CINT_OK && b.buffer == 2);
    CHECK(reg(ctx, ys, CINT_TAG_I64, 4, 1, CINT_PUBLISH_COPY, &c) == CINT_OK && c.buffer == 3);
    CHECK(reg(ctx, ys, CINT_TAG_I64, 4, 0, 0, &d) == CINT_RESOURCE); /* max_buffers 3 */
    cint_buffer_id id = 0;
    uint64_t gen = 0;
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 4, 0, &id, &gen) == CINT_RESOURCE);
    CHECK(cint_buffer_release(ctx, 2) == CINT_OK);
    CHECK(cint_buffer_release(ctx, 2) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_GENERATION);
    CHECK(cint_buffer_release(ctx, 9) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_BUFFER);
    CHECK(cint_buffer_release(ctx, 0) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_BUFFER);
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 4, 0, &id, &gen) == CINT_OK && id == 4 && gen == 1);
    /* a released identifier is refused with GENERATION, a live one with a wrong generation
       is an entry fault (bind.stale) */
    CHECK(cx_4_tour_5_scale(ctx, -1, b, 1, c) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_GENERATION);
    cint_view stale = a;
    stale.generation = 2;
    CHECK(cx_4_tour_5_scale(ctx, -1, stale, 1, c) == CINT_FAULT && code_of(ctx) == CINT_E_STALE_HANDLE);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    CHECK(cx_4_tour_5_scale(ctx, -1, a, 3, c) == CINT_OK && ys[3] == 12);
    /* created storage is zero-filled (6.2) */
    int64_t got[4] = {9, 9, 9, 9};
    CHECK(cint_buffer_read(ctx, view1(id, 1, CINT_TAG_I64, 4, 0), got, sizeof got) == CINT_OK && got[0] == 0 &&
          got[3] == 0);
    cint_ctx_destroy(ctx);
}

/* 6.3: leases. */
static void test_leases(void)
{
    cint_ctx *ctx = make(&cm_4_tour, 0, 0, NULL, NULL);
    int64_t xs[4] = {1, 2, 3, 4};
    cint_view x, y;
    cint_buffer_id id = 0;
    uint64_t gen = 0, l1 = 0, l2 = 0, l3 = 0;
    const void *p = NULL;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &x) == CINT_OK);
    CHECK(cint_buffer_lease(ctx, x.buffer, &p, &l1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_LEASE);
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 4, 0, &id, &gen) == CINT_OK);
    y = view1(id, gen, CINT_TAG_I64, 4, CINT_VIEW_WRITE);
    CHECK(cint_buffer_lease(ctx, id, &p, &l1) == CINT_OK && l1 == 1 && p != NULL);
    CHECK(cint_buffer_lease(ctx, id, &p, &l2) == CINT_OK && l2 == 2);
    CHECK(cx_4_tour_5_scale(ctx, -1, x, 2, y) == CINT_BUSY && refusal(ctx) == CINT_REFUSAL_LEASED);
    CHECK(cint_buffer_release(ctx, id) == CINT_BUSY && refusal(ctx) == CINT_REFUSAL_LEASED);
    CHECK(cint_lease_end(ctx, l1) == CINT_OK);
    CHECK(cint_lease_end(ctx, l1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_LEASE);
    CHECK(cint_lease_end(ctx, 77) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_LEASE);
    CHECK(cx_4_tour_5_scale(ctx, -1, x, 2, y) == CINT_BUSY); /* lease 2 is still live */
    CHECK(cint_lease_end(ctx, l2) == CINT_OK);
    /* the leased buffer as an input is fine */
    CHECK(cx_4_tour_5_scale(ctx, -1, x, 2, y) == CINT_OK);
    CHECK(cint_buffer_lease(ctx, id, &p, &l3) == CINT_OK && l3 == 3); /* never reused */
    const int64_t *ys = p;
    CHECK(ys[0] == 2 && ys[3] == 8);
    int64_t out[4];
    CHECK(cint_buffer_read(ctx, y, out, sizeof out) == CINT_OK && out[2] == 6);
    CHECK(cint_buffer_read(ctx, y, out, sizeof out - 1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    /* strided and reversed views read in row-major order of their indices */
    cint_view rev = x;
    rev.origin = 3;
    rev.stride[0] = -1;
    CHECK(cint_buffer_read(ctx, rev, out, sizeof out) == CINT_OK && out[0] == 4 && out[3] == 1);
    cint_view grid = x;
    grid.rank = 2, grid.shape[0] = 2, grid.shape[1] = 2, grid.stride[0] = 1, grid.stride[1] = 2;
    CHECK(cint_buffer_read(ctx, grid, out, sizeof out) == CINT_OK && out[0] == 1 && out[1] == 3 && out[2] == 2);
    CHECK(cint_lease_end(ctx, l3) == CINT_OK);
    CHECK(cint_buffer_release(ctx, id) == CINT_OK);
    cint_ctx_destroy(ctx);
}

/* 7.1 paragraph 3 and 10: refused views and scalars, in order, with their reasons. */
static void test_refusals(void)
{
    cint_ctx *ctx = make(&t_info, 0, 0, NULL, NULL);
    int64_t xs[4] = {1, 2, 3, 4};
    uint8_t bs[4] = {0, 1, 1, 0}, out[4] = {0};
    cint_view x, o, f;
    int64_t r = 0;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &x) == CINT_OK);
    CHECK(reg(ctx, out, CINT_TAG_U8, 4, 1, CINT_PUBLISH_COPY, &o) == CINT_OK);
    CHECK(reg(ctx, bs, CINT_TAG_BOOL, 4, 1, 0, &f) == CINT_OK);
    cint_view v = x;
    v.type.code = CINT_TAG_U64;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_TYPE);
    v = x, v.rank = 5;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_RANK);
    v = x, v.reserved[2] = 1;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    v = x, v.stride[1] = 1;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_CALL);
    v = x, v.origin = -1;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_EXTENT);
    v = x, v.stride[0] = INT64_MAX;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_SIZE);
    v = x, v.origin = 1;
    CHECK(cx_t_mixed(ctx, -1, v, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_EXTENT);
    v = x, v.perm = CINT_VIEW_WRITE; /* read-only memory bound to an output (A-8, 6.5) */
    CHECK(cx_t_mixed(ctx, -1, x, v, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_PERMISSION);
    CHECK(cx_t_mixed(ctx, -2, x, o, -1) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_NONE);
    CHECK(cx_t_flags(ctx, -1, 2, f, &r) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_BOOL);
    bs[2] = 7;
    CHECK(cx_t_flags(ctx, -1, 0, f, &r) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_BOOL);
    bs[2] = 1;
    CHECK(cx_t_flags(ctx, -1, 0, f, NULL) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_RESULT);
    /* a refused call is not an entry: the fuel of the last entry stays */
    CHECK(cx_t_flags(ctx, 10, 0, f, &r) == CINT_OK && r == 2 && bs[0] == 1 && bs[1] == 0);
    CHECK(fuel_of(ctx) == 1 && refusal(ctx) == CINT_REFUSAL_NONE);
    CHECK(cx_t_mixed(ctx, -2, x, o, -1) == CINT_REFUSED && fuel_of(ctx) == 1);
    cint_ctx_destroy(ctx);
}

/* 7.1 paragraph 11 and 6.5: entry checks, aliasing across registrations, injectivity, and
   staging and publication (6.4) with the copy report. */
static void test_entry_checks(void)
{
    cint_ctx *ctx = make(&t_info, 0, 0, NULL, NULL);
    int64_t xs[4] = {1, 2, 3, 4};
    uint8_t out[4] = {7, 7, 7, 7};
    cint_view x, o, same, ro, odd;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &x) == CINT_OK);
    CHECK(reg(ctx, out, CINT_TAG_U8, 4, 1, CINT_PUBLISH_COPY, &o) == CINT_OK);
    /* the same memory registered again with another element type overlaps (H-13) */
    CHECK(reg(ctx, xs, CINT_TAG_U8, 32, 1, CINT_PUBLISH_COPY, &same) == CINT_OK);
    CHECK(cx_t_mixed(ctx, -1, x, same, -1) == CINT_FAULT && code_of(ctx) == CINT_E_ALIAS);
    dump_record(ctx, "t_alias");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* a read view bound to an output */
    ro = o, ro.perm = CINT_VIEW_READ;
    CHECK(cx_t_mixed(ctx, -1, x, ro, -1) == CINT_FAULT && code_of(ctx) == CINT_E_ALIAS);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* a written view whose elements are not distinct */
    cint_view bcast = o;
    bcast.stride[0] = 0;
    CHECK(cx_t_mixed(ctx, -1, x, bcast, -1) == CINT_FAULT && code_of(ctx) == CINT_E_ALIAS);
    dump_record(ctx, "t_injective");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* strides 2 and 3 over extents 3 and 2 reach 0 2 4 3 5 7: distinct, though not nested */
    uint8_t wide[8] = {0};
    cint_view w8;
    CHECK(reg(ctx, wide, CINT_TAG_U8, 8, 1, CINT_PUBLISH_COPY, &w8) == CINT_OK);
    odd = w8;
    odd.rank = 2, odd.shape[0] = 3, odd.shape[1] = 2, odd.stride[0] = 2, odd.stride[1] = 3;
    CHECK(cx_t_fill2(ctx, -1, odd) == CINT_OK);
    CHECK(wide[0] == 1 && wide[3] == 2 && wide[2] == 3 && wide[5] == 4 && wide[4] == 5 && wide[7] == 6 && wide[1] == 0);
    odd.stride[1] = 2; /* 0 2 2 4 4 6: not distinct */
    CHECK(cx_t_fill2(ctx, -1, odd) == CINT_FAULT && code_of(ctx) == CINT_E_ALIAS);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* a type other than the parameter's, and a wrong rank */
    cint_view wrong = same;
    wrong.shape[0] = 4;
    CHECK(cx_t_mixed(ctx, -1, wrong, o, -1) == CINT_FAULT && code_of(ctx) == CINT_E_UNSUPPORTED);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    cint_view r2 = x;
    r2.rank = 2, r2.shape[0] = 2, r2.shape[1] = 2, r2.stride[0] = 2, r2.stride[1] = 1;
    CHECK(cx_t_mixed(ctx, -1, r2, o, -1) == CINT_FAULT && code_of(ctx) == CINT_E_SHAPE);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);

    /* staging: a fault publishes nothing; completion publishes every element */
    CHECK(cx_t_mixed(ctx, -1, x, o, 2) == CINT_FAULT && code_of(ctx) == CINT_E_OVERFLOW);
    CHECK(out[0] == 7 && out[1] == 7 && out[2] == 7 && out[3] == 7);
    dump_record(ctx, "t_kernel_overflow");
    CHECK(fuel_of(ctx) == 4); /* N = 4 charged at dispatch */
    CHECK(cx_t_mixed(ctx, -1, x, o, -1) == CINT_FAULTED);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    CHECK(cx_t_mixed(ctx, -1, x, o, -1) == CINT_OK && out[0] == 11 && out[3] == 14);
    size_t n = 0;
    const cint_copy *cp = cint_gen_copies(ctx, &n);
    CHECK(n == 1 && cp[0].param == 1 && cp[0].reason == CINT_COPY_PUBLISH && cp[0].count == 4 &&
          cp[0].type.code == CINT_TAG_U8);
    cint_buffer_id id;
    uint64_t gen;
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_U8), 3, 0, &id, &gen) == CINT_OK);
    CHECK(cx_t_mixed(ctx, 2, x, view1(id, gen, CINT_TAG_U8, 3, CINT_VIEW_WRITE), -1) == CINT_FAULT &&
          code_of(ctx) == CINT_E_FUEL); /* a dispatch of 3 work items with 2 fuel */
    dump_record(ctx, "t_dispatch_fuel");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    CHECK(cx_t_mixed(ctx, 3, x, view1(id, gen, CINT_TAG_U8, 3, CINT_VIEW_WRITE), -1) == CINT_OK);
    cp = cint_gen_copies(ctx, &n);
    CHECK(n == 1 && cp[0].reason == CINT_COPY_STAGING && cp[0].count == 3);
    /* a borrowed output with publish mode none is bind.limit */
    uint8_t none_mem[4];
    cint_view none;
    CHECK(reg(ctx, none_mem, CINT_TAG_U8, 4, 1, CINT_PUBLISH_NONE, &none) == CINT_OK);
    CHECK(cx_t_mixed(ctx, -1, x, none, -1) == CINT_FAULT && code_of(ctx) == CINT_E_UNSUPPORTED);
    CHECK(fuel_of(ctx) == 0); /* entry faults charge nothing */
    cint_ctx_destroy(ctx);
}

/* H-11: fuel budgets; A-7: CINT_FAULTED until cleared; A-18: error results. */
static void test_fuel_and_faulted(void)
{
    cint_ctx *ctx = make(&cm_4_tour, 0, 0, NULL, NULL);
    int64_t r = 0;
    parse_result pr;
    CHECK(cx_4_tour_5_greet(ctx, CINT_FUEL_UNBOUNDED, 3, &r) == CINT_OK && r == 3 && fuel_of(ctx) == 4);
    CHECK(cx_4_tour_5_greet(ctx, -2, 3, &r) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_NONE);
    CHECK(fuel_of(ctx) == 4);
    CHECK(cx_4_tour_5_greet(ctx, 4, 3, &r) == CINT_OK && fuel_of(ctx) == 4);
    r = -5;
    CHECK(cx_4_tour_5_greet(ctx, 3, 5, &r) == CINT_FAULT && code_of(ctx) == CINT_E_FUEL && r == -5);
    CHECK(fuel_of(ctx) == 3);
    dump_record(ctx, "greet_fuel");
    CHECK(cx_4_tour_5_greet(ctx, -1, 1, &r) == CINT_FAULTED);
    CHECK(cx_4_tour_10_parse_x5Fu(ctx, -1, view1(1, 1, CINT_TAG_U8, 1, 0), &pr) == CINT_FAULTED);
    CHECK(code_of(ctx) == CINT_E_FUEL);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK && code_of(ctx) == 0);
    size_t len = 99;
    CHECK(cint_fault_get(ctx, NULL, 0, &len) == CINT_OK && len == 0);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* fuel 0 faults at the entry's own charge */
    uint8_t text[3] = {'4', '2', 'x'};
    cint_view s;
    CHECK(reg(ctx, text, CINT_TAG_U8, 2, 0, 0, &s) == CINT_OK);
    CHECK(cx_4_tour_10_parse_x5Fu(ctx, 0, s, &pr) == CINT_FAULT && code_of(ctx) == CINT_E_FUEL);
    dump_record(ctx, "parse_fuel_zero");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    CHECK(cx_4_tour_10_parse_x5Fu(ctx, -1, s, &pr) == CINT_OK && pr.tag == 0 && pr.value == 42);
    const cint_error_set *set = (const cint_error_set *)1;
    uint64_t tag = 9;
    CHECK(cint_ctx_error(ctx, &set, &tag) == CINT_OK && set == NULL && tag == 0);
    cint_view empty = s;
    empty.shape[0] = 0;
    CHECK(cx_4_tour_10_parse_x5Fu(ctx, -1, empty, &pr) == CINT_OK && pr.tag == 1);
    CHECK(cint_ctx_error(ctx, &set, &tag) == CINT_OK && set != NULL && tag == 1 &&
          strcmp(set->values[tag - 1], "empty") == 0 && set->underlying == CINT_TAG_U16);
    CHECK(code_of(ctx) == 0); /* an error result is not a fault */
    CHECK(cx_4_tour_5_greet(ctx, -1, 0, &r) == CINT_OK);
    CHECK(cint_ctx_error(ctx, &set, &tag) == CINT_OK && set == NULL && tag == 0);
    cint_ctx_destroy(ctx);
}

/* The output callback and the busy flag (A-11, 7.3 paragraph 4). */
typedef struct probe {
    cint_ctx *ctx;
    int calls;
    cint_status answer;
    cint_status seen[12];
    char text[64];
    size_t len;
} probe;

static cint_status probe_out(void *user, const uint8_t *bytes, size_t len)
{
    probe *p = user;
    cint_ctx *ctx = p->ctx;
    static cint_fault_record r;
    uint32_t why;
    int64_t f;
    size_t n;
    const cint_error_set *set;
    uint64_t tag, lease;
    cint_buffer_id id;
    const void *addr;
    int64_t res;
    if (p->len + len < sizeof p->text) {
        memcpy(p->text + p->len, bytes, len);
        p->len += len;
    }
    if (p->calls++ == 0) {
        int k = 0;
        p->seen[k++] = cint_ctx_clear_fault(ctx);
        p->seen[k++] = cint_ctx_fault(ctx, &r);
        p->seen[k++] = cint_fault_get(ctx, NULL, 0, &n);
        p->seen[k++] = cint_ctx_refusal(ctx, &why);
        p->seen[k++] = cint_ctx_error(ctx, &set, &tag);
        p->seen[k++] = cint_fuel_consumed(ctx, &f);
        p->seen[k++] = cint_buffer_create(ctx, type_of(CINT_TAG_I64), 1, 0, &id, &tag);
        p->seen[k++] = cint_buffer_release(ctx, 1);
        p->seen[k++] = cint_buffer_lease(ctx, 1, &addr, &lease);
        p->seen[k++] = cint_lease_end(ctx, 1);
        p->seen[k++] = cx_4_tour_5_greet(ctx, -1, 1, &res);
        p->seen[k++] = cint_buffer_read(ctx, view1(1, 1, CINT_TAG_I64, 1, 0), &res, sizeof res);
    }
    return p->answer;
}

static void test_output_and_busy(void)
{
    probe p;
    memset(&p, 0, sizeof p);
    cint_ctx *ctx = make(&cm_4_tour, 0, 0, probe_out, &p);
    p.ctx = ctx;
    int64_t r = 0;
    CHECK(cx_4_tour_5_greet(ctx, -1, 2, &r) == CINT_OK && r == 2);
    for (int k = 0; k < 12; k++) CHECK(p.seen[k] == CINT_BUSY);
    CHECK(p.len == 16 && memcmp(p.text, "hello 0\nhello 1\n", 16) == 0);
    /* nothing was disturbed: no buffer was created */
    cint_buffer_id id;
    uint64_t gen;
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 1, 0, &id, &gen) == CINT_OK && id == 1);
    cint_ctx_destroy(ctx);

    /* a callback status other than CINT_OK faults the entry */
    memset(&p, 0, sizeof p);
    p.answer = CINT_RESOURCE;
    p.calls = 1;
    ctx = make(&t_info, 0, 0, probe_out, &p);
    uint8_t bs[2] = {1, 0};
    cint_view f;
    CHECK(reg(ctx, bs, CINT_TAG_BOOL, 2, 1, 0, &f) == CINT_OK);
    CHECK(cx_t_flags(ctx, -1, 1, f, &r) == CINT_FAULT && code_of(ctx) == CINT_E_UNSUPPORTED && bs[0] == 1);
    dump_record(ctx, "t_output");
    cint_ctx_destroy(ctx);

    /* with no callback, print statements are discarded */
    ctx = make(&t_info, 0, 0, NULL, NULL);
    CHECK(reg(ctx, bs, CINT_TAG_BOOL, 2, 1, 0, &f) == CINT_OK);
    CHECK(cx_t_flags(ctx, -1, 1, f, &r) == CINT_OK && r == 1 && bs[0] == 0 && bs[1] == 1);
    cint_ctx_destroy(ctx);
}

/* Call depth (IM-119), and the checked operations with their records. */
static void test_depth_and_ops(void)
{
    cint_ctx *ctx = make(&t_info, 0, 3, NULL, NULL);
    int64_t r = 0;
    CHECK(cx_t_rec(ctx, -1, 2, &r) == CINT_OK && r == 2 && fuel_of(ctx) == 3);
    CHECK(cx_t_rec(ctx, -1, 3, &r) == CINT_FAULT && code_of(ctx) == CINT_E_DEPTH);
    static cint_fault_record rec;
    CHECK(cint_ctx_fault(ctx, &rec) == CINT_OK && rec.stack_count == 2 && rec.stack[1].index == T_REC_CALL);
    dump_record(ctx, "t_depth");
    cint_ctx_destroy(ctx);

    ctx = make(&t_info, 0, 5000, NULL, NULL); /* more frames than the runtime provides (4096) */
    CHECK(cx_t_rec(ctx, -1, 1, &r) == CINT_FAULT && code_of(ctx) == CINT_E_UNSUPPORTED);
    dump_record(ctx, "t_frames");
    cint_ctx_destroy(ctx);

    ctx = make(&t_info, 0, 0, NULL, NULL);
    static const struct {
        int64_t which, v;
        const char *name;
        uint16_t code;
    } cases[] = {{0, 5, "t_div_zero", CINT_E_DIV_ZERO}, {1, 0, "t_min_div", CINT_E_OVERFLOW},
                 {2, 0, "t_shift", CINT_E_SHIFT},       {3, 300, "t_narrow", CINT_E_NARROW},
                 {3, -129, "t_narrow_low", CINT_E_NARROW}, {4, 3, "t_index", CINT_E_BOUNDS},
                 {5, 100, "t_sum", CINT_E_OVERFLOW},    {6, 5, "t_sub_u8", CINT_E_OVERFLOW},
                 {7, INT64_MIN, "t_neg", CINT_E_OVERFLOW}, {8, 64, "t_shl_overflow", CINT_E_OVERFLOW},
                 {8, -65, "t_shl_overflow_low", CINT_E_OVERFLOW}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK(cx_t_ops(ctx, -1, cases[k].which, cases[k].v, &r) == CINT_FAULT);
        CHECK(code_of(ctx) == cases[k].code);
        dump_record(ctx, cases[k].name);
        CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    }
    CHECK(cx_t_ops(ctx, -1, 3, -128, &r) == CINT_OK && r == -128);
    CHECK(cx_t_ops(ctx, -1, 5, 27, &r) == CINT_OK && r == 127);
    CHECK(cx_t_ops(ctx, -1, 4, 2, &r) == CINT_OK);
    CHECK(cx_t_ops(ctx, -1, 8, -64, &r) == CINT_OK && r == -128);
    cint_ctx_destroy(ctx);

    /* values of the operations that do not fault */
    int64_t q;
    int32_t q32;
    int8_t q8;
    uint8_t u8;
    cint_gen_at at;
    memset(&at, 0, sizeof at);
    CHECK(cint_div_checked_i64(NULL, &at, -7, 2, &q) == 0 && q == -4);
    CHECK(cint_rem_checked_i64(NULL, &at, -7, 2, &q) == 0 && q == 1);
    CHECK(cint_div_checked_i64(NULL, &at, 7, -2, &q) == 0 && q == -4);
    CHECK(cint_rem_checked_i64(NULL, &at, 7, -2, &q) == 0 && q == -1);
    CHECK(cint_rem_checked_i64(NULL, &at, INT64_MIN, -1, &q) == 0 && q == 0);
    CHECK(cint_div_checked_i8(NULL, &at, -128, 3, &q8) == 0 && q8 == -43);
    CHECK(cint_add_wrap_i8(127, 1) == -128 && cint_add_sat_i8(127, 1) == 127 && cint_add_sat_i8(-128, -1) == -128);
    CHECK(cint_sub_sat_u8(3, 5) == 0 && cint_sub_wrap_u8(3, 5) == 254 && cint_mul_sat_i32(-65536, 65536) == INT32_MIN);
    CHECK(cint_mul_sat_u64(UINT64_MAX, 2) == UINT64_MAX && cint_mul_wrap_i64(INT64_MIN, -1) == INT64_MIN);
    CHECK(cint_shl_checked_i64(NULL, &at, -1, CINT_TAG_I64, 63, &q) == 0 && q == INT64_MIN);
    CHECK(cint_shl_checked_i64(NULL, &at, 1, CINT_TAG_I64, 62, &q) == 0 && q == INT64_C(4611686018427387904));
    CHECK(cint_shl_wrap_i32(NULL, &at, 1, CINT_TAG_U64, 31, &q32) == 0 && q32 == INT32_MIN);
    CHECK(cint_shr_checked_i64(NULL, &at, -7, CINT_TAG_I8, 1, &q) == 0 && q == -4);
    CHECK(cint_shr_checked_i64(NULL, &at, -1, CINT_TAG_I8, 63, &q) == 0 && q == -1);
    CHECK(cint_shl_wrap_u8(NULL, &at, 255, CINT_TAG_I32, 4, &u8) == 0 && u8 == 240);
}

/* 10.1 and 7.3: the four entry faults of tour.c, and the overflow of host.c, as records. */
static void test_spec_records(void)
{
    cint_ctx *ctx = make(&cm_4_tour, 0, 0, NULL, NULL);
    int64_t xs[4] = {1, 2, 3, 4}, zs[4] = {0};
    cint_view x, y, z;
    cint_buffer_id id;
    uint64_t gen;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 4, 0, 0, &x) == CINT_OK);
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 4, 0, &id, &gen) == CINT_OK);
    y = view1(id, gen, CINT_TAG_I64, 4, CINT_VIEW_WRITE);
    cint_view old = x;
    old.generation = 7;
    CHECK(cx_4_tour_5_scale(ctx, -1, old, 1, y) == CINT_FAULT);
    dump_record(ctx, "tour_stale");
    cint_ctx_clear_fault(ctx);
    CHECK(cx_4_tour_5_scale(ctx, -1, x, 1, x) == CINT_FAULT);
    dump_record(ctx, "tour_permission");
    cint_ctx_clear_fault(ctx);
    cint_view short_y = y;
    short_y.shape[0] = 3;
    CHECK(cx_4_tour_5_scale(ctx, -1, x, 1, short_y) == CINT_FAULT);
    dump_record(ctx, "tour_shape");
    cint_ctx_clear_fault(ctx);
    CHECK(reg(ctx, zs, CINT_TAG_I64, 4, 1, 0, &z) == CINT_OK);
    CHECK(cx_4_tour_5_scale(ctx, -1, x, 1, z) == CINT_FAULT);
    dump_record(ctx, "tour_limit");
    cint_ctx_destroy(ctx);

    ctx = make(&cm_7_advance, 0, 0, NULL, NULL);
    int64_t pos[4] = {0, 1, 2, 3}, vel[4] = {16, 16, INT64_C(4611686018427387904), 16}, next[4] = {5, 5, 5, 5};
    cint_view vp, vv, vn;
    CHECK(reg(ctx, pos, CINT_TAG_I64, 4, 0, 0, &vp) == CINT_OK && reg(ctx, vel, CINT_TAG_I64, 4, 0, 0, &vv) == CINT_OK &&
          reg(ctx, next, CINT_TAG_I64, 4, 1, CINT_PUBLISH_COPY, &vn) == CINT_OK);
    CHECK(cx_7_advance_7_advance(ctx, -1, vp, vv, 2, vn) == CINT_FAULT && next[0] == 5);
    dump_record(ctx, "advance_overflow");
    CHECK(fuel_of(ctx) == 4);
    cint_type types[CINT_FAULT_OPERANDS_MAX];
    uint32_t count = 0;
    CHECK(cint_ctx_fault_descriptors(ctx, types, &count) == CINT_OK && count == 2 && types[0].code == CINT_TAG_I64);
    cint_ctx_clear_fault(ctx);
    CHECK(cint_ctx_fault_descriptors(ctx, types, &count) == CINT_OK && count == 0);
    int64_t total = 0;
    vel[2] = 16;
    CHECK(cx_7_advance_7_advance(ctx, 3, vp, vv, 1, vn) == CINT_FAULT && code_of(ctx) == CINT_E_FUEL);
    cint_ctx_clear_fault(ctx);
    CHECK(cx_7_advance_7_advance(ctx, 4, vp, vv, 1, vn) == CINT_OK && next[3] == 19);
    CHECK(cx_7_advance_5_total(ctx, 1, vn, &total) == CINT_FAULT); /* entry 1 + ceil(4 / 64) */
    dump_record(ctx, "total_fuel");
    cint_ctx_clear_fault(ctx);
    CHECK(cx_7_advance_5_total(ctx, 2, vn, &total) == CINT_OK && total == 70);
    cint_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (records = fopen(argv[1], "w")) == NULL) {
        fprintf(stderr, "usage: test_runtime RECORDS_FILE\n");
        return 2;
    }
    test_create();
    test_register_order();
    test_registry();
    test_leases();
    test_refusals();
    test_entry_checks();
    test_fuel_and_faulted();
    test_output_and_busy();
    test_depth_and_ops();
    test_spec_records();
    fclose(records);
    printf("test_runtime: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
