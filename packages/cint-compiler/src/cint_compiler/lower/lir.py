"""The lowered IR (LIR) of cint-core-1: what every compiled back end consumes (docs/lir.md).

A function or kernel of the checked program becomes one `Function`: typed temporaries and variables,
explicit operations that name their operation identifier, type and site, explicit index checks and fuel
charges, and structured control flow (blocks, `If`, loops).  A kernel's work items are one unit, the
`ItemLoop`, which a back end may run in ranges (threads), hand to a device, or run item by item.

Everything here is plain data: the lowering (`lower.build`) makes it, passes (`lower.passes`) return new
facts about it (proofs, fuel plans), the verifier (`lower.verify`) checks it, `format_function` prints it
(`cint lower`), and the C17 back end (`backend/c17/lirc.py`) writes C from it.

Values: `Imm` (a constant of a type), `Temp` (assigned once), `Var` (a mutable local, a parameter, a size
symbol, an `over` variable or a loop variable).  Types are the checker's: `IntType` I8..U64 and `BOOL`.
Arrays are `Arr` (a parameter, a constant array or a module array), indexed through an `Elem` operation
that checks every index and yields an element reference for `Load` and `Store`.

Counted steps (SPEC-01P.1 IM-113): each operation that counts one in a work item has `step=True`; the
ordinal is the running count, so a back end that reports step ordinals counts them in evaluation order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Union

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.types import BOOL, ArrayType, IntType, Type


class NotLowered(Exception):
    """The construct at span has no LIR form yet: the function stays with the tree-walking emitter."""

    def __init__(self, span, what: str):
        super().__init__(what)
        self.span = span
        self.what = what


# ------------------------------------------------------------------------------------------ values

@dataclass(eq=False)
class Imm:
    value: int
    ty: Type

    def __str__(self):
        return "%s %d" % (tyname(self.ty), int(self.value))


@dataclass(eq=False)
class Temp:
    n: int
    ty: Type

    def __str__(self):
        return "%%%d" % self.n


@dataclass(eq=False)
class Var:
    """A named value: kind is local, param (a scalar parameter), size (a size symbol), over (an `over`
    variable of a kernel), iv (a loop variable), or global (a module variable: read and written in the
    context's storage at each use)."""
    name: str
    ty: Type
    kind: str = "local"
    n: int = 0                  # a number that makes the name unique in its function
    sym: object = field(default=None, repr=False)   # a module variable's symbol (kind global)

    def __str__(self):
        if self.kind == "global":
            return "$%s (module)" % self.name
        return "$%s.%d" % (self.name, self.n) if self.kind in ("local", "iv") else "$%s" % self.name


Val = Union[Imm, Temp, Var]


@dataclass(eq=False)
class Arr:
    """An array a function reads or writes: kind param (argument `index` of the function), const (a
    constant array folded at compile time: `value` holds its elements) or global (a module array of known
    extents, row-major in the context's storage)."""
    name: str
    ty: ArrayType
    kind: str = "param"
    index: int = 0
    mode: str = "in"            # in, inout or out (a parameter); in for a constant
    value: object = None        # the folded constant (semantics.values), kind const
    sym: object = None          # the checker's symbol

    @property
    def rank(self) -> int:
        return self.ty.rank

    @property
    def elem(self) -> Type:
        return self.ty.elem

    def __str__(self):
        return "@%s" % self.name


@dataclass(eq=False)
class ElemRef:
    """The element an `Elem` operation checked: read it with `Load`, write it with `Store`."""
    n: int
    arr: Arr

    def __str__(self):
        return "&%d" % self.n


# ------------------------------------------------------------------------------------------ operations

@dataclass(eq=False)
class Op:
    site: object = field(default=None, kw_only=True)    # the span a fault of this operation is at
    step: bool = field(default=False, kw_only=True)     # counts one step in a work item (IM-113)
    safe: bool = field(default=False, kw_only=True)     # proved never to fault (the bounds pass)


@dataclass(eq=False)
class Let(Op):
    """dst = src (a copy; never faults)."""
    dst: Union[Temp, Var]
    src: Val


@dataclass(eq=False)
class Arith(Op):
    """dst = a OP b on type ty: op add, sub, mul, div (floor), rem (floor), shl, shr; form checked, wrap
    or sat.  A shift's count b has its own type bty.  `opid` is the operation identifier."""
    dst: Temp
    op: str
    form: str
    ty: IntType
    a: Val
    b: Val
    bty: Optional[IntType] = None

    @property
    def opid(self) -> str:
        if self.op == "shr":
            return O.op("shr", "checked", self.ty)
        return O.op(self.op, self.form, self.ty)

    @property
    def may_fault(self) -> bool:
        return self.form == "checked" or self.op in ("div", "rem", "shl", "shr")


@dataclass(eq=False)
class Neg(Op):
    """dst = -a (form checked) or 0 -% a (form wrap)."""
    dst: Temp
    form: str
    ty: IntType
    a: Val

    @property
    def opid(self) -> str:
        return O.op("neg", "checked", self.ty)

    @property
    def may_fault(self) -> bool:
        return self.form == "checked" and self.ty.signed


@dataclass(eq=False)
class Cmp(Op):
    """dst (Bool) = a OP b, OP one of == != < <= > >=, on integers or Bool."""
    dst: Temp
    op: str
    a: Val
    b: Val


@dataclass(eq=False)
class Bitwise(Op):
    """dst = a OP b for & | ^ on an integer type or Bool; `~a` is op "~" with b None; `!a` is op "!"."""
    dst: Temp
    op: str
    ty: Type
    a: Val
    b: Optional[Val] = None


@dataclass(eq=False)
class MinMax(Op):
    """dst = min(a, b) or max(a, b) (which is "min" or "max"): one counted step, never a fault."""
    dst: Temp
    which: str
    ty: IntType
    a: Val
    b: Val


@dataclass(eq=False)
class Conv(Op):
    """dst = a converted from src to dst type: form checked (`as`, E_NARROW), wrap (`as%`), sat (`as|`) or
    bool (a Bool to an integer)."""
    dst: Temp
    form: str
    src: Type
    to: IntType
    a: Val

    @property
    def opid(self) -> str:
        return O.op("as", "checked", self.src, self.to)

    @property
    def may_fault(self) -> bool:
        return self.form == "checked" and not fits_in(self.src, self.to)


@dataclass(eq=False)
class Elem(Op):
    """ref = arr[idx...]: checks every index in order against its dimension (E_BOUNDS
    index.checked.<elem>, IM-186) and names the element.  `proven[k]` is set by the bounds pass when
    index k is in range whatever the inputs (given lower bounds of 0, which the back end tests once)."""
    ref: ElemRef
    arr: Arr
    idx: List[Val]
    proven: List[bool] = field(default_factory=list)
    rel: bool = False           # the indices count from the lower bounds (for-in): never checked

    @property
    def opid(self) -> str:
        return O.index(self.arr.elem)


@dataclass(eq=False)
class Extent(Op):
    """dst = the extent of dimension dim of arr (an I64)."""
    dst: Temp
    arr: Arr
    dim: int


@dataclass(eq=False)
class LocalArray(Op):
    """A local array: `arr` (kind local) of the extents `shape`, zero-filled, in the frame arena: E_SHAPE
    decl.shape for a negative extent, then (in a function, not in a work item) the frame arena's charge
    (SPEC-04P.1 LS-110, E_BOUNDS arena.alloc), then the storage.  For a constant array (arr of kind const)
    only the charge: its elements are data of the program."""
    arr: "Arr"
    shape: List[Val]


@dataclass(eq=False)
class View(Op):
    """arr (kind view) = base[items]: a slice or partial index (SPEC-04P.1 LS-65, LS-161): one counted step,
    the dimensions checked in order (E_BOUNDS index.checked / slice.checked), no copy.  Each item is
    ("index", i) or ("slice", lo or None, hi or None, step, inclusive)."""
    arr: "Arr"
    base: "Arr"
    items: List[tuple]


@dataclass(eq=False)
class Scope(Op):
    """A source block that declares local arrays the frame arena charges: the charge is given back when the
    block ends normally (a jump out gives it back where it lands: the loop or the function)."""
    body: "Block"


@dataclass(eq=False)
class Load(Op):
    dst: Temp
    ref: ElemRef


@dataclass(eq=False)
class Store(Op):
    ref: ElemRef
    src: Val


@dataclass(eq=False)
class Steps(Op):
    """n counted steps with no run-time work (the operations of a folded constant, IM-114)."""
    n: int


@dataclass(eq=False)
class Assert(Op):
    """`assert(a OP b)` (cmp OP, the compared values the fault's operands) or `assert(c)` (cmp None, a the
    condition): E_ASSERT assert.checked.bool at site when it does not hold (LS-191); no step."""
    cmp: Optional[str]
    a: Val
    b: Optional[Val] = None


@dataclass(eq=False)
class Charge(Op):
    """A fuel charge of `units` at site (fuel-v1, IM-139): E_FUEL fuel.charge when it would pass the
    budget.  Loops charge through their own `charge` flag; this is for the other charge points."""
    units: Val


@dataclass(eq=False)
class Call(Op):
    """dst = callee(args): a user function: the shapes of its array arguments bound and checked (bind.shape,
    its `where` clause, bind.alias), E_DEPTH call.enter, one fuel unit, then the body.  args are in parameter
    order, a value for a scalar parameter and an Arr (a whole array) for an array one; the callee is the
    checker's FuncInfo."""
    dst: Optional[Temp]
    callee: object
    args: List[Union[Val, "Arr"]]


@dataclass(eq=False)
class Reduce(Op):
    """dst = sum(arr) (kind sum: exact, one range check against ty) or dst = dot(ty, arr, arr2): the
    reduction of the runtime over a whole array, ceil(n / 64) fuel units charged first (IM-139)."""
    dst: Temp
    kind: str
    ty: IntType
    arr: Arr
    arr2: Optional[Arr] = None
    row: Optional[Val] = None         # dot over row `row` of a rank-2 arr (a view formed in place)
    row_site: object = None
    row_proven: bool = False          # the row index is in range (the bounds pass)
    same_extent: bool = False         # dot: the two extents are equal whatever the inputs (the bounds pass)


# ------------------------------------------------------------------------------------------ control flow

@dataclass(eq=False)
class Block:
    ops: List[object] = field(default_factory=list)


@dataclass(eq=False)
class If(Op):
    cond: Val
    then: Block
    other: Block


@dataclass(eq=False)
class ForRange(Op):
    """`for iv in lo..hi by step` (hi inclusive or not): one fuel unit per iteration at site, charged
    after the range test and before the body; iv is read-only in the body."""
    iv: Var
    lo: Val
    hi: Val
    stride: int
    inclusive: bool
    body: Block
    label: Optional[str] = None
    frame_reset: bool = False   # an iteration may take frame-arena storage: given back at the next one
    frame_charged: bool = False  # an iteration declares charged local arrays: their charge given back


@dataclass(eq=False)
class Loop(Op):
    """The general loop: `head` computes `cond` (None: always true), then one fuel unit at site, then
    `body`, then `latch` (the update of a C-style for, which `continue` also reaches).  With cond_after
    (`do ... while`) the order is charge, body, head, test."""
    head: Block
    cond: Optional[Val]
    body: Block
    latch: Block
    label: Optional[str] = None
    cond_after: bool = False
    frame_reset: bool = False
    frame_charged: bool = False


@dataclass(eq=False)
class Switch(Op):
    """`switch` over an integer or Bool value (LS-177 to LS-183): `table` maps single keys and `ranges`
    (lo, hi) inclusive spans to case numbers, `default` is the number of the default case or None; each case
    body leaves the switch at its end unless `falls[k]` (it ends in `fallthrough;`).  An unlabelled `break`
    inside leaves the switch."""
    value: Val
    table: List[tuple]
    ranges: List[tuple]
    default: Optional[int]
    bodies: List[Block]
    falls: List[bool]
    frame_charged: bool = False


@dataclass(eq=False)
class Break(Op):
    target: object = None       # the loop it leaves


@dataclass(eq=False)
class Continue(Op):
    target: object = None


@dataclass(eq=False)
class Return(Op):
    value: Optional[Val] = None


@dataclass(eq=False)
class ItemLoop:
    """The work items of a kernel: every index of the `over` shape in row-major order, each running
    `body` with the `over` variables bound.  The work-item index is the row-major linearisation."""
    over: List[Var]
    extents: List[Var]          # the size symbols of the over clause, in order
    body: Block
    frame_reset: bool = False   # an item may take frame-arena storage: given back after each item


@dataclass(eq=False)
class Function:
    """A lowered function (kind "function") or kernel (kind "kernel", `items` set)."""
    name: str
    kind: str
    info: object                        # the checker's FuncInfo
    sizes: List[Var]
    params: List[Union[Var, Arr]]       # in declaration order: scalars as Var, arrays as Arr
    result: Optional[Type]
    body: Optional[Block] = None        # a function's body
    items: Optional[ItemLoop] = None    # a kernel's work items
    consts: List[Arr] = field(default_factory=list)     # constant arrays it reads
    frame_charged: bool = False     # declares local arrays the frame arena charges (given back at return)
    globals: List[object] = field(default_factory=list)  # the module variables it reads or writes (Var, Arr)
    ntemps: int = 0
    nrefs: int = 0


# ------------------------------------------------------------------------------------------ helpers

def tyname(t) -> str:
    return "Bool" if t == BOOL else t.name()


def fits_in(src, dst) -> bool:
    """Every value of src is a value of dst (a conversion that never faults)."""
    if src == BOOL:
        return True
    return dst.min <= src.min and src.max <= dst.max


def walk(block: Block):
    """Every operation of block and of the blocks nested in it, in program order."""
    for op in block.ops:
        yield op
        for b in sub_blocks(op):
            yield from walk(b)


def sub_blocks(op) -> List[Block]:
    if isinstance(op, If):
        return [op.then, op.other]
    if isinstance(op, ForRange):
        return [op.body]
    if isinstance(op, Loop):
        return [op.head, op.body, op.latch]
    if isinstance(op, Scope):
        return [op.body]
    if isinstance(op, Switch):
        return list(op.bodies)
    return []


def body_of(fn: Function) -> Block:
    return fn.items.body if fn.items is not None else fn.body


# ------------------------------------------------------------------------------------------ printing

def _v(x) -> str:
    return str(x)


def _site(op) -> str:
    s = op.site
    if s is None:
        return ""
    return "  @%d:%d%s%s" % (s.line, s.column, " step" if op.step else "", " proved" if op.safe else "")


def format_op(op, out: List[str], ind: str):
    k = type(op).__name__
    if isinstance(op, Let):
        out.append("%s%s = %s" % (ind, op.dst, op.src))
    elif isinstance(op, Arith):
        out.append("%s%s = %s %s, %s%s" % (ind, op.dst, op.opid, op.a, op.b, _site(op)))
    elif isinstance(op, Neg):
        out.append("%s%s = neg.%s.%s %s%s" % (ind, op.dst, op.form, op.ty.token, op.a, _site(op)))
    elif isinstance(op, Cmp):
        out.append("%s%s = cmp %s %s, %s" % (ind, op.dst, op.op, op.a, op.b))
    elif isinstance(op, Bitwise):
        out.append("%s%s = bit %s %s%s" % (ind, op.dst, op.op, op.a, "" if op.b is None else ", %s" % op.b))
    elif isinstance(op, MinMax):
        out.append("%s%s = %s.%s %s, %s" % (ind, op.dst, op.which, op.ty.token, op.a, op.b))
    elif isinstance(op, Conv):
        out.append("%s%s = as.%s.%s.%s %s%s" % (ind, op.dst, op.form, tyname(op.src).lower(), op.to.token, op.a,
                                                 _site(op)))
    elif isinstance(op, Elem):
        marks = "rel" if op.rel else "".join("!" if p else "?" for p in (op.proven or [False] * len(op.idx)))
        out.append("%s%s = %s %s[%s] %s%s" % (ind, op.ref, op.opid, op.arr, ", ".join(map(_v, op.idx)), marks,
                                               _site(op)))
    elif isinstance(op, View):
        its = []
        for it in op.items:
            if it[0] == "index":
                its.append(str(it[1]))
            else:
                its.append("%s..%s%s%s" % ("" if it[1] is None else it[1], "=" if it[4] else "",
                                            "" if it[2] is None else it[2], "" if it[3] == 1 else " by %d" % it[3]))
        out.append("%s%s = view %s[%s]%s" % (ind, op.arr, op.base, ", ".join(its), _site(op)))
    elif isinstance(op, LocalArray):
        out.append("%slocal %s %s[%s]%s" % (ind, op.arr.ty.elem.name() if hasattr(op.arr.ty.elem, "name") else "",
                                             op.arr, ", ".join(map(_v, op.shape)), _site(op)))
    elif isinstance(op, Scope):
        out.append("%sscope {" % ind)
        format_block(op.body, out, ind + "  ")
        out.append("%s}" % ind)
    elif isinstance(op, Extent):
        out.append("%s%s = extent %s %d" % (ind, op.dst, op.arr, op.dim))
    elif isinstance(op, Load):
        out.append("%s%s = load %s" % (ind, op.dst, op.ref))
    elif isinstance(op, Store):
        out.append("%sstore %s, %s" % (ind, op.ref, op.src))
    elif isinstance(op, Assert):
        out.append("%sassert %s%s%s" % (ind, op.a, "" if op.cmp is None else " %s %s" % (op.cmp, op.b), _site(op)))
    elif isinstance(op, Steps):
        out.append("%ssteps %d" % (ind, op.n))
    elif isinstance(op, Charge):
        out.append("%sfuel.charge %s%s" % (ind, op.units, _site(op)))
    elif isinstance(op, Call):
        out.append("%s%scall %s(%s)%s" % (ind, "" if op.dst is None else "%s = " % op.dst, op.callee.qname,
                                          ", ".join(map(_v, op.args)), _site(op)))
    elif isinstance(op, Reduce):
        arrs = ", ".join(str(a) for a in (op.arr, op.arr2) if a is not None)
        row = "" if op.row is None else " row %s%s" % (op.row, " !" if op.row_proven else " ?")
        out.append("%s%s = %s.%s %s%s%s" % (ind, op.dst, op.kind, op.ty.token, arrs, row, _site(op)))
    elif isinstance(op, If):
        out.append("%sif %s {" % (ind, op.cond))
        format_block(op.then, out, ind + "  ")
        if op.other.ops:
            out.append("%s} else {" % ind)
            format_block(op.other, out, ind + "  ")
        out.append("%s}" % ind)
    elif isinstance(op, ForRange):
        out.append("%sfor %s in %s..%s%s by %d%s%s {" % (ind, op.iv, op.lo, "=" if op.inclusive else "", op.hi,
                                                         op.stride, "" if op.label is None else " '%s" % op.label,
                                                         _site(op)))
        format_block(op.body, out, ind + "  ")
        out.append("%s}" % ind)
    elif isinstance(op, Loop):
        out.append("%sloop%s%s {" % (ind, " (test after)" if op.cond_after else "", _site(op)))
        out.append("%s  head:" % ind)
        format_block(op.head, out, ind + "    ")
        out.append("%s  while %s" % (ind, "true" if op.cond is None else op.cond))
        out.append("%s  body:" % ind)
        format_block(op.body, out, ind + "    ")
        if op.latch.ops:
            out.append("%s  latch:" % ind)
            format_block(op.latch, out, ind + "    ")
        out.append("%s}" % ind)
    elif isinstance(op, Switch):
        out.append("%sswitch %s {" % (ind, op.value))
        for k, b in enumerate(op.bodies):
            keys = [str(key) for key, idx in op.table if idx == k]
            keys += ["%d..=%d" % (lo, hi) for lo, hi, idx in op.ranges if idx == k]
            out.append("%s  case %s:%s" % (ind, ", ".join(keys) or "default", " (falls through)" if op.falls[k] else ""))
            format_block(b, out, ind + "    ")
        out.append("%s}" % ind)
    elif isinstance(op, Break):
        out.append("%sbreak" % ind)
    elif isinstance(op, Continue):
        out.append("%scontinue" % ind)
    elif isinstance(op, Return):
        out.append("%sreturn%s" % (ind, "" if op.value is None else " %s" % op.value))
    else:   # pragma: no cover - the verifier refuses unknown operations
        out.append("%s<%s>" % (ind, k))


def format_block(b: Block, out: List[str], ind: str):
    for op in b.ops:
        format_op(op, out, ind)


def format_function(fn: Function) -> str:
    """The text form of a lowered function (`cint lower`)."""
    params = []
    for p in fn.params:
        if isinstance(p, Arr):
            params.append("%s %s %s" % (p.mode, p.ty.name(), p))
        else:
            params.append("%s %s" % (tyname(p.ty), p))
    head = "%s %s[%s](%s)%s" % (fn.kind, fn.name, ", ".join(str(s) for s in fn.sizes), ", ".join(params),
                                "" if fn.result is None else " -> %s" % tyname(fn.result))
    out = [head + " {"]
    for c in fn.consts:
        out.append("  const %s %s = %s" % (c.ty.name(), c, list(c.value.elements())))
    if fn.items is not None:
        it = fn.items
        out.append("  items over [%s] {" % ", ".join("%s: %s" % (v, e) for v, e in zip(it.over, it.extents)))
        format_block(it.body, out, "    ")
        out.append("  }")
    else:
        format_block(fn.body, out, "  ")
    out.append("}")
    return "\n".join(out)
