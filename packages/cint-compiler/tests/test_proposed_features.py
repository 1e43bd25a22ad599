"""Proposed constructs of SPEC-04P.1 on both executors (docs/language.md decisions 27 to 30):
`var` declarations (LS-105) and `var (a, b) = ...` (LS-98), struct field defaults (LS-77),
`type X = distinct T;` (LS-103), `wrap_bits` (LS-83) and sub-word access (LS-85, LS-86)."""
import pytest

from compiler_testkit import both, compile_error, run, value, where


def out(o):
    return o.stdout.decode()


# ------------------------------------------------------------------ var (LS-105)

VAR_PROG = """struct P { I64 x; I32 y; }
(I64, U8) two(I64 a) { return (a * 2, 7); }
I64 sq[n](in I64[n] xs) { var c = xs; c[0] = 9; return c[0] + xs[0] + n; }
var total = 3;
I64 run() {
    var a = 7;
    var b = a * 2;
    I8 s = 3;
    var t = s + 1;
    var q = 3 as Q16.16;
    var p = P(1, 2);
    var st = "hi";
    I64[3] arr0 = [1, 2, 3];
    var arr = arr0;
    arr[0] = 100;
    var sl = arr0[1..3];
    sl[0] = 50;
    var (m, n) = two(5);
    var (_, k) = two(1);
    var w = k +% 250;
    var big = 9_000_000_000;
    var f = true;
    total += 1;
    "{a} {b} {t} {q} {p.y} {st} {arr[0]} {arr0[0]} {arr0[1]} {sl[0]} {m} {n} {k} {w} {big} {f} {total}\\n";
    return sq(arr0) + b;
}
"""


def test_var_types_and_values(tmp_path):
    o = run(VAR_PROG)
    assert o.kind == "value" and o.value == 27
    assert out(o) == "7 14 4 3.0 2 hi 100 1 2 50 10 7 7 1 9000000000 true 4\n"
    text = both(tmp_path, VAR_PROG)
    assert "return I64 27" in text and "state.global p total I64 4" in text


def test_var_takes_the_initializer_type(tmp_path):
    # I8 + literal is I8: the wrap happens in I8; a literal-only initializer is I64
    src = """I64 run() { I8 s = 100; var t = s +% 100; var u = 100 +% 100; return (t as I64) + u; }"""
    assert value(src) == -56 + 200
    both(tmp_path, src)
    # the variable's type is the initializer's: an I64 does not initialize a U8
    err = compile_error("I64 run() { var x = 300; U8 y = x; return 0; }")
    assert err.code == "C2001" and where(err) == (1, 33)


def test_var_overflow_fault_same_on_both(tmp_path):
    src = """I64 run() { I16 a = 30000; var b = a + a; return b as I64; }"""
    text = both(tmp_path, src)
    assert "fault.operation add.checked.i16" in text


def test_var_script_level(tmp_path):
    src = """var n = 4;
var m = n * n;
"{m}\\n";
"""
    text = both(tmp_path, src, entry=None)
    assert "outcome value" in text or "outcome" in text


@pytest.mark.parametrize("src, code, pos", [
    ("I64 run() { var x; return 0; }", "C2050", (1, 17)),
    ("I64 run() { var e = .a; return 0; }", "C2007", (1, 21)),
    ("void f() { }\nI64 run() { var v = f(); return 0; }", "C2001", (2, 21)),
    ("(I64, I64) two() { return (1, 2); }\nI64 run() { var v = two(); return 0; }", "C2041", (2, 21)),
    ("error E { bad }\nE!I64 g() { return 1; }\nI64 run() { var v = g(); return 0; }", "C2040", (3, 21)),
    ("I64 run() { var x = 1.5; return 0; }", "C2004", (1, 21)),
    ("I64 run() { var x = 1; var x = 2; return 0; }", "C3001", (1, 28)),
    ("I64 run() { var a = [1, 2]; return 0; }", "C2010", (1, 21)),
    ("I64 run() { var (a, b) = 5; return 0; }", "C2001", (1, 26)),
    ("(I64, I64) two() { return (1, 2); }\nI64 run() { var (a, b, c) = two(); return 0; }", "C2001", (2, 29)),
    ("I64 g = 1;\nvar h = g + 1;\nI64 run() { return h; }", "C6004", (2, 9)),
])
def test_var_diagnostics(src, code, pos):
    err = compile_error(src)
    assert err.code == code and where(err) == pos, (err.code, where(err), str(err))


