"""Tests of the parser (SPEC-04P.1 sections 5 to 13, grammar 18.2 to 18.6, limits of section 20)."""
from __future__ import annotations

import os
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from cint_compiler.syntax import tree as A
from cint_compiler.diagnostics import CompileError
from cint_compiler.syntax.parser import parse_module

REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED = REPO_ROOT.parent / "shared"
UPSTREAM = Path(os.environ.get("CINT_UPSTREAM_CONFORMANCE") or SHARED / "upstream-conformance")
EXAMPLES = SHARED / "spec" / "examples"

# Codes found by the lexer and the parser (everything else is the checker's).
PARSER_CODES = re.compile(r"C1\d{3}|C2101|C2102|C4012|C4022|C4023|C9004\Z")


def parse(src, path="t.ci"):
    if isinstance(src, str):
        src = src.encode("utf-8")
    return parse_module(src, path, path[:-3].replace("/", "."))


def perr(src):
    with pytest.raises(CompileError) as ei:
        parse(src)
    e = ei.value
    return e.code, e.span.line, e.span.column


def fn(body: str) -> str:
    """``body`` as the lines of a function whose body starts on line 2."""
    return "export I64 run() {\n" + body + "\n}\n"


def only(src):
    """The single item of a one-item module."""
    m = parse(src)
    assert len(m.items) == 1
    return m.items[0]


def init_of(src):
    """The initializer of ``I64 x = <src>;``."""
    return only("I64 x = " + src + ";").decl.init


def pos(span):
    return span.line, span.column


# ----------------------------------------------------------------------------- conformance sources


def _ci_files(root: Path):
    if not root.is_dir():
        return []
    return sorted(root.rglob("*.ci"))


def _expected_parser_diagnostic(ci: Path):
    """The (code, position) of the first parser-stage diagnostic among the case's .expect files, or None."""
    stem = ci.name[:-3]
    found = []
    for e in sorted(ci.parent.glob(stem + ".expect")) + sorted(ci.parent.glob(stem + ".*.expect")):
        text = e.read_text(encoding="utf-8")
        code = re.search(r"^diagnostic\.code (\S+)", text, re.M)
        where = re.search(r"^diagnostic\.position (\S+)", text, re.M)
        if code and where:
            found.append((code.group(1), where.group(1)))
    parser_stage = [f for f in found if PARSER_CODES.match(f[0])]
    return parser_stage[0] if parser_stage else None


UPSTREAM_FILES = _ci_files(UPSTREAM)
EXAMPLE_FILES = _ci_files(EXAMPLES)


def _rel(ci: Path, root: Path) -> str:
    return ci.relative_to(root).as_posix()


@pytest.mark.skipif(not UPSTREAM_FILES, reason="the upstream conformance suite is not beside the repository")
@pytest.mark.parametrize("ci", [f for f in UPSTREAM_FILES if _expected_parser_diagnostic(f) is None],
                         ids=lambda p: _rel(p, UPSTREAM))
def test_upstream_sources_parse(ci):
    rel = _rel(ci, UPSTREAM)
    m = parse_module(ci.read_bytes(), rel, rel[:-3].replace("/", "."))
    assert m.path == rel and m.source == ci.read_text(encoding="utf-8")


@pytest.mark.skipif(not UPSTREAM_FILES, reason="the upstream conformance suite is not beside the repository")
@pytest.mark.parametrize("ci", [f for f in UPSTREAM_FILES if _expected_parser_diagnostic(f) is not None],
                         ids=lambda p: _rel(p, UPSTREAM))
def test_upstream_parser_diagnostics(ci):
    rel = _rel(ci, UPSTREAM)
    code, where = _expected_parser_diagnostic(ci)
    with pytest.raises(CompileError) as ei:
        parse_module(ci.read_bytes(), rel, rel[:-3].replace("/", "."))
    assert (ei.value.code, str(ei.value.span)) == (code, where)


def test_upstream_has_parser_stage_cases():
    if not UPSTREAM_FILES:
        pytest.skip("the upstream conformance suite is not beside the repository")
    codes = {_expected_parser_diagnostic(f)[0] for f in UPSTREAM_FILES if _expected_parser_diagnostic(f)}
    assert {"C4022", "C4023", "C9004"} <= codes


