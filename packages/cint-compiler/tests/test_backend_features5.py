"""The executor cpu-c17 against the reference executor on two refusals left after test_backend_features4:
module-level struct variables (globals layout, reads, writes, field access, printing, the canonical state
and its restore) and nested array literals whose rows differ in length (E_SHAPE copy.shape at the row).

Each program runs on both executors through `compiler_testkit.both`; the texts (status, fault record with
position, stack and kernel address, fuel, stdout, result, module variables) must be equal and not a refusal,
and the reference executor must not give a compile error.
"""
import shutil

import pytest

from compiler_testkit import both, cpu_and_ref


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- module-level structs

STRUCTS = {
    "fields_and_print": """struct P { I32 x; Bool on; I16[2] v; }
P p;
I64 n = 0;
export I64 run() {
    "{p}\\n";
    p.x = 7;
    p.on = true;
    p.v[1] = -3;
    p.x += 5;
    n = p.x as I64 + p.v[1] as I64;
    "{p} {p.x} {p.v} {p.on}\\n";
    return n;
}""",
    "nested_and_whole": """enum Color : U8 { red = 0, green = 1, blue = 7 }
struct In { Bool on; I16[2, 2] m; }
struct R { I8 a; In in_; Color c; I128 w; Q8.8 q; U64 u; }
R r;
R s;
In solo;
export I64 run() {
    r.a = -5;
    r.in_.on = true;
    r.in_.m[1, 0] = 300;
    r.c = Color.blue;
    r.w = 170141183460469231731687303715884105727;
    r.q = -1.25;
    r.u = 18446744073709551615;
    s = r;
    s.in_.m[0, 1] = 2;
    solo = s.in_;
    r.a += 1;
    "{r}\\n{s}\\n{solo}\\n";
    return r.a as I64 + s.a as I64 + solo.m[0, 1] as I64;
}""",
    "arguments": """struct P { I64 x; I64[3] k; }
P g;
I64 read(P q) { return q.x + q.k[2]; }
void bump(inout P q, I64 d) { q.x += d; q.k[2] = q.x * 2; }
P make(I64 v) { return P(v, [v, v + 1, v + 2]); }
export I64 run() {
    bump(g, 4);
    I64 a = read(g);
    g = make(a);
    bump(g, 1);
    P local = g;
    local.x = 0;
    "{g} {local} {a}\\n";
    return read(g);
}""",
    "fault_in_field": """struct P { I8 x; U8 y; }
P g;
I64 step(I64 k) { g.x = g.x + k as I8; return g.x as I64; }
export I64 run() {
    I64 t = 0;
    for i in 0..100 { t += step(i); "{g.x} "; }
    return t;
}""",
    "loop_and_state": """struct Acc { I64 total; U16 count; Bool seen; }
Acc acc;
I64 calls = 0;
void add(I64 v) { acc.total += v; acc.count += 1; acc.seen = acc.seen || v < 0; calls += 1; }
export I64 run() {
    for i in 0..20 { add(i * i - 50); }
    "{acc}\\n";
    return acc.total * 10 + acc.count as I64;
}""",
    "with_struct_arrays": """struct P { I32 x; Bool b; }
P one;
P[3] many;
export I64 run() {
    one.x = 4;
    many[1] = one;
    many[2].b = true;
    one = many[2];
    "{one} {many}\\n";
    return many[1].x as I64 + (one.b as I64);
}""",
    "empty_struct": """struct E { }
struct H { E e; I64 k; }
E e;
H h;
export I64 run() {
    h.k = 3;
    E f = e;
    h.e = f;
    "{e} {h}\\n";
    return h.k;
}""",
}


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_module_level_structs(tmp_path, name):
    both(tmp_path, STRUCTS[name], name=name)


def test_module_level_struct_fuel_and_faults(tmp_path):
    src = STRUCTS["loop_and_state"]
    for fuel in (5, 40, 61):
        both(tmp_path, src, name="f%d" % fuel, fuel=fuel)
    text = both(tmp_path, STRUCTS["fault_in_field"], name="ff")
    assert "fault.code E_OVERFLOW" in text and "fault.stack-depth 1" in text


