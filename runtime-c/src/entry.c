/* entry.c: entries (7.1, 7.3), fuel and call depth (SPEC-01P.1 IM-117 to IM-119, IM-139 to
   IM-141), the entry checks (7.1 paragraph 11, 6.5), dispatches with staging and publication
   (6.4, RT-19), error results and print statements (7.3 paragraph 4). */
#include <stdlib.h>

#include "rt_internal.h"

/* --- fault helpers ----------------------------------------------------------------------- */

static int raise_ops(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, const cint_tvalue *operands,
                     uint16_t n, const cint_tvalue *limit)
{
    cint_gen_fault f;
    memset(&f, 0, sizeof f);
    f.code = code;
    f.operation = op;
    f.operands = operands;
    f.operand_count = n;
    f.limit = limit;
    rt_raise(ctx, at, &f);
    return 1;
}

/* A record whose operands and limit are I64 values; limit_present says whether it has one. */
static int raise_i64(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, const int64_t *vals,
                     uint16_t n, bool limit_present, int64_t limit)
{
    cint_tvalue t[CINT_FAULT_OPERANDS_MAX], l;
    for (uint16_t k = 0; k < n; k++) cint_tv_i64(&t[k], vals[k]);
    cint_tv_i64(&l, limit);
    return raise_ops(ctx, at, code, op, t, n, limit_present ? &l : NULL);
}

int cint_gen_failed(const cint_ctx *ctx) { return ctx->entry_faulted ? 1 : 0; }

/* --- fuel and depth ---------------------------------------------------------------------- */

int cint_gen_charge(cint_ctx *ctx, const cint_gen_at *at, int64_t units)
{
    if (ctx->entry_faulted) return 1;
    if (units <= 0) return 0;
    int64_t limit = ctx->fuel.limit;
    if (ctx->fuel.used > limit - units) return raise_i64(ctx, at, CINT_E_FUEL, "fuel.charge", NULL, 0, true, limit);
    ctx->fuel.used += units;
    return 0;
}

cint_gen_fuel *cint_gen_fuel_of(cint_ctx *ctx)
{
    return &ctx->fuel;
}

int cint_gen_call_enter(cint_ctx *ctx, const cint_gen_at *at)
{
    if (ctx->entry_faulted) return 1;
    if (ctx->depth >= ctx->depth_limit)
        return raise_i64(ctx, at, CINT_E_DEPTH, "call.enter", NULL, 0, true, ctx->depth_limit);
    if (cint_gen_charge(ctx, at, 1)) return 1;
    /* depth < depth_limit <= frames; in a work-item the dispatch site (stack_site) is at depth - 1 */
    ctx->stack[ctx->depth - 1 + ctx->stack_site] = at->pos;
    ctx->depth++;
    return 0;
}

void cint_gen_call_leave(cint_ctx *ctx)
{
    if (ctx->depth > 1) ctx->depth--;
}

void cint_gen_error(cint_ctx *ctx, const cint_error_set *set, uint64_t tag)
{
    ctx->error_set = set;
    ctx->error_tag = tag;
}

/* --- the entry checks (7.1 paragraph 11) ------------------------------------------------- */

/* The reachable bytes of a bound array, [lo, hi); empty when it has no element. */
static bool byte_span(const cint_gen_array *a, uintptr_t *lo, uintptr_t *hi)
{
    int64_t min = 0, max = 0;
    for (uint32_t d = 0; d < a->rank; d++) {
        if (a->shape[d] == 0) return false;
        int64_t span = (a->shape[d] - 1) * a->stride[d];
        if (span < 0) min += span;
        else max += span;
    }
    *lo = (uintptr_t)a->data + (uintptr_t)(min * a->elem_size);
    *hi = (uintptr_t)a->data + (uintptr_t)(max * a->elem_size) + (uintptr_t)a->elem_size;
    return true;
}

