"""SPEC-03P.1 8.5 from Python: cint.Fixed (P-21a, P-24), cint.from_float (X-1..X-8), cint.to_float (X-10, X-11).

The float conversions are checked against an independent reference built with fractions.Fraction
(Fraction(x) is exact for every finite float), over binary32 and binary64 bit patterns drawn by
hypothesis, every rounding mode and many integer and fixed-point targets.
"""
import math
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cint

np = pytest.importorskip("numpy")

MODES = ["floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc", "half_up", "half_down"]
INTS = {"I8": (-2**7, 2**7 - 1), "I16": (-2**15, 2**15 - 1), "I32": (-2**31, 2**31 - 1), "I64": (-2**63, 2**63 - 1),
        "U8": (0, 2**8 - 1), "U16": (0, 2**16 - 1), "U32": (0, 2**32 - 1), "U64": (0, 2**64 - 1)}
QS = ["Q8.0", "Q1.7", "Q4.4", "Q16.16", "Q1.15", "Q9.23", "Q32.32", "Q1.63", "Q64.0", "Q2.62", "Q40.24", "Q31.1"]
TARGETS = list(INTS) + QS
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the reference --------------------------------------------------------------------------------

def target_info(elem):
    """(lo, hi, f) of a target, raw for a Q format; written from SPEC-04P.1 LS-36 directly."""
    if elem in INTS:
        lo, hi = INTS[elem]
        return lo, hi, 0
    i, f = (int(t) for t in elem[1:].split("."))
    bits = i + f
    return -2**(bits - 1), 2**(bits - 1) - 1, f


def ref_round(x: Fraction, mode: str) -> int:
    lo, hi = math.floor(x), math.ceil(x)
    if lo == hi:
        return lo
    positive = x > 0
    if mode == "floor":
        return lo
    if mode == "ceil":
        return hi
    if mode == "trunc":
        return lo if positive else hi
    if mode == "away":
        return hi if positive else lo
    d = x - lo
    if d != Fraction(1, 2):
        return lo if d < Fraction(1, 2) else hi
    return {"half_even": lo if lo % 2 == 0 else hi, "half_away": hi if positive else lo,
            "half_trunc": lo if positive else hi, "half_up": hi, "half_down": lo}[mode]


def ref_convert(x: float, elem: str, mode: str, overflow: str):
    """("ok", raw) or ("refused", reason) for one finite or non-finite binary64 value x."""
    if math.isnan(x) or math.isinf(x):
        return "refused", "non_finite"
    lo, hi, f = target_info(elem)
    n = ref_round(Fraction(x) * 2**f, mode)
    if lo <= n <= hi:
        return "ok", n
    if overflow == "saturate":
        return "ok", min(max(n, lo), hi)
    return "refused", "out_of_range"


def raw_of(v):
    return v.raw if isinstance(v, cint.Fixed) else v


