"""Tests of the exact value formatter (SPEC-04P.1 section 9, SPEC-01P.1 section 7)."""
from __future__ import annotations

import hashlib
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.fmt import (
    DEFAULT_SPEC,
    FormatSpec,
    balanced_ternary,
    format_hole,
    format_value,
    parse_spec,
)
from cint_compiler.semantics.types import (
    ARITH_ERROR,
    ArrayType,
    BOOL,
    EnumType,
    ErrorSetType,
    FixedType,
    I8,
    I16,
    I32,
    I64,
    I128,
    I1024,
    IntType,
    STR,
    StructType,
    U8,
    U16,
    U32,
    U64,
)
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue, StructValue

SPAN = Span("t.ci", 3, 5)
Q32_32 = FixedType(32, 32)
Q16_16 = FixedType(16, 16)
Q8_0 = FixedType(8, 0)


def q(ty: FixedType, value) -> int:
    """The raw storage of an exact value."""
    raw = Fraction(value) * 2 ** ty.f
    assert raw.denominator == 1
    return int(raw)


def arr(elem, nested):
    """An ArrayValue of the shape of ``nested`` (a nested list)."""
    shape = []
    node = nested
    while isinstance(node, list):
        shape.append(len(node))
        node = node[0] if node else None
    flat = []

    def walk(n):
        if isinstance(n, list):
            for x in n:
                walk(x)
        else:
            flat.append(n)

    walk(nested)
    it = iter(flat)
    return ArrayValue.new(elem, shape, lambda: next(it))


def fmt(ty, value, spec=None, conv=None):
    return format_hole(ty, value, conv, spec, SPAN)


def code_of(ty, spec=None, conv=None):
    with pytest.raises(CompileError) as ei:
        parse_spec(spec, conv, ty, SPAN)
    assert ei.value.span == SPAN
    return ei.value.code


KIND = EnumType("ledger.Kind", U8, {"deposit": 0, "withdraw": 1, "interest": 2})
MODE = EnumType("Mode", U8, {"coast": 0, "burn": 1})
LEDGER_ERROR = ErrorSetType("ledger.LedgerError", U16, [("ledger.LedgerError", "overdrawn")])
BODY = StructType("phys.Body", fields=[("id", I64, None), ("mass", Q32_32, None),
                                       ("pos_mm", ArrayType(I32, (3,)), None), ("flags", U16, None)])

# ---------------------------------------------------------------------------
# LS-215: every row of the examples table (the `{x=}` and `{{` rows belong to
# the hole lexer and are checked as plain text composition at the end).

LS215 = [
    ("{n}", I64, -42, None, None, "-42"),
    ("{n:+}", I64, 0, None, "+", "+0"),
    ("{n:08}", I64, -42, None, "08", "-0000042"),
    ("{n:>6}", I64, 42, None, ">6", "    42"),
    ("{n:*^7}", I64, 42, None, "*^7", "**42***"),
    ("{n:_}", I64, 1234567, None, "_", "1_234_567"),
    ("{n:,}", I64, 1234567, None, ",", "1,234,567"),
    ("{n:x}", I64, 255, None, "x", "ff"),
    ("{n:#X}", I64, 255, None, "#X", "0xFF"),
    ("{n:x} neg", I64, -255, None, "x", "-ff"),
    ("{n:#_x}", U32, 0xDEADBEEF, None, "#_x", "0xdead_beef"),
    ("{n!bits:x} I8", I8, -1, "bits", "x", "ff"),
    ("{n!bits:#b}", I8, -128, "bits", "#b", "0b10000000"),
    ("{n!bits:x} I64", I64, -1, "bits", "x", "ffffffffffffffff"),
    ("{n:t} 8", I64, 8, None, "t", "0tP0N"),
    ("{n:t} 0", I64, 0, None, "t", "0t0"),
    ("{n:c}", I64, 233, None, "c", "\u00e9"),
    ("{c:/100}", I64, 123456, None, "/100", "1234.56"),
    ("{c:/100} neg", I64, -5, None, "/100", "-0.05"),
    ("{c:/100} min", I64, I64.min, None, "/100", "-92233720368547758.08"),
    ("{q} 1.5", Q32_32, q(Q32_32, Fraction(3, 2)), None, None, "1.5"),
    ("{q} 3", Q32_32, q(Q32_32, 3), None, None, "3.0"),
    ("{q} raw 1", Q32_32, 1, None, None, "0.00000000023283064365386962890625"),
    ("{q:.2} 0.125", Q32_32, q(Q32_32, Fraction(1, 8)), None, ".2", "0.12"),
    ("{q:.2} 0.375", Q32_32, q(Q32_32, Fraction(3, 8)), None, ".2", "0.38"),
    ("{q:.1} -0.03125", Q32_32, q(Q32_32, Fraction(-1, 32)), None, ".1", "0.0"),
    ("{q:.3} Q16.16 raw 1", Q16_16, 1, None, ".3", "0.000"),
    ("{q!raw}", Q32_32, q(Q32_32, Fraction(3, 2)), "raw", None, "6442450944"),
    ("{q!ratio}", Q32_32, q(Q32_32, Fraction(3, 2)), "ratio", None, "6442450944/2^32"),
    ("{w!lanes(U8):02x}", U32, 0x12345678, "lanes(U8)", "02x", "[78, 56, 34, 12]"),
    ("{a}", ArrayType(I32, (3,)), arr(I32, [1, -2, 3]), None, None, "[1, -2, 3]"),
    ("{m}", ArrayType(I32, (2, 2)), arr(I32, [[1, 2], [3, 4]]), None, None, "[[1, 2], [3, 4]]"),
    ("{a:+}", ArrayType(I32, (3,)), arr(I32, [1, -2, 3]), None, "+", "[+1, -2, +3]"),
    ("{k:<8}", KIND, EnumValue("ledger.Kind", "deposit", 0), None, "<8", "deposit "),
    ("{ok}", BOOL, True, None, None, "true"),
    ("{x=} value", I64, 5, None, None, "5"),
    ("{a[i] + 1 =} value", I64, 7, None, None, "7"),
]


