"""The canonical state of a context and its hash (SPEC-03P.1 5.1 M-3, M-5; SPEC-01P.1 IM-156).

The bytes, in this order (all integers little-endian; no address anywhere, M-2, M-8):

    frame("cint-core-1/state/v1")
    revision                      32 bytes (IM-157)
    profile                       U32 length, ASCII ("cint-core-1")
    globals                       U64 count, then per module variable, sorted by the bytes of its
                                  fully qualified name: name (U32 length, UTF-8), tagged value
    arena block                   U64 length, then bytes (0 until arenas hold state)
    pool block                    U64 length, then bytes (0 until pools hold state)
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
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from .codes import DOMAIN_STATE_V1, FUEL_MODEL, PROFILE
from .encoding import encode_desc, encode_tagged, frame, i64, u8, u32, u64

DOMAIN_REGISTRY_V1 = "cint-core-1/registry/v1"
OWNERS = {"context": 0, "runtime": 1, "borrowed": 2}


@dataclass
class Registration:
    id: int
    generation: int
    elem: tuple            # element type descriptor (cint_abi.encoding form)
    extent: int
    owner: str             # context, runtime, borrowed
    writable: bool
    publish: bool


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
        out += [_text(name), encode_tagged(desc, value)]
    reg = registry_block(st.registry)
    out += [u64(0), u64(0), u64(len(reg)), reg]
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