static bool overlap(const cint_gen_array *a, const cint_gen_array *b)
{
    uintptr_t alo, ahi, blo, bhi;
    if (!byte_span(a, &alo, &ahi) || !byte_span(b, &blo, &bhi)) return false;
    return alo < bhi && blo < ahi;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Whether distinct indices of a reach distinct elements (6.5, bind.injective). A layout
   whose dimensions, ordered by stride, each step past everything the smaller ones reach is
   injective; any other is decided exactly by sorting the element offsets. -1: no room. */
static int injective(cint_ctx *ctx, const cint_gen_array *a)
{
    int64_t st[4], ex[4];
    uint32_t n = 0;
    for (uint32_t d = 0; d < a->rank; d++) {
        if (a->shape[d] == 0) return 1;
        if (a->shape[d] == 1) continue;
        st[n] = a->stride[d] < 0 ? -a->stride[d] : a->stride[d];
        ex[n++] = a->shape[d];
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort by |stride| */
        for (uint32_t j = i; j > 0 && st[j - 1] > st[j]; j--) {
            int64_t t = st[j];
            st[j] = st[j - 1];
            st[j - 1] = t;
            t = ex[j];
            ex[j] = ex[j - 1];
            ex[j - 1] = t;
        }
    int64_t reach = 0;
    bool nested = true;
    for (uint32_t i = 0; i < n; i++) {
        if (st[i] <= reach) nested = false;
        reach += (ex[i] - 1) * st[i];
    }
    if (nested) return 1;
    int64_t count = rt_count(a);
    size_t bytes = (size_t)count * sizeof(int64_t);
    int64_t *offs = rt_alloc(ctx, bytes);
    if (offs == NULL) return -1;
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t e = 0; e < count; e++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < a->rank; d++) off += idx[d] * a->stride[d];
        offs[e] = off;
        for (uint32_t d = a->rank; d-- > 0;) {
            if (++idx[d] < a->shape[d]) break;
            idx[d] = 0;
        }
    }
    qsort(offs, (size_t)count, sizeof(int64_t), cmp_i64);
    int ok = 1;
    for (int64_t e = 1; e < count && ok; e++)
        if (offs[e] == offs[e - 1]) ok = 0;
    rt_free(ctx, offs, bytes);
    return ok;
}

/* The value a declared extent takes, binding its size symbol on first use; false when the
   given extent cannot agree (the expected value is then in *expect). */
static bool extent_agrees(const cint_gen_extent *e, int64_t given, int64_t *sizes, uint32_t size_count,
                          int64_t *expect)
{
    if (e->form == CINT_SHAPE_ANY) return true;
    int64_t bound;
    if (e->sym == CINT_SIG_NO_SYMBOL || e->sym >= size_count) {
        bound = e->offset;
    } else if (sizes[e->sym] == CINT_GEN_NO_SIZE) {
        int64_t v;
        int64_t want = given;
        if (e->form == CINT_SHAPE_RANGE && __builtin_add_overflow(given, e->lower - 1, &want)) want = INT64_MAX;
        if (__builtin_sub_overflow(want, e->offset, &v) || v < 0) {
            *expect = e->offset;
            return false;
        }
        sizes[e->sym] = v;
        return true;
    } else if (__builtin_add_overflow(sizes[e->sym], e->offset, &bound)) {
        *expect = INT64_MAX;
        return false;
    }
    int64_t ext = bound;
    if (e->form == CINT_SHAPE_RANGE && __builtin_sub_overflow(bound, e->lower - 1, &ext)) ext = INT64_MAX;
    *expect = ext;
    return ext == given;
}

/* A computed extent, sizes[sym] + offset with offset != 0 (`n + 1`): checked in the second pass of
   bind.shape, once every plain extent has bound its size symbol (SPEC-02 K-6). */
static bool extent_computed(const cint_gen_extent *e, uint32_t size_count)
{
    return e->form == CINT_SHAPE_EXTENT && e->sym != CINT_SIG_NO_SYMBOL && e->sym < size_count && e->offset != 0;
}

static bool params_computed(const cint_gen_param *params, uint32_t count, uint32_t size_count)
{
    for (uint32_t p = 0; p < count; p++)
        if (params[p].kind == CINT_GEN_ARRAY)
            for (uint32_t d = 0; d < params[p].rank && d < 4; d++)
                if (extent_computed(&params[p].dims[d], size_count)) return true;
    return false;
}

/* The second pass of bind.shape: every computed extent, by parameter then dimension, against
   the value its size symbol took in the first pass (expected I64's maximum beyond I64). */
static int bind_computed(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_param *params, uint32_t count,
                         const cint_gen_array *arrays, int64_t *sizes, uint32_t size_count)
{
    for (uint32_t p = 0; p < count; p++) {
        if (params[p].kind != CINT_GEN_ARRAY) continue;
        const cint_gen_array *a = &arrays[p];
        for (uint32_t d = 0; d < a->rank && d < 4; d++) {
            int64_t expect = 0;
            if (extent_computed(&params[p].dims[d], size_count) &&
                !extent_agrees(&params[p].dims[d], a->shape[d], sizes, size_count, &expect)) {
                int64_t v[3] = {(int64_t)p, (int64_t)d, a->shape[d]};
                return raise_i64(ctx, at, CINT_E_SHAPE, "bind.shape", v, 3, true, expect);
            }
        }
    }
    return 0;
}

