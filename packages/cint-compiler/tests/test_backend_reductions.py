"""The array reductions of SPEC-01P.1 IM-77 to IM-87 on cpu-c17 against the reference executor: sum_wrap,
sum_sat, count, fold_checked, dot and min/max over every integer element type (I128..I1024 included), with
their values, fault records (operation, operands, exact, limit, position), fuel and stdout identical on
both executors (compiler_testkit.both), over views (strided, reversed, transposed, rank 3), empty arrays,
slices, inside kernels and under a fuel budget, and over seeded random arrays."""
import random

import pytest

from compiler_testkit import both

# (name, bits, signed)
NARROW = [("I8", 8, True), ("I16", 16, True), ("I32", 32, True), ("I64", 64, True),
          ("U8", 8, False), ("U16", 16, False), ("U32", 32, False), ("U64", 64, False)]
WIDE = [("I128", 128, True), ("I256", 256, True), ("I512", 512, True), ("I1024", 1024, True)]
TYPES = NARROW + WIDE


def bounds(bits, signed):
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def lit(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"


def wider(name, bits, signed):
    """A result type wider than the element type, for dot (I1024 has none: itself)."""
    for n, b, s in TYPES:
        if b > bits and s:
            return n
    return name


def ids(types):
    return [t[0] for t in types]


def outcome(tmp_path, src, **kw):
    return both(tmp_path, src, **kw)


# ----------------------------------------------------------------------------------- values that fit

@pytest.mark.parametrize("T", TYPES, ids=ids(TYPES))
def test_every_reduction_fits(tmp_path, T):
    name, bits, signed = T
    lo, hi = bounds(bits, signed)
    big = [hi, hi - 1, lo, 3, hi, lo + 1] if signed else [hi, hi - 1, 7, 3, hi, 1]
    small = [3, -2, 5, 1, -1, 2] if signed else [3, 2, 5, 1, 1, 2]
    R = wider(*T)
    src = """export I64 run() {
    %(T)s[6] a = %(big)s;
    %(T)s[6] z = %(small)s;
    Bool[2, 3] m = [[true, false, true], [false, false, true]];
    %(T)s sw = sum_wrap(a);
    %(T)s ss = sum_sat(a);
    %(T)s sr = sum_sat(a[.. by -1]);
    %(T)s fa = fold_checked(add, 4, z);
    %(T)s fm = fold_checked(mul, 1, z[1..6 by 2]);
    %(R)s d = dot(%(R)s, z, z[.. by -1]);
    %(T)s mn = min(a);
    %(T)s mx = max(z[0..3]);
    %(T)s mi = min(5, z[3..6]);
    %(T)s ma = max(5, a[0..0]);
    I64 c = count(m) + count(transpose(m)[1, ..]);
    "{sw} {ss} {sr} {fa} {fm} {d} {mn} {mx} {mi} {ma} {c}\\n";
    %(T)s e0 = sum_wrap(a[2..2]);
    %(T)s e1 = sum_sat(z[4..4]);
    %(T)s e2 = fold_checked(mul, 9, a[1..1]);
    %(R)s e3 = dot(%(R)s, a[0..0], z[5..5]);
    I64 e4 = count(m[1, 0..0]);
    "{e0} {e1} {e2} {e3} {e4}\\n";
    return c;
}
""" % {"T": name, "R": R, "big": lit(big), "small": lit(small)}
    text = outcome(tmp_path, src)
    assert "outcome value" in text


# ----------------------------------------------------------------------------------- faults

@pytest.mark.parametrize("T,k", [(t, 3) for t in TYPES] + [(NARROW[0], 0), (NARROW[7], 5), (WIDE[3], 0)],
                         ids=ids(TYPES) + ["I8-first", "U64-last", "I1024-first"])
def test_fold_checked_add_faults_at_element_k(tmp_path, T, k):
    name, bits, signed = T
    lo, hi = bounds(bits, signed)
    vals = [1] * 6
    vals[k] = hi
    src = """export %(T)s run() {
    %(T)s[6] a = %(a)s;
    return fold_checked(add, 1, a);
}
""" % {"T": name, "a": lit(vals)}
    text = outcome(tmp_path, src)
    assert "fault.operation fold_checked.add.%s" % name.lower() in text
    assert "fault.operand I64 %d" % k in text


@pytest.mark.parametrize("T", TYPES, ids=ids(TYPES))
def test_fold_checked_mul_faults_below_or_above(tmp_path, T):
    name, bits, signed = T
    lo, hi = bounds(bits, signed)
    src = """export %(T)s run() {
    %(T)s[2, 3] a = [[1, 2, 1], [%(h)d, 3, 1]];
    return fold_checked(mul, %(i)s, transpose(a));
}
""" % {"T": name, "h": hi // 4, "i": "-1" if signed else "1"}
    text = outcome(tmp_path, src)
    assert "fault.operation fold_checked.mul.%s" % name.lower() in text


@pytest.mark.parametrize("T", TYPES, ids=ids(TYPES))
def test_dot_overflows_its_result_type(tmp_path, T):
    name, bits, signed = T
    lo, hi = bounds(bits, signed)
    x = lo if signed else hi
    src = """export %(T)s run() {
    %(T)s[3] a = [%(x)d, %(x)d, 1];
    %(T)s[4] b = [0, %(x)d, %(x)d, 1];
    return dot(%(T)s, a, b[1..4]);
}
""" % {"T": name, "x": x}
    text = outcome(tmp_path, src)
    assert "fault.operation dot.checked.%s.%s" % (name.lower(), name.lower()) in text
    assert "fault.operand I64 3" in text


@pytest.mark.parametrize("T", [NARROW[0], NARROW[7], WIDE[1]], ids=["I8", "U64", "I256"])
def test_dot_shape_mismatch_precedes_the_charge(tmp_path, T):
    name = T[0]
    src = """I64 d(in %(T)s[_] a, in %(T)s[_] b) {
    return dot(I64, a, b) as I64;
}
export I64 run() {
    %(T)s[4] a = [1, 2, 3, 4];
    return d(a[0..3], a[.. by 2]);
}
""" % {"T": name}
    text = outcome(tmp_path, src)
    assert "fault.code E_SHAPE" in text and "fault.limit I64 3" in text


@pytest.mark.parametrize("T", WIDE + [NARROW[2]], ids=ids(WIDE) + ["I32"])
@pytest.mark.parametrize("fn", ["min", "max"])
def test_min_max_of_empty_faults(tmp_path, T, fn):
    name = T[0]
    src = """export %(T)s run() {
    %(T)s[3] a = [-5, 7, 2];
    %(T)s x = %(fn)s(a) + %(fn)s(0, a[1..1]);
    return x + %(fn)s(a[2..2]);
}
""" % {"T": name, "fn": fn}
    text = outcome(tmp_path, src)
    assert "fault.operation reduce_%s.checked.%s" % (fn, name.lower()) in text


@pytest.mark.parametrize("T", [("I8", 8, True), ("U16", 16, False), ("I128", 128, True), ("I512", 512, True)],
                         ids=["I8", "U16", "I128", "I512"])
def test_sum_into_narrow_result_overflows(tmp_path, T):
    name, bits, signed = T
    lo, hi = bounds(bits, signed)
    src = """export I64 run() {
    %(T)s[3] a = [%(h)d, %(h)d, 1];
    I64 r = sum(I64, a[.. by -1]) as I64;
    return r;
}
""" % {"T": name, "h": hi}
    text = outcome(tmp_path, src)
    assert ("fault.operation sum.checked.%s.i64" % name.lower() in text) == (bits >= 64)


# ----------------------------------------------------------------------------------- views, literals

def test_views_strided_reversed_transposed_rank3(tmp_path):
    src = """export I64 run() {
    I16[2, 3, 4] c = [[[1, -2, 3, -4], [5, -6, 7, -8], [9, -10, 11, -12]],
                      [[13, -14, 15, -16], [17, -18, 19, -20], [21, -22, 23, 32767]]];
    I16[3, 4] m = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];
    I16 a = sum_sat(c);
    I16 b = sum_wrap(c[.., .. by -1, 1..4 by 2]);
    I16 f = fold_checked(add, 0, c[1, .., ..]);
    I16 g = fold_checked(mul, 1, transpose(m[0..2, 0..2]));
    I16 h = min(c[.., 2, ..]) + max(-100, m[1, .. by -1]);
    I32 d = dot(I32, m[.., 1], m[0..3, 2]);
    Bool[2, 2] bm = [[true, false], [true, true]];
    I16[4] q = [30000, 30000, -30000, -1];
    I64 n = count(bm[.., 1]) + count(transpose(bm));
    I16 s = sum_sat(q);
    "{a} {b} {f} {g} {h} {d} {n} {s}\\n";
    return fold_checked(add, 0, c[.., .., 3]) as I64;
}
"""
    text = outcome(tmp_path, src)
    assert "fault.operation fold_checked.add.i16" in text


def test_sum_sat_follows_element_order(tmp_path):
    src = """export I8 run() {
    I8[2, 2] m = [[100, -100], [100, -100]];
    I8 r = sum_sat(m);
    I8 t = sum_sat(transpose(m));
    "{r} {t}\\n";
    return t;
}
"""
    assert "outcome value" in outcome(tmp_path, src)


def test_u64_extremes(tmp_path):
    src = """export U64 run() {
    U64[3] a = [18446744073709551615, 18446744073709551615, 2];
    U64 w = sum_wrap(a);
    U64 s = sum_sat(a);
    I256 d = dot(I256, a, a);
    U64 f = fold_checked(mul, 1, a[2..3]);
    "{w} {s} {d} {f}\\n";
    return fold_checked(mul, 18446744073709551615, a[2..3]);
}
"""
    text = outcome(tmp_path, src)
    assert "fault.exact 36893488147419103230" in text


def test_dot_wide_exact_beyond_128_bits(tmp_path):
    src = """export I128 run() {
    I64[4] a = [-9223372036854775808, -9223372036854775808, -9223372036854775808, 5];
    I256 big = dot(I256, a, a);
    "{big}\\n";
    return dot(I128, a, a);
}
"""
    assert "fault.operation dot.checked.i64.i128" in outcome(tmp_path, src)


# ----------------------------------------------------------------------------------- kernels, fuel

def test_reductions_in_a_kernel(tmp_path):
    src = """kernel k[n](in I8[n] a, out I64[n] b) over [i: n] {
    I8[3] t;
    t[0] = a[i];
    t[1] = 1;
    t[2] = a[i];
    b[i] = sum_wrap(t) as I64 + sum_sat(a) as I64 + dot(I64, t, t) + min(0, t) as I64;
    b[i] = b[i] + fold_checked(add, 0, t) as I64;
}
export I64 run() {
    I8[4] a = [1, 2, 50, 70];
    I64[4] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]}\\n";
    return b[3];
}
"""
    text = outcome(tmp_path, src)
    assert "fault.operation fold_checked.add.i8" in text and "fault.address" in text


@pytest.mark.parametrize("fn", ["sum_wrap", "sum_sat", "fold", "dot", "count", "min"])
def test_fuel_runs_out_inside_a_reduction(tmp_path, fn):
    expr = {"sum_wrap": "sum_wrap(a) as I64", "sum_sat": "sum_sat(a) as I64",
            "fold": "fold_checked(add, 0, a) as I64", "dot": "dot(I64, a, a)",
            "count": "count(m)", "min": "min(a) as I64"}[fn]
    src = """export I64 run() {
    I32[200] a;
    Bool[200] m;
    I64 r = 0;
    for i in 0..3 {
        r = r + %s;
    }
    return r;
}
""" % expr
    text = outcome(tmp_path, src, fuel=9)
    assert "fault.code E_FUEL" in text


# ----------------------------------------------------------------------------------- seeded random

def _rand_vals(rng, bits, signed, n, small):
    lo, hi = bounds(bits, signed)
    out = []
    for _ in range(n):
        r = rng.random()
        if small:
            v = rng.randint(-3 if signed else 0, 3)
        elif r < 0.3:
            v = rng.choice([lo, hi, lo + 1, hi - 1])
        else:
            v = rng.randint(lo, hi)
        out.append(v)
    return out


def _rand_view(rng, name, n):
    """(declaration of a, an expression of a view over a)."""
    kind = rng.choice(["plain", "rev", "stride", "t2", "lit", "empty"])
    if kind == "t2" and n >= 2 and n % 2 == 0:
        return "%s[2, %d] a = %%s;" % (name, n // 2), "transpose(a)", (2, n // 2)
    if kind == "rev":
        return "%s[%d] a = %%s;" % (name, n), "a[.. by -1]", (n,)
    if kind == "stride":
        return "%s[%d] a = %%s;" % (name, n), "a[1..%d by 2]" % n, (n,)
    if kind == "empty":
        return "%s[%d] a = %%s;" % (name, n), "a[0..0]", (n,)
    return "%s[%d] a = %%s;" % (name, n), "a", (n,)


def _nest(vals, shape):
    if len(shape) == 1:
        return lit(vals)
    w = shape[1]
    return "[" + ", ".join(lit(vals[i * w:(i + 1) * w]) for i in range(shape[0])) + "]"


BUILTINS = ["sum", "sum_wrap", "sum_sat", "count", "fold_add", "fold_mul", "dot", "min", "max", "min_init",
            "max_init"]


@pytest.mark.parametrize("builtin", BUILTINS)
def test_random_arrays_agree(tmp_path, builtin):
    rng = random.Random("reductions-" + builtin)
    for round_ in range(3):
        name, bits, signed = rng.choice(TYPES)
        n = rng.randint(1, 8)
        small = builtin == "fold_mul" and rng.random() < 0.7
        decl, view, shape = _rand_view(rng, "Bool" if builtin == "count" else name, n)
        vals = _rand_vals(rng, bits, signed, n, small)
        if builtin == "count":
            vals = ["true" if rng.random() < 0.5 else "false" for _ in range(n)]
        decl = decl % _nest(vals, shape)
        ret = name
        if builtin == "sum":
            R = rng.choice(TYPES)[0]
            expr, ret = "sum(%s, %s)" % (R, view), R
        elif builtin == "count":
            expr, ret = "count(%s)" % view, "I64"
        elif builtin.startswith("fold"):
            init = _rand_vals(rng, bits, signed, 1, small)[0]
            expr = "fold_checked(%s, %d, %s)" % (builtin[5:], init, view)
        elif builtin == "dot":
            R = rng.choice([t[0] for t in TYPES if t[1] >= bits])
            decl = "%s[%d] a = %s;\n    %s[%d] b = %s;" % (name, n, lit(vals), name, n,
                                                           lit(_rand_vals(rng, bits, signed, n, False)))
            expr, ret = "dot(%s, a, b%s)" % (R, "[.. by -1]" if rng.random() < 0.5 else ""), R
        elif builtin.endswith("_init"):
            init = _rand_vals(rng, bits, signed, 1, False)[0]
            expr = "%s(%d, %s)" % (builtin[:3], init, view)
        else:
            expr = "%s(%s)" % (builtin, view)
        src = "export %s run() {\n    %s\n    return %s;\n}\n" % (ret, decl, expr)
        outcome(tmp_path, src, name="r%d" % round_)


def test_dot_of_narrow_elements_moves_its_64_bit_partial_sum_on_overflow(tmp_path):
    # products of I32 extremes are near 2^62: the 64-bit partial sum of the narrow path overflows on the
    # second addition and must be carried into the exact total (the interpreter is the reference)
    src = '''
export I64 run() {
    I32[5] a = [2_147_483_647, -2_147_483_648, 2_147_483_647, -2_147_483_648, 3];
    I32[5] b = [2_147_483_647, -2_147_483_648, 2_147_483_647, 2_147_483_647, 5];
    I128 big = dot(I128, a, b);
    U32[3] u = [4_294_967_295, 4_294_967_295, 4_294_967_295];
    I16[3] h = [-32_768, -32_768, 7];
    "{big} {dot(I128, u, u)} {dot(I64, h, h)}\\n";
    return dot(I64, a, b);
}
'''
    out = both(tmp_path, src)
    assert "return I64 9223372030412324881" in out    # exact: 2(2^31 - 1)^2 + 2^62 - 2^31(2^31 - 1) + 15


def test_fold_checked_steps_in_the_element_type_fault_with_the_exact_value(tmp_path):
    # the narrow path keeps the running value in the element type; a failing step reports its exact value
    for t, xs, op in (("I8", "[100, 27, 1, 5]", "add"), ("U16", "[300, 200, 2]", "mul"),
                      ("I64", "[-4_611_686_018_427_387_904, -4_611_686_018_427_387_904, -1]", "add"),
                      ("U64", "[4_294_967_296, 4_294_967_296]", "mul"), ("I32", "[-2, 3, -5, 7]", "mul")):
        src = '''
export I64 run() {
    %s[_] xs = %s;
    %s r = fold_checked(%s, 1, xs);
    return r as I64;
}
''' % (t, xs, t, op)
        both(tmp_path, src.replace("%s[_] xs" % t, "%s[%d] xs" % (t, xs.count(",") + 1)))
