/* containers.c: module arenas, child arenas, pools and handles of a context (docs/language.md decision
   24; the reference is cint_compiler/containers.py: the same operations, records, reasons, no fuel).

   The context owns every container: cint_ctx_create allocates each module arena's and pool's element
   storage at its declared capacity (ctx.c, A-10) and rt_containers_init the tables here; a child arena
   is a region of its root's storage, so only its row is added when it is made. An arena value in
   generated code is its row index; a pool value its row index. */
#include "rt_internal.h"

#define GEN_MAX UINT64_C(0x7FFFFFFFFFFFFFFF)
enum { R_NULL = 1, R_RETIRED = 2, R_GENERATION = 3, R_RANGE = 4, R_VACANT = 5, R_CONTAINER = 6 };

int64_t rt_container_elem_size(const cint_ctx *ctx, const cint_type *t)
{
    if (t->code == CINT_TAG_HANDLE) {
        if (t->storage != 0 || t->reserved0 != 0 || t->frac != 0 || t->reserved1 != 0 || t->record_id != 0 ||
            t->reserved2 != 0)
            return 0;
        return (int64_t)sizeof(cint_handle);
    }
    uint32_t align = 0;
    return rt_elem_size(ctx, t, &align);
}

bool rt_containers_init(cint_ctx *ctx)
{
    const cint_program *p = ctx->program;
    uint32_t na = 0, np = 0;
    for (uint32_t k = 0; k < p->container_count; k++) {
        if (p->containers[k].kind == CINT_CONTAINER_ARENA) na++;
        else np++;
    }
    if (na > 0) {
        ctx->arenas = rt_alloc_zero(ctx, na * sizeof(rt_arena));
        if (ctx->arenas == NULL) return false;
        ctx->arena_cap = na;
    }
    if (np > 0) {
        ctx->pools = rt_alloc_zero(ctx, np * sizeof(rt_pool));
        if (ctx->pools == NULL) return false;
    }
    for (uint32_t k = 0; k < p->container_count; k++) {
        const cint_container_info *c = &p->containers[k];
        int64_t es = rt_container_elem_size(ctx, &c->elem);
        if (c->kind == CINT_CONTAINER_ARENA) {
            rt_arena *a = &ctx->arenas[ctx->arena_count];
            a->id = ctx->arena_count + 1u;
            a->root = k;
            a->parent = UINT32_MAX;
            a->capacity = c->capacity;
            a->esize = es;
            ctx->arena_count++;
        } else {
            rt_pool *q = &ctx->pools[ctx->pool_count];
            q->id = ctx->pool_count + 1u;
            q->k = k;
            q->capacity = c->capacity;
            q->esize = es;
            ctx->pool_count++;
            size_t n = (size_t)(c->capacity > 0 ? c->capacity : 1);
            q->gen = rt_alloc_zero(ctx, n * sizeof(uint64_t));
            q->occ = rt_alloc_zero(ctx, n);
            q->free = rt_alloc_zero(ctx, n * sizeof(uint64_t));
            if (q->gen == NULL || q->occ == NULL || q->free == NULL) return false;
        }
    }
    return true;
}

void rt_pool_free_slots(cint_ctx *ctx, rt_pool *q)
{
    size_t n = (size_t)(q->capacity > 0 ? q->capacity : 1);
    rt_free(ctx, q->gen, n * sizeof(uint64_t));
    rt_free(ctx, q->occ, n);
    rt_free(ctx, q->free, n * sizeof(uint64_t));
}

void rt_containers_free(cint_ctx *ctx)
{
    for (uint32_t k = 0; k < ctx->pool_count; k++)
        rt_pool_free_slots(ctx, &ctx->pools[k]);
    uint32_t np = 0;
    for (uint32_t k = 0; k < ctx->program->container_count; k++)
        if (ctx->program->containers[k].kind != CINT_CONTAINER_ARENA) np++;
    rt_free(ctx, ctx->pools, np * sizeof(rt_pool));
    rt_free(ctx, ctx->arenas, ctx->arena_cap * sizeof(rt_arena));
    ctx->pools = NULL;
    ctx->arenas = NULL;
    ctx->arena_count = ctx->pool_count = 0;
    ctx->arena_cap = 0;
}

/* --- fault records -------------------------------------------------------------------------- */