LIB = """export struct Pt { I32 x; I32 y; }
export Pt origin;
export I64 move(I64 d) { origin.x += d as I32; origin.y -= 1; return origin.x as I64; }
"""


def test_imported_module_struct(tmp_path):
    src = """import lib.geo;
geo.Pt mine;
export I64 run() {
    I64 a = geo.move(3);
    a += geo.move(4);
    mine = geo.origin;
    mine.y *= 10;
    "{geo.origin} {mine}\\n";
    return a + mine.y as I64;
}
"""
    both(tmp_path, src, files={"lib/geo.ci": LIB})


def test_bit_field_struct_globals_run(tmp_path):
    """A module variable of a struct with bit fields runs (its storage row of the record layout table gives
    state.c the C layout; test_backend_bitfield_records.py)."""
    src = """struct B { U8 a : 3; U8 c : 4; U16 w; }
B b;
export I64 run() { b.c = 9; return b.c as I64; }
"""
    text = both(tmp_path, src)
    assert "return I64 9" in text


# ----------------------------------------------------------------------------- canonical state

STATE_SRC = """enum Color : U8 { red = 0, green = 1, blue = 7 }
struct In { Bool on; I16[2, 2] v; }
struct R { I8 a; In in_; Color c; I128 w; Q8.8 q; U64 u; }
struct E { }
R r;
In solo;
E e;
R[2] rs;
U8 n = 1;
export I64 put(I64 i, I64 v) {
    r.a = v as I8;
    r.in_.on = v % 2 == 0;
    r.in_.v[1, i % 2] = (v * 3) as I16;
    r.c = Color.blue;
    r.w = (v as I128) * 170141183460469231731687303715884105 - 1;
    r.q = 1.25;
    r.u = 18446744073709551615;
    solo = r.in_;
    solo.v[0, 0] += 1;
    rs[i % 2] = r;
    n += 1;
    return v + n as I64 + solo.v[0, 0] as I64;
}
"""


def test_module_level_structs_in_the_canonical_state(tmp_path, monkeypatch):
    """cpu-c17's canonical state bytes (state.c: a record's head in the globals, its fields written in
    declaration order) equal cint_compiler.canonical.canonical_state of the interpreter after the same
    entries; the runtime's restore of either round-trips, and a malformed one is refused with the state
    kept."""
    import hashlib
    from cint_compiler.interp.canonical import canonical_state
    two = cpu_and_ref(tmp_path, monkeypatch, STATE_SRC, "sg")
    mod, ref, put, state, restore = two.mod, two.ref, two.fn, two.state, two.restore
    ctx = mod.context()
    assert state(ctx) == canonical_state(ref)
    for i, v in ((0, 5), (1, -3), (2, 9), (1, 4)):
        assert ctx.put(i, v) == ref.run_entry("func", put, [i, v]).value
        assert state(ctx) == canonical_state(ref)
    assert ctx.state_hash() == hashlib.sha256(canonical_state(ref)).digest()
    saved = state(ctx)
    # the scalar struct is a tagged struct value: 0x71, the qualified name, then the fields
    name = b"sg.r"
    at = saved.index(name + bytes([0x71]))
    assert saved[at + len(name) + 1:at + len(name) + 5 + len(b"sg.R")] == (4).to_bytes(4, "little") + b"sg.R"
    assert saved[at + len(name) + 5 + 4] == 4           # r.a after the head
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
    at = st.index(b"sg.r" + bytes([0x71])) + len(b"sg.r") + 5 + len(b"sg.R") + 1     # r.in_.on
    assert st[at] in (0, 1)
    st[at] = 2
    assert restore(fresh, st) != 0
    assert state(fresh) == canonical_state(ref)
    # so is another struct name in the head, and a truncated payload
    st = bytearray(canonical_state(ref))
    k = st.index(b"sg.R")
    st[k + 3] = ord("Q")
    assert restore(fresh, st) != 0
    ok = canonical_state(ref)
    k = ok.index(b"sg.solo")
    assert restore(fresh, ok[:k + 20]) != 0
    assert state(fresh) == canonical_state(ref)


