"""Arrays and views beyond plain indexing (SPEC-04P.1 4.3, 5.1, 6.2, 6.8, 7.6, 13.2 rule 10) in the checker and
the reference interpreter: slices, partial indexing, view variables, copies and the view built-ins."""
import pytest

from compiler_testkit import compile_error, run, value, where


def fault(src, entry="run", args=()):
    o = run(src, entry, args)
    assert o.kind == "fault", (o.kind, o.value)
    return o.record


def operands(rec):
    return [v for _, v in rec.operands]


TOTAL = """
I64 total[n](in I64[n] xs) {
    I64 s = 0;
    for i in 0..n {
        s = s * 10 + xs[i];
    }
    return s;
}
"""

DIGITS = "    I64[10] a = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];\n"


def digits_of(expr):
    return TOTAL + "export I64 run() {\n" + DIGITS + "    return %s;\n}\n" % expr


# ----------------------------------------------------------------------------- slices (LS-161)

@pytest.mark.clause("SPEC-04 LS-161")
@pytest.mark.parametrize("expr, want", [
    ("total(a[2..5])", 234),
    ("total(a[2..=5])", 2345),
    ("total(a[..3])", 12),
    ("total(a[7..])", 789),
    ("total(a[..]) - 123456789", 0),
    ("total(a[1..8 by 3])", 147),
    ("total(a[1..=7 by 3])", 147),
    ("total(a[9..=6 by -1])", 9876),
    ("total(a[9..6 by -1])", 987),
    ("total(a[.. by -4])", 951),
    ("total(a[..=7 by -3])", 9),
    ("total(a[..=3 by -3])", 963),
    ("total(a[3..=2])", 0),
    ("total(a[10..])", 0),
    ("total(a[2..=3 by -1])", 0),
    ("total(a[-1..-1 by -1])", 0),
    ("len(a[2..9 by 2]) * 10 + len(a[..0])", 40),
])
def test_slice_forms(expr, want):
    assert value(digits_of(expr)) == want


@pytest.mark.clause("SPEC-04 LS-161", "SPEC-01 IM-186")
@pytest.mark.parametrize("expr, ops", [
    ("total(a[lo..3])", [4, 3]),                  # lo above hi
    ("total(a[lo - 5..3])", [-1, 3]),             # negative lo
    ("total(a[2..lo + 7])", [2, 11]),             # hi above the extent
    ("total(a[lo..=lo - 2])", [4, 2]),            # inclusive: lo..hi + 1
    ("total(a[lo + 6.. by -1])", [10, -1]),       # negative step: first bound above the last index
    ("total(a[lo..=lo + 2 by -1])", [4, 6]),      # negative step: bounds cross
    ("total(a[lo..=I64.max])", [4, (1 << 63) - 1]),   # hi + 1 is exact: E_BOUNDS, not E_OVERFLOW
])
def test_slice_faults(expr, ops):
    src = TOTAL + "export I64 run() {\n" + DIGITS + "    I64 lo = 4;\n    return %s;\n}\n" % expr
    rec = fault(src)
    assert (rec.code, rec.operation) == ("E_BOUNDS", "slice.checked.i64")
    assert operands(rec) == ops and rec.limit[1] == 10 and rec.exact is None
    assert where(rec) == (12, 19)            # the slice's `[`
    assert rec.stack == []


@pytest.mark.clause("SPEC-04 LS-161", "SPEC-01 IM-186")
def test_slice_fault_rank2_records_the_dimension_and_element_type():
    rec = fault("""
struct T { I64 k; }
export I64 run() {
    I64[2, 3, 4] q;
    T[3] ts;
    I64 k = 9;
    in I64[_, _] s = q[1, .., 2..k];
    return 0;
}
""")
    assert (rec.operation, operands(rec), rec.limit[1], where(rec)) == ("slice.checked.i64", [2, 2, 9], 4, (7, 23))
    rec = fault("""
struct T { I64 k; }
export I64 run() {
    T[3] ts;
    I64 k = 5;
    in T[_] v = ts[1..k];
    return 0;
}
""")
    assert (rec.operation, operands(rec), rec.limit[1]) == ("slice.checked.struct", [1, 5], 3)