def f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def f32(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


# strategies: raw bit patterns (every class of value), plus values near the grid of the target
bits64 = st.integers(0, 2**64 - 1)
bits32 = st.integers(0, 2**32 - 1)
targets = st.sampled_from(TARGETS)
modes = st.sampled_from(MODES)


@st.composite
def near_grid(draw):
    """A binary64 value at, or half a step from, a grid point of some target: ties and near-ties."""
    elem = draw(targets)
    lo, hi, f = target_info(elem)
    n = draw(st.one_of(st.integers(lo - 3, lo + 3), st.integers(hi - 3, hi + 3), st.integers(-40, 40),
                       st.integers(lo, hi)))
    kind = draw(st.sampled_from(["exact", "half", "near"]))
    num, den = (2 * n, 2) if kind == "exact" else (2 * n + 1, 2)
    x = Fraction(num, den) / 2**f
    v = float(x)                       # correctly rounded; it may not be the tie when n is large
    if kind == "near":
        v = math.nextafter(v, draw(st.sampled_from([math.inf, -math.inf])))
    return elem, v


# --- P-21a, P-24: cint.Fixed ------------------------------------------------------------------------

@pytest.mark.clause("P-21a")
def test_fixed_value_and_raw_as_the_spec_shows():
    assert cint.Fixed("Q32.32", value=1).raw == 4294967296
    q = cint.Fixed("Q32.32", raw=1)
    assert q.as_fraction() == Fraction(1, 2**32)
    assert q.format == "Q32.32"
    assert cint.Fixed("Q16.16", value=Fraction(3, 2)).raw == 98304


@pytest.mark.clause("P-21a")
@pytest.mark.parametrize("value", [Fraction(1, 3), Fraction(1, 2**17), 0.5, 1.0, "1", [1], True,
                                   2**15, -2**15 - 1, Fraction(2**16 + 1, 2), Decimal(1)])
def test_fixed_value_refuses_anything_not_exact_and_in_range_with_E_NARROW(value):
    with pytest.raises(cint.Refused) as ei:
        cint.Fixed("Q16.16", value=value)
    assert ei.value.code == "E_NARROW"


@pytest.mark.clause("P-21a")
@given(elem=st.sampled_from(QS), num=st.integers(-2**70, 2**70), k=st.integers(0, 70))
@SETTINGS
def test_fixed_value_is_taken_exactly_when_representable_and_in_range(elem, num, k):
    lo, hi, f = target_info(elem)
    x = Fraction(num, 2**k)
    scaled = x * 2**f
    if scaled.denominator == 1 and lo <= scaled <= hi:
        q = cint.Fixed(elem, value=x)
        assert q.raw == scaled and q.as_fraction() == x
        assert cint.Fixed(elem, raw=q.raw) == q
    else:
        with pytest.raises(cint.Refused) as ei:
            cint.Fixed(elem, value=x)
        assert ei.value.code == "E_NARROW"


@pytest.mark.clause("P-24")
@given(elem=st.sampled_from(QS), data=st.data())
@SETTINGS
def test_fixed_decimal_form_is_exact(elem, data):
    lo, hi, f = target_info(elem)
    raw = data.draw(st.integers(lo, hi))
    q = cint.Fixed(elem, raw=raw)
    text = str(q)
    assert "." in text and "e" not in text.lower()
    whole, _, frac = text.partition(".")
    assert Fraction(text) == Fraction(raw, 2**f)
    assert len(frac) <= max(f, 1)
    assert repr(q) == "cint.Fixed(%r, raw=%d)" % (elem, raw)


@pytest.mark.clause("P-24")
def test_fixed_results_of_a_q_buffer_are_fixed_values():
    buf = cint.from_float(np.array([1.5, -0.25]), "Q16.16")
    got = buf.tolist()
    assert got == [cint.Fixed("Q16.16", value=Fraction(3, 2)), cint.Fixed("Q16.16", value=Fraction(-1, 4))]
    assert [str(q) for q in got] == ["1.5", "-0.25"]


# --- explicit conversion, binary32 and binary64 only ---------------------------------------

@pytest.mark.clause("X-1")
def test_floats_enter_only_through_an_explicit_conversion():
    a = np.array([1.0, 2.0])
    with pytest.raises(cint.Refused, match="from_float"):
        cint.copy(a)
    with pytest.raises(cint.Refused):
        cint.copy(a, elem="I64")
    with pytest.raises(cint.BorrowRefused, match="from_float"):
        cint.borrow(a)
    with pytest.raises(cint.Refused):
        cint.copy([1.0, 2.0], elem="I64")
    assert cint.copy(a, elem="I64", from_float=True).tolist() == [1, 2]
    assert cint.copy(a, elem="I64", from_float={"rounding": "floor", "overflow": "refuse"}).tolist() == [1, 2]
    assert cint.from_float(a, "I64").tolist() == [1, 2]


@pytest.mark.clause("X-2")
@pytest.mark.parametrize("dtype", ["float16", "longdouble", "complex64", "complex128"])
def test_other_float_formats_are_refused(dtype):
    a = np.zeros(3, dtype=dtype)
    if dtype == "longdouble" and np.dtype(dtype).itemsize == 8:
        pytest.skip("longdouble is binary64 on this platform")
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(a, "I64")
    assert ei.value.code == "E_UNSUPPORTED"


@pytest.mark.clause("X-2")
def test_binary32_and_binary64_both_convert():
    assert cint.from_float(np.array([2.5, -1.25], dtype=np.float32), "Q8.8").tolist() == \
        [cint.Fixed("Q8.8", value=Fraction(5, 2)), cint.Fixed("Q8.8", value=Fraction(-5, 4))]
    assert cint.from_float(np.array([2.5], dtype=">f8"), "I8").tolist() == [2]
    assert cint.from_float([[0.5, 1.5]], "I8").tolist() == [[0, 2]]


# --- exact, then one rounding (against the Fraction reference) --------------------------------

def check_one(x_bits, x_float, fmt_array, elem, mode, overflow):
    want = ref_convert(float(x_float), elem, mode, overflow)
    try:
        got = cint.from_float(fmt_array, elem, rounding=mode, overflow=overflow).tolist()[0]
    except cint.Refused as ex:
        assert want == ("refused", ex.reason), (x_bits, elem, mode)
        assert ex.code == "E_NARROW" and ex.operands == (x_bits,) and ex.count == 1
        return
    assert want == ("ok", raw_of(got)), (x_bits, elem, mode)
    if elem in QS:
        assert isinstance(got, cint.Fixed) and got.format == elem


@pytest.mark.clause("X-3", "X-4", "X-6", "X-7")
@given(bits=bits64, elem=targets, mode=modes, overflow=st.sampled_from(["refuse", "saturate"]))
@SETTINGS
def test_binary64_matches_the_exact_reference(bits, elem, mode, overflow):
    x = f64(bits)
    check_one(bits, x, np.array([bits], dtype=np.uint64).view(np.float64), elem, mode, overflow)


@pytest.mark.clause("X-3", "X-4", "X-6", "X-7")
@given(bits=bits32, elem=targets, mode=modes, overflow=st.sampled_from(["refuse", "saturate"]))
@SETTINGS
def test_binary32_matches_the_exact_reference(bits, elem, mode, overflow):
    x = f32(bits)
    check_one(bits, x, np.array([bits], dtype=np.uint32).view(np.float32), elem, mode, overflow)


@pytest.mark.clause("X-3", "X-4")
@given(case=near_grid(), mode=modes)
@SETTINGS
def test_halfway_and_near_halfway_values_match_the_reference(case, mode):
    elem, x = case
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    check_one(bits, x, np.array([x]), elem, mode, "refuse")
    check_one(bits, x, np.array([x]), elem, mode, "saturate")


@pytest.mark.clause("X-3", "X-7")
@given(x=st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True, width=64)
       | st.floats(width=64, min_value=-1e-300, max_value=1e-300)
       | st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.0**-1022, 1.7976931348623157e308, 2.0**63, -2.0**63,
                          2.0**64, 2.0**63 - 1024, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5]),
       elem=targets, mode=modes)
