/* state.c: the canonical state of a context (SPEC-03P.1 5.1 M-1 to M-5) and its restore (6.1
   M-11, M-11a, 9.2 H-19, H-19a). The bytes are those of cint_abi.state.encode_state, which
   docs/encodings.md lays out; the tests compare the two byte for byte. The restore decodes and
   checks every field into scratch storage first and changes the context only when all of it
   passed: the rules are cint_abi.state.decode_state's, plus what this context can hold (the
   program's revision identity and module variables, positions in its site tables).

   What a restore keeps and drops (docs/runtime.md): every registration of the context ends,
   borrowed memory and buffers made by cint_buffer_create alike (the context owns no registered
   memory: arena and pool storage is never registered), and storage the runtime made is freed;
   the checkpoint's registrations are dropped too, and the next buffer, arena and pool
   identifiers become the greater of the checkpoint's and the context's, so no identifier is
   issued twice (M-11, M-11a). A live lease makes the restore CINT_BUSY (reason LEASED). The arena
   and pool blocks (rd_arenas, rd_pools: cint_abi.arenas_pools' H-19a rules, and the program's own
   containers by id, name, element type and capacity) are read into new tables and storage that
   replace the context's at the commit (containers_commit). */
#include <stdlib.h>

#include "rt_internal.h"

static const char k_state_domain[] = "cint-core-1/state/v1";
static const char k_registry_domain[] = "cint-core-1/registry/v1";
static const char k_profile[] = "cint-core-1";
static const char k_fuel_model[] = "fuel-v1";
static const char k_fault_domain[] = "cint-core-1/fault/v2";

#define M64 UINT64_C(0x7FFFFFFFFFFFFFFF)
#define Z_BOUND 257u
#define MAX_RANK 8u
#define MAX_NESTED_LISTS (UINT64_C(1) << 20)
#define MAX_PATH 1024u

/* --- the writer ------------------------------------------------------------------------------ */

typedef struct wsink {
    uint8_t *buf;
    size_t cap, len;
} wsink;

static void w_put(wsink *s, const void *p, size_t n)
{
    if (s->len < s->cap && n > 0) {
        size_t room = s->cap - s->len;
        memcpy(s->buf + s->len, p, n < room ? n : room);
    }
    s->len += n;
}

static void w_le(wsink *s, uint64_t v, unsigned n)
{
    uint8_t b[8];
    for (unsigned k = 0; k < n; k++) b[k] = (uint8_t)(v >> (8u * k));
    w_put(s, b, n);
}

static void w_text(wsink *s, const char *text, size_t n)
{
    w_le(s, n, 4);
    w_put(s, text, n);
}

/* The descriptor (IM-146) of a scalar type into d (1 or 4 bytes) and its payload size; 0 when
   the type has no canonical scalar form here. Wide integers (I128 to I1024) are limb 0 first,
   which is one little-endian integer. */
static uint32_t scalar_desc(const cint_type *t, uint8_t d[4], uint32_t *payload)
{
    if (t->reserved0 != 0 || t->reserved1 != 0 || t->reserved2 != 0 || t->record_id != 0) return 0;
    uint32_t c = t->code;
    if (c != CINT_TAG_Q && (t->storage != 0 || t->frac != 0)) return 0;
    if (c == CINT_TAG_BOOL) {
        d[0] = CINT_TAG_BOOL;
        *payload = 1;
        return 1;
    }
    if (c == CINT_TAG_HANDLE) { /* a cint_handle: its first 29 bytes are the payload (docs/encodings.md) */
        d[0] = CINT_TAG_HANDLE;
        *payload = 29;
        return 1;
    }
    if (c >= CINT_TAG_I8 && c <= CINT_TAG_I1024) {
        d[0] = (uint8_t)c;
        *payload = 1u << (c - CINT_TAG_I8);
        return 1;
    }
    if (c >= CINT_TAG_U8 && c <= CINT_TAG_U64) {
        d[0] = (uint8_t)c;
        *payload = 1u << (c - CINT_TAG_U8);
        return 1;
    }
    if (c == CINT_TAG_Q && t->storage >= CINT_TAG_I8 && t->storage <= CINT_TAG_I64) {
        uint32_t bytes = 1u << (t->storage - CINT_TAG_I8);
        if (t->frac > bytes * 8u - 1u) return 0;
        d[0] = CINT_TAG_Q;
        d[1] = t->storage;
        d[2] = (uint8_t)(t->frac & 0xFFu);
        d[3] = (uint8_t)(t->frac >> 8);
        *payload = bytes;
        return 4;
    }
    return 0;
}

/* The canonical payload size of one record of row id of the root module's record layout table: each
   field's payload (count times for an array field) in declaration order, without padding. false: a
   field has no canonical form here. */
static bool record_size(const cint_ctx *ctx, uint32_t id, unsigned depth, uint64_t *out)
{
    const cint_module_info *m = ctx->module;
    if (m == NULL || id >= m->record_count || depth > 64u) return false;
    const cint_record_layout *r = &m->records[id];
    if (r->field_count > 0 && r->fields == NULL) return false;
    uint64_t total = 0;
    for (uint32_t f = 0; f < r->field_count; f++) {
        const cint_record_field *fd = &r->fields[f];
        uint64_t one = 0;
        if (fd->type.code == CINT_TAG_STRUCT) {
            if (!record_size(ctx, fd->type.record_id, depth + 1u, &one)) return false;
        } else {
            uint8_t d[4];
            uint32_t size = 0;
            if (scalar_desc(&fd->type, d, &size) == 0) return false;
            one = size;
        }
        if (fd->count > 0 && one > (M64 - total) / fd->count) return false;
        total += one * fd->count;
    }
    *out = total;
    return true;
}

/* One record at p (its C layout: the fields at their offsets) as its canonical payload, a Bool a byte. */
static void w_record(const cint_ctx *ctx, wsink *s, uint32_t id, const uint8_t *p)
{
    const cint_record_layout *r = &ctx->module->records[id];
    for (uint32_t f = 0; f < r->field_count; f++) {
        const cint_record_field *fd = &r->fields[f];
        if (fd->type.code == CINT_TAG_STRUCT) {
            uint64_t size = ctx->module->records[fd->type.record_id].size;
            for (uint32_t k = 0; k < fd->count; k++) w_record(ctx, s, fd->type.record_id, p + fd->offset + k * size);
            continue;
        }
        uint8_t d[4];
        uint32_t size = 0;
        (void)scalar_desc(&fd->type, d, &size);
        uint64_t stride = fd->type.code == CINT_TAG_HANDLE ? sizeof(cint_handle) : size;
        for (uint32_t k = 0; k < fd->count; k++) {
            const uint8_t *v = p + fd->offset + (uint64_t)k * stride;
            if (fd->type.code == CINT_TAG_BOOL) w_le(s, v[0] != 0 ? 1u : 0u, 1);
            else w_put(s, v, size);
        }
    }
}

/* A module variable's tagged-value head (IM-146) into d (at most 40 bytes; *head points at it, or at the
   head in the globals), where its payload lies in the globals and how large it is. A scalar is its
   scalar_desc; an array (type code CINT_TAG_ARRAY, storage the element tag of a scalar type, wide
   integers included; for fixed point CINT_TAG_Q with the storage tag in reserved0 and the fraction
   bits in frac) has in its storage a header, U64 rank (1 to 4) then an I64 extent
   per dimension, written by the emitter and never changed, followed by the elements row-major: its head
   is the array descriptor (0x51, element, rank, extents) and its payload the elements, one Bool a byte.
   An array of records (storage CINT_TAG_STRUCT, record_id the row of the root module's record layout
   table) has after its extents a U64 length and that many bytes of its whole head (0x51, 0x71, the
   struct's qualified name, rank, extents), padded to 8 bytes, then the records in their C layout
   (*esize bytes each); its payload is each record's canonical fields (record_size). A record (type code
   CINT_TAG_STRUCT, record_id its row) has in its storage a U64 length and that many bytes of its head
   (0x71, the struct's qualified name), padded to 8 bytes, then the record in its C layout; its payload
   is the record's canonical fields. 0: no canonical form. */
