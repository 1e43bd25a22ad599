"""The types of cint-core-1 (SPEC-04P.1 section 4, SPEC-01P.1 section 2).

Types are immutable values.  Integer and fixed-point types carry what the
integer machine needs (range, width, operation-identifier token, canonical
tag); named types (structs, enums, error sets) are nominal and compare by
qualified name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple


class Type:
    """Base of every type."""

    is_int = False
    is_fixed = False
    is_numeric = False

    def name(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name()


@dataclass(frozen=True)
class IntType(Type):
    """A binary integer type: I8..I1024, U8..U64 (SPEC-01 IM-4)."""

    signed: bool
    bits: int

    is_int = True
    is_numeric = True

    def name(self) -> str:
        return ("I" if self.signed else "U") + str(self.bits)

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def contains(self, v: int) -> bool:
        return self.min <= v <= self.max

    @property
    def token(self) -> str:
        """The type token of an operation identifier (SPEC-01 IM-130): i64, u8."""
        return self.name().lower()

    @property
    def tag(self) -> int:
        """Canonical type tag (SPEC-01 IM-146)."""
        if self.signed:
            return {8: 0x11, 16: 0x12, 32: 0x13, 64: 0x14, 128: 0x15, 256: 0x16, 512: 0x17, 1024: 0x18}[self.bits]
        return {8: 0x21, 16: 0x22, 32: 0x23, 64: 0x24}[self.bits]

    @property
    def nbytes(self) -> int:
        return self.bits // 8


@dataclass(frozen=True)
class FixedType(Type):
    """Signed binary fixed point Q<i>.<f> (SPEC-01 IM-54)."""

    i: int
    f: int

    is_fixed = True
    is_numeric = True

    def name(self) -> str:
        return "Q%d.%d" % (self.i, self.f)

    @property
    def storage(self) -> IntType:
        return IntType(True, self.i + self.f)

    @property
    def bits(self) -> int:
        return self.i + self.f

    @property
    def min(self) -> int:
        """Least raw value."""
        return self.storage.min

    @property
    def max(self) -> int:
        """Greatest raw value."""
        return self.storage.max

    def contains(self, raw: int) -> bool:
        return self.storage.contains(raw)

    @property
    def token(self) -> str:
        return "q%d_%d" % (self.i, self.f)

    @property
    def tag(self) -> int:
        return 0x31

    @property
    def nbytes(self) -> int:
        return self.bits // 8


@dataclass(frozen=True)
class _Simple(Type):
    label: str

    def name(self) -> str:
        return self.label


class BoolType(_Simple):
    token = "bool"
    tag = 0x01
    nbytes = 1


class StrType(_Simple):
    pass


class VoidType(_Simple):
    pass


class ZType(_Simple):
    """The mathematical integers: the type of a literal's value in a fault record."""

    token = "z"
    tag = 0x0F


class RoundType(_Simple):
    """The built-in enum Round (SPEC-04 LS-147)."""


BOOL = BoolType("Bool")
STR = StrType("Str")
VOID = VoidType("void")
Z = ZType("Z")
ROUND = RoundType("Round")

I8, I16, I32, I64 = (IntType(True, b) for b in (8, 16, 32, 64))
I128, I256, I512, I1024 = (IntType(True, b) for b in (128, 256, 512, 1024))
U8, U16, U32, U64 = (IntType(False, b) for b in (8, 16, 32, 64))

INT_TYPES = {t.name(): t for t in (I8, I16, I32, I64, I128, I256, I512, I1024, U8, U16, U32, U64)}

ROUND_MODES = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc", "half_up", "half_down")


@dataclass(frozen=True)
class SymExtent:
    """A computed extent of a parameter type: the value of size symbol ``sym`` plus ``off`` (``n + 1``,
    ``n - 2``, ``3 + n``; SPEC-03P.1 A-21's (symbol, offset) bound).  ``off`` is never 0 (``n + 0`` is the
    plain extent ``n``).  It is checked in the second pass of ``bind.shape``, after every plain size
    symbol has been bound (SPEC-02 K-6; docs/language.md, the decision on computed extents)."""

    sym: str
    off: int

    def __str__(self) -> str:
        return "%s %s %d" % (self.sym, "+" if self.off >= 0 else "-", abs(self.off))


@dataclass(frozen=True)
class ArrayType(Type):
    """An array or view type: element type and one extent per dimension.

    An extent is an int (known), a str (a size symbol such as ``n``), a
    :class:`SymExtent` (``n + 1`` in a parameter type) or None (``_``, any extent).  Compatibility between array types is decided by
    element type and rank; extents are checked where they are known.
    """

    elem: Type
    dims: Tuple[object, ...]

    @property
    def rank(self) -> int:
        return len(self.dims)

    def name(self) -> str:
        def one(d):
            return "_" if d is None else str(d)
        return "%s[%s]" % (self.elem.name(), ", ".join(one(d) for d in self.dims))


@dataclass(frozen=True, eq=False)
class StructType(Type):
    """A struct (SPEC-04 LS-73); nominal."""

    qname: str
    decl: object = field(compare=False, repr=False, hash=False, default=None)
    fields: list = field(compare=False, repr=False, hash=False, default_factory=list)  # [(name, Type, bitwidth|None)]

    def name(self) -> str:
        return self.qname.rsplit(".", 1)[-1]

    def __eq__(self, other):
        return isinstance(other, StructType) and other.qname == self.qname

    def __hash__(self):
        return hash(("struct", self.qname))

    def field(self, name):
        for f in self.fields:
            if f[0] == name:
                return f
        return None