#define BIND_FORMED 1u  /* checks 1 to 5 (check 4: the first pass of bind.shape) */
#define BIND_WRITTEN 2u /* checks 6 to 8 */

/* The entry checks of parameter p in the phases `which` (BIND_FORMED, BIND_WRITTEN or both). */
static int bind_param(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_param *params, uint32_t count,
                      cint_gen_array *arrays, int64_t *sizes, uint32_t size_count, bool host, bool kernel,
                      uint32_t p, unsigned which)
{
    {
        const cint_gen_param *pr = &params[p];
        cint_gen_array *a = &arrays[p];
        if (pr->kind != CINT_GEN_ARRAY && pr->kind != CINT_GEN_STRUCT) return 0;
        bool written = pr->mode != CINT_MODE_IN;
        int64_t ip = (int64_t)p;
        if (pr->kind == CINT_GEN_STRUCT) { /* formed whole at entry (7.3 A-13): only the overlap check */
            if (!written || !(which & BIND_WRITTEN)) return 0;
            goto alias;
        }
        if (!(which & BIND_FORMED)) goto written;
        /* 1. bind.stale */
        if (host && a->generation != a->reg_generation) {
            cint_tvalue ops[2], lim;
            cint_tv_i64(&ops[0], ip);
            cint_tv_u64(&ops[1], a->generation);
            cint_tv_u64(&lim, a->reg_generation);
            return raise_ops(ctx, at, CINT_E_STALE_HANDLE, "bind.stale", ops, 2, &lim);
        }
        /* 2. bind.permission */
        if (written && a->perm != CINT_VIEW_WRITE)
            return raise_i64(ctx, at, CINT_E_ALIAS, "bind.permission", &ip, 1, false, 0);
        /* 3. bind.type: the element type, then the rank */
        if (!rt_type_equal(&a->type, &pr->type))
            return raise_i64(ctx, at, CINT_E_UNSUPPORTED, "bind.type", &ip, 1, false, 0);
        if (a->rank != pr->rank) {
            int64_t v[2] = {ip, (int64_t)a->rank};
            return raise_i64(ctx, at, CINT_E_SHAPE, "bind.type", v, 2, true, (int64_t)pr->rank);
        }
        /* 4. bind.shape (its first pass: computed extents wait for bind_computed) */
        for (uint32_t d = 0; d < a->rank; d++) {
            int64_t expect = 0;
            if (!extent_computed(&pr->dims[d], size_count) &&
                !extent_agrees(&pr->dims[d], a->shape[d], sizes, size_count, &expect)) {
                int64_t v[3] = {ip, (int64_t)d, a->shape[d]};
                return raise_i64(ctx, at, CINT_E_SHAPE, "bind.shape", v, 3, true, expect);
            }
        }
        /* 5. bind.placement: a CPU context has no device, so every view is in place. */
        if (!(which & BIND_WRITTEN)) return 0;
    written:
        if (!written) return 0;
        /* 6. bind.injective */
        int inj = injective(ctx, a);
        if (inj < 0) return rt_resource(ctx, at);
        if (!inj) return raise_i64(ctx, at, CINT_E_ALIAS, "bind.injective", &ip, 1, false, 0);
    alias:
        /* 7. bind.alias: against every other array (or struct view) argument, by byte ranges (H-13) */
        for (uint32_t q = 0; q < count; q++) {
            if (q == p || params[q].kind == CINT_GEN_SCALAR || !overlap(a, &arrays[q])) continue;
            int64_t v[2] = {ip, (int64_t)q};
            return raise_i64(ctx, at, CINT_E_ALIAS, "bind.alias", v, 2, false, 0);
        }
        /* 8. bind.limit (6.4): a borrowed output of a host-issued dispatch needs publish copy */
        if (host && kernel && pr->kind == CINT_GEN_ARRAY && a->owner == CINT_OWNER_BORROWED && a->publish != CINT_PUBLISH_COPY)
            return raise_i64(ctx, at, CINT_E_UNSUPPORTED, "bind.limit", &ip, 1, false, 0);
    }
    return 0;
}