def test_var_array_with_run_time_extent_is_refused():
    err = compile_error("I64 run() { I64 k = 2; I64[4] a; var v = a[0..k]; return v[0]; }")
    assert err.code == "C9102" and where(err) == (1, 38)


def test_var_destructuring_types(tmp_path):
    src = """(I8, Bool) pair(I8 a) { return (a, a > 0); }
I64 run() {
    var (x, ok) = pair(100);
    var y = x + 27;          // I8: 127 fits
    return ok ? y as I64 : 0;
}
I64 bad() { var (x, ok) = pair(100); var y = x + 28; return y as I64; }
"""
    assert value(src) == 127
    both(tmp_path, src)
    text = both(tmp_path, src, name="q", entry="bad")
    assert "fault.operation add.checked.i8" in text


# ------------------------------------------------------------------ struct field defaults (LS-77)

DEFAULTS = """const I64 BASE = 40;
enum Mode : U8 { idle = 0, run = 1 }
struct Body {
    I64 id;
    I32[3] pos = [1, 2, 3];
    U16 flags = 7;
    I64 w = BASE + 2;
    Mode m = .run;
    I16 trim : 5 = -3;
}
I64 run() {
    Body a = Body(5);
    Body b = Body(id = 6, flags = 9);
    Body c = Body(1, [4, 5, 6], 0, 1, .idle, 2);
    Body z;
    a.pos[0] = 100;
    Body d = Body(8);
    "{a.id} {a.pos[0]} {a.flags} {a.w} {a.trim} {b.flags} {b.pos[2]} {c.pos[1]} {c.trim} {z.flags} {z.w} {d.pos[0]}\\n";
    return a.w + (b.m as I64) + (c.m as I64);
}
"""


def test_field_defaults(tmp_path):
    o = run(DEFAULTS)
    assert o.kind == "value" and o.value == 43
    # omitted fields take their defaults; `Body z;` still zero-fills (defaults do not apply)
    assert out(o) == "5 100 7 42 -3 9 3 5 2 0 0 1\n"
    both(tmp_path, DEFAULTS)


def test_field_defaults_after_written_arguments(tmp_path):
    # the written arguments are evaluated in the order written; defaults evaluate nothing
    src = """struct S { I64 a; I64 b = 5; I64 c; }
I64 g = 0;
I64 bump(I64 k) { g = g * 10 + k; return k; }
I64 run() { S s = S(c = bump(1), a = bump(2)); return s.a * 100 + s.b * 10 + s.c + g * 1000; }
"""
    assert value(src) == 12 * 1000 + 251
    both(tmp_path, src)


def test_field_default_bit_field_store_checks_still_apply(tmp_path):
    src = """struct St { U16 mode : 3 = 1; I16 trim : 12 = 0; }
I64 run() { St s = St(trim = 2000); return s.mode as I64; }
I64 bad() { St s = St(trim = 3000); return 0; }
"""
    assert value(src) == 1
    text = both(tmp_path, src, name="b", entry="bad")
    assert "fault.code E_NARROW" in text