@pytest.mark.skipif(not EXAMPLE_FILES, reason="the spec examples are not beside the repository")
@pytest.mark.parametrize("ci", EXAMPLE_FILES, ids=lambda p: p.name)
def test_spec_examples_parse(ci):
    parse_module(ci.read_bytes(), ci.name, ci.name[:-3])


# ----------------------------------------------------------------------------- module structure


def test_module_fields():
    src = 'profile "cint-core-1";\nimport geo.vec;\nimport geo.vec as v;\nimport geo.vec.{V3, dot3,};\nI64 x = 1;\n'
    m = parse(src, "orbit/main.ci")
    assert (m.path, m.name, m.profile, m.source) == ("orbit/main.ci", "orbit.main", "cint-core-1", src)
    a, b, c = m.imports
    assert (a.path, a.alias, a.selected, pos(a.span), pos(a.name_span)) == (["geo", "vec"], None, None, (2, 8), (2, 12))
    assert (b.alias, pos(b.name_span)) == ("v", (3, 19))
    assert (c.path, c.selected) == (["geo", "vec"], ["V3", "dot3"])
    assert isinstance(m.items[0], A.GlobalDecl)


@pytest.mark.clause("SPEC-04 LS-226")
def test_c3012_import_after_items():
    assert perr("I64 x = 1;\nimport a.b;\n") == ("C3012", 2, 1)


def test_global_and_const_declarations():
    m = parse("export const I64 N = 1024;\nI32[4] w;\nvar t = N + 1;\nin I64[_] h = w[0..2];\n")
    g1, g2, g3, g4 = m.items
    assert isinstance(g1, A.GlobalDecl) and g1.exported and g1.name == "N" and g1.decl.is_const
    assert pos(g1.decl.span) == (1, 18) and pos(g1.decl.eq_span) == (1, 20) and pos(g1.decl.stmt_span) == (1, 8)
    assert isinstance(g2.decl.type, A.ArrayTypeExpr) and g2.decl.init is None
    assert g3.decl.type is None and isinstance(g3.decl.init, A.Binary)
    assert g4.decl.mode == "in" and g4.decl.type.dims[0].any


def test_functions():
    m = parse("void log(I64 t) { }\n"
              "export I64 dot[n](in I64[n] a, inout I64[n] b, I64 k = 2,) where n >= 1 { return 0; }\n"
              "in I64[_] front[n](in I64[n] a) { return a[0..n / 2]; }\n"
              "(I64, I64) divmod_floor(I64 a, I64 b) { return (a / b, a % b); }\n"
              "ParseError!void check(Str s) { }\n"
              "E!(I64, I64) both() { }\n")
    f1, f2, f3, f4, f5, f6 = m.items
    assert isinstance(f1.result, A.VoidTypeExpr) and f1.name == "log" and pos(f1.span) == (1, 6)
    assert f2.exported and f2.size_params == ["n"] and [p.mode for p in f2.params] == ["in", "inout", None]
    assert isinstance(f2.params[2].default, A.IntLit) and isinstance(f2.where, A.Binary)
    assert pos(f2.params[0].span) == (2, 29)
    assert f3.result_mode == "in" and isinstance(f3.result, A.ArrayTypeExpr)
    assert isinstance(f4.result, A.TupleTypeExpr) and isinstance(f4.body.stmts[0].value, A.TupleExpr)
    assert isinstance(f5.result, A.ErrorUnionTypeExpr) and f5.result.value is None
    assert f5.result.errset.parts == ["ParseError"]
    assert isinstance(f6.result.value, A.TupleTypeExpr)


@pytest.mark.clause("SPEC-04 LS-244")
def test_kernel_declaration():
    k = only("kernel diffuse[n, m](in I32[n, m] u, out I32[n, m] next) over [i: n, j: m] where n > 1, m > 1 {\n"
             "    next[i, j] = u[i, j];\n    reduce total = sum(u[i, j]);\n}\n")
    assert isinstance(k, A.KernelDecl) and k.size_params == ["n", "m"]
    assert [p.mode for p in k.params] == ["in", "out"]
    assert [(o.name, o.extent.ident) for o in k.over] == [("i", "n"), ("j", "m")]
    assert len(k.where) == 2
    red = k.body.stmts[1]
    assert isinstance(red, A.Reduce) and red.target == "total" and red.call.callee.ident == "sum"