@pytest.mark.parametrize("label,ty,value,conv,spec,expected", LS215, ids=[r[0] for r in LS215])
def test_ls215_table(label, ty, value, conv, spec, expected):
    assert fmt(ty, value, spec, conv) == expected


def test_ls215_hash_t_is_c1037():
    assert code_of(I64, "#t") == "C1037"


def test_ls215_debug_holes_compose():
    # `{x=}` prints the source text, "=", then the value; the text is the caller's.
    assert "x=" + fmt(I64, 5) == "x=5"
    assert "a[i] + 1 =" + fmt(I64, 7) == "a[i] + 1 =7"


# ---------------------------------------------------------------------------
# Default renderings (LS-214, SPEC-01 IM-90, IM-91)


def test_default_integers_any_width():
    assert fmt(I64, I64.min) == "-9223372036854775808"
    assert fmt(I64, 0) == "0"
    assert fmt(U64, U64.max) == "18446744073709551615"
    assert fmt(I1024, I1024.min) == str(-(2 ** 1023))
    assert fmt(I1024, I1024.max) == str(2 ** 1023 - 1)


def test_im90_fixed_examples():
    assert fmt(Q16_16, 1) == "0.0000152587890625"
    assert fmt(Q16_16, q(Q16_16, 2)) == "2.0"
    assert fmt(Q16_16, -1) == "-0.0000152587890625"
    assert fmt(Q32_32, q(Q32_32, Fraction(-1, 4))) == "-0.25"
    assert fmt(Q16_16, 0) == "0.0"
    assert fmt(Q8_0, 100) == "100.0"
    assert fmt(Q8_0, -128) == "-128.0"
    assert fmt(FixedType(1, 7), -128) == "-1.0"
    # Q32.32 extremes print in full, never in exponent form (IM-91, LS-210).
    assert fmt(Q32_32, Q32_32.min) == "-2147483648.0"
    assert fmt(Q32_32, Q32_32.max) == "2147483647.99999999976716935634613037109375"


def test_q1_63_smallest():
    expected = "0." + str(5 ** 63).rjust(63, "0")
    assert fmt(FixedType(1, 63), 1) == expected.rstrip("0")


def test_ls51_epsilon():
    assert fmt(Q16_16, 1) == "0.0000152587890625"


def test_bool_enum_error_str():
    assert fmt(BOOL, False) == "false"
    assert fmt(BOOL, True, ">6") == "  true"
    burn = EnumValue("Mode", "burn", 1)
    assert fmt(MODE, burn) == "burn"
    assert fmt(MODE, burn, "#") == "Mode.burn"
    assert fmt(MODE, burn, ">#10") == " Mode.burn"
    assert fmt(KIND, EnumValue("ledger.Kind", "interest", 2), "#") == "Kind.interest"
    assert fmt(MODE, 1) == "burn"  # an enum held as its integer
    err = ErrorValue("ledger.LedgerError", "overdrawn")
    assert fmt(LEDGER_ERROR, err) == "LedgerError.overdrawn"
    assert fmt(LEDGER_ERROR, err, "^25") == "  LedgerError.overdrawn  "
    assert fmt(ARITH_ERROR, ErrorValue("ArithError", "div_zero")) == "ArithError.div_zero"
    assert fmt(STR, b"abc") == "abc"
    assert fmt(STR, b"abc", "s") == "abc"
    assert fmt(STR, "h\u00e9".encode(), ">4") == "  h\u00e9"
    assert fmt(STR, "\u00e9\u00e9".encode(), "*<4s") == "\u00e9\u00e9**"
    assert fmt(STR, b"a\0b") == "a\0b"


