/* test_runtime.c: tests of the cint runtime through its host interface and through the API of
 * generated code, built with the runtime sources and both fixtures (tests/run.sh).
 *
 *   test_runtime RECORDS_FILE
 *
 * writes the canonical bytes of the fault records it provokes, one "name hex" line each, to
 * RECORDS_FILE; run.sh compares them with the bytes cint_abi.faultrecord encodes (golden.py).
 */
#include <inttypes.h>
#include <stdbool.h>
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
    8, 8, NULL, 0, 0, NULL, NULL, CINT_BACKEND_CPU_C17, 0, NULL};
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
/* kernel cover[n](out U8[n] b) over [i: n] { b[i] = i + add; } with CINT_GEN_PARAM_COVERS, and
   zeroed, the same kernel without the flag */
static const cint_gen_param t_cover_params[1] = {
    {CINT_GEN_ARRAY, CINT_MODE_OUT, TY(CINT_TAG_U8), 1, CINT_GEN_PARAM_COVERS, {SYM(0)}}};
static const cint_gen_kernel t_k_cover = {{"t.cover", 7, 0}, 1, 1, t_cover_params, 1, 0, {SYM(0)}};
static const cint_gen_export t_x_cover = {&t_program, {0, T_MIXED}, CINT_EXPORT_KERNEL, 1, t_cover_params, 1, 0,
                                          &t_k_cover};
static const cint_gen_param t_zeroed_params[1] = {{CINT_GEN_ARRAY, CINT_MODE_OUT, TY(CINT_TAG_U8), 1, 0, {SYM(0)}}};
static const cint_gen_kernel t_k_zeroed = {{"t.zeroed", 8, 0}, 1, 1, t_zeroed_params, 1, 0, {SYM(0)}};
static const cint_gen_export t_x_zeroed = {&t_program, {0, T_MIXED}, CINT_EXPORT_KERNEL, 1, t_zeroed_params, 1, 0,
                                           &t_k_zeroed};
/* kernel bump[n](inout U8[n] b) over [i: n] { b[i] = b[i] + 1; } */
static const cint_gen_param t_bump_params[1] = {{CINT_GEN_ARRAY, CINT_MODE_INOUT, TY(CINT_TAG_U8), 1, 0, {SYM(0)}}};
static const cint_gen_kernel t_k_bump = {{"t.bump", 6, 0}, 1, 1, t_bump_params, 1, 0, {SYM(0)}};
static const cint_gen_export t_x_bump = {&t_program, {0, T_MIXED}, CINT_EXPORT_KERNEL, 1, t_bump_params, 1, 0,
                                         &t_k_bump};
/* U8 twice[n](in U8 add, inout U8[n] b) { cover(b, add); cover(b, b[0] + 1); return b[0]; } */
static const cint_gen_param t_twice_params[2] = {{CINT_GEN_SCALAR, CINT_MODE_IN, TY(CINT_TAG_U8), 0, 0, {{0}}},
                                                 {CINT_GEN_ARRAY, CINT_MODE_INOUT, TY(CINT_TAG_U8), 1, 0, {SYM(0)}}};
static const cint_gen_export t_x_twice = {&t_program, {0, T_REC}, CINT_EXPORT_FUNCTION, 2, t_twice_params, 1, 1, NULL};

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

/* What the staging of cover and zeroed held when the work items began (the test looks; cint
   code never reads an out array), and the address of the staged array. */
static uint8_t t_peek[16];
static const uint8_t *t_peek_at;

/* The work items of cover and zeroed over a[0]: b[i] = i + add, and an overflow at fail_at. */
static int t_cover_items(cint_ctx *ctx, cint_gen_array *a, int64_t n, uint8_t add, int64_t fail_at)
{
    memcpy(t_peek, a[0].data, (size_t)(n < 16 ? n : 16));
    t_peek_at = a[0].data;
    for (int64_t i = 0; i < n; i++) {
        cint_gen_at at = {{0, T_MIXED_IX}, i, 0};
        uint8_t v;
        if (cint_add_checked_u8(ctx, &at, (uint8_t)(i == fail_at ? 255 : 0), (uint8_t)(i == fail_at ? 1 : i + add), &v))
            return 1;
        *(uint8_t *)cint_elem1(&a[0], i + a[0].lower[0]) = v;
    }
    return 0;
}

static cint_status cx_t_cover(cint_ctx *ctx, const cint_gen_export *x, cint_view b, uint8_t add, int64_t fail_at)
{
    const cint_gen_arg args[1] = {{&b, 0, 0}};
    cint_gen_array arr[1];
    int64_t sizes[1];
    cint_status s = cint_gen_enter(ctx, x, -1, args, NULL, arr, sizes);
    if (s != CINT_OK) return s;
    (void)t_cover_items(ctx, arr, sizes[0], add, fail_at);
    cint_gen_dispatch_end(ctx);
    return cint_gen_leave(ctx);
}

static cint_status cx_t_bump(cint_ctx *ctx, cint_view b)
{
    const cint_gen_arg args[1] = {{&b, 0, 0}};
    cint_gen_array arr[1];
    int64_t sizes[1];
    cint_status s = cint_gen_enter(ctx, &t_x_bump, -1, args, NULL, arr, sizes);
    if (s != CINT_OK) return s;
    for (int64_t i = 0; i < sizes[0]; i++) {
        cint_gen_at at = {{0, T_MIXED_IX}, i, 0};
        uint8_t *p = cint_elem1(&arr[0], i + arr[0].lower[0]);
        if (cint_add_checked_u8(ctx, &at, *p, 1, p)) break;
    }
    cint_gen_dispatch_end(ctx);
    return cint_gen_leave(ctx);
}

