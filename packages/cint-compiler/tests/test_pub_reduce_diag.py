"""Diagnostics found while comparing the public reduce/diag conformance folders (SPEC-04P.1 LS-57,
LS-313; SPEC-01P.1 4.5).

- LS-57: a shift is typed by the context of the whole shift, never by rule 4 of LS-56 from the other
  operand of an enclosing binary operator, so `I16 + (literal << n)` mixes I16 and I64 (C2001).
- C2055 is reported at the field that closes the cycle, C6010 at the `static_assert` keyword,
  C6006 for a `clamp` whose constant lo exceeds its constant hi (at the callee name), and a name
  that is not a rounding mode in a mode argument is C3007 (wrong kind of name).
"""
import shutil

import pytest

from compiler_testkit import both, compile_error, where

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def test_shift_is_not_typed_by_the_other_operand():
    e = compile_error("export I64 run() {\n"
                      "    I16 step = 3;\n"
                      "    I16 total = step * (2 << 3);\n"
                      "    return total as I64;\n"
                      "}\n")
    assert e.code == "C2001" and where(e) == (3, 24)
    e = compile_error("export Bool run() {\n"
                      "    U32 mask = 7;\n"
                      "    return (1 << 2) == mask;\n"
                      "}\n")
    assert e.code == "C2001"


@needs_cc
def test_shift_still_takes_the_declared_type(tmp_path):
    out = both(tmp_path, "export I64 run() {\n"
                         "    I16 step = 3;\n"
                         "    I16 wide = 2 << 3;\n"
                         "    I16 total = step * ((2 << 3) as I16) + wide;\n"
                         "    return total as I64;\n"
                         "}\n")
    assert "return I64 64" in out


def test_c2055_at_the_closing_field():
    e = compile_error("struct Tree {\n"
                      "    I32 weight;\n"
                      "    Tree[2] kids;\n"
                      "}\n"
                      "export I64 run() { return 0; }\n")
    assert e.code == "C2055" and where(e) == (3, 13)
    e = compile_error("struct Left { I8 tag; Right r; }\n"
                      "struct Right { U16 w; Left[3] ls; }\n"
                      "export I64 run() { return 0; }\n")
    assert e.code == "C2055" and where(e) == (2, 31)


def test_c6010_at_the_keyword():
    e = compile_error("const I64 WIDTH = 6;\n"
                      "  static_assert(WIDTH * 2 == 11, \"width\");\n"
                      "export I64 run() { return WIDTH; }\n")
    assert e.code == "C6010" and where(e) == (2, 3)


def test_c3007_for_a_name_that_is_not_a_rounding_mode():
    e = compile_error("export I64 run() {\n"
                      "    I64 n = 17;\n"
                      "    return div_round(n, 4, upward);\n"
                      "}\n")
    assert e.code == "C3007" and where(e) == (3, 28)


def test_c6006_clamp_with_constant_bounds_reversed():
    e = compile_error("const I32 LOW = 40;\n"
                      "export I32 run() {\n"
                      "    I32 v = 12;\n"
                      "    I32 w = v + clamp(v, LOW, -40);\n"
                      "    return w;\n"
                      "}\n")
    assert e.code == "C6006" and where(e) == (4, 17)


@needs_cc
def test_clamp_with_ordered_constant_bounds_runs(tmp_path):
    out = both(tmp_path, "export I32 run() {\n"
                         "    I32 v = 55;\n"
                         "    return clamp(v, -40, 40) + clamp(v, 60, 60);\n"
                         "}\n")
    assert "return I32 100" in out
