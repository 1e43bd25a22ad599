"""Compile time is linear in the source, and compile-time evaluation is bounded (issue 11 item 12;
docs/language.md decision 32)."""
import sys
import time

import pytest

from cint_compiler import driver
from cint_compiler.syntax import parser
from cint_compiler.check.program import Checker
from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source


def _chain(n, term="1", params=""):
    return ("export I64 f(%s) { return %s; }\n" % (params, " + ".join([term] * n))).encode()


def _timed(src):
    t = time.perf_counter()
    compile_source(src, "m.ci")
    return time.perf_counter() - t


@pytest.mark.clause("SPEC-04 LS-311")
@pytest.mark.parametrize("term,params", [("1", ""), ("x", "I64 x")])
def test_an_operator_chain_checks_in_linear_time(term, params):
    # was 1.6 s for 2,000 terms and 38 s for 10,000 (quadratic in is_untyped and in fold's is_const)
    small = min(_timed(_chain(2000, term, params)) for _ in range(2))
    big = _timed(_chain(20000, term, params))
    assert big < 15, "20,000 terms took %.1f s" % big
    # ten times the terms: linear is about 10x; the quadratic steps were 100x
    assert big < 30 * small + 1.0, "2,000 terms %.2f s, 20,000 terms %.2f s" % (small, big)


@pytest.mark.clause("SPEC-04 LS-311")
def test_a_longer_chain_than_the_limit_is_c9004_at_its_operator():
    n = parser.MAX_OPERATOR_CHAIN + 1
    src = _chain(n + 1)
    with pytest.raises(CompileError) as ei:
        compile_source(src, "m.ci")
    err = ei.value
    assert err.code == "C9004"
    assert "32768 binary operators" in err.message
    # at the operator that exceeds the limit: the (n)th `+`
    assert err.span.line == 1 and err.span.column == src.index(b"1 + ") + 1 + 4 * n - 3 + 1


@pytest.mark.clause("SPEC-04 LS-311")
def test_a_program_deeper_than_the_recursion_limit_is_c9004_not_an_internal_error(monkeypatch):
    old = sys.getrecursionlimit()
    # the parser raises the limit to 20,000 for itself; a chain of 30,000 operators is deeper than that
    monkeypatch.setattr(driver, "RECURSION_LIMIT", 20000)
    sys.setrecursionlimit(20000)
    try:
        with pytest.raises(CompileError) as ei:
            compile_source(_chain(30000, "x", "I64 x"), "m.ci")
    finally:
        sys.setrecursionlimit(old)
    assert ei.value.code == "C9004"
    assert "nests deeper" in ei.value.message


def _spin(iterations, body="s = s + i;"):
    return ("I64 spin(I64 n) { I64 s = 0; for i in 0..n { %s } return s; }\n"
            "const I64 K = spin(%d);\nexport I64 run() { return K; }\n" % (body, iterations)).encode()


@pytest.mark.clause("SPEC-04 LS-267")
@pytest.mark.parametrize("iterations,body", [(10 ** 6, "s = s + i;"), (3000, "{} " * 500)])
def test_a_long_compile_time_loop_is_c6002_within_seconds(iterations, body):
    t = time.perf_counter()
    with pytest.raises(CompileError) as ei:
        compile_source(_spin(iterations, body), "m.ci")
    took = time.perf_counter() - t
    err = ei.value
    assert err.code == "C6002" and "E_FUEL" in err.message
    assert "500000 evaluation steps" in err.message
    assert (err.span.line, err.span.column) == (2, 15)
    assert took < 20, "refusing the constant took %.1f s" % took


@pytest.mark.clause("SPEC-04 LS-267")
def test_the_work_budget_is_shared_by_the_module_and_a_small_loop_still_compiles(monkeypatch):
    c = compile_source(_spin(1000), "m.ci")
    assert c.program is not None
    monkeypatch.setattr(Checker, "CONST_WORK_BUDGET", 5000)
    # one call of 1,000 iterations fits, three do not: the budget is the module's, not each call's
    src = _spin(1000).replace(b"const I64 K = spin(1000);",
                              b"const I64 K = spin(1000);\nconst I64 K2 = spin(1000);\nconst I64 K3 = spin(1000);")
    with pytest.raises(CompileError) as ei:
        compile_source(src, "m.ci")
    assert ei.value.code == "C6002" and "5000 evaluation steps" in ei.value.message
