"""Issue 6, the language surface: calls from kernels to kernel-admissible functions (LS-250), private arrays
with compile-time extents (C5029), constant arrays, and the other gaps of docs/language.md.

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
position, stack and kernel address with step ordinal, fuel, stdout, result, module variables) must be equal,
the reference must not give a compile error and cpu-c17 must not refuse. The checker tests pin the code and
the position of each new diagnostic.
"""
import shutil

import pytest


from compiler_testkit import both, compile_error, where

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- 1. calls from kernels

CALLS = {
    "scalar_helpers": """I64 sq(I64 x) {
    return x * x;
}
I64 addsq(I64 a, I64 b) {
    I64[2] t = [a, b];
    return sq(t[0]) + sq(t[1]);
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = addsq(a[i], i) + 1;
}
export I64 run() {
    I64[4] a = [1, 2, 3, -7];
    I64[4] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]} {b[3]}\\n";
    return b[3];
}""",
    # the overflow in sq of work-item 2: the address carries the step ordinal counted through the calls,
    # the stack the call sites inside the work-item
    "fault_in_callee": """I64 sq(I64 x) {
    I64 y = x + 0;
    return y * y;
}
I64 addsq(I64 a, I64 b) {
    return sq(a) + sq(b);
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64 c = a[i] * 2;
    b[i] = addsq(c, i) + 1;
}
I64 drive(I64 big) {
    I64[3] a = [1, 2, big];
    I64[3] b;
    k(a, b);
    return b[0];
}
export I64 run() {
    return drive(3037000499);
}""",
    "fault_second_call": """I32 f(I32 x, I32 y) {
    return x / y;
}
kernel k[n](in I32[n] a, in I32 d, out I32[n] b) over [i: n] {
    I32 u = f(a[i], 1);
    b[i] = u + f(a[i], d - (i as I32));
}
export I64 run() {
    I32[4] a = [5, 6, 7, 8];
    I32[4] b = [9, 9, 9, 9];
    k(a, 2, b);
    return 0;
}""",
    "views_and_sizes": """I64 total[m](in I64[m] xs) {
    I64 s = 0;
    for j in 0..m {
        s += xs[j];
    }
    return s;
}
I64 window[m](in I64[m] xs, I64 lo, I64 hi) {
    return total(xs[lo..hi]);
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[3] p;
    p[0] = a[i];
    p[2] = i;
    b[i] = total(p) * 100 + window(a, 0, i + 1);
}
export I64 run() {
    I64[5] a = [3, 1, 4, 1, 5];
    I64[5] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]} {b[3]} {b[4]}\\n";
    return b[4];
}""",
    "slice_fault_in_callee": """I64 window[m](in I64[m] xs, I64 lo, I64 hi) {
    in I64[_] w = xs[lo..hi];
    return w[0];
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = window(a, i, i + 2);
}
export I64 run() {
    I64[3] a = [1, 2, 3];
    I64[3] b;
    k(a, b);
    return b[0];
}""",
    "bind_shape_in_kernel": """I64 dot3[m](in I64[m] x, in I64[m] y) {
    I64 s = 0;
    for j in 0..m {
        s += x[j] * y[j];
    }
    return s;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[2] p = [i, 1];
    I64[3] q = [1, 2, 3];
    if (i < 2) {
        b[i] = dot3(p, p);
    } else {
        b[i] = dot3(p, q[0..i]);
    }
}
export I64 run() {
    I64[4] a;
    I64[4] b;
    k(a, b);
    return b[0];
}""",
    "private_inout_and_struct": """struct P { I32 x; I32 y; }
I32 norm1(P p) {
    return abs(p.x) + abs(p.y);
}
void bump[m](inout I32[m] t, I32 d) {
    for j in 0..m {
        t[j] = t[j] + d;
    }
}
kernel k[n](in I32[n] a, out I32[n] b) over [i: n] {
    I32[4] t;
    bump(t, a[i]);
    bump(t[1..3], d = 10);
    P p = P(t[0] - 100, t[1]);
    b[i] = norm1(p) + sum(t) as I32;
}
export I64 run() {
    I32[3] a = [1, -2, 30];
    I32[3] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]}\\n";
    return b[2] as I64;
}""",
    "loops_and_switch_in_helper": """U16 collatz(U16 x0) {
    U16 x = x0;
    U16 steps = 0;
    while (x != 1) {
        switch (x % 2) {
            case 0: x = x / 2;
            default: x = 3 * x + 1;
        }
        steps += 1;
    }
    return steps;
}
kernel k[n](in U16[n] a, out U16[n] b) over [i: n] {
    b[i] = collatz(a[i]);
}
export I64 run() {
    U16[6] a = [1, 2, 3, 7, 27, 9000];
    U16[6] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]} {b[3]} {b[4]} {b[5]}\\n";
    return b[4] as I64;
}""",
    "two_dims_named_args": """I64 mix(I64 a, I64 b, I64 c) {
    return a * 100 + b * 10 + c;
}
kernel k[n, m](in I64[n, m] a, out I64[n, m] b) over [i: n, j: m] {
    b[i, j] = mix(c = a[i, j], a = i, b = j);
}
export I64 run() {
    I64[2, 3] a;
    a[1, 2] = 7;
    I64[2, 3] b;
    k(a, b);
    "{b[0, 0]} {b[0, 2]} {b[1, 1]} {b[1, 2]}\\n";
    return b[1, 2];
}""",
    "assert_in_callee": """I64 checked(I64 x) {
    assert(x < 3);
    return x;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = checked(a[i]);
}
export I64 run() {
    I64[4] a = [0, 1, 5, 9];
    I64[4] b;
    k(a, b);
    return 0;
}""",
    "depth_in_kernel": """I64 d1(I64 x) { return d2(x) + 1; }
I64 d2(I64 x) { return d3(x) + 1; }
I64 d3(I64 x) { return x; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = d1(a[i]);
}
I64 go() {
    I64[2] a = [4, 5];
    I64[2] b;
    k(a, b);
    return b[1];
}
export I64 run() {
    return go();
}""",
}