static uint32_t global_desc(const cint_ctx *ctx, const cint_global_info *g, uint8_t d[40], const uint8_t **head,
                            uint64_t *off, uint64_t *payload, uint32_t *esize)
{
    const cint_type *t = &g->type;
    *head = d;
    if (t->code == CINT_TAG_STRUCT) {
        const cint_module_info *m = ctx->module;
        uint64_t canon = 0, hlen = 0;
        if (t->storage != 0 || t->reserved0 != 0 || t->frac != 0 || t->reserved1 != 0 || t->reserved2 != 0 ||
            m == NULL || t->record_id >= m->record_count || !record_size(ctx, t->record_id, 0u, &canon))
            return 0;
        uint64_t csize = m->records[t->record_id].size;
        if (g->offset > ctx->globals_bytes || ctx->globals_bytes - g->offset < 8u) return 0;
        const uint8_t *h = ctx->globals + g->offset;
        uint64_t avail = ctx->globals_bytes - g->offset;
        for (unsigned b = 0; b < 8u; b++) hlen |= (uint64_t)h[b] << (8u * b);
        if (hlen < 5u || hlen > UINT32_MAX || hlen > avail - 8u || h[8] != CINT_TAG_STRUCT) return 0;
        uint64_t data = 8u + (hlen + 7u) / 8u * 8u;
        if (csize == 0 || csize > UINT32_MAX || g->bytes != data + csize || g->bytes > avail) return 0;
        *head = h + 8u;
        *off = g->offset + data;
        *payload = canon;
        *esize = (uint32_t)csize;
        return (uint32_t)hlen;
    }
    if (t->code != CINT_TAG_ARRAY) {
        uint32_t size = 0, n = scalar_desc(t, d, &size);
        if (n == 0 || g->bytes != (t->code == CINT_TAG_HANDLE ? sizeof(cint_handle) : size)) return 0;
        *off = g->offset;
        *payload = size;
        *esize = size;
        return n;
    }
    if (t->storage == CINT_TAG_STRUCT) {
        const cint_module_info *m = ctx->module;
        uint64_t csize = 0, canon = 0, rank = 0, count = 1, hlen = 0;
        if (t->reserved0 != 0 || t->frac != 0 || t->reserved1 != 0 || t->reserved2 != 0 || m == NULL ||
            t->record_id >= m->record_count || !record_size(ctx, t->record_id, 0u, &canon))
            return 0;
        csize = m->records[t->record_id].size;
        if (g->offset > ctx->globals_bytes || ctx->globals_bytes - g->offset < 8u) return 0;
        const uint8_t *h = ctx->globals + g->offset;
        uint64_t avail = ctx->globals_bytes - g->offset;
        for (unsigned k = 0; k < 8u; k++) rank |= (uint64_t)h[k] << (8u * k);
        if (rank < 1u || rank > 4u || avail < 16u + 8u * rank) return 0;
        for (uint64_t k = 0; k < rank; k++) {
            uint64_t e = 0;
            for (unsigned b = 0; b < 8u; b++) e |= (uint64_t)h[8u + 8u * k + b] << (8u * b);
            if (e > M64 || (e != 0 && count > M64 / e)) return 0;
            count *= e;
        }
        for (unsigned b = 0; b < 8u; b++) hlen |= (uint64_t)h[8u + 8u * rank + b] << (8u * b);
        uint64_t start = 16u + 8u * rank;
        if (hlen < 2u || hlen > UINT32_MAX || hlen > avail - start) return 0;
        uint64_t data = start + (hlen + 7u) / 8u * 8u;
        if (csize == 0 || count > (M64 - data) / csize || g->bytes != data + count * csize ||
            (canon != 0 && count > M64 / canon))
            return 0;
        *head = h + start;
        *off = g->offset + data;
        *payload = count * canon;
        *esize = (uint32_t)csize;
        return (uint32_t)hlen;
    }
    /* fixed-point elements: the storage tag in reserved0, the fraction bits in frac (cint_rt.h) */
    bool q = t->storage == CINT_TAG_Q;
    cint_type et = {t->storage, q ? t->reserved0 : 0u, 0u, q ? t->frac : 0u, 0u, 0u, 0u};
    uint8_t ed[4];
    uint32_t es = 0, en = 0;
    bool hd = t->storage == CINT_TAG_HANDLE; /* handles: 32-byte cint_handle elements, 29-byte payloads */
    if ((!q && (t->reserved0 != 0 || t->frac != 0)) || t->reserved1 != 0 || t->record_id != 0 ||
        t->reserved2 != 0 || (en = scalar_desc(&et, ed, &es)) != (q ? 4u : 1u) ||
        (es > 8u && !hd && !(et.code >= CINT_TAG_I128 && et.code <= CINT_TAG_I1024)))
        return 0;
    uint32_t stride = hd ? (uint32_t)sizeof(cint_handle) : es;
    if (g->offset > ctx->globals_bytes || ctx->globals_bytes - g->offset < 8u) return 0;
    const uint8_t *h = ctx->globals + g->offset;
    uint64_t rank = 0;
    for (unsigned k = 0; k < 8u; k++) rank |= (uint64_t)h[k] << (8u * k);
    if (rank < 1u || rank > 4u || ctx->globals_bytes - g->offset < 8u + 8u * rank) return 0;
    uint64_t count = 1;
    uint32_t n = 0;
    d[n++] = CINT_TAG_ARRAY;
    memcpy(d + n, ed, en);
    n += en;
    d[n++] = (uint8_t)rank;
    for (uint64_t k = 0; k < rank; k++) {
        uint64_t e = 0;
        for (unsigned b = 0; b < 8u; b++) e |= (uint64_t)h[8u + 8u * k + b] << (8u * b);
        if (e > M64 || (e != 0 && count > M64 / e)) return 0;
        count *= e;
        memcpy(d + n, h + 8u + 8u * k, 8u);
        n += 8u;
    }
    if (count > (M64 - 8u * (rank + 1u)) / stride || g->bytes != 8u * (rank + 1u) + count * stride) return 0;
    *off = g->offset + 8u * (rank + 1u);
    *payload = count * es;
    *esize = stride;
    return n;
}

static int name_cmp(const cint_name *a, const cint_name *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->bytes, b->bytes, n) : 0;
    if (c != 0) return c;
    return (a->len > b->len) - (a->len < b->len);
}

static int global_cmp(const void *x, const void *y)
{
    const cint_global_info *a = *(const cint_global_info *const *)x;
    const cint_global_info *b = *(const cint_global_info *const *)y;
    return name_cmp(&a->name, &b->name);
}

/* The program's module variables sorted by the bytes of their names, checked: each has a
   canonical scalar type, a name and storage inside the globals. NULL with *ok false: the
   program's table cannot be written canonically; NULL with *ok true: no room. */
static const cint_global_info **sorted_globals(cint_ctx *ctx, bool *ok)
{
    const cint_program *p = ctx->program;
    uint32_t n = p->global_count;
    *ok = true;
    const cint_global_info **order = rt_alloc(ctx, (size_t)(n ? n : 1u) * sizeof *order);
    if (order == NULL) return NULL;
    for (uint32_t k = 0; k < n; k++) {
        const cint_global_info *g = &p->globals[k];
        uint8_t d[40];
        const uint8_t *hd = d;
        uint64_t off = 0, size = 0;
        uint32_t es = 0;
        if (global_desc(ctx, g, d, &hd, &off, &size, &es) == 0 || (g->name.len > 0 && g->name.bytes == NULL) ||
            off > ctx->globals_bytes || size > ctx->globals_bytes - off)
            *ok = false;
        order[k] = g;
    }
    if (*ok && n > 1) {
        qsort(order, n, sizeof *order, global_cmp);
        for (uint32_t k = 1; k < n; k++)
            if (name_cmp(&order[k - 1]->name, &order[k]->name) == 0) *ok = false;
    }
    if (!*ok) {
        rt_free(ctx, order, (size_t)(n ? n : 1u) * sizeof *order);
        return NULL;
    }
    return order;
}

static void free_order(cint_ctx *ctx, const cint_global_info **order)
{
    uint32_t n = ctx->program->global_count;
    rt_free(ctx, (void *)order, (size_t)(n ? n : 1u) * sizeof *order);
}

/* The registry block's bytes after its length. false: a registration without a canonical
   element type (a record: its qualified name is not known to the context). */
static bool write_registry(const cint_ctx *ctx, wsink *s)
{
    w_text(s, k_registry_domain, sizeof k_registry_domain - 1u);
    w_le(s, ctx->slot_count, 8);
    for (uint32_t k = 0; k < ctx->slot_count; k++) {
        const rt_slot *r = &ctx->slots[k];
        uint8_t d[4];
        uint32_t size = 0, n = scalar_desc(&r->type, d, &size);
        if (n == 0 || size > 8u) return false;
        w_le(s, r->id, 8);
        w_le(s, r->generation, 8);
        w_put(s, d, n);
        w_le(s, (uint64_t)r->extent, 8);
        w_le(s, r->owner == CINT_OWNER_RUNTIME ? 1u : r->owner == CINT_OWNER_BORROWED ? 2u : 0u, 1);
        w_le(s, r->ceiling == CINT_VIEW_WRITE ? 1u : 0u, 1);
        w_le(s, r->publish == CINT_PUBLISH_COPY ? 1u : 0u, 1);
    }
    return true;
}

/* The element descriptor (IM-146, as an array element) of container k into d (at most 4 bytes; *head
   points at it, or for a struct element at its head in the globals: containers_c.container_table) and its
   payload size. 0: no canonical form. */
static uint32_t container_desc(const cint_ctx *ctx, uint32_t k, uint8_t d[4], const uint8_t **head, uint32_t *payload)
{
    const cint_container_info *c = &ctx->program->containers[k];
    *head = d;
    if (c->elem.code == CINT_TAG_STRUCT) {
        uint64_t canon = 0, hlen = 0, off = c->reserved;
        if (off == 0 || !record_size(ctx, c->elem.record_id, 0u, &canon) || canon > UINT32_MAX) return 0;
        off -= 1u;
        if (off > ctx->globals_bytes || ctx->globals_bytes - off < 8u) return 0;
        const uint8_t *h = ctx->globals + off;
        for (unsigned b = 0; b < 8u; b++) hlen |= (uint64_t)h[b] << (8u * b);
        if (hlen < 5u || hlen > ctx->globals_bytes - off - 8u || h[8] != CINT_TAG_STRUCT) return 0;
        *head = h + 8u;
        *payload = (uint32_t)canon;
        return (uint32_t)hlen;
    }
    return scalar_desc(&c->elem, d, payload);
}

/* One element of container k at v as its canonical payload. */
static void w_elem(const cint_ctx *ctx, wsink *s, uint32_t k, const uint8_t *v, uint32_t payload)
{
    const cint_type *t = &ctx->program->containers[k].elem;
    if (t->code == CINT_TAG_STRUCT) w_record(ctx, s, t->record_id, v);
    else if (t->code == CINT_TAG_BOOL) w_le(s, v[0] != 0 ? 1u : 0u, 1);
    else w_put(s, v, payload);
}

/* The arena block (which 0) or the pool block (1) of docs/encodings.md, nothing when the context has
   none; false: an element type without a canonical form. */