def test_struct_default():
    body = StructValue(BODY, {"id": 7, "mass": q(Q32_32, Fraction(3, 2)),
                              "pos_mm": arr(I32, [0, 0, 0]), "flags": 0})
    assert fmt(BODY, body) == "Body(id=7, mass=1.5, pos_mm=[0, 0, 0], flags=0)"
    # an array of structs
    bodies = arr(BODY, [body, body])
    assert fmt(ArrayType(BODY, (2,)), bodies) == (
        "[Body(id=7, mass=1.5, pos_mm=[0, 0, 0], flags=0), "
        "Body(id=7, mass=1.5, pos_mm=[0, 0, 0], flags=0)]")
    assert code_of(BODY, ">40") == "C1037"
    assert code_of(BODY, None, "bits") == "C1037"


def test_arrays_apply_spec_per_element():
    a = arr(I64, [1, -2, 300])
    t = ArrayType(I64, (3,))
    assert fmt(t, a, ">4") == "[   1,   -2,  300]"
    assert fmt(t, a, "#x") == "[0x1, -0x2, 0x12c]"
    assert fmt(t, a, "t") == "[0tP, 0tNP, " + balanced_ternary(300) + "]"
    m = arr(I8, [[-1, 2], [3, -128]])
    assert fmt(ArrayType(I8, (2, 2)), m, "02x", "bits") == "[[ff, 02], [03, 80]]"
    cube = arr(U8, [[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    assert fmt(ArrayType(U8, (2, 2, 2)), cube) == "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"
    assert fmt(ArrayType(I64, (0,)), arr(I64, [])) == "[]"
    fa = arr(Q16_16, [q(Q16_16, Fraction(1, 2)), q(Q16_16, -3)])
    assert fmt(ArrayType(Q16_16, (2,)), fa, ".2") == "[0.50, -3.00]"
    ba = arr(BOOL, [True, False])
    assert fmt(ArrayType(BOOL, (2,)), ba, "<6") == "[true  , false ]"
    assert code_of(ArrayType(BOOL, (2,)), None, "bits") == "C1037"
    assert code_of(ArrayType(I64, (2,)), ".3") == "C1037"
    # lanes of each element nest one level deeper
    la = arr(U16, [0x1234, 0xABCD])
    assert fmt(ArrayType(U16, (2,)), la, "x", "lanes(U8)") == "[[34, 12], [cd, ab]]"


# ---------------------------------------------------------------------------
# LS-203 .. LS-212


def test_ls203_negative_radix_by_value():
    assert fmt(I64, -255, "x") == "-ff"
    assert fmt(I64, -255, "#x") == "-0xff"
    assert fmt(I64, -8, "o") == "-10"
    assert fmt(I64, -5, "#b") == "-0b101"
    assert fmt(I8, -128, "X") == "-80"
    assert fmt(I64, 0, "#x") == "0x0"


def test_ls204_prefix_lowercase():
    assert fmt(I64, 255, "#X") == "0xFF"
    assert fmt(I64, 0xABCDEF, "X") == "ABCDEF"
    assert fmt(I64, 8, "#o") == "0o10"
    assert fmt(I64, 5, "#b") == "0b101"
    assert fmt(I64, -255, "#010X") == "-0x00000FF"
    assert fmt(I64, 255, "+#06x") == "+0x0ff"


def test_bits_full_width_padding():
    assert fmt(I8, 1, "x", "bits") == "01"
    assert fmt(I8, -1, "o", "bits") == "377"
    assert fmt(I8, 1, "o", "bits") == "001"
    assert fmt(I16, 1, "b", "bits") == "0000000000000001"
    assert fmt(I16, -2, "_b", "bits") == "1111_1111_1111_1110"
    assert fmt(I64, -1, "_x", "bits") == "ffff_ffff_ffff_ffff"
    assert fmt(I64, -1, None, "bits") == "18446744073709551615"   # decimal: not padded
    assert fmt(I64, 5, None, "bits") == "5"
    assert fmt(I64, -1, "o", "bits") == "1" + "7" * 21
    assert fmt(I128, -1, "x", "bits") == "f" * 32
    assert fmt(U8, 0x81, "#X", "bits") == "0x81"
    # fixed point: the storage bits
    assert fmt(Q16_16, -1, "x", "bits") == "ffffffff"
    assert fmt(Q16_16, q(Q16_16, 1), "#x", "bits") == "0x00010000"
    # a wider 0-flag width pads further, after the prefix
    assert fmt(I8, -1, "#012b", "bits") == "0b0011111111"


def test_ls205_balanced_ternary():
    assert fmt(I64, 8, "t") == "0tP0N"
    assert fmt(I64, -8, "t") == "0tN0P"
    assert fmt(I64, 0, "t") == "0t0"
    assert fmt(I64, 1, "t") == "0tP"
    assert fmt(I64, -1, "t") == "0tN"
    assert fmt(I64, 13, "t") == "0tPPP"
    assert fmt(I64, 8, ">7t") == "  0tP0N"
    assert fmt(I64, 8, "-t") == "0tP0N"
    assert fmt(Q16_16, q(Q16_16, 1), "t", "raw") == balanced_ternary(65536)


def test_ls206_scale():
    assert fmt(I64, 1234, "/100") == "12.34"
    assert fmt(I64, -5, "/100") == "-0.05"
    assert fmt(I64, 0, "/100") == "0.00"
    assert fmt(I64, 5, "/10") == "0.5"
    assert fmt(I64, 7, "/1000") == "0.007"
    assert fmt(I64, 125000, "/100") == "1250.00"
    assert fmt(I64, 85059, ">9/100") == "   850.59"
    assert fmt(I64, -5, "08/100") == "-0000.05"
    assert fmt(I64, 5, "+/100") == "+0.05"
    assert fmt(I64, 5, "d/100") == "0.05"
    assert fmt(I64, I64.max, "/10000000000000000000") == "0.9223372036854775807"
    assert fmt(I64, I64.min, "/10000000000000000000") == "-0.9223372036854775808"
    assert fmt(U64, U64.max, "/100") == "184467440737095516.15"


def test_ls207_ls208_fixed_precision():
    assert fmt(Q32_32, q(Q32_32, Fraction(1, 8)), ".2") == "0.12"
    assert fmt(Q32_32, q(Q32_32, Fraction(3, 8)), ".2") == "0.38"
    assert fmt(Q32_32, q(Q32_32, Fraction(5, 8)), ".2") == "0.62"
    assert fmt(Q32_32, q(Q32_32, Fraction(-5, 8)), ".2") == "-0.62"
    assert fmt(Q32_32, q(Q32_32, Fraction(-7, 8)), ".2") == "-0.88"
    assert fmt(Q32_32, q(Q32_32, Fraction(-1, 32)), ".1") == "0.0"
    assert fmt(Q32_32, q(Q32_32, Fraction(-1, 32)), "+.1") == "+0.0"
    assert fmt(Q32_32, q(Q32_32, Fraction(-1, 16)), ".1") == "-0.1"
    assert fmt(Q16_16, 1, ".3") == "0.000"
    assert fmt(Q16_16, q(Q16_16, Fraction(5, 2)), ".0") == "2"
    assert fmt(Q16_16, q(Q16_16, Fraction(7, 2)), ".0") == "4"
    assert fmt(Q16_16, q(Q16_16, Fraction(3, 2)), ".4") == "1.5000"
    assert fmt(Q16_16, 1, ".20") == "0.00001525878906250000"
    assert fmt(Q16_16, q(Q16_16, Fraction(-3, 2)), "08.2") == "-0001.50"
    assert fmt(Q16_16, q(Q16_16, Fraction(3, 2)), " ") == " 1.5"
    assert fmt(Q16_16, q(Q16_16, Fraction(3, 2)), "*>6") == "***1.5"
    # 0.1 round half_even in Q16.16 is raw 6554 (LS-37): exact, and rounded
    assert fmt(Q16_16, 6554) == "0.100006103515625"
    assert fmt(Q16_16, 6554, ".4") == "0.1000"
    # a rounding that carries into the integer part
    assert fmt(Q16_16, q(Q16_16, Fraction(65535, 65536)) + 0, ".2") == "1.00"


def test_ls209_char_and_fault():
    assert fmt(I64, 65, "c") == "A"
    assert fmt(I64, 0x1F600, "c") == "\U0001F600"
    assert fmt(I64, 65, ">3c") == "  A"
    assert fmt(U8, 0, "c") == "\0"
    assert fmt(I64, 0x10FFFF, "c") == "\U0010FFFF"
    for bad in (-1, 0xD800, 0xDFFF, 0x110000, I64.max):
        with pytest.raises(MachineFault) as ei:
            fmt(I64, bad, "c")
        f = ei.value
        assert f.code == "E_NARROW"
        assert f.operation == "format.char.i64"
        assert f.operands == [(I64, bad)]
    with pytest.raises(MachineFault) as ei:
        fmt(I32, -5, "c")
    assert ei.value.operation == "format.char.i32"
    with pytest.raises(MachineFault) as ei:
        fmt(Q16_16, -1, "c", "raw")
    assert ei.value.operation == "format.char.i32"
    assert ei.value.operands == [(I32, -1)]


def test_ls210_no_exponent():
    assert fmt(I64, 9223372036854775807) == "9223372036854775807"
    assert "e" not in fmt(Q32_32, Q32_32.max)


def test_ls211_width_never_truncates():
    assert fmt(I64, 123456, ">3") == "123456"
    assert fmt(I64, -123456, "03") == "-123456"
    assert fmt(STR, b"abcdef", "<2") == "abcdef"


def test_ls212_fill_align_width_everywhere():
    assert fmt(I64, 42, "<5") == "42   "
    assert fmt(I64, 42, "^6") == "  42  "
    assert fmt(I64, 42, "\u2605^5") == "\u260542\u2605\u2605"
    assert fmt(I64, -42, ">+6") == "   -42"
    assert fmt(I64, 42, ">+6") == "   +42"
    assert fmt(I64, 42, " ") == " 42"
    assert fmt(I64, 42, "-") == "42"
    assert fmt(I64, 42, "0>6") == "000042"     # fill `0` with `>` is a fill, not the flag
    assert fmt(I64, 42, "<<5") == "42<<<"
    assert fmt(BOOL, False, "_^9") == "__false__"
    assert fmt(KIND, EnumValue("ledger.Kind", "withdraw", 1), "<8") == "withdraw"
    assert fmt(Q32_32, q(Q32_32, 3), ">6") == "   3.0"
    assert fmt(Q32_32, q(Q32_32, Fraction(3, 2)), "<18", "ratio") == "6442450944/2^32   "
    assert fmt(U32, 0x12345678, ">3x", "lanes(U8)") == "[ 78,  56,  34,  12]"
    # width counts Unicode scalar values, not bytes
    assert fmt(STR, "\U0001F600".encode(), ">3") == "  \U0001F600"
    assert fmt(I64, 233, "_^5c") == "__\u00e9__"


def test_grouping():
    assert fmt(I64, 1234567, "_") == "1_234_567"
    assert fmt(I64, -1234567, ",") == "-1,234,567"
    assert fmt(I64, 123, ",") == "123"
    assert fmt(I64, 1000, ",d") == "1,000"
    assert fmt(I64, 0x123456, "_x") == "12_3456"
    assert fmt(I64, 255, "#_b") == "0b1111_1111"
    assert fmt(I64, 0o1234567, "_o") == "123_4567"
    assert fmt(I64, 1234567, ">+12_") == "  +1_234_567"
    assert fmt(I64, 0xDEADBEEF, "_X") == "DEAD_BEEF"


def test_zero_pad_after_sign_and_prefix():
    assert fmt(I64, -42, "08") == "-0000042"
    assert fmt(I64, 42, "+08") == "+0000042"
    assert fmt(I64, 42, " 05") == " 0042"
    assert fmt(I64, 255, "#08x") == "0x0000ff"
    assert fmt(I64, 7, "03d") == "007"
    assert fmt(U8, 5, "02x") == "05"


def test_lanes():
    assert fmt(U32, 0x12345678, "02x", "lanes(U8)") == "[78, 56, 34, 12]"
    assert fmt(U32, 0x12345678, "#x", "lanes(U16)") == "[0x5678, 0x1234]"
    assert fmt(U32, 0x12345678, None, "lanes(U32)") == "[305419896]"
    assert fmt(I16, -2, None, "lanes(U8)") == "[254, 255]"
    assert fmt(I64, -1, "x", "lanes(U32)") == "[ffffffff, ffffffff]"
    assert fmt(U16, 0x4142, "c", "lanes(U8)") == "[B, A]"
    assert fmt(I128, 1, None, "lanes(U64)") == "[1, 0]"
    assert fmt(U32, 0x12345678, "02x", "lanes( U8 )") == "[78, 56, 34, 12]"
    assert fmt(U32, 0x12345678, "02x", "!lanes(U8)") == "[78, 56, 34, 12]"


def test_raw_and_ratio():
    assert fmt(Q16_16, -1, None, "raw") == "-1"
    assert fmt(Q16_16, q(Q16_16, Fraction(-3, 2)), "x", "raw") == "-18000"
    assert fmt(Q16_16, q(Q16_16, 1000), "_", "raw") == "65_536_000"
    assert fmt(Q16_16, q(Q16_16, Fraction(-3, 2)), None, "ratio") == "-98304/2^16"
    assert fmt(Q8_0, 5, None, "ratio") == "5/2^0"


# ---------------------------------------------------------------------------
# LS-213: every C1037 combination, C1036 and C1035

C1037_CASES = [
    # `.3` on an integer
    (I64, ".3", None),
    (U8, ".0", None),
    (Q16_16, ".2", "raw"),
    (Q16_16, ".2", "bits"),
    (U32, ".2", "lanes(U8)"),
    # `x` on a Str
    (STR, "x", None),
    # `#` with `t`
    (I64, "#t", None),
    # a sign flag (`+`, ` `) or a group with `t`
    (I64, "+t", None),
    (I64, " t", None),
    (I64, "_t", None),
    (I64, ",t", None),
    # `,` with x, X, o, b
    (I64, ",x", None),
    (I64, ",X", None),
    (I64, ",o", None),
    (I64, ",b", None),
    # `#`, `0`, group, or precision with `c` or `s`
    (I64, "#c", None),
    (I64, "05c", None),
    (I64, "_c", None),
    (I64, ",c", None),
    (I64, ".2c", None),
    (STR, "#s", None),
    (STR, "05s", None),
    (STR, "_s", None),
    (STR, ",s", None),
    (STR, ".2s", None),
    (STR, ".2", None),
    # a width with no alignment and no `0` flag
    (I64, "8", None),
    (STR, "8", None),
    (Q16_16, "8", None),
    (I64, "+8", None),
    # `0` together with an explicit alignment or a group
    (I64, ">08", None),
    (I64, "*<08", None),
    (I64, "08_", None),
    (I64, "08,", None),
    # `#` with decimal
    (I64, "#", None),
    (I64, "#d", None),
    (I64, "#08", None),
    # a scale with a kind other than d, `#`, a group, or a conversion
    (I64, "x/100", None),
    (I64, "t/100", None),
    (I64, "c/100", None),
    (I64, "#/100", None),
    (I64, "_/100", None),
    (I64, ",/100", None),
    (I64, "/100", "bits"),
    (Q16_16, "/100", "raw"),
    (U32, "/100", "lanes(U8)"),
    # a sign flag with `c`
    (I64, "+c", None),
    (I64, " c", None),
    (I64, "-c", None),
    # `0` with `t`
    (I64, "05t", None),
    # `!bits` with `t` or `c`
    (I64, "t", "bits"),
    (I64, "c", "bits"),
    (Q16_16, "t", "bits"),
    # `!lanes(T)` with a signed T, or a lane width that does not divide
    (U32, None, "lanes(I8)"),
    (I64, None, "lanes(I32)"),
    (U16, None, "lanes(U32)"),
    (U8, None, "lanes(U16)"),
    (Q16_16, None, "lanes(U8)"),
    # any conversion applied to Bool
    (BOOL, None, "bits"),
    (BOOL, None, "raw"),
    (BOOL, None, "ratio"),
    (BOOL, None, "lanes(U8)"),
    # conversions outside their domain (LS-201)
    (I64, None, "raw"),
    (I64, None, "ratio"),
    (STR, None, "bits"),
    (MODE, None, "bits"),
    (LEDGER_ERROR, None, "raw"),
    # ASCII digits only (LS-202)
    (I64, ">\u0663", None),
    (I64, "0\u0663", None),
    (Q16_16, ".\u0663", None),
    (I64, "/1\u0660\u0660", None),
    (I64, ">\uff18", None),
    # malformed specs (grammar 18.2)
    (I64, "q", None),
    (I64, "xx", None),
    (I64, ">8>", None),
    (Q16_16, ".", None),
    (I64, "/1", None),
    (I64, "/50", None),
    (I64, "/0100", None),
    (I64, "/", None),
    (I64, "{>5", None),
    (I64, "}<5", None),
    (I64, "s", None),
    (I64, "0", None),
    # other kinds and flags that do not apply
    (Q16_16, "x", None),
    (Q16_16, "d", None),
    (Q16_16, "#", None),
    (Q16_16, "_", None),
    (Q16_16, "/100", None),
    (Q16_16, "+", "ratio"),
    (Q16_16, "08", "ratio"),
    (Q16_16, ".2", "ratio"),
    (Q16_16, "x", "ratio"),
    (BOOL, "d", None),
    (BOOL, "+", None),
    (BOOL, "05", None),
    (BOOL, "#", None),
    (BOOL, "s", None),
    (MODE, "x", None),
    (MODE, "+", None),
    (MODE, ".2", None),
    (LEDGER_ERROR, "#", None),
    (LEDGER_ERROR, "_", None),
    (STR, "+", None),
]


@pytest.mark.parametrize("ty,spec,conv", C1037_CASES,
                         ids=["%s-%r-%r" % (t.name(), s, c) for t, s, c in C1037_CASES])
def test_c1037(ty, spec, conv):
    assert code_of(ty, spec, conv) == "C1037"


def test_python_accepts_arabic_indic_width_but_cint_does_not():
    assert format(1, ">\u0663") == "  1"  # Python 3.11's mini-language
    assert code_of(I64, ">\u0663") == "C1037"


@pytest.mark.parametrize("spec", [".2/100", ".0/10", "+.3d/1000"])
def test_c1036_precision_with_scale(spec):
    assert code_of(I64, spec) == "C1036"


@pytest.mark.parametrize("conv", ["hex", "Bits", "repr", "lanes", "lanes()", "lanes(U7)",
                                  "lanes(Q8.8)", "lanes(Bool)", "lanes(U8", "raw()", ""])
def test_c1035_unknown_conversion(conv):
    assert code_of(I64, None, conv) == "C1035"


def test_c1035_reported_before_bool_rule():
    assert code_of(BOOL, None, "nope") == "C1035"


def test_valid_specs_accepted():
    ok = [
        (I64, None, None), (I64, "", None), (I64, "d", None), (I64, "<", None),
        (I64, "-t", None), (I64, ">5t", None), (I64, "*^9c", None), (I64, "_x", None),
        (I64, "#_b", None), (I64, "+#010x", None), (I64, "08/100", None), (I64, " >12/1000", None),
        (Q16_16, "+08.3", None), (Q16_16, "^10.0", None), (Q16_16, "#x", "bits"), (Q16_16, "_", "raw"),
        (Q16_16, "<20", "ratio"), (U32, "02x", "lanes(U8)"), (I64, "#_x", "lanes(U16)"),
        (STR, "s", None), (STR, ">9s", None), (MODE, "#<12", None), (BOOL, "^7", None),
        (LEDGER_ERROR, "<30", None), (ArrayType(I64, (2,)), "+", None),
    ]
    for ty, spec, conv in ok:
        assert isinstance(parse_spec(spec, conv, ty, SPAN), FormatSpec)


def test_parse_spec_fields():
    fs = parse_spec("*^+#_x", None, I64, SPAN)
    assert (fs.fill, fs.align, fs.sign, fs.alt, fs.group, fs.kind) == ("*", "^", "+", True, "_", "x")
    fs = parse_spec("-010/1000", None, I64, SPAN)
    assert (fs.sign, fs.zero, fs.width, fs.scale_digits, fs.scale) == ("-", True, 10, 3, 1000)
    fs = parse_spec(None, "lanes(U16)", U64, SPAN)
    assert fs.conv == ("lanes", U16)
    assert parse_spec(None, None, I64, SPAN) == DEFAULT_SPEC


# ---------------------------------------------------------------------------
# Whole print lines: the LS-309 ledger output and arith/builtin_values


def test_ls309_ledger_lines():
    kinds = {n: EnumValue("ledger.Kind", n, v) for n, v in KIND.members.items()}
    rows = [(0, "deposit", 125000, 125000), (1, "withdraw", 40050, 84950),
            (2, "interest", 450, 84960), (4, "deposit", 99, 85059)]
    out = []
    for i, k, cents, bal in rows:
        out.append("%s: %s %s -> %s\n" % (fmt(I64, i), fmt(KIND, kinds[k], "<8"),
                                          fmt(I64, cents, ">8"), fmt(I64, bal, "/100")))
    out.insert(3, "%s: rejected %s\n" % (fmt(I64, 3), fmt(LEDGER_ERROR, ErrorValue("ledger.LedgerError", "overdrawn"))))
    out.append("final balance: %s\n" % fmt(I64, 85059, "/100"))
    assert "".join(out) == (
        "0: deposit    125000 -> 1250.00\n"
        "1: withdraw    40050 -> 849.50\n"
        "2: interest      450 -> 849.60\n"
        "3: rejected LedgerError.overdrawn\n"
        "4: deposit        99 -> 850.59\n"
        "final balance: 850.59\n")


def test_ls86_subword_examples():
    assert fmt(U8, 0x78, "#x") == "0x78"
    assert fmt(U32, 0x1, "#x") == "0x1"
    assert fmt(U32, 0xBEEF5678, "#x") == "0xbeef5678"


def test_arith_builtin_values_output():
    """The print lines of conformance arith/builtin_values, with values worked by hand.

    The `.expect` file freezes 399 bytes and their SHA-256.
    """
    mn, big = I64.min, U64.max
    lines = [
        ("abs {} {} uabs {} {}\n", [(I64, 7), (I64, 2), (U8, 128), (U64, 2 ** 63)]),
        ("min {} max {} {} clamp {} {} {}\n", [(I64, -7), (I64, 2), (U64, big), (I64, -3), (I64, 1), (I64, 0)]),
        ("trunc {} {} {} {}\n", [(I64, -3), (I64, -1), (I64, -3), (I64, 1)]),
        ("euclid {} {} {} {} {} {}\n", [(I64, -4), (I64, 1), (I64, 4), (I64, 1),
                                        (I64, -3074457345618258603), (I64, 0)]),
        ("round {} {} {} {}\n", [(I64, -4), (I64, -3), (I64, -3), (I64, -4)]),
        ("half {} {} {} {} {} {}\n", [(I64, -4), (I64, -4), (I64, -3), (I64, -3), (I64, -4), (I64, 2)]),
        ("muldiv {} {} {} {} {}\n", [(I32, 10 ** 9), (I64, -5), (I32, 65535), (U64, big), (I64, mn)]),
        ("mul_full {} {} {} {}\n", [(I64, 4 * 10 ** 18), (I16, 16384), (U32, 4294836225), (U16, 16641)]),
        ("isqrt {} {} {} {} {} {} {}\n", [(I64, 1), (U64, 4294967295), (I64, 9), (I64, 10), (I64, 9),
                                          (I64, 10), (U64, 4294967296)]),
        ("rot {} {} {} {} {} {}\n", [(U8, 3), (U8, 192), (U8, 6), (U16, 65535), (U64, big), (U8, 129)]),
        ("context {} {}\n", [(U8, 201), (I64, -6)]),
    ]
    text = "".join(t.format(*[fmt(ty, v) for ty, v in vals]) for t, vals in lines).encode("utf-8")
    assert len(text) == 399
    assert hashlib.sha256(text).hexdigest() == (
        "2dd836e8f45221b2083bb72028bdf34cd7d172b4d379a6a2f213ef6bd7186ef9")


# ---------------------------------------------------------------------------
# Properties (hypothesis)

WIDTHS = [(True, b) for b in (8, 16, 32, 64, 128, 256, 512, 1024)] + [(False, b) for b in (8, 16, 32, 64)]


@st.composite
def typed_int(draw):
    signed, bits = draw(st.sampled_from(WIDTHS))
    ty = IntType(signed, bits)
    return ty, draw(st.integers(ty.min, ty.max))


@given(typed_int())
@settings(max_examples=400)
def test_prop_decimal_is_str(tv):
    ty, v = tv
    assert fmt(ty, v) == str(v)
    assert fmt(ty, v, "_").replace("_", "") == str(v)
    assert fmt(ty, v, "x") == ("-" if v < 0 else "") + format(abs(v), "x")
    assert int(fmt(ty, v, "#_b").replace("_", ""), 0) == v
    bits = fmt(ty, v, "x", "bits")
    assert len(bits) == -(-ty.bits // 4) and int(bits, 16) == v % (1 << ty.bits)


@st.composite
def typed_fixed(draw):
    storage = draw(st.sampled_from([8, 16, 32, 64]))
    i = draw(st.integers(1, storage))
    ty = FixedType(i, storage - i)
    return ty, draw(st.integers(ty.min, ty.max))


@given(typed_fixed())
@settings(max_examples=400)
def test_prop_fixed_default_exact(tv):
    ty, raw = tv
    text = fmt(ty, raw)
    assert "." in text and text.split(".")[1] != ""
    assert Fraction(text) == Fraction(raw, 2 ** ty.f)
    frac = text.split(".")[1]
    assert frac == "0" or not frac.endswith("0")   # shortest
    assert not text.startswith("-0.0") or Fraction(text) != 0


@given(typed_fixed(), st.integers(0, 25))
@settings(max_examples=400)
def test_prop_fixed_precision_half_even(tv, p):
    ty, raw = tv
    text = fmt(ty, raw, ".%d" % p)
    exact = Fraction(raw, 2 ** ty.f)
    got = Fraction(text)
    scaled = exact * 10 ** p
    assert got * 10 ** p == round(scaled)          # Fraction.__round__ is half to even
    assert len(text.split(".")[1]) == p if p else "." not in text
    if got == 0:
        assert not text.startswith("-")


def _parse_ternary(lit: str) -> int:
    assert lit.startswith("0t")
    v = 0
    for d in lit[2:]:
        v = 3 * v + {"N": -1, "0": 0, "P": 1}[d]
    return v


@given(st.integers(-(2 ** 1023), 2 ** 1023 - 1))
@settings(max_examples=400)
def test_prop_balanced_ternary_roundtrip(v):
    lit = fmt(I1024, v, "t")
    assert _parse_ternary(lit) == v
    assert lit == "0t0" or lit[2] != "0"   # minimal: no leading 0 digit


@given(st.integers(-(2 ** 63), 2 ** 63 - 1), st.integers(1, 19))
def test_prop_scale_exact(v, k):
    text = fmt(I64, v, "/1" + "0" * k)
    assert Fraction(text) == Fraction(v, 10 ** k)
    assert len(text.split(".")[1]) == k


@given(st.integers(0, 2 ** 64 - 1), st.sampled_from([8, 16, 32, 64]))
def test_prop_lanes_reassemble(v, lane_bits):
    lane = IntType(False, lane_bits)
    text = fmt(U64, v, None, "lanes(%s)" % lane.name())
    parts = [int(x) for x in text.strip("[]").split(", ")]
    assert len(parts) == 64 // lane_bits
    assert sum(x << (k * lane_bits) for k, x in enumerate(parts)) == v


def test_parse_once_format_many():
    fs = parse_spec(">+6", None, I64, SPAN)
    assert [format_value(I64, v, fs) for v in (1, -1, 0)] == ["    +1", "    -1", "    +0"]
    assert format_value(I64, 5, DEFAULT_SPEC) == "5"
    assert format_value(Q16_16, 1) == "0.0000152587890625"
