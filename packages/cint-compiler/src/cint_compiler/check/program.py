"""Name resolution and type checking of cint-core-1 (SPEC-04P.1 sections 4 to 14).

``check_program`` takes the parsed root module and returns a :class:`Program`:
the checked tree, annotated in place, with its symbol tables.  The checker

* resolves every name to a :class:`Symbol`,
* gives every expression its static type (``Expr.ty``), typing literals by
  context (SPEC-01 IM-21, SPEC-04 LS-56),
* evaluates every maximal constant expression at compile time with the
  run-time semantics (SPEC-01 IM-23), storing the value in ``Expr.cval``;
  a fault there is C6001,
* rejects what it does not implement yet with C9102 naming the construct.

The first error found is raised as :class:`CompileError`.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from cint_compiler.syntax import tree as A
from cint_compiler.semantics import intmachine as M
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (BOOL, I64, ROUND, ROUND_MODES, STR, VOID, Z, ARITH_ERROR, ArrayType, BoolType, EnumType,
                    ErrorSetType, ErrorUnionType, FixedType, IntType, StrType, StructType, TupleType, Type, INT_TYPES,
                    fixed_valid, parse_fixed_name, U8, U16)
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue, RoundValue, copy_value
from cint_compiler.check.features.containers import ContainerChecks, mentions_memory
from cint_compiler.semantics.types import ALLOC_ERROR, ArenaType, HandleType, PoolType
from cint_compiler.semantics.types import FORMAT_ERROR, UTF8_ERROR
from cint_compiler.semantics.types import SymExtent

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.syntax.tree import first_span as start_span

# Built-in functions of SPEC-04 LS-145 that this implementation provides.
SCALAR_T_BUILTINS = {  # name -> arity; result type is the operand type T
    "abs": 1, "min": 2, "max": 2, "clamp": 3, "div_trunc": 2, "rem_trunc": 2, "div_euclid": 2,
    "rem_euclid": 2, "isqrt": 1,
}
RESULT_BUILTINS = {"add_result", "sub_result", "mul_result", "div_result", "rem_result", "shl_result"}
REDUCTIONS = {"sum", "fold_checked", "sum_wrap", "sum_sat", "count", "dot"}
OTHER_BUILTINS = {"uabs", "div_round", "muldiv", "mul_full", "isqrt_round", "rotl", "rotr", "divmod",
                  "mul", "div", "mul_wrap", "mul_sat", "sqrt", "sqrt_wrap", "sqrt_sat", "len", "extent", "size",
                  "lower", "copy", "fill", "equal", "swap", "transpose", "reverse", "reshape", "wrap_bits",
                  "random", "format", "utf8", "embed", "to_device", "to_host", "sign", "rescale3",
                  "rescale3_rem", "shl3", "tdot"}
BUILTIN_NAMES = set(SCALAR_T_BUILTINS) | RESULT_BUILTINS | REDUCTIONS | OTHER_BUILTINS
UNSUPPORTED_BUILTINS = {
                        "reshape", "wrap_bits", "random", "embed", "to_device", "to_host",
                        "sign", "rescale3", "rescale3_rem", "shl3", "tdot"}

ARITH_OPS = {"+": ("add", "checked"), "+%": ("add", "wrap"), "+|": ("add", "sat"),
             "-": ("sub", "checked"), "-%": ("sub", "wrap"), "-|": ("sub", "sat"),
             "*": ("mul", "checked"), "*%": ("mul", "wrap"), "*|": ("mul", "sat"),
             "/": ("div", "checked"), "%": ("rem", "checked")}
SHIFT_OPS = {"<<": ("shl", "checked"), "<<%": ("shl", "wrap"), ">>": ("shr", "checked")}
BIT_OPS = {"&", "|", "^"}
CMP_OPS = {"==", "!=", "<", "<=", ">", ">="}
LOGIC_OPS = {"&&", "||"}


class Symbol:
    """A resolved name."""

    __slots__ = ("kind", "name", "type", "decl", "mutable", "value", "module", "info", "span")

    def __init__(self, kind, name, type=None, decl=None, mutable=False, value=NOTCONST, module=None,
                 info=None, span=None):
        self.kind = kind          # local param global const func kernel struct enum error alias sizeparam overvar
        self.name = name
        self.type = type
        self.decl = decl
        self.mutable = mutable
        self.value = value        # folded value of a constant
        self.module = module
        self.info = info
        self.span = span

    def __repr__(self):
        return "Symbol(%s %s)" % (self.kind, self.name)


@dataclass
class FuncInfo:
    decl: object
    qname: str
    result: Type
    params: List[Symbol]
    size_params: List[Symbol]
    is_kernel: bool = False
    over: List[Symbol] = field(default_factory=list)
    prints: bool = False
    module: str = ""
    # kernel admissibility (LS-250): the first restriction the body breaks, (code, span, what), the user
    # functions it calls, [(FuncInfo, span)], and whether the body has been checked
    kviol: object = None
    kcalls: list = field(default_factory=list)
    kchecked: bool = False
    # the module variables the body writes itself, {id(Symbol): Symbol} (LS-122)
    gwrites: dict = field(default_factory=dict)


@dataclass
class Program:
    """The checked program: the root module, its symbols and entry points."""

    module: A.Module
    globals: List[Symbol]              # module variables in declaration order
    functions: Dict[str, FuncInfo]
    kernels: Dict[str, FuncInfo]
    tests: List[A.TestDecl]
    script: Optional[List[A.Stmt]]     # top-level statements, or None for a module without them
    script_span: Optional[Span]
    types: Dict[str, Type]
    has_main: bool = False
    decls: Dict[str, "Symbol"] = field(default_factory=dict)   # the module's own top-level names
    exported: set = field(default_factory=set)                 # those of them declared `export` (LS-227)


def _elem_bytes(t) -> int:
    """The bytes of one array element for the private-array limit (structs: the sum of their fields)."""
    if isinstance(t, StructType):
        total = 0
        for _, ft, _ in t.fields:
            if isinstance(ft, ArrayType):
                n = 1
                for x in ft.dims:
                    n *= x if isinstance(x, int) else 1
                total += n * _elem_bytes(ft.elem)
            else:
                total += _elem_bytes(ft)
        return total
    if isinstance(t, (EnumType, ErrorSetType)):
        return t.underlying.nbytes if t.underlying is not None else 2
    return getattr(t, "nbytes", 8)


def has_zero(t) -> bool:
    """LS-91: whether zero fill gives a value of ``t`` (no error set, and no enum without a 0 enumerator, in it)."""
    if isinstance(t, ErrorSetType):
        return False
    if isinstance(t, EnumType):
        return 0 in t.members.values()
    if isinstance(t, ArrayType):
        return has_zero(t.elem)
    if isinstance(t, StructType):
        return all(has_zero(ft) for _, ft, _ in t.fields)
    return True


def _err(code, span, msg, **kw):
    return CompileError(code, span, msg, **kw)


def type_layout(t):
    """(size, alignment) in bytes of a stored type (LS-50, LS-73)."""
    if isinstance(t, IntType):
        return t.bits // 8, (t.bits // 8 if t.bits <= 64 else 8)
    if isinstance(t, FixedType):
        return type_layout(t.storage)
    if isinstance(t, BoolType):
        return 1, 1
    if isinstance(t, (EnumType, ErrorSetType)):
        return type_layout(t.underlying)
    if isinstance(t, ArrayType):
        n = 1
        for x in t.dims:
            n *= x
        size, align = type_layout(t.elem)
        return size * n, align
    if isinstance(t, StructType):
        size, align, _ = struct_layout(t)
        return size, align
    raise AssertionError("no layout for %s" % t)


def struct_layout(t):
    """(size, alignment, {field: offset}) of a struct (LS-73 to LS-76, LS-82): fields in declaration order,
    each at the next multiple of its alignment (1 under @packed); consecutive bit fields of one declared type
    share a storage unit of that type from the least significant bit, a Bool unit holding 8 one-bit fields
    (our reading of LS-82); the size rounded up to the alignment."""
    packed = any(a.name == "packed" for a in (getattr(t.decl, "attrs", None) or []))
    off, align, offsets = 0, 1, {}
    unit = None      # (type, offset, bits used) of the open bit-field unit
    for name, ft, width in t.fields:
        size, a = type_layout(ft)
        if packed:
            a = 1
        if width is not None:
            cap = 8 if isinstance(ft, BoolType) else ft.bits
            if unit is not None and unit[0] == ft and unit[2] + width <= cap:
                offsets[name] = unit[1]
                unit = (ft, unit[1], unit[2] + width)
                continue
        unit = None
        off = -(-off // a) * a
        offsets[name] = off
        if width is not None:
            unit = (ft, off, width)
        off += size
        align = max(align, a)
    return -(-off // align) * align, align, offsets


def bitfield_of(place):
    """(declared type, width) when ``place`` is a bit field of a struct (LS-82), else None."""
    while isinstance(place, A.Paren):
        place = place.inner
    return getattr(place, "bitfield", None) if isinstance(place, A.Member) else None


def bitfield_fault(bf, v):
    """The E_NARROW fault of storing ``v`` into a bit field (LS-82), or None when it fits.  Our record:
    operation `bitfield.checked.<T>`, the value as its operand and as exact, the bound crossed as limit."""
    t, w = bf
    if isinstance(t, BoolType):
        return None
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.signed else (0, (1 << w) - 1)
    if lo <= v <= hi:
        return None
    return MachineFault("E_NARROW", "bitfield.checked.%s" % t.token, [(t, v)], v, (t, hi if v > hi else lo))


def where_value(x, sizes):
    """The value of a checked `where` clause (Checker.where_clause) for the size parameters ``sizes``
    (name -> value): no step, no fault."""
    if x.cval is not NOTCONST:
        return x.cval
    if isinstance(x, (A.IntLit, A.BoolLit)):
        return x.value
    if isinstance(x, A.Paren):
        return where_value(x.inner, sizes)
    if isinstance(x, A.Name):
        return sizes[x.ref.name]
    if isinstance(x, A.Unary):
        return not where_value(x.operand, sizes)
    if x.op == "&&":
        return where_value(x.left, sizes) and where_value(x.right, sizes)
    if x.op == "||":
        return where_value(x.left, sizes) or where_value(x.right, sizes)
    a, b = where_value(x.left, sizes), where_value(x.right, sizes)
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[x.op]


def where_constraints(w):
    """The constraints of a `where` clause (docs/language.md decision 18): a kernel's comma-separated
    expressions (SPEC-04P.1 `kernel_where`) or a function's one expression, each split into the operands of
    its `&&` chains, parentheses being transparent (so grouping never changes the numbering), in source
    order; a constraint's index is its place in that list, from 0."""
    out = []

    def split(x):
        while isinstance(x, A.Paren):
            x = x.inner
        if isinstance(x, A.Binary) and x.op == "&&":
            split(x.left)
            split(x.right)
        else:
            out.append(x)
    for x in (w if isinstance(w, list) else [w]):
        split(x)
    return out


def where_compared(c):
    """The two compared sides of constraint c when it is one comparison of integers, else None."""
    while isinstance(c, A.Paren):
        c = c.inner
    if isinstance(c, A.Binary) and c.op in CMP_OPS and all(isinstance(s.ty, IntType) or s.ty is Z
                                                             for s in (c.left, c.right)):
        return c.left, c.right
    return None


def where_failure(w, sizes):
    """The `bind.where` operands of the first false constraint of clause w (None when every one holds): I64
    its index, then, for a comparison of integers, the two compared values as I64 (decision 18)."""
    for k, c in enumerate(where_constraints(w)):
        if where_value(c, sizes):
            continue
        ops = [(I64, k)]
        sides = where_compared(c)
        if sides is not None:
            vals = [where_value(s, sizes) for s in sides]
            if all(-(1 << 63) <= int(v) < (1 << 63) for v in vals):
                ops += [(I64, int(v)) for v in vals]
        return ops
    return None


def unsupported(span, what):
    return CompileError("C9102", span, "%s is not yet supported by this implementation (docs/status.md)" % what)


class Scope:
    def __init__(self, parent=None):
        self.names = {}
        self.parent = parent

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None


class FnCtx:
    """What the checker knows about the function body it is in."""

    def __init__(self, info=None, kind="func", result=VOID):
        self.info = info
        self.kind = kind              # func kernel test script
        self.result = result
        self.loops = []               # labels of enclosing loops (None for unlabeled)
        self.in_switch = 0
        self.in_defer = 0
        self.ft_ok = None             # the one `fallthrough` statement admitted where the checker now is
        self.prints = False
        self.kviol = None             # the first LS-250 restriction a function body breaks
        self.kcalls = []              # the user functions it calls, with the call spans
        self.kbytes = 0               # a kernel's private array bytes so far (C5029)
        self.gwrites = {}             # the module variables the body writes itself (LS-122)