@needs_cc
@pytest.mark.parametrize("name", sorted(CALLS))
def test_kernel_calls(tmp_path, name):
    both(tmp_path, CALLS[name], name)


@needs_cc
@pytest.mark.parametrize("depth", [2, 3, 4, 5])
def test_kernel_call_depth(tmp_path, depth):
    text = both(tmp_path, CALLS["depth_in_kernel"], "depth_in_kernel", depth=depth)
    if depth <= 4:
        assert "E_DEPTH" in text


@needs_cc
@pytest.mark.parametrize("fuel", [3, 5, 6, 7, 9, 11, 13, 20])
def test_kernel_call_fuel(tmp_path, fuel):
    both(tmp_path, CALLS["scalar_helpers"], "scalar_helpers", fuel=fuel)


def test_kernel_call_fault_record():
    from compiler_testkit import run
    o = run(CALLS["fault_in_callee"])
    assert o.kind == "fault"
    r = o.record
    assert r.code == "E_OVERFLOW" if hasattr(r, "code") else True
    # `a[i]` 0, `*` 1, then the place `b[i]` 2 (first, LS-139), call addsq 3, call sq 4, `+` 5, `*` 6
    assert r.address.work_item == 2 and r.address.step == 6
    # drive's call, the dispatch site of k (decision 3), then the calls inside the work-item
    assert [(p.line, p.column) for p in r.stack] == [(19, 12), (15, 5), (10, 12), (6, 12)]
    assert where(r) == (3, 14)


# ----------------------------------------------------------------------------- admissibility diagnostics

def kernel_calling(helper, call="h(a[i])", extra=""):
    return """%s
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = %s;
}
%s""" % (helper, call, extra)


def test_c5024_helper_prints():
    e = compile_error(kernel_calling('I64 h(I64 x) {\n    "x\\n";\n    return x;\n}'))
    assert e.code == "C5024" and where(e) == (6, 12)
    assert "prints" in e.message


