"""Computed extents `n + c`, `n - c`, `c + n` in parameter types, bound in two passes (SPEC-02 K-6,
SPEC-03P.1 A-21; docs/language.md, the decision on computed extents).

Plain size symbols bind first, from the arguments that have them as a plain extent; then every computed
extent is checked against the bound value, by parameter then dimension. A mismatch faults E_SHAPE
`bind.shape` with operands I64 parameter, I64 dimension, I64 actual extent, no exact, limit I64 expected,
at the callee name (a function) or the dispatch site (a kernel: phase entry, dispatch address), on both
executors with the same outcome text; host entries (exports called from Python) check the same."""
import pytest

from compiler_testkit import both, compile_error, where

pytestmark = pytest.mark.clause("SPEC-02 K-6", "SPEC-03P.1 A-21", "SPEC-03P.1 A-25", "SPEC-04 LS-117")


def at(src, text, k=0):
    """(line, column) of the first character of `text` in `src` (its k-th occurrence)."""
    pos = -1
    for _ in range(k + 1):
        pos = src.index(text, pos + 1)
    line = src.count("\n", 0, pos) + 1
    return line, pos - (src.rfind("\n", 0, pos) + 1) + 1


def assert_value(text, v, fuel=None):
    assert "outcome value\n" in text and "return I64 %d\n" % v in text, text
    if fuel is not None:
        assert "fuel-consumed %d\n" % fuel in text, text


def both4(tmp_path, src, name="p"):
    """The format-4 outcome text (with the kernel address) of `src` on both executors, which agree."""
    from cint_compiler.conformance.outcome import expect_text
    path = tmp_path / (name + ".ci")
    path.write_text(src, encoding="utf-8")
    out = [expect_text(path, tmp_path, case_id=name, clause=None, entry="run", args=[], fuel=None, depth=None,
                       fmt=4, executor=ex) for ex in ("ref", "cpu")]
    assert out[0] == out[1], "ref:\n%s\ncpu:\n%s" % tuple(out)
    return out[0]


def assert_shape(text, param, dim, actual, expected, pos, fuel, stack, name="p", kernel=None):
    want = ["outcome fault", "fuel-consumed %d" % fuel, "fault.code E_SHAPE", "fault.operation bind.shape",
            "fault.operand I64 %d" % param, "fault.operand I64 %d" % dim, "fault.operand I64 %d" % actual,
            "fault.exact none", "fault.limit I64 %d" % expected, "fault.position %s.ci:%d:%d" % ((name,) + pos)]
    if kernel is not None:
        want += ["fault.phase entry", "fault.kernel %s" % kernel, "fault.address 0 none none"]
    else:
        want += ["fault.address none"]
    want += ["fault.stack-depth %d" % len(stack)]
    want += ["fault.stack %s.ci:%d:%d" % ((name,) + s) for s in stack]
    body = text.split("\n")
    k = 0
    for line in body:           # in this order, each line whole
        if k < len(want) and line == want[k]:
            k += 1
    assert k == len(want), (want[k], text)
    assert text.count("fault.operand ") == 3, text


FUNC = """I64 f[n](in I64[n + 1] a, in I64[n] b, in I64[2 + n] c, in I64[n - 1] d) {
    return a[n] + b[0] + c[n + 1] + d[0] + n;
}

I64 go(in I64[_] a, in I64[_] b, in I64[_] c, in I64[_] d) {
    return f(a, b, c, d);
}

export I64 run() {
    I64[A] a;
    I64[B] b;
    I64[C] c;
    I64[D] d;
    a[0] = 1;
    b[0] = 10;
    return go(a, b, c, d);
}
"""


def func(a, b, c, d):
    return FUNC.replace("[A]", "[%d]" % a).replace("[B]", "[%d]" % b).replace("[C]", "[%d]" % c) \
        .replace("[D]", "[%d]" % d)