/* twice: two dispatches from cint code into the function's own inout array */
static cint_status cx_t_twice(cint_ctx *ctx, uint8_t add, cint_view b, int64_t *result)
{
    const cint_gen_arg args[2] = {{NULL, 0, 0}, {&b, 0, 0}};
    cint_gen_array a[2];
    int64_t sizes[1];
    cint_status s = cint_gen_enter(ctx, &t_x_twice, -1, args, result, a, sizes);
    if (s != CINT_OK) return s;
    for (int round = 0; round < 2; round++) {
        cint_gen_at at = {{0, T_MIXED}, 0, 0};
        cint_gen_array d[1] = {a[1]};
        int64_t ds[1] = {0}, n = 0;
        if (cint_gen_dispatch_begin(ctx, &t_k_cover, &at, d, ds, &n)) break;
        int f = t_cover_items(ctx, d, n, add, -1);
        cint_gen_dispatch_end(ctx);
        if (f) break;
        add = (uint8_t)(*(uint8_t *)cint_elem1(&a[1], a[1].lower[0]) + 1); /* b[0], published */
    }
    uint8_t first = sizes[0] > 0 ? *(uint8_t *)cint_elem1(&a[1], a[1].lower[0]) : 0;
    s = cint_gen_leave(ctx);
    if (s == CINT_OK) *result = first;
    return s;
}

/* sum(xs) of any bound array, as a function entry whose body is the one sum at T_SUM */
static cint_status cx_t_sum(cint_ctx *ctx, int64_t fuel, const cint_gen_array *xs, uint32_t rtag, uint64_t *bits)
{
    const cint_gen_arg args[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    cint_gen_array a[2];
    int64_t sizes[1];
    uint8_t r[8] = {0};
    cint_status s = cint_gen_enter(ctx, &t_x_ops, fuel, args, bits, a, sizes);
    if (s != CINT_OK) return s;
    cint_gen_at at = {{0, T_SUM}, 0, 0};
    (void)cint_gen_sum(ctx, &at, xs, rtag, r);
    s = cint_gen_leave(ctx);
    if (s == CINT_OK) {
        uint64_t v = 0;
        for (unsigned k = 0; k < 8; k++) v |= (uint64_t)r[k] << (8u * k);
        *bits = v;
    }
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
    long calls;      /* allocations made */
    long fail_next;  /* allocations that fail next, before they succeed again */
    size_t bytes;    /* bytes live */
} counting;

static void *count_alloc(void *user, size_t size, size_t align)
{
    counting *c = user;
    (void)align;
    if (c->fail_after == 0) return NULL;
    if (c->fail_next > 0) {
        c->fail_next--;
        return NULL;
    }
    if (c->fail_after > 0) c->fail_after--;
    c->live++;
    c->calls++;
    c->bytes += size;
    return malloc(size);
}

static void count_release(void *user, void *p, size_t size, size_t align)
{
    counting *c = user;
    (void)align;
    c->live--;
    c->bytes -= size;
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
        counting cnt = {0, fail, 0, 0, 0};
        c.allocator.alloc = count_alloc;
        c.allocator.release = count_release;
        c.allocator.user = &cnt;
        c.module = &t_info;
        CHECK(cint_ctx_create(&c, &ctx) == CINT_RESOURCE);
        CHECK(cnt.live == 0);
    }
    counting cnt = {0, -1, 0, 0, 0};
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
    /* the address space is 0 to INTPTR_MAX: an aligned pointer of the upper half, or bytes reaching past
       INTPTR_MAX, are SIZE (a DLPack byte_offset of 2^63 made such a pointer) */
    d.extent = 4;
    d.mem.u.host.ptr = (void *)((uintptr_t)INTPTR_MAX + 1u);
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_SIZE);
    d.mem.u.host.ptr = (void *)((uintptr_t)INTPTR_MAX - 7u);
    CHECK(cint_buffer_register(ctx, &d, &id, &gen) == CINT_REFUSED && refusal(ctx) == CINT_REFUSAL_SIZE);
    d.mem.u.host.ptr = (uint8_t *)xs + 1;
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
/* Whether t holds I64 v (cint_tv_i64's bytes). */
static int tv_is_i64(const cint_tvalue *t, int64_t v)
{
    cint_tvalue w;
    cint_tv_i64(&w, v);
    return t->len == w.len && memcmp(t->bytes, w.bytes, w.len) == 0;
}

/* SPEC-04 LS-110 in the runtime: the frame arena's charge in elements against frame_arena_bytes / 8
   (released by the generated code), and its native storage, chunks that never move. Runs inside an
   entry of t_x_ops; which 0: charges and storage that fit, 1: a charge that does not. */
