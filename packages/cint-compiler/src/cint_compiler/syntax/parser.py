"""The parser of cint-core-1 (SPEC-04P.1 sections 5 to 13 and grammar 18.2 to 18.6).

:func:`parse_module` turns the bytes of one source file into an
:class:`ast.Module`.  It raises :class:`CompileError` for the first error:
lexical errors first (see :mod:`lexer`), then syntax errors in source order.

Positions follow LS-278 and the table of LS-313; every node's ``span`` is
the token its docstring in :mod:`ast` names.  The parser never recurses
without bound: blocks and expressions nest at most 256 deep (LS-311,
C9004), and ``else if`` chains are built iteratively.

The parser is one class composed of three parts: this module (token helpers, lookahead, types, the module
and its declarations), parse_exprs.py (expressions, strings, holes) and parse_stmts.py (statements).  A few
positions it records beyond the syntax fields are annotations declared in syntax/tree.py (``stmt_span``,
``name_span``, ``part_spans``, ``type_args``, ...).
"""
from __future__ import annotations

import sys
from typing import List, Optional

from cint_compiler.syntax import tree as A
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.syntax.lexer import KEYWORDS, Token, lex
from cint_compiler.syntax.parse_exprs import MAX_NESTING, MAX_OPERATOR_CHAIN, ExprParser  # noqa: F401 (ours to export)
from cint_compiler.syntax.parse_stmts import StmtParser

__all__ = ["parse_module", "Parser", "MAX_NESTING", "MAX_OPERATOR_CHAIN"]





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


class Parser(ExprParser, StmtParser):
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
            raise self.err("C9004", t, "expression nesting is deeper than %d (spec: LS-311)" % MAX_NESTING)

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
                    raise self.err("C3012", self.tok, "`import` declarations come before any other item (spec: LS-226)")
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
                raise self.err("C4012", t, "a keyword stands where a name is expected (spec: LS-167)")
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