static bool write_block(const cint_ctx *ctx, wsink *s, int which)
{
    static const char k_arenas[] = "cint-core-1/arenas/v1", k_pools[] = "cint-core-1/pools/v1";
    uint8_t d[4];
    const uint8_t *hd;
    uint32_t payload = 0, n;
    if (which == 0) {
        if (ctx->arena_count == 0) return true;
        w_text(s, k_arenas, sizeof k_arenas - 1u);
        w_le(s, ctx->arena_count, 8);
        for (uint32_t j = 0; j < ctx->arena_count; j++) {
            const rt_arena *a = &ctx->arenas[j];
            const cint_container_info *c = &ctx->program->containers[a->root];
            if ((n = container_desc(ctx, a->root, d, &hd, &payload)) == 0) return false;
            w_le(s, a->id, 8);
            if (a->parent == UINT32_MAX) {
                w_le(s, 0, 1);
                w_text(s, c->name.bytes, c->name.len);
            } else {
                w_le(s, 1, 1);
                w_le(s, ctx->arenas[a->parent].id, 8);
                w_le(s, (uint64_t)a->offset, 8);
            }
            w_put(s, hd, n);
            w_le(s, (uint64_t)a->capacity, 8);
            w_le(s, (uint64_t)a->used, 8);
            w_le(s, a->generation, 8);
            w_le(s, a->retired ? 1u : 0u, 1);
            if (a->parent == UINT32_MAX)
                for (int64_t e = 0; e < a->used; e++)
                    w_elem(ctx, s, a->root, ctx->containers[a->root] + (a->base + e) * a->esize, payload);
        }
        return true;
    }
    if (ctx->pool_count == 0) return true;
    w_text(s, k_pools, sizeof k_pools - 1u);
    w_le(s, ctx->pool_count, 8);
    for (uint32_t j = 0; j < ctx->pool_count; j++) {
        const rt_pool *q = &ctx->pools[j];
        const cint_container_info *c = &ctx->program->containers[q->k];
        if ((n = container_desc(ctx, q->k, d, &hd, &payload)) == 0) return false;
        w_le(s, q->id, 8);
        w_text(s, c->name.bytes, c->name.len);
        w_put(s, hd, n);
        w_le(s, (uint64_t)q->capacity, 8);
        w_le(s, (uint64_t)q->retired, 8);
        w_le(s, (uint64_t)q->slots, 8);
        for (int64_t e = 0; e < q->slots; e++) {
            w_le(s, q->gen[e], 8);
            w_le(s, q->occ[e], 1);
            if (q->occ[e]) w_elem(ctx, s, q->k, ctx->containers[q->k] + e * q->esize, payload);
        }
        w_le(s, (uint64_t)q->free_count, 8);
        for (int64_t e = 0; e < q->free_count; e++) w_le(s, q->free[e], 8);
    }
    return true;
}

static cint_status state_write(cint_ctx *ctx, wsink *s)
{
    const cint_program *p = ctx->program;
    bool ok;
    const cint_global_info **order = sorted_globals(ctx, &ok);
    if (order == NULL) return ok ? CINT_RESOURCE : CINT_REFUSED;

    w_text(s, k_state_domain, sizeof k_state_domain - 1u);
    w_put(s, p->revision, 32);
    w_text(s, k_profile, sizeof k_profile - 1u);
    w_le(s, p->global_count, 8);
    for (uint32_t k = 0; k < p->global_count; k++) {
        const cint_global_info *g = order[k];
        uint8_t d[40];
        const uint8_t *hd = d;
        uint64_t off = 0, size = 0;
        uint32_t es = 0, n = global_desc(ctx, g, d, &hd, &off, &size, &es);
        w_text(s, g->name.bytes, g->name.len);
        w_put(s, hd, n);
        const uint8_t *v = ctx->globals + off;
        if (g->type.code == CINT_TAG_STRUCT) {
            w_record(ctx, s, g->type.record_id, v);
        } else if (g->type.code == CINT_TAG_ARRAY && g->type.storage == CINT_TAG_STRUCT) {
            uint64_t count = 0, one = 0;
            (void)record_size(ctx, g->type.record_id, 0u, &one);
            count = one ? size / one : 0u;
            if (one == 0) /* records without fields: the count from the storage */
                count = (g->bytes - (off - g->offset)) / es;
            for (uint64_t j = 0; j < count; j++) w_record(ctx, s, g->type.record_id, v + j * es);
        } else if (d[0] == CINT_TAG_BOOL || (d[0] == CINT_TAG_ARRAY && d[1] == CINT_TAG_BOOL))
            for (uint64_t j = 0; j < size; j++) w_le(s, v[j] != 0 ? 1u : 0u, 1);
        else if (g->type.code == CINT_TAG_ARRAY && g->type.storage == CINT_TAG_HANDLE)
            for (uint64_t j = 0; j < size / 29u; j++) w_put(s, v + j * es, 29u); /* each element's payload */
        else w_put(s, v, size);
    }
    free_order(ctx, order);
    for (int b = 0; b < 2; b++) { /* the arena block, then the pool block: U64 length, the bytes */
        wsink blk = {NULL, 0, 0};
        if (!write_block(ctx, &blk, b)) return CINT_REFUSED;
        w_le(s, blk.len, 8);
        write_block(ctx, s, b);
    }
    wsink count = {NULL, 0, 0};
    if (!write_registry(ctx, &count)) return CINT_REFUSED;
    w_le(s, count.len, 8);
    write_registry(ctx, s);
    w_le(s, ctx->next_buffer, 8);
    w_le(s, ctx->next_arena, 8);
    w_le(s, ctx->next_pool, 8);
    w_le(s, ctx->entries, 8);
    w_text(s, k_fuel_model, sizeof k_fuel_model - 1u);
    size_t flen = rt_fault_bytes(ctx, NULL, 0);
    if (flen == 0) {
        w_le(s, 0, 1);
    } else {
        w_le(s, 1, 1);
        w_le(s, flen, 4);
        if (s->len < s->cap && s->cap - s->len >= flen) {
            rt_fault_bytes(ctx, s->buf + s->len, flen);
            s->len += flen;
        } else {
            /* the buffer ends inside the record: write what fits through a scratch copy */
            uint8_t *tmp = rt_alloc(ctx, flen);
            if (tmp == NULL) return CINT_RESOURCE;
            rt_fault_bytes(ctx, tmp, flen);
            w_put(s, tmp, flen);
            rt_free(ctx, tmp, flen);
        }
    }
    w_le(s, ctx->effects, 8);
    return CINT_OK;
}

cint_status cint_gen_state_encode(cint_ctx *ctx, uint8_t *buf, size_t cap, size_t *len)
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    if (len == NULL || (buf == NULL && cap > 0)) {
        ctx->refusal = CINT_REFUSAL_CALL;
        rt_release(ctx);
        return CINT_REFUSED;
    }
    wsink s = {buf, cap, 0};
    cint_status st = state_write(ctx, &s);
    if (st == CINT_OK) *len = s.len;
    else if (st == CINT_REFUSED) ctx->refusal = CINT_REFUSAL_UNSUPPORTED;
    rt_release(ctx);
    return st;
}

/* --- the reader ---------------------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p;
    size_t len, pos;
    size_t base;     /* offset of p in the whole input, for error offsets */
    size_t err_at;   /* offset of the first offending field */
    uint32_t err;    /* CINT_STATE_* of the first failure, 0 while none */
} rd;

static bool fail(rd *r, size_t at, uint32_t why)
{
    if (r->err == 0) {
        r->err = why;
        r->err_at = r->base + at;
    }
    return false;
}

static bool bad(rd *r, size_t at) { return fail(r, at, CINT_STATE_MALFORMED); }

static size_t left(const rd *r) { return r->len - r->pos; }

static bool take(rd *r, size_t n, const uint8_t **out)
{
    if (n > left(r)) return bad(r, r->pos);
    *out = r->p + r->pos;
    r->pos += n;
    return true;
}

static bool rd_le(rd *r, unsigned n, uint64_t *v)
{
    const uint8_t *b;
    if (!take(r, n, &b)) return false;
    uint64_t x = 0;
    for (unsigned k = 0; k < n; k++) x |= (uint64_t)b[k] << (8u * k);
    *v = x;
    return true;
}

static bool rd_i64(rd *r, int64_t *v)
{
    uint64_t u;
    if (!rd_le(r, 8, &u)) return false;
    memcpy(v, &u, sizeof u);
    return true;
}

/* A U32 length at most limit and at most the bytes remaining, and its bytes. */
static bool rd_bytes(rd *r, uint64_t limit, const uint8_t **b, uint32_t *n)
{
    size_t at = r->pos;
    uint64_t v;
    if (!rd_le(r, 4, &v)) return false;
    if (v > limit || v > left(r)) return bad(r, at);
    *n = (uint32_t)v;
    return take(r, (size_t)v, b);
}

static bool rd_expect(rd *r, const char *text, size_t n)
{
    size_t at = r->pos;
    const uint8_t *b;
    uint32_t got;
    if (!rd_bytes(r, UINT32_MAX, &b, &got)) return false;
    if (got != n || memcmp(b, text, n) != 0) return bad(r, at);
    return true;
}

static bool rd_presence(rd *r, bool *present)
{
    size_t at = r->pos;
    uint64_t v;
    if (!rd_le(r, 1, &v)) return false;
    if (v > 1) return bad(r, at);
    *present = v == 1;
    return true;
}

/* Strict UTF-8, as Python decodes it (RFC 3629): no overlong form, no surrogate, nothing above U+10FFFF,
   no truncated or stray sequence. n bytes at s, stride bytes apart: the state reader checks contiguous
   names and Str payloads, and the generated code of utf8(bytes) a strided U8 view (docs/language.md
   decision 26). */