def test_struct_enum_error_type_test_static_assert():
    m = parse("@packed struct Status { U16 mode : 3; @align(2) Bool armed : 1 = false; I32[3] pos; }\n"
              "enum Mode : U8 { idle, burn = 4, coast, }\n"
              "error IoError : U8 { closed, full }\n"
              "error IoOrParse : U32 = IoError | ParseError;\n"
              "type Cents = I64;\ntype Meters = distinct I64;\n"
              'test "narrowing" expect_fault E_NARROW at 12 { }\n'
              "static_assert(Status.bytes == 6, \"size\");\n")
    s, e, er, comb, t1, t2, t, sa = m.items
    assert s.attrs[0].name == "packed" and [f.name for f in s.fields] == ["mode", "armed", "pos"]
    assert isinstance(s.fields[0].bits, A.IntLit) and isinstance(s.fields[1].default, A.BoolLit)
    assert s.fields[1].attrs[0].name == "align" and s.fields[1].attrs[0].args[0].value.value == 2
    assert e.underlying.parts == ["U8"] and [x.name for x in e.members] == ["idle", "burn", "coast"]
    assert e.members[1].value.value == 4
    assert [v.name for v in er.values] == ["closed", "full"] and er.combined is None
    assert [c.text for c in comb.combined] == ["IoError", "ParseError"] and comb.underlying.parts == ["U32"]
    assert not t1.distinct and t2.distinct and t2.target.parts == ["I64"]
    assert (t.name, t.expect_fault, pos(t.expect_fault_span), t.expect_fault_line, pos(t.span)) == (
        "narrowing", "E_NARROW", (7, 31), 12, (7, 1))
    assert isinstance(sa, A.StaticAssert) and sa.message.parts == ["size"]


# ----------------------------------------------------------------------------- statements


def body(src):
    return only(fn(src)).body.stmts


def test_simple_statements():
    s = body("    x += 1; a[i] <<%= 2; i++; j--; _ = f(); try g(); f(x, n = 2); in_place k(a);\n"
             "    (I64 q, _) = divmod(7, 2); (q, a[1]) = divmod(7, 2); var (p, r) = divmod(1, 2);\n"
             '    "x={x}\\n" "more";')
    assert [type(x).__name__ for x in s] == ["Assign", "Assign", "IncDec", "IncDec", "Discard", "ExprStmt",
                                            "ExprStmt", "ExprStmt", "Destructure", "Destructure", "Destructure",
                                            "Print"]
    assert (s[0].op, pos(s[0].span)) == ("+=", (2, 7))
    assert s[1].op == "<<%=" and isinstance(s[1].place, A.Index)
    assert (s[2].op, pos(s[2].span)) == ("++", (2, 27))
    assert isinstance(s[5].expr, A.Try) and s[7].in_place
    assert s[6].expr.args[1].name == "n"
    d1, d2, d3 = s[8], s[9], s[10]
    assert d1.declare and d1.binds[0].type.parts == ["I64"] and d1.binds[0].name == "q" and d1.binds[1].name is None
    assert pos(d1.span) == (3, 16)
    assert not d2.declare and isinstance(d2.binds[1].place, A.Index)
    assert d3.declare and [b.name for b in d3.binds] == ["p", "r"]
    pr = s[11]
    assert pr.text.parts[0] == "x=" and isinstance(pr.text.parts[1], A.Hole) and pr.text.parts[2] == "\nmore"


