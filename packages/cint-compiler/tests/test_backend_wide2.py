"""I128..I1024 on the executor cpu-c17, second part: in kernels, as a switch scrutinee, and under the
format specifications of print holes.

Every program runs on both executors; the whole outcome texts (status, the fault record field by field
with its kernel address and step ordinal, fuel, stdout, result) must be equal, the reference must not
give a compile error and cpu-c17 must not refuse.

* kernels: one program per width that uses every operator form, compound assignment, conversion,
  named operation, `as?`, private arrays, structs, loops and `sum` on wide values in the general
  kernel path; the checked forms faulting in a late work-item after a prefix of counted steps;
* switch: labels at the bounds, ranges across them, fallthrough and the default, also in a kernel;
* format specifications: every LS-215 row that applies to integers (fill, alignment, sign, `#`, `0`,
  width, grouping, x/X/o/b/t/c, scales, `!bits`, `!lanes(T)`), fixed programs and random ones over
  the boundary values of each width, and the `c` fault (format.char.<T>).
"""
import random
import shutil

import pytest

from cint_compiler.semantics.fmt import parse_spec
from cint_compiler.diagnostics import CompileError
from cint_compiler.conformance.outcome import render, run_case
from cint_compiler.semantics.types import INT_TYPES

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

WIDTHS = [128, 256, 512, 1024]


def bounds(w):
    return -(1 << (w - 1)), (1 << (w - 1)) - 1


def both(tmp_path, src, name="p", fuel=None):
    path = tmp_path / (name + ".ci")
    path.write_text(src, encoding="utf-8")
    outs = [run_case(path, tmp_path, entry="run", args=[], fuel=fuel, depth=None, executor=ex)
            for ex in ("ref", "cpu")]
    texts = [render(o, name, None, 2) for o in outs]
    assert "outcome compile-error" not in texts[0], texts[0]
    assert "outcome refused" not in texts[1], texts[1]
    if outs[0].stdout != outs[1].stdout:
        a, b = outs[0].stdout.splitlines(), outs[1].stdout.splitlines()
        diff = [(k, x, y) for k, (x, y) in enumerate(zip(a, b)) if x != y][:3]
        raise AssertionError("stdout differs (line, ref, cpu): %r\n%d vs %d lines" % (diff, len(a), len(b)))
    assert texts[0] == texts[1], "ref:\n%s\ncpu:\n%s" % tuple(texts)
    return texts[0], outs[0].stdout.decode("utf-8", "surrogateescape")


