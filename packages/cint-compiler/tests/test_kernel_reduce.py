"""`reduce` statements and element-form kernels (SPEC-04P.1 LS-245, LS-247, LS-249; docs/language.md
decision 23) on both executors, cpu-sir-interp and cpu-c17, with identical outcome text (`both`).

Contributions combine in ascending work-item order; `sum` is exact with one check in the epilogue;
`fold_checked` is checked per contribution inside the work-item (operand I64 j = the number of earlier
contributions); `sum_sat` saturates per contribution; `min`/`max` with no contribution fault E_SHAPE in the
epilogue; a faulting dispatch publishes nothing, scalar `out` arguments included; a dispatch charges N fuel
at entry and a reduction none; each `reduce` counts one step after its operand's."""
import pytest

from compiler_testkit import both, compile_error, where

pytestmark = pytest.mark.clause("SPEC-04 LS-245", "SPEC-04 LS-247", "SPEC-04 LS-249", "SPEC-01 IM-77")


def lines(text):
    return text.splitlines()


def has(text, *want):
    got = lines(text)
    for w in want:
        if w not in got:
            print(text)
        assert w in got, (w, text)


# ----------------------------------------------------------------------------- every form

FORMS = """
kernel stats[n](in I32[n] x, out I64 s, out I32 w, out I32 t, out I32 lo, out I32 hi, out I64 c,
                out I32 f) over [i: n] {
    I32 v = x[i];
    reduce s = sum(v);
    reduce w = sum_wrap(v);
    reduce t = sum_sat(v);
    reduce lo = min(v);
    reduce hi = max(v);
    reduce c = count(v > 0);
    reduce f = fold_checked(add, 7, v);
}

export I64 run(I64 k) {
    I32[4] x = [2000000000, 2000000000, -5, 3];
    I64 s = 0;
    I32 w = 0;
    I32 t = 0;
    I32 lo = 0;
    I32 hi = 0;
    I64 c = 0;
    I32 f = 0;
    if (k == 0) {
        stats(x[2..], s, w, t, lo, hi, c, f);
    } else {
        stats(x, s, w, t, lo, hi, c, f);
    }
    I64 r = s + 50;
    r = r * 100 + (w as I64) + 50;
    r = r * 100 + (t as I64) + 50;
    r = r * 100 + (lo as I64) + 50;
    r = r * 100 + (hi as I64) + 50;
    r = r * 100 + c + 50;
    return r * 100 + (f as I64) + 50;
}
"""


def test_every_form_and_overflowing_fold(tmp_path):
    # -5 and 3: sum -2, sum_wrap -2, sum_sat -2, min -5, max 3, count 1, fold 7 - 5 + 3 = 5
    has(both(tmp_path, FORMS, args=["I64 0"]), "return I64 48484845535155", "fuel-consumed 3")
    out = both(tmp_path, FORMS, name="q", args=["I64 1"])
    # fold_checked overflows at its second contribution (j = 1), in work-item 1
    has(out, "outcome fault", "fault.code E_OVERFLOW", "fault.operation fold_checked.add.i32",
        "fault.operand I64 1", "fault.operand I32 2000000007", "fault.operand I32 2000000000",
        "fault.exact 4000000007", "fault.limit I32 2147483647", "fault.position q.ci:11:16",
        "fault.stack-depth 1", "fault.stack q.ci:26:9")
    # its steps: x[i] (0), sum..max (1..5), `>` is no step, count (6), fold (7)
    has(out, "fault.address 0 1 7", "fuel-consumed 5")


def test_wrap_and_saturate_orders(tmp_path):
    src = """
kernel acc[n](in I8[n] x, out I8 w, out I8 t) over [i: n] {
    reduce w = sum_wrap(x[i]);
    reduce t = sum_sat(x[i]);
}

export I64 run() {
    I8[4] a = [100, 100, -100, 27];
    I8 w = 1;
    I8 t = 1;
    acc(a, w, t);
    return (w as I64) * 1000 + (t as I64);
}
"""
    # sum_wrap: 127 exactly; sum_sat: 100, 127, 27, 54
    has(both(tmp_path, src), "outcome value", "return I64 127054", "fuel-consumed 5")