static int frame_body(cint_ctx *ctx, int which)
{
    cint_gen_at at = {{0, T_INDEX}, 0, 0};
    CHECK(cint_gen_frame_charged(ctx) == 0); /* each entry starts empty */
    int64_t sh60[2] = {6, 10}, sh40[1] = {40}, sh1[1] = {1}, big[2] = {INT64_MAX, 4}, zero[2] = {INT64_MAX, 0};
    if (cint_gen_frame_charge(ctx, &at, 2, sh60)) return 1;
    const int64_t m = cint_gen_frame_charged(ctx);
    CHECK(m == 60);
    if (cint_gen_frame_charge(ctx, &at, 1, sh40)) return 1; /* 100 of 100 */
    if (cint_gen_frame_charge(ctx, &at, 2, zero)) return 1;  /* a saturated product times 0 is 0 */
    if (which == 1) return cint_gen_frame_charge(ctx, &at, 1, sh1);
    if (which == 2) return cint_gen_frame_charge(ctx, &at, 2, big);
    cint_gen_frame_release(ctx, m);
    CHECK(cint_gen_frame_charged(ctx) == 60);
    if (cint_gen_frame_charge(ctx, &at, 1, sh40)) return 1;
    cint_gen_frame_release(ctx, 0);
    /* native storage: the first chunk is 64 KiB long, whatever the capacity; larger requests add chunks,
       and nothing allocated moves or is overwritten until a reset gives it back */
    const size_t m0 = cint_gen_frame_mark(ctx);
    uint8_t *a = cint_gen_frame_alloc(ctx, &at, 500, 8);
    CHECK(a != NULL);
    memset(a, 0xA5, 500);
    uint8_t *b = cint_gen_frame_alloc(ctx, &at, 5000, 16);
    CHECK(b != NULL && ((uintptr_t)b & 15u) == 0);
    memset(b, 0x5A, 5000);
    const size_t m1 = cint_gen_frame_mark(ctx);
    uint8_t *c = cint_gen_frame_alloc(ctx, &at, 3, 1);
    CHECK(c != NULL && c[0] == 0 && c[2] == 0);
    uint8_t *d = cint_gen_frame_alloc(ctx, &at, 100000, 8);
    CHECK(d != NULL && d[0] == 0 && d[99999] == 0);
    memset(d, 0x11, 100000);
    CHECK(a[0] == 0xA5 && a[499] == 0xA5 && b[0] == 0x5A && b[4999] == 0x5A);
    cint_gen_frame_reset(ctx, m1);
    uint8_t *e = cint_gen_frame_alloc(ctx, &at, 4, 4);
    CHECK(e != NULL && e[0] == 0 && b[4999] == 0x5A); /* back in b's chunk */
    uint8_t *z = cint_gen_frame_alloc(ctx, &at, 0, 8);
    CHECK(z != NULL);
    cint_gen_frame_reset(ctx, m0);
    uint8_t *a2 = cint_gen_frame_alloc(ctx, &at, 500, 8);
    CHECK(a2 == a && a2[0] == 0 && a2[499] == 0); /* the first chunk again, zero-filled */
    uint8_t *d2 = cint_gen_frame_alloc(ctx, &at, 200000, 8); /* larger than the chunks after it */
    CHECK(d2 != NULL && d2[199999] == 0);
    CHECK(a2[0] == 0);
    return 0;
}

static cint_status cx_frame(cint_ctx *ctx, int which)
{
    const cint_gen_arg args[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    cint_gen_array a[2];
    int64_t sizes[1], result = 0;
    cint_status s = cint_gen_enter(ctx, &t_x_ops, -1, args, &result, a, sizes);
    if (s != CINT_OK) return s;
    (void)frame_body(ctx, which);
    return cint_gen_leave(ctx);
}

static void test_frame_arena(void)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = &t_program;
    c.module = &t_info;
    c.frame_arena_bytes = 807; /* 100 elements: the capacity is frame_arena_bytes / 8 */
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    CHECK(cx_frame(ctx, 0) == CINT_OK);
    CHECK(cx_frame(ctx, 0) == CINT_OK); /* again: an empty arena, the chunks reused */
    static cint_fault_record rec;
    for (int which = 1; which <= 2; which++) {
        CHECK(cx_frame(ctx, which) == CINT_FAULT && code_of(ctx) == CINT_E_BOUNDS);
        CHECK(cint_ctx_fault(ctx, &rec) == CINT_OK && rec.operation_len == 11 &&
              memcmp(rec.operation, "arena.alloc", 11) == 0 && rec.operand_count == 3 && !rec.has_exact &&
              !rec.has_limit && rec.position.index == T_INDEX && rec.stack_count == 0);
        CHECK(tv_is_i64(&rec.operands[0], which == 1 ? 1 : INT64_MAX) && tv_is_i64(&rec.operands[1], 100) &&
              tv_is_i64(&rec.operands[2], 100));
        if (which == 1) dump_record(ctx, "t_frame_arena");
        CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    }
    CHECK(cx_frame(ctx, 0) == CINT_OK);
    cint_ctx_destroy(ctx);

    /* 0 selects 16,777,216 bytes: 2,097,152 elements */
    c.frame_arena_bytes = 0;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    CHECK(cx_frame(ctx, 1) == CINT_OK); /* 101 elements fit */
    cint_ctx_destroy(ctx);

    /* the capacity is a counter, not storage (docs/language.md decision 21): the largest one needs memory
       only for what the entry uses, as on the reference executor (storage sized from the capacity was an
       out-of-memory host.resource there) */
    counting cnt = {0, -1, 0, 0, 0};
    c.frame_arena_bytes = INT64_MAX;
    c.allocator.alloc = count_alloc;
    c.allocator.release = count_release;
    c.allocator.user = &cnt;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    const size_t created = cnt.bytes;
    CHECK(cx_frame(ctx, 0) == CINT_OK);
    CHECK(cx_frame(ctx, 1) == CINT_OK);
    CHECK(cnt.bytes - created < ((size_t)1 << 20)); /* the chunks kept: about 270 KB for the body's 300 KB */
    cint_ctx_destroy(ctx);
    CHECK(cnt.live == 0);
    c.allocator.alloc = NULL;
    c.allocator.release = NULL;
    c.allocator.user = NULL;
}

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

/* --- staging, publication and sum (6.4, RT-19, LS-254, IM-77 to IM-81) ------------------------- */

static cint_ctx *make_counted(const cint_module_info *m, counting *cnt)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = m->program;
    c.module = m;
    c.allocator.alloc = count_alloc;
    c.allocator.release = count_release;
    c.allocator.user = cnt;
    CHECK(cint_ctx_create(&c, &ctx) == CINT_OK);
    return ctx;
}

