"""The parser of cint-core-1 (SPEC-04P.1 sections 5 to 13 and grammar 18.2 to 18.6).

:func:`parse_module` turns the bytes of one source file into an
:class:`ast.Module`.  It raises :class:`CompileError` for the first error:
lexical errors first (see :mod:`lexer`), then syntax errors in source order.

Positions follow LS-278 and the table of LS-313; every node's ``span`` is
the token its docstring in :mod:`ast` names.  The parser never recurses
without bound: blocks and expressions nest at most 256 deep (LS-311,
C9004), and ``else if`` chains are built iteratively.

Besides the dataclass fields, a few nodes carry extra attributes that later
phases may read with ``getattr``:

* ``VarDecl.stmt_span``: the first token of the declaration statement;
* ``ImportDecl.name_span`` (the alias, else the last path segment),
  ``ImportDecl.alias_span``, ``ImportDecl.selected_spans``;
* ``ForEach.var_span``, ``ForEach.index_span``;
* ``FuncDecl.size_param_spans``, ``KernelDecl.size_param_spans``;
* ``TestDecl.expect_fault_line`` (``expect_fault E at N``, else None);
* ``TypeName.type_args`` for ``Pool(T)``, ``Handle(T)`` and ``Arena(T)``.
"""
from __future__ import annotations

import re
import sys
from typing import List, Optional

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import first_span
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.syntax.lexer import BUILTIN_TYPE_NAMES, INT_TYPE_NAMES, KEYWORDS, Lexer, RawHole, Token, lex

__all__ = ["parse_module", "Parser", "MAX_NESTING"]

MAX_NESTING = 256          # LS-311: block and expression nesting
# Binary operators in one chain without parentheses (`1 + 1 + ... + 1`): the chain is a tree as deep as it
# is long, which every later phase walks recursively; beyond this it is C9004 (docs/language.md decision 32).
MAX_OPERATOR_CHAIN = 32768

ASSIGN_OPS = frozenset("= += -= *= /= %= <<= >>= &= |= ^= +%= -%= *%= <<%= +|= -|= *|=".split())
# the operator table (tokens, binding powers LS-149, families) is semantics/operators.py
from cint_compiler.semantics.operators import ARITH_OPS, BINARY_BP, CMP_OPS, CONV_OPS, SHIFT_OPS, UNARY_OPS  # noqa: E402
from cint_compiler.semantics.operators import BIT_OPS as BITWISE_OPS  # noqa: E402

_LANES_RE = re.compile(r"lanes[ \t]*\([ \t]*([A-Za-z0-9_]+)[ \t]*\)\Z")


def parse_module(source: bytes, path: str, name: str) -> A.Module:
    """Parse one source file; ``path`` is the module-relative path used in spans."""
    text, toks = lex(source, path)
    limit = sys.getrecursionlimit()
    if limit < 20000:
        sys.setrecursionlimit(20000)
    return Parser(text, toks, path).module(name)


def _describe(t: Token) -> str:
    if t.kind == "eof":
        return "the end of the file"
    if t.kind in ("int", "frac", "char"):
        return "the literal `%s`" % t.text
    if t.kind in ("str", "bytes"):
        return "a string literal"
    if t.kind == "ident":
        return "`%s`" % t.text
    if t.kind == "junk":
        return "an invalid token"
    return "`%s`" % t.text


