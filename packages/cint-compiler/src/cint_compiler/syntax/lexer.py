"""The lexer of cint-core-1 (SPEC-04P.1 section 3 and grammar 18.1).

:func:`tokenize` turns the bytes of one source file into a list of
:class:`Token`, ending with an ``eof`` token.  Every lexical error is a
:class:`CompileError` with its LS-313 code, reported at the first character
of the offending construct (the character itself for C1002 to C1004, the
backslash for C1032).  Of several lexical errors the first in source order
is reported.

Token kinds:

* ``ident``   an identifier (``round``, ``Bool``, ``I64`` and user names);
* ``qtype``   a fixed-point type name ``Q<i>.<f>`` (one token, LS-36);
* ``int``     an integer literal; ``value`` is its ``int``;
* ``frac``    a fraction literal; ``value`` is an exact ``Fraction``;
* ``char``    a character literal; ``value`` is its code point;
* ``str``     a string literal; ``value`` is a list of parts: ``str`` text
  and :class:`RawHole` (the unparsed text of ``{...}``);
* ``bytes``   a byte-string literal; ``value`` is its ``bytes``;
* ``eof``     the end of the input;
* a keyword or an operator/punctuation: the kind is its own text
  (``if``, ``as%``, ``+=``, ``(``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional

from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.semantics.operators import TOKENS as OPERATOR_TOKENS

__all__ = ["Token", "RawHole", "tokenize", "lex", "decode_source", "Lexer", "KEYWORDS", "REAL_TYPE_NAMES",
           "INT_TYPE_NAMES", "BUILTIN_TYPE_NAMES", "MAX_LITERAL"]

KEYWORDS = frozenset("""
as assert break by case catch const continue default defer do else enum errdefer error
expect_fault export fallthrough false for if import in in_place inout kernel out over
profile reduce return schedule static_assert struct switch test true try type var void
where while distinct secret
""".split())

INT_TYPE_NAMES = frozenset("I8 I16 I32 I64 I128 I256 I512 I1024 U8 U16 U32 U64".split())
# Names matching [IUQT][0-9]+ that are real types (LS-17, LS-21).
REAL_TYPE_NAMES = INT_TYPE_NAMES | {"T1", "T27"}
# Built-in type names that may stand as a type argument or before ``.member`` (LS-21).
BUILTIN_TYPE_NAMES = REAL_TYPE_NAMES | {"Bool", "Str", "PT5", "PT4", "Arena"}

MAX_LITERAL = (1 << 4096) - 1          # LS-31
_MAX_DEC_DIGITS = 1240                 # 10**1240 > 2**4096: anything longer is C1023

# Operators and punctuation, longest first (maximal munch, LS-12): semantics/operators.py.
_OPERATORS = list(OPERATOR_TOKENS)
_OPS_BY_FIRST = {}
for _op in _OPERATORS:
    _OPS_BY_FIRST.setdefault(_op[0], []).append(_op)

_RESERVED_TYPE_RE = re.compile(r"[IUQT][0-9]+\Z")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QTYPE_TAIL_RE = re.compile(r"\.[0-9]+")
_WORD_RE = re.compile(r"[A-Za-z0-9_]*")

# Default_Ignorable_Code_Point and the bidirectional controls and separators (LS-6): C1003.
_IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2028\u2029\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_BAD_CHAR_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + _IGNORABLE + "]|\r(?!\n)")
_IGNORABLE_RE = re.compile("[" + _IGNORABLE + "]")


@dataclass
class RawHole:
    """The unparsed text of one hole ``{...}`` of a string literal (parsed by the parser)."""
    text: str          # the characters between the braces
    offset: int        # index of text[0] in the decoded source
    line: int          # position of text[0]
    col: int
    brace_line: int    # position of the opening brace
    brace_col: int


@dataclass
class Token:
    kind: str
    text: str          # the source text of the token
    value: object      # int, Fraction, code point, parts, bytes, or None
    line: int
    col: int
    offset: int = 0    # index of the first character in the decoded source
    end: int = 0       # index just past the last character

    def span(self, path: str) -> Span:
        return Span(path, self.line, self.col)

    def __repr__(self):
        return "Token(%s %r @%d:%d)" % (self.kind, self.text, self.line, self.col)


def _position(text: str, index: int):
    line = text.count("\n", 0, index) + 1
    start = text.rfind("\n", 0, index) + 1
    return line, index - start + 1


def decode_source(source: bytes, path: str):
    """Decode ``source`` for lexing.

    Returns ``(text, err)``: the text (invalid UTF-8 replaced by U+FFFD so that
    lexing can continue) and the first character-level error (C1002, C1003,
    C1004) with its character index, or None.
    """
    errs = []
    if source.startswith(b"\xef\xbb\xbf"):
        errs.append((0, CompileError("C1002", Span(path, 1, 1),
                                     "the file begins with a byte-order mark; cint sources are UTF-8 without one")))
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as ex:
        prefix = source[:ex.start].decode("utf-8", errors="replace")
        idx = len(prefix)
        line, col = _position(prefix + "x", idx)
        errs.append((idx, CompileError("C1002", Span(path, line, col),
                                       "invalid UTF-8 byte 0x%02X" % source[ex.start])))
        text = source.decode("utf-8", errors="replace")
    m = _BAD_CHAR_RE.search(text, 1 if errs and errs[0][0] == 0 else 0)
    if m is not None:
        idx = m.start()
        ch = text[idx]
        line, col = _position(text, idx)
        sp = Span(path, line, col)
        if ch == "\x00":
            e = CompileError("C1002", sp, "the byte 0x00 is not permitted in a source file")
        elif _IGNORABLE_RE.match(ch):
            e = CompileError("C1003", sp, "the invisible or bidirectional character U+%04X is not permitted; "
                             "write it as an escape such as \\u{%X}" % (ord(ch), ord(ch)))
        elif ch == "\r":
            e = CompileError("C1004", sp, "a carriage return must be followed by a line feed")
        else:
            e = CompileError("C1004", sp, "the control character U+%04X is not permitted; write it as an escape"
                             % ord(ch))
        errs.append((idx, e))
    err = None
    if errs:
        errs.sort(key=lambda x: x[0])
        err = errs[0]
    return text, err


def tokenize(source: bytes, path: str) -> List[Token]:
    """The tokens of one source file, ending with an ``eof`` token; raises CompileError."""
    return lex(source, path)[1]


def lex(source: bytes, path: str):
    """``(text, tokens)``: the decoded source and its tokens; raises the first lexical CompileError."""
    text, char_err = decode_source(source, path)
    lx = Lexer(text, path)
    try:
        toks = lx.run()
    except CompileError:
        if char_err is not None and char_err[0] <= lx.err_index:
            raise char_err[1] from None
        raise
    if char_err is not None:
        raise char_err[1]
    return text, toks


def _digits_int(d: str, radix: int) -> int:
    """``int(d, radix)`` without the interpreter's limit on long decimal strings."""
    if radix != 10 or len(d) <= 4000:
        return int(d, radix)
    half = len(d) // 2
    return _digits_int(d[:half], 10) * 10 ** (len(d) - half) + _digits_int(d[half:], 10)


