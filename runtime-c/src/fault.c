/* fault.c: fault records. The held record is kept in structure form (cint_fault_record) and
   encoded on demand into the canonical bytes of SPEC-01P.1 IM-149, layout version 2, which
   cint_abi.faultrecord.encode_fault_record writes too; tests compare the two byte for byte. */
#include "rt_internal.h"

static const char k_domain[] = "cint-core-1/fault/v2";

/* --- the canonical encoder ------------------------------------------------------------------ */

/* Writes up to cap bytes and counts them all, so one pass gives the length and the bytes. */
typedef struct sink {
    uint8_t *buf;
    size_t cap, len;
} sink;

static void put(sink *s, const void *p, size_t n)
{
    if (s->len < s->cap) {
        size_t room = s->cap - s->len;
        memcpy(s->buf + s->len, p, n < room ? n : room);
    }
    s->len += n;
}

static void put_u8(sink *s, uint8_t v) { put(s, &v, 1); }

static void put_le(sink *s, uint64_t v, unsigned n)
{
    uint8_t b[8];
    for (unsigned k = 0; k < n; k++) b[k] = (uint8_t)(v >> (8u * k));
    put(s, b, n);
}

/* A position: path (U32 length, UTF-8), line U32, column U32. A position outside the
   program's tables is written as an empty path at 0:0 (never for a record the runtime
   raised, whose positions are checked when it is raised). */
static void put_position(sink *s, const cint_program *p, cint_position pos)
{
    const cint_module *m = (p != NULL && pos.module < p->module_count) ? p->modules[pos.module] : NULL;
    if (m == NULL || pos.index >= m->site_count) {
        put_le(s, 0, 4);
        put_le(s, 0, 4);
        put_le(s, 0, 4);
        return;
    }
    put_le(s, m->path_len, 4);
    put(s, m->path, m->path_len);
    put_le(s, m->sites[pos.index].line, 4);
    put_le(s, m->sites[pos.index].column, 4);
}

static void encode(const cint_fault_record *r, sink *s)
{
    put_le(s, sizeof k_domain - 1u, 4);
    put(s, k_domain, sizeof k_domain - 1u);
    put_le(s, r->code, 2);
    put_le(s, r->operation_len, 4);
    put(s, r->operation, r->operation_len);
    put_le(s, r->operand_count, 4);
    for (uint32_t k = 0; k < r->operand_count; k++) put(s, r->operands[k].bytes, r->operands[k].len);
    put_u8(s, r->has_exact ? 1u : 0u);
    if (r->has_exact) put(s, r->exact.bytes, r->exact.len);
    put_u8(s, r->has_limit ? 1u : 0u);
    if (r->has_limit) put(s, r->limit.bytes, r->limit.len);
    put_position(s, r->program, r->position);
    put_u8(s, r->has_revision ? 1u : 0u);
    if (r->has_revision) put(s, r->revision, 32);
    put_u8(s, r->has_source_map ? 1u : 0u);
    if (r->has_source_map) put(s, r->source_map, 32);
    put_u8(s, r->has_address ? 1u : 0u);
    if (r->has_address) {
        put_le(s, r->address.name_len, 4);
        put(s, r->address.name, r->address.name_len);
        put_le(s, (uint64_t)r->address.dispatch, 8);
        put_u8(s, (uint8_t)r->address.phase);
        put_u8(s, r->address.phase == CINT_PHASE_WORK_ITEM ? 1u : 0u);
        if (r->address.phase == CINT_PHASE_WORK_ITEM) {
            put_le(s, (uint64_t)r->address.work_item, 8);
            put_le(s, (uint64_t)r->address.step, 8);
        }
    }
    put_le(s, r->stack_count, 4);
    for (uint64_t k = 0; k < r->stack_count; k++) put_position(s, r->program, r->stack[k]);
}

static bool position_ok(const cint_program *p, cint_position pos)
{
    return p != NULL && pos.module < p->module_count && pos.index < p->modules[pos.module]->site_count;
}

