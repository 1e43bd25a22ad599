"""The generated C header of a library (SPEC-03P.1 11.5, cint_compiler/backend/c17/header.py): `cint build --lib`
writes out/libNAME.h; the spec's host programs compile against it with -std=c17 -Wall -Wextra -Wpedantic
and no warnings (their own declarations must agree with it), a host that includes it twice and declares
nothing itself builds and runs, and every C form of 7.3 (wide integers, Q, Bool, error unions, struct
results checked against the record layout table) is declared."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spec_paths import EXAMPLES

REPO = Path(__file__).resolve().parents[1]
CINT_RT = REPO / "runtime-c" / "include"
FLAGS = "-std=c17 -Wall -Wextra -Wpedantic -Werror"

if not EXAMPLES.is_dir():
    pytest.skip("spec examples not found at %s" % EXAMPLES, allow_module_level=True)
if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    d = tmp_path_factory.mktemp("cint-cache")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def build(tmp, name, text=None, cache=None):
    if text is None:
        shutil.copyfile(EXAMPLES / (name + ".ci"), tmp / (name + ".ci"))
    else:
        (tmp / (name + ".ci")).write_text(text)
    done = subprocess.run([sys.executable, "-m", "cint_compiler", "build", "--lib", "--out", "out", name + ".ci"],
                          cwd=tmp, capture_output=True, env=dict(os.environ, CINT_CACHE=str(cache or tmp / "cache")))
    assert done.returncode == 0, done.stderr.decode()
    header = tmp / "out" / ("lib%s.h" % name)
    assert header.is_file()
    return header


def cc_run(tmp, source, lib, extra=""):
    cmd = "cc %s %s -I \"$CINT_RT\" -I out %s -L out -l%s -Wl,-rpath,'$ORIGIN/out' -o prog" % (FLAGS, extra, source,
                                                                                                lib)
    done = subprocess.run(["bash", "-c", cmd], cwd=tmp, capture_output=True, env=dict(os.environ, CINT_RT=str(CINT_RT)))
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
    run = subprocess.run(["./prog"], cwd=tmp, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode()


@pytest.mark.clause("A-12", "A-13", "7.3")
@pytest.mark.parametrize("program, lib", [("host", "advance"), ("tour", "tour"), ("reflect", "tour")])
def test_spec_host_programs_compile_against_the_header(tmp_path, cache, program, lib):
    header = build(tmp_path, lib, cache=cache)
    shutil.copyfile(EXAMPLES / (program + ".c"), tmp_path / (program + ".c"))
    out = cc_run(tmp_path, program + ".c", lib, extra="-include %s" % header.name)
    assert out == (EXAMPLES / (program + ".out")).read_text()


@pytest.mark.clause("A-12", "7.3")
def test_header_alone_twice(tmp_path, cache):
    header = build(tmp_path, "advance", cache=cache)
    text = header.read_text()
    assert "/* export kernel advance[n](in I64[n] pos, in I64[n] vel, in I64 dt, out I64[n] next); effect pure */" in text
    assert "cint_status cx_7_advance_5_total(cint_ctx *ctx, int64_t fuel, cint_view x, int64_t *result);" in text
    assert "extern const cint_module_info cm_7_advance;" in text
    assert "extern const cint_library cint_library_desc;" in text
    (tmp_path / "twice.c").write_text('''#include <stdio.h>
#include <string.h>
#include "libadvance.h"
#include "libadvance.h"
int main(void)
{
    int64_t x[3] = {1, 2, 39}, total = 0;
    cint_ctx_config config;
    cint_ctx *ctx = NULL;
    cint_buffer_desc d;
    cint_view v;
    memset(&config, 0, sizeof config);
    config.size = sizeof config;
    config.program = cm_7_advance.program;
    config.module = &cm_7_advance;
    if (cint_ctx_create(&config, &ctx) != CINT_OK) return 1;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.type.code = CINT_TAG_I64;
    d.mem.kind = CINT_MEM_HOST;
    d.mem.u.host.ptr = x;
    d.extent = 3;
    memset(&v, 0, sizeof v);
    if (cint_buffer_register(ctx, &d, &v.buffer, &v.generation) != CINT_OK) return 1;
    v.type.code = CINT_TAG_I64;
    v.rank = 1;
    v.perm = CINT_VIEW_READ;
    v.shape[0] = 3;
    v.stride[0] = 1;
    int st = cx_7_advance_5_total(ctx, CINT_FUEL_UNBOUNDED, v, &total);
    printf("status %d total %lld modules %u\\n", st, (long long)total, (unsigned)cint_library_desc.module_count);
    cint_buffer_release(ctx, v.buffer);
    cint_ctx_destroy(ctx);
    return 0;
}
''')
    assert cc_run(tmp_path, "twice.c", "advance") == "status 0 total 42 modules 1\n"


FORMS = """struct P {
    I64 x;
    I32 y;
    Q16.16 z;
    Bool ok;
}

