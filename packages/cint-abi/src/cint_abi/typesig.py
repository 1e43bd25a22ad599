"""Type signatures of the C interface (SPEC-03P.1 7.4 and 7.5, A-20 to A-26).

A type signature describes one export: the mode and type of each parameter,
the result type and every struct and error set they name.  Its bytes are::

    U32 29, "cint-core-1/type-signature/v1"      the domain string (33 bytes)
    U32 def_count, then the definitions
    U32 size_count
    U32 param_count, then per parameter: mode U8 (00 in, 01 inout, 02 out), a type
    the result: a type, or 00 for none

Every integer is little-endian.  A type is a tag and its parameters (A-20):
``01`` Bool; ``11``..``18`` I8..I1024; ``21``..``24`` U8..U64; ``31`` Q, then
the storage tag (11..14) and f as U16; ``52`` array, then the element type,
the rank (U8, 1..4) and one shape per dimension; ``71`` struct and ``73``
error-set value, each a U32 definition index; ``74`` error union, the set's
definition index (U32) then ``00`` for void or the value type.

The model
---------
Types: :class:`Bool`, :class:`Int` ``(signed, bits)``, :class:`Fixed`
``(storage_bits, f)`` (the type ``Q<storage_bits - f>.<f>``), :class:`Array`
``(elem, dims)`` whose dims are :class:`Any` (``_``), :class:`Extent`
``(bound)`` or :class:`Range` ``(lower, bound)``; a bound is :class:`Bound`
``(symbol, offset)`` with ``symbol`` the size-symbol index or ``None`` (written
``FF FF FF FF``).  :class:`StructRef`, :class:`ErrorSetRef` and
:class:`ErrorUnion` name a definition by index.  Definitions:
:class:`StructDef`, :class:`ErrorSetDef`, :class:`CombinedErrorSetDef`.
:class:`Param` ``(mode, type)`` and :class:`Signature` ``(definitions,
size_count, params, result)``; ``result`` and an error union's ``value`` are
``None`` for void.  Sequences are stored as tuples, so a model built from lists
compares equal to the decoded one and every object is hashable.

:func:`build_signature` takes types that name definitions by object
(``StructRef(defn=StructDef(...))``, ``ErrorSetRef(defn=...)``,
``ErrorUnion(value, defn=...)``, a combined set's members as definition
objects) and numbers the definitions in the A-21 order.

Rejections (A-24)
-----------------
:func:`decode_signature` raises :class:`SignatureError` (a ``ValueError``)
with ``offset``, the byte where the offending field starts, and ``rule``, one
of the ``R_*`` strings below.  Every count and length is checked against the
bytes remaining before anything is read or collected for what it announces;
the decoder never builds a container sized by a count.

Decisions where SPEC-03P.1 7.5 is silent
----------------------------------------
1. Layout byte: ``00`` natural (LS-73), ``01`` packed (``@packed``, LS-75);
   any other value is an unknown layout.
2. Bit width: ``0`` means "not a bit field".  A bit field is allowed on Bool
   (width 1 only) and on integer fields (width up to the integer's bits);
   on any other field type (fixed point, error-set value, struct, array) a
   nonzero width is refused as wider than its field, whose bit-field width
   is taken as 0.
3. Combined error set (form ``01``): after the form byte come the member
   count (U32, at least 1) and each member's definition index (U32), each an
   earlier error-set definition (plain or combined), listed as the operands
   were declared.  A member listed twice is refused as two values of one
   definition with one name.  Its values are those of the member sets,
   flattened to plain sets, each set once at its first position (LS-97);
   their number must fit the underlying type.  Equal value names from
   different member sets are allowed (they are told apart by their set).
4. Value count: an underlying type of ``b`` bits numbers at most
   ``2**b - 1`` values (tag 0 is success, LS-93).  A plain set may be empty.
5. Identifier: LS-15's lexical form ``[A-Za-z_][A-Za-z0-9_]*``, 1 to 255
   bytes, ASCII.  Keywords and the reserved type-name pattern are a matter of
   the language edition, not of signature version 1, and are not checked.
   A qualified name is two or more identifiers joined by full stops.
6. "A count larger than the bytes remaining" is read with the least size of
   what it counts: a definition takes at least 13 bytes, a parameter 2, a
   field 7, an error value 5, a member index 4; size_count, whose symbols take
   no bytes, is refused when it is larger than the bytes remaining.
7. Where a type may stand: a parameter takes any type but an error union; an
   array element any type but an array or error union (an array of arrays
   has its own rule); a struct field any type but an error union, and a field
   array only literal extents (form ``01`` with no symbol, else "field array
   with an open extent"); a result any type but an array; an error union's
   value any type but an array or error union.  An error set's underlying
   type must be ``21``..``24``; another known tag there is a tag the table
   does not allow.  Tag ``00`` is "none" only as the result.
8. A literal extent (no symbol) below 0 is refused (R_EXTENT); so is a range
   whose literal bounds have ``lower > bound``.  Offsets of symbolic bounds
   are unrestricted.
9. Definition order (A-21): beyond "earlier than the reference", the
   definitions must be exactly in the order a depth-first walk of the
   parameters and then the result completes them (R_ORDER), so a signature
   has one byte form.  A reference from a parameter or the result must name
   an existing definition (R_INDEX).
10. Modes are not checked against types (an ``out`` scalar decodes); that is
   the compiler's business (A-25).
11. :func:`encode_signature` refuses what the decoder would refuse: it writes
   the bytes, then decodes them, so both share one set of rules; offsets in
   its errors are offsets in the bytes it would have written.
12. :func:`format_c_prototype` writes every structure inline as an anonymous
   ``struct { ... }`` (as tour.c's typedefs would name them): a wide integer
   is ``struct { uint64_t limbs[n]; }``, least significant first; a struct
   result is its C struct with fields in order, a run of bit fields as one
   storage unit of its declared type named after its first field (LS-82,
   LS-84) with a comment of the bit ranges, and a packed struct is marked by
   a comment, since C17 has no packing; an error-set value is its underlying
   unsigned integer.  Parameters are named ``p0, p1, ...`` unless
   ``param_names`` is given; a name that is a C keyword gets a trailing ``_``.
   Inline structs can nest exponentially, so a prototype longer than
   :data:`MAX_PROTOTYPE_CHARS` is refused with ``ValueError`` before it is
   written (an implementation limit).
13. Cost on hostile input: time and memory are linear in the input (for
   a 1 MB signature, well under a second).  The decoder never recurses deeper
   than an array element or an error union's value and walks definitions
   iteratively.  The values of combined sets are counted after the
   definitions are read (an error found there that lies earlier in the bytes
   than a later error of another kind is still the one reported): each
   plain set's values are a run of bit positions, a combined set is its
   largest member's set plus a bit mask of what the others add (or that
   member itself when they add nothing), a set above 65535 values is only
   marked as such, and a set's bits are released after the last definition
   that names it, so chains, diamonds and fan-outs of combined sets cost no
   repeated walks and no copies of whole sets.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Optional, Union

from .codes import DOMAIN_TYPE_SIGNATURE_V1, TYPE_TAGS

__all__ = [
    "SignatureError", "Bool", "Int", "Fixed", "Any", "Bound", "Extent", "Range", "Array",
    "StructRef", "ErrorSetRef", "ErrorUnion", "StructDef", "ErrorSetDef", "CombinedErrorSetDef",
    "Param", "Signature", "encode_signature", "decode_signature", "build_signature",
    "format_c_prototype", "MAX_PROTOTYPE_CHARS", "DOMAIN", "LAYOUT_NATURAL", "LAYOUT_PACKED", "MODES", "MAX_RANK",
    "I8", "I16", "I32", "I64", "I128", "I256", "I512", "I1024", "U8", "U16", "U32", "U64",
]

DOMAIN = len(DOMAIN_TYPE_SIGNATURE_V1).to_bytes(4, "little") + DOMAIN_TYPE_SIGNATURE_V1.encode("ascii")
LAYOUT_NATURAL = 0
LAYOUT_PACKED = 1
MODES = {"in": 0, "inout": 1, "out": 2}
_MODE_NAMES = {v: k for k, v in MODES.items()}
MAX_RANK = 4
NO_SYMBOL = 0xFFFFFFFF

T_BOOL = TYPE_TAGS["Bool"]
T_Q = TYPE_TAGS["Q"]
T_ARRAY = TYPE_TAGS["ArrayAbi"]
T_STRUCT = TYPE_TAGS["Struct"]
T_ERRSET = TYPE_TAGS["ErrorSet"]
T_ERRUNION = TYPE_TAGS["ErrorUnion"]
SET_PLAIN = 0
SET_COMBINED = 1
SHAPE_ANY, SHAPE_EXTENT, SHAPE_RANGE = 0, 1, 2

_INT_TAG: dict[tuple[bool, int], int] = {}
for _b in (8, 16, 32, 64, 128, 256, 512, 1024):
    _INT_TAG[(True, _b)] = TYPE_TAGS[f"I{_b}"]
for _b in (8, 16, 32, 64):
    _INT_TAG[(False, _b)] = TYPE_TAGS[f"U{_b}"]
_TAG_INT = {t: k for k, t in _INT_TAG.items()}
_Q_STORAGE = {TYPE_TAGS["I8"]: 8, TYPE_TAGS["I16"]: 16, TYPE_TAGS["I32"]: 32, TYPE_TAGS["I64"]: 64}
_Q_STORAGE_TAG = {b: t for t, b in _Q_STORAGE.items()}
# Tags the 7.5 table knows.
_KNOWN_TAGS = frozenset({T_BOOL, T_Q, T_ARRAY, T_STRUCT, T_ERRSET, T_ERRUNION, *_TAG_INT})

_LEAF_CAP = 0xFFFF   # the most values a U16 set numbers; see _Decoder.leaves_of

# Least sizes, in bytes, of what a count counts (decision 6).
_MIN_DEF, _MIN_PARAM, _MIN_FIELD, _MIN_VALUE, _MIN_MEMBER = 13, 2, 7, 5, 4

# Rule names carried by SignatureError.rule (A-24 unless marked).
R_DOMAIN = "another domain string"
R_TAG = "unknown tag"
R_MODE = "unknown mode"
R_FORM = "unknown shape form"
R_LAYOUT = "unknown layout"
R_SET_FORM = "unknown set form"
R_PLACE = "tag not allowed here"
R_ARRAY_OF_ARRAYS = "array of arrays"
R_OPEN_FIELD = "field array with an open extent"
R_Q_STORAGE = "fixed-point storage tag outside 11..14"
R_Q_F = "fixed-point f above the storage width less 1"
R_RANK = "rank 0 or above 4"
R_SYMBOL = "size-symbol index at or above size_count"
R_INDEX = "definition index not earlier than the reference"
R_KIND = "definition of another kind"
R_UNREFERENCED = "definition nothing refers to"
R_DUP_DEF = "two definitions of one kind with one name"
R_TOO_MANY = "error set with more values than its underlying type can number"
R_DUP_NAME = "two fields or values of one definition with one name"
R_BIT_WIDTH = "bit width wider than its field"
R_IDENT = "name that is not an identifier"
R_COUNT = "count or length larger than the bytes remaining"
R_TRUNCATED = "truncated input"
R_TRAILING = "trailing bytes"
R_ORDER = "definitions out of the A-21 order"          # decision 9
R_EXTENT = "negative literal extent or empty range"    # decision 8
R_EMPTY_SET = "combined error set with no members"     # decision 3
R_MODEL = "not a valid type model"                     # encoder and builder only


class SignatureError(ValueError):
    """A type signature that breaks a rule of SPEC-03P.1 7.5.

    ``offset`` is the byte offset where the offending field starts (``None``
    when the error comes from :func:`build_signature` before any byte exists);
    ``rule`` is one of the ``R_*`` strings of this module.
    """

    def __init__(self, offset: Optional[int], rule: str, detail: str = ""):
        self.offset = offset
        self.rule = rule
        self.detail = detail
        where = "type signature" if offset is None else f"type signature offset {offset}"
        super().__init__(f"{where}: {rule} [A-24]" + (f": {detail}" if detail else ""))


# ---------------------------------------------------------------------------
# The model

def _tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x)


@dataclass(frozen=True)
class Bool:
    pass


@dataclass(frozen=True)
class Int:
    signed: bool
    bits: int


@dataclass(frozen=True)
class Fixed:
    """``Q<storage_bits - f>.<f>``: a signed storage integer of ``storage_bits`` with ``f`` fraction bits."""
    storage_bits: int
    f: int


@dataclass(frozen=True)
class Bound:
    """The value ``size_symbol[symbol] + offset``; ``symbol`` None for a literal ``offset``."""
    symbol: Optional[int]
    offset: int


@dataclass(frozen=True)
class Any:
    """Shape form 00: any extent (``_``)."""


@dataclass(frozen=True)
class Extent:
    """Shape form 01: the extent ``bound``."""
    bound: Bound


@dataclass(frozen=True)
class Range:
    """Shape form 02: the range ``lower ..= bound``."""
    lower: int
    bound: Bound


Shape = Union[Any, Extent, Range]


@dataclass(frozen=True)
class Array:
    elem: "Type"
    dims: tuple

    def __post_init__(self):
        object.__setattr__(self, "dims", _tuple(self.dims))


@dataclass(frozen=True)
class StructRef:
    index: Optional[int] = None
    defn: Optional["StructDef"] = field(default=None, repr=False)


@dataclass(frozen=True)
class ErrorSetRef:
    index: Optional[int] = None
    defn: Optional[Union["ErrorSetDef", "CombinedErrorSetDef"]] = field(default=None, repr=False)


@dataclass(frozen=True)
class ErrorUnion:
    set_index: Optional[int] = None
    value: Optional["Type"] = None
    defn: Optional[Union["ErrorSetDef", "CombinedErrorSetDef"]] = field(default=None, repr=False)


Type = Union[Bool, Int, Fixed, Array, StructRef, ErrorSetRef, ErrorUnion]


@dataclass(frozen=True)
class StructDef:
    qname: str
    layout: int
    fields: tuple   # of (name, bit width, type)

    def __post_init__(self):
        object.__setattr__(self, "fields", tuple(_tuple(f) for f in self.fields))


@dataclass(frozen=True)
class ErrorSetDef:
    qname: str
    tag_type: Int
    values: tuple   # of str, in tag order (tag 1 first)

    def __post_init__(self):
        object.__setattr__(self, "values", _tuple(self.values))


@dataclass(frozen=True)
class CombinedErrorSetDef:
    qname: str
    tag_type: Int
    members: tuple  # definition indices (or, for build_signature, definitions)

    def __post_init__(self):
        object.__setattr__(self, "members", _tuple(self.members))


Definition = Union[StructDef, ErrorSetDef, CombinedErrorSetDef]


@dataclass(frozen=True)
class Param:
    mode: str
    type: Type


@dataclass(frozen=True)
class Signature:
    definitions: tuple
    size_count: int
    params: tuple
    result: Optional[Type] = None

    def __post_init__(self):
        object.__setattr__(self, "definitions", _tuple(self.definitions))
        object.__setattr__(self, "params", _tuple(self.params))


I8, I16, I32, I64 = Int(True, 8), Int(True, 16), Int(True, 32), Int(True, 64)
I128, I256, I512, I1024 = Int(True, 128), Int(True, 256), Int(True, 512), Int(True, 1024)
U8, U16, U32, U64 = Int(False, 8), Int(False, 16), Int(False, 32), Int(False, 64)


# ---------------------------------------------------------------------------
# Decoding

_U16, _U32 = struct.Struct("<H"), struct.Struct("<I")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*\Z")
_DEF_STRUCT, _DEF_SET = "struct", "error set"


def _kind_of(d) -> str:
    return _DEF_STRUCT if isinstance(d, StructDef) else _DEF_SET


def _is_ident(b: bytes) -> bool:
    return 1 <= len(b) <= 255 and _IDENT.match(b) is not None


class _Reader:
    def __init__(self, data: bytes, trace: Optional[list] = None):
        self.data = memoryview(data).cast("B")
        self.end = len(self.data)
        self.pos = 0
        self.trace = trace

    def remaining(self) -> int:
        return self.end - self.pos

    def need(self, n: int, what: str) -> int:
        at = self.pos
        if self.end - at < n:
            raise SignatureError(at, R_TRUNCATED, f"{what} needs {n} bytes, {self.end - at} remain")
        self.pos = at + n
        return at

    def u8(self, what: str) -> int:
        at = self.pos
        if at >= self.end:
            self.need(1, what)
        self.pos = at + 1
        return self.data[at]

    def u16(self, what: str) -> int:
        at = self.need(2, what)
        return _U16.unpack_from(self.data, at)[0]

    def u32(self, what: str) -> int:
        at = self.pos
        if self.end - at < 4:
            self.need(4, what)
        self.pos = at + 4
        if self.trace is not None:
            self.trace.append(at)
        return _U32.unpack_from(self.data, at)[0]

    def i64(self, what: str) -> int:
        at = self.need(8, what)
        return int.from_bytes(self.data[at:at + 8], "little", signed=True)

    def count(self, what: str, least: int) -> int:
        at = self.pos
        n = self.u32(what)
        if n * least > self.remaining():
            raise SignatureError(at, R_COUNT, f"{what} {n} needs at least {n * least} bytes, "
                                 f"{self.remaining()} remain")
        return n

    def raw_name(self, what: str) -> tuple[int, bytes]:
        at = self.pos
        n = self.u32(f"length of {what}")
        if n > self.remaining():
            raise SignatureError(at, R_COUNT, f"{what} of {n} bytes, {self.remaining()} remain")
        start = self.pos
        self.pos += n
        return at, bytes(self.data[start:start + n])

    def name(self, what: str) -> str:
        at, b = self.raw_name(what)
        if not _is_ident(b):
            raise SignatureError(at, R_IDENT, f"{what} {b[:64]!r}")
        return b.decode("ascii")

    def qname(self, what: str) -> str:
        at, b = self.raw_name(what)
        parts = b.split(b".")
        if len(parts) < 2 or not all(_is_ident(p) for p in parts):
            raise SignatureError(at, R_IDENT, f"{what} {b[:64]!r} is not a qualified name")
        return b.decode("ascii")


# Where a type stands (decision 7).
_P_PARAM, _P_ELEM, _P_FIELD, _P_FIELD_ELEM, _P_RESULT, _P_UNION_VALUE = range(6)
_PLACE_NAME = {_P_PARAM: "a parameter", _P_ELEM: "an array element", _P_FIELD: "a struct field",
               _P_FIELD_ELEM: "an array element", _P_RESULT: "the result",
               _P_UNION_VALUE: "an error union's value"}


class _Decoder:
    def __init__(self, data: bytes, trace: Optional[list] = None):
        self.r = _Reader(data, trace)
        self.defs: list = []          # decoded definitions so far
        self.def_offsets: list[int] = []
        self.size_count = 0
        self.referenced: set[int] = set()
        self.names = {_DEF_STRUCT: set(), _DEF_SET: set()}
        self.combined: list[tuple[int, int, int]] = []   # (definition, offset of its member count, limit)

    # -- references
    def ref(self, at: int, index: int, kind: str, limit: int) -> None:
        if index >= limit:
            raise SignatureError(at, R_INDEX, f"index {index}, {limit} definitions precede the reference")
        if _kind_of(self.defs[index]) != kind:
            raise SignatureError(at, R_KIND, f"definition {index} is of kind {_kind_of(self.defs[index])}, "
                                 f"not a {kind}")
        self.referenced.add(index)

    # -- types
    def type(self, place: int, limit: int, tag_at: Optional[int] = None, tag: Optional[int] = None):
        r = self.r
        if tag is None:
            tag_at = r.pos
            tag = r.u8("type tag")
        if tag not in _KNOWN_TAGS:
            raise SignatureError(tag_at, R_TAG, f"{tag:#04x}")
        if tag == T_BOOL:
            return Bool()
        if tag in _TAG_INT:
            signed, bits = _TAG_INT[tag]
            return Int(signed, bits)
        if tag == T_Q:
            at = r.pos
            st = r.u8("fixed-point storage tag")
            if st not in _Q_STORAGE:
                raise SignatureError(at, R_Q_STORAGE, f"{st:#04x}")
            bits = _Q_STORAGE[st]
            at = r.pos
            f = r.u16("fixed-point f")
            if f > bits - 1:
                raise SignatureError(at, R_Q_F, f"f {f} with {bits}-bit storage")
            return Fixed(bits, f)
        if tag == T_ARRAY:
            if place in (_P_ELEM, _P_FIELD_ELEM):
                raise SignatureError(tag_at, R_ARRAY_OF_ARRAYS)
            if place not in (_P_PARAM, _P_FIELD):
                raise SignatureError(tag_at, R_PLACE, f"an array as {_PLACE_NAME[place]}")
            elem = self.type(_P_FIELD_ELEM if place == _P_FIELD else _P_ELEM, limit)
            at = r.pos
            rank = r.u8("rank")
            if not 1 <= rank <= MAX_RANK:
                raise SignatureError(at, R_RANK, f"rank {rank}")
            dims = []
            for _ in range(rank):
                dims.append(self.shape(place == _P_FIELD))
            return Array(elem, tuple(dims))
        if tag == T_STRUCT or tag == T_ERRSET:
            at = r.pos
            index = r.u32("definition index")
            self.ref(at, index, _DEF_STRUCT if tag == T_STRUCT else _DEF_SET, limit)
            return StructRef(index) if tag == T_STRUCT else ErrorSetRef(index)
        # T_ERRUNION
        if place != _P_RESULT:
            raise SignatureError(tag_at, R_PLACE, f"an error union as {_PLACE_NAME[place]}")
        at = r.pos
        index = r.u32("error set index")
        self.ref(at, index, _DEF_SET, limit)
        at = r.pos
        vtag = r.u8("error union value tag")
        value = None if vtag == 0 else self.type(_P_UNION_VALUE, limit, at, vtag)
        return ErrorUnion(index, value)

    def bound(self, in_field: bool = False) -> Bound:
        r = self.r
        at = r.pos
        sym = r.u32("size-symbol index")
        if in_field and sym != NO_SYMBOL:
            # size_count is not yet read while definitions are: this rule comes first.
            raise SignatureError(at, R_OPEN_FIELD, "an extent from a size symbol")
        offset = r.i64("bound offset")
        if sym == NO_SYMBOL:
            return Bound(None, offset)
        if sym >= self.size_count:
            raise SignatureError(at, R_SYMBOL, f"symbol {sym}, size_count {self.size_count}")
        return Bound(sym, offset)

    def shape(self, in_field: bool):
        r = self.r
        at = r.pos
        form = r.u8("shape form")
        if form == SHAPE_ANY:
            if in_field:
                raise SignatureError(at, R_OPEN_FIELD, "any extent")
            return Any()
        if form == SHAPE_EXTENT:
            bat = r.pos
            b = self.bound(in_field)
            if b.symbol is None and b.offset < 0:
                raise SignatureError(bat, R_EXTENT, f"extent {b.offset}")
            return Extent(b)
        if form == SHAPE_RANGE:
            if in_field:
                raise SignatureError(at, R_OPEN_FIELD, "a range")
            lower = r.i64("range lower bound")
            bat = r.pos
            b = self.bound()
            if b.symbol is None and lower > b.offset:
                raise SignatureError(bat, R_EXTENT, f"range {lower} ..= {b.offset}")
            return Range(lower, b)
        raise SignatureError(at, R_FORM, f"{form:#04x}")

    # -- definitions
    def tag_type(self) -> Int:
        r = self.r
        at = r.pos
        t = r.u8("underlying tag")
        if t not in _KNOWN_TAGS:
            raise SignatureError(at, R_TAG, f"{t:#04x}")
        if t not in _TAG_INT or _TAG_INT[t][0]:
            raise SignatureError(at, R_PLACE, f"{t:#04x} as an error set's underlying type")
        return Int(False, _TAG_INT[t][1])

    def definition(self, k: int):
        r = self.r
        at = r.pos
        tag = r.u8("definition tag")
        if tag not in _KNOWN_TAGS:
            raise SignatureError(at, R_TAG, f"{tag:#04x}")
        if tag not in (T_STRUCT, T_ERRSET):
            raise SignatureError(at, R_PLACE, f"{tag:#04x} as a definition")
        kind = _DEF_STRUCT if tag == T_STRUCT else _DEF_SET
        qat = r.pos
        qname = r.qname(f"{kind} name")
        if qname in self.names[kind]:
            raise SignatureError(qat, R_DUP_DEF, f"{kind} {qname}")
        self.names[kind].add(qname)
        if tag == T_STRUCT:
            lat = r.pos
            layout = r.u8("layout")
            if layout not in (LAYOUT_NATURAL, LAYOUT_PACKED):
                raise SignatureError(lat, R_LAYOUT, f"{layout:#04x}")
            n = r.count("field count", _MIN_FIELD)
            seen: set[str] = set()
            fields = []
            for _ in range(n):
                nat = r.pos
                name = r.name("field name")
                if name in seen:
                    raise SignatureError(nat, R_DUP_NAME, f"field {name} of {qname}")
                seen.add(name)
                wat = r.pos
                width = r.u8("bit width")
                ftype = self.type(_P_FIELD, k)
                if width:
                    cap = (1 if isinstance(ftype, Bool) else ftype.bits if isinstance(ftype, Int) else 0)
                    if width > cap:
                        raise SignatureError(wat, R_BIT_WIDTH, f"width {width} on field {name} of {qname}")
                fields.append((name, width, ftype))
            return StructDef(qname, layout, tuple(fields))
        tag_type = self.tag_type()
        limit = (1 << tag_type.bits) - 1
        fat = r.pos
        form = r.u8("set form")
        if form == SET_PLAIN:
            cat = r.pos
            n = r.count("value count", _MIN_VALUE)
            if n > limit:
                raise SignatureError(cat, R_TOO_MANY, f"{n} values in U{tag_type.bits}")
            seen = set()
            values = []
            for _ in range(n):
                nat = r.pos
                name = r.name("error value name")
                if name in seen:
                    raise SignatureError(nat, R_DUP_NAME, f"value {name} of {qname}")
                seen.add(name)
                values.append(name)
            return ErrorSetDef(qname, tag_type, tuple(values))
        if form == SET_COMBINED:
            cat = r.pos
            n = r.count("member count", _MIN_MEMBER)
            if n == 0:
                raise SignatureError(cat, R_EMPTY_SET, qname)
            members: list[int] = []
            listed: set[int] = set()
            for _ in range(n):
                mat = r.pos
                m = r.u32("member index")
                self.ref(mat, m, _DEF_SET, k)
                if m in listed:
                    raise SignatureError(mat, R_DUP_NAME, f"member {m} of {qname} listed twice")
                listed.add(m)
                members.append(m)
            self.combined.append((k, cat, limit))
            return CombinedErrorSetDef(qname, tag_type, tuple(members))
        raise SignatureError(fat, R_SET_FORM, f"{form:#04x}")

    # -- the whole
    def signature(self) -> Signature:
        r = self.r
        if r.remaining() < len(DOMAIN) or bytes(r.data[:len(DOMAIN)]) != DOMAIN:
            if r.remaining() < len(DOMAIN) and DOMAIN.startswith(bytes(r.data)):
                raise SignatureError(0, R_TRUNCATED, "in the domain string")
            raise SignatureError(0, R_DOMAIN, bytes(r.data[:len(DOMAIN)])[:40].hex(" "))
        if self.r.trace is not None:
            self.r.trace.append(0)
        r.pos = len(DOMAIN)
        n = r.count("definition count", _MIN_DEF)
        try:
            for k in range(n):
                self.def_offsets.append(r.pos)
                self.defs.append(self.definition(k))
        except SignatureError:
            _check_set_sizes(self.defs, self.combined)   # an error earlier in the bytes comes first
            raise
        _check_set_sizes(self.defs, self.combined)
        at = r.pos
        sc = r.u32("size_count")
        if sc > r.remaining():
            raise SignatureError(at, R_COUNT, f"size_count {sc}, {r.remaining()} bytes remain")
        self.size_count = sc
        pc = r.count("parameter count", _MIN_PARAM)
        params = []
        for _ in range(pc):
            at = r.pos
            mode = r.u8("mode")
            if mode not in _MODE_NAMES:
                raise SignatureError(at, R_MODE, f"{mode:#04x}")
            params.append(Param(_MODE_NAMES[mode], self.type(_P_PARAM, n)))
        at = r.pos
        tag = r.u8("result tag")
        result = None if tag == 0 else self.type(_P_RESULT, n, at, tag)
        if r.remaining():
            raise SignatureError(r.pos, R_TRAILING, f"{r.remaining()} bytes")
        for k in range(n):
            if k not in self.referenced:
                raise SignatureError(self.def_offsets[k], R_UNREFERENCED, f"definition {k}")
        sig = Signature(tuple(self.defs), sc, tuple(params), result)
        order = _completion_order(sig)
        completed = set(order)
        order += [k for k in range(n) if k not in completed]   # none when every one is referenced
        for k, d in enumerate(order):
            if d != k:
                raise SignatureError(self.def_offsets[k], R_ORDER,
                                     f"position {k} holds definition {k}, the walk completes {d} there")
        return sig


# ---------------------------------------------------------------------------
# Counting the values of combined sets (decisions 3 and 13)

_MAX_LAYERS = 4   # a set kept as layers over its largest member is flattened at this depth


class _Values:
    """The values of an error set as bit positions: ``bits << off`` joined with the set of ``base``.

    Each plain set owns a run of positions, one per value, so the values of a combined set are
    the union of its members' positions and their number is a population count."""

    __slots__ = ("base", "off", "bits", "count", "depth")

    def __init__(self, base, off: int, bits: int, count: int):
        self.base, self.off, self.bits, self.count = base, off, bits, count
        self.depth = 0 if base is None else base.depth + 1

    def flat(self) -> tuple[int, int]:
        """(off, bits) of the whole set; a deep set keeps its flat form (it stands for the same values)."""
        if self.base is None:
            return self.off, self.bits
        layers = []
        s = self
        while s.base is not None:
            layers.append(s)
            s = s.base
        off, bits = s.off, s.bits
        for layer in reversed(layers):
            off, bits = _or(off, bits, layer.off, layer.bits)
        if self.depth >= _MAX_LAYERS:
            self.base, self.off, self.bits, self.depth = None, off, bits, 0
        return off, bits