/* The checks of cint_fault_encode on a record in structure form. */
static bool record_ok(const cint_fault_record *r)
{
    if (r->code < CINT_E_OVERFLOW || r->code > CINT_E_ASSERT) return false;
    if (r->operation_len > CINT_FAULT_OPERATION_MAX || r->operand_count > CINT_FAULT_OPERANDS_MAX) return false;
    for (uint32_t k = 0; k < r->operand_count; k++)
        if (r->operands[k].len == 0 || r->operands[k].len > CINT_TVALUE_BYTES) return false;
    if (r->has_exact && (r->exact.len < 5 || r->exact.len > CINT_TVALUE_BYTES || r->exact.bytes[0] != CINT_TAG_Z))
        return false;
    if (r->has_limit && (r->limit.len == 0 || r->limit.len > CINT_TVALUE_BYTES)) return false;
    if (!position_ok(r->program, r->position)) return false;
    if (r->has_address && (r->address.phase > CINT_PHASE_EPILOGUE || r->address.dispatch < 0 ||
                           (r->address.name == NULL && r->address.name_len > 0)))
        return false;
    if (r->stack_count > 0 && r->stack == NULL) return false;
    for (uint64_t k = 0; k < r->stack_count; k++)
        if (!position_ok(r->program, r->stack[k])) return false;
    return true;
}

RT_API cint_status cint_fault_encode(const cint_fault_record *rec, uint8_t *buf, size_t cap, size_t *len)
{
    if (rec == NULL || len == NULL || (buf == NULL && cap > 0) || !record_ok(rec)) return CINT_REFUSED;
    sink s = {buf, cap, 0};
    encode(rec, &s);
    *len = s.len;
    return CINT_OK;
}

size_t rt_fault_bytes(const cint_ctx *ctx, uint8_t *buf, size_t cap)
{
    sink s = {buf, cap, 0};
    if (ctx->fault.code != 0) encode(&ctx->fault, &s);
    return s.len;
}

RT_API cint_status cint_fault_get(const cint_ctx *ctx, uint8_t *buf, size_t cap, size_t *len)
{
    if (ctx == NULL || len == NULL || (buf == NULL && cap > 0)) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    sink s = {buf, cap, 0};
    if (ctx->fault.code != 0) encode(&ctx->fault, &s);
    *len = s.len;
    rt_release(ctx);
    return CINT_OK;
}

