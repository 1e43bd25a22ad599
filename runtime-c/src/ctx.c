/* ctx.c: contexts (7.2 paragraphs 4 to 7, A-10), allocation, the busy flag and the
   readers of 7.1. No mutable static data: every state lives in a cint_ctx. */
#include <stdlib.h>

#include "rt_internal.h"

/* --- allocation ------------------------------------------------------------------------- */

static void *default_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    (void)align; /* malloc's alignment (16 on x86-64 and AArch64) covers every request */
    return malloc(size);
}

static void default_release(void *user, void *ptr, size_t size, size_t align)
{
    (void)user;
    (void)size;
    (void)align;
    free(ptr);
}

void *rt_alloc(cint_ctx *ctx, size_t size)
{
    return ctx->allocator.alloc(ctx->allocator.user, size ? size : 1u, 16u);
}

void *rt_alloc_zero(cint_ctx *ctx, size_t size)
{
    void *p = rt_alloc(ctx, size);
    if (p != NULL) memset(p, 0, size ? size : 1u);
    return p;
}

void rt_zero(void *p, size_t n) { memset(p, 0, n); }

void rt_free(cint_ctx *ctx, void *p, size_t size)
{
    if (p != NULL) ctx->allocator.release(ctx->allocator.user, p, size ? size : 1u, 16u);
}

bool rt_grow(cint_ctx *ctx, void **items, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 8u;
    while (n < need) {
        if (n > SIZE_MAX / 2u) return false;
        n *= 2u;
    }
    if (n > SIZE_MAX / item_size) return false;
    void *p = rt_alloc(ctx, n * item_size);
    if (p == NULL) return false;
    if (*cap) memcpy(p, *items, *cap * item_size);
    rt_free(ctx, *items, *cap * item_size);
    *items = p;
    *cap = n;
    return true;
}

/* --- the staging cache (6.4, RT-19) ----------------------------------------------------------- */

static void cache_drop(cint_ctx *ctx, uint32_t k)
{
    rt_block b = ctx->cache[k];
    memmove(&ctx->cache[k], &ctx->cache[k + 1u], (size_t)(ctx->cache_count - k - 1u) * sizeof(rt_block));
    ctx->cache_count--;
    ctx->cache_bytes -= b.cap;
    rt_free(ctx, b.mem, b.cap);
}

void rt_stage_clear(cint_ctx *ctx)
{
    while (ctx->cache_count > 0) cache_drop(ctx, 0);
}

uint8_t *rt_stage_take(cint_ctx *ctx, size_t bytes, size_t *cap)
{
    size_t need = bytes ? bytes : 1u;
    /* the smallest cached block that holds need bytes with at most a quarter (and 4 KiB) to
       spare, so that a renamed block never makes a buffer hold much more than its bytes */
    size_t slack = need / 4u + 4096u;
    uint32_t best = ctx->cache_count;
    for (uint32_t k = 0; k < ctx->cache_count; k++) {
        size_t c = ctx->cache[k].cap;
        if (c >= need && c - need <= slack && (best == ctx->cache_count || c < ctx->cache[best].cap)) best = k;
    }
    if (best < ctx->cache_count) {
        rt_block b = ctx->cache[best];
        memmove(&ctx->cache[best], &ctx->cache[best + 1u], (size_t)(ctx->cache_count - best - 1u) * sizeof(rt_block));
        ctx->cache_count--;
        ctx->cache_bytes -= b.cap;
        *cap = b.cap;
        return b.mem;
    }
    uint8_t *p = rt_alloc(ctx, need);
    if (p == NULL && ctx->cache_count > 0) {
        rt_stage_clear(ctx);
        p = rt_alloc(ctx, need);
    }
    *cap = need;
    return p;
}

void rt_stage_give(cint_ctx *ctx, uint8_t *mem, size_t cap)
{
    if (mem == NULL) return;
    if (ctx->cache_count == RT_STAGE_CACHE) cache_drop(ctx, 0);
    ctx->cache[ctx->cache_count].mem = mem;
    ctx->cache[ctx->cache_count].cap = cap;
    ctx->cache_count++;
    ctx->cache_bytes += cap;
}