@SETTINGS
def test_python_floats_and_sequences_match_the_reference(x, elem, mode):
    want = ref_convert(x, elem, mode, "refuse")
    try:
        got = cint.from_float(x, elem, rounding=mode)
    except cint.Refused as ex:
        assert want == ("refused", ex.reason)
        assert ex.index is None
    else:
        assert want == ("ok", raw_of(got))
        assert cint.from_float([x], elem, rounding=mode).tolist() == [got]


@pytest.mark.clause("X-3")
def test_no_float_operation_touches_the_value():
    class Poisoned(float):
        def _no(self, *a):
            raise AssertionError("float arithmetic on the input")
        __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _no
        __floordiv__ = __mod__ = __divmod__ = __pow__ = __round__ = __floor__ = __ceil__ = __trunc__ = _no
        __int__ = __float__ = __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __abs__ = _no
        as_integer_ratio = hex = is_integer = _no
    vals = [Poisoned(v) for v in (0.1, -2.5, 5e-324, 1e300, -0.0)]
    got = cint.from_float(vals, "Q32.32", overflow="saturate").tolist()
    assert [q.raw for q in got] == [ref_convert(float.__float__(v), "Q32.32", "half_even", "saturate")[1]
                                    for v in vals]


# --- the modes -------------------------------------------------------------------------------------

@pytest.mark.clause("X-4")
def test_the_mode_table_of_SPEC_01P_1_IM_42():
    table = {"floor": [2, -3, 2, -3, 3], "ceil": [3, -2, 3, -2, 4], "trunc": [2, -2, 2, -2, 3],
             "away": [3, -3, 3, -3, 4], "half_even": [2, -2, 2, -3, 4], "half_away": [3, -3, 2, -3, 4],
             "half_trunc": [2, -2, 2, -3, 3], "half_up": [3, -2, 2, -3, 4], "half_down": [2, -3, 2, -3, 3]}
    xs = np.array([2.5, -2.5, 2.4, -2.6, 3.5])
    for mode, want in table.items():
        assert cint.from_float(xs, "I32", rounding=mode).tolist() == want, mode
    assert cint.from_float(xs, "I32").tolist() == table["half_even"]


@pytest.mark.clause("X-4")
@pytest.mark.parametrize("mode", ["nearest", "HALF_EVEN", "toward_zero", "", None, 3, "round"])
def test_an_unknown_mode_is_refused_before_anything_converts(mode):
    for obj in (np.array([1.0, float("nan"), 1e300]), np.zeros(2, np.float16), [1.0]):
        with pytest.raises(cint.Refused) as ei:
            cint.from_float(obj, "I8", rounding=mode)
        assert ei.value.code == "E_UNSUPPORTED"
        with pytest.raises(cint.Refused) as ei:
            cint.copy(obj, elem="I8", from_float={"rounding": mode})
        assert ei.value.code == "E_UNSUPPORTED"


