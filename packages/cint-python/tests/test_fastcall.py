"""The C call path (cint._fastcall, SPEC-03P.1 8.1 paragraph 8) against the Python path (_Entry over ctypes).

Every case runs once through ctx.<export> (a cint._fastcall.Caller) on one context and once through
its Python path (the _Entry it falls back to, ``ctx.entry(name)._python``) on another context of the
same Module; the outcomes (the value, or the exception's class, text, code and parameter) and the
outputs shall be equal.
"""
import decimal
import enum
import fractions
import gc
import sys
import tracemalloc

import pytest

import cint
from cint import _module

np = pytest.importorskip("numpy")
FC = pytest.importorskip("cint._fastcall")

SOURCE = """\
error ParseError { empty, bad_digit, too_large }
error E { bad, worse }

export ParseError!I64 parse_u(in U8[_] s) {
    if (len(s) == 0) {
        return ParseError.empty;
    }
    I64 v = 0;
    for i in 0..len(s) {
        U8 c = s[i];
        if (c < 48 || c > 57) {
            return ParseError.bad_digit;
        }
        v = v * 10 + ((c - 48) as I64);
    }
    return v;
}

export E!Bool check(I64 x) {
    if (x < 0) {
        return E.bad;
    }
    return x > 5;
}

export E!void only(I64 x) {
    if (x < 0) {
        return E.worse;
    }
    return;
}

export I8 id_i8(I8 x) { return x; }
export I16 id_i16(I16 x) { return x; }
export I32 id_i32(I32 x) { return x; }
export I64 id_i64(I64 x) { return x; }
export U8 id_u8(U8 x) { return x; }
export U16 id_u16(U16 x) { return x; }
export U32 id_u32(U32 x) { return x; }
export U64 id_u64(U64 x) { return x; }
export Bool id_bool(Bool x) { return x; }
export I8 narrow(I64 x) { return x as I8; }
export void nothing(I64 x) { return; }

export I64 weigh[n](I8 a, in I64[n] x, U16 b, in I32[n] y, I64 c, U8 d, I64 e, I64 f, Bool g, U32 h, I16 k) {
    I64 s = (a as I64) * 3 + (b as I64) * 5 + c * 7 + (d as I64) * 11 + e * 13 + f * 17 + (h as I64) * 19
        + (k as I64) * 23;
    for i in 0..n {
        s = s + x[i] * (i + 1) + (y[i] as I64) * 1000;
    }
    if (g) {
        s = s + 1000000;
    }
    return s;
}

export I64 corner[h, w](in I64[h, w] a) {
    return a[0, 0] * 1000 + a[h - 1, w - 1];
}

export I64 count_true[n](in Bool[n] b) {
    I64 s = 0;
    for i in 0..n {
        if (b[i]) {
            s = s + 1;
        }
    }
    return s;
}

export void scale[n](inout I32[n] a, I32 k) {
    for i in 0..n {
        a[i] = a[i] * k;
    }
}

export kernel square[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * x[i];
}
"""

INTS = {"I8": (True, 8), "I16": (True, 16), "I32": (True, 32), "I64": (True, 64),
        "U8": (False, 8), "U16": (False, 16), "U32": (False, 32), "U64": (False, 64)}
NP_INTS = [np.int8, np.int16, np.int32, np.int64, np.longlong, np.intc, np.intp,
           np.uint8, np.uint16, np.uint32, np.uint64, np.ulonglong, np.uintc]


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("fastcall", {"fast.ci": SOURCE}) / "fast.ci")


@pytest.fixture()
def pair(mod):
    """(context whose exports take the C path, context whose calls take the Python path)."""
    a, b = mod.context(), mod.context()
    yield a, b
    a.close()
    b.close()


def outcome(call):
    try:
        return ("ok", call())
    except Exception as e:     # noqa: BLE001 - every exception is compared
        return (type(e).__name__, str(e), getattr(e, "code", None), getattr(e, "parameter", None))


