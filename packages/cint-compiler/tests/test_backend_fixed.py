"""Fixed point Q<i>.<f> on the executor cpu-c17 against the reference executor (SPEC-01 IM-54 to IM-69).

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
Q-typed operands, exact and limit, fuel, stdout, result, module variables) must be equal and not a
refusal.  A seeded generator covers Q16.16, Q32.32, Q8.8, Q1.15 and other widths: `+ - *` in every
form, `/`, unary minus, mul/div/mul_wrap/mul_sat and sqrt with every rounding mode, conversions
between integers and fixed point and between fixed-point types with round clauses, `.raw`, `T.raw(n)`
and printing (default rendering and `!raw`).
"""
import random
import functools
import shutil

import pytest

from compiler_testkit import both as _both


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


both = functools.partial(_both, allow_compile_error=True)

QT = [(16, 16), (32, 32), (8, 8), (1, 15), (4, 4), (2, 30), (1, 63), (24, 8), (3, 13), (8, 0), (64, 0), (63, 1), (1, 7)]
IT = ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64"]
MODES = ["floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc", "half_up", "half_down"]


def qn(t):
    return "Q%d.%d" % t


def rawlit(r, t):
    w = t[0] + t[1]
    c = r.random()
    if c < 0.2:
        v = r.randint(-(1 << (w - 1)) + 1, (1 << (w - 1)) - 1)
    elif c < 0.5:
        v = r.randint(-(1 << t[1]) * 4, (1 << t[1]) * 4)
    elif c < 0.6:
        v = r.choice([0, 1, -1, (1 << (w - 1)) - 1, -(1 << (w - 1)) + 1, 1 << t[1], -(1 << t[1])])
    else:
        v = r.randint(-(1 << min(w - 1, t[1] + 3)), 1 << min(w - 1, t[1] + 3))
    v = max(-(1 << (w - 1)) + 1, min((1 << (w - 1)) - 1, v))
    return "%s.raw(%d +%% z%d)" % (qn(t), v, w)       # not folded: z<w> is a zero variable


def iexpr(r, it):
    bits = int(it[1:])
    lo, hi = (-(1 << (bits - 1)) + 1, (1 << (bits - 1)) - 1) if it[0] == "I" else (0, (1 << bits) - 1)
    v = r.choice([r.randint(lo, hi), r.randint(max(lo, -40), min(hi, 40))])
    return "((%d +%% z%s) as %s)" % (v, it, it)


def qexpr(r, t, names, d=0):
    vs = [n for n, tt in names.items() if tt == t]
    if d > 2 or r.random() < 0.3:
        return r.choice(vs) if vs and r.random() < 0.7 else rawlit(r, t)

    def a():
        return qexpr(r, t, names, d + 1)
    c = r.random()
    if c < 0.35:
        op = r.choice(["+", "-", "*", "/", "+%", "-%", "*%", "+|", "-|", "*|", "+%", "*%", "*|", "-|"])
        return "(%s %s %s)" % (a(), op, a())
    if c < 0.45:
        return "(%s%s)" % (r.choice(["-", "-%"]), a())
    if c < 0.6:
        return "%s(%s, %s, %s)" % (r.choice(["mul", "div", "mul_wrap", "mul_sat"]), a(), a(), r.choice(MODES))
    if c < 0.67:
        f = r.choice(["sqrt", "sqrt_wrap", "sqrt_sat"])
        return "%s(%s)" % (f, a()) if r.random() < 0.5 else "%s(%s, %s)" % (f, a(), r.choice(MODES))
    if c < 0.85:
        s = r.choice(QT)
        rc = " round %s" % r.choice(MODES) if s[1] > t[1] and r.random() < 0.7 else ""
        return "(%s %s %s%s)" % (qexpr(r, s, names, d + 1), r.choice(["as", "as%", "as%"]), qn(t), rc)
    if c < 0.93:
        return "(%s %s %s)" % (iexpr(r, r.choice(IT)), r.choice(["as", "as%", "as%"]), qn(t))
    if c < 0.97:
        return "%s.raw(%s.raw)" % (qn(t), a())
    return "((%s %s %s) ? %s : %s)" % (a(), r.choice(["<", "<=", "==", "!=", ">", ">="]), a(), a(), a())


