"""The executor cpu-c17 against the reference executor on the features it gained last: defer and errdefer,
error unions in every form (`catch (e) { ... }`, `as?`, conversions between error sets), tuples and divmod,
format specifications in holes, and the other gaps docs/status.md listed.

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
position and stack, fuel, stdout, result, module variables) must be equal and not a refusal.
"""
import shutil

import pytest

from compiler_testkit import both


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- defer and errdefer

DEFER = {
    "order": """export I64 run() {
    I64 x = 1;
    {
        defer { "a{x}\\n"; }
        defer { x = x * 10; "b{x}\\n"; }
        x = 2;
    }
    return x;
}""",
    "return_value_first": """I64 g = 0;
I64 f() {
    I64 x = 5;
    defer g = x;
    x = 7;
    return x + 1;
}
export I64 run() { I64 r = f(); return r * 100 + g; }""",
    "loop_break_continue": """export I64 run() {
    I64 s = 0;
    outer: for j in 0..3 {
        defer { "j{j} s{s}\\n"; }
        for i in 0..5 {
            defer s = s * 2;
            if (i == 1) {
                continue;
            }
            if (i == 3 && j == 1) {
                continue outer;
            }
            if (i == 3) {
                break;
            }
            if (j == 2) {
                break outer;
            }
            s += 1;
        }
    }
    while (s > 0) {
        defer { s = s - 7; }
        if (s < 20) {
            break;
        }
    }
    do {
        defer { "do {s}\\n"; }
        s += 1;
    } while (s < 3);
    return s;
}""",
    "switch_fallthrough": """I64 f(I64 x) {
    I64 s = 0;
    defer { "end {s}\\n"; }
    switch (x) {
        case 0:
            defer { s = s * 10; "c0 {s}\\n"; }
            s += 1;
            fallthrough;
        case 1:
            defer { "c1 {s}\\n"; }
            s += 2;
            if (x == 1) {
                break;
            }
            s += 100;
        default:
            s = 9;
    }
    return s;
}
export I64 run() { return f(0) + f(1) + f(2); }""",
    "errdefer": """error E { bad, worse }
I64 log = 0;
E!I64 f(I64 x) {
    errdefer log = log * 10 + 1;
    defer log = log * 10 + 2;
    if (x == 0) {
        return .bad;
    }
    if (x == 1) {
        return E.worse;
    }
    return x;
}
E!I64 g(I64 x) {
    errdefer { log = log * 10 + 3; "g err {x}\\n"; }
    defer { "g {x}\\n"; }
    I64 v = try f(x);
    return v + 1;
}
export I64 run() {
    I64 a = g(5) catch 0;
    I64 b = g(0) catch -1;
    I64 c = g(1) catch -2;
    return log * 1000 + a * 10 + b + c;
}""",
    "fuel_in_defer": """I64 one() { return 1; }
export I64 run() {
    I64 s = 0;
    defer { s = one(); for i in 0..3 { s += i; } "s={s}\\n"; }
    return 0;
}""",
    "fault_in_defer": """I64 f() {
    I64 x = 9223372036854775807;
    defer { "never\\n"; }
    {
        defer x = x + 1;
        "in\\n";
    }
    return 0;
}
export I64 run() { return f(); }""",
    "no_defer_after_fault": """export I64 run() {
    I64[2] a = [1, 2];
    defer { "outer\\n"; }
    {
        defer { "inner\\n"; }
        I64 i = 2;
        a[i] = 0;
    }
    return 0;
}""",
    "defer_loops_and_catches": """error E { bad }
E!I64 g() { return .bad; }
export I64 run() {
    I64 s = 0;
    {
        defer {
            for i in 0..10 {
                defer s += 1;
                if (i == 3) {
                    break;
                }
                s += g() catch 5;
            }
        }
    }
    return s;
}""",
    "void_function": """I64 n = 0;
void f(I64 k) {
    defer n = n * 10 + k;
    if (k > 2) {
        return;
    }
    n += 1;
}
export I64 run() { f(1); f(3); f(2); return n; }""",
    "struct_result": """struct P { I64 a; I64[2] b; }
P f() {
    P p = P(1, b = [2, 3]);
    defer p.b[0] = 99;
    defer p.a = 7;
    return p;
}
export I64 run() { P q = f(); return q.a * 100 + q.b[0] * 10 + q.b[1]; }""",
}