def same(pair, name, *args, **kw):
    """Calls export name through both paths and checks that the outcomes are equal; returns the outcome."""
    return same_made(pair, name, lambda: (args, kw))


def same_made(pair, name, make):
    """As same, with the arguments from make() -> (args, kw), called once for each path (fresh Buffers)."""
    fast, slow = pair
    c = fast.entry(name)
    assert type(c) is FC.Caller
    args, kw = make()
    got = outcome(lambda: c(*args, **kw))
    args, kw = make()
    want = outcome(lambda: slow.entry(name)._python(*args, **kw))
    assert got == want, (name, args, kw)
    for ctx in pair:
        if ctx._h and ctx.fault() is not None:
            ctx.clear_fault()
    return got


class Counting:
    """Counts the calls that reach the Python path (_Entry.__call__)."""

    def __init__(self, monkeypatch):
        self.n = 0
        orig = _module._Entry.__call__

        def counted(entry, *args, **kw):
            self.n += 1
            return orig(entry, *args, **kw)
        monkeypatch.setattr(_module._Entry, "__call__", counted)


def test_the_extension_is_used(pair):
    fast, _ = pair
    assert fast._module._invoke is not None and not hasattr(FC, "ABI_OK")
    assert type(fast.narrow) is FC.Caller and fast.entry("narrow") is fast.narrow
    assert isinstance(fast._lock, FC.Gate) and fast._lock.handle == fast._h.value
    assert fast.narrow.name == "narrow" and repr(fast.narrow) == "<cint entry narrow>"
    assert fast.narrow.row.name == "narrow" and fast.narrow._python.name == "narrow"


def test_good_calls_stay_in_c(pair, monkeypatch):
    fast, _ = pair
    x = np.arange(5, dtype=np.int64)
    y = cint.empty(5, "I64")
    fast.square(x, y=y)                 # the first use of y binds it through the Python path (P-20)
    count = Counting(monkeypatch)
    assert fast.narrow(5) == 5 and fast.id_u64(2**64 - 1) == 2**64 - 1 and fast.id_bool(np.bool_(True)) is True
    assert fast.id_i32(np.int32(-7)) == -7 and fast.check(7) is True and fast.only(1) is None
    assert fast.parse_u(b"123") == 123 and fast.parse_u(bytearray(b"9")) == 9
    fast.square(x, y=y, fuel=None)
    assert y.tolist() == [0, 1, 4, 9, 16]
    assert count.n == 0
    with pytest.raises(cint.Refused):
        fast.narrow(1.5)
    with pytest.raises(cint.ErrorResult):
        fast.check(-1)
    assert count.n == 1                 # a refusal is decided by the Python path; an error result is not


@pytest.mark.parametrize("elem", sorted(INTS))
def test_integer_boundaries(pair, elem):
    signed, bits = INTS[elem]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    name = "id_" + elem.lower()
    for v in (lo, hi, 0, 1, -1, lo - 1, hi + 1, lo // 2, hi // 2, 2**63 - 1, -2**63, 2**63, 2**64 - 1, 2**64,
              -2**64, 10**30, -10**30):
        got = same(pair, name, v)
        if lo <= v <= hi:
            assert got == ("ok", v)
        else:
            assert got[0] == "Refused" and got[2] == "E_NARROW"


@pytest.mark.parametrize("elem", sorted(INTS))
def test_numpy_scalars_bools_floats(pair, elem):
    name = "id_" + elem.lower()
    for t in NP_INTS:
        info = np.iinfo(t)
        for v in (0, info.max, info.min):
            same(pair, name, t(v))
    for v in (True, False, np.bool_(True), 1.0, 0.0, np.float64(2), np.float32(2), decimal.Decimal(1),
              fractions.Fraction(1), "1", b"1", None, [1], 1j, np.array(3, dtype=np.int64),
              np.array([3], dtype=np.int64)):
        got = same(pair, name, v)
        if not isinstance(v, np.ndarray):
            assert got[0] == "Refused"