void rt_stage_note(cint_ctx *ctx, size_t total)
{
    ctx->stage_recent[ctx->stage_recent_next] = total;
    ctx->stage_recent_next = (ctx->stage_recent_next + 1u) % RT_STAGE_RECENT;
}

void rt_stage_trim(cint_ctx *ctx)
{
    size_t limit = 0;
    for (uint32_t k = 0; k < RT_STAGE_RECENT; k++)
        if (ctx->stage_recent[k] > limit) limit = ctx->stage_recent[k];
    /* first the oldest block larger than the limit, then the smallest blocks: the large
       ones are the costly ones to allocate and fault in again */
    while (ctx->cache_bytes > limit) {
        uint32_t pick = ctx->cache_count, smallest = 0;
        for (uint32_t k = 0; k < ctx->cache_count; k++) {
            if (ctx->cache[k].cap > limit && pick == ctx->cache_count) pick = k;
            if (ctx->cache[k].cap < ctx->cache[smallest].cap) smallest = k;
        }
        cache_drop(ctx, pick < ctx->cache_count ? pick : smallest);
    }
}

/* --- the busy flag ------------------------------------------------------------------------ */

/* The flag is the one mutable field that a reader with a const pointer touches; the context
   itself is never a const object, since only cint_ctx_create makes contexts. */
bool rt_acquire(const cint_ctx *ctx)
{
    return atomic_exchange(&((cint_ctx *)ctx)->busy, 1) == 0;
}

void rt_release(const cint_ctx *ctx)
{
    atomic_store(&((cint_ctx *)ctx)->busy, 0);
}

/* --- creation ----------------------------------------------------------------------------- */

RT_API uint32_t cint_abi_version(void) { return CINT_ABI_VERSION; }

static bool name_ok(const char *p, uint32_t len) { return len == 0 || p != NULL; }

/* The value-set table (cint_rt.h): in increasing (record, row) order, a row of the globals table
   inside it, a known kind and width, an enum's values non-empty and in increasing memcmp order. */
static bool value_sets_ok(const cint_program *p)
{
    if (p->value_set_count > 0 && p->value_sets == NULL) return false;
    for (uint32_t k = 0; k < p->value_set_count; k++) {
        const cint_value_set *v = &p->value_sets[k];
        if (k > 0) {
            const cint_value_set *u = &p->value_sets[k - 1];
            if (u->record > v->record || (u->record == v->record && u->row >= v->row)) return false;
        }
        if (v->record == CINT_VALUES_GLOBALS && v->row >= p->global_count) return false;
        if (v->record == CINT_VALUES_CONTAINERS && v->row >= p->container_count) return false;
        if (v->width == 0 || v->width > 128u) return false;
        if (v->kind == CINT_VALUES_ERROR_SET) {
            if (v->width > 8u || v->values != NULL) return false;
        } else if (v->kind == CINT_VALUES_ENUM) {
            if (v->count == 0 || v->values == NULL) return false;
            for (uint32_t j = 1; j < v->count; j++)
                if (memcmp(v->values + (size_t)(j - 1u) * v->width, v->values + (size_t)j * v->width, v->width) >= 0)
                    return false;
        } else {
            return false;
        }
    }
    return true;
}

/* The checks of a program descriptor that cint_ctx_create makes ("an invalid one", A-10). */
static bool program_ok(const cint_program *p)
{
    if (p->size != sizeof(cint_program) || (p->abi >> 16) != CINT_ABI_MAJOR) return false;
    if ((p->flags & ~(CINT_PROGRAM_HAS_REVISION | CINT_PROGRAM_HAS_SOURCE_MAP)) != 0) return false;
    if (p->module_count == 0 || p->modules == NULL) return false;
    if (p->backend != CINT_BACKEND_CPU_C17 && p->backend != CINT_BACKEND_GPU_CUDA) return false;
    for (uint32_t k = 0; k < p->module_count; k++) {
        const cint_module *m = p->modules[k];
        if (m == NULL || !name_ok(m->path, m->path_len) || !name_ok(m->name, m->name_len)) return false;
        if (m->site_count > 0 && m->sites == NULL) return false;
    }
    if (p->globals_size > (uint64_t)INT64_MAX) return false;
    if (p->globals_align == 0 || p->globals_align > 16 || (p->globals_align & (p->globals_align - 1)) != 0)
        return false;
    if ((p->global_count > 0 && p->globals == NULL) || (p->container_count > 0 && p->containers == NULL))
        return false;
    for (uint32_t k = 0; k < p->container_count; k++) {
        const cint_container_info *c = &p->containers[k];
        if ((c->kind != CINT_CONTAINER_ARENA && c->kind != CINT_CONTAINER_POOL) || c->capacity < 0) return false;
    }
    return value_sets_ok(p);
}