def program(r):
    lines = ["export I64 run() {"] + ["    %s z%s = 0;" % (x, x) for x in IT]
    lines += ["    I%d z%d = 0;" % (w, w) for w in (8, 16, 32, 64)]
    names = {}
    ts = r.sample(QT, 3)
    for k in range(r.randint(2, 5)):
        t = r.choice(ts)
        n = "v%d" % k
        lines.append("    %s %s = %s;" % (qn(t), n, qexpr(r, t, names)))
        names[n] = t
        if r.random() < 0.7:
            lines.append('    "%s={%s} %s";' % (n, n, "{%s!raw}" % n if r.random() < 0.3 else ""))
    for _ in range(r.randint(0, 3)):
        n = r.choice(list(names))
        op = r.choice(["=", "+=", "-=", "*=", "/=", "+%=", "*|="])
        lines.append("    %s %s %s;" % (n, op, qexpr(r, names[n], names)))
        lines.append('    "{%s}";' % n)
        if r.random() < 0.3:
            lines.append('    "{%s %s %s round %s}";' % (n, r.choice(["as%", "as"]), r.choice(IT), r.choice(MODES)))
    lines.append("    return %s.raw as%% I64;" % r.choice(list(names)))
    lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("chunk", range(4))
def test_generated_fixed_point_programs_agree(chunk, tmp_path):
    for seed in range(chunk * 25, chunk * 25 + 25):
        both(tmp_path, program(random.Random(seed)), name="g%d" % seed)


PROGRAMS = {
    "arith": """
Q16.16 g = 2.5;
export Q16.16 run() {
    Q16.16 a = 1.5;
    Q8.8 c = -0.75;
    Q16.16 b = a * a + g;
    b = b / 3.0;
    "{a} {b} {c} {b!raw} {a.raw}";
    Q16.16 s1 = sqrt(b); Q16.16 m1 = mul(a, b, floor); Q16.16 c1 = c as Q16.16; I32 i1 = b as I32;
    Q8.8 c2 = b as Q8.8 round floor;
    "{s1} {m1} {c1} {i1} {c2}";
    Q1.15 d = 0.5;
    "{d *% d} {d +| d} {-d} {Q16.16.raw(7)} {g}";
    g = g - a;
    Q32.32 e = 1.0;
    e = e / 3.0;
    "{e}";
    Q16.16 z = 0.0;
    return a / z;
}
""",
    "structs": """
export Q16.16 G = 1.25;
struct P { Q8.8 a; I32 n; Q32.32 b; }
Q16.16 half(Q16.16 x) { return x / 2.0; }
export Q16.16 run() {
    P p = P(0.5, 3, 2.25);
    p.a = p.a *% 3.5;
    p.b += 0.125;
    G = half(G) + (p.a as Q16.16);
    Q1.15 q = -1.0;
    Q1.15 r = q *% q;
    Q1.15 s = 0 -% q;
    Q1.15 t = -% q;
    "{p.a} {p.b} {G} {r} {s} {t} {q < r} {q == Q1.15.raw(-32768)}";
    Q16.16 m = Q16.16.raw(2147483647);
    "{m} {-m} {Q16.16.raw(-2147483647 - 1)}";
    Q1.63 u = Q1.63.raw(-9223372036854775807 - 1);
    "{u} {u *% u} {u *| u}";
    return G;
}
""",
    "faults": """
export I64 run() {
    Q16.16 a = 30000.0;
    Q16.16 b = a *| a;
    "{b}";
    Q8.8 n = -2.0;
    Q8.8 r = sqrt_sat(n);
    return r.raw as I64;
}
""",
    "q1_63": """
export I64 run() {
    I64 z64 = 0;
    Q1.63 a = Q1.63.raw(-9223372036854775807 +% z64) -| Q1.63.raw(9223372036854775807 +% z64);
    Q1.63 s = sqrt_sat(Q1.63.raw(6528511680500904042 +% z64));
    Q1.63 m = Q1.63.raw(-1421712453918395701 +% z64) *% s;
    Q1.63 r = a *| m;
    Q1.63 d = div(m, Q1.63.raw(-9223372036854775807 +% z64), half_down);
    "{a!raw} {s!raw} {m!raw} {r!raw} {r} {d}";
    return r.raw;
}
""",
    "narrow": """
export I64 run() {
    Q16.16 a = 300.75;
    I8 x = a as I8 round ceil;
    return x as I64;
}
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fixed_point_programs(tmp_path, name):
    both(tmp_path, PROGRAMS[name], name=name)


def test_fixed_point_in_a_kernel_agrees(tmp_path):
    src = """
kernel k[n](in I64[n] xs, in Q16.16 s, out I64[n] ys) over [j: n] {
    ys[j] = xs[j] + (s.raw as I64);
}
export I64 run() {
    I64[2] a = [1, 2];
    I64[2] b;
    k(a, 1.5, b);
    return b[1];
}
"""
    out = both(tmp_path, src)       # Q in kernels: test_backend_boundary.py generates more
    assert "return I64 98306" in out
