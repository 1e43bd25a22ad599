"""The checker's tables and records: built-in names, operators, symbols, scopes, function and program
records, and the layout helpers the executors share (SPEC-04P.1 sections 4 to 14)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.operators import CMP_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (I64, VOID, Z, ArrayType, BoolType, EnumType,
                    ErrorSetType, FixedType, IntType, StructType, Type)

from cint_compiler.syntax.tree import NOTCONST

# The built-in functions (SPEC-04 LS-145) are rows of semantics/builtins.py.


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
    return place.bitfield if isinstance(place, A.Member) else None


def bitfield_fault(bf, v):
    """The E_NARROW fault of storing ``v`` into a bit field (LS-82), or None when it fits.  Our record:
    operation `bitfield.checked.<T>`, the value as its operand and as exact, the bound crossed as limit."""
    t, w = bf
    if isinstance(t, BoolType):
        return None
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.signed else (0, (1 << w) - 1)
    if lo <= v <= hi:
        return None
    return MachineFault("E_NARROW", O.op("bitfield", "checked", t), [(t, v)], v, (t, hi if v > hi else lo))


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
    """What the checker knows about the function body it is in (every field declared: a slot)."""

    __slots__ = ("info", "kind", "result", "loops", "in_switch", "in_defer", "ft_ok", "prints", "kviol", "kcalls",
                 "kbytes", "gwrites", "reduces")

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
        self.reduces = []             # a kernel's `reduce` statements so far (check/features/reduce.py)


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