int rt_bind_checks(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_param *params, uint32_t count,
                   cint_gen_array *arrays, int64_t *sizes, uint32_t size_count, bool host, bool kernel)
{
    if (params_computed(params, count, size_count)) { /* checks 1 to 5, the second pass, checks 6 to 8 */
        for (uint32_t p = 0; p < count; p++)
            if (bind_param(ctx, at, params, count, arrays, sizes, size_count, host, kernel, p, BIND_FORMED))
                return 1;
        if (bind_computed(ctx, at, params, count, arrays, sizes, size_count)) return 1;
        for (uint32_t s = 0; s < size_count; s++)
            if (sizes[s] == CINT_GEN_NO_SIZE) sizes[s] = 0;
        for (uint32_t p = 0; p < count; p++)
            if (bind_param(ctx, at, params, count, arrays, sizes, size_count, host, kernel, p, BIND_WRITTEN))
                return 1;
        return 0;
    }
    for (uint32_t p = 0; p < count; p++)
        if (bind_param(ctx, at, params, count, arrays, sizes, size_count, host, kernel, p, BIND_FORMED | BIND_WRITTEN))
            return 1;
    for (uint32_t s = 0; s < size_count; s++)
        if (sizes[s] == CINT_GEN_NO_SIZE) sizes[s] = 0;
    return 0;
}

/* --- dispatches (6.4) ---------------------------------------------------------------------- */

static int add_copy(cint_ctx *ctx, const cint_gen_at *at, uint32_t param, uint32_t reason, cint_type type,
                    int64_t count)
{
    void *items = ctx->copies;
    if (!rt_grow(ctx, &items, &ctx->copy_cap, ctx->copy_count + 1u, sizeof(cint_copy))) return rt_resource(ctx, at);
    ctx->copies = items;
    cint_copy *c = &ctx->copies[ctx->copy_count++];
    c->param = param;
    c->reason = reason;
    c->type = type;
    c->count = count;
    return 0;
}

/* Ends the staging of the open dispatch: restores the arrays and hands every staging block
   back to the staging cache, which then keeps at most the largest staging total of the recent
   dispatches. */
static void free_stages(cint_ctx *ctx)
{
    for (uint32_t k = 0; k < ctx->stage_count; k++) {
        rt_stage *st = &ctx->stages[k];
        ctx->dispatch_arrays[st->param] = st->own;
        rt_stage_give(ctx, st->mem, st->cap);
        st->mem = NULL;
    }
    ctx->stage_count = 0;
    rt_stage_trim(ctx);
}

/* Whether a completed dispatch may publish stage st by renaming (LS-254): a host-issued
   dispatch, whose output is a buffer the runtime created, with no live lease, viewed whole in
   row-major order; the block then becomes the buffer's storage (M-9) and the old storage goes
   to the staging cache. Only the wrapper's own arrays point at the storage during the entry,
   and they are restored with the new address. */
static rt_slot *rename_slot(cint_ctx *ctx, const rt_stage *st)
{
    const cint_gen_array *a = &st->own;
    if (!ctx->dispatch_host || a->owner != CINT_OWNER_RUNTIME || a->origin != 0) return NULL;
    rt_slot *s = rt_find(ctx, a->buffer);
    if (s == NULL || s->owner != CINT_OWNER_RUNTIME || s->leases > 0 || s->base != a->data || s->bytes != st->bytes)
        return NULL;
    rt_runs r;
    rt_runs_begin(&r, a);
    return (r.left == 1 && r.step == 1) ? s : NULL;
}

static int where_check(cint_ctx *ctx, const cint_gen_at *at, const int64_t *sizes, cint_gen_where_fn where)
{
    int64_t ops[3] = {0, 0, 0};
    int n = where(sizes, ops);
    if (n <= 0) return 0;
    return raise_i64(ctx, at, CINT_E_SHAPE, "bind.where", ops, (uint16_t)(n < 3 ? n : 3), false, 0);
}