@pytest.mark.parametrize("src, code, pos", [
    ("struct S { I16 t : 4 = 9; }", "C2003", (1, 24)),
    ("struct In { I64 a; }\nstruct S { In i = In(1); }", "C6004", (2, 19)),
    ("struct S { I64 a = 1.5; }", "C2004", (1, 20)),
    ("struct S { U8 a = 300; }", "C2003", (1, 19)),
    ("struct S { I64 a; I64 b = 2; }\nI64 run() { S s = S(b = 3); return s.b; }", "C2020", (2, 19)),
    ("struct S { I64[2] a = [1, 2, 3]; }", "C2011", (1, 23)),
])
def test_field_default_diagnostics(src, code, pos):
    err = compile_error(src)
    assert err.code == code and where(err) == pos, (err.code, where(err), str(err))


# ------------------------------------------------------------------ distinct types (LS-103)

DISTINCT = """type Meters = distinct I64;
type Small = distinct U8;
Meters add(Meters a, Meters b) { return a + b; }
Meters g = 10;
I64 run() {
    Meters a = 5;
    Meters b = a * 3 + 1;
    Meters c = add(a, b);
    I64 raw = c as I64;
    Meters back = (raw + 1) as Meters;
    Small s = 200;
    Small t = s +% 100;
    Meters[3] arr = [1, 2, 3];
    arr[1] = back;
    Bool lt = a < b;
    var v = a;
    g += v;
    "{a} {b} {c} {back} {t} {arr[1]} {lt} {abs(a - b)} {min(a, b)}\\n";
    return raw + (t as I64) + (g as I64);
}
I64 ovf() { Small s = 200; Small t = s + 100; return t as I64; }
Meters e(Meters x) { return x * 2; }
"""


def test_distinct_arithmetic(tmp_path):
    o = run(DISTINCT)
    assert o.kind == "value" and o.value == 80
    assert out(o) == "5 16 21 22 44 22 true 11 5\n"
    text = both(tmp_path, DISTINCT)
    assert "state.global p g I64 15" in text     # run-time texts name the representation


def test_distinct_faults_and_host_arguments(tmp_path):
    text = both(tmp_path, DISTINCT, name="o", entry="ovf")
    assert "fault.operation add.checked.u8" in text and "fault.operand U8 200" in text
    text = both(tmp_path, DISTINCT, name="h", entry="e", args=["I64 21"])
    assert "return I64 42" in text


@pytest.mark.parametrize("src, code, pos", [
    ("type M = distinct I64;\nI64 run() { M a = 1; I64 b = 2; return (a + b) as I64; }", "C2001", (2, 45)),
    ("type M = distinct I64;\nI64 f(I64 x) { return x; }\nI64 run() { M a = 1; return f(a); }", "C2001", (3, 31)),
    ("type M = distinct I64;\nI64 run() { I64 b = 2; M a = b; return 0; }", "C2001", (2, 30)),
    ("type M = distinct I64;\ntype N = distinct I64;\nI64 run() { M a = 1; N b = 1; return (a == b) ? 1 : 0; }",
     "C2001", (3, 44)),
    ("type M = distinct I64;\nI64 run() { M a = 1; I64[4] xs; return xs[a]; }", "C2001", (2, 43)),
    ("type M = distinct U8;\nI64 run() { M a = 300; return 0; }", "C2003", (2, 19)),
    ("struct S { I64 x; }\ntype M = distinct S;", "C9102", (2, 19)),
    ("type M = distinct Q16.16;", "C9102", (1, 19)),
])
def test_distinct_diagnostics(src, code, pos):
    err = compile_error(src)
    assert err.code == code and where(err) == pos, (err.code, where(err), str(err))


def test_alias_of_distinct_is_the_same_type(tmp_path):
    src = """type M = distinct I32;
type A = M;
I64 run() { A a = 1; M b = a; switch (b) { case 0 ..= 2: return 1; default: return 2; } }
"""
    assert value(src) == 1
    both(tmp_path, src)


