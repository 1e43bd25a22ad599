"""The abstract syntax tree of cint-core-1 (SPEC-04P.1 section 18).

The parser builds these nodes; the checker annotates them in place: ``ty``,
the static type of an expression, and the results declared on each class with
:func:`annotation` (``cval``, a folded constant value; ``ref``, the symbol a
name resolves to; ``bname``, the built-in row of a call; ...).  An annotation
is a dataclass field that is not an argument of the constructor, holds its
default until the checker (or, for a few positions, the parser) writes it, and
is not part of SIR (sir.py writes the syntax fields only), so the bytes and
revision identities do not depend on it.

Every node carries ``span``: the canonical position of the construct.
For an operator it is the operator token, for a call the callee name, for an
index or slice the ``[``, for a conversion the ``as`` token, for a loop the
loop keyword, for a declaration its declared name (SPEC-04 LS-278).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import List, Optional, Union

from cint_compiler.diagnostics import Span


def annotation(default=None, what: str = ""):
    """A result written on a node after parsing: declared on the node's class with its default, not a
    constructor argument, not compared, not in the node's repr, and excluded from SIR (``sir._fields_of``)."""
    return field(default=default, init=False, repr=False, compare=False, metadata={"annotation": what or True})


def is_annotation(f) -> bool:
    """Whether dataclass field ``f`` of a node is an annotation (not syntax)."""
    return bool(f.metadata.get("annotation"))


@dataclass(eq=False)
class Node:
    span: Optional[Span] = field(default=None, kw_only=True)


# ----------------------------------------------------------------------------- types

@dataclass(eq=False)
class TypeExpr(Node):
    pass


@dataclass(eq=False)
class TypeName(TypeExpr):
    """``I64``, ``Q16.16``, ``Bool``, ``Str``, ``Round``, ``Body``, ``vec.V3``: dotted parts."""
    parts: List[str]
    part_spans: object = annotation(what="parser")   # the position of each part of a dotted name
    type_args: object = annotation(what="parser")    # `Pool(T, N)`, `Handle(T)`, `Arena(T, N)`: T
    capacity: object = annotation(what="parser")     # N

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@dataclass(eq=False)
class Dim(Node):
    """One extent of an array type: ``_`` (expr None and not ranged), an expression, or a range ``lo..hi``."""
    expr: Optional["Expr"] = None          # the extent, or the upper bound of a range
    lower: Optional["Expr"] = None         # declared lower bound (range form)
    inclusive: bool = False                # range form ``lo..=hi``
    any: bool = False                      # ``_``


@dataclass(eq=False)
class ArrayTypeExpr(TypeExpr):
    elem: TypeExpr
    dims: List[Dim]


@dataclass(eq=False)
class TupleTypeExpr(TypeExpr):
    items: List[TypeExpr]


@dataclass(eq=False)
class ErrorUnionTypeExpr(TypeExpr):
    errset: TypeName
    value: Optional[TypeExpr]   # None for ``E!void``


@dataclass(eq=False)
class VoidTypeExpr(TypeExpr):
    pass


# ----------------------------------------------------------------------------- expressions

class _NotConst:
    def __repr__(self):
        return "NOTCONST"


NOTCONST = _NotConst()


@dataclass(eq=False)
class Expr(Node):
    # Filled by the checker:
    ty: object = field(default=None, kw_only=True, repr=False)

    # The checker's annotations of every expression:
    cval: object = annotation(NOTCONST)      # the folded value of a constant expression
    csteps: int = annotation(0)              # counted operations inside a folded expression (IM-113, IM-114)
    skip_fold: bool = annotation(False)      # a constant operand that &&, || or ?: may skip: run time (IM-23)
    lit_error: object = annotation()         # a pending C2003 of an out-of-range literal
    is_default: bool = annotation(False)     # a default argument or field default filled in (LS-125, decision 28)


@dataclass(eq=False)
class IntLit(Expr):
    """An integer or character literal; a negative literal (LS-28) has a negative value and spans the ``-``."""
    value: int
    text: str = ""
    is_char: bool = False
    negative: bool = False
    raw: object = annotation()               # the checker: the value in its type's storage (Q: raw units)


