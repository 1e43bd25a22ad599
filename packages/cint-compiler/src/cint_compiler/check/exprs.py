"""Expressions: typing by context (SPEC-01 IM-21, SPEC-04 LS-56), operators, conversions.

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations

from typing import Optional

from cint_compiler.diagnostics import unsupported
from cint_compiler.semantics.operators import ARITH_OPS, BIT_OPS, CMP_OPS, LOGIC_OPS, SHIFT_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import builtins as B
from cint_compiler.semantics import intmachine as M
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (BOOL, I64, ROUND, ROUND_MODES, STR, VOID, Z, ARITH_ERROR, ArrayType, BoolType, EnumType,
                    ErrorSetType, ErrorUnionType, FixedType, IntType, StrType, StructType, TupleType, Type, U8)
from cint_compiler.semantics.values import EnumValue, ErrorValue, RoundValue
from cint_compiler.semantics.types import ALLOC_ERROR, ArenaType, HandleType, PoolType
from cint_compiler.semantics.types import FORMAT_ERROR, UTF8_ERROR

from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    ViewInfo,
    Symbol,
    _err,
    struct_layout,
    Scope,
)
from cint_compiler.check.features.reduce import read_out_scalar
from cint_compiler.check.features import textops as textops_check


_E_METHODS = {}     # (checker class, node class) -> its e_ method (ExprChecks.expr)


class ExprChecks:
    # ------------------------------------------------------------------ expressions

    def assignable(self, target: Type, e, span):
        """Check that value ``e`` (already typed) can initialize or be assigned to ``target``."""
        t = e.ty
        if t == target:
            if isinstance(t, ArrayType):
                self.check_shapes(target, t, span)
            return
        if isinstance(target, ArrayType) and isinstance(t, ArrayType) and target.elem == t.elem \
                and target.rank == t.rank:
            self.check_shapes(target, t, start_span(e) if isinstance(e, A.Index) else span)
            return
        if isinstance(target, ErrorSetType) and isinstance(t, ErrorSetType):
            if all(target.tag_of(v) for v in t.values):
                return
        raise _err("C2001", start_span(e) if isinstance(e, A.Binary) else span,
                   "expected %s, found %s" % (target, t))

    def check_shapes(self, a: ArrayType, b: ArrayType, span):
        for x, y in zip(a.dims, b.dims):
            if isinstance(x, int) and isinstance(y, int) and x != y:
                raise _err("C2012", span, "the shapes do not agree: %s and %s" % (a, b))

    @staticmethod
    def _is_shift(e) -> bool:
        """Whether ``e`` is a shift, inside any parentheses (LS-57)."""
        while isinstance(e, A.Paren):
            e = e.inner
        return isinstance(e, A.Binary) and e.op in SHIFT_OPS

    def is_untyped(self, e) -> bool:
        """Whether an expression's type comes from its context (literals and operators of literals).

        Remembered per node: each operator asks it of its operands, so without the memo a chain of n
        operators costs n^2 (issue 11 item 12).  A node is typed in one scope, so the answer is fixed."""
        memo = self.untyped_memo
        r = memo.get(id(e))
        if r is None:
            r = memo[id(e)] = self._is_untyped(e)
        return r

    def _is_untyped(self, e) -> bool:
        if isinstance(e, (A.IntLit, A.FracLit)):
            return True
        if isinstance(e, A.Paren):
            return self.is_untyped(e.inner)
        if isinstance(e, A.Unary) and e.op in ("-", "-%", "~"):
            return self.is_untyped(e.operand)
        if isinstance(e, A.Binary):
            if e.op in ARITH_OPS or e.op in BIT_OPS:
                return self.is_untyped(e.left) and self.is_untyped(e.right)
            if e.op in SHIFT_OPS:
                return self.is_untyped(e.left)
            return False
        if isinstance(e, A.Cond):
            return self.is_untyped(e.then) and self.is_untyped(e.other)
        if isinstance(e, A.Call) and isinstance(e.callee, A.Name):
            return self.builtin_untyped(e)
        return False

    def expr(self, e, expected: Optional[Type], allow_union=False, allow_tuple=False) -> Type:
        """Type ``e`` in context ``expected`` (used only by untyped expressions); returns e.ty."""
        if isinstance(e, A.Paren) and (allow_union or allow_tuple):
            # parentheses keep what their context consumes: `try (x as? I8)` (LS-129, LS-149)
            t = self.expr(e.inner, expected, allow_union, allow_tuple)
        else:
            # the e_ method of the node's class, looked up once per class (issue 11: 1 MB in seconds)
            key = (type(self), type(e))
            meth = _E_METHODS.get(key)
            if meth is None:
                meth = _E_METHODS[key] = getattr(type(self), "e_" + type(e).__name__)
            t = meth(self, e, expected)
        e.ty = t
        if isinstance(t, ErrorUnionType) and not allow_union and not isinstance(e, (A.Try, A.Catch)):
            raise _err("C2040", e.span, "an error union is consumed with `try`, `catch` or `_ =`")
        if isinstance(t, TupleType) and not allow_tuple:
            raise _err("C2041", start_span(e), "a tuple result is consumed by destructuring: "
                       "`(T a, T b) = ...;` (spec: LS-98, LS-101)")
        return t

    def lit_type(self, expected):
        if expected is None or not (isinstance(expected, (IntType, FixedType))):
            return I64 if not isinstance(expected, (IntType, FixedType)) else expected
        return expected

    def e_IntLit(self, e: A.IntLit, expected):
        t = expected if isinstance(expected, (IntType, FixedType)) else I64
        if isinstance(expected, (BoolType, StrType, EnumType, ErrorSetType, StructType, ArrayType)):
            raise _err("C2001", e.span, "expected %s, found an integer literal" % expected)
        v = e.value
        if isinstance(t, FixedType):
            raw = v << t.f
            if not t.contains(raw):
                self.lit_error(e, "constant %s does not fit %s" % (e.text or v, t))
            e.raw = raw
        elif not t.contains(v):
            self.lit_error(e, "constant %s does not fit %s (%d ..= %d)" % (e.text or v, t, t.min, t.max))
        return t

    def lit_error(self, e, msg):
        err = _err("C2003", e.span, msg)
        e.lit_error = err
        self.pending.append(err)

    def e_FracLit(self, e: A.FracLit, expected):
        if not isinstance(expected, FixedType):
            if isinstance(expected, (IntType,)) or expected is None:
                raise _err("C2004", e.span, "a fraction literal needs a fixed-point type")
            raise _err("C2004", e.span, "a fraction literal needs a fixed-point type, not %s" % expected)
        t = expected
        scaled = e.value * (1 << t.f)
        if scaled.denominator != 1:
            if e.round is None:
                raise _err("C2006", e.span, "%s is not a multiple of 2^-%d; add `round half_even` or another mode"
                           % (e.text, t.f))
            raw = M.round_div(scaled.numerator, scaled.denominator, e.round)
        else:
            raw = scaled.numerator
        e.raw = raw
        if not t.contains(raw):
            self.lit_error(e, "constant %s does not fit %s" % (e.text, t))
        return t

    def e_BoolLit(self, e, expected):
        return BOOL

    def e_StrLit(self, e: A.StrLit, expected):
        if e.has_holes:
            raise _err("C1033", e.span, "a hole is permitted only in a print statement or an assert message")
        if e.is_bytes:
            return ArrayType(U8, (None,))
        return STR

    def e_Paren(self, e: A.Paren, expected):
        return self.expr(e.inner, expected)

    def early_const(self, name):
        """While struct fields are defined (pass 1), the named constant ``name`` of this module, declared now
        so that a bit width may name it (LS-82, decision 17); None when there is none."""
        it = (self.early or {}).pop(name, None)
        if it is None:
            return None
        saved = self.fn, self.scope, self.pending
        self.pending = []
        try:
            self.declare_global(it, self.early_script)
        finally:
            self.fn, self.scope, self.pending = saved[0], saved[1], saved[2] + self.pending
        return self.scope.lookup(name)

    def e_Name(self, e: A.Name, expected):
        sym = self.scope.lookup(e.ident)
        if sym is None:
            sym = self.early_const(e.ident)
        if sym is None:
            if e.ident in B.WRITTEN:
                raise _err("C4010", e.span, "`%s` is a built-in function; call it with parentheses" % e.ident)
            if self.fn is not None and self.fn.kind in ("func", "kernel", "test") and self._script_local(e.ident):
                raise _err("C3004", e.span, "`%s` is a script local; it is not visible in a function or test"
                           % e.ident)
            raise _err("C3005", e.span, "undefined name `%s`" % e.ident)
        e.ref = sym
        if sym.kind in ("func", "kernel"):
            raise _err("C4010", e.span, "`%s` is named without a call" % e.ident)
        if sym.kind in ("struct", "enum", "error", "alias"):
            raise _err("C3007", e.span, "`%s` is a type, not a value" % e.ident)
        if sym.kind == "module":
            raise _err("C3007", e.span, "`%s` names an imported module, not a value; write `%s.<name>`"
                       % (e.ident, e.ident))
        if self.fn is not None and self.fn.kind == "kernel" and sym.kind == "global":
            raise _err("C5025", e.span, "a kernel cannot read or write module-level variables")
        if sym.kind == "param" and sym.info == "out" and not isinstance(sym.type, ArrayType) \
                and self.fn is not None and self.fn.kind == "kernel":
            read_out_scalar(sym, e.span)
        if sym.kind == "global":
            self.knote("C5025", e.span, "reads or writes a module-level variable")
        if sym.kind == "container":
            self.memory_in_kernel(e.span)
        if sym.kind == "const":
            e.cval = sym.value
        if isinstance(sym.info, ViewInfo):
            self.view_used(e, sym)
        if isinstance(sym.type, StrType) and self._str_info:
            textops_check.used(self, e, sym)
        return sym.type

    def _script_local(self, name):
        for it in self.m.items:
            if isinstance(it, A.GlobalDecl) and it.decl.name == name and not it.decl.is_const:
                return True
        return False

    def e_Unary(self, e: A.Unary, expected):
        if e.op == "!":
            t = self.expr(e.operand, BOOL)
            if t != BOOL:
                raise _err("C2002", e.operand.span, "`!` takes a Bool")
            return BOOL
        t = self.expr(e.operand, expected if self.is_untyped(e.operand) else None)
        if e.op == "~":
            if not isinstance(t, IntType):
                raise _err("C2103", e.span, "`~` is defined on integer types")
            return t
        if not isinstance(t, (IntType, FixedType)):
            raise _err("C2103", e.span, "unary `%s` is defined on numeric types, not %s" % (e.op, t))
        return t

    def check_binop_types(self, op, t, span):
        if op in ARITH_OPS:
            if isinstance(t, FixedType):
                if op == "%":
                    raise _err("C2001", span, "`%` is not defined on fixed point")
                return
            if not isinstance(t, IntType):
                raise _err("C2103", span, "`%s` is not defined for %s" % (op, t))
        elif op in BIT_OPS:
            if not isinstance(t, IntType):
                raise _err("C2103", span, "`%s` is defined on integer types, not %s" % (op, t))

    def e_Binary(self, e: A.Binary, expected):
        op = e.op
        if op in LOGIC_OPS:
            for x in (e.left, e.right):
                t = self.expr(x, BOOL)
                if t != BOOL:
                    raise _err("C2002", x.span, "`%s` takes Bool operands" % op)
            return BOOL
        if op in SHIFT_OPS:
            lt = self.expr(e.left, expected if self.is_untyped(e.left) else None)
            ct = self.expr(e.right, None)
            if not isinstance(lt, IntType):
                raise _err("C2103", e.span, "`%s` is defined on integer types, not %s" % (op, lt))
            if not isinstance(ct, IntType):
                raise _err("C2001", e.right.span, "a shift count is an integer")
            return lt
        # arithmetic, bitwise, comparison: one common type
        lu, ru = self.is_untyped(e.left), self.is_untyped(e.right)
        if lu and ru:
            ctx = expected if (op not in CMP_OPS and isinstance(expected, (IntType, FixedType))) else None
            lt = self.expr(e.left, ctx)
            rt = self.expr(e.right, lt)
        elif lu:
            rt = self.expr(e.right, None)
            # LS-57: a shift is never typed by rule 4 from the other operand (LS-56)
            lt = self.expr(e.left, rt if isinstance(rt, (IntType, FixedType)) and not self._is_shift(e.left)
                           else None)
            if not isinstance(rt, (IntType, FixedType)):
                pass
        elif ru:
            lt = self.expr(e.left, None)
            rt = self.expr(e.right, lt if isinstance(lt, (IntType, FixedType)) and not self._is_shift(e.right)
                           else None)
        else:
            lt = self.expr(e.left, None)
            rt = self.expr(e.right, None)
        if op in CMP_OPS:
            if isinstance(lt, (HandleType, ArenaType, PoolType)):
                raise _err("C2103", start_span(e.left), "`%s` is not defined for %s" % (op, lt))
            if lt != rt:
                if isinstance(lt, ErrorSetType) and isinstance(rt, ErrorSetType):
                    if all(lt.tag_of(v) for v in rt.values) or all(rt.tag_of(v) for v in lt.values):
                        return BOOL
                if isinstance(e.right, A.DotName) or isinstance(e.left, A.DotName):
                    pass
                raise _err("C2001", e.right.span if not isinstance(e.right, A.Binary) else start_span(e.right),
                           "a comparison's operands have one type: %s and %s" % (lt, rt))
            if isinstance(lt, (ArrayType,)):
                raise _err("C2013", e.span, "array `==` is not defined; use equal(a, b)")
            if isinstance(lt, StructType):
                raise _err("C2103", e.span, "struct comparison is not defined")
            if lt == BOOL and op not in ("==", "!="):
                raise _err("C2103", e.span, "Bool supports only == and !=")
            if isinstance(lt, (EnumType, ErrorSetType, StrType)) and op not in ("==", "!="):
                raise _err("C2103", e.span, "%s supports only == and !=" % lt)
            return BOOL
        if lt != rt:
            raise _err("C2001", e.right.span if not isinstance(e.right, A.Binary) else start_span(e.right),
                       "expected %s, found %s" % (lt, rt))
        self.check_binop_types(op, lt, e.span)
        return lt

    def e_Cond(self, e: A.Cond, expected):
        self.cond(e.cond)
        tu, ou = self.is_untyped(e.then), self.is_untyped(e.other)
        if tu and ou:
            t1 = self.expr(e.then, expected)
            t2 = self.expr(e.other, t1)
        elif tu:
            t2 = self.expr(e.other, expected)
            t1 = self.expr(e.then, t2)
        else:
            t1 = self.expr(e.then, expected)
            t2 = self.expr(e.other, t1 if ou else expected)
        if t1 != t2:
            raise _err("C2001", e.other.span, "the arms of `?:` have one type: %s and %s" % (t1, t2))
        return t1

    def is_literal_operand(self, e):
        if isinstance(e, A.Paren):
            return self.is_literal_operand(e.inner)
        return isinstance(e, (A.IntLit,))

    def e_Convert(self, e: A.Convert, expected):
        dst = self.resolve_type(e.target)
        if e.op == "as|":
            raise unsupported(e.span, "the saturating conversion `as|`")
        lit = self.is_literal_operand(e.operand)
        if lit:
            inner = e.operand
            while isinstance(inner, A.Paren):
                inner = inner.inner
            inner.ty = Z
            inner.cval = inner.value
            e.operand.ty = Z
            e.operand.cval = inner.value
            src = Z
            e.literal = True
        else:
            src = self.expr(e.operand, None)
            e.literal = False
        if isinstance(dst, BoolType) or (src == BOOL and e.op != "as"):
            if isinstance(src, IntType) or src == Z:
                raise _err("C2056", e.operand.span, "an integer is not a Bool; write `n != 0`")
            raise _err("C2008", e.span, "no conversion from %s to %s" % (src, dst))
        ok_src = isinstance(src, (IntType, FixedType)) or src == Z or src == BOOL or isinstance(src, EnumType)
        ok_dst = isinstance(dst, (IntType, FixedType)) or isinstance(dst, EnumType)
        if not (ok_src and ok_dst):
            raise _err("C2008", e.span, "no conversion from %s to %s" % (src, dst))
        if isinstance(dst, EnumType):
            # integer to enum (LS-89): checked `as`, or `as?` (LS-133); E_NARROW when not an enumerator
            if not (isinstance(src, IntType) or src == Z) or e.op not in ("as", "as?"):
                raise _err("C2008", e.span, "an integer converts to an enum with `as` or `as?`")
            e.mode = None
            e.src = src
            if lit:
                try:
                    v = M.convert_enum(Z, dst, e.operand.cval, literal=True)
                    ev = EnumValue(dst.qname, [n for n, x in dst.members.items() if x == v][0], v)
                    e.cval = ev if e.op != "as?" else ("ok", ev)
                    e.csteps = 1
                except MachineFault as mf:
                    if e.op == "as?":
                        e.cval = ("err", ErrorValue("ArithError", "narrow"))
                        e.csteps = 1
                    else:
                        raise _err("C6001", e.span, "%s in constant evaluation: %s" % (mf.code, mf.operation),
                                   fault=mf)
            return ErrorUnionType(ARITH_ERROR, dst) if e.op == "as?" else dst
        if isinstance(src, EnumType):
            if e.op != "as":
                raise _err("C2008", e.span, "an enum converts with `as`")
        rounds = isinstance(src, FixedType) and (isinstance(dst, IntType) or (isinstance(dst, FixedType)
                                                                               and dst.f < src.f))
        if e.round is not None:
            if e.round not in ROUND_MODES:
                raise _err("C2009", e.span, "unknown rounding mode `%s`" % e.round)
            if not rounds:
                raise _err("C2009", e.span, "a `round` clause is permitted only where the conversion rounds")
        e.mode = (e.round or "half_even") if rounds else None
        e.src = src
        if lit:
            # A checked conversion of a literal is decided at compile time (SPEC-01 IM-23).
            try:
                v = M.convert({"as": "checked", "as%": "wrap", "as?": "checked"}[e.op], Z, dst,
                              e.operand.cval, None, literal=True)
                e.cval = v if e.op != "as?" else ("ok", v)
                e.csteps = 1
            except MachineFault as mf:
                if e.op == "as?":
                    e.cval = ("err", ErrorValue("ArithError", "narrow"))
                    e.csteps = 1
                else:
                    raise _err("C6001", e.span, "%s in constant evaluation: %s" % (mf.code, mf.operation), fault=mf)
        if e.op == "as?":
            return ErrorUnionType(ARITH_ERROR, dst)
        return dst

    def e_DotName(self, e: A.DotName, expected):
        if isinstance(expected, EnumType):
            if e.name not in expected.members:
                raise _err("C3005", e.span, "%s has no enumerator `%s`" % (expected, e.name))
            e.cval = EnumValue(expected.qname, e.name, expected.members[e.name])
            return expected
        if isinstance(expected, ErrorSetType):
            hits = [v for v in expected.values if v[1] == e.name]
            if not hits:
                raise _err("C3005", e.span, "%s has no value `%s`" % (expected, e.name))
            if len(hits) > 1:
                raise _err("C2044", e.span, "`.%s` is declared by several member sets; name the set" % e.name)
            e.cval = ErrorValue(hits[0][0], e.name)
            return expected
        if expected == ROUND:
            if e.name not in ROUND_MODES:
                raise _err("C3005", e.span, "unknown rounding mode `%s`" % e.name)
            e.cval = RoundValue(e.name)
            return ROUND
        raise _err("C2007", e.span, "`.%s` needs a context that gives its type" % e.name)

    def e_Member(self, e: A.Member, expected):
        qsym = self.qualified(e)
        if qsym is not None:
            return self.qualified_value(e, qsym)
        # Enum member or error value: Type.name, or alias.Type.name
        if isinstance(e.base, A.Name) or self.qualified(e.base) is not None:
            sym = self.scope.lookup(e.base.ident) if isinstance(e.base, A.Name) else e.base.ref
            if sym is None and e.base.ident == "ArithError":
                sym = Symbol("error", "ArithError", ARITH_ERROR)
            if sym is None and e.base.ident == "AllocError":
                sym = Symbol("error", "AllocError", ALLOC_ERROR)
            if sym is None and e.base.ident in ("FormatError", "Utf8Error"):
                sym = Symbol("error", e.base.ident, FORMAT_ERROR if e.base.ident == "FormatError" else UTF8_ERROR)
            if sym is None and e.base.ident == "Round":
                if e.name not in ROUND_MODES:
                    raise _err("C3005", e.span, "unknown rounding mode `%s`" % e.name)
                e.cval = RoundValue(e.name)
                e.mkind = "const"
                return ROUND
            if sym is not None and sym.kind == "enum":
                t = sym.type
                if e.name not in t.members:
                    raise _err("C3005", e.span, "%s has no enumerator `%s`" % (t, e.name))
                e.cval = EnumValue(t.qname, e.name, t.members[e.name])
                e.mkind = "const"
                e.base.ty = t
                return t
            if sym is not None and sym.kind == "error":
                t = sym.type
                hits = [v for v in t.values if v[1] == e.name]
                if not hits:
                    raise _err("C3005", e.span, "%s has no value `%s`" % (t, e.name))
                if len(hits) > 1:
                    raise _err("C2044", e.span, "`%s.%s` is declared by several member sets" % (t, e.name))
                e.cval = ErrorValue(hits[0][0], e.name)
                e.mkind = "const"
                e.base.ty = t
                return t
            if sym is not None and sym.kind == "alias":
                raise unsupported(e.span, "members of a type alias")
            if sym is not None and sym.kind == "struct" and e.name == "bytes":
                self.complete(sym.type, e.base.span or e.span)
                e.cval = struct_layout(sym.type)[0]     # LS-76: a compile-time constant
                e.mkind = "const"
                e.base.ty = sym.type
                return I64
        bt = self.expr(e.base, None)
        if isinstance(bt, StructType):
            f = bt.field(e.name)
            if f is None:
                raise _err("C3005", e.span, "%s has no field `%s`" % (bt, e.name))
            e.mkind = "field"
            if f[2] is not None:
                e.bitfield = (f[1], f[2])   # a store checks the width (bitfield_of)
            return f[1]
        if isinstance(bt, FixedType) and e.name == "raw":
            e.mkind = "raw"
            return bt.storage
        raise _err("C3005", e.span, "%s has no member `%s`" % (bt, e.name))

    def qualified_value(self, e: A.Member, sym: Symbol):
        """``alias.name`` as a value: a constant or a module variable of an imported module."""
        if sym.kind in ("func", "kernel"):
            raise _err("C4010", e.span, "`%s.%s` is named without a call" % (e.base.ident, e.name))
        if sym.kind not in ("const", "global"):
            raise _err("C3007", e.span, "`%s.%s` is a type, not a value" % (e.base.ident, e.name))
        if self.fn is not None and self.fn.kind == "kernel" and sym.kind == "global":
            raise _err("C5025", e.span, "a kernel cannot read or write module-level variables")
        if sym.kind == "global":
            self.knote("C5025", e.span, "reads or writes a module-level variable")
        if sym.kind == "const" and not isinstance(sym.type, ArrayType):
            e.mkind = "const"
            e.cval = sym.value
        else:
            e.mkind = "qname"      # read like a name (interp: Evaluator.x_Member)
        return sym.type

    def e_TypeMember(self, e: A.TypeMember, expected):
        t = self.resolve_type(e.type)
        e.mkind = "const"
        n = e.name
        if isinstance(t, (IntType, FixedType)):
            # compile-time properties (LS-51): value and type; fixed point's min and max are raw values
            props = {"min": (t.min, t), "max": (t.max, t), "bits": (t.bits, I64)}
            if isinstance(t, FixedType):
                props.update(epsilon=(1, t), frac_bits=(t.f, I64))
            if n in props:
                e.cval, rt = props[n]
                return rt
        if isinstance(t, FixedType) and n == "raw":
            raise _err("C4010", e.span, "`%s.raw` is a constructor; call it: %s.raw(n)" % (t, t))
        if isinstance(t, EnumType) and n in t.members:
            e.cval = EnumValue(t.qname, n, t.members[n])
            return t
        raise _err("C3005", e.span, "%s has no property `%s`" % (t, n))

    def e_ArrayLit(self, e: A.ArrayLit, expected):
        if not isinstance(expected, ArrayType):
            raise _err("C2010", e.span, "an array literal needs a declared array type")
        if expected.rank > 1:
            inner = ArrayType(expected.elem, expected.dims[1:])
            for x in e.items:
                if not isinstance(x, A.ArrayLit):
                    raise _err("C2011", x.span, "a rank-%d literal nests array literals" % expected.rank)
                self.expr(x, inner)
        else:
            for x in e.items:
                self.expr(x, expected.elem)
                self.assignable(expected.elem, x, x.span)
        d0 = expected.dims[0]
        if isinstance(d0, int) and d0 != len(e.items):
            raise _err("C2011", e.span, "the literal has %d elements; the extent is %d" % (len(e.items), d0))
        dims = (len(e.items),) + (tuple(expected.dims[1:]) if expected.rank > 1 else ())
        return ArrayType(expected.elem, dims)

    def e_TupleExpr(self, e, expected):
        if not isinstance(expected, TupleType):
            raise _err("C2041", e.span, "a tuple is written only where a tuple result is returned: "
                       "`return (a, b);` (spec: LS-98, LS-101)")
        if len(e.items) != len(expected.items):
            raise _err("C2001", e.span, "expected %s, found a tuple of %d elements" % (expected, len(e.items)))
        for x, t in zip(e.items, expected.items):
            self.expr(x, t)
            self.assignable(t, x, x.span)
        return expected

    def e_Try(self, e: A.Try, expected):
        if self.fn.kind == "kernel":
            raise _err("C5022", e.span, "a kernel cannot use `try`")
        self.knote("C5022", e.span, "uses `try`")
        if self.fn.in_defer:
            raise _err("C4030", e.span, "`try` would leave the deferred statement (spec: LS-187, LS-320)")
        t = self.expr(e.operand, None, allow_union=True, allow_tuple=True)
        if not isinstance(t, ErrorUnionType):
            raise _err("C2043", e.span, "`try` applies to a call that returns an error union")
        if self.fn.kind == "test":
            return t.value
        rt = self.fn.result
        if not isinstance(rt, ErrorUnionType) or not all(rt.errset.tag_of(v) for v in t.errset.values):
            raise _err("C2042", e.span, "`try` needs a function whose error set holds every value of %s" % t.errset)
        return t.value

    def e_Catch(self, e: A.Catch, expected):
        t = self.expr(e.operand, None, allow_union=True, allow_tuple=True)
        if not isinstance(t, ErrorUnionType):
            raise _err("C2043", e.span, "`catch` applies to a call that returns an error union")
        if e.block is not None:
            saved = self.scope
            self.scope = Scope(saved)
            sym = Symbol("local", e.binding, t.errset, mutable=False)
            sym.info = "loopvar"
            e.sym = sym
            if e.binding is not None:
                self.declare(self.scope, e.binding, sym, e.span)
            self.block(e.block, new_scope=False)
            self.scope = saved
            if self.can_complete(e.block):
                # at the block's `{`, the offending construct (LS-131, LS-278)
                raise _err("C4002", e.block.span or e.span,
                           "a `catch` block must leave: end it with return, break or continue")
        else:
            self.expr(e.value, t.value, allow_tuple=isinstance(t.value, TupleType))
            if t.value is not VOID:
                self.assignable(t.value, e.value, e.value.span)
            self.fold(e.value)
        return t.value
