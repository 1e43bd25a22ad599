"""Structs with bit fields on cpu-c17 (SPEC-04P.1 LS-81..LS-84; SPEC-03P.1 7.3 A-13, 7.4 A-19, 7.5 A-21).

- Module-level structs and arrays of structs holding bit fields run on cpu-c17 with the reference
  executor's outcome text (module variables included) and canonical state: the globals keep the emitted C
  struct (each field whole) and the record layout table gives state.c a storage row for it.
- Such a struct crosses the export boundary as its record, the raw storage units of LS-82 (LS-84): an
  `in` or `inout` parameter is a view of one record, a result is written through a pointer to the record's
  bytes; a C host compiled with -std=c17 -Wall -Wextra -Wpedantic reads back exactly the values.
- What stays refused: enum and error-set fields at the boundary (A-13 defines no entry check of their
  values), arrays of such structs as export parameters, and a Str field (C2051, LS-79).
"""
import shutil
import subprocess

import pytest

from compiler_testkit import both, cpu_and_ref
from cint_compiler.backend.c17.build import build_library
from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

GLOBALS = {
    "struct_and_arrays": """struct Status {
    U16  mode  : 3;
    Bool armed : 1;
    Bool lit   : 1;
    I16  trim  : 12;
    I32 plain;
}
struct Outer { U8 tag; Status st; Status[2] more; }
Status s;
Outer o;
Status[3] arr;
Outer[2, 2] grid;
export I64 run() {
    s.mode = 5;
    s.armed = true;
    s.trim = -1000;
    s.plain = 77;
    o.st.trim = 2047;
    o.more[1].mode = 7;
    o.more[1].lit = true;
    o.tag = 9;
    arr[2].trim = -2048;
    arr[1].armed = true;
    arr[0] = s;
    grid[1, 0].more[0] = arr[2];
    grid[0, 1].st.mode += 3;
    "{s} {o}\\n{arr}\\n{grid[1, 0]}\\n";
    return (s.trim as I64) + (arr[2].trim as I64) + (grid[0, 1].st.mode as I64);
}""",
    "narrow_fault_keeps_earlier_stores": """struct B { U8 a : 3; U8 c : 4; U16 w; I8 k : 2; }
B b;
B[2] bs;
export I64 run() {
    b.c = 9;
    bs[1].k = -2;
    bs[0].a = b.c - 2;
    bs[1].a = b.c;
    return 0;
}""",
}


@pytest.mark.parametrize("name", sorted(GLOBALS))
def test_bit_field_globals_agree(tmp_path, name):
    text = both(tmp_path, GLOBALS[name], name=name)
    if name.startswith("narrow"):
        assert "fault.code E_NARROW" in text


STATE_SRC = """struct Status { U16 mode : 3; Bool armed : 1; Bool lit : 1; I16 trim : 12; I32 plain; }
struct Outer { U8 tag; Status st; Status[2] more; Bool on; }
Status s;
Outer[2] os;
U8 n = 1;
export I64 put(I64 i, I64 v) {
    s.mode = (v & 7) as U16;
    s.armed = v % 2 == 0;
    s.trim = (v * 100 - 1500) as I16;
    s.plain = (v * 1000) as I32;
    os[i % 2].st = s;
    os[i % 2].more[1].lit = !os[i % 2].more[1].lit;
    os[i % 2].more[0].trim = -2048;
    os[i % 2].tag += 1;
    n += 1;
    return v + n as I64;
}
"""