@dataclass(eq=False)
class FracLit(Expr):
    """A decimal or hexadecimal fraction literal: an exact rational, optionally with a ``round`` clause."""
    value: Fraction
    text: str = ""
    round: Optional[str] = None
    negative: bool = False
    raw: object = annotation()               # the checker: the raw storage of its fixed-point type


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class Hole(Node):
    """``{expr=!conv:spec}`` inside a string (SPEC-04 9.2)."""
    expr: "Expr"
    source: str                 # the expression's source text as written (for ``{expr=}``)
    eq: bool = False
    conv: Optional[str] = None  # 'bits', 'raw', 'ratio', or 'lanes(U8)' etc.
    spec: Optional[str] = None  # the format spec text after ':'
    fspec: object = annotation()             # the checker: the parsed format specification (semantics/fmt.py)


@dataclass(eq=False)
class StrLit(Expr):
    """One or more adjacent string literals; ``parts`` alternate literal text (str) and holes.

    ``text`` is the concatenated literal bytes when there are no holes.  For a
    byte string (``b"..."``) ``is_bytes`` is true and parts hold ``bytes``.
    """
    parts: List[Union[str, bytes, Hole]]
    is_bytes: bool = False
    as_view: bool = annotation(False)        # the checker: a byte string read as a U8 view (kernels)

    @property
    def has_holes(self) -> bool:
        return any(isinstance(p, Hole) for p in self.parts)


@dataclass(eq=False)
class Name(Expr):
    ident: str
    ref: object = annotation()               # the checker: the Symbol it resolves to


@dataclass(eq=False)
class Paren(Expr):
    inner: "Expr"


@dataclass(eq=False)
class Unary(Expr):
    """``-a``, ``-%a``, ``~a``, ``!a``."""
    op: str
    operand: "Expr"


@dataclass(eq=False)
class Binary(Expr):
    """Every binary operator, including ``&&``, ``||`` and comparisons; span is the operator token."""
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(eq=False)
class Cond(Expr):
    """``c ? a : b``; span is the ``?``."""
    cond: "Expr"
    then: "Expr"
    other: "Expr"


@dataclass(eq=False)
class Convert(Expr):
    """``x as T``, ``as%``, ``as|``, ``as?`` with an optional ``round`` clause; span is the ``as`` token."""
    op: str
    operand: "Expr"
    target: TypeExpr
    round: Optional[str] = None
    src: object = annotation()               # the checker: the operand's type
    mode: Optional[str] = annotation()       # the rounding mode used (IM-133)
    literal: bool = annotation(False)        # the operand is a literal's value in Z (IM-184)


@dataclass(eq=False)
class Arg(Node):
    """A call argument: a value, a type argument, or a named argument ``name = value``."""
    value: Union["Expr", TypeExpr]
    name: Optional[str] = None


@dataclass(eq=False)
class Call(Expr):
    """A call of a function, built-in, kernel dispatch, struct constructor or ``Q16.16.raw``; span is the callee name."""
    callee: "Expr"
    args: List[Arg]
    # the checker: what the call is, and what its executors need
    kind: Optional[str] = annotation()       # func, dispatch, builtin, struct, raw, mem
    argv: object = annotation(())            # one Expr per parameter (defaults filled in), parameter order
    order: object = annotation()             # the parameter indices in the order the arguments are written
    info: object = annotation()              # the FuncInfo of a call or dispatch
    const_call: bool = annotation(False)     # a call inside a constant expression (LS-264)
    stype: object = annotation()             # the StructType of a constructor
    bname: Optional[str] = annotation()      # a built-in's row (semantics/builtins.py)
    T: object = annotation()                 # a built-in's operand type
    R: object = annotation()                 # a built-in's result type argument (sum, dot, muldiv)
    elem: object = annotation()              # a reduction's element type
    mode: Optional[str] = annotation()       # a built-in's rounding mode
    fold_op: Optional[str] = annotation()    # fold_checked's operation, add or mul
    dim: Optional[int] = annotation()        # extent, lower, reverse: the constant dimension
    wbits: Optional[int] = annotation()      # wrap_bits: the constant width
    mrecv: object = annotation()             # an arena or pool method: the receiver
    mop: Optional[str] = annotation()        # its operation (alloc, insert, ...)
    margs: object = annotation()             # its arguments


@dataclass(eq=False)
class SliceItem(Node):
    """An index position that is a range ``lo..hi`` / ``lo..=hi`` with optional ``by step``."""
    lo: Optional["Expr"]
    hi: Optional["Expr"]
    inclusive: bool = False
    step: Optional["Expr"] = None


