"""Issue 6, the second list of language gaps: bit fields, `@packed`, `T.bytes` and `offset` (LS-73 to LS-83),
`where` clauses on functions (LS-118), `for x in a` inside kernels and the functions they call, default
arguments of array parameters (LS-124, LS-125).

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
position, stack and kernel address with step ordinal, fuel, stdout, result, module variables) must be equal,
the reference must not give a compile error and cpu-c17 must not refuse. The checker tests pin the code and
the position of each new diagnostic.
"""
import shutil

import pytest


from compiler_testkit import both, compile_error, run, where

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- 1. bit fields

STATUS = """struct Status {
    U16  mode  : 3;
    Bool armed : 1;
    I16  trim  : 12;
}
static_assert(Status.bytes == 6);
"""

BITS = {
    # LS-81, LS-82: reads give the declared type, sign-extended; stores that fit
    "status_roundtrip": STATUS + """export I64 run() {
    Status s = Status(5, true, -2048);
    "{s.mode} {s.armed} {s.trim}\\n";
    s.mode = 7;
    s.trim = 2047;
    s.armed = false;
    s.mode -= 2;
    s.trim--;
    "{s.mode} {s.armed} {s.trim}\\n";
    return (s.mode as I64) + (s.trim as I64);
}""",
    # LS-83: masking an unsigned field
    "mask_unsigned": STATUS + """export I64 run() {
    Status s = Status(mode = 0, armed = false, trim = 0);
    I64 t = 0;
    for v in 0..20 {
        s.mode = (v as U16) & 0b111;
        t += s.mode as I64;
    }
    return t;
}""",
    # LS-83: `3000 & 0xFFF` is 3000, which does not fit a 12-bit signed field
    "signed_store_faults": STATUS + """export I64 run() {
    Status s = Status(1, true, 0);
    I16 v = 3000;
    s.trim = v & 0xFFF;
    return 0;
}""",
    "signed_store_below": STATUS + """export I64 run() {
    Status s = Status(1, true, 0);
    s.trim = -2048;
    s.trim -= 1;
    return 0;
}""",
    "unsigned_increment_faults": STATUS + """export I64 run() {
    Status s = Status(6, true, 0);
    s.mode++;
    "{s.mode}\\n";
    s.mode++;
    return 1;
}""",
    # the constructor checks the bit fields in declaration order at its callee name, after every argument
    "constructor_faults": STATUS + """I16 f(I16 x) {
    "f {x}\\n";
    return x;
}
export I64 run() {
    Status s = Status(trim = f(5000), mode = 9, armed = true);
    return 0;
}""",
    "destructure_store": STATUS + """(U16, I16) two(I64 k) {
    return (k as U16, (0 - k) as I16);
}
export I64 run() {
    Status s = Status(0, false, 0);
    (s.mode, s.trim) = two(3);
    "{s.mode} {s.trim}\\n";
    (s.mode, s.trim) = two(8);
    return 0;
}""",
    # bit fields inside structs inside arrays and nested structs; whole-struct copies keep the values
    "nested_and_arrays": STATUS + """struct Outer { I64 id; Status st; U8 tag : 4; U8 more : 4; }
export I64 run() {
    Outer[3] os;
    for i in 0..3 {
        os[i].st.trim = (i * 100 - 150) as I16;
        os[i].tag = i as U8;
        os[i].more = 15;
    }
    Outer o = os[2];
    o.st.mode = 4;
    "{o.st.trim} {o.tag} {o.more} {os[2].st.mode} {o.st.mode} {Outer.bytes} {offset(Outer, more)}\\n";
    os[1].more += 1;
    return 0;
}""",
    # a bit-field store counts one step in a work-item (the E_NARROW address carries it)
    "kernel_private_struct": """struct S { U8 a : 3; I32 b : 5; U8 c : 5; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    S s = S(1, -3, 2);
    s.a = (a[i] as U8) & 7;
    s.b = a[i] as I32;
    s.b += 1;
    b[i] = (s.a as I64) + (s.b as I64) + (s.c as I64);
}
export I64 run() {
    I64[4] a = [1, 2, 14, -7];
    I64[4] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]} {b[3]}\\n";
    a[3] = 15;
    k(a, b);
    return b[3];
}""",
    "kernel_helper_struct": """struct S { I8 lo : 4; I8 hi : 4; }
I64 pack(I64 x) {
    S s = S(0, 0);
    s.lo = (x % 8) as I8;
    s.hi = (x / 8) as I8;
    return (s.hi as I64) * 16 + (s.lo as I64);
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = pack(a[i]);
}
export I64 run() {
    I64[3] a = [5, 60, 64];
    I64[3] b;
    k(a, b);
    return b[0];
}""",
    # LS-73 to LS-76 and @packed (LS-75): compile-time sizes and offsets
    "layout": """struct Body {
    I64    id;
    Q32.32 mass;
    I32[3] pos_mm;
    U16    flags;
}
static_assert(Body.bytes == 32);
static_assert(offset(Body, pos_mm) == 16);
static_assert(offset(Body, flags) == 28);
@packed struct P { U8 a; I32 b; U16 c : 4; U16 d : 12; U16 e : 1; Bool f : 1; Bool g : 1; }
static_assert(P.bytes == 10);
struct Q { U8 a; I32 b; U16 c : 4; U16 d : 13; }
struct W { U8 a; I128 w; Bool b; }
export I64 run() {
    "{P.bytes} {offset(P, b)} {offset(P, d)} {offset(P, e)} {offset(P, g)}\\n";
    "{Q.bytes} {offset(Q, c)} {offset(Q, d)} {W.bytes} {offset(W, w)} {offset(W, b)}\\n";
    I64 offset = 3;
    return offset + Body.bytes;
}""",
}


