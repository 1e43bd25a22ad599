"""The canonical fault record, layout version 2 (SPEC-01P.1 IM-149), and its decoder (IM-148).

Layout, in order::

    domain      U32 20, "cint-core-1/fault/v2"
    code        U16                                  (IM-104)
    operation   U32 length, ASCII, at most 64 bytes   (IM-106)
    operands    U32 count (at most 8), tagged values
    exact       presence byte, then tagged Z (0f), or redacted Z (7f 0f, IM-109)
    limit       presence byte, then a tagged value
    position    path (U32 length, UTF-8, at most 1024 bytes), line U32, column U32
    revision    presence byte, then 32 bytes
    source map  presence byte, then 32 bytes
    address     presence byte, then kernel name (U32 length, UTF-8), dispatch I64,
                phase U8 (0 entry, 1 work-item, 2 epilogue), presence byte and, in
                the work-item phase only, work-item index I64 and step ordinal I64
    stack       U32 count, then positions, outermost first (IM-107)

The record kind is not in the bytes; the reader passes it (IM-148).  Z bounds
(IM-108): a run-time record allows 257 bytes for every Z; a compile-time record
allows 513 bytes for an operand Z and 520 for ``exact`` (a Z ``limit`` stays at 257).

Checks of ours beyond the layout, each a rule the spec states elsewhere:
the code is one of IM-104; the dispatch number, work-item index and step
ordinal count from 0 (IM-112, IM-113), so a negative one is rejected.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .codes import DOMAIN_FAULT_V2, FAULT_NAMES
from .encoding import (
    DecodeError, Reader, Z_BOUND, encode_tagged, encode_z, i64, read_desc, read_payload, read_z,
    u8, u16, u32,
)

__all__ = [
    "FaultRecordData", "encode_fault_record", "decode_fault_record",
    "KINDS", "Z_BOUNDS", "MAX_OPERANDS", "MAX_OPERATION_BYTES", "MAX_PATH_BYTES",
]

MAX_OPERANDS = 8
MAX_OPERATION_BYTES = 64
MAX_PATH_BYTES = 1024
DIGEST_BYTES = 32
PHASE_ENTRY, PHASE_WORK_ITEM, PHASE_EPILOGUE = 0, 1, 2

# kind -> (operand Z, exact Z, limit Z) bounds in bytes (IM-108)
Z_BOUNDS = {
    "run-time": (Z_BOUND, Z_BOUND, Z_BOUND),
    "compile-time": (513, 520, Z_BOUND),
}
KINDS = tuple(Z_BOUNDS)

_DOMAIN = DOMAIN_FAULT_V2.encode("ascii")
_DOMAIN_V1 = b"cint-core-1/fault/v1"

@dataclass
class FaultRecordData:
    """The content of a fault record (IM-106); the canonical form is :func:`encode_fault_record`'s bytes.

    ``operands`` and ``limit`` hold ``(descriptor, value)`` pairs (see :mod:`cint_abi.encoding`).
    ``address`` is ``(kernel_name, dispatch, phase, work_item, step)``, with ``work_item``
    and ``step`` ints in phase 1 and ``None`` otherwise.  ``exact_redacted`` marks an
    ``exact`` that IM-109 redacts (``exact`` is then ``None``).
    """

    code: int
    operation: str
    operands: list = field(default_factory=list)
    exact: int | None = None
    limit: tuple | None = None
    path: str = ""
    line: int = 0
    column: int = 0
    revision: bytes | None = None
    source_map: bytes | None = None
    address: tuple | None = None
    stack: list = field(default_factory=list)
    exact_redacted: bool = False


def _bounds(kind: str) -> tuple[int, int, int]:
    try:
        return Z_BOUNDS[kind]
    except KeyError:
        raise ValueError(f"record kind must be one of {KINDS}, not {kind!r}") from None


def _z_len(desc_value: tuple) -> int | None:
    desc, value = desc_value
    if isinstance(desc, tuple) and desc[:1] == ("z",):
        return len(encode_z(value)) - 4
    return None


def _position(path: str, line: int, column: int) -> bytes:
    if not isinstance(path, str):
        raise TypeError("a position's path must be a str")
    data = path.encode("utf-8")
    if len(data) > MAX_PATH_BYTES:
        raise ValueError(f"the path has {len(data)} UTF-8 bytes, more than {MAX_PATH_BYTES}")
    return u32(len(data)) + data + u32(line) + u32(column)


def _digest(d: bytes | None, what: str) -> bytes:
    if d is None:
        return b"\x00"
    if not isinstance(d, (bytes, bytearray)) or len(d) != DIGEST_BYTES:
        raise ValueError(f"{what} must be {DIGEST_BYTES} bytes or None")
    return b"\x01" + bytes(d)


def _nonneg(v: Any, what: str) -> bytes:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{what} must be a non-negative int, not {v!r}")
    return i64(v)


def encode_fault_record(rec: FaultRecordData, kind: str = "run-time") -> bytes:
    """The canonical bytes of ``rec`` (IM-149); refuses content the decoder of ``kind`` would reject."""
    operand_bound, exact_bound, limit_bound = _bounds(kind)
    if rec.code not in FAULT_NAMES:
        raise ValueError(f"unknown fault code {rec.code!r}")
    out = [u32(len(_DOMAIN)), _DOMAIN, u16(rec.code)]

    if not isinstance(rec.operation, str):
        raise TypeError("the operation must be a str")
    op = rec.operation.encode("ascii")
    if len(op) > MAX_OPERATION_BYTES:
        raise ValueError(f"the operation has {len(op)} bytes, more than {MAX_OPERATION_BYTES}")
    out += [u32(len(op)), op]

    if len(rec.operands) > MAX_OPERANDS:
        raise ValueError(f"{len(rec.operands)} operands, more than {MAX_OPERANDS}")
    out.append(u32(len(rec.operands)))
    for k, operand in enumerate(rec.operands):
        n = _z_len(operand)
        if n is not None and n > operand_bound:
            raise ValueError(f"operand {k} is a Z of {n} bytes, more than {operand_bound} ({kind})")
        out.append(encode_tagged(*operand))

    if rec.exact_redacted:
        if rec.exact is not None:
            raise ValueError("a redacted exact has no value: set exact to None")
        out.append(b"\x01\x7f\x0f")
    elif rec.exact is None:
        out.append(b"\x00")
    else:
        z = encode_z(rec.exact)
        if len(z) - 4 > exact_bound:
            raise ValueError(f"exact is a Z of {len(z) - 4} bytes, more than {exact_bound} ({kind})")
        out += [b"\x01\x0f", z]

    if rec.limit is None:
        out.append(b"\x00")
    else:
        n = _z_len(rec.limit)
        if n is not None and n > limit_bound:
            raise ValueError(f"limit is a Z of {n} bytes, more than {limit_bound}")
        out += [b"\x01", encode_tagged(*rec.limit)]

    out.append(_position(rec.path, rec.line, rec.column))
    out.append(_digest(rec.revision, "revision"))
    out.append(_digest(rec.source_map, "source_map"))

    if rec.address is None:
        out.append(b"\x00")
    else:
        if not isinstance(rec.address, tuple) or len(rec.address) != 5:
            raise ValueError("address is (kernel_name, dispatch, phase, work_item, step)")
        name, dispatch, phase, work_item, step = rec.address
        if not isinstance(name, str):
            raise TypeError("the kernel name must be a str")
        data = name.encode("utf-8")
        out += [b"\x01", u32(len(data)), data, _nonneg(dispatch, "the dispatch number")]
        if phase not in (PHASE_ENTRY, PHASE_WORK_ITEM, PHASE_EPILOGUE) or isinstance(phase, bool):
            raise ValueError(f"phase must be 0, 1 or 2, not {phase!r}")
        out.append(u8(phase))
        if phase == PHASE_WORK_ITEM:
            out += [b"\x01", _nonneg(work_item, "the work-item index"), _nonneg(step, "the step ordinal")]
        else:
            if work_item is not None or step is not None:
                raise ValueError("work_item and step are present only in the work-item phase (1)")
            out.append(b"\x00")

    out.append(u32(len(rec.stack)))
    for pos in rec.stack:
        if not isinstance(pos, tuple) or len(pos) != 3:
            raise ValueError(f"a stack position is (path, line, column), not {pos!r}")
        out.append(_position(*pos))
    return b"".join(out)


def _read_position(r: Reader, what: str) -> tuple[str, int, int]:
    path = r.utf8(f"the path of {what}", limit=MAX_PATH_BYTES, rule="IM-106 path longer than 1024 bytes")
    return path, r.u32(f"the line of {what}"), r.u32(f"the column of {what}")


def _read_nonneg(r: Reader, what: str) -> int:
    at = r.pos
    v = r.i64(what)
    if v < 0:
        raise DecodeError(at, "IM-112 negative ordinal", f"{what} is {v}")
    return v


def decode_fault_record(buf: bytes, kind: str = "run-time") -> FaultRecordData:
    """Decode a version 2 record read as ``kind`` (``run-time`` or ``compile-time``); raises DecodeError."""
    operand_bound, exact_bound, limit_bound = _bounds(kind)
    r = Reader(buf, 0)

    at = r.pos
    n = r.length("the domain string")
    domain = r.take(n, "the domain string")
    if domain != _DOMAIN:
        why = "a version 1 record, which this decoder does not read" if domain == _DOMAIN_V1 else repr(domain)
        raise DecodeError(at, "IM-149 domain string not cint-core-1/fault/v2", why)

    at = r.pos
    code = r.u16("the fault code")
    if code not in FAULT_NAMES:
        raise DecodeError(at, "IM-104 unknown fault code", f"code {code}")

    at = r.pos
    n = r.length("the operation", limit=MAX_OPERATION_BYTES, rule="IM-106 operation longer than 64 bytes")
    op = r.take(n, "the operation")
    for k, b in enumerate(op):
        if b >= 0x80:
            raise DecodeError(at + 4 + k, "IM-106 operation not ASCII", f"byte {b:02x}")
    operation = op.decode("ascii")

    at = r.pos
    count = r.u32("the operand count")
    if count > MAX_OPERANDS:
        raise DecodeError(at, "IM-106 more than 8 operands", f"operand count {count}")
    operands = []
    for _ in range(count):
        desc = read_desc(r, in_fault_record=True)
        operands.append((desc, read_payload(r, desc, z_bound=operand_bound)))

    exact = None
    exact_redacted = False
    if r.presence("exact"):
        at = r.pos
        tag = r.u8("the tag of exact")
        if tag == 0x0F:
            exact = read_z(r, exact_bound, "exact")
        elif tag == 0x7F and r.u8("the redacted tag of exact") == 0x0F:
            exact_redacted = True
        else:
            raise DecodeError(at, "IM-106 exact not a Z", "exact must be tagged Z (0f) or redacted Z (7f 0f)")

    limit = None
    if r.presence("limit"):
        desc = read_desc(r, in_fault_record=True)
        limit = (desc, read_payload(r, desc, z_bound=limit_bound))

    path, line, column = _read_position(r, "the position")
    revision = r.take(32, "the revision") if r.presence("revision") else None
    source_map = r.take(32, "the source-map digest") if r.presence("source_map") else None

    address = None
    if r.presence("address"):
        name = r.utf8("the kernel name")
        dispatch = _read_nonneg(r, "the dispatch number")
        at = r.pos
        phase = r.u8("the phase")
        if phase > PHASE_EPILOGUE:
            raise DecodeError(at, "IM-149 phase not 0 to 2", f"phase {phase}")
        at = r.pos
        has_item = r.presence("the work-item fields")
        if has_item != (phase == PHASE_WORK_ITEM):
            raise DecodeError(at, "IM-106 work-item fields present exactly in the work-item phase",
                              f"phase {phase} with presence byte {int(has_item):02x}")
        work_item = step = None
        if has_item:
            work_item = _read_nonneg(r, "the work-item index")
            step = _read_nonneg(r, "the step ordinal")
        address = (name, dispatch, phase, work_item, step)

    at = r.pos
    count = r.u32("the stack count")
    if count * 12 > r.remaining:
        raise DecodeError(at, "IM-148 count larger than the bytes remaining",
                          f"{count} stack positions need at least {count * 12} bytes, {r.remaining} remain")
    stack = [_read_position(r, f"stack position {k}") for k in range(count)]
    r.finish()
    return FaultRecordData(code=code, operation=operation, operands=operands, exact=exact, limit=limit,
                           path=path, line=line, column=column, revision=revision, source_map=source_map,
                           address=address, stack=stack, exact_redacted=exact_redacted)