static const void *lease_addr(cint_ctx *ctx, cint_buffer_id id)
{
    const void *p = NULL;
    uint64_t l = 0;
    CHECK(cint_buffer_lease(ctx, id, &p, &l) == CINT_OK);
    CHECK(cint_lease_end(ctx, l) == CINT_OK);
    return p;
}

static bool report_is(cint_ctx *ctx, size_t n, uint32_t reason, int64_t count)
{
    size_t got = 0;
    const cint_copy *cp = cint_gen_copies(ctx, &got);
    if (got != n) return false;
    for (size_t k = 0; k < n; k++)
        if (cp[k].reason != reason || cp[k].count != count) return false;
    return true;
}

/* The staging cache across entries, the COVERS flag and zero fill, and publication by copy
   into borrowed memory. */
static void test_staging_cache(void)
{
    counting cnt = {0, -1, 0, 0, 0};
    cint_ctx *ctx = make_counted(&t_info, &cnt);
    uint8_t out[16], expect[16], zero[16] = {0};
    memset(out, 0xAA, sizeof out);
    cint_view o;
    CHECK(reg(ctx, out, CINT_TAG_U8, 16, 1, CINT_PUBLISH_COPY, &o) == CINT_OK);
    CHECK(cx_t_cover(ctx, &t_x_cover, o, 1, -1) == CINT_OK);
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 1);
    CHECK(memcmp(out, expect, 16) == 0);
    CHECK(report_is(ctx, 1, CINT_COPY_PUBLISH, 16));
    const uint8_t *block = t_peek_at;
    long calls = cnt.calls;
    /* the next entry stages into the same block, which COVERS leaves as it was: the staged
       result of the last entry, never published again */
    CHECK(cx_t_cover(ctx, &t_x_cover, o, 50, -1) == CINT_OK);
    CHECK(t_peek_at == block && memcmp(t_peek, expect, 16) == 0);
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 50);
    CHECK(memcmp(out, expect, 16) == 0);
    CHECK(cnt.calls == calls); /* no allocation: staging and the copy report are reused */
    /* without the flag the reused block is zero-filled (RT-19) */
    CHECK(cx_t_cover(ctx, &t_x_zeroed, o, 7, -1) == CINT_OK);
    CHECK(t_peek_at == block && memcmp(t_peek, zero, 16) == 0);
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 7);
    CHECK(memcmp(out, expect, 16) == 0 && cnt.calls == calls);
    /* a fault publishes nothing, whatever staging held */
    CHECK(cx_t_cover(ctx, &t_x_cover, o, 9, 3) == CINT_FAULT && code_of(ctx) == CINT_E_OVERFLOW);
    CHECK(memcmp(out, expect, 16) == 0 && report_is(ctx, 1, CINT_COPY_PUBLISH, 16));
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    CHECK(cx_t_cover(ctx, &t_x_zeroed, o, 7, 0) == CINT_FAULT);
    CHECK(memcmp(out, expect, 16) == 0 && cnt.calls == calls);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);

    /* the cache is bounded by the staging totals of the last RT_STAGE_RECENT dispatches */
    uint8_t *big = malloc(1u << 20);
    cint_view vb;
    CHECK(big != NULL && reg(ctx, big, CINT_TAG_U8, 1 << 20, 1, CINT_PUBLISH_COPY, &vb) == CINT_OK);
    CHECK(cx_t_cover(ctx, &t_x_cover, vb, 0, -1) == CINT_OK && big[1000] == (uint8_t)1000);
    CHECK(cnt.bytes >= (1u << 20)); /* the block stays cached */
    size_t with_big = cnt.bytes;
    CHECK(cx_t_cover(ctx, &t_x_cover, vb, 1, -1) == CINT_OK && cnt.bytes == with_big && big[7] == 8);
    for (int k = 0; k < 4; k++) CHECK(cx_t_cover(ctx, &t_x_cover, o, 2, -1) == CINT_OK);
    CHECK(cnt.bytes + (1u << 19) < with_big); /* four small dispatches later it is freed */
    /* no room for a fresh block: the cache is emptied and the allocation tried again */
    CHECK(cx_t_cover(ctx, &t_x_cover, vb, 3, -1) == CINT_OK);
    cint_view half = vb;
    half.shape[0] = 1 << 19;
    cnt.fail_next = 1;
    CHECK(cx_t_cover(ctx, &t_x_cover, half, 4, -1) == CINT_OK && big[5] == 9 && big[(1 << 19) + 5] == 8);
    CHECK(cnt.fail_next == 0 && cnt.bytes < with_big);
    /* no room at all: host.resource, nothing published */
    cnt.fail_next = 2;
    CHECK(cx_t_cover(ctx, &t_x_cover, vb, 5, -1) == CINT_RESOURCE && code_of(ctx) == CINT_E_UNSUPPORTED);
    CHECK(big[5] == 9);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    cint_ctx_destroy(ctx);
    CHECK(cnt.live == 0 && cnt.bytes == 0); /* cint_ctx_destroy frees the cache */
    free(big);
}