def test_imported_struct_defaults_and_distinct_type(tmp_path):
    lib = """const I64 K = 3;
export struct Cfg { I64 a; I64 k = K * 2; I8[2] v = [1, 2]; }
export type Ticks = distinct I32;
export Ticks twice(Ticks t) { return t * 2; }
"""
    src = """import lib.cfg;
I64 run() {
    cfg.Cfg c = cfg.Cfg(a = 1);
    cfg.Ticks t = 20;
    var u = cfg.twice(t) + 1;
    return c.a + c.k + (c.v[1] as I64) + (u as I64);
}
"""
    text = both(tmp_path, src, files={"lib/cfg.ci": lib})
    assert "return I64 50" in text


# ------------------------------------------------------------------ wrap_bits (LS-83)

WRAP = """struct St { U16 mode : 3; I16 trim : 12; }
I64 run() {
    St s;
    I64 v = 3000;
    s.trim = wrap_bits(3000, 12);
    I8 b = 127;
    I32 n = -5000;
    "{wrap_bits(v, 12)} {s.trim} {wrap_bits(b, 4)} {wrap_bits(n, 8)} {wrap_bits(n, 32)} {wrap_bits(v, 1)} {wrap_bits(-1, 64)}\\n";
    return wrap_bits(v, 12) + wrap_bits(-2049, 12);
}
const I64 K = wrap_bits(4095, 12);
I64 kconst() { return K; }
"""


def test_wrap_bits(tmp_path):
    o = run(WRAP)
    assert o.kind == "value" and o.value == 951
    assert out(o) == "-1096 -1096 -1 120 -5000 0 -1\n"
    both(tmp_path, WRAP)
    assert value(WRAP, entry="kconst") == -1


def test_wrap_bits_in_a_kernel(tmp_path):
    src = """kernel k[n](in I32[n] a, out I32[n] o) over [i: n] { o[i] = wrap_bits(a[i], 4) + a[i] * 1000; }
I64 run() {
    I32[3] a = [7, 8, 3000000];
    I32[3] o;
    k(a, o);
    return o[0] as I64;
}
"""
    text = both(tmp_path, src)
    assert "fault.code E_OVERFLOW" in text       # the third work-item; the step ordinal counts wrap_bits


@pytest.mark.parametrize("src, code, pos", [
    ("I64 run() { U32 v = 1; return wrap_bits(v, 4) as I64; }", "C2103", (1, 31)),
    ("I64 run() { I8 v = 1; return wrap_bits(v, 9) as I64; }", "C2003", (1, 43)),
    ("I64 run() { I8 v = 1; return wrap_bits(v, 0) as I64; }", "C2003", (1, 43)),
    ("I64 run() { I64 v = 1; I64 w = 3; return wrap_bits(v, w); }", "C6004", (1, 55)),
    ("I64 run() { I64 v = 1; return wrap_bits(v); }", "C2022", (1, 31)),
    ("I64 run() { I128 v = 1; return wrap_bits(v, 3) as I64; }", "C9102", (1, 32)),
    ("I64 run() { Bool v = true; return wrap_bits(v, 3) as I64; }", "C2103", (1, 35)),
])
def test_wrap_bits_diagnostics(src, code, pos):
    err = compile_error(src)
    assert err.code == code and where(err) == pos, (err.code, where(err), str(err))


# ------------------------------------------------------------------ sub-word access (LS-85, LS-86)

SUBWORD = """struct S { I32 v; U8[2] byte; }
const U32 C = 0x1234;
const U8 B = C.byte[1];
I64 run() {
    U32 w = 0x1234_5678;
    "{w.byte[0]:#x} {w.bits[28..32]:#x}\\n";
    w.lanes(U16)[1] = 0xBEEF;
    "{w:#x}\\n";
    I16 n = -2;
    "{n.byte[0]} {n.byte[1]} {n.bits[0..16]} {n.bits[1..=3]} {n.lanes(U8)[1]}\\n";
    n.byte[1] = 0x7F;
    "{n}\\n";
    n.byte[1] = 0x80;
    "{n}\\n";
    I64 m = 0;
    m.lanes(U32)[1] = 0x8000_0000;
    "{m} {m.bits[63..64]} {m.lanes(U64)[0]}\\n";
    S s = S(-1, [1, 2]);
    s.v.byte[3] = 0;
    s.byte[0] = 9;
    I32[2] arr = [5, 6];
    arr[1].byte[0] = 255;
    "{s.v} {s.byte[0]} {arr[1]} {arr[1].byte[0]} {B}\\n";
    return (w.byte[3] as I64) + (n.byte[0] as I64);
}
"""