# --- NaN and infinities ----------------------------------------------------------------------------

@pytest.mark.clause("X-5")
@pytest.mark.parametrize("bits", [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF4000000000123,
                                  0x7FF0000000000000, 0xFFF0000000000000, 0x7FFFFFFFFFFFFFFF])
@pytest.mark.parametrize("overflow", ["refuse", "saturate"])
def test_non_finite_binary64_is_refused_with_its_bits(bits, overflow):
    a = np.array([1.0, 2.0, bits], dtype=np.uint64)
    a[:2] = np.array([1.0, 2.0]).view(np.uint64)
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(a.view(np.float64), "Q32.32", overflow=overflow)
    ex = ei.value
    assert (ex.code, ex.reason, ex.operands, ex.index) == ("E_NARROW", "non_finite", (bits,), (2,))


@pytest.mark.clause("X-5")
@pytest.mark.parametrize("bits", [0x7FC00000, 0xFF800000, 0x7F800000, 0x7F800001, 0xFFFFFFFF])
def test_non_finite_binary32_is_refused_with_its_bits(bits):
    a = np.array([bits], dtype=np.uint32).view(np.float32)
    for overflow in ("refuse", "saturate"):
        with pytest.raises(cint.Refused) as ei:
            cint.from_float(a, "I16", overflow=overflow)
        assert (ei.value.code, ei.value.reason, ei.value.operands) == ("E_NARROW", "non_finite", (bits,))
        assert ei.value.format == "binary32"


# --- overflow ----------------------------------------------------------------------------------

@pytest.mark.clause("X-6")
def test_refuse_carries_bits_exact_value_and_range():
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(np.array([2.0**63]), "I64")
    ex = ei.value
    assert ex.code == "E_NARROW" and ex.reason == "out_of_range"
    assert ex.operands == (0x43E0000000000000,)
    assert ex.exact == (1, 63)
    assert ex.limit == (-2**63, 2**63 - 1)
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(np.array([-3.0e5], dtype=np.float32), "Q16.16")
    sig, exp = ei.value.exact
    assert Fraction(sig) * Fraction(2)**exp == Fraction(float(np.float32(-3.0e5)))
    assert ei.value.limit == (cint.Fixed("Q16.16", raw=-2**31), cint.Fixed("Q16.16", raw=2**31 - 1))


@pytest.mark.clause("X-6")
@given(x=st.floats(allow_nan=False, allow_infinity=False), elem=targets)
@SETTINGS
def test_saturate_clamps_to_the_range(x, elem):
    lo, hi, f = target_info(elem)
    got = raw_of(cint.from_float(np.array([x]), elem, overflow="saturate").tolist()[0])
    exact = ref_round(Fraction(x) * 2**f, "half_even")
    assert got == min(max(exact, lo), hi)


@pytest.mark.clause("X-6")
@pytest.mark.parametrize("policy", ["wrap", "modular", "clamp", None, "", "Refuse"])
def test_there_is_no_wrapping_policy(policy):
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(np.array([300.0]), "U8", overflow=policy)
    assert ei.value.code == "E_UNSUPPORTED"


# --- negative zero and subnormals ------------------------------------------------------------------

@pytest.mark.clause("X-7")
@pytest.mark.parametrize("mode", MODES)
def test_negative_zero_converts_to_zero(mode):
    for dt in (np.float32, np.float64):
        got = cint.from_float(np.array([-0.0, 0.0], dtype=dt), "Q1.63", rounding=mode).tolist()
        assert [q.raw for q in got] == [0, 0]
        assert cint.from_float(np.array([-0.0], dtype=dt), "U8", rounding=mode).tolist() == [0]


@pytest.mark.clause("X-7")
def test_subnormals_convert_exactly():
    tiny64 = np.array([5e-324, -5e-324, 2.0**-1022 - 5e-324])
    assert cint.from_float(tiny64, "I8", rounding="ceil").tolist() == [1, 0, 1]
    assert cint.from_float(tiny64, "I8", rounding="floor").tolist() == [0, -1, 0]
    assert cint.from_float(tiny64, "I8", rounding="away").tolist() == [1, -1, 1]
    assert cint.from_float(tiny64, "I8").tolist() == [0, 0, 0]
    tiny32 = np.array([1, 0x80000001, 0x007FFFFF], dtype=np.uint32).view(np.float32)
    assert [q.raw for q in cint.from_float(tiny32, "Q1.63", rounding="ceil").tolist()] == [1, 0, 1]
    assert [q.raw for q in cint.from_float(tiny32, "Q1.63", rounding="away").tolist()] == [1, -1, 1]


