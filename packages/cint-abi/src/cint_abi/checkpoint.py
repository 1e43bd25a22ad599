"""The checkpoint envelope (SPEC-03P.1 9.2 paragraph 1, H-19, H-19a) and a read-only view of a checkpoint.

A checkpoint is an envelope around the canonical state of :mod:`cint_abi.state`.  The envelope
names the format and the runtime contract and carries the digests of the build; it is not
hashed (the state hash covers the canonical state only).  Its bytes, all integers
little-endian (our layout: SPEC-01P.2 is not public; docs/encodings.md)::

    frame("cint-core-1/checkpoint/v1")   the format name: U32 length, ASCII
    contract                             U32 length, ASCII, such as "cint-rt-3" (1 to 64 bytes)
    digests                              U32 count (at most 64), then per digest, strictly increasing
                                         by name bytes: name (U32 length, UTF-8, 1 to 256 bytes),
                                         32 bytes
    state                                U64 length, then the canonical state bytes (M-3)

and nothing after the state.  :func:`decode_checkpoint` checks all of it and decodes the state
with :func:`cint_abi.state.decode_state`; it raises :class:`cint_abi.encoding.DecodeError` (a
ValueError) naming the rule broken and the byte offset.

:func:`read_checkpoint` gives the read-only view of 9.2 paragraph 4 that ``cint.read_checkpoint``
returns: ``globals`` as a tuple of ``Global(name, type, value)``, ``arenas`` and ``pools``
(tuples of ``Arena(...)`` and ``Pool(...)``, cint_abi.arenas_pools; a handle value is a 5-tuple), ``registry`` as a tuple
of ``RegistryEntry``, ``counters`` and ``fault`` (a FaultRecordData, or None).

A struct payload needs the struct's field layout (IM-146 names a struct only): each function here takes
``structs=``, the mapping :func:`cint_abi.state.decode_state` takes.  ``encode_checkpoint`` and
``decode_checkpoint`` refuse a state holding a struct not in it (DecodeError, rule ``struct layout
unknown``); ``read_checkpoint`` shows such a global's value as a :class:`cint_abi.state.RawPayload` (its
payload bytes) rather than refusing the whole view.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

from .encoding import DecodeError, Reader, frame, u32, u64
from .faultrecord import decode_fault_record
from .state import RawPayload, State, decode_state

__all__ = [
    "FORMAT", "DIGEST_BYTES", "MAX_DIGESTS", "Checkpoint", "encode_checkpoint", "decode_checkpoint",
    "Global", "RegistryEntry", "Counters", "CheckpointView", "read_checkpoint", "type_name",
]

FORMAT = "cint-core-1/checkpoint/v1"
DIGEST_BYTES = 32
MAX_DIGESTS = 64
MAX_DIGEST_NAME = 256
MAX_CONTRACT = 64


@dataclass(frozen=True)
class Checkpoint:
    format: str
    contract: str
    digests: Dict[str, bytes]
    state_bytes: bytes
    state: State


def _digest_items(digests: Union[Mapping[str, bytes], Sequence[Tuple[str, bytes]]]):
    items = list(digests.items()) if isinstance(digests, Mapping) else list(digests)
    if len(items) > MAX_DIGESTS:
        raise ValueError(f"{len(items)} digests, more than {MAX_DIGESTS}")
    out = []
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ValueError(f"a digest is (name, 32 bytes), not {item!r}")
        name, d = item
        if not isinstance(name, str):
            raise TypeError("a digest name is a str")
        key = name.encode("utf-8")
        if not 1 <= len(key) <= MAX_DIGEST_NAME:
            raise ValueError(f"a digest name has 1 to {MAX_DIGEST_NAME} UTF-8 bytes, not {len(key)}")
        if not isinstance(d, (bytes, bytearray)) or len(d) != DIGEST_BYTES:
            raise ValueError(f"digest {name!r} must be {DIGEST_BYTES} bytes")
        out.append((key, bytes(d)))
    out.sort()
    for a, b in zip(out, out[1:]):
        if a[0] == b[0]:
            raise ValueError(f"digest {a[0].decode('utf-8')!r} occurs twice")
    return out


def encode_checkpoint(state: bytes, *, contract: str,
                      digests: Union[Mapping[str, bytes], Sequence[Tuple[str, bytes]]] = (),
                      structs: Optional[Mapping[str, Sequence[tuple]]] = None) -> bytes:
    """The envelope around canonical state bytes; ``state`` is checked with decode_state(state, structs) first."""
    if not isinstance(state, (bytes, bytearray)):
        raise TypeError("the state is the canonical state bytes")
    decode_state(bytes(state), structs)
    if not isinstance(contract, str) or not contract.isascii() or not 1 <= len(contract) <= MAX_CONTRACT:
        raise ValueError(f"the runtime contract is 1 to {MAX_CONTRACT} ASCII characters, not {contract!r}")
    out = [frame(FORMAT), frame(contract)]
    items = _digest_items(digests)
    out.append(u32(len(items)))
    for key, d in items:
        out += [u32(len(key)), key, d]
    out += [u64(len(state)), bytes(state)]
    return b"".join(out)


def decode_checkpoint(data: bytes, structs: Optional[Mapping[str, Sequence[tuple]]] = None, *,
                      raw_structs: bool = False) -> Checkpoint:
    """A Checkpoint from its bytes, checking the envelope and the state (H-19a); raises DecodeError.
    ``structs`` and ``raw_structs`` are decode_state's."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("a checkpoint is bytes, not %s" % type(data).__name__)
    r = Reader(bytes(data), 0)
    at = r.pos
    n = r.length("the format name")
    fmt = r.take(n, "the format name")
    if fmt != FORMAT.encode("ascii"):
        raise DecodeError(at, "checkpoint format not " + FORMAT, f"format name {fmt[:64]!r}")
    at = r.pos
    n = r.length("the runtime contract", limit=MAX_CONTRACT, rule="runtime contract longer than 64 bytes")
    raw = r.take(n, "the runtime contract")
    if n == 0 or any(b < 0x20 or b >= 0x7F for b in raw):
        raise DecodeError(at, "runtime contract not printable ASCII", f"contract {raw!r}")
    contract = raw.decode("ascii")
    at = r.pos
    count = r.u32("the digest count")
    if count > MAX_DIGESTS:
        raise DecodeError(at, "more than 64 digests", f"digest count {count}")
    if count * (5 + DIGEST_BYTES) > r.remaining:
        raise DecodeError(at, "IM-148 count larger than the bytes remaining",
                          f"{count} digests need at least {count * (5 + DIGEST_BYTES)} bytes, {r.remaining} remain")
    digests: Dict[str, bytes] = {}
    last = None
    for k in range(count):
        at = r.pos
        name = r.utf8(f"the name of digest {k}", limit=MAX_DIGEST_NAME, rule="digest name longer than 256 bytes")
        key = name.encode("utf-8")
        if not key:
            raise DecodeError(at, "empty digest name", f"digest {k}")
        if last is not None and key <= last:
            raise DecodeError(at, "digests strictly increasing by name bytes", f"{name!r} after {last.decode()!r}")
        last = key
        digests[name] = r.take(DIGEST_BYTES, f"digest {name!r}")
    at = r.pos
    n = r.u64("the state length")
    if n != r.remaining:
        raise DecodeError(at, "state length not the bytes remaining",
                          f"the state announces {n} bytes, {r.remaining} remain")
    start = r.pos
    state_bytes = r.take(n, "the state")
    try:
        state = decode_state(state_bytes, structs, raw_structs=raw_structs)
    except DecodeError as e:
        raise DecodeError(start + e.offset, e.rule, e.detail) from None
    return Checkpoint(format=FORMAT, contract=contract, digests=digests, state_bytes=state_bytes, state=state)