def _or(o1: int, b1: int, o2: int, b2: int) -> tuple[int, int]:
    if not b1:
        return o2, b2
    if not b2:
        return o1, b1
    o = min(o1, o2)
    return o, (b1 << (o1 - o)) | (b2 << (o2 - o))


def _minus(o1: int, b1: int, o2: int, b2: int) -> int:
    """The bits of (o1, b1) outside (o2, b2), as a mask at o1."""
    span = b1.bit_length()
    if o2 >= o1:
        d = o2 - o1
        if d >= span:
            return b1
        return b1 & ~((b2 & ((1 << (span - d)) - 1)) << d)
    return b1 & ~(b2 >> (o1 - o2))


def _check_set_sizes(defs: list, combined: list) -> None:
    """Refuses the first combined set (in byte order) with more values than its underlying type numbers.

    ``defs`` are the definitions read so far, ``combined`` the (index, offset of the member count,
    limit) of each combined set among them."""
    if not combined:
        return
    last_use: dict[int, int] = {}
    for k, _, _ in combined:
        for m in defs[k].members:
            last_use[m] = k
    table: dict[int, Optional[_Values]] = {}   # None: more than _LEAF_CAP values
    cursor = 0
    todo = iter(combined)
    nxt = next(todo)
    for k, d in enumerate(defs):
        if nxt is not None and nxt[0] == k:
            _, at, limit = nxt
            nxt = next(todo, None)
            members = [table[m] for m in d.members]
            for m in d.members:
                if last_use[m] == k:
                    del table[m]
            if any(v is None for v in members):
                # Above _LEAF_CAP: too many for U8 and U16.  U32 and U64 cannot be
                # exceeded by an input shorter than 5 * 2**32 bytes (a value takes 5).
                if limit <= _LEAF_CAP:
                    raise SignatureError(at, R_TOO_MANY, f"more than {_LEAF_CAP} values in U{d.tag_type.bits}")
                vals = None
            else:
                base = max(members, key=lambda v: v.count)
                bo, bb = base.flat()
                eo = eb = 0
                for v in members:
                    if v is not base and v.count:
                        vo, vb = v.flat()
                        eo, eb = _or(eo, eb, vo, _minus(vo, vb, bo, bb))
                total = base.count + eb.bit_count()
                if total > limit:
                    raise SignatureError(at, R_TOO_MANY, f"{total} values in U{d.tag_type.bits}")
                vals = None if total > _LEAF_CAP else base if not eb else _Values(base, eo, eb, total)
            if k in last_use:
                table[k] = vals
        elif k in last_use and isinstance(d, ErrorSetDef):
            n = len(d.values)
            if n > _LEAF_CAP:
                table[k] = None
            else:
                table[k] = _Values(None, cursor, (1 << n) - 1, n)
                cursor += n