@pytest.mark.clause("SPEC-04 LS-161")
def test_by_takes_a_nonzero_constant():
    for step in ("0", "s", "1 + 1 - 2", "-0"):
        err = compile_error("export I64 run() {\n    I64[8] a;\n    I64 s = 2;\n    return len(a[0..8 by %s]);\n}\n"
                            % step)
        assert err.code == "C2053" and where(err) == (4, 26), step
    assert value("export I64 run() {\n    I64[8] a;\n    return len(a[0..8 by 4 - 1]);\n}\n") == 3


@pytest.mark.clause("SPEC-04 LS-161")
def test_slice_bound_types():
    err = compile_error("export I64 run() {\n    I64[8] a;\n    I32 k = 2;\n    return len(a[k..]);\n}\n")
    assert err.code == "C2001" and where(err) == (4, 18)


@pytest.mark.clause("SPEC-04 LS-161")
def test_column_and_mixed_rank4():
    src = """
export I64 run() {
    I64[3, 4] m = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];
    I64[2, 3, 4, 5] q;
    q[1, 2, 3, 4] = 7;
    q[1, 0, 3, 4] = 5;
    in I64[_, _] s = q[1, .., 3, ..];
    I64 c = 0;
    for i, x in m[.., 1] {
        c = c + x * (i + 1);
    }
    return c * 10000 + s[2, 4] * 1000 + s[0, 4] * 100 + extent(s, 0) * 10 + extent(s, 1);
}
"""
    assert value(src) == (2 + 12 + 30) * 10000 + 7000 + 500 + 35


# ----------------------------------------------------------------------------- partial indexing (LS-65)

@pytest.mark.clause("SPEC-04 LS-65")
def test_partial_index_is_a_view_with_permission():
    src = TOTAL + """
void zero_row[n](inout I64[n] r) {
    r[0] = 0;
}
export I64 run() {
    I64[2, 3, 2] p;
    p[1, 2, 0] = 4;
    p[1, 2, 1] = 5;
    zero_row(p[0, 1]);
    inout I64[_, _] top = p[1];
    top[0, 1] = 9;
    return total(p[1, 2]) * 10 + p[1, 0, 1] + len(p[0, 2]) * 1000;
}
"""
    assert value(src) == 2000 + 450 + 9


@pytest.mark.clause("SPEC-04 LS-65")
def test_indexing_a_partial_index_is_c2010():
    err = compile_error("export I64 run() {\n    I64[2, 2] m;\n    return m[1][1];\n}\n")
    assert err.code == "C2010" and where(err) == (3, 16)


@pytest.mark.clause("SPEC-04 LS-65", "SPEC-01 IM-186")
def test_partial_index_out_of_range():
    rec = fault(TOTAL + "export I64 run() {\n    I64[3, 4] m;\n    I64 r = -1;\n    return total(m[r]);\n}\n")
    assert (rec.operation, operands(rec), rec.limit[1]) == ("index.checked.i64", [0, -1], 3)


# ----------------------------------------------------------------------------- view variables (LS-106, LS-107)

@pytest.mark.clause("SPEC-04 LS-106", "SPEC-04 LS-107")
def test_view_variables_alias_and_assignment_copies():
    src = """
export I64 run() {
    I64[8] a;
    inout I64[_] v = a[2..6];
    v[0] = 5;
    v[3] = 7;
    in I64[_] r = a[..];
    I64[4] b = [1, 2, 3, 4];
    inout I64[_] w = a[4..];
    w = b;
    return a[2] * 1000 + a[4] * 100 + r[7] * 10 + len(v);
}
"""
    assert value(src) == 5000 + 100 + 40 + 4


@pytest.mark.clause("SPEC-04 LS-69")
def test_owned_declaration_copies():
    src = """
export I64 run() {
    I64[2, 4] m = [[1, 2, 3, 4], [5, 6, 7, 8]];
    I64[2, 2] left = m[.., 1..3];
    left[0, 0] = 100;
    inout I64[2, 2] right = m[.., 2..];
    right[1, 1] = 80;
    return m[0, 1] * 1000 + left[1, 1] * 10 + m[1, 3];
}
"""
    assert value(src) == 2000 + 70 + 80