def _is_hex(c: str) -> bool:
    return c in "0123456789abcdefABCDEF"


class Lexer:
    """Scans ``text`` from ``pos``; ``line``/``col`` give the position of ``text[pos]``."""

    def __init__(self, text: str, path: str, pos: int = 0, line: int = 1, col: int = 1,
                 end: Optional[int] = None, hole: bool = False):
        self.text = text
        self.path = path
        self.pos = pos
        self.line = line
        self.line_start = pos - (col - 1)
        self.end = len(text) if end is None else end
        self.hole = hole
        self.err_index = 0

    # ------------------------------------------------------------------ helpers

    def span_at(self, index: int) -> Span:
        """The position of ``text[index]`` (index on the current line or a later one scanned so far)."""
        return Span(self.path, self.line, index - self.line_start + 1)

    def error(self, code: str, index: int, msg: str, span: Optional[Span] = None):
        self.err_index = index
        return CompileError(code, span or self.span_at(index), msg)

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < self.end else ""

    # ------------------------------------------------------------------ main loop

    def run(self) -> List[Token]:
        toks = []
        while True:
            t = self.next_token()
            toks.append(t)
            if t.kind == "eof":
                return toks

    def skip_space(self):
        text, end = self.text, self.end
        while self.pos < end:
            c = text[self.pos]
            if c == "\n":
                self.pos += 1
                self.line += 1
                self.line_start = self.pos
            elif c in " \t\r":
                self.pos += 1
            elif c == "/" and self.pos + 1 < end and text[self.pos + 1] == "/":
                nl = text.find("\n", self.pos, end)
                self.pos = end if nl < 0 else nl
            elif c == "/" and self.pos + 1 < end and text[self.pos + 1] == "*":
                self.block_comment()
            else:
                return

    def block_comment(self):
        text, end = self.text, self.end
        start = self.pos
        sp = self.span_at(start)
        depth = 0
        i = self.pos
        while i < end:
            c = text[i]
            if c == "/" and i + 1 < end and text[i + 1] == "*":
                depth += 1
                i += 2
            elif c == "*" and i + 1 < end and text[i + 1] == "/":
                depth -= 1
                i += 2
                if depth == 0:
                    self.pos = i
                    return
            elif c == "\n":
                i += 1
                self.line += 1
                self.line_start = i
            else:
                i += 1
        self.pos = end
        raise self.error("C1005", start, "unterminated block comment", sp)

    def next_token(self) -> Token:
        self.skip_space()
        text = self.text
        start = self.pos
        if start >= self.end:
            return Token("eof", "", None, self.line, start - self.line_start + 1, start, start)
        c = text[start]
        line, col = self.line, start - self.line_start + 1
        if c.isascii() and (c.isalpha() or c == "_"):
            if c == "b" and self.peek(1) == '"':
                return self.string(byte=True)
            return self.word()
        if c.isascii() and c.isdigit():
            return self.number()
        if c == '"':
            return self.string(byte=False)
        if c == "'":
            return self.char()
        for op in _OPS_BY_FIRST.get(c, ()):
            if text.startswith(op, start) and start + len(op) <= self.end:
                self.pos = start + len(op)
                return Token(op, op, None, line, col, start, self.pos)
        if not c.isascii():
            raise self.error("C1013", start, "the non-ASCII character U+%04X may appear only in string and "
                             "character literals and comments" % ord(c))
        raise self.error("C1050", start, "unexpected character %r" % c)

    # ------------------------------------------------------------------ identifiers

    def word(self) -> Token:
        text = self.text
        start = self.pos
        line, col = self.line, start - self.line_start + 1
        m = _IDENT_RE.match(text, start, self.end)
        w = m.group(0)
        self.pos = m.end()
        if len(w) > 255:
            raise self.error("C1012", start, "identifier of %d bytes; the limit is 255 (spec: LS-15)" % len(w))
        if _RESERVED_TYPE_RE.match(w):
            if w[0] == "Q":
                q = _QTYPE_TAIL_RE.match(text, self.pos, self.end)
                if q is not None:
                    self.pos = q.end()
                    name = text[start:self.pos]
                    return Token("qtype", name, name, line, col, start, self.pos)
            if w not in REAL_TYPE_NAMES:
                raise self.error("C1010", start, "`%s` is reserved for type names (spec: LS-17)" % w)
            return Token("ident", w, w, line, col, start, self.pos)
        if w in KEYWORDS:
            if w == "as" and self.pos < self.end and text[self.pos] in "%|?":
                self.pos += 1
                w = text[start:self.pos]
            return Token(w, w, None, line, col, start, self.pos)
        return Token("ident", w, w, line, col, start, self.pos)

    # ------------------------------------------------------------------ numbers

    def number(self) -> Token:
        text = self.text
        start = self.pos
        line, col = self.line, start - self.line_start + 1
        radix = 10
        pre = ""
        i = start
        if text[i] == "0" and i + 1 < self.end and text[i + 1] in "xXbBoOtT":
            p = text[i + 1]
            if p.isupper():
                self.pos = i + 2
                raise self.error("C1020", start, "the radix prefix is lowercase: write `0%s`" % p.lower())
            radix = {"x": 16, "b": 2, "o": 8, "t": 3}[p]
            pre = "0" + p
            i += 2
        m = _WORD_RE.match(text, i, self.end)
        body = m.group(0)
        i = m.end()
        self.validate_digits(body, radix, start, pre)
        if radix == 10 and len(body) > 1 and body[0] == "0":
            raise self.error("C1022", start, "a decimal literal does not begin with 0: write `%s` or `0o%s`"
                             % (body.lstrip("0_") or "0", body.lstrip("0_") or "0"))
        # A fraction: the point followed by a digit of the radix (LS-33, LS-34).
        frac = None
        if radix in (10, 16) and i + 1 < self.end and text[i] == "." and (
                text[i + 1].isdigit() if radix == 10 else _is_hex(text[i + 1])) and text[i + 1].isascii():
            m2 = _WORD_RE.match(text, i + 1, self.end)
            frac = m2.group(0)
            self.validate_digits(frac, radix, start, pre)
            i = m2.end()
        self.pos = i
        tok_text = text[start:i]
        int_value = self.digits_value(body, radix, start)
        if frac is None:
            return Token("int", tok_text, int_value, line, col, start, i)
        fd = frac.replace("_", "")
        value = Fraction(int_value) + Fraction(_digits_int(fd, radix), radix ** len(fd))
        return Token("frac", tok_text, value, line, col, start, i)

    def validate_digits(self, body: str, radix: int, start: int, pre: str):
        ok = {10: "0123456789", 16: "0123456789abcdefABCDEF", 2: "01", 8: "01234567", 3: "N0P"}[radix]
        if body == "":
            raise self.error("C1024", start, "the radix prefix `%s` has no digits" % pre)
        if body[0] == "_" or body[-1] == "_" or "__" in body:
            raise self.error("C1021", start, "a digit separator `_` stands alone between two digits")
        for ch in body:
            if ch != "_" and ch not in ok:
                raise self.error("C1024", start, "`%s` is not a digit of this literal's radix" % ch)

    def digits_value(self, body: str, radix: int, start: int) -> int:
        d = body.replace("_", "")
        if radix == 3:
            d = d.lstrip("0")
            if len(d) > 2600:
                raise self.error("C1023", start, "the literal's magnitude is over 4,096 bits (spec: LS-31)")
            v = 0
            for ch in d:
                v = v * 3 + (1 if ch == "P" else -1 if ch == "N" else 0)
        elif radix == 10:
            d = d.lstrip("0") or "0"
            if len(d) > _MAX_DEC_DIGITS:
                raise self.error("C1023", start, "the literal's magnitude is over 4,096 bits (spec: LS-31)")
            v = int(d)
        else:
            v = int(d, radix)
        if abs(v) > MAX_LITERAL:
            raise self.error("C1023", start, "the literal's magnitude is over 4,096 bits (spec: LS-31)")
        return v

    # ------------------------------------------------------------------ character and string literals

    def escape(self, i: int, kind: str):
        """Decode the escape whose backslash is at ``i``; returns (value, next index).

        ``kind`` is 'char', 'str' or 'bytes'.  The value is a code point
        (char, str) or a byte value (bytes).
        """
        text = self.text
        c = text[i + 1] if i + 1 < self.end else ""
        simple = {"\\": 0x5C, '"': 0x22, "'": 0x27, "n": 0x0A, "r": 0x0D, "t": 0x09, "0": 0x00}
        if c in simple and c != "":
            return simple[c], i + 2
        if c == "x":
            h = text[i + 2:i + 4] if i + 4 <= self.end else ""
            if len(h) == 2 and _is_hex(h[0]) and _is_hex(h[1]):
                v = int(h, 16)
                if v > 0x7F and kind != "bytes":
                    raise self.error("C1032", i, "`\\x%s` is outside 00 to 7F; write `\\u{%X}` for a character"
                                     % (h, v))
                return v, i + 4
            raise self.error("C1032", i, "`\\x` takes two hex digits")
        if c == "u" and kind != "bytes":
            if i + 2 < self.end and text[i + 2] == "{":
                j = i + 3
                while j < self.end and _is_hex(text[j]) and j - (i + 3) < 7:
                    j += 1
                digits = text[i + 3:j]
                if j < self.end and text[j] == "}" and 1 <= len(digits) <= 6:
                    v = int(digits, 16)
                    if 0xD800 <= v <= 0xDFFF or v > 0x10FFFF:
                        raise self.error("C1031", i, "`\\u{%s}` is not a Unicode scalar value" % digits)
                    return v, j + 1
            raise self.error("C1032", i, "`\\u` is written `\\u{H...}` with 1 to 6 hex digits")
        shown = c if c not in ("", "\n", "\r") else ""
        raise self.error("C1032", i, "unknown escape `\\%s`" % shown)

    def char(self) -> Token:
        text = self.text
        start = self.pos
        line, col = self.line, start - self.line_start + 1
        i = start + 1
        values = []
        while True:
            if i >= self.end or text[i] == "\n" or text.startswith("\r\n", i):
                raise self.error("C1038", start, "unterminated character literal")
            c = text[i]
            if c == "'":
                i += 1
                break
            if c == "\\":
                v, i = self.escape(i, "char")
                values.append(v)
            else:
                values.append(ord(c))
                i += 1
        self.pos = i
        if len(values) != 1:
            raise self.error("C1030", start, "a character literal holds exactly one character")
        return Token("char", text[start:i], values[0], line, col, start, i)

    def string(self, byte: bool) -> Token:
        text = self.text
        start = self.pos
        line, col = self.line, start - self.line_start + 1
        i = start + (2 if byte else 1)
        parts: list = []
        buf: list = []          # code points (str) or byte values (bytes)

        def flush():
            if buf:
                if byte:
                    parts.append(bytes(buf))
                else:
                    parts.append("".join(chr(x) for x in buf))
                buf.clear()

        while True:
            if i >= self.end:
                raise self.error("C1038", start, "unterminated string literal")
            c = text[i]
            if c == '"':
                i += 1
                break
            if c == "\n" or (c == "\r" and i + 1 < self.end and text[i + 1] == "\n"):
                raise self.error("C1034", start, "a string literal cannot contain a line break; write `\\n`")
            if c == "\\":
                v, i = self.escape(i, "bytes" if byte else "str")
                buf.append(v)
                continue
            if c == "}":
                if i + 1 < self.end and text[i + 1] == "}":
                    buf.append(ord("}"))
                    i += 2
                    continue
                raise self.error("C1039", i, "a lone `}` in a string is written `}}`")
            if c == "{":
                if i + 1 < self.end and text[i + 1] == "{":
                    buf.append(ord("{"))
                    i += 2
                    continue
                if byte:
                    raise self.error("C1033", i, "a byte string has no holes; write `{{` for a brace")
                j = i + 1
                while True:
                    if j >= self.end or text[j] == "\n" or text.startswith("\r\n", j):
                        raise self.error("C1035", i, "a hole is closed with `}` on the same line")
                    d = text[j]
                    if d == "}":
                        break
                    if d == '"' or d == "{":
                        raise self.error("C1035", i, "a hole expression cannot contain string literals or braces")
                    j += 1
                flush()
                parts.append(RawHole(text[i + 1:j], i + 1, self.line, i + 1 - self.line_start + 1,
                                     self.line, i - self.line_start + 1))
                i = j + 1
                continue
            if byte:
                buf.extend(c.encode("utf-8"))
            else:
                buf.append(ord(c))
            i += 1
        flush()
        self.pos = i
        if byte:
            return Token("bytes", text[start:i], b"".join(parts), line, col, start, i)
        return Token("str", text[start:i], parts, line, col, start, i)

    # ------------------------------------------------------------------ hole expressions

    def hole_tokens(self) -> List[Token]:
        """Tokens of a hole's text; a lexical error becomes a final ``junk`` token carrying it."""
        toks = []
        while True:
            try:
                t = self.next_token()
            except CompileError as e:
                t = Token("junk", "", e, e.span.line, e.span.column, self.err_index, self.err_index)
                toks.append(t)
                toks.append(Token("eof", "", None, t.line, t.col, t.offset, t.offset))
                return toks
            toks.append(t)
            if t.kind == "eof":
                return toks