@dataclass(eq=False)
class Index(Expr):
    """``a[i, j]`` or a slice; span is the ``[``."""
    base: "Expr"
    items: List[Union["Expr", SliceItem]]
    view: bool = annotation(False)           # the checker: a slice or partial index, a view (LS-65)
    ckind: Optional[str] = annotation()      # `a[h]` / `p[h]` of an arena or pool (decision 24)
    subword: object = annotation()           # `x.byte[k]` and friends (LS-85): (shift, width, signed, bits)
    subword_x: object = annotation()         # its integer operand


@dataclass(eq=False)
class Member(Expr):
    """``x.f``: a field, an enum member ``Mode.burn``, an imported name ``vec.dot3``, ``x.raw``."""
    base: "Expr"
    name: str
    mkind: Optional[str] = annotation()      # the checker: field, enum, const, qname, raw, ...
    ref: object = annotation()               # the Symbol of an imported name
    bitfield: object = annotation()          # (declared type, width) of a bit field (LS-82)


@dataclass(eq=False)
class TypeMember(Expr):
    """``I64.max``, ``Q16.16.epsilon``, ``Q16.16.raw`` (a callee)."""
    type: TypeExpr
    name: str
    mkind: Optional[str] = annotation()      # the checker: what the member is


@dataclass(eq=False)
class DotName(Expr):
    """``.burn``: a context-typed enum, error or Round value (LS-60)."""
    name: str


@dataclass(eq=False)
class ArrayLit(Expr):
    items: List["Expr"]


@dataclass(eq=False)
class TupleExpr(Expr):
    items: List["Expr"]


@dataclass(eq=False)
class Try(Expr):
    operand: "Expr"


@dataclass(eq=False)
class Catch(Expr):
    """``call catch value`` or ``call catch (e) { ... }``; span is the ``catch`` keyword."""
    operand: "Expr"
    value: Optional["Expr"] = None
    binding: Optional[str] = None
    block: Optional["Block"] = None
    sym: object = annotation()               # the checker: the Symbol of the binding


# the attributes the checker adds to a node, and `target`, which the walk below does not follow
_ANNOTATIONS = frozenset(("ty", "span", "ref", "info", "sym", "cval", "stype", "resolved", "target"))


def descendants(node):
    """Every node below and including ``node`` once, in no fixed order (a node shared by two parents is
    given once), following the syntax fields only: not the checker's annotations nor ``target``."""
    seen = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        for k, v in vars(n).items():
            if k in _ANNOTATIONS:
                continue
            if isinstance(v, Node):
                stack.append(v)
            elif isinstance(v, (list, tuple)):
                stack.extend(x for x in v if isinstance(x, Node))


def first_span(e) -> Optional[Span]:
    """The position of the first character of an expression (LS-278: where a construct starts)."""
    while True:
        if isinstance(e, Binary):
            e = e.left
        elif isinstance(e, Cond):
            e = e.cond
        elif isinstance(e, Convert):
            e = e.operand
        elif isinstance(e, Call):
            e = e.callee
        elif isinstance(e, (Index, Member)):
            e = e.base
        elif isinstance(e, Catch):
            e = e.operand
        elif isinstance(e, TypeMember):
            return e.type.span
        else:
            return e.span


# ----------------------------------------------------------------------------- statements

@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Block(Stmt):
    stmts: List[Stmt]
    # caches of the executors, computed on first use
    frame_decls: object = annotation(what="interp")      # the local arrays the block charges to the frame arena
    has_defer: Optional[bool] = annotation(what="interp")
    frame_charges: Optional[bool] = annotation(what="cpu-c17")


@dataclass(eq=False)
class VarDecl(Stmt):
    """``T x = e;``, ``T x;``, ``const T x = e;``, ``var x = e;``, ``in T x = e;``; span is the name."""
    type: Optional[TypeExpr]
    name: str
    init: Optional["Expr"] = None
    is_const: bool = False
    mode: Optional[str] = None          # 'in' / 'inout' for a view variable
    eq_span: Optional[Span] = None      # the '=' token
    stmt_span: Optional[Span] = annotation(what="parser")   # the statement's first token
    resolved: object = annotation()     # the checker: the declared type
    sym: object = annotation()          # the checker: the Symbol declared


@dataclass(eq=False)
class Bind(Node):
    """One position of a destructuring: a typed name, a name, a place, or ``_``."""
    type: Optional[TypeExpr] = None
    name: Optional[str] = None          # None for '_'
    place: Optional["Expr"] = None
    sym: object = annotation()          # the checker: the Symbol declared