/* Publication of a created buffer by renaming (no copy), and where renaming does not apply. */
static void test_rename(void)
{
    counting cnt = {0, -1, 0, 0, 0};
    cint_ctx *ctx = make_counted(&t_info, &cnt);
    cint_buffer_id id;
    uint64_t gen;
    uint8_t got[16], expect[16];
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_U8), 16, 0, &id, &gen) == CINT_OK);
    cint_view v = view1(id, gen, CINT_TAG_U8, 16, CINT_VIEW_WRITE);
    const void *p0 = lease_addr(ctx, id);
    CHECK(cx_t_cover(ctx, &t_x_cover, v, 1, -1) == CINT_OK);
    CHECK(report_is(ctx, 1, CINT_COPY_STAGING, 16)); /* staging listed, no publish-copy */
    const void *p1 = lease_addr(ctx, id);
    CHECK(p1 != p0 && p1 == t_peek_at); /* the staging block is now the buffer's storage */
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 1);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && memcmp(got, expect, 16) == 0);
    long calls = cnt.calls;
    CHECK(cx_t_cover(ctx, &t_x_cover, v, 2, -1) == CINT_OK); /* staged into the old storage */
    CHECK(t_peek_at == p0 && lease_addr(ctx, id) == p0 && cnt.calls == calls);
    CHECK(cx_t_cover(ctx, &t_x_cover, v, 3, -1) == CINT_OK && lease_addr(ctx, id) == p1);
    CHECK(t_peek_at == p1 && memcmp(t_peek, expect, 16) == 0); /* COVERS: not zero-filled */
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 3);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && memcmp(got, expect, 16) == 0);
    CHECK(cx_t_cover(ctx, &t_x_zeroed, v, 4, -1) == CINT_OK && lease_addr(ctx, id) == p0);
    uint8_t zero[16] = {0};
    CHECK(t_peek_at == p0 && memcmp(t_peek, zero, 16) == 0); /* without COVERS: zero-filled */
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 4);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && memcmp(got, expect, 16) == 0 && cnt.calls == calls);
    p1 = p0;
    /* a fault: nothing published, the storage stays */
    CHECK(cx_t_cover(ctx, &t_x_cover, v, 4, 15) == CINT_FAULT && lease_addr(ctx, id) == p1);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && memcmp(got, expect, 16) == 0);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* a leased output is busy, as before */
    const void *lp;
    uint64_t l;
    CHECK(cint_buffer_lease(ctx, id, &lp, &l) == CINT_OK);
    CHECK(cx_t_cover(ctx, &t_x_cover, v, 4, -1) == CINT_BUSY && refusal(ctx) == CINT_REFUSAL_LEASED);
    CHECK(cint_lease_end(ctx, l) == CINT_OK);
    /* part of the buffer: copied, the rest untouched, the storage stays */
    cint_view part = v;
    part.origin = 4, part.shape[0] = 8;
    CHECK(cx_t_cover(ctx, &t_x_cover, part, 100, -1) == CINT_OK && lease_addr(ctx, id) == p1);
    CHECK(report_is(ctx, 1, CINT_COPY_STAGING, 8));
    for (int i = 0; i < 8; i++) expect[4 + i] = (uint8_t)(i + 100);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && memcmp(got, expect, 16) == 0);
    /* the whole buffer in another order (columns first): copied */
    cint_view cols = v;
    cols.rank = 2, cols.shape[0] = 4, cols.shape[1] = 4, cols.stride[0] = 1, cols.stride[1] = 4;
    CHECK(cx_t_fill2(ctx, -1, cols) == CINT_OK && lease_addr(ctx, id) == p1);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) CHECK(got[j * 4 + i] == (uint8_t)(i * 4 + j + 1));
    /* the whole buffer as rows (row-major): renamed */
    cint_view rows = v;
    rows.rank = 2, rows.shape[0] = 2, rows.shape[1] = 8, rows.stride[0] = 8, rows.stride[1] = 1;
    CHECK(cx_t_fill2(ctx, -1, rows) == CINT_OK && lease_addr(ctx, id) != p1);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK);
    for (int i = 0; i < 16; i++) CHECK(got[i] == (uint8_t)(i + 1));
    /* lower bounds are no part of the layout: renamed */
    cint_view low = v;
    low.lower[0] = -7;
    p1 = lease_addr(ctx, id);
    CHECK(cx_t_cover(ctx, &t_x_cover, low, 30, -1) == CINT_OK && lease_addr(ctx, id) != p1);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && got[0] == 30 && got[15] == 45);
    /* dispatches from cint code into a function's inout array publish by copy */
    const void *p2 = lease_addr(ctx, id);
    int64_t first = 0;
    CHECK(cx_t_twice(ctx, 10, v, &first) == CINT_OK && first == 11 && lease_addr(ctx, id) == p2);
    CHECK(report_is(ctx, 2, CINT_COPY_STAGING, 16));
    for (int i = 0; i < 16; i++) expect[i] = (uint8_t)(i + 11);
    CHECK(cint_buffer_read(ctx, v, got, 16) == CINT_OK && memcmp(got, expect, 16) == 0);
    /* a borrowed inout of the function: the same, in place */
    uint8_t mine[16] = {0};
    cint_view m;
    CHECK(reg(ctx, mine, CINT_TAG_U8, 16, 1, 0, &m) == CINT_OK);
    CHECK(cx_t_twice(ctx, 20, m, &first) == CINT_OK && first == 21 && mine[15] == 36);
    CHECK(report_is(ctx, 2, CINT_COPY_PUBLISH, 16));
    /* an empty output */
    cint_buffer_id eid;
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_U8), 0, 0, &eid, &gen) == CINT_OK);
    CHECK(cx_t_cover(ctx, &t_x_cover, view1(eid, gen, CINT_TAG_U8, 0, CINT_VIEW_WRITE), 1, -1) == CINT_OK);
    CHECK(report_is(ctx, 1, CINT_COPY_STAGING, 0));
    CHECK(cint_buffer_release(ctx, eid) == CINT_OK);
    CHECK(cint_buffer_release(ctx, id) == CINT_OK);
    cint_ctx_destroy(ctx);
    CHECK(cnt.live == 0 && cnt.bytes == 0);

    /* advance (COVERS) into a created I64 buffer, entry after entry, with no allocation */
    counting c2 = {0, -1, 0, 0, 0};
    ctx = make_counted(&cm_7_advance, &c2);
    int64_t pos[5] = {1, 2, 3, 4, 5}, vel[5] = {10, 20, 30, 40, 50}, res[5];
    cint_view vp, vv;
    CHECK(reg(ctx, pos, CINT_TAG_I64, 5, 0, 0, &vp) == CINT_OK && reg(ctx, vel, CINT_TAG_I64, 5, 0, 0, &vv) == CINT_OK);
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_I64), 5, 0, &id, &gen) == CINT_OK);
    cint_view vn = view1(id, gen, CINT_TAG_I64, 5, CINT_VIEW_WRITE);
    CHECK(cx_7_advance_7_advance(ctx, -1, vp, vv, 2, vn) == CINT_OK);
    calls = c2.calls;
    for (int64_t dt = 3; dt < 9; dt++) {
        CHECK(cx_7_advance_7_advance(ctx, -1, vp, vv, dt, vn) == CINT_OK);
        CHECK(cint_buffer_read(ctx, vn, res, sizeof res) == CINT_OK && res[0] == 1 + 10 * dt && res[4] == 5 + 50 * dt);
    }
    CHECK(c2.calls == calls);
    int64_t total = 0;
    CHECK(cx_7_advance_5_total(ctx, -1, vn, &total) == CINT_OK && total == 15 + 150 * 8);
    cint_ctx_destroy(ctx);
    CHECK(c2.live == 0 && c2.bytes == 0);
}

