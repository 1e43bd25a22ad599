/* libFuzzer target: the descriptor and view checks of the runtime (registry.c, entry.c; A-8, P-13).
 *
 * Input bytes fill a buffer descriptor (its memory pointer replaced by real memory of the size it
 * claims, when that size is small, else left out) and two views of the tour fixture's kernel
 * scale(in I64[n] x, in I64 k, out I64[n] y): whatever the sizes, offsets and strides, a call is
 * refused, faults or runs within the registered memory; cint_buffer_read likewise. ASan and UBSan
 * report anything else. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cint_rt_gen.h"

extern const cint_module_info cm_4_tour;
cint_status cx_4_tour_5_scale(cint_ctx *ctx, int64_t fuel, cint_view x, int64_t k, cint_view y);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t take(const uint8_t **data, size_t *size, void *out, size_t n)
{
    memset(out, 0, n);
    const size_t k = *size < n ? *size : n;
    memcpy(out, *data, k);
    *data += k;
    *size -= k;
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cint_ctx_config c;
    cint_ctx *ctx = NULL;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.program = cm_4_tour.program;
    c.module = &cm_4_tour;
    c.max_buffers = 8;
    if (cint_ctx_create(&c, &ctx) != CINT_OK) abort();

    int64_t xs[16], ys[16];
    for (int i = 0; i < 16; i++) xs[i] = i - 8, ys[i] = 0;
    cint_type t;
    memset(&t, 0, sizeof t);
    t.code = CINT_TAG_I64;
    cint_buffer_id xi = 0, yi = 0, ci = 0, di = 0;
    uint64_t xg = 0, yg = 0, cg = 0, dg = 0;
    (void)cint_buffer_register_elements(ctx, t, xs, 16, 0, 0, &xi, &xg);
    (void)cint_buffer_register_elements(ctx, t, ys, 16, 1, CINT_PUBLISH_COPY, &yi, &yg);
    (void)cint_buffer_create(ctx, t, 16, 0, &ci, &cg);

    /* a descriptor from the input; its memory is real when its claimed size fits mem[] */
    static const size_t cap = 512;
    uint8_t *mem = calloc(1, cap);
    cint_buffer_desc d;
    take(&data, &size, &d, sizeof d);
    uint8_t use_size = 0;
    take(&data, &size, &use_size, 1);
    if (use_size & 1) d.size = sizeof d;
    d.mem.kind = (use_size & 2) ? d.mem.kind : CINT_MEM_HOST;
    const int64_t elem = 128; /* the widest element, I1024 */
    if (d.extent >= 0 && d.extent <= (int64_t)(cap / (size_t)elem)) {
        d.mem.u.host.ptr = mem;
        (void)cint_buffer_register(ctx, &d, &di, &dg);
    } else {
        d.mem.u.host.ptr = NULL;
        (void)cint_buffer_register(ctx, &d, &di, &dg);
    }

    /* two views from the input, their buffers and generations mostly real */
    cint_view v[2];
    uint8_t pick[2] = {0, 0};
    int64_t k = 0;
    for (int i = 0; i < 2; i++) {
        take(&data, &size, &v[i], sizeof v[i]);
        take(&data, &size, &pick[i], 1);
        const cint_buffer_id ids[4] = {xi, yi, ci, di};
        const uint64_t gens[4] = {xg, yg, cg, dg};
        if (!(pick[i] & 0x80)) v[i].buffer = ids[pick[i] & 3], v[i].generation = gens[pick[i] & 3];
        if (!(pick[i] & 0x40)) v[i].type = t;
        if (!(pick[i] & 0x20)) v[i].rank = 1 + (v[i].rank & 3);
        if (!(pick[i] & 0x10)) v[i].perm = (uint8_t)i;
        if (!(pick[i] & 0x08)) memset(v[i].reserved, 0, sizeof v[i].reserved);
    }
    take(&data, &size, &k, sizeof k);
    (void)cx_4_tour_5_scale(ctx, 1000, v[0], k, v[1]);
    (void)cint_ctx_clear_fault(ctx);
    int64_t out[64];
    size_t want = 0;
    take(&data, &size, &want, sizeof want);
    (void)cint_buffer_read(ctx, v[0], out, want % (sizeof out + 1));
    (void)cint_buffer_read(ctx, v[1], out, sizeof out);
    cint_ctx_destroy(ctx);
    free(mem);
    return 0;
}