static void ctx_free_storage(cint_ctx *ctx)
{
    for (uint32_t k = 0; k < ctx->slot_count; k++)
        if (ctx->slots[k].owner == CINT_OWNER_RUNTIME) rt_free(ctx, ctx->slots[k].base, ctx->slots[k].alloc);
    rt_free(ctx, ctx->slots, (size_t)ctx->slot_cap * sizeof(rt_slot));
    rt_free(ctx, ctx->leases, ctx->lease_cap * sizeof(rt_lease));
    rt_free(ctx, ctx->globals, ctx->globals_bytes);
    rt_containers_free(ctx);
    if (ctx->containers != NULL) {
        for (uint32_t k = 0; k < ctx->program->container_count; k++)
            rt_free(ctx, ctx->containers[k], ctx->container_bytes[k]);
        rt_free(ctx, ctx->containers, ctx->program->container_count * sizeof(uint8_t *));
        rt_free(ctx, ctx->container_bytes, ctx->program->container_count * sizeof(size_t));
    }
    rt_free(ctx, ctx->stack, (size_t)ctx->frames * sizeof(cint_position));
    rt_free(ctx, ctx->fault_stack, (size_t)ctx->frames * sizeof(cint_position));
    rt_free(ctx, ctx->fault_name, ctx->fault_name_cap);
    for (uint32_t k = 0; k < ctx->stage_count; k++) rt_free(ctx, ctx->stages[k].mem, ctx->stages[k].cap);
    rt_free(ctx, ctx->stages, ctx->stage_cap * sizeof(rt_stage));
    rt_stage_clear(ctx);
    rt_free(ctx, ctx->copies, ctx->copy_cap * sizeof(cint_copy));
    rt_free(ctx, ctx->print_buf, ctx->print_cap);
    for (uint32_t k = 0; k < ctx->frame_chunk_count; k++)
        rt_free(ctx, ctx->frame_chunks[k].mem, ctx->frame_chunks[k].size);
    rt_free(ctx, ctx->frame_chunks, ctx->frame_chunk_cap * sizeof(rt_frame_chunk));
}

/* The instruction-set extensions of this CPU that generated code may choose a copy of its fast blocks
   for (CINT_GEN_ISA_*), asked of the compiler's CPU detection once per context. */
static uint32_t rt_isa(void)
{
    uint32_t isa = 0;
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) isa |= CINT_GEN_ISA_AVX2;
#endif
    return isa;
}

uint32_t cint_gen_isa(const cint_ctx *ctx)
{
    return ctx->isa;
}