# ----------------------------------------------------------------------------- nested literals with ragged rows

RAGGED = {
    "rank2": """I32 say(I32 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 n = 2;
    I32[2, n] m = [[say(1), say(2)], [say(3)]];
    "{m}\\n";
    return 0;
}""",
    "longer_row": """I32 say(I32 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 n = 1;
    I32[3, n] m = [[say(1)], [say(2)], [say(3), say(4), say(5)]];
    return 0;
}""",
    "rank3_inner_extent": """I32 say(I32 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 n = 2;
    I32[2, 1, n] m = [[[say(1), say(2)]], [[say(3)]]];
    "{m}\\n";
    return 0;
}""",
    "rank3_inner_literal_first": """I32 say(I32 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 n = 2;
    I32[2, 2, n] m = [[[say(1), say(2)], [say(3)]], [[say(4), say(5)], [say(6), say(7)]]];
    return 0;
}""",
    "rank3_rows_of_rows": """I32 say(I32 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 n = 1;
    I64 k = 2;
    I32[2, n, k] m = [[[say(1), say(2)]], [[say(3), say(4)], [say(5), say(6)]]];
    return 0;
}""",
    "in_callee_with_stack": """I64 f[n](in I64[n] a) {
    I64[2, n] m = [[a[0], a[1]], [a[0]]];
    return m[1, 0];
}
I64 g(I64 k) { I64[2] a = [k, k + 1]; "g {k}\\n"; return f(a); }
export I64 run() { return g(3) + g(4); }""",
    "struct_elements": """struct P { I32 x; Bool b; }
P mk(I32 v) { "mk {v}\\n"; return P(v, v > 0); }
export I64 run() {
    I64 n = 2;
    P[2, n] ps = [[mk(1), mk(-2)], [mk(3)]];
    return 0;
}""",
    "element_fault_first": """I8 say(I8 x) { "say {x}\\n"; return x; }
export I64 run() {
    I64 n = 2;
    I8 big = 120;
    I8[2, n] m = [[say(1), big + say(10)], [say(3)]];
    return 0;
}""",
    "uniform_rows_run": """export I64 run() {
    I64 n = 3;
    I16[2, n] m = [[1, 2, 3], [4, 5, 6]];
    I16[2, 2, n] c = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]];
    "{m} {c}\\n";
    return m[1, 2] as I64 + c[1, 1, 0] as I64;
}""",
}


@pytest.mark.parametrize("name", sorted(RAGGED))
def test_ragged_nested_literals(tmp_path, name):
    text = both(tmp_path, RAGGED[name], name=name)
    if name not in ("element_fault_first", "uniform_rows_run"):
        assert "fault.code E_SHAPE" in text and "fault.operation copy.shape" in text


def test_ragged_literal_fuel_and_record(tmp_path):
    text = both(tmp_path, RAGGED["rank2"], name="r2")
    assert ("fault.operand I64 1\nfault.operand I64 1\nfault.exact none\nfault.limit I64 2\n"
            "fault.position r2.ci:4:38") in text
    text = both(tmp_path, RAGGED["in_callee_with_stack"], name="cs")
    assert "fault.position cs.ci:2:34" in text and "fault.stack-depth 2" in text
    for fuel in (1, 3, 4):
        both(tmp_path, RAGGED["rank3_inner_literal_first"], name="fu%d" % fuel, fuel=fuel)


def test_module_level_arrays_of_bit_field_structs_run(tmp_path):
    """Module-level arrays of a bit-field struct run on cpu-c17 (storage rows; test_backend_bitfield_records.py)."""
    both(tmp_path, "struct B { U8 a : 3; U8 c : 4; U16 w; }\nB[2] bs;\nexport I64 run() { bs[0].a = 2; return 0; }\n")