static int dispatch_begin(cint_ctx *ctx, const cint_gen_kernel *k, const cint_gen_at *at, cint_gen_array *arrays,
                          int64_t *sizes, int64_t *items, bool host, cint_gen_where_fn where)
{
    if (ctx->entry_faulted) return 1;
    ctx->dispatching = true;
    ctx->kernel = k;
    ctx->dispatch_number = ctx->dispatch_next++;
    ctx->phase = CINT_PHASE_ENTRY;
    ctx->dispatch_arrays = arrays;
    ctx->dispatch_host = host;
    ctx->stage_count = 0;
    for (uint32_t s = 0; s < k->size_count; s++) sizes[s] = CINT_GEN_NO_SIZE;
    if (where == NULL) {
        if (rt_bind_checks(ctx, at, k->params, k->param_count, arrays, sizes, k->size_count, host, true)) return 1;
    } else { /* checks 1 to 5 over every parameter, the clause (F-5 check 5), then checks 6 to 8 */
        for (uint32_t p = 0; p < k->param_count; p++)
            if (bind_param(ctx, at, k->params, k->param_count, arrays, sizes, k->size_count, host, true, p, BIND_FORMED))
                return 1;
        if (bind_computed(ctx, at, k->params, k->param_count, arrays, sizes, k->size_count)) return 1;
        for (uint32_t s = 0; s < k->size_count; s++)
            if (sizes[s] == CINT_GEN_NO_SIZE) sizes[s] = 0;
        if (where_check(ctx, at, sizes, where)) return 1;
        for (uint32_t p = 0; p < k->param_count; p++)
            if (bind_param(ctx, at, k->params, k->param_count, arrays, sizes, k->size_count, host, true, p, BIND_WRITTEN))
                return 1;
    }

    /* admission (IM-112): the product of the over extents is at most M64 */
    int64_t ext[4], n = 1;
    bool over = false;
    for (uint32_t d = 0; d < k->over_rank; d++) {
        int64_t e = 0;
        const cint_gen_extent *x = &k->over[d];
        if (x->sym != CINT_SIG_NO_SYMBOL && x->sym < k->size_count) over |= __builtin_add_overflow(sizes[x->sym], x->offset, &e);
        else e = x->offset;
        ext[d] = e < 0 ? 0 : e;
        over |= __builtin_mul_overflow(n, ext[d], &n);
    }
    if (over) {
        /* the exact product of at most four extents below 2^63: 4 x 64-bit limbs */
        uint64_t prod[5] = {1, 0, 0, 0, 0};
        for (uint32_t d = 0; d < k->over_rank; d++) {
            uint64_t carry = 0;
            for (unsigned l = 0; l < 5; l++) {
                uint64_t a = prod[l], b = (uint64_t)ext[d];
                uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
                uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
                uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
                uint64_t lo = (p00 & 0xFFFFFFFFu) | (mid << 32);
                uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
                lo += carry;
                hi += lo < carry;
                prod[l] = lo;
                carry = hi;
            }
        }
        uint8_t bytes[41];
        for (unsigned b = 0; b < 40; b++) bytes[b] = (uint8_t)(prod[b / 8] >> (8u * (b % 8)));
        bytes[40] = 0; /* positive */
        cint_tvalue ops[4];
        for (uint32_t d = 0; d < k->over_rank; d++) cint_tv_i64(&ops[d], ext[d]);
        cint_gen_fault f;
        memset(&f, 0, sizeof f);
        f.code = CINT_E_SHAPE;
        f.operation = "dispatch.admit";
        f.operands = ops;
        f.operand_count = (uint16_t)k->over_rank;
        f.exact = bytes;
        f.exact_len = sizeof bytes;
        rt_raise(ctx, at, &f);
        return 1;
    }
    if (cint_gen_charge(ctx, at, n)) return 1;

    /* staging (RT-19): every out and inout argument into a block of the staging cache or a
       fresh one; an inout's elements copied in, an out zero-filled unless every completing
       work-item stores its own element (CINT_GEN_PARAM_COVERS), so that no zero of it can
       ever be published */
    void *stages = ctx->stages;
    if (!rt_grow(ctx, &stages, &ctx->stage_cap, k->param_count ? k->param_count : 1u, sizeof(rt_stage)))
        return rt_resource(ctx, at);
    ctx->stages = stages;
    size_t total = 0;
    for (uint32_t p = 0; p < k->param_count; p++) {
        const cint_gen_param *pr = &k->params[p];
        if (pr->kind != CINT_GEN_ARRAY || pr->mode == CINT_MODE_IN) continue;
        cint_gen_array *a = &arrays[p];
        int64_t count = rt_count(a);
        size_t bytes = (size_t)count * (size_t)a->elem_size;
        rt_stage *st = &ctx->stages[ctx->stage_count];
        rt_zero(st, sizeof *st);
        st->param = p;
        st->own = *a;
        st->bytes = bytes;
        st->mem = rt_stage_take(ctx, bytes, &st->cap);
        if (st->mem == NULL) return rt_resource(ctx, at);
        ctx->stage_count++;
        total += st->cap;
        if (pr->mode == CINT_MODE_INOUT) {
            if (count > 0) rt_gather(a, st->mem);
        } else if ((pr->flags & CINT_GEN_PARAM_COVERS) == 0) {
            memset(st->mem, 0, bytes);
        }
        uint32_t reason = a->owner == CINT_OWNER_BORROWED ? CINT_COPY_PUBLISH : CINT_COPY_STAGING;
        if (add_copy(ctx, at, p, reason, a->type, count)) return 1;
        /* the staged array: row-major, same extents and lower bounds */
        a->data = st->mem;
        int64_t stride = 1;
        for (uint32_t d = a->rank; d-- > 0;) {
            a->stride[d] = stride;
            stride *= a->shape[d] ? a->shape[d] : 1;
        }
    }
    rt_stage_note(ctx, total);
    ctx->phase = CINT_PHASE_WORK_ITEM;
    if (!host) { /* decision 3: the dispatch site joins the fault stack (depth - 1 < depth_limit <= frames) */
        ctx->stack[ctx->depth - 1] = at->pos;
        ctx->stack_site = 1;
    }
    *items = n;
    return 0;
}