def test_function_matching_computed_extents(tmp_path):
    # n = 3 from b; a is n + 1 = 4, c is 2 + n = 5, d is n - 1 = 2: f returns a[3] + 10 + 0 + 0 + 3
    assert_value(both(tmp_path, func(4, 3, 5, 2)), 13, fuel=3)


@pytest.mark.parametrize("shape, bad", [
    ((5, 3, 5, 2), (0, 0, 5, 4)),       # n + 1: a computed extent before the binding argument
    ((4, 3, 6, 2), (2, 0, 6, 5)),       # 2 + n
    ((4, 3, 5, 3), (3, 0, 3, 2)),       # n - 1
    ((9, 3, 9, 9), (0, 0, 9, 4)),       # the first computed mismatch by parameter order
])
def test_function_mismatch_record(tmp_path, shape, bad):
    src = func(*shape)
    assert_shape(both(tmp_path, src), *bad, pos=at(src, "f(a, b"), fuel=2, stack=[at(src, "go(a, b")])


def test_the_plain_pass_comes_first(tmp_path):
    # a (computed, n + 1 = 4) disagrees with n = 3 from b, and so does c (a constant extent): the
    # constant is checked in the first pass, before any computed extent
    src = """I64 f[n](in I64[n + 1] a, in I64[n] b, in I64[2] c) {
    return n;
}

I64 go(in I64[_] a, in I64[_] b, in I64[_] c) {
    return f(a, b, c);
}

export I64 run() {
    I64[9] a;
    I64[3] b;
    I64[7] c;
    return go(a, b, c);
}
"""
    assert_shape(both(tmp_path, src), 2, 0, 7, 2, pos=at(src, "f(a, b"), fuel=2, stack=[at(src, "go(a, b")])
    # two plain extents of one symbol disagree: the first pass, before a's computed extent
    src2 = src.replace("in I64[2] c", "in I64[n] c")
    assert_shape(both(tmp_path, src2, name="p2"), 2, 0, 7, 3, pos=at(src2, "f(a, b"), fuel=2,
                 stack=[at(src2, "go(a, b")], name="p2")


def test_negative_expected_and_rank_two(tmp_path):
    # n = 0 binds from b; n - 1 is -1, which no extent equals
    src = """I64 f[n, m](in I64[n - 1, m + 2] a, in I64[n] b, in I64[m] c) {
    return n + m;
}

I64 go(in I64[_, _] a, in I64[_] b, in I64[_] c) {
    return f(a, b, c);
}

export I64 run() {
    I64[X, Y] a;
    I64[B] b;
    I64[2] c;
    return go(a, b, c);
}
"""
    s1 = src.replace("[X, Y]", "[0, 4]").replace("[B]", "[0]")
    assert_shape(both(tmp_path, s1), 0, 0, 0, -1, pos=at(s1, "f(a, b"), fuel=2, stack=[at(s1, "go(a, b")])
    s2 = src.replace("[X, Y]", "[2, 5]").replace("[B]", "[3]")
    assert_shape(both(tmp_path, s2, name="p2"), 0, 1, 5, 4, pos=at(s2, "f(a, b"), fuel=2,
                 stack=[at(s2, "go(a, b")], name="p2")
    s3 = src.replace("[X, Y]", "[2, 4]").replace("[B]", "[3]")
    assert_value(both(tmp_path, s3, name="p3"), 5, fuel=3)


def test_computed_value_beyond_i64_is_a_mismatch(tmp_path):
    # n = I64 max from an empty array; n + 1 is beyond I64: a mismatch whose limit is I64's maximum
    src = """I64 f[n](in I64[n + 1] a, in I64[0, n] z) {
    return 1;
}

I64 go(in I64[_] a, in I64[_, _] z) {
    return f(a, z);
}

export I64 run() {
    I64[5] a;
    I64[0, 9223372036854775807] z;
    return go(a, z);
}
"""
    assert_shape(both(tmp_path, src), 0, 0, 5, 2**63 - 1, pos=at(src, "f(a, z"), fuel=2,
                 stack=[at(src, "go(a, z")])


