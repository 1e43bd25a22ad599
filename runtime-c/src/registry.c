/* registry.c: the buffer registry (6.1), ownership (6.2), leases and reads (6.3), and the
   forming of views (6.5, 7.1 paragraph 3). */
#include "rt_internal.h"

/* --- lookup ----------------------------------------------------------------------------- */

/* Live slots are kept in increasing id order (ids are issued in increasing order). */
static uint32_t slot_index(const cint_ctx *ctx, uint64_t id)
{
    uint32_t lo = 0, hi = ctx->slot_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (ctx->slots[mid].id < id) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

rt_slot *rt_find(cint_ctx *ctx, uint64_t id)
{
    uint32_t k = slot_index(ctx, id);
    return (k < ctx->slot_count && ctx->slots[k].id == id) ? &ctx->slots[k] : NULL;
}

/* The reason an identifier names no live registration: never issued, or released. */
static uint32_t missing_reason(const cint_ctx *ctx, uint64_t id)
{
    return (id == 0 || id >= ctx->next_buffer) ? CINT_REFUSAL_BUFFER : CINT_REFUSAL_GENERATION;
}

/* Appends a slot; false when the registry cannot grow. */
static bool add_slot(cint_ctx *ctx, const rt_slot *s)
{
    size_t cap = ctx->slot_cap;
    void *items = ctx->slots;
    if (!rt_grow(ctx, &items, &cap, (size_t)ctx->slot_count + 1u, sizeof(rt_slot))) return false;
    ctx->slots = items;
    ctx->slot_cap = (uint32_t)cap;
    ctx->slots[ctx->slot_count++] = *s;
    return true;
}

static cint_status refuse(cint_ctx *ctx, uint32_t reason)
{
    ctx->refusal = reason;
    rt_release(ctx);
    return CINT_REFUSED;
}

static cint_status done(cint_ctx *ctx, cint_status s)
{
    ctx->refusal = CINT_REFUSAL_NONE;
    rt_release(ctx);
    return s;
}

/* --- registration (A-8) ----------------------------------------------------------------- */

static bool zero_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t k = 0; k < n; k++)
        if (b[k] != 0) return false;
    return true;
}

RT_API cint_status cint_buffer_register(cint_ctx *ctx, const cint_buffer_desc *desc, cint_buffer_id *out_id,
                                        uint64_t *out_generation)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    /* 1. size, writable, the reserved fields and publish (CALL) */
    if (desc == NULL || out_id == NULL || out_generation == NULL) return refuse(ctx, CINT_REFUSAL_CALL);
    if (desc->size != sizeof(cint_buffer_desc) || desc->writable > 1u) return refuse(ctx, CINT_REFUSAL_CALL);
    if (desc->mem.reserved != 0 || desc->sync.reserved != 0 || desc->sync.reserved2 != 0)
        return refuse(ctx, CINT_REFUSAL_CALL);
    if (desc->mem.kind != CINT_MEM_HOST && desc->mem.kind != CINT_MEM_DEVICE) return refuse(ctx, CINT_REFUSAL_CALL);
    if (desc->mem.kind == CINT_MEM_HOST && (desc->mem.u.raw[1] | desc->mem.u.raw[2] | desc->mem.u.raw[3]) != 0)
        return refuse(ctx, CINT_REFUSAL_CALL);
    if (desc->publish > CINT_PUBLISH_COPY || (desc->publish == CINT_PUBLISH_COPY && desc->writable == 0))
        return refuse(ctx, CINT_REFUSAL_CALL);
    /* 2. host memory with no synchronization object; device memory this context can take:
       a CPU context takes none (UNSUPPORTED) */
    if (desc->mem.kind != CINT_MEM_HOST || desc->device != 0 || desc->sync.kind != CINT_SYNC_NONE ||
        desc->sync.handle != 0 || desc->sync.value != 0)
        return refuse(ctx, CINT_REFUSAL_UNSUPPORTED);
    /* 3. element type (TYPE) */
    uint32_t align = 0;
    int64_t es = rt_elem_size(ctx, &desc->type, &align);
    if (es <= 0) return refuse(ctx, CINT_REFUSAL_TYPE);
    /* 4. extent (EXTENT) */
    if (desc->extent < 0) return refuse(ctx, CINT_REFUSAL_EXTENT);
    /* 5. byte size within I64 and the address space (SIZE): the bytes lie at addresses 0 to INTPTR_MAX,
       so that every byte offset of a view of them is an I64 (an address of the upper half is no host
       memory on a supported machine) */
    int64_t bytes;
    uintptr_t base = (uintptr_t)desc->mem.u.host.ptr;
    if (__builtin_mul_overflow(desc->extent, es, &bytes) || base > (uintptr_t)INTPTR_MAX ||
        (uintptr_t)bytes > (uintptr_t)INTPTR_MAX - base)
        return refuse(ctx, CINT_REFUSAL_SIZE);
    /* 6. address (ALIGN); align is a power of two but perhaps for a record (no division otherwise) */
    uintptr_t mis = (align & (align - 1u)) == 0 ? (base & (uintptr_t)(align - 1u)) : base % align;
    if ((base == 0 && bytes != 0) || mis != 0) return refuse(ctx, CINT_REFUSAL_ALIGN);
    if (ctx->slot_count >= ctx->max_buffers) return done(ctx, CINT_RESOURCE);
    /* M-11: the identifier 2^64 - 1 is never issued, so the counter always holds the next one */
    if (ctx->next_buffer == UINT64_MAX) return done(ctx, CINT_RESOURCE);

    rt_slot s;
    rt_zero(&s, sizeof s);
    s.id = ctx->next_buffer;
    s.generation = 1;
    s.type = desc->type;
    s.extent = desc->extent;
    s.elem_size = es;
    s.owner = CINT_OWNER_BORROWED;
    s.ceiling = desc->writable ? CINT_VIEW_WRITE : CINT_VIEW_READ;
    s.publish = desc->publish;
    s.align = align;
    s.base = desc->mem.u.host.ptr;
    s.bytes = (size_t)bytes;
    if (!add_slot(ctx, &s)) return done(ctx, CINT_RESOURCE);
    ctx->next_buffer++;
    *out_id = s.id;
    *out_generation = s.generation;
    return done(ctx, CINT_OK);
}

