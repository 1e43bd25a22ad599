/* types.c: element types (7.2 paragraph 8, A-13a) and the spelling of type names in
   operation identifiers (SPEC-01P.1 IM-130). */
#include "rt_internal.h"

bool rt_type_equal(const cint_type *a, const cint_type *b) { return memcmp(a, b, sizeof *a) == 0; }

unsigned rt_int_width(uint32_t tag)
{
    switch (tag) {
    case CINT_TAG_I8: case CINT_TAG_U8: return 8;
    case CINT_TAG_I16: case CINT_TAG_U16: return 16;
    case CINT_TAG_I32: case CINT_TAG_U32: return 32;
    case CINT_TAG_I64: case CINT_TAG_U64: return 64;
    default: return 0;
    }
}

bool rt_int_signed(uint32_t tag) { return (tag & 0xF0u) == 0x10u; }

const char *rt_type_suffix(uint32_t tag)
{
    switch (tag) {
    case CINT_TAG_BOOL: return "bool";
    case CINT_TAG_I8: return "i8";
    case CINT_TAG_I16: return "i16";
    case CINT_TAG_I32: return "i32";
    case CINT_TAG_I64: return "i64";
    case CINT_TAG_I128: return "i128";
    case CINT_TAG_I256: return "i256";
    case CINT_TAG_I512: return "i512";
    case CINT_TAG_I1024: return "i1024";
    case CINT_TAG_U8: return "u8";
    case CINT_TAG_U16: return "u16";
    case CINT_TAG_U32: return "u32";
    case CINT_TAG_U64: return "u64";
    case CINT_TAG_STRUCT: return "struct";
    case CINT_TAG_HANDLE: return "handle"; /* an array of handles (ours: types.py HandleType.token) */
    default: return "unknown";
    }
}

/* The size of one element of type t in registered memory, and its alignment (A-13a): Bool,
   I8 to U64, fixed point over I8 to I64, or a record of the root module. 0 for any other
   type, or for nonzero reserved fields. */
int64_t rt_elem_size(const cint_ctx *ctx, const cint_type *t, uint32_t *align)
{
    if (t->reserved0 != 0 || t->reserved1 != 0 || t->reserved2 != 0) return 0;
    int64_t size = 0;
    switch (t->code) {
    case CINT_TAG_BOOL:
    case CINT_TAG_I8: case CINT_TAG_I16: case CINT_TAG_I32: case CINT_TAG_I64:
    case CINT_TAG_U8: case CINT_TAG_U16: case CINT_TAG_U32: case CINT_TAG_U64:
        if (t->storage != 0 || t->frac != 0 || t->record_id != 0) return 0;
        size = t->code == CINT_TAG_BOOL ? 1 : (int64_t)(rt_int_width(t->code) / 8u);
        *align = (uint32_t)size;
        return size;
    case CINT_TAG_Q: {
        unsigned w = (t->storage >= CINT_TAG_I8 && t->storage <= CINT_TAG_I64) ? rt_int_width(t->storage) : 0u;
        if (w == 0 || t->frac > w - 1u || t->record_id != 0) return 0;
        *align = w / 8u;
        return (int64_t)(w / 8u);
    }
    case CINT_TAG_STRUCT: {
        const cint_module_info *m = ctx->module;
        if (t->storage != 0 || t->frac != 0 || m == NULL || t->record_id >= m->record_count) return 0;
        const cint_record_layout *r = &m->records[t->record_id];
        if (r->size == 0 || r->size > (uint64_t)INT64_MAX) return 0;
        *align = 8u;
        return (int64_t)r->size;
    }
    default:
        return 0;
    }
}

/* Whether every Bool byte of the record at p, of row record_id of the root module's record
   layout table, is 0 or 1, through nested records and array fields (7.3 A-13: a Bool field of
   a struct element is checked as a byte before the body reads it). */
bool rt_record_bools_ok(const cint_ctx *ctx, uint32_t record_id, const uint8_t *p, unsigned depth)
{
    const cint_module_info *m = ctx->module;
    if (m == NULL || record_id >= m->record_count || depth > 64u) return false;
    const cint_record_layout *r = &m->records[record_id];
    for (uint32_t f = 0; f < r->field_count; f++) {
        const cint_record_field *fd = &r->fields[f];
        if (fd->type.code == CINT_TAG_BOOL && fd->bits == 0u) { /* a Bool bit field is one bit of its unit */
            for (uint32_t k = 0; k < fd->count; k++)
                if (p[fd->offset + k] > 1u) return false;
        } else if (fd->type.code == CINT_TAG_STRUCT) {
            uint32_t id = fd->type.record_id;
            uint64_t size = id < m->record_count ? m->records[id].size : 0u;
            for (uint32_t k = 0; k < fd->count; k++)
                if (!rt_record_bools_ok(ctx, id, p + fd->offset + (uint64_t)k * size, depth + 1u)) return false;
        }
    }
    return true;
}