def test_where_after_the_second_pass(tmp_path):
    src = """I64 f[n](in I64[n + 1] a, in I64[n] b) where n > 5 {
    return n;
}

I64 go(in I64[_] a, in I64[_] b) {
    return f(a, b);
}

export I64 run() {
    I64[A] a;
    I64[3] b;
    return go(a, b);
}
"""
    s1 = src.replace("[A]", "[9]")       # both fail: bind.shape first
    assert_shape(both(tmp_path, s1), 0, 0, 9, 4, pos=at(s1, "f(a, b"), fuel=2, stack=[at(s1, "go(a, b")])
    s2 = src.replace("[A]", "[4]")       # the shapes agree: the clause faults
    t = both(tmp_path, s2, name="p2")
    assert "fault.operation bind.where\n" in t and "fault.position p2.ci:%d:%d\n" % at(s2, "f(a, b") in t, t


KERNEL = """kernel k[n](in I64[n + 1] a, in I64[n - 1] c, out I64[n] b) over [i: n] {
    b[i] = a[i + 1] + n;
}

I64 go(in I64[_] a, in I64[_] c, inout I64[_] b) {
    k(a, c, b);
    return b[0];
}

export I64 run() {
    I64[A] a;
    I64[C] c;
    I64[3] b;
    a[1] = 7;
    return go(a, c, b);
}
"""


def test_kernel_matching(tmp_path):
    src = KERNEL.replace("[A]", "[4]").replace("[C]", "[2]")
    t = both(tmp_path, src)
    assert "outcome value\n" in t and "return I64 10\n" in t, t


@pytest.mark.parametrize("a, c, bad", [(5, 2, (0, 0, 5, 4)), (4, 3, (1, 0, 3, 2)), (2, 9, (0, 0, 2, 4))])
def test_kernel_mismatch_at_the_dispatch(tmp_path, a, c, bad):
    # n binds 3 from b (the last parameter), then a and c are checked; phase entry, no dispatch fuel
    src = KERNEL.replace("[A]", "[%d]" % a).replace("[C]", "[%d]" % c)
    assert_shape(both4(tmp_path, src), *bad, pos=at(src, "k(a, c"), fuel=2, stack=[at(src, "go(a, c")],
                 kernel="p.k")


def test_static_mismatch_is_c2012(tmp_path):
    src = """I64 f[n](in I64[n + 1] a, in I64[n] b) {
    return n;
}

export I64 run() {
    I64[5] a;
    I64[3] b;
    return f(a, b);
}
"""
    e = compile_error(src)
    assert e.code == "C2012" and where(e) == at(src, "a, b);"), e
    assert "n + 1 = 4" in str(e), e
    e = compile_error(src.replace("I64[n + 1] a", "I64[3 + n] a"))
    assert e.code == "C2012", e
    # computed extents that agree compile and run
    assert_value(both(tmp_path, src.replace("I64[5] a", "I64[4] a")), 3, fuel=2)


@pytest.mark.parametrize("ext", ["n * 2", "n + m", "1 - n", "n + 1 + 1", "(n + 1)", "n + n"])
def test_other_forms_stay_c6004(ext):
    src = """I64 f[n, m](in I64[%s] a, in I64[n] b, in I64[m] c) {
    return n;
}
""" % ext
    e = compile_error(src)
    assert e.code == "C6004", (ext, e)
    assert "`s + c`, `s - c` or `c + s`" in str(e), e


def test_constant_offsets_fold():
    src = """const I64 K = 3;

I64 f[n](in I64[n - K * 2] a, in I64[n] b) {
    return n;
}

export I64 run() {
    I64[4] a;
    I64[9] b;
    return f(a, b);
}
"""
    e = compile_error(src)
    assert e.code == "C2012" and "n - 6 = 3" in str(e), e
    e = compile_error(src.replace("n - K * 2", "n + true"))
    assert e.code == "C2001", e
    e = compile_error(src.replace("K = 3", "K = -9223372036854775807 - 1").replace("n - K * 2", "n - K"))
    assert e.code == "C6004" and "not an I64" in str(e), e
    # the minimum itself is an offset (n + K); with n = 9 the expected extent is negative: C2012
    e = compile_error(src.replace("K = 3", "K = -9223372036854775807 - 1").replace("n - K * 2", "n + K"))
    assert e.code == "C2012", e


