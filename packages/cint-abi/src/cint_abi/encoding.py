"""Canonical value encodings of cint-core-1 (SPEC-01P.1 section 11.1 and 11.4).

What this module covers, clause by clause:

* IM-144, IM-145: untagged payloads.  Every integer is little-endian; signed
  integers are two's complement at their width; ``I128``..``I1024`` are written
  limb 0 first, which is the same as one little-endian integer of ``w / 8`` bytes.
  ``Z`` is a ``U32`` byte count then the minimal little-endian two's complement
  bytes (:func:`encode_z`, :func:`decode_z`).
* IM-146, IM-147: type descriptors and tagged values (:func:`encode_desc`,
  :func:`encode_tagged`, :func:`decode_tagged`, :func:`decode_tagged_exact`).
* IM-148: the decoder obligations.  Every check is made before anything is
  allocated for what the checked field announces.
* IM-152, IM-157, IM-158: domain-string framing, the revision identity and the
  canonical arguments.

Type descriptors are small tuples:

* ``('bool',)``: tag ``01``
* ``('z',)``: tag ``0f``
* ``('int', signed, bits)``: tags ``11``..``18`` (signed, 8..1024 bits), ``21``..``24`` (unsigned, 8..64)
* ``('fixed', storage_bits, f)``: tag ``31``, the type ``Q<storage_bits - f>.<f>``
* ``('array', elem, extents)``: tag ``51``
* ``('view', elem, buffer_id, generation, origin, dims, perm)``: tag ``61`` (fault records only)
* ``('struct', qname, fields)``: tag ``71``
* ``('redacted', desc)``: tag ``7f`` (fault records only)

``extents`` is a tuple of ``int``; ``dims`` a tuple of ``(extent, lower,
stride)``; ``perm`` is 0 (read) or 1 (write); ``fields`` a tuple of field
descriptors in declaration order.

Values: an ``int`` for integers and ``Z``, the raw storage integer for fixed
point, a ``bool`` for ``Bool``, a nested list in row-major order for arrays, a
list of field values for a struct, and ``None`` for a view identity or a
redacted value (neither has a payload).

Decisions of ours, where section 11.1 is silent:

* The struct descriptor (tag ``71``, Proposed) holds only the qualified name,
  so a decoder needs the field layout from elsewhere: :func:`decode_tagged`
  takes ``structs``, a mapping from qualified name to field descriptors, and
  rejects a struct payload whose layout it was not given.  The element of a
  view and the inner descriptor of a redacted value need no layout; their
  struct descriptors decode with ``fields`` set to ``None`` when the name is
  not in ``structs``.
* The element of an array or a view is ``Bool``, an integer, a fixed-point type
  or a struct (every one a fixed-size payload).  ``Z``, arrays, views and
  redacted values are refused as elements, and a redacted value does not nest.
* Tags ``41``..``44`` (ternary types) are known, but their payloads belong to the
  ternary section (SPEC-05), so this decoder rejects them as unsupported.
* Zero-size arrays: ``[]`` nests down to the first zero extent, so an array of
  zero elements may still need many nested lists (extents ``(2**40, 0)``).  The
  decoder refuses one that would need more than :data:`MAX_NESTED_LISTS` lists
  (an implementation limit, not an encoding rule).
* The canonical arguments carry no separate validation: each argument is a
  tagged value as above.
"""
from __future__ import annotations

import hashlib
from typing import Any, Iterable, Mapping, Sequence

from .codes import DOMAIN_ARGS_V1, DOMAIN_REVISION_V1, HANDLE_TAG, TYPE_TAGS

__all__ = [
    "DecodeError", "M64", "Z_BOUND", "MAX_RANK", "MAX_NESTED_LISTS",
    "u8", "u16", "u32", "u64", "i64", "frame",
    "encode_z", "decode_z", "encode_desc", "encode_payload", "encode_tagged",
    "decode_tagged", "decode_tagged_exact", "payload_size",
    "Reader", "read_z", "read_desc", "read_payload", "read_tagged",
    "sha256", "revision_identity", "encode_args", "args_hash",
]

