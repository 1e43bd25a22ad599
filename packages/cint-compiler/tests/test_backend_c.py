"""The executor cpu-c17 against the reference executor on programs written for its harder parts.

Each program runs on both executors through `outcome.expect_text`, and the two texts (status, fault
record with position and stack, fuel, stdout, result, module variables) must be equal and not a
refusal: several modules, arrays of structs and array fields, views (slices, partial indices, view
variables, copy/fill/equal/transpose/reverse), the alias checks, and the named operations.
"""
import functools
import shutil

import pytest

from compiler_testkit import both as _both


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


both = functools.partial(_both, allow_compile_error=True)

LIB = """
export I64 G = 0;
export struct Pair { I64 a; I64[2] b; }
export I64 boom(I64 x) { G += 1; return x * 4611686018427387904; }
export I64 twice(I64 x) { return boom(x) + boom(x); }
export kernel dbl[n](in I64[n] a, out I64[n] o) over [i: n] { o[i] = a[i] * 2; }
export void run_k[n](inout I64[n] o) { I64[n] t = o; dbl(t, o); }
export I64 second(in Pair p) { return p.b[1]; }
"""


@pytest.mark.clause("SPEC-03P.1 4", "SPEC-04 LS-226", "IM-106")
def test_several_modules_fault_positions_and_stack(tmp_path):
    src = """import lib.util;
I64 H = 5;
export I64 run() {
    I64[3] a;
    a[2] = 4;
    util.run_k(a);
    util.Pair p = util.Pair(a[0], a[1..3]);
    H += a[2] + util.second(p);
    return util.twice(H);
}
"""
    text = both(tmp_path, src, files={"lib/util.ci": LIB})
    assert "fault.position lib/util.ci:4:43" in text
    assert "fault.stack p.ci:9:17\nfault.stack lib/util.ci:5:34\n" in text
    assert both(tmp_path, src.replace("util.twice(H)", "H"), name="q", files={"lib/util.ci": LIB}).count(
        "return I64 21") == 1


STRUCTS = """
struct P { I64 x; I64[3] ys; Bool f; }
struct Q { P[2] ps; I32 n; }
I64 total(in P p) { return p.x + sum(p.ys); }
void bump(inout P p) { p.ys[1] += 10; p.x -= 1; }
void bumpall[n](inout P[n] ps) { for i in 0..n { bump(ps[i]); } }
I64 g(inout P[_] a) { a[0].x = 99; return 1; }
I64 h(in P p, I64 z) { return p.x + z; }
export I64 run() {
    Q q;
    q.ps[1].ys[2] = 5;
    q.ps[0].x = 3;
    Q r = q;
    r.ps[1].ys[2] = 7;
    bumpall(q.ps);
    P[4] arr;
    arr[3] = q.ps[1];
    fill(arr[0..2], q.ps[0]);
    I64 t = 0;
    for i, p in arr { t = t * 10 + total(p) + i; }
    I64 late = h(arr[0], g(arr));
    I64 k = IDX;
    return t + r.ps[1].ys[2] * 1000 + q.ps[1].ys[2] + late + arr[k].ys[0];
}
"""


@pytest.mark.clause("SPEC-03P.1 4", "SPEC-04 LS-67", "SPEC-04 LS-77", "IM-186")
def test_structs_with_array_fields_and_arrays_of_structs(tmp_path):
    assert "return I64" in both(tmp_path, STRUCTS.replace("IDX", "3"))
    text = both(tmp_path, STRUCTS.replace("IDX", "4"), name="q")
    assert "fault.operation index.checked.struct" in text


@pytest.mark.clause("SPEC-03P.1 4", "SPEC-04 LS-121", "SPEC-04 LS-70")
def test_alias_checks_at_calls_copies_and_dispatches(tmp_path):
    src = """
struct P { I64 x; I64[3] ys; }
void f(inout P p, in I64[_] v) { p.x = v[0]; }
void put[n](inout I64[n] d, in I64[n] s) { d[0] = s[0]; }
kernel k2[n](inout I64[n] a, inout I64[n] b) over [i: n] { b[i] = a[i] + 1; a[i] = b[i] * 2; }
void go(inout I64[_] x, inout P[_] ps, I64 a, I64 b, I64 c, I64 d) {
    put(x[0..8 by 2], x[a..8 by 2]);
    k2(x[0..8 by 2], x[a..8 by 2]);
    copy(x[0..4], x[b..b + 4]);
    f(ps[0], ps[d].ys);
    put(x[0..4], x[c..c + 4]);
}
export I64 run() {
    I64[8] x;
    P[2] ps;
    for i in 0..8 { x[i] = i; }
    go(x, ps, 1, ARGS);
    return x[0] * 100 + x[1] * 10 + x[7];
}
"""
    assert "return I64" in both(tmp_path, src.replace("ARGS", "4, 4, 1"))
    assert "fault.operation copy.alias" in both(tmp_path, src.replace("ARGS", "2, 4, 1"), name="c")
    assert "fault.operation bind.alias" in both(tmp_path, src.replace("ARGS", "4, 4, 0"), name="s")
    assert "fault.operation bind.alias" in both(tmp_path, src.replace("ARGS", "4, 3, 1"), name="o")
    assert "fault.operation bind.alias" in both(tmp_path, src.replace("ARGS", "4, 4, 1").replace("go(x, ps, 1,", "go(x, ps, 0,"),
                                                  name="k")