int cint_gen_utf8_valid(const uint8_t *s, int64_t n, int64_t stride)
{
    int64_t k = 0;
    while (k < n) {
        unsigned c = s[k * stride], need, lo = 0x80u, hi = 0xBFu;
        if (c < 0x80u) {
            k++;
            continue;
        }
        if (c >= 0xC2u && c <= 0xDFu) need = 1;
        else if (c >= 0xE0u && c <= 0xEFu) {
            need = 2;
            if (c == 0xE0u) lo = 0xA0u;
            if (c == 0xEDu) hi = 0x9Fu;
        } else if (c >= 0xF0u && c <= 0xF4u) {
            need = 3;
            if (c == 0xF0u) lo = 0x90u;
            if (c == 0xF4u) hi = 0x8Fu;
        } else {
            return 0;
        }
        if (n - k - 1 < (int64_t)need) return 0;
        for (unsigned j = 1; j <= need; j++) {
            unsigned d = s[(k + (int64_t)j) * stride];
            if (d < (j == 1 ? lo : 0x80u) || d > (j == 1 ? hi : 0xBFu)) return 0;
        }
        k += 1 + (int64_t)need;
    }
    return 1;
}

static bool rd_utf8(rd *r, uint64_t limit, const uint8_t **b, uint32_t *n)
{
    size_t at = r->pos;
    if (!rd_bytes(r, limit, b, n)) return false;
    if (!cint_gen_utf8_valid(*b, (int64_t)*n, 1)) return bad(r, at + 4u);
    return true;
}

/* A Z payload (IM-145): a count at most bound, then minimal two's complement bytes. */
static bool rd_z(rd *r, uint32_t bound)
{
    size_t at = r->pos;
    uint64_t n;
    const uint8_t *b;
    if (!rd_le(r, 4, &n)) return false;
    if (n > bound) return bad(r, at);
    if (!take(r, (size_t)n, &b)) return false;
    if (n == 1 && b[0] == 0) return bad(r, at);
    if (n >= 2) {
        uint8_t top = b[n - 1], next = b[n - 2];
        if ((top == 0x00u && next < 0x80u) || (top == 0xFFu && next >= 0x80u)) return bad(r, at);
    }
    return true;
}

/* --- type descriptors and payloads (IM-146 to IM-148) ---------------------------------------- */

enum { D_BOOL, D_Z, D_INT, D_FIXED, D_ARRAY, D_VIEW, D_STRUCT, D_REDACTED };
enum { ROLE_VALUE, ROLE_ELEMENT, ROLE_REDACTED };

typedef struct dinfo {
    int kind;
    uint32_t size;        /* payload bytes of Bool, an integer or fixed point */
    int elem;             /* an array's element kind */
    uint32_t elem_size;   /* its payload bytes (0 for a struct: unknown) */
    uint8_t rank;
    int64_t extents[MAX_RANK];
} dinfo;

static bool rd_dims(rd *r, unsigned per, uint8_t *rank_out, int64_t *extents)
{
    size_t at = r->pos;
    uint64_t rank;
    if (!rd_le(r, 1, &rank)) return false;
    if (rank < 1 || rank > MAX_RANK) return bad(r, at);
    if (rank * 8u * per > left(r)) return bad(r, at);
    for (uint64_t k = 0; k < rank; k++) {
        size_t e_at = r->pos;
        int64_t e, x;
        if (!rd_i64(r, &e)) return false;
        if (e < 0) return bad(r, e_at);
        if (extents != NULL) extents[k] = e;
        for (unsigned j = 1; j < per; j++)
            if (!rd_i64(r, &x)) return false;
    }
    *rank_out = (uint8_t)rank;
    return true;
}

/* The view's fields after its element: buffer, generation, rank, origin, dims, permission. */
static bool rd_view_rest(rd *r)
{
    uint64_t v;
    size_t at;
    if (!rd_le(r, 8, &v) || !rd_le(r, 8, &v)) return false;
    at = r->pos;
    if (!rd_le(r, 1, &v)) return false;
    if (v < 1 || v > MAX_RANK) return bad(r, at);
    uint64_t rank = v;
    int64_t origin;
    if (!rd_i64(r, &origin)) return false;
    if (rank * 24u > left(r)) return bad(r, at);
    for (uint64_t k = 0; k < rank; k++) {
        size_t e_at = r->pos;
        int64_t e, x;
        if (!rd_i64(r, &e)) return false;
        if (e < 0) return bad(r, e_at);
        if (!rd_i64(r, &x) || !rd_i64(r, &x)) return false;
    }
    at = r->pos;
    if (!rd_le(r, 1, &v)) return false;
    if (v > 1) return bad(r, at);
    return true;
}

static bool rd_desc(rd *r, int role, bool in_fault, dinfo *d)
{
    size_t at = r->pos;
    uint64_t tag;
    if (!rd_le(r, 1, &tag)) return false;
    memset(d, 0, sizeof *d);
    if (tag == CINT_TAG_BOOL) {
        d->kind = D_BOOL;
        d->size = 1;
        return true;
    }
    if (tag == CINT_TAG_Z) {
        if (role == ROLE_ELEMENT) return bad(r, at);
        d->kind = D_Z;
        return true;
    }
    if ((tag >= CINT_TAG_I8 && tag <= CINT_TAG_I1024) || (tag >= CINT_TAG_U8 && tag <= CINT_TAG_U64)) {
        d->kind = D_INT;
        d->size = 1u << (tag - (tag >= CINT_TAG_U8 ? CINT_TAG_U8 : CINT_TAG_I8));
        return true;
    }
    if (tag == CINT_TAG_Q) {
        uint64_t st, f;
        size_t st_at = r->pos;
        if (!rd_le(r, 1, &st)) return false;
        if (st < CINT_TAG_I8 || st > CINT_TAG_I64) return bad(r, st_at);
        uint32_t bytes = 1u << (st - CINT_TAG_I8);
        size_t f_at = r->pos;
        if (!rd_le(r, 2, &f)) return false;
        if (f > bytes * 8u - 1u) return bad(r, f_at);
        d->kind = D_FIXED;
        d->size = bytes;
        return true;
    }
    if (tag == CINT_TAG_ARRAY) {
        if (role == ROLE_ELEMENT) return bad(r, at);
        dinfo e;
        if (!rd_desc(r, ROLE_ELEMENT, in_fault, &e)) return false;
        if (e.kind != D_BOOL && e.kind != D_INT && e.kind != D_FIXED && e.kind != D_STRUCT) return bad(r, at);
        d->kind = D_ARRAY;
        d->elem = e.kind;
        d->elem_size = e.kind == D_STRUCT ? 0u : e.size;
        if (!rd_dims(r, 1, &d->rank, d->extents)) return false;
        if (d->elem_size != 0) { /* IM-148: the payload size within M64 */
            uint64_t size = d->elem_size;
            bool zero = false, over = false;
            for (uint32_t k = 0; k < d->rank; k++) {
                if (d->extents[k] == 0) zero = true;
                else if (__builtin_mul_overflow(size, (uint64_t)d->extents[k], &size) || size > M64) over = true;
            }
            if (over && !zero) return bad(r, at);
        }
        return true;
    }
    if (tag == CINT_TAG_VIEW) {
        if (!in_fault || role == ROLE_ELEMENT) return bad(r, at);
        dinfo e;
        if (!rd_desc(r, ROLE_ELEMENT, in_fault, &e)) return false;
        if (e.kind != D_BOOL && e.kind != D_INT && e.kind != D_FIXED && e.kind != D_STRUCT) return bad(r, at);
        d->kind = D_VIEW;
        return rd_view_rest(r);
    }
    if (tag == CINT_TAG_STRUCT) {
        const uint8_t *b;
        uint32_t n;
        if (!rd_utf8(r, UINT32_MAX, &b, &n)) return false;
        d->kind = D_STRUCT;
        return true;
    }
    if (tag == CINT_TAG_REDACTED) {
        if (!in_fault || role != ROLE_VALUE) return bad(r, at);
        dinfo inner;
        if (!rd_desc(r, ROLE_REDACTED, in_fault, &inner)) return false;
        d->kind = D_REDACTED;
        return true;
    }
    return bad(r, at); /* unknown, or a ternary tag whose payload this decoder does not read */
}

static bool rd_payload(rd *r, const dinfo *d, uint32_t z_bound)
{
    size_t at = r->pos;
    const uint8_t *b;
    switch (d->kind) {
    case D_BOOL:
        if (!take(r, 1, &b)) return false;
        return b[0] <= 1u ? true : bad(r, at);
    case D_INT:
    case D_FIXED:
        return take(r, d->size, &b);
    case D_Z:
        return rd_z(r, z_bound);
    case D_VIEW:
    case D_REDACTED:
        return true;
    case D_ARRAY: {
        if (d->elem_size == 0) return bad(r, at); /* a struct's layout is not in the bytes */
        uint64_t count = 1;
        for (uint32_t k = 0; k < d->rank; k++)
            if (__builtin_mul_overflow(count, (uint64_t)d->extents[k], &count)) return bad(r, at);
        uint64_t size;
        if (__builtin_mul_overflow(count, (uint64_t)d->elem_size, &size) || size > left(r)) return bad(r, at);
        /* cint_abi's implementation limit on the nested lists of a zero-size array */
        uint64_t lists = 1, prefix = 1;
        for (uint32_t k = 0; k + 1u < d->rank; k++) {
            if (d->extents[k] == 0) break;
            if (__builtin_mul_overflow(prefix, (uint64_t)d->extents[k], &prefix) || prefix > MAX_NESTED_LISTS) {
                lists = MAX_NESTED_LISTS + 1u;
                break;
            }
            lists += prefix;
        }
        if (lists > MAX_NESTED_LISTS) return bad(r, at);
        if (!take(r, (size_t)size, &b)) return false;
        if (d->elem == D_BOOL)
            for (uint64_t k = 0; k < size; k++)
                if (b[k] > 1u) return bad(r, at + (size_t)k);
        return true;
    }
    default:
        return bad(r, at); /* a struct payload needs its layout */
    }
}

/* A tagged value of a fault record: its bytes (at most CINT_TVALUE_BYTES) into t. */
static bool rd_tvalue(rd *r, cint_tvalue *t)
{
    size_t at = r->pos;
    dinfo d;
    if (!rd_desc(r, ROLE_VALUE, true, &d) || !rd_payload(r, &d, Z_BOUND)) return false;
    size_t n = r->pos - at;
    if (n > CINT_TVALUE_BYTES) return fail(r, at, CINT_STATE_UNREPRESENTABLE);
    memset(t, 0, sizeof *t);
    t->len = (uint32_t)n;
    memcpy(t->bytes, r->p + at, n);
    return true;
}