@needs_cc
@pytest.mark.parametrize("name", sorted(BITS))
def test_bit_fields(tmp_path, name):
    out = both(tmp_path, BITS[name], name=name)
    if "faults" in name:
        assert "fault.code E_NARROW" in out and "fault.operation bitfield.checked" in out


def test_bit_field_fault_records(tmp_path):
    out = both(tmp_path, BITS["signed_store_faults"], name="s")
    assert "fault.operation bitfield.checked.i16" in out
    assert "fault.operand I16 3000" in out and "fault.exact 3000" in out and "fault.limit I16 2047" in out
    out = both(tmp_path, BITS["signed_store_below"], name="b")
    assert "fault.limit I16 -2048" in out and "fault.exact -2049" in out
    out = both(tmp_path, BITS["constructor_faults"], name="c")
    assert "fault.operation bitfield.checked.u16" in out and "fault.limit U16 7" in out and "stdout-bytes 7" in out


def test_bit_field_layout_values(tmp_path):
    both(tmp_path, BITS["layout"], name="layout")
    # packed: U8, I32 at 1, one U16 unit at 5, a second at 7, one Bool unit at 9 for two fields; 4 + 13 bits
    # cross the end of a U16 unit; I128 aligns to 8
    assert run(BITS["layout"]).stdout == b"10 1 5 7 9\n12 8 10 32 8 24\n"