@pytest.mark.parametrize("name", sorted(DEFER))
def test_defer_and_errdefer(tmp_path, name):
    both(tmp_path, DEFER[name])


@pytest.mark.parametrize("fuel", [1, 2, 3, 4, 5, 6])
def test_defer_fuel_exhaustion(tmp_path, fuel):
    both(tmp_path, DEFER["fuel_in_defer"], fuel=fuel)
    both(tmp_path, DEFER["loop_break_continue"], name="q", fuel=fuel * 3)


def test_script_defer(tmp_path):
    both(tmp_path, 'I64 x = 1;\ndefer { "end {x}\\n"; }\nx = 2;\n"mid\\n";\n', entry=None)


# ----------------------------------------------------------------------------- error unions

ERRORS = {
    "catch_block": """error E { bad, worse }
E!I64 f(I64 x) {
    if (x == 0) {
        return .bad;
    }
    if (x == 1) {
        return .worse;
    }
    return x * 2;
}
I64 g(I64 x) {
    defer { "g{x}\\n"; }
    I64 v = f(x) catch (e) {
        if (e == E.bad) {
            return -1;
        }
        "caught {e}\\n";
        return -2;
    };
    return v;
}
export I64 run() {
    I64 s = 0;
    for i in 0..4 {
        I64 w = f(i) catch (e) {
            if (e == E.worse) {
                break;
            }
            continue;
        };
        s += w;
    }
    return g(0) * 100 + g(1) * 10 + g(5) + s * 1000;
}""",
    "catch_block_try": """error E { bad }
error F { other }
error EF = E | F;
E!I64 f(I64 x) {
    if (x == 0) {
        return .bad;
    }
    return x;
}
EF!I64 h(I64 x) {
    errdefer { "h err\\n"; }
    I64 v = f(x) catch (e) {
        if (x == 0) {
            return e;
        }
        return .other;
    };
    I64 w = try f(v - 1);
    return w;
}
export I64 run() {
    I64 a = h(0) catch (e) {
        "a {e}\\n";
        return 1;
    };
    return a;
}""",
    "as_result": """export I64 run() {
    I64 s = 0;
    I64[8] xs = [0, 1, -1, 127, 128, -129, 300, 9223372036854775807];
    for i, x in xs {
        I8 a = x as? I8 catch 55;
        U8 b = x as? U8 catch 66;
        U64 c = x as? U64 catch 7;
        I32 d = x as? I32 catch (e) {
            "narrow {i} {e}\\n";
            continue;
        };
        "{a} {b} {c} {d}\\n";
        s += a as I64 + b as I64;
    }
    U64 big = 18446744073709551615;
    I64 q = big as? I64 catch -5;
    U32 r = big as? U32 catch 9;
    U16 t = 70000 as? U16 catch 3;
    U16 t2 = 7000 as? U16 catch 3;
    I8 tb = 5;
    return s + q + r as I64 + t as I64 + t2 as I64 + tb as I64;
}""",
    "error_set_conversion": """error E { bad, worse }
error F { other, bad2 }
error EF = F | E;
EF!I64 f(I64 x) {
    E e = .worse;
    F g = .bad2;
    EF k = e;
    if (x == 0) {
        return e;
    }
    if (x == 1) {
        return g;
    }
    if (x == 2) {
        return k;
    }
    k = g;
    if (k == g && k != e && e == E.worse) {
        return 7;
    }
    return 8;
}
E!I64 e1(I64 x) {
    if (x == 0) {
        return .worse;
    }
    return x;
}
EF!I64 up(I64 x) {
    I64 v = try e1(x);
    return v;
}
I64 show(EF v) {
    switch (v) {
        case E.bad:
            return 1;
        case E.worse:
            return 2;
        case F.other:
            return 3;
        default:
            return 4;
    }
}
export I64 run() {
    I64 s = 0;
    for i in 0..4 {
        I64 v = f(i) catch (e) {
            "{i}: {e} {show(e)}\\n";
            continue;
        };
        s += v;
    }
    I64 w = up(0) catch (e) {
        "up {e} {show(e)}\\n";
        return s;
    };
    return w;
}""",
    "error_outcome": """error E { bad, worse }
error F { other }
error EF = F | E;
E!I64 g() { return .worse; }
EF!I64 h() {
    defer { "d\\n"; }
    errdefer { "ed\\n"; }
    I64 v = try g();
    return v;
}
export E!I64 run() {
    errdefer { "ed2\\n"; }
    I64 w = h() catch (e) {
        if (e == F.other) {
            return 3;
        }
        return .bad;
    };
    return w;
}""",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_unions(tmp_path, name):
    both(tmp_path, ERRORS[name])


# ----------------------------------------------------------------------------- tuples and divmod

DM = "(I64, I64) dm(I64 a, I64 b) {\n    return (a / b, a % b);\n}\n"

TUPLES = {
    "declare_assign_discard": DM + """export I64 run() {
    (I64 q, I64 r) = dm(-7, 2);
    I64 s = q * 10 + r;
    (q, r) = dm(9, 4);
    (I64 h, _) = dm(9, 4);
    (_, h) = dm(h, 1);
    _ = dm(1, 1);
    return s * 1000 + q * 100 + r * 10 + h;
}""",
    "places_before_value": """I64 calls = 0;
(I64, I64) dm(I64 a, I64 b) {
    calls += 1;
    return (a / b, a % b);
}
export I64 run() {
    I64[2] a = [0, 0];
    I64 i = 5;
    (a[0], a[i]) = dm(7, 2);
    return calls;
}""",
    "place_order": """I64 n = 0;
(I64, I64) f() { n += 1; return (n, 2); }
export I64 run() {
    I64[3] a = [0, 0, 0];
    I64 i = 0;
    (a[i], i) = f();
    return a[0] * 100 + a[1] * 10 + i;
}""",
    "union_of_tuple": """error E { bad }
E!(I64, I64) f(I64 x) {
    if (x == 0) {
        return .bad;
    }
    return (x, x + 1);
}
E!I64 g(I64 x) {
    (I64 a, I64 b) = try f(x);
    return a + b;
}
export I64 run() {
    (I64 a, I64 b) = f(0) catch (7, 8);
    return (g(3) catch 0) * 100 + a * 10 + b;
}""",
    "mixed_types": """enum Color : U8 { red, green }
(I8, Bool, Color, U64) f(I8 x) { return (x, x > 0, .green, 18446744073709551615); }
export I64 run() {
    (I8 a, Bool b, Color c, U64 d) = f(-3);
    if (b || c != Color.green) {
        return 0;
    }
    return a as I64 + (d % 1000) as I64;
}""",
    "divmod_all_types": """export I64 run() {
    I64 s = 0;
    I8[6] xs = [-128, -7, 7, 127, 0, -1];
    I8[4] ds = [2, -2, 3, -3];
    for i, x in xs {
        for j, d in ds {
            (I8 q, I8 r) = divmod(x, d);
            s = s * 3 + q as I64 * 7 + r as I64;
        }
    }
    U32 a = 4000000000;
    (U32 uq, U32 ur) = divmod(a, 7);
    I64 big = -9223372036854775807;
    (I64 bq, I64 br) = divmod(big, 10);
    return s + uq as I64 + ur as I64 + bq + br;
}""",
}

DIVMOD_FAULTS = [("I64", "7", "0"), ("I8", "-128", "-1"), ("I64", "-9223372036854775807 - 1", "-1"), ("U16", "7", "0"),
                 ("I32", "-7", "2")]


@pytest.mark.parametrize("name", sorted(TUPLES))
def test_tuples(tmp_path, name):
    both(tmp_path, TUPLES[name])


@pytest.mark.parametrize("t, a, b", DIVMOD_FAULTS)
def test_divmod_faults(tmp_path, t, a, b):
    both(tmp_path, """export I64 run() {
    %s a = %s;
    %s b = %s;
    "before\\n";
    (%s q, %s r) = divmod(a, b);
    return q as I64 * 10 + r as I64;
}""" % (t, a, t, b, t, t))


# ----------------------------------------------------------------------------- format specifications

def _spec_ok(spec, conv, ty):
    from cint_compiler.diagnostics import CompileError
    from cint_compiler.semantics.fmt import parse_spec
    try:
        parse_spec(spec, conv, ty, None)
        return True
    except CompileError:
        return False


FMT_TYPES = ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "Q16.16", "Q32.32", "Q8.8", "Q1.15", "Q8.0",
             "Q1.63", "Bool", "Color", "E", "EF"]
