"""Tests of the lexer (SPEC-04P.1 section 3 and grammar 18.1)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from cint_compiler.diagnostics import CompileError
from cint_compiler.syntax.lexer import MAX_LITERAL, RawHole, tokenize


def toks(src):
    if isinstance(src, str):
        src = src.encode("utf-8")
    return tokenize(src, "t.ci")


def kinds(src):
    return [t.kind for t in toks(src)][:-1]


def lex_error(src):
    with pytest.raises(CompileError) as ei:
        toks(src)
    e = ei.value
    return e.code, e.span.line, e.span.column


# ----------------------------------------------------------------------------- tokens


def test_eof_token_and_positions():
    ts = toks("I64 x\n\t= 1;")
    assert [(t.kind, t.text, t.line, t.col) for t in ts] == [
        ("ident", "I64", 1, 1), ("ident", "x", 1, 5), ("=", "=", 2, 2), ("int", "1", 2, 4),
        (";", ";", 2, 5), ("eof", "", 2, 6)]


@pytest.mark.clause("SPEC-04 LS-10")
def test_columns_count_scalar_values_and_crlf_is_one_line_end():
    ts = toks('"é€😀" x\r\ny')
    assert (ts[1].line, ts[1].col) == (1, 7)
    assert (ts[2].line, ts[2].col) == (2, 1)


def test_keywords_and_contextual_round():
    assert kinds("if while round distinct secret in_place expect_fault") == [
        "if", "while", "ident", "distinct", "secret", "in_place", "expect_fault"]


@pytest.mark.clause("SPEC-04 LS-12", "SPEC-04 LS-49")
def test_maximal_munch():
    assert kinds("a+%b x<<%2 y<<%=3 a+|=b a-|b") == [
        "ident", "+%", "ident", "ident", "<<%", "int", "ident", "<<%=", "int", "ident", "+|=", "ident",
        "ident", "-|", "ident"]
    assert kinds("x as% U8 as| as? as") == ["ident", "as%", "ident", "as|", "as?", "as"]
    assert kinds("0..=n a[..] i++ j-- ..") == ["int", "..=", "ident", "ident", "[", "..", "]", "ident", "++",
                                              "ident", "--", ".."]


@pytest.mark.clause("SPEC-04 LS-36")
def test_fixed_point_type_name_is_one_token():
    ts = toks("Q16.16 Q32.32.raw Q8.0")
    assert [(t.kind, t.text) for t in ts[:-1]] == [
        ("qtype", "Q16.16"), ("qtype", "Q32.32"), (".", "."), ("ident", "raw"), ("qtype", "Q8.0")]


@pytest.mark.clause("SPEC-04 LS-24", "SPEC-04 LS-30")
@pytest.mark.parametrize("text,value", [
    ("0", 0), ("1_000_000", 1000000), ("0xDEAD_beef", 3735928559), ("0b1010_0101", 165), ("0o755", 493),
    ("0tP0N", 8), ("0tN", -1), ("0t000P", 1), ("0xFFFF_FFFF_FFFF_FFFF", 18446744073709551615),
])
def test_integer_literals(text, value):
    t = toks(text)[0]
    assert (t.kind, t.value, t.text) == ("int", value, text)


@pytest.mark.clause("SPEC-04 LS-33", "SPEC-04 LS-34")
def test_fraction_literals_and_ranges():
    ts = toks("1.5 0.25 0x1.8 1_0.0_5")
    assert [(t.kind, t.value) for t in ts[:-1]] == [
        ("frac", Fraction(3, 2)), ("frac", Fraction(1, 4)), ("frac", Fraction(3, 2)), ("frac", Fraction(201, 20))]
    assert kinds("1..5") == ["int", "..", "int"]
    assert kinds("0x1..5") == ["int", "..", "int"]
    assert kinds("a.b") == ["ident", ".", "ident"]


def test_largest_literal_is_accepted():
    t = toks("0x" + "f" * 1024)[0]
    assert t.value == MAX_LITERAL


@pytest.mark.clause("SPEC-04 LS-39")
def test_character_literals():
    ts = toks(r"'A' 'é' '\u{1F600}' '\x41' '\n' '\'' '\\' '{' '\0'")
    assert [t.value for t in ts[:-1]] == [65, 233, 128512, 65, 10, 39, 92, 123, 0]
    assert all(t.kind == "char" for t in ts[:-1])


@pytest.mark.clause("SPEC-04 LS-42", "SPEC-04 LS-44")
def test_string_literal_parts_and_escapes():
    t = toks(r'"a\tb {{x}} \u{e9}\x41 {n:>6} end"')[0]
    assert t.kind == "str"
    assert t.value[0] == "a\tb {x} \u00e9A "
    hole = t.value[1]
    assert isinstance(hole, RawHole)
    assert (hole.text, hole.line, hole.col, hole.brace_col) == ("n:>6", 1, 25, 24)
    assert t.value[2] == " end"


@pytest.mark.clause("SPEC-04 LS-41")
def test_byte_string():
    t = toks(r'b"\xff\x00a{{"')[0]
    assert (t.kind, t.value) == ("bytes", b"\xff\x00a{")


def test_comments_nest_and_are_skipped():
    assert kinds("a /* x /* y */ z */ b // c\nd") == ["ident", "ident", "ident"]


# ----------------------------------------------------------------------------- errors


@pytest.mark.clause("SPEC-04 LS-4")
def test_c1002_bom_invalid_utf8_and_nul():
    assert lex_error(b"\xef\xbb\xbfI64 x = 1;") == ("C1002", 1, 1)
    assert lex_error(b"I64 x = 1;\n// \xc3\x28\n") == ("C1002", 2, 4)
    assert lex_error(b"I64 x = 1; // a\x00b") == ("C1002", 1, 16)
    assert lex_error(b'"\xed\xa0\x80"') == ("C1002", 1, 2)      # an encoded surrogate


@pytest.mark.clause("SPEC-04 LS-6")
@pytest.mark.parametrize("ch", ["\u202e", "\u2066", "\u2028", "\u200b", "\u00ad", "\ufeff", "\U000e0001",
                                "\ufe0f", "\u3164"])
def test_c1003_invisible_characters_anywhere(ch):
    assert lex_error("I64 x = 1; // ok" + ch + "\n") == ("C1003", 1, 17)
    assert lex_error('"ab' + ch + '"') == ("C1003", 1, 4)


@pytest.mark.clause("SPEC-04 LS-7", "SPEC-04 LS-9")
def test_c1004_control_characters_and_lone_cr():
    assert lex_error("I64 x\r= 1;") == ("C1004", 1, 6)
    assert lex_error('"a\x01"') == ("C1004", 1, 3)
    assert lex_error("// \x7f") == ("C1004", 1, 4)
    assert kinds("a\tb\r\nc") == ["ident", "ident", "ident"]


def test_c1005_unterminated_block_comment():
    assert lex_error("x /* a /* b */ c") == ("C1005", 1, 3)


@pytest.mark.clause("SPEC-04 LS-17", "SPEC-04 LS-15")
def test_c1010_c1012_names():
    assert lex_error("I64 Q32 = 1;") == ("C1010", 1, 5)
    assert lex_error("U128 x;") == ("C1010", 1, 1)
    assert lex_error("\n  T3") == ("C1010", 2, 3)
    assert lex_error("x " + "a" * 256) == ("C1012", 1, 3)
    assert kinds("a" * 255 + " I1024 T27 U64") == ["ident"] * 4


def test_c1013_non_ascii_outside_literals():
    assert lex_error("I64 é = 1;") == ("C1013", 1, 5)


@pytest.mark.clause("SPEC-04 LS-25", "SPEC-04 LS-26", "SPEC-04 LS-27", "SPEC-04 LS-31")
@pytest.mark.parametrize("text,code", [
    ("0X1F", "C1020"), ("0B1", "C1020"), ("0T1", "C1020"),
    ("1__0", "C1021"), ("1_", "C1021"), ("0x_1F", "C1021"), ("1.5_", "C1021"),
    ("007", "C1022"), ("00", "C1022"), ("0_1", "C1022"),
    ("0x", "C1024"), ("0b102", "C1024"), ("0o8", "C1024"), ("0t1", "C1024"), ("0xfg", "C1024"),
    ("0x1" + "0" * 1024, "C1023"), ("9" * 1300, "C1023"), ("1" + "0" * 1234, "C1023"),
])
def test_bad_integer_literals(text, code):
    assert lex_error("I64 x = " + text + ";") == (code, 1, 9)


@pytest.mark.clause("SPEC-04 LS-39", "SPEC-04 LS-42", "SPEC-04 LS-43")
def test_character_literal_errors():
    assert lex_error("x = '';") == ("C1030", 1, 5)
    assert lex_error("x = 'ab';") == ("C1030", 1, 5)
    assert lex_error("x = '\\u{D800}';") == ("C1031", 1, 6)
    assert lex_error("x = '\\u{110000}';") == ("C1031", 1, 6)
    assert lex_error("x = '\\q';") == ("C1032", 1, 6)
    assert lex_error("x = '\\xff';") == ("C1032", 1, 6)
    assert lex_error("x = 'a\n';") == ("C1038", 1, 5)


def test_string_literal_errors():
    assert lex_error('"a\\u{zz}"') == ("C1032", 1, 3)
    assert lex_error('b"\\u{41}"') == ("C1032", 1, 3)
    assert lex_error('"\\x80"') == ("C1032", 1, 2)
    assert lex_error('x;\n  "abc\n";') == ("C1034", 2, 3)
    assert lex_error('"abc') == ("C1038", 1, 1)
    assert lex_error('"ab}c"') == ("C1039", 1, 4)
    assert lex_error('"a {f("x")} b"') == ("C1035", 1, 4)
    assert lex_error('"a {x"') == ("C1035", 1, 4)
    assert lex_error('b"a {x}"') == ("C1033", 1, 5)


def test_unexpected_character():
    assert lex_error("x # y") == ("C1050", 1, 3)


def test_first_lexical_error_in_source_order():
    # The C1013 on line 1 comes before the NUL on line 2, and the NUL before the bad literal.
    assert lex_error(b"\xc3\xa9\n\x00") == ("C1013", 1, 1)
    assert lex_error(b"a\x00 007") == ("C1002", 1, 2)
    assert lex_error(b"007 \x00") == ("C1022", 1, 1)


def test_lone_cr_inside_a_literal_is_c1004():
    assert lex_error('x = "ab\rc";') == ("C1004", 1, 8)
    assert lex_error("x = '\r';") == ("C1004", 1, 6)
    assert lex_error('x = "ab\r\nc";') == ("C1034", 1, 5)


# ----------------------------------------------------------------------------- the one-step scan of Lexer.run

_TRICKY = [
    "x as% U8; y as? I8; z as| U8; as",
    'b"bytes" b "x" bx b',
    "Q16.16 Q8 I64 I65 U7 T27 T3 Ix I64x _I64",
    "for i in 0..n { } 0..=9 1.5 0x1F 0b1010 0o17 0t1N0P 1_000 007 0 00 12ab 1.e 3.x",
    "1234567890123456789012345678901234567890 1" + "0" * 1300,
    "a // comment at the end without a newline",
    "a /* block /* nested */ */ b / c /= d // x\n e",
    "a\r\nb\r\n  // c\r\n\td",
    "x" * 255 + " " + "y" * 256,
    "a >>= b <<= c ... .. . -> => ==",
    "é 1",
    "'a' '\\n' \"s {x} t\" \"\\u{41}\"",
    "a\x07b",
    "",
    "\n\n   \n",
]


def _by_next_token(src):
    from cint_compiler.syntax.lexer import Lexer, decode_source
    text, _ = decode_source(src, "t.ci")
    lx = Lexer(text, "t.ci")
    out = []
    while True:
        t = lx.next_token()
        out.append(t)
        if t.kind == "eof":
            return out


def _outcome(fn, src):
    try:
        return ("ok", [(t.kind, t.text, repr(t.value), t.line, t.col, t.offset, t.end) for t in fn(src)])
    except CompileError as e:
        return ("error", e.code, e.span.line, e.span.column, e.message)


def test_the_one_step_scan_gives_the_tokens_of_next_token():
    """Lexer.run scans the common tokens in one step (issue 11, checking 1 MB in seconds); every token and every
    error is next_token's, on the tricky cases above and on every .ci file of the specification and the repository."""
    from pathlib import Path
    from cint_compiler.syntax.lexer import Lexer, decode_source

    def by_run(src):
        text, _ = decode_source(src, "t.ci")
        return Lexer(text, "t.ci").run()

    root = Path(__file__).resolve().parents[3]
    files = sorted(root.glob("examples/*.ci")) + sorted((root.parent / "shared").glob("**/*.ci"))
    sources = [s.encode("utf-8") for s in _TRICKY] + [f.read_bytes() for f in files]
    assert len(sources) > len(_TRICKY) + 5
    for src in sources:
        assert _outcome(by_run, src) == _outcome(_by_next_token, src), src[:80]