int cint_gen_dispatch_begin(cint_ctx *ctx, const cint_gen_kernel *k, const cint_gen_at *at, cint_gen_array *arrays,
                            int64_t *sizes, int64_t *items)
{
    return dispatch_begin(ctx, k, at, arrays, sizes, items, false, NULL);
}

int cint_gen_dispatch_begin_where(cint_ctx *ctx, const cint_gen_kernel *k, const cint_gen_at *at,
                                  cint_gen_array *arrays, int64_t *sizes, int64_t *items, cint_gen_where_fn where)
{
    return dispatch_begin(ctx, k, at, arrays, sizes, items, false, where);
}

void cint_gen_dispatch_epilogue(cint_ctx *ctx)
{
    if (ctx->dispatching && !ctx->entry_faulted) ctx->phase = CINT_PHASE_EPILOGUE;
}

void cint_gen_dispatch_end(cint_ctx *ctx)
{
    if (!ctx->dispatching) return;
    if (!ctx->entry_faulted) /* publication (M-30): the dispatch completed */
        for (uint32_t k = 0; k < ctx->stage_count; k++) {
            rt_stage *st = &ctx->stages[k];
            if (st->bytes == 0) continue;
            rt_slot *s = rename_slot(ctx, st);
            if (s != NULL) { /* rename: the block becomes the buffer's storage, no copy */
                uint8_t *old = s->base;
                size_t old_cap = s->alloc;
                s->base = st->mem;
                s->alloc = st->cap;
                st->own.data = st->mem;
                st->mem = old;
                st->cap = old_cap;
            } else {
                rt_scatter(&st->own, st->mem);
            }
        }
    free_stages(ctx);
    ctx->stack_site = 0;
    ctx->dispatching = false;
    ctx->kernel = NULL;
    ctx->dispatch_arrays = NULL;
}

/* --- entries ------------------------------------------------------------------------------- */

static cint_status refuse(cint_ctx *ctx, uint32_t reason)
{
    ctx->refusal = reason;
    rt_release(ctx);
    return CINT_REFUSED;
}

/* A function's host entry with a `where` clause (cint_gen_enter_where): checks 1 to 5 over every
   parameter, the clause, then checks 6 to 8 over every parameter. */
static int bind_where(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_param *params, uint32_t count,
                      cint_gen_array *arrays, int64_t *sizes, uint32_t size_count, cint_gen_where_fn where)
{
    for (uint32_t p = 0; p < count; p++)
        if (bind_param(ctx, at, params, count, arrays, sizes, size_count, true, false, p, BIND_FORMED)) return 1;
    if (bind_computed(ctx, at, params, count, arrays, sizes, size_count)) return 1;
    for (uint32_t s = 0; s < size_count; s++)
        if (sizes[s] == CINT_GEN_NO_SIZE) sizes[s] = 0;
    if (where_check(ctx, at, sizes, where)) return 1;
    for (uint32_t p = 0; p < count; p++)
        if (bind_param(ctx, at, params, count, arrays, sizes, size_count, true, false, p, BIND_WRITTEN)) return 1;
    return 0;
}