static int stale(cint_ctx *ctx, const cint_gen_at *at, const char *op, const cint_handle *h, uint64_t cur,
                 uint32_t reason)
{
    cint_tvalue ops[7];
    cint_tv_u64(&ops[0], h->slot);
    cint_tv_i64(&ops[1], h->len);
    cint_tv_u64(&ops[2], h->gen);
    cint_tv_int(&ops[3], CINT_TAG_U32, h->cont);
    cint_tv_int(&ops[4], CINT_TAG_U8, h->kind);
    cint_tv_u64(&ops[5], cur);
    cint_tv_int(&ops[6], CINT_TAG_U8, reason);
    const cint_gen_fault f = {CINT_E_STALE_HANDLE, 7u, 0u, op, ops, NULL, NULL};
    return cint_gen_raise(ctx, at, &f);
}

static int bounds3(cint_ctx *ctx, const cint_gen_at *at, const char *op, int64_t a, int64_t b, int64_t c)
{
    cint_tvalue ops[3];
    cint_tv_i64(&ops[0], a);
    cint_tv_i64(&ops[1], b);
    cint_tv_i64(&ops[2], c);
    const cint_gen_fault f = {CINT_E_BOUNDS, 3u, 0u, op, ops, NULL, NULL};
    return cint_gen_raise(ctx, at, &f);
}

/* --- arenas ---------------------------------------------------------------------------------- */

static int live(cint_ctx *ctx, const cint_gen_at *at, const rt_arena *a, const char *op)
{
    if (!a->retired) return 0;
    cint_handle ph = {0u, a->capacity, a->generation, (uint32_t)a->id, CINT_HANDLE_ARENA};
    return stale(ctx, at, op, &ph, a->generation, R_RETIRED);
}

static uint8_t *arena_elem(cint_ctx *ctx, const rt_arena *a, int64_t k)
{
    return ctx->containers[a->root] + (a->base + k) * a->esize;
}

static int alloc(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, cint_handle *out, int *full)
{
    rt_arena *a = &ctx->arenas[arena];
    if (live(ctx, at, a, "arena.alloc")) return 1;
    if (n < 0 || n > a->capacity - a->used) {
        if (full != NULL) {
            *full = 1;
            return 0;
        }
        return bounds3(ctx, at, "arena.alloc", n, a->used, a->capacity);
    }
    if (n > 0) memset(arena_elem(ctx, a, a->used), 0, (size_t)(n * a->esize));
    cint_handle h = {(uint64_t)a->used, n, a->generation, (uint32_t)a->id, CINT_HANDLE_ARENA};
    *out = h;
    a->used += n;
    if (full != NULL) *full = 0;
    return 0;
}

int cint_gen_arena_alloc(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, cint_handle *out)
{
    return alloc(ctx, at, arena, n, out, NULL);
}

int cint_gen_arena_alloc_result(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, cint_handle *out,
                                int *full)
{
    return alloc(ctx, at, arena, n, out, full);
}

int cint_gen_arena_child(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, uint32_t *out)
{
    rt_arena *a = &ctx->arenas[arena];
    if (live(ctx, at, a, "arena.alloc")) return 1;
    if (n < 0 || n > a->capacity - a->used) return bounds3(ctx, at, "arena.alloc", n, a->used, a->capacity);
    if (ctx->arena_count == UINT32_MAX - 1u || ctx->next_arena == UINT64_MAX) return rt_resource(ctx, at);
    void *rows = ctx->arenas;
    if (!rt_grow(ctx, &rows, &ctx->arena_cap, (size_t)ctx->arena_count + 1u, sizeof(rt_arena)))
        return rt_resource(ctx, at);
    ctx->arenas = rows;
    a = &ctx->arenas[arena];
    rt_arena *c = &ctx->arenas[ctx->arena_count];
    memset(c, 0, sizeof *c);
    c->id = ctx->next_arena++;
    c->root = a->root;
    c->parent = arena;
    c->base = a->base + a->used;
    c->offset = a->used;
    c->capacity = n;
    c->esize = a->esize;
    a->used += n;
    *out = ctx->arena_count++;
    return 0;
}

int cint_gen_arena_reset(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena)
{
    rt_arena *a = &ctx->arenas[arena];
    if (live(ctx, at, a, "arena.reset")) return 1;
    a->used = 0;
    /* every descendant is retired (a child's row comes after its parent's) */
    a->mark = 1u;
    for (uint32_t k = arena + 1u; k < ctx->arena_count; k++) {
        rt_arena *c = &ctx->arenas[k];
        if (c->parent != UINT32_MAX && ctx->arenas[c->parent].mark) {
            c->mark = 1u;
            c->retired = 1u;
        }
    }
    for (uint32_t k = arena; k < ctx->arena_count; k++) ctx->arenas[k].mark = 0u;
    if (a->generation >= GEN_MAX) a->retired = 1u; /* no generation left: the arena retires itself */
    else a->generation++;
    return 0;
}

