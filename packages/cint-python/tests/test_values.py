"""Unit tests of cint._values: cint.Fixed, float decoding and building, from_float/to_float edge cases, Q Buffers.

The clause-by-clause conformance tests, with the Fraction reference, are tests-conformance/test_py_values.py.
"""
import array
import copy as pycopy
import pickle
import struct
import sys
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cint
from cint import _values as V

np = pytest.importorskip("numpy")

SETTINGS = settings(max_examples=300, deadline=None)


# --- decoding and building bits ------------------------------------------------------------------------

@given(st.integers(0, 2**64 - 1))
@SETTINGS
def test_decode_binary64_is_exact(bits):
    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    d = V.decode(bits, "binary64")
    if x != x or x in (float("inf"), float("-inf")):
        assert d is None
        return
    neg, m, e = d
    assert 0 <= m < 2**53
    assert (-1) ** neg * Fraction(m) * Fraction(2) ** e == Fraction(x)
    assert bool(neg) == (struct.pack("<d", x)[7] >= 0x80)


@given(st.integers(0, 2**32 - 1))
@SETTINGS
def test_decode_binary32_is_exact(bits):
    x = np.array([bits], dtype=np.uint32).view(np.float32)[0]
    d = V.decode(bits, "binary32")
    if not np.isfinite(x):
        assert d is None
        return
    neg, m, e = d
    assert 0 <= m < 2**24
    assert (-1) ** neg * Fraction(m) * Fraction(2) ** e == Fraction(float(x))


def test_decode_subnormal_boundaries():
    assert V.decode(1, "binary64") == (0, 1, -1074)
    assert V.decode(0x000FFFFFFFFFFFFF, "binary64") == (0, 2**52 - 1, -1074)
    assert V.decode(0x0010000000000000, "binary64") == (0, 2**52, -1074)
    assert V.decode(1, "binary32") == (0, 1, -149)
    assert V.decode(0x00800000, "binary32") == (0, 2**23, -149)
    assert V.decode(0x80000000, "binary32") == (1, 0, -149)


@given(st.integers(-2**1023, 2**1023), st.integers(0, 63))
@SETTINGS
def test_binary_bits_is_correctly_rounded(n, f):
    bits = V.binary_bits(int(n < 0), abs(n), -f)
    got = struct.unpack("<d", struct.pack("<Q", bits))[0]
    assert got == float(Fraction(n, 2**f))     # CPython's int/Fraction to float is correctly rounded


def test_binary_bits_overflow_and_carry():
    assert struct.unpack("<d", struct.pack("<Q", V.binary_bits(0, 2**54 - 1, 0)))[0] == 2.0**54
    with pytest.raises(OverflowError):
        V.binary_bits(0, 2**1024, 0)
    with pytest.raises(cint.Refused) as ei:
        cint.to_float(2**1024)
    assert ei.value.code == "E_NARROW"
    with pytest.raises(cint.Refused):
        cint.to_float(2**128, dtype="float32")


# --- cint.Fixed --------------------------------------------------------------------------------------

def test_fixed_str_follows_cint_default_printing():
    # SPEC-04P.1 LS-207 and its table
    assert str(cint.Fixed("Q32.32", value=Fraction(3, 2))) == "1.5"
    assert str(cint.Fixed("Q32.32", value=3)) == "3.0"
    assert str(cint.Fixed("Q32.32", raw=1)) == "0.00000000023283064365386962890625"
    assert str(cint.Fixed("Q16.16", raw=-1)) == "-0.0000152587890625"
    assert str(cint.Fixed("Q8.0", value=-128)) == "-128.0"
    assert str(cint.Fixed("Q1.7", raw=-128)) == "-1.0"
    assert str(cint.Fixed("Q16.16", value=0)) == "0.0"