static cint_status enter(cint_ctx *ctx, const cint_gen_export *x, int64_t fuel, const cint_gen_arg *args,
                         const void *result, cint_gen_array *arrays, int64_t *sizes, cint_gen_where_fn where)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    if (ctx->fault.code != 0) {
        ctx->refusal = CINT_REFUSAL_NONE;
        rt_release(ctx);
        return CINT_FAULTED;
    }
    if (fuel < CINT_FUEL_UNBOUNDED) return refuse(ctx, CINT_REFUSAL_NONE);

    const bool kernel = x->kind == CINT_EXPORT_KERNEL;
    const cint_gen_param *params = kernel ? x->kernel->params : x->params;
    const uint32_t count = kernel ? x->kernel->param_count : x->param_count;
    const uint32_t size_count = kernel ? x->kernel->size_count : x->size_count;

    /* forming the arguments (7.1 paragraph 3): nothing changes before this succeeds */
    rt_zero(arrays, (size_t)count * sizeof(cint_gen_array));
    bool leased = false;
    for (uint32_t p = 0; p < count; p++) {
        const cint_gen_param *pr = &params[p];
        if (pr->kind == CINT_GEN_ARRAY) {
            rt_slot *s = NULL;
            if (args[p].view == NULL) return refuse(ctx, CINT_REFUSAL_CALL);
            uint32_t why = rt_form_view(ctx, args[p].view, pr->mode != CINT_MODE_OUT, &arrays[p], &s);
            if (why != CINT_REFUSAL_NONE) return refuse(ctx, why);
            if (pr->mode != CINT_MODE_IN && s->leases > 0) leased = true;
        } else if (pr->kind == CINT_GEN_STRUCT) {
            /* 7.3 A-13: a view of exactly one record of the parameter's struct; a view that cannot
               be formed into that struct value is a refused call (docs/runtime.md) */
            const cint_view *v = args[p].view;
            rt_slot *s = NULL;
            if (v == NULL) return refuse(ctx, CINT_REFUSAL_CALL);
            uint32_t why = rt_form_view(ctx, v, true, &arrays[p], &s);
            if (why != CINT_REFUSAL_NONE) return refuse(ctx, why);
            if (!rt_type_equal(&v->type, &pr->type)) return refuse(ctx, CINT_REFUSAL_TYPE);
            if (v->rank != 1u) return refuse(ctx, CINT_REFUSAL_RANK);
            if (v->shape[0] != 1) return refuse(ctx, CINT_REFUSAL_EXTENT);
            if (v->generation != s->generation) return refuse(ctx, CINT_REFUSAL_GENERATION);
            if (pr->mode != CINT_MODE_IN && v->perm != CINT_VIEW_WRITE) return refuse(ctx, CINT_REFUSAL_PERMISSION);
            if (pr->mode != CINT_MODE_IN && s->leases > 0) leased = true;
        } else if (pr->type.code == CINT_TAG_BOOL && args[p].byte > 1u) {
            return refuse(ctx, CINT_REFUSAL_BOOL);
        } else if (pr->type.code >= CINT_TAG_I128 && pr->type.code <= CINT_TAG_I1024 && args[p].byte != 0u) {
            return refuse(ctx, CINT_REFUSAL_CALL); /* a NULL pointer to a wide integer's limbs (7.3 A-13) */
        }
    }
    if (x->has_result && result == NULL) return refuse(ctx, CINT_REFUSAL_RESULT);
    if (leased) { /* 6.3: an output with a live lease runs nothing and records nothing */
        ctx->refusal = CINT_REFUSAL_LEASED;
        rt_release(ctx);
        return CINT_BUSY;
    }

    /* the entry starts */
    ctx->refusal = CINT_REFUSAL_NONE;
    ctx->entries++;
    ctx->in_entry = true;
    ctx->entry_faulted = false;
    ctx->boundary = false;
    ctx->fuel_budget = fuel;
    ctx->fuel.used = 0;
    ctx->fuel.limit = fuel == CINT_FUEL_UNBOUNDED ? INT64_MAX : fuel;
    ctx->depth = 0;
    ctx->stack_site = 0;
    ctx->dispatch_next = 0;
    ctx->error_set = NULL;
    ctx->error_tag = 0;
    ctx->copy_count = 0;
    cint_gen_frame_reset(ctx, 0); /* LS-110: each entry starts with an empty frame arena */
    ctx->frame_elems = 0;
    cint_gen_at at;
    memset(&at, 0, sizeof at);
    at.pos = x->name_site;
    for (uint32_t s = 0; s < size_count; s++) sizes[s] = CINT_GEN_NO_SIZE;

    if (ctx->depth_limit > RT_FRAMES_MAX) { /* IM-185: more frames than the runtime provides */
        int64_t d = ctx->depth_limit;
        raise_i64(ctx, &at, CINT_E_UNSUPPORTED, "call.enter", &d, 1, true, RT_FRAMES_MAX);
        return cint_gen_leave(ctx);
    }
    ctx->depth = 1;
    if (kernel) {
        int64_t items = 0;
        if (dispatch_begin(ctx, x->kernel, &at, arrays, sizes, &items, true, where)) return cint_gen_leave(ctx);
    } else {
        if ((where != NULL ? bind_where(ctx, &at, params, count, arrays, sizes, size_count, where)
                           : rt_bind_checks(ctx, &at, params, count, arrays, sizes, size_count, true, false)) ||
            cint_gen_charge(ctx, &at, 1))
            return cint_gen_leave(ctx);
    }
    return CINT_OK;
}