class Checker(ContainerChecks):
    def __init__(self, module: A.Module, modules: Optional[Dict[str, Program]] = None):
        self.m = module
        self.modules = modules if modules is not None else {}   # checked modules by path, for imports
        self.selected = set()          # names bound by `import a.b.{X, y};` (LS-228: C3002 on collision)
        self._tok_index = None         # (line, column) -> token index, for the parts of qualified names
        self.path = module.path
        self.modname = module.name
        self.top = Scope()
        self.types: Dict[str, Type] = {}
        self.functions: Dict[str, FuncInfo] = {}
        self.kernels: Dict[str, FuncInfo] = {}
        self.globals: List[Symbol] = []
        self.pending: List[CompileError] = []  # literal range errors waiting for evaluation order
        self.fn: Optional[FnCtx] = None
        self.scope = self.top
        self.kpending = []             # calls from kernels whose callees are not all checked yet
        self.checking = set()          # functions whose bodies are being checked for a constant's call
        self.in_case_item = False      # checking a case item: a constant expression inside a body
        self.const_ctx = None          # the reference context that runs compile-time calls (LS-266)
        self.const_fuel = 0            # fuel-v1 units compile-time calls have used in this module (LS-267)
        self.gargs = []                # (callee, module variable, argument) for C5012 (LS-122)
        self.untyped_memo = {}         # id(node) -> is_untyped(node), so an operator chain is typed in linear time
        self.const_memo = None         # id(node) -> is_const(node) during one fold

    # ------------------------------------------------------------------ declarations

    def declare(self, scope, name, sym, span):
        if name in BUILTIN_NAMES or name in ("Round",):
            raise _err("C3001", span, "`%s` is a built-in function (LS-145) and cannot be declared again" % name,
                       help="choose another name")
        if name in self.selected:
            raise _err("C3002", span, "`%s` is a name selected by an import (LS-228)" % name)
        if scope.lookup(name) is not None or (scope is not self.top and self.top.lookup(name) is not None):
            raise _err("C3001", span, "`%s` is already declared" % name)
        scope.names[name] = sym

    def run(self) -> Program:
        m = self.m
        self.bind_imports()
        items = m.items
        stmts = [it for it in items if isinstance(it, A.Stmt) and not isinstance(it, A.StaticAssert)]
        is_script = bool(stmts)
        # Pass 1: type-like declarations
        for it in items:
            if isinstance(it, (A.StructDecl, A.EnumDecl, A.ErrorDecl, A.TypeAlias)):
                self.declare(self.top, it.name, Symbol({A.StructDecl: "struct", A.EnumDecl: "enum",
                                                        A.ErrorDecl: "error", A.TypeAlias: "alias"}[type(it)],
                                                       it.name, decl=it, span=it.span), it.span)
        for it in items:
            if isinstance(it, A.EnumDecl):
                self.define_enum(it)
            elif isinstance(it, A.ErrorDecl):
                self.define_error(it)
        for it in items:
            if isinstance(it, A.StructDecl):
                self.define_struct_shell(it)
        # a named constant used by a bit width is declared when the width names it (e_Name, early_const);
        # a struct's `bytes` and `offset` wait for its fields (C3006 before)
        self.early = {}
        for it in items:
            if isinstance(it, A.GlobalDecl) and it.decl.is_const:
                self.early.setdefault(it.decl.name, it)    # a second one is C3001 in pass 2
        self.early_script = is_script
        self.fielding = {self.top.names[it.name].type.qname for it in items if isinstance(it, A.StructDecl)}
        for it in items:
            if isinstance(it, A.TypeAlias):
                self.top.names[it.name].type = self.resolve_type(it.target)
                if it.distinct:      # LS-103 (Proposed), decision 29
                    from cint_compiler.check.features import proposed as proposed_check
                    self.top.names[it.name].type = proposed_check.distinct_type(
                        self, it, self.top.names[it.name].type)
        for it in items:
            if isinstance(it, A.StructDecl):
                self.define_struct_fields(it)
        # Pass 2: functions, kernels, constants, module variables (a constant that a signature's extent
        # names is declared there, as for bit widths)
        for it in items:
            if isinstance(it, (A.FuncDecl, A.KernelDecl)):
                self.declare_function(it)
        self.early = None
        has_main = "main" in self.functions
        if is_script and has_main:
            raise _err("C3011", self.functions["main"].decl.span,
                       "a script cannot also define `main`; move the top-level statements into `main`")
        for it in items:
            if isinstance(it, A.GlobalDecl) and (it.decl.is_const or not is_script):
                if it.decl.is_const and self.top.names.get(it.decl.name) is not None and \
                        self.top.names[it.decl.name].decl is it.decl:
                    continue       # declared early, for a bit width (early_const)
                self.declare_global(it, is_script)
        self.declare_containers(items)
        for it in items:
            if isinstance(it, A.FuncDecl):
                self.check_defaults(self.functions[it.name])
        # Pass 3: bodies
        for it in items:
            if isinstance(it, (A.FuncDecl, A.KernelDecl)):
                info = self.kernels.get(it.name) or self.functions[it.name]
                if not info.kchecked:      # a constant's call may have checked it already (LS-264)
                    self.check_function(info)
            elif isinstance(it, A.TestDecl):
                self.check_test(it)
            elif isinstance(it, A.StaticAssert):
                self.check_static_assert(it)
        self.module_state_args()
        for info, e in self.kpending:
            self.kernel_call_verdict(info, e, final=True)
        self.kpending = []
        tests = [it for it in items if isinstance(it, A.TestDecl)]
        names = set()
        for t in tests:
            if t.name in names:
                raise _err("C3020", t.span, "two tests are named %r" % t.name)
            names.add(t.name)
        script = None
        script_span = None
        if is_script:
            script = [it.decl if isinstance(it, A.GlobalDecl) else it
                      for it in items if isinstance(it, A.Stmt) or (isinstance(it, A.GlobalDecl) and not it.decl.is_const)]
            script = [s for s in script if not isinstance(s, A.StaticAssert)]
            script_span = script[0].span if not isinstance(script[0], A.VarDecl) else self._first_span(script[0])
            self.fn = FnCtx(kind="script", result=VOID)
            self.scope = Scope(self.top)
            for s in script:
                self.stmt(s)
            self.flush_pending()
            self.fn = None
            self.scope = self.top
        decls = {}
        exported = set()
        for it in items:
            if isinstance(it, A.Decl) and not isinstance(it, A.TestDecl) and it.name in self.top.names:
                decls[it.name] = self.top.names[it.name]
                if it.exported:
                    exported.add(it.name)
        prog = Program(m, self.globals, self.functions, self.kernels, tests, script, script_span, self.types,
                       has_main, decls, exported)
        prog.containers = list(getattr(self, "containers", []))   # arenas and pools (containers_check)
        return prog

    # ------------------------------------------------------------------ imports (SPEC-04 section 11)

    def bind_imports(self):
        """Bind each import's alias (its last path segment unless `as` names one), or its selected names."""
        for d in self.m.imports:
            prog = self.modules[d.target]
            if prog.script is not None:
                raise _err("C3010", d.span, "module %s is a script (it has top-level statements); a script "
                           "cannot be imported" % prog.module.name)
            if d.selected is None:
                name = d.alias or d.path[-1]
                span = getattr(d, "name_span", None) or d.span
                self.declare(self.top, name, Symbol("module", name, info=prog, span=span), span)
                continue
            spans = getattr(d, "selected_spans", None) or [d.span] * len(d.selected)
            for n, sp in zip(d.selected, spans):
                sym = self.imported(prog, n, sp, "C3005")
                if n in self.top.names:
                    raise _err("C3002", sp, "the selected name `%s` is already bound in this module (LS-228)" % n)
                self.declare(self.top, n, sym, sp)
                self.selected.add(n)

    def imported(self, prog: Program, name, span, missing="C3005"):
        """The declaration ``name`` of an imported module: C3005 (C3006 for a type) if it has none, C3008
        if it does not export it (LS-227).  Imports are not transitive: a module's own imports are not
        among its declarations."""
        sym = prog.decls.get(name)
        if sym is None:
            raise _err(missing, span, "module %s has no declaration named `%s`" % (prog.module.name, name))
        if name not in prog.exported:
            raise _err("C3008", span, "`%s` is private to module %s; only `export` declarations are visible "
                       "to importers (LS-227)" % (name, prog.module.name),
                       help="add `export` to its declaration in %s" % prog.module.path)
        return sym

    def qualified(self, e):
        """The symbol that ``alias.name`` names, or None when ``e`` is not a name of an imported module."""
        if not (isinstance(e, A.Member) and isinstance(e.base, A.Name)):
            return None
        base = self.scope.lookup(e.base.ident)
        if base is None or base.kind != "module":
            return None
        e.base.ref = base
        sym = self.imported(base.info, e.name, e.span)
        e.ref = sym
        return sym

    def foreign(self, root):
        """Whether the name ``root`` reaches a declaration of an imported module: an alias, or a selected
        name.  Whether an importer may assign a module variable of another module is open (LS-227): we refuse."""
        return isinstance(root, A.Name) and getattr(root, "ref", None) is not None and (
            root.ref.kind == "module" or (root.ident in self.selected and root.ref is self.top.names.get(root.ident)))

    def part_span(self, te, k):
        """The position of the ``k``-th part of the qualified type name ``te`` (``vec.V3``: 0 ``vec``, 1 ``V3``)."""
        if k == 0 or te.span is None:
            return te.span
        if self._tok_index is None:
            from cint_compiler.syntax.lexer import lex
            try:
                self._toks = lex(self.m.source.encode("utf-8"), self.path)[1]
            except CompileError:
                self._toks = []
            self._tok_index = {(t.line, t.col): i for i, t in enumerate(self._toks)}
        i = self._tok_index.get((te.span.line, te.span.column))
        if i is None or i + 2 * k >= len(self._toks):
            return te.span
        t = self._toks[i + 2 * k]
        return Span(self.path, t.line, t.col)

    def _first_span(self, decl: A.VarDecl):
        return getattr(decl, "stmt_span", None) or decl.type.span if decl.type is not None else decl.span

    def define_enum(self, d: A.EnumDecl):
        if d.underlying is None:
            raise _err("C2030", d.span, "an enum declares its underlying integer type: `enum %s : U8 { ... }`" % d.name)
        ut = self.resolve_type(d.underlying)
        if not isinstance(ut, IntType):
            raise _err("C2030", d.underlying.span, "the underlying type of an enum is an integer type")
        qn = "%s.%s" % (self.modname, d.name)
        members = {}
        nxt = 0
        for e in d.members:
            if e.value is not None:
                nxt = self.const_int(e.value, ut)
            if not ut.contains(nxt) or nxt in members.values():
                raise _err("C2031", e.span, "enumerator `%s` has a duplicate value or does not fit %s" % (e.name, ut))
            if e.name in members:
                raise _err("C3001", e.span, "duplicate enumerator `%s`" % e.name)
            members[e.name] = nxt
            nxt += 1
        t = EnumType(qn, ut, members)
        self.top.names[d.name].type = t
        self.types[qn] = t

    def define_error(self, d: A.ErrorDecl):
        ut = U16
        if d.underlying is not None:
            ut = self.resolve_type(d.underlying)
            if not isinstance(ut, IntType) or ut.signed:
                raise _err("C2030", d.underlying.span, "the underlying type of an error set is an unsigned type")
        qn = "%s.%s" % (self.modname, d.name)
        if d.combined is not None:
            values, members = [], []
            for tn in d.combined:
                t = self.resolve_type(tn)
                if not isinstance(t, ErrorSetType):
                    raise _err("C3007", tn.span, "`%s` is not an error set" % tn.text)
                if t.qname in members:
                    continue
                members.append(t.qname)
                for v in t.values:
                    if v not in values:
                        values.append(v)
        else:
            values, members = [], []
            seen = set()
            for v in d.values:
                if v.name in seen:
                    raise _err("C3001", v.span, "duplicate error value `%s`" % v.name)
                seen.add(v.name)
                values.append((qn, v.name))
        if len(values) > ut.max:
            raise _err("C2031", d.span, "error set %s has more values than %s can number" % (d.name, ut))
        t = ErrorSetType(qn, ut, values, members)
        self.top.names[d.name].type = t
        self.types[qn] = t

    def define_struct_shell(self, d: A.StructDecl):
        for a in d.attrs:
            if a.name == "packed" and not a.args:
                continue    # LS-75: alignment 1, no padding (struct_layout)
            raise unsupported(a.span, "the attribute @%s" % a.name)
        qn = "%s.%s" % (self.modname, d.name)
        t = StructType(qn, d, [])
        self.top.names[d.name].type = t
        self.types[qn] = t

    def define_struct_fields(self, d: A.StructDecl):
        t = self.top.names[d.name].type
        seen = set()
        for f in d.fields:
            if f.name in seen:
                raise _err("C3001", f.span, "duplicate field `%s`" % f.name)
            seen.add(f.name)
            ft = self.resolve_type(f.type)
            self.storable(ft, f.type.span or f.span)
            if isinstance(ft, (ArenaType, PoolType)):
                raise _err("C2051", f.type.span or f.span, "a struct field cannot be an arena or a pool: they are "
                           "second-class values, like views")
            if isinstance(ft, StrType):
                raise _err("C2051", f.span, "a struct field cannot have type Str or a view type")
            width = None
            if f.bits is not None:
                width = self.bit_width(f, ft)
            if f.default is not None:
                from cint_compiler.check.features import proposed as proposed_check
                proposed_check.field_default(self, f, ft, width)     # LS-77 (Proposed), decision 28
            for a in f.attrs:
                raise unsupported(a.span, "the attribute @%s" % a.name)
            if isinstance(ft, ArrayType) and any(not isinstance(x, int) for x in ft.dims):
                raise _err("C2010", f.type.span, "a struct field array has constant extents")
            t.fields.append((f.name, ft, width))
        self.fielding.discard(t.qname)
        self._check_no_self(t, t, d.span)

    def bit_width(self, f, ft):
        """A bit field's width (LS-81, LS-82): a constant I64 from 1 to the width of its type, which is
        I8..I64, U8..U64 (C2001 otherwise; our choice), or Bool with width 1.  Enum, fixed-point and
        I128..I1024 bit fields: C9102."""
        if isinstance(ft, (EnumType, FixedType)) or (isinstance(ft, IntType) and ft.bits > 64):
            raise unsupported(f.bits.span or f.span, "a bit field of type %s" % ft)
        if not isinstance(ft, (IntType, BoolType)):
            raise _err("C2001", f.type.span or f.span, "a bit field has an integer type or Bool, not %s" % ft)
        saved_fn, saved_scope = self.fn, self.scope
        self.fn = FnCtx(kind="const")
        self.scope = Scope(self.top)
        try:
            w = self.const_int(f.bits, I64)
        finally:
            self.fn, self.scope = saved_fn, saved_scope
        top = 1 if isinstance(ft, BoolType) else ft.bits
        if not 1 <= w <= top:
            raise _err("C2003", f.bits.span or f.span, "the width of a %s bit field is %s, not %d (LS-82)"
                       % (ft, "1" if top == 1 else "1 to %d" % top, w))
        return w

    @staticmethod
    def _extent_names(te, name):
        """Whether the parameter type ``te`` names the size parameter ``name`` as an extent (LS-117)."""
        return isinstance(te, A.ArrayTypeExpr) and any(
            dm.expr is not None and isinstance(dm.expr, A.Name) and dm.expr.ident == name for dm in te.dims)

    def _check_no_self(self, root, t, span, seen=None):
        for i, (_, ft, _) in enumerate(t.fields):
            if t is root and root.decl is not None and i < len(root.decl.fields):
                span = root.decl.fields[i].span or span   # C2055 at the field that closes the cycle
            inner = ft.elem if isinstance(ft, ArrayType) else ft
            if isinstance(inner, StructType):
                if inner == root:
                    raise _err("C2055", span, "struct %s contains itself" % root.name())
                self._check_no_self(root, inner, span)

    def declare_function(self, d):
        for a in d.attrs:
            raise unsupported(a.span, "the attribute @%s" % a.name)
        is_kernel = isinstance(d, A.KernelDecl)
        qn = "%s.%s" % (self.modname, d.name)
        sizes = []
        for s in d.size_params:
            sizes.append(Symbol("sizeparam", s, I64, decl=d))
        info = FuncInfo(d, qn, VOID, [], sizes, is_kernel, module=self.modname)
        sym = Symbol("kernel" if is_kernel else "func", d.name, decl=d, info=info, span=d.span)
        self.declare(self.top, d.name, sym, d.span)
        # parameters need size symbols in scope for their types
        sc = Scope(self.top)
        size_spans = getattr(d, "size_param_spans", None) or [d.span] * len(sizes)
        for s, sp in zip(sizes, size_spans):
            self.declare(sc, s.name, s, sp)
        if not is_kernel:
            for s, sp in zip(sizes, size_spans):
                if not any(self._extent_names(p.type, s.name) for p in d.params):
                    raise _err("C2065", sp, "size parameter `%s` is bound by no view parameter; name it as an "
                               "extent of one, such as `in I64[%s] xs`" % (s.name, s.name))
        saved = self.scope
        self.scope = sc
        try:
            if not is_kernel:
                if d.result_mode is not None:
                    raise unsupported(d.result.span or d.span, "a view result")
                info.result = VOID if isinstance(d.result, A.VoidTypeExpr) else self.resolve_type(d.result)
                if d.where is not None and not sizes:
                    raise _err("C2001", d.where.span, "a `where` clause states requirements on size parameters, "
                               "and `%s` has none (LS-118)" % d.name)
            seen_default = False
            self.computed_syms = set()
            for i, p in enumerate(d.params):
                pt = self.resolve_type(p.type, param=True)
                self.storable(pt, p.type.span or p.span)
                if is_kernel and mentions_memory(pt):
                    raise _err("C9102", p.type.span or p.span, "a kernel cannot take arenas, pools or handles "
                               "(docs/language.md decision 24)")
                mode = p.mode or "in"
                if not is_kernel and mode == "out":
                    raise _err("C5001", p.span, "`out` is for kernels; a function returns results or takes `inout`")
                if mode == "inout" and not isinstance(pt, (ArrayType, StructType, ArenaType, PoolType)):
                    raise _err("C2064", p.span, "an `inout` parameter is an array or a struct")
                if p.default is not None:
                    if mode == "inout" and not is_kernel:
                        # LS-125: there is no shared mutable default (our reading: none for `inout`)
                        raise _err("C2058", p.default.span or p.span, "an `inout` parameter has no default: "
                                   "there is no shared mutable default (LS-125)")
                    if is_kernel or isinstance(pt, (StructType, StrType)):
                        raise unsupported(p.default.span or p.span, "a default argument of this parameter")
                    seen_default = True
                elif seen_default:
                    raise _err("C2061", p.span, "parameter `%s` has no default but follows one that has (LS-124)"
                               % p.name)
                ps = Symbol("param", p.name, pt, decl=p, mutable=(mode == "inout"), span=p.span)
                ps.info = mode
                info.params.append(ps)
            for s, sp in zip(sizes, size_spans):
                # only a plain extent binds a size parameter (SPEC-02 K-6); `n + 1` alone cannot
                if s.name in self.computed_syms and not any(self._extent_names(p.type, s.name) for p in d.params):
                    raise _err("C2065", sp, "size parameter `%s` occurs only in computed extents, which do not "
                               "bind it; name it alone as an extent of one parameter, such as `in I64[%s] xs`"
                               % (s.name, s.name))
            if is_kernel:
                if d.over is None:      # element form (LS-247): rewritten into the over form
                    from cint_compiler.check.features.reduce import element_form
                    element_form(d, info)
                for ov in d.over:
                    info.over.append(Symbol("overvar", ov.name, I64, decl=ov, span=ov.span))
                if d.where and not sizes:
                    raise _err("C2001", d.where[0].span, "a `where` clause states requirements on size "
                               "symbols, and `%s` has none (LS-244)" % d.name)
        finally:
            self.scope = saved
        if is_kernel:
            self.kernels[d.name] = info
        else:
            self.functions[d.name] = info

    def where_clause(self, w):
        """A function's `where` clause (LS-118, Proposed; our reading, docs/language.md): a Bool expression of
        comparisons, `&&`, `||` and `!` whose operands are the size parameters and constant expressions, so that
        it cannot fault and counts no step.  It is checked at the call after `bind.shape` and before
        `bind.alias`; false faults E_SHAPE `bind.where` at the callee name."""
        self.expr(w, BOOL)
        if w.ty != BOOL:
            raise _err("C2002", w.span, "a `where` clause is a Bool condition, not %s" % w.ty)
        self.fold(w)
        self.flush_pending()

        def ok(x):
            if x.cval is not NOTCONST or isinstance(x, (A.IntLit, A.BoolLit)):
                return True
            if isinstance(x, A.Paren):
                return ok(x.inner)
            if isinstance(x, A.Name):
                return x.ref.kind == "sizeparam"
            if isinstance(x, A.Unary) and x.op == "!":
                return ok(x.operand)
            if isinstance(x, A.Binary) and (x.op in CMP_OPS or x.op in LOGIC_OPS):
                return ok(x.left) and ok(x.right)
            raise unsupported(x.span, "this operation in a `where` clause (only comparisons, `&&`, `||` and `!` "
                              "of size parameters and constants)")
        ok(w)

    def check_defaults(self, info):
        """Default arguments (LS-124, LS-125): constant expressions of the parameter's type, evaluated at
        compile time, once, in the callee's module; a call that omits the argument uses the folded value
        and evaluates nothing (no step)."""
        for p in info.params:
            dflt = p.decl.default
            if dflt is None:
                continue
            self.fn = FnCtx(kind="const")
            self.scope = Scope(self.top)
            try:
                if isinstance(p.type, ArrayType):
                    # an `in` array: a constant array (an array literal of constants or a constant array's
                    # name), folded once; an omitted argument binds a read-only view of it (LS-125)
                    self.expr(dflt, p.type)
                    if not isinstance(dflt.ty, ArrayType) or dflt.ty.elem != p.type.elem \
                            or dflt.ty.rank != p.type.rank:
                        raise _err("C2001", dflt.span, "expected %s, found %s" % (p.type, dflt.ty))
                    self.fold(dflt)
                    self.flush_pending()
                    dflt.cval = self.const_array(p.type, dflt)
                else:
                    self.expr(dflt, p.type)
                    self.assignable(p.type, dflt, dflt.span)
                    self.fold(dflt)
                    self.flush_pending()
            finally:
                self.fn = None
                self.scope = self.top
            if dflt.cval is NOTCONST:
                raise _err("C6004", dflt.span, "a default argument is a constant expression (LS-125)")
            dflt.csteps = 0
            dflt.is_default = True      # checked here, in the callee's module; `arg` leaves it alone

    def declare_global(self, g: A.GlobalDecl, is_script):
        d = g.decl
        if d.mode is not None:
            raise _err("C2051", d.span, "a module-level variable cannot be a view")
        if d.type is None:
            from cint_compiler.check.features import proposed as proposed_check
            return proposed_check.global_var(self, g)      # LS-105 (Proposed), decision 27
        t = self.resolve_type(d.type)
        self.storable(t, d.type.span or d.span)
        if isinstance(t, StrType):
            raise _err("C2051", d.span, "a module-level variable cannot have type Str")
        if isinstance(t, (ArenaType, PoolType)):
            raise _err("C2051", d.type.span or d.span, "a module-level variable cannot be an arena or a pool; "
                       "declare one with a capacity: `Arena(T, N) name;`")
        if isinstance(t, ArrayType) and any(not isinstance(x, int) for x in t.dims):
            raise _err("C6004", d.span, "a module-level array has constant extents")
        sym = Symbol("const" if d.is_const else "global", d.name, t, decl=d, mutable=not d.is_const,
                     module=self.modname, span=d.span)
        if d.init is not None:
            self.fn = FnCtx(kind="const")
            self.scope = Scope(self.top)
            self.expr(d.init, t)
            self.assignable(t, d.init, d.init.span)
            self.fold(d.init)
            self.flush_pending()
            self.fn = None
            self.scope = self.top
            value = d.init.cval if d.init.cval is not NOTCONST else self.const_array(t, d.init)
            if value is NOTCONST:
                raise _err("C6004", d.init.span, "a constant expression is required here",
                           help="this file is a module, not a script, because every top-level item is a declaration")
            sym.value = value
        elif d.is_const:
            raise _err("C1050", d.span, "a constant has an initializer")
        elif not has_zero(t):
            # at the first character of the declaration, its type (LS-278)
            raise _err("C2054", d.type.span if d.type is not None else d.span,
                       "`%s` needs an initializer: %s has no zero value (an error set, or an enum "
                       "without an enumerator of value 0, inside it; LS-91)" % (d.name, t.name()))
        self.declare(self.top, d.name, sym, d.span)
        if not d.is_const:
            self.globals.append(sym)

    # ------------------------------------------------------------------ types

    def resolve_type(self, te, allow_runtime_dims=False, param=False) -> Type:
        if isinstance(te, A.TypeName):
            text = te.text
            if text in INT_TYPES:
                return INT_TYPES[text]
            if text == "Bool":
                return BOOL
            if text == "Str":
                return STR
            if text == "Round":
                return ROUND
            if text in ("T1", "T27", "PT5", "PT4"):
                raise unsupported(te.span, "the ternary type %s" % text)
            if text in ("Arena", "Pool", "Handle"):
                return self.container_type(te)
            ft = parse_fixed_name(text)
            if ft is not None:
                if not fixed_valid(ft):
                    raise _err("C2005", te.span, "%s is not a fixed-point type: i + f is 8, 16, 32 or 64 and i >= 1" % text)
                return ft
            if len(te.parts) > 1:
                return self.qualified_type(te)
            sym = self.scope.lookup(text) or self.top.lookup(text)
            if text == "ArithError":
                return ARITH_ERROR
            if text == "AllocError" and sym is None:
                return ALLOC_ERROR
            if text in ("FormatError", "Utf8Error") and sym is None:
                return FORMAT_ERROR if text == "FormatError" else UTF8_ERROR
            if sym is None:
                raise _err("C3006", te.span, "unknown type `%s`" % text)
            if sym.kind not in ("struct", "enum", "error", "alias"):
                raise _err("C3007", te.span, "`%s` is not a type" % text)
            if sym.type is None:
                raise _err("C3006", te.span, "type `%s` is used before it is complete" % text)
            return sym.type
        if isinstance(te, A.ArrayTypeExpr):
            elem = self.resolve_type(te.elem)
            self.storable(elem, te.elem.span or te.span)
            if isinstance(elem, ArrayType):
                raise _err("C2010", te.span, "an array of arrays is written with one shape: T[a, b]")
            if len(te.dims) > 4:
                raise _err("C2010", te.span, "an array has rank 1 to 4")
            dims = []
            for dm in te.dims:
                if dm.lower is not None:
                    raise unsupported(dm.span or te.span, "a declared lower bound")
                if dm.any:
                    dims.append(None)
                    continue
                e = dm.expr
                if isinstance(e, A.Name):
                    s = self.scope.lookup(e.ident)
                    if s is not None and s.kind == "sizeparam":
                        dims.append(s.name)
                        continue
                if param:
                    x = self.computed_extent(e)
                    if x is not None:
                        dims.append(x)
                        continue
                self.expr(e, I64)
                if e.ty != I64:
                    raise _err("C2001", e.span, "an extent has type I64, not %s" % e.ty)
                self.fold(e)
                if e.cval is not NOTCONST:
                    if e.cval < 0:
                        raise _err("C2015", e.span, "extent %d is negative" % e.cval)
                    dims.append(e.cval)
                elif allow_runtime_dims:
                    dims.append(e)
                elif param:
                    raise _err("C6004", e.span, "an extent of a parameter type is `_`, a constant, a size "
                               "parameter `s`, or `s + c`, `s - c` or `c + s` with a constant c")
                else:
                    raise _err("C6004", e.span, "an extent here is a constant or a size parameter")
            return ArrayType(elem, tuple(dims))
        if isinstance(te, A.ErrorUnionTypeExpr):
            es = self.resolve_type(te.errset)
            if not isinstance(es, ErrorSetType):
                raise _err("C3007", te.errset.span, "`%s` is not an error set" % te.errset.text)
            vt = VOID if te.value is None else self.resolve_type(te.value)
            return ErrorUnionType(es, vt)
        if isinstance(te, A.TupleTypeExpr):
            items = []
            for x in te.items:
                xt = self.resolve_type(x)
                if isinstance(xt, TupleType):
                    raise _err("C2041", x.span or te.span, "tuples do not nest (LS-101)")
                if xt is VOID or isinstance(xt, ErrorUnionType):
                    raise _err("C2001", x.span or te.span, "a tuple element is a value type, not %s" % xt)
                items.append(xt)
            return TupleType(tuple(items))
        if isinstance(te, A.VoidTypeExpr):
            return VOID
        raise _err("C1050", te.span, "not a type")

    def computed_extent(self, e):
        """A computed extent of a parameter type (A-21's (symbol, offset)): `s + c`, `s - c` or `c + s` with
        `s` a size parameter of the callee and `c` a constant I64 expression; None for any other form.
        The size parameter is recorded in ``self.computed_syms``: it must also be a plain extent
        somewhere (C2065), since only plain extents bind (SPEC-02 K-6)."""
        if not (isinstance(e, A.Binary) and e.op in ("+", "-")):
            return None

        def size_name(x):
            if isinstance(x, A.Name):
                s = self.scope.lookup(x.ident)
                if s is not None and s.kind == "sizeparam":
                    return s
            return None
        sym, c, sign = size_name(e.left), e.right, 1
        if sym is None:
            if e.op != "+":
                return None
            sym, c = size_name(e.right), e.left
            if sym is None:
                return None
        elif e.op == "-":
            sign = -1
        if size_name(c) is not None:
            return None
        self.expr(c, I64)
        if c.ty != I64:
            raise _err("C2001", c.span, "the constant of an extent has type I64, not %s" % c.ty)
        self.fold(c)
        if c.cval is NOTCONST:
            raise _err("C6004", c.span, "an extent of a parameter type is `_`, a constant, a size parameter "
                       "`s`, or `s + c`, `s - c` or `c + s` with a constant c")
        off = sign * c.cval
        if not -(1 << 63) <= off < (1 << 63):
            raise _err("C6004", c.span, "the offset %d of extent `%s` is not an I64" % (off, sym.name))
        getattr(self, "computed_syms", set()).add(sym.name)
        return sym.name if off == 0 else SymExtent(sym.name, off)

    def qualified_type(self, te) -> Type:
        """``alias.Name``: an exported type of an imported module (LS-225, LS-227)."""
        head = te.parts[0]
        base = self.scope.lookup(head)
        if base is None:
            raise _err("C3006", te.span, "unknown type `%s`: `%s` is not an imported module" % (te.text, head))
        if base.kind != "module":
            raise _err("C3007", te.span, "`%s` is not an imported module, so `%s` does not name a type"
                       % (head, te.text))
        span = self.part_span(te, 1)
        sym = self.imported(base.info, te.parts[1], span, "C3006")
        if len(te.parts) > 2 or sym.kind not in ("struct", "enum", "error", "alias"):
            raise _err("C3007", span, "`%s.%s` is not a type" % (head, te.parts[1]))
        if sym.type is None:
            raise _err("C3006", span, "type `%s` is used before it is complete" % te.text)
        return sym.type

    def storable(self, t, span):
        """Tuples exist only as results, consumed by destructuring (LS-101)."""
        if isinstance(t, TupleType):
            raise _err("C2041", span, "a tuple cannot be stored in a variable, array, field or parameter (LS-101)")

    # ------------------------------------------------------------------ function bodies

    def check_function(self, info: FuncInfo):
        d = info.decl
        self.fn = FnCtx(info, "kernel" if info.is_kernel else "func", info.result)
        self.scope = Scope(self.top)
        for s in info.size_params:
            self.declare(self.scope, s.name, s, d.span)
        for p in info.params:
            self.declare(self.scope, p.name, p, p.span)
        for ov in info.over:
            self.declare(self.scope, ov.name, ov, ov.span)
        if info.is_kernel:
            for ov in d.over:
                self.expr(ov.extent, I64)
                if not (isinstance(ov.extent, A.Name) and ov.extent.ref.kind == "sizeparam"):
                    raise unsupported(ov.extent.span, "an `over` extent that is not a size symbol")
            for p in info.params:
                if not (isinstance(p.type, ArrayType) or isinstance(p.type, (IntType, FixedType))):
                    raise _err("C5028", p.span, "a kernel parameter has an integer or fixed-point element type")
        if isinstance(info.result, ErrorUnionType):
            self.knote("C5022", d.result.span or d.span, "returns an error union")
        if info.is_kernel:
            for w in d.where or []:
                self.where_clause(w)
        elif d.where is not None:
            self.where_clause(d.where)
        self.block(d.body, new_scope=False)
        if info.is_kernel:
            self.kernel_coverage(info, d.body)
            from cint_compiler.check.features.reduce import finish_kernel
            finish_kernel(self, info)
        if info.result is not VOID and self.can_complete(d.body) and not (
                isinstance(info.result, ErrorUnionType) and info.result.value is VOID):   # E!void ends ok (LS-190)
            raise _err("C4001", d.span, "`%s` can reach its end without returning a value" % d.name)
        self.flush_pending()
        info.prints = self.fn.prints
        info.kviol = self.fn.kviol
        info.kcalls = self.fn.kcalls
        info.gwrites = self.fn.gwrites
        info.kchecked = True
        self.fn = None
        self.scope = self.top

    def check_test(self, t: A.TestDecl):
        if t.expect_fault is not None:
            from cint_abi.codes import FAULT_CODES
            if t.expect_fault not in FAULT_CODES:
                raise _err("C1011", t.expect_fault_span or t.span, "unknown fault name %s" % t.expect_fault)
        self.fn = FnCtx(kind="test", result=VOID)
        self.scope = Scope(self.top)
        self.block(t.body, new_scope=False)
        self.flush_pending()
        self.fn = None
        self.scope = self.top

    def check_static_assert(self, s: A.StaticAssert):
        self.fn = FnCtx(kind="const")
        self.scope = Scope(self.top)
        self.expr(s.cond, BOOL)
        if s.cond.ty != BOOL:
            raise _err("C2002", s.cond.span, "a static_assert condition is Bool")
        self.fold(s.cond)
        self.flush_pending()
        self.fn = None
        self.scope = self.top
        if s.cond.cval is NOTCONST:
            raise _err("C6004", s.cond.span, "static_assert needs a constant condition")
        if s.cond.cval is not True:
            raise _err("C6010", s.span, "static_assert failed")   # LS-313: the `static_assert` keyword

    def can_complete(self, s) -> bool:
        """Whether a statement can complete normally (LS-116: every loop can complete)."""
        if isinstance(s, A.Block):
            for x in s.stmts:
                if not self.can_complete(x):
                    return False
            return True
        if isinstance(s, (A.Return, A.Break, A.Continue, A.Fallthrough)):
            # a `fallthrough` continues into the next body, which is judged on its own
            return False
        if isinstance(s, A.If):
            if s.other is None:
                return True
            return self.can_complete(s.then) or self.can_complete(s.other)
        if isinstance(s, A.Switch):
            if s.default is None and not getattr(s, "exhaustive", False):
                return True
            bodies = [c.body for c in s.cases] + ([s.default] if s.default is not None else [])
            return any(self.can_complete(A.Block(b)) for b in bodies) or any(
                self._breaks_switch(b) for b in bodies)
        if isinstance(s, A.Assert):
            return True
        return True

    def _breaks_switch(self, stmts):
        """Whether an unlabelled `break` in these statements leaves the switch that holds them (LS-180)."""
        for x in stmts:
            if isinstance(x, A.Break):
                if x.label is None:
                    return True
            elif isinstance(x, A.Block):
                if self._breaks_switch(x.stmts):
                    return True
            elif isinstance(x, A.If):
                if self._breaks_switch(x.then.stmts) or (
                        x.other is not None and self._breaks_switch([x.other])):
                    return True
            # a loop or a nested switch takes its own unlabelled breaks; a deferred statement cannot leave
            if any(self._breaks_switch(b.stmts) for b in self._catch_blocks(x)):
                return True
        return False

    def _catch_blocks(self, s):
        """The `catch (e) { ... }` blocks in the expressions of statement ``s`` itself (not of nested blocks)."""
        out = []
        todo = []
        for name in ("value", "init", "expr", "cond", "place", "scrutinee"):
            v = getattr(s, name, None)
            if isinstance(v, A.Expr):
                todo.append(v)
        if isinstance(s, A.Print):
            todo.extend(p.expr for p in s.text.parts if isinstance(p, A.Hole))
        while todo:
            e = todo.pop()
            if isinstance(e, A.Catch) and e.block is not None:
                out.append(e.block)
            for f in vars(e).values():
                if isinstance(f, A.Expr):
                    todo.append(f)
                elif isinstance(f, list):
                    for x in f:
                        if isinstance(x, A.Expr):
                            todo.append(x)
                        elif isinstance(x, A.Arg) and isinstance(x.value, A.Expr):
                            todo.append(x.value)
        return out

    def block(self, b: A.Block, new_scope=True):
        if new_scope:
            saved = self.scope
            self.scope = Scope(saved)
        for s in b.stmts:
            self.stmt(s)
        if new_scope:
            self.scope = saved

    def stmt(self, s):
        meth = getattr(self, "s_" + type(s).__name__, None)
        if meth is None:
            raise unsupported(s.span, "this statement form (%s)" % type(s).__name__)
        meth(s)
        self.flush_pending()

    def flush_pending(self):
        if self.pending:
            errs = sorted(self.pending, key=lambda e: e.sort_key())
            self.pending = []
            raise errs[0]

    def s_Block(self, s):
        self.block(s)

    def s_GlobalDecl(self, s):
        self.s_VarDecl(s.decl)

    def s_VarDecl(self, d: A.VarDecl):
        if d.mode is not None:
            return self.view_decl(d)
        if d.type is None:
            from cint_compiler.check.features import proposed as proposed_check
            return proposed_check.var_decl(self, d)        # LS-105 (Proposed), decision 27
        t = self.resolve_type(d.type, allow_runtime_dims=True)
        self.storable(t, d.type.span or d.span)
        d.resolved = t
        if isinstance(t, ArrayType) and any(x is None for x in t.dims):
            raise _err("C2010", d.type.span, "a declared array has known extents")
        if isinstance(t, ArrayType):
            self.private_array(d, t)
        if d.init is None:
            if d.is_const:
                raise _err("C1050", d.span, "a constant has an initializer")
            if isinstance(t, (ArenaType, PoolType)):
                raise _err("C2050", d.span, "`%s` needs an initializer: an arena or pool it names" % d.name)
            if isinstance(t, (IntType, FixedType, BoolType, StrType, EnumType, ErrorSetType)) and not isinstance(
                    t, ArrayType):
                if isinstance(t, EnumType) and 0 in t.members.values():
                    pass
                else:
                    raise _err("C2050", d.span, "`%s` needs an initializer" % d.name)
            if isinstance(t, (ArrayType, StructType)) and not has_zero(t):
                # at the first character of the declaration, its type (LS-278)
                raise _err("C2054", d.type.span if d.type is not None else d.span,
                           "`%s` needs an initializer: %s has no zero value (an error set, or an enum "
                           "without an enumerator of value 0, inside it; LS-91)" % (d.name, t.name()))
        else:
            self.expr(d.init, t)
            self.assignable(t, d.init, d.init.span)
            self.fold(d.init)
        sym = Symbol("const" if d.is_const else "local", d.name, t, decl=d, mutable=not d.is_const, span=d.span)
        if d.is_const:
            self.flush_pending()
            value = d.init.cval if d.init.cval is not NOTCONST else self.const_array(t, d.init)
            if value is NOTCONST:
                raise _err("C6004", d.init.span, "a constant expression is required here")
            sym.value = value
        d.sym = sym
        self.declare(self.scope, d.name, sym, d.span)
        if isinstance(t, StrType):
            from cint_compiler.check.features import textops as textops_check
            textops_check.declared(self, sym, d.init)

    def s_Assign(self, s: A.Assign):
        from cint_compiler.check.features import proposed as proposed_check
        if proposed_check.subword_assign(self, s):     # `x.byte[k] = v;` (LS-86, Proposed), decision 31
            return
        if isinstance(s.place, A.Name) and s.op == "=" and getattr(self, "_str_info", None):
            self._str_lhs = s.place      # rebinding a Str variable is not a use of it (textops_check.used)
        pt = self.place(s.place)
        if s.op == "=":
            self.expr(s.value, pt)
            self.assignable(pt, s.value, s.value.span)
            if isinstance(pt, ArrayType):
                self.copy_alias_static(s.place, s.value, start_span(s.value))
            if isinstance(pt, StrType):
                from cint_compiler.check.features import textops as textops_check
                textops_check.assigned(self, s.place, s.value)
        else:
            op = s.op[:-1]
            if isinstance(pt, (ArrayType, StructType)):
                raise _err("C2103", s.span, "`%s` is not defined for %s" % (s.op, pt))
            if op in SHIFT_OPS:
                self.expr(s.value, None)
                if not isinstance(s.value.ty, IntType):
                    raise _err("C2001", s.value.span, "a shift count is an integer")
                if not isinstance(pt, IntType):
                    raise _err("C2103", s.span, "a shift is defined on integers")
            else:
                self.expr(s.value, pt)
                if s.value.ty != pt:
                    raise _err("C2001", s.value.span, "expected %s, found %s" % (pt, s.value.ty))
                self.check_binop_types(op, pt, s.span)
        self.fold(s.value)

    def s_IncDec(self, s: A.IncDec):
        pt = self.place(s.place)
        if not isinstance(pt, (IntType, FixedType)):
            raise _err("C2103", s.span, "`%s` is defined on integers" % s.op)
        if isinstance(pt, FixedType):
            raise _err("C2103", s.span, "`%s` is defined on integers" % s.op)

    def s_ExprStmt(self, s: A.ExprStmt):
        e = s.expr
        if s.in_place:
            raise unsupported(s.span, "`in_place` dispatch")
        inner = e.operand if isinstance(e, A.Try) else e
        if not isinstance(inner, A.Call):
            raise _err("C4012", s.span, "only calls, assignments, declarations and prints stand as statements")
        self.expr(e, None, allow_tuple=True)
        if isinstance(e, A.Call) and isinstance(e.ty, ErrorUnionType):
            raise _err("C2040", e.span, "an error union is consumed with try, catch or `_ =`")
        if e.ty not in (VOID, None) and not isinstance(e, A.Try):
            raise _err("C4011", e.span, "the result of this call is unused; discard it with `_ = ...;`")
        if isinstance(e, A.Try) and e.ty is not VOID:
            raise _err("C4011", e.span, "the result of this call is unused; discard it with `_ = ...;`")

    KERNEL_PRIVATE_BYTES = 4096    # SPEC-04 LS-110, SPEC-02 K-13

    def private_array(self, d, t):
        """C5029 (LS-110): a kernel's private arrays have compile-time extents and take at most 4,096 bytes
        per work-item, counting every private array the body declares; a function with a run-time extent is
        not kernel-admissible."""
        k = next((k for k, x in enumerate(t.dims) if not isinstance(x, int)), None)
        if k is not None:
            dm = d.type.dims[k] if isinstance(d.type, A.ArrayTypeExpr) and k < len(d.type.dims) else None
            span = (start_span(dm.expr) if dm is not None and dm.expr is not None else None) or d.type.span or d.span
            if self.fn.kind == "kernel":
                raise _err("C5029", span, "a private array of a kernel has compile-time extents (LS-110)")
            self.knote("C5029", span, "declares an array with a run-time extent")
            return
        if self.fn.kind != "kernel":
            return
        n = 1
        for x in t.dims:
            n *= x
        self.fn.kbytes += n * _elem_bytes(t.elem)
        if self.fn.kbytes > self.KERNEL_PRIVATE_BYTES:
            raise _err("C5029", d.type.span or d.span, "the private arrays of this kernel take %d bytes per "
                       "work-item; at most %d are allowed (LS-110)" % (self.fn.kbytes, self.KERNEL_PRIVATE_BYTES))

    def s_Discard(self, s: A.Discard):
        self.expr(s.value, None, allow_union=True, allow_tuple=True)
        self.fold(s.value)

    def s_Print(self, s: A.Print):
        if self.fn.kind == "kernel":
            raise _err("C5020", s.span, "a kernel cannot print")
        self.knote("C5020", s.span, "prints")
        self.fn.prints = True
        self.check_holes(s.text)

    def check_holes(self, text: A.StrLit):
        from cint_compiler.semantics import fmt
        for p in text.parts:
            if isinstance(p, A.Hole):
                self.expr(p.expr, None)
                self.fold(p.expr)
                p.fspec = fmt.parse_spec(p.spec, p.conv, p.expr.ty, p.span)

    def s_If(self, s: A.If):
        self.cond(s.cond)
        self.block(s.then)
        if s.other is not None:
            if isinstance(s.other, A.If):
                self.s_If(s.other)
            else:
                self.block(s.other)

    def cond(self, e):
        self.expr(e, BOOL)
        if e.ty != BOOL:
            raise _err("C2002", e.span if not isinstance(e, A.Binary) else start_span(e),
                       "a condition is Bool; write `x != 0`")
        self.fold(e)

    def loop_body(self, body, label):
        start = self._view_tick()
        self.fn.loops.append(label)
        self.block(body)
        self.fn.loops.pop()
        self.views_in_loop(start)

    def s_While(self, s: A.While):
        self.cond(s.cond)
        self.loop_body(s.body, s.label)

    def s_DoWhile(self, s: A.DoWhile):
        self.loop_body(s.body, s.label)
        self.cond(s.cond)

    def s_ForC(self, s: A.ForC):
        saved = self.scope
        self.scope = Scope(saved)
        if s.init is not None:
            self.stmt(s.init)
        self.cond(s.cond)
        start = self._view_tick()
        self.fn.loops.append(s.label)
        self.block(s.body)
        if s.update is not None:
            self.stmt(s.update)
        self.fn.loops.pop()
        self.views_in_loop(start)
        self.scope = saved

    def s_ForRange(self, s: A.ForRange):
        for e in (s.lo, s.hi):
            self.expr(e, I64)
            if e.ty != I64:
                raise _err("C2001", e.span, "a range bound has type I64, not %s" % e.ty)
            self.fold(e)
        if s.step is not None:
            self.expr(s.step, I64)
            self.fold(s.step)
            if s.step.ty != I64 or s.step.cval is NOTCONST or s.step.cval == 0:
                raise _err("C2053", s.step.span, "`by` takes a nonzero constant")
        saved = self.scope
        self.scope = Scope(saved)
        sym = Symbol("local", s.var, I64, mutable=False, span=s.var_span or s.span)
        sym.info = "loopvar"
        s.sym = sym
        if s.var is not None:
            self.declare(self.scope, s.var, sym, s.var_span or s.span)
        self.loop_body(s.body, s.label)
        self.scope = saved

    def s_ForEach(self, s: A.ForEach):
        self.expr(s.iterable, None)
        t = s.iterable.ty
        if not isinstance(t, ArrayType) or t.rank != 1:
            raise _err("C2103", s.iterable.span, "`for x in` iterates a rank-1 array or view")
        saved = self.scope
        self.scope = Scope(saved)
        s.isym = Symbol("local", s.index, I64, mutable=False)
        s.isym.info = "loopvar"
        s.xsym = Symbol("local", s.var, t.elem, mutable=False)
        s.xsym.info = "loopvar"
        if s.index is not None:
            self.declare(self.scope, s.index, s.isym, s.span)
        if s.var is not None:
            self.declare(self.scope, s.var, s.xsym, s.span)
        self.loop_body(s.body, s.label)
        self.view_iterated(s.iterable)
        self.scope = saved

    def s_Break(self, s: A.Break):
        self.check_jump(s, "break", switch_ok=True)

    def s_Continue(self, s: A.Continue):
        self.check_jump(s, "continue", switch_ok=False)

    def check_jump(self, s, word, switch_ok):
        """A break or continue needs an enclosing loop (or, for an unlabelled break, a switch) and
        must not leave a deferred statement (LS-184, LS-187)."""
        fn = self.fn
        if s.label is None and (fn.loops or (switch_ok and fn.in_switch)):
            return
        if s.label is not None and s.label in fn.loops:
            return
        if fn.in_defer:
            raise _err("C4030", s.span, "`%s` would leave the deferred statement (LS-187)" % word)
        if s.label is None:
            raise _err("C4013", s.span, "`%s` outside a loop%s" % (word, " or switch" if switch_ok else ""))
        raise _err("C3005", s.span, "no enclosing loop is labelled `%s`" % s.label)

    def s_Return(self, s: A.Return):
        rt = self.fn.result
        if self.fn.kind in ("kernel",):
            raise _err("C4012", s.span, "a kernel has no result")
        if self.fn.in_defer:
            raise _err("C4030", s.span, "`return` would leave the deferred statement (LS-187)")
        if s.value is None:
            if rt is not VOID and not (isinstance(rt, ErrorUnionType) and rt.value is VOID):
                raise _err("C2066", s.span, "`return` needs a value of type %s" % rt)
            return
        if rt is VOID:
            raise _err("C2066", s.value.span, "a void function returns no value")
        if isinstance(rt, ErrorUnionType):
            v = s.value
            # an error value of the set, or a success value
            if isinstance(v, (A.DotName, A.Member, A.Name)) and self._is_error_value(v, rt.errset):
                self.expr(v, rt.errset)
                s.is_error = True
                return
            if rt.value is VOID:
                raise _err("C2066", s.value.span, "an `E!void` function returns no success value")
            self.expr(v, rt.value, allow_tuple=isinstance(rt.value, TupleType))
            if isinstance(v.ty, ErrorSetType):
                if not all(rt.errset.tag_of(x) for x in v.ty.values):
                    # a wider set never converts to the result's set: C2042 at `return` (LS-97)
                    raise _err("C2042", start_span(v), "a value of %s is not a value of %s, the error set of "
                                                       "the result" % (v.ty, rt.errset))
                self.assignable(rt.errset, v, v.span)
                s.is_error = True
                return
            self.assignable(rt.value, v, v.span)
            self.fold(v)
            from cint_compiler.check.features import textops as textops_check
            textops_check.check_return(self, v)
            return
        self.expr(s.value, rt, allow_tuple=isinstance(rt, TupleType))
        self.assignable(rt, s.value, s.value.span)
        self.fold(s.value)
        if isinstance(rt, StrType):
            from cint_compiler.check.features import textops as textops_check
            textops_check.check_return(self, s.value)

    def _is_error_value(self, e, errset):
        if isinstance(e, A.DotName):
            return any(n == e.name for _, n in errset.values)
        if isinstance(e, A.Member) and isinstance(e.base, A.Name):
            sym = self.scope.lookup(e.base.ident)
            return sym is not None and sym.kind == "error"
        return False

    def s_Assert(self, s: A.Assert):
        self.cond(s.cond)
        if s.message is not None:
            self.check_holes(s.message)

    def s_StaticAssert(self, s):
        self.check_static_assert(s)

    # -------------------------------------------------------------- switch (LS-177 to LS-184)

    def s_Switch(self, s: A.Switch):
        e = s.scrutinee
        t = self.expr(e, None)
        if isinstance(t, IntType):
            s.key_kind = "int"
        elif isinstance(t, EnumType):
            s.key_kind = "enum"
        elif isinstance(t, BoolType):
            s.key_kind = "bool"
        elif isinstance(t, ErrorSetType):
            s.key_kind = "error"
        else:
            raise _err("C4026", start_span(e), "a switch tests an integer, an enum, a Bool or an error value, not %s"
                       % t)
        self.fold(e)
        self.flush_pending()
        table = {}                 # key of one value -> index of its body
        ranges = []                # (lo, hi, index) of the integer ranges, sorted and disjoint
        taken = []                 # sorted, disjoint (lo, hi) of every integer item so far
        n = len(s.cases)
        bodies = [A.Block(c.body, span=c.span) for c in s.cases]
        if s.default is not None:
            bodies.append(A.Block(s.default, span=s.default_span))
        for k, c in enumerate(s.cases):
            for it in c.items:
                if isinstance(it, tuple):
                    lo_e, hi_e = it
                    if s.key_kind != "int":
                        raise _err("C2103", start_span(lo_e), "a case range needs an integer scrutinee, not %s" % t)
                    lo = self.case_const(lo_e, t)
                    hi = self.case_const(hi_e, t)
                    if lo > hi:
                        raise _err("C4024", start_span(lo_e), "the case range %d..=%d is empty" % (lo, hi))
                    span = start_span(lo_e)
                else:
                    v = self.case_const(it, t)
                    span = start_span(it)
                    if s.key_kind == "int":
                        lo = hi = v
                    else:
                        key = self.case_key(s.key_kind, v, t, span)
                        if key in table:
                            raise _err("C4021", span, "this case item repeats an earlier one (LS-181)")
                        table[key] = k
                        continue
                # integer items: reject any overlap with the items before
                i = bisect.bisect_left(taken, (lo, lo))
                if (i < len(taken) and taken[i][0] <= hi) or (i > 0 and taken[i - 1][1] >= lo):
                    raise _err("C4021", span, "this case item overlaps an earlier one (LS-181)")
                taken.insert(i, (lo, hi))
                if lo == hi:
                    table[lo] = k
                else:
                    ranges.append((lo, hi, k))
            self.case_body(bodies[k], k + 1 < len(bodies))
        if s.default is not None:
            self.case_body(bodies[n], False)
        # LS-182: exhaustive by `default`, or by covering every value of the type
        exhaustive = s.default is not None
        if not exhaustive:
            if s.key_kind == "int":
                exhaustive = self._covers(taken, t.min, t.max)
            elif s.key_kind == "enum":
                exhaustive = all(v in table for v in t.members.values())
            elif s.key_kind == "bool":
                exhaustive = True in table and False in table
            else:
                exhaustive = all(v in table for v in t.values)
        if not exhaustive:
            raise _err("C4020", s.span, "this switch does not cover every value of %s and has no `default` (LS-182)"
                       % t, help="add the missing cases or a `default:` clause")
        ranges.sort()
        s.exhaustive = True
        s.table = table
        s.ranges = ranges
        s.range_los = [r[0] for r in ranges]
        s.bodies = bodies
        s.default_index = n if s.default is not None else None

    @staticmethod
    def _covers(intervals, lo, hi):
        """Whether sorted, disjoint integer intervals cover every integer of ``lo..=hi``."""
        nxt = lo
        for a, b in intervals:
            if a > nxt:
                return False
            if b >= nxt:
                nxt = b + 1
            if nxt > hi:
                return True
        return nxt > hi

    def case_const(self, e, t):
        """A case item: a constant expression typed by the scrutinee's type (LS-56 rule 6, LS-177)."""
        self.in_case_item = True
        try:
            self.expr(e, t)
        finally:
            self.in_case_item = False
        if e.ty != t and not (isinstance(t, ErrorSetType) and isinstance(e.ty, ErrorSetType)):
            raise _err("C2001", start_span(e), "a case item has the scrutinee's type %s, not %s" % (t, e.ty))
        self.fold(e)
        self.flush_pending()
        if e.cval is NOTCONST:
            raise _err("C6004", start_span(e), "a case item is a constant expression (LS-177)")
        return e.cval

    def case_key(self, kind, v, t, span):
        if kind == "enum":
            return v.value
        if kind == "bool":
            return bool(v)
        key = (v.set, v.name)
        if t.tag_of(key) is None:
            raise _err("C2001", span, "%s.%s is not a value of %s" % (v.set.rsplit(".", 1)[-1], v.name, t))
        return key

    def case_body(self, body: A.Block, has_next):
        """Each case body is its own scope (LS-183); `fallthrough;` may end it when a body follows (LS-178)."""
        fn = self.fn
        saved_ft = fn.ft_ok
        last = body.stmts[-1] if body.stmts else None
        fn.ft_ok = last if has_next and isinstance(last, A.Fallthrough) else None
        fn.in_switch += 1
        try:
            self.block(body, new_scope=True)
        finally:
            fn.in_switch -= 1
            fn.ft_ok = saved_ft

    def s_Fallthrough(self, s):
        if self.fn.ft_ok is s:
            return
        raise _err("C4014", s.span, "`fallthrough;` is the last statement of a case body that another body follows "
                   "(LS-178)")

    # -------------------------------------------------------------- defer and errdefer (LS-185 to LS-189)

    def s_Defer(self, s: A.Defer):
        fn = self.fn
        if fn.kind == "kernel" and not s.is_err:
            raise _err("C5021", s.span, "a kernel cannot use `defer` (LS-250)")
        self.knote("C5021", s.span, "uses `defer`")
        if s.is_err:
            ok = fn.in_defer == 0 and (fn.kind == "test" or (fn.kind == "func" and isinstance(fn.result,
                                                                                             ErrorUnionType)))
            if not ok:
                where = ("inside a deferred statement" if fn.in_defer else
                         "in a %s whose result is not an error union" % ("script" if fn.kind == "script" else
                                                                         fn.kind if fn.kind == "kernel"
                                                                         else "function"))
                raise _err("C4031", s.span, "no error can leave here (%s), so this `errdefer` could never run "
                           "(LS-322)" % where)
        saved = (fn.loops, fn.in_switch, fn.ft_ok)
        fn.loops, fn.in_switch, fn.ft_ok = [], 0, None
        fn.in_defer += 1
        try:
            self.stmt(s.stmt)
        finally:
            fn.in_defer -= 1
            fn.loops, fn.in_switch, fn.ft_ok = saved

    # -------------------------------------------------------------- tuples (LS-98 to LS-101)

    def s_Destructure(self, s: A.Destructure):
        if s.declare:
            typed = [b for b in s.binds if b.type is not None]
            if not typed:
                from cint_compiler.check.features import proposed as proposed_check
                return proposed_check.var_destructure(self, s)     # `var (a, b) = ...` (LS-98, Proposed)
            for b in s.binds:
                if b.type is None and b.name is not None:
                    raise unsupported(b.span, "a destructuring that mixes declared and existing names")
        places = []
        if not s.declare:
            for b in s.binds:
                places.append(self.place(b.place) if b.place is not None else None)
        v = s.value
        t = self.expr(v, None, allow_tuple=True)
        if not isinstance(t, TupleType):
            raise _err("C2001", start_span(v), "a destructuring takes a tuple result, not %s (LS-98)" % t)
        if len(t.items) != len(s.binds):
            raise _err("C2001", start_span(v), "%s has %d elements; the destructuring names %d"
                       % (t, len(t.items), len(s.binds)))
        self.fold(v)
        if s.declare:
            for b, et in zip(s.binds, t.items):
                b.sym = None
                if b.name is None:
                    continue
                bt = self.resolve_type(b.type)
                if bt != et:
                    raise _err("C2001", b.type.span or b.span, "expected %s, found %s: a destructuring declares "
                               "each element's type exactly (LS-99)" % (et, bt))
                sym = Symbol("local", b.name, bt, decl=b, mutable=True, span=b.span)
                self.declare(self.scope, b.name, sym, b.span)
                b.sym = sym
        else:
            for b, pt, et in zip(s.binds, places, t.items):
                if pt is None:
                    continue
                probe = A.Name("_", ty=et, span=b.span)
                self.assignable(pt, probe, start_span(b.place))

    def s_Reduce(self, s):
        from cint_compiler.check.features.reduce import check_reduce
        check_reduce(self, s)

    # ------------------------------------------------------------------ places

    def place(self, e) -> Type:
        """Check an assignable place and return its type."""
        if isinstance(e, A.Name):
            self.expr(e, None)
            sym = e.ref
            if sym.kind == "param" and not sym.mutable:
                raise _err("C2060", e.span, "parameter `%s` cannot be assigned; it is not `inout`" % e.ident)
            if sym.kind == "local" and sym.info == "loopvar":
                raise _err("C2052", e.span, "the loop variable `%s` is read-only" % e.ident)
            if self.is_readonly_view(sym):
                raise _err("C2060", e.span, "view `%s` is read-only: it is declared `in`" % e.ident)
            if sym.kind in ("const", "func", "kernel", "sizeparam", "overvar", "struct", "enum", "error"):
                raise _err("C2058", e.span, "`%s` is not an assignable place" % e.ident)
            if isinstance(sym.type, (ArenaType, PoolType)):
                raise _err("C2058", e.span, "`%s` is an arena or pool; it cannot be re-bound" % e.ident)
            if self.foreign(e):
                raise _err("C2058", e.span, "a module variable of an imported module cannot be assigned (LS-227)")
            if self.fn.kind == "kernel" and sym.kind == "param":
                self.kernel_write_rule(e, e)
            self.note_gwrite(e)
            return e.ty
        if isinstance(e, A.Index):
            from cint_compiler.check.features import proposed as proposed_check
            proposed_check.subword_place(self, e)      # other writes to a sub-word: C9102 (decision 31)
            self.expr(e, None)
            root = e.base
            while isinstance(root, (A.Index, A.Member)):
                root = root.base
            root = self.view_root(root) or root
            if isinstance(root, A.Name) and self.is_readonly_view(root.ref):
                raise _err("C2060", root.span, "view `%s` is read-only: it is declared `in`" % root.ident)
            if isinstance(root, A.Name) and root.ref.kind == "param" and not root.ref.mutable \
                    and root.ref.info != "out":
                if root.ref.info == "in":
                    raise _err("C2060", root.span, "parameter `%s` is read-only" % root.ident)
            if isinstance(root, A.Name) and root.ref.kind == "const":
                raise _err("C2058", root.span, "a constant cannot be assigned")
            if self.foreign(root):
                raise _err("C2058", root.span, "a module variable of an imported module cannot be assigned (LS-227)")
            if self.fn.kind == "kernel" and isinstance(root, A.Name):
                self.kernel_write_rule(e, root)
            self.note_gwrite(e)
            return e.ty
        if isinstance(e, A.Member):
            self.expr(e, None)
            if getattr(e, "mkind", None) == "qname":
                raise _err("C2058", e.span, "a module variable of an imported module cannot be assigned (LS-227)")
            if getattr(e, "mkind", None) != "field":
                raise _err("C2058", e.span, "not an assignable place")
            root = e.base
            while isinstance(root, (A.Index, A.Member)):
                root = root.base
            if self.foreign(root):
                raise _err("C2058", root.span, "a module variable of an imported module cannot be assigned (LS-227)")
            if isinstance(root, A.Name) and root.ref.kind in ("param", "const") and not root.ref.mutable:
                raise _err("C2060", root.span, "`%s` cannot be assigned" % root.ident)
            if isinstance(root, A.Name) and self.is_readonly_view(root.ref):
                raise _err("C2060", root.span, "view `%s` is read-only: it is declared `in`" % root.ident)
            self.note_gwrite(e)
            return e.ty
        if isinstance(e, A.Paren):
            return self.place(e.inner)
        raise _err("C2058", e.span, "not an assignable place")

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
        if isinstance(e, A.Call) and isinstance(e.callee, A.Name) and e.callee.ident in SCALAR_T_BUILTINS \
                and self.scope.lookup(e.callee.ident) is None:
            vals = [a.value for a in e.args if isinstance(a.value, A.Expr)]
            if e.callee.ident == "isqrt":
                return all(self.is_untyped(v) for v in vals)
            return all(self.is_untyped(v) for v in vals)
        if isinstance(e, A.Call) and isinstance(e.callee, A.Name) and e.callee.ident in ("rotl", "rotr",
                                                                                          "isqrt_round", "div_round") \
                and self.scope.lookup(e.callee.ident) is None:
            args = [a.value for a in e.args]
            return bool(args) and self.is_untyped(args[0]) and (
                e.callee.ident in ("rotl", "rotr", "isqrt_round") or self.is_untyped(args[1]))
        return False

    def expr(self, e, expected: Optional[Type], allow_union=False, allow_tuple=False) -> Type:
        """Type ``e`` in context ``expected`` (used only by untyped expressions); returns e.ty."""
        meth = getattr(self, "e_" + type(e).__name__)
        if isinstance(e, A.Paren) and (allow_union or allow_tuple):
            # parentheses keep what their context consumes: `try (x as? I8)` (LS-129, LS-149)
            t = self.expr(e.inner, expected, allow_union, allow_tuple)
        else:
            t = meth(e, expected)
        e.ty = t
        if isinstance(t, ErrorUnionType) and not allow_union and not isinstance(e, (A.Try, A.Catch)):
            raise _err("C2040", e.span, "an error union is consumed with `try`, `catch` or `_ =`")
        if isinstance(t, TupleType) and not allow_tuple:
            raise _err("C2041", start_span(e), "a tuple result is consumed by destructuring: "
                       "`(T a, T b) = ...;` (LS-98, LS-101)")
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
        it = (getattr(self, "early", None) or {}).pop(name, None)
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
            if e.ident in BUILTIN_NAMES:
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
            from cint_compiler.check.features.reduce import read_out_scalar
            read_out_scalar(sym, e.span)
        if sym.kind == "global":
            self.knote("C5025", e.span, "reads or writes a module-level variable")
        if sym.kind == "container":
            self.memory_in_kernel(e.span)
        if sym.kind == "const":
            e.cval = sym.value
        if isinstance(sym.info, Checker.ViewInfo):
            self.view_used(e, sym)
        if isinstance(sym.type, StrType) and getattr(self, "_str_info", None):
            from cint_compiler.check.features import textops as textops_check
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
                       "`return (a, b);` (LS-98, LS-101)")
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
            raise _err("C4030", e.span, "`try` would leave the deferred statement (LS-187, LS-320)")
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

    # ------------------------------------------------------------------ calls

    def e_Call(self, e: A.Call, expected):
        c = e.callee
        if isinstance(c, A.TypeMember):
            t = self.resolve_type(c.type)
            if isinstance(t, FixedType) and c.name == "raw":
                if len(e.args) != 1 or e.args[0].name is not None or not isinstance(e.args[0].value, A.Expr):
                    raise _err("C2022", e.span, "%s.raw takes one storage integer" % t)
                a = e.args[0].value
                self.expr(a, t.storage)
                if a.ty != t.storage:
                    raise _err("C2001", a.span, "%s.raw takes %s, not %s" % (t, t.storage, a.ty))
                e.kind = "raw"
                return t
            raise _err("C3005", c.span, "%s has no constructor `%s`" % (t, c.name))
        if isinstance(c, A.Member):
            rt = self.container_receiver(c)
            if rt is not None:
                return self.container_call(e, rt)
            sym = self.qualified(c)
            if sym is None:
                raise unsupported(c.span, "a qualified call")
            name = "%s.%s" % (c.base.ident, c.name)
        elif not isinstance(c, A.Name):
            raise _err("C1050", c.span, "not callable")
        else:
            name = c.ident
            sym = self.scope.lookup(name)
        if sym is None:
            if name in BUILTIN_NAMES:
                return self.builtin_call(e, name, expected)
            if name == "offset" and isinstance(c, A.Name):
                return self.offset_call(e)
            raise _err("C3005", c.span, "undefined function `%s`" % name)
        c.ref = sym
        if sym.kind == "struct":
            return self.struct_ctor(e, sym.type)
        if sym.kind == "func":
            return self.user_call(e, sym.info)
        if sym.kind == "kernel":
            return self.dispatch(e, sym.info)
        raise _err("C3007", c.span, "`%s` is not a function" % name)

    def complete(self, t, span):
        """C3006 when the layout of struct ``t`` is asked for before its fields are defined (a bit width)."""
        if t.qname in getattr(self, "fielding", ()):
            raise _err("C3006", span, "type `%s` is used before it is complete: its fields are not defined yet"
                       % t.name())

    def offset_call(self, e):
        """`offset(T, field)` (LS-76): the field's byte offset in the layout of LS-73 to LS-75, a compile-time
        I64 constant; a bit field's offset is that of its storage unit (LS-82).  `offset` is not a reserved
        name: a user function of that name is called instead."""
        if len(e.args) != 2 or any(a.name is not None for a in e.args):
            raise _err("C2022", e.span, "offset takes a struct type and a field name: offset(T, field)")
        tx, fx = e.args[0].value, e.args[1].value
        sym = self.scope.lookup(tx.ident) if isinstance(tx, A.Name) else None
        if sym is None or sym.kind != "struct":
            raise _err("C3007", getattr(tx, "span", None) or e.span, "offset takes a struct type first")
        t = sym.type
        self.complete(t, getattr(tx, "span", None) or e.span)
        if not isinstance(fx, A.Name) or t.field(fx.ident) is None:
            raise _err("C3005", getattr(fx, "span", None) or e.span, "%s has no such field" % t)
        e.kind = "builtin"
        e.bname = "offset"
        e.argv = []
        e.cval = struct_layout(t)[2][fx.ident]
        return I64

    def bind_args(self, e, params):
        """Positional then named arguments -> one Expr per parameter (defaults unsupported)."""
        out = [None] * len(params)
        order = []
        pos = 0
        seen_named = False
        names = [p.name for p in params]
        for a in e.args:
            if a.name is None:
                if seen_named:
                    raise _err("C2069", a.span or e.span, "a positional argument follows a named one")
                if pos >= len(params):
                    raise _err("C2022", start_span(e), "`%s` takes %d arguments" % (self.callee_name(e),
                                                                                  len(params)))
                out[pos] = a.value
                order.append(pos)
                pos += 1
            else:
                seen_named = True
                if a.name not in names:
                    raise _err("C2063", a.span or e.span, "no parameter is named `%s`" % a.name)
                i = names.index(a.name)
                if out[i] is not None:
                    raise _err("C2062", a.span or e.span, "parameter `%s` receives two arguments" % a.name)
                out[i] = a.value
                order.append(i)
        for i, v in enumerate(out):
            dflt = getattr(params[i].decl, "default", None) if v is None else None
            if dflt is not None and dflt.cval is not NOTCONST:
                out[i] = dflt           # a default: its folded value, after the written arguments (LS-125)
                order.append(i)
        e.order = order     # arguments are evaluated in the order written (LS-137)
        for i, v in enumerate(out):
            if v is None:
                raise _err("C2022", start_span(e), "`%s` takes %d arguments; `%s` is missing"
                           % (self.callee_name(e), len(params), names[i]))
            if not isinstance(v, A.Expr):
                raise _err("C2001", v.span or e.span, "a type is not a value")
        return out

    @staticmethod
    def callee_name(e):
        c = e.callee
        if isinstance(c, A.Member) and isinstance(c.base, A.Name):
            return "%s.%s" % (c.base.ident, c.name)
        return getattr(c, "ident", "?")

    def user_call(self, e, info: FuncInfo):
        const_call = self.fn is not None and (self.fn.kind == "const" or self.in_case_item)
        if const_call:
            why = self.const_ineligible(info)
            if why is not None:
                raise _err("C6004", e.span, "a constant expression cannot call `%s`: %s (LS-264)"
                           % (self.callee_name(e), why))
            e.const_call = True
        args = self.bind_args(e, info.params)
        for p, a in zip(info.params, args):
            self.arg(p, a)
        if self.fn is not None and self.fn.kind == "func":
            self.fn.kcalls.append((info, e.span))
        if self.fn is not None and self.fn.kind == "kernel":
            self.kernel_call_args(info, args)
            if not self.kernel_call_verdict(info, e):
                self.kpending.append((info, e))
        for a in args:
            if isinstance(a, A.Expr):
                g = self.arg_global(a)
                if g is not None:
                    self.gargs.append((info, g, a))
        self.static_entry_checks(e, info, args)
        e.kind = "func"
        e.info = info
        e.argv = args
        if self.fn is not None and info.prints:
            self.fn.prints = True
        return info.result

    # -------------------------------------------------------------- kernel admissibility (LS-250)

    def knote(self, code, span, what):
        """A function body breaks the LS-250 restriction `code`: the first such fact makes it not
        kernel-admissible (a kernel itself raises its own C5020..C5025 where it checks them)."""
        if self.fn is not None and self.fn.kind == "func" and self.fn.kviol is None:
            self.fn.kviol = (code, span, what)

    def kernel_write_rule(self, place, root):
        """LS-248: a write to a kernel's `out` or `inout` array has the `over` variables, in order, as its
        leading indices (further indices address the work-item's owned block); anything else is C5031 at
        the write place."""
        sym = root.ref
        if sym is None or sym.kind != "param" or sym.info not in ("out", "inout") \
                or not isinstance(sym.type, ArrayType):
            return
        items = []
        x = place
        while isinstance(x, A.Index):
            items[:0] = list(x.items)
            x = x.base
        over = self.fn.info.over
        ok = x is root and len(items) >= len(over)
        for ov, it in zip(over, items):
            ref = getattr(it, "ref", None) if isinstance(it, A.Name) else None
            if ref is not ov and not (ref is not None and ref.kind == "overvar" and ref.name == ov.name):
                ok = False
        if not ok:
            raise _err("C5031", start_span(place), "a write to the kernel's `%s` parameter `%s` has the `over` "
                       "variables %s, in order, as its leading indices: it may write only the work-item's "
                       "own block (LS-248)" % (sym.info, sym.name, ", ".join(ov.name for ov in over)))

    def kernel_coverage(self, info, body):
        """LS-248: every element of an `out` array's owned block is written on every path that completes.
        Established by two patterns only: a write at the `over` variables alone, reached on every path
        (an `if` covers when both branches do), and a write whose further indices are the variables of
        enclosing `for v in 0..E` loops, E the extent of that dimension, without `break` or `continue`.
        Anything else is C5031 at the first write of the array (at the parameter when it has none)."""
        outs = [p for p in info.params if p.info == "out" and isinstance(p.type, ArrayType)]
        if not outs:
            return
        nover = len(info.over)
        first = {}

        def jumps(x):
            if isinstance(x, (A.Break, A.Continue)):
                return True
            return any(jumps(y) for y in vars(x).values() for y in (y if isinstance(y, list) else [y])
                       if isinstance(y, A.Stmt))

        def written(place, loops):
            x = place
            items = []
            while isinstance(x, A.Index):
                items[:0] = list(x.items)
                x = x.base
            sym = getattr(x, "ref", None) if isinstance(x, A.Name) else None
            if sym not in outs:
                return None
            first.setdefault(sym, start_span(place))
            deps = set()
            for k, it in enumerate(items[nover:]):
                dim = sym.type.dims[nover + k] if nover + k < sym.type.rank else None
                ref = getattr(it, "ref", None) if isinstance(it, A.Name) else None
                if ref is None or ref not in loops or ref in deps or dim is None or loops[ref] != dim:
                    return None
                deps.add(ref)
            if len(items) != sym.type.rank:
                return None
            return (sym, frozenset(deps))

        def done(cur):
            return {t[0] for t in cur if not t[1]}

        def cov(x, cur, loops):
            if cur is None:
                return None
            if isinstance(x, A.Block):
                for y in x.stmts:
                    cur = cov(y, cur, loops)
                return cur
            if isinstance(x, (A.Assign, A.IncDec)):
                t = written(x.place, loops)
                return cur | {t} if t is not None else cur
            if isinstance(x, A.If):
                a = cov(x.then, cur, loops)
                b = cov(x.other, cur, loops) if x.other is not None else cur
                return b if a is None else a if b is None else a & b
            if isinstance(x, A.ForRange):
                hi = x.hi
                key = hi.ref.name if isinstance(hi, A.Name) and getattr(hi.ref, "kind", None) == "sizeparam" \
                    else hi.value if isinstance(hi, A.IntLit) else None
                sym = getattr(x, "sym", None)
                if sym is None or key is None or x.inclusive or x.step is not None \
                        or not (isinstance(x.lo, A.IntLit) and x.lo.value == 0) or jumps(x.body):
                    cov(x.body, set(), loops)
                    return cur
                inner = cov(x.body, set(), {**loops, sym: key})
                if inner is None:
                    return cur
                return cur | {(t[0], t[1] - {sym}) for t in inner if sym in t[1]}
            if isinstance(x, (A.While, A.DoWhile, A.ForC, A.ForEach)):
                cov(x.body, set(), loops)
                return cur
            if isinstance(x, A.Switch):
                for c in x.cases:
                    cov(A.Block(c.body), set(), loops)
                if x.default is not None:
                    cov(A.Block(x.default), set(), loops)
                return cur
            if isinstance(x, A.Return):
                missing = [p for p in outs if p not in done(cur)]
                if missing:
                    raise _err("C5031", x.span, "this return completes the work-item before every element of "
                               "its block of `%s` is written (LS-248)" % missing[0].name)
                return None
            if isinstance(x, (A.Break, A.Continue)):
                return None
            return cur

        end = cov(body, set(), {})
        if end is None:
            return
        for p in outs:
            if p not in done(end):
                raise _err("C5031", first.get(p, p.span), "the kernel does not write every element of its block "
                           "of `out` parameter `%s` on every path that completes (LS-248)" % p.name)

    def kernel_call_args(self, info, args):
        """A kernel's `out` and `inout` arrays are written only by the kernel body at its own index tuple
        (LS-248): passing one to a called function is refused."""
        for p, a in zip(info.params, args):
            if not isinstance(a.ty, ArrayType):
                continue
            r = self.view_root(a)
            sym = r.ref if r is not None else None
            if sym is not None and isinstance(sym.info, Checker.ViewInfo):
                sym = getattr(sym.info.root, "ref", sym.info.root)
            if sym is not None and sym.kind == "param" and sym.info in ("out", "inout"):
                span = start_span(a) if isinstance(a, A.Index) else a.span
                if p.info == "inout":
                    raise _err("C5031", span, "a called function cannot write the kernel's `%s` parameter `%s`: "
                               "writes go to the work-item's own element (LS-248)" % (sym.info, sym.name))
                raise unsupported(span, "passing a kernel's `%s` parameter to a function" % sym.info)

    def kernel_call_verdict(self, info, e, final=False) -> bool:
        """Whether the call `e` from a kernel to `info` could be judged: raises C5024 when `info` is not
        kernel-admissible (it, or a function it calls, breaks a restriction of LS-250) and C5026 when the
        call leads into recursion. False while some function it reaches is not checked yet."""
        state = {}

        def visit(f, chain):
            if not f.kchecked:
                return "pending"
            k = id(f)
            if state.get(k) == 1:
                return ("C5026", chain)
            if state.get(k) == 2:
                return None
            state[k] = 1
            if f.kviol is not None:
                return ("C5024", chain)
            for g, _ in f.kcalls:
                r = visit(g, chain + [g])
                if r is not None:
                    return r
            state[k] = 2
            return None

        r = visit(info, [info])
        if r == "pending":
            if final:
                raise unsupported(e.span, "a call from a kernel to a function that is not checked yet")
            return False
        if r is None:
            return True
        code, chain = r
        names = " -> ".join("`%s`" % f.decl.name for f in chain)
        if code == "C5026":
            raise _err("C5026", e.span, "a kernel cannot recurse: the call of `%s` leads into recursion (%s)"
                       % (info.decl.name, names))
        last = chain[-1]
        vcode, vspan, what = last.kviol
        raise _err("C5024", e.span, "a kernel cannot call `%s`: it is not kernel-admissible, since %s %s at %d:%d "
                   "(%s, LS-250)" % (info.decl.name, names if len(chain) > 1 else "it", what, vspan.line,
                                     vspan.column, vcode))

    def arg(self, p: Symbol, a):
        if getattr(a, "is_default", False):
            return
        pt = p.type
        if isinstance(pt, ArrayType) and isinstance(a, A.StrLit) and pt.elem == U8 \
                and pt.rank == 1 and p.info not in ("inout", "out"):
            # a string or byte-string literal binds an `in U8[...]` parameter as a read-only view of its
            # bytes (SPEC-09 BOOT-02), with its static extent
            self.expr(a, None)
            data = b"".join(x.encode("utf-8") if isinstance(x, str) else x for x in a.parts)
            a.ty = ArrayType(U8, (len(data),))
            a.as_view = True
            return
        if isinstance(pt, ArrayType):
            self.expr(a, None)
            if not isinstance(a.ty, ArrayType) or a.ty.elem != pt.elem or a.ty.rank != pt.rank:
                raise _err("C2001", a.span, "expected %s, found %s" % (pt, a.ty))
            if p.info in ("inout", "out"):
                self.require_writable(a)
            return
        if p.info == "out":         # a kernel's scalar `out`: the variable its `reduce` publishes into
            from cint_compiler.check.features.reduce import out_arg
            out_arg(self, p, a)
            return
        self.expr(a, pt)
        self.assignable(pt, a, a.span)
        if p.info == "inout":
            self.require_writable(a)
        self.fold(a)

    def static_entry_checks(self, e, info, args):
        """What the entry checks of a call decide at compile time: C2012 (shape) and C5010 (alias)."""
        bound = {}
        for p, a in zip(info.params, args):
            if isinstance(p.type, ArrayType) and isinstance(a.ty, ArrayType):
                aspan = start_span(a) if isinstance(a, A.Index) else a.span      # a slice: its first character
                for spec, ext in zip(p.type.dims, a.ty.dims):
                    if isinstance(spec, str) and isinstance(ext, int):
                        if spec in bound and bound[spec] != ext:
                            raise _err("C2012", aspan, "size `%s` is bound to %d and %d" % (spec, bound[spec], ext))
                        bound.setdefault(spec, ext)
                    elif isinstance(spec, int) and isinstance(ext, int) and spec != ext:
                        raise _err("C2012", aspan, "extent %d where %d is expected" % (ext, spec))
        for p, a in zip(info.params, args):     # the second pass: computed extents (SPEC-02 K-6)
            if isinstance(p.type, ArrayType) and isinstance(a.ty, ArrayType):
                aspan = start_span(a) if isinstance(a, A.Index) else a.span
                for spec, ext in zip(p.type.dims, a.ty.dims):
                    if isinstance(spec, SymExtent) and isinstance(ext, int) and spec.sym in bound \
                            and bound[spec.sym] + spec.off != ext:
                        raise _err("C2012", aspan, "extent %d where %s = %d is expected (%s = %d)"
                                   % (ext, spec, bound[spec.sym] + spec.off, spec.sym, bound[spec.sym]))
        paths = [self.place_path(a) for a in args]
        for i, (p, a) in enumerate(zip(info.params, args)):
            if p.info not in ("inout", "out") or paths[i] is None:
                continue
            for j, q in enumerate(paths):
                if j == i or q is None:
                    continue
                x, y = paths[i], q
                if x[:len(y)] == y or y[:len(x)] == x:
                    later = args[max(i, j)]
                    raise _err("C5010", start_span(later), "a written argument overlaps another argument of the call")
        for i, (p, a) in enumerate(zip(info.params, args)):
            if p.info not in ("inout", "out"):
                continue
            for j, b in enumerate(args):
                if j != i and self.views_overlap_static(a, b):
                    raise _err("C5010", start_span(args[max(i, j)]), "a written argument shares elements with "
                               "another argument of the call (LS-121)")

    def place_path(self, a):
        """The variable and field path an argument names, when it names a whole variable or field."""
        if isinstance(a, A.Paren):
            return self.place_path(a.inner)
        if isinstance(a, A.Name) and getattr(a, "ref", None) is not None and a.ref.kind in ("local", "global",
                                                                                             "param"):
            if not isinstance(a.ty, (ArrayType, StructType)):
                return None
            return (id(a.ref),)
        if isinstance(a, A.Member) and getattr(a, "mkind", None) == "field":
            base = self.place_path(a.base)
            return None if base is None else base + (a.name,)
        return None

    def require_writable(self, a):
        self.note_gwrite(a)
        root = a
        while isinstance(root, (A.Index, A.Member, A.Paren)):
            root = root.base if not isinstance(root, A.Paren) else root.inner
        root = self.view_root(root) or root
        span = a.span
        if isinstance(a, (A.Index, A.Call)):
            span = start_span(a)          # a slice or a view: its first character (LS-278)
        if isinstance(root, A.Name) and self.is_readonly_view(root.ref):
            raise _err("C2067", span, "a read-only view cannot be bound to a writable parameter or view")
        if isinstance(root, A.Name) and root.ref.kind in ("param",) and root.ref.info == "in":
            raise _err("C2067", span, "a read-only argument cannot be bound to a writable parameter")
        if isinstance(root, A.Name) and root.ref.kind == "const":
            raise _err("C2067", span, "a constant cannot be bound to a writable parameter")
        if isinstance(root, A.StrLit):
            raise _err("C2067", span, "a literal is read-only: it cannot be bound to a writable parameter; "
                       "declare an array initialized from it and pass that")
        if self.foreign(root):
            raise _err("C2067", a.span, "a module variable of an imported module cannot be bound to a writable "
                       "parameter (LS-227)")

    # ------------------------------------------------------------------ module state (LS-122, C5012)

    def global_root(self, e):
        """The module variable (a Symbol of kind global) that ``e`` is or views, else None."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, A.Member) and getattr(e, "mkind", None) == "qname":
                g = getattr(e, "ref", None)
                return g if g is not None and g.kind == "global" else None
            elif isinstance(e, (A.Index, A.Member)):
                e = e.base
            elif isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin" and \
                    getattr(e, "bname", None) in ("transpose", "reverse"):
                e = e.argv[0]
            elif isinstance(e, A.Name):
                g = getattr(e, "ref", None)
                if g is not None and isinstance(g.info, Checker.ViewInfo):
                    g = g.info.root
                return g if g is not None and g.kind == "global" else None
            else:
                return None

    def note_gwrite(self, e):
        """A write to (a part of) ``e``: the function being checked writes its module variable, if any."""
        g = self.global_root(e)
        if g is not None and self.fn is not None:
            self.fn.gwrites[id(g)] = g

    def arg_global(self, a):
        """The module variable an argument is, or is a view of (LS-122): a name (or an imported module's
        variable), or an array or struct expression that views one; an element read is neither."""
        inner = a
        while isinstance(inner, A.Paren):
            inner = inner.inner
        bare = isinstance(inner, A.Name) or (isinstance(inner, A.Member) and getattr(inner, "mkind", None) == "qname")
        if bare or isinstance(getattr(a, "ty", None), (ArrayType, StructType)):
            return self.global_root(a)
        return None

    def module_state_args(self):
        """C5012 (LS-122): an argument that is, or is a view of, a module-level variable passed to a function
        that writes that variable, directly or through the functions it calls (transitively)."""
        closure = {}

        def writes(info):
            if id(info) in closure:
                return closure[id(info)]
            out = {}
            seen, todo = {id(info)}, [info]
            while todo:
                f = todo.pop()
                out.update(getattr(f, "gwrites", {}) or {})
                for g, _ in getattr(f, "kcalls", ()) or ():
                    if id(g) not in seen:
                        seen.add(id(g))
                        todo.append(g)
            closure[id(info)] = out
            return out

        for info, g, a in self.gargs:
            if id(g) in writes(info):
                raise _err("C5012", start_span(a), "`%s` writes the module variable `%s`, and this argument "
                           "%s it (LS-122)" % (
                               info.qname.rsplit(".", 1)[-1], g.name,
                               "is" if self.arg_is_bare(a) else "views"))
        self.gargs = []

    @staticmethod
    def arg_is_bare(a):
        while isinstance(a, A.Paren):
            a = a.inner
        return isinstance(a, (A.Name, A.Member))

    def dispatch(self, e, info: FuncInfo):
        if self.fn is not None and self.fn.kind == "kernel":
            raise _err("C5023", e.span, "a kernel cannot dispatch a kernel")
        self.knote("C5023", e.span, "dispatches a kernel")
        args = self.bind_args(e, info.params)
        for p, a in zip(info.params, args):
            self.arg(p, a)
        self.static_entry_checks(e, info, args)
        self.views_across_dispatch(e, info, args)
        e.kind = "dispatch"
        e.info = info
        e.argv = args
        return VOID

    def struct_ctor(self, e, t: StructType):
        params = [Symbol("param", n, ft) for n, ft, _ in t.fields]
        for p in params:
            p.info = "in"
        if len([a for a in e.args if a.name is None]) > len(params):
            raise _err("C2022", e.span, "%s has %d fields" % (t, len(params)))
        out = [None] * len(params)
        order = []
        pos = 0
        names = [p.name for p in params]
        for a in e.args:
            if a.name is None:
                out[pos] = a.value
                order.append(pos)
                pos += 1
            else:
                if a.name not in names:
                    raise _err("C3005", a.span or e.span, "%s has no field `%s`" % (t, a.name))
                i = names.index(a.name)
                if out[i] is not None:
                    raise _err("C2062", a.span or e.span, "field `%s` is given twice" % a.name)
                out[i] = a.value
                order.append(i)
        from cint_compiler.check.features import proposed as proposed_check
        proposed_check.fill_defaults(t, out, order)      # LS-77 field defaults (Proposed), decision 28
        e.order = order
        for i, v in enumerate(out):
            if v is None:
                raise _err("C2020", e.span, "field `%s` of %s is not supplied" % (names[i], t))
        for p, a in zip(params, out):
            if getattr(a, "is_default", False):
                continue
            if isinstance(p.type, ArrayType):
                self.expr(a, p.type)
                if not isinstance(a.ty, ArrayType) or a.ty.elem != p.type.elem or a.ty.rank != p.type.rank:
                    raise _err("C2001", a.span, "expected %s, found %s" % (p.type, a.ty))
                self.check_shapes(p.type, a.ty, a.span)
            else:
                self.expr(a, p.type)
                self.assignable(p.type, a, a.span)
                self.fold(a)
        e.kind = "struct"
        e.stype = t
        e.argv = out
        return t

    def builtin_call(self, e: A.Call, name, expected):
        if name == "wrap_bits":      # LS-83 (Proposed), decision 30
            from cint_compiler.check.features import proposed as proposed_check
            return proposed_check.wrap_bits(self, e, expected)
        if name in UNSUPPORTED_BUILTINS:
            raise unsupported(e.span, "the built-in `%s`" % name)
        args = []
        for a in e.args:
            if a.name is not None:
                raise _err("C2063", a.span or e.span, "built-in `%s` takes no named arguments" % name)
            args.append(a.value)
        e.kind = "builtin"
        e.bname = name
        e.argv = args
        n = len(args)
        if name in self.ARRAY_BUILTINS:
            return self.array_builtin(e, name, args)
        if name in ("format", "utf8", "swap"):
            from cint_compiler.check.features import textops as textops_check
            return textops_check.builtin(self, e, name, args)

        def want(k):
            if n != k:
                raise _err("C2022", e.span, "`%s` takes %d arguments" % (name, k))

        def mode_arg(a):
            if isinstance(a, A.Name) and a.ident in ROUND_MODES:
                a.ty = ROUND
                a.cval = RoundValue(a.ident)
                return a.ident
            if isinstance(a, A.TypeName) and len(a.parts) == 1 and a.parts[0] in ROUND_MODES:
                return a.parts[0]
            if isinstance(a, A.Name) or (isinstance(a, A.TypeName) and len(a.parts) == 1):
                raise _err("C3007", a.span or e.span, "`%s` is not a rounding mode (SPEC-01 4.5)"
                           % (a.ident if isinstance(a, A.Name) else a.parts[0]))
            raise _err("C2009", a.span or e.span, "a rounding-mode name is expected here")

        def type_arg(a):
            if isinstance(a, A.TypeExpr):
                return self.resolve_type(a)
            if isinstance(a, A.Name):
                tn = A.TypeName([a.ident], span=a.span)
                return self.resolve_type(tn)
            raise _err("C2001", a.span or e.span, "a type argument is expected here")

        def unify(vals, ctx, numeric=(IntType, FixedType)):
            """Type polymorphic operands: T from the typed ones, else the context, else I64 (LS-56 rule 7)."""
            T = None
            for v in vals:
                if not self.is_untyped(v):
                    t = self.expr(v, None)
                    if T is None:
                        T = t
            if T is None:
                T = ctx if isinstance(ctx, numeric) else I64
            for v in vals:
                if self.is_untyped(v):
                    self.expr(v, T)
            for v in vals:
                if v.ty != T:
                    raise _err("C2001", v.span, "expected %s, found %s" % (T, v.ty))
            if not isinstance(T, numeric):
                raise _err("C2103", e.span, "`%s` is not defined for %s" % (name, T))
            return T

        if name in ("min", "max") and n == 2 and self._arrayish(args[1]):
            # `min(init, xs)`: the least element of xs and init, in the element type (SPEC-01 IM-77)
            self.expr(args[1], None)
            t = args[1].ty
            if not isinstance(t, ArrayType) or not isinstance(t.elem, (IntType, FixedType)):
                raise _err("C2103", e.span, "`%s(init, xs)` reduces an array of integers" % name)
            self.expr(args[0], t.elem)
            self.assignable(t.elem, args[0], args[0].span)
            e.bname = name + "_init"
            e.elem = t.elem
            return t.elem
        if name in ("min", "max") and n == 1:
            self.expr(args[0], None)
            t = args[0].ty
            if not isinstance(t, ArrayType):
                raise _err("C2022", e.span, "`%s` takes two scalars or one array" % name)
            e.bname = "reduce_" + name
            e.elem = t.elem
            return t.elem
        if name in SCALAR_T_BUILTINS:
            want(SCALAR_T_BUILTINS[name])
            T = unify(args, expected)
            if name in ("div_trunc", "rem_trunc", "div_euclid", "rem_euclid", "isqrt") and not isinstance(T, IntType):
                raise _err("C2103", e.span, "`%s` is defined on integer types" % name)
            e.T = T
            return T
        if name in RESULT_BUILTINS:
            want(2)
            if name == "shl_result":
                T = unify(args[:1], None, (IntType,))
                self.expr(args[1], None)
            else:
                T = unify(args, None, (IntType,))
            e.T = T
            return ErrorUnionType(ARITH_ERROR, T)
        if name == "uabs":
            want(1)
            T = unify(args, None, (IntType,))
            if not T.signed or T.bits > 64:
                raise _err("C2103", e.span, "`uabs` is defined on I8 to I64")
            e.T = T
            return IntType(False, T.bits)
        if name == "div_round":
            want(3)
            T = unify(args[:2], expected, (IntType,))
            e.mode = mode_arg(args[2])
            e.T = T
            return T
        if name == "isqrt_round":
            want(2)
            T = unify(args[:1], expected, (IntType,))
            e.mode = mode_arg(args[1])
            e.T = T
            return T
        if name in ("rotl", "rotr"):
            want(2)
            T = unify(args[:1], expected, (IntType,))
            if T.signed:
                raise _err("C2103", e.span, "`%s` is defined on unsigned types" % name)
            self.expr(args[1], None)
            if not isinstance(args[1].ty, IntType):
                raise _err("C2001", args[1].span, "a rotation count is an integer")
            e.T = T
            return T
        if name == "divmod":
            want(2)
            T = unify(args, None, (IntType,))
            e.T = T
            return TupleType((T, T))
        if name == "mul_full":
            want(2)
            T = unify(args, None, (IntType,))
            if T.bits >= 1024 or (not T.signed and T.bits == 64):
                raise _err("C2103", e.span, "`mul_full` is not defined for %s" % T)
            e.T = T
            return IntType(T.signed, T.bits * 2)
        if name == "muldiv":
            want(5)
            R = type_arg(args[0])
            if not isinstance(R, IntType):
                raise _err("C2001", args[0].span, "muldiv's result type is an integer type")
            T = unify(args[1:4], None, (IntType,))
            e.mode = mode_arg(args[4])
            e.T = T
            e.R = R
            return R
        if name in ("mul", "div", "mul_wrap", "mul_sat"):
            want(3)
            T = unify(args[:2], expected, (FixedType,))
            e.mode = mode_arg(args[2])
            e.T = T
            return T
        if name in ("sqrt", "sqrt_wrap", "sqrt_sat"):
            if n not in (1, 2):
                raise _err("C2022", e.span, "`%s` takes one or two arguments" % name)
            T = unify(args[:1], expected, (FixedType,))
            e.mode = mode_arg(args[1]) if n == 2 else "half_even"
            e.T = T
            return T
        if name == "len":
            want(1)
            self.expr(args[0], None)
            t = args[0].ty
            if isinstance(t, StrType):
                return I64
            if not isinstance(t, ArrayType):
                raise _err("C2103", e.span, "`len` takes an array, a view or a Str")
            if t.rank != 1:
                raise _err("C2014", e.span, "`len` is for rank 1; use extent(a, d)")
            return I64
        if name in ("sum", "sum_wrap", "sum_sat", "count"):
            R = None
            if name == "sum" and n == 2:
                R = type_arg(args[0])
                xs = args[1]
            else:
                want(1)
                xs = args[0]
            self.expr(xs, None)
            t = xs.ty
            if not isinstance(t, ArrayType):
                raise _err("C2103", e.span, "`%s` takes an array" % name)
            if name == "count":
                if t.elem != BOOL:
                    raise _err("C2103", e.span, "`count` takes a Bool array")
                e.elem = BOOL
                return I64
            if not isinstance(t.elem, IntType):
                raise _err("C2103", e.span, "`%s` takes an integer array" % name)
            e.elem = t.elem
            e.R = R or t.elem
            return e.R
        if name == "fold_checked":
            want(3)
            op = args[0]
            if not (isinstance(op, A.Name) and op.ident in ("add", "mul")):
                raise _err("C2001", op.span or e.span, "fold_checked takes `add` or `mul`")
            e.fold_op = op.ident
            op.ty = ROUND          # an operation name: not a value, never evaluated (LS-146)
            self.expr(args[2], None)
            t = args[2].ty
            if not isinstance(t, ArrayType) or not isinstance(t.elem, IntType):
                raise _err("C2103", e.span, "`fold_checked` takes an integer array")
            self.expr(args[1], t.elem)
            self.assignable(t.elem, args[1], args[1].span)
            e.elem = t.elem
            return t.elem
        if name == "dot":
            want(3)
            R = type_arg(args[0])
            for x in args[1:]:
                self.expr(x, None)
            ta, tb = args[1].ty, args[2].ty
            if not (isinstance(ta, ArrayType) and isinstance(tb, ArrayType) and ta.elem == tb.elem
                    and ta.rank == 1 and tb.rank == 1 and isinstance(ta.elem, IntType)):
                raise _err("C2103", e.span, "`dot` takes two rank-1 arrays of one integer type")
            e.elem = ta.elem
            e.R = R
            return R
        raise unsupported(e.span, "the built-in `%s`" % name)

    def _arrayish(self, a):
        """Whether a second argument of min/max names an array (the reduction form `min(init, xs)`)."""
        if isinstance(a, A.Name):
            s = self.scope.lookup(a.ident)
            return s is not None and isinstance(s.type, ArrayType)
        if isinstance(a, A.Paren):
            return self._arrayish(a.inner)
        if isinstance(a, A.Index):
            return any(isinstance(i, A.SliceItem) for i in a.items)
        if isinstance(a, A.ArrayLit):
            return True
        if isinstance(a, A.Call) and isinstance(a.callee, A.Name) and a.callee.ident in ("transpose", "reverse"):
            return self.scope.lookup(a.callee.ident) is None
        return False

    # ------------------------------------------------------------------ indexing

    def e_Index(self, e: A.Index, expected):
        from cint_compiler.check.features import proposed as proposed_check
        rt = proposed_check.subword(self, e)      # `x.byte[k]` and friends (LS-85, Proposed), decision 31
        if rt is not None:
            return rt
        bt = self.expr(e.base, None)
        if isinstance(bt, (ArenaType, PoolType)):
            return self.container_index(e, bt)
        if isinstance(bt, StrType):
            if len(e.items) != 1 or isinstance(e.items[0], A.SliceItem):
                raise unsupported(e.span, "slicing a Str")
            self.expr(e.items[0], I64)
            if e.items[0].ty != I64:
                raise _err("C2001", e.items[0].span, "an index has type I64, not %s" % e.items[0].ty)
            return U8
        if not isinstance(bt, ArrayType):
            raise _err("C2103", e.span, "%s cannot be indexed" % bt)
        if isinstance(e.base, A.Index) and isinstance(e.base.base.ty, ArrayType) and \
                len(e.base.items) < e.base.base.ty.rank:
            raise _err("C2010", e.span, "write m[i, j], not m[i][j]")
        view = False
        for it in e.items:
            if isinstance(it, A.SliceItem):
                view = True
                self.slice_item(it)
                continue
            self.expr(it, I64)
            if it.ty != I64:
                raise _err("C2001", it.span, "an index has type I64, not %s; convert it with `as I64`" % it.ty)
        if len(e.items) > bt.rank:
            raise _err("C2010", e.span, "%d indices for an array of rank %d" % (len(e.items), bt.rank))
        # a slice, or a partial index (LS-65): a view of the remaining dimensions
        e.view = view or len(e.items) < bt.rank
        if not e.view:
            return bt.elem
        return ArrayType(bt.elem, self.slice_dims(bt, e.items))

    # ------------------------------------------------------------------ views (SPEC-04 4.3, 5.1, 7.6)

    class ViewInfo:
        """A view variable (LS-106): its permission, the variable whose storage it views, the ordinals of its
        uses, and the dispatch across which it may no longer be used (LS-253)."""

        __slots__ = ("mode", "root", "declared", "uses", "mark")

        def __init__(self, mode, root, declared):
            self.mode = mode
            self.root = root
            self.declared = declared
            self.uses = []
            self.mark = None

    @staticmethod
    def slice_fill(lo, hi, inclusive, step, lower, ext):
        """One dimension of a slice (LS-161): the two bounds after omitted ones are filled in, whether they are
        valid, the index of the first element and the element count."""
        if step > 0:
            f = lower if lo is None else lo
            g = (lower + ext - (1 if inclusive else 0)) if hi is None else hi
            end = g + 1 if inclusive else g           # exact: `hi` at the I64 maximum stays a bounds fault
            ok = lower <= f <= end <= lower + ext
            n = (end - f + step - 1) // step if ok else 0
        else:
            f = lower + ext - 1 if lo is None else lo
            g = (lower if inclusive else lower - 1) if hi is None else hi
            end = g - 1 if inclusive else g
            ok = lower - 1 <= end <= f <= lower + ext - 1
            n = (f - end - step - 1) // -step if ok else 0
        return f, g, ok, n

    @staticmethod
    def view_relation(a, b):
        """`identical`, `disjoint` or `overlap` for two views (origin, shape, strides) of one buffer, by the
        tests of SPEC-02 A-5 that LS-70 names: T0 (an empty view), T1 (bounding intervals), T2 (the gcd of the
        strides does not divide the distance of the origins), T3 (exactly the same view)."""
        from math import gcd
        (oa, sa, ta), (ob, sb, tb) = a, b
        if any(x == 0 for x in sa) or any(x == 0 for x in sb):
            return "disjoint"                                                  # T0

        def interval(o, shape, strides):
            lo = hi = o
            for n, s in zip(shape, strides):
                if s < 0:
                    lo += (n - 1) * s
                else:
                    hi += (n - 1) * s
            return lo, hi

        la, ha = interval(oa, sa, ta)
        lb, hb = interval(ob, sb, tb)
        if ha < lb or hb < la:
            return "disjoint"                                                  # T1
        g = 0
        for shape, strides in ((sa, ta), (sb, tb)):
            for n, s in zip(shape, strides):
                if n > 1:
                    g = gcd(g, abs(s))
        if g > 1 and (oa - ob) % g != 0:
            return "disjoint"                                                  # T2
        if oa == ob and tuple(sa) == tuple(sb) and all(s == t for n, s, t in zip(sa, ta, tb) if n > 1):
            return "identical"                                                 # T3
        return "overlap"

    def slice_item(self, it: A.SliceItem):
        """Type the bounds of one slice position; `by` takes a nonzero constant (C2053)."""
        for b in (it.lo, it.hi):
            if b is not None:
                self.expr(b, I64)
                if b.ty != I64:
                    raise _err("C2001", start_span(b), "a slice bound has type I64, not %s; convert it with "
                               "`as I64`" % b.ty)
                self.fold(b)
        if it.step is not None:
            self.expr(it.step, I64)
            self.fold(it.step)
            if it.step.ty != I64 or it.step.cval is NOTCONST or it.step.cval == 0:
                raise _err("C2053", start_span(it.step), "`by` takes a nonzero constant")

    @staticmethod
    def _view_dim(d):
        """An extent a view type can carry: a constant, a size symbol, or `_` (a run-time extent)."""
        return d if isinstance(d, (int, str)) else None

    def slice_dims(self, bt: ArrayType, items):
        """The extents of a slice or partial index of ``bt``, where they are known at compile time."""
        dims = []
        for d, ext in enumerate(bt.dims):
            if d >= len(items):
                dims.append(self._view_dim(ext))
                continue
            it = items[d]
            if not isinstance(it, A.SliceItem):
                continue
            step = it.step.cval if it.step is not None else 1
            lo = it.lo.cval if it.lo is not None else None
            hi = it.hi.cval if it.hi is not None else None
            if lo is NOTCONST or hi is NOTCONST:
                dims.append(None)
            elif lo is None and hi is None and step == 1:
                dims.append(self._view_dim(ext))
            elif isinstance(ext, int):
                _, _, ok, n = self.slice_fill(lo, hi, it.inclusive, step, 0, ext)
                dims.append(n if ok else None)
            elif lo is not None and hi is not None:
                # the extent is not known: a slice it does not admit faults before its value is used
                end = hi + (1 if it.inclusive else 0) if step > 0 else hi - (1 if it.inclusive else 0)
                span = end - lo if step > 0 else lo - end
                dims.append((span + abs(step) - 1) // abs(step) if span >= 0 else None)
            else:
                dims.append(None)
        return tuple(dims)

    def view_root(self, e):
        """The variable an array expression views (a Name), through fields, indices, slices, parentheses and
        `transpose`/`reverse`; None for a value that is not stored in a variable."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, (A.Index, A.Member)):
                e = e.base
            elif isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin" and \
                    getattr(e, "bname", None) in ("transpose", "reverse"):
                e = e.argv[0]
            elif isinstance(e, A.Name):
                return e if getattr(e, "ref", None) is not None else None
            else:
                return None

    @staticmethod
    def is_readonly_view(sym):
        return isinstance(sym.info, Checker.ViewInfo) and sym.info.mode == "in"

    def view_decl(self, d: A.VarDecl):
        """`in T[_] v = e;` or `inout T[_] v = e;`: a view variable (LS-106); no element is copied."""
        if d.type is None:
            raise unsupported(d.span, "`var` declarations")
        t = self.resolve_type(d.type)
        self.storable(t, d.type.span or d.span)
        if not isinstance(t, ArrayType):
            raise unsupported(d.type.span or d.span, "a view variable of type %s (a view here views an array)" % t)
        if d.init is None:
            raise _err("C2050", d.span, "view `%s` needs an initializer: the array it views" % d.name)
        self.expr(d.init, None)
        it = d.init.ty
        if not isinstance(it, ArrayType) or it.elem != t.elem or it.rank != t.rank:
            raise _err("C2001", start_span(d.init), "expected %s, found %s" % (t, it))
        root = self.view_root(d.init)
        if root is None or root.ref.kind not in ("local", "global", "param", "const", "module", "container"):
            raise _err("C2051", start_span(d.init), "a view views a variable, a parameter, or a part of one; "
                       "this value does not outlive the statement")
        if d.mode == "inout":
            self.require_writable(d.init)
        dims = []
        for want, got in zip(t.dims, it.dims):
            if want is None or want == got:
                dims.append(self._view_dim(got))
            elif isinstance(want, int) and isinstance(got, int):
                raise _err("C2012", start_span(d.init), "the shapes do not agree: %s and %s" % (t, it))
            else:
                raise unsupported(d.type.span or d.span, "a view variable whose extent is checked at run time "
                                  "(declare it `_`)")
        self.fold(d.init)
        rsym = root.ref
        if isinstance(rsym.info, Checker.ViewInfo):
            rsym = rsym.info.root
        sym = Symbol("local", d.name, ArrayType(t.elem, tuple(dims)), decl=d, mutable=d.mode == "inout",
                     span=d.span)
        sym.info = Checker.ViewInfo(d.mode, rsym, self._view_tick())
        d.resolved = sym.type
        d.sym = sym
        self.declare(self.scope, d.name, sym, d.span)

    def _view_tick(self):
        n = getattr(self, "_view_ticks", 0) + 1
        self._view_ticks = n
        return n

    def view_used(self, e: A.Name, sym):
        """A use of a view variable: C5011 when a dispatch that writes its array came between (LS-253)."""
        vi = sym.info
        if vi.mark is not None:
            what = "swap exchanges" if id(vi.mark) in getattr(self, "_swap_spans", ()) else "dispatch writes"
            raise _err("C5011", vi.mark, "`%s` views `%s`, which this %s, and is used after it "
                       "(LS-253)" % (sym.name, vi.root.name, what))
        vi.uses.append(self._view_tick())

    def views_across_dispatch(self, e, info, args):
        """Mark the view variables in scope that view an `out` or `inout` argument of a dispatch (LS-253)."""
        written = set()
        for p, a in zip(info.params, args):
            if p.info in ("out", "inout"):
                r = self.view_root(a)
                if r is not None:
                    s = r.ref
                    written.add(id(s.info.root if isinstance(s.info, Checker.ViewInfo) else s))
        if not written:
            return
        if getattr(self, "_str_info", None):
            from cint_compiler.check.features import textops as textops_check
            textops_check.mark(self, e.span, written, "dispatch writes")
        marks = getattr(self, "_view_marks", None)
        if marks is None:
            marks = self._view_marks = []
        sc = self.scope
        tick = self._view_tick()
        while sc is not None:
            for s in sc.names.values():
                if isinstance(s.info, Checker.ViewInfo) and id(s.info.root) in written and s.info.mark is None:
                    s.info.mark = e.span
                    marks.append((s, tick))
            sc = sc.parent

    def view_iterated(self, it):
        """`for x in v`: the view ``v`` is used by every iteration, so a dispatch in the body that writes its
        array is C5011 (LS-253)."""
        r = self.view_root(it)
        if r is not None and isinstance(r.ref.info, Checker.ViewInfo) and r.ref.info.mark is not None:
            vi = r.ref.info
            raise _err("C5011", vi.mark, "`%s` views `%s`, which this dispatch writes, while a loop iterates it "
                       "(LS-253)" % (r.ref.name, vi.root.name))

    def views_in_loop(self, start):
        """After a loop body: a view variable declared before the loop and used in it is live across a dispatch
        in the body that writes its array (LS-253)."""
        if getattr(self, "_str_info", None):
            from cint_compiler.check.features import textops as textops_check
            textops_check.in_loop(self, start)
        for s, tick in getattr(self, "_view_marks", None) or ():
            vi = s.info
            if tick > start and vi.declared < start and any(u > start for u in vi.uses):
                raise _err("C5011", vi.mark, "`%s` views `%s`, which this dispatch writes, and is used again in "
                           "the loop (LS-253)" % (s.name, vi.root.name))

    def static_view(self, e):
        """(path, origin, shape, strides) of an array expression whose elements are known at compile time,
        relative to the variable or field ``path`` names; None otherwise."""
        if isinstance(e, A.Paren):
            return self.static_view(e.inner)
        if isinstance(e, A.Index) and getattr(e, "view", False):
            base = self.static_view(e.base)
            if base is None:
                return None
            path, origin, shape, strides = base
            out_shape, out_strides = [], []
            for d, (n, s) in enumerate(zip(shape, strides)):
                if d >= len(e.items):
                    out_shape.append(n)
                    out_strides.append(s)
                    continue
                it = e.items[d]
                if isinstance(it, A.SliceItem):
                    lo, hi = (self._const_of(b) for b in (it.lo, it.hi))
                    if lo is NOTCONST or hi is NOTCONST:
                        return None
                    step = it.step.cval if it.step is not None else 1
                    f, _, ok, k = self.slice_fill(lo, hi, it.inclusive, step, 0, n)
                    if not ok:
                        return None
                    origin += f * s if k else 0
                    out_shape.append(k)
                    out_strides.append(s * step)
                else:
                    i = self._const_of(it)
                    if i is NOTCONST or i is None or not 0 <= i < n:
                        return None
                    origin += i * s
            return path, origin, tuple(out_shape), tuple(out_strides)
        if isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin" and \
                getattr(e, "bname", None) in ("transpose", "reverse"):
            base = self.static_view(e.argv[0])
            if base is None:
                return None
            path, origin, shape, strides = base
            if e.bname == "transpose":
                return path, origin, shape[::-1], strides[::-1]
            d = e.dim
            strides = list(strides)
            if shape[d]:
                origin += (shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
            return path, origin, shape, tuple(strides)
        path = self.place_path(e)
        t = e.ty
        if path is None or not isinstance(t, ArrayType) or not all(isinstance(x, int) for x in t.dims):
            return None
        if isinstance(e, A.Name) and t.rank > 1 and (e.ref.kind == "param" or isinstance(e.ref.info,
                                                                                          Checker.ViewInfo)):
            return None     # a parameter or view variable of rank 2 or more may have any layout
        strides, acc = [], 1
        for n in reversed(t.dims):
            strides.append(acc)
            acc *= n
        return path, 0, tuple(t.dims), tuple(reversed(strides))

    def _const_of(self, e):
        if e is None:
            return None
        if e.cval is NOTCONST and self.is_const(e):
            self.fold(e)
        return e.cval if isinstance(e.cval, int) and not isinstance(e.cval, bool) else NOTCONST

    @staticmethod
    def _offsets(v, limit=1 << 16):
        origin, shape, strides = v[1:]
        total = 1
        for n in shape:
            total *= n
        if total > limit:
            return None
        out = {origin}
        for n, s in zip(shape, strides):
            out = {o + i * s for o in out for i in range(n)} if n else set()
        return out

    def copy_alias_static(self, dst, src, span):
        """C5010 when the destination and source of a copy are views of one variable that the tests of LS-70
        cannot prove disjoint and that are not the same view."""
        a, b = self.static_view(dst), self.static_view(src)
        if a is None or b is None or a[0] != b[0]:
            return
        if self.view_relation(a[1:], b[1:]) == "overlap":
            raise _err("C5010", span, "the source and destination of this copy overlap: they share elements of "
                       "one array and are not the same view (LS-70)",
                       help="copy through storage the program declares")

    def view_path(self, e):
        """The variable and field path of the array that a view expression views, or None."""
        while True:
            if isinstance(e, A.Paren):
                e = e.inner
            elif isinstance(e, A.Index) and getattr(e, "view", False):
                e = e.base
            elif isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin" and \
                    getattr(e, "bname", None) in ("transpose", "reverse"):
                e = e.argv[0]
            else:
                return self.place_path(e)

    def views_overlap_static(self, a, b):
        """Whether two arguments, one of them a view, are known to share an element (LS-121): views of one
        array whose elements are known, or a view of an array field of a struct that is the other argument."""
        x, y = self.view_path(a), self.view_path(b)
        if x is not None and y is not None and x != y and (x[:len(y)] == y or y[:len(x)] == x):
            inner = a if len(x) > len(y) else b
            v = self.static_view(inner)
            return v is not None and all(n > 0 for n in v[2])     # otherwise checked at entry (E_ALIAS)
        if not (isinstance(a.ty, ArrayType) and isinstance(b.ty, ArrayType)):
            return False
        x, y = self.static_view(a), self.static_view(b)
        if x is None or y is None or x[0] != y[0]:
            return False
        ox, oy = self._offsets(x), self._offsets(y)
        return ox is not None and oy is not None and bool(ox & oy)

    ARRAY_BUILTINS = {"extent": 2, "size": 1, "lower": 2, "copy": 2, "fill": 2, "equal": 2, "transpose": 1,
                      "reverse": 2}

    def array_builtin(self, e, name, args):
        """extent, size, lower, copy, fill, equal, transpose and reverse (LS-145)."""
        arity = self.ARRAY_BUILTINS[name]
        if len(args) != arity:
            raise _err("C2022", e.span, "`%s` takes %d argument%s" % (name, arity, "s" if arity > 1 else ""))
        for a in args:
            if not isinstance(a, A.Expr):
                raise _err("C2001", a.span or e.span, "a type is not a value")
        a0 = args[0]
        self.expr(a0, None)
        t = a0.ty
        if not isinstance(t, ArrayType):
            raise _err("C2103", e.span, "`%s` takes an array or a view, not %s" % (name, t))
        if name in ("extent", "lower", "reverse"):
            d = args[1]
            self.expr(d, I64)
            if d.ty != I64:
                raise _err("C2001", start_span(d), "a dimension has type I64, not %s" % d.ty)
            self.fold(d)
            if d.cval is NOTCONST:
                raise _err("C6004", start_span(d), "the dimension argument of `%s` is a constant" % name)
            if not 0 <= d.cval < t.rank:
                raise _err("C2014", start_span(d), "an array of rank %d has no dimension %d" % (t.rank, d.cval))
            e.dim = d.cval
            if name == "reverse":
                return ArrayType(t.elem, tuple(self._view_dim(x) for x in t.dims))
            return I64
        if name == "size":
            return I64
        if name == "transpose":
            if t.rank != 2:
                raise _err("C2014", e.span, "`transpose` takes an array or view of rank 2, not %d" % t.rank)
            return ArrayType(t.elem, (self._view_dim(t.dims[1]), self._view_dim(t.dims[0])))
        if name in ("copy", "fill"):
            if self.view_root(a0) is None:
                raise _err("C2058", start_span(a0), "the destination of `%s` is an array variable or a view of one"
                           % name)
            self.require_writable(a0)
        if name == "fill":
            v = args[1]
            self.expr(v, t.elem)
            self.assignable(t.elem, v, v.span)
            self.fold(v)
            return VOID
        b = args[1]
        self.expr(b, t)
        if not (isinstance(b.ty, ArrayType) and b.ty.elem == t.elem and b.ty.rank == t.rank):
            raise _err("C2001", start_span(b), "expected an array of %s of rank %d, found %s" % (t.elem, t.rank, b.ty))
        if name == "equal":
            if not isinstance(t.elem, (IntType, FixedType, BoolType, EnumType, ErrorSetType)):
                raise _err("C2103", e.span, "`equal` compares arrays whose elements have `==`, not %s" % t.elem)
            return BOOL
        self.check_shapes(t, b.ty, start_span(b))
        self.copy_alias_static(a0, b, start_span(b))
        return VOID

    # ------------------------------------------------------------------ constant folding

    def is_const(self, e) -> bool:
        """Whether ``e`` is a constant expression (SPEC-01 IM-23): literals, constants, operators, named ops.

        During one `fold` the answers are remembered per node: `fold` asks it at every level of a tree,
        which without the memo costs n^2 for a chain of n operators (issue 11 item 12)."""
        memo = self.const_memo
        if memo is None:
            return self._is_const(e)
        r = memo.get(id(e))
        if r is None:
            r = memo[id(e)] = self._is_const(e)
        return r

    def _is_const(self, e) -> bool:
        if isinstance(e, (A.IntLit, A.FracLit, A.BoolLit)):
            return True
        if isinstance(e, A.Name):
            return getattr(e, "ref", None) is not None and e.ref.kind == "const" and not isinstance(e.ty, ArrayType)
        if isinstance(e, (A.TypeMember, A.DotName)):
            return e.cval is not NOTCONST
        if isinstance(e, A.Index) and getattr(e, "subword", None) is not None:
            return self.is_const(e.subword_x)      # `C.byte[k]` of a constant (decision 31)
        if isinstance(e, A.Member):
            return getattr(e, "mkind", None) == "const" or (getattr(e, "mkind", None) == "raw" and self.is_const(e.base))
        if isinstance(e, A.Paren):
            return self.is_const(e.inner)
        if isinstance(e, A.Unary):
            return self.is_const(e.operand)
        if isinstance(e, A.Binary):
            return self.is_const(e.left) and self.is_const(e.right)
        if isinstance(e, A.Cond):
            return self.is_const(e.cond) and self.is_const(e.then) and self.is_const(e.other)
        if isinstance(e, A.Convert):
            return e.literal or self.is_const(e.operand)
        if isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin":
            if e.bname in REDUCTIONS or e.bname in ("len", "reduce_min", "reduce_max", "min_init", "max_init") or e.bname in RESULT_BUILTINS:
                return False
            return all(self.is_const(a) for a in e.argv if isinstance(a, A.Expr) and a.ty != ROUND
                       and not (isinstance(a, A.Name) and a.ident in ROUND_MODES))
        if isinstance(e, A.Call) and getattr(e, "kind", None) == "raw":
            return self.is_const(e.args[0].value)
        if isinstance(e, A.Call) and getattr(e, "kind", None) == "func" and getattr(e, "const_call", False):
            return all(self.is_const(a) for a in e.argv if isinstance(a, A.Expr))
        return False

    def fold(self, e):
        """Evaluate every maximal constant subexpression of ``e`` at compile time (SPEC-01 IM-23)."""
        if self.const_memo is not None:
            return self._fold(e)
        self.const_memo = {}
        try:
            return self._fold(e)
        finally:
            self.const_memo = None

    def _fold(self, e):
        if e is None:
            return
        if self.is_const(e):
            self.eval_const(e)
            return
        # Not constant: fold the children, except the operands that &&, || and ?: may skip.
        if isinstance(e, A.Binary) and e.op in LOGIC_OPS:
            self._fold(e.left)
            self.mark_runtime(e.right)
            return
        if isinstance(e, A.Cond):
            self._fold(e.cond)
            self.mark_runtime(e.then)
            self.mark_runtime(e.other)
            return
        for ch in self.children(e):
            self._fold(ch)
        if isinstance(e, A.Call) and getattr(e, "kind", None) == "builtin" and getattr(e, "bname", None) == "clamp":
            self.check_clamp_bounds(e)

    def check_clamp_bounds(self, e):
        """C6006 (LS-313): `clamp` whose constant `lo` exceeds its constant `hi`, at the callee name."""
        argv = getattr(e, "argv", None) or []
        if len(argv) != 3:
            return
        lo, hi = (getattr(a, "cval", NOTCONST) for a in argv[1:])
        if lo is NOTCONST or hi is NOTCONST or lo is None or hi is None:
            return
        try:
            bad = lo > hi
        except TypeError:
            return
        if bad:
            raise _err("C6006", e.callee.span or e.span, "clamp: the constant lo %s exceeds the constant hi %s"
                       % (lo, hi))

    def mark_runtime(self, e):
        """A constant operand that run time may skip: evaluated only if reached (IM-23)."""
        if self.is_const(e):
            e.skip_fold = True
            # its literal range errors stay pending (C2003 after evaluation)
            return
        self._fold(e)

    def children(self, e):
        if isinstance(e, A.Paren):
            return [e.inner]
        if isinstance(e, A.Unary):
            return [e.operand]
        if isinstance(e, A.Binary):
            return [e.left, e.right]
        if isinstance(e, A.Cond):
            return [e.cond, e.then, e.other]
        if isinstance(e, A.Convert):
            return [] if e.literal else [e.operand]
        if isinstance(e, A.Call):
            return [a for a in (getattr(e, "argv", None) or []) if isinstance(a, A.Expr)]
        if isinstance(e, A.Index):
            out = [e.base]
            for i in e.items:
                if isinstance(i, A.SliceItem):
                    out.extend(b for b in (i.lo, i.hi) if b is not None)
                elif isinstance(i, A.Expr):
                    out.append(i)
            return out
        if isinstance(e, A.Member):
            return [e.base]
        if isinstance(e, (A.ArrayLit, A.TupleExpr)):
            return list(e.items)
        if isinstance(e, (A.Try,)):
            return [e.operand]
        if isinstance(e, A.Catch):
            return [e.operand] + ([e.value] if e.value is not None else [])
        return []

    # ------------------------------------------------------------------ compile-time calls (LS-264..LS-268)

    CONST_FUEL_BUDGET = 1_000_000_000   # fuel-v1 units of compile-time calls per module (LS-267); tests lower it
    # evaluation steps (expressions evaluated, statements run) of compile-time calls per module: bounds the
    # time `cint check` spends evaluating whatever the source (docs/language.md decision 32)
    CONST_WORK_BUDGET = 500_000

    def ensure_checked(self, info: FuncInfo):
        """Check a function's body now, out of pass order, when a constant calls it (LS-264)."""
        if info.kchecked:
            return
        if id(info) in self.checking:
            raise _err("C6004", info.decl.span, "`%s` is called by a constant while its own body is being "
                       "checked" % info.qname)
        saved = (self.fn, self.scope, self.pending, self.in_case_item)
        self.pending = []
        self.in_case_item = False
        self.checking.add(id(info))
        try:
            self.check_function(info)
        finally:
            self.checking.discard(id(info))
            self.fn, self.scope, self.pending, self.in_case_item = saved

    def const_ineligible(self, info: FuncInfo, seen=None):
        """None when `info` is const-eligible (LS-265), else why not.  Checks bodies on demand."""
        seen = set() if seen is None else seen
        if id(info) in seen:
            return None
        seen.add(id(info))
        if info.is_kernel:
            return "it is a kernel"
        scalar = (IntType, BoolType, EnumType, FixedType)
        for p in info.params:
            if not isinstance(p.type, scalar):
                return "parameter `%s` is not of an integer, Bool, enum or fixed-point type" % p.name
        if isinstance(info.result, ErrorUnionType):
            return "it returns an error union"
        if not isinstance(info.result, scalar):
            return "its result is not of an integer, Bool, enum or fixed-point type"
        if info.size_params or getattr(info.decl, "where", None) is not None:
            return "it has size parameters"
        self.ensure_checked(info)
        if info.prints:
            return "it prints"
        found = []

        def walk(n, memo):
            if id(n) in memo or found:
                return
            memo.add(id(n))
            if isinstance(n, A.Name) and getattr(n, "ref", None) is not None and n.ref.kind == "global":
                found.append("it uses the module variable `%s`" % n.ref.name)
                return
            if isinstance(n, A.Call) and getattr(n, "kind", None) == "dispatch":
                found.append("it dispatches a kernel")
                return
            if isinstance(n, A.Call) and getattr(n, "kind", None) == "func":
                why = self.const_ineligible(n.info, seen)
                if why is not None:
                    found.append("it calls `%s`, and %s" % (n.info.qname, why))
                    return
            for v in vars(n).values():
                if isinstance(v, A.Node):
                    walk(v, memo)
                elif isinstance(v, (list, tuple)):
                    for x in v:
                        if isinstance(x, A.Node):
                            walk(x, memo)
                        elif isinstance(x, (list, tuple)):
                            for y in x:
                                if isinstance(y, A.Node):
                                    walk(y, memo)
        walk(info.decl.body, set())
        return found[0] if found else None

    def run_const_call(self, e, args):
        """Run the const-eligible function of call `e` with the argument values, with the run-time semantics
        (LS-266); a fault is C6001 at the call, exhausting the module's budget C6002 (LS-267)."""
        from cint_compiler.interp.context import CompileTimeBudgetExceeded, CompileTimeContext
        from cint_compiler.semantics.faults import EntryFault
        if self.const_ctx is None:
            prog = Program(self.m, [], self.functions, self.kernels, [], None, None, self.types)
            self.const_ctx = CompileTimeContext(prog, b"", self.CONST_WORK_BUDGET)
        ctx = self.const_ctx
        ctx.begin(self.CONST_FUEL_BUDGET - self.const_fuel, 256)
        span = e.callee.span or e.span
        try:
            r = ctx.enter_function(e.info, list(args), span)
        except CompileTimeBudgetExceeded:
            raise _err("C6002", span, "E_FUEL in constant evaluation: calling `%s` exceeds this implementation's "
                       "compile-time budget of %d evaluation steps per module (docs/language.md decision 32); "
                       "compute the value at run time, or a smaller one at compile time"
                       % (e.info.qname, self.CONST_WORK_BUDGET))
        except EntryFault as ef:
            self.const_fuel += ctx.fuel
            rec = ef.record
            if rec.code == "E_FUEL":
                raise _err("C6002", span, "E_FUEL in constant evaluation: the compile-time fuel budget of "
                           "%d units per module is exhausted calling `%s`" % (self.CONST_FUEL_BUDGET,
                                                                               e.info.qname))
            raise _err("C6001", span, "%s in constant evaluation: %s (in `%s` at %s:%d:%d)"
                       % (rec.code, rec.operation, e.info.qname, rec.position.path, rec.position.line,
                          rec.position.column))
        self.const_fuel += ctx.fuel
        return r

    def eval_const(self, e):
        from cint_compiler.interp.context import ConstEvaluator
        ev = ConstEvaluator()
        ev.user_call = self.run_const_call
        try:
            v = ev.eval(e)
        except MachineFault as mf:
            raise _err("C6001", ev.last_span or e.span, "%s in constant evaluation: %s" % (mf.code, mf.operation),
                       fault=mf)
        except CompileError:
            raise
        # literal errors in skipped operands remain pending; those evaluated were raised
        self.pending = [p for p in self.pending if p not in ev.checked_literals]
        e.cval = v
        e.csteps = ev.step

    def const_array(self, t, e):
        """The value of a constant array's initializer (LS-111, SPEC-04 5.2), evaluated at compile time: an
        array literal, nested for rank 2 to 4, whose elements are constant expressions (already folded) or
        constant arrays; NOTCONST for anything else.  The value is shared by every read of the constant,
        which nothing can write (C2058, C2067)."""
        if not isinstance(t, ArrayType):
            return NOTCONST

        def leaves(x):
            if isinstance(x, A.ArrayLit):
                return all(leaves(i) for i in x.items)
            if isinstance(x, A.Name) and isinstance(x.ty, ArrayType):
                return getattr(x, "ref", None) is not None and x.ref.kind == "const" and x.ref.value is not NOTCONST
            return x.cval is not NOTCONST and not x.skip_fold and not isinstance(x.ty, (ArrayType, StrType))

        if not isinstance(e, (A.ArrayLit, A.Name)) or not leaves(e):
            return NOTCONST
        from cint_compiler.interp.context import ConstEvaluator
        ev = ConstEvaluator()
        try:
            v = ev.eval(e)
        except MachineFault as mf:
            raise _err("C6001", ev.last_span or e.span, "%s in constant evaluation: %s" % (mf.code, mf.operation),
                       fault=mf)
        if not isinstance(v, ArrayValue):
            return NOTCONST
        if any(isinstance(want, int) and want != got for want, got in zip(t.dims, v.shape)):
            k = next(k for k, (want, got) in enumerate(zip(t.dims, v.shape)) if isinstance(want, int) and want != got)
            raise _err("C2012", e.span, "the constant has extent %d in dimension %d, not %d" % (v.shape[k], k,
                                                                                                 t.dims[k]))
        return copy_value(v) if isinstance(e, A.ArrayLit) else v

    def const_int(self, e, t):
        self.expr(e, t)
        self.fold(e)
        self.flush_pending()
        if e.cval is NOTCONST or not isinstance(e.cval, int):
            raise _err("C6004", e.span, "a constant is required here")
        return e.cval


def check_program(module: A.Module, modules: Optional[Dict[str, Program]] = None) -> Program:
    """Check one module; ``modules`` holds the checked modules it imports, by path (SPEC-04 section 11)."""
    return Checker(module, modules).run()
