"""One table per concept (issue 12 Deliver 2): the operator table is the only definition of the operators,
C9102 is worded once, and the facade's public names resolve."""
import pytest

import cint_compiler
from cint_compiler import diagnostics
from cint_compiler.backend.c17 import emit
from cint_compiler.check import exprs, symbols
from cint_compiler.interp import context
from cint_compiler.semantics import operators as O
from cint_compiler.syntax import lexer, parse_exprs


def test_every_phase_reads_the_one_operator_table():
    assert parse_exprs.BINARY_BP is O.BINARY_BP
    assert parse_exprs.ARITH_OPS is O.ARITH_OPS and parse_exprs.SHIFT_OPS is O.SHIFT_OPS
    assert parse_exprs.CMP_OPS is O.CMP_OPS and parse_exprs.BITWISE_OPS is O.BIT_OPS
    assert lexer._OPERATORS == list(O.TOKENS)
    for mod in (exprs, context, emit):
        for name in ("ARITH_OPS", "SHIFT_OPS", "CMP_OPS"):
            if hasattr(mod, name):
                assert getattr(mod, name) is getattr(O, name), (mod.__name__, name)
    for name in ("ARITH_OPS", "SHIFT_OPS", "BIT_OPS", "CMP_OPS", "LOGIC_OPS"):
        assert not hasattr(symbols, name) or getattr(symbols, name) is getattr(O, name)


@pytest.mark.clause("SPEC-04 LS-149")
def test_the_operator_table_is_consistent():
    assert [r.bp for r in O.BINARY] == sorted((r.bp for r in O.BINARY), reverse=True)
    for r in O.BINARY:
        assert (r.operation is None) == (r.family not in ("arith", "shift"))
        assert r.counts_step == (r.family in ("arith", "shift"))
        if r.compound:
            assert r.token + "=" in O.TOKENS
    # maximal munch: every token that extends another comes before it
    pos = {t: i for i, t in enumerate(O.TOKENS)}
    for t in O.TOKENS:
        for k in range(1, len(t)):
            if t[:k] in pos:
                assert pos[t] < pos[t[:k]], t


def test_c9102_is_worded_once():
    e = diagnostics.unsupported(None, "this form")
    assert e.code == "C9102" and e.message == "this form is not yet supported by this implementation (docs/status.md)"
    r = emit.refuse(None, "this form")
    assert r.code == "C9102" and r.message == ("this form is not yet supported by the executor cpu-c17 (use --executor "
                                               "ref; docs/status.md)")


def test_the_facade_names_resolve():
    for name in cint_compiler.__all__:
        assert getattr(cint_compiler, name) is not None, name
    with pytest.raises(AttributeError):
        cint_compiler.no_such_name  # noqa: B018