cint_status cint_gen_enter(cint_ctx *ctx, const cint_gen_export *x, int64_t fuel, const cint_gen_arg *args,
                           const void *result, cint_gen_array *arrays, int64_t *sizes)
{
    return enter(ctx, x, fuel, args, result, arrays, sizes, NULL);
}

cint_status cint_gen_enter_where(cint_ctx *ctx, const cint_gen_export *x, int64_t fuel, const cint_gen_arg *args,
                                 const void *result, cint_gen_array *arrays, int64_t *sizes, cint_gen_where_fn where)
{
    return enter(ctx, x, fuel, args, result, arrays, sizes, where);
}

cint_status cint_gen_leave(cint_ctx *ctx)
{
    cint_gen_dispatch_end(ctx);
    cint_status s = CINT_OK;
    if (ctx->entry_faulted) s = ctx->boundary ? CINT_RESOURCE : CINT_FAULT;
    ctx->in_entry = false;
    ctx->depth = 0;
    rt_release(ctx);
    return s;
}

cint_status cint_gen_refuse_call(cint_ctx *ctx)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    return refuse(ctx, CINT_REFUSAL_CALL);
}

/* --- print statements ---------------------------------------------------------------------- */

int cint_gen_print_begin(cint_ctx *ctx)
{
    ctx->print_len = 0;
    return ctx->entry_faulted ? 1 : 0;
}

int cint_gen_print_bytes(cint_ctx *ctx, const void *bytes, size_t len)
{
    if (ctx->entry_faulted) return 1;
    void *items = ctx->print_buf;
    if (!rt_grow(ctx, &items, &ctx->print_cap, ctx->print_len + len, 1u)) return rt_resource(ctx, NULL);
    ctx->print_buf = items;
    if (len > 0) memcpy(ctx->print_buf + ctx->print_len, bytes, len);
    ctx->print_len += len;
    return 0;
}

int cint_gen_print_u64(cint_ctx *ctx, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - 1u - n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0);
    return cint_gen_print_bytes(ctx, digits + sizeof digits - n, n);
}

int cint_gen_print_i64(cint_ctx *ctx, int64_t v)
{
    if (v < 0) {
        if (cint_gen_print_bytes(ctx, "-", 1)) return 1;
        return cint_gen_print_u64(ctx, (uint64_t)0 - (uint64_t)v);
    }
    return cint_gen_print_u64(ctx, (uint64_t)v);
}

int cint_gen_print_end(cint_ctx *ctx, const cint_gen_at *at)
{
    if (ctx->entry_faulted) return 1;
    if (ctx->output != NULL) {
        static const uint8_t none = 0;
        cint_status s = ctx->output(ctx->output_user, ctx->print_len ? ctx->print_buf : &none, ctx->print_len);
        if (s != CINT_OK) {
            int64_t v = s;
            return raise_i64(ctx, at, CINT_E_UNSUPPORTED, "host.output", &v, 1, false, 0);
        }
    }
    ctx->effects++;
    return 0;
}

/* --- format(buf, "...") (SPEC-04P.1 LS-216) ------------------------------------------------ */

int cint_gen_format_begin(cint_ctx *ctx, size_t *mark)
{
    *mark = ctx->print_len;
    return ctx->entry_faulted ? 1 : 0;
}

int cint_gen_format_end(cint_ctx *ctx, size_t mark, uint8_t *data, int64_t stride, int64_t cap, int64_t *len)
{
    if (ctx->entry_faulted) return 1;
    size_t n = ctx->print_len - mark, k = n;
    const uint8_t *src = n ? ctx->print_buf + mark : NULL;
    int full = 0;
    if (cap < 0) cap = 0;
    if ((uint64_t)n > (uint64_t)cap) {
        k = (size_t)cap;
        while (k > 0 && (src[k] & 0xC0u) == 0x80u) k--;
        full = 1;
    }
    for (size_t i = 0; i < k; i++) data[(int64_t)i * stride] = src[i];
    ctx->print_len = mark;
    *len = (int64_t)k;
    return full ? 2 : 0;
}
