"""The canonical state of a context and its hash (SPEC-03P.1 5.1 M-3, M-5; SPEC-01P.1 IM-156).

The bytes, in this order (all integers little-endian; no address anywhere, M-2, M-8):

    frame("cint-core-1/state/v1")
    revision                      32 bytes (IM-157)
    profile                       U32 length, ASCII ("cint-core-1")
    globals                       U64 count, then per module variable, sorted by the bytes of its
                                  fully qualified name: name (U32 length, UTF-8), tagged value
    arena block                   U64 length, then bytes (0 without arenas; cint_abi.arenas_pools)
    pool block                    U64 length, then bytes (0 without pools; cint_abi.arenas_pools)
    registry block                U64 length, then: frame("cint-core-1/registry/v1"), U64 count,
                                  then per registration, by ascending identifier: id U64,
                                  generation U64, element type descriptor (IM-146), extent I64,
                                  ownership U8 (0 context, 1 runtime, 2 borrowed), ceiling U8
                                  (0 read, 1 write), publish mode U8 (0 none, 1 copy)
    counters                      next buffer id U64, next arena id U64, next pool id U64,
                                  entries made U64
    fuel model                    U32 length, ASCII ("fuel-v1")
    fault record                  presence U8, then U32 length and the IM-149 bytes
    effect-log position           I64 (effects completed; clearing a fault does not advance it)

The registry block's layout is our decision (SPEC-01P.2 is not public; docs/encodings.md). The
state hash is SHA-256 over these bytes (M-5); the domain string frames them.

:func:`decode_state` is the strict decoder (H-19a): it raises :class:`cint_abi.encoding.DecodeError`
(a ValueError) naming the rule broken and the byte offset of the offending field.  The rules
beyond the layout, each ours where SPEC-01P.2 is silent: globals strictly increasing by the
bytes of their names; the arena and pool block rules of cint_abi.arenas_pools (its module
docstring), ids below their counters; registrations by strictly increasing nonzero identifier,
generation 1 to 2^63 - 1,
ownership runtime (1) or borrowed (2) (a registration of context memory, 0, would need arena or
pool state to hold it),
element type as for an array element (IM-146), extent 0 to 2^63 - 1 with a byte size within
I64, ceiling and publish mode 0 or 1, publish mode copy only with a write
ceiling; every identifier counter at least 1 and the next buffer identifier above every
registration's; the fault record decodes as a run-time record (IM-148); the effect count is
not negative; no byte after the last field.

Struct payloads (IM-146 names a struct only): ``decode_state(data, structs=...)`` takes the mapping
:func:`cint_abi.encoding.read_tagged` takes, qualified struct name -> field descriptors in declaration
order (a nested struct field fully described, an array field with its extents).  A global whose value
holds a struct not in the mapping is refused with DecodeError, rule ``struct layout unknown``, at the
offset of its payload.  ``raw_structs=True`` (the read-only view of :func:`cint_abi.checkpoint.read_checkpoint`)
keeps such a global instead, its value a :class:`RawPayload` (the payload bytes): its record size is
the smallest for which the rest of the state decodes, one size per struct name; ``encode_state``
writes a RawPayload back as it was read.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import List, Mapping, Optional, Sequence, Tuple

from .codes import DOMAIN_STATE_V1, FUEL_MODEL, PROFILE
from .encoding import (M64, DecodeError, Reader, _element_size, encode_desc, encode_tagged, frame, i64, read_desc,
                       read_payload, u8, u32, u64)

from .arenas_pools import (ArenaState, PoolState, arena_block, check_counters, decode_arena_block,  # noqa: E402
                           decode_pool_block, pool_block)
from .arenas_pools import _domain as _expect_text  # noqa: E402

DOMAIN_REGISTRY_V1 = "cint-core-1/registry/v1"
MAX_RAW_TRIES = 1 << 16        # implementation limit on the record sizes raw_structs tries, all globals together


class RawPayload(bytes):
    """The payload of a global that holds a struct whose layout a decoder was not given (raw_structs=True):
    the bytes, ``struct`` (the qualified name), ``count`` (records) and ``record_size`` (bytes each, inferred;
    None for no record)."""

    def __new__(cls, data, struct, count, record_size):
        self = super().__new__(cls, data)
        self.struct = struct
        self.count = count
        self.record_size = record_size
        return self

    def __repr__(self):
        return "RawPayload(%s, %d records, %d bytes)" % (self.struct, self.count, len(self))
OWNERS = {"context": 0, "runtime": 1, "borrowed": 2}
OWNER_NAMES = {v: k for k, v in OWNERS.items()}


@dataclass
class Registration:
    id: int
    generation: int
    elem: tuple            # element type descriptor (cint_abi.encoding form)
    extent: int
    owner: str             # context, runtime, borrowed
    writable: bool
    publish: bool


# M-10, M-11 (docs/encodings.md): buffer, arena and pool identifiers are 1 .. 2**64 - 2.  A counter holds the
# next identifier; at IDENTIFIER_EXHAUSTED (2**64 - 1) none is left, and registering memory or making an arena
# answers CINT_RESOURCE and changes nothing, so a counter never wraps.  Such a counter is a valid state (a restore
# takes the greater counter) and encodes as it is.
IDENTIFIER_EXHAUSTED = 2**64 - 1


@dataclass
class State:
    revision: bytes
    globals: List[Tuple[str, tuple, object]] = field(default_factory=list)   # (qualified name, desc, value)
    registry: List[Registration] = field(default_factory=list)
    next_buffer: int = 1
    next_arena: int = 1
    next_pool: int = 1
    entries: int = 0
    fault: Optional[bytes] = None
    effects: int = 0
    arenas: List[ArenaState] = field(default_factory=list)   # cint_abi.arenas_pools (layout ours)
    pools: List[PoolState] = field(default_factory=list)


def _text(s: str) -> bytes:
    b = s.encode("utf-8")
    return u32(len(b)) + b


def registry_block(regs: List[Registration]) -> bytes:
    out = [frame(DOMAIN_REGISTRY_V1), u64(len(regs))]
    for r in sorted(regs, key=lambda r: r.id):
        out += [u64(r.id), u64(r.generation), encode_desc(r.elem), i64(r.extent), u8(OWNERS[r.owner]),
                u8(1 if r.writable else 0), u8(1 if r.publish else 0)]
    return b"".join(out)


def encode_state(st: State) -> bytes:
    if len(st.revision) != 32:
        raise ValueError("a revision identity is 32 bytes")
    out = [frame(DOMAIN_STATE_V1), bytes(st.revision), _text(PROFILE)]
    gl = sorted(st.globals, key=lambda g: g[0].encode("utf-8"))
    out.append(u64(len(gl)))
    for name, desc, value in gl:
        if isinstance(value, RawPayload):
            out += [_text(name), encode_desc(desc), bytes(value)]
        else:
            out += [_text(name), encode_tagged(desc, value)]
    reg = registry_block(st.registry)
    ab, pb = arena_block(st.arenas), pool_block(st.pools)
    out += [u64(len(ab)), ab, u64(len(pb)), pb, u64(len(reg)), reg]
    out += [u64(st.next_buffer), u64(st.next_arena), u64(st.next_pool), u64(st.entries), _text(FUEL_MODEL)]
    if st.fault is None:
        out.append(u8(0))
    else:
        out += [u8(1), u32(len(st.fault)), st.fault]
    out.append(i64(st.effects))
    return b"".join(out)


def state_hash(st: State) -> bytes:
    """SHA-256 of the canonical state (M-5)."""
    return hashlib.sha256(encode_state(st)).digest()


# ---------------------------------------------------------------------------
# The strict decoder (H-19a)

def _decode_registry(r: Reader, structs=None) -> List[Registration]:
    _expect_text(r, DOMAIN_REGISTRY_V1, "registry domain string not cint-core-1/registry/v1")
    at = r.pos
    count = r.u64("the registration count")
    if count * 28 > r.remaining:       # id, generation, descriptor (1 byte or more), extent, 3 mode bytes
        raise DecodeError(at, "IM-148 count larger than the bytes remaining",
                          f"{count} registrations need at least {count * 28} bytes, {r.remaining} remain")
    regs: List[Registration] = []
    last = 0
    for k in range(count):
        at = r.pos
        rid = r.u64(f"the identifier of registration {k}")
        if rid == 0 or rid <= last:
            raise DecodeError(at, "registry identifiers nonzero and strictly increasing",
                              f"registration {k} has identifier {rid} after {last}")
        last = rid
        at = r.pos
        gen = r.u64(f"the generation of registration {k}")
        if not 1 <= gen <= M64:
            raise DecodeError(at, "H-19a generation out of range", f"registration {rid} has generation {gen}")
        elem = read_desc(r, role="element", structs=structs)
        at = r.pos
        extent = r.i64(f"the extent of registration {rid}")
        if extent < 0:
            raise DecodeError(at, "M-10 negative extent", f"registration {rid} has extent {extent}")
        size = _element_size(elem)
        if size is not None and size * extent > M64:
            raise DecodeError(at, "registry extent beyond the I64 byte range",
                              f"registration {rid}: {extent} elements of {size} bytes")
        at = r.pos
        owner = r.u8(f"the ownership of registration {rid}")
        if owner > 2:
            raise DecodeError(at, "registry ownership not 0 to 2", f"registration {rid} has ownership {owner}")
        if owner == 0:
            raise DecodeError(at, "registry extents consistent with stored contents",
                              f"registration {rid} is of context memory, and no arena or pool state holds it")
        at = r.pos
        ceiling = r.u8(f"the ceiling of registration {rid}")
        if ceiling > 1:
            raise DecodeError(at, "registry ceiling not 0 or 1", f"registration {rid} has ceiling {ceiling}")
        at = r.pos
        publish = r.u8(f"the publish mode of registration {rid}")
        if publish > 1:
            raise DecodeError(at, "registry publish mode not 0 or 1", f"registration {rid} has publish mode {publish}")
        if publish == 1 and ceiling == 0:
            raise DecodeError(at, "publish mode copy needs a write ceiling", f"registration {rid}")
        regs.append(Registration(id=rid, generation=gen, elem=elem, extent=extent, owner=OWNER_NAMES[owner],
                                 writable=ceiling == 1, publish=publish == 1))
    r.finish()
    return regs


def _global_head(r: Reader, k: int, last: Optional[bytes], structs) -> Tuple[str, bytes, tuple]:
    at = r.pos
    name = r.utf8(f"the name of global {k}")
    key = name.encode("utf-8")
    if last is not None and key <= last:
        raise DecodeError(at, "globals strictly increasing by name bytes", f"{name!r} after {last.decode()!r}")
    return name, key, read_desc(r, structs=structs)


def _unknown_records(desc: tuple) -> Optional[Tuple[str, int]]:
    """(struct name, record count) of a struct or an array of structs whose fields are unknown, or None."""
    if desc[0] == "struct" and desc[2] is None:
        return desc[1], 1
    if desc[0] == "array" and desc[1][0] == "struct" and desc[1][2] is None:
        n = 1
        for e in desc[2]:
            n *= e
        return desc[1][1], n
    return None


def _strict_globals(r: Reader, count: int, structs) -> list:
    out = []
    last = None
    for k in range(count):
        name, last, desc = _global_head(r, k, last, structs)
        try:
            value = read_payload(r, desc)
        except DecodeError as e:
            if e.rule != "struct layout unknown":
                raise
            raise DecodeError(e.offset, e.rule, f"global {name!r}: {e.detail}") from None
        out.append((name, desc, value))
    return out


def _raw_globals(buf: bytes, pos: int, count: int, structs, tail):
    """The globals from ``pos``, a struct payload without a layout kept as a RawPayload, and ``tail(r)`` of
    the bytes after them.  A depth-first search over record sizes (smallest first, one per struct name),
    iterative, at most MAX_RAW_TRIES sizes in all."""
    stack: list = []    # per open choice: [k, payload offset, name, desc, struct, records, next size, last size,
    root = None         # globals before it, sizes before it]; root: the first choice (for the error)
    out: list = []
    sizes: dict = {}
    k = 0
    tries = 0
    while True:
        try:
            r = Reader(buf, pos)
            while k < count:
                name, key, desc = _global_head(r, k, out[-1][0].encode("utf-8") if out else None, structs)
                unknown = _unknown_records(desc)
                if unknown is None:
                    out.append((name, desc, read_payload(r, desc)))
                    k += 1
                    continue
                qn, n = unknown
                if qn in sizes or n == 0:
                    size = sizes.get(qn)
                    data = r.take(n * size if size is not None else 0, f"the payload of global {name!r}")
                    out.append((name, desc, RawPayload(data, qn, n, size)))
                    k += 1
                    continue
                choice = [k, r.pos, name, desc, qn, n, 0, r.remaining // n, len(out), dict(sizes)]
                root = root or choice
                stack.append(choice)
                break
            else:
                return out, tail(r)
        except DecodeError:
            if not stack:
                raise
        while stack:
            c = stack[-1]
            if c[6] > c[7]:
                stack.pop()
                continue
            size = c[6]
            c[6] += 1
            tries += 1
            if tries > MAX_RAW_TRIES:
                raise DecodeError(root[1], "implementation limit",
                                  f"more than {MAX_RAW_TRIES} record sizes tried for structs without a layout "
                                  f"(global {root[2]!r}, struct {root[4]!r}); pass structs=")
            k, at, name, desc, qn, n = c[:6]
            del out[c[8]:]
            sizes = dict(c[9])
            sizes[qn] = size
            out.append((name, desc, RawPayload(buf[at:at + n * size], qn, n, size)))
            k += 1
            pos = at + n * size
            break
        else:
            raise DecodeError(root[1], "struct layout unknown",
                              f"global {root[2]!r}: no record size of struct {root[4]!r} lets the rest of the "
                              "state decode")


def _decode_tail(r: Reader, structs) -> tuple:
    """Everything after the globals: (registrations, counters, entries, fault, effects)."""
    from .faultrecord import decode_fault_record

    blocks = []
    for what, dec in (("arena", decode_arena_block), ("pool", decode_pool_block)):
        at = r.pos
        n = r.u64(f"the {what} block length")
        if n > r.remaining:
            raise DecodeError(at, "IM-148 length larger than the bytes remaining",
                              f"the {what} block announces {n} bytes, {r.remaining} remain")
        start = r.pos
        block = r.take(n, f"the {what} block")
        items = []
        if n:
            try:
                items = dec(Reader(block, 0), structs)
            except DecodeError as e:
                raise DecodeError(start + e.offset, e.rule, e.detail) from None
        blocks.append(items)

    at = r.pos
    n = r.u64("the registry block length")
    if n > r.remaining:
        raise DecodeError(at, "IM-148 length larger than the bytes remaining",
                          f"the registry block announces {n} bytes, {r.remaining} remain")
    start = r.pos
    block = r.take(n, "the registry block")
    try:
        regs = _decode_registry(Reader(block, 0), structs)
    except DecodeError as e:
        raise DecodeError(start + e.offset, e.rule, e.detail) from None

    counters = []
    for what in ("next buffer", "next arena", "next pool"):
        at = r.pos
        v = r.u64(f"the {what} identifier")
        if v == 0:
            raise DecodeError(at, "identifier counter 0", f"the {what} identifier counts from 1")
        counters.append((at, v))
    entries = r.u64("the entry count")
    check_counters(blocks[0], blocks[1], counters[1][1], counters[2][1], counters[1][0], counters[2][0])
    if regs and counters[0][1] <= regs[-1].id:
        raise DecodeError(counters[0][0], "H-19a identifier counter not above every identifier",
                          f"next buffer identifier {counters[0][1]}, registration {regs[-1].id} present")
    _expect_text(r, FUEL_MODEL, "fuel model not fuel-v1")
    fault = None
    if r.presence("the fault record"):
        at = r.pos
        n = r.length("the fault record")
        fstart = r.pos
        fault = r.take(n, "the fault record")
        try:
            decode_fault_record(fault, "run-time")
        except DecodeError as e:
            raise DecodeError(fstart + e.offset, e.rule, "in the fault record: " + e.detail) from None
    at = r.pos
    effects = r.i64("the effect count")
    if effects < 0:
        raise DecodeError(at, "negative effect count", f"{effects} effects")
    r.finish()
    return regs, [v for _, v in counters], entries, fault, effects, blocks[0], blocks[1]


def decode_state(data: bytes, structs: Optional[Mapping[str, Sequence[tuple]]] = None, *,
                 raw_structs: bool = False) -> State:
    """The State of canonical state bytes, checking every structural rule (see the module docstring).

    ``structs`` maps a qualified struct name to its field descriptors (as for read_tagged); a global
    holding a struct not in it is refused (rule ``struct layout unknown``), or with ``raw_structs``
    kept as a RawPayload.  Raises DecodeError (a ValueError) with the offset of the offending field.
    For bytes it accepts, ``encode_state(decode_state(data, ...)) == data``.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("the canonical state is bytes, not %s" % type(data).__name__)
    if structs is not None and not isinstance(structs, Mapping):
        raise TypeError("structs is a mapping of qualified struct name to field descriptors, not %s"
                        % type(structs).__name__)
    buf = bytes(data)
    r = Reader(buf, 0)
    _expect_text(r, DOMAIN_STATE_V1, "state domain string not cint-core-1/state/v1")
    revision = r.take(32, "the revision identity")
    _expect_text(r, PROFILE, "profile not cint-core-1")

    at = r.pos
    count = r.u64("the global count")
    if count * 6 > r.remaining:        # a name length, a tag and a payload byte at least
        raise DecodeError(at, "IM-148 count larger than the bytes remaining",
                          f"{count} globals need at least {count * 6} bytes, {r.remaining} remain")
    if raw_structs:
        globals_, rest = _raw_globals(buf, r.pos, count, structs, lambda rr: _decode_tail(rr, structs))
    else:
        globals_ = _strict_globals(r, count, structs)
        rest = _decode_tail(r, structs)
    regs, counters, entries, fault, effects, arenas, pools = rest
    return State(revision=revision, globals=globals_, registry=regs, next_buffer=counters[0],
                 next_arena=counters[1], next_pool=counters[2], entries=entries, fault=fault, effects=effects,
                 arenas=arenas, pools=pools)