@pytest.mark.clause("SPEC-04 LS-106", "SPEC-04 LS-120", "SPEC-04 LS-162")
@pytest.mark.parametrize("body, code, pos", [
    ("in I64[_] v = x[0..2];\n    v[0] = 1;", "C2060", (5, 5)),
    ("in I64[_] v = x[0..2];\n    v = x[2..4];", "C2060", (5, 5)),
    ("in I64[_] v = x[0..2];\n    inout I64[_] w = v[..];", "C2067", (5, 22)),
    ("inout I64[_] v = g();", "C2051", (4, 22)),
    ("in I64[4] v = x[0..2];", "C2012", (4, 19)),
    ("in I32[_] v = x;", "C2001", (4, 19)),
    ("in I64[_] v;", "C2050", (4, 15)),
    ("in I64 v = 1;", "C9102", (4, 8)),
])
def test_view_variable_errors(body, code, pos):
    src = "I64[2] g() { I64[2] a; return a; }\nexport I64 run() {\n    I64[8] x;\n    %s\n    return 0;\n}\n" % body
    err = compile_error(src)
    assert err.code == code
    assert where(err) == pos


@pytest.mark.clause("SPEC-04 LS-162")
def test_slice_of_in_parameter_is_read_only():
    err = compile_error("void f(in I64[_] xs) {\n    xs[0..1][0] = 1;\n}\n")
    assert err.code == "C2060"
    err = compile_error("void b(inout I64[_, _] ys) { ys[0, 0] = 1; }\n"
                        "void f(in I64[_, _] xs) {\n    b(transpose(xs));\n}\n")
    assert err.code == "C2067" and where(err) == (3, 7)


# ----------------------------------------------------------------------------- copies (LS-70, IM-187)

@pytest.mark.clause("SPEC-04 LS-70")
def test_copy_fill_equal():
    src = """
export I64 run() {
    I64[6] a;
    fill(a, 3);
    I64[3] b = [1, 2, 3];
    copy(a[0..6 by 2], b);
    I64[6] c = [1, 3, 2, 3, 3, 3];
    Bool e = equal(a, c);
    Bool f = equal(a[0..2], b[0..2]);
    Bool g = equal(a, b);
    copy(b, [7, 8, 9]);
    return (e ? 100 : 0) + (f ? 10 : 0) + (g ? 1 : 0) + size(a) * 1000 + b[2] * 10000;
}
"""
    assert value(src) == 90000 + 6000 + 100


@pytest.mark.clause("SPEC-04 LS-70", "SPEC-02 A-5")
def test_assignment_and_copy_disjoint_or_identical():
    src = """
export I64 run() {
    I64[16] x;
    I64[8] tmp;
    for i in 0..16 {
        x[i] = i;
    }
    tmp[0..4] = x[0..4];
    x[0..8 by 2] = tmp[0..4];
    x[0..8] = x[0..8];
    copy(x[..], x);
    x[1..9 by 2] = x[0..8 by 2];
    x[8..16] = x[..8];
    return x[2] * 100 + x[3] * 10 + x[15];
}
"""
    assert value(src) == 100 + 10 + 3


@pytest.mark.clause("SPEC-04 LS-70", "SPEC-01 IM-187")
@pytest.mark.parametrize("stmt, pos", [
    ("x[0..8 by 2] = x[0..4];", (3, 20)),
    ("copy(x[0..8 by 2], x[0..4]);", (3, 24)),
    ("x = x[.. by -1];", (3, 9)),
    ("copy(transpose(m), m);", (3, 24)),
])
def test_provable_copy_overlap_is_c5010(stmt, pos):
    err = compile_error("export I64 run() {\n    I64[16] x; I64[3, 3] m;\n    %s\n    return 0;\n}\n" % stmt)
    assert err.code == "C5010" and where(err) == pos


@pytest.mark.clause("SPEC-04 LS-70", "SPEC-01 IM-187")
def test_run_time_copy_overlap_and_shape():
    src = """
I64 shift(inout I64[_] x, I64 j, I64 k, Bool use_copy) {
    if (use_copy) {
        copy(x[0..k], x[j..j + k]);
    } else {
        x[0..k] = x[j..j + k];
    }
    return x[0];
}
export I64 run(I64 j, I64 k, Bool c) {
    I64[8] x = [0, 1, 2, 3, 4, 5, 6, 7];
    return shift(x, j, k, c);
}
"""
    for c, pos in ((True, (4, 9)), (False, (6, 17))):
        rec = fault(src, args=[2, 4, c])
        assert (rec.code, rec.operation, rec.operands, rec.limit) == ("E_ALIAS", "copy.alias", [], None)
        assert where(rec) == pos
        rec = fault(src, args=[5, 4, c])               # the source is out of range first
        assert rec.operation == "slice.checked.i64"
        assert value(src, args=[4, 4, c]) == 4          # disjoint halves
        assert value(src, args=[0, 4, c]) == 0          # the same view: no effect
    bad = src.replace("x[j..j + k]", "x[j..j + 3]")
    rec = fault(bad, args=[4, 4, True])
    assert (rec.code, rec.operation, operands(rec), rec.limit[1]) == ("E_SHAPE", "copy.shape", [0, 3], 4)