@pytest.mark.parametrize("decl", [
    "I64 f[n](in I64[n + 1] a) {\n    return 0;\n}\n",
    "kernel k[n](in I64[n + 1] a, out I64[n + 1] b) over [i: n] {\n    b[i] = a[i];\n}\n",
])
def test_symbol_only_in_computed_extents_is_c2065(decl):
    e = compile_error(decl)
    assert e.code == "C2065" and where(e) == at(decl, "n]"), e


def test_export_from_python(tmp_path, monkeypatch):
    np = pytest.importorskip("numpy")
    cint = pytest.importorskip("cint")
    from cint_abi import typesig as S
    monkeypatch.setenv("CINT_PY_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CINT_EXE", raising=False)
    src = """export I64 tail[n](in I64[n + 1] a, in I64[n] b, in I64[n - 2] c) {
    return a[n] + b[0] + n;
}

export kernel step[n](in I64[2 + n] a, out I64[n] b) over [i: n] {
    b[i] = a[i + 2] - a[i];
}
"""
    path = tmp_path / "ext.ci"
    path.write_text(src)
    mod = cint.load(path)
    ctx = mod.context()
    assert ctx.tail(np.array([1, 2, 3, 40], dtype=np.int64), np.array([5, 6, 7], dtype=np.int64),
                    np.array([0], dtype=np.int64)) == 48
    with pytest.raises(cint.ShapeFault) as info:
        ctx.tail(np.zeros(5, dtype=np.int64), np.zeros(3, dtype=np.int64), np.zeros(1, dtype=np.int64))
    f = info.value
    assert f.operation == "bind.shape" and f.operands == (0, 0, 5) and f.limit == 4 and f.exact is None
    assert (f.line, f.column) == at(src, "tail")
    ctx.clear_fault()
    with pytest.raises(cint.ShapeFault) as info:
        ctx.tail(np.zeros(4, dtype=np.int64), np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64))
    assert info.value.operands == (2, 0, 3) and info.value.limit == 1
    ctx.clear_fault()
    y = cint.empty((3,), "I64")
    ctx.step(np.array([1, 2, 4, 8, 16], dtype=np.int64), b=y)
    assert y.tolist() == [3, 6, 12]
    with pytest.raises(cint.ShapeFault) as info:
        ctx.step(np.zeros(4, dtype=np.int64), b=cint.empty((3,), "I64"))
    f = info.value
    assert f.operands == (0, 0, 4) and f.limit == 5 and f.phase == "entry" and f.dispatch == 0
    ctx.clear_fault()
    # the A-21 signatures: (symbol 0, offset 1), (0, 0), (0, -2); (0, 2), (0, 0)
    rows = {e.name: e for e in mod.exports}
    sig = S.decode_signature(rows["tail"].signature_bytes)
    assert sig.size_count == 1
    assert [p.type.dims[0].bound for p in sig.params] == [S.Bound(0, 1), S.Bound(0, 0), S.Bound(0, -2)]
    assert rows["tail"].signature == sig
    ext = lambda off: (0).to_bytes(4, "little") + off.to_bytes(8, "little", signed=True)   # noqa: E731
    raw = rows["tail"].signature_bytes
    assert ext(1) in raw and ext(-2) in raw and ext(0) in raw
    sig = S.decode_signature(rows["step"].signature_bytes)
    assert [p.type.dims[0].bound for p in sig.params] == [S.Bound(0, 2), S.Bound(0, 0)]
    assert S.encode_signature(sig) == rows["step"].signature_bytes
