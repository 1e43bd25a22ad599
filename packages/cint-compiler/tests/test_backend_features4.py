"""The executor cpu-c17 against the reference executor on the refusals left after issue 3: nested array
literals outside constants, computed extents in parameter types and in struct array fields, module-level
and constant arrays of Q elements, constant arrays of I128..I1024 and of structs (with the canonical state).

Each program runs on both executors through `compiler_testkit.both`; the texts (status, fault record with
position, stack and kernel address, fuel, stdout, result, module variables) must be equal and not a refusal,
and the reference executor must not give a compile error.
"""
import shutil

import pytest

from compiler_testkit import both, cpu_and_ref


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- nested array literals

NESTED = {
    "runtime_elements": """I32 say(I32 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 x = 4;
    I32[2, 2] m = [[say(1), x as I32], [say(3), say(x as I32 + 1)]];
    "{m} {m[1, 0]}\\n";
    m = [[m[1, 1], m[1, 0]], [m[0, 1], m[0, 0]]];
    "{m}\\n";
    return m[0, 0] as I64 * 10 + m[1, 1] as I64;
}""",
    "element_fault": """I8 say(I8 x) { "say {x}\\n"; return x; }
export I64 run() {
    I8 big = 100;
    I8[2, 3] m = [[say(1), say(2), say(3)], [say(4), big + say(50), say(6)]];
    "{m}\\n";
    return 0;
}""",
    "rank3_and_rank4": """export I64 run() {
    I64 k = 2;
    I16[2, 2, 3] c = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, k as I16]]];
    U8[1, 2, 1, 2] d = [[[[1, 2]], [[3, 4]]]];
    "{c} {d}\\n";
    I64 s = 0;
    for i in 0..2 { for j in 0..2 { for l in 0..3 { s = s * 3 + c[i, j, l] as I64; } } }
    return s + d[0, 1, 0, 1] as I64;
}""",
    "argument_and_result": """I64 total(in I64[_, _] a) {
    I64 s = 0;
    for i in 0..extent(a, 0) { for j in 0..extent(a, 1) { s = s * 10 + a[i, j]; } }
    return s;
}
I64 total2(in I64[3, 2] a) { return total(a); }
I64[2, 3] mk(I64 b) { return [[b, b + 1, b + 2], [b * 2, b * 3, b * 4]]; }
export I64 run() {
    I64 b = 3;
    I64[3, 2] a = [[b, b], [b, b + 1], [1, 2]];
    I64 t = total2(a);
    I64[2, 3] m = mk(b);
    "{t} {m} {mk(1)}\\n";
    return t + m[1, 2];
}""",
    "element_types": """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
struct P { I32 x; Bool on; I16[2] v; }
export I64 run() {
    Bool t = true;
    Bool[2, 2] bs = [[t, false], [!t, true]];
    Color[2, 1] cs = [[Color.blue], [Color.green]];
    Bad[1, 2] es = [[Bad.Worse, Bad.Oops]];
    I128 w = 170141183460469231731687303715884105727;
    I128[2, 2] ws = [[w, -w], [w / 3, 1]];
    Q8.8 h = 1.5;
    Q8.8[2, 2] qs = [[h, h * 2.0], [-h, 0.25]];
    P p = P(1, true, [3, 4]);
    P[2, 2] ps = [[p, P(2, false, [5, 6])], [P(3, t, [7, p.v[0]]), p]];
    p.x = 99;
    "{bs} {cs} {es}\\n{ws}\\n{qs}\\n{ps}\\n";
    return ps[1, 1].x as I64 + ps[1, 0].v[1] as I64;
}""",
    "computed_extents": """I64 f(I64 n) {
    I32[n, 2] m = [[1, 2], [3, 4]];
    "{m}\\n";
    return extent(m, 0);
}
export I64 run() {
    I64 a = f(2);
    return a + f(3);
}""",
    "empty_rows": """export I64 run() {
    I32[2, 0] z = [[], []];
    "{z} {extent(z, 1)}\\n";
    I32[0, 3] m = [];
    return 0;
}""",
    "in_loops": """I64 row(I64 i) { return i * i; }
export I64 run() {
    I64 s = 0;
    for i in 0..50 {
        I64[2, 3] m = [[i, row(i), i + 1], [row(i + 1), 2, 3]];
        s += m[0, 1] + m[1, 0];
        if (i == 49) { "{m}\\n"; }
    }
    I64 k = 0;
    while (k < 3) {
        I64[2, 2] q = [[k, k], [k + 1, k + 2]];
        "{q}\\n";
        k += 1;
    }
    return s;
}""",
    "overflow_in_loop": """export I64 run() {
    I8 x = 120;
    for i in 0..20 {
        I8[2, 2] m = [[x, 1], [x + (i as I8), 2]];
        "{m[1, 0]}\\n";
    }
    return 0;
}""",
    "struct_field": """struct G { I16[2, 2] m; I64 k; }
export I64 run() {
    I64 a = 5;
    G g = G([[1, 2], [a as I16, 4]], a);
    g.m = [[g.m[1, 1], 8], [9, g.m[0, 0]]];
    "{g}\\n";
    return g.m[0, 0] as I64 + g.k;
}""",
    "kernel_private": """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[2, 2] t = [[a[i], 1], [2, a[i] * 3]];
    b[i] = t[0, 0] + t[1, 1] + sum(t);
}
export I64 run() {
    I64[4] a = [1, 2, 3, 4];
    I64[4] b;
    k(a, b);
    "{b}\\n";
    return b[3];
}""",
    "kernel_steps": """kernel k[n](in I8[n] a, out I8[n] b) over [i: n] {
    I8[2, 2] t = [[1 + 1, 2], [3, 4 * 2 - 1]];
    I8[1, 3] u = [[a[i], a[i] + 1, t[1, 1] * a[i]]];
    b[i] = u[0, 2] + t[0, 0];
}
export I64 run() {
    I8[4] a = [1, 2, 19, 4];
    I8[4] b;
    k(a, b);
    return 0;
}""",
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_array_literals(tmp_path, name):
    both(tmp_path, NESTED[name])


@pytest.mark.parametrize("fuel", [1, 2, 3, 5, 8, 13])
def test_nested_array_literals_fuel(tmp_path, fuel):
    both(tmp_path, NESTED["runtime_elements"], fuel=fuel)
    both(tmp_path, NESTED["in_loops"], name="q", fuel=fuel * 7)


# ----------------------------------------------------------------------------- computed extents

EXTENTS = {
    "parameters": """const I64 K = 3;
struct Uses { I64[K] a; }
I64 f(in I64[K + 1] b, inout I16[2 * 3, (7 - 1) / 3 - 1] m) {
    m[5, 0] = b[3] as I16;
    return b[0] + b[3];
}
I64 g[n](in I64[n, K - 1] a, in I64[n] v) { return extent(a, 0) * 100 + extent(a, 1) * 10 + len(v); }
export I64 run() {
    I64[4] b = [1, 2, 3, 4];
    I16[6, 1] m;
    I64 r = f(b, m);
    I64[3, 2] a;
    I64[3] v;
    "{m} {g(a, v)}\\n";
    I64[5] c;
    I64 k = 4;
    r += f(c[0..k], m);
    k += 1;
    return r + f(c[0..k], m);
}""",
    "parameter_shape_fault": """I64 f(in I64[2 * 2] b) { return b[0]; }
export I64 run() {
    I64[5] c;
    I64 k = 3;
    return f(c[0..k]);
}""",
    "struct_fields": """const I64 K = 3;
enum Color : U8 { red = 0, green = 1 }
struct S { I64[K * 2] v; I8[K, K - 1] m; Color[K - 1] cs; }
struct T { S s; U8[1 + 1] b; }
I64 h(inout S s) { s.m[2, 1] = 9; return len(s.v); }
export I64 run() {
    S s;
    s.v[5] = 3;
    s.m[2, 1] = 4;
    s.cs[1] = Color.green;
    T t = T(s, [1, 2]);
    I64 n = h(t.s);
    I64[K * 2] w = [1, 2, 3, 4, 5, 6];
    S u = S(w, [[1, 2], [3, 4], [5, 6]], [Color.red, Color.green]);
    "{s}\\n{t}\\n{u}\\n";
    return s.v[5] + n + t.s.m[2, 1] as I64 + u.m[2, 0] as I64;
}""",
    "kernel_parameter": """kernel k[n](in I64[n] a, in I64[2 * 2] c, out I64[n] b) over [i: n] { b[i] = a[i] * c[i % 4]; }
export I64 run() {
    I64[5] a = [1, 2, 3, 4, 5];
    I64[4] c = [10, 20, 30, 40];
    I64[5] b;
    k(a, c, b);
    "{b}\\n";
    I64 m = 3;
    k(a, c[0..m], b);
    return b[4];
}""",
    "struct_field_bounds": """const I64 K = 2;
struct S { I64[K * 2] v; }
export I64 run() {
    S s;
    I64 i = 4;
    return s.v[i];
}""",
}


@pytest.mark.parametrize("name", sorted(EXTENTS))
def test_computed_extents(tmp_path, name):
    both(tmp_path, EXTENTS[name])


# ----------------------------------------------------------------------------- Q, wide and struct arrays

ARRAYS = {
    "module_q": """Q8.8[3] qs;
Q4.4[2, 2] grid = [[1.5, -0.25], [7.9375, -8.0]];
Q16.16[2] acc = [0.5, -1.25];
I64 n = 0;
void bump(inout Q8.8[_] a, Q8.8 d) { for i in 0..len(a) { a[i] = a[i] + d; } }
export I64 run() {
    qs[0] = 1.5;
    qs[2] = qs[0] * 2.0 - 0.125;
    bump(qs, 0.25);
    bump(qs[1..], -1.0);
    grid[1, 0] = grid[0, 0] + grid[0, 1];
    acc[1] = acc[1] * acc[0];
    "{qs} {grid} {acc} {qs[2]:.2}\\n";
    for x in qs { n += (x * 4.0) as I64; }
    Q8.8[3] c = qs;
    c[0] = 0.0;
    return n + (grid[1, 0] * 4.0) as I64;
}""",
    "module_q_overflow": """Q4.4[2] g = [7.5, 1.0];
export I64 run() {
    g[1] = g[0] + g[1];
    return 0;
}""",
    "const_q": """const Q8.8[3] K = [1.5, -0.25, 100.5];
const Q4.4[2, 2] M = [[1.0, -2.5], [0.0625, 7.9375]];
Q8.8 pick(I64 i) { return K[i]; }
export I64 run() {
    Q8.8 s = 0.0;
    for x in K { s = s + x; }
    "{K} {M} {pick(1)} {s} {M[1, 1]}\\n";
    I64 i = 3;
    return (K[0] * 2.0) as I64 + (pick(i) * 1.0) as I64;
}""",
    "const_wide": """const I128[3] W = [170141183460469231731687303715884105727, -5, 0];
const I256[2, 2] V = [[1, -1], [57896044618658097711785492504343953926634992332820282019728792003956564819967, 3]];
export I64 run() {
    I128 t = W[0] / 7 + W[1];
    "{W} {V} {t} {sum(W)}\\n";
    I128[3] c = W;
    c[2] = c[0] - 1;
    I64 i = 1;
    "{c} {V[i, 0] % 1000}\\n";
    return (W[1] * 2) as I64 + (V[1, 1] + V[0, 1]) as I64 + (W[0] % 1000 + W[2] + 1) as I64;
}""",
    "const_structs": """enum Color : U8 { red = 0, green = 1, blue = 7 }
struct P { I32 x; Bool on; I16[3] v; }
struct R { P p; Color c; I128 w; Q8.8 q; }
const P[0] PS = [];
const R[0] RS = [];
const R[0] RT = RS;
I64 tally(in R[_] rs) { I64 n = 0; for r in rs { n += r.p.x as I64; } return n + len(rs); }
export I64 run() {
    "{PS} {RS} {len(PS)} {tally(RT)}\\n";
    I64 s = 0;
    for p in PS { s += p.x as I64; }
    R[0] dup = RS;
    I64 i = 0;
    "{dup}\\n";
    return s + RT[i].p.x as I64;
}""",
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_q_wide_struct_arrays(tmp_path, name):
    both(tmp_path, ARRAYS[name])


@pytest.mark.parametrize("fuel", [1, 2, 4, 7])
def test_q_wide_struct_arrays_fuel(tmp_path, fuel):
    both(tmp_path, ARRAYS["module_q"], fuel=fuel)
    both(tmp_path, ARRAYS["const_structs"], name="q", fuel=fuel)


STATE_SRC = """const Q8.8[2] K = [1.5, -0.25];
const I128[2] W = [170141183460469231731687303715884105727, -3];
Q8.8[3] qs;
Q4.4[2, 2] grid = [[1.5, -0.25], [7.9375, -8.0]];
Q33.31[2] fine = [0.5, -1.0];
I64 n = 1;
export I64 put(I64 i, I64 v) {
    qs[i] = K[i % 2] * (v as Q8.8);
    grid[i % 2, 1] = grid[i % 2, 1] + 0.0625;
    fine[i % 2] = fine[i % 2] * 0.5;
    n += (W[i % 2] % 1000) as I64;
    return n + v;
}
"""


def test_module_level_q_arrays_in_the_canonical_state(tmp_path, monkeypatch):
    """cpu-c17's canonical state bytes (state.c: an array of Q elements, its element descriptor from the
    global's type) equal cint_compiler.canonical.canonical_state of the interpreter after the same entries,
    constants are not state, and the bytes round-trip through cint_abi's strict decoder and the runtime's
    restore."""
    import hashlib
    from cint_abi.state import decode_state
    from cint_compiler.interp.canonical import canonical_state
    two = cpu_and_ref(tmp_path, monkeypatch, STATE_SRC, "qst")
    mod, ref, put, state, restore = two.mod, two.ref, two.fn, two.state, two.restore
    ctx = mod.context()
    first = canonical_state(ref)
    assert state(ctx) == first
    names = [g[0] for g in decode_state(first).globals]
    assert names == ["qst.fine", "qst.grid", "qst.n", "qst.qs"]
    for i, v in ((0, 5), (1, -3), (2, 9), (1, 4)):
        assert ctx.put(i, v) == ref.run_entry("func", put, [i, v]).value
        assert state(ctx) == canonical_state(ref)
    assert ctx.state_hash() == hashlib.sha256(canonical_state(ref)).digest()
    st = decode_state(canonical_state(ref))
    assert dict((g[0], g[2]) for g in st.globals)["qst.qs"] == [1920, -256, 3456]
    saved = state(ctx)
    ctx.put(0, 50)
    assert state(ctx) != canonical_state(ref)
    assert restore(ctx, saved) == 0
    assert state(ctx) == canonical_state(ref)
    ref.run_entry("func", put, [2, 11])
    fresh = mod.context()
    assert restore(fresh, canonical_state(ref)) == 0
    assert state(fresh) == canonical_state(ref)
    assert fresh.put(0, 1) == ref.run_entry("func", put, [0, 1]).value
    assert state(fresh) == canonical_state(ref)
    # a state whose Q array has another fraction width is refused, and the context keeps its state
    bad = bytearray(canonical_state(ref))
    name = b"qst.qs"
    at = bad.index(name) + len(name) + 1 + 1 + 1      # 0x51, Q tag, storage tag, then the fraction bits
    assert bad[at] == 8
    bad[at] = 7
    assert restore(fresh, bad) != 0
    assert state(fresh) == canonical_state(ref)


QLIB = """export Q8.8[2] qs = [0.5, -2.0];
export const Q4.4[2] KQ = [1.25, -0.5];
export const I128[1] KW = [-170141183460469231731687303715884105728];
export Q8.8 bump(I64 i) { qs[i] = qs[i] + 1.0; return qs[i]; }
"""


def test_imported_q_arrays_and_constants(tmp_path):
    src = """import lib.qm;
export I64 run() {
    Q8.8 a = qm.bump(1);
    a = a + qm.bump(0) * 3.0;
    "{qm.qs} {qm.KQ} {qm.KW} {a}\\n";
    return (qm.qs[0] * 2.0) as I64 + (qm.KW[0] % 7) as I64;
}
"""
    both(tmp_path, src, files={"lib/qm.ci": QLIB})


def test_ragged_nested_literal_faults_as_the_interpreter(tmp_path):
    """A nested literal whose rows differ in length (an inner extent computed, so the checker accepts it)
    faults E_SHAPE copy.shape at the offending row on both executors (test_backend_features5.py has more)."""
    src = """I64 f[n](in I64[n] a) {
    I32[2, n] m = [[1, 2], [3]];
    return 0;
}
export I64 run() { I64[2] a; return f(a); }
"""
    text = both(tmp_path, src)
    assert "fault.operation copy.shape" in text and "fault.position p.ci:2:28" in text