@dataclass(frozen=True, eq=False)
class EnumType(Type):
    """An enum with an underlying integer type (SPEC-04 LS-87)."""

    qname: str
    underlying: IntType = None
    members: dict = field(compare=False, repr=False, hash=False, default_factory=dict)  # name -> value

    def name(self) -> str:
        return self.qname.rsplit(".", 1)[-1]

    def __eq__(self, other):
        return isinstance(other, EnumType) and other.qname == self.qname

    def __hash__(self):
        return hash(("enum", self.qname))


@dataclass(frozen=True, eq=False)
class ErrorSetType(Type):
    """An error set (SPEC-04 LS-92, LS-93, LS-97).

    ``values`` lists the values in tag order (tag = index + 1); each value is
    ``(declaring set qname, name)``.  A declared set declares its own values;
    a combined set lists the values of its members.
    """

    qname: str
    underlying: IntType = None
    values: list = field(compare=False, repr=False, hash=False, default_factory=list)
    members: list = field(compare=False, repr=False, hash=False, default_factory=list)  # combined: member qnames

    def name(self) -> str:
        return self.qname.rsplit(".", 1)[-1]

    def __eq__(self, other):
        return isinstance(other, ErrorSetType) and other.qname == self.qname

    def __hash__(self):
        return hash(("error", self.qname))

    def tag_of(self, value) -> Optional[int]:
        """The tag of ``value`` = (declaring set qname, name) in this set, or None."""
        for i, v in enumerate(self.values):
            if v == value:
                return i + 1
        return None


@dataclass(frozen=True)
class ErrorUnionType(Type):
    """``E!T``: a function result that holds a T or an error of E (LS-94)."""

    errset: ErrorSetType
    value: Type

    def name(self) -> str:
        return "%s!%s" % (self.errset.name(), self.value.name())


@dataclass(frozen=True)
class TupleType(Type):
    """A tuple result type (SPEC-04 LS-98)."""

    items: Tuple[Type, ...]

    def name(self) -> str:
        return "(" + ", ".join(t.name() for t in self.items) + ")"


# The built-in error set of SPEC-01 IM-188.
ARITH_ERROR = ErrorSetType("ArithError", U16, [("ArithError", n) for n in ("overflow", "div_zero", "shift", "narrow")])


def parse_fixed_name(text: str) -> Optional[FixedType]:
    """``Q16.16`` -> FixedType(16, 16), or None when ``text`` is not a fixed-point spelling."""
    if not text.startswith("Q") or "." not in text:
        return None
    a, _, b = text[1:].partition(".")
    if not (a.isdigit() and b.isdigit()):
        return None
    return FixedType(int(a), int(b))


def fixed_valid(t: FixedType) -> bool:
    """LS-36: i + f in {8, 16, 32, 64}, i >= 1, f >= 0."""
    return t.i >= 1 and t.f >= 0 and (t.i + t.f) in (8, 16, 32, 64)


def value_type_name(t: Type) -> str:
    """The type name used in `.expect` typed values and fault text (``I64``, ``Q16.16``)."""
    return t.name()


# ----------------------------------------------------------------------------- arenas, pools, handles
# (docs/notes/arenas-pools.md; reference executor only, docs/language.md decision 24)

@dataclass(frozen=True)
class ArenaType(Type):
    """``Arena(T)``: an arena value (a module arena, a child arena, an arena parameter); second class."""

    elem: Type

    def name(self) -> str:
        return "Arena(%s)" % self.elem.name()


@dataclass(frozen=True)
class PoolType(Type):
    """``Pool(T)``: a pool value (a module pool, a pool parameter); second class."""

    elem: Type

    def name(self) -> str:
        return "Pool(%s)" % self.elem.name()


@dataclass(frozen=True)
class HandleType(Type):
    """``Handle(T[])`` (a run of T in an arena, ``run`` True) or ``Handle(T)`` (one pool slot)."""

    elem: Type
    run: bool

    def name(self) -> str:
        return "Handle(%s%s)" % (self.elem.name(), "[]" if self.run else "")

    @property
    def token(self) -> str:
        """The element token of an operation identifier over an array of handles (``index.checked.handle``;
        ours, IM-130 names none: one spelling whatever T, which cpu-c17's runtime writes too)."""
        return "handle"


# The built-in error set of SPEC-04 LS-21: `AllocError { full }`.
ALLOC_ERROR = ErrorSetType("AllocError", U16, [("AllocError", "full")])


# The built-in error sets of SPEC-04 LS-21 for format (LS-216) and utf8 (section 6.8): `FormatError { capacity }`
# and `Utf8Error { invalid }`, underlying U16, tags from 1 (docs/language.md decision 26).
FORMAT_ERROR = ErrorSetType("FormatError", U16, [("FormatError", "capacity")])
UTF8_ERROR = ErrorSetType("Utf8Error", U16, [("Utf8Error", "invalid")])


@dataclass(frozen=True, eq=False)
class DistinctIntType(IntType):
    """`type Meters = distinct I64;` (SPEC-04 LS-103, Proposed; docs/language.md decision 29): a nominal
    integer type with the representation of its target.  It compares by qualified name, so it mixes with
    no other type without `as`; `name()`, `token` and `tag` stay those of the representation, which is
    what run-time texts (fault operands, results, state lines) show; `str()` is the declared name."""

    qname: str = ""

    def __eq__(self, other):
        return isinstance(other, DistinctIntType) and other.qname == self.qname

    def __hash__(self):
        return hash(("distinct", self.qname))

    def __str__(self) -> str:
        return "%s (distinct %s)" % (self.qname.rsplit(".", 1)[-1], self.name())

    @property
    def repr_type(self) -> IntType:
        return IntType(self.signed, self.bits)