static int check_arena(cint_ctx *ctx, const cint_gen_at *at, const rt_arena *a, const cint_handle *h)
{
    const char *op = "handle.check";
    if (h->kind == CINT_HANDLE_NULL) return stale(ctx, at, op, h, 0u, R_NULL);
    if (h->kind != CINT_HANDLE_ARENA || h->cont != a->id) return stale(ctx, at, op, h, 0u, R_CONTAINER);
    if (a->retired) return stale(ctx, at, op, h, a->generation, R_RETIRED);
    if (h->gen != a->generation) return stale(ctx, at, op, h, a->generation, R_GENERATION);
    if (h->len < 0 || h->slot > (uint64_t)a->used || (uint64_t)h->len > (uint64_t)a->used - h->slot)
        return stale(ctx, at, op, h, a->generation, R_RANGE);
    return 0;
}

int cint_gen_arena_view(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, const cint_handle *h,
                        cint_gen_array *out)
{
    const rt_arena *a = &ctx->arenas[arena];
    if (check_arena(ctx, at, a, h)) return 1;
    const cint_container_info *c = &ctx->program->containers[a->root];
    memset(out, 0, sizeof *out);
    out->data = arena_elem(ctx, a, (int64_t)h->slot);
    out->elem_size = a->esize;
    out->rank = 1u;
    out->perm = CINT_VIEW_WRITE;
    out->shape[0] = h->len;
    out->stride[0] = 1;
    out->type = c->elem;
    out->buffer = arena;
    out->generation = h->gen;
    out->reg_generation = h->slot;
    out->origin = h->len;
    out->owner = CINT_OWNER_ARENA;
    return 0;
}

int cint_gen_arena_recheck(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *v)
{
    const rt_arena *a = &ctx->arenas[v->buffer];
    cint_handle h = {v->reg_generation, v->origin, v->generation, (uint32_t)a->id, CINT_HANDLE_ARENA};
    return check_arena(ctx, at, a, &h);
}

/* --- pools ----------------------------------------------------------------------------------- */

static int insert(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const void *value, cint_handle *out,
                  int *full)
{
    rt_pool *q = &ctx->pools[pool];
    int64_t k;
    if (q->free_count > 0) k = (int64_t)q->free[--q->free_count];
    else if (q->slots < q->capacity) k = q->slots++;
    else {
        if (full != NULL) {
            *full = 1;
            return 0;
        }
        return bounds3(ctx, at, "pool.insert", q->slots - q->free_count - q->retired, q->retired, q->capacity);
    }
    q->occ[k] = 1u;
    memmove(ctx->containers[q->k] + k * q->esize, value, (size_t)q->esize);
    cint_handle h = {(uint64_t)k, 1, q->gen[k], (uint32_t)q->id, CINT_HANDLE_POOL};
    *out = h;
    if (full != NULL) *full = 0;
    return 0;
}

int cint_gen_pool_insert(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const void *value, cint_handle *out)
{
    return insert(ctx, at, pool, value, out, NULL);
}

int cint_gen_pool_insert_result(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const void *value,
                                cint_handle *out, int *full)
{
    return insert(ctx, at, pool, value, out, full);
}

static int check_pool(cint_ctx *ctx, const cint_gen_at *at, const rt_pool *q, const cint_handle *h)
{
    const char *op = "pool.deref";
    if (h->kind == CINT_HANDLE_NULL) return stale(ctx, at, op, h, 0u, R_NULL);
    if (h->kind != CINT_HANDLE_POOL || h->cont != q->id) return stale(ctx, at, op, h, 0u, R_CONTAINER);
    if (h->slot >= (uint64_t)q->slots) return stale(ctx, at, op, h, 0u, R_RANGE);
    uint64_t g = q->gen[h->slot];
    if (h->gen != g) return stale(ctx, at, op, h, g, R_GENERATION);
    if (!q->occ[h->slot]) return stale(ctx, at, op, h, g, R_VACANT);
    return 0;
}

int cint_gen_pool_deref(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const cint_handle *h, void **out)
{
    const rt_pool *q = &ctx->pools[pool];
    if (check_pool(ctx, at, q, h)) return 1;
    *out = ctx->containers[q->k] + (int64_t)h->slot * q->esize;
    return 0;
}

int cint_gen_pool_remove(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const cint_handle *h)
{
    rt_pool *q = &ctx->pools[pool];
    if (check_pool(ctx, at, q, h)) return 1;
    q->occ[h->slot] = 0u;
    if (q->gen[h->slot] >= GEN_MAX) {
        q->retired++; /* its generation cannot advance: never reused */
        return 0;
    }
    q->gen[h->slot]++;
    q->free[q->free_count++] = h->slot;
    return 0;
}
