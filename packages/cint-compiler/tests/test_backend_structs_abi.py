"""Structs at the export boundary of cpu-c17 (SPEC-03P.1 7.2 A-8, A-13a; 7.3 A-13; 7.4 A-14, A-19; 7.5).

A library built with `cint build --lib` takes a struct parameter, `in` or `inout`, as a cint_view of one
record (rank 1, extent 1, type code 0x71, the record_id of the struct's row of the root module's record
layout table) and returns a struct through a pointer to the C struct; arrays of structs cross as views of
records.  A C host program, compiled with the spec's flags and no warnings, registers host memory that holds
records, calls the wrappers and prints what it saw; the lines are compared with the reference interpreter
run on the same values (results, the inout struct after the call, fault records byte for byte).
"""
import shutil
import subprocess

import pytest

from cint_abi.reflect import read_library
from cint_compiler.backend.c17.build import build_library
from cint_compiler.interp.canonical import fault_bytes
from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry
from cint_compiler.semantics.values import ArrayValue, Storage, StructValue

import cint_runtime

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

SRC = """\
struct Inner {
    I32 a;
    Bool on;
}

struct P {
    I64 x;
    U8 k;
    Bool flag;
    Inner in1;
    I32[3] v;
}

export I64 norm(in P p) {
    I64 s = p.x + (p.k as I64);
    if (p.flag) {
        s = s + 100;
    }
    if (p.in1.on) {
        s = s + (p.in1.a as I64);
    }
    for t in p.v {
        s = s + (t as I64);
    }
    return s;
}

export void bump(inout P p, I64 d) {
    p.x = p.x + d;
    p.flag = !p.flag;
    p.in1.on = !p.in1.on;
    p.v[1] = p.v[1] * 2;
}

export void spoil(inout P p) {
    p.x = p.x + 1;
    p.k = p.k + 200;
}

export I64 times(in P p, in Inner q) {
    return p.x * (q.a as I64);
}

export P make(I64 x, Bool f) {
    P p;
    p.x = x;
    p.k = 7;
    p.flag = f;
    p.in1.a = -3;
    p.in1.on = !f;
    p.v[2] = 9;
    return p;
}

export I64 total(in P[_] ps) {
    I64 s = 0;
    for p in ps {
        s = s + p.x + (p.v[0] as I64);
    }
    return s;
}

export void shift[n](inout P[n] ps, in I64[n] dx) {
    for i in 0..n {
        ps[i].x = ps[i].x + dx[i];
        ps[i].flag = !ps[i].flag;
    }
}

export void mix(inout P p, in P[_] ps) {
    p.x = ps[0].x;
}
"""

# the records the host registers: x, k, flag, (a, on), v
RECS = [
    (5, 1, True, (10, True), (1, 2, 3)),
    (-7, 255, False, (20, False), (-1, 0, 1)),
    (1 << 40, 0, True, (-30, True), (7, 8, 9)),
    (0, 3, False, (0, True), (2147483647, -2147483648, 0)),
]