error E { bad, worse }

export I128 wide(I128 a) {
    return a + 1;
}

export Q16.16 half(Q16.16 a) {
    return a / 2.0;
}

export Bool neg(Bool b) {
    return !b;
}

export P make(I64 x) {
    return P(x, 2, 0.5, true);
}

export E!void check(I64 x) {
    if (x < 0) {
        return .bad;
    }
    return;
}

export E!P maybe(I64 x) {
    if (x < 0) {
        return .worse;
    }
    return P(x, 3, 1.5, false);
}
"""


@pytest.mark.clause("A-13", "A-19", "7.3")
def test_every_c_form_is_declared(tmp_path, cache):
    header = build(tmp_path, "forms", FORMS, cache=cache)
    text = header.read_text()
    assert "const cint_i128 *a, cint_i128 *result);" in text
    assert "cint_status cx_5_forms_4_half(cint_ctx *ctx, int64_t fuel, int32_t a, int32_t *result);" in text
    assert "uint8_t b, uint8_t *result);" in text
    assert "_Static_assert(sizeof(cint_h_forms_P) == " in text
    (tmp_path / "forms_host.c").write_text('''#include <stdio.h>
#include <string.h>
#include "libforms.h"
int main(void)
{
    cint_ctx_config config;
    cint_ctx *ctx = NULL;
    cint_i128 a = {{UINT64_MAX, 0}}, w;
    int32_t h = 0;
    uint8_t n = 0;
    cint_h_forms_P p;
    cint_h_cx_5_forms_5_check_result c;
    cint_h_cx_5_forms_5_maybe_result m;
    memset(&config, 0, sizeof config);
    config.size = sizeof config;
    config.program = cm_5_forms.program;
    config.module = &cm_5_forms;
    if (cint_ctx_create(&config, &ctx) != CINT_OK) return 1;
    int s;
    s = cx_5_forms_4_wide(ctx, -1, &a, &w);
    printf("wide %d %llu %llu\\n", s, (unsigned long long)w.l[0], (unsigned long long)w.l[1]);
    s = cx_5_forms_4_half(ctx, -1, 3 << 16, &h);
    printf("half %d %d\\n", s, (int)h);
    s = cx_5_forms_3_neg(ctx, -1, 1, &n);
    printf("neg %d %d\\n", s, (int)n);
    s = cx_5_forms_4_make(ctx, -1, 7, &p);
    printf("make %d %lld %d %d %d\\n", s, (long long)p.x, (int)p.y, (int)p.z, (int)p.ok);
    s = cx_5_forms_5_check(ctx, -1, -1, &c);
    printf("check %d %d\\n", s, (int)c.tag);
    s = cx_5_forms_5_maybe(ctx, -1, 9, &m);
    printf("maybe %d %d %lld %d\\n", s, (int)m.tag, (long long)m.value.x, (int)m.value.z);
    s = cx_5_forms_5_maybe(ctx, -1, -9, &m);
    printf("maybe %d %d\\n", s, (int)m.tag);
    cint_ctx_destroy(ctx);
    return 0;
}
''')
    assert cc_run(tmp_path, "forms_host.c", "forms") == (
        "wide 0 0 1\nhalf 0 98304\nneg 0 0\nmake 0 7 2 32768 1\ncheck 0 1\nmaybe 0 0 9 98304\nmaybe 0 2\n")