class Parser:
    def __init__(self, text: str, toks: List[Token], path: str):
        self.text = text
        self.toks = toks
        self.path = path
        self.i = 0
        self.edepth = 0          # expression nesting
        self.bdepth = 0          # block nesting inside a function body
        self.incdec_ok = -1      # token index where a statement's `x++` place may start
        self.hole_ok = -1        # token index of a string literal that may hold holes

    # ------------------------------------------------------------------ token helpers

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = self.i + k
        if j >= len(self.toks):
            return self.toks[-1]
        return self.toks[j]

    def next(self) -> Token:
        t = self.toks[self.i]
        if t.kind == "junk":
            raise t.value
        if t.kind != "eof":
            self.i += 1
        return t

    def at(self, *kinds) -> bool:
        return self.toks[self.i].kind in kinds

    def accept(self, kind) -> Optional[Token]:
        if self.toks[self.i].kind == kind:
            return self.next()
        return None

    def sp(self, t: Token) -> Span:
        return Span(self.path, t.line, t.col)

    def err(self, code: str, where, msg: str) -> CompileError:
        if isinstance(where, Token):
            if where.kind == "junk":
                return where.value
            where = self.sp(where)
        return CompileError(code, where, msg)

    def unexpected(self, what: str) -> CompileError:
        t = self.tok
        return self.err("C1050", t, "expected %s, found %s" % (what, _describe(t)))

    def expect(self, kind: str, what: Optional[str] = None) -> Token:
        if self.tok.kind == kind:
            return self.next()
        raise self.unexpected(what or "`%s`" % kind)

    def ident(self, what: str = "a name") -> Token:
        if self.tok.kind == "ident":
            return self.next()
        raise self.unexpected(what)

    def enter(self, t: Token):
        self.edepth += 1
        if self.edepth > MAX_NESTING:
            raise self.err("C9004", t, "expression nesting is deeper than %d (LS-311)" % MAX_NESTING)

    def leave(self):
        self.edepth -= 1

    # ------------------------------------------------------------------ token-level lookahead

    def skip_balanced(self, j: int) -> Optional[int]:
        """``toks[j]`` opens a bracket; the index just past its match, or None."""
        depth = 0
        toks = self.toks
        n = len(toks)
        while j < n:
            k = toks[j].kind
            if k in ("(", "[", "{"):
                depth += 1
            elif k in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return j + 1
            elif k in ("eof", "junk"):
                return None
            j += 1
        return None

    def scan_type(self, j: int, depth: int = 0) -> Optional[int]:
        """If a type starts at token ``j``, the index just past it (no tokens consumed)."""
        toks = self.toks
        t = toks[j]
        if depth > 32:
            return None
        if t.kind == "(":
            j = self.scan_type(j + 1, depth + 1)
            if j is None or toks[j].kind != ",":
                return None
            while toks[j].kind == ",":
                j = self.scan_type(j + 1, depth + 1)
                if j is None:
                    return None
            return j + 1 if toks[j].kind == ")" else None
        if t.kind == "qtype":
            j += 1
        elif t.kind == "ident":
            j += 1
            while toks[j].kind == "." and toks[j + 1].kind == "ident":
                j += 2
            if t.text in ("Pool", "Handle", "Arena") and toks[j].kind == "(":
                j = self.skip_balanced(j)
                if j is None:
                    return None
            if toks[j].kind == "!":
                if toks[j + 1].kind == "void":
                    return j + 2
                return self.scan_type(j + 1, depth + 1)
        else:
            return None
        if toks[j].kind == "[":
            j = self.skip_balanced(j)
        return j

    def decl_ahead(self) -> Optional[str]:
        """'decl' when a type followed by a name starts here, 'kw' when a keyword follows the type."""
        j = self.scan_type(self.i)
        if j is None:
            return None
        k = self.toks[j].kind
        if k == "ident":
            return "decl"
        if k in KEYWORDS:
            return "kw"
        return None

    # ------------------------------------------------------------------ types

    def parse_type(self) -> A.TypeExpr:
        t = self.tok
        if t.kind == "(":
            self.next()
            self.enter(t)
            items = [self.parse_type()]
            while self.accept(","):
                items.append(self.parse_type())
            self.expect(")")
            self.leave()
            if len(items) < 2:
                raise self.err("C1050", t, "a tuple type lists at least two types")
            return A.TupleTypeExpr(items, span=self.sp(t))
        elem = self.elem_type()
        if self.at("!"):
            bang = self.next()
            if self.at("void"):
                self.next()
                return A.ErrorUnionTypeExpr(elem, None, span=elem.span)
            self.enter(bang)
            value = self.parse_type()
            self.leave()
            return A.ErrorUnionTypeExpr(elem, value, span=elem.span)
        if self.at("["):
            return self.shape(elem)
        return elem

    def elem_type(self) -> A.TypeName:
        t = self.tok
        if t.kind == "qtype":
            self.next()
            return A.TypeName([t.text], span=self.sp(t))
        if t.kind == "ident":
            self.next()
            parts, spans = [t.text], [self.sp(t)]
            while self.at(".") and self.peek().kind == "ident":
                self.next()
                pt = self.next()
                parts.append(pt.text)
                spans.append(self.sp(pt))
            tn = A.TypeName(parts, span=self.sp(t))
            if len(parts) > 1:
                tn.part_spans = spans      # the checker positions a diagnostic at a later part (C3007)
            if len(parts) == 1 and parts[0] in ("Pool", "Handle", "Arena") and self.at("("):
                lp = self.next()
                self.enter(lp)
                tn.type_args = [self.parse_type()]
                if parts[0] != "Handle" and self.at(","):
                    # `Arena(T, N)` / `Pool(T, N)`: a container declaration's capacity (module level only)
                    self.next()
                    tn.capacity = self.expr()
                self.expect(")")
                self.leave()
            return tn
        raise self.unexpected("a type")

    def shape(self, elem: A.TypeExpr) -> A.ArrayTypeExpr:
        b = self.next()
        self.enter(b)
        dims = []
        if self.at("]"):
            dims.append(A.Dim(any=True, span=self.sp(self.tok)))
        else:
            while True:
                dims.append(self.dim())
                if not self.accept(","):
                    break
        self.expect("]")
        self.leave()
        return A.ArrayTypeExpr(elem, dims, span=elem.span)

    def dim(self) -> A.Dim:
        t = self.tok
        if t.kind == "ident" and t.text == "_" and self.peek().kind in (",", "]"):
            self.next()
            return A.Dim(any=True, span=self.sp(t))
        e = self.expr()
        if self.at("..", "..="):
            op = self.next()
            hi = self.expr()
            return A.Dim(expr=hi, lower=e, inclusive=op.kind == "..=", span=self.sp(t))
        return A.Dim(expr=e, span=self.sp(t))

    def conv_target(self) -> A.TypeExpr:
        return self.elem_type()

    # ------------------------------------------------------------------ expressions

    def expr(self, allow_cond: bool = True) -> A.Expr:
        e = self.cond_expr(allow_cond)
        if self.at("catch"):
            ct = self.next()
            if self.at("(") and self.peek(1).kind == "ident" and self.peek(2).kind == ")" \
                    and self.peek(3).kind == "{":
                self.next()
                name = self.next().text
                self.next()
                self.enter(ct)
                block = self.block()
                self.leave()
                return A.Catch(e, binding=name, block=block, span=self.sp(ct))
            self.enter(ct)
            v = self.cond_expr(allow_cond)
            self.leave()
            return A.Catch(e, value=v, span=self.sp(ct))
        return e

    def cond_expr(self, allow_cond: bool = True) -> A.Expr:
        c = self.binary(1)
        if self.at("?") and allow_cond:
            q = self.next()
            self.enter(q)
            then = self.expr()
            self.expect(":")
            other = self.cond_expr()
            self.leave()
            return A.Cond(c, then, other, span=self.sp(q))
        return c

    def binary(self, min_bp: int) -> A.Expr:
        left = self.conv_expr()
        count = 0
        while True:
            op = self.tok.kind
            bp = BINARY_BP.get(op)
            if bp is None or bp < min_bp:
                return left
            count += 1
            if count > MAX_OPERATOR_CHAIN:
                raise self.err("C9004", self.tok, "more than %d binary operators in one chain, this implementation's "
                               "limit (docs/language.md decision 32); split the expression with intermediate "
                               "variables" % MAX_OPERATOR_CHAIN)
            optok = self.next()
            right = self.binary(bp + 1)
            node = A.Binary(op, left, right, span=self.sp(optok))
            self.check_mix(node)
            left = node

    def check_mix(self, node: A.Binary):
        op = node.op
        lo = node.left.op if isinstance(node.left, A.Binary) else None
        ro = node.right.op if isinstance(node.right, A.Binary) else None
        if op in CMP_OPS and (lo in CMP_OPS or ro in CMP_OPS):
            raise self.err("C2102", first_span(node), "comparisons are not chained; write "
                           "`a < b && b < c` (LS-153)")
        if op in ("&&", "||") and (lo in ("&&", "||") and lo != op or ro in ("&&", "||") and ro != op):
            raise self.err("C2101", first_span(node), "`&&` and `||` in one expression need parentheses (LS-151)")
        if op in SHIFT_OPS and (lo in ARITH_OPS or ro in ARITH_OPS):
            raise self.err("C2101", first_span(node), "a shift with an arithmetic operand needs parentheses "
                           "(LS-151)")
        if op in BITWISE_OPS:
            if lo in ARITH_OPS or ro in ARITH_OPS:
                raise self.err("C2101", first_span(node), "a bitwise operator with an arithmetic operand needs "
                               "parentheses (LS-151)")
            if (lo in BITWISE_OPS and lo != op) or (ro in BITWISE_OPS and ro != op):
                raise self.err("C2101", first_span(node), "two different bitwise operators need parentheses "
                               "(LS-151)")

    def conv_expr(self) -> A.Expr:
        e = self.unary()
        while self.tok.kind in CONV_OPS:
            at = self.next()
            if isinstance(e, A.Unary):
                raise self.err("C2101", e.span, "a unary `%s` directly followed by a conversion needs parentheses: "
                               "`(%sx) %s T` or `%s(x %s T)` (LS-151)" % (e.op, e.op, at.kind, e.op, at.kind))
            target = self.conv_target()
            rnd = self.round_clause()
            e = A.Convert(at.kind, e, target, rnd, span=self.sp(at))
        return e

    def round_clause(self) -> Optional[str]:
        if self.tok.kind == "ident" and self.tok.text == "round" and self.peek().kind == "ident":
            self.next()
            return self.next().text
        return None

    def unary(self) -> A.Expr:
        t = self.tok
        k = t.kind
        if k == "-":
            nt = self.peek()
            if nt.kind in ("int", "char", "frac"):
                self.next()
                self.next()
                if nt.kind == "frac":
                    return A.FracLit(-nt.value, text="-" + nt.text, round=self.round_clause(), negative=True,
                                     span=self.sp(t))
                return A.IntLit(-nt.value, text="-" + nt.text, is_char=nt.kind == "char", negative=True,
                                span=self.sp(t))
        if k in UNARY_OPS or k == "try":
            self.next()
            self.enter(t)
            operand = self.unary()
            self.leave()
            if k == "try":
                return A.Try(operand, span=self.sp(t))
            return A.Unary(k, operand, span=self.sp(t))
        return self.postfix()

    def postfix(self) -> A.Expr:
        start = self.i
        e = self.primary()
        while True:
            k = self.tok.kind
            if k == "(":
                e = self.call(e)
            elif k == "[":
                e = self.index(e)
            elif k == "." and self.peek().kind == "ident":
                self.next()
                nt = self.next()
                e = A.Member(e, nt.text, span=self.sp(nt))
            else:
                break
        if self.tok.kind in ("++", "--") and start != self.incdec_ok:
            # at the operator: the offending construct is the `++`/`--` (LS-313 row C1042), as the public
            # suite's frozen diag/c1042_increment_in_expression has it (docs/language.md decision 22)
            raise self.err("C1042", self.sp(self.tok), "`%s` is a statement, not an expression (LS-166)"
                           % self.tok.kind)
        return e

    def call(self, callee: A.Expr) -> A.Call:
        lp = self.next()
        self.enter(lp)
        is_format = isinstance(callee, A.Name) and callee.ident == "format"
        args = []
        while not self.at(")"):
            args.append(self.arg(is_format))
            if not self.accept(","):
                break
        self.expect(")", "`,` or `)`")
        self.leave()
        if isinstance(callee, (A.Name, A.Member, A.TypeMember)):
            span = callee.span
        else:
            span = self.sp(lp)
        return A.Call(callee, args, span=span)

    def arg(self, is_format: bool = False) -> A.Arg:
        t = self.tok
        if t.kind == "ident" and self.peek().kind == "=":
            self.next()
            self.next()
            v = self.expr()
            return A.Arg(v, name=t.text, span=self.sp(t))
        if (t.kind == "qtype" or (t.kind == "ident" and t.text in BUILTIN_TYPE_NAMES)) \
                and self.peek().kind != ".":
            ty = self.parse_type()
            return A.Arg(ty, span=self.sp(t))
        if is_format and t.kind == "str":
            self.hole_ok = self.i
        v = self.expr()
        return A.Arg(v, span=first_span(v))

    def index(self, base: A.Expr) -> A.Index:
        lb = self.next()
        self.enter(lb)
        items = []
        while True:
            items.append(self.index_item())
            if not self.accept(","):
                break
        self.expect("]", "`,` or `]`")
        self.leave()
        return A.Index(base, items, span=self.sp(lb))

    def index_item(self):
        t = self.tok
        lo = None
        if not self.at("..", "..="):
            lo = self.expr()
        if self.at("..", "..="):
            op = self.next()
            hi = None
            if not self.at("]", ",", "by"):
                hi = self.expr()
            step = None
            if self.accept("by"):
                step = self.expr()
            return A.SliceItem(lo, hi, inclusive=op.kind == "..=", step=step, span=self.sp(t))
        return lo

    def primary(self) -> A.Expr:
        t = self.tok
        k = t.kind
        if k in ("int", "char"):
            self.next()
            return A.IntLit(t.value, text=t.text, is_char=k == "char", span=self.sp(t))
        if k == "frac":
            self.next()
            return A.FracLit(t.value, text=t.text, round=self.round_clause(), span=self.sp(t))
        if k == "str":
            return self.string_lit()
        if k == "bytes":
            parts = []
            while self.at("bytes"):
                parts.append(self.next().value)
            return A.StrLit([b"".join(parts)], is_bytes=True, span=self.sp(t))
        if k in ("true", "false"):
            self.next()
            return A.BoolLit(k == "true", span=self.sp(t))
        if k == "ident":
            self.next()
            if t.text in BUILTIN_TYPE_NAMES and self.at(".") and self.peek().kind == "ident":
                self.next()
                nt = self.next()
                return A.TypeMember(A.TypeName([t.text], span=self.sp(t)), nt.text, span=self.sp(t))
            return A.Name(t.text, span=self.sp(t))
        if k == "qtype":
            self.next()
            if self.at(".") and self.peek().kind == "ident":
                self.next()
                nt = self.next()
                return A.TypeMember(A.TypeName([t.text], span=self.sp(t)), nt.text, span=self.sp(t))
            raise self.unexpected("`.` and a member name after the type `%s`" % t.text)
        if k == "(":
            self.next()
            self.enter(t)
            e = self.expr()
            if self.at(","):
                items = [e]
                while self.accept(","):
                    if self.at(")"):
                        break
                    items.append(self.expr())
                self.expect(")", "`,` or `)`")
                self.leave()
                return A.TupleExpr(items, span=self.sp(t))
            self.expect(")")
            self.leave()
            return A.Paren(e, span=self.sp(t))
        if k == "[":
            self.next()
            self.enter(t)
            items = []
            while not self.at("]"):
                items.append(self.expr())
                if not self.accept(","):
                    break
            self.expect("]", "`,` or `]`")
            self.leave()
            return A.ArrayLit(items, span=self.sp(t))
        if k == "." and self.peek().kind == "ident":
            self.next()
            nt = self.next()
            return A.DotName(nt.text, span=self.sp(t))
        raise self.unexpected("an expression")

    # ------------------------------------------------------------------ strings and holes

    def string_lit(self) -> A.StrLit:
        """One or more adjacent string literals (LS-45)."""
        start = self.i
        toks = []
        while self.at("str"):
            toks.append(self.next())
        holes = [p for t in toks for p in t.value if isinstance(p, RawHole)]
        if holes and self.hole_ok != start:
            h = holes[0]
            raise self.err("C1033", Span(self.path, h.brace_line, h.brace_col),
                           "a hole is permitted only in a print statement, a `format` call or an `assert` "
                           "message; write `{{` for a literal brace (LS-44)")
        parts: list = []
        for t in toks:
            for p in t.value:
                if isinstance(p, RawHole):
                    parts.append(self.hole(p))
                elif parts and isinstance(parts[-1], str):
                    parts[-1] = parts[-1] + p
                else:
                    parts.append(p)
        if not parts:
            parts = [""]
        return A.StrLit(parts, span=self.sp(toks[0]))

    def plain_string(self, what: str):
        """A string literal without holes (test names, the profile, static_assert messages)."""
        if not self.at("str"):
            raise self.unexpected(what)
        save = self.hole_ok
        self.hole_ok = -1
        s = self.string_lit()
        self.hole_ok = save
        return s

    def hole(self, raw: RawHole) -> A.Hole:
        brace = Span(self.path, raw.brace_line, raw.brace_col)

        def bad(msg):
            return CompileError("C1035", brace, msg)

        lx = Lexer(self.text, self.path, raw.offset, raw.line, raw.col, end=raw.offset + len(raw.text), hole=True)
        htoks = lx.hole_tokens()
        saved = (self.toks, self.i, self.incdec_ok, self.hole_ok)
        self.toks, self.i, self.incdec_ok, self.hole_ok = htoks, 0, -1, -1
        try:
            t0 = self.tok
            if t0.kind == "junk":
                raise t0.value
            if t0.kind == "eof":
                raise bad("a hole holds an expression")
            try:
                e = self.expr(allow_cond=False)
            except CompileError as ex:
                if ex.code == "C1050":
                    raise bad("this hole does not begin with an expression: %s" % ex.message) from None
                raise
            nt = self.tok
            if nt.kind == "?":
                raise bad("a conditional expression in a hole is parenthesized: `{(c ? a : b)}` (LS-199)")
            pos = nt.offset - raw.offset
        finally:
            self.toks, self.i, self.incdec_ok, self.hole_ok = saved
        text = raw.text
        rest = text[pos:]
        r = rest.lstrip(" \t")
        eq = False
        source = text[:pos]
        if r.startswith("="):
            eq = True
            source = text[:pos + (len(rest) - len(r))]
            r = r[1:].lstrip(" \t")
        conv = None
        spec = None
        if r.startswith("!"):
            body = r[1:]
            cut = body.find(":")
            conv = (body if cut < 0 else body[:cut]).strip(" \t")
            r = "" if cut < 0 else body[cut:]
            if conv not in ("bits", "raw", "ratio"):
                m = _LANES_RE.match(conv)
                if m is None or m.group(1) not in INT_TYPE_NAMES:
                    raise bad("unknown hole conversion `!%s`; the conversions are `!bits`, `!raw`, `!ratio` "
                              "and `!lanes(T)` (LS-201)" % conv)
        if r.startswith(":"):
            spec = r[1:]
            r = ""
        if r.strip(" \t"):
            raise bad("unexpected `%s` in a hole; a hole is `{expr=!conv:spec}` (LS-198)" % r.strip())
        return A.Hole(e, source, eq=eq, conv=conv, spec=spec, span=brace)

    # ------------------------------------------------------------------ statements

    def block(self, counted: bool = True) -> A.Block:
        lb = self.expect("{")
        if counted:
            self.bdepth += 1
            if self.bdepth > MAX_NESTING:
                raise self.err("C9004", lb, "blocks nest deeper than %d (LS-311)" % MAX_NESTING)
        stmts = []
        while not self.at("}"):
            if self.at("eof"):
                raise self.unexpected("`}`")
            stmts.append(self.statement())
        self.next()
        if counted:
            self.bdepth -= 1
        return A.Block(stmts, span=self.sp(lb))

    def body_block(self) -> A.Block:
        """The braced body of if/while/do/for (LS-168)."""
        t = self.tok
        if t.kind == "{":
            return self.block()
        if t.kind == ";":
            raise self.err("C1040", t, "there is no empty statement; write `{ }` (LS-163)")
        if t.kind == "junk":
            raise t.value
        raise self.err("C1043", t, "braces around the body are required (LS-168)")

    def paren_cond(self) -> A.Expr:
        t = self.tok
        if t.kind != "(":
            if t.kind == "junk":
                raise t.value
            raise self.err("C1043", t, "parentheses around the condition are required (LS-168)")
        self.next()
        cond = self.expr()
        if self.tok.kind in ASSIGN_OPS:
            raise self.err("C1041", first_span(cond), "assignment is a statement, not an expression; "
                           "write `==` to compare (LS-164)")
        self.expect(")")
        return cond

    def statement(self) -> A.Stmt:
        t = self.tok
        k = t.kind
        if k == "{":
            return self.block()
        if k == ";":
            raise self.err("C1040", t, "there is no empty statement (LS-163)")
        if k == "const":
            return self.const_decl()
        if k == "var":
            return self.var_stmt()
        if k in ("in", "inout"):
            self.next()
            ty = self.parse_type()
            return self.var_rest(ty, t, mode=k)
        if k == "if":
            return self.if_stmt()
        if k in ("while", "do", "for"):
            return self.loop(None)
        if k == "ident" and self.peek().kind == ":" and self.peek(2).kind in ("while", "do", "for"):
            self.next()
            self.next()
            return self.loop(t.text)
        if k == "switch":
            return self.switch_stmt()
        if k in ("break", "continue"):
            self.next()
            label = None
            if self.at("ident"):
                label = self.next().text
            self.expect(";")
            cls = A.Break if k == "break" else A.Continue
            return cls(label, span=self.sp(t))
        if k == "return":
            self.next()
            v = None
            if not self.at(";"):
                v = self.expr()
            self.expect(";")
            return A.Return(v, span=self.sp(t))
        if k == "fallthrough":
            self.next()
            self.expect(";")
            return A.Fallthrough(span=self.sp(t))
        if k in ("defer", "errdefer"):
            self.next()
            if self.at("{"):
                s = self.block()
            else:
                s = self.simple_stmt()
                self.expect(";")
            return A.Defer(s, is_err=k == "errdefer", span=self.sp(t))
        if k == "assert":
            return self.assert_stmt()
        if k == "static_assert":
            return self.static_assert()
        if k == "reduce":
            self.next()
            target = self.ident("the name of a scalar `out` parameter")
            self.expect("=")
            e = self.postfix()
            if not isinstance(e, A.Call):
                raise self.err("C1050", first_span(e), "`reduce` takes a reduction call such as `sum(e)`")
            self.expect(";")
            return A.Reduce(target.text, e, span=self.sp(t))
        if k == "expect_fault":
            raise self.err("C3021", t, "`expect_fault` belongs in a test header: "
                           "`test \"name\" expect_fault E_NAME { ... }` (LS-237)")
        if k == "str":
            j = self.i
            while self.toks[j].kind == "str":
                j += 1
            if self.toks[j].kind == ";":
                self.hole_ok = self.i
                s = self.string_lit()
                self.expect(";")
                return A.Print(s, span=self.sp(t))
        if k == "(":
            d = self.destructure_ahead()
            if d is not None:
                self.expect(";")
                return d
        la = self.decl_ahead()
        if la == "decl":
            ty = self.parse_type()
            if isinstance(ty, A.TypeName) and ty.capacity is not None:
                raise self.err("C4012", t, "an arena or pool is declared at module level, not in a body")
            if self.peek().kind in ("(", "["):
                raise self.err("C1050", self.peek(), "a function is declared at the top level of a module")
            return self.var_rest(ty, t)
        if la == "kw":
            raise self.err("C4012", t, "this is not a statement: a keyword stands where a name is expected "
                           "(LS-167)")
        s = self.simple_stmt()
        self.expect(";")
        return s

    def simple_stmt(self) -> A.Stmt:
        t = self.tok
        k = t.kind
        if k == "in_place":
            self.next()
            e = self.expr()
            if not isinstance(e, A.Call):
                raise self.err("C1050", first_span(e), "`in_place` takes a kernel dispatch")
            return A.ExprStmt(e, in_place=True, span=self.sp(t))
        if k == "ident" and t.text == "_" and self.peek().kind == "=":
            self.next()
            self.next()
            return A.Discard(self.expr(), span=self.sp(t))
        if k == "(":
            d = self.destructure_ahead(allow_declare=False)
            if d is not None:
                return d
        self.incdec_ok = self.i
        e = self.expr()
        self.incdec_ok = -1
        nk = self.tok.kind
        if nk in ASSIGN_OPS:
            op = self.next()
            v = self.expr()
            return A.Assign(op.kind, e, v, span=self.sp(op))
        if nk in ("++", "--"):
            op = self.next()
            return A.IncDec(op.kind, e, span=self.sp(op))
        if self._call_like(e) or isinstance(e, (A.Name, A.Member)):
            return A.ExprStmt(e, span=self.sp(t))
        if nk in (";", ")"):
            raise self.err("C4012", t, "only calls, assignments, increments, declarations and prints stand as "
                           "statements (LS-167)")
        raise self.unexpected("`;`")

    @staticmethod
    def _call_like(e) -> bool:
        while True:
            if isinstance(e, A.Call):
                return True
            if isinstance(e, A.Try):
                e = e.operand
            elif isinstance(e, A.Catch):
                e = e.operand
            else:
                return False

    def destructure_ahead(self, allow_declare: bool = True) -> Optional[A.Destructure]:
        """``(a, b) = e;`` or ``(I64 q, I64 r) = e;`` when the parenthesized list is followed by ``=``."""
        j = self.skip_balanced(self.i)
        if j is None or self.toks[j].kind != "=":
            return None
        # Split the list at top-level commas and look for a typed bind.
        items = []
        k = self.i + 1
        begin = k
        depth = 0
        while k < j - 1:
            kind = self.toks[k].kind
            if kind in ("(", "[", "{"):
                depth += 1
            elif kind in (")", "]", "}"):
                depth -= 1
            elif kind == "," and depth == 0:
                items.append(begin)
                begin = k + 1
            k += 1
        items.append(begin)
        declare = False
        for b in items:
            e = self.scan_type(b)
            if e is not None and self.toks[e].kind == "ident":
                declare = True
        if declare and not allow_declare:
            return None
        self.next()  # (
        binds = self.binds(declare)
        self.expect(")")
        eq = self.expect("=")
        v = self.expr()
        return A.Destructure(binds, v, declare=declare, span=self.sp(eq))

    def binds(self, declare: bool, names_only: bool = False) -> List[A.Bind]:
        binds = []
        while True:
            t = self.tok
            if t.kind == "ident" and t.text == "_" and self.peek().kind in (",", ")"):
                self.next()
                binds.append(A.Bind(span=self.sp(t)))
            elif names_only:
                n = self.ident()
                binds.append(A.Bind(name=n.text, span=self.sp(n)))
            elif declare:
                j = self.scan_type(self.i)
                if j is not None and self.toks[j].kind == "ident":
                    ty = self.parse_type()
                    n = self.ident()
                    binds.append(A.Bind(type=ty, name=n.text, span=self.sp(n)))
                else:
                    n = self.ident()
                    binds.append(A.Bind(name=n.text, span=self.sp(n)))
            else:
                p = self.expr()
                name = p.ident if isinstance(p, A.Name) else None
                binds.append(A.Bind(name=name, place=p, span=first_span(p)))
            if not self.accept(","):
                return binds

    def const_decl(self) -> A.VarDecl:
        t = self.next()
        ty = self.parse_type()
        return self.var_rest(ty, t, is_const=True)

    def var_stmt(self):
        t = self.next()
        if self.at("("):
            self.next()
            binds = self.binds(True, names_only=True)
            self.expect(")")
            eq = self.expect("=")
            v = self.expr()
            self.expect(";")
            return A.Destructure(binds, v, declare=True, span=self.sp(eq))
        return self.var_rest(None, t)

    def var_rest(self, ty, stmt_tok: Token, is_const: bool = False, mode: Optional[str] = None,
                 semicolon: bool = True) -> A.VarDecl:
        nt = self.tok
        if nt.kind != "ident":
            if nt.kind in KEYWORDS:
                raise self.err("C4012", stmt_tok, "`%s` is a keyword and cannot be declared (LS-167)" % nt.kind)
            raise self.unexpected("a name")
        self.next()
        init = None
        eq_span = None
        if self.at("="):
            eq_span = self.sp(self.next())
            init = self.expr()
        if semicolon:
            self.expect(";", "`=` or `;`" if init is None else "`;`")
        d = A.VarDecl(ty, nt.text, init, is_const=is_const, mode=mode, eq_span=eq_span, span=self.sp(nt))
        d.stmt_span = self.sp(stmt_tok)
        return d

    def if_stmt(self) -> A.If:
        root = None
        prev = None
        while True:
            it = self.next()
            cond = self.paren_cond()
            then = self.body_block()
            node = A.If(cond, then, None, span=self.sp(it))
            if prev is None:
                root = node
            else:
                prev.other = node
            prev = node
            if self.at("else"):
                self.next()
                if self.at("if"):
                    continue
                prev.other = self.body_block()
            return root

    def loop(self, label: Optional[str]) -> A.Stmt:
        t = self.next()
        sp = self.sp(t)
        if t.kind == "while":
            cond = self.paren_cond()
            body = self.body_block()
            return A.While(cond, body, label, span=sp)
        if t.kind == "do":
            body = self.body_block()
            self.expect("while")
            cond = self.paren_cond()
            self.expect(";")
            return A.DoWhile(body, cond, label, span=sp)
        # for
        if self.at("("):
            self.next()
            init = None
            if not self.at(";"):
                st = self.tok
                if self.decl_ahead() == "decl":
                    ty = self.parse_type()
                    init = self.var_rest(ty, st, semicolon=False)
                else:
                    init = self.simple_stmt()
            self.expect(";")
            cond = self.expr()
            if self.tok.kind in ASSIGN_OPS:
                raise self.err("C1041", first_span(cond), "assignment is a statement, not an expression (LS-164)")
            self.expect(";")
            update = None
            if not self.at(")"):
                update = self.simple_stmt()
            self.expect(")")
            body = self.body_block()
            return A.ForC(init, cond, update, body, label, span=sp)
        v1 = self.tok
        if v1.kind != "ident" or self.peek().kind not in ("in", ","):
            if v1.kind == "junk":
                raise v1.value
            raise self.err("C1043", v1, "a `for` loop is `for (init; cond; step) { }` or `for x in ... { }` "
                           "(LS-168)")
        self.next()
        v2 = None
        if self.accept(","):
            v2 = self.ident("the element variable")
        self.expect("in")
        lo = self.expr()
        if self.at("..", "..="):
            op = self.next()
            if v2 is not None:
                raise self.err("C1050", op, "a range loop binds one variable")
            hi = self.expr()
            step = None
            if self.accept("by"):
                step = self.expr()
            body = self.body_block()
            return A.ForRange(None if v1.text == "_" else v1.text, lo, hi, op.kind == "..=", step, body, label,
                              var_span=self.sp(v1), span=sp)
        body = self.body_block()
        if v2 is not None:
            node = A.ForEach(None if v1.text == "_" else v1.text, None if v2.text == "_" else v2.text, lo, body,
                             label, span=sp)
            node.index_span = self.sp(v1)
            node.var_span = self.sp(v2)
        else:
            node = A.ForEach(None, None if v1.text == "_" else v1.text, lo, body, label, span=sp)
            node.index_span = None
            node.var_span = self.sp(v1)
        return node

    def switch_stmt(self) -> A.Switch:
        st = self.next()
        self.expect("(")
        scrut = self.expr()
        self.expect(")")
        lb = self.expect("{")
        self.bdepth += 1
        if self.bdepth > MAX_NESTING:
            raise self.err("C9004", lb, "blocks nest deeper than %d (LS-311)" % MAX_NESTING)
        cases = []
        default = None
        default_span = None
        while not self.at("}"):
            t = self.tok
            if t.kind == "case":
                if default is not None:
                    raise self.err("C4025", t, "`default` is the last clause of a switch (LS-183)")
                self.next()
                items = []
                while True:
                    lo = self.expr(allow_cond=False)
                    if self.at(".."):
                        raise self.err("C4022", first_span(lo), "a case range is inclusive: write `lo..=hi` "
                                       "(LS-177)")
                    if self.accept("..="):
                        hi = self.expr(allow_cond=False)
                        items.append((lo, hi))
                    else:
                        items.append(lo)
                    if not self.accept(","):
                        break
                self.expect(":", "`,` or `:`")
                body = self.case_body()
                if not body:
                    raise self.err("C4023", t, "a case clause has a body; merge its items into the next clause "
                                   "(LS-179)")
                cases.append(A.Case(items, body, span=self.sp(t)))
            elif t.kind == "default":
                if default is not None:
                    raise self.err("C4025", t, "a switch has one `default` (LS-183)")
                self.next()
                self.expect(":")
                body = self.case_body()
                if not body:
                    raise self.err("C4023", t, "a default clause has a body (LS-179)")
                default = body
                default_span = self.sp(t)
            else:
                raise self.unexpected("`case`, `default` or `}`")
        self.next()
        self.bdepth -= 1
        return A.Switch(scrut, cases, default, default_span, span=self.sp(st))

    def case_body(self) -> List[A.Stmt]:
        body = []
        while not self.at("case", "default", "}"):
            if self.at("eof"):
                raise self.unexpected("`}`")
            body.append(self.statement())
        return body

    def assert_stmt(self) -> A.Assert:
        self.next()
        self.expect("(")
        cond = self.expr()
        msg = None
        if self.accept(","):
            if not self.at("str"):
                raise self.unexpected("a string literal")
            self.hole_ok = self.i
            msg = self.string_lit()
        self.expect(")", "`,` or `)`")
        self.expect(";")
        return A.Assert(cond, msg, span=first_span(cond))

    def static_assert(self) -> A.StaticAssert:
        t = self.next()
        self.expect("(")
        cond = self.expr()
        msg = None
        if self.accept(","):
            msg = self.plain_string("a string literal")
        self.expect(")", "`,` or `)`")
        self.expect(";")
        return A.StaticAssert(cond, msg, span=self.sp(t))

    # ------------------------------------------------------------------ module and declarations

    def module(self, name: str) -> A.Module:
        mod = A.Module(self.path, name, source=self.text, span=Span(self.path, 1, 1))
        if self.at("profile"):
            self.next()
            s = self.plain_string("the profile name")
            mod.profile = "".join(p for p in s.parts if isinstance(p, str))
            self.expect(";")
        while not self.at("eof"):
            if self.at("import"):
                if mod.items:
                    raise self.err("C3012", self.tok, "`import` declarations come before any other item (LS-226)")
                mod.imports.append(self.import_decl())
                continue
            mod.items.append(self.top_item())
        if self.tok.kind == "junk":
            raise self.tok.value
        return mod

    def import_decl(self) -> A.ImportDecl:
        self.next()
        first = self.ident("a module path")
        path = [first.text]
        last = first
        selected = None
        selected_spans = None
        while self.accept("."):
            if self.at("{"):
                self.next()
                selected = []
                selected_spans = []
                while not self.at("}"):
                    n = self.ident()
                    selected.append(n.text)
                    selected_spans.append(self.sp(n))
                    if not self.accept(","):
                        break
                self.expect("}", "`,` or `}`")
                break
            last = self.ident("a module path segment")
            path.append(last.text)
        alias = None
        alias_tok = None
        if selected is None and self.accept("as"):
            alias_tok = self.ident("an alias name")
            alias = alias_tok.text
        self.expect(";")
        d = A.ImportDecl(path, alias, selected, span=self.sp(first))
        d.name_span = self.sp(alias_tok or last)
        d.alias_span = self.sp(alias_tok) if alias_tok else None
        d.selected_spans = selected_spans
        return d

    def attribute(self) -> A.Attribute:
        at = self.next()
        n = self.ident("an attribute name")
        args = []
        if self.at("("):
            lp = self.next()
            self.enter(lp)
            while not self.at(")"):
                args.append(self.arg())
                if not self.accept(","):
                    break
            self.expect(")", "`,` or `)`")
            self.leave()
        return A.Attribute(n.text, args, span=self.sp(at))

    def top_item(self) -> A.Node:
        attrs = []
        while self.at("@"):
            attrs.append(self.attribute())
        exported = self.accept("export") is not None
        t = self.tok
        k = t.kind
        decorated = exported or bool(attrs)

        def finish(d):
            d.exported = exported
            d.attrs = attrs
            return d

        if k == "test":
            return finish(self.test_decl())
        if k == "static_assert":
            if decorated:
                raise self.unexpected("a declaration")
            return self.static_assert()
        if k == "struct":
            return finish(self.struct_decl())
        if k == "enum":
            return finish(self.enum_decl())
        if k == "error":
            return finish(self.error_decl())
        if k == "type":
            return finish(self.type_decl())
        if k == "kernel":
            return finish(self.kernel_decl())
        if k == "schedule":
            raise self.err("C9102", t, "`schedule` declarations are not supported by this implementation")
        if k == "const":
            d = self.const_decl()
            return finish(A.GlobalDecl(d.name, decl=d, span=d.span))
        if k == "var":
            d = self.var_stmt()
            if isinstance(d, A.VarDecl):
                return finish(A.GlobalDecl(d.name, decl=d, span=d.span))
            if decorated:
                raise self.err("C1050", t, "a destructuring is not a declaration that can be exported")
            return d
        if k == "void":
            self.next()
            name = self.ident("a function name")
            return finish(self.func_rest(A.VoidTypeExpr(span=self.sp(t)), None, name))
        if k in ("in", "inout"):
            self.next()
            ty = self.parse_type()
            if self.tok.kind == "ident" and self.peek().kind in ("(", "["):
                name = self.next()
                return finish(self.func_rest(ty, k, name))
            d = self.var_rest(ty, t, mode=k)
            return finish(A.GlobalDecl(d.name, decl=d, span=d.span))
        la = self.decl_ahead()
        if la == "decl":
            ty = self.parse_type()
            if self.tok.kind == "ident" and self.peek().kind in ("(", "["):
                name = self.next()
                return finish(self.func_rest(ty, None, name))
            if isinstance(ty, A.TypeName) and ty.capacity is not None:
                return finish(self.container_decl(ty, t))
            d = self.var_rest(ty, t)
            return finish(A.GlobalDecl(d.name, decl=d, span=d.span))
        if decorated:
            if la == "kw":
                raise self.err("C4012", t, "a keyword stands where a name is expected (LS-167)")
            raise self.unexpected("a declaration")
        return self.statement()

    def container_decl(self, ty, first: Token) -> A.ContainerDecl:
        """``Arena(T, N) name;`` / ``Pool(T, N) name;`` after its type (docs/notes/arenas-pools.md)."""
        name = self.ident("the name of the arena or pool")
        self.expect(";")
        d = A.ContainerDecl(name.text, kind=ty.parts[0].lower(), elem=ty.type_args[0], capacity=ty.capacity,
                            span=self.sp(name))
        d.type_span = self.sp(first)
        return d

    def size_params(self):
        names, spans = [], []
        if self.at("["):
            self.next()
            while True:
                n = self.ident("a size parameter")
                names.append(n.text)
                spans.append(self.sp(n))
                if not self.accept(","):
                    break
            self.expect("]", "`,` or `]`")
        return names, spans

    def param(self) -> A.Param:
        mode = None
        if self.at("in", "inout", "out"):
            mode = self.next().kind
        ty = self.parse_type()
        n = self.tok
        if n.kind != "ident":
            raise self.unexpected("a parameter name")
        self.next()
        default = None
        if self.accept("="):
            default = self.expr()
        return A.Param(mode, ty, n.text, default, span=self.sp(n))

    def params(self) -> List[A.Param]:
        self.expect("(")
        ps = []
        while not self.at(")"):
            ps.append(self.param())
            if not self.accept(","):
                break
        self.expect(")", "`,` or `)`")
        return ps

    def func_rest(self, result, result_mode, name: Token) -> A.FuncDecl:
        sizes, spans = self.size_params()
        ps = self.params()
        where = None
        if self.accept("where"):
            where = self.expr()
        if not self.at("{"):
            raise self.unexpected("`{`")
        body = self.block(counted=False)
        d = A.FuncDecl(name.text, result=result, result_mode=result_mode, size_params=sizes, params=ps,
                       body=body, where=where, span=self.sp(name))
        d.size_param_spans = spans
        return d

    def kernel_decl(self) -> A.KernelDecl:
        self.next()
        name = self.ident("a kernel name")
        sizes, spans = self.size_params()
        ps = self.params()
        over = None
        if self.accept("over"):
            self.expect("[")
            over = []
            while True:
                v = self.ident("an `over` variable")
                self.expect(":")
                ext = self.expr()
                over.append(A.OverVar(v.text, ext, span=self.sp(v)))
                if not self.accept(","):
                    break
            self.expect("]", "`,` or `]`")
        where = []
        if self.accept("where"):
            while True:
                where.append(self.expr())
                if not self.accept(","):
                    break
        if not self.at("{"):
            raise self.unexpected("`{`")
        body = self.block(counted=False)
        d = A.KernelDecl(name.text, size_params=sizes, params=ps, over=over, where=where, body=body,
                         span=self.sp(name))
        d.size_param_spans = spans
        return d

    def struct_decl(self) -> A.StructDecl:
        self.next()
        name = self.ident("a struct name")
        self.expect("{")
        fields = []
        while not self.at("}"):
            fattrs = []
            while self.at("@"):
                fattrs.append(self.attribute())
            ty = self.parse_type()
            fn = self.ident("a field name")
            bits = None
            default = None
            if self.accept(":"):
                bits = self.expr()
            if self.accept("="):
                default = self.expr()
            self.expect(";")
            fields.append(A.FieldDecl(ty, fn.text, bits, default, fattrs, span=self.sp(fn)))
        self.next()
        return A.StructDecl(name.text, fields=fields, span=self.sp(name))

    def enumerators(self) -> List[A.Enumerator]:
        self.expect("{")
        out = []
        while not self.at("}"):
            n = self.ident("an enumerator name")
            v = None
            if self.accept("="):
                v = self.expr()
            out.append(A.Enumerator(n.text, v, span=self.sp(n)))
            if not self.accept(","):
                break
        self.expect("}", "`,` or `}`")
        return out

    def enum_decl(self) -> A.EnumDecl:
        self.next()
        name = self.ident("an enum name")
        under = None
        if self.accept(":"):
            under = self.elem_type()
        members = self.enumerators()
        return A.EnumDecl(name.text, underlying=under, members=members, span=self.sp(name))

    def error_decl(self) -> A.ErrorDecl:
        self.next()
        name = self.ident("an error set name")
        under = None
        if self.accept(":"):
            under = self.elem_type()
        if self.accept("="):
            combined = [self.elem_type()]
            while self.accept("|"):
                combined.append(self.elem_type())
            self.expect(";", "`|` or `;`")
            return A.ErrorDecl(name.text, underlying=under, combined=combined, span=self.sp(name))
        values = self.enumerators()
        return A.ErrorDecl(name.text, underlying=under, values=values, span=self.sp(name))

    def type_decl(self) -> A.TypeAlias:
        self.next()
        name = self.ident("a type name")
        self.expect("=")
        distinct = self.accept("distinct") is not None
        target = self.parse_type()
        self.expect(";")
        return A.TypeAlias(name.text, target=target, distinct=distinct, span=self.sp(name))

    def test_decl(self) -> A.TestDecl:
        tt = self.next()
        s = self.plain_string("the test name, a string literal")
        name = "".join(p for p in s.parts if isinstance(p, str))
        fault = None
        fault_span = None
        line = None
        if self.accept("expect_fault"):
            f = self.ident("a fault name such as E_OVERFLOW")
            fault = f.text
            fault_span = self.sp(f)
            if self.tok.kind == "ident" and self.tok.text == "at":
                self.next()
                n = self.expect("int", "a line number")
                line = n.value
        if not self.at("{"):
            raise self.unexpected("`{`")
        body = self.block(counted=False)
        d = A.TestDecl(name, expect_fault=fault, expect_fault_span=fault_span, body=body, span=self.sp(tt))
        d.expect_fault_line = line
        return d