/* A position (path, line, column) as a site of the program's tables. A position outside them
   is held as module UINT32_MAX, which cint_fault_get writes as an empty path at 0:0, so only
   that one is kept; any other is not representable. */
static bool rd_position(rd *r, const cint_program *p, cint_position *out)
{
    size_t at = r->pos;
    const uint8_t *path;
    uint32_t n;
    uint64_t line, column;
    if (!rd_utf8(r, MAX_PATH, &path, &n) || !rd_le(r, 4, &line) || !rd_le(r, 4, &column)) return false;
    for (uint32_t k = 0; k < p->module_count; k++) {
        const cint_module *m = p->modules[k];
        if (m->path_len != n || (n > 0 && memcmp(m->path, path, n) != 0)) continue;
        for (uint32_t s = 0; s < m->site_count; s++)
            if (m->sites[s].line == line && m->sites[s].column == column) {
                out->module = k;
                out->index = s;
                return true;
            }
    }
    if (n == 0 && line == 0 && column == 0) {
        out->module = UINT32_MAX;
        out->index = UINT32_MAX;
        return true;
    }
    return fail(r, at, CINT_STATE_UNREPRESENTABLE);
}

static bool rd_nonneg(rd *r, int64_t *v)
{
    size_t at = r->pos;
    if (!rd_i64(r, v)) return false;
    return *v >= 0 ? true : bad(r, at);
}

/* The scratch of a restore: everything decoded, nothing of the context changed yet. */
typedef struct scratch {
    uint8_t *globals;
    size_t globals_bytes;
    uint64_t next_buffer, next_arena, next_pool, entries;
    int64_t effects;
    bool has_fault;
    cint_fault_record fault;
    cint_position *stack;
    size_t stack_cap;
    char *name;
    size_t name_cap;
    /* the arena and pool blocks: a new arena table, new pool slot tables and new element storage per
       container (ctx->container_bytes[k] each, zero beyond what the blocks hold), swapped in at the commit */
    rt_arena *arenas;
    size_t arena_cap;
    uint32_t arena_count;
    rt_pool *pools;          /* one row per module pool, by id */
    uint32_t pool_rows;
    uint8_t **store;         /* per container of the program, or NULL */
    uint64_t max_arena, max_pool;
    bool oom;
} scratch;

/* An IM-149 record, layout version 2, read as a run-time record (IM-148), into sc. */
static bool rd_fault(cint_ctx *ctx, rd *r, scratch *sc)
{
    const cint_program *p = ctx->program;
    cint_fault_record *f = &sc->fault;
    const uint8_t *b;
    uint32_t n;
    uint64_t v;
    bool present;
    memset(f, 0, sizeof *f);
    f->program = p;

    if (!rd_expect(r, k_fault_domain, sizeof k_fault_domain - 1u)) return false;
    size_t at = r->pos;
    if (!rd_le(r, 2, &v)) return false;
    if (v < CINT_E_OVERFLOW || v > CINT_E_ASSERT) return bad(r, at);
    f->code = (uint16_t)v;
    at = r->pos;
    if (!rd_bytes(r, CINT_FAULT_OPERATION_MAX, &b, &n)) return false;
    for (uint32_t k = 0; k < n; k++)
        if (b[k] >= 0x80u) return bad(r, at + 4u + k);
    f->operation_len = n;
    memcpy(f->operation, b, n);
    at = r->pos;
    if (!rd_le(r, 4, &v)) return false;
    if (v > CINT_FAULT_OPERANDS_MAX) return bad(r, at);
    f->operand_count = (uint32_t)v;
    for (uint32_t k = 0; k < f->operand_count; k++)
        if (!rd_tvalue(r, &f->operands[k])) return false;

    if (!rd_presence(r, &present)) return false;
    if (present) {
        at = r->pos;
        if (!rd_le(r, 1, &v)) return false;
        if (v == CINT_TAG_Z) {
            size_t z_at = r->pos;
            if (!rd_z(r, Z_BOUND)) return false;
            size_t zn = r->pos - z_at;
            f->exact.bytes[0] = CINT_TAG_Z;
            memcpy(&f->exact.bytes[1], r->p + z_at, zn);
            f->exact.len = (uint32_t)(1u + zn);
        } else if (v == CINT_TAG_REDACTED) {
            uint64_t inner;
            if (!rd_le(r, 1, &inner)) return false;
            if (inner != CINT_TAG_Z) return bad(r, at);
            f->exact.bytes[0] = CINT_TAG_REDACTED;
            f->exact.bytes[1] = CINT_TAG_Z;
            f->exact.len = 2;
        } else {
            return bad(r, at);
        }
        f->has_exact = 1;
    }
    if (!rd_presence(r, &present)) return false;
    if (present) {
        if (!rd_tvalue(r, &f->limit)) return false;
        f->has_limit = 1;
    }
    if (!rd_position(r, p, &f->position)) return false;
    if (!rd_presence(r, &present)) return false;
    if (present) {
        if (!take(r, 32, &b)) return false;
        f->has_revision = 1;
        memcpy(f->revision, b, 32);
    }
    if (!rd_presence(r, &present)) return false;
    if (present) {
        if (!take(r, 32, &b)) return false;
        f->has_source_map = 1;
        memcpy(f->source_map, b, 32);
    }
    if (!rd_presence(r, &present)) return false;
    if (present) {
        if (!rd_utf8(r, UINT32_MAX, &b, &n)) return false;
        if (n > 0) {
            sc->name = rt_alloc(ctx, n);
            if (sc->name == NULL) return fail(r, r->pos, CINT_STATE_UNREPRESENTABLE);
            sc->name_cap = n;
            memcpy(sc->name, b, n);
        }
        f->has_address = 1;
        f->address.name_len = n;
        if (!rd_nonneg(r, &f->address.dispatch)) return false;
        at = r->pos;
        if (!rd_le(r, 1, &v)) return false;
        if (v > CINT_PHASE_EPILOGUE) return bad(r, at);
        f->address.phase = (uint32_t)v;
        at = r->pos;
        bool item;
        if (!rd_presence(r, &item)) return false;
        if (item != (v == CINT_PHASE_WORK_ITEM)) return bad(r, at);
        if (item) {
            f->address.has_work_item = 1;
            if (!rd_nonneg(r, &f->address.work_item) || !rd_nonneg(r, &f->address.step)) return false;
        }
    }
    at = r->pos;
    if (!rd_le(r, 4, &v)) return false;
    if (v * 12u > left(r)) return bad(r, at);
    if (v > ctx->frames) return fail(r, at, CINT_STATE_UNREPRESENTABLE);
    if (v > 0) {
        sc->stack_cap = (size_t)v;
        sc->stack = rt_alloc(ctx, sc->stack_cap * sizeof(cint_position));
        if (sc->stack == NULL) return fail(r, at, CINT_STATE_UNREPRESENTABLE);
    }
    f->stack_count = v;
    for (uint64_t k = 0; k < v; k++)
        if (!rd_position(r, p, &sc->stack[k])) return false;
    if (r->pos != r->len) return bad(r, r->pos);
    return true;
}

/* The registry block: checked, and dropped (every registration ends at a restore). *max_id
   receives the greatest identifier present, 0 if none. */
static bool rd_registry(rd *r, uint64_t *max_id)
{
    uint64_t count, last = 0, v;
    if (!rd_expect(r, k_registry_domain, sizeof k_registry_domain - 1u)) return false;
    size_t at = r->pos;
    if (!rd_le(r, 8, &count)) return false;
    if (count > left(r) / 28u) return bad(r, at);
    for (uint64_t k = 0; k < count; k++) {
        at = r->pos;
        if (!rd_le(r, 8, &v)) return false;
        if (v == 0 || v <= last) return bad(r, at);
        last = v;
        at = r->pos;
        if (!rd_le(r, 8, &v)) return false;
        if (v < 1 || v > M64) return bad(r, at);
        dinfo d;
        if (!rd_desc(r, ROLE_ELEMENT, false, &d)) return false;
        at = r->pos;
        int64_t extent;
        if (!rd_i64(r, &extent)) return false;
        if (extent < 0) return bad(r, at);
        uint64_t bytes;
        if (d.kind != D_STRUCT && (__builtin_mul_overflow((uint64_t)extent, (uint64_t)d.size, &bytes) || bytes > M64))
            return bad(r, at);
        uint64_t owner, ceiling, publish;
        at = r->pos;
        if (!rd_le(r, 1, &owner)) return false;
        if (owner < 1 || owner > 2) return bad(r, at); /* 0: context memory, which no state here holds */
        at = r->pos;
        if (!rd_le(r, 1, &ceiling)) return false;
        if (ceiling > 1) return bad(r, at);
        at = r->pos;
        if (!rd_le(r, 1, &publish)) return false;
        if (publish > 1 || (publish == 1 && ceiling == 0)) return bad(r, at);
    }
    if (r->pos != r->len) return bad(r, r->pos);
    *max_id = last;
    return true;
}

/* The value set (cint_rt.h) of row row of record (CINT_VALUES_GLOBALS: of the globals table), or NULL:
   the program's table is in increasing (record, row) order (cint_ctx_create checked it). */
static const cint_value_set *value_set(const cint_ctx *ctx, uint32_t record, uint32_t row)
{
    const cint_program *p = ctx->program;
    uint32_t lo = 0, hi = p->value_set_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        const cint_value_set *v = &p->value_sets[mid];
        if (v->record == record && v->row == row) return v;
        if (v->record < record || (v->record == record && v->row < row)) lo = mid + 1u;
        else hi = mid;
    }
    return NULL;
}