def _type_refs(t) -> list[int]:
    if isinstance(t, Array):
        return _type_refs(t.elem)
    if isinstance(t, (StructRef, ErrorSetRef)):
        return [t.index]
    if isinstance(t, ErrorUnion):
        return [t.set_index] + ([] if t.value is None else _type_refs(t.value))
    return []


def _def_refs(d) -> list[int]:
    if isinstance(d, StructDef):
        return [i for _, _, t in d.fields for i in _type_refs(t)]
    if isinstance(d, CombinedErrorSetDef):
        return list(d.members)
    return []


def _completion_order(sig: Signature) -> list[int]:
    """Definition indices in the order a depth-first walk of params then result completes them (A-21)."""
    done: list[int] = []
    seen: set[int] = set()

    def visit(i: int) -> None:
        # Iterative post-order: definitions refer only to earlier ones, but chains may be long.
        stack = [(i, iter(_def_refs(sig.definitions[i])))]
        seen.add(i)
        while stack:
            node, it = stack[-1]
            for j in it:
                if j not in seen:
                    seen.add(j)
                    stack.append((j, iter(_def_refs(sig.definitions[j]))))
                    break
            else:
                stack.pop()
                done.append(node)

    roots = [i for p in sig.params for i in _type_refs(p.type)]
    if sig.result is not None:
        roots += _type_refs(sig.result)
    for i in roots:
        if i not in seen:
            visit(i)
    return done