M64 = 2**63 - 1            # the largest I64 (SPEC-01P.1 section 2.1)
Z_BOUND = 257              # the run-time bound on a Z (IM-108 1)
MAX_RANK = 8               # IM-146: rank 1 to 8 for arrays and views
MAX_NESTED_LISTS = 1 << 20  # implementation limit for zero-size arrays, see above

_SIGNED_BITS = (8, 16, 32, 64, 128, 256, 512, 1024)
_UNSIGNED_BITS = (8, 16, 32, 64)
_INT_TAG = {}
for _bits in _SIGNED_BITS:
    _INT_TAG[(True, _bits)] = TYPE_TAGS[f"I{_bits}"]
for _bits in _UNSIGNED_BITS:
    _INT_TAG[(False, _bits)] = TYPE_TAGS[f"U{_bits}"]
_TAG_INT = {tag: key for key, tag in _INT_TAG.items()}
# Q storage: I8..I64 only (IM-146: storage tag 11 to 14).
_Q_STORAGE_TAG = {8: TYPE_TAGS["I8"], 16: TYPE_TAGS["I16"], 32: TYPE_TAGS["I32"], 64: TYPE_TAGS["I64"]}
_Q_TAG_STORAGE = {tag: bits for bits, tag in _Q_STORAGE_TAG.items()}

T_BOOL = TYPE_TAGS["Bool"]
T_Z = TYPE_TAGS["Z"]
T_Q = TYPE_TAGS["Q"]
T_ARRAY = TYPE_TAGS["Array"]
T_VIEW = TYPE_TAGS["View"]
T_STRUCT = TYPE_TAGS["Struct"]
T_REDACTED = TYPE_TAGS["Redacted"]
T_HANDLE = HANDLE_TAG
HANDLE_SIZE = 29                 # slot U64, length I64, generation U64, container U32, kind U8
_TERNARY = {TYPE_TAGS[n]: n for n in ("T1", "T27", "PT5", "PT4")}

_ELEMENT_KINDS = ("bool", "int", "fixed", "struct", "handle")


class DecodeError(ValueError):
    """Canonical bytes that break a rule; ``offset`` is where the offending field starts."""

    def __init__(self, offset: int, rule: str, detail: str):
        self.offset = offset
        self.rule = rule
        self.detail = detail
        super().__init__(f"offset {offset}: {rule}: {detail}")


# ---------------------------------------------------------------------------
# Packers (IM-144)

