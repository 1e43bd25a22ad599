"""Compile-time calls of const-eligible user functions in constant expressions (SPEC-04 LS-264..LS-268)."""
import pytest

from cint_compiler.check.program import Checker
from compiler_testkit import both, compile_error, value, where


@pytest.mark.clause("SPEC-04 LS-264", "SPEC-04 LS-266")
def test_const_initialized_by_recursive_functions(tmp_path):
    src = """
const I64 F10 = fact(10);
const I64 FIB = fib(15) + 1;
I64 fact(I64 n) { if (n <= 1) { return 1; } return n * fact(n - 1); }
I64 fib(I64 n) { if (n < 2) { return n; } return fib(n - 1) + fib(n - 2); }
export I64 run() { return F10 + FIB; }
"""
    assert value(src) == 3628800 + 611
    text = both(tmp_path, src)
    assert "3629411" in text


@pytest.mark.clause("SPEC-04 LS-264")
def test_array_extent_case_item_and_static_assert(tmp_path):
    src = """
I64 sq(I64 n) { return n * n; }
const I64 N = sq(3);
static_assert(sq(4) == 16);
export I64 run(I64 x) {
    I64[sq(2)] a;
    I64 r = len(a);
    switch (x) {
        case sq(3):
            r = r + 100;
        default:
            r = r + 1;
    }
    return r + N;
}
"""
    assert value(src, args=[9]) == 4 + 100 + 9
    assert value(src, args=[2]) == 4 + 1 + 9
    assert "113" in both(tmp_path, src, args=["I64 9"])


@pytest.mark.clause("SPEC-04 LS-266")
def test_fault_inside_a_compile_time_call_is_c6001():
    err = compile_error("""
I64 f(I64 n) { return 100 / n; }
const I64 K = f(0);
export I64 run() { return K; }
""")
    assert err.code == "C6001"
    assert "E_DIV" in err.message or "E_" in err.message
    assert where(err) == (3, 15)


@pytest.mark.clause("SPEC-04 LS-265")
def test_printing_function_is_not_const_eligible():
    err = compile_error("""
I64 g(I64 n) { "hi\\n"; return n; }
I64 f(I64 n) { return g(n); }
const I64 K = f(1);
export I64 run() { return K; }
""")
    assert err.code == "C6004"
    assert "prints" in err.message


@pytest.mark.clause("SPEC-04 LS-267")
def test_budget_exhaustion_is_c6002(monkeypatch):
    src = """
I64 spin(I64 n) { I64 s = 0; for i in 0..n { s = s + i; } return s; }
const I64 K = spin(1000);
export I64 run() { return K; }
"""
    assert value(src) == 499500
    monkeypatch.setattr(Checker, "CONST_FUEL_BUDGET", 500)
    err = compile_error(src)
    assert err.code == "C6002"
    assert "E_FUEL" in err.message