def values(w):
    lo, hi = bounds(w)
    big = (hi // 3) * 2 + 12345
    return [lo, lo + 1, -1, 0, 1, hi - 1, hi, big, -big, 7, -3, 0x1F600, 1 << 64, -(1 << 64) + 5]


# ----------------------------------------------------------------------------- kernels

def kernel_program(w):
    T = "I%d" % w
    W = "I%d" % min(2 * w, 1024)
    half = "I%d" % (w // 2) if w > 128 else "I64"
    lo, hi = bounds(w)
    vs = values(w)
    return """
struct P {{ {T} a; I64 n; {T}[2] c; }}
kernel k[n](in {T}[n] xs, in {T}[n] ys, in {T} s, inout {T}[n] acc, out {T}[n] zs, out I64[n] ns) over [j: n] {{
    {T} a = xs[j];
    {T} b = ys[j];
    {T} c = a +% b;
    c = c *| 3;
    c = c -| s;
    c +%= 1;
    c -%= b;
    c *%= -1;
    c |= a;
    c ^= b;
    c &= ~s;
    {T} d = -% c;
    {T} e = (a +| b) >> 3;
    {T} f = a <<% (j as {T});
    {T} g = a >> ((b as% U8) & 63);
    {T} h = min(a, b) +% max(a, b) +% clamp(a, -100, 100);
    {T} q = abs(a >> 1);
    {W} m = {mulfull};
    {T} dv = 0;
    if (b != 0 && !(a == {lo} && b == -1)) {{
        dv = (a / b) +% (a % b) +% div_trunc(a, b) +% rem_trunc(a, b) +% div_euclid(a, b) +% rem_euclid(a, b);
        dv = dv +% div_round(a, b, half_even) +% div_round(a, b, floor) +% muldiv({T}, a, 1, b, ceil);
    }}
    {T} r = 0;
    if (a >= 0) {{ r = isqrt(a) +% isqrt_round(a, half_up); }}
    I64 t = a as% I64;
    U8 u = a as? U8 catch 7;
    I16 v = b as? I16 catch -1;
    {half} hh = a as% {half};
    {T} back = hh as {T};
    I1024 wide = (a as I1024) *| (b as I1024);
    {T} cv = (j > 1) as {T};
    {T} inc = a;
    if (a < {hi}) {{ inc++; }}
    if (a > {lo}) {{ inc--; inc--; inc++; }}
    P p;
    p.a = a +% 1;
    p.n = t;
    p.c[1] = b;
    {T}[4] pa;
    pa[j % 4] = a >> 2;
    pa[3] = b >> 2;
    {T} ps = sum(pa);
    {W} ws = sum({W}, xs);
    {T} lp = 0;
    for i in 0..4 {{
        if (pa[i] == 0) {{ continue; }}
        lp = lp +% pa[i];
    }}
    I64 sw = 0;
    switch (a) {{
        case {lo}: sw = 1;
        case -1..=1: sw = 2; fallthrough;
        case {hi}: sw = sw + 10;
        default: sw = 4;
    }}
    acc[j] = acc[j] +% (m as% {T}) +% (wide as% {T}) +% (ws as% {T}) +% p.a +% p.c[1];
    zs[j] = c +% d +% e +% f +% g +% h +% q +% dv +% r +% (t as {T}) +% (u as {T}) +% (v as {T}) +% back +% cv
        +% inc +% ps +% lp;
    ns[j] = sw +% p.n;
}}
export I64 run() {{
    {T}[{n}] xs = [{vs}];
    {T}[{n}] ys = [{ws}];
    {T}[{n}] acc = [{vs}];
    {T}[{n}] zs;
    I64[{n}] ns;
    k(xs, ys, {hi}, acc, zs, ns);
    for i in 0..{n} {{ "{{acc[i]}} {{zs[i]}} {{ns[i]}}\\n"; }}
    k(ys, xs, {lo}, acc, zs, ns);
    for i in 0..{n} {{ "{{acc[i]}} {{zs[i]}} {{ns[i]}}\\n"; }}
    return ns[2];
}}
""".format(T=T, W=W, half=half, lo=lo, hi=hi, n=len(vs), vs=", ".join(map(str, vs)),
           mulfull="mul_full(a, b)" if w < 1024 else "a *% b",
           ws=", ".join(map(str, reversed(vs))))


@pytest.mark.clause("SPEC-03P.1 4", "SPEC-04 LS-150", "IM-113")
@pytest.mark.parametrize("w", WIDTHS)
def test_kernel_uses_every_form(tmp_path, w):
    src = kernel_program(w)
    text, out = both(tmp_path, src, name="k%d" % w)
    assert "outcome value" in text and out.count("\n") == 2 * len(values(w))


def kernel_fault_cases():
    """(width, expression, a, b, operation): each checked form of test_backend_wide's expression cases
    (`T c = (EXPR) as T;`) once, at a width that turns with the case."""
    from test_backend_wide import fault_cases
    per = {}
    for w in WIDTHS:
        per[w] = []
        for src, op in fault_cases(w):
            rows = src.splitlines()
            line = [x for x in rows if " c = (" in x]
            if not line:
                continue
            expr = line[0].split(" c = (", 1)[1].rsplit(") as ", 1)[0]
            a = int([x for x in rows if " a = " in x][0].split("=")[1].strip(" ;"))
            b = int([x for x in rows if " b = " in x][0].split("=")[1].strip(" ;"))
            per[w].append((w, expr, a, b, op))
    n = max(len(x) for x in per.values())
    return [per[WIDTHS[i % 4]][i] if i < len(per[WIDTHS[i % 4]]) else per[128][i] for i in range(n)]


FAULTS = kernel_fault_cases()
KCASES = list(range(len(FAULTS)))


@pytest.mark.clause("SPEC-03P.1 4", "IM-113", "IM-30", "IM-45", "IM-50")
@pytest.mark.parametrize("k", KCASES)
def test_kernel_fault_records(tmp_path, k):
    """The fault of a checked form in work-item 2, after a prefix of counted steps that differs per item:
    the record, the kernel address (dispatch, work-item, step ordinal) and the fuel."""
    w, expr, a, b, op = FAULTS[k]
    T = "I%d" % w
    src = """
kernel k[n](in {T}[n] xa, in {T}[n] bs, out {T}[n] cs) over [j: n] {{
    {T} a = xa[j];
    {T} b = bs[j];
    {T} x = 0;
    for i in 0..j {{ x = x +% (a >> 1) +% (b *| 2); x = x -% 1; }}
    {T} c = 0;
    if (j == 2) {{
        c = ({expr}) as {T};
    }}
    cs[j] = c +% x;
}}
export I64 run() {{
    {T}[3] xa = [{a}, {a}, {a}];
    {T}[3] bs = [{b}, {b}, {b}];
    {T}[3] cs;
    k(xa, bs, cs);
    k(xa, bs, cs);
    return 1;
}}
""".format(T=T, expr=expr, a=a, b=b)
    text, _ = both(tmp_path, src, name="kf%d" % k)
    assert "fault.operation %s" % op in text and "fault.address 0 2 " in text, text


@pytest.mark.clause("SPEC-03P.1 4", "IM-113")
def test_kernel_wide_sum_fuel_and_overflow(tmp_path):
    """sum inside a kernel: the step ordinal of its overflow and the fuel charge of the interpreter."""
    T = "I256"
    lo, hi = bounds(256)
    for fuel, vals in ((None, [hi, 1, 0]), (None, [5, 6, 7]), (3, [5, 6, 7]), (6, [5, 6, 7])):
        src = """
kernel k[n](in {T}[n] xs, out {T}[n] ys) over [j: n] {{
    {T}[70] pa;
    pa[j] = xs[j] -% 1;
    pa[69] = xs[j];
    ys[j] = sum(pa) +% sum(xs) +% (sum(I1024, pa) as% {T});
}}
export I64 run() {{
    {T}[3] xs = [{v}];
    {T}[3] ys;
    k(xs, ys);
    "{{ys[0]}} {{ys[1]}} {{ys[2]}}";
    return 1;
}}
""".format(T=T, v=", ".join(map(str, vals)))
        both(tmp_path, src, name="ks", fuel=fuel)


@pytest.mark.clause("SPEC-03P.1 4", "IM-113", "IM-186")
@pytest.mark.parametrize("w", [256, 1024])
def test_kernel_private_wide_arrays(tmp_path, w):
    """fill, copy, equal, compound assignments to elements and an index fault on wide private arrays."""
    src = """
kernel k[n](in {T}[n] xs, inout {T}[n] ys, out I64[n] zs) over [j: n] {{
    {T}[4] pa;
    fill(pa, xs[j]);
    pa[1] += 5;
    pa[2] <<= 3;
    pa[3] ^= ys[j];
    pa[0] |= 1;
    {T}[4] pb;
    copy(pb, pa);
    I64 e = equal(pa, pb) as I64;
    ys[j] = pa[1] +% pa[2] +% pa[3] +% pb[0];
    I64 idx = j * 2;
    zs[j] = e + (pa[idx] as% I64);
}}
export I64 run() {{
    {T}[3] xs = [1, -7, 3];
    {T}[3] ys = [10, 20, 30];
    I64[3] zs;
    k(xs[0..2], ys[0..2], zs[0..2]);
    "{{ys[0]}} {{zs[0]}} {{ys[1]}} {{zs[1]}}\\n";
    k(xs, ys, zs);
    return 1;
}}
""".format(T="I%d" % w)
    text, out = both(tmp_path, src, name="kp%d" % w)
    assert "fault.operation index.checked.i%d" % w in text and "fault.address 1 2 " in text, text


# ----------------------------------------------------------------------------- switch

def switch_program(w):
    T = "I%d" % w
    lo, hi = bounds(w)
    vs = values(w) + [lo + 2, hi - 2, 1 << (w - 2), -(1 << (w - 2)), 100, 101, 99]
    return """
I64 classify({T} v) {{
    I64 r = 0;
    switch (v) {{
        case {lo}: r = 1;
        case {lo1}..={q}: r = 2;
        case -5..=-1, 7: r = 3; fallthrough;
        case 0: r = r + 10;
        case 1, 2, 3: r = 4; fallthrough;
        case 100..={hi2}: r = r + 100;
        case {hi}: r = 5;
        default: r = 6;
    }}
    return r;
}}
kernel sk[n](in {T}[n] xs, out I64[n] ys) over [j: n] {{
    I64 r = 0;
    switch (xs[j] +% 1) {{
        case {lo}..=-1: r = -1;
        case 0: r = 0;
        default: r = 1;
    }}
    switch (xs[j] + 1) {{
        case 1: r = r * 10;
        default: r = r + 100;
    }}
    ys[j] = r;
}}
export I64 run() {{
    {T} x = {hi};
    switch (x) {{ case {lo}..=0: "low"; default: "high"; }}
    switch (x +% 1) {{ case {lo}: "wrapped "; default: "no"; }}
    {T}[{n}] vs = [{vs}];
    I64 t = 0;
    for i in 0..{n} {{
        I64 c = classify(vs[i]);
        t = t * 7 +% c;
        "{{c}} ";
    }}
    I64[{n}] ys;
    sk(vs, ys);
    for i in 0..{n} {{ "{{ys[i]}} "; }}
    return t;
}}
""".format(T=T, lo=lo, lo1=lo + 1, q=-(1 << (w - 2)), hi=hi, hi2=hi - 1, n=len(vs), vs=", ".join(map(str, vs)))


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-04 LS-178", "SPEC-04 LS-180", "SPEC-03P.1 4")
@pytest.mark.parametrize("w", WIDTHS)
def test_switch_over_wide_values(tmp_path, w):
    text, out = both(tmp_path, switch_program(w), name="sw%d" % w)
    # the kernel's second switch overflows on MAX (work-item 6): a fault in a kernel after the switches ran
    assert "fault.operation add.checked.i%d" % w in text, text
    assert out.startswith("highwrapped 1 2 13 10 ")


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-04 LS-180")
def test_switch_without_fault(tmp_path):
    src = """
export I64 run() {
    I1024 s = 0;
    for i in -4..5 {
        I128 v = (i as I128) << 120;
        switch (v) {
            case -(1 << 122)..=-1: s = s * 3 + 1;
            case 0: s = s * 3 + 2; fallthrough;
            case 1 << 120: s = s * 5 + 1;
            default: s = s * 7 - 1;
        }
    }
    "{s}";
    return s as% I64;
}
"""
    text, out = both(tmp_path, src, name="sw")
    assert "outcome value" in text


# ----------------------------------------------------------------------------- format specifications

FIXED_SPECS = [
    "", "d", "x", "X", "o", "b", "#x", "#X", "#o", "#b", "+", "-", " ", "+x", " #b", "_", ",", "_x", "_b", "#_o",
    ">50", "<50", "^50", "*>60", "*<61", "-^62", "\u00e9>45", "08", "+040", "#050x", "-#0100b", " 0350o", "+#_X",
    ">1", "^3,", "t", ">700t", "-t", "c", "/10", "/100", "+/1000", ">90/100000", "0200/1000000000000000000000",
    "/" + "1" + "0" * 350, "<20_", "=>400_b",
]


def spec_ok(conv, spec, T):
    try:
        parse_spec(spec, conv, INT_TYPES[T], None)
        return True
    except CompileError:
        return False


def format_program(T, vals, holes):
    lines = ["export I64 run() {"]
    for k, v in enumerate(vals):
        lines.append("    %s v%d = %d;" % (T, k, v))
    for k in range(len(vals)):
        for conv, spec in holes:
            if spec == "c" or (spec and spec[-1] == "c"):
                continue
            h = "{v%d%s%s}" % (k, "!" + conv if conv else "", ":" + spec if spec is not None else "")
            lines.append('    "%s|\\n";' % h.replace("\\", "\\\\").replace('"', '\\"'))
    lines += ["    return 1;", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.clause("SPEC-04 LS-201", "SPEC-04 LS-202", "SPEC-04 LS-205", "SPEC-04 LS-211", "SPEC-04 LS-215")
@pytest.mark.parametrize("w", WIDTHS)
def test_format_specs_on_boundary_values(tmp_path, w):
    T = "I%d" % w
    holes = [(None, s) for s in FIXED_SPECS] + [("bits", s) for s in ("x", "#b", "_X", "o", "#040x", "+x", "")]
    holes += [("lanes(%s)" % L, s) for L in ("U8", "U16", "U32", "U64") for s in ("", "#x", ">5")]
    holes = [(c, s) for c, s in holes if spec_ok(c, s, T)]
    assert len(holes) > 50
    text, out = both(tmp_path, format_program(T, values(w), holes), name="fmt%d" % w)
    assert "outcome value" in text
    lo, _ = bounds(w)
    assert "%d|" % lo in out and "-0x%x|" % -lo in out


def random_spec(rnd):
    """A spec from the grammar of LS-202 with the parts that apply to integers (some do not check)."""
    parts = []
    if rnd.random() < 0.4:
        parts.append(rnd.choice(["", "*", "0", "\u00e9", " ", "-"]) + rnd.choice("<>^"))
    if rnd.random() < 0.4:
        parts.append(rnd.choice("+- "))
    if rnd.random() < 0.3:
        parts.append("#")
    if rnd.random() < 0.2:
        parts.append("0")
    if rnd.random() < 0.5:
        parts.append(str(rnd.choice([1, 5, 40, 80, 150, 330, 1100])))
    if rnd.random() < 0.3:
        parts.append(rnd.choice("_,"))
    if rnd.random() < 0.7:
        parts.append(rnd.choice("dxXobt"))
    if rnd.random() < 0.15:
        parts.append("/1" + "0" * rnd.choice([1, 2, 19, 20, 39, 40, 77, 155, 309, 400]))
    return "".join(parts)


@pytest.mark.clause("SPEC-04 LS-201", "SPEC-04 LS-202", "SPEC-04 LS-213", "SPEC-04 LS-215")
@pytest.mark.parametrize("seed", range(8))
def test_random_format_programs(tmp_path, seed):
    rnd = random.Random(seed)
    w = WIDTHS[seed % 4]
    T = "I%d" % w
    holes = []
    while len(holes) < 40:
        conv = rnd.choice([None] * 6 + ["bits", "lanes(U8)", "lanes(U32)", "lanes(U64)"])
        spec = random_spec(rnd)
        if spec_ok(conv, spec, T):
            holes.append((conv, spec))
    lo, hi = bounds(w)
    vals = rnd.sample(values(w), 6) + [rnd.randint(lo, hi), rnd.randint(-(1 << 70), 1 << 70)]
    text, _ = both(tmp_path, format_program(T, vals, holes), name="rf%d" % seed)
    assert "outcome value" in text


@pytest.mark.clause("SPEC-04 LS-209")
@pytest.mark.parametrize("w", [128, 1024])
def test_format_char_and_its_fault(tmp_path, w):
    T = "I%d" % w
    ok = """export I64 run() {{
    {T}[5] cs = [65, 0xE9, 0x20AC, 0x1F600, 0x10FFFF];
    for i in 0..5 {{ "{{cs[i]:c}} {{cs[i]:*^5c}} {{cs[i]:<3c}}|"; }}
    {T} m = 0x0041_0042_0043;
    "{{m!lanes(U16):c}} {{m!lanes(U32):>3c}} {{m=:#x}} {{m=}}";
    return 1;
}}
""".format(T=T)
    both(tmp_path, ok, name="c%d" % w)
    for bad in (-1, 0x110000, 0xD800, 0xDFFF, 1 << 64, bounds(w)[0]):
        src = """export I64 run() {{
    {T} v = {bad};
    "before {{v}}\\n";
    "{{v:>4}} {{v:c}}";
    return 1;
}}
""".format(T=T, bad=bad)
        text, _ = both(tmp_path, src, name="cb%d" % w)
        assert "fault.operation format.char.i%d" % w in text, text
    src = """export I64 run() {{
    {T} v = 0xD800_0000_0041;
    "{{v!lanes(U16):c}}";
    return 1;
}}
""".format(T=T)
    text, _ = both(tmp_path, src, name="cl%d" % w)
    assert "fault.operation format.char.u16" in text, text