def test_fixed_is_immutable_hashable_and_picklable():
    q = cint.Fixed("Q16.16", raw=98304)
    assert repr(q) == "cint.Fixed('Q16.16', raw=98304)"
    with pytest.raises(AttributeError):
        q.raw = 1
    with pytest.raises(AttributeError):
        q.other = 1
    with pytest.raises(AttributeError):
        del q.raw
    assert q == cint.Fixed("Q16.16", value=Fraction(3, 2))
    assert q != cint.Fixed("Q32.32", value=Fraction(3, 2))     # equality is by format and raw
    assert q != 98304 and q != Fraction(3, 2) and q != 1.5
    assert len({q, cint.Fixed("Q16.16", raw=98304), cint.Fixed("Q8.24", raw=98304)}) == 2
    assert pickle.loads(pickle.dumps(q)) == q
    assert pycopy.copy(q) is q and pycopy.deepcopy(q) is q
    assert q.as_fraction() == Fraction(3, 2)
    assert isinstance(q.raw, int) and q.format == "Q16.16"


@pytest.mark.parametrize("fmt", ["Q0.8", "Q8.1", "Q08.0", "Q16.16 ", "q16.16", "Q16_16", "Q-1.9", "Q65.-1", "Q128.0",
                                 "I32", "", 16, None, b"Q16.16"])
def test_fixed_refuses_formats_that_are_not_q_formats(fmt):
    with pytest.raises(cint.Refused) as ei:
        cint.Fixed(fmt, raw=0)
    assert ei.value.code == "E_UNSUPPORTED"


def test_every_q_format_is_accepted():
    n = 0
    for bits in (8, 16, 32, 64):
        for i in range(1, bits + 1):
            f = bits - i
            lo, hi = -2**(bits - 1), 2**(bits - 1) - 1
            assert cint.Fixed("Q%d.%d" % (i, f), raw=lo).as_fraction() == Fraction(lo, 2**f)
            assert cint.Fixed("Q%d.%d" % (i, f), raw=hi).raw == hi
            with pytest.raises(cint.Refused):
                cint.Fixed("Q%d.%d" % (i, f), raw=hi + 1)
            n += 1
    assert n == 120


def test_fixed_call_shapes():
    with pytest.raises(TypeError):
        cint.Fixed("Q16.16")
    with pytest.raises(TypeError):
        cint.Fixed("Q16.16", value=1, raw=1)
    with pytest.raises(TypeError):
        cint.Fixed("Q16.16", 1)                    # value and raw are keyword-only: a bare int is ambiguous
    with pytest.raises(cint.Refused) as ei:
        cint.Fixed("Q16.16", raw=1.0)
    assert ei.value.code == "E_UNSUPPORTED"
    with pytest.raises(cint.Refused):
        cint.Fixed("Q16.16", raw=True)
    assert cint.Fixed("Q16.16", raw=np.int64(5)).raw == 5
    assert cint.Fixed("Q16.16", value=np.int8(-2)).raw == -2 * 65536
    for bad in (np.float64(0.5), np.float32(0.5), Decimal("0.5"), 0.5, np.bool_(True), "0.5", None):
        with pytest.raises(cint.Refused) as ei:
            cint.Fixed("Q16.16", value=bad)
        assert ei.value.code == "E_NARROW"


# --- Q Buffers ------------------------------------------------------------------------------------------

def test_q_buffers_copy_and_tolist():
    vals = [[cint.Fixed("Q8.8", raw=k) for k in (1, -2)], [cint.Fixed("Q8.8", value=3), cint.Fixed("Q8.8", raw=0)]]
    b = cint.copy(vals, elem="Q8.8")
    assert b.elem == "Q8.8" and b.shape == (2, 2)
    assert b.tolist() == vals
    assert cint.copy(b).tolist() == vals
    assert "Q8.8[2, 2]" in repr(b)
    with pytest.raises(cint.Refused):
        cint.copy(b, elem="I16")                     # never converts
    with pytest.raises(cint.Refused, match="raw"):
        cint.copy([1, 2], elem="Q8.8")               # a bare int is ambiguous
    with pytest.raises(cint.Refused):
        cint.copy([cint.Fixed("Q4.4", raw=1)], elem="Q8.8")
    with pytest.raises(cint.Refused):
        cint.copy(np.array([1, 2], dtype=np.int16), elem="Q8.8")
    with pytest.raises(cint.Refused):
        np.asarray(b)                                # a Q format has no NumPy dtype
    assert cint.to_float(b).tolist() == [[1 / 256, -2 / 256], [3.0, 0.0]]