def test_int_subclasses_and_bool_params(pair):
    class Color(enum.IntEnum):
        RED = 3

    class Big(int):
        pass
    assert same(pair, "id_i64", Color.RED) == ("ok", 3)
    assert same(pair, "id_u8", Big(200)) == ("ok", 200)
    for v in (True, False, np.bool_(False), np.bool_(True), 1, 0, np.int8(1), 1.0, None, "True"):
        same(pair, "id_bool", v)
    for a in (True, 1):
        for b in (False, np.bool_(True)):
            same(pair, "id_bool", a) and same(pair, "id_bool", b)


def test_results_and_error_results(pair):
    for v in (-5, 0, 5, 6, 2**63 - 1):
        same(pair, "check", v)
        same(pair, "only", v)
        same(pair, "nothing", v)
    for v in (b"", b"12", b"1x", b"99999", memoryview(b"42"), bytearray(b"0")):
        same(pair, "parse_u", v)
    for v in (-129, 128, 5):
        same(pair, "narrow", v)       # a fault, then a call on a context that holds it


def test_binding_errors(pair):
    x = np.arange(3, dtype=np.int64)
    E = cint.empty
    cases = [("narrow", (), {}), ("narrow", (1, 2), {}), ("narrow", (), {"x": 1}), ("narrow", (1,), {"x": 1}),
             ("narrow", (), {"y": 1}), ("narrow", (1,), {"fuel": None}), ("narrow", (1,), {"fuel": -1}),
             ("narrow", (1,), {"fuel": -2}), ("narrow", (1,), {"fuel": 2**63}), ("narrow", (1,), {"fuel": True}),
             ("narrow", (1,), {"fuel": 1.0}), ("narrow", (1,), {"fuel": 0}), ("narrow", (1,), {"fuel": 10**6}),
             ("square", (x, E), {}), ("square", (x,), {}), ("square", (), {"y": E}),
             ("square", (x,), {"y": np.zeros(3, dtype=np.int64)}), ("square", (x,), {"y": [0, 0, 0]}),
             ("square", (x,), {"z": E}), ("square", (), {"x": x, "y": E}), ("square", (x,), {"y": E, "fuel": 0}),
             ("square", (x,), {"y": E, "fuel": None}),
             ("weigh", (1,) * 11, {}), ("weigh", (1,) * 12, {})]
    def made(args, kw):      # E stands for a fresh Buffer for each path
        return lambda: (tuple(E(3, "I64") if a is E else a for a in args),
                        {k: E(3, "I64") if a is E else a for k, a in kw.items()})
    for name, args, kw in cases:
        same_made(pair, name, made(args, kw))