def test_exact_sum_into_a_wider_target_and_epilogue_overflow(tmp_path):
    src = """
kernel total[n](in I16[n] x, out I64 big, out I16 small) over [i: n] {
    reduce big = sum(x[i]);
    reduce small = sum(x[i]);
}

export I64 run(I64 k) {
    I16[3] a = [30000, 30000, -29000];
    I64 big = 5;
    I16 small = 6;
    if (k == 0) {
        a[2] = 2;
    }
    total(a, big, small);
    return big * 100000 + (small as I64);
}
"""
    has(both(tmp_path, src, args=["I64 1"]), "outcome value", "return I64 3100031000")
    out = both(tmp_path, src, name="q", args=["I64 0"])
    has(out, "outcome fault", "fault.code E_OVERFLOW", "fault.operation sum.checked.i16.i16", "fault.operand I64 3",
        "fault.exact 60002", "fault.limit I16 32767", "fault.position q.ci:4:20", "fault.address none",
        "fault.stack q.ci:14:5")


def test_unsigned_sum_below_zero(tmp_path):
    src = """
kernel t[n](in I32[n] x, out U8 s) over [i: n] {
    reduce s = sum(x[i]);
}

export I64 run() {
    I32[2] a = [3, -4];
    U8 s = 9;
    t(a, s);
    return s as I64;
}
"""
    has(both(tmp_path, src), "fault.operation sum.checked.i32.u8", "fault.exact -1", "fault.limit U8 0",
        "fault.address none")


# ----------------------------------------------------------------------------- empty dispatches

def test_empty_dispatch(tmp_path):
    src = """
kernel r[n](in I64[n] x, out I64 s, out I64 f, out I64 c, out I64 w) over [i: n] {
    reduce s = sum(x[i]);
    reduce f = fold_checked(add, -4, x[i]);
    reduce c = count(x[i] == 0);
    reduce w = sum_sat(x[i]);
}

export I64 run() {
    I64[0] x;
    I64 s = 1;
    I64 f = 1;
    I64 c = 1;
    I64 w = 1;
    r(x, s, f, c, w);
    return s * 1000 + f * 100 + c * 10 + w;
}
"""
    has(both(tmp_path, src), "outcome value", "return I64 -400", "fuel-consumed 1")


def test_max_without_contribution_faults_first_in_source_order(tmp_path):
    src = """
kernel m[n](in I64[n] x, out I64 hi, out I64 lo) over [i: n] {
    if (x[i] > 100) {
        reduce hi = max(x[i]);
        reduce lo = min(x[i]);
    }
}

export I64 run() {
    I64[3] x = [1, 2, 3];
    I64 hi = 0;
    I64 lo = 0;
    m(x, hi, lo);
    return hi;
}
"""
    out = both(tmp_path, src)
    has(out, "fault.code E_SHAPE", "fault.operation reduce_max.checked.i64", "fault.operand I64 0",
        "fault.exact none", "fault.limit none", "fault.position p.ci:4:21", "fault.address none",
        "fault.stack p.ci:13:5", "fuel-consumed 4")


# ----------------------------------------------------------------------------- `reduce` under `if`

def test_contributions_under_if_are_counted_as_made(tmp_path):
    src = """
kernel pos[n](in I64[n] x, out I64 s, out I64 f) over [i: n] {
    if (x[i] > 0) {
        reduce s = sum(x[i]);
        reduce f = fold_checked(add, 0, x[i]);
    }
}

export I64 run() {
    I64[5] x = [-1, 9223372036854775807, -3, 0, 1];
    I64 s = 0;
    I64 f = 0;
    pos(x, s, f);
    return s;
}
"""
    out = both(tmp_path, src)
    # fold: the second contribution (j = 1) comes from work-item 4
    has(out, "fault.operation fold_checked.add.i64", "fault.operand I64 1",
        "fault.operand I64 9223372036854775807", "fault.operand I64 1", "fault.address 0 4 4",
        "fault.position p.ci:5:20", "fuel-consumed 6")