# --- all or nothing -------------------------------------------------------------------------------

@pytest.mark.clause("X-8")
def test_all_or_nothing_names_the_first_in_row_major_order():
    a = np.array([[1.0, 2.0, 1e10], [np.nan, 5.0, -1e10]], order="F")
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(a, "I32")
    ex = ei.value
    assert ex.index == (0, 2) and ex.flat_index == 2 and ex.count == 3
    assert ex.reason == "out_of_range"
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(a.T, "I32")            # a non-contiguous view: row-major over its own shape
    assert ei.value.index == (0, 1) and ei.value.reason == "non_finite" and ei.value.count == 3
    with pytest.raises(cint.Refused) as ei:
        cint.from_float(a, "I32", overflow="saturate")
    assert ei.value.count == 1 and ei.value.index == (1, 0)


@pytest.mark.clause("X-8")
@given(xs=st.lists(st.floats(width=64) | st.sampled_from([1e3, 127.5, -128.5, 255.5]), min_size=1, max_size=12),
       elem=st.sampled_from(["I8", "U8", "Q4.4", "I16"]), mode=modes)
@SETTINGS
def test_many_values_match_the_reference_elementwise(xs, elem, mode):
    wants = [ref_convert(x, elem, mode, "refuse") for x in xs]
    refused = [k for k, w in enumerate(wants) if w[0] == "refused"]
    try:
        got = cint.from_float(np.array(xs), elem, rounding=mode).tolist()
    except cint.Refused as ex:
        assert refused and ex.flat_index == refused[0] and ex.count == len(refused)
        assert ex.reason == wants[refused[0]][1]
    else:
        assert not refused
        assert [raw_of(g) for g in got] == [w[1] for w in wants]


# --- to_float ----------------------------------------------------------------------------

def ref_nearest_even(x: Fraction, p: int) -> Fraction:
    """x rounded to p significant bits, ties to even (x != 0)."""
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2)**e > a:
        e -= 1
    scale = Fraction(2)**(e - p + 1)
    r = round(a / scale) * scale                # round() of a Fraction is ties-to-even
    return r if x > 0 else -r


@pytest.mark.clause("X-10")
def test_to_float_of_the_spec():
    b = cint.copy(np.array([2**53 + 1], dtype=np.int64))
    assert cint.to_float(b).tolist() == [9007199254740992.0]
    assert cint.to_float(2**53 + 1) == 9007199254740992.0
    assert cint.to_float(2**53 + 3) == 9007199254740996.0


@pytest.mark.clause("X-10")
@given(elem=targets, data=st.data(), dtype=st.sampled_from(["float64", "float32"]))
@SETTINGS
def test_to_float_rounds_to_nearest_even_from_the_integer(elem, data, dtype):
    lo, hi, f = target_info(elem)
    vals = data.draw(st.lists(st.integers(lo, hi) | st.sampled_from([lo, hi, 0, 2**53 + 1]).filter(
        lambda v: lo <= v <= hi), min_size=1, max_size=6))
    if elem in QS:
        buf = cint.copy([cint.Fixed(elem, raw=v) for v in vals], elem=elem)
    else:
        buf = cint.copy(vals, elem=elem)
    got = cint.to_float(buf, dtype=dtype)
    assert got.dtype == np.dtype(dtype) and got.shape == (len(vals),)
    p = 53 if dtype == "float64" else 24
    for v, g in zip(vals, got.tolist()):
        x = Fraction(v, 2**f)
        assert Fraction(g) == (ref_nearest_even(x, p) if v else 0)


@pytest.mark.clause("X-11")
def test_to_float_is_a_value_apart_from_cint_state():
    b = cint.copy(np.array([2**53 + 1, 7], dtype=np.int64))
    out = cint.to_float(b)
    out[1] = -1.0                                   # a fresh array: the Buffer does not change
    assert b.tolist() == [2**53 + 1, 7]
    back = cint.from_float(out, "I64").tolist()     # the round trip need not give the same value
    assert back == [2**53, -1]
    q = cint.Fixed("Q1.63", raw=2**62 + 1)
    assert cint.from_float(cint.to_float(q), "Q1.63").raw == 2**62