def test_c5024_helper_declared_after_kernel():
    src = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = h(a[i]);
}
I64 h(I64 x) {
    return g(x);
}
I64 g(I64 x) {
    "x\\n";
    return x;
}"""
    e = compile_error(src)
    assert e.code == "C5024" and where(e) == (2, 12)
    assert "`h` -> `g`" in e.message


def test_c5024_global_defer_try_dispatch():
    e = compile_error(kernel_calling("I64 gv = 3;\nI64 h(I64 x) {\n    return x + gv;\n}"))
    assert e.code == "C5024" and "module-level" in e.message and where(e) == (6, 12)
    e = compile_error(kernel_calling("I64 h(I64 x) {\n    I64 y = x;\n    defer y = 0;\n    return y;\n}"))
    assert e.code == "C5024" and "defer" in e.message
    e = compile_error(kernel_calling("error E { bad }\nE!I64 g(I64 x) {\n    return x;\n}\n"
                                     "I64 h(I64 x) {\n    I64 y = g(x) catch 0;\n    return y;\n}"))
    assert e.code == "C5024" and "error union" in e.message
    e = compile_error(kernel_calling("kernel z[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i];\n}\n"
                                     "I64 h(I64 x) {\n    I64[1] p;\n    I64[1] q;\n    z(p, q);\n    return x;\n}"))
    assert e.code == "C5024" and "dispatches" in e.message


def test_c5026_recursion():
    e = compile_error(kernel_calling("I64 h(I64 x) {\n    if (x <= 0) {\n        return 0;\n    }\n"
                                     "    return h(x - 1) + 1;\n}"))
    assert e.code == "C5026" and where(e) == (8, 12)
    src = """I64 h(I64 x) { return g(x); }
I64 g(I64 x) { if (x > 0) { return h(x - 1); } return 0; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = h(a[i]);
}"""
    e = compile_error(src)
    assert e.code == "C5026" and where(e) == (4, 12)


def test_recursive_function_still_callable_outside_kernels():
    from compiler_testkit import value
    assert value("""I64 h(I64 x) {
    if (x <= 0) {
        return 0;
    }
    return h(x - 1) + 2;
}
export I64 run() { return h(4); }""") == 8


def test_c5031_out_param_to_function():
    src = """void put[m](inout I64[m] t, I64 j, I64 v) {
    t[j] = v;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    put(b, i, a[i]);
}"""
    e = compile_error(src)
    assert e.code == "C5031" and where(e) == (5, 9)


def test_c5024_helper_with_runtime_extent():
    src = kernel_calling("I64 h(I64 x) {\n    I64[x] t;\n    return x;\n}")
    e = compile_error(src)
    assert e.code == "C5024" and "run-time extent" in e.message


# ----------------------------------------------------------------------------- 2. private arrays (C5029)

def test_c5029_size_symbol_extent():
    src = """kernel k[n](in I32[n] a, out I32[n] b) over [i: n] {
    I32[n] t;
    b[i] = a[i];
}"""
    e = compile_error(src)
    assert e.code == "C5029" and where(e) == (2, 9)


def test_c5029_runtime_extent():
    src = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[4, a[i]] t;
    b[i] = a[i];
}"""
    e = compile_error(src)
    assert e.code == "C5029" and where(e) == (2, 12)


def test_c5029_byte_limit():
    ok = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[256] t;
    I32[448] u;
    I8[32, 8] w;
    b[i] = a[i];
}"""
    from cint_compiler.driver import compile_source
    compile_source(ok.encode(), "t.ci")
    bad = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[256] t;
    I32[448] u;
    I8[33, 8] w;
    b[i] = a[i];
}"""
    e = compile_error(bad)
    assert e.code == "C5029" and where(e) == (4, 5)


def test_runtime_extent_still_allowed_in_functions():
    from compiler_testkit import value
    assert value("""export I64 run() {
    I64 n = 3;
    I64[n] t;
    t[2] = 5;
    return sum(t);
}""") == 5


def test_c5021_defer_in_kernel():
    src = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64 x = 1;
    defer x = 2;
    b[i] = a[i];
}"""
    e = compile_error(src)
    assert e.code == "C5021" and where(e) == (3, 5)


@needs_cc
def test_kernel_calls_imported_function(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.ci").write_text("""export I64 tri(I64 x) {
    I64 s = 0;
    for j in 0..x {
        s += j * x;
    }
    return s;
}
""", encoding="utf-8")
    text = both(tmp_path, """import lib.m;
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = m.tri(a[i]) + 1;
}
export I64 run() {
    I64[3] a = [2, 3, 4611686018427387904];
    I64[3] b;
    k(a, b);
    return b[0];
}""", "imported")
    assert "fault.position lib/m.ci:4:16" in text and "fault.stack imported.ci:3:14" in text


# ----------------------------------------------------------------------------- 3. constant arrays

CONSTS = {
    "module_and_local": """const I32[4] P = [1, 2, 3, 4];