def test_sum_operand_counts_contributions_not_work_items(tmp_path):
    src = """
kernel pos[n](in I32[n] x, out I32 s) over [i: n] {
    if (x[i] > 0) {
        reduce s = sum(x[i]);
    }
}

export I64 run() {
    I32[5] x = [2147483647, -1, 1, -7, 0];
    I32 s = 0;
    pos(x, s);
    return s as I64;
}
"""
    has(both(tmp_path, src), "fault.operation sum.checked.i32.i32", "fault.operand I64 2",
        "fault.exact 2147483648")


# ----------------------------------------------------------------------------- faults and publication

def test_work_item_fault_publishes_nothing(tmp_path):
    src = """
I64 g = 3;

kernel k[n](in I64[n] x, out I64[n] y, out I64 s) over [i: n] {
    y[i] = 10 / x[i];
    reduce s = sum(y[i]);
}

export I64 run() {
    I64[3] x = [1, 2, 0];
    I64[3] y = [7, 7, 7];
    k(x, y, g);
    return y[0];
}
"""
    out = both(tmp_path, src)
    has(out, "fault.code E_DIV_ZERO", "fault.address 0 2 2", "state.global p g I64 3")


def test_epilogue_fault_publishes_nothing(tmp_path):
    src = """
I8 g = 5;

kernel k[n](in I8[n] x, out I8[n] y, out I8 s) over [i: n] {
    y[i] = x[i];
    reduce s = sum(x[i]);
}

export I64 run() {
    I8[2] x = [100, 100];
    I8[2] y = [1, 2];
    k(x, y, g);
    return 0;
}
"""
    has(both(tmp_path, src), "fault.operation sum.checked.i8.i8", "fault.exact 200", "fault.address none",
        "state.global p g I8 5")


def test_publication_into_module_and_local_variables(tmp_path):
    src = """
I64 g = 0;

kernel k[n](in I64[n] x, out I64 s, out I64 m) over [i: n] {
    reduce s = sum(x[i]);
    reduce m = max(x[i] * 2);
}

export I64 run() {
    I64[3] x = [4, -9, 6];
    I64 m = 0;
    k(x, g, m);
    return g * 100 + m;
}
"""
    has(both(tmp_path, src), "return I64 112", "state.global p g I64 1")


# ----------------------------------------------------------------------------- fuel

def test_fuel_runs_out_at_the_dispatch_and_in_a_body_loop(tmp_path):
    src = """
kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    I64 t = 0;
    for j in 0..x[i] {
        t += j;
    }
    reduce s = sum(t);
}

export I64 run() {
    I64[3] x = [1, 2, 3];
    I64 s = 0;
    k(x, s);
    return s;
}
"""
    # 1 + 3 + (1 + 2 + 3) = 10 units; no unit for the reduction
    has(both(tmp_path, src), "return I64 4", "fuel-consumed 10")
    has(both(tmp_path, src, name="f3", fuel=3), "fault.code E_FUEL", "fault.address none", "fault.limit I64 3",
        "fault.position f3.ci:13:5", "fuel-consumed 1")
    out = both(tmp_path, src, name="f8", fuel=8)
    has(out, "fault.code E_FUEL", "fault.limit I64 8", "fault.address 0 2 2", "fault.position f8.ci:4:5")


# ----------------------------------------------------------------------------- rank 2