FMT_HEAD = """enum Color : U8 { red, green = 5, blue }
error E { bad, worse }
error F { other }
error EF = F | E;
"""


def _fmt_type(name):
    from cint_compiler.semantics.types import BOOL, ErrorSetType, EnumType, INT_TYPES, parse_fixed_name
    if name in INT_TYPES:
        return INT_TYPES[name]
    if name.startswith("Q"):
        return parse_fixed_name(name)
    if name == "Bool":
        return BOOL
    if name == "Color":
        return EnumType("t.Color", INT_TYPES["U8"], {"red": 0, "green": 5, "blue": 6})
    return ErrorSetType("t." + name, INT_TYPES["U16"], [])


def _fmt_value(r, name):
    from cint_compiler.semantics.types import INT_TYPES, parse_fixed_name
    if name in INT_TYPES:
        t = INT_TYPES[name]
        v = r.choice([t.min, t.max, 0, 1, -1 if t.signed else 2, r.randint(t.min, t.max),
                      r.randint(max(t.min, -300), min(t.max, 300)), 233, 0x1F600 if t.bits > 16 else 65])
        v = max(t.min, min(t.max, v))
        return "%s" % v if v != -(1 << 63) else "-9223372036854775807 - 1"
    if name.startswith("Q"):
        t = parse_fixed_name(name)
        st = t.storage
        v = r.choice([st.min + 1, st.max, 0, 1, -1, r.randint(st.min + 1, st.max), 3 << max(t.f - 1, 0),
                      -(1 << t.f) // 8, r.randint(-(1 << t.f) * 3, (1 << t.f) * 3)])
        v = max(st.min + 1, min(st.max, v))
        return "%s.raw(%d)" % (name, v)
    if name == "Bool":
        return r.choice(["true", "false"])
    if name == "Color":
        return "Color." + r.choice(["red", "green", "blue"])
    if name == "E":
        return "E." + r.choice(["bad", "worse"])
    return r.choice(["E.bad", "E.worse", "F.other"])


def _random_spec(r):
    parts = ""
    if r.random() < 0.4:
        if r.random() < 0.5:
            parts += r.choice(["*", "\u00e9", "_", "0", " ", "x"])
        parts += r.choice("<>^")
    if r.random() < 0.3:
        parts += r.choice("+- ")
    if r.random() < 0.2:
        parts += "#"
    if r.random() < 0.2:
        parts += "0"
    if r.random() < 0.5:
        parts += str(r.choice([0, 1, 5, 8, 12, 25, 40]))
    if r.random() < 0.2:
        parts += r.choice("_,")
    if r.random() < 0.25:
        parts += "." + str(r.choice([0, 1, 2, 3, 8, 17, 30, 70]))
    if r.random() < 0.5:
        parts += r.choice("dxXobtc")
    if r.random() < 0.15:
        parts += "/" + r.choice(["10", "100", "100000", "10000000000000000000", "1" + "0" * 22])
    conv = None
    if r.random() < 0.2:
        conv = r.choice(["bits", "raw", "ratio", "lanes(U8)", "lanes(U16)", "lanes(U32)"])
    return parts, conv


def fmt_program(seed, n=60):
    import random
    r = random.Random(seed)
    decls, holes = [], []
    k = 0
    while len(holes) < n:
        tn = r.choice(FMT_TYPES)
        spec, conv = _random_spec(r)
        if not _spec_ok(spec, conv, _fmt_type(tn)):
            continue
        if "c" in spec and tn[0] in "IU":
            t = _fmt_type(tn)
            val = str(r.choice([x for x in (65, 233, 0x1F600, 0x10FFFF, 0, 127, 0xE9, 0x4E2D) if x <= t.max]))
        else:
            val = _fmt_value(r, tn)
        decls.append("    %s v%d = %s;" % (tn, k, val))
        holes.append("[{v%d%s%s}]" % (k, "!" + conv if conv else "", ":" + spec if spec else ""))
        k += 1
    body = "\n".join(decls) + "\n" + "\n".join('    "%s\\n";' % "".join(holes[i:i + 4]) for i in range(0, len(holes), 4))
    return FMT_HEAD + "export I64 run() {\n" + body + "\n    return 0;\n}\n"


@pytest.mark.parametrize("seed", range(8))
def test_format_specifications_random(tmp_path, seed):
    both(tmp_path, fmt_program(seed))


def test_format_specifications_ls215(tmp_path):
    src = FMT_HEAD + """export I64 run() {
    I64 n = -42;
    I64 z = 0;
    I64 p = 42;
    I64 m = 1234567;
    I64 h = 255;
    I64 hn = -255;
    U32 d = 3735928559;
    I8 b1 = -1;
    I8 b2 = -128;
    I64 b3 = -1;
    I64 e = 8;
    I64 c = 233;
    I64 s1 = 123456;
    I64 s2 = -5;
    I64 s3 = -9223372036854775807 - 1;
    Q32.32 q1 = Q32.32.raw(6442450944);
    Q32.32 q2 = Q32.32.raw(536870912);
    Q32.32 q3 = Q32.32.raw(1610612736);
    Q32.32 q4 = Q32.32.raw(-134217728);
    Q16.16 q5 = Q16.16.raw(1);
    U32 w = 305419896;
    Color k = Color.green;
    Bool ok = true;
    "{n}|{z:+}|{n:08}|{p:>6}|{p:*^7}|{m:_}|{m:,}|{h:x}|{h:#X}|{hn:x}|{d:#_x}\\n";
    "{b1!bits:x}|{b2!bits:#b}|{b3!bits:x}|{e:t}|{z:t}|{c:c}|{s1:/100}|{s2:/100}|{s3:/100}\\n";
    "{q1}|{q1:.2}|{q2:.2}|{q3:.2}|{q4:.1}|{q5:.3}|{q1!raw}|{q1!ratio}|{w!lanes(U8):02x}|{k:<8}|{k:#}|{ok}|{n=}\\n";
    return 0;
}"""
    out = both(tmp_path, src)
    assert "outcome value" in out


@pytest.mark.parametrize("t, v", [("I64", "-1"), ("I32", "1114112"), ("I64", "55296"), ("U32", "57343"),
                                  ("I64", "1114111")])
def test_format_char_fault(tmp_path, t, v):
    both(tmp_path, 'export I64 run() {\n    "a\\n";\n    %s x = %s;\n    "b {x:c} c\\n";\n    return 1;\n}' % (t, v))
