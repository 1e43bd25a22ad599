"""Conformance: Q<i>.<f> and I128..I1024 scalars at the export boundary of cpu-c17 (SPEC-03P.1 7.3 A-13,
8.5 P-21a and P-24), through the package cint, against the reference interpreter."""
from fractions import Fraction

import pytest

import cint
from cint_compiler.interp.canonical import fault_bytes
from cint_compiler.driver import compile_file
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry

SRC = """\
export Q32.32 scale(Q32.32 x, Q32.32 k) {
    return x * k;
}

export I256 cube(I256 x) {
    return x * x * x;
}
"""


@pytest.fixture(scope="module")
def env(source_env):
    src = source_env("py_boundary", {"bnd.ci": SRC}) / "bnd.ci"
    return cint.load(src).context(), compile_file(src)


def ref(c, entry, args):
    kind, target = choose_entry(c, entry)
    return Context(c.program, c.revision).run_entry(kind, target, list(args), fuel=None, depth=256)


@pytest.mark.clause("A-13")
@pytest.mark.clause("P-24")
def test_q_scalar_in_and_out(env):
    ctx, c = env
    x, k = cint.Fixed("Q32.32", value=Fraction(3, 2)), cint.Fixed("Q32.32", value=-4)
    r = ctx.scale(x, k)
    assert r == cint.Fixed("Q32.32", value=-6) and r.raw == ref(c, "scale", [x.raw, k.raw]).value
    big = cint.Fixed("Q32.32", value=2 ** 20)
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.scale(big, big)
    assert ei.value.record == fault_bytes(ref(c, "scale", [big.raw, big.raw]).record)
    ctx.clear_fault()


@pytest.mark.clause("P-21a")
def test_q_parameter_refuses_bare_ints_and_other_formats(env):
    ctx, _ = env
    one = cint.Fixed("Q32.32", value=1)
    with pytest.raises(cint.Refused, match="bare int"):
        ctx.scale(4294967296, one)
    with pytest.raises(cint.Refused, match="Q16.16"):
        ctx.scale(one, cint.Fixed("Q16.16", value=1))


@pytest.mark.clause("A-13")
@pytest.mark.clause("P-24")
def test_wide_scalar_in_and_out(env):
    ctx, c = env
    for v in (0, -3, 2 ** 80, -(2 ** 84) + 7):
        assert ctx.cube(v) == v ** 3 == ref(c, "cube", [v]).value
    with pytest.raises(cint.Refused) as ei:
        ctx.cube(2 ** 255)
    assert ei.value.code == "E_NARROW"
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.cube(2 ** 90)
    assert ei.value.record == fault_bytes(ref(c, "cube", [2 ** 90]).record)
    ctx.clear_fault()