def test_many_arguments_reach_the_wrapper(pair):
    x = np.array([5, -6, 7], dtype=np.int64)
    y = np.array([1, 2, -3], dtype=np.int32)
    for a, b, c, d, e, f, g, h, k in [(-128, 65535, 2**40, 255, -1, 7, True, 2**32 - 1, -32768),
                                      (127, 0, -(2**40), 0, 3, -9, False, 0, 32767),
                                      (np.int8(-3), np.uint16(9), np.int64(11), np.uint8(4), 5, 6, np.bool_(True),
                                       np.uint32(8), np.int16(-2))]:
        want = (int(a) * 3 + int(b) * 5 + int(c) * 7 + int(d) * 11 + int(e) * 13 + int(f) * 17 + int(h) * 19
                + int(k) * 23 + sum(int(x[i]) * (i + 1) + int(y[i]) * 1000 for i in range(3))
                + (1000000 if g else 0))
        assert same(pair, "weigh", a, x, b, y, c, d, e, f, g, h, k) == ("ok", want)
        assert same(pair, "weigh", a, x[::-1], b, y[::2].copy()[:1].repeat(3), c, d, e, f, g, h, k)[0] == "ok"
        with cint.borrow(x) as vx:
            same(pair, "weigh", a, vx, b, y, c, d, e, f, g, h, k)     # registered in one context, used in both
            assert same(pair, "weigh", a, vx, b, y, c, d, e, f, g, h, k) == ("ok", want)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_borrowed_arrays(pair):
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    raw = np.zeros(40, dtype=np.uint8)
    arrays = [a, a.T, np.asfortranarray(a), a[::-1, ::2], a[:, ::-1], a[:0], a[1:2], a.astype(np.int32),
              a.astype(">i8"), a.astype(np.float64), a.astype(np.uint64), raw[1:33].view(np.int64).reshape(2, 2),
              np.zeros((2, 2, 1), dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros((1, 1, 1, 1, 1), np.int64),
              memoryview(a), memoryview(a)[::2], bytes(8), "ab", [[1, 2]], ((1,),), range(3), None, 5,
              np.ma.masked_array(a), np.matrix(a)]
    for arr in arrays:
        same(pair, "corner", arr)
    for b in (np.array([True, False, True]), np.array([1, 0, 1], dtype=np.uint8), np.array([], dtype=bool),
              np.frombuffer(b"\x01\x02", dtype=np.bool_)):
        same(pair, "count_true", b)
    for s in (b"", b"123", bytearray(b"45"), memoryview(b"6"), np.frombuffer(b"78", dtype=np.uint8), "12",
              np.array([49, 50], dtype=np.int8), memoryview(b"1234").cast("B", (2, 2))):
        same(pair, "parse_u", s)


def test_views_and_buffers(pair):
    fast, slow = pair
    x = np.arange(4, dtype=np.int64)
    for ctx in pair:
        assert ctx.square is not None
    outs = {}
    for ctx in pair:
        call = ctx.square if ctx is fast else ctx.square._python
        v = cint.borrow(x)
        y = cint.empty(4, "I64")
        c = cint.copy([1, 2, 3, 4], elem="I64")
        z = np.zeros(4, dtype=np.int64)
        zv = cint.borrow(z, writable=True, publish="copy")
        res = []
        for _ in range(3):
            res.append(outcome(lambda: call(v, y=y)))
            res.append(outcome(lambda: call(c, y=zv)))
            res.append(outcome(lambda: call(x, y=c)))
        res.append((y.tolist(), z.tolist(), c.tolist(), y._published))
        other = fast if ctx is slow else slow
        res.append(outcome(lambda: call(v, y=cint.empty(4, "I64"))))
        res.append(outcome(lambda: (other.square if other is fast else other.square._python)(x, y=y)))
        v.release()
        res.append(outcome(lambda: call(v, y=y)))                   # a released View
        y.release()
        res.append(outcome(lambda: call(x, y=y)))                   # a released Buffer
        res.append(outcome(lambda: call(cint.borrow(x), y=cint.borrow(z, writable=True))))  # no publish: a fault
        ctx.clear_fault()
        outs[ctx is fast] = res
    assert outs[True] == outs[False]


def test_a_view_in_two_contexts(mod):
    a, b = mod.context(), mod.context()
    x = np.arange(3, dtype=np.int64)
    v = cint.borrow(x)
    ya, yb = cint.empty(3, "I64"), cint.empty(3, "I64")
    for _ in range(3):
        a.square(v, y=ya)
        b.square(v, y=yb)
    assert ya.tolist() == yb.tolist() == [0, 1, 4]
    assert v._fast(a) is not None and v._fast(b) is not None     # a registration in each context
    v.release()
    for ctx, y in ((a, ya), (b, yb)):
        with pytest.raises(cint.StaleHandle):
            ctx.square(v, y=y)
    a.close()
    b.close()


def test_scale_inout_and_publication(pair):
    for ctx in pair:
        call = ctx.scale if ctx is pair[0] else ctx.scale._python
        buf = cint.copy([1, 2, 3], elem="I32")
        a = np.array([1, 2, 3], dtype=np.int32)
        va = cint.borrow(a, writable=True)
        for k in (2, -1, 2**31 - 1, 2**31):
            r = outcome(lambda: call(a=va, k=k))
            if ctx.fault() is not None:
                ctx.clear_fault()
            r2 = outcome(lambda: call(a=buf, k=k))
            ctx.__dict__.setdefault("_seen", []).append((r, r2, a.tolist(), buf.tolist()))
            if ctx.fault() is not None:
                ctx.clear_fault()
        e = cint.empty(3, "I32")
        ctx.__dict__["_seen"].append((outcome(lambda: call(a=e, k=2)), e._published, e.tolist()))
    assert pair[0]._seen == pair[1]._seen


def test_kernel_fault_leaves_output_unpublished(pair):
    for ctx in pair:
        call = ctx.square if ctx is pair[0] else ctx.square._python
        y = cint.empty(2, "I64")
        r = outcome(lambda: call(np.array([2**40, 1], dtype=np.int64), y=y))
        ctx.__dict__["_k"] = (r[0], y._published, ctx.last_entry().name)
        ctx.clear_fault()
    assert pair[0]._k == pair[1]._k == ("OverflowFault", False, "square")


def test_closed_context(pair):
    fast, slow = pair
    fast.close()
    slow.close()
    assert fast._lock.handle is None
    assert outcome(lambda: fast.narrow(5)) == outcome(lambda: slow.narrow._python(5))
    x = np.arange(2, dtype=np.int64)
    assert outcome(lambda: fast.square(x, y=cint.empty(2, "I64"))) == \
        outcome(lambda: slow.square._python(x, y=cint.empty(2, "I64")))


def test_last_entry(pair):
    fast, slow = pair
    fast.parse_u(b"12")
    slow.parse_u._python(b"12")
    assert str(fast.last_entry()) == str(slow.last_entry()) == "parse_u: no copies"
    y = cint.empty(3, "I64")
    fast.square(np.arange(3, dtype=np.int64), y=y)
    fast.square(np.arange(3, dtype=np.int64), y=y)
    assert fast.last_entry().name == "square" and fast._last == ("square", ["x", "y"])


def test_gate_is_a_lock(pair):
    g = pair[0]._lock
    assert g.acquire() is True and g.locked()
    assert g.acquire(blocking=False) is False and g.acquire(timeout=0.01) is False
    with pytest.raises(cint.Busy):
        pair[0].narrow(1)
    g.release()
    with pytest.raises(RuntimeError):
        g.release()
    with g:
        assert g.locked()
    assert not g.locked()
    with pytest.raises(ValueError):
        g.acquire(False, 1.0)


def test_plans_the_c_path_refuses(pair):
    fast, _ = pair
    e = fast.narrow._python
    with pytest.raises(TypeError):
        FC.Caller()
    for inv in (0, 1, (0, 0), (1, -1), (1, 2**32), (1,), (1, "0")):     # (cintx_invoke address, export index)
        with pytest.raises((ValueError, OverflowError)):
            FC.Caller(fast, fast._lock, e, e._c_outcome, ("x", []), inv, -1, False, (), None, (1, 1), cint.View,
                      cint.Buffer, None)
    with pytest.raises(ValueError):
        FC.Caller(fast, fast._lock, e, e._c_outcome, ("x", []), (1, 0), -1, False, (("x", 0, 1, 7, 0, 0, 0, None),),
                  None, (1, 1), cint.View, cint.Buffer, None)
    with pytest.raises(ValueError):
        FC.Caller(fast, fast._lock, e, e._c_outcome, ("x", []), (1, 0), -1, False, (("x", 9),), None, (1, 1),
                  cint.View, cint.Buffer, None)


def test_references_are_not_leaked(pair):
    fast, _ = pair
    x = np.arange(8, dtype=np.int64)
    v = cint.borrow(x)
    y = cint.empty(8, "I64")
    big = 2**40
    s = b"12345"
    fast.square(v, y=y)
    objs = [x, v, y, big, s]
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(2000):
        fast.square(v, y=y)
        fast.square(x, y=y)
        fast.id_i64(big)
        fast.parse_u(s)
        fast.check(big)
        try:
            fast.check(-big)
        except cint.ErrorResult:
            pass
    assert [sys.getrefcount(o) for o in objs] == before
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(500):
            fast.square(x, y=y)
            fast.id_i64(big)
        first = tracemalloc.get_traced_memory()[0]
        for _ in range(10_000):
            fast.square(x, y=y)
            fast.square(v, y=y)
            fast.id_i64(big)
            fast.parse_u(s)
        grown = tracemalloc.get_traced_memory()[0] - first
    finally:
        tracemalloc.stop()
    assert grown < 16_384, grown


def test_restore_registers_again(pair):
    """After a restore, a View or Buffer kept by the C path is registered again under a new identifier (P-20)."""
    seen = []
    for ctx in pair:
        call = ctx.square if ctx is pair[0] else ctx.square._python
        x = np.arange(4, dtype=np.int64)
        v = cint.borrow(x)
        y = cint.empty(4, "I64")
        call(v, y=y)
        call(v, y=y)
        try:
            cp = ctx.checkpoint()
        except NotImplementedError:
            pytest.skip("Context.checkpoint() is not in this build")
        before = (v._fast(ctx), y._fast(ctx))
        call(v, y=y)
        ctx.restore(cp)
        assert v._fast(ctx) is None
        call(v, y=y)
        call(v, y=y)
        after = (v._fast(ctx), y._fast(ctx))
        assert after[0][:2] != before[0][:2]
        seen.append((before, after, y.tolist()))
    assert seen[0] == seen[1]


def test_cintx_invoke_rows_and_refusals(mod):
    """cintx_invoke takes an export by its row of the reflection table; an unknown row, or a NULL argument
    pointer, is refused with reason CALL and runs nothing."""
    import ctypes as C
    from cint_abi.codes import REFUSAL_REASONS
    ctx = mod.context()
    inv = C.CFUNCTYPE(C.c_int32, C.c_void_p, C.c_uint32, C.c_int64, C.POINTER(C.c_void_p), C.c_void_p)(
        mod._invoke)
    rows = [r.name for r in mod.library.modules[0].exports]
    assert [mod._index[n] for n in rows] == list(range(len(rows)))
    x, r = C.c_int64(-7), C.c_int64(0)
    args = (C.c_void_p * 1)(C.cast(C.byref(x), C.c_void_p))
    assert inv(ctx._h, rows.index("id_i64"), -1, args, C.byref(r)) == 0 and r.value == -7
    r8 = C.c_int8(0)
    x.value = 200
    assert inv(ctx._h, rows.index("narrow"), -1, args, C.byref(r8)) == 1      # a fault: narrow(200)
    ctx.clear_fault()
    why = C.c_uint32(99)
    for index, a in ((len(rows), args), (2**32 - 1, args), (rows.index("id_i64"), None),
                     (rows.index("id_i64"), (C.c_void_p * 1)())):
        assert inv(ctx._h, index, -1, a, C.byref(r)) == 2
        assert mod._dll.cint_ctx_refusal(ctx._h, C.byref(why)) == 0 and why.value == REFUSAL_REASONS["CINT_REFUSAL_CALL"]
    assert inv(None, len(rows), -1, args, C.byref(r)) == 2
    assert ctx.id_i64(5) == 5
    ctx.close()


def test_a_plain_library_takes_the_ctypes_path(tmp_path):
    """A library of `cint build --lib` (no --with-state) has no cintx_invoke: its exports are _Entry objects."""
    import subprocess
    src = tmp_path / "plain.ci"
    src.write_text("export I64 twice(I64 x) { return x * 2; }\n")
    done = subprocess.run([sys.executable, "-m", "cint_compiler.cli", "build", "--lib", str(src), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    m = cint.load(tmp_path / "out" / "libplain.so")
    assert m._invoke is None
    ctx = m.context()
    assert type(ctx.twice) is _module._Entry and ctx.twice(21) == 42
    ctx.close()