RT_API cint_status cint_ctx_fault(const cint_ctx *ctx, cint_fault_record *out)
{
    if (ctx == NULL || out == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    *out = ctx->fault;
    rt_release(ctx);
    return CINT_OK;
}

RT_API cint_status cint_ctx_fault_descriptors(const cint_ctx *ctx, cint_type *out, uint32_t *count)
{
    if (ctx == NULL || out == NULL || count == NULL) return CINT_REFUSED;
    if (!rt_acquire(ctx)) return CINT_BUSY;
    uint32_t n = ctx->fault.code != 0 ? ctx->fault.operand_count : 0u;
    for (uint32_t k = 0; k < n; k++) {
        const cint_tvalue *t = &ctx->fault.operands[k];
        memset(&out[k], 0, sizeof out[k]);
        out[k].code = t->bytes[0];
        if (t->bytes[0] == CINT_TAG_Q) {
            out[k].storage = t->bytes[1];
            out[k].frac = (uint16_t)(t->bytes[2] | (t->bytes[3] << 8));
        }
    }
    *count = n;
    rt_release(ctx);
    return CINT_OK;
}

/* --- raising ---------------------------------------------------------------------------------- */

uint32_t rt_z_minimal(const uint8_t *b, uint32_t n)
{
    while (n > 0) {
        uint8_t top = b[n - 1u];
        if (n == 1u) return top == 0u ? 0u : 1u;
        uint8_t next = b[n - 2u];
        if ((top == 0x00u && next < 0x80u) || (top == 0xFFu && next >= 0x80u)) n--;
        else break;
    }
    return n;
}

static bool operation_ok(const char *op)
{
    if (op == NULL) return false;
    size_t n = 0;
    for (; op[n] != '\0'; n++)
        if (n >= CINT_FAULT_OPERATION_MAX || (unsigned char)op[n] >= 0x80u) return false;
    return true;
}

/* Whether f keeps the contract of cint_gen_fault (cint_rt_gen.h). */
static bool fault_ok(const cint_ctx *ctx, const cint_gen_at *at, const cint_gen_fault *f)
{
    if (f == NULL || f->code < CINT_E_OVERFLOW || f->code > CINT_E_ASSERT || !operation_ok(f->operation)) return false;
    if (f->operand_count > CINT_FAULT_OPERANDS_MAX || (f->operand_count > 0 && f->operands == NULL)) return false;
    for (uint32_t k = 0; k < f->operand_count; k++)
        if (f->operands[k].len == 0 || f->operands[k].len > CINT_TVALUE_BYTES) return false;
    if (f->limit != NULL && (f->limit->len == 0 || f->limit->len > CINT_TVALUE_BYTES)) return false;
    if (f->exact != NULL && rt_z_minimal(f->exact, f->exact_len) > 257u) return false;
    return at != NULL && position_ok(ctx->program, at->pos);
}

void rt_raise(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_fault *f)
{
    if (ctx->entry_faulted || ctx->fault.code != 0) return; /* the first fault stays (RT-10) */
    cint_fault_record *r = &ctx->fault;
    memset(r, 0, sizeof *r);
    r->code = f->code;
    r->operation_len = (uint32_t)strlen(f->operation);
    memcpy(r->operation, f->operation, r->operation_len);
    r->operand_count = f->operand_count;
    for (uint32_t k = 0; k < f->operand_count; k++) r->operands[k] = f->operands[k];
    if (f->exact != NULL) {
        uint32_t n = rt_z_minimal(f->exact, f->exact_len);
        r->has_exact = 1;
        r->exact.bytes[0] = CINT_TAG_Z;
        for (unsigned k = 0; k < 4; k++) r->exact.bytes[1 + k] = (uint8_t)(n >> (8u * k));
        memcpy(&r->exact.bytes[5], f->exact, n);
        r->exact.len = 5u + n;
    }
    if (f->limit != NULL) {
        r->has_limit = 1;
        r->limit = *f->limit;
    }
    r->position = at->pos;
    r->program = ctx->program;
    if (ctx->program->flags & CINT_PROGRAM_HAS_REVISION) {
        r->has_revision = 1;
        memcpy(r->revision, ctx->program->revision, 32);
    }
    if (ctx->program->flags & CINT_PROGRAM_HAS_SOURCE_MAP) {
        r->has_source_map = 1;
        memcpy(r->source_map, ctx->program->source_map, 32);
    }
    if (ctx->dispatching) {
        r->has_address = 1;
        r->address.name = ctx->kernel->name.bytes;
        r->address.name_len = ctx->kernel->name.len;
        r->address.dispatch = ctx->dispatch_number;
        r->address.phase = ctx->phase;
        if (ctx->phase == CINT_PHASE_WORK_ITEM) {
            r->address.has_work_item = 1;
            r->address.work_item = at->work_item;
            r->address.step = at->step;
        }
    }
    uint64_t n = (ctx->depth > 1 ? (uint64_t)(ctx->depth - 1) : 0u) + (uint64_t)ctx->stack_site;
    if (n > ctx->frames) n = ctx->frames;
    memcpy(ctx->fault_stack, ctx->stack, (size_t)n * sizeof(cint_position));
    r->stack_count = n;
    r->stack = ctx->fault_stack;
    ctx->entry_faulted = true;
}

int cint_gen_raise(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_fault *f)
{
    if (fault_ok(ctx, at, f)) {
        rt_raise(ctx, at, f);
        return 1;
    }
    /* outside the contract (IM-185): E_UNSUPPORTED dispatch.admit, no operands */
    cint_gen_fault g;
    cint_gen_at here;
    memset(&g, 0, sizeof g);
    g.code = CINT_E_UNSUPPORTED;
    g.operation = "dispatch.admit";
    memset(&here, 0, sizeof here);
    if (at != NULL && position_ok(ctx->program, at->pos)) here = *at;
    rt_raise(ctx, &here, &g);
    return 1;
}

int rt_resource(cint_ctx *ctx, const cint_gen_at *at)
{
    cint_gen_fault g;
    cint_gen_at here;
    memset(&g, 0, sizeof g);
    g.code = CINT_E_UNSUPPORTED;
    g.operation = "host.resource";
    memset(&here, 0, sizeof here);
    if (at != NULL) here = *at;
    bool first = !ctx->entry_faulted && ctx->fault.code == 0;
    rt_raise(ctx, &here, &g);
    if (first) ctx->boundary = true;
    return 1;
}