def test_bit_field_globals_canonical_state(tmp_path, monkeypatch):
    """The runtime's canonical state bytes equal the interpreter's after the same entries (each field in its
    declared type, LS-82 storage playing no part), and restore round-trips them."""
    from cint_compiler.interp.canonical import canonical_state
    two = cpu_and_ref(tmp_path, monkeypatch, STATE_SRC, "bfs")
    ctx = two.mod.context()
    assert two.state(ctx) == canonical_state(two.ref)
    for i, v in ((0, 5), (1, -3), (0, 12), (1, 4)):
        assert ctx.put(i, v) == two.ref.run_entry("func", two.fn, [i, v]).value
        assert two.state(ctx) == canonical_state(two.ref)
    saved = two.state(ctx)
    ctx.put(0, 1)
    assert two.state(ctx) != saved
    assert two.restore(ctx, saved) == 0
    assert two.state(ctx) == saved
    fresh = two.mod.context()
    assert two.restore(fresh, canonical_state(two.ref)) == 0
    assert two.state(fresh) == canonical_state(two.ref)
    # a Bool bit field's canonical byte other than 0 or 1 is refused (it is a Bool value, LS-82)
    st = bytearray(saved)
    at = st.index(b"bfs.s" + bytes([0x71])) + len(b"bfs.s") + 5 + len(b"bfs.Status") + 2     # s.armed
    assert st[at] in (0, 1)
    st[at] = 2
    assert two.restore(fresh, st) != 0


SRC = """struct Status {
    U16  mode  : 3;
    Bool armed : 1;
    Bool lit   : 1;
    I16  trim  : 12;
    I32 plain;
}

struct Holder {
    U8 tag;
    Status st;
    Status[2] more;
    Bool on;
}

export I64 score(in Status s) {
    I64 r = (s.mode as I64) * 1000 + (s.trim as I64);
    if (s.armed) { r = r + 100000; }
    if (s.lit) { r = r + 200000; }
    return r + (s.plain as I64) * 1000000;
}

export void tweak(inout Holder h, I16 t) {
    h.st.trim = t;
    h.st.mode = 7;
    h.more[1].lit = !h.more[1].lit;
    h.tag = h.tag + 1;
    h.more[0].trim = t;
}

export Status make(U16 m, I16 t, Bool a) {
    Status s;
    s.mode = m;
    s.trim = t;
    s.armed = a;
    s.plain = -5;
    return s;
}
"""