def decode_signature(data: bytes) -> Signature:
    """Decode and check a type signature (A-24); raises :class:`SignatureError` for any rule broken."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"a type signature is bytes, not {type(data).__name__}")
    return _Decoder(data).signature()


def _u32_field_offsets(data: bytes) -> list[int]:
    """Offsets of every U32 field (counts, lengths, indices) of a valid signature, for fuzzing."""
    trace: list[int] = []
    _Decoder(data, trace).signature()
    return trace


# ---------------------------------------------------------------------------
# Encoding

def _check_int(v, lo: int, hi: int, what: str, at: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise SignatureError(at, R_MODEL, f"{what} {v!r} is not an integer in {lo}..{hi}")
    return v


class _Encoder:
    def __init__(self):
        self.out = bytearray()

    def u8(self, v, what):
        self.out += _check_int(v, 0, 0xFF, what, len(self.out)).to_bytes(1, "little")

    def u16(self, v, what):
        self.out += _check_int(v, 0, 0xFFFF, what, len(self.out)).to_bytes(2, "little")

    def u32(self, v, what):
        self.out += _check_int(v, 0, 0xFFFFFFFF, what, len(self.out)).to_bytes(4, "little")

    def i64(self, v, what):
        self.out += _check_int(v, -(1 << 63), (1 << 63) - 1, what, len(self.out)).to_bytes(8, "little", signed=True)

    def name(self, s, what):
        if not isinstance(s, str):
            raise SignatureError(len(self.out), R_MODEL, f"{what} {s!r} is not a str")
        b = s.encode("utf-8")
        self.u32(len(b), f"length of {what}")
        self.out += b

    def int_tag(self, t, what) -> int:
        key = (t.signed, t.bits) if isinstance(t, Int) else None
        if key not in _INT_TAG or not isinstance(t.signed, bool):
            raise SignatureError(len(self.out), R_MODEL, f"{what} {t!r} is not one of I8..I1024, U8..U64")
        return _INT_TAG[key]

    def ref_index(self, idx, what):
        if idx is None:
            raise SignatureError(len(self.out), R_MODEL,
                                 f"{what} has no index; build_signature numbers definitions given by object")
        self.u32(idx, what)

    def type(self, t):
        at = len(self.out)
        if isinstance(t, Bool):
            self.u8(T_BOOL, "tag")
        elif isinstance(t, Int):
            self.u8(self.int_tag(t, "integer type"), "tag")
        elif isinstance(t, Fixed):
            if t.storage_bits not in _Q_STORAGE_TAG:
                raise SignatureError(at, R_Q_STORAGE, f"storage of {t.storage_bits!r} bits")
            self.u8(T_Q, "tag")
            self.u8(_Q_STORAGE_TAG[t.storage_bits], "storage tag")
            self.u16(t.f, "fixed-point f")
        elif isinstance(t, Array):
            self.u8(T_ARRAY, "tag")
            self.type(t.elem)
            self.u8(len(t.dims), "rank")
            for d in t.dims:
                self.shape(d)
        elif isinstance(t, StructRef):
            self.u8(T_STRUCT, "tag")
            self.ref_index(t.index, "struct reference")
        elif isinstance(t, ErrorSetRef):
            self.u8(T_ERRSET, "tag")
            self.ref_index(t.index, "error set reference")
        elif isinstance(t, ErrorUnion):
            self.u8(T_ERRUNION, "tag")
            self.ref_index(t.set_index, "error union")
            if t.value is None:
                self.u8(0, "void")
            else:
                self.type(t.value)
        else:
            raise SignatureError(at, R_MODEL, f"{t!r} is not a type")

    def bound(self, b):
        if not isinstance(b, Bound):
            raise SignatureError(len(self.out), R_MODEL, f"{b!r} is not a Bound")
        if b.symbol is None:
            self.u32(NO_SYMBOL, "size symbol")
        else:
            self.u32(_check_int(b.symbol, 0, NO_SYMBOL - 1, "size symbol", len(self.out)), "size symbol")
        self.i64(b.offset, "bound offset")

    def shape(self, d):
        if isinstance(d, Any):
            self.u8(SHAPE_ANY, "shape form")
        elif isinstance(d, Extent):
            self.u8(SHAPE_EXTENT, "shape form")
            self.bound(d.bound)
        elif isinstance(d, Range):
            self.u8(SHAPE_RANGE, "shape form")
            self.i64(d.lower, "range lower bound")
            self.bound(d.bound)
        else:
            raise SignatureError(len(self.out), R_MODEL, f"{d!r} is not a shape")

    def definition(self, d):
        if isinstance(d, StructDef):
            self.u8(T_STRUCT, "tag")
            self.name(d.qname, "struct name")
            self.u8(d.layout, "layout")
            self.u32(len(d.fields), "field count")
            for f in d.fields:
                if len(f) != 3:
                    raise SignatureError(len(self.out), R_MODEL, f"field {f!r} is not (name, bit width, type)")
                name, width, t = f
                self.name(name, "field name")
                self.u8(width, "bit width")
                self.type(t)
        elif isinstance(d, (ErrorSetDef, CombinedErrorSetDef)):
            self.u8(T_ERRSET, "tag")
            self.name(d.qname, "error set name")
            tag = self.int_tag(d.tag_type, "underlying type")
            self.u8(tag, "underlying tag")
            if isinstance(d, ErrorSetDef):
                self.u8(SET_PLAIN, "set form")
                self.u32(len(d.values), "value count")
                for v in d.values:
                    self.name(v, "error value name")
            else:
                self.u8(SET_COMBINED, "set form")
                self.u32(len(d.members), "member count")
                for m in d.members:
                    if not isinstance(m, int) or isinstance(m, bool):
                        raise SignatureError(len(self.out), R_MODEL,
                                             "a member is a definition index; build_signature numbers objects")
                    self.u32(m, "member index")
        else:
            raise SignatureError(len(self.out), R_MODEL, f"{d!r} is not a definition")

    def signature(self, sig: Signature) -> bytes:
        if not isinstance(sig, Signature):
            raise TypeError(f"encode_signature takes a Signature, not {type(sig).__name__}")
        self.out += DOMAIN
        self.u32(len(sig.definitions), "definition count")
        for d in sig.definitions:
            self.definition(d)
        self.u32(sig.size_count, "size_count")
        self.u32(len(sig.params), "parameter count")
        for p in sig.params:
            if not isinstance(p, Param) or p.mode not in MODES:
                raise SignatureError(len(self.out), R_MODE, f"{p!r}")
            self.u8(MODES[p.mode], "mode")
            self.type(p.type)
        if sig.result is None:
            self.u8(0, "no result")
        else:
            self.type(sig.result)
        return bytes(self.out)


def encode_signature(sig: Signature) -> bytes:
    """The bytes of ``sig`` (7.5).  Raises :class:`SignatureError` for a signature the decoder would refuse."""
    data = _Encoder().signature(sig)
    decode_signature(data)   # one set of rules for both directions (decision 11)
    return data


# ---------------------------------------------------------------------------
# Building: definitions by object, numbered in the A-21 order

def build_signature(params, result=None, size_count: int = 0) -> Signature:
    """A :class:`Signature` from types that name definitions by object.

    ``params`` is a sequence of :class:`Param` (or ``(mode, type)`` pairs);
    references are ``StructRef(defn=...)``, ``ErrorSetRef(defn=...)`` and
    ``ErrorUnion(value=..., defn=...)``, and a combined set's members are
    definition objects.  The definitions are numbered in the order in which a
    depth-first walk of the parameters, then the result, completes them (A-21).
    Equal definitions given as different objects are one definition; two
    different definitions of one kind with one name are refused.
    """
    defs: list = []
    index: dict[tuple[str, str], tuple[object, int]] = {}
    active: set[int] = set()

    def define(d) -> int:
        if not isinstance(d, (StructDef, ErrorSetDef, CombinedErrorSetDef)):
            raise SignatureError(None, R_MODEL, f"{d!r} is not a definition")
        key = (_kind_of(d), d.qname)
        if key in index:
            orig, i = index[key]
            if orig is not d and orig != d:
                raise SignatureError(None, R_DUP_DEF, f"{key[0]} {d.qname}")
            return i
        if id(d) in active:
            raise SignatureError(None, R_MODEL, f"{d.qname} refers to itself")
        active.add(id(d))
        if isinstance(d, StructDef):
            fields = []
            for f in d.fields:
                if len(f) != 3:
                    raise SignatureError(None, R_MODEL, f"field {f!r} is not (name, bit width, type)")
                fields.append((f[0], f[1], conv(f[2])))
            new = StructDef(d.qname, d.layout, tuple(fields))
        elif isinstance(d, CombinedErrorSetDef):
            members = []
            for m in d.members:
                if isinstance(m, ErrorSetRef) and m.defn is not None:
                    m = m.defn
                if not isinstance(m, (ErrorSetDef, CombinedErrorSetDef)):
                    raise SignatureError(None, R_MODEL, f"member {m!r} of {d.qname} is not an error set")
                members.append(define(m))
            new = CombinedErrorSetDef(d.qname, d.tag_type, tuple(members))
        else:
            new = d
        active.discard(id(d))
        if key in index:   # another definition of this name was met inside this one
            raise SignatureError(None, R_DUP_DEF, f"{key[0]} {d.qname}")
        index[key] = (d, len(defs))
        defs.append(new)
        return len(defs) - 1

    def conv(t):
        if isinstance(t, Array):
            return Array(conv(t.elem), t.dims)
        if isinstance(t, StructRef):
            if t.defn is None:
                raise SignatureError(None, R_MODEL, "a StructRef for build_signature names its definition by object")
            if not isinstance(t.defn, StructDef):
                raise SignatureError(None, R_KIND, f"StructRef to {t.defn!r}")
            return StructRef(define(t.defn))
        if isinstance(t, ErrorSetRef):
            if t.defn is None:
                raise SignatureError(None, R_MODEL, "an ErrorSetRef for build_signature names its definition by object")
            if not isinstance(t.defn, (ErrorSetDef, CombinedErrorSetDef)):
                raise SignatureError(None, R_KIND, f"ErrorSetRef to {t.defn!r}")
            return ErrorSetRef(define(t.defn))
        if isinstance(t, ErrorUnion):
            if t.defn is None or not isinstance(t.defn, (ErrorSetDef, CombinedErrorSetDef)):
                raise SignatureError(None, R_MODEL, "an ErrorUnion for build_signature names its set by object")
            i = define(t.defn)
            return ErrorUnion(i, None if t.value is None else conv(t.value))
        if isinstance(t, (Bool, Int, Fixed)):
            return t
        raise SignatureError(None, R_MODEL, f"{t!r} is not a type")

    out_params = []
    for p in params:
        if not isinstance(p, Param):
            mode, t = p
            p = Param(mode, t)
        out_params.append(Param(p.mode, conv(p.type)))
    out_result = None if result is None else conv(result)
    sig = Signature(tuple(defs), size_count, tuple(out_params), out_result)
    encode_signature(sig)   # refuse what a decoder would refuse
    return sig


# ---------------------------------------------------------------------------
# The C prototype of the wrapper (7.3, paragraph 2)

_C_KEYWORDS = frozenset("""
alignas alignof auto bool break case char const constexpr continue default do double else enum
extern false float for goto if inline int long nullptr register restrict return short signed
sizeof static static_assert struct switch thread_local true typedef typeof typeof_unqual union
unsigned void volatile while _Alignas _Alignof _Atomic _BitInt _Bool _Complex _Decimal128
_Decimal32 _Decimal64 _Generic _Imaginary _Noreturn _Static_assert _Thread_local
""".split())
_C_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _c_name(name: str) -> str:
    return name + "_" if name in _C_KEYWORDS else name


def _c_int(t: Int) -> str:
    if t.bits > 64:
        return f"struct {{ uint64_t limbs[{t.bits // 64}]; }}"
    return f"{'' if t.signed else 'u'}int{t.bits}_t"


MAX_PROTOTYPE_CHARS = 1 << 20   # an implementation limit of format_c_prototype (decision 12)


class _CWriter:
    """C text as pieces: a str, or ``("s", i)`` for the inline C struct of definition ``i``.

    Struct lengths are computed first, in index order (a definition refers only to
    earlier ones), so a prototype longer than :data:`MAX_PROTOTYPE_CHARS` is refused
    before it is written, and writing uses an explicit stack, not recursion.
    """

    def __init__(self, sig: Signature):
        self.sig = sig
        self.struct_len: dict[int, int] = {}
        for i, d in enumerate(sig.definitions):
            if isinstance(d, StructDef):
                self.struct_len[i] = self.length(self.struct_pieces(i))

    def set_tag(self, i: int) -> Int:
        return self.sig.definitions[i].tag_type

    def value_pieces(self, t) -> list:
        """The C type of a value of ``t`` held in memory (a result, a field, an element)."""
        if isinstance(t, Bool):
            return ["uint8_t"]
        if isinstance(t, Int):
            return [_c_int(t)]
        if isinstance(t, Fixed):
            return [f"int{t.storage_bits}_t"]
        if isinstance(t, ErrorSetRef):
            return [_c_int(self.set_tag(t.index))]
        if isinstance(t, StructRef):
            return [("s", t.index)]
        if isinstance(t, ErrorUnion):
            head = f"struct {{ {_c_int(self.set_tag(t.set_index))} tag;"
            if t.value is None:
                return [head + " }"]
            return [head + " ", *self.value_pieces(t.value), " value; }"]
        raise ValueError(f"{t!r} has no C value type")

    def struct_pieces(self, i: int) -> list:
        d = self.sig.definitions[i]
        members: list[list] = []   # [pieces of the declaration, bit ranges or None]
        unit = None                # (declared type, bits used, member index)
        for name, width, t in d.fields:
            if width:
                ubits = 8 if isinstance(t, Bool) else t.bits   # a Bool unit is its byte
                if unit is not None and unit[0] == t and unit[1] + width <= ubits:
                    members[unit[2]][1].append(f"{name} {unit[1]}..{unit[1] + width - 1}")
                    unit = (t, unit[1] + width, unit[2])
                else:
                    members.append([[*self.value_pieces(t), f" {_c_name(name)};"], [f"{name} 0..{width - 1}"]])
                    unit = (t, width, len(members) - 1)
                continue
            unit = None
            if isinstance(t, Array):
                dims = "".join(f"[{dim.bound.offset}]" for dim in t.dims)
                members.append([[*self.value_pieces(t.elem), f" {_c_name(name)}{dims};"], None])
            else:
                members.append([[*self.value_pieces(t), f" {_c_name(name)};"], None])
        out: list = ["struct /* packed */ { " if d.layout == LAYOUT_PACKED else "struct { "]
        for decl, bits in members:
            out += decl
            out.append(" " if bits is None else f" /* bits: {', '.join(bits)} */ ")
        out.append("}")
        return out

    def length(self, pieces: list) -> int:
        n = sum(len(p) if isinstance(p, str) else self.struct_len[p[1]] for p in pieces)
        return min(n, MAX_PROTOTYPE_CHARS + 1)

    def render(self, pieces: list) -> str:
        out: list[str] = []
        stack = list(reversed(pieces))
        cache: dict[int, list] = {}
        while stack:
            p = stack.pop()
            if isinstance(p, str):
                out.append(p)
            else:
                if p[1] not in cache:
                    cache[p[1]] = self.struct_pieces(p[1])
                stack.extend(reversed(cache[p[1]]))
        return "".join(out)

    def param_pieces(self, t, name: str) -> list:
        if isinstance(t, (Array, StructRef)):
            return [f"cint_view {name}"]
        if isinstance(t, Int) and t.bits > 64:
            return [f"{_c_int(t)} *{name}"]
        return [*self.value_pieces(t), f" {name}"]


def format_c_prototype(name: str, sig: Signature, *, param_names=None) -> str:
    """The C prototype of the wrapper a host casts to (7.3 paragraph 2), ending with ``;``.

    ``cint_status name(cint_ctx *ctx, int64_t fuel, <params>, <result pointer>);``
    """
    if not isinstance(name, str) or not _C_IDENT.match(name) or name in _C_KEYWORDS:
        raise ValueError(f"{name!r} is not a C identifier")
    encode_signature(sig)   # a valid signature only
    if param_names is None:
        param_names = [f"p{k}" for k in range(len(sig.params))]
    param_names = list(param_names)
    if len(param_names) != len(sig.params):
        raise ValueError(f"{len(param_names)} parameter names for {len(sig.params)} parameters")
    for n in param_names:
        if not isinstance(n, str) or not _C_IDENT.match(n):
            raise ValueError(f"{n!r} is not an identifier")
    w = _CWriter(sig)
    pieces: list = [f"cint_status {name}(cint_ctx *ctx, int64_t fuel"]
    taken = {"ctx", "fuel"}
    for p, n in zip(sig.params, param_names):
        n = _c_name(n)
        while n in taken:
            n += "_"
        taken.add(n)
        pieces += [", ", *w.param_pieces(p.type, n)]
    if sig.result is not None:
        rn = "result"
        while rn in taken:
            rn += "_"
        pieces += [", ", *w.value_pieces(sig.result), f" *{rn}"]
    pieces.append(");")
    if w.length(pieces) > MAX_PROTOTYPE_CHARS:
        raise ValueError(f"the prototype of {name} is longer than {MAX_PROTOTYPE_CHARS} characters")
    return w.render(pieces)