/* Whether the size bytes at b are a value of set v (LS-91, LS-314): an enumerator of the enum, or a tag
   1 to count of the error set. A width other than size holds no value. */
static bool value_in(const cint_value_set *v, const uint8_t *b, uint32_t size)
{
    if (v->width != size) return false;
    if (v->kind == CINT_VALUES_ERROR_SET) {
        uint64_t tag = 0;
        for (uint32_t k = 0; k < size; k++) tag |= (uint64_t)b[k] << (8u * k);
        return tag >= 1u && tag <= v->count;
    }
    uint32_t lo = 0, hi = v->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        int c = memcmp(v->values + (size_t)mid * size, b, size);
        if (c == 0) return true;
        if (c < 0) lo = mid + 1u;
        else hi = mid;
    }
    return false;
}

/* Whether the 29 bytes at b are a handle payload (docs/encodings.md; cint_abi.encoding.read_handle): kind
   0 to 2, a null handle all zero, another one of a container from 1 and a length not negative, a pool
   handle's 1. */
static bool handle_ok(const uint8_t *b)
{
    uint64_t slot = 0, len = 0, gen = 0, cont = 0;
    for (unsigned k = 0; k < 8u; k++) {
        slot |= (uint64_t)b[k] << (8u * k);
        len |= (uint64_t)b[8u + k] << (8u * k);
        gen |= (uint64_t)b[16u + k] << (8u * k);
    }
    for (unsigned k = 0; k < 4u; k++) cont |= (uint64_t)b[24u + k] << (8u * k);
    uint8_t kind = b[28];
    if (kind > CINT_HANDLE_POOL) return false;
    if (kind == CINT_HANDLE_NULL) return slot == 0 && len == 0 && gen == 0 && cont == 0;
    if (cont == 0 || (len >> 63) != 0) return false;
    return kind != CINT_HANDLE_POOL || len == 1u;
}

/* A scalar's payload of size bytes at b into dst; a handle's 29 bytes fill a cint_handle, its padding 0. */
static void put_value(uint8_t *dst, const uint8_t *b, uint32_t size, bool handle)
{
    memcpy(dst, b, size);
    if (handle) memset(dst + size, 0, sizeof(cint_handle) - size);
}

/* One record's canonical payload into dst (its C layout); a Bool byte other than 0 or 1, or a field of
   an enum or error-set type holding no value of it, is malformed. */
static bool rd_record(const cint_ctx *ctx, rd *r, uint32_t id, uint8_t *dst)
{
    const cint_record_layout *rl = &ctx->module->records[id];
    for (uint32_t f = 0; f < rl->field_count; f++) {
        const cint_record_field *fd = &rl->fields[f];
        if (fd->type.code == CINT_TAG_STRUCT) {
            uint64_t size = ctx->module->records[fd->type.record_id].size;
            for (uint32_t k = 0; k < fd->count; k++)
                if (!rd_record(ctx, r, fd->type.record_id, dst + fd->offset + k * size)) return false;
            continue;
        }
        uint8_t d[4];
        uint32_t size = 0;
        (void)scalar_desc(&fd->type, d, &size);
        const cint_value_set *vs = value_set(ctx, id, f);
        bool handle = fd->type.code == CINT_TAG_HANDLE;
        uint64_t stride = handle ? sizeof(cint_handle) : size;
        for (uint32_t k = 0; k < fd->count; k++) {
            const uint8_t *b;
            size_t at = r->pos;
            if (!take(r, size, &b)) return false;
            if (fd->type.code == CINT_TAG_BOOL && b[0] > 1u) return bad(r, at);
            if (vs != NULL && !value_in(vs, b, size)) return bad(r, at);
            if (handle && !handle_ok(b)) return bad(r, at);
            put_value(dst + fd->offset + (uint64_t)k * stride, b, size, handle);
        }
    }
    return true;
}

/* --- the arena and pool blocks (docs/encodings.md; cint_abi.arenas_pools, H-19a) -------------------- */

#define GEN_MAX UINT64_C(0x7FFFFFFFFFFFFFFF)

static bool no_room(rd *r, scratch *sc, size_t at)
{
    sc->oom = true;
    return fail(r, at, CINT_STATE_UNREPRESENTABLE);
}

static uint32_t count_kind(const cint_ctx *ctx, uint32_t kind)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < ctx->program->container_count; k++)
        if (ctx->program->containers[k].kind == kind) n++;
    return n;
}

/* The program's container index of the id-th (from 1) module arena or pool, or UINT32_MAX. */
static uint32_t container_of(const cint_ctx *ctx, uint32_t kind, uint64_t id)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < ctx->program->container_count; k++)
        if (ctx->program->containers[k].kind == kind && ++n == id) return k;
    return UINT32_MAX;
}

/* A container's name at the reader (U32 length, UTF-8) equal to container k's; CINT_STATE_GLOBALS if not. */
static bool rd_container_name(const cint_ctx *ctx, rd *r, uint32_t k, size_t id_at)
{
    const uint8_t *b;
    uint32_t n;
    if (!rd_utf8(r, UINT32_MAX, &b, &n)) return false;
    if (k == UINT32_MAX) return fail(r, id_at, CINT_STATE_GLOBALS);
    const cint_container_info *c = &ctx->program->containers[k];
    if (n != c->name.len || (n > 0 && memcmp(b, c->name.bytes, n) != 0)) return fail(r, id_at, CINT_STATE_GLOBALS);
    return true;
}

/* Container k's element descriptor at the reader (why: the refusal when it differs); its payload size. */
static bool rd_container_desc(const cint_ctx *ctx, rd *r, uint32_t k, uint32_t why, uint32_t *payload)
{
    uint8_t d[4];
    const uint8_t *hd;
    size_t at = r->pos;
    uint32_t n = container_desc(ctx, k, d, &hd, payload);
    if (n == 0) return fail(r, at, CINT_STATE_UNREPRESENTABLE);
    if (n > left(r) || memcmp(r->p + r->pos, hd, n) != 0) return fail(r, at, why);
    r->pos += n;
    return true;
}

/* One element of container k (its canonical payload) into dst, its C layout. */
static bool rd_elem(const cint_ctx *ctx, rd *r, uint32_t k, uint8_t *dst, uint32_t payload)
{
    const cint_type *t = &ctx->program->containers[k].elem;
    if (t->code == CINT_TAG_STRUCT) return rd_record(ctx, r, t->record_id, dst);
    const uint8_t *b;
    size_t at = r->pos;
    if (!take(r, payload, &b)) return false;
    if (t->code == CINT_TAG_BOOL && b[0] > 1u) return bad(r, at);
    if (t->code == CINT_TAG_HANDLE && !handle_ok(b)) return bad(r, at);
    const cint_value_set *vs = value_set(ctx, CINT_VALUES_CONTAINERS, k);
    if (vs != NULL && !value_in(vs, b, payload)) return bad(r, at);
    put_value(dst, b, payload, t->code == CINT_TAG_HANDLE);
    return true;
}

/* The element storage of container k in the scratch, zero-filled, as large as the context's. */
static bool store_of(cint_ctx *ctx, rd *r, scratch *sc, uint32_t k, size_t at)
{
    if (sc->store[k] != NULL) return true;
    sc->store[k] = rt_alloc_zero(ctx, ctx->container_bytes[k]);
    return sc->store[k] != NULL ? true : no_room(r, sc, at);
}

/* The arena block (all of r; empty when the program has no arena): every module arena of the program
   by its id, name, element type and capacity, then its child arenas, with the rules of
   cint_abi.arenas_pools.decode_arena_block. */
static bool rd_arenas(cint_ctx *ctx, rd *r, scratch *sc)
{
    static const char k_dom[] = "cint-core-1/arenas/v1";
    uint32_t na = count_kind(ctx, CINT_CONTAINER_ARENA);
    if (r->len == 0) return na == 0 ? true : fail(r, 0, CINT_STATE_GLOBALS);
    if (!rd_expect(r, k_dom, sizeof k_dom - 1u)) return false;
    size_t at = r->pos;
    uint64_t count, last = 0;
    if (!rd_le(r, 8, &count)) return false;
    if (count == 0 || count > left(r) / 40u) return bad(r, at); /* no arena is written as no bytes */
    if (count >= UINT32_MAX - 1u) return fail(r, at, CINT_STATE_UNREPRESENTABLE);
    sc->arenas = rt_alloc_zero(ctx, (size_t)count * sizeof(rt_arena));
    if (sc->arenas == NULL) return no_room(r, sc, at);
    sc->arena_cap = (size_t)count;
    uint32_t modules = 0;
    for (uint32_t j = 0; j < (uint32_t)count; j++) {
        rt_arena *a = &sc->arenas[j];
        const rt_arena *pa = NULL;
        size_t entry = r->pos;
        uint64_t aid, origin;
        uint32_t k, payload = 0;
        int64_t offset = 0;
        if (!rd_le(r, 8, &aid)) return false;
        if (aid == 0 || aid <= last) return bad(r, entry);
        last = aid;
        at = r->pos;
        if (!rd_le(r, 1, &origin)) return false;
        if (origin == 0) {
            k = container_of(ctx, CINT_CONTAINER_ARENA, aid);
            if (!rd_container_name(ctx, r, k, entry)) return false;
            a->parent = UINT32_MAX;
            modules++;
        } else if (origin == 1) {
            size_t pat = r->pos;
            uint64_t pid;
            if (!rd_le(r, 8, &pid)) return false;
            uint32_t lo = 0, hi = j; /* the rows before this one, by increasing id */
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2u;
                if (sc->arenas[mid].id < pid) lo = mid + 1u;
                else hi = mid;
            }
            if (lo == j || sc->arenas[lo].id != pid) return bad(r, pat);
            pa = &sc->arenas[lo];
            a->parent = lo;
            k = pa->root;
            size_t oat = r->pos;
            if (!rd_i64(r, &offset)) return false;
            if (offset < 0) return bad(r, oat);
        } else {
            return bad(r, at);
        }
        if (!rd_container_desc(ctx, r, k, pa == NULL ? CINT_STATE_GLOBALS : CINT_STATE_MALFORMED, &payload))
            return false;
        int64_t cap, used;
        uint64_t gen, retired;
        at = r->pos;
        if (!rd_i64(r, &cap)) return false;
        if (cap < 0) return bad(r, at);
        if (pa == NULL && cap != ctx->program->containers[k].capacity) return fail(r, at, CINT_STATE_GLOBALS);
        at = r->pos;
        if (!rd_i64(r, &used)) return false;
        if (used < 0 || used > cap) return bad(r, at);
        at = r->pos;
        if (!rd_le(r, 8, &gen)) return false;
        if (gen > GEN_MAX) return bad(r, at);
        size_t rat = r->pos;
        if (!rd_le(r, 1, &retired)) return false;
        if (retired > 1u) return bad(r, rat);
        a->id = aid;
        a->root = k;
        a->offset = offset;
        a->capacity = cap;
        a->used = used;
        a->generation = gen;
        a->retired = (uint8_t)retired;
        a->esize = rt_container_elem_size(ctx, &ctx->program->containers[k].elem);
        if (pa != NULL) {
            if (pa->retired && !a->retired) return bad(r, rat);
            a->base = pa->base; /* a retired child's storage is never reached */
            if (!a->retired) {
                if (offset > pa->used || cap > pa->used - offset) return bad(r, entry);
                for (uint32_t o = 0; o < j; o++) {
                    const rt_arena *s = &sc->arenas[o];
                    if (s->parent == a->parent && !s->retired && s->offset < offset + cap &&
                        offset < s->offset + s->capacity)
                        return bad(r, entry);
                }
                a->base = pa->base + offset;
            }
        } else {
            at = r->pos;
            if ((uint64_t)used > left(r)) return bad(r, at);
            if (!store_of(ctx, r, sc, k, at)) return false;
            for (int64_t e = 0; e < used; e++)
                if (!rd_elem(ctx, r, k, sc->store[k] + e * a->esize, payload)) return false;
        }
        sc->arena_count = j + 1u;
    }
    if (r->pos != r->len) return bad(r, r->pos);
    if (modules != na) return fail(r, 0, CINT_STATE_GLOBALS); /* a module arena of the program is missing */
    sc->max_arena = last;
    return true;
}