@dataclass(eq=False)
class Destructure(Stmt):
    """``(I64 q, I64 r) = e;`` (declare) or ``(q, r) = e;`` (assign); span is the ``=``."""
    binds: List[Bind]
    value: "Expr"
    declare: bool = False


@dataclass(eq=False)
class Assign(Stmt):
    """``place op= value``; span is the operator token."""
    op: str
    place: "Expr"
    value: "Expr"
    subword: object = annotation()      # the checker: a store into `x.byte[k]` (LS-86)


@dataclass(eq=False)
class IncDec(Stmt):
    op: str                 # '++' / '--'
    place: "Expr"


@dataclass(eq=False)
class ExprStmt(Stmt):
    """A call or dispatch statement (optionally ``in_place``)."""
    expr: "Expr"
    in_place: bool = False


@dataclass(eq=False)
class Discard(Stmt):
    """``_ = expr;``."""
    value: "Expr"


@dataclass(eq=False)
class Print(Stmt):
    text: StrLit


@dataclass(eq=False)
class If(Stmt):
    cond: "Expr"
    then: Block
    other: Optional[Union[Block, "If"]] = None


@dataclass(eq=False)
class While(Stmt):
    cond: "Expr"
    body: Block
    label: Optional[str] = None


@dataclass(eq=False)
class DoWhile(Stmt):
    body: Block
    cond: "Expr"
    label: Optional[str] = None


@dataclass(eq=False)
class ForC(Stmt):
    init: Optional[Stmt]
    cond: "Expr"
    update: Optional[Stmt]
    body: Block
    label: Optional[str] = None


@dataclass(eq=False)
class ForRange(Stmt):
    """``for i in lo..hi by s`` (``var`` the loop variable, ``None`` for ``_``)."""
    var: Optional[str]
    lo: "Expr"
    hi: "Expr"
    inclusive: bool
    step: Optional["Expr"]
    body: Block
    label: Optional[str] = None
    var_span: Optional[Span] = None
    sym: object = annotation()          # the checker: the loop variable's Symbol


@dataclass(eq=False)
class ForEach(Stmt):
    """``for x in view`` / ``for i, x in view``."""
    index: Optional[str]
    var: Optional[str]
    iterable: "Expr"
    body: Block
    label: Optional[str] = None
    index_span: Optional[Span] = annotation(what="parser")
    var_span: Optional[Span] = annotation(what="parser")
    isym: object = annotation()         # the checker: the index variable's Symbol
    xsym: object = annotation()         # the element variable's Symbol


@dataclass(eq=False)
class Case(Node):
    """``case a, b..=c:`` with its body; items are expressions or (lo, hi) pairs."""
    items: List[object]
    body: List[Stmt]


@dataclass(eq=False)
class Switch(Stmt):
    scrutinee: "Expr"
    cases: List[Case]
    default: Optional[List[Stmt]] = None
    default_span: Optional[Span] = None
    # the checker: the dispatch table of the cases (check/flow.py)
    key_kind: Optional[str] = annotation()
    table: object = annotation()
    ranges: object = annotation()
    range_los: object = annotation()
    bodies: object = annotation()
    default_index: Optional[int] = annotation()
    exhaustive: bool = annotation(False)


@dataclass(eq=False)
class Break(Stmt):
    label: Optional[str] = None


@dataclass(eq=False)
class Continue(Stmt):
    label: Optional[str] = None