def test_subword_reads_and_writes(tmp_path):
    o = run(SUBWORD)
    assert o.kind == "value" and o.value == 444
    # the LS-86 example: 0x78 0x1, then 0xbeef5678
    assert out(o) == ("0x78 0x1\n0xbeef5678\n254 255 65534 7 255\n32766\n-32514\n"
                      "-9223372036854775808 1 9223372036854775808\n16777215 9 255 255 18\n")
    both(tmp_path, SUBWORD)


def test_subword_of_distinct_and_index_fault_order(tmp_path):
    src = """type M = distinct I32;
I64 run() {
    M x = -1;
    x.byte[3] = 0x7F;
    I32[2] a;
    I64 i = 2;
    a[i].byte[0] = 1;        // the element's index check faults; nothing is stored
    return x as I64;
}
"""
    text = both(tmp_path, src)
    assert "fault.code E_BOUNDS" in text and "fault.position p.ci:7:6" in text


@pytest.mark.parametrize("src, code, pos", [
    ("I64 run() { U32 w = 1; I64 k = 1; return w.byte[k] as I64; }", "C9102", (1, 49)),
    ("I64 run() { U32 w = 1; return w.byte[4] as I64; }", "C9102", (1, 38)),
    ("I64 run() { U32 w = 1; return w.bits[0..33] as I64; }", "C9102", (1, 31)),
    ("I64 run() { U32 w = 1; return w.bits[3..3] as I64; }", "C9102", (1, 31)),
    ("I64 run() { U32 w = 1; w.bits[0..4] = 3; return 0; }", "C9102", (1, 24)),
    ("I64 run() { U32 w = 1; w.byte[0] += 3; return 0; }", "C9102", (1, 24)),
    ("I64 run() { U32 w = 1; w.byte[0]++; return 0; }", "C9102", (1, 24)),
    ("I64 run() { U32 w = 1; w.byte[0] = 300; return 0; }", "C2003", (1, 36)),
    ("I64 run() { U32 w = 1; U16 h = 3; w.byte[0] = h; return 0; }", "C2001", (1, 47)),
    ("I64 run() { U32 w = 1; return w.lanes(U64)[0] as I64; }", "C2103", (1, 39)),
    ("I64 run() { U32 w = 1; return w.lanes(I16)[0] as I64; }", "C9102", (1, 39)),
    ("I64 run() { I128 w = 1; return w.byte[0] as I64; }", "C9102", (1, 32)),
    ("I64 run() { Bool b = true; return b.byte[0] as I64; }", "C3005", (1, 37)),
    ("I64 f(in U32 w) { w.byte[0] = 1; return 0; }", "C2060", (1, 19)),
    ("struct St { I16 trim : 12; }\nI64 run() { St s; s.trim.byte[0] = 1; return 0; }", "C9102", (2, 19)),
])
def test_subword_diagnostics(src, code, pos):
    err = compile_error(src)
    assert err.code == code and where(err) == pos, (err.code, where(err), str(err))


def test_var_in_kernels_and_loops(tmp_path):
    src = """I32 twice(I32 x) { var y = x * 2; return y; }
kernel k[n](in I32[n] a, out I32[n] o) over [i: n] { var t = twice(a[i]); o[i] = t + 1; }
I64 run() {
    I32[3] a = [1, 2, 3];
    I32[3] o;
    k(a, o);
    var s = 0;
    for (I64 i = 0; i < 3; i++) { var e = o[i] as I64; s += e; }
    return s;
}
"""
    text = both(tmp_path, src)
    assert "return I64 15" in text