/* The pool block (all of r; empty when the program has no pool): every module pool of the program by its
   id, name, element type and capacity, with the rules of cint_abi.arenas_pools.decode_pool_block. */
static bool rd_pools(cint_ctx *ctx, rd *r, scratch *sc)
{
    static const char k_dom[] = "cint-core-1/pools/v1";
    uint32_t np = count_kind(ctx, CINT_CONTAINER_POOL);
    if (r->len == 0) return np == 0 ? true : fail(r, 0, CINT_STATE_GLOBALS);
    if (!rd_expect(r, k_dom, sizeof k_dom - 1u)) return false;
    size_t at = r->pos;
    uint64_t count, last = 0;
    if (!rd_le(r, 8, &count)) return false;
    if (count == 0 || count > left(r) / 40u) return bad(r, at); /* no pool is written as no bytes */
    if (np > 0) {
        sc->pools = rt_alloc_zero(ctx, np * sizeof(rt_pool));
        if (sc->pools == NULL) return no_room(r, sc, at);
        sc->pool_rows = np;
    }
    for (uint64_t j = 0; j < count; j++) {
        size_t entry = r->pos;
        uint64_t pid, nslots, nfree;
        uint32_t payload = 0;
        if (!rd_le(r, 8, &pid)) return false;
        if (pid == 0 || pid <= last) return bad(r, entry);
        last = pid;
        uint32_t k = container_of(ctx, CINT_CONTAINER_POOL, pid);
        if (!rd_container_name(ctx, r, k, entry)) return false;
        rt_pool *q = &sc->pools[pid - 1u];
        if (!rd_container_desc(ctx, r, k, CINT_STATE_GLOBALS, &payload)) return false;
        int64_t cap, retired;
        at = r->pos;
        if (!rd_i64(r, &cap)) return false;
        if (cap < 0) return bad(r, at);
        if (cap != ctx->program->containers[k].capacity) return fail(r, at, CINT_STATE_GLOBALS);
        size_t rat = r->pos;
        if (!rd_i64(r, &retired)) return false;
        at = r->pos;
        if (!rd_le(r, 8, &nslots)) return false;
        if (nslots > (uint64_t)cap || nslots > left(r) / 9u) return bad(r, at);
        q->id = pid;
        q->k = k;
        q->capacity = cap;
        q->esize = rt_container_elem_size(ctx, &ctx->program->containers[k].elem);
        size_t n = (size_t)(cap > 0 ? cap : 1);
        q->gen = rt_alloc_zero(ctx, n * sizeof(uint64_t));
        q->occ = rt_alloc_zero(ctx, n);
        q->free = rt_alloc_zero(ctx, n * sizeof(uint64_t));
        if (q->gen == NULL || q->occ == NULL || q->free == NULL) return no_room(r, sc, at);
        if (!store_of(ctx, r, sc, k, at)) return false;
        int64_t vacant = 0;
        for (uint64_t e = 0; e < nslots; e++) {
            at = r->pos;
            if (!rd_le(r, 8, &q->gen[e])) return false;
            if (q->gen[e] > GEN_MAX) return bad(r, at);
            uint64_t occ;
            at = r->pos;
            if (!rd_le(r, 1, &occ)) return false;
            if (occ > 1u) return bad(r, at);
            q->occ[e] = (uint8_t)occ;
            if (occ == 0) vacant++;
            else if (!rd_elem(ctx, r, k, sc->store[k] + (int64_t)e * q->esize, payload)) return false;
        }
        at = r->pos;
        if (!rd_le(r, 8, &nfree)) return false;
        if (nfree > nslots) return bad(r, at);
        for (uint64_t e = 0; e < nfree; e++) {
            uint64_t s;
            at = r->pos;
            if (!rd_le(r, 8, &s)) return false;
            if (s >= nslots || q->occ[s] != 0) return bad(r, at); /* 1: occupied, 2: already listed */
            q->occ[s] = 2u;
            q->free[e] = s;
        }
        for (uint64_t e = 0; e < nfree; e++) q->occ[q->free[e]] = 0u;
        if (retired != vacant - (int64_t)nfree) return bad(r, rat);
        q->slots = (int64_t)nslots;
        q->free_count = (int64_t)nfree;
        q->retired = retired;
    }
    if (r->pos != r->len) return bad(r, r->pos);
    if (count != np) return fail(r, 0, CINT_STATE_GLOBALS); /* a module pool of the program is missing */
    sc->max_pool = last;
    return true;
}

static bool rd_state(cint_ctx *ctx, rd *r, scratch *sc, const cint_global_info **order)
{
    const cint_program *p = ctx->program;
    const uint8_t *b;
    uint64_t v;
    if (!rd_expect(r, k_state_domain, sizeof k_state_domain - 1u)) return false;
    size_t at = r->pos;
    if (!take(r, 32, &b)) return false;
    if (memcmp(b, p->revision, 32) != 0) return fail(r, at, CINT_STATE_REVISION);
    if (!rd_expect(r, k_profile, sizeof k_profile - 1u)) return false;

    at = r->pos;
    if (!rd_le(r, 8, &v)) return false;
    if (v > left(r) / 6u) return bad(r, at);
    if (v != p->global_count) return fail(r, at, CINT_STATE_GLOBALS);
    for (uint32_t k = 0; k < p->global_count; k++) {
        const cint_global_info *g = order[k];
        uint8_t d[40];
        const uint8_t *hd = d;
        uint64_t goff = 0, size = 0;
        uint32_t es = 0, dn = global_desc(ctx, g, d, &hd, &goff, &size, &es);
        uint32_t n;
        at = r->pos;
        if (!rd_utf8(r, UINT32_MAX, &b, &n)) return false;
        if (n != g->name.len || (n > 0 && memcmp(b, g->name.bytes, n) != 0)) return fail(r, at, CINT_STATE_GLOBALS);
        at = r->pos;
        if (dn > left(r) || memcmp(r->p + r->pos, hd, dn) != 0) return fail(r, at, CINT_STATE_GLOBALS);
        r->pos += dn;
        at = r->pos;
        if (size > left(r)) return bad(r, at);
        if (g->type.code == CINT_TAG_STRUCT) {
            if (!rd_record(ctx, r, g->type.record_id, sc->globals + goff)) return false;
            continue;
        }
        if (g->type.code == CINT_TAG_ARRAY && g->type.storage == CINT_TAG_STRUCT) {
            uint64_t one = 0;
            (void)record_size(ctx, g->type.record_id, 0u, &one);
            uint64_t count = one ? size / one : 0u;
            for (uint64_t j = 0; j < count; j++)
                if (!rd_record(ctx, r, g->type.record_id, sc->globals + goff + j * es)) return false;
            continue;
        }
        if (g->type.code == CINT_TAG_ARRAY && g->type.storage == CINT_TAG_HANDLE) {
            for (uint64_t j = 0; j < size / 29u; j++) { /* each element's payload into its cint_handle */
                at = r->pos;
                if (!take(r, 29u, &b)) return false;
                if (!handle_ok(b)) return bad(r, at);
                put_value(sc->globals + goff + j * es, b, 29u, true);
            }
            continue;
        }
        if (!take(r, (size_t)size, &b)) return false;
        if (d[0] == CINT_TAG_BOOL || (d[0] == CINT_TAG_ARRAY && d[1] == CINT_TAG_BOOL))
            for (uint64_t j = 0; j < size; j++)
                if (b[j] > 1u) return bad(r, at + (size_t)j);
        const cint_value_set *vs = value_set(ctx, CINT_VALUES_GLOBALS, (uint32_t)(g - p->globals));
        if (vs != NULL && es > 0)
            for (uint64_t j = 0; j < size; j += es)
                if (!value_in(vs, b + j, es)) return bad(r, at + (size_t)j);
        if (g->type.code == CINT_TAG_HANDLE) { /* a handle: its payload checked, its padding 0 */
            if (!handle_ok(b)) return bad(r, at);
            put_value(sc->globals + goff, b, (uint32_t)size, true);
            continue;
        }
        memcpy(sc->globals + goff, b, (size_t)size);
    }
    for (int blk = 0; blk < 2; blk++) { /* the arena block, then the pool block */
        at = r->pos;
        if (!rd_le(r, 8, &v)) return false;
        if (v > left(r)) return bad(r, at);
        rd sub = {r->p + r->pos, (size_t)v, 0, r->base + r->pos, 0, 0};
        if (!(blk == 0 ? rd_arenas(ctx, &sub, sc) : rd_pools(ctx, &sub, sc)))
            return fail(r, sub.err_at - r->base, sub.err);
        r->pos += (size_t)v;
    }

    at = r->pos;
    if (!rd_le(r, 8, &v)) return false;
    if (v > left(r)) return bad(r, at);
    rd sub = {r->p + r->pos, (size_t)v, 0, r->base + r->pos, 0, 0};
    uint64_t max_id = 0;
    if (!rd_registry(&sub, &max_id)) return fail(r, sub.err_at - r->base, sub.err);
    r->pos += (size_t)v;

    uint64_t *counters[3] = {&sc->next_buffer, &sc->next_arena, &sc->next_pool};
    size_t buffer_at = r->pos;
    for (int k = 0; k < 3; k++) {
        at = r->pos;
        if (!rd_le(r, 8, counters[k])) return false;
        if (*counters[k] == 0) return bad(r, at);
    }
    if (!rd_le(r, 8, &sc->entries)) return false;
    /* H-19a: each counter above every identifier present (cint_abi.arenas_pools.check_counters) */
    if (sc->max_arena != 0 && sc->next_arena <= sc->max_arena) return bad(r, buffer_at + 8u);
    if (sc->max_pool != 0 && sc->next_pool <= sc->max_pool) return bad(r, buffer_at + 16u);
    if (max_id != 0 && sc->next_buffer <= max_id) return bad(r, buffer_at);
    if (!rd_expect(r, k_fuel_model, sizeof k_fuel_model - 1u)) return false;
    if (!rd_presence(r, &sc->has_fault)) return false;
    if (sc->has_fault) {
        at = r->pos;
        if (!rd_le(r, 4, &v)) return false;
        if (v > left(r)) return bad(r, at);
        rd fr = {r->p + r->pos, (size_t)v, 0, r->base + r->pos, 0, 0};
        if (!rd_fault(ctx, &fr, sc)) return fail(r, fr.err_at - r->base, fr.err);
        r->pos += (size_t)v;
    }
    at = r->pos;
    if (!rd_i64(r, &sc->effects)) return false;
    if (sc->effects < 0) return bad(r, at);
    if (r->pos != r->len) return bad(r, r->pos);
    return true;
}