RT_API cint_status cint_ctx_create(const cint_ctx_config *config, cint_ctx **out)
{
    if (config == NULL || out == NULL || config->size != sizeof(cint_ctx_config)) return CINT_REFUSED;
    const cint_program *p = config->program;
    if (p == NULL || !program_ok(p)) return CINT_REFUSED;
    if ((config->allocator.alloc == NULL) != (config->allocator.release == NULL)) return CINT_REFUSED;
    if (config->depth_limit < 0 || config->frame_arena_bytes < 0) return CINT_REFUSED;
    if (config->module != NULL) {
        const cint_module_info *m = config->module;
        if (m->size != sizeof(cint_module_info) || (m->abi >> 16) != CINT_ABI_MAJOR || m->program != p ||
            m->module >= p->module_count || (m->record_count > 0 && m->records == NULL))
            return CINT_REFUSED;
    }
    if (config->reserved != 0 || config->device_count != 0 || config->devices != NULL) return CINT_REFUSED;

    cint_allocator a = config->allocator;
    if (a.alloc == NULL) {
        a.alloc = default_alloc;
        a.release = default_release;
    }
    cint_ctx *ctx = a.alloc(a.user, sizeof(cint_ctx), 16u);
    if (ctx == NULL) return CINT_RESOURCE;
    memset(ctx, 0, sizeof *ctx);
    atomic_init(&ctx->busy, 0);
    ctx->allocator = a;
    ctx->program = p;
    ctx->module = config->module;
    ctx->output = config->output;
    ctx->output_user = config->output_user;
    ctx->depth_limit = config->depth_limit ? config->depth_limit : RT_DEFAULT_DEPTH;
    ctx->frame_arena_bytes = config->frame_arena_bytes ? config->frame_arena_bytes : RT_DEFAULT_FRAME_ARENA;
    ctx->frame_elems_cap = ctx->frame_arena_bytes / 8; /* LS-110: the capacity in 8-byte elements */
    ctx->max_buffers = config->max_buffers ? config->max_buffers : RT_DEFAULT_MAX_BUFFERS;
    ctx->next_buffer = 1;
    ctx->next_lease = 1;
    ctx->next_arena = 1;
    ctx->next_pool = 1;
    ctx->fuel_budget = CINT_FUEL_UNBOUNDED;
    ctx->fuel.limit = INT64_MAX;
    ctx->isa = rt_isa();
    ctx->frames = (uint32_t)(ctx->depth_limit < RT_FRAMES_MAX ? ctx->depth_limit : RT_FRAMES_MAX);

    bool ok = true;
    ctx->stack = rt_alloc_zero(ctx, (size_t)ctx->frames * sizeof(cint_position));
    ctx->fault_stack = rt_alloc_zero(ctx, (size_t)ctx->frames * sizeof(cint_position));
    ok = ctx->stack != NULL && ctx->fault_stack != NULL;
    if (ok && p->globals_size > 0) {
        ctx->globals_bytes = (size_t)p->globals_size;
        ctx->globals = rt_alloc_zero(ctx, ctx->globals_bytes);
        ok = ctx->globals != NULL;
        if (ok && p->globals_init != NULL) memcpy(ctx->globals, p->globals_init, ctx->globals_bytes);
    }
    if (ok && p->container_count > 0) {
        ctx->containers = rt_alloc_zero(ctx, p->container_count * sizeof(uint8_t *));
        ctx->container_bytes = rt_alloc_zero(ctx, p->container_count * sizeof(size_t));
        ok = ctx->containers != NULL && ctx->container_bytes != NULL;
        for (uint32_t k = 0; ok && k < p->container_count; k++) {
            const cint_container_info *c = &p->containers[k];
            int64_t es = rt_container_elem_size(ctx, &c->elem); /* containers.c: handles too */
            int64_t bytes = 0;
            ok = es > 0 && !__builtin_mul_overflow(es, c->capacity, &bytes);
            if (ok) {
                ctx->containers[k] = rt_alloc_zero(ctx, (size_t)(bytes ? bytes : 1));
                ctx->container_bytes[k] = (size_t)(bytes ? bytes : 1);
                ok = ctx->containers[k] != NULL;
                if (c->kind == CINT_CONTAINER_ARENA) ctx->next_arena++;
                else ctx->next_pool++;
            } else {
                /* an element type the runtime cannot size is an invalid program */
                ctx_free_storage(ctx);
                a.release(a.user, ctx, sizeof(cint_ctx), 16u);
                return CINT_REFUSED;
            }
        }
    }
    if (ok && p->container_count > 0) ok = rt_containers_init(ctx); /* the arena and pool tables */
    if (!ok) {
        ctx_free_storage(ctx);
        a.release(a.user, ctx, sizeof(cint_ctx), 16u);
        return CINT_RESOURCE;
    }
    *out = ctx;
    return CINT_OK;
}

RT_API void cint_ctx_destroy(cint_ctx *ctx)
{
    if (ctx == NULL) return;
    cint_allocator a = ctx->allocator;
    ctx_free_storage(ctx);
    a.release(a.user, ctx, sizeof(cint_ctx), 16u);
}

/* --- the readers of 7.1 --------------------------------------------------------------------- */