def test_q_element_names_in_empty_and_check_elem():
    b = cint.empty(4, "Q16.16")
    assert b.elem == "Q16.16" and "unpublished" in repr(b)
    with pytest.raises(cint.Unpublished):
        b.tolist()
    with pytest.raises(cint.Unpublished):
        cint.to_float(b)
    with pytest.raises(cint.Refused):
        cint.empty(4, "Q16.15")
    with pytest.raises(cint.Refused):
        cint.empty(4, "F64")


# --- from_float: inputs -------------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [None, {}, object(), "1.0", b"\x00" * 8, bytearray(8), 1, True, np.int64(3),
                                 np.bool_(True), [1.0, 2], [1.0, "x"], [[1.0], [2.0, 3.0]], [[[[[1.0]]]]],
                                 np.zeros((1, 1, 1, 1, 1)), np.array(1.5), np.array(1.5, dtype=np.float32),
                                 np.zeros(2, dtype=np.float16), np.zeros(2, dtype=np.complex128),
                                 np.zeros(2, dtype=object), np.zeros(2, dtype="datetime64[s]"),
                                 np.zeros(2, dtype=np.int32), np.float16(1.0), [np.float32(1.0)],
                                 array.array("i", [1]), {1.0}, (x for x in [1.0])])
def test_bad_inputs_are_refused_never_crash(obj):
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(obj, "I64")
    assert ei.value.code == "E_UNSUPPORTED"


@pytest.mark.parametrize("elem", ["Bool", "I128", "I1024", "F64", "Q0.8", "Q16.15", "i64", "", None, 64, np.int64])
def test_bad_targets_are_refused(elem):
    with pytest.raises(cint.Refused) as ei:
        cint.from_float([1.0], elem)
    assert ei.value.code == "E_UNSUPPORTED"


def test_target_is_checked_before_the_input_and_the_modes():
    with pytest.raises(cint.Refused, match="wide integers"):
        cint.from_float(np.zeros(1, np.float16), "I128", rounding="bogus")


def test_accepted_input_forms():
    assert cint.from_float(1.5, "I8") == 2                           # a Python float gives a scalar
    assert cint.from_float(np.float64(-1.5), "I8") == -2
    assert cint.from_float(np.float32(0.1), "Q1.31") == cint.Fixed("Q1.31", raw=214748368)
    assert cint.from_float([], "U8").shape == (0,)
    assert cint.from_float([[], []], "U8").shape == (2, 0)
    assert cint.from_float(np.zeros((2, 0)), "U8").tolist() == [[], []]
    assert cint.from_float((0.5, 1.5), "U8", rounding="ceil").tolist() == [1, 2]
    assert cint.from_float(array.array("d", [2.5, 3.5]), "I16").tolist() == [2, 4]
    assert cint.from_float(memoryview(array.array("f", [2.5])), "I16", rounding="half_up").tolist() == [3]
    a = np.arange(24.0).reshape(2, 3, 4)[:, ::-1, 1::2]              # non-contiguous
    assert cint.from_float(a, "U8").tolist() == a.astype(np.int64).tolist()
    assert cint.from_float(np.arange(16.0).reshape(2, 2, 2, 2), "I8").shape == (2, 2, 2, 2)
    assert cint.from_float(np.array([1.5, 2.5], dtype=">f4"), "I8").tolist() == [2, 2]
    b = cint.from_float(np.array([[0.25]]), "Q4.4")
    assert isinstance(b, cint.Buffer) and b.elem == "Q4.4" and b.tolist() == [[cint.Fixed("Q4.4", raw=4)]]


def test_every_integer_target_stores_its_extremes():
    for elem, lo, hi in [("I8", -128, 127), ("I16", -2**15, 2**15 - 1), ("I32", -2**31, 2**31 - 1),
                         ("I64", -2**63, 2**63 - 1), ("U8", 0, 255), ("U16", 0, 2**16 - 1),
                         ("U32", 0, 2**32 - 1), ("U64", 0, 2**64 - 1)]:
        b = cint.from_float(np.array([-1e300, 1e300]), elem, overflow="saturate")
        assert b.elem == elem and b.tolist() == [lo, hi]
        assert cint.copy(b).tolist() == [lo, hi]