def test_rank2_over_space(tmp_path):
    src = """
kernel k[h, w](in I32[h, w] a, out I32[h, w] b, out I64 s, out I32 f) over [y: h, x: w] {
    I32 v = a[y, x] * 2;
    b[y, x] = v;
    reduce s = sum(v);
    reduce f = fold_checked(add, 0, a[y, x]);
}

export I64 run(I64 k0) {
    I32[2, 3] a = [[1, 2, 3], [4, 5, 2147483000]];
    I32[2, 3] b;
    I64 s = 0;
    I32 f = 0;
    a[1, 2] = 6;
    k(a, b, s, f);
    if (k0 == 1) {
        a[1, 2] = 2147483000;
        k(a, b, s, f);
    }
    return s * 10000 + (f as I64) * 100 + (b[1, 2] as I64);
}
"""
    has(both(tmp_path, src, args=["I64 0"]), "return I64 422112", "fuel-consumed 7")
    out = both(tmp_path, src, name="q", args=["I64 1"])
    # a[1, 2] * 2 overflows first, at work-item 5, step 1 (after the read)
    has(out, "fault.operation mul.checked.i32", "fault.address 1 5 1")


def test_rank2_fold_fault_item_and_step(tmp_path):
    src = """
kernel k[h, w](in I32[h, w] a, out I32 f) over [y: h, x: w] {
    reduce f = fold_checked(add, 2147483000, a[y, x]);
}

export I64 run() {
    I32[2, 2] a = [[100, 200], [300, 400]];
    I32 f = 0;
    k(a, f);
    return f as I64;
}
"""
    has(both(tmp_path, src), "fault.operand I64 3", "fault.operand I32 2147483600", "fault.operand I32 400",
        "fault.address 0 3 1", "fault.exact 2147484000")


# ----------------------------------------------------------------------------- element form

def test_element_form(tmp_path):
    src = """
kernel blend[n](in I64[n] a, in I64[n] b, in I64 k, out I64[n] c, out I64[n] d) {
    c = a * k + b;
    d = -(a - b);
}

export I64 run() {
    I64[3] a = [1, 2, 3];
    I64[3] b = [10, 20, 30];
    I64[3] c;
    I64[3] d;
    blend(a, b, 100, c, d);
    return c[0] * 1000000 + c[1] * 1000 + c[2] + (d[0] + d[2]) * 1000000000;
}
"""
    has(both(tmp_path, src), "return I64 36110220330", "fuel-consumed 4")


def test_element_form_rank2_fault_and_no_publication(tmp_path):
    src = """
kernel halve[h, w](in I32[h, w] a, in I32[h, w] b, inout I32[h, w] c) {
    c = c + a / b;
}

export I64 run() {
    I32[2, 2] a = [[8, 8], [8, 8]];
    I32[2, 2] b = [[2, 4], [0, 1]];
    I32[2, 2] c = [[1, 1], [1, 1]];
    halve(a, b, c);
    return c[0, 0] as I64;
}
"""
    out = both(tmp_path, src)
    # work-item 2; steps: the place c[..] (0), c[..] (1), a[..] (2), b[..] (3), `/` (4)
    has(out, "fault.code E_DIV_ZERO", "fault.address 0 2 4", "fault.position p.ci:3:15", "fuel-consumed 5")


def test_element_form_inout_and_fuel(tmp_path):
    src = """
kernel bump[n](inout I8[n] c, in I8 k) {
    c = c + k;
}

export I64 run() {
    I8[3] c = [1, 2, 125];
    bump(c, 5);
    I64 r = c[0] as I64;
    bump(c[0..2], 5);
    return r * 100 + (c[1] as I64);
}
"""
    has(both(tmp_path, src), "fault.operation add.checked.i8", "fault.address 0 2 2", "fuel-consumed 4")
    src2 = src.replace("125", "12")
    has(both(tmp_path, src2, name="q"), "return I64 612", "fuel-consumed 6")
    has(both(tmp_path, src2, name="r", fuel=5), "fault.code E_FUEL", "fault.address none",
        "fault.position r.ci:10:5", "fuel-consumed 4")


# ----------------------------------------------------------------------------- compile errors

