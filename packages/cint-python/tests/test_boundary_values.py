"""Q<i>.<f> and I128..I1024 values through the package cint (SPEC-03P.1 7.3 A-13, 8.5 P-21a, P-24).

The library is built from source by cint.load (so it has cintx_invoke and the C call path); exports
with a Q or wide parameter or result are reached through _Entry, the ctypes path."""
from fractions import Fraction

import pytest

import cint
from cint import _module

SRC = """\
error E { neg }

export Q16.16 half(Q16.16 x) {
    return x / 2.0;
}

export E!Q8.8 pos(Q8.8 x) {
    if (x < 0.0) {
        return E.neg;
    }
    return x;
}

export Q1.63 tiny() {
    return Q1.63.raw(1);
}

export I128 twice(I128 x) {
    return x * 2;
}

export E!I256 wpos(I256 x) {
    if (x < 0) {
        return E.neg;
    }
    return x;
}

export I1024 shl(I64 k) {
    return (1 as I1024) << (k as I1024);
}

export Q16.16 qsum(in Q16.16[_] xs) {
    Q16.16 s = 0.0;
    for x in xs {
        s = s + x;
    }
    return s;
}

export I64 plain(I64 x) {
    return x + 1;
}
"""


@pytest.fixture(scope="module")
def ctx(source_env):
    return cint.load(source_env("boundary_values", {"bv.ci": SRC}) / "bv.ci").context()


F = cint.Fixed


@pytest.mark.clause("P-21a")
def test_q_parameter_takes_a_fixed_of_exactly_its_format(ctx):
    assert ctx.half(F("Q16.16", value=3)) == F("Q16.16", value=Fraction(3, 2))
    assert ctx.half(F("Q16.16", raw=1)) == F("Q16.16", raw=0)
    with pytest.raises(cint.Refused, match="bare int") as ei:
        ctx.half(3)
    assert ei.value.parameter == "x" and ei.value.code == "E_UNSUPPORTED"
    with pytest.raises(cint.Refused, match="bare int"):
        ctx.half(True)
    with pytest.raises(cint.Refused, match="format Q8.8"):
        ctx.half(F("Q8.8", value=1))
    with pytest.raises(cint.Refused, match="float"):
        ctx.half(1.5)
    with pytest.raises(cint.Refused):
        ctx.half(Fraction(1, 2))


@pytest.mark.clause("P-24")
def test_q_results_are_fixed(ctx):
    r = ctx.pos(F("Q8.8", value=Fraction(5, 4)))
    assert isinstance(r, cint.Fixed) and r.format == "Q8.8" and r.raw == 320
    with pytest.raises(cint.ErrorResult) as ei:
        ctx.pos(F("Q8.8", value=-1))
    assert ei.value.name == "neg"
    t = ctx.tiny()
    assert t.format == "Q1.63" and t.as_fraction() == Fraction(1, 2 ** 63)


@pytest.mark.clause("P-24")
@pytest.mark.clause("A-13")
def test_wide_parameters_and_results_are_exact(ctx):
    for v in (0, -1, 2 ** 125, -(2 ** 126), 12345678901234567890123456789):
        assert ctx.twice(v) == 2 * v
    assert ctx.wpos(2 ** 255 - 1) == 2 ** 255 - 1
    with pytest.raises(cint.ErrorResult):
        ctx.wpos(-(2 ** 255))
    assert ctx.shl(1022) == 1 << 1022
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.twice(2 ** 126)
    assert ei.value.operation == "mul.checked.i128"
    ctx.clear_fault()


@pytest.mark.clause("A-13")
def test_wide_parameters_refuse_out_of_range_and_other_types(ctx):
    with pytest.raises(cint.Refused) as ei:
        ctx.twice(2 ** 127)
    assert ei.value.code == "E_NARROW" and ei.value.parameter == "x"
    with pytest.raises(cint.Refused) as ei:
        ctx.wpos(-(2 ** 255) - 1)
    assert ei.value.code == "E_NARROW"
    for bad in (True, 1.0, F("Q16.16", value=1), "1"):
        with pytest.raises(cint.Refused) as ei:
            ctx.twice(bad)
        assert ei.value.code == "E_UNSUPPORTED"
    np = pytest.importorskip("numpy")
    with pytest.raises(cint.Refused):
        ctx.twice(np.int64(3))


def test_q_arrays_cross_as_buffers(ctx):
    xs = cint.copy([F("Q16.16", value=Fraction(k, 4)) for k in range(5)], elem="Q16.16")
    assert ctx.qsum(xs) == F("Q16.16", value=Fraction(10, 4))
    # a formed argument of another element type is the entry fault bind.type (7.1 paragraph 11, check 3)
    with pytest.raises(cint.UnsupportedFault, match="Q16.16") as info:
        ctx.qsum(cint.copy([1, 2], elem="I32"))
    assert info.value.operation == "bind.type"
    ctx.clear_fault()


def test_q_and_wide_exports_take_the_ctypes_path(ctx):
    # cint._fastcall passes I8..U64, Bool and arrays of them; every other export falls back to _Entry
    for name in ("half", "pos", "tiny", "twice", "wpos", "shl", "qsum"):
        assert isinstance(ctx.entry(name), _module._Entry), name
    if _module._FC is not None and ctx._module._invoke is not None:
        assert not isinstance(ctx.entry("plain"), _module._Entry)


@pytest.mark.clause("P-4")
def test_a_q_elem_borrows_memory_of_its_storage_type(ctx):
    np = pytest.importorskip("numpy")
    raw = np.array([1 << 16, 3 << 15, -(1 << 14)], dtype=np.int32)      # 1, 1.5, -0.25 in Q16.16
    v = cint.borrow(raw, elem="Q16.16")
    assert v.elem == "Q16.16"
    assert ctx.qsum(v) == F("Q16.16", value=Fraction(9, 4))
    with pytest.raises(cint.BorrowRefused, match="storage type, I32"):
        cint.borrow(np.zeros(3, dtype=np.int64), elem="Q16.16")
    with pytest.raises(cint.BorrowRefused):
        cint.borrow(raw, elem="I64")
    with pytest.raises(cint.UnsupportedFault, match=r"cint.borrow\(a, elem='Q16.16'\)"):
        ctx.qsum(raw)                      # a bare I32 array is not a Q16.16 array: cint never converts
    ctx.clear_fault()
