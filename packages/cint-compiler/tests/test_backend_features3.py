"""The executor cpu-c17 against the reference executor on the last refusals of issue 3: printing arrays and
structs, module-level arrays of structs and of wide integers (with the canonical state), tuples holding arrays,
returning an array while deferred statements are pending, export structs with enum, error-set and Str fields.

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
position, stack and kernel address, fuel, stdout, result, module variables) must be equal and not a refusal,
and the reference executor must not give a compile error.
"""
import shutil

import pytest

from compiler_testkit import both, cpu_and_ref

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- printing arrays and structs

PRINTS = {
    "ints": """export I64 run() {
    I64[3] a = [1, -2, 3];
    U8[2, 3] g;
    for i in 0..2 { for j in 0..3 { g[i, j] = (i * 100 + j * 20 + 15) as U8; } }
    I16[0] e;
    I32[2, 0] z;
    "{a} {g} {e} {z}\\n";
    "{a=} {a[1..]} {g[1]} {g[.., 1]}\\n";
    return 0;
}""",
    "specs": """export I64 run() {
    I64[3] a = [1, -2, 300];
    U16[2] h = [258, 65535];
    "{a:>5} {a:+} {a:x} {a:#b} {a:_<4} {h!lanes(U8)} {h:#06x} {h!bits}\\n";
    U32[3] c = [65, 66, 955];
    "{c:c}|{c:^4c}\\n";
    return 0;
}""",
    "char_fault": """export I64 run() {
    I32[3] c = [65, -1, 66];
    "before\\n";
    "{c:c}\\n";
    return 0;
}""",
    "wide_q_bool": """export I64 run() {
    I128[2] w = [170141183460469231731687303715884105727, -5];
    I256[1, 2] v;
    v[0, 1] = 3;
    Q8.8[3] q = [1.5, -0.25, 127.99609375];
    Bool[2] b = [true, false];
    "{w} {v} {q} {b} {w:x} {q:.1} {b:>6}\\n";
    return 0;
}""",
    "enums_errors": """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
export I64 run() {
    Color[3] cs = [Color.red, Color.blue, Color.green];
    Bad[2] es = [Bad.Worse, Bad.Oops];
    "{cs} {cs:#} {cs:>6} {es} {es:<12}|\\n";
    return 0;
}""",
    "structs": """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
struct P { I32 x; I32 y; }
struct R { P a; Color c; Bool on; Q4.4 q; I128 big; I16[2, 2] m; P[2] ps; }
struct Tagged { Bad e; I8 k; }
export I64 run() {
    P p = P(1, y = -2);
    R r;
    r.a = p;
    r.c = Color.blue;
    r.on = true;
    r.q = 2.5;
    r.big = -1;
    r.m[1, 0] = 9;
    r.ps[1].y = 4;
    "{p} {p=} {r}\\n";
    P[2] ps;
    ps[0].x = 5;
    R[1] rs;
    rs[0].c = Color.green;
    Tagged[2] ts = [Tagged(Bad.Oops, 1), Tagged(e = Bad.Worse, k = -2)];
    "{ps} {rs} {ps[1..]} {ts} {ts[1]}\\n";
    return 0;
}""",
    "params_views": """struct P { I32 x; U8 y; }
void show(in I64[_, _] g, in P[_] ps) {
    "{g} {g[1]} {ps}\\n";
}
export I64 run() {
    I64[3, 2] g;
    for i in 0..3 { for j in 0..2 { g[i, j] = i * 2 + j - 3; } }
    P[3] ps;
    ps[2].y = 200;
    show(g, ps);
    show(g[1..], ps[..2]);
    return 0;
}""",
    "wide_specs": """export I64 run() {
    I128[2] w = [65, 1114112];
    I256[2] v = [-3, 340282366920938463463374607431768211455];
    "{v!lanes(U64)} {v:#x} {v!bits} {w[..1]:c}\\n";
    "{w:c}\\n";
    return 0;
}""",
    "struct_in_union_and_views": """struct P { I8 k; Bool[2] f; }
error E { bad }
E!P mk(I8 k) {
    if (k < 0) {
        return .bad;
    }
    P p;
    p.k = k;
    p.f[1] = true;
    return p;
}
export I64 run() {
    P p = mk(3) catch P(0, [false, false]);
    P[3] ps;
    ps[1] = p;
    "{p} {ps[1..]} {ps[1].f} {p=}\\n";
    return 0;
}""",
}


@pytest.mark.parametrize("name", sorted(PRINTS))
def test_print_arrays_structs(tmp_path, name):
    both(tmp_path, PRINTS[name])


@pytest.mark.parametrize("fuel", [1, 2, 3])
def test_print_fuel(tmp_path, fuel):
    both(tmp_path, PRINTS["structs"], fuel=fuel)


# ----------------------------------------------------------------------------- tuples holding arrays, return under defers

