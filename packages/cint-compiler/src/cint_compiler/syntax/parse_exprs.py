"""The parser's expressions, strings and holes (SPEC-04P.1 sections 7 to 9, LS-149 to LS-158): a mixin of
:class:`cint_compiler.syntax.parser.Parser`, which has the token helpers these methods call."""
from __future__ import annotations

import re
from typing import Optional

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import first_span
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.syntax.lexer import BUILTIN_TYPE_NAMES, INT_TYPE_NAMES, Lexer, RawHole
# the operator table (tokens, binding powers LS-149, families) is semantics/operators.py
from cint_compiler.semantics.operators import ARITH_OPS, BINARY_BP, CMP_OPS, CONV_OPS, SHIFT_OPS, UNARY_OPS
from cint_compiler.semantics.operators import BIT_OPS as BITWISE_OPS

MAX_NESTING = 256          # LS-311: block and expression nesting
# Binary operators in one chain without parentheses (`1 + 1 + ... + 1`): the chain is a tree as deep as it
# is long, which every later phase walks recursively; beyond this it is C9004 (docs/language.md decision 32).
MAX_OPERATOR_CHAIN = 32768
_LANES_RE = re.compile(r"lanes[ \t]*\([ \t]*([A-Za-z0-9_]+)[ \t]*\)\Z")


class ExprParser:
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
        toks = self.toks
        while True:
            op = toks[self.i].kind
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
                           "`a < b && b < c` (spec: LS-153)")
        if op in ("&&", "||") and (lo in ("&&", "||") and lo != op or ro in ("&&", "||") and ro != op):
            raise self.err("C2101", first_span(node), "`&&` and `||` in one expression need parentheses (spec: LS-151)")
        if op in SHIFT_OPS and (lo in ARITH_OPS or ro in ARITH_OPS):
            raise self.err("C2101", first_span(node), "a shift with an arithmetic operand needs parentheses "
                           "(spec: LS-151)")
        if op in BITWISE_OPS:
            if lo in ARITH_OPS or ro in ARITH_OPS:
                raise self.err("C2101", first_span(node), "a bitwise operator with an arithmetic operand needs "
                               "parentheses (spec: LS-151)")
            if (lo in BITWISE_OPS and lo != op) or (ro in BITWISE_OPS and ro != op):
                raise self.err("C2101", first_span(node), "two different bitwise operators need parentheses "
                               "(spec: LS-151)")

    def conv_expr(self) -> A.Expr:
        e = self.unary()
        while self.toks[self.i].kind in CONV_OPS:
            at = self.next()
            if isinstance(e, A.Unary):
                raise self.err("C2101", e.span, "a unary `%s` directly followed by a conversion needs parentheses: "
                               "`(%sx) %s T` or `%s(x %s T)` (spec: LS-151)" % (e.op, e.op, at.kind, e.op, at.kind))
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
        t = self.toks[self.i]
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
        toks = self.toks
        while True:
            k = toks[self.i].kind
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
        if toks[self.i].kind in ("++", "--") and start != self.incdec_ok:
            # at the operator: the offending construct is the `++`/`--` (LS-313 row C1042), as the public
            # suite's frozen diag/c1042_increment_in_expression has it (docs/language.md decision 22)
            raise self.err("C1042", self.sp(self.tok), "`%s` is a statement, not an expression (spec: LS-166)"
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
        t = self.toks[self.i]
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
                           "message; write `{{` for a literal brace (spec: LS-44)")
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
                raise bad("a conditional expression in a hole is parenthesized: `{(c ? a : b)}` (spec: LS-199)")
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
                              "and `!lanes(T)` (spec: LS-201)" % conv)
        if r.startswith(":"):
            spec = r[1:]
            r = ""
        if r.strip(" \t"):
            raise bad("unexpected `%s` in a hole; a hole is `{expr=!conv:spec}` (spec: LS-198)" % r.strip())
        return A.Hole(e, source, eq=eq, conv=conv, spec=spec, span=brace)
