"""The NumPy paths of from_float / copy(from_float=) / to_float against the pure-Python path, which is the
oracle (8.5 X-1..X-11): every rounding mode, binary32 and binary64, integer and Q targets, NaN, the
infinities, subnormals, ties and overflow."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cint
from cint import _values as V

TARGETS = ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "Q1.7", "Q8.8", "Q16.16", "Q1.31", "Q8.24",
           "Q32.32", "Q1.63", "Q48.16", "Q64.0"]
FORMATS = {"binary64": (np.uint64, 64), "binary32": (np.uint32, 32)}


def _special(fmt):
    """Bit patterns at the edges: zeros, the least subnormal, the largest subnormal, the least normal, ties
    at every integer scale, powers of two near 2^63 and 2^64, the largest finite, the infinities, NaNs."""
    if fmt == "binary64":
        pack = lambda x: struct.unpack("<Q", struct.pack("<d", x))[0]      # noqa: E731
        raw = [0, 1 << 63, 1, (1 << 52) - 1, 1 << 52, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
               0x7FF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF]
    else:
        pack = lambda x: struct.unpack("<I", struct.pack("<f", x))[0]      # noqa: E731
        raw = [0, 1 << 31, 1, (1 << 23) - 1, 1 << 23, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
               0xFFFFFFFF]
    vals = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, 128.0, -128.0, -128.5, 255.5, 256.0, 2.0 ** 15, 32767.5,
            2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1.0 / 3.0, 2.0 ** -17, 3 * 2.0 ** -17,
            2.0 ** -64, 2.0 ** -63, 1.0 - 2.0 ** -24, 65535.99998]
    return raw + [pack(v) for v in vals]


def _pure(bits, fmt, tgt, rounding, overflow):
    return V._convert_all([int(b) for b in bits], fmt, tgt, rounding, overflow)


def _agree(bits, fmt, elem, rounding, overflow):
    tgt = V._target(elem)
    arr = np.array(bits, dtype=FORMATS[fmt][0])
    exp = _pure(arr, fmt, tgt, rounding, overflow)
    got = V._convert_np(arr, fmt, tgt, rounding, overflow)
    if exp[0] is None:
        assert got[0] is None, (elem, rounding, overflow)
        e, g = exp[1], got[1]
        assert (e.flat, exp[2], e.reason, e.exact, e.rounded, e.bits) == (g.flat, got[2], g.reason, g.exact,
                                                                           g.rounded, g.bits)
    else:
        assert got[0] is not None, (elem, rounding, overflow, got[1].flat)
        assert [int(v) for v in got[0]] == exp[0], (elem, rounding, overflow)


@pytest.mark.clause("X-3", "X-4", "X-5", "X-6")
@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("elem", TARGETS)
def test_edges_every_mode_and_policy(fmt, elem):
    bits = _special(fmt)
    finite = [b for b in bits if (b >> (52 if fmt == "binary64" else 23)) & (0x7FF if fmt == "binary64" else 0xFF)
              != (0x7FF if fmt == "binary64" else 0xFF)]
    for rounding in V.ROUNDING_MODES:
        for overflow in V.OVERFLOW_POLICIES:
            _agree(bits, fmt, elem, rounding, overflow)          # refuses: the first refused and the count
            _agree(finite, fmt, elem, rounding, "saturate")
            for b in bits:                                       # each alone: value or refusal
                _agree([b], fmt, elem, rounding, overflow)


@pytest.mark.clause("X-3", "X-4", "X-5")
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(list(FORMATS)), st.sampled_from(TARGETS), st.sampled_from(V.ROUNDING_MODES),
       st.sampled_from(V.OVERFLOW_POLICIES), st.data())
def test_random_bit_patterns(fmt, elem, rounding, overflow, data):
    width = FORMATS[fmt][1]
    # half of the patterns near the target's scale, where rounding and ties matter; half anything at all
    tgt = V._target(elem)
    e_bits = 52 if fmt == "binary64" else 23
    bias = 1023 if fmt == "binary64" else 127
    near = st.builds(lambda sgn, e, fr: (sgn << (width - 1)) | ((e + bias) << e_bits) | fr,
                     st.integers(0, 1), st.integers(-tgt.f - 3, 66 - tgt.f).filter(lambda e: -bias < e <= bias),
                     st.integers(0, (1 << e_bits) - 1))
    bits = data.draw(st.lists(st.one_of(near, st.integers(0, (1 << width) - 1)), min_size=1, max_size=40))
    _agree(bits, fmt, elem, rounding, overflow)
    _agree(bits, fmt, elem, rounding, "saturate") if overflow == "refuse" else None


@pytest.mark.clause("X-10")
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]),
       st.sampled_from([0, 1, 7, 16, 24, 31, 32, 48, 63]), st.sampled_from(["float64", "float32"]), st.data())
def test_to_float_bits_agree(dtype, f, out, data):
    info = np.iinfo(dtype)
    edge = st.sampled_from([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, (1 << 53) + 1 if info.max > 2 ** 53
                            else info.max, (1 << 24) + 1 if info.max > 2 ** 24 else info.max])
    vals = data.draw(st.lists(st.one_of(edge, st.integers(int(info.min), int(info.max))), min_size=1, max_size=40))
    arr = np.array(vals, dtype=dtype)
    got = V._bits_np(arr, f, out).tolist()
    exp = [V.binary_bits(int(v < 0), abs(int(v)), -f, out) for v in vals]
    assert got == exp


def _force_pure(monkeypatch):
    monkeypatch.setattr(V, "_numpy_ok", lambda: False)


@pytest.mark.clause("X-1", "X-6", "X-7")
def test_public_api_matches_the_pure_path(monkeypatch):
    x = np.array([[1.5, -2.5, 0.1], [1e-310, -0.0, 65535.99998]])
    for elem in ("I32", "Q16.16", "U64"):
        for rounding in ("half_even", "floor", "away"):
            kw = dict(rounding=rounding, overflow="saturate")
            fast = cint.from_float(x, elem, **kw)
            fast_copy = cint.copy(x, elem=elem, from_float=kw)
            with monkeypatch.context() as m:
                _force_pure(m)
                slow = cint.from_float(x, elem, **kw)
            assert fast.shape == slow.shape == (2, 3)
            assert fast.tolist() == slow.tolist() == fast_copy.tolist()
    bad = np.array([1.0, 2.0, float("inf"), 3e9, float("nan")], dtype=np.float32)
    with pytest.raises(cint.Refused) as fast:
        cint.from_float(bad, "I32")
    with monkeypatch.context() as m:
        _force_pure(m)
        with pytest.raises(cint.Refused) as slow:
            cint.from_float(bad, "I32")
    assert str(fast.value) == str(slow.value)
    assert (fast.value.index, fast.value.count, fast.value.reason) == ((2,), 3, "non_finite")
    big = np.array([1.0, 3e9])
    with pytest.raises(cint.Refused) as e:
        cint.from_float(big, "I32")
    assert (e.value.reason, e.value.index, e.value.rounded) == ("out_of_range", (1,), 3000000000)


@pytest.mark.clause("X-10")
def test_to_float_of_buffers_and_strided_views(monkeypatch):
    a = np.arange(-12, 12, dtype=np.int64).reshape(4, 6) * (2 ** 53 + 1)
    views = [cint.borrow(a), cint.borrow(a[::-1, 1::2]), cint.borrow(a.T), cint.copy(a)]
    q = cint.from_float(np.array([[0.5, -1.25], [3.0, 2.0 ** -16]]), "Q16.16")
    for v in views + [q]:
        for dt in ("float64", "float32"):
            fast = cint.to_float(v, dtype=dt)
            with monkeypatch.context() as m:
                _force_pure(m)
                slow = cint.to_float(v, dtype=dt)
            assert np.asarray(slow).tolist() == fast.tolist()
            assert fast.dtype == np.dtype(dt) and fast.flags.writeable
    assert cint.to_float(cint.copy(np.array([2 ** 53 + 1], dtype=np.int64))).tolist() == [9007199254740992.0]
    empty = cint.borrow(np.zeros((0, 3), dtype=np.int16))
    assert cint.to_float(empty).shape == (0, 3)
