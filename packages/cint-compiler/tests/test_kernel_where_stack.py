"""The dispatch site on the fault stack (docs/language.md decision 3), `where` on kernels and the shared
`bind.where` operand rule (decision 18), and the result built-ins on cpu-c17: both executors give the same
outcome text (compiler_testkit.both)."""
from __future__ import annotations

import shutil

import pytest

from compiler_testkit import both, run

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def lines(out, prefix):
    return [ln[len(prefix):] for ln in out.splitlines() if ln.startswith(prefix)]


# ----------------------------------------------------------------------------- 1. the dispatch site on the stack

NESTED = """I64 inv(I64 x) {
    return 100 / x;
}
kernel scale[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = 100 / a[i];
}
kernel viacall[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = inv(a[i]);
}
void inner(in I64[_] a, inout I64[_] b, in Bool call) {
    if (call) {
        viacall(a, b);
    } else {
        scale(a, b);
    }
}
void outer(in I64[_] a, inout I64[_] b, in Bool call) {
    inner(a, b, call);
}
export I64 run(Bool call) {
    I64[3] a = [4, 0, 5];
    I64[3] b;
    outer(a, b, call);
    return b[0];
}
"""


@needs_cc
def test_work_item_fault_lists_the_dispatch_site_after_the_calls(tmp_path):
    out = both(tmp_path, NESTED, name="ws", args=["Bool false"])
    assert "fault.code E_DIV_ZERO" in out and "fault.address 0 1 " in out
    assert lines(out, "fault.stack-depth ") == ["3"]
    # outer's call in run, inner's call in outer, then the dispatch site of scale
    assert lines(out, "fault.stack ") == ["ws.ci:23:5", "ws.ci:18:5", "ws.ci:14:9"]


@needs_cc
def test_calls_inside_the_work_item_follow_the_dispatch_site(tmp_path):
    out = both(tmp_path, NESTED, name="wc", args=["Bool true"])
    assert "fault.position wc.ci:2:16" in out and "fault.address 0 1 " in out
    assert lines(out, "fault.stack ") == ["wc.ci:23:5", "wc.ci:18:5", "wc.ci:12:9", "wc.ci:8:12"]


DEPTH = """I64 twice(I64 x) {
    return x * 2;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = twice(a[i]) / a[i];
}
export I64 run() {
    I64[2] a = [3, 0];
    I64[2] b;
    k(a, b);
    return b[0];
}
"""


@needs_cc
def test_a_dispatch_is_no_call_for_the_depth(tmp_path):
    # depth 2: run and the call of twice inside the work-item; the dispatch takes no frame of its own
    out = both(tmp_path, DEPTH, name="d2", depth=2)
    assert "fault.code E_DIV_ZERO" in out and lines(out, "fault.stack ") == ["d2.ci:10:5"]
    out = both(tmp_path, DEPTH, name="d1", depth=1)
    assert "fault.code E_DEPTH" in out and lines(out, "fault.stack ") == ["d1.ci:10:5"]
    assert "fault.address 0 0 " in out


ENTRY = """kernel copyk[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = a[i];
}
void go(in I64[_] a, inout I64[_] b) {
    copyk(a, b);
}
export I64 run() {
    I64[4] a;
    I64[3] b;
    go(a, b);
    return 0;
}
"""


@needs_cc
def test_entry_phase_fault_has_the_callers_stack_only(tmp_path):
    out = both(tmp_path, ENTRY, name="en")
    assert "fault.operation bind.shape" in out and "fault.address none" in out
    assert "fault.position en.ci:5:5" in out and lines(out, "fault.stack ") == ["en.ci:10:5"]
    # the dispatch's fuel charge (3 units) beyond the budget: entry 1 + call 1, then 3 more
    fuel = ENTRY.replace("I64[4] a;", "I64[3] a;")
    out = both(tmp_path, fuel, name="ef", fuel=4)
    assert "fault.code E_FUEL" in out and "fault.address none" in out
    assert "fault.position ef.ci:5:5" in out and lines(out, "fault.stack ") == ["ef.ci:10:5"]
    assert lines(out, "fuel-consumed ") == ["2"]


# ----------------------------------------------------------------------------- 2. `where` on kernels

KWHERE = """kernel pair[n, m](in I64[n] a, in I64[m] b, out I64[n] c) over [i: n]
        where n >= 1 && (m <= n), n != 3, (m == 0 || m == n) && 2 > 1 {
    c[i] = a[i] + n * 10 + m;
}
export I64 run(I64 which) {
    I64[2] a2 = [1, 2];
    I64[3] a3;
    I64[1] b1;
    I64[3] b3;
    I64[2] c2;
    I64[3] c3;
    if (which == 0) {
        pair(a2, b1[0..0], c2);
        return c2[1];
    }
    if (which == 1) {
        pair(a2, b3, c2);
    }
    if (which == 2) {
        pair(a3, b1[0..0], c3);
    }
    if (which == 3) {
        pair(a2, b1, c2);
    }
    return -1;
}
"""


