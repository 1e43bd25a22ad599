"""I128, I256, I512 and I1024 on the executor cpu-c17 against the reference executor.

Every program runs on both executors through `outcome.expect_text`; the two texts (status, fault record
bytes decoded field by field, fuel, stdout, result, module variables) must be equal and not a refusal.

* one program per width computes every non-faulting operator form over boundary values
  (MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX and a large value) and prints every result;
* one program per width and faulting case checks the fault record of each checked form, named
  operation, conversion, shift count, reduction and index on those boundary values;
* wide values as parameters, results, struct fields, array elements, module variables and
  error-union values.
"""
import functools
import shutil

import pytest

from compiler_testkit import both as _both


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

WIDTHS = [128, 256, 512, 1024]


def bounds(w):
    return -(1 << (w - 1)), (1 << (w - 1)) - 1


both = functools.partial(_both, allow_compile_error=True)

def values(w):
    lo, hi = bounds(w)
    big = (hi // 3) * 2 + 12345
    return [lo, lo + 1, -1, 0, 1, hi - 1, hi, big, -big, 7, -3]


def value_program(w):
    T = "I%d" % w
    vs = values(w)
    half = "I%d" % (w // 2) if w > 128 else "I64"
    counts = [0, 1, 3, 63, 64, 65, w // 2, w - 2, w - 1]
    return """
{T} G = {hi};
struct S {{ {T} x; I64 n; {T}[2] ys; }}
{T} twice(in {T} a) {{ return a +% a; }}
void doubled(in {T}[_] xs, inout {T}[_] ys) {{
    for i, x in xs {{ ys[i] = twice(x); }}
}}
export {T} run() {{
    {T}[{n}] vs = [{vs}];
    I64[{nc}] ks = [{ks}];
    for i in 0..{n} {{
        {T} a = vs[i];
        "{{a}} {{-% a}} {{~a}} {{a as% I8}} {{a as% U64}} {{a as% I64}} {{a as% {half}}} {{a as% I1024}} {{abs(a +| 1)}}";
        for j in 0..{n} {{
            {T} b = vs[j];
            "{{a +% b}} {{a -% b}} {{a *% b}} {{a +| b}} {{a -| b}} {{a *| b}} {{a & b}} {{a | b}} {{a ^ b}}";
            "{{a == b}} {{a != b}} {{a < b}} {{a <= b}} {{a > b}} {{a >= b}} {{min(a, b)}} {{max(a, b)}}";
            if (b != 0 && !(a == {lo} && b == -1)) {{
                "{{a / b}} {{a % b}} {{div_trunc(a, b)}} {{rem_trunc(a, b)}} {{div_euclid(a, b)}} {{rem_euclid(a, b)}}";
                "{{div_round(a, b, half_even)}} {{div_round(a, b, floor)}} {{div_round(a, b, ceil)}} {{div_round(a, b, half_away)}}";
                "{{muldiv({T}, a, 1, b, trunc)}} {{muldiv(I1024, a as% {T}, b, b, half_up)}}";
            }}
            if ((a +| b) == (a +% b)) {{ "{{a + b}}"; }}
            if ((a -| b) == (a -% b)) {{ "{{a - b}}"; }}
            if ((a *| b) == (a *% b) && (a *| b) != {lo} && (a *| b) != {hi}) {{ "{{a * b}}"; }}
            if (a <= b) {{ "{{clamp(vs[0], a, b)}} {{clamp(vs[6], a, b)}} {{clamp(0, a, b)}}"; }}
        }}
        for k in 0..{nc} {{
            I64 c = ks[k];
            "{{a <<% c}} {{a >> c}} {{a >> (c as I16)}} {{a >> (c as {T})}}";
            if (((a <<% c) >> c) == a) {{ "{{a << c}}"; }}
        }}
        if (a >= 0) {{ "{{isqrt(a)}} {{isqrt_round(a, half_even)}} {{isqrt_round(a, ceil)}} {{isqrt_round(a, floor)}}"; }}
        I64 q1 = a as? I64 catch 5;
        I16 q2 = a as? I16 catch -5;
        "{{q1}} {{q2}} {{(a as% I64) as {T}}} {{(a as% U8) as {T}}}";
    }}
    "{{sum(vs[2..5])}} {{sum(I1024, vs)}} {{sum(I1024, ks)}} {{sum({T}, ks)}}";
    S s;
    s.x = vs[6];
    s.ys[1] = vs[0];
    S t = s;
    t.ys[0] = twice(t.x);
    {T}[{n}] d;
    doubled(vs, d);
    "{{s.x}} {{t.ys[0]}} {{t.ys[1]}} {{d[7]}} {{G}}";
    G = G -% vs[7];
    return vs[0] +% d[8];
}}
""".format(T=T, n=len(vs), vs=", ".join(str(v) for v in vs), nc=len(counts), ks=", ".join(str(k) for k in counts),
           lo=bounds(w)[0], hi=bounds(w)[1], half=half)


@pytest.mark.clause("SPEC-03P.1 4", "IM-30", "IM-45", "IM-47", "IM-48", "IM-50")
@pytest.mark.parametrize("w", WIDTHS)
def test_every_form_on_boundary_values(tmp_path, w):
    text = both(tmp_path, value_program(w), name="v%d" % w)
    assert "outcome value" in text


def fault_cases(w):
    lo, hi = bounds(w)
    T = "I%d" % w
    narrower = "I%d" % (w // 2) if w > 128 else "I64"
    wider = "I%d" % (w * 2) if w < 1024 else None
    cases = [
        ("a + b", hi, 1, "add.checked"), ("a + b", lo, -1, "add.checked"),
        ("a - b", lo, 1, "sub.checked"), ("a - b", hi, -1, "sub.checked"),
        ("a * b", hi, 2, "mul.checked"), ("a * b", lo, -1, "mul.checked"), ("a * b", lo, lo, "mul.checked"),
        ("-a", lo, 0, "neg.checked"),
        ("a / b", 1, 0, "div.checked"), ("a / b", lo, -1, "div.checked"), ("a % b", hi, 0, "rem.checked"),
        ("a << 1", hi, 0, "shl.checked"), ("a << 1", lo, 0, "shl.checked"), ("a << b", -1, w, "shl.checked"),
        ("a << (b as I8)", 1, -1, "shl.checked"), ("a <<% b", 1, w, "shl.wrap"), ("a >> b", 1, w + 7, "shr.checked"),
        ("a >> b", 1, -1, "shr.checked"), ("a << b", 3, w - 2, "shl.checked"),
        ("(a as I32) << b", 1, 1 << (w - 2), "shl.checked"), ("(a as I8) >> b", 1, -5, "shr.checked"),
        ("a as I64", hi, 0, "as.checked"), ("a as U8", lo, 0, "as.checked"), ("a as U64", -1, 0, "as.checked"),
        ("a as %s" % narrower, hi, 0, "as.checked"), ("(a as I64) + (b as I64)", 1 << 62, 1 << 62, "add.checked"),
        ("abs(a)", lo, 0, "abs.checked"),
        ("div_trunc(a, b)", lo, -1, "div_trunc.checked"), ("rem_trunc(a, b)", 1, 0, "rem_trunc.checked"),
        ("div_euclid(a, b)", lo, -1, "div_euclid.checked"), ("rem_euclid(a, b)", 5, 0, "rem_euclid.checked"),
        ("clamp(a, b, 0)", 3, 5, "clamp.checked"), ("isqrt(a)", -1, 0, "isqrt.checked"),
        ("isqrt_round(b, half_up)", 0, lo, "isqrt_round.checked"),
        ("div_round(a, b, floor)", lo, -1, "div_round.checked"), ("div_round(a, b, half_even)", 1, 0, "div_round.checked"),
        ("muldiv(%s, a, b, 1, floor)" % T, hi, hi, "muldiv.checked"), ("muldiv(%s, a, b, 0, floor)" % T, 1, 1,
                                                                      "muldiv.checked"),
        ("muldiv(I64, a, b, 3, half_even)", hi, -7, "muldiv.checked"),
    ]
    if wider:
        cases.append(("(mul_full(a, b) as %s)" % T, lo, lo, "as.checked"))
    out = []
    for expr, a, b, op in cases:
        out.append(("""export I64 run() {{
    {T} a = {a};
    {T} b = {b};
    {T} c = ({expr}) as {T};
    return 1;
}}
""".format(T=T, a=a, b=b, expr=expr), op))
    # statements: compound assignment, ++, sums, indices, asserts
    stmts = [
        ("{T} a = {hi}; a += 1;", "add.checked"), ("{T} a = {lo}; a--;", "sub.checked"),
        ("{T} a = {hi}; a *= 2;", "mul.checked"), ("{T} a = 1; a <<= {w};", "shl.checked"),
        ("{T}[3] xs = [{hi}, 1, 5]; {T} s = sum(xs);", "sum.checked"),
        ("{T}[2] xs = [{lo}, -1]; I64 s = sum(I64, xs);", "sum.checked"),
        ("I64[2] xs = [1, 2]; {T} s = sum({T}, xs); I8 t = sum(I8, xs) + 126;", "add.checked"),
        ("{T}[2] xs = [1, 2]; I64 k = 2; {T} v = xs[k];", "index.checked"),
        ("{T}[2] xs = [1, 2]; xs[1] = xs[0] + {hi};", "add.checked"),
        ("{T} a = {lo}; {T} b = {hi}; assert(a == b);", "assert.checked"),
    ]
    for body, op in stmts:
        out.append(("export I64 run() {\n    %s\n    return 1;\n}\n" % body.format(T=T, hi=hi, lo=lo, w=w), op))
    return out


CASES = [(w, k) for w in WIDTHS for k in range(len(fault_cases(w)))]


@pytest.mark.clause("SPEC-03P.1 4", "IM-30", "IM-35", "IM-45", "IM-49", "IM-50", "IM-51", "IM-52", "IM-77")
@pytest.mark.parametrize("w,k", CASES)
def test_fault_records_of_every_checked_form(tmp_path, w, k):
    src, op = fault_cases(w)[k]
    text = both(tmp_path, src, name="f%d_%d" % (w, k))
    if op is None:
        assert "outcome fault" in text
    else:
        assert "fault.operation %s" % op in text, text


@pytest.mark.clause("SPEC-03P.1 4", "SPEC-04 LS-95")
@pytest.mark.parametrize("w", WIDTHS)
def test_parameters_results_structs_globals_and_error_unions(tmp_path, w):
    T = "I%d" % w
    lo, hi = bounds(w)
    src = """
{T} G = {lo};
I64 N = 0;
struct P {{ {T} a; I8 b; {T}[3] c; }}
P make({T} x, I8 y) {{ P p; p.a = x; p.b = y; p.c[2] = x -% 1; return p; }}
ArithError!{T} narrow_back(I1024 v) {{ {T} r = v as? {T} catch 77; if (r == 77) {{ return ArithError.narrow; }} return r; }}
void bump(inout {T}[_] xs) {{ for i in 0..extent(xs, 0) {{ xs[i] = xs[i] +| {hi}; }} }}
export {T} run() {{
    P p = make({hi}, -3);
    {T}[4] xs = [1, -1, {lo}, {hi}];
    bump(xs);
    {T} e = narrow_back((({hi} as I1024) +% 1)) catch 78;
    {T} f = narrow_back(-5) catch 78;
    G = G +% p.c[2];
    N = (G as% I64);
    "{{p.a}} {{p.b}} {{p.c[2]}} {{xs[0]}} {{xs[2]}} {{xs[3]}} {{e}} {{f}} {{G}}";
    fill(xs, -2);
    I64 m = -9223372036854775807 - 1;
    "{{equal(xs[0..2], xs[2..4])}} {{xs[1]}} {{mul_full(m, m)}} {{mul_full(m, 9223372036854775807)}}";
    return p.c[2];
}}
""".format(T=T, lo=lo, hi=hi)
    text = both(tmp_path, src, name="s%d" % w)
    assert "outcome value" in text


@pytest.mark.clause("SPEC-03P.1 4")
def test_fuel_is_charged_like_the_reference(tmp_path):
    src = """export I256 run() {
    I256 a = 1;
    for i in 0..40 { a = a *| 3; "{a}"; }
    return a;
}
"""
    for fuel in (5, 17, 60):
        both(tmp_path, src, name="fuel%d" % fuel, fuel=fuel)


@pytest.mark.clause("SPEC-03P.1 4")
def test_former_refusals_are_taken(tmp_path):
    """Wide values in kernels and switches over them are no longer refused (test_backend_wide2.py runs
    them against the reference; wide export parameters: test_backend_boundary.py)."""
    from cint_compiler.backend.c17.emit import emit
    from cint_compiler.driver import compile_source
    for src in ("export I64 run() { I128 a = 1; switch (a) { case 1: return 1; default: return 0; } }\n",
                "kernel k[n](in I256[n] xs, out I256[n] ys) over [j: n] { ys[j] = xs[j] *| 3; }\n"
                "export I64 run() { I256[2] xs = [1, 2]; I256[2] ys; k(xs, ys); return 1; }\n"):
        emit(compile_source(src.encode(), "t.ci"))