def test_control_flow():
    s = body("    if (a) { } else if (b) { } else { }\n"
             "    while (c) { break; }\n"
             "    do { continue; } while (d);\n"
             "    for (I64 i = 0; i < n; i++) { }\n"
             "    rows: for i in 0..n by 2 { break rows; }\n"
             "    for i in 1..=n { }\n"
             "    for _, x in values { }\n"
             "    for x in values { fallthrough; }\n"
             "    defer { } errdefer f();\n"
             '    assert(x == 1, "bad {x}");\n'
             "    return;")
    i = s[0]
    assert isinstance(i.other, A.If) and isinstance(i.other.other, A.Block) and pos(i.span) == (2, 5)
    assert isinstance(s[1], A.While) and isinstance(s[1].body.stmts[0], A.Break)
    assert isinstance(s[2], A.DoWhile)
    fc = s[3]
    assert isinstance(fc, A.ForC) and isinstance(fc.init, A.VarDecl) and isinstance(fc.update, A.IncDec)
    fr = s[4]
    assert (fr.label, fr.var, fr.inclusive, fr.step.value, pos(fr.span), pos(fr.var_span)) == (
        "rows", "i", False, 2, (6, 11), (6, 15))
    assert fr.body.stmts[0].label == "rows"
    assert s[5].inclusive
    fe = s[6]
    assert isinstance(fe, A.ForEach) and fe.index is None and fe.var == "x"
    assert s[7].index is None and s[7].var == "x" and isinstance(s[7].body.stmts[0], A.Fallthrough)
    assert isinstance(s[8], A.Defer) and not s[8].is_err and s[9].is_err
    a = s[10]
    assert isinstance(a, A.Assert) and pos(a.span) == (11, 12) and isinstance(a.message.parts[1], A.Hole)
    assert isinstance(s[11], A.Return) and s[11].value is None


@pytest.mark.clause("SPEC-04 LS-177")
def test_switch():
    s = body("    switch (code) {\n        case 0: return 1;\n        case 1..=4, 9: x = 1; fallthrough;\n"
             "        case .burn: x = 2;\n        default: return 0;\n    }")[0]
    assert isinstance(s, A.Switch) and pos(s.span) == (2, 5) and pos(s.default_span) == (6, 9)
    assert len(s.cases) == 3 and isinstance(s.cases[1].items[0], tuple) and s.cases[1].items[1].value == 9
    assert isinstance(s.cases[2].items[0], A.DotName) and len(s.default) == 1


# ----------------------------------------------------------------------------- expressions


@pytest.mark.clause("SPEC-04 LS-149")
def test_precedence():
    e = init_of("(a + b * c) << 2")
    assert e.op == "<<" and isinstance(e.left, A.Paren) and e.left.inner.right.op == "*"
    e = init_of("flags & MASK == 0")
    assert e.op == "==" and e.left.op == "&"
    e = init_of("a as I64 + b")
    assert e.op == "+" and isinstance(e.left, A.Convert)
    e = init_of("a || b || c")
    assert e.op == "||" and e.left.op == "||"
    e = init_of("c ? 1 : d ? 2 : 3")
    assert isinstance(e, A.Cond) and isinstance(e.other, A.Cond)
    e = init_of("f(x) catch 0")
    assert isinstance(e, A.Catch) and e.value.value == 0 and pos(e.span) == (1, 14)
    e = init_of("a +% b + c")
    assert e.op == "+" and e.left.op == "+%"


@pytest.mark.clause("SPEC-04 LS-28")
def test_negative_literals():
    e = init_of("-128")
    assert (e.value, e.negative, e.text, pos(e.span)) == (-128, True, "-128", (1, 9))
    e = init_of("- /* c */ 128")
    assert (e.value, e.negative, pos(e.span)) == (-128, True, (1, 9))
    e = init_of("- -128")
    assert isinstance(e, A.Unary) and e.operand.value == -128
    e = init_of("-(128)")
    assert isinstance(e, A.Unary) and isinstance(e.operand, A.Paren)
    e = init_of("-1 as% U64")
    assert isinstance(e, A.Convert) and e.operand.value == -1
    e = init_of("7 - 2")
    assert e.op == "-" and e.right.value == 2
    e = init_of("-'a'")
    assert e.value == -97 and e.is_char
    e = init_of("-0.5 round floor")
    assert e.value == Fraction(-1, 2) and e.round == "floor"