def _err(src, code, line, col):
    e = compile_error(src)
    assert (e.code, where(e)) == (code, (line, col)), (e.code, where(e), str(e))


def test_reduce_inside_a_loop():
    _err("""kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    for j in 0..2 {
        reduce s = sum(x[i]);
    }
}
""", "C5031", 3, 9)


def test_two_reduces_on_one_target():
    _err("""kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    reduce s = sum(x[i]);
    reduce s = max(x[i]);
}
""", "C5031", 3, 5)


def test_reduce_target_not_a_scalar_out():
    _err("""kernel k[n](in I64[n] x, in I64 q, out I64[n] y) over [i: n] {
    y[i] = x[i];
    reduce q = sum(x[i]);
}
""", "C5031", 3, 5)
    _err("""kernel k[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i];
    reduce y = sum(x[i]);
}
""", "C5031", 3, 5)


def test_scalar_out_without_reduce_or_read():
    _err("""kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    I64 t = x[i];
}
""", "C5031", 1, 34)
    _err("""kernel k[n](in I64[n] x, out I64 s, out I64[n] y) over [i: n] {
    reduce s = sum(x[i]);
    y[i] = s;
}
""", "C5031", 3, 12)


def test_reduce_forms_and_types():
    _err("""kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    reduce s = product(x[i]);
}
""", "C2001", 2, 16)
    _err("""kernel k[n](in I32[n] x, out I64 s) over [i: n] {
    reduce s = sum_sat(x[i]);
}
""", "C2001", 2, 24)
    _err("""kernel k[n](in I64[n] x, out I32 s) over [i: n] {
    reduce s = count(x[i] > 0);
}
""", "C2001", 2, 5)
    _err("""kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    reduce s = fold_checked(add, x[0], x[i]);
}
""", "C6004", 2, 34)
    _err("""I64 f(I64 a) {
    reduce a = sum(a);
    return a;
}
""", "C4012", 2, 5)


def test_scalar_out_argument_is_a_variable():
    src = """kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    reduce s = sum(x[i]);
}

export I64 run() {
    I64[2] x = [1, 2];
    I32 s = 0;
    k(x, s);
    return 0;
}
"""
    _err(src, "C2001", 8, 10)
    _err(src.replace("I32 s = 0;", "I64 s = 0;").replace("k(x, s);", "k(x, 5);"), "C9102", 8, 10)


def test_element_form_rejects_non_elementwise_statements():
    _err("""kernel k[n](in I64[n] a, out I64[n] b) {
    I64 t = 1;
    b = a;
}
""", "C5031", 2, 9)
    _err("""kernel k[n](in I64[n] a, out I64[n] b) {
    b = a[0] + a;
}
""", "C5031", 2, 9)
    _err("""kernel k[n](in I64[n] a, out I64[n] b, out I64 s) {
    b = a;
}
""", "C5031", 1, 48)


def test_element_form_shape_mismatch():
    _err("""kernel k[n, m](in I64[n] a, out I64[m] b) {
    b = a;
}
""", "C2012", 1, 26)
    _err("""kernel k[n](in I64[n] a, out I64[n, n] b) {
    b = a;
}
""", "C2012", 1, 23)


def test_kernel_export_with_a_scalar_out_has_no_wrapper(tmp_path):
    """SPEC-03P.1 7.3 (A-13) gives a scalar parameter one by-value C form and no carrier for a written
    scalar: such an export gets no wrapper and no reflection row, as A-25, and stays callable from cint."""
    from cint_compiler.backend.c17.emit import emit
    from cint_compiler.driver import compile_source
    src = """export kernel k[n](in I64[n] x, out I64 s) over [i: n] {
    reduce s = sum(x[i]);
}

export kernel e[n](in I64[n] x, out I64[n] y) {
    y = x;
}
"""
    c = compile_source(src.encode(), "t.ci")
    text = emit(c)
    assert "cx_1_t_1_e(" in text
    assert "cx_1_t_1_k(" not in text