@pytest.mark.clause("SPEC-04 LS-70")
def test_copy_checks():
    cases = [
        ("I64[4] a; I64[3] b; copy(a, b);", "C2012"),
        ("I64[4] a; I32[4] b; copy(a, b);", "C2001"),
        ("I64[4] a; copy(a, 1);", "C2001"),
        ("I64[4] a; fill(a, true);", "C2001"),
        ("I64[4] a; fill(a[..], 1, 2);", "C2022"),
    ]
    for body, code in cases:
        err = compile_error("export I64 run() {\n    %s\n    return 0;\n}\n" % body)
        assert err.code == code, body
    err = compile_error("struct P { I64 v; }\nvoid f() {\n    P[2] a;\n    _ = equal(a, a);\n}\n")
    assert err.code == "C2103"
    err = compile_error("void f(in I64[_] k) {\n    I64[2] a;\n    copy(k[..], a);\n}\n")
    assert err.code == "C2067" and where(err) == (3, 10)
    err = compile_error("I64[2] g() { I64[2] a; return a; }\nvoid f() {\n    I64[2] a;\n    fill(g(), 1);\n}\n")
    assert err.code == "C2058" and where(err) == (4, 10)


# ----------------------------------------------------------------------------- built-ins (LS-145)

@pytest.mark.clause("SPEC-04 LS-145", "SPEC-02 V-10")
def test_transpose_reverse_extent_lower():
    src = """
export I64 run() {
    I64[2, 3] m = [[1, 2, 3], [4, 5, 6]];
    inout I64[_, _] t = transpose(m);
    t[2, 1] = 60;
    in I64[_] r = reverse(m[1], 0);
    in I64[_, _] rr = reverse(m, 1);
    return m[1, 2] * 100000 + r[0] * 1000 + rr[0, 0] * 100 + extent(t, 0) * 10 + lower(m, 1) + size(t) - 6;
}
"""
    assert value(src) == 6000000 + 60000 + 300 + 30


@pytest.mark.clause("SPEC-04 LS-145")
@pytest.mark.parametrize("expr, code", [
    ("extent(m, 2)", "C2014"),
    ("extent(m, d)", "C6004"),
    ("len(m)", "C2014"),
    ("len(transpose(m[0]))", "C2014"),
    ("extent(d, 0)", "C2103"),
    ("size(m, 1)", "C2022"),
])
def test_builtin_errors(expr, code):
    err = compile_error("export I64 run() {\n    I64[2, 2] m;\n    I64 d = 0;\n    return %s;\n}\n" % expr)
    assert err.code == code


@pytest.mark.clause("SPEC-04 LS-145")
def test_still_refused():
    for body in ("I64 s = sign(3);", "I64[4] a; _ = len(reshape(a, 2, 2));", "I64[1..=4] a;"):
        err = compile_error("export I64 run() {\n    %s\n    return 0;\n}\n" % body)
        assert err.code == "C9102", body


@pytest.mark.clause("SPEC-04 LS-145")
def test_views_in_reductions_loops_and_prints():
    src = """
export I64 run() {
    I64[2, 3] m = [[1, 2, 3], [4, 5, 6]];
    "{m[.., 1..]} {transpose(m)}\\n";
    I64 s = sum(m[1, 0..3 by 2]) * 100 + dot(I64, m[0], m[1, .. by -1]);
    for x in m[.., 2] {
        s = s * 10 + x;
    }
    return s;
}
"""
    o = run(src)
    assert o.kind == "value" and o.value == ((1000 + 6 + 10 + 12) * 10 + 3) * 10 + 6
    assert o.stdout == b"[[2, 3], [5, 6]] [[1, 4], [2, 5], [3, 6]]\n"


# ----------------------------------------------------------------------------- arguments (LS-121, LS-123)

