"""Tests of the integer machine (SPEC-01P.1 sections 2 to 6, 9.8, 13.2)."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from cint_compiler.semantics import intmachine as im
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (
    BOOL, I8, I16, I32, I64, I128, I256, I512, I1024, U8, U16, U32, U64, Z,
    FixedType, ROUND_MODES,
)

M = 2 ** 63 - 1
m = -(2 ** 63)
Q16 = FixedType(16, 16)
Q32 = FixedType(32, 32)
Q1_15 = FixedType(1, 15)
Q1_63 = FixedType(1, 63)

INT_TYPES = [I8, I16, I32, I64, I128, I256, I512, I1024, U8, U16, U32, U64]
FIXED_TYPES = [FixedType(1, 7), FixedType(4, 4), FixedType(8, 0), Q1_15, Q16, FixedType(3, 13),
               FixedType(16, 0), Q32, FixedType(4, 60), Q1_63, FixedType(20, 12)]


# ---------------------------------------------------------------------------
# helpers

class F:
    """An expected fault; ``operands`` None means 'not asserted'."""

    def __init__(self, code, op, operands=None, exact=None, limit=None, **kw):
        self.code, self.op, self.operands, self.exact, self.limit = code, op, operands, exact, limit
        self.check_exact = "exact" not in kw

    def __repr__(self):
        return "F(%s, %s)" % (self.code, self.op)


def ov(op, operands, exact, limit):
    return F("E_OVERFLOW", op, operands, exact, limit)


def expect(thunk, expected):
    if isinstance(expected, F):
        with pytest.raises(MachineFault) as ei:
            thunk()
        f = ei.value
        assert f.code == expected.code
        assert f.operation == expected.op
        if expected.operands is not None:
            assert f.operands == expected.operands
        assert f.exact == expected.exact
        assert f.limit == expected.limit
        assert len(f.operation) <= 64
        return f
    got = thunk()
    assert got == expected
    assert type(got) is type(expected) or isinstance(expected, int)
    return got


def fault_of(thunk):
    with pytest.raises(MachineFault) as ei:
        thunk()
    return ei.value


A = im.arith
C = im.convert

# ---------------------------------------------------------------------------
# SPEC-01P.1 13.2, fixtures 1..117 (the rows that apply to single operations)

FIXTURES = {
    1: (lambda: A("add", "checked", I64, M, 1),
        ov("add.checked.i64", [(I64, M), (I64, 1)], 2 ** 63, (I64, M))),
    2: (lambda: A("add", "checked", I64, 9223372036854775800, 12),
        ov("add.checked.i64", [(I64, 9223372036854775800), (I64, 12)], 9223372036854775812, (I64, M))),
    3: (lambda: A("add", "wrap", I64, M, 1), m),
    4: (lambda: A("add", "sat", I64, M, 1), M),
    5: (lambda: A("sub", "checked", I64, m, 1),
        ov("sub.checked.i64", [(I64, m), (I64, 1)], -9223372036854775809, (I64, m))),
    6: (lambda: A("sub", "wrap", I64, m, 1), M),
    7: (lambda: A("sub", "checked", U8, 3, 5), ov("sub.checked.u8", [(U8, 3), (U8, 5)], -2, (U8, 0))),
    8: (lambda: A("sub", "wrap", U8, 3, 5), 254),
    9: (lambda: A("sub", "sat", U8, 3, 5), 0),
    10: (lambda: A("mul", "checked", I64, m, -1), ov("mul.checked.i64", [(I64, m), (I64, -1)], 2 ** 63, (I64, M))),
    11: (lambda: A("mul", "wrap", I64, m, -1), m),
    12: (lambda: A("mul", "checked", I32, 65536, 32768),
         ov("mul.checked.i32", [(I32, 65536), (I32, 32768)], 2147483648, (I32, 2147483647))),
    13: (lambda: A("mul", "checked", I32, -65536, 32768), -2147483648),
    14: (lambda: A("mul", "wrap", I8, 100, 3), 44),
    15: (lambda: A("mul", "sat", I8, -128, -1), 127),
    16: (lambda: im.neg("checked", I64, m), ov("neg.checked.i64", [(I64, m)], 2 ** 63, (I64, M))),
    17: (lambda: im.neg("checked", U32, 1), ov("neg.checked.u32", [(U32, 1)], -1, (U32, 0))),
    18: (lambda: im.abs_(I8, -128), ov("abs.checked.i8", [(I8, -128)], 128, (I8, 127))),
    19: (lambda: im.uabs(I8, -128), (U8, 128)),
    20: (lambda: im.div(I64, -7, 2), -4),
    21: (lambda: im.rem(I64, -7, 2), 1),
    22: (lambda: im.div(I64, 7, -2), -4),
    23: (lambda: im.rem(I64, 7, -2), -1),
    24: (lambda: im.div(I64, -7, -2), 3),
    25: (lambda: im.rem(I64, -7, -2), -1),
    26: (lambda: im.div_trunc(I64, -7, 2), -3),
    27: (lambda: im.rem_trunc(I64, -7, 2), -1),
    28: (lambda: im.div_euclid(I64, -7, -2), 4),
    29: (lambda: im.rem_euclid(I64, 7, -2), 1),
    30: (lambda: im.div(I64, m, 3), -3074457345618258603),
    31: (lambda: im.rem(I64, m, 3), 1),
    32: (lambda: im.div(I64, m, -1), ov("div.checked.i64", [(I64, m), (I64, -1)], 2 ** 63, (I64, M))),
    33: (lambda: im.rem(I64, m, -1), 0),
    34: (lambda: im.div(I64, 5, 0), F("E_DIV_ZERO", "div.checked.i64", [(I64, 5), (I64, 0)])),
    35: (lambda: im.rem_euclid(I64, 0, 0), F("E_DIV_ZERO", "rem_euclid.checked.i64", [(I64, 0), (I64, 0)])),
    36: (lambda: im.div_round(I64, 5, 2, "half_even"), 2),
    37: (lambda: im.div_round(I64, -5, 2, "half_away"), -3),
    38: (lambda: im.shl("checked", I64, 1, 63, I64),
         ov("shl.checked.i64", [(I64, 1), (I64, 63)], 2 ** 63, (I64, M))),
    39: (lambda: im.shl("checked", I64, -1, 63, I64), m),
    40: (lambda: im.shl("wrap", I64, 1, 63, I64), m),
    41: (lambda: im.shl("checked", I64, 1, 64, I64),
         F("E_SHIFT", "shl.checked.i64", [(I64, 1), (I64, 64)], None, (I64, 63))),
    42: (lambda: im.shl("wrap", I64, 1, -1, I64),
         F("E_SHIFT", "shl.wrap.i64", [(I64, 1), (I64, -1)], None, (I64, 63))),
    43: (lambda: im.shl("wrap", U8, 255, 4, I64), 240),
    44: (lambda: im.shr(I64, -7, 1, I64), -4),
    45: (lambda: im.shr(I64, -1, 63, I64), -1),
    46: (lambda: im.shr(U64, 18446744073709551615, 63, I64), 1),
    47: (lambda: im.shr(I64, 1, 64, I64), F("E_SHIFT", "shr.checked.i64", [(I64, 1), (I64, 64)], None, (I64, 63))),
    48: (lambda: C("checked", I64, I32, 2147483648),
         F("E_NARROW", "as.checked.i64.i32", [(I64, 2147483648)], 2147483648, (I32, 2147483647))),
    49: (lambda: C("wrap", I64, I32, 2147483648), -2147483648),
    50: (lambda: C("checked", I64, U64, -1), F("E_NARROW", "as.checked.i64.u64", [(I64, -1)], -1, (U64, 0))),
    51: (lambda: C("wrap", I64, U64, -1), 18446744073709551615),
    52: (lambda: C("wrap", U64, I64, 9223372036854775808), m),
    53: (lambda: C("wrap", I64, I8, -129), 127),
    54: (lambda: im.fits(I8, 128), False),
    55: (lambda: im.fits(I8, -128), True),
    56: (lambda: im.fits(I32, 0xFFFFFFFF), False),
    57: (lambda: im.mul_full(I64, m, m), (I128, 85070591730234615865843651857942052864)),
    58: (lambda: im.muldiv(I64, I64, M, M, M, "floor"), M),
    59: (lambda: im.muldiv(I64, I64, M, 3, 2, "floor"),
         ov("muldiv.checked.i64.i64.floor", [(I64, M), (I64, 3), (I64, 2)], 13835058055282163710, (I64, M))),
    60: (lambda: A("add", "checked", I128, 2 ** 127 - 1, 1),
         ov("add.checked.i128", [(I128, 2 ** 127 - 1), (I128, 1)], 170141183460469231731687303715884105728,
            (I128, 2 ** 127 - 1))),
    61: (lambda: im.isqrt_round(I128, 2 ** 65, "half_even"), 6074001000),
    62: (lambda: im.fixed_mul("checked", Q16, 98304, 98304, "half_even"), 147456),
    63: (lambda: im.fixed_mul("checked", Q16, 1, 98304, "half_even"), 2),
    64: (lambda: im.fixed_mul("checked", Q16, -1, 98304, "floor"), -2),
    65: (lambda: im.fixed_mul("checked", Q16, -1, 98304, "trunc"), -1),
    66: (lambda: im.fixed_mul("checked", Q16, -1, 32768, "half_even"), 0),
    67: (lambda: im.fixed_mul("checked", Q16, 16777216, 8388608, "half_even"),
         ov("mul.checked.q16_16.half_even", [(Q16, 16777216), (Q16, 8388608)], 2147483648, (Q16, 2147483647))),
    68: (lambda: im.fixed_mul("sat", Q16, 16777216, 8388608, "half_even"), 2147483647),
    69: (lambda: im.fixed_div("checked", Q16, 131072, 196608, "half_even"), 43691),
    70: (lambda: im.fixed_div("checked", Q16, -65536, 196608, "floor"), -21846),
    71: (lambda: im.fixed_div("checked", Q16, 65536, 0, "half_even"),
         F("E_DIV_ZERO", "div.checked.q16_16.half_even", [(Q16, 65536), (Q16, 0)])),
    72: (lambda: im.fixed_sqrt("checked", Q16, 131072, "floor"), 92681),
    73: (lambda: im.fixed_sqrt("checked", Q16, 131072, "half_even"), 92682),
    74: (lambda: im.fixed_sqrt("checked", Q32, 8589934592, "half_even"), 6074001000),
    75: (lambda: im.fixed_sqrt("checked", Q16, -65536, "half_even"),
         F("E_DOMAIN", "sqrt.checked.q16_16.half_even", [(Q16, -65536)])),
    76: (lambda: C("checked", Q32, Q16, 1, "half_even"), 0),
    77: (lambda: C("checked", Q32, Q16, 140737488355328, "half_even"),
         F("E_NARROW", "as.checked.q32_32.q16_16.half_even", [(Q32, 140737488355328)], 2147483648,
           (Q16, 2147483647))),
    78: (lambda: C("checked", Q16, I32, -163840, "half_even"), -2),
    79: (lambda: C("checked", Q16, I32, -163840, "floor"), -3),
    80: (lambda: im.reduce_sum(I8, I8, [120, 120, -120]), 120),
    81: (lambda: im.fold_checked("add", I8, 0, [120, 120, -120]),
         ov("fold_checked.add.i8", [(I64, 1), (I8, 120), (I8, 120)], 240, (I8, 127))),
    82: (lambda: im.sum_sat(I8, [120, 120, -120]), 7),
    83: (lambda: im.sum_sat(I8, [120, -120, 120]), 120),
    84: (lambda: im.sum_wrap(I8, [127, 1]), -128),
    85: (lambda: im.reduce_sum(I8, I8, [127, 127, 127]), ov("sum.checked.i8.i8", [(I64, 3)], 381, (I8, 127))),
    86: (lambda: im.reduce_sum(I8, I16, [127, 127, 127]), 381),
    87: (lambda: im.reduce_sum(I64, I64, [M, 1, -1]), M),
    88: (lambda: im.fold_checked("add", I64, 0, [M, 1, -1]),
         ov("fold_checked.add.i64", [(I64, 1), (I64, M), (I64, 1)], 2 ** 63, (I64, M))),
    89: (lambda: im.reduce_sum(I64, I64, []), 0),
    90: (lambda: im.reduce_min(I64, []), F("E_SHAPE", "reduce_min.checked.i64", [(I64, 0)])),
    91: (lambda: im.reduce_max(I64, [-1, m]), -1),
    # 92: (x + 1) / y with x = M, y = 0: the + is evaluated first and faults
    92: (lambda: im.div(I64, A("add", "checked", I64, M, 1), 0),
         ov("add.checked.i64", [(I64, M), (I64, 1)], 2 ** 63, (I64, M))),
    96: (lambda: im.fits(I16, 40000), False),
    97: (lambda: im.div(I32, A("mul", "checked", I32, 2_000_000_000, 2), 4),
         ov("mul.checked.i32", [(I32, 2_000_000_000), (I32, 2)], 4000000000, (I32, 2147483647))),
    98: (lambda: im.shr(I64, im.shl("checked", I64, 1, 100, I64), 90, I64),
         F("E_SHIFT", "shl.checked.i64", [(I64, 1), (I64, 100)], None, (I64, 63))),
    99: (lambda: A("add", "wrap", I8, 100, 100), -56),
    100: (lambda: im.fixed_mul("checked", Q16,
                               im.fixed_div("checked", Q16, im.fixed_from_rational(Q16, Fraction(1)),
                                            im.fixed_from_rational(Q16, Fraction(3)), "half_even"),
                               im.fixed_from_rational(Q16, Fraction(3)), "half_even"), 65535),
    102: (lambda: im.fixed_sqrt("checked", Q1_15, 32767, "ceil"),
          ov("sqrt.checked.q1_15.ceil", [(Q1_15, 32767)], 32768, (Q1_15, 32767))),
    103: (lambda: im.fixed_sqrt("checked", Q1_15, 32767, "away"),
          ov("sqrt.checked.q1_15.away", [(Q1_15, 32767)], 32768, (Q1_15, 32767))),
    104: (lambda: im.fixed_sqrt("checked", Q1_15, 32767, "floor"), 32767),
    105: (lambda: im.fixed_sqrt("checked", Q1_63, M, "ceil"),
          ov("sqrt.checked.q1_63.ceil", [(Q1_63, M)], 9223372036854775808, (Q1_63, M))),
    106: (lambda: im.muldiv(I64, I64, M, 3, 2, "half_even"),
          ov("muldiv.checked.i64.i64.half_even", [(I64, M), (I64, 3), (I64, 2)], 13835058055282163710, (I64, M))),
    107: (lambda: im.muldiv(I64, I64, M, 3, 2, "ceil"),
          ov("muldiv.checked.i64.i64.ceil", [(I64, M), (I64, 3), (I64, 2)], 13835058055282163711, (I64, M))),
    109: (lambda: im.shl("checked", I64, 1, 40, U8), 1099511627776),
}

# Rows not listed: 93, 94 (serialization), 95, 121 (fuel), 101, 110 (type errors),
# 108, 116 (program stores and depth), 111..115 (decoders), 118, 119 (Proposed
# programs); 117 has its own test below and 120 is the IM-75 test.


@pytest.mark.parametrize("num", sorted(FIXTURES))
def test_fixture_13_2(num):
    thunk, expected = FIXTURES[num]
    expect(thunk, expected)


def test_fixture_117_digest_reduction():
    L = 2 ** 252 + 27742317777372353535851937790883648493
    d = -1                                                   # I512 with all bytes ff
    assert C("wrap", U64, I64, 2 ** 64 - 1) == -1
    dw = C("checked", I512, I1024, d)                        # widening, no check
    assert dw == -1
    Lw = C("checked", I512, I1024, L)
    r = im.rem(I1024, dw, Lw)
    assert r == 7237005577332262213973186563042994240857116359379907606001950938285454250988 == L - 1
    # IM-18: form the unsigned value in a wider type first
    du = A("add", "checked", I1024, dw, im.shl("checked", I1024, 1, 512, I64) if dw < 0 else 0)
    assert du == 2 ** 512 - 1
    assert im.rem(I1024, du, Lw) == \
        1627715501170711445284395025044413883736156588369414752970002579683115011840


def test_fixture_120_fortran_order():
    # IM-75: column-major order of the 2x2 example
    col = [100, 100, -100, -100]
    row = [100, -100, 100, -100]
    assert im.fold_checked("add", I8, 0, row) == 0
    assert im.sum_sat(I8, row) == 0
    expect(lambda: im.fold_checked("add", I8, 0, col),
           ov("fold_checked.add.i8", [(I64, 1), (I8, 100), (I8, 100)], 200, (I8, 127)))
    assert im.sum_sat(I8, col) == -73


# ---------------------------------------------------------------------------
# Section 4 example tables

@pytest.mark.parametrize("thunk,expected", [
    (lambda: A("add", "checked", I64, M, 1), ov("add.checked.i64", None, 2 ** 63, (I64, M))),
    (lambda: A("add", "wrap", I64, M, 1), m),
    (lambda: A("add", "sat", I64, M, 1), M),
    (lambda: A("sub", "checked", I64, m, 1), ov("sub.checked.i64", None, m - 1, (I64, m))),
    (lambda: A("sub", "wrap", I64, m, 1), M),
    (lambda: A("sub", "checked", U8, 3, 5), ov("sub.checked.u8", None, -2, (U8, 0))),
    (lambda: A("sub", "wrap", U8, 3, 5), 254),
    (lambda: A("sub", "sat", U8, 3, 5), 0),
    (lambda: A("mul", "checked", I64, m, -1), ov("mul.checked.i64", None, 2 ** 63, (I64, M))),
    (lambda: A("mul", "wrap", I64, m, -1), m),
    (lambda: A("mul", "checked", I32, 65536, 32768), ov("mul.checked.i32", None, 2 ** 31, (I32, 2 ** 31 - 1))),
    (lambda: A("mul", "checked", I32, -65536, 32768), -2 ** 31),
    (lambda: A("mul", "wrap", I8, 100, 3), 44),
    (lambda: A("mul", "sat", I8, -128, -1), 127),
])
def test_im32_table(thunk, expected):
    expect(thunk, expected)


@pytest.mark.parametrize("thunk,expected", [
    (lambda: im.neg("checked", I64, m), ov("neg.checked.i64", [(I64, m)], 2 ** 63, (I64, M))),
    (lambda: im.neg("wrap", I64, m), m),
    (lambda: im.neg("sat", I64, m), M),
    (lambda: im.neg("checked", U32, 1), ov("neg.checked.u32", [(U32, 1)], -1, (U32, 0))),
    (lambda: im.abs_(I8, -128), ov("abs.checked.i8", [(I8, -128)], 128, (I8, 127))),
    (lambda: im.uabs(I8, -128), (U8, 128)),
    (lambda: im.uabs(I64, m), (U64, 9223372036854775808)),
    (lambda: im.neg("checked", U32, 0), 0),
    (lambda: im.neg("wrap", U8, 1), 255),
    (lambda: im.neg("sat", U8, 7), 0),
    (lambda: im.abs_(I64, -5), 5),
    (lambda: im.abs_(U8, 200), 200),
    (lambda: im.abs_(I1024, -(2 ** 1023)), ov("abs.checked.i1024", None, 2 ** 1023, (I1024, 2 ** 1023 - 1))),
])
def test_im33_im34_table(thunk, expected):
    expect(thunk, expected)


def test_uabs_not_provided_for_wide_or_unsigned():
    with pytest.raises(TypeError):
        im.uabs(I128, -1)
    with pytest.raises(TypeError):
        im.uabs(U8, 1)


OV = "OV"
DZ = "DZ"
IM39 = [
    (7, 2, 3, 1, 3, 1, 3, 1),
    (-7, 2, -4, 1, -3, -1, -4, 1),
    (7, -2, -4, -1, -3, 1, -3, 1),
    (-7, -2, 3, -1, 3, -1, 4, 1),
    (6, -3, -2, 0, -2, 0, -2, 0),
    (m, 2, -4611686018427387904, 0, -4611686018427387904, 0, -4611686018427387904, 0),
    (m, 3, -3074457345618258603, 1, -3074457345618258602, -2, -3074457345618258603, 1),
    (m, -1, OV, 0, OV, 0, OV, 0),
    (5, 0, DZ, DZ, DZ, DZ, DZ, DZ),
]
IM39_FUNCS = [("div", im.div), ("rem", im.rem), ("div_trunc", im.div_trunc), ("rem_trunc", im.rem_trunc),
              ("div_euclid", im.div_euclid), ("rem_euclid", im.rem_euclid)]


@pytest.mark.parametrize("row", IM39)
def test_im39_table(row):
    a, b = row[:2]
    for (name, fn), want in zip(IM39_FUNCS, row[2:]):
        op = "%s.checked.i64" % name
        if want == OV:
            expect(lambda: fn(I64, a, b), ov(op, [(I64, a), (I64, b)], -a, (I64, M)))
        elif want == DZ:
            expect(lambda: fn(I64, a, b), F("E_DIV_ZERO", op, [(I64, a), (I64, b)]))
        else:
            assert fn(I64, a, b) == want, name
    if row[2] == OV:
        expect(lambda: im.divmod(I64, a, b), ov("divmod.checked.i64", [(I64, a), (I64, b)], -a, (I64, M)))
    elif row[2] == DZ:
        expect(lambda: im.divmod(I64, a, b), F("E_DIV_ZERO", "divmod.checked.i64", [(I64, a), (I64, b)]))
    else:
        assert im.divmod(I64, a, b) == (row[2], row[3])


def test_unsigned_division_functions_agree():
    for a in range(0, 256, 7):
        for b in range(1, 256, 5):
            results = {fn(U8, a, b) for name, fn in IM39_FUNCS if name.startswith("div")}
            assert results == {a // b}
            results = {fn(U8, a, b) for name, fn in IM39_FUNCS if name.startswith("rem")}
            assert results == {a % b}


def test_rem_on_fixed_is_not_defined():
    with pytest.raises(TypeError):
        im.rem(Q16, 1, 2)


IM42 = {
    "floor": (2, -3, 2, -3, 3),
    "ceil": (3, -2, 3, -2, 4),
    "trunc": (2, -2, 2, -2, 3),
    "away": (3, -3, 3, -3, 4),
    "half_even": (2, -2, 2, -3, 4),
    "half_away": (3, -3, 2, -3, 4),
    "half_trunc": (2, -2, 2, -3, 3),
    "half_up": (3, -2, 2, -3, 4),
    "half_down": (2, -3, 2, -3, 3),
}
IM42_X = [(5, 2), (-5, 2), (12, 5), (-13, 5), (7, 2)]


@pytest.mark.parametrize("mode", ROUND_MODES)
def test_im42_table(mode):
    assert set(IM42) == set(ROUND_MODES)
    for (n, d), want in zip(IM42_X, IM42[mode]):
        assert im.round_div(n, d, mode) == want
        assert im.round_div(-n, -d, mode) == want
        assert im.round_div(n * 3, d * 3, mode) == want


def test_round_div_exact_and_errors():
    for mode in ROUND_MODES:
        assert im.round_div(-6, 3, mode) == -2
        assert im.round_div(0, -7, mode) == 0
    with pytest.raises(ValueError):
        im.round_div(1, 2, "toward_zero")
    with pytest.raises(ZeroDivisionError):
        im.round_div(1, 0, "floor")


@pytest.mark.parametrize("thunk,expected", [
    (lambda: im.div_round(I64, 7, 2, "half_even"), 4),
    (lambda: im.div_round(I64, 5, 2, "half_even"), 2),
    (lambda: im.div_round(I64, -5, 2, "half_even"), -2),
    (lambda: im.div_round(I64, -5, 2, "half_away"), -3),
    (lambda: im.div_round(I64, m, -1, "floor"),
     ov("div_round.checked.i64.floor", [(I64, m), (I64, -1)], 2 ** 63, (I64, M))),
    (lambda: im.div_round(I64, 1, 0, "half_even"),
     F("E_DIV_ZERO", "div_round.checked.i64.half_even", [(I64, 1), (I64, 0)])),
])
def test_im44_table(thunk, expected):
    expect(thunk, expected)


def test_im44_identities():
    for a in range(-20, 21):
        for b in (-7, -3, -2, -1, 1, 2, 3, 7):
            assert im.div_round(I8, a, b, "floor") == im.div(I8, a, b)
            assert im.div_round(I8, a, b, "trunc") == im.div_trunc(I8, a, b)


@pytest.mark.parametrize("thunk,expected", [
    (lambda: im.shl("checked", I64, 1, 62, I64), 4611686018427387904),
    (lambda: im.shl("checked", I64, 1, 63, I64), ov("shl.checked.i64", None, 2 ** 63, (I64, M))),
    (lambda: im.shl("checked", I64, -1, 63, I64), m),
    (lambda: im.shl("wrap", I64, 1, 63, I64), m),
    (lambda: im.shl("checked", I64, 1, 64, I64),
     F("E_SHIFT", "shl.checked.i64", [(I64, 1), (I64, 64)], None, (I64, 63))),
    (lambda: im.shl("checked", I64, 1, -1, I64),
     F("E_SHIFT", "shl.checked.i64", [(I64, 1), (I64, -1)], None, (I64, 63))),
    (lambda: im.shl("wrap", U8, 255, 4, I64), 240),
    (lambda: im.shr(I64, -7, 1, I64), -4),
    (lambda: im.shr(I64, -1, 63, I64), -1),
    (lambda: im.shr(U64, 18446744073709551615, 63, I64), 1),
    (lambda: im.shr(I64, 5, 64, I64), F("E_SHIFT", "shr.checked.i64", [(I64, 5), (I64, 64)], None, (I64, 63))),
    (lambda: im.rotl(U32, 0x80000001, 1, I64), 3),
    # count types are recorded as given, the limit is always I64(w - 1)
    (lambda: im.shl("wrap", U8, 1, 8, U64), F("E_SHIFT", "shl.wrap.u8", [(U8, 1), (U64, 8)], None, (I64, 7))),
    (lambda: im.shr(I8, 1, -3, I8), F("E_SHIFT", "shr.checked.i8", [(I8, 1), (I8, -3)], None, (I64, 7))),
    (lambda: im.shl("checked", I1024, 1, 1023, I64),
     ov("shl.checked.i1024", None, 2 ** 1023, (I1024, 2 ** 1023 - 1))),
    (lambda: im.shl("checked", I1024, -1, 1023, I64), -(2 ** 1023)),
    (lambda: im.shl("checked", I1024, 1, 1024, I32),
     F("E_SHIFT", "shl.checked.i1024", [(I1024, 1), (I32, 1024)], None, (I64, 1023))),
    (lambda: im.shl("checked", U8, 200, 1, I64), ov("shl.checked.u8", None, 400, (U8, 255))),
    (lambda: im.shl("checked", I8, -65, 1, I64), ov("shl.checked.i8", None, -130, (I8, -128))),
])
def test_im46_table(thunk, expected):
    expect(thunk, expected)


def test_shift_forms():
    with pytest.raises(ValueError):
        im.shl("sat", I64, 1, 1, I64)


@pytest.mark.parametrize("thunk,expected", [
    (lambda: im.rotl(U32, 0x80000001, 0, I64), 0x80000001),
    (lambda: im.rotr(U32, 3, 1, I64), 0x80000001),
    (lambda: im.rotr(U8, 0b00000001, 7, I64), 0b00000010),
    (lambda: im.rotl(U64, 1, 63, I64), 2 ** 63),
    (lambda: im.rotl(U32, 1, 32, I64), F("E_SHIFT", "rotl.checked.u32", [(U32, 1), (I64, 32)], None, (I64, 31))),
    (lambda: im.rotr(U16, 1, -1, I8), F("E_SHIFT", "rotr.checked.u16", [(U16, 1), (I8, -1)], None, (I64, 15))),
])
def test_rotations(thunk, expected):
    expect(thunk, expected)


def test_rotation_signed_rejected():
    with pytest.raises(TypeError):
        im.rotl(I32, 1, 1, I64)


def test_bitwise_im47():
    assert im.bitand(I8, -1, 0x0F) == 15
    assert im.bitor(I8, 0x70, -128) == -16
    assert im.bitxor(U8, 0xFF, 0x0F) == 0xF0
    assert im.bitnot(I64, m) == M
    assert im.bitnot(U16, 0) == 65535
    for x in range(-128, 128):
        assert im.bitnot(I8, x) == -x - 1
    for x in range(256):
        assert im.bitnot(U8, x) == 255 - x


def test_compare_im48():
    assert im.compare("<", -1, 0) is True
    assert im.compare(">=", 3, 3) is True
    assert im.compare("!=", 3, 3) is False
    assert im.compare("==", 2 ** 1000, 2 ** 1000) is True
    assert im.compare("lt", 1, 2) and im.compare("ge", 2, 2) and im.compare("gt", 3, 2)
    assert im.compare("le", 2, 2) and im.compare("eq", 1, 1) and im.compare("ne", 1, 2)


def test_min_max_clamp_im49():
    assert im.min2(I64, 3, -4) == -4 and im.max2(I64, 3, -4) == 3
    assert im.clamp(I32, 5, 0, 3) == 3 and im.clamp(I32, -5, 0, 3) == 0 and im.clamp(I32, 2, 0, 3) == 2
    assert im.clamp(Q16, 5, 7, 7) == 7
    expect(lambda: im.clamp(I32, 1, 3, 2), F("E_DOMAIN", "clamp.checked.i32", [(I32, 1), (I32, 3), (I32, 2)]))
    expect(lambda: im.clamp(Q16, 1, 3, 2), F("E_DOMAIN", "clamp.checked.q16_16", [(Q16, 1), (Q16, 3), (Q16, 2)]))


@pytest.mark.parametrize("thunk,expected", [
    (lambda: C("checked", I64, I32, 2147483647), 2147483647),
    (lambda: C("checked", I64, I32, 2147483648),
     F("E_NARROW", "as.checked.i64.i32", [(I64, 2147483648)], 2147483648, (I32, 2147483647))),
    (lambda: C("wrap", I64, I32, 2147483648), -2147483648),
    (lambda: C("checked", I64, U64, -1), F("E_NARROW", "as.checked.i64.u64", [(I64, -1)], -1, (U64, 0))),
    (lambda: C("wrap", I64, U64, -1), 18446744073709551615),
    (lambda: C("checked", U64, I64, 9223372036854775808),
     F("E_NARROW", "as.checked.u64.i64", [(U64, 2 ** 63)], 2 ** 63, (I64, M))),
    (lambda: C("wrap", U64, I64, 9223372036854775808), m),
    (lambda: C("checked", I64, I8, -129), F("E_NARROW", "as.checked.i64.i8", [(I64, -129)], -129, (I8, -128))),
    (lambda: C("wrap", I64, I8, -129), 127),
    (lambda: C("checked", I64, I128, m), m),
    (lambda: C("sat", I64, I8, -129), -128),
    (lambda: C("sat", I64, U8, 1000), 255),
    (lambda: C("checked", BOOL, I64, True), 1),
    (lambda: C("checked", BOOL, U8, False), 0),
    (lambda: C("wrap", BOOL, I1024, True), 1),
])
def test_im50_table(thunk, expected):
    expect(thunk, expected)


def test_im26_literal_conversions():
    assert C("checked", Z, U64, 18446744073709551615, literal=True) == 18446744073709551615
    assert C("wrap", Z, U64, -1, literal=True) == 18446744073709551615
    assert C("wrap", Z, I32, 0xFFFFFFFF, literal=True) == -1
    expect(lambda: C("checked", Z, I8, 300, literal=True), F("E_NARROW", "unassigned", [(Z, 300)], 300, (I8, 127)))
    expect(lambda: C("checked", I64, I8, 300, literal=True),
           F("E_NARROW", "unassigned", [(Z, 300)], 300, (I8, 127)))
    # literal to fixed point: exact is the scaled raw value
    expect(lambda: C("checked", Z, Q16, 40000, literal=True),
           F("E_NARROW", "unassigned", [(Z, 40000)], 2621440000, (Q16, 2147483647)))
    assert im.convert_result(Z, I8, 300, literal=True) == ("err", "narrow")
    assert im.convert_result(Z, I8, -128, literal=True) == ("ok", -128)


@pytest.mark.parametrize("thunk,expected", [
    (lambda: im.mul_full(I64, m, m), (I128, 85070591730234615865843651857942052864)),
    (lambda: im.mul_full(I64, M, M), (I128, 85070591730234615847396907784232501249)),
    (lambda: im.muldiv(I64, I64, M, M, M, "floor"), 9223372036854775807),
    (lambda: im.muldiv(I64, I64, M, 3, 2, "floor"),
     ov("muldiv.checked.i64.i64.floor", [(I64, M), (I64, 3), (I64, 2)], 13835058055282163710, (I64, M))),
    (lambda: im.muldiv(I64, I64, M, 3, 2, "ceil"),
     ov("muldiv.checked.i64.i64.ceil", [(I64, M), (I64, 3), (I64, 2)], 13835058055282163711, (I64, M))),
    (lambda: im.muldiv(I64, I64, 7, 5, 2, "half_even"), 18),
    (lambda: im.muldiv(I64, I64, 9, 5, 2, "half_even"), 22),
    (lambda: im.isqrt(I128, 2 ** 65), 6074000999),
    (lambda: im.isqrt_round(I128, 2 ** 65, "half_even"), 6074001000),
    (lambda: im.isqrt(I64, -1), F("E_DOMAIN", "isqrt.checked.i64", [(I64, -1)])),
    # more of IM-51, IM-53
    (lambda: im.isqrt_round(I64, M, "ceil"), 3037000500),
    (lambda: im.isqrt_round(I64, -4, "floor"), F("E_DOMAIN", "isqrt_round.checked.i64.floor", [(I64, -4)])),
    (lambda: im.muldiv(I32, I64, 1, 1, 0, "floor"),
     F("E_DIV_ZERO", "muldiv.checked.i64.i32.floor", [(I64, 1), (I64, 1), (I64, 0)])),
    (lambda: im.muldiv(I8, I64, M, 2, M, "floor"), 2),
    (lambda: im.muldiv(U8, I64, -1, 1, 1, "floor"),
     ov("muldiv.checked.i64.u8.floor", [(I64, -1), (I64, 1), (I64, 1)], -1, (U8, 0))),
    (lambda: im.muldiv(I1024, I1024, 2 ** 1023 - 1, 2 ** 1023 - 1, 2 ** 1023 - 1, "floor"), 2 ** 1023 - 1),
    (lambda: im.mul_full(U32, 2 ** 32 - 1, 2 ** 32 - 1), (U64, (2 ** 32 - 1) ** 2)),
    (lambda: im.mul_full(I8, -128, -128), (I16, 16384)),
    (lambda: im.mul_full(I512, -(2 ** 511), -(2 ** 511)), (I1024, 2 ** 1022)),
])
def test_im53_table(thunk, expected):
    expect(thunk, expected)


def test_mul_full_not_provided():
    for t in (I1024, U64):
        with pytest.raises(TypeError):
            im.mul_full(t, 1, 1)


def test_isqrt_round_modes():
    # sqrt(2) = 1.41.., sqrt(3) = 1.73.., ties cannot occur
    for mode, want2, want3 in [("floor", 1, 1), ("trunc", 1, 1), ("ceil", 2, 2), ("away", 2, 2),
                               ("half_even", 1, 2), ("half_away", 1, 2), ("half_trunc", 1, 2),
                               ("half_up", 1, 2), ("half_down", 1, 2)]:
        assert im.isqrt_round(I64, 2, mode) == want2
        assert im.isqrt_round(I64, 3, mode) == want3
        assert im.isqrt_round(I64, 16, mode) == 4
        assert im.isqrt_round(I64, 0, mode) == 0


# ---------------------------------------------------------------------------
# Section 5 example tables

def test_im60_fixed_add():
    expect(lambda: A("add", "checked", Q16, 2147483647, 1),
           ov("add.checked.q16_16", [(Q16, 2147483647), (Q16, 1)], 2147483648, (Q16, 2147483647)))
    assert A("add", "wrap", Q16, 2147483647, 1) == -2147483648
    assert A("sub", "sat", Q16, -2147483648, 1) == -2147483648
    assert im.neg("checked", Q16, 65536) == -65536
    assert im.abs_(Q16, -65536) == 65536
    assert im.compare("<", -1, 1)


@pytest.mark.parametrize("a,b,mode,want", [
    (98304, 98304, "half_even", 147456),
    (1, 98304, "half_even", 2),
    (1, 98304, "floor", 1),
    (1, 98304, "trunc", 1),
    (-1, 98304, "half_even", -2),
    (-1, 98304, "trunc", -1),
    (-1, 98304, "half_up", -1),
    (1, 32768, "half_even", 0),
    (-1, 32768, "half_even", 0),
    (-1, 32768, "half_away", -1),
    (16777216, 8388608, "half_even",
     ov("mul.checked.q16_16.half_even", [(Q16, 16777216), (Q16, 8388608)], 2147483648, (Q16, 2147483647))),
    (-16777216, 8388608, "half_even", -2147483648),
])
def test_im63_table(a, b, mode, want):
    expect(lambda: im.fixed_mul("checked", Q16, a, b, mode), want)
    if mode == "half_even":
        expect(lambda: A("mul", "checked", Q16, a, b), want)


def test_im63_sat_and_wrap_rows():
    assert im.fixed_mul("sat", Q16, 16777216, 8388608, "half_even") == 2147483647
    assert A("mul", "sat", Q16, 16777216, 8388608) == 2147483647
    assert im.fixed_mul("wrap", Q16, 16777216, 8388608, "half_even") == -2147483648
    assert A("mul", "sat", Q16, -16777216, 16777216) == -2147483648


@pytest.mark.parametrize("a,b,mode,want", [
    (65536, 196608, "half_even", 21845),
    (131072, 196608, "half_even", 43691),
    (-65536, 196608, "half_even", -21845),
    (-65536, 196608, "floor", -21846),
    (-2147483648, -65536, "half_even",
     ov("div.checked.q16_16.half_even", [(Q16, -2147483648), (Q16, -65536)], 2147483648, (Q16, 2147483647))),
])
def test_im66_table(a, b, mode, want):
    expect(lambda: im.fixed_div("checked", Q16, a, b, mode), want)
    if mode == "half_even":
        expect(lambda: im.div(Q16, a, b), want)


@pytest.mark.parametrize("mode", ROUND_MODES)
def test_im66_div_zero_any_mode(mode):
    for form in ("checked", "wrap", "sat"):
        expect(lambda: im.fixed_div(form, Q16, 65536, 0, mode),
               F("E_DIV_ZERO", "div.%s.q16_16.%s" % (form, mode), [(Q16, 65536), (Q16, 0)]))
    assert im.div_result(Q16, 65536, 0) == ("err", "div_zero")


@pytest.mark.parametrize("t,a,mode,want", [
    (Q16, 131072, "floor", 92681),
    (Q16, 131072, "half_even", 92682),
    (Q16, 32768, "floor", 46340),
    (Q16, 32768, "half_even", 46341),
    (Q32, 8589934592, "floor", 6074000999),
    (Q32, 8589934592, "half_even", 6074001000),
    (Q1_15, 32767, "floor", 32767),
    (Q1_15, 32767, "ceil", ov("sqrt.checked.q1_15.ceil", [(Q1_15, 32767)], 32768, (Q1_15, 32767))),
    (Q1_15, 32767, "away", ov("sqrt.checked.q1_15.away", [(Q1_15, 32767)], 32768, (Q1_15, 32767))),
    (Q1_63, M, "ceil", ov("sqrt.checked.q1_63.ceil", [(Q1_63, M)], 2 ** 63, (Q1_63, M))),
])
def test_im67_table(t, a, mode, want):
    expect(lambda: im.fixed_sqrt("checked", t, a, mode), want)


@pytest.mark.parametrize("mode", ROUND_MODES)
def test_im67_negative_any_mode(mode):
    expect(lambda: im.fixed_sqrt("checked", Q16, -65536, mode),
           F("E_DOMAIN", "sqrt.checked.q16_16.%s" % mode, [(Q16, -65536)]))
    expect(lambda: im.fixed_sqrt("sat", Q16, -1, mode),
           F("E_DOMAIN", "sqrt.sat.q16_16.%s" % mode, [(Q16, -1)]))


def test_im67_sqrt_forms():
    assert im.fixed_sqrt("sat", Q1_15, 32767, "ceil") == 32767
    assert im.fixed_sqrt("wrap", Q1_15, 32767, "ceil") == -32768


@pytest.mark.parametrize("thunk,expected", [
    (lambda: C("checked", Q32, Q16, 1), 0),
    (lambda: C("checked", Q32, Q16, 1, "ceil"), 1),
    (lambda: C("checked", Q16, Q32, 65536), 4294967296),
    (lambda: C("checked", Q32, Q16, 32768 * 2 ** 32),
     F("E_NARROW", "as.checked.q32_32.q16_16.half_even", [(Q32, 32768 * 2 ** 32)], 2147483648, (Q16, 2147483647))),
    (lambda: C("checked", Q32, Q16, -32768 * 2 ** 32), -2147483648),
    (lambda: C("checked", Q16, I32, -163840), -2),
    (lambda: C("checked", Q16, I32, -163840, "floor"), -3),
    (lambda: C("checked", Q16, I32, -163840, "half_away"), -3),
    (lambda: C("checked", I64, Q16, 40000),
     F("E_NARROW", "as.checked.i64.q16_16", [(I64, 40000)], 2621440000, (Q16, 2147483647))),
    # more of IM-68
    (lambda: C("checked", Q16, Q32, -65536 * 32768), -(2 ** 47)),
    (lambda: C("checked", Q16, FixedType(4, 28), 65536 * 8),
     F("E_NARROW", "as.checked.q16_16.q4_28", [(Q16, 65536 * 8)], 2 ** 31, (FixedType(4, 28), 2 ** 31 - 1))),
    (lambda: C("wrap", Q16, FixedType(4, 28), 65536 * 8), -(2 ** 31)),
    (lambda: C("sat", Q16, FixedType(4, 28), -65536 * 9), -(2 ** 31)),
    (lambda: C("wrap", Q32, Q16, 3 * 2 ** 15, "trunc"), 1),
    (lambda: C("checked", Q16, U8, -65536, "ceil"),
     F("E_NARROW", "as.checked.q16_16.u8.ceil", [(Q16, -65536)], -1, (U8, 0))),
    (lambda: C("checked", Q16, U8, -32768, "ceil"), 0),
    (lambda: C("checked", Q16, I8, 127 * 65536 + 32768),
     F("E_NARROW", "as.checked.q16_16.i8.half_even", [(Q16, 127 * 65536 + 32768)], 128, (I8, 127))),
    (lambda: C("sat", Q16, I8, 127 * 65536 + 32768), 127),
    (lambda: C("checked", I1024, Q1_63, -1), -(2 ** 63)),
    (lambda: C("checked", I8, Q16, -128), -128 * 65536),
    (lambda: C("checked", FixedType(8, 0), I64, -5), -5),
])
def test_im69_table(thunk, expected):
    expect(thunk, expected)


def test_conversion_mode_token():
    # the mode is named exactly when the conversion rounds, whether written or defaulted
    assert fault_of(lambda: C("checked", Q16, I8, 200 * 65536)).operation == "as.checked.q16_16.i8.half_even"
    assert fault_of(lambda: C("checked", Q16, I8, 200 * 65536, "away")).operation == "as.checked.q16_16.i8.away"
    assert fault_of(lambda: C("checked", FixedType(8, 0), U8, -1)).operation == "as.checked.q8_0.u8.half_even"
    assert fault_of(lambda: C("checked", I16, Q1_15, 1, "floor")).operation == "as.checked.i16.q1_15"
    f = fault_of(lambda: C("checked", Q1_15, FixedType(1, 7), 32767, "ceil"))
    assert (f.operation, f.exact, f.limit) == ("as.checked.q1_15.q1_7.ceil", 128, (FixedType(1, 7), 127))


def test_fixed_to_finer_never_rounds():
    assert C("checked", Q1_15, Q16, -32768) == -65536
    assert not im.conversion_rounds(Q1_15, Q16)
    assert im.conversion_rounds(Q32, Q16)
    assert im.conversion_rounds(Q16, I64)
    assert not im.conversion_rounds(I64, Q16)


def test_im27_fixed_literals():
    assert im.fixed_from_rational(Q16, Fraction(1, 2)) == 32768
    assert im.fixed_from_rational(Q16, Fraction(2)) == 131072
    assert im.fixed_from_rational(Q16, Fraction(1, 10)) is None
    assert im.fixed_from_rational(Q16, Fraction(1, 10), "half_even") == 6554
    assert im.fixed_from_rational(Q16, Fraction(-1, 10), "floor") == -6554
    assert im.fixed_from_rational(Q16, Fraction(3, 2)) == 98304
    assert im.fixed_from_rational(Q16, Fraction(-32768)) == -2147483648
    expect(lambda: im.fixed_from_rational(Q16, Fraction(32768)),
           F("E_NARROW", "unassigned", [(Z, 32768)], 2147483648, (Q16, 2147483647)))
    f = fault_of(lambda: im.fixed_from_rational(Q1_15, Fraction(-3, 2)))
    assert (f.code, f.operands, f.exact, f.limit) == ("E_NARROW", [], -49152, (Q1_15, -32768))
    # rounding up into overflow
    f = fault_of(lambda: im.fixed_from_rational(Q1_15, Fraction(2 ** 16 - 1, 2 ** 16), "ceil"))
    assert (f.exact, f.limit) == (32768, (Q1_15, 32767))


def test_im106_int_to_fixed_record():
    expect(lambda: C("checked", I64, Q16, 40000),
           F("E_NARROW", "as.checked.i64.q16_16", [(I64, 40000)], 2621440000, (Q16, 2147483647)))
    assert C("checked", I64, Q16, -32768) == -2147483648
    expect(lambda: C("checked", I64, Q16, -32769),
           F("E_NARROW", "as.checked.i64.q16_16", [(I64, -32769)], -32769 * 65536, (Q16, -2147483648)))


# ---------------------------------------------------------------------------
# Result-returning forms (IM-30, IM-188)

def test_result_forms():
    assert im.add_result(I64, M, 1) == ("err", "overflow")
    assert im.add_result(I64, 1, 2) == ("ok", 3)
    assert im.sub_result(U8, 3, 5) == ("err", "overflow")
    assert im.sub_result(I64, 0, m) == ("err", "overflow")
    assert im.mul_result(I8, 16, 8) == ("err", "overflow")
    assert im.mul_result(I8, -16, 8) == ("ok", -128)
    assert im.div_result(I64, 1, 0) == ("err", "div_zero")
    assert im.div_result(I64, m, -1) == ("err", "overflow")
    assert im.div_result(I64, -7, 2) == ("ok", -4)
    assert im.rem_result(I64, m, -1) == ("ok", 0)
    assert im.rem_result(I64, 5, 0) == ("err", "div_zero")
    assert im.shl_result(I64, 1, 64, I64) == ("err", "shift")
    assert im.shl_result(I64, 1, 63, I64) == ("err", "overflow")
    assert im.shl_result(I64, 1, 62, U8) == ("ok", 2 ** 62)
    assert im.convert_result(I64, I32, 2 ** 31) == ("err", "narrow")
    assert im.convert_result(I64, I32, -5) == ("ok", -5)
    assert im.convert_result(Q16, I8, 200 * 65536, "floor") == ("err", "narrow")
    assert im.add_result(Q16, 2147483647, 1) == ("err", "overflow")
    assert im.ARITH_ERROR_OF == {"E_OVERFLOW": "overflow", "E_DIV_ZERO": "div_zero",
                                 "E_SHIFT": "shift", "E_NARROW": "narrow"}


# ---------------------------------------------------------------------------
# Section 6: reductions

def test_im79_example():
    v = [120, 120, -120]
    assert im.reduce_sum(I8, I8, v) == 120
    expect(lambda: im.fold_checked("add", I8, 0, v),
           ov("fold_checked.add.i8", [(I64, 1), (I8, 120), (I8, 120)], 240, (I8, 127)))
    assert im.sum_sat(I8, v) == 7
    assert im.sum_wrap(I8, v) == 120
    u = [127, 127, 127]
    assert im.reduce_sum(I8, I16, u) == 381
    expect(lambda: im.reduce_sum(I8, I8, u), ov("sum.checked.i8.i8", [(I64, 3)], 381, (I8, 127)))


def test_im79_empty_inputs():
    assert im.reduce_sum(I8, I8, []) == 0
    assert im.fold_checked("mul", I8, 7, []) == 7
    assert im.fold_checked("add", U8, 200, []) == 200
    assert im.sum_wrap(I8, []) == 0
    assert im.sum_sat(I8, []) == 0
    assert im.count([]) == 0
    assert im.dot(I8, I64, [], []) == 0
    expect(lambda: im.reduce_max(U8, []), F("E_SHAPE", "reduce_max.checked.u8", [(I64, 0)]))
    assert im.min_init(I8, 5, []) == 5 and im.max_init(I8, 5, []) == 5


def test_im73_and_im86():
    assert im.sum_sat(I8, [120, 120, -120]) == 7
    assert im.sum_sat(I8, [120, -120, 120]) == 120
    expect(lambda: A("add", "checked", I64, A("add", "checked", I64, M, 1), -1),
           ov("add.checked.i64", None, 2 ** 63, (I64, M)))
    assert A("add", "checked", I64, M, A("add", "checked", I64, 1, -1)) == M
    # IM-86: composing +120 then -120 gives f(0) = 0, f(10) = 7, f(-10) = -10
    assert im.sum_sat(I8, [0, 120, -120]) == 0
    assert im.sum_sat(I8, [10, 120, -120]) == 7
    assert im.sum_sat(I8, [-10, 120, -120]) == -10


def test_im189_example():
    expect(lambda: im.fold_checked("add", I8, 0, [100, 100, -100]),
           ov("fold_checked.add.i8", [(I64, 1), (I8, 100), (I8, 100)], 200, (I8, 127)))
    assert im.fold_checked("add", I8, 0, [100, -100, 100]) == 100
    for order in ([60, 60, -100], [60, -100, 60], [-100, 60, 60]):
        assert im.fold_checked("add", I8, 0, order) == 20


def test_fold_checked_mul_and_negative_limit():
    assert im.fold_checked("mul", I8, 1, [2, 3, -4]) == -24
    expect(lambda: im.fold_checked("mul", I8, 1, [2, 3, -4, 6]),
           ov("fold_checked.mul.i8", [(I64, 3), (I8, -24), (I8, 6)], -144, (I8, -128)))
    expect(lambda: im.fold_checked("add", U8, 5, [1, -7]),
           ov("fold_checked.add.u8", [(I64, 1), (U8, 6), (U8, -7)], -1, (U8, 0)))
    with pytest.raises(ValueError):
        im.fold_checked("sub", I8, 0, [1])


def test_reductions_misc():
    assert im.reduce_min(I64, [3, -1, m, 7]) == m
    assert im.reduce_max(I64, [-1, m]) == -1
    assert im.min_init(I8, -5, [3, 4]) == -5
    assert im.max_init(I8, -5, [3, 4]) == 4
    assert im.count([True, False, True, True]) == 3
    assert im.sum_wrap(U8, [255, 255, 3]) == 1
    assert im.sum_sat(U8, [200, 100, -50]) == 205
    expect(lambda: im.reduce_sum(I8, I8, [-128, -1]), ov("sum.checked.i8.i8", [(I64, 2)], -129, (I8, -128)))
    big = [2 ** 1023 - 1] * 5
    assert im.reduce_sum(I1024, I1024, big + [-(2 ** 1023)] * 5) == -5
    assert im.sum_wrap(I1024, big) == im.wrap(I1024, 5 * (2 ** 1023 - 1))


def test_im87_dot():
    assert im.dot(I8, I64, [1, 2, 3], [4, 5, 6]) == 32
    assert im.dot(I8, I16, [-128], [-128]) == 16384
    expect(lambda: im.dot(I8, I8, [100, 100], [1, 1]), ov("dot.checked.i8.i8", [(I64, 2)], 200, (I8, 127)))
    expect(lambda: im.dot(I8, I64, [1, 2, 3], [1, 2]),
           F("E_SHAPE", "dot.checked.i8.i64", [(I64, 0), (I64, 2)], None, (I64, 3)))


# ---------------------------------------------------------------------------
# Wide types behave exactly like I64 at their width (IM-11)

@pytest.mark.parametrize("t", [I64, I128, I256, I512, I1024])
def test_wide_like_i64(t):
    w = t.bits
    MAX, MIN = 2 ** (w - 1) - 1, -(2 ** (w - 1))
    tok = t.token
    expect(lambda: A("add", "checked", t, MAX, 1), ov("add.checked." + tok, [(t, MAX), (t, 1)], MAX + 1, (t, MAX)))
    assert A("add", "wrap", t, MAX, 1) == MIN
    assert A("add", "sat", t, MAX, 1) == MAX
    expect(lambda: A("sub", "checked", t, MIN, 1), ov("sub.checked." + tok, None, MIN - 1, (t, MIN)))
    expect(lambda: A("mul", "checked", t, MIN, -1), ov("mul.checked." + tok, None, -MIN, (t, MAX)))
    assert A("mul", "wrap", t, MIN, -1) == MIN
    expect(lambda: im.neg("checked", t, MIN), ov("neg.checked." + tok, None, -MIN, (t, MAX)))
    expect(lambda: im.div(t, MIN, -1), ov("div.checked." + tok, None, -MIN, (t, MAX)))
    assert im.rem(t, MIN, -1) == 0
    assert im.rem_trunc(t, MIN, -1) == 0 and im.rem_euclid(t, MIN, -1) == 0
    expect(lambda: im.div(t, 1, 0), F("E_DIV_ZERO", "div.checked." + tok, [(t, 1), (t, 0)]))
    assert im.shl("wrap", t, 1, w - 1, I64) == MIN
    expect(lambda: im.shl("wrap", t, 1, w, I64), F("E_SHIFT", "shl.wrap." + tok, [(t, 1), (I64, w)], None, (I64, w - 1)))
    assert im.shr(t, MIN, w - 1, I64) == -1
    assert im.bitnot(t, MIN) == MAX
    assert C("wrap", t, U8, MIN + 255) == 255
    assert C("wrap", I64, t, -1) == -1
    assert im.isqrt(t, MAX) == math.isqrt(MAX)
    assert im.div_round(t, MAX, 2, "half_even") == 2 ** (w - 2)


# ---------------------------------------------------------------------------
# Exhaustive I8 and U8 add/sub/mul in every form

def _by_definition(t, v):
    lo, hi = t.min, t.max
    span = hi - lo + 1
    return ((v - lo) % span) + lo, (lo if v < lo else hi if v > hi else v)


@pytest.mark.parametrize("t", [I8, U8])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_exhaustive_8bit(t, op):
    pyop = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}[op]
    opid = "%s.checked.%s" % (op, t.token)
    arith = im.arith
    for a in range(t.min, t.max + 1):
        for b in range(t.min, t.max + 1):
            v = pyop(a, b)
            w, s = _by_definition(t, v)
            assert arith(op, "wrap", t, a, b) == w
            assert arith(op, "sat", t, a, b) == s
            if t.min <= v <= t.max:
                assert arith(op, "checked", t, a, b) == v
            else:
                try:
                    arith(op, "checked", t, a, b)
                except MachineFault as f:
                    assert f.code == "E_OVERFLOW" and f.operation == opid and f.exact == v
                    assert f.limit == (t, t.max if v > t.max else t.min)
                    assert f.operands == [(t, a), (t, b)]
                else:
                    raise AssertionError("no fault for %s %s %s" % (op, a, b))


# ---------------------------------------------------------------------------
# Property tests against direct definitions in Python big ints

def round_def(q: Fraction, mode: str) -> int:
    """Round the rational q by mode, defined from floor and the fractional part."""
    fl = math.floor(q)
    frac = q - fl
    if frac == 0:
        return fl
    up = fl + 1
    if mode == "floor":
        return fl
    if mode == "ceil":
        return up
    if mode == "trunc":
        return fl if q > 0 else up
    if mode == "away":
        return up if q > 0 else fl
    half = Fraction(1, 2)
    if frac < half:
        return fl
    if frac > half:
        return up
    return {"half_even": fl if fl % 2 == 0 else up,
            "half_away": up if q > 0 else fl,
            "half_trunc": fl if q > 0 else up,
            "half_up": up,
            "half_down": fl}[mode]


def in_range(t, v):
    return t.min <= v <= t.max


def wrap_def(t, v):
    pattern = v % (2 ** t.bits)
    if t.min < 0 and pattern >= 2 ** (t.bits - 1):
        return pattern - 2 ** t.bits
    return pattern


def sat_def(t, v):
    return max(t.min, min(t.max, v))


def check_form(thunk, form, t, v, op, operands):
    if form == "wrap":
        assert thunk() == wrap_def(t, v)
    elif form == "sat":
        assert thunk() == sat_def(t, v)
    elif in_range(t, v):
        assert thunk() == v
    else:
        f = fault_of(thunk)
        assert (f.code, f.operation, f.exact) == ("E_OVERFLOW", op, v)
        assert f.limit == (t, t.max if v > 0 else t.min)
        if operands is not None:
            assert f.operands == operands


int_types = st.sampled_from(INT_TYPES)
fixed_types = st.sampled_from(FIXED_TYPES)
modes = st.sampled_from(ROUND_MODES)
forms = st.sampled_from(["checked", "wrap", "sat"])


def value_of(t):
    edge = st.sampled_from([t.min, t.min + 1, -1, 0, 1, t.max - 1, t.max]).filter(lambda v: in_range(t, v))
    return st.one_of(st.integers(t.min, t.max), edge)


@st.composite
def typed_pair(draw, types=int_types):
    t = draw(types)
    return t, draw(value_of(t)), draw(value_of(t))


@settings(max_examples=400, deadline=None)
@given(typed_pair(), st.sampled_from(["add", "sub", "mul"]), forms)
def test_prop_arith(tab, op, form):
    t, a, b = tab
    v = {"add": a + b, "sub": a - b, "mul": a * b}[op]
    check_form(lambda: im.arith(op, form, t, a, b), form, t, v, "%s.checked.%s" % (op, t.token),
               [(t, a), (t, b)])


@settings(max_examples=300, deadline=None)
@given(int_types.flatmap(lambda t: st.tuples(st.just(t), value_of(t))), forms)
def test_prop_neg_abs(ta, form):
    t, a = ta
    check_form(lambda: im.neg(form, t, a), form, t, -a, "neg.checked." + t.token, [(t, a)])
    check_form(lambda: im.abs_(t, a), "checked", t, abs(a), "abs.checked." + t.token, [(t, a)])


@settings(max_examples=400, deadline=None)
@given(typed_pair())
def test_prop_division_family(tab):
    t, a, b = tab
    if b == 0:
        for name in ("div", "rem", "div_trunc", "rem_trunc", "div_euclid", "rem_euclid", "divmod"):
            f = fault_of(lambda: getattr(im, name)(t, a, b))
            assert (f.code, f.operation, f.operands, f.exact, f.limit) == \
                ("E_DIV_ZERO", name + ".checked." + t.token, [(t, a), (t, b)], None, None)
        return
    q = Fraction(a, b)
    qf = math.floor(q)
    qt = int(q)                                   # int() of a Fraction truncates toward zero
    qe = qf if b > 0 else math.ceil(q)
    for name, qv, rv in (("div", qf, a - b * qf), ("div_trunc", qt, a - b * qt), ("div_euclid", qe, a - b * qe)):
        rname = name.replace("div", "rem")
        assert getattr(im, rname)(t, a, b) == rv
        check_form(lambda: getattr(im, name)(t, a, b), "checked", t, qv, name + ".checked." + t.token,
                   [(t, a), (t, b)])
    assert 0 <= a - b * qe < abs(b)
    assert a - b * qf == 0 or (a - b * qf > 0) == (b > 0)
    if in_range(t, qf):
        assert im.divmod(t, a, b) == (qf, a - b * qf)


@settings(max_examples=300, deadline=None)
@given(typed_pair(), modes)
def test_prop_div_round(tab, mode):
    t, a, b = tab
    if b == 0:
        assert fault_of(lambda: im.div_round(t, a, b, mode)).code == "E_DIV_ZERO"
        return
    check_form(lambda: im.div_round(t, a, b, mode), "checked", t, round_def(Fraction(a, b), mode),
               "div_round.checked.%s.%s" % (t.token, mode), [(t, a), (t, b)])


@settings(max_examples=500, deadline=None)
@given(st.integers(-10 ** 40, 10 ** 40), st.integers(-10 ** 20, 10 ** 20).filter(bool), modes)
def test_prop_round_div(n, d, mode):
    assert im.round_div(n, d, mode) == round_def(Fraction(n, d), mode)


@settings(max_examples=500, deadline=None)
@given(st.integers(-50, 50), st.integers(-12, 12).filter(bool), modes)
def test_prop_round_div_small(n, d, mode):
    assert im.round_div(n, d, mode) == round_def(Fraction(n, d), mode)


@st.composite
def shift_case(draw):
    t = draw(int_types)
    a = draw(value_of(t))
    ct = draw(int_types)
    k = draw(st.one_of(st.integers(0, t.bits - 1), value_of(ct).filter(lambda v: in_range(ct, v))))
    return t, a, ct, k


@settings(max_examples=500, deadline=None)
@given(shift_case(), st.sampled_from(["checked", "wrap"]))
def test_prop_shifts(case, form):
    t, a, ct, k = case
    if not 0 <= k < t.bits:
        for thunk, op in ((lambda: im.shl(form, t, a, k, ct), "shl.%s.%s" % (form, t.token)),
                          (lambda: im.shr(t, a, k, ct), "shr.checked." + t.token)):
            f = fault_of(thunk)
            assert (f.code, f.operation, f.operands, f.exact, f.limit) == \
                ("E_SHIFT", op, [(t, a), (ct, k)], None, (I64, t.bits - 1))
        return
    check_form(lambda: im.shl(form, t, a, k, ct), form, t, a * 2 ** k, "shl.checked." + t.token,
               [(t, a), (ct, k)])
    assert im.shr(t, a, k, ct) == math.floor(Fraction(a, 2 ** k))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([U8, U16, U32, U64]).flatmap(
    lambda t: st.tuples(st.just(t), value_of(t), st.integers(-3, t.bits + 3))))
def test_prop_rotations(case):
    t, a, k = case
    if not 0 <= k < t.bits:
        assert fault_of(lambda: im.rotl(t, a, k, I64)).code == "E_SHIFT"
        assert fault_of(lambda: im.rotr(t, a, k, I64)).limit == (I64, t.bits - 1)
        return
    bits = format(a, "0%db" % t.bits)
    assert im.rotl(t, a, k, I64) == int(bits[k:] + bits[:k], 2)
    assert im.rotr(t, a, k, I64) == int(bits[t.bits - k:] + bits[:t.bits - k], 2)
    assert im.rotr(t, im.rotl(t, a, k, I64), k, I64) == a


@settings(max_examples=300, deadline=None)
@given(typed_pair())
def test_prop_bitwise(tab):
    t, a, b = tab
    w = t.bits

    def bits(v):
        return [(v % 2 ** w) >> i & 1 for i in range(w)]

    def from_bits(bs):
        u = sum(bit << i for i, bit in enumerate(bs))
        return u - 2 ** w if t.min < 0 and bs[-1] else u

    ba, bb = bits(a), bits(b)
    assert im.bitand(t, a, b) == from_bits([x & y for x, y in zip(ba, bb)])
    assert im.bitor(t, a, b) == from_bits([x | y for x, y in zip(ba, bb)])
    assert im.bitxor(t, a, b) == from_bits([x ^ y for x, y in zip(ba, bb)])
    assert im.bitnot(t, a) == from_bits([1 - x for x in ba])


@settings(max_examples=500, deadline=None)
@given(int_types.flatmap(lambda s: st.tuples(st.just(s), value_of(s))), int_types, forms)
def test_prop_int_conversions(sv, dst, form):
    src, v = sv
    check = lambda: im.convert(form, src, dst, v)  # noqa: E731
    if form == "checked" and not in_range(dst, v):
        f = fault_of(check)
        assert (f.code, f.operation, f.operands, f.exact) == \
            ("E_NARROW", "as.checked.%s.%s" % (src.token, dst.token), [(src, v)], v)
        assert f.limit == (dst, dst.max if v > 0 else dst.min)
        assert im.convert_result(src, dst, v) == ("err", "narrow")
    else:
        want = {"checked": v, "wrap": wrap_def(dst, v), "sat": sat_def(dst, v)}[form]
        assert check() == want
    if src.bits == dst.bits:      # equal widths: wrap is a reinterpretation of the pattern
        assert im.convert("wrap", dst, src, im.convert("wrap", src, dst, v)) == v


@settings(max_examples=500, deadline=None)
@given(st.one_of(int_types, fixed_types).flatmap(lambda s: st.tuples(st.just(s), value_of(s))),
       st.one_of(int_types, fixed_types), forms, modes)
def test_prop_fixed_conversions(sv, dst, form, mode):
    src, v = sv
    value = Fraction(v, 2 ** src.f) if src.is_fixed else Fraction(v)
    scale = 2 ** dst.f if dst.is_fixed else 1
    scaled = value * scale
    rounds = src.is_fixed and (not dst.is_fixed or dst.f < src.f)
    assert rounds == im.conversion_rounds(src, dst)
    if not rounds:
        assert scaled.denominator == 1
    r = round_def(scaled, mode) if rounds else int(scaled)
    thunk = lambda: im.convert(form, src, dst, v, mode)  # noqa: E731
    if form == "checked" and not in_range(dst, r):
        f = fault_of(thunk)
        op = "as.checked.%s.%s" % (src.token, dst.token) + ("." + mode if rounds else "")
        assert (f.code, f.operation, f.operands, f.exact) == ("E_NARROW", op, [(src, v)], r)
        assert f.limit == (dst, dst.max if r > 0 else dst.min)
    else:
        assert thunk() == {"checked": r, "wrap": wrap_def(dst, r), "sat": sat_def(dst, r)}[form]


@st.composite
def fixed_pair(draw):
    t = draw(fixed_types)
    return t, draw(value_of(t)), draw(value_of(t))


@settings(max_examples=500, deadline=None)
@given(fixed_pair(), forms, modes)
def test_prop_fixed_mul_div(tab, form, mode):
    t, a, b = tab
    s = 2 ** t.f
    # the real product and quotient on the grid, rounded once
    prod = round_def(Fraction(a, s) * Fraction(b, s) * s, mode)
    check_form(lambda: im.fixed_mul(form, t, a, b, mode), form, t, prod,
               "mul.checked.%s.%s" % (t.token, mode), [(t, a), (t, b)])
    if b == 0:
        f = fault_of(lambda: im.fixed_div(form, t, a, b, mode))
        assert (f.code, f.operation, f.exact, f.limit) == ("E_DIV_ZERO", "div.%s.%s.%s" % (form, t.token, mode),
                                                           None, None)
        return
    quo = round_def(Fraction(a, s) / Fraction(b, s) * s, mode)
    check_form(lambda: im.fixed_div(form, t, a, b, mode), form, t, quo,
               "div.checked.%s.%s" % (t.token, mode), [(t, a), (t, b)])


def sqrt_def(x: int, mode: str) -> int:
    if x < 10 ** 6:
        r = 0
        while (r + 1) * (r + 1) <= x:      # by counting
            r += 1
    else:
        r = 1 << ((x.bit_length() + 1) // 2)   # Newton from above, independent of math.isqrt
        while True:
            nr = (r + x // r) // 2
            if nr >= r:
                break
            r = nr
    assert r * r <= x < (r + 1) * (r + 1)
    if r * r == x or mode in ("floor", "trunc"):
        return r
    if mode in ("ceil", "away"):
        return r + 1
    # nearest: compare distances |x - r^2| and |(r+1)^2 - x| (equivalent for integer x)
    return r if x - r * r < (r + 1) * (r + 1) - x else r + 1


@settings(max_examples=400, deadline=None)
@given(fixed_types.flatmap(lambda t: st.tuples(st.just(t), value_of(t))), forms, modes)
def test_prop_fixed_sqrt(ta, form, mode):
    t, a = ta
    if a < 0:
        f = fault_of(lambda: im.fixed_sqrt(form, t, a, mode))
        assert (f.code, f.operation, f.operands) == ("E_DOMAIN", "sqrt.%s.%s.%s" % (form, t.token, mode), [(t, a)])
        return
    r = sqrt_def(a * 2 ** t.f, mode)
    if t.i >= 2:
        assert in_range(t, r)
    check_form(lambda: im.fixed_sqrt(form, t, a, mode), form, t, r, "sqrt.checked.%s.%s" % (t.token, mode),
               [(t, a)])


@settings(max_examples=300, deadline=None)
@given(int_types.flatmap(lambda t: st.tuples(st.just(t), value_of(t))), modes)
def test_prop_isqrt(ta, mode):
    t, x = ta
    if x < 0:
        assert fault_of(lambda: im.isqrt(t, x)).code == "E_DOMAIN"
        assert fault_of(lambda: im.isqrt_round(t, x, mode)).code == "E_DOMAIN"
        return
    assert im.isqrt(t, x) == sqrt_def(x, "floor")
    assert im.isqrt_round(t, x, mode) == sqrt_def(x, mode)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([I8, I16, I32, I64, I128, U8, U16, U32]).flatmap(
    lambda t: st.tuples(st.just(t), value_of(t), value_of(t), value_of(t))),
    st.sampled_from([I8, I32, I64, U8, U64, I1024]), modes)
def test_prop_muldiv(case, rt, mode):
    t, a, b, c = case
    if c == 0:
        f = fault_of(lambda: im.muldiv(rt, t, a, b, c, mode))
        assert (f.code, f.operation) == ("E_DIV_ZERO", "muldiv.checked.%s.%s.%s" % (t.token, rt.token, mode))
        return
    q = round_def(Fraction(a * b, c), mode)
    check_form(lambda: im.muldiv(rt, t, a, b, c, mode), "checked", rt, q,
               "muldiv.checked.%s.%s.%s" % (t.token, rt.token, mode), [(t, a), (t, b), (t, c)])
    if t in (I8, U8, I64):
        wt, p = im.mul_full(t, a, b)
        assert p == a * b and in_range(wt, p) and wt.bits == 2 * t.bits and wt.signed == t.signed


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([I8, U8, I16, I64]).flatmap(
    lambda t: st.tuples(st.just(t), st.lists(value_of(t), max_size=12))),
    st.sampled_from([I8, U8, I16, I64]))
def test_prop_reductions(txs, R):
    E, xs = txs
    total = sum(xs)
    if in_range(R, total):
        assert im.reduce_sum(E, R, xs) == total
    else:
        f = fault_of(lambda: im.reduce_sum(E, R, xs))
        assert (f.operation, f.operands, f.exact) == ("sum.checked.%s.%s" % (E.token, R.token), [(I64, len(xs))],
                                                      total)
        assert f.limit == (R, R.max if total > 0 else R.min)
    assert im.sum_wrap(E, xs) == wrap_def(E, total)
    acc = 0
    for x in xs:
        acc = sat_def(E, acc + x)
    assert im.sum_sat(E, xs) == acc
    acc, fault = 0, None
    for j, x in enumerate(xs):
        if not in_range(E, acc + x):
            fault = (j, acc, x, acc + x)
            break
        acc += x
    if fault is None:
        assert im.fold_checked("add", E, 0, xs) == acc
    else:
        f = fault_of(lambda: im.fold_checked("add", E, 0, xs))
        j, acc, x, v = fault
        assert f.operands == [(I64, j), (E, acc), (E, x)] and f.exact == v
    if xs:
        assert im.reduce_min(E, xs) == min(xs) and im.reduce_max(E, xs) == max(xs)
    assert im.min_init(E, 0, xs) == min(xs + [0]) and im.max_init(E, 0, xs) == max(xs + [0])


@settings(max_examples=200, deadline=None)
@given(typed_pair(), typed_pair())
def test_prop_result_forms_mirror_checked(p, q):
    t, a, b = p
    for name, fn in (("add", lambda: im.arith("add", "checked", t, a, b)),
                     ("sub", lambda: im.arith("sub", "checked", t, a, b)),
                     ("mul", lambda: im.arith("mul", "checked", t, a, b)),
                     ("div", lambda: im.div(t, a, b)),
                     ("rem", lambda: im.rem(t, a, b))):
        try:
            want = ("ok", fn())
        except MachineFault as f:
            want = ("err", im.ARITH_ERROR_OF[f.code])
        assert getattr(im, name + "_result")(t, a, b) == want
    k = b % (t.bits + 4) - 2
    try:
        want = ("ok", im.shl("checked", t, a, k, I64))
    except MachineFault as f:
        want = ("err", im.ARITH_ERROR_OF[f.code])
    assert im.shl_result(t, a, k, I64) == want


def test_helpers_wrap_sat_fits():
    assert im.wrap(I8, 128) == -128 and im.wrap(U8, -1) == 255 and im.wrap(Q16, 2 ** 31) == -(2 ** 31)
    assert im.sat(I8, 1000) == 127 and im.sat(U8, -3) == 0 and im.sat(Q1_15, -40000) == -32768
    assert im.fits(U64, 2 ** 64 - 1) and not im.fits(U64, 2 ** 64) and im.fits(Q16, -(2 ** 31))
    assert im.wrap(I1024, 2 ** 1023) == -(2 ** 1023)