@dataclass(eq=False)
class Fallthrough(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Optional["Expr"] = None
    is_error: bool = annotation(False)  # the checker: `return .name;` of an error (LS-189)


@dataclass(eq=False)
class Defer(Stmt):
    stmt: Stmt
    is_err: bool = False


@dataclass(eq=False)
class Assert(Stmt):
    """``assert(cond[, "message"]);``; span is the first character of the condition."""
    cond: "Expr"
    message: Optional[StrLit] = None


@dataclass(eq=False)
class StaticAssert(Stmt):
    cond: "Expr"
    message: Optional[StrLit] = None


@dataclass(eq=False)
class Reduce(Stmt):
    """``reduce target = op(args);`` (kernels only)."""
    target: str
    call: Call
    # the checker (check/features/reduce.py)
    sym: object = annotation()          # the target's Symbol
    form: Optional[str] = annotation()  # the reduction kind (semantics/reductions.py)
    T: object = annotation()            # the target's type
    elem: object = annotation()         # the contributions' type
    arg: object = annotation()          # the contribution
    init: object = annotation()         # fold_checked's constant init
    callee_span: Optional[Span] = annotation()


# ----------------------------------------------------------------------------- declarations

@dataclass(eq=False)
class Attribute(Node):
    name: str
    args: List[Arg] = field(default_factory=list)


@dataclass(eq=False)
class Param(Node):
    """A parameter; span is its name."""
    mode: Optional[str]        # None (default in), 'in', 'inout', 'out'
    type: TypeExpr
    name: str
    default: Optional["Expr"] = None


@dataclass(eq=False)
class Decl(Node):
    name: str = ""
    exported: bool = field(default=False, kw_only=True)
    attrs: List[Attribute] = field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class FuncDecl(Decl):
    result: TypeExpr = None            # VoidTypeExpr for void
    result_mode: Optional[str] = None  # 'in'/'inout' for a view result
    size_params: List[str] = field(default_factory=list)
    params: List[Param] = field(default_factory=list)
    body: Block = None
    where: Optional["Expr"] = None
    size_param_spans: object = annotation(what="parser")


@dataclass(eq=False)
class OverVar(Node):
    name: str
    extent: "Expr"


@dataclass(eq=False)
class KernelDecl(Decl):
    size_params: List[str] = field(default_factory=list)
    params: List[Param] = field(default_factory=list)
    over: Optional[List[OverVar]] = None
    where: List["Expr"] = field(default_factory=list)
    body: Block = None
    size_param_spans: object = annotation(what="parser")
    reduces: object = annotation()          # the checker: its `reduce` statements in source order
    element_form: bool = annotation(False)  # written in element form (LS-247), rewritten to `over`


@dataclass(eq=False)
class FieldDecl(Node):
    type: TypeExpr
    name: str
    bits: Optional["Expr"] = None
    default: Optional["Expr"] = None
    attrs: List[Attribute] = field(default_factory=list)


@dataclass(eq=False)
class StructDecl(Decl):
    fields: List[FieldDecl] = field(default_factory=list)


@dataclass(eq=False)
class Enumerator(Node):
    name: str
    value: Optional["Expr"] = None


@dataclass(eq=False)
class EnumDecl(Decl):
    underlying: Optional[TypeName] = None
    members: List[Enumerator] = field(default_factory=list)


@dataclass(eq=False)
class ErrorDecl(Decl):
    underlying: Optional[TypeName] = None
    values: List[Enumerator] = field(default_factory=list)     # declared set
    combined: Optional[List[TypeName]] = None                 # combined set ``= A | B``


@dataclass(eq=False)
class TypeAlias(Decl):
    target: TypeExpr = None
    distinct: bool = False


@dataclass(eq=False)
class GlobalDecl(Decl):
    """A top-level ``T x = e;`` or ``const T x = e;`` (module variable, constant, or a script local)."""
    decl: VarDecl = None


@dataclass(eq=False)
class ContainerDecl(Decl):
    """A module-level ``Arena(T, N) name;`` or ``Pool(T, N) name;``; span is the name, ``type_span`` the
    first token (``Arena``/``Pool``), ``capacity`` the capacity expression."""
    kind: str = "arena"                # 'arena' or 'pool'
    elem: TypeExpr = None
    capacity: "Expr" = None
    type_span: Optional[Span] = annotation(what="parser")


@dataclass(eq=False)
class TestDecl(Decl):
    """``test "name" [expect_fault E_X] { ... }``; span is the ``test`` keyword."""
    expect_fault: Optional[str] = None
    expect_fault_span: Optional[Span] = None
    body: Block = None
    expect_fault_line: Optional[int] = annotation(what="parser")


@dataclass(eq=False)
class ImportDecl(Node):
    path: List[str]
    alias: Optional[str] = None
    selected: Optional[List[str]] = None
    alias_span: Optional[Span] = annotation(what="parser")
    name_span: Optional[Span] = annotation(what="parser")
    selected_spans: object = annotation(what="parser")
    target: object = annotation(what="driver")      # the imported module's path


@dataclass(eq=False)
class Module(Node):
    """One source file.  ``items`` holds declarations, tests, static asserts and top-level statements in order."""
    path: str                         # module-relative path, e.g. arith/add.ci
    name: str                         # dotted module name, e.g. arith.add
    profile: Optional[str] = None
    imports: List[ImportDecl] = field(default_factory=list)
    items: List[Node] = field(default_factory=list)
    source: str = ""
