"""A Pygments lexer for cint source (SPEC-04P.1 section 3), registered as the ``pygments.lexers`` entry
point ``cint`` of the cint-python distribution, so ``pygmentize -l cint`` and Markdown's ```cint blocks
(the documentation site) find it. Importing this module needs Pygments; ``import cint`` does not.

The token classes: comments (line, nesting block comments), keywords (LS-18, LS-19, the contextual
``round`` after a conversion or a fraction literal), declaration keywords, built-in types and fixed-point
type names, constants (true, false), fault names (E_...), built-in functions (section 6.8), rounding-mode
names, integer literals in every base, fraction literals, character literals, strings and byte strings
with their escapes and interpolation holes, attributes (@packed), operators and punctuation.
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, default, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace

__all__ = ["CintLexer"]

KEYWORDS = ("as", "assert", "break", "by", "case", "catch", "continue", "default", "defer", "do", "else",
            "errdefer", "expect_fault", "fallthrough", "for", "if", "in", "in_place", "inout", "out", "over",
            "profile", "reduce", "return", "schedule", "static_assert", "switch", "test", "try", "where", "while",
            "distinct", "secret")
DECLARATIONS = ("const", "enum", "error", "export", "import", "kernel", "struct", "type", "var", "void")
TYPES = ("I8", "I16", "I32", "I64", "I128", "I256", "I512", "I1024", "U8", "U16", "U32", "U64", "Bool", "Str",
         "T1", "T27", "PT5", "PT4", "Arena", "Pool", "Handle", "Round", "ArithError", "AllocError", "FormatError",
         "Utf8Error")
BUILTINS = ("len", "extent", "size", "lower", "copy", "fill", "equal", "swap", "transpose", "reverse", "reshape",
            "abs", "uabs", "min", "max", "clamp", "div_trunc", "rem_trunc", "div_euclid", "rem_euclid", "divmod",
            "div_round", "muldiv", "mul_full", "isqrt", "isqrt_round", "add_result", "sub_result", "mul_result",
            "div_result", "rem_result", "shl_result", "rotl", "rotr", "mul", "div", "mul_wrap", "mul_sat", "sqrt",
            "sum", "dot", "fold_checked", "sum_wrap", "sum_sat", "count", "wrap_bits", "random", "format", "utf8",
            "embed", "to_device", "to_host", "offset")
MODES = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc", "half_up", "half_down")
_ID_END = r"(?![A-Za-z0-9_])"


class CintLexer(RegexLexer):
    """cint-core-1 source (SPEC-04P.1)."""

    name = "cint"
    aliases = ["cint", "ci"]
    filenames = ["*.ci"]
    mimetypes = ["text/x-cint"]
    priority = 0.3      # *.ci is also Charm++ interface files (CharmciLexer); a cint checkout means cint

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r"/\*", Comment.Multiline, "comment"),
            (r"@[A-Za-z_][A-Za-z0-9_]*", Name.Decorator),
            (r'b"', String, "bytes"),
            (r'"', String, "string"),
            (r"'", String.Char, "char"),
            # numbers: fraction literals (digits on both sides of the point), then integers in every base
            (r"0x[0-9A-Fa-f](_?[0-9A-Fa-f])*\.[0-9A-Fa-f](_?[0-9A-Fa-f])*", Number.Float, "after_fraction"),
            (r"[0-9](_?[0-9])*\.[0-9](_?[0-9])*(?!\.)", Number.Float, "after_fraction"),
            (r"0x[0-9A-Fa-f](_?[0-9A-Fa-f])*" + _ID_END, Number.Hex),
            (r"0b[01](_?[01])*" + _ID_END, Number.Bin),
            (r"0o[0-7](_?[0-7])*" + _ID_END, Number.Oct),
            (r"0t[NP0](_?[NP0])*" + _ID_END, Number.Integer),
            (r"[0-9](_?[0-9])*" + _ID_END, Number.Integer),
            # conversions: as, as%, as|, as? (single tokens), then the target type and an optional round clause
            (r"as[%|?]|as" + _ID_END, Keyword, "conversion"),
            (r"Q[0-9]+\.[0-9]+" + _ID_END, Keyword.Type),
            (words(TYPES, suffix=_ID_END), Keyword.Type),
            (words(("true", "false"), suffix=_ID_END), Keyword.Constant),
            (words(DECLARATIONS, suffix=_ID_END), Keyword.Declaration),
            (words(KEYWORDS, suffix=_ID_END), Keyword),
            (r"E_[A-Z_]+" + _ID_END, Name.Exception),
            (words(MODES, suffix=_ID_END), Name.Constant),
            (words(BUILTINS, suffix=r"(?=\s*\()"), Name.Builtin),
            (r"[A-Za-z_][A-Za-z0-9_]*(?=\s*(\[[^\]]*\]\s*)?\()", Name.Function),
            (r"[A-Z][A-Za-z0-9_]*", Name.Class),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r"(<<%=|<<%|<<=|>>=|\+%=|-%=|\*%=|\+\|=|-\|=|\*\|=|\.\.=|\+%|-%|\*%|\+\||-\||\*\||<<|>>|==|!=|<=|>=|"
             r"&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--|\.\.|[-+*/%&|^~<>!?:=])", Operator),
            (r"[()\[\]{},;.]", Punctuation),
        ],
        "comment": [
            (r"[^/*]+", Comment.Multiline),
            (r"/\*", Comment.Multiline, "#push"),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"[/*]", Comment.Multiline),
        ],
        "escapes": [
            (r"\\(x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]{1,6}\}|[\\\"'nrt0])", String.Escape),
            (r"\{\{|\}\}", String.Escape),
        ],
        "string": [
            include("escapes"),
            (r"\{", String.Interpol, "hole"),
            (r'"', String, "#pop"),
            (r'[^"\\{}]+', String),
            (r"\}", String),
        ],
        "bytes": [
            include("escapes"),
            (r'"', String, "#pop"),
            (r'[^"\\{}]+', String),
            (r"[{}]", String),
        ],
        "char": [
            include("escapes"),
            (r"'", String.Char, "#pop"),
            (r"[^'\\]", String.Char),
        ],
        "hole": [
            (r"\}", String.Interpol, "#pop"),
            (r"(=)?(:)([^}]*)", bygroups(String.Interpol, String.Interpol, String.Interpol)),
            (r"\s+", Whitespace),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name.Variable),
            (r"[0-9]+", Number.Integer),
            (r"[-+*/%.\[\](),]", Operator),
            (r"=", String.Interpol),
            (r"[^}]", Operator),
        ],
        "conversion": [
            (r"\s+", Whitespace),
            (r"Q[0-9]+\.[0-9]+" + _ID_END, Keyword.Type, ("#pop", "after_type")),
            (words(TYPES, suffix=_ID_END), Keyword.Type, ("#pop", "after_type")),
            (r"[A-Z][A-Za-z0-9_]*", Name.Class, ("#pop", "after_type")),
            default("#pop"),
        ],
        "after_type": [
            (r"(\s*)(round)(\s+)", bygroups(Whitespace, Keyword, Whitespace), "#pop"),
            default("#pop"),
        ],
        "after_fraction": [
            (r"(\s*)(round)(\s+)", bygroups(Whitespace, Keyword, Whitespace), "#pop"),
            default("#pop"),
        ],
    }