def test_copy_from_float_options():
    a = np.array([0.5, 1.5, 300.0])
    assert cint.copy(a, elem="U8", from_float={"overflow": "saturate"}).tolist() == [0, 2, 255]
    assert cint.copy(a, elem="U8", from_float={"rounding": "away", "overflow": "saturate"}).tolist() == [1, 2, 255]
    assert cint.copy(a[:2], elem="U8", from_float="floor").tolist() == [0, 1]
    assert cint.copy(a[:2], elem="U8", from_float=True).tolist() == [0, 2]
    for bad in ({"mode": "floor"}, 3, "wrap", ("floor", "refuse")):
        with pytest.raises(cint.Refused) as ei:
            cint.copy(a, elem="U8", from_float=bad)
        assert ei.value.code == "E_UNSUPPORTED"
    with pytest.raises(cint.Refused, match="elem"):
        cint.copy(a, from_float=True)
    with pytest.raises(cint.Refused, match="Buffer"):
        cint.copy(1.5, elem="I8", from_float=True)
    with pytest.raises(cint.Refused) as ei:
        cint.copy(a, elem="U8", from_float=True)
    assert ei.value.code == "E_NARROW" and ei.value.index == (2,)


def test_refusal_message_names_element_and_count():
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(np.array([[1.0, float("inf")], [float("-inf"), 1e20]]), "I32")
    text = str(ei.value)
    assert "[0, 1]" in text and "3 of 4" in text and "inf" in text
    assert ei.value.count == 3 and ei.value.target == "I32" and ei.value.format == "binary64"
    assert ei.value.exact is None and ei.value.bits == 0x7FF0000000000000
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(1e20, "I32")
    assert ei.value.index is None and ei.value.rounded == 10**20 and ei.value.exact == (10**20 >> 20, 20)


# --- to_float -------------------------------------------------------------------------------------------

def test_to_float_of_views_and_scalars():
    a = np.array([[1, -3], [5, 2**62 + 1]], dtype=np.int64)
    v = cint.borrow(a[:, ::-1])
    got = cint.to_float(v)
    assert got.tolist() == [[-3.0, 1.0], [4611686018427387904.0, 5.0]]
    v.release()
    with pytest.raises(cint.StaleHandle):
        cint.to_float(v)
    assert cint.to_float(cint.borrow(np.zeros((0, 3), np.uint8))).shape == (0, 3)
    assert cint.to_float(np.uint64(2**64 - 1)) == 2.0**64
    assert cint.to_float(-7) == -7.0
    assert cint.to_float(cint.Fixed("Q1.63", raw=-2**63)) == -1.0
    assert type(cint.to_float(3)) is float
    assert cint.to_float(16777217, dtype="float32") == np.float32(16777216)
    assert cint.to_float(cint.copy([1, 2], elem="U8"), dtype=np.float32).dtype == np.float32
    for bad in (True, np.bool_(False), 1.5, "1", [1, 2], np.array([1, 2]), None, cint.copy([True], elem="Bool")):
        with pytest.raises(cint.Refused) as ei:
            cint.to_float(bad)
        assert ei.value.code == "E_UNSUPPORTED"
    for dt in ("float16", "int64", "longdouble", "f8x", 3.5):
        with pytest.raises(cint.Refused):
            cint.to_float(1, dtype=dt)


def test_to_float_without_numpy(monkeypatch):
    b = cint.copy([[2**53 + 1, -1]], elem="I64")
    monkeypatch.setitem(sys.modules, "numpy", None)
    got = cint.to_float(b)
    assert got == [[9007199254740992.0, -1.0]] and type(got[0][0]) is float
    assert cint.to_float(cint.Fixed("Q4.4", raw=3), dtype="float32") == 0.1875
    b2 = cint.from_float([0.1], "Q16.16")
    assert b2.tolist() == [cint.Fixed("Q16.16", raw=6554)]
