"""Issue 6: integer-to-enum conversion (SPEC-04P.1 LS-89, LS-133) and C5012, module state passed to a
function that writes it (LS-122).

Programs run on both executors (`both` compares the whole outcome texts).  Our choice, recorded in
docs/language.md: `x as E` faults E_NARROW `as.checked.<S>.<e>` (the enum's name in lowercase, as in an
`index.checked.<E>` record of an enum element) with the operand x, exact x and no limit.
"""
import shutil

import pytest

from compiler_testkit import both, compile_error, where

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

ENUM = "enum Mode : U8 { idle, burn = 4, coast }\n"


@needs_cc
def test_integer_to_enum_round_trip_and_fault(tmp_path):
    src = ENUM + """Mode pick(I64 x) { return x as Mode; }
export I64 run() {
    I64 t = 0;
    for i in 0..3 { Mode m = pick(i == 1 ? 4 : (i == 2 ? 5 : 0)); "{m} "; t += m as I64; }
    Mode q = 4 as Mode;
    "{q}\\n";
    I8 n = -3;
    Mode z = n as Mode;
    return t;
}
"""
    out = both(tmp_path, src, name="em")
    assert "fault.code E_NARROW" in out and "fault.operation as.checked.i8.mode" in out
    assert "fault.operand I8 -3" in out and "fault.exact -3" in out and "fault.limit none" in out
    assert "fault.position em.ci:9:16" in out


@needs_cc
def test_integer_to_enum_unsigned_and_wide_values(tmp_path):
    src = """enum Big : U64 { lo = 1, hi = 18446744073709551615 }
enum Neg : I16 { m = -300, z = 0 }
export I64 run() {
    U64 a = 18446744073709551615;
    Big b = a as Big;
    I64 c = -300;
    Neg d = c as Neg;
    I64 e = -1;
    Big f = e as? Big catch .lo;
    "{b} {d} {f}\\n";
    U32 g = 7;
    Neg h = g as Neg;
    return 0;
}
"""
    out = both(tmp_path, src, name="ew")
    assert "fault.operation as.checked.u32.neg" in out and "fault.operand U32 7" in out


@needs_cc
def test_integer_to_enum_result_form(tmp_path):
    src = ENUM + """export I64 run() {
    I64 t = 0;
    for i in 0..7 {
        Mode m = i as? Mode catch .coast;
        "{m} ";
        t += m as I64;
    }
    Mode k = 3 as? Mode catch .idle;
    "{k}\\n";
    return t;
}
"""
    out = both(tmp_path, src, name="er")
    assert "outcome ok" in out or "outcome success" in out or "fault.code" not in out


@needs_cc
def test_integer_to_enum_in_a_kernel(tmp_path):
    src = ENUM + """kernel K[n](in I64[n] xs, out U8[n] ys) over [i: n] {
    Mode m = xs[i] as Mode;
    ys[i] = m as U8;
}
export I64 run() {
    I64[4] xs = [0, 4, 5, 2];
    U8[4] ys;
    K(xs, ys);
    return 0;
}
"""
    out = both(tmp_path, src, name="ek")
    assert "fault.operation as.checked.i64.mode" in out


def test_integer_to_enum_compile_time_and_refused_forms():
    e = compile_error(ENUM + "void main() { Mode m = 3 as Mode; }\n")
    assert e.code == "C6001" and where(e) == (2, 26)
    for form in ("x as% Mode", "q as Mode", "b as Mode", "m as Mode2"):
        e = compile_error(ENUM + "enum Mode2 : U8 { a }\nvoid main() { I64 x = 1; Q16.16 q = 1; Bool b = true; "
                          "Mode m = .idle; Mode2 y = %s; }\n" % form)
        assert e.code == "C2008", (form, e)


# ----------------------------------------------------------------------------- C5012 (LS-122)

def test_c5012_spec_example():
    e = compile_error("""I64[8] g;
void bump(in I64[_] a) { g[0] = 1; }
void main() {
    bump(g[..]);
}
""")
    assert e.code == "C5012" and where(e) == (4, 10)


def test_c5012_transitive_scalar_and_struct_field():
    e = compile_error("""I64 n = 0;
void set(I64 x) { n = x; }
void outer(I64 x) { set(x); }
void main() { outer(n); }
""")
    assert e.code == "C5012" and where(e) == (4, 21)
    e = compile_error("""struct S { I64[4] a; I64 k; }
S s;
void h(inout I64[_] a) { a[0] = 1; }
void w() { h(s.a); }
void f(in I64[_] v) { w(); }
void main() { f(s.a[1..]); }
""")
    assert e.code == "C5012" and where(e) == (6, 17)
    e = compile_error("""I64[4] g;
void w() { inout I64[_] v = g[..]; v[1] = 2; }
void f(in I64[_] v) { w(); }
void main() { in I64[_] u = g[..]; f(u); }
""")
    assert e.code == "C5012" and where(e) == (4, 38)


@needs_cc
def test_c5012_not_raised_for_element_reads_or_unwritten_state(tmp_path):
    src = """I64[4] g;
I64 n = 5;
void bump(I64 x) { g[0] = x; }
I64 total(in I64[_] a) { return sum(I64, a); }
export I64 run() {
    bump(g[1]);
    bump(n);
    "{total(g[..])} {g[0]}\\n";
    return total(g);
}
"""
    out = both(tmp_path, src, name="ok5012")
    assert "fault.code" not in out