/* Publication into borrowed memory of every layout: contiguous rows of a padded array, a
   reversed array, and inout staging copied in. */
static void test_publish_layouts(void)
{
    cint_ctx *ctx = make(&t_info, 0, 0, NULL, NULL);
    uint8_t mem[24];
    cint_view w;
    memset(mem, 0xEE, sizeof mem);
    CHECK(reg(ctx, mem, CINT_TAG_U8, 24, 1, CINT_PUBLISH_COPY, &w) == CINT_OK);
    cint_view pad = w; /* 3 rows of 4 at stride 5 from element 2 */
    pad.origin = 2, pad.rank = 2, pad.shape[0] = 3, pad.shape[1] = 4, pad.stride[0] = 5, pad.stride[1] = 1;
    CHECK(cx_t_fill2(ctx, -1, pad) == CINT_OK);
    for (int k = 0; k < 24; k++) {
        int r = (k - 2) / 5, c = (k - 2) % 5;
        bool in = k >= 2 && r < 3 && c < 4;
        CHECK(mem[k] == (in ? (uint8_t)(r * 4 + c + 1) : 0xEE));
    }
    memset(mem, 0xEE, sizeof mem);
    cint_view rev = w; /* 2 x 3, both dimensions reversed, from element 10 */
    rev.origin = 10, rev.rank = 2, rev.shape[0] = 2, rev.shape[1] = 3, rev.stride[0] = -3, rev.stride[1] = -1;
    CHECK(cx_t_fill2(ctx, -1, rev) == CINT_OK);
    for (int k = 0; k < 24; k++) CHECK(mem[k] == (k >= 5 && k <= 10 ? (uint8_t)(11 - k) : 0xEE));
    cint_view col = w; /* one column: a strided dimension with an extent-1 dimension inside */
    col.origin = 0, col.rank = 2, col.shape[0] = 4, col.shape[1] = 1, col.stride[0] = 6, col.stride[1] = 9;
    CHECK(cx_t_fill2(ctx, -1, col) == CINT_OK && mem[0] == 1 && mem[6] == 2 && mem[12] == 3 && mem[18] == 4);
    /* inout staging is copied in through the same runs */
    uint8_t bs[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    cint_view b;
    CHECK(reg(ctx, bs, CINT_TAG_U8, 12, 1, CINT_PUBLISH_COPY, &b) == CINT_OK);
    cint_view every2 = b;
    every2.shape[0] = 6, every2.stride[0] = 2;
    CHECK(cx_t_bump(ctx, every2) == CINT_OK && report_is(ctx, 1, CINT_COPY_PUBLISH, 6));
    for (int k = 0; k < 12; k++) CHECK(bs[k] == (uint8_t)(k + 1 + (k % 2 == 0)));
    cint_view back = b;
    back.origin = 11, back.stride[0] = -1;
    CHECK(cx_t_bump(ctx, back) == CINT_OK);
    for (int k = 0; k < 12; k++) CHECK(bs[k] == (uint8_t)(k + 2 + (k % 2 == 0)));
    bs[3] = 255; /* a fault at work item 8 (element 3 of the reversed view) publishes nothing */
    CHECK(cx_t_bump(ctx, back) == CINT_FAULT && bs[0] == 3 && bs[11] == 13 && bs[3] == 255);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    cint_buffer_id id;
    uint64_t gen;
    uint8_t got[12];
    CHECK(cint_buffer_create(ctx, type_of(CINT_TAG_U8), 12, 0, &id, &gen) == CINT_OK);
    CHECK(cx_t_bump(ctx, view1(id, gen, CINT_TAG_U8, 12, CINT_VIEW_WRITE)) == CINT_OK); /* renamed */
    CHECK(cx_t_bump(ctx, view1(id, gen, CINT_TAG_U8, 12, CINT_VIEW_WRITE)) == CINT_OK);
    CHECK(cint_buffer_read(ctx, view1(id, gen, CINT_TAG_U8, 12, CINT_VIEW_READ), got, 12) == CINT_OK);
    for (int k = 0; k < 12; k++) CHECK(got[k] == 2);
    cint_ctx_destroy(ctx);
}

/* cint_buffer_read of contiguous, padded and empty views. */
static void test_read_layouts(void)
{
    cint_ctx *ctx = make(&cm_4_tour, 0, 0, NULL, NULL);
    int64_t xs[12], out[12];
    for (int k = 0; k < 12; k++) xs[k] = 100 + k;
    cint_view x;
    CHECK(reg(ctx, xs, CINT_TAG_I64, 12, 0, 0, &x) == CINT_OK);
    CHECK(cint_buffer_read(ctx, x, out, sizeof out) == CINT_OK && memcmp(out, xs, sizeof xs) == 0);
    cint_view g = x;
    g.rank = 2, g.shape[0] = 2, g.shape[1] = 6, g.stride[0] = 6, g.stride[1] = 1, g.lower[0] = 7;
    memset(out, 0, sizeof out);
    CHECK(cint_buffer_read(ctx, g, out, sizeof out) == CINT_OK && memcmp(out, xs, sizeof xs) == 0);
    cint_view pad = x;
    pad.origin = 1, pad.rank = 2, pad.shape[0] = 3, pad.shape[1] = 2, pad.stride[0] = 4, pad.stride[1] = 1;
    CHECK(cint_buffer_read(ctx, pad, out, 6 * sizeof(int64_t)) == CINT_OK);
    CHECK(out[0] == 101 && out[1] == 102 && out[2] == 105 && out[3] == 106 && out[4] == 109 && out[5] == 110);
    cint_view empty = x;
    empty.shape[0] = 0;
    CHECK(cint_buffer_read(ctx, empty, NULL, 0) == CINT_OK);
    cint_ctx_destroy(ctx);
}

__extension__ typedef __int128 t_i128;
__extension__ typedef unsigned __int128 t_u128;

static t_i128 t_load(const uint8_t *p, uint16_t tag)
{
    switch (tag) {
    case CINT_TAG_I8: return (int8_t)p[0];
    case CINT_TAG_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case CINT_TAG_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case CINT_TAG_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case CINT_TAG_U8: return p[0];
    case CINT_TAG_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case CINT_TAG_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* The value of a fault record's exact (a tagged Z of at most 16 bytes). */
static t_i128 t_exact(const cint_fault_record *r)
{
    uint32_t n = 0;
    for (unsigned k = 0; k < 4; k++) n |= (uint32_t)r->exact.bytes[1 + k] << (8u * k);
    if (n == 0 || n > 16) return 0;
    t_i128 v = (r->exact.bytes[5 + n - 1] & 0x80u) ? -1 : 0;
    for (uint32_t k = n; k-- > 0;) v = (t_i128)(((t_u128)v << 8) | r->exact.bytes[5 + k]);
    return v;
}

/* One sum: the runtime's answer (or fault) against the exact sum of a's elements. */
static void sum_case(cint_ctx *ctx, const cint_gen_array *a, uint16_t rtag)
{
    t_i128 want = 0;
    int64_t idx[4] = {0, 0, 0, 0}, n = 1;
    for (uint32_t d = 0; d < a->rank; d++) n *= a->shape[d];
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < a->rank; d++) off += idx[d] * a->stride[d];
        want += t_load(a->data + off * a->elem_size, a->type.code);
        for (uint32_t d = a->rank; d-- > 0;) {
            if (++idx[d] < a->shape[d]) break;
            idx[d] = 0;
        }
    }
    unsigned w = rtag == CINT_TAG_I8 || rtag == CINT_TAG_U8 ? 8 : rtag == CINT_TAG_I16 || rtag == CINT_TAG_U16 ? 16
               : rtag == CINT_TAG_I32 || rtag == CINT_TAG_U32 ? 32 : 64;
    bool sgn = (rtag & 0xF0u) == 0x10u;
    t_i128 lo = sgn ? -((t_i128)1 << (w - 1)) : 0, hi = sgn ? ((t_i128)1 << (w - 1)) - 1 : ((t_i128)1 << w) - 1;
    uint64_t bits = 0;
    cint_status s = cx_t_sum(ctx, -1, a, rtag, &bits);
    if (want >= lo && want <= hi) {
        CHECK(s == CINT_OK);
        uint64_t mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1u;
        CHECK(bits == ((uint64_t)want & mask));
        CHECK(fuel_of(ctx) == 1 + n / 64 + (n % 64 != 0));
    } else {
        static cint_fault_record r;
        CHECK(s == CINT_FAULT);
        CHECK(cint_ctx_fault(ctx, &r) == CINT_OK && r.code == CINT_E_OVERFLOW && r.has_exact && t_exact(&r) == want);
        CHECK(r.operand_count == 1 && r.operands[0].bytes[0] == CINT_TAG_I64);
        CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    }
}

static cint_gen_array t_arr(void *data, uint16_t tag, int64_t es, uint32_t rank, const int64_t *shape,
                            const int64_t *stride)
{
    cint_gen_array a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.elem_size = es;
    a.rank = rank;
    a.type = type_of(tag);
    for (uint32_t d = 0; d < rank; d++) a.shape[d] = shape[d], a.stride[d] = stride[d];
    return a;
}

/* cint_gen_sum over I8 to U64 and every layout, against the exact sum; the records of its
   faults. */
static void test_sum(void)
{
    cint_ctx *ctx = make(&t_info, 0, 0, NULL, NULL);
    static const uint16_t tags[8] = {CINT_TAG_I8, CINT_TAG_I16, CINT_TAG_I32, CINT_TAG_I64,
                                     CINT_TAG_U8, CINT_TAG_U16, CINT_TAG_U32, CINT_TAG_U64};
    enum { N = 600 };
    static uint8_t buf[N * 8 + 16];
    uint64_t seed = 88172645463325252u;
    for (int variant = 0; variant < 3; variant++) {
        for (size_t k = 0; k < sizeof buf; k++) { /* xorshift bytes; variant 1: small values; 2: extremes */
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            buf[k] = (uint8_t)seed;
        }
        for (int t = 0; t < 8; t++) {
            uint16_t tag = tags[t];
            int64_t es = (int64_t)1 << ((tag & 0x0F) - 1);
            if (variant == 1) /* small magnitudes: the sum fits */
                for (size_t k = 0; k + (size_t)es <= sizeof buf; k += (size_t)es) {
                    memset(buf + k + 1, (tag & 0x10) && (buf[k] & 1) ? 0xFF : 0, (size_t)es - 1);
                    if (es == 1) buf[k] &= 0x0F;
                }
            if (variant == 2) /* the largest and smallest values */
                for (size_t k = 0; k + (size_t)es <= sizeof buf; k += (size_t)es) {
                    bool top = (k / (size_t)es) % 3 != 0;
                    memset(buf + k, top ? 0xFF : 0x00, (size_t)es);
                    if (tag & 0x10) buf[k + (size_t)es - 1] = top ? 0x7F : 0x80;
                }
            static const int64_t lens[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 257, N - 1};
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
                for (int64_t first = 0; first < 2; first++) { /* 16-byte aligned, and one element on */
                    int64_t shape[1] = {lens[l]}, stride[1] = {1};
                    cint_gen_array a = t_arr(buf + first * es, tag, es, 1, shape, stride);
                    sum_case(ctx, &a, tag);
                }
            int64_t sh1[1] = {N / 3}, st2[1] = {2}, st3[1] = {3}, strev[1] = {-1};
            cint_gen_array a = t_arr(buf, tag, es, 1, sh1, st2);
            sum_case(ctx, &a, tag);
            a = t_arr(buf + es, tag, es, 1, sh1, st3);
            sum_case(ctx, &a, tag);
            a = t_arr(buf + (N / 3 - 1) * es, tag, es, 1, sh1, strev);
            sum_case(ctx, &a, tag);
            int64_t sh2[2] = {5, 7}, stpad[2] = {9, 1}, sttr[2] = {1, 9};
            a = t_arr(buf + 3 * es, tag, es, 2, sh2, stpad);
            sum_case(ctx, &a, tag);
            a = t_arr(buf, tag, es, 2, sh2, sttr);
            sum_case(ctx, &a, tag);
            int64_t sh4[4] = {2, 3, 4, 5}, st4[4] = {60, 20, 5, 1};
            a = t_arr(buf, tag, es, 4, sh4, st4);
            sum_case(ctx, &a, tag);
            a = t_arr(buf, tag, es, 4, sh4, st4);
            sum_case(ctx, &a, tag == CINT_TAG_U8 ? CINT_TAG_I64 : CINT_TAG_I8); /* another result type */
        }
    }

    /* the records, byte for byte */
    int64_t one[1] = {4}, unit[1] = {1};
    int64_t hi4[4] = {INT64_C(1) << 62, INT64_C(1) << 62, INT64_C(1) << 62, INT64_C(1) << 62};
    cint_gen_array a = t_arr(hi4, CINT_TAG_I64, 8, 1, one, unit);
    uint64_t bits = 0;
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_I64, &bits) == CINT_FAULT);
    dump_record(ctx, "t_sum_i64_high");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    int64_t lo4[4] = {INT64_MIN, -1, INT64_MIN, 5};
    a = t_arr(lo4, CINT_TAG_I64, 8, 1, one, unit);
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_I64, &bits) == CINT_FAULT);
    dump_record(ctx, "t_sum_i64_low");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    uint64_t u4[4] = {UINT64_MAX, UINT64_MAX, 0, 2};
    a = t_arr(u4, CINT_TAG_U64, 8, 1, one, unit);
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_U64, &bits) == CINT_FAULT);
    dump_record(ctx, "t_sum_u64");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    uint8_t b4[4] = {100, 100, 0, 0};
    a = t_arr(b4, CINT_TAG_U8, 1, 1, one, unit);
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_I8, &bits) == CINT_FAULT);
    dump_record(ctx, "t_sum_u8_i8");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    int8_t m4[4] = {-1, 0, 0, 0};
    a = t_arr(m4, CINT_TAG_I8, 1, 1, one, unit);
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_U8, &bits) == CINT_FAULT);
    dump_record(ctx, "t_sum_i8_u8");
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* partial sums that leave I64 while the total fits */
    int64_t edge[4] = {INT64_MAX, 1, -1, -5};
    a = t_arr(edge, CINT_TAG_I64, 8, 1, one, unit);
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_I64, &bits) == CINT_OK && bits == (uint64_t)(INT64_MAX - 5));
    uint64_t uedge[4] = {UINT64_MAX, 1, 0, 0};
    a = t_arr(uedge, CINT_TAG_U64, 8, 1, one, unit);
    CHECK(cx_t_sum(ctx, -1, &a, CINT_TAG_U64, &bits) == CINT_FAULT); /* 2^64 */
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    /* the fuel of a sum is charged before it runs */
    int64_t many[130];
    for (int k = 0; k < 130; k++) many[k] = k;
    int64_t n130[1] = {130};
    a = t_arr(many, CINT_TAG_I64, 8, 1, n130, unit);
    CHECK(cx_t_sum(ctx, 3, &a, CINT_TAG_I64, &bits) == CINT_FAULT && code_of(ctx) == CINT_E_FUEL);
    CHECK(cint_ctx_clear_fault(ctx) == CINT_OK);
    CHECK(cx_t_sum(ctx, 4, &a, CINT_TAG_I64, &bits) == CINT_OK && bits == 130 * 129 / 2 && fuel_of(ctx) == 4);
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
    test_frame_arena();
    test_spec_records();
    test_staging_cache();
    test_rename();
    test_publish_layouts();
    test_read_layouts();
    test_sum();
    fclose(records);
    printf("test_runtime: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