/* Room for count registrations at once (cint_rt_gen.h): the checks cint_buffer_register and
   cint_buffer_create make last, for all of them, and the registry's storage grown ahead; nothing
   canonical changes, so a host that finds no room has changed nothing (H-12, P-20). */
cint_status cint_gen_registry_reserve(cint_ctx *ctx, uint32_t count)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    cint_status st = CINT_OK;
    uint64_t need = (uint64_t)ctx->slot_count + count;
    if (need > ctx->max_buffers || count > UINT64_MAX - ctx->next_buffer) {
        st = CINT_RESOURCE;            /* next_buffer + count must stay <= 2^64 - 1 (M-11) */
    } else if (count > 0) {
        size_t cap = ctx->slot_cap;
        void *items = ctx->slots;
        if (!rt_grow(ctx, &items, &cap, (size_t)need, sizeof(rt_slot))) {
            st = CINT_RESOURCE;
        } else {
            ctx->slots = items;
            ctx->slot_cap = (uint32_t)cap;
        }
    }
    rt_release(ctx);
    return st;
}

RT_API cint_status cint_buffer_register_elements(cint_ctx *ctx, cint_type type, void *ptr, int64_t extent,
                                                 uint32_t writable, uint32_t publish, cint_buffer_id *out_id,
                                                 uint64_t *out_generation)
{
    cint_buffer_desc d;
    rt_zero(&d, sizeof d);
    d.size = sizeof d;
    d.writable = writable;
    d.type = type;
    d.mem.kind = CINT_MEM_HOST;
    d.mem.u.host.ptr = ptr;
    d.extent = extent;
    d.publish = publish;
    return cint_buffer_register(ctx, &d, out_id, out_generation);
}

RT_API cint_status cint_buffer_register_bytes(cint_ctx *ctx, cint_type type, void *ptr, size_t bytes,
                                              uint32_t writable, uint32_t publish, cint_buffer_id *out_id,
                                              uint64_t *out_generation)
{
    if (ctx == NULL) return CINT_REFUSED;
    uint32_t align = 0;
    int64_t es = rt_elem_size(ctx, &type, &align);
    int64_t extent = es > 0 ? (int64_t)(bytes / (size_t)es) : 0;
    if (es > 0 && (bytes % (size_t)es != 0 || bytes > (size_t)INT64_MAX)) {
        if (!rt_acquire(ctx)) return CINT_BUSY;
        return refuse(ctx, CINT_REFUSAL_EXTENT);
    }
    return cint_buffer_register_elements(ctx, type, ptr, extent, writable, publish, out_id, out_generation);
}