@pytest.mark.clause("SPEC-04 LS-121")
def test_slice_arguments_alias():
    put = "void put(inout I64[_] d, in I64[_] s) { d[0] = s[0]; }\n"
    err = compile_error(put + "export I64 run() {\n    I64[8] x;\n    put(x[0..4], x[3..5]);\n    return 0;\n}\n")
    assert err.code == "C5010" and where(err) == (4, 18)
    err = compile_error(put + "export I64 run() {\n    I64[2, 4] x;\n    put(x[1], x[1, ..]);\n    return 0;\n}\n")
    assert err.code == "C5010" and where(err) == (4, 15)
    src = put + """
export I64 run(I64 j) {
    I64[8] x = [0, 1, 2, 3, 4, 5, 6, 7];
    put(x[0..4], x[4..]);
    put(x[0..8 by 2], x[1..8 by 2]);
    put(x[0..1], x[1..]);
    put(x[4..], x[j..j + 2]);
    return x[0] * 10 + x[4];
}
"""
    assert value(src, args=[0]) == 11
    rec = fault(src, args=[3])
    assert (rec.code, rec.operation, operands(rec)) == ("E_ALIAS", "bind.alias", [0, 1])
    assert where(rec) == (8, 5)


@pytest.mark.clause("SPEC-04 LS-117", "SPEC-04 LS-62")
def test_size_parameters_bind_from_slices():
    src = TOTAL + """
I64 pair[n](in I64[n] a, in I64[n] b) { return n; }
I64 neg[n](in I64[n] xs) {
    I64[n - 3] tmp;
    return n;
}
export I64 run(I64 k) {
    I64[6] a;
    I64[2, 3] m;
    return pair(a[0..k], m[1]) * 10 + neg(a[..k]);
}
"""
    assert value(src, args=[3]) == 33
    rec = fault(src, args=[2])
    assert (rec.code, rec.operation) == ("E_SHAPE", "bind.shape")
    err = compile_error(src.replace("a[0..k]", "a[0..4]"))
    assert err.code == "C2012" and where(err) == (18, 26)
    rec = fault(src.replace("pair(a[0..k], m[1]) * 10 + ", ""), args=[1])
    assert (rec.code, rec.operation, operands(rec), rec.limit[1]) == ("E_SHAPE", "decl.shape", [0, -2], 0)


# ----------------------------------------------------------------------------- views across a dispatch (LS-253)

KERNEL = "kernel dbl[n](in I32[n] u, out I32[n] o) over [i: n] { o[i] = u[i] * 2; }\n"


@pytest.mark.clause("SPEC-04 LS-253")
def test_view_live_across_a_dispatch_is_c5011():
    src = KERNEL + """
export I64 run() {
    I32[4] f = [1, 2, 3, 4];
    I32[4] g;
    in I32[_] row = g[0..2];
    dbl(f, g);
    return row[0] as I64;
}
"""
    err = compile_error(src)
    assert err.code == "C5011" and where(err) == (7, 5)
    loop = KERNEL + """
export I64 run() {
    I32[4] f = [1, 2, 3, 4];
    I32[4] g;
    in I32[_] row = g[0..2];
    I64 s = 0;
    for t in 0..3 {
        s = s + (row[0] as I64);
        dbl(f, g);
    }
    return s;
}
"""
    err = compile_error(loop)
    assert err.code == "C5011" and where(err) == (10, 9)
    ok = KERNEL + """
export I64 run() {
    I32[4] f = [1, 2, 3, 4];
    I32[4] g;
    in I32[_] row = f[0..2];
    in I32[_] before = g[..];
    dbl(f, g);
    in I32[_] after = g[1..3];
    dbl(f[0..4], g[..]);
    return (row[1] + g[3]) as I64;
}
"""
    assert value(ok) == 10


# ----------------------------------------------------------------------------- struct storage seen through views

@pytest.mark.clause("SPEC-04 LS-107", "SPEC-04 LS-119")
def test_struct_stores_reach_views_and_inout_references():
    src = """
struct S { I64 k; I64[2] d; }
void set(inout S p) { S q; q.k = 5; q.d[1] = 7; p = q; }
export I64 run() {
    S s;
    inout I64[_] v = s.d;
    S t;
    t.d[0] = 3;
    s = t;
    S[2] ss;
    inout I64[_] w = ss[1].d[..];
    ss[1] = t;
    set(ss[0]);
    I64 k = ss[0].k * 10 + ss[0].d[1];
    inout S[_] both = ss[..];
    fill(both, t);
    return v[0] * 100000 + w[0] * 10000 + k * 100 + ss[0].d[0] * 10 + ss[1].d[1];
}
"""
    assert value(src) == 300000 + 30000 + 5700 + 30 + 0