def test_postfix_and_primary_forms():
    e = init_of("a[i, j]")
    assert isinstance(e, A.Index) and len(e.items) == 2 and pos(e.span) == (1, 10)
    e = init_of("a[lo..hi by 2, .., ..=3, 2..]")
    it = e.items
    assert all(isinstance(x, A.SliceItem) for x in it)
    assert it[0].step.value == 2 and it[1].lo is None and it[1].hi is None
    assert it[2].inclusive and it[2].lo is None and it[3].hi is None
    e = init_of("vec.dot3(a, b)")
    assert isinstance(e, A.Call) and isinstance(e.callee, A.Member) and pos(e.span) == (1, 13)
    e = init_of("I64.max")
    assert isinstance(e, A.TypeMember) and e.type.parts == ["I64"] and e.name == "max" and pos(e.span) == (1, 9)
    e = init_of("Q16.16.raw(5)")
    assert isinstance(e.callee, A.TypeMember) and e.callee.type.parts == ["Q16.16"]
    e = init_of("Q16.16.epsilon")
    assert isinstance(e, A.TypeMember) and e.name == "epsilon"
    e = init_of("Mode.burn")
    assert isinstance(e, A.Member) and e.base.ident == "Mode"
    e = init_of(".burn")
    assert isinstance(e, A.DotName) and e.name == "burn"
    e = init_of("[1, 2,]")
    assert isinstance(e, A.ArrayLit) and len(e.items) == 2
    e = init_of("(a)")
    assert isinstance(e, A.Paren)
    e = init_of("x as I32 round floor")
    assert isinstance(e, A.Convert) and e.round == "floor" and e.target.parts == ["I32"] and pos(e.span) == (1, 11)
    e = init_of("0.1 round half_even")
    assert isinstance(e, A.FracLit) and e.value == Fraction(1, 10) and e.round == "half_even"
    e = init_of("round + 1")
    assert isinstance(e.left, A.Name) and e.left.ident == "round"
    e = init_of("w.lanes(U16)[1]")
    assert isinstance(e, A.Index) and isinstance(e.base.args[0].value, A.TypeName)
    e = init_of('b"ab" b"c"')
    assert e.is_bytes and e.parts == [b"abc"]
    e = init_of("true && !false")
    assert isinstance(e.left, A.BoolLit) and isinstance(e.right, A.Unary)
    e = init_of("try parse(s)")
    assert isinstance(e, A.Try)


@pytest.mark.clause("SPEC-04 LS-307")
def test_type_arguments():
    e = init_of("sum(I16, v) + muldiv(I64, a, b, c, floor) + dot(Q16.16, a, b) + f(I64[3], I64.max)")
    s3 = e.left.right.args[0].value
    assert isinstance(s3, A.TypeName) and s3.parts == ["Q16.16"]
    m = e.left.left.right
    assert isinstance(m.args[0].value, A.TypeName) and isinstance(m.args[4].value, A.Name)
    f = e.right
    assert isinstance(f.args[0].value, A.ArrayTypeExpr) and isinstance(f.args[1].value, A.TypeMember)


def test_catch_block():
    d = body("    I64 v = parse(t) catch (e) {\n        return 0;\n    };")[0]
    c = d.init
    assert isinstance(c, A.Catch) and c.binding == "e" and isinstance(c.block.stmts[0], A.Return)
    c = init_of("f() catch (x + 1)")
    assert c.binding is None and isinstance(c.value, A.Paren)


# ----------------------------------------------------------------------------- holes


@pytest.mark.clause("SPEC-04 LS-198", "SPEC-04 LS-200")
def test_holes():
    p = only('"{x=!bits:#x} {a[i] + 1 =} {(ok ? a : b)} {w!lanes(U8):02x} {n:*^7} {{}}";')
    parts = p.text.parts
    h1, h2, h3, h4, h5 = [x for x in parts if isinstance(x, A.Hole)]
    assert (h1.source, h1.eq, h1.conv, h1.spec, pos(h1.span), pos(h1.expr.span)) == (
        "x", True, "bits", "#x", (1, 2), (1, 3))
    assert (h2.source, h2.eq, h2.conv, h2.spec) == ("a[i] + 1 ", True, None, None)
    assert isinstance(h2.expr, A.Binary) and pos(h2.expr.span) == (1, 21)
    assert isinstance(h3.expr, A.Paren) and isinstance(h3.expr.inner, A.Cond) and not h3.eq
    assert (h4.conv, h4.spec) == ("lanes(U8)", "02x")
    assert h5.spec == "*^7"
    assert parts[-1] == " {}"