HOST = r"""
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cint_rt.h"

extern const cint_library cint_library_desc;
extern const cint_module_info cm_3_rec;

typedef struct Inner { int32_t a; uint8_t on; } Inner;
typedef struct P { int64_t x; uint8_t k; uint8_t flag; Inner in1; int32_t v[3]; } P;

cint_status cx_3_rec_4_norm(cint_ctx *ctx, int64_t fuel, cint_view p, int64_t *result);
cint_status cx_3_rec_4_bump(cint_ctx *ctx, int64_t fuel, cint_view p, int64_t d);
cint_status cx_3_rec_5_spoil(cint_ctx *ctx, int64_t fuel, cint_view p);
cint_status cx_3_rec_5_times(cint_ctx *ctx, int64_t fuel, cint_view p, cint_view q, int64_t *result);
cint_status cx_3_rec_4_make(cint_ctx *ctx, int64_t fuel, int64_t x, uint8_t f, P *result);
cint_status cx_3_rec_5_total(cint_ctx *ctx, int64_t fuel, cint_view ps, int64_t *result);
cint_status cx_3_rec_5_shift(cint_ctx *ctx, int64_t fuel, cint_view ps, cint_view by);
cint_status cx_3_rec_3_mix(cint_ctx *ctx, int64_t fuel, cint_view p, cint_view ps);

static _Alignas(8) P ro[4] = {RECS};
static _Alignas(8) P rw[4] = {RECS};
static _Alignas(8) P one[1] = {{5, 100, 1, {10, 1}, {1, 2, 3}}};
static _Alignas(8) P bad[4] = {RECS};
static _Alignas(8) Inner inn[3] = {{3, 1}, {-2, 0}, {2000000000, 1}};
static _Alignas(8) uint8_t raw[2 * sizeof(P) + 8];
static int64_t by[4] = {1, 2, 3, 4};

/* The row of the root module's record layout table whose qualified name is qn (7.4 A-19). */
static uint32_t record(const char *qn)
{
    const cint_module_table *t = cint_library_desc.modules[0];
    for (uint32_t k = 0; k < t->info->record_count; k++)
        if (t->record_names[k].len == strlen(qn) && memcmp(t->record_names[k].bytes, qn, strlen(qn)) == 0) return k;
    return UINT32_MAX;
}

static cint_status share(cint_ctx *ctx, void *p, int64_t n, cint_type type, int writable, cint_buffer_id *id,
                         uint64_t *gen)
{
    cint_buffer_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.writable = writable ? 1u : 0u;
    d.type = type;
    d.mem.kind = CINT_MEM_HOST;
    d.mem.u.host.ptr = p;
    d.extent = n;
    d.publish = writable ? CINT_PUBLISH_COPY : CINT_PUBLISH_NONE;
    return cint_buffer_register(ctx, &d, id, gen);
}

static cint_type rec_type(uint32_t id)
{
    cint_type t;
    memset(&t, 0, sizeof t);
    t.code = CINT_TAG_STRUCT;
    t.record_id = id;
    return t;
}

static cint_view view(cint_buffer_id id, uint64_t gen, cint_type type, int64_t origin, int64_t n, int writable)
{
    cint_view v;
    memset(&v, 0, sizeof v);
    v.buffer = id;
    v.generation = gen;
    v.type = type;
    v.rank = 1;
    v.perm = writable ? CINT_VIEW_WRITE : CINT_VIEW_READ;
    v.origin = origin;
    v.shape[0] = n;
    v.stride[0] = 1;
    return v;
}

static void show(const char *what, const P *p)
{
    printf("%s %" PRId64 " %u %u %" PRId32 " %u %" PRId32 " %" PRId32 " %" PRId32 "\n", what, p->x, p->k, p->flag,
           p->in1.a, p->in1.on, p->v[0], p->v[1], p->v[2]);
}

static void fault(cint_ctx *ctx, const char *what)
{
    static uint8_t b[4096];
    static cint_fault_record r;
    size_t n = 0;
    cint_fault_get(ctx, b, sizeof b, &n);
    cint_ctx_fault(ctx, &r);
    printf("%s %.*s ", what, (int)r.operation_len, r.operation);
    for (size_t k = 0; k < n; k++) printf("%02x", b[k]);
    printf("\n");
    cint_ctx_clear_fault(ctx);
}

static uint32_t reason(const cint_ctx *ctx)
{
    uint32_t why = 99;
    cint_ctx_refusal(ctx, &why);
    return why;
}

static void refused(cint_ctx *ctx, const char *what, cint_status s)
{
    int64_t fuel = -5;
    cint_fuel_consumed(ctx, &fuel);
    printf("refuse %s %d %" PRIu32 " %" PRId64 "\n", what, (int)s, reason(ctx), fuel);
}

int main(void)
{
    cint_ctx_config config;
    cint_ctx *ctx = NULL;
    cint_buffer_id iro, irw, ione, ibad, iinn, iraw;
    uint64_t gro, grw, gone, gbad, ginn, graw;
    int64_t r = 0;
    cint_status s;
    const uint32_t rp = record("rec.P"), ri = record("rec.Inner");
    const cint_type tp = rec_type(rp), ti = rec_type(ri);
    const cint_record_layout *lp = &cm_3_rec.records[rp], *li = &cm_3_rec.records[ri];

    /* the layout the library publishes is the host's C struct (7.4) */
    printf("layout P %d %" PRIu64 " %" PRIu32 " %" PRIu32 "\n", rp != UINT32_MAX, lp->size, lp->align, lp->field_count);
    printf("offsets %d %d %d %d %d\n", lp->fields[0].offset == offsetof(P, x), lp->fields[1].offset == offsetof(P, k),
           lp->fields[2].offset == offsetof(P, flag), lp->fields[3].offset == offsetof(P, in1),
           lp->fields[4].offset == offsetof(P, v));
    printf("fields %u %u %u %u %" PRIu32 " %u %" PRIu32 "\n", lp->fields[0].type.code, lp->fields[1].type.code,
           lp->fields[2].type.code, lp->fields[3].type.code, lp->fields[3].type.record_id, lp->fields[4].type.code,
           lp->fields[4].count);
    printf("layout Inner %d %" PRIu64 " %d %d\n", lp->size == sizeof(P), li->size,
           li->fields[0].offset == offsetof(Inner, a), li->fields[1].offset == offsetof(Inner, on));

    memset(&config, 0, sizeof config);
    config.size = sizeof config;
    config.program = cm_3_rec.program;
    config.module = &cm_3_rec;
    if (cint_ctx_create(&config, &ctx) != CINT_OK) return 1;
    if (share(ctx, ro, 4, tp, 0, &iro, &gro) != CINT_OK || share(ctx, rw, 4, tp, 1, &irw, &grw) != CINT_OK ||
        share(ctx, one, 1, tp, 1, &ione, &gone) != CINT_OK || share(ctx, bad, 4, tp, 1, &ibad, &gbad) != CINT_OK ||
        share(ctx, inn, 3, ti, 0, &iinn, &ginn) != CINT_OK)
        return 2;

    for (int k = 0; k < 4; k++) {
        s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, k, 1, 0), &r);
        printf("norm %d %d %" PRId64 "\n", k, (int)s, r);
    }
    s = cx_3_rec_4_bump(ctx, CINT_FUEL_UNBOUNDED, view(irw, grw, tp, 1, 1, 1), 5);
    printf("bump %d\n", (int)s);
    show("rw1", &rw[1]);
    show("rw0", &rw[0]);
    {
        P m;
        memset(&m, 0xAB, sizeof m);
        s = cx_3_rec_4_make(ctx, CINT_FUEL_UNBOUNDED, 42, 1, &m);
        printf("make %d\n", (int)s);
        show("made", &m);
    }
    s = cx_3_rec_5_total(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 0, 4, 0), &r);
    printf("total %d %" PRId64 "\n", (int)s, r);
    {
        cint_buffer_id ib;
        uint64_t gb;
        cint_type t64;
        memset(&t64, 0, sizeof t64);
        t64.code = CINT_TAG_I64;
        if (share(ctx, by, 4, t64, 0, &ib, &gb) != CINT_OK) return 3;
        s = cx_3_rec_5_shift(ctx, CINT_FUEL_UNBOUNDED, view(irw, grw, tp, 0, 4, 1), view(ib, gb, t64, 0, 4, 0));
        printf("shift %d\n", (int)s);
        for (int k = 0; k < 4; k++) show("shifted", &rw[k]);
        cint_buffer_release(ctx, ib);
    }

    /* faults: an inout struct keeps the stores that completed (6.4 M-30b) */
    s = cx_3_rec_5_spoil(ctx, CINT_FUEL_UNBOUNDED, view(ione, gone, tp, 0, 1, 1));
    printf("spoil %d\n", (int)s);
    fault(ctx, "spoilfault");
    show("one", &one[0]);
    s = cx_3_rec_5_times(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 2, 1, 0), view(iinn, ginn, ti, 0, 1, 0), &r);
    printf("over %d %" PRId64 "\n", (int)s, r);
    s = cx_3_rec_5_times(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 2, 1, 0), view(iinn, ginn, ti, 1, 1, 0), &r);
    printf("over %d %" PRId64 "\n", (int)s, r);
    s = cx_3_rec_5_times(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 3, 1, 0), view(iinn, ginn, ti, 0, 1, 0), &r);
    printf("over %d %" PRId64 "\n", (int)s, r);
    s = cx_3_rec_5_times(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 2, 1, 0), view(iinn, ginn, ti, 2, 1, 0), &r);
    printf("over %d\n", (int)s);
    fault(ctx, "overfault");
    s = cx_3_rec_3_mix(ctx, CINT_FUEL_UNBOUNDED, view(irw, grw, tp, 2, 1, 1), view(irw, grw, tp, 0, 4, 0));
    printf("mix %d\n", (int)s);
    fault(ctx, "mixfault");

    /* refused calls (7.1 paragraph 3, 7.3 A-13): nothing runs, no fuel, the context is unchanged */
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 0, 1, 0), &r);
    {
        int64_t fuel = -5;
        cint_fuel_consumed(ctx, &fuel);
        printf("fuelbase %d %" PRId64 "\n", (int)s, fuel);
    }
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iinn, ginn, ti, 0, 1, 0), &r);
    refused(ctx, "record_id", s);
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iinn, ginn, tp, 0, 1, 0), &r);
    refused(ctx, "registration", s);
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 0, 2, 0), &r);
    refused(ctx, "extent2", s);
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 0, 0, 0), &r);
    refused(ctx, "extent0", s);
    {
        cint_view v = view(iro, gro, tp, 0, 1, 0);
        v.rank = 2;
        v.shape[1] = 1;
        v.stride[1] = 1;
        s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, v, &r);
        refused(ctx, "rank", s);
        v = view(iro, gro + 1, tp, 0, 1, 0);
        s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, v, &r);
        refused(ctx, "generation", s);
        v = view(iro, gro, tp, 4, 1, 0);
        s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, v, &r);
        refused(ctx, "outside", s);
    }
    bad[0].flag = 2;
    bad[1].in1.on = 7;
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(ibad, gbad, tp, 0, 1, 0), &r);
    refused(ctx, "boolfield", s);
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(ibad, gbad, tp, 1, 1, 0), &r);
    refused(ctx, "boolnested", s);
    s = cx_3_rec_5_total(ctx, CINT_FUEL_UNBOUNDED, view(ibad, gbad, tp, 1, 2, 0), &r);
    refused(ctx, "boolarray", s);
    s = cx_3_rec_4_bump(ctx, CINT_FUEL_UNBOUNDED, view(ibad, gbad, tp, 0, 1, 1), 1);
    refused(ctx, "boolinout", s);
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(ibad, gbad, tp, 2, 1, 0), &r);
    printf("norm good %d %" PRId64 "\n", (int)s, r);
    s = cx_3_rec_4_bump(ctx, CINT_FUEL_UNBOUNDED, view(irw, grw, tp, 0, 1, 0), 1);
    refused(ctx, "readview", s);
    s = cx_3_rec_4_bump(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 0, 1, 1), 1);
    refused(ctx, "readonly", s);
    s = cx_3_rec_4_norm(ctx, CINT_FUEL_UNBOUNDED, view(iro, gro, tp, 0, 1, 0), NULL);
    refused(ctx, "result", s);
    s = cx_3_rec_4_make(ctx, CINT_FUEL_UNBOUNDED, 1, 2, NULL);
    refused(ctx, "boolscalar", s);

    /* registration of records (7.2 A-8, A-13a): alignment 8, a record_id the table has */
    s = share(ctx, raw + 4, 1, tp, 0, &iraw, &graw);
    printf("register misaligned %d %" PRIu32 "\n", (int)s, reason(ctx));
    s = share(ctx, raw, 1, rec_type(77), 0, &iraw, &graw);
    printf("register unknown %d %" PRIu32 "\n", (int)s, reason(ctx));
    s = share(ctx, raw, 2, tp, 0, &iraw, &graw);
    printf("register raw %d\n", (int)s);
    {
        cint_type t = tp;
        t.reserved2 = 1;
        s = share(ctx, raw, 1, t, 0, &iraw, &graw);
        printf("register reserved %d %" PRIu32 "\n", (int)s, reason(ctx));
    }
    cint_ctx_destroy(ctx);
    return 0;
}
"""