const I64 K = 3;
const I64[2, 3] M = [[1, 2, K], [K * 2, 5, -6]];
const I32[4] Q = P;
I64 total[n](in I32[n] xs) {
    I64 s = 0;
    for x in xs {
        s += x as I64;
    }
    return s;
}
export I64 run() {
    const U8[3] L = [250, 1 + 2, 0xff];
    I64 s = 0;
    for i in 0..4 {
        s += P[i] as I64;
    }
    in I64[_] col = M[.., 2];
    "{len(P)} {sum(P)} {M[1, 0]} {col[0]} {col[1]} {L[0]} {L[2]} {total(Q[1..])} {extent(M, 1)}\\n";
    return s + total(P) + sum(M) + sum(I64, L);
}""",
    "bool_enum_elements": """enum C : U8 { red = 1, green = 2, blue = 4 }
const Bool[3] F = [true, false, true];
const C[2] W = [.blue, C.green];
export I64 run() {
    I64 n = 0;
    for i in 0..3 {
        if (F[i]) {
            n += 1;
        }
    }
    "{W[0]} {W[1]} {F[2]}\\n";
    return n * 100 + (W[0] as I64) * 10 + (W[1] as I64);
}""",
    "index_fault": """const I64[3] P = [10, 20, 30];
export I64 run() {
    I64 s = 0;
    for i in 0..5 {
        s += P[i];
    }
    return s;
}""",
    "in_kernel_and_helper": """const I64[4] W = [1, -2, 3, -4];
I64 weigh(I64 x, I64 j) {
    return W[j % 4] * x;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    const I64[2] L = [2 * 3, -1];
    b[i] = weigh(a[i], i) + L[i % 2] * W[3 - i % 4];
}
export I64 run() {
    I64[6] a = [5, 6, 7, 8, 9, 4611686018427387904];
    I64[6] b;
    k(a[..5], b[..5]);
    "{b[0]} {b[1]} {b[2]} {b[3]} {b[4]}\\n";
    k(a, b);
    return b[0];
}""",
    "module_variable_initializer": """I32[3] g = [4, 5, 6];
Bool[2] flags = [true, false];
export I64 run() {
    g[1] = g[1] * 10;
    flags[1] = true;
    return sum(g) as I64;
}""",
}


@needs_cc
@pytest.mark.parametrize("name", sorted(CONSTS))
def test_constant_arrays(tmp_path, name):
    both(tmp_path, CONSTS[name], name)


@needs_cc
def test_constant_array_imported(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.ci").write_text("export const I16[3] T = [7, 8, 9];\n", encoding="utf-8")
    text = both(tmp_path, """import lib.m;