RT_API cint_status cint_ctx_refusal(const cint_ctx *ctx, uint32_t *reason)
{
    if (ctx == NULL || reason == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    *reason = ctx->refusal;
    rt_release(ctx);
    return CINT_OK;
}

RT_API cint_status cint_ctx_error(const cint_ctx *ctx, const cint_error_set **set, uint64_t *tag)
{
    if (ctx == NULL || set == NULL || tag == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    *set = ctx->error_set;
    *tag = ctx->error_tag;
    rt_release(ctx);
    return CINT_OK;
}

RT_API cint_status cint_fuel_consumed(const cint_ctx *ctx, int64_t *out)
{
    if (ctx == NULL || out == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    *out = ctx->fuel.used;
    rt_release(ctx);
    return CINT_OK;
}

RT_API cint_status cint_ctx_clear_fault(cint_ctx *ctx)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    memset(&ctx->fault, 0, sizeof ctx->fault);
    ctx->boundary = false;
    ctx->refusal = CINT_REFUSAL_NONE;
    rt_release(ctx);
    return CINT_OK;
}

/* --- storage for generated code ------------------------------------------------------------ */

void *cint_gen_globals(cint_ctx *ctx) { return ctx->globals; }

void *cint_gen_container(cint_ctx *ctx, uint32_t k)
{
    return k < ctx->program->container_count ? ctx->containers[k] : NULL;
}

const cint_copy *cint_gen_copies(const cint_ctx *ctx, size_t *count)
{
    *count = ctx->copy_count;
    return ctx->copies;
}

/* The slow path of cint_gen_frame_alloc: the current chunk has no room (or there is none). The
   chunks after the current one hold nothing live: the next one is used when it is large enough,
   else it and those after it are given back and a chunk of max(bytes, twice the last chunk's size)
   is added, the first max(bytes, RT_FRAME_CHUNK_FIRST). The storage follows what the entries use,
   never the capacity: a context of any capacity needs memory only for the elements it declares
   (docs/language.md decision 21). Only a failing host allocator raises host.resource. */
static void *frame_grow(cint_ctx *ctx, const cint_gen_at *at, size_t bytes)
{
    uint32_t next = ctx->frame == NULL ? 0u : ctx->frame_chunk_cur + 1u;
    size_t base = ctx->frame == NULL ? 0u : ctx->frame_end;
    if (next < ctx->frame_chunk_count && ctx->frame_chunks[next].size < bytes) {
        for (uint32_t k = next; k < ctx->frame_chunk_count; k++)
            rt_free(ctx, ctx->frame_chunks[k].mem, ctx->frame_chunks[k].size);
        ctx->frame_chunk_count = next;
    }
    if (next >= ctx->frame_chunk_count) {
        size_t size = RT_FRAME_CHUNK_FIRST;
        if (next > 0) {
            size_t last = ctx->frame_chunks[next - 1u].size;
            size = last > SIZE_MAX / 2u ? SIZE_MAX : last * 2u;
        }
        if (bytes > size) size = bytes;
        if (size > SIZE_MAX - 15u || base > SIZE_MAX - 16u - size) {
            rt_resource(ctx, at);
            return NULL;
        }
        size = (size + 15u) & ~(size_t)15u;
        if (ctx->frame_chunk_count == ctx->frame_chunk_cap) {
            uint32_t cap = ctx->frame_chunk_cap ? ctx->frame_chunk_cap * 2u : 8u;
            rt_frame_chunk *t = rt_alloc(ctx, cap * sizeof(rt_frame_chunk));
            if (t == NULL) {
                rt_resource(ctx, at);
                return NULL;
            }
            if (ctx->frame_chunk_count > 0)
                memcpy(t, ctx->frame_chunks, ctx->frame_chunk_count * sizeof(rt_frame_chunk));
            rt_free(ctx, ctx->frame_chunks, ctx->frame_chunk_cap * sizeof(rt_frame_chunk));
            ctx->frame_chunks = t;
            ctx->frame_chunk_cap = cap;
        }
        uint8_t *mem = rt_alloc(ctx, size);
        if (mem == NULL) {
            rt_resource(ctx, at);
            return NULL;
        }
        ctx->frame_chunks[next].mem = mem;
        ctx->frame_chunks[next].size = size;
        ctx->frame_chunks[next].base = base;
        ctx->frame_chunk_count = next + 1u;
    }
    const rt_frame_chunk *c = &ctx->frame_chunks[next];
    ctx->frame_chunk_cur = next;
    ctx->frame = c->mem;
    ctx->frame_base = c->base;
    ctx->frame_end = c->base + c->size;
    ctx->frame_used = c->base + bytes; /* chunk bases are multiples of 16: every alignment holds */
    memset(c->mem, 0, bytes);
    return c->mem;
}

void *cint_gen_frame_alloc(cint_ctx *ctx, const cint_gen_at *at, size_t bytes, size_t align)
{
    if (align == 0 || align > 16) align = 16;
    size_t start = (ctx->frame_used + align - 1u) & ~(align - 1u);
    if (ctx->frame == NULL || start < ctx->frame_used || start > ctx->frame_end || bytes > ctx->frame_end - start)
        return frame_grow(ctx, at, bytes);
    ctx->frame_used = start + bytes;
    uint8_t *p = ctx->frame + (start - ctx->frame_base);
    memset(p, 0, bytes);
    return p;
}

size_t cint_gen_frame_mark(const cint_ctx *ctx) { return ctx->frame_used; }

void cint_gen_frame_reset(cint_ctx *ctx, size_t mark)
{
    if (mark > ctx->frame_used) return;
    ctx->frame_used = mark;
    /* back to the chunk holding mark (the first one whose end reaches it) */
    while (ctx->frame_chunk_cur > 0 && mark <= ctx->frame_chunks[ctx->frame_chunk_cur - 1u].base +
                                                ctx->frame_chunks[ctx->frame_chunk_cur - 1u].size) {
        const rt_frame_chunk *c = &ctx->frame_chunks[--ctx->frame_chunk_cur];
        ctx->frame = c->mem;
        ctx->frame_base = c->base;
        ctx->frame_end = c->base + c->size;
    }
}

int cint_gen_frame_charge(cint_ctx *ctx, const cint_gen_at *at, uint32_t rank, const int64_t *shape)
{
    int64_t n = 1;
    for (uint32_t d = 0; d < rank; d++)
        if (__builtin_mul_overflow(n, shape[d], &n)) n = INT64_MAX; /* shapes are >= 0 (decl.shape) */
    if (n <= ctx->frame_elems_cap - ctx->frame_elems) {
        ctx->frame_elems += n;
        return 0;
    }
    cint_tvalue ops[3];
    cint_tv_i64(&ops[0], n);
    cint_tv_i64(&ops[1], ctx->frame_elems);
    cint_tv_i64(&ops[2], ctx->frame_elems_cap);
    const cint_gen_fault f = {CINT_E_BOUNDS, 3u, 0u, "arena.alloc", ops, NULL, NULL};
    return cint_gen_raise(ctx, at, &f);
}

int64_t cint_gen_frame_charged(const cint_ctx *ctx) { return ctx->frame_elems; }

void cint_gen_frame_release(cint_ctx *ctx, int64_t mark)
{
    if (mark >= 0 && mark <= ctx->frame_elems) ctx->frame_elems = mark;
}

int cint_gen_local_array(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *out, cint_type type, uint32_t rank,
                         const int64_t *shape)
{
    uint32_t align = 0;
    int64_t es = rt_elem_size(ctx, &type, &align);
    int64_t n = 1;
    memset(out, 0, sizeof *out);
    if (es <= 0 || rank < 1 || rank > 4) return rt_resource(ctx, at);
    for (uint32_t d = 0; d < rank; d++)
        if (shape[d] < 0 || __builtin_mul_overflow(n, shape[d], &n)) return rt_resource(ctx, at);
    int64_t bytes;
    if (__builtin_mul_overflow(n, es, &bytes)) return rt_resource(ctx, at);
    uint8_t *p = cint_gen_frame_alloc(ctx, at, (size_t)bytes, align);
    if (p == NULL) return 1;
    out->data = p;
    out->elem_size = es;
    out->rank = rank;
    out->perm = CINT_VIEW_WRITE;
    out->type = type;
    out->owner = CINT_OWNER_CONTEXT;
    int64_t stride = 1;
    for (uint32_t d = rank; d-- > 0;) {
        out->shape[d] = shape[d];
        out->stride[d] = stride;
        stride *= shape[d] ? shape[d] : 1;
    }
    return 0;
}