@pytest.mark.clause("SPEC-03P.1 4", "SPEC-04 LS-65", "SPEC-04 LS-161", "IM-186")
@pytest.mark.parametrize("view,body", [
    ("a[1..7 by 2, ..]", "return sum(v) * 100 + extent(v, 0) * 10 + lower(v, 1);"),
    ("a[J, 1..=3]", "return sum(v) + size(v);"),
    ("a[5..=J by -2, 3..0 by -1]", "in I64[_, _] t = transpose(v);\n    return t[0, 1] * 100 + extent(t, 0);"),
    ("a[.., J..]", "fill(v, 7);\n    return sum(a) + (equal(v, v) ? 1 : 0);"),
    ("a[J + 5..J + 6, ..]", "return sum(v);"),
    ("a[J + 6, ..]", "return sum(v);"),
    ("a[.., 0..5]", "return sum(v);"),
    ("a[..J, ..]", "inout I64[_, _] w = reverse(v, 1);\n    I64 t = 0;\n"
                   "    for q in 0..extent(w, 0) { for x in w[q, ..] { t = t * 3 + x; } }\n    return t;"),
])
@pytest.mark.parametrize("j", [1, 2])
def test_views(tmp_path, view, body, j):
    src = """export I64 run() {
    I64[7, 4] a;
    for i in 0..7 { for k in 0..4 { a[i, k] = i * 4 + k; } }
    I64 J = %d;
    inout I64[_, _] v = %s;
    %s
}
""" % (j, view, body)
    if "J, 1..=3" in view or "J + 6, .." in view:
        src = src.replace("I64[_, _] v", "I64[_] v")
    both(tmp_path, src)


@pytest.mark.clause("SPEC-03P.1 4", "IM-44", "IM-49", "IM-51", "IM-52", "IM-53")
@pytest.mark.parametrize("expr,ty", [
    ("muldiv(U64, U64.max, U64.max, 1 as U64, floor)", "U64"),
    ("muldiv(I64, I64.min, I64.min, -1, ceil)", "I64"),
    ("muldiv(I8, 7 as U8, 9 as U8, 2 as U8, half_even)", "I8"),
    ("muldiv(I32, -7, 9, 2, half_away) + muldiv(I32, 7, 9, 0, floor)", "I32"),
    ("div_round(I64.min, -1, half_even)", "I64"),
    ("div_round(-7, 2, half_down) * 10 + div_round(-7, 2, trunc)", "I64"),
    ("isqrt(V - 3)", "I64"),
    ("isqrt_round(U64.max, away) as U64", "U64"),
    ("isqrt_round(V + 88, half_even)", "I64"),
    ("rotl(0x81 as U8, V) + rotr(0x81 as U8, 1 as U16)", "U8"),
    ("rotr(0x81 as U8, V + 6)", "U8"),
    ("clamp(V, 5, 3)", "I64"),
    ("clamp(V, -1, 1) + (uabs(I64.min) as I64 % 7) + (mul_full(-128 as I8, V as I8) as I64)", "I64"),
])
def test_named_operations(tmp_path, expr, ty):
    src = "I64 V = 2;\nexport %s run() {\n    \"{V}\\n\";\n    return %s;\n}\n" % (ty, expr)
    both(tmp_path, src)


@pytest.mark.clause("SPEC-03P.1 4", "IM-139")
def test_loop_iterations_give_back_frame_storage(tmp_path):
    src = """
I64[3] mk(I64 v) { I64[100] big; big[1] = v; I64[3] a; a[1] = big[1]; return a; }
export I64 run() {
    I64 t = 0;
    I64[3] keep;
    for i in 0..30000 {
        I64[50] w;
        w[0] = i;
        keep = mk(w[0]);
        t += keep[1] % 7;
    }
    return t + keep[1];
}
"""
    assert "return I64 119994" in both(tmp_path, src)