RETURNS = {
    "defer_local": """I64[3] f() {
    I64[3] a = [1, 2, 3];
    defer a[0] = 90;
    defer { a[1] = a[0] + 1; "in defer {a}\\n"; }
    return a;
}
export I64 run() {
    I64[3] r = f();
    "{r}\\n";
    return r[0] * 10 + r[1];
}""",
    "defer_inout": """I64[_] f(inout I64[_] p) {
    defer p[0] = p[0] + 100;
    return p;
}
export I64 run() {
    I64[3] a = [1, 2, 3];
    I64[3] r = f(a);
    "{a} {r}\\n";
    I64[2] s = f(a[1..]);
    "{a} {s}\\n";
    return r[0] + a[0];
}""",
    "errdefer_union": """error E { bad }
E!I16[2] f(I64 x) {
    I16[2] a = [5, 6];
    defer a[1] = 0;
    errdefer a[0] = 7;
    if (x == 0) {
        return .bad;
    }
    return a;
}
export I64 run() {
    I16[2] r = f(1) catch [0, 0];
    I16[2] q = f(0) catch [3, 4];
    "{r} {q}\\n";
    return r[1] as I64;
}""",
    "struct_array_defer": """struct P { I32 x; I32[2] v; }
P[2] f() {
    P[2] ps;
    ps[0].x = 4;
    defer ps[0].x = 5;
    return ps;
}
export I64 run() {
    P[2] r = f();
    "{r}\\n";
    return r[0].x as I64;
}""",
    "tuple_arrays": """(I64[3], I64) f(I64 k) {
    I64[3] a = [k, k + 1, k + 2];
    defer a[0] = 0;
    return (a, sum(a));
}
(U8[2], Bool, I32[2]) g() {
    U8[2] b = [7, 8];
    I32[2] c = [-1, -2];
    return (b, true, c);
}
export I64 run() {
    (I64[3] a, I64 s) = f(10);
    "{a} {s}\\n";
    I64[3] x;
    I64 t = 0;
    (x, t) = f(1);
    (U8[2] b, Bool on, I32[2] c) = g();
    "{x} {t} {b} {on} {c}\\n";
    (_, s) = f(2);
    return a[0] + s + x[2];
}""",
    "tuple_shape_fault": """(I64[_], I64) f(I64 n) {
    I64[n] a;
    return (a, n);
}
export I64 run() {
    I64[3] x;
    I64 t = 0;
    (x, t) = f(3);
    "{x} {t}\\n";
    (x, t) = f(4);
    return t;
}""",
    "tuple_union": """error E { bad }
E!(I64[2], I64) f(I64 x) {
    I64[2] a = [x, x * 2];
    defer a[0] = -1;
    if (x == 0) {
        return .bad;
    }
    return (a, x);
}
export I64 run() {
    (I64[2] a, I64 b) = f(3) catch ([0, 0], 0);
    "{a} {b}\\n";
    (I64[2] c, I64 d) = f(0) catch ([9, 9], 1);
    "{c} {d}\\n";
    return b + d;
}""",
    "tuple_in_loop": """(I64[4], I64) f(I64 k) {
    I64[4] a;
    a[k % 4] = k;
    return (a, k * k);
}
export I64 run() {
    I64 total = 0;
    I64[4] keep;
    for i in 0..2000 {
        (I64[4] a, I64 s) = f(i);
        total += sum(a) + s;
        if (i == 1001) { (keep, _) = f(i); }
    }
    "{keep}\\n";
    return total;
}""",
}


@pytest.mark.parametrize("name", sorted(RETURNS))
def test_tuples_and_returns_under_defers(tmp_path, name):
    both(tmp_path, RETURNS[name])


@pytest.mark.parametrize("fuel", [2, 5, 9, 14])
def test_return_under_defers_fuel(tmp_path, fuel):
    both(tmp_path, RETURNS["tuple_arrays"], fuel=fuel)
    both(tmp_path, RETURNS["defer_local"], name="q", fuel=fuel)


# ----------------------------------------------------------------------------- module-level arrays of structs, wide