@needs_cc
@pytest.mark.parametrize("which, operands", [
    (1, ["I64 1", "I64 3", "I64 2"]),       # m <= n with m = 3, n = 2
    (2, ["I64 2", "I64 3", "I64 3"]),       # n != 3
    (3, ["I64 3"]),                         # (m == 0 || m == n): no single comparison
])
def test_kernel_where_false(tmp_path, which, operands):
    out = both(tmp_path, KWHERE, name="kw%d" % which, args=["I64 %d" % which])
    assert "fault.code E_SHAPE" in out and "fault.operation bind.where" in out
    assert lines(out, "fault.operand ") == operands
    assert "fault.exact none" in out and "fault.limit none" in out
    assert "fault.address none" in out       # format 2: the entry phase has no work-item address
    assert lines(out, "fault.stack-depth ") == ["0"]
    assert lines(out, "fuel-consumed ") == ["1"]     # no dispatch charge


@needs_cc
def test_kernel_where_true(tmp_path):
    out = both(tmp_path, KWHERE, name="kt", args=["I64 0"])
    assert "outcome value" in out and "return I64 22" in out and "fuel-consumed 3" in out


def test_kernel_where_needs_size_symbols():
    from compiler_testkit import compile_error
    e = compile_error("kernel k(in I64 x) over [i: 3] where 1 > 0 { }\n")
    assert e.code in ("C2001", "C9102")


# ----------------------------------------------------------------------------- 2b. function `where` (decision 18)

FWHERE = """I64 f[n, m](in I64[n] a, in I64[m] b) where n > 0 && m < n + 0, !(m == 2) {
    return n + m;
}
"""


def test_function_where_is_one_expression():
    from compiler_testkit import compile_error
    e = compile_error(FWHERE + "export I64 run() { return 0; }\n")
    assert e.code.startswith("C")


FW = """I64 f[n, m](in I64[n] a, in I64[m] b) where n > 0 && (m < n && !(m == 2)) {
    return n + m;
}
I64 g[n](in I64[n] a) {
    return f(a, a[0..n - 1]);
}
export I64 run(I64 which) {
    I64[5] a;
    I64[0] z;
    I64[3] t;
    if (which == 0) {
        return f(a, t[0..1]) * 100 + g(a);
    }
    if (which == 1) {
        return f(z, z);
    }
    if (which == 2) {
        return f(a, a);
    }
    return f(t, t[0..2]);
}
"""


@needs_cc
@pytest.mark.parametrize("which, operands, stack", [
    (1, ["I64 0", "I64 0", "I64 0"], []),           # n > 0
    (2, ["I64 1", "I64 5", "I64 5"], []),           # m < n
    (3, ["I64 2"], []),                             # !(m == 2): the index only
])
def test_function_where_record(tmp_path, which, operands, stack):
    out = both(tmp_path, FW, name="fw%d" % which, args=["I64 %d" % which])
    assert "fault.operation bind.where" in out and lines(out, "fault.operand ") == operands
    assert lines(out, "fault.stack ") == stack and "fault.exact none" in out


@needs_cc
def test_function_where_holds(tmp_path):
    out = both(tmp_path, FW, name="fh", args=["I64 0"])
    assert "return I64 609" in out


# ----------------------------------------------------------------------------- 2c. a kernel export with `where`

HOSTK = """export kernel dbl[n](in I64[n] a, out I64[n] b) over [i: n] where n >= 2, n <= 4 {
    b[i] = a[i] * 2;
}
"""