RT_API cint_status cint_buffer_create(cint_ctx *ctx, cint_type type, int64_t extent, uint32_t device,
                                      cint_buffer_id *out_id, uint64_t *out_generation)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    if (out_id == NULL || out_generation == NULL) return refuse(ctx, CINT_REFUSAL_CALL);
    uint32_t align = 0;
    int64_t es = rt_elem_size(ctx, &type, &align);
    if (es <= 0) return refuse(ctx, CINT_REFUSAL_TYPE);
    if (extent < 0) return refuse(ctx, CINT_REFUSAL_EXTENT);
    int64_t bytes;
    if (__builtin_mul_overflow(extent, es, &bytes)) return refuse(ctx, CINT_REFUSAL_SIZE);
    if (device != 0) return refuse(ctx, CINT_REFUSAL_UNSUPPORTED);
    if (ctx->slot_count >= ctx->max_buffers) return done(ctx, CINT_RESOURCE);
    if (ctx->next_buffer == UINT64_MAX) return done(ctx, CINT_RESOURCE);    /* identifiers exhausted (M-11) */
    uint8_t *mem = rt_alloc_zero(ctx, (size_t)bytes);
    if (mem == NULL) return done(ctx, CINT_RESOURCE);

    rt_slot s;
    rt_zero(&s, sizeof s);
    s.id = ctx->next_buffer;
    s.generation = 1;
    s.type = type;
    s.extent = extent;
    s.elem_size = es;
    s.owner = CINT_OWNER_RUNTIME;
    s.ceiling = CINT_VIEW_WRITE;
    s.publish = CINT_PUBLISH_NONE;
    s.align = align;
    s.base = mem;
    s.bytes = (size_t)bytes;
    s.alloc = (size_t)bytes;
    if (!add_slot(ctx, &s)) {
        rt_free(ctx, mem, (size_t)bytes);
        return done(ctx, CINT_RESOURCE);
    }
    ctx->next_buffer++;
    *out_id = s.id;
    *out_generation = s.generation;
    return done(ctx, CINT_OK);
}

RT_API cint_status cint_buffer_release(cint_ctx *ctx, cint_buffer_id id)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    uint32_t k = slot_index(ctx, id);
    if (k >= ctx->slot_count || ctx->slots[k].id != id) return refuse(ctx, missing_reason(ctx, id));
    rt_slot *s = &ctx->slots[k];
    if (s->leases > 0) {
        ctx->refusal = CINT_REFUSAL_LEASED;
        rt_release(ctx);
        return CINT_BUSY;
    }
    if (s->owner == CINT_OWNER_RUNTIME) rt_free(ctx, s->base, s->alloc);
    /* The generation advances with the release; the identifier is not issued again, so
       nothing is left to record: an identifier below next_buffer that is not live was
       released. */
    memmove(&ctx->slots[k], &ctx->slots[k + 1u], (size_t)(ctx->slot_count - k - 1u) * sizeof(rt_slot));
    ctx->slot_count--;
    return done(ctx, CINT_OK);
}

/* --- leases (6.3, A-9) ------------------------------------------------------------------ */

RT_API cint_status cint_buffer_lease(cint_ctx *ctx, cint_buffer_id id, const void **out_ptr, uint64_t *out_lease)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    if (out_ptr == NULL || out_lease == NULL) return refuse(ctx, CINT_REFUSAL_CALL);
    rt_slot *s = rt_find(ctx, id);
    if (s == NULL) return refuse(ctx, missing_reason(ctx, id));
    if (s->owner != CINT_OWNER_RUNTIME) return refuse(ctx, CINT_REFUSAL_LEASE);
    void *items = ctx->leases;
    if (!rt_grow(ctx, &items, &ctx->lease_cap, ctx->lease_count + 1u, sizeof(rt_lease))) return done(ctx, CINT_RESOURCE);
    ctx->leases = items;
    rt_lease *l = &ctx->leases[ctx->lease_count++];
    l->number = ctx->next_lease++;
    l->buffer = id;
    s->leases++;
    *out_ptr = s->base;
    *out_lease = l->number;
    return done(ctx, CINT_OK);
}

RT_API cint_status cint_lease_end(cint_ctx *ctx, uint64_t lease)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    for (size_t k = 0; k < ctx->lease_count; k++) {
        if (ctx->leases[k].number != lease) continue;
        rt_slot *s = rt_find(ctx, ctx->leases[k].buffer);
        if (s != NULL && s->leases > 0) s->leases--;
        ctx->leases[k] = ctx->leases[--ctx->lease_count];
        return done(ctx, CINT_OK);
    }
    return refuse(ctx, CINT_REFUSAL_LEASE);
}

/* --- views (6.5, 7.1 paragraph 3) --------------------------------------------------------- */