# ---------------------------------------------------------------------------
# The read-only view (9.2 paragraph 4)

Global = namedtuple("Global", "name type value")
RegistryEntry = namedtuple("RegistryEntry", "id generation type extent owner writable publish")
Counters = namedtuple("Counters", "next_buffer next_arena next_pool entries effects")
Arena = namedtuple("Arena", "id name parent offset type capacity used generation retired contents")
Pool = namedtuple("Pool", "id name type capacity retired slots free")
PoolSlot = namedtuple("PoolSlot", "generation occupied value")


def type_name(desc: tuple) -> str:
    """The source spelling of a descriptor: I64, U8, Bool, Z, Q32.32, I64[3, 4], or a struct's qualified name."""
    kind = desc[0]
    if kind == "bool":
        return "Bool"
    if kind == "z":
        return "Z"
    if kind == "int":
        return ("I%d" if desc[1] else "U%d") % desc[2]
    if kind == "fixed":
        return "Q%d.%d" % (desc[1] - desc[2], desc[2])
    if kind == "array":
        return "%s[%s]" % (type_name(desc[1]), ", ".join(str(e) for e in desc[2]))
    if kind == "struct":
        return desc[1]
    if kind == "handle":
        return "Handle"
    return kind


class CheckpointView:
    """What a checkpoint holds, read-only: decoded by :func:`read_checkpoint`."""

    __slots__ = ("format", "contract", "digests", "revision", "globals", "arenas", "pools", "registry",
                 "counters", "fault", "fault_bytes", "state_bytes")

    def __init__(self, cp: Checkpoint):
        st = cp.state
        sets = object.__setattr__
        sets(self, "format", cp.format)
        sets(self, "contract", cp.contract)
        sets(self, "digests", tuple(cp.digests.items()))
        sets(self, "revision", st.revision)
        sets(self, "globals", tuple(Global(n, type_name(d), _freeze(v)) for n, d, v in st.globals))
        sets(self, "arenas", tuple(Arena(a.id, a.name, a.parent, a.offset, type_name(a.elem), a.capacity, a.used,
                                         a.generation, a.retired, _freeze(list(a.contents))) for a in st.arenas))
        sets(self, "pools", tuple(Pool(p.id, p.name, type_name(p.elem), p.capacity, p.retired,
                                       tuple(PoolSlot(g, o, _freeze(v)) for g, o, v in p.slots), tuple(p.free))
                                  for p in st.pools))
        sets(self, "registry", tuple(RegistryEntry(r.id, r.generation, type_name(r.elem), r.extent, r.owner,
                                                   r.writable, r.publish) for r in st.registry))
        sets(self, "counters", Counters(st.next_buffer, st.next_arena, st.next_pool, st.entries, st.effects))
        sets(self, "fault_bytes", st.fault)
        sets(self, "fault", None if st.fault is None else decode_fault_record(st.fault))
        sets(self, "state_bytes", cp.state_bytes)

    def __setattr__(self, name, value):
        raise AttributeError("a CheckpointView is read-only")

    def __delattr__(self, name):
        raise AttributeError("a CheckpointView is read-only")

    def __repr__(self):
        return "<CheckpointView %s, %d globals, %d registrations, %s>" % (
            self.contract, len(self.globals), len(self.registry), "faulted" if self.fault else "no fault")


def _freeze(v):
    if isinstance(v, RawPayload):
        return v
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


def read_checkpoint(data: bytes, structs: Optional[Mapping[str, Sequence[tuple]]] = None) -> CheckpointView:
    """9.2 paragraph 4: a read-only view of a checkpoint; raises DecodeError (a ValueError) for malformed bytes.

    A global holding a struct named in ``structs`` has its records as tuples of field values; one whose
    struct is not there has a RawPayload (its payload bytes, record size inferred) as its value."""
    return CheckpointView(decode_checkpoint(data, structs, raw_structs=True))