@pytest.mark.clause("SPEC-04 LS-199", "SPEC-04 LS-44")
def test_hole_errors():
    assert perr('"{ok ? a : b}";') == ("C1035", 1, 2)
    assert perr('"a {x!hex}";') == ("C1035", 1, 4)
    assert perr('"a {x!lanes(Foo)}";') == ("C1035", 1, 4)
    assert perr('"{}";') == ("C1035", 1, 2)
    assert perr('"{:x}";') == ("C1035", 1, 2)
    assert perr('"{x y}";') == ("C1035", 1, 2)
    assert perr('"{a[}";') == ("C1035", 1, 2)
    assert perr('"{007}";') == ("C1022", 1, 3)
    assert perr('"{a && b || c}";') == ("C2101", 1, 3)
    assert perr('Str s = "v {x}";') == ("C1033", 1, 12)
    assert perr('test "t {x}" { }') == ("C1033", 1, 9)
    assert perr('static_assert(true, "m {x}");') == ("C1033", 1, 24)
    assert perr('f("{x}");') == ("C1033", 1, 4)
    only('Str s = format(buf, "v {x:04}") catch "none";')


# ----------------------------------------------------------------------------- syntax diagnostics


@pytest.mark.parametrize("src,expected", [
    (fn("    if (c);"), ("C1040", 2, 11)),
    (fn("    ;"), ("C1040", 2, 5)),
    (fn("    while (x) ;"), ("C1040", 2, 15)),
    (fn("    if (x = 5) {\n        return 1;\n    }"), ("C1041", 2, 9)),
    (fn("    while (a[i] += 1) { }"), ("C1041", 2, 12)),
    (fn("    for (I64 i = 0; i = 1; i++) { }"), ("C1041", 2, 21)),
    (fn("    return a[i++];"), ("C1042", 2, 15)),
    (fn("    x = y-- + 1;"), ("C1042", 2, 10)),
    (fn("    if (x == 1) return 1;"), ("C1043", 2, 17)),
    (fn("    if x == 1 { }"), ("C1043", 2, 8)),
    (fn("    if (a) { } else return;"), ("C1043", 2, 21)),
    (fn("    while (a) x = 1;"), ("C1043", 2, 15)),
    (fn("    do x = 1; while (a);"), ("C1043", 2, 8)),
    (fn("    for i in 0..n x = 1;"), ("C1043", 2, 19)),
    (fn("    for I64 i = 0; i < n; i++ { }"), ("C1043", 2, 9)),
    (fn("    x + 1;"), ("C4012", 2, 5)),
    (fn("    (x);"), ("C4012", 2, 5)),
    (fn("    I64 do = 1;"), ("C4012", 2, 5)),
    (fn("    const I64 if = 1;"), ("C4012", 2, 5)),
    ("I64 true = 1;", ("C4012", 1, 1)),
    (fn("    switch (x) {\n        case 1..5:\n            return 1;\n        default:\n            return 0;\n    }"),
     ("C4022", 3, 14)),
    (fn("    switch (x) {\n        case 1:\n        case 2:\n            return 1;\n        default:\n"
        "            return 0;\n    }"), ("C4023", 3, 9)),
    (fn("    switch (x) { case 1: return 1; default: }"), ("C4023", 2, 36)),
    (fn("    switch (x) { default: return 1; case 1: return 1; }"), ("C4025", 2, 37)),
    (fn("    I64 x = 1"), ("C1050", 3, 1)),
    (fn("    x = ;"), ("C1050", 2, 9)),
    (fn("    expect_fault E_NARROW;"), ("C3021", 2, 5)),
    ("I64 f( { }", ("C1050", 1, 8)),
    ("struct S { I64 }", ("C1050", 1, 16)),
])
def test_syntax_diagnostics(src, expected):
    assert perr(src) == expected


@pytest.mark.clause("SPEC-04 LS-151")
@pytest.mark.parametrize("expr,col", [
    ("a && b || c", 13), ("a || b && c", 13), ("1 << n + 1", 13), ("n * 2 >> 1", 13),
    ("a & b + 1", 13), ("a - 1 | b", 13), ("a & b | c", 13), ("a ^ b & c", 13),
    ("-x as% U8", 13), ("-(128) as I8", 13), ("~x as U8", 13), ("!b as I64", 13), ("- -1 as I8", 13),
    ("y + (a & b | c)", 18), ("f(a && b || c)", 15),
])
def test_c2101_parentheses_required(expr, col):
    assert perr("Bool z = " + expr + ";") == ("C2101", 1, col - 3)