def test_bit_field_diagnostics():
    e = compile_error("struct S { U8 a : 9; }\n")
    assert e.code == "C2003" and where(e) == (1, 19)
    e = compile_error("struct S { U8 a : 0; }\n")
    assert e.code == "C2003" and where(e) == (1, 19)
    e = compile_error("struct S { Bool a : 2; }\n")
    assert e.code == "C2003" and where(e) == (1, 21)
    e = compile_error("struct S { I64[2] a : 2; }\n")
    assert e.code == "C2001" and where(e) == (1, 12)
    # a width may name a constant (test_language_gaps3.py); an undefined name is C3005
    e = compile_error("struct S { U8 a : W; }\n")
    assert e.code == "C3005" and where(e) == (1, 19)
    assert run("struct S { U8 a : 1 + 2; }\nI64 run() { S s = S(7); return s.a as I64; }\n").value == 7
    e = compile_error("enum E : U8 { a, b }\nstruct S { E a : 2; }\n")
    assert e.code == "C9102" and where(e) == (2, 18)
    e = compile_error("struct S { I128 a : 100; }\n")
    assert e.code == "C9102"
    e = compile_error("struct S { I64 a; }\nI64 f() { return offset(S, b); }\n")
    assert e.code == "C3005"
    e = compile_error("@align(4) struct S { I64 a; }\n")
    assert e.code == "C9102"


# ----------------------------------------------------------------------------- 2. `where` on functions

WHERE = {
    "mean_and_pick": """I64 mean[n](in I64[n] a) where n >= 1 {
    return sum(a) / n;
}
I64 pick[n, m](in I64[n] a, in I64[m] b) where (n == m || m == 0) && !(n > 100) {
    return a[0] + n + m;
}
export I64 run() {
    I64[3] a = [1, 2, 6];
    I64[0] z;
    "{mean(a)} {pick(a, a[0..3])} {pick(a, z)}\\n";
    "{pick(a, a[0..2])}\\n";
    return 0;
}""",
    "empty_faults": """I64 mean[n](in I64[n] a) where n >= 1 {
    return sum(a) / n;
}
I64 outer[n](in I64[n] a) {
    return mean(a[1..]);
}
export I64 run() {
    I64[1] a = [5];
    return outer(a);
}""",
    # bind.shape first, then where, then bind.alias
    "shape_before_where": """void f[n](in I64[n] a, in I64[n] b) where n > 5 {
}
export I64 run() {
    I64[3] a;
    I64[4] b;
    I64 k = 2;
    f(a, b[0..k]);
    return 0;
}""",
    "where_before_alias": """void f[n](inout I64[n] a, in I64[n] b) where n > 5 {
}
export I64 run() {
    I64[8] a;
    I64 k = 3;
    f(a[0..k], a[1..k + 1]);
    return 0;
}""",
    # inside a work-item: the call's ordinal
    "in_kernel": """const I64 LIMIT = 3;
I64 head[m](in I64[m] xs) where m >= LIMIT - 1 {
    return xs[0] * 2;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = head(a[i..]);
}
export I64 run() {
    I64[4] a = [1, 2, 3, 4];
    I64[4] b;
    k(a, b);
    return b[0];
}""",
}


@needs_cc
@pytest.mark.parametrize("name", sorted(WHERE))
def test_where_clauses(tmp_path, name):
    out = both(tmp_path, WHERE[name], name=name)
    if name != "shape_before_where":
        assert "fault.operation bind.where" in out
    else:
        assert "fault.operation bind.shape" in out


def test_where_records(tmp_path):
    out = both(tmp_path, WHERE["mean_and_pick"], name="m")
    # constraint 0, `(n == m || m == 0)`, is no single comparison: its index is the one operand (decision 18)
    assert "fault.operand I64 0\nfault.exact none\n" in out and "fault.position m.ci:11:7" in out
    out = both(tmp_path, WHERE["empty_faults"], name="e")
    # `n >= 1` with n = 0: the index, then the two compared values
    assert "fault.operand I64 0\nfault.operand I64 0\nfault.operand I64 1\nfault.exact none\n" in out
    assert "fault.stack-depth 1" in out
    out = both(tmp_path, WHERE["in_kernel"], name="k")
    assert "fault.address 0 3 " in out
    assert run(WHERE["mean_and_pick"]).stdout == b"3 7 4\n"