export I64 run() {
    return (m.T[1] + sum(m.T) as I16) as I64;
}""", "imported_const")
    assert "return I64 32" in text


def test_constant_array_values():
    from compiler_testkit import value
    assert value(CONSTS["module_and_local"]) == 10 + 10 + (1 + 2 + 3 + 6 + 5 - 6) + (250 + 3 + 255)


def test_constant_array_diagnostics():
    e = compile_error("const I32[2] P = [1, 2];\nexport I64 run() {\n    P[0] = 3;\n    return 0;\n}")
    assert e.code == "C2058" and where(e) == (3, 5)
    e = compile_error("const I32[2] P = [1, 2];\nvoid f(inout I32[2] x) { x[0] = 1; }\n"
                      "export I64 run() {\n    f(P);\n    return 0;\n}")
    assert e.code == "C2067" and where(e) == (4, 7)
    e = compile_error("I64 g = 1;\nconst I64[2] P = [1, g];")
    assert e.code == "C6004" and where(e) == (2, 18)
    e = compile_error("const I8[2] P = [1, 100 * 2];")
    assert e.code == "C6001"
    e = compile_error("export I64 run() {\n    I64 x = 1;\n    const I64[2] P = [x, 2];\n    return 0;\n}")
    assert e.code == "C6004" and where(e) == (3, 22)


# ----------------------------------------------------------------------------- 4. min/max with init

EXTREMES = {
    "sequential": """export I64 run() {
    I32[4] a = [5, -3, 9, 2];
    I32[0] z;
    I32 lo = min(0, a);
    I32 hi = max(100, a[1..]);
    I32 e = min(-7, z);
    I64[2, 2] m;
    m[0, 1] = 8;
    m[1, 0] = -1;
    U8[3] u = [7, 250, 3];
    "{lo} {hi} {e} {max(-100, m)} {min(3, m[0, ..])} {max(0, reverse(a, 0))} {min(a)} {max(u)} {min(9, u)}\\n";
    return lo as I64 + max(-1, transpose(m));
}""",
    "empty_without_init": """export I64 run() {
    I16[3] a = [1, 2, 3];
    I64 n = 0;
    I16 x = max(a[n..n]);
    return x as I64;
}""",
    "in_kernel": """kernel k[n](in I32[n] a, out I32[n] b) over [i: n] {
    I32[2] t = [a[i], -a[i]];
    b[i] = min(a[i] * 2, a) + max(0, t[0..i % 3]) + max(a[i..]);
}
export I64 run() {
    I32[5] a = [3, -4, 1, 7, 2147483647];
    I32[5] b;
    k(a[..4], b[..4]);
    "{b[0]} {b[1]} {b[2]} {b[3]}\\n";
    k(a, b);
    return 0;
}""",
}


@needs_cc
@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_min_max_reductions(tmp_path, name):
    both(tmp_path, EXTREMES[name], name)


@needs_cc
@pytest.mark.parametrize("fuel", [1, 2, 3, 4])
def test_min_max_fuel(tmp_path, fuel):
    both(tmp_path, EXTREMES["sequential"], "sequential", fuel=fuel)


def test_min_init_values_and_diagnostics():
    from compiler_testkit import value
    assert value("export I64 run() {\n    I64[3] a = [4, 9, 2];\n    return min(3, a) * 100 + max(1, a);\n}") == 209
    assert value("export I64 run() {\n    I64[0] a;\n    return min(3, a) * 100 + max(1, a);\n}") == 301
    e = compile_error("export I64 run() {\n    Bool[2] a;\n    Bool x = min(true, a);\n    return 0;\n}")
    assert e.code == "C2103" and where(e) == (3, 14)
    e = compile_error("export I64 run() {\n    I8[2] a;\n    I8 x = min(300, a);\n    return 0;\n}")
    assert e.code == "C2003" and where(e) == (3, 16)


# ----------------------------------------------------------------------------- 5. default arguments

DEFAULTS = {
    "scalars_named": """const I64 K = 10;
enum R : U8 { lo = 0, hi = 1 }
I64 f(I64 a, I64 b = K * 2, Bool neg = false, R r = .hi) {
    I64 v = neg ? -(a + b) : a + b;
    return r == R.hi ? v * 2 : v;
}
export I64 run() {
    "{f(1)} {f(1, 2)} {f(1, neg = true)} {f(b = 5, a = 3)} {f(1, r = R.lo)}\\n";
    return f(4);
}""",
    "kernel_callee_fault": """I64 scale(I64 x, I64 by2 = 3 * 4) {
    return x * by2;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = scale(a[i]) + scale(a[i], 1);
}
export I64 run() {
    I64[3] a = [1, 2, 1152921504606846976];
    I64[3] b;
    k(a[..2], b[..2]);
    "{b[0]} {b[1]}\\n";
    k(a, b);
    return 0;
}""",
}


@needs_cc
@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_default_arguments(tmp_path, name):
    both(tmp_path, DEFAULTS[name], name)


@needs_cc
def test_default_argument_of_imported_function(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.ci").write_text("const I64 K = 7;\nexport I64 g(I64 a, I64 b = K + 1) {\n"
                                           "    return a * b;\n}\n", encoding="utf-8")
    text = both(tmp_path, """import lib.m;
export I64 run() {
    return m.g(2) * 100 + m.g(2, 3);
}""", "imported_default")
    assert "return I64 1606" in text


def test_default_argument_diagnostics():
    from compiler_testkit import value
    assert value(DEFAULTS["scalars_named"]) == 48
    e = compile_error("I64 f(I64 a = 1, I64 b) {\n    return a + b;\n}")
    assert e.code == "C2061" and where(e) == (1, 22)
    e = compile_error("I64 g = 1;\nI64 f(I64 a, I64 b = g) {\n    return a + b;\n}")
    assert e.code == "C6004" and where(e) == (2, 22)
    e = compile_error("I64 f(I64 a, I8 b = 300) {\n    return a;\n}")
    assert e.code == "C2003" and where(e) == (1, 21)
    e = compile_error("I64 f(I64 a, I64 b = 1) {\n    return a;\n}\nexport I64 run() {\n    return f(1, 2, 3);\n}")
    assert e.code == "C2022"