GLOBALS = {
    "structs": """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
struct P { I32 x; Bool on; I16[3] v; }
struct R { P p; Color c; I128 w; Q8.8 q; U8 b; }
R[3] rs;
P[2, 2] grid;
I64 total = 0;
void bump(inout R[_] a, I64 k) { a[k].p.x += 10; a[k].w = a[k].w * 3 + 1; }
export I64 run() {
    rs[1].p.x = 4;
    rs[1].p.on = true;
    rs[1].p.v[2] = -7;
    rs[2].c = Color.blue;
    rs[0].w = -170141183460469231731687303715884105728;
    rs[2].q = -1.5;
    bump(rs, 1);
    bump(rs[1..], 0);
    grid[1, 0].v[1] = 5;
    grid[0, 1] = rs[1].p;
    total = rs[1].p.x as I64 + grid[1, 0].v[1] as I64;
    "{rs[1]} {grid[0, 1]} {len(rs)}\\n";
    "{rs}\\n{grid}\\n";
    R r = rs[2];
    return total + r.b as I64 + (r.q * 2.0) as I64;
}""",
    "wide": """I128[3] w;
I256[2, 2] m;
I64 n = 0;
I256 peek(I64 i, I64 j) { return m[i, j]; }
export I64 run() {
    w[0] = 170141183460469231731687303715884105727;
    w[1] = -w[0] - 1;
    w[2] = w[0] / 3;
    m[1, 0] = (w[0] as I256) * 4;
    m[0, 1] = -1;
    "{w} {m} {peek(1, 0)} {sum(w)}\\n";
    for x in w { n += (x % 1000) as I64; }
    I128[3] c = w;
    c[0] = 0;
    return n + (w[0] % 7) as I64;
}""",
    "wide_overflow": """I128[2] w;
export I64 run() {
    w[0] = 170141183460469231731687303715884105727;
    w[1] = w[0] + 1;
    return 0;
}""",
    "struct_bounds": """struct P { I64 x; }
P[2] ps;
export I64 run() {
    ps[1].x = 5;
    I64 i = 2;
    return ps[i].x;
}""",
    "initialized": """struct P { I32 x; Bool on; }
P[2] ps;
Bool[2] bs = [true, false];
I128[2] w = [5, -170141183460469231731687303715884105728];
export I64 run() {
    "{ps} {w}\\n";
    ps[0].x += 1;
    return ps[0].x as I64 + ps[1].x as I64;
}""",
}


@pytest.mark.parametrize("name", sorted(GLOBALS))
def test_module_level_arrays_structs_wide(tmp_path, name):
    both(tmp_path, GLOBALS[name])


STATE_SRC = """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
struct In { Bool on; I16[2] v; }
struct R { I8 a; In in_; Color c; I128 w; Q8.8 q; U64 u; }
R[3] rs;
I256[2, 2] big;
I128[2] w = [5, -170141183460469231731687303715884105000];
U8 n = 1;
export I64 put(I64 i, I64 v) {
    rs[i].a = v as I8;
    rs[i].in_.on = v % 2 == 0;
    rs[i].in_.v[1] = (v * 3) as I16;
    rs[i].c = Color.blue;
    rs[i].w = (v as I128) * 170141183460469231731687303715884105 - 1;
    rs[i].q = 1.25;
    rs[i].u = 18446744073709551615;
    big[i % 2, 1] = (rs[i].w as I256) * (rs[i].w as I256);
    w[i % 2] = w[i % 2] + v as I128;
    n += 1;
    return v + n as I64;
}
"""


def test_module_level_struct_and_wide_arrays_in_the_canonical_state(tmp_path, monkeypatch):
    """cpu-c17's canonical state bytes (state.c: a record array's head in the globals, its records written
    field by field) equal cint_compiler.canonical.canonical_state of the interpreter after the same entries,
    and the runtime's restore of either round-trips.  The bytes are taken from the runtime's encoder and
    given to its restore directly (Python's checkpoint() and restore(), which decode struct payloads with
    the library's record layouts: packages/cint-python/tests/test_checkpoint_structs.py)."""
    import hashlib
    from cint_compiler.interp.canonical import canonical_state
    two = cpu_and_ref(tmp_path, monkeypatch, STATE_SRC, "gst")
    mod, ref, put, state, restore = two.mod, two.ref, two.fn, two.state, two.restore
    ctx = mod.context()
    assert state(ctx) == canonical_state(ref)
    for i, v in ((0, 5), (1, -3), (2, 9), (1, 4)):
        assert ctx.put(i, v) == ref.run_entry("func", put, [i, v]).value
        assert state(ctx) == canonical_state(ref)
    assert ctx.state_hash() == hashlib.sha256(canonical_state(ref)).digest()
    saved = state(ctx)
    ctx.put(0, 100)
    assert state(ctx) != canonical_state(ref)
    assert restore(ctx, saved) == 0
    assert state(ctx) == canonical_state(ref)
    # a state the interpreter reached restores into a fresh cpu-c17 context
    ref.run_entry("func", put, [2, 11])
    fresh = mod.context()
    assert restore(fresh, canonical_state(ref)) == 0
    assert state(fresh) == canonical_state(ref)
    assert fresh.put(0, 0) == ref.run_entry("func", put, [0, 0]).value
    assert state(fresh) == canonical_state(ref)
    # a Bool field byte other than 0 or 1 is refused, and the context keeps its state
    st = bytearray(canonical_state(ref))
    name = b"gst.rs"
    at = st.index(name) + len(name) + 2 + 4 + len(b"gst.R") + 1 + 8 + 1      # the first record's Bool field
    assert st[at] in (0, 1)
    st[at] = 2
    assert restore(fresh, st) != 0
    assert state(fresh) == canonical_state(ref)
