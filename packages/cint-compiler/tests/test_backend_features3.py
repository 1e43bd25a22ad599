"""The executor cpu-c17 against the reference executor on the last refusals of issue 3: printing arrays and
structs, module-level arrays of structs and of wide integers (with the canonical state), tuples holding arrays,
returning an array while deferred statements are pending, export structs with enum, error-set and Str fields.

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
position, stack and kernel address, fuel, stdout, result, module variables) must be equal and not a refusal,
and the reference executor must not give a compile error.
"""
import shutil

import pytest

from cint_compiler.outcome import expect_text

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def both(tmp_path, src, name="p", fuel=None, entry="run", args=()):
    path = tmp_path / (name + ".ci")
    path.write_text(src, encoding="utf-8")
    out = [expect_text(path, tmp_path, case_id=name, clause=None, entry=entry, args=list(args), fuel=fuel,
                       depth=None, fmt=2, executor=ex) for ex in ("ref", "cpu")]
    assert "outcome refused" not in out[1], out[1]
    assert "outcome compile-error" not in out[0], out[0]
    assert out[0] == out[1], "ref:\n%s\ncpu:\n%s" % tuple(out)
    return out[0]


# ----------------------------------------------------------------------------- printing arrays and structs

PRINTS = {
    "ints": """export I64 run() {
    I64[3] a = [1, -2, 3];
    U8[2, 3] g;
    for i in 0..2 { for j in 0..3 { g[i, j] = (i * 100 + j * 20 + 15) as U8; } }
    I16[0] e;
    I32[2, 0] z;
    "{a} {g} {e} {z}\\n";
    "{a=} {a[1..]} {g[1]} {g[.., 1]}\\n";
    return 0;
}""",
    "specs": """export I64 run() {
    I64[3] a = [1, -2, 300];
    U16[2] h = [258, 65535];
    "{a:>5} {a:+} {a:x} {a:#b} {a:_<4} {h!lanes(U8)} {h:#06x} {h!bits}\\n";
    U32[3] c = [65, 66, 955];
    "{c:c}|{c:^4c}\\n";
    return 0;
}""",
    "char_fault": """export I64 run() {
    I32[3] c = [65, -1, 66];
    "before\\n";
    "{c:c}\\n";
    return 0;
}""",
    "wide_q_bool": """export I64 run() {
    I128[2] w = [170141183460469231731687303715884105727, -5];
    I256[1, 2] v;
    v[0, 1] = 3;
    Q8.8[3] q = [1.5, -0.25, 127.99609375];
    Bool[2] b = [true, false];
    "{w} {v} {q} {b} {w:x} {q:.1} {b:>6}\\n";
    return 0;
}""",
    "enums_errors": """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
export I64 run() {
    Color[3] cs = [Color.red, Color.blue, Color.green];
    Bad[2] es = [Bad.Worse, Bad.Oops];
    "{cs} {cs:#} {cs:>6} {es} {es:<12}|\\n";
    return 0;
}""",
    "structs": """enum Color : U8 { red = 0, green = 1, blue = 7 }
error Bad { Oops, Worse }
struct P { I32 x; I32 y; }
struct R { P a; Color c; Bool on; Q4.4 q; I128 big; Bad e; I16[2, 2] m; P[2] ps; }
export I64 run() {
    P p = P(1, y = -2);
    R r;
    r.a = p;
    r.c = Color.blue;
    r.on = true;
    r.q = 2.5;
    r.big = -1;
    r.e = Bad.Worse;
    r.m[1, 0] = 9;
    r.ps[1].y = 4;
    "{p} {p=} {r}\\n";
    P[2] ps;
    ps[0].x = 5;
    R[1] rs;
    rs[0].c = Color.green;
    rs[0].e = Bad.Oops;
    "{ps} {rs} {ps[1..]}\\n";
    return 0;
}""",
    "params_views": """struct P { I32 x; U8 y; }
void show(in I64[_, _] g, in P[_] ps) {
    "{g} {g[1]} {ps}\\n";
}
export I64 run() {
    I64[3, 2] g;
    for i in 0..3 { for j in 0..2 { g[i, j] = i * 2 + j - 3; } }
    P[3] ps;
    ps[2].y = 200;
    show(g, ps);
    show(g[1..], ps[..2]);
    return 0;
}""",
}


@pytest.mark.parametrize("name", sorted(PRINTS))
def test_print_arrays_structs(tmp_path, name):
    both(tmp_path, PRINTS[name])