@needs_cc
def test_kernel_export_checks_where_at_host_entry(tmp_path, monkeypatch):
    cint = pytest.importorskip("cint")
    monkeypatch.setenv("CINT_PY_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "hk.ci"
    src.write_text(HOSTK)
    try:
        ctx = cint.load(src).context()
    except Exception as ex:                      # an export form this checkout does not build
        pytest.skip("no kernel export: %s" % ex)
    b = cint.copy([0, 0, 0], elem="I64")
    ctx.dbl(a=cint.copy([1, 2, 3], elem="I64"), b=b)
    assert b.tolist() == [2, 4, 6]
    b5 = cint.copy([9] * 5, elem="I64")
    with pytest.raises(cint.ShapeFault) as ei:
        ctx.dbl(a=cint.copy([1] * 5, elem="I64"), b=b5)
    assert ei.value.operation == "bind.where"
    assert ei.value.operands == (1, 5, 4)
    assert ei.value.stack == ()                  # the dispatch is the entry (LS-288)
    assert b5.tolist() == [9] * 5
    ctx.clear_fault()


# ----------------------------------------------------------------------------- 3. the result built-ins

CODE = """I64 code(ArithError e) {
    if (e == ArithError.overflow) {
        return -1;
    }
    if (e == ArithError.div_zero) {
        return -2;
    }
    if (e == ArithError.shift) {
        return -3;
    }
    return -4;
}
"""

OPS = ("add_result", "sub_result", "mul_result", "div_result", "rem_result", "shl_result")

# (operation, a, b, the value, or the ArithError code: -1 overflow, -2 div_zero, -3 shift)
CASES = {
    "I8": [("div_result", "I8.min", "-1", -1), ("div_result", "-7", "2", "-4"), ("div_result", "5", "0", -2),
           ("rem_result", "-7", "2", "1"), ("rem_result", "I8.min", "-1", "0"), ("rem_result", "3", "0", -2),
           ("add_result", "100", "27", "127"), ("add_result", "100", "28", -1), ("sub_result", "-100", "29", -1),
           ("mul_result", "-16", "8", "-128"), ("mul_result", "16", "8", -1), ("shl_result", "3", "5", "96"),
           ("shl_result", "3", "6", -1), ("shl_result", "1", "8", -3), ("shl_result", "1", "-1", -3)],
    "U16": [("div_result", "65535", "2", "32767"), ("div_result", "1", "0", -2), ("sub_result", "0", "1", -1),
            ("rem_result", "65535", "7", "1"), ("mul_result", "256", "256", -1), ("shl_result", "1", "15", "32768"),
            ("shl_result", "2", "15", -1)],
    "I64": [("div_result", "I64.min", "-1", -1), ("div_result", "-9", "4", "-3"), ("rem_result", "-9", "4", "3"),
            ("rem_result", "I64.min", "-1", "0"), ("div_result", "7", "0", -2), ("add_result", "I64.max", "1", -1),
            ("mul_result", "I64.min", "-1", -1), ("shl_result", "-1", "63", "I64.min"), ("shl_result", "1", "63", -1),
            ("shl_result", "1", "64", -3), ("div_result", "10", "2", "5")],
    "U64": [("div_result", "U64.max", "3", "6148914691236517205"), ("add_result", "U64.max", "1", -1),
            ("rem_result", "10", "0", -2), ("shl_result", "1", "62", "4611686018427387904")],
    "I128": [("div_result", "I128.min", "-1", -1), ("div_result", "-7", "2", "-4"), ("rem_result", "-7", "2", "1"),
             ("div_result", "1", "0", -2), ("mul_result", "I128.max", "2", -1), ("shl_result", "1", "127", -1),
             ("shl_result", "1", "128", -3), ("add_result", "I128.max", "0", "I128.max"),
             ("shl_result", "-1", "127", "I128.min")],
    "I256": [("div_result", "I256.min", "-1", -1), ("rem_result", "-9", "4", "3"), ("sub_result", "I256.min", "1", -1),
             ("div_result", "5", "0", -2), ("rem_result", "I256.min", "-1", "0")],
}


def lit(x, T):
    return x if x.startswith(T + ".") else "(%s as %s)" % (x, T)


def results_program(T, cases):
    fns = []
    for op in OPS:
        bt = "I64" if op == "shl_result" else T
        fns.append("""I64 t_%s(%s a, %s b, %s want) {
    %s v = %s(a, b) catch (e) {
        return code(e);
    };
    if (v == want) {
        return 1;
    }
    return 0;
}
""" % (op, T, bt, T, T, op))
    body = []
    for name, a, b, want in cases:
        w = lit(want, T) if isinstance(want, str) else lit("0", T)
        bb = b if name == "shl_result" else lit(b, T)
        body.append('    "{t_%s(%s, %s, %s)} ";' % (name, lit(a, T), bb, w))
    body.append('    "\\n";')
    return CODE + "".join(fns) + "export I64 run() {\n" + "\n".join(body) + "\n    return 0;\n}\n"


def expected(cases):
    return ("".join("%s " % (w if isinstance(w, int) else 1) for _, _, _, w in cases) + "\n").encode()


@needs_cc
@pytest.mark.parametrize("T", sorted(CASES))
def test_result_builtins(tmp_path, T):
    src = results_program(T, CASES[T])
    out = both(tmp_path, src, name="r_%s" % T.lower())
    assert "outcome value" in out
    assert run(src).stdout == expected(CASES[T])