OK, FAULT, REFUSED = 0, 1, 2


def _p_type(c):
    return choose_entry(c, "norm")[1].params[0].type


def _inner_type(p_type):
    return [ft for n, ft, _ in p_type.fields if n == "in1"][0]


def _value(c, rec):
    pt = _p_type(c)
    it = _inner_type(pt)
    x, k, flag, (a, on), v = rec
    vt = [ft for n, ft, _ in pt.fields if n == "v"][0]
    return StructValue(pt, {"x": x, "k": k, "flag": flag, "in1": StructValue(it, {"a": a, "on": on}),
                            "v": ArrayValue(vt.elem, Storage(list(v)), 0, (3,), (1,))})


def _inner(c, a, on):
    return StructValue(_inner_type(_p_type(c)), {"a": a, "on": on})


def _array(c, recs):
    return ArrayValue(_p_type(c), Storage([_value(c, r) for r in recs]), 0, (len(recs),), (1,))


def _line(what, sv):
    f = sv.fields
    v = [f["v"].get((k,)) for k in range(3)]
    return "%s %d %d %d %d %d %d %d %d" % (what, f["x"], f["k"], int(f["flag"]), f["in1"].fields["a"],
                                           int(f["in1"].fields["on"]), v[0], v[1], v[2])


def _ref(c, entry, args):
    ctx = Context(c.program, c.revision)
    kind, target = choose_entry(c, entry)
    return ctx.run_entry(kind, target, args)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    c = compile_source(SRC.encode(), "rec.ci")
    d = tmp_path_factory.mktemp("structs_abi")
    lib = build_library(c, d / "out")
    recs = ", ".join("{%d, %d, %d, {%d, %d}, {%d, %d, %d}}" % (
        x, k, int(f), a, int(on), *(v if v[1] != -2147483648 else (v[0], -2147483647, v[2])))
        for x, k, f, (a, on), v in RECS)
    recs = recs.replace("-2147483647, 0}}", "-2147483647 - 1, 0}}")
    src = HOST.replace("{RECS}", "{" + recs + "}")
    (d / "host.c").write_text(src)
    cc = [shutil.which("cc"), "-std=c17", "-Wall", "-Wextra", "-Wpedantic", "-I", str(cint_runtime.include_dir()),
          "host.c", "-L", "out", "-lrec", "-Wl,-rpath,$ORIGIN/out", "-o", "host"]
    p = subprocess.run(cc, cwd=d, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", p.stderr          # no warnings
    out = subprocess.run([str(d / "host")], cwd=d, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    return c, lib, out.stdout.splitlines()


def _find(lines, prefix):
    return [l for l in lines if l.startswith(prefix)]


@pytest.mark.clause("A-13")
@pytest.mark.clause("A-19")
def test_record_layout_table_is_the_c_struct(host):
    c, lib, lines = host
    assert _find(lines, "layout P ") == ["layout P 1 32 8 5"]
    assert _find(lines, "offsets ") == ["offsets 1 1 1 1 1"]
    # I64, U8, Bool, a struct (record Inner), an array field of 3 I32
    assert _find(lines, "fields ") == ["fields 20 33 1 113 1 19 3"]
    assert _find(lines, "layout Inner ") == ["layout Inner 1 8 1 1"]


@pytest.mark.clause("A-13")
def test_in_struct_agrees_with_the_interpreter(host):
    c, lib, lines = host
    want = []
    for k, rec in enumerate(RECS):
        o = _ref(c, "norm", [_value(c, rec)])
        assert o.kind == "value"
        want.append("norm %d 0 %d" % (k, o.value))
    assert _find(lines, "norm ")[:4] == want


@pytest.mark.clause("A-13")
def test_inout_struct_is_written_in_place(host):
    c, lib, lines = host
    sv = _value(c, RECS[1])
    o = _ref(c, "bump", [sv, 5])
    assert o.kind == "value"
    assert _find(lines, "bump ") == ["bump 0"]
    assert _find(lines, "rw1 ") == [_line("rw1", sv)]
    assert _find(lines, "rw0 ") == [_line("rw0", _value(c, RECS[0]))]      # its neighbour is untouched


@pytest.mark.clause("A-13")
def test_struct_result_through_a_pointer_to_the_c_struct(host):
    c, lib, lines = host
    o = _ref(c, "make", [42, True])
    assert _find(lines, "make ") == ["make 0"]
    assert _find(lines, "made ") == [_line("made", o.value)]


@pytest.mark.clause("A-13")
@pytest.mark.clause("A-13a")
def test_arrays_of_structs(host):
    c, lib, lines = host
    o = _ref(c, "total", [_array(c, RECS)])
    assert _find(lines, "total ") == ["total 0 %d" % o.value]
    # shift runs on rw after bump changed rw[1]
    recs = list(RECS)
    arr = _array(c, recs)
    _ref(c, "bump", [arr.storage.cells[1], 5])
    by = ArrayValue(_i64(c), Storage([1, 2, 3, 4]), 0, (4,), (1,))
    o = _ref(c, "shift", [arr, by])
    assert o.kind == "value"
    assert _find(lines, "shift ") == ["shift 0"]
    assert _find(lines, "shifted ") == [_line("shifted", arr.storage.cells[k]) for k in range(4)]


def _i64(c):
    info = choose_entry(c, "shift")[1]
    return info.params[1].type.elem


@pytest.mark.clause("A-13")
def test_faults_agree_byte_for_byte(host):
    c, lib, lines = host
    sv = _value(c, (5, 100, True, (10, True), (1, 2, 3)))
    o = _ref(c, "spoil", [sv])
    assert o.kind == "fault"
    assert _find(lines, "spoil ") == ["spoil %d" % FAULT]
    assert _find(lines, "spoilfault ") == ["spoilfault add.checked.u8 " + fault_bytes(o.record).hex()]
    # the store to x completed before the fault and stays (6.4 M-30b)
    assert _find(lines, "one ") == [_line("one", sv)]
    assert sv.fields["x"] == 6
    ok1 = _ref(c, "times", [_value(c, RECS[2]), _inner(c, 3, True)])
    ok2 = _ref(c, "times", [_value(c, RECS[2]), _inner(c, -2, False)])
    ok3 = _ref(c, "times", [_value(c, RECS[3]), _inner(c, 3, True)])
    assert _find(lines, "over ")[:3] == ["over 0 %d" % ok1.value, "over 0 %d" % ok2.value, "over 0 %d" % ok3.value]
    bad = _ref(c, "times", [_value(c, RECS[2]), _inner(c, 2000000000, True)])
    assert bad.kind == "fault"
    assert _find(lines, "over ")[3:] == ["over %d" % FAULT]
    assert _find(lines, "overfault ") == ["overfault mul.checked.i64 " + fault_bytes(bad.record).hex()]


@pytest.mark.clause("A-13")
def test_inout_struct_overlapping_an_array_argument_is_bind_alias(host):
    c, lib, lines = host
    assert _find(lines, "mix ") == ["mix %d" % FAULT]
    (line,) = _find(lines, "mixfault ")
    assert line.split()[1] == "bind.alias"


@pytest.mark.clause("A-13")
@pytest.mark.clause("H-12")
def test_refused_struct_views(host):
    c, lib, lines = host
    refusals = {l.split()[1]: tuple(int(x) for x in l.split()[2:]) for l in _find(lines, "refuse ")}
    (base,) = _find(lines, "fuelbase ")
    assert base.split()[1] == "0"
    norm_fuel = int(base.split()[2])
    want = {
        "record_id": 3,      # a view of another struct's records: not this parameter's type
        "registration": 3,   # a view whose type is not its registration's
        "extent2": 7, "extent0": 7, "rank": 4, "generation": 2, "outside": 7,
        "boolfield": 11, "boolnested": 11, "boolarray": 11, "boolinout": 11,
        "readview": 9, "readonly": 9, "result": 12, "boolscalar": 11,
    }
    for name, reason in want.items():
        status, got, fuel = refusals[name]
        assert (name, status, got) == (name, REFUSED, reason)
        assert fuel == norm_fuel, name      # the last entry's fuel is left as it was
    o = _ref(c, "norm", [_value(c, RECS[2])])
    assert _find(lines, "norm good ") == ["norm good 0 %d" % o.value]


@pytest.mark.clause("A-8")
@pytest.mark.clause("A-13a")
def test_registering_records(host):
    c, lib, lines = host
    assert _find(lines, "register misaligned ") == ["register misaligned 2 8"]
    assert _find(lines, "register unknown ") == ["register unknown 2 3"]
    assert _find(lines, "register raw ") == ["register raw 0"]
    assert _find(lines, "register reserved ") == ["register reserved 2 3"]


@pytest.mark.clause("A-19")
@pytest.mark.clause("A-21")
def test_reflection_lists_records_and_struct_signatures(host):
    c, lib, lines = host
    L = read_library(lib)
    (m,) = L.modules
    names = [r.name for r in m.records]
    assert sorted(names) == ["rec.Inner", "rec.P"]
    p = m.records[names.index("rec.P")]
    assert (p.size, p.align) == (32, 8)
    assert [(f.name, f.code, f.offset, f.count) for f in p.fields] == [
        ("x", 0x14, 0, 1), ("k", 0x21, 8, 1), ("flag", 0x01, 9, 1), ("in1", 0x71, 12, 1), ("v", 0x13, 20, 3)]
    assert p.fields[3].record_id == names.index("rec.Inner")
    ex = {e.name: e for e in m.exports}
    assert list(ex) == ["norm", "bump", "spoil", "times", "make", "total", "shift", "mix"]
    sig = ex["norm"].signature
    (inner, outer) = sig.definitions           # depth-first: Inner completes first
    assert inner.qname == "rec.Inner" and outer.qname == "rec.P"
    assert [f[0] for f in outer.fields] == ["x", "k", "flag", "in1", "v"]
    assert [p.mode for p in ex["bump"].signature.params] == ["inout", "in"]
    msig = ex["make"].signature
    assert msig.definitions[msig.result.index].qname == "rec.P"
    # the bytes: 01 then "rec.Inner" ... ; the param is 00 71 <definition 1>
    raw = ex["norm"].signature_bytes
    assert raw[33:37] == (2).to_bytes(4, "little")
    assert raw.endswith(bytes([0x00, 0x71, 1, 0, 0, 0, 0x14]))
    from cint_abi.reflect import main
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main([str(lib)])
    text = buf.getvalue()
    assert "  record %d rec.P: size 32, align 8, fields [x@0:14 k@8:21 flag@9:01 in1@12:71 v@20:13[3]]" % \
        names.index("rec.P") in text


@pytest.mark.clause("A-13")
def test_python_package_refuses_struct_exports_naming_the_parameter(host):
    cint = pytest.importorskip("cint")
    c, lib, lines = host
    ctx = cint.load(lib).context()
    for name, pname in (("norm", "p"), ("bump", "p"), ("total", "ps"), ("times", "p")):
        with pytest.raises(NotImplementedError) as ei:
            ctx.entry(name)(*([None] * 2))
        assert "parameter %s" % pname in str(ei.value), str(ei.value)
    with pytest.raises(NotImplementedError) as ei:
        ctx.make(1, True)
    assert "struct" in str(ei.value)
    with pytest.raises(NotImplementedError):
        getattr(ctx, "norm")(None)


@pytest.mark.clause("A-13")
def test_struct_with_an_enum_field_at_the_boundary_is_refused():
    src = """\
enum Color : U8 { red, green }

struct S {
    Color c;
}

export I64 f(in S s) {
    return 1;
}
"""
    with pytest.raises(CompileError) as ei:      # refused by the checker, before any build
        compile_source(src.encode(), "rec.ci")
    assert ei.value.code == "C5050" and "S.c of type Color" in ei.value.message
