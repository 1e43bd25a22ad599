"""`cint check` refuses what `cint build --lib` refuses at the export boundary (issue 17 item 5; SPEC-03P.1
7.3 A-13, 7.5 A-24, A-25).

Each form below has no C wrapper or no type signature a host can decode.  Before, `cint check` said `ok`
and the build failed later (C9102, C5050, or an A-24 SignatureError at `cint.load`).  Now the checker
(check/export_boundary.py) refuses each with C5050 and a message that says what to write instead, and
`cint build --lib` stops with the same diagnostic.  Exports that A-25 leaves without a wrapper (an arena,
a pool or a handle; a kernel's scalar `out`) and every `export` of an imported module are not refused.
"""
from __future__ import annotations

import pytest

from cint_compiler.cli import main

pytestmark = pytest.mark.clause("A-25")

# name: (source, what the message must say, a fragment of the advice)
REFUSED = {
    "array_result": ("export I64[4] f() {\n    I64[4] a = [1, 2, 3, 4];\n    return a;\n}\n",
                     "cannot return an array", "take an `inout` array parameter"),
    "error_union_of_array": ("error E { bad }\nexport E!I64[2] f() {\n    I64[2] a = [1, 2];\n    return a;\n}\n",
                             "cannot return an array", "`inout`"),
    "tuple_result": ("export (I64, I64) f() { return (1, 2); }\n", "cannot return a tuple",
                     "return a struct"),
    "str_result": ("export Str f() { return \"x\"; }\n", "cannot return Str", "U8"),
    "str_param": ("export I64 f(Str s) { return 1; }\n", "type Str cannot cross", "U8[_]"),
    "enum_param": ("enum Color : U8 { red, green }\nexport I64 f(Color c) { return 1; }\n",
                   "parameter c of type Color cannot cross", "underlying integer U8"),
    "error_set_param": ("error E { bad }\nexport I64 f(E e) { return 1; }\n",
                        "parameter e of type E cannot cross", "underlying integer"),
    "enum_field": ("enum Color : U8 { red, green }\nstruct P { Color c; I64 v; }\n"
                   "export I64 f(P p) { return p.v; }\n", "field P.c of type Color", "declare the field as"),
    "error_set_field_in_array": ("error Bad { oops }\nstruct P { I8 k; Bad e; }\n"
                                 "export I64 f(in P[_] ps) { return 1; }\n", "field P.e of type Bad",
                                 "underlying integer"),
    "wide_kernel_scalar": ("export kernel k[n](in I128[n] a, out I128[n] b, in I128 s) over [i: n] "
                           "{ b[i] = a[i]; }\n", "of a kernel", "export a function"),
    "bit_field_struct_array": ("struct B { U8 a : 3; U8 b : 5; }\nexport void f(inout B[2] xs) { }\n",
                               "an array of struct B, which holds bit fields", "without bit widths"),
    "packed_field_of_bit_field_struct": ("@packed struct Q { U8 a; U32 b; }\nstruct B { U8 a : 3; Q q; }\n"
                                         "export I64 f(in B b) { return 1; }\n", "field B.q cannot cross",
                                         "drop @packed"),
    "builtin_arith_error": ("export ArithError!I64 f(I64 x) { return x; }\n", "ArithError",
                            "error set of your own"),
}


def _cli(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out + cap.err


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_check_and_build_refuse_the_form(name, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CINT_CACHE", str(tmp_path / "cache"))
    src, what, advice = REFUSED[name]
    f = tmp_path / ("%s.ci" % name)
    f.write_text(src)
    code, out = _cli(capsys, "check", str(f))
    assert code != 0, out
    assert "error[C5050]" in out and what in out and advice in out, out
    assert "%s.ci:" % name in out          # a position in the source, with the caret snippet
    code2, out2 = _cli(capsys, "build", "--lib", str(f), "--out", str(tmp_path / "out"))
    assert code2 == code, out2
    assert out2.splitlines()[0] == out.splitlines()[0]       # the same diagnostic, not an internal error
    assert not (tmp_path / "out").exists()


def test_a_valid_export_checks_and_builds(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CINT_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "ok.ci"
    f.write_text("struct P { I64 v; Bool on; }\n"
                 "export I64 f[n](in I64[n] xs, inout P p) { p.v = n; return xs[0]; }\n")
    code, out = _cli(capsys, "check", str(f))
    assert code == 0 and out.startswith("ok:"), out
    code, out = _cli(capsys, "build", "--lib", str(f), "--out", str(tmp_path / "out"))
    assert code == 0, out
    assert (tmp_path / "out" / "libok.so").exists()


def test_a_packed_struct_whose_record_matches_c_still_builds(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CINT_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "pk.ci"
    f.write_text("@packed struct Q { U8 a; U8 b; }\nstruct B { U8 a : 3; Q q; U32 w; }\n"
                 "export B f(in B b) { return b; }\n")
    assert _cli(capsys, "check", str(f))[0] == 0
    code, out = _cli(capsys, "build", "--lib", str(f), "--out", str(tmp_path / "out"))
    assert code == 0, out


def test_what_is_not_a_host_export_is_not_refused(tmp_path, monkeypatch, capsys):
    """An imported module's `export` is visibility (LS-227); a script's non-exported function may return an
    array; an export mentioning an arena stays callable from cint only (A-25), without an error."""
    monkeypatch.setenv("CINT_CACHE", str(tmp_path / "cache"))
    (tmp_path / "lib.ci").write_text("export I64[2] pair() {\n    I64[2] a = [1, 2];\n    return a;\n}\n")
    f = tmp_path / "main.ci"
    f.write_text("import lib;\nI64[2] twice() { return lib.pair(); }\n"
                 "export I64 first() { I64[2] a = twice(); return a[0]; }\n")
    code, out = _cli(capsys, "check", str(f))
    assert code == 0, out