int64_t rt_count(const cint_gen_array *a)
{
    int64_t n = 1;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] == 0) return 0; /* an empty view: its other extents were not multiplied (fuzz_views) */
    for (uint32_t d = 0; d < a->rank; d++) n *= a->shape[d];
    return n;
}

/* Calls visit on the address of each element in row-major order of its indices. */
#define RT_WALK(a, ptr, body)                                                                      \
    do {                                                                                           \
        int64_t idx_[4] = {0, 0, 0, 0};                                                            \
        int64_t n_ = rt_count(a);                                                                  \
        for (int64_t e_ = 0; e_ < n_; e_++) {                                                      \
            int64_t off_ = 0;                                                                      \
            for (uint32_t d_ = 0; d_ < (a)->rank; d_++) off_ += idx_[d_] * (a)->stride[d_];        \
            uint8_t *ptr = (a)->data + off_ * (a)->elem_size;                                      \
            body;                                                                                  \
            for (uint32_t d_ = (a)->rank; d_-- > 0;) {                                             \
                if (++idx_[d_] < (a)->shape[d_]) break;                                            \
                idx_[d_] = 0;                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void rt_runs_begin(rt_runs *r, const cint_gen_array *a)
{
    memset(r, 0, sizeof *r);
    r->a = a;
    int64_t count = rt_count(a);
    if (count <= 0 || a->rank == 0) {
        r->left = count > 0 ? 1 : 0; /* rank 0: one element */
        r->len = 1;
        r->step = 1;
        return;
    }
    /* the longest suffix of dimensions laid out row-major with stride 1 innermost; a
       dimension of extent 1 fits any stride */
    uint32_t d = a->rank;
    int64_t len = 1;
    while (d > 0 && (a->shape[d - 1] == 1 || a->stride[d - 1] == len)) {
        len *= a->shape[d - 1];
        d--;
    }
    if (len == 1 && d > 0) { /* no contiguous suffix: runs along the strided dimension d - 1 */
        r->outer = d - 1u;
        r->len = a->shape[d - 1u];
        r->step = a->stride[d - 1u];
    } else {
        r->outer = d;
        r->len = len;
        r->step = 1;
    }
    r->left = count / r->len;
}

bool rt_runs_next(rt_runs *r, uint8_t **first)
{
    if (r->left <= 0) return false;
    const cint_gen_array *a = r->a;
    int64_t off = 0;
    for (uint32_t d = 0; d < r->outer; d++) off += r->idx[d] * a->stride[d];
    *first = a->data + off * a->elem_size;
    if (--r->left > 0)
        for (uint32_t d = r->outer; d-- > 0;) {
            if (++r->idx[d] < a->shape[d]) break;
            r->idx[d] = 0;
        }
    return true;
}

/* Copies n elements of es bytes between p (step elements apart) and compact storage c. */
static void copy_strided(uint8_t *p, uint8_t *c, int64_t n, int64_t step, size_t es, bool to_array)
{
    int64_t sb = step * (int64_t)es;
#define RT_COPY_N_(N)                                                                              \
    for (int64_t k = 0; k < n; k++) {                                                              \
        if (to_array) memcpy(p + k * sb, c + (size_t)k * (N), (N));                                \
        else memcpy(c + (size_t)k * (N), p + k * sb, (N));                                         \
    }
    switch (es) {
    case 1: RT_COPY_N_(1); break;
    case 2: RT_COPY_N_(2); break;
    case 4: RT_COPY_N_(4); break;
    case 8: RT_COPY_N_(8); break;
    default: RT_COPY_N_(es); break;
    }
#undef RT_COPY_N_
}

static void copy_runs(const cint_gen_array *a, uint8_t *c, bool to_array)
{
    size_t es = (size_t)a->elem_size;
    rt_runs r;
    uint8_t *p;
    rt_runs_begin(&r, a);
    while (rt_runs_next(&r, &p)) {
        size_t bytes = (size_t)r.len * es;
        if (r.step == 1) {
            if (to_array) memcpy(p, c, bytes);
            else memcpy(c, p, bytes);
        } else {
            copy_strided(p, c, r.len, r.step, es, to_array);
        }
        c += bytes;
    }
}

void rt_gather(const cint_gen_array *a, uint8_t *dst) { copy_runs(a, dst, false); }

void rt_scatter(const cint_gen_array *a, const uint8_t *src) { copy_runs(a, (uint8_t *)src, true); }

static bool bools_ok(const cint_gen_array *a)
{
    bool ok = true;
    RT_WALK(a, p, (ok = ok && *p <= 1u));
    return ok;
}

/* The Bool fields of every record a view of records reaches (7.3 A-13). */
static bool records_ok(const cint_ctx *ctx, const cint_gen_array *a)
{
    bool ok = true;
    RT_WALK(a, p, (ok = ok && rt_record_bools_ok(ctx, a->type.record_id, p, 0u)));
    return ok;
}

uint32_t rt_form_view(cint_ctx *ctx, const cint_view *v, bool check_bools, cint_gen_array *out, rt_slot **slot)
{
    rt_slot *s = rt_find(ctx, v->buffer);
    if (s == NULL) return missing_reason(ctx, v->buffer);
    uint32_t align = 0;
    if (rt_elem_size(ctx, &v->type, &align) <= 0 || !rt_type_equal(&v->type, &s->type)) return CINT_REFUSAL_TYPE;
    if (v->rank < 1 || v->rank > 4) return CINT_REFUSAL_RANK;
    if (v->perm > CINT_VIEW_WRITE || !zero_bytes(v->reserved, sizeof v->reserved)) return CINT_REFUSAL_CALL;
    for (uint32_t d = v->rank; d < 4; d++)
        if (v->shape[d] != 0 || v->stride[d] != 0 || v->lower[d] != 0) return CINT_REFUSAL_CALL;
    if (v->origin < 0) return CINT_REFUSAL_EXTENT;
    bool empty = false;
    int64_t count = 1;
    for (uint32_t d = 0; d < v->rank; d++) {
        if (v->shape[d] < 0) return CINT_REFUSAL_EXTENT;
        if (v->shape[d] == 0) empty = true;
    }
    for (uint32_t d = 0; !empty && d < v->rank; d++)
        if (__builtin_mul_overflow(count, v->shape[d], &count)) return CINT_REFUSAL_SIZE;
    /* the lowest and highest element offsets, and the highest index of each dimension */
    int64_t lo = v->origin, hi = v->origin, top;
    for (uint32_t d = 0; d < v->rank; d++) {
        int64_t span;
        if (v->shape[d] == 0) continue;
        if (__builtin_mul_overflow(v->shape[d] - 1, v->stride[d], &span)) return CINT_REFUSAL_SIZE;
        if (__builtin_add_overflow(v->lower[d], v->shape[d] - 1, &top)) return CINT_REFUSAL_SIZE;
        if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return CINT_REFUSAL_SIZE;
    }
    if (empty ? v->origin > s->extent : (lo < 0 || hi >= s->extent)) return CINT_REFUSAL_EXTENT;
    if (v->perm == CINT_VIEW_WRITE && s->ceiling != CINT_VIEW_WRITE) return CINT_REFUSAL_PERMISSION;

    rt_zero(out, sizeof *out);
    out->data = s->base + v->origin * s->elem_size;
    out->elem_size = s->elem_size;
    out->rank = v->rank;
    out->perm = v->perm;
    for (uint32_t d = 0; d < v->rank; d++) {
        out->shape[d] = v->shape[d];
        out->stride[d] = v->stride[d];
        out->lower[d] = v->lower[d];
    }
    out->type = v->type;
    out->buffer = s->id;
    out->generation = v->generation;
    out->reg_generation = s->generation;
    out->origin = v->origin;
    out->owner = s->owner;
    out->publish = s->publish;
    if (check_bools && v->type.code == CINT_TAG_BOOL && !empty && !bools_ok(out)) return CINT_REFUSAL_BOOL;
    if (check_bools && v->type.code == CINT_TAG_STRUCT && !empty && !records_ok(ctx, out)) return CINT_REFUSAL_BOOL;
    if (slot != NULL) *slot = s;
    return CINT_REFUSAL_NONE;
}

RT_API cint_status cint_buffer_read(cint_ctx *ctx, cint_view view, void *dst, size_t dst_bytes)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    cint_gen_array a;
    uint32_t why = rt_form_view(ctx, &view, false, &a, NULL);
    if (why != CINT_REFUSAL_NONE) return refuse(ctx, why);
    if (a.generation != a.reg_generation) return refuse(ctx, CINT_REFUSAL_GENERATION);
    int64_t n = rt_count(&a), bytes;
    if (__builtin_mul_overflow(n, a.elem_size, &bytes) || (uint64_t)bytes != dst_bytes || (dst == NULL && dst_bytes != 0))
        return refuse(ctx, CINT_REFUSAL_CALL);
    if (n > 0) rt_gather(&a, dst);
    return done(ctx, CINT_OK);
}