def test_where_diagnostics():
    e = compile_error("I64 f[n](in I64[n] a) where n {\n    return 0;\n}\n")
    assert e.code == "C2002" and where(e) == (1, 29)
    e = compile_error("I64 f[n](in I64[n] a) where n * 2 > 3 {\n    return 0;\n}\n")
    assert e.code == "C9102" and where(e) == (1, 31)
    e = compile_error("I64 f(I64 x) where x > 0 {\n    return 0;\n}\n")
    assert e.code == "C2001" and where(e) == (1, 22)
    e = compile_error("I64 f[n](in I64[n] a) where n > 1 && 1 / 0 == 1 {\n    return 0;\n}\n")
    assert e.code == "C9102"       # a run-time division in the clause


# ----------------------------------------------------------------------------- 3. for-in inside kernels

FOREACH = """I64 tot(in I64[_] xs) {
    I64 t = 0;
    for i, x in xs {
        t += x * i;
    }
    return t;
}
kernel k[n, m](in I64[n, m] a, out I64[n] b) over [i: n] {
    I64 s = 0;
    for x in a[i, ..] {
        s += x;
    }
    for j, y in a[i, 1..] {
        if (j == 1) {
            continue;
        }
        s += y * j;
    }
    I64[3] p = [i, 2, 3];
    for q in p {
        s += q;
    }
    b[i] = s + tot(a[i, ..]);
}
export I64 run() {
    I64[3, 4] a;
    for r in 0..3 {
        for c in 0..4 {
            a[r, c] = r * 4 + c + 1;
        }
    }
    I64[3] b;
    k(a[0..2, ..], b[0..2]);
    "{b[0]} {b[1]}\\n";
    a[2, 3] = 9223372036854775000;
    k(a, b);
    return b[2];
}"""


@needs_cc
@pytest.mark.parametrize("fuel", [None, 5, 20, 40, 60, 72])
def test_for_in_kernels(tmp_path, fuel):
    out = both(tmp_path, FOREACH, name="fe", fuel=fuel)
    if fuel is None:
        assert "fault.operation mul.checked.i64" in out and "fault.address 1 2 " in out
        assert run(FOREACH).stdout == b"43 92\n"


# ----------------------------------------------------------------------------- 4. array defaults

DEFAULTS = """const I64[3] W = [1, 10, 100];
I64 dotw[n](in I64[n] a, in I64[n] w = [1, 2, 3]) {
    I64 t = 0;
    for i in 0..n {
        t += a[i] * w[i];
    }
    return t;
}
I64 total(in I64[_] xs = W, I64 k = 2) {
    return sum(xs) * k;
}
kernel kk[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = total() + a[i];
}
export I64 run() {
    I64[3] a = [4, 5, 6];
    I64[3] b;
    kk(a, b);
    "{dotw(a)} {dotw(a, W)} {total()} {total(a)} {total(k = 1)} {b[2]}\\n";
    I64[2] z = [1, 2];
    return dotw(z, z) + total(z, 3);
}"""


@needs_cc
def test_array_defaults(tmp_path):
    both(tmp_path, DEFAULTS, name="d")
    assert run(DEFAULTS).stdout == b"32 654 222 30 111 228\n"


def test_default_diagnostics():
    e = compile_error("I64 f(inout I64[_] a = [1]) {\n    return 0;\n}\n")
    assert e.code == "C2058" and where(e) == (1, 24)
    e = compile_error("I64 g() {\n    \"x\\n\";\n    return 1;\n}\nI64 f(in I64[_] a = [g()]) {\n    return 0;\n}\n")
    assert e.code == "C6004"
    e = compile_error("I64 f[n](in I64[n] a, in I64[n] w = [1, 2, 3]) {\n    return 0;\n}\n"
                      "I64 h() {\n    I64[2] z;\n    return f(z);\n}\n")
    assert e.code == "C2012"
    e = compile_error("struct S { I64 a; }\nI64 f(S s = S(1)) {\n    return 0;\n}\n")
    assert e.code == "C9102"