def _int_check(v: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if not lo <= v <= hi:
        raise ValueError(f"{what} {v} is outside {lo}..{hi}")
    return v


def u8(v: int) -> bytes:
    return _int_check(v, 0, 0xFF, "U8").to_bytes(1, "little")


def u16(v: int) -> bytes:
    return _int_check(v, 0, 0xFFFF, "U16").to_bytes(2, "little")


def u32(v: int) -> bytes:
    return _int_check(v, 0, 0xFFFFFFFF, "U32").to_bytes(4, "little")


def u64(v: int) -> bytes:
    return _int_check(v, 0, 2**64 - 1, "U64").to_bytes(8, "little")


def i64(v: int) -> bytes:
    return _int_check(v, -(2**63), M64, "I64").to_bytes(8, "little", signed=True)


def frame(domain: str) -> bytes:
    """A domain string (IM-152): ``U32`` length, then the ASCII bytes."""
    data = domain.encode("ascii")
    return u32(len(data)) + data


def _text(s: str, what: str) -> bytes:
    """``U32`` length and UTF-8."""
    if not isinstance(s, str):
        raise TypeError(f"{what} must be a str")
    data = s.encode("utf-8")
    return u32(len(data)) + data


# ---------------------------------------------------------------------------
# Z (IM-145)

def _z_len(v: int) -> int:
    if v == 0:
        return 0
    magnitude_bits = v.bit_length() if v > 0 else (~v).bit_length()
    return (magnitude_bits + 1 + 7) // 8   # one sign bit, rounded up to bytes


def encode_z(v: int) -> bytes:
    """``U32`` byte count ``n``, then ``n`` bytes of minimal little-endian two's complement."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"Z must be an int, not {type(v).__name__}")
    n = _z_len(v)
    if n > 0xFFFFFFFF:
        raise ValueError(f"a Z of {n} bytes does not fit the U32 byte count")
    return u32(n) + v.to_bytes(n, "little", signed=True)


# ---------------------------------------------------------------------------
# Descriptors (IM-146) and payloads (IM-145)

def _kind(desc: Any) -> str:
    if not isinstance(desc, tuple) or not desc or not isinstance(desc[0], str):
        raise TypeError(f"a type descriptor is a tuple whose first item names its kind, not {desc!r}")
    return desc[0]


def _arity(desc: tuple, n: int) -> None:
    if len(desc) != n:
        raise ValueError(f"descriptor {desc[0]!r} takes {n - 1} items, got {desc!r}")


def _element_size(desc: tuple) -> int | None:
    """Bytes of one fixed-size payload; None for a struct whose fields are unknown."""
    kind = desc[0]
    if kind == "bool":
        return 1
    if kind == "int":
        return desc[2] // 8
    if kind == "fixed":
        return desc[1] // 8
    if kind == "handle":
        return HANDLE_SIZE
    if kind == "array":
        elem = _element_size(desc[1])
        if elem is None:
            return None
        size = elem
        for e in desc[2]:
            size *= e
        return size
    if kind == "struct":
        if desc[2] is None:
            return None
        total = 0
        for f in desc[2]:
            s = _element_size(f)
            if s is None:
                return None
            total += s
        return total
    raise ValueError(f"{kind!r} has no fixed-size payload")


def payload_size(desc: tuple) -> int | None:
    """The payload size of a fixed-size type in bytes (None for Z, views, redacted values)."""
    if desc[0] in ("z", "view", "redacted"):
        return None
    return _element_size(desc)


def _check_element(desc: Any, where: str) -> None:
    kind = _kind(desc)
    if kind not in _ELEMENT_KINDS:
        raise ValueError(f"the element of {where} must be Bool, an integer, fixed point or a struct, not {kind!r}")


def _check_field(desc: Any) -> None:
    kind = _kind(desc)
    if kind == "array":
        _check_element(desc[1], "a struct field array")
    elif kind not in _ELEMENT_KINDS:
        raise ValueError(f"a struct field must be Bool, an integer, fixed point, a struct or an array, not {kind!r}")


def encode_desc(desc: tuple) -> bytes:
    """The type descriptor of IM-146."""
    kind = _kind(desc)
    if kind == "bool":
        _arity(desc, 1)
        return bytes([T_BOOL])
    if kind == "z":
        _arity(desc, 1)
        return bytes([T_Z])
    if kind == "handle":
        _arity(desc, 1)
        return bytes([T_HANDLE])
    if kind == "int":
        _arity(desc, 3)
        tag = _INT_TAG.get((desc[1], desc[2])) if isinstance(desc[1], bool) else None
        if tag is None:
            raise ValueError(f"no integer type {desc!r}: signed 8..1024 or unsigned 8..64 bits")
        return bytes([tag])
    if kind == "fixed":
        _arity(desc, 3)
        _, w, f = desc
        if w not in _Q_STORAGE_TAG:
            raise ValueError(f"fixed-point storage must be 8, 16, 32 or 64 bits, not {w!r}")
        _int_check(f, 0, w - 1, f"the fraction bits of Q with {w}-bit storage")
        return bytes([T_Q, _Q_STORAGE_TAG[w]]) + u16(f)
    if kind == "array":
        _arity(desc, 3)
        _, elem, extents = desc
        _check_element(elem, "an array")
        if not isinstance(extents, tuple) or not 1 <= len(extents) <= MAX_RANK:
            raise ValueError(f"array extents must be a tuple of 1 to {MAX_RANK} ints, not {extents!r}")
        out = [bytes([T_ARRAY]), encode_desc(elem), u8(len(extents))]
        for e in extents:
            out.append(i64(_int_check(e, 0, M64, "an array extent")))
        size = _element_size(desc)
        if size is not None and size > M64:
            raise ValueError(f"the payload of {desc!r} is {size} bytes, more than M64")
        return b"".join(out)
    if kind == "view":
        _arity(desc, 7)
        _, elem, buffer_id, generation, origin, dims, perm = desc
        _check_element(elem, "a view")
        if not isinstance(dims, tuple) or not 1 <= len(dims) <= MAX_RANK:
            raise ValueError(f"view dims must be a tuple of 1 to {MAX_RANK} (extent, lower, stride), not {dims!r}")
        out = [bytes([T_VIEW]), encode_desc(elem), u64(buffer_id), u64(generation), u8(len(dims)), i64(origin)]
        for d in dims:
            if not isinstance(d, tuple) or len(d) != 3:
                raise ValueError(f"a view dimension is (extent, lower, stride), not {d!r}")
            out.append(i64(_int_check(d[0], 0, M64, "a view extent")))
            out.append(i64(d[1]))
            out.append(i64(d[2]))
        out.append(u8(_int_check(perm, 0, 1, "the view permission")))
        return b"".join(out)
    if kind == "struct":
        _arity(desc, 3)
        _, qname, fields = desc
        if fields is not None:
            if not isinstance(fields, tuple):
                raise ValueError(f"struct fields must be a tuple of descriptors, not {fields!r}")
            for f in fields:
                _check_field(f)
                encode_desc(f)
        return bytes([T_STRUCT]) + _text(qname, "a struct name")
    if kind == "redacted":
        _arity(desc, 2)
        if _kind(desc[1]) == "redacted":
            raise ValueError("a redacted value does not nest")
        return bytes([T_REDACTED]) + encode_desc(desc[1])
    raise ValueError(f"unknown descriptor kind {kind!r}")


def _encode_into(desc: tuple, value: Any, out: list) -> None:
    kind = desc[0]
    if kind == "bool":
        if value is True or value is False or (type(value) is int and value in (0, 1)):
            out.append(b"\x01" if value else b"\x00")
            return
        raise ValueError(f"a Bool is True or False, not {value!r}")
    if kind == "int":
        _, signed, bits = desc
        lo, hi = (-(2**(bits - 1)), 2**(bits - 1) - 1) if signed else (0, 2**bits - 1)
        out.append(_int_check(value, lo, hi, f"{'I' if signed else 'U'}{bits}")
                   .to_bytes(bits // 8, "little", signed=signed))
        return
    if kind == "fixed":
        w = desc[1]
        out.append(_int_check(value, -(2**(w - 1)), 2**(w - 1) - 1, f"a Q raw value ({w}-bit storage)")
                   .to_bytes(w // 8, "little", signed=True))
        return
    if kind == "z":
        out.append(encode_z(value))
        return
    if kind == "handle":
        if not isinstance(value, (list, tuple)) or len(value) != 5:
            raise ValueError(f"a handle value is (slot, length, generation, container, kind), not {value!r}")
        slot, length, gen, cont, hk = value
        out += [u64(slot), i64(length), u64(gen), u32(cont), u8(hk)]
        return
    if kind == "array":
        _, elem, extents = desc

        def walk(v: Any, depth: int) -> None:
            if not isinstance(v, (list, tuple)) or len(v) != extents[depth]:
                raise ValueError(f"array value at depth {depth} must be a list of {extents[depth]} items")
            if depth + 1 == len(extents):
                for x in v:
                    _encode_into(elem, x, out)
            else:
                for x in v:
                    walk(x, depth + 1)

        walk(value, 0)
        return
    if kind == "struct":
        fields = desc[2]
        if fields is None:
            raise ValueError(f"struct {desc[1]!r} has no field descriptors, so its payload cannot be written")
        if not isinstance(value, (list, tuple)) or len(value) != len(fields):
            raise ValueError(f"struct {desc[1]!r} value must be a list of {len(fields)} field values")
        for f, v in zip(fields, value):
            _encode_into(f, v, out)
        return
    if kind in ("view", "redacted"):
        if value is not None:
            raise ValueError(f"a {kind} has no payload; its value is None")
        return
    raise ValueError(f"unknown descriptor kind {kind!r}")


def encode_payload(desc: tuple, value: Any) -> bytes:
    """The untagged payload of IM-145 (validates ``desc`` too)."""
    encode_desc(desc)
    out: list = []
    _encode_into(desc, value, out)
    return b"".join(out)


def encode_tagged(desc: tuple, value: Any) -> bytes:
    """A tagged value (IM-147): the descriptor, then the payload."""
    head = encode_desc(desc)
    out: list = [head]
    _encode_into(desc, value, out)
    return b"".join(out)


# ---------------------------------------------------------------------------
# Decoding (IM-148)

class Reader:
    """A cursor over untrusted canonical bytes; every read checks the bytes remaining."""

    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf: bytes | bytearray | memoryview, pos: int = 0):
        if not isinstance(buf, bytes):
            buf = bytes(buf)
        if isinstance(pos, bool) or not isinstance(pos, int) or not 0 <= pos <= len(buf):
            raise ValueError(f"position {pos!r} is outside the {len(buf)}-byte input")
        self.buf = buf
        self.pos = pos
        self.end = len(buf)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def take(self, n: int, what: str) -> bytes:
        if n > self.end - self.pos:
            raise DecodeError(self.pos, "IM-148 truncated input",
                              f"{what} needs {n} bytes, {self.end - self.pos} remain")
        data = self.buf[self.pos:self.pos + n]
        self.pos += n
        return data

    def uint(self, n: int, what: str) -> int:
        return int.from_bytes(self.take(n, what), "little")

    def sint(self, n: int, what: str) -> int:
        return int.from_bytes(self.take(n, what), "little", signed=True)

    def u8(self, what: str) -> int:
        return self.uint(1, what)

    def u16(self, what: str) -> int:
        return self.uint(2, what)

    def u32(self, what: str) -> int:
        return self.uint(4, what)

    def u64(self, what: str) -> int:
        return self.uint(8, what)

    def i64(self, what: str) -> int:
        return self.sint(8, what)

    def length(self, what: str, *, limit: int | None = None, rule: str = "") -> int:
        """A ``U32`` length, checked against ``limit`` and then against the bytes remaining."""
        at = self.pos
        n = self.u32(f"the length of {what}")
        if limit is not None and n > limit:
            raise DecodeError(at, rule or "length bound", f"{what} has {n} bytes, more than {limit}")
        if n > self.remaining:
            raise DecodeError(at, "IM-148 length larger than the bytes remaining",
                              f"{what} announces {n} bytes, {self.remaining} remain")
        return n

    def utf8(self, what: str, *, limit: int | None = None, rule: str = "") -> str:
        n = self.length(what, limit=limit, rule=rule)
        at = self.pos
        data = self.take(n, what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError(at + e.start, "invalid UTF-8", f"{what}: {e.reason}") from None

    def presence(self, what: str) -> bool:
        at = self.pos
        b = self.u8(f"the presence byte of {what}")
        if b > 1:
            raise DecodeError(at, "presence byte not 00 or 01", f"{what} has presence byte {b:#04x}")
        return b == 1

    def finish(self) -> None:
        if self.pos != self.end:
            raise DecodeError(self.pos, "IM-148 trailing bytes", f"{self.end - self.pos} bytes after the end")


def read_z(r: Reader, bound: int = Z_BOUND, what: str = "Z") -> int:
    """A Z payload: bound on the count, then the bytes remaining, then minimality."""
    at = r.pos
    n = r.u32(f"the byte count of {what}")
    if n > bound:
        raise DecodeError(at, "IM-148 Z too long", f"{what} has {n} bytes, more than the bound of {bound}")
    data = r.take(n, f"{what} ({n} bytes)")
    if n == 1 and data[0] == 0:
        raise DecodeError(at, "IM-145 non-minimal Z", f"{what}: zero is written with n = 0, not one 00 byte")
    if n >= 2:
        top, nxt = data[-1], data[-2]
        if (top == 0x00 and nxt < 0x80) or (top == 0xFF and nxt >= 0x80):
            raise DecodeError(at, "IM-145 non-minimal Z", f"{what}: redundant sign byte {top:02x} in {n} bytes")
    return int.from_bytes(data, "little", signed=True)


def decode_z(buf: bytes, pos: int = 0, bound: int = Z_BOUND) -> tuple[int, int]:
    """Decode the untagged Z at ``pos``; returns ``(value, newpos)``."""
    r = Reader(buf, pos)
    v = read_z(r, bound)
    return v, r.pos


def read_desc(r: Reader, *, in_fault_record: bool = False,
              structs: Mapping[str, Sequence[tuple]] | None = None, role: str = "value") -> tuple:
    """A type descriptor.  ``role`` is ``value``, ``element`` (of an array or a view) or ``redacted``."""
    at = r.pos
    tag = r.u8("a type tag")
    if tag == T_BOOL:
        return ("bool",)
    if tag == T_Z:
        if role == "element":
            raise DecodeError(at, "element type", "Z is not an array or view element")
        return ("z",)
    if tag == T_HANDLE:
        return ("handle",)
    if tag in _TAG_INT:
        signed, bits = _TAG_INT[tag]
        return ("int", signed, bits)
    if tag == T_Q:
        st_at = r.pos
        st = r.u8("the Q storage tag")
        if st not in _Q_TAG_STORAGE:
            raise DecodeError(st_at, "IM-148 Q storage tag not 11 to 14", f"storage tag {st:02x}")
        w = _Q_TAG_STORAGE[st]
        f_at = r.pos
        f = r.u16("the Q fraction bits")
        if f > w - 1:
            raise DecodeError(f_at, "IM-148 Q fraction above w - 1",
                              f"f = {f} on {w}-bit storage leaves i = {w - f} < 1")
        return ("fixed", w, f)
    if tag in _TERNARY:
        raise DecodeError(at, "unsupported tag", f"tag {tag:02x} ({_TERNARY[tag]}): its payload belongs to "
                                                 "the ternary section, which this decoder does not read")
    if tag == T_ARRAY:
        if role == "element":
            raise DecodeError(at, "element type", "an array is not an array or view element")
        elem = read_desc(r, in_fault_record=in_fault_record, structs=structs, role="element")
        extents = tuple(e for e, _ in _read_dims(r, 1, "array"))
        desc = ("array", elem, extents)
        size = _element_size(desc)
        if size is not None and size > M64:
            raise DecodeError(at, "IM-148 array payload size exceeds M64",
                              f"{' x '.join(map(str, extents))} elements of {_element_size(elem)} bytes")
        return desc
    if tag == T_VIEW:
        if not in_fault_record:
            raise DecodeError(at, "IM-148 tag 61 outside a fault record", "a view identity occurs only in a fault record")
        if role == "element":
            raise DecodeError(at, "element type", "a view is not an array or view element")
        elem = read_desc(r, in_fault_record=in_fault_record, structs=structs, role="element")
        buffer_id = r.u64("the view buffer identifier")
        generation = r.u64("the view generation")
        rank_at = r.pos
        rank = r.u8("the view rank")
        _check_rank(rank, rank_at, "view")
        origin = r.i64("the view origin offset")
        dims = _read_dims(r, 3, "view", rank=rank, rank_at=rank_at)
        perm_at = r.pos
        perm = r.u8("the view permission")
        if perm > 1:
            raise DecodeError(perm_at, "IM-146 view permission not 00 or 01", f"permission byte {perm:02x}")
        return ("view", elem, buffer_id, generation, origin, dims, perm)
    if tag == T_STRUCT:
        qname = r.utf8("a struct name")
        fields = None
        if structs is not None and qname in structs:
            fields = tuple(structs[qname])
            for f in fields:          # the caller's layout, not the input: a wrong one is a ValueError
                _check_field(f)
                encode_desc(f)
        return ("struct", qname, fields)
    if tag == T_REDACTED:
        if not in_fault_record:
            raise DecodeError(at, "IM-148 tag 7f outside a fault record", "a redacted value occurs only in a fault record")
        if role != "value":
            raise DecodeError(at, "redacted placement", f"a redacted value is not allowed as {role} type")
        inner = read_desc(r, in_fault_record=in_fault_record, structs=structs, role="redacted")
        return ("redacted", inner)
    raise DecodeError(at, "IM-148 unknown tag", f"type tag {tag:02x}")


def _check_rank(rank: int, at: int, what: str) -> None:
    if not 1 <= rank <= MAX_RANK:
        raise DecodeError(at, f"IM-148 {what} rank not 1 to {MAX_RANK}", f"rank {rank}")


def _read_dims(r: Reader, per: int, what: str, *, rank: int | None = None, rank_at: int = 0):
    """Per dimension ``per`` I64 values, the first an extent that must not be negative."""
    if rank is None:
        rank_at = r.pos
        rank = r.u8(f"the {what} rank")
        _check_rank(rank, rank_at, what)
    if rank * 8 * per > r.remaining:
        raise DecodeError(rank_at, "IM-148 count larger than the bytes remaining",
                          f"{what} rank {rank} needs {rank * 8 * per} bytes, {r.remaining} remain")
    dims = []
    for k in range(rank):
        e_at = r.pos
        e = r.i64(f"{what} extent {k}")
        if e < 0:
            raise DecodeError(e_at, "IM-148 negative extent", f"{what} extent {k} is {e}")
        if per == 1:
            dims.append((e, None))
        else:
            dims.append((e, r.i64(f"{what} lower bound {k}"), r.i64(f"{what} stride {k}")))
    return tuple(dims)


def _nest(flat: list, extents: tuple) -> list:
    if len(extents) == 1:
        return flat
    step = 1
    for e in extents[1:]:
        step *= e
    return [_nest(flat[i * step:(i + 1) * step], extents[1:]) for i in range(extents[0])]


def _nested_lists(extents: tuple) -> int:
    count, prefix = 1, 1
    for e in extents[:-1]:
        if e == 0:
            break
        prefix *= e
        count += prefix
    return count


def _read_scalar_run(r: Reader, desc: tuple, count: int) -> list:
    """``count`` consecutive payloads of a Bool, integer or fixed-point type."""
    kind = desc[0]
    if kind == "bool":
        at = r.pos
        data = r.take(count, "Bool payloads")
        for k, b in enumerate(data):
            if b > 1:
                raise DecodeError(at + k, "IM-145 invalid Bool byte", f"Bool byte {b:02x}")
        return [b == 1 for b in data]
    if kind == "int":
        size, signed = desc[2] // 8, desc[1]
    else:
        size, signed = desc[1] // 8, True
    data = r.take(size * count, "payloads")
    return [int.from_bytes(data[k:k + size], "little", signed=signed) for k in range(0, size * count, size)]


def read_payload(r: Reader, desc: tuple, *, z_bound: int = Z_BOUND, whole: bool = False) -> Any:
    """The payload for ``desc``; ``whole`` says the payload must use every byte remaining."""
    kind = desc[0]
    if kind in ("bool", "int", "fixed"):
        return _read_scalar_run(r, desc, 1)[0]
    if kind == "handle":
        return read_handle(r)
    if kind == "z":
        return read_z(r, z_bound)
    if kind in ("view", "redacted"):
        return None
    at = r.pos
    size = _element_size(desc)
    if size is None:
        raise DecodeError(at, "struct layout unknown",
                          f"the payload of struct {_unknown_struct(desc)!r} needs its field layout (pass structs=)")
    if size > r.remaining:
        raise DecodeError(at, "IM-148 payload size larger than the bytes remaining",
                          f"{kind} payload of {size} bytes, {r.remaining} remain")
    if whole and size != r.remaining:
        raise DecodeError(at, "IM-148 payload size differs from the bytes remaining",
                          f"{kind} payload of {size} bytes, {r.remaining} remain")
    if kind == "array":
        _, elem, extents = desc
        if _nested_lists(extents) > MAX_NESTED_LISTS:
            raise DecodeError(at, "implementation limit",
                              f"a zero-size array of extents {extents} needs more than {MAX_NESTED_LISTS} nested lists")
        count = 1
        for e in extents:
            count *= e
        if elem[0] == "struct":
            flat = [_read_struct(r, elem) for _ in range(count)]
        elif elem[0] == "handle":
            flat = [read_handle(r) for _ in range(count)]
        else:
            flat = _read_scalar_run(r, elem, count)
        return _nest(flat, extents)
    return _read_struct(r, desc)


def read_handle(r: Reader) -> tuple:
    """A handle payload (ours, docs/encodings.md): (slot, length, generation, container, kind); the kind is 0
    (null: every field 0), 1 (arena) or 2 (pool; length 1), the length not negative."""
    at = r.pos
    slot = r.u64("the handle slot")
    length = r.i64("the handle length")
    gen = r.u64("the handle generation")
    cont = r.u32("the handle container")
    hk = r.u8("the handle kind")
    if hk > 2:
        raise DecodeError(at, "handle kind not 0 to 2", f"handle kind {hk}")
    if hk == 0 and (slot, length, gen, cont) != (0, 0, 0, 0):
        raise DecodeError(at, "null handle not all zero", f"null handle ({slot}, {length}, {gen}, {cont})")
    if hk != 0 and cont == 0:
        raise DecodeError(at, "handle container 0", "a non-null handle names a container from 1")
    if length < 0 or (hk == 2 and length != 1):
        raise DecodeError(at, "handle length out of range", f"length {length} for kind {hk}")
    return (slot, length, gen, cont, hk)


def _unknown_struct(desc: tuple) -> str | None:
    """The name of the first struct in ``desc`` whose fields are unknown."""
    if desc[0] == "array":
        return _unknown_struct(desc[1])
    if desc[0] == "struct":
        if desc[2] is None:
            return desc[1]
        for f in desc[2]:
            name = _unknown_struct(f)
            if name is not None:
                return name
    return None


def _read_struct(r: Reader, desc: tuple) -> list:
    return [read_payload(r, f) for f in desc[2]]


def read_tagged(r: Reader, *, in_fault_record: bool = False, z_bound: int = Z_BOUND,
                structs: Mapping[str, Sequence[tuple]] | None = None, whole: bool = False) -> tuple[tuple, Any]:
    desc = read_desc(r, in_fault_record=in_fault_record, structs=structs)
    return desc, read_payload(r, desc, z_bound=z_bound, whole=whole)


def decode_tagged(buf: bytes, pos: int = 0, *, in_fault_record: bool = False, z_bound: int = Z_BOUND,
                  structs: Mapping[str, Sequence[tuple]] | None = None) -> tuple[tuple, Any, int]:
    """Decode one tagged value at ``pos``; returns ``(desc, value, newpos)``.

    An array's payload must fit in the bytes remaining; bytes after the value are
    left to the caller.  Raises :class:`DecodeError`.
    """
    r = Reader(buf, pos)
    desc, value = read_tagged(r, in_fault_record=in_fault_record, z_bound=z_bound, structs=structs)
    return desc, value, r.pos


def decode_tagged_exact(buf: bytes, *, in_fault_record: bool = False, z_bound: int = Z_BOUND,
                        structs: Mapping[str, Sequence[tuple]] | None = None) -> tuple[tuple, Any]:
    """Decode ``buf`` as exactly one tagged value; returns ``(desc, value)``.

    An array's payload size must equal the bytes remaining after its descriptor,
    and no byte may follow the value.
    """
    r = Reader(buf, 0)
    desc, value = read_tagged(r, in_fault_record=in_fault_record, z_bound=z_bound, structs=structs, whole=True)
    r.finish()
    return desc, value


# ---------------------------------------------------------------------------
# Hashing and identities (IM-154, IM-157, IM-158)

def sha256(data: bytes) -> bytes:
    """SHA-256 (IM-154); the tests check it against the standard vectors."""
    return hashlib.sha256(data).digest()


def revision_identity(profile: str, runtime_contract: str, modules: Iterable[tuple[str, bytes]]) -> bytes:
    """IM-157: SHA-256 over the domain string, profile, runtime contract and the modules sorted by path bytes."""
    entries = []
    for path, sir in modules:
        entries.append((path.encode("utf-8"), bytes(sir)))
    entries.sort(key=lambda e: e[0])
    for a, b in zip(entries, entries[1:]):
        if a[0] == b[0]:
            raise ValueError(f"module path {a[0].decode('utf-8')!r} occurs twice")
    out = [frame(DOMAIN_REVISION_V1), frame(profile), frame(runtime_contract), u32(len(entries))]
    for path, sir in entries:
        out.append(u32(len(path)) + path)
        out.append(u64(len(sir)) + sir)
    return sha256(b"".join(out))


def encode_args(entry: str, args: Sequence[tuple[tuple, Any]]) -> bytes:
    """IM-158: the canonical arguments of an entry (tagged values, no views or redacted values)."""
    out = [frame(DOMAIN_ARGS_V1), _text(entry, "the entry identifier"), u32(len(args))]
    for desc, value in args:
        if _kind(desc) in ("view", "redacted"):
            raise ValueError(f"an argument is a value, not a {desc[0]}")
        out.append(encode_tagged(desc, value))
    return b"".join(out)


def args_hash(entry: str, args: Sequence[tuple[tuple, Any]]) -> bytes:
    return sha256(encode_args(entry, args))