static void scratch_free(cint_ctx *ctx, scratch *sc)
{
    rt_free(ctx, sc->globals, sc->globals_bytes);
    rt_free(ctx, sc->stack, sc->stack_cap * sizeof(cint_position));
    rt_free(ctx, sc->name, sc->name_cap);
    rt_free(ctx, sc->arenas, sc->arena_cap * sizeof(rt_arena));
    for (uint32_t k = 0; k < sc->pool_rows; k++)
        rt_pool_free_slots(ctx, &sc->pools[k]);
    rt_free(ctx, sc->pools, sc->pool_rows * sizeof(rt_pool));
    if (sc->store != NULL) {
        for (uint32_t k = 0; k < ctx->program->container_count; k++)
            rt_free(ctx, sc->store[k], ctx->container_bytes[k]);
        rt_free(ctx, sc->store, ctx->program->container_count * sizeof(uint8_t *));
    }
}

/* The commit of the arena and pool blocks: the scratch's tables and storage replace the context's. */
static void containers_commit(cint_ctx *ctx, scratch *sc)
{
    if (sc->store == NULL) return;
    rt_free(ctx, ctx->arenas, ctx->arena_cap * sizeof(rt_arena));
    ctx->arenas = sc->arenas;
    ctx->arena_cap = sc->arena_cap;
    ctx->arena_count = sc->arena_count;
    sc->arenas = NULL;
    sc->arena_cap = 0;
    for (uint32_t k = 0; k < sc->pool_rows; k++) { /* the same rows: the program's pools, by id */
        rt_pool *q = &ctx->pools[k], *s = &sc->pools[k];
        size_t n = (size_t)(q->capacity > 0 ? q->capacity : 1);
        rt_free(ctx, q->gen, n * sizeof(uint64_t));
        rt_free(ctx, q->occ, n);
        rt_free(ctx, q->free, n * sizeof(uint64_t));
        *q = *s;
        s->gen = s->free = NULL;
        s->occ = NULL;
    }
    for (uint32_t k = 0; k < ctx->program->container_count; k++) {
        if (sc->store[k] == NULL) continue; /* every container is in its block: not reached */
        rt_free(ctx, ctx->containers[k], ctx->container_bytes[k]);
        ctx->containers[k] = sc->store[k];
        sc->store[k] = NULL;
    }
}

static cint_status restore_refused(cint_ctx *ctx, uint64_t *detail, uint32_t why, size_t at, uint32_t reason)
{
    if (detail != NULL) {
        detail[0] = why;
        detail[1] = at;
    }
    ctx->refusal = reason;
    rt_release(ctx);
    return CINT_REFUSED;
}

cint_status cint_gen_state_restore(cint_ctx *ctx, const uint8_t *data, size_t len, uint64_t detail[2])
{
    if (ctx == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    if (detail != NULL) detail[0] = detail[1] = 0;
    if (data == NULL && len > 0) return restore_refused(ctx, detail, CINT_STATE_MALFORMED, 0, CINT_REFUSAL_CALL);
    if (ctx->lease_count > 0) { /* freeing leased storage would break the lease (6.3) */
        ctx->refusal = CINT_REFUSAL_LEASED;
        rt_release(ctx);
        return CINT_BUSY;
    }
    bool ok;
    const cint_global_info **order = sorted_globals(ctx, &ok);
    if (order == NULL) {
        if (!ok) return restore_refused(ctx, detail, CINT_STATE_UNREPRESENTABLE, 0, CINT_REFUSAL_UNSUPPORTED);
        ctx->refusal = CINT_REFUSAL_NONE;
        rt_release(ctx);
        return CINT_RESOURCE;
    }
    scratch sc;
    memset(&sc, 0, sizeof sc);
    sc.globals_bytes = ctx->globals_bytes;
    sc.globals = rt_alloc_zero(ctx, sc.globals_bytes);
    if (sc.globals == NULL) {
        free_order(ctx, order);
        ctx->refusal = CINT_REFUSAL_NONE;
        rt_release(ctx);
        return CINT_RESOURCE;
    }
    if (ctx->globals_bytes > 0) memcpy(sc.globals, ctx->globals, ctx->globals_bytes);
    if (ctx->program->container_count > 0) {
        sc.store = rt_alloc_zero(ctx, ctx->program->container_count * sizeof(uint8_t *));
        if (sc.store == NULL) sc.oom = true;
    }
    rd r = {data, len, 0, 0, 0, 0};
    bool good = !sc.oom && rd_state(ctx, &r, &sc, order);
    free_order(ctx, order);
    if (sc.oom) {
        scratch_free(ctx, &sc);
        ctx->refusal = CINT_REFUSAL_NONE;
        rt_release(ctx);
        return CINT_RESOURCE;
    }
    if (!good) {
        scratch_free(ctx, &sc);
        return restore_refused(ctx, detail, r.err ? r.err : CINT_STATE_MALFORMED, r.err_at,
                               r.err == CINT_STATE_UNREPRESENTABLE ? CINT_REFUSAL_UNSUPPORTED : CINT_REFUSAL_CALL);
    }

    /* every check passed: replace the state */
    for (uint32_t k = 0; k < ctx->slot_count; k++)
        if (ctx->slots[k].owner == CINT_OWNER_RUNTIME) rt_free(ctx, ctx->slots[k].base, ctx->slots[k].alloc);
    ctx->slot_count = 0;
    if (sc.next_buffer > ctx->next_buffer) ctx->next_buffer = sc.next_buffer;
    if (sc.next_arena > ctx->next_arena) ctx->next_arena = sc.next_arena;
    if (sc.next_pool > ctx->next_pool) ctx->next_pool = sc.next_pool;
    ctx->entries = sc.entries;
    ctx->effects = (uint64_t)sc.effects;
    if (ctx->globals_bytes > 0) memcpy(ctx->globals, sc.globals, ctx->globals_bytes);
    containers_commit(ctx, &sc);
    memset(&ctx->fault, 0, sizeof ctx->fault);
    ctx->boundary = false;
    if (sc.has_fault) {
        ctx->fault = sc.fault;
        if (sc.fault.stack_count > 0)
            memcpy(ctx->fault_stack, sc.stack, (size_t)sc.fault.stack_count * sizeof(cint_position));
        ctx->fault.stack = ctx->fault_stack;
        if (sc.name != NULL) {
            rt_free(ctx, ctx->fault_name, ctx->fault_name_cap);
            ctx->fault_name = sc.name;
            ctx->fault_name_cap = sc.name_cap;
            sc.name = NULL;
            sc.name_cap = 0;
        }
        if (ctx->fault.has_address) ctx->fault.address.name = ctx->fault.address.name_len ? ctx->fault_name : "";
    }
    scratch_free(ctx, &sc);
    ctx->refusal = CINT_REFUSAL_NONE;
    rt_release(ctx);
    return CINT_OK;
}