@pytest.mark.parametrize("expr", [
    "(a && b) || c", "1 << (n + 1)", "a & (b + 1)", "(a & b) | c", "(-x) as% U8", "-(x as% U8)",
    "-128 as I8", "- 1 as% U64", "a & b & c", "a << 1 << 2", "a + b * c", "a & b << 2", "a as I8 as I16",
])
def test_combinations_that_need_no_parentheses(expr):
    parse("I64 z = " + expr + ";")


@pytest.mark.clause("SPEC-04 LS-153")
@pytest.mark.parametrize("expr,col", [("0 <= i < n", 10), ("a == b == c", 10), ("x + 1 < y > z", 10),
                                      ("p && a < b < c", 15)])
def test_c2102_chained_comparison(expr, col):
    assert perr("Bool z = " + expr + ";") == ("C2102", 1, col)


def test_comparison_in_parentheses_is_not_chained():
    parse("Bool z = (a < b) == c;")


# ----------------------------------------------------------------------------- limits and robustness


@pytest.mark.clause("SPEC-04 LS-311")
def test_block_nesting_limit():
    ok = "void f() {\n" + "{" * 256 + "}" * 256 + "\n}\n"
    parse(ok)
    bad = "void f() {\n" + "{" * 257 + "}" * 257 + "\n}\n"
    assert perr(bad) == ("C9004", 2, 257)
    loops = "void f() {\n" + "while (true) {" * 256 + "}" * 256 + "\n}\n"
    parse(loops)
    assert perr("void f() {\n" + "while (true) {" * 257 + "}" * 257 + "\n}\n") == ("C9004", 2, 256 * 14 + 14)


@pytest.mark.clause("SPEC-04 LS-311")
def test_expression_nesting_limit():
    parse("I64 x = " + "(" * 256 + "1" + ")" * 256 + ";")
    assert perr("I64 x = " + "(" * 257 + "1" + ")" * 257 + ";") == ("C9004", 1, 9 + 256)
    n = 100000
    assert perr("I64 x = " + "(" * n + "1" + ")" * n + ";") == ("C9004", 1, 9 + 256)
    assert perr("I64 x = " + "[" * n + "1" + "]" * n + ";")[0] == "C9004"
    assert perr("I64 x = " + "~" * n + "x;")[0] == "C9004"
    assert perr("I64 x = " + "f(" * n + ")" * n + ";")[0] == "C9004"
    assert perr("I64 x = " + "a ? b : " * n + "c;")[0] == "C9004"
    assert perr("{" * n + "}" * n)[0] == "C9004"
    assert perr("(" * n)[0] == "C9004"


def test_long_else_if_chain_and_long_operator_chain():
    m = parse("if (a) { }" + " else if (b) { }" * 20000)
    node, arms = m.items[0], 0
    while isinstance(node, A.If):
        arms += 1
        node = node.other
    assert arms == 20001
    parse("I64 x = 1" + " + 1" * 20000 + ";")


def test_random_input_never_crashes():
    rnd = random.Random(20261003)
    words = ["(", ")", "{", "}", "[", "]", "I64", "x", "=", ";", "if", "for", "in", "..", "..=", "1", "0.5",
             '"a{x}"', '"{"', "catch", "-", "as", "U8", ",", ".", "?", ":", "else", "while", "@", "export", "test",
             '"t"', "return", "switch", "case", "default", "++", "_", "var", "const", "struct", "enum", "error",
             "!", "void", "kernel", "over", "by", "Q16.16", "'c'", "&&", "||", "<", "<<", "&", "|", "import",
             "in_place", "try", "reduce", "defer", "static_assert", "assert", "b\"x\"", "fallthrough"]
    for k in range(2000):
        n = rnd.randint(0, 120)
        if k % 3 == 0:
            src = bytes(rnd.randrange(256) for _ in range(n))
        elif k % 3 == 1:
            src = bytes(rnd.choice(b"(){}[];,.=+-*/<>!&|^~?:\"'{} \n\tax1_IQ09") for _ in range(n))
        else:
            src = " ".join(rnd.choice(words) for _ in range(n)).encode()
        try:
            parse(src)
        except CompileError:
            pass
