"""The parser's statements (SPEC-04P.1 section 10, grammar 18.4): a mixin of
:class:`cint_compiler.syntax.parser.Parser`, which has the token helpers and the expression parser these
methods call."""
from __future__ import annotations

from typing import List, Optional

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import first_span
from cint_compiler.syntax.lexer import KEYWORDS, Token
from cint_compiler.syntax.parse_exprs import MAX_NESTING

ASSIGN_OPS = frozenset("= += -= *= /= %= <<= >>= &= |= ^= +%= -%= *%= <<%= +|= -|= *|=".split())


class StmtParser:
    # ------------------------------------------------------------------ statements

    def block(self, counted: bool = True) -> A.Block:
        lb = self.expect("{")
        if counted:
            self.bdepth += 1
            if self.bdepth > MAX_NESTING:
                raise self.err("C9004", lb, "blocks nest deeper than %d (spec: LS-311)" % MAX_NESTING)
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
            raise self.err("C1040", t, "there is no empty statement; write `{ }` (spec: LS-163)")
        if t.kind == "junk":
            raise t.value
        raise self.err("C1043", t, "braces around the body are required (spec: LS-168)")

    def paren_cond(self) -> A.Expr:
        t = self.tok
        if t.kind != "(":
            if t.kind == "junk":
                raise t.value
            raise self.err("C1043", t, "parentheses around the condition are required (spec: LS-168)")
        self.next()
        cond = self.expr()
        if self.tok.kind in ASSIGN_OPS:
            raise self.err("C1041", first_span(cond), "assignment is a statement, not an expression; "
                           "write `==` to compare (spec: LS-164)")
        self.expect(")")
        return cond

    def statement(self) -> A.Stmt:
        t = self.toks[self.i]
        k = t.kind
        if k == "{":
            return self.block()
        if k == ";":
            raise self.err("C1040", t, "there is no empty statement (spec: LS-163)")
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
                           "`test \"name\" expect_fault E_NAME { ... }` (spec: LS-237)")
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
                           "(spec: LS-167)")
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
                           "statements (spec: LS-167)")
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
                raise self.err("C4012", stmt_tok, "`%s` is a keyword and cannot be declared (spec: LS-167)" % nt.kind)
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
                raise self.err("C1041", first_span(cond), "assignment is a statement, not an expression (spec: LS-164)")
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
                           "(spec: LS-168)")
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
            raise self.err("C9004", lb, "blocks nest deeper than %d (spec: LS-311)" % MAX_NESTING)
        cases = []
        default = None
        default_span = None
        while not self.at("}"):
            t = self.tok
            if t.kind == "case":
                if default is not None:
                    raise self.err("C4025", t, "`default` is the last clause of a switch (spec: LS-183)")
                self.next()
                items = []
                while True:
                    lo = self.expr(allow_cond=False)
                    if self.at(".."):
                        raise self.err("C4022", first_span(lo), "a case range is inclusive: write `lo..=hi` "
                                       "(spec: LS-177)")
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
                                   "(spec: LS-179)")
                cases.append(A.Case(items, body, span=self.sp(t)))
            elif t.kind == "default":
                if default is not None:
                    raise self.err("C4025", t, "a switch has one `default` (spec: LS-183)")
                self.next()
                self.expect(":")
                body = self.case_body()
                if not body:
                    raise self.err("C4023", t, "a default clause has a body (spec: LS-179)")
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