HOST = r"""#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cint_rt.h"

extern const cint_library cint_library_desc;
extern const cint_module_info cm_3_bfx;
cint_status cx_3_bfx_5_score(cint_ctx *ctx, int64_t fuel, cint_view s, int64_t *result);
cint_status cx_3_bfx_5_tweak(cint_ctx *ctx, int64_t fuel, cint_view h, int16_t t);
cint_status cx_3_bfx_4_make(cint_ctx *ctx, int64_t fuel, uint16_t m, int16_t t, uint8_t a, uint8_t *result);

static uint32_t record(const char *qn)
{
    const cint_module_table *t = cint_library_desc.modules[0];
    for (uint32_t k = 0; k < t->info->record_count; k++)
        if (t->record_names[k].len == strlen(qn) && memcmp(t->record_names[k].bytes, qn, strlen(qn)) == 0) return k;
    return UINT32_MAX;
}

static cint_view share(cint_ctx *ctx, void *p, uint32_t rid, int writable)
{
    cint_buffer_desc d;
    cint_buffer_id id;
    uint64_t gen;
    cint_view v;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.writable = writable ? 1u : 0u;
    d.type.code = CINT_TAG_STRUCT;
    d.type.record_id = rid;
    d.mem.kind = CINT_MEM_HOST;
    d.mem.u.host.ptr = p;
    d.extent = 1;
    d.publish = writable ? CINT_PUBLISH_COPY : CINT_PUBLISH_NONE;
    memset(&v, 0, sizeof v);
    if (cint_buffer_register(ctx, &d, &id, &gen) != CINT_OK) return v;
    v.buffer = id;
    v.generation = gen;
    v.type = d.type;
    v.rank = 1;
    v.origin = 0;
    v.shape[0] = 1;
    v.stride[0] = 1;
    v.perm = writable ? CINT_VIEW_WRITE : CINT_VIEW_READ;
    return v;
}

static void dump(const char *k, const uint8_t *b, size_t n)
{
    printf("%s ", k);
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
    printf("\n");
}

/* a Status record: U16 unit (mode 3 bits), Bool unit (armed, lit), I16 unit (trim 12 bits), I32 plain */
static void status(uint8_t *p, unsigned mode, unsigned armed, unsigned lit, int trim, int32_t plain, unsigned junk)
{
    uint16_t u0 = (uint16_t)(mode | (junk << 3));
    uint8_t u1 = (uint8_t)(armed | (lit << 1) | (junk << 2));
    uint16_t u2 = (uint16_t)(((uint16_t)trim & 0xFFFu) | (junk << 12));
    memset(p, 0, 12);
    memcpy(p, &u0, 2);
    memcpy(p + 2, &u1, 1);
    memcpy(p + 4, &u2, 2);
    memcpy(p + 8, &plain, 4);
}

static _Alignas(8) uint8_t s1[16], s2[16], s3[16], hold[48], made[16];

int main(void)
{
    cint_ctx_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.program = cm_3_bfx.program;
    cfg.module = &cm_3_bfx;
    cfg.depth_limit = 64;
    cint_ctx *ctx = NULL;
    if (cint_ctx_create(&cfg, &ctx) != CINT_OK) return 3;
    uint32_t st = record("bfx.Status"), ho = record("bfx.Holder");
    const cint_record_layout *L = &cm_3_bfx.records[st];
    printf("layout Status %" PRIu64 " %" PRIu32, L->size, L->field_count);
    for (uint32_t f = 0; f < L->field_count; f++) printf(" %" PRIu64 ":%" PRIu32, L->fields[f].offset, L->fields[f].bits);
    printf("\nlayout Holder %" PRIu64 "\n", cm_3_bfx.records[ho].size);
    status(s1, 5, 1, 0, -1000, 3, 0);
    status(s2, 7, 0, 1, 2047, -2, 1);     /* junk in the unused bits of each unit is ignored */
    status(s3, 0, 1, 1, -2048, 0, 0);
    int64_t r = 0;
    cint_status s;
    s = cx_3_bfx_5_score(ctx, -1, share(ctx, s1, st, 0), &r);
    printf("score1 %d %" PRId64 "\n", (int)s, r);
    s = cx_3_bfx_5_score(ctx, -1, share(ctx, s2, st, 0), &r);
    printf("score2 %d %" PRId64 "\n", (int)s, r);
    s = cx_3_bfx_5_score(ctx, -1, share(ctx, s3, st, 0), &r);
    printf("score3 %d %" PRId64 "\n", (int)s, r);
    hold[0] = 41;
    status(hold + 4, 1, 1, 0, 12, 9, 0);
    status(hold + 16, 2, 0, 0, -3, 8, 0);
    status(hold + 28, 3, 1, 0, 100, 7, 0);
    hold[40] = 1;
    s = cx_3_bfx_5_tweak(ctx, -1, share(ctx, hold, ho, 1), -77);
    printf("tweak %d\n", (int)s);
    dump("hold", hold, 44);
    s = cx_3_bfx_4_make(ctx, -1, 6, -1234, 1, made);
    printf("make %d\n", (int)s);
    dump("made", made, 12);
    s = cx_3_bfx_4_make(ctx, -1, 8, 0, 0, made);
    printf("makefault %d\n", (int)s);
    cint_ctx_destroy(ctx);
    return 0;
}
"""


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    import cint_runtime
    c = compile_source(SRC.encode(), "bfx.ci")
    d = tmp_path_factory.mktemp("bitfield_abi")
    build_library(c, d / "out")
    (d / "host.c").write_text(HOST)
    cc = [shutil.which("cc"), "-std=c17", "-Wall", "-Wextra", "-Wpedantic", "-I", str(cint_runtime.include_dir()),
          "host.c", "-L", "out", "-lbfx", "-Wl,-rpath,$ORIGIN/out", "-o", "host"]
    p = subprocess.run(cc, cwd=d, capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    out = subprocess.run([str(d / "host")], cwd=d, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
    return c, out.stdout.splitlines()


def _ref(c, entry, args):
    from cint_compiler.interp.context import Context
    from cint_compiler.conformance.outcome import choose_entry
    ctx = Context(c.program, c.revision)
    return ctx.run_entry("func", choose_entry(c, entry)[1], list(args))


def _status(c, mode, armed, lit, trim, plain):
    from cint_compiler.conformance.outcome import choose_entry
    from cint_compiler.semantics.values import StructValue
    t = choose_entry(c, "score")[1].params[0].type
    return StructValue(t, {"mode": mode, "armed": armed, "lit": lit, "trim": trim, "plain": plain})


def _line(lines, prefix):
    return [l for l in lines if l.startswith(prefix + " ")]


@pytest.mark.clause("A-13")
@pytest.mark.clause("A-19")
def test_record_row_is_ls82(host):
    c, lines = host
    # offset:bits of mode, armed, lit, trim, plain: three storage units, then plain (LS-82)
    assert [l for l in lines if l.startswith("layout")] == ["layout Status 12 5 0:3 2:1 2:1 4:12 8:0",
                                                             "layout Holder 44"]


@pytest.mark.clause("A-13")
def test_in_struct_with_bit_fields_agrees_with_the_interpreter(host):
    c, lines = host
    want = []
    for k, rec in enumerate([(5, True, False, -1000, 3), (7, False, True, 2047, -2), (0, True, True, -2048, 0)]):
        o = _ref(c, "score", [_status(c, *rec)])
        assert o.kind == "value"
        want.append("score%d 0 %d" % (k + 1, o.value))
    assert [l for l in lines if l.startswith("score")] == want


@pytest.mark.clause("A-13")
def test_inout_and_result_records_are_packed(host):
    c, lines = host
    assert _line(lines, "tweak") == ["tweak 0"]
    # tag 42; st: mode 7, armed kept, trim -77 (0xfb3 in 12 bits), plain 9; more[0].trim -77; more[1].lit set
    assert _line(lines, "hold") == ["hold 2a000000" "070001" "00b30f0000" "09000000" "020000" "00b30f0000" "08000000"
                                    "030003" "0064000000" "07000000" "01000000"]
    o = _ref(c, "make", [6, -1234, True])
    v = o.value.fields
    assert (v["mode"], v["armed"], v["trim"], v["plain"]) == (6, True, -1234, -5)
    assert _line(lines, "make") == ["make 0"]
    assert _line(lines, "made") == ["made 060001002e0b0000fbffffff"]
    assert _line(lines, "makefault") == ["makefault 1"]     # mode 8 does not fit 3 bits: E_NARROW


@pytest.mark.clause("A-13")
def test_what_stays_refused_at_the_boundary(tmp_path):
    cases = {
        "enum": ("enum Color : U8 { red, green }\nstruct S { U8 a : 2; Color c; }\n"
                 "export I64 f(in S s) { return 1; }\n", "S.c of type"),
        "errset": ("error Bad { Oops }\nstruct S { I8 k; Bad e; }\nexport I64 f(in S s) { return 1; }\n",
                   "S.e of type"),
        "array": ("struct S { U8 a : 2; }\nexport I64 f(in S[_] s) { return 1; }\n", "the parameter s, an array"),
    }
    for name, (src, what) in cases.items():
        # the checker refuses them (check/export_boundary.py), so `cint check` and a build agree
        with pytest.raises(CompileError) as ei:
            compile_source(src.encode(), "r%s.ci" % name)
        assert ei.value.code == "C5050" and what in ei.value.message, ei.value.message
    # a Str field exists nowhere (LS-79): C2051 at the field
    with pytest.raises(CompileError) as ei:
        compile_source(b"struct S { Str s; }\nexport I64 f(in S s) { return 1; }\n", "rs.ci")
    assert ei.value.code == "C2051"
