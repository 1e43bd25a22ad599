"""The arena block and the pool block of the canonical state (SPEC-01P.1 IM-156; layout ours, docs/encodings.md).

Each block is written after a U64 length in the state (cint_abi.state); the length is 0 when the context
has no arena (no pool), so the state of a program without containers is unchanged.  A block's bytes:

arena block::

    frame("cint-core-1/arenas/v1"), U64 count, then per arena by strictly increasing identifier:
      id U64 (from 1), origin U8 (0 module arena, 1 child arena),
      module arena: qualified name (U32 length, UTF-8) | child: parent id U64, offset I64 (its first
      element, in the parent's elements),
      element type descriptor (IM-146, an array element), capacity I64, used I64, generation U64,
      retired U8 (0 live, 1 retired),
      module arena only: ``used`` element payloads (IM-145), the contents of its first ``used`` elements
      (child regions are inside them)

pool block::

    frame("cint-core-1/pools/v1"), U64 count, then per pool by strictly increasing identifier:
      id U64, qualified name (U32 length, UTF-8), element type descriptor, capacity I64, retired I64,
      slot count U64 (slots ever used, at most the capacity), then per slot: generation U64,
      occupied U8 (0 or 1), and the element payload when occupied;
      free count U64, then the free list bottom to top (U64 slot each; the last is reused first)

A block that is present holds at least one arena (pool): no containers is the empty block.
The decoders apply the H-19a rules (ours where SPEC-01P.2 is silent): used <= capacity; a live
child arena inside its parent's used region, live children of one parent disjoint, a child of a retired
arena retired; slot counts and free entries below the capacity, free entries distinct and vacant, the
vacant slots not on the free list exactly the retired count; generations 0 to 2^63 - 1; every id below its
next-id counter, a parent id below its child's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from .encoding import DecodeError, Reader, encode_desc, encode_payload, frame, i64, read_desc, read_payload, u8, u32, u64

DOMAIN_ARENAS_V1 = "cint-core-1/arenas/v1"
DOMAIN_POOLS_V1 = "cint-core-1/pools/v1"
GEN_MAX = (1 << 63) - 1


@dataclass
class ArenaState:
    id: int
    name: Optional[str]            # a module arena's qualified name; None for a child
    parent: Optional[int]          # a child's parent id
    offset: int                    # a child's first element in its parent (0 for a module arena)
    elem: tuple                    # element type descriptor
    capacity: int
    used: int
    generation: int
    retired: bool
    contents: list = field(default_factory=list)   # a module arena's first `used` element values


@dataclass
class PoolState:
    id: int
    name: str
    elem: tuple
    capacity: int
    retired: int
    slots: List[Tuple[int, bool, object]] = field(default_factory=list)   # (generation, occupied, value)
    free: List[int] = field(default_factory=list)


def _text(s: str) -> bytes:
    b = s.encode("utf-8")
    return u32(len(b)) + b


def arena_block(arenas: List[ArenaState]) -> bytes:
    if not arenas:
        return b""
    out = [frame(DOMAIN_ARENAS_V1), u64(len(arenas))]
    for a in sorted(arenas, key=lambda a: a.id):
        out.append(u64(a.id))
        if a.parent is None:
            out += [u8(0), _text(a.name)]
        else:
            out += [u8(1), u64(a.parent), i64(a.offset)]
        out += [encode_desc(a.elem), i64(a.capacity), i64(a.used), u64(a.generation), u8(1 if a.retired else 0)]
        if a.parent is None:
            out += [encode_payload(a.elem, v) for v in a.contents]
    return b"".join(out)


def pool_block(pools: List[PoolState]) -> bytes:
    if not pools:
        return b""
    out = [frame(DOMAIN_POOLS_V1), u64(len(pools))]
    for p in sorted(pools, key=lambda p: p.id):
        out += [u64(p.id), _text(p.name), encode_desc(p.elem), i64(p.capacity), i64(p.retired), u64(len(p.slots))]
        for gen, occ, val in p.slots:
            out += [u64(gen), u8(1 if occ else 0)]
            if occ:
                out.append(encode_payload(p.elem, val))
        out.append(u64(len(p.free)))
        out += [u64(k) for k in p.free]
    return b"".join(out)


def _domain(r: Reader, want: str, rule: str):
    at = r.pos
    n = r.length(rule)
    data = r.take(n, rule)
    if data != want.encode("ascii"):
        raise DecodeError(at, rule, f"{data[:64]!r} is not {want!r}")


def _block_count(r: Reader, noun: str) -> int:
    """The count of a block that is present: at least one entry, each at least 40 bytes."""
    at = r.pos
    count = r.u64(f"the {noun} count")
    if count == 0:      # a state without arenas (pools) has an empty block (no bytes): the minimal encoding
        raise DecodeError(at, "IM-148 empty block not minimal", f"an empty {noun} block (a count of 0) must be written as no bytes")
    if count * 40 > r.remaining:
        raise DecodeError(at, "IM-148 count larger than the bytes remaining",
                          f"{count} {noun}s need at least {count * 40} bytes, {r.remaining} remain")
    return count


def _next_id(r: Reader, noun: str, k: int, last: int) -> int:
    """The identifier of entry ``k``: nonzero and above the one before (``last``)."""
    at = r.pos
    i = r.u64(f"the identifier of {noun} {k}")
    if i == 0 or i <= last:
        raise DecodeError(at, f"{noun} identifiers nonzero and strictly increasing", f"{noun} {i} after {last}")
    return i


def _gen(r: Reader, what: str) -> int:
    at = r.pos
    g = r.u64(what)
    if g > GEN_MAX:
        raise DecodeError(at, "H-19a generation out of range", f"{what} is {g}, above 2^63 - 1")
    return g


def decode_arena_block(r: Reader, structs=None) -> List[ArenaState]:
    """The arena block's bytes (all of ``r``); the counter rule is check_counters'."""
    _domain(r, DOMAIN_ARENAS_V1, "arena domain string not cint-core-1/arenas/v1")
    count = _block_count(r, "arena")
    out: List[ArenaState] = []
    by_id = {}
    last = 0
    for k in range(count):
        last = aid = _next_id(r, "arena", k, last)
        at = r.pos
        origin = r.u8(f"the origin of arena {aid}")
        name = parent = None
        offset = 0
        if origin == 0:
            name = r.utf8(f"the name of arena {aid}")
        elif origin == 1:
            pat = r.pos
            parent = r.u64(f"the parent of arena {aid}")
            if parent not in by_id:
                raise DecodeError(pat, "H-19a child arena without its parent",
                                  f"arena {aid} names parent {parent}, not an arena before it")
            oat = r.pos
            offset = r.i64(f"the offset of arena {aid}")
            if offset < 0:
                raise DecodeError(oat, "H-19a child arena outside its parent", f"arena {aid} at offset {offset}")
        else:
            raise DecodeError(at, "arena origin not 0 or 1", f"arena {aid} has origin {origin}")
        elem = read_desc(r, role="element", structs=structs)
        cat = r.pos
        cap = r.i64(f"the capacity of arena {aid}")
        if cap < 0:
            raise DecodeError(cat, "H-19a negative capacity", f"arena {aid} has capacity {cap}")
        uat = r.pos
        used = r.i64(f"the used count of arena {aid}")
        if not 0 <= used <= cap:
            raise DecodeError(uat, "H-19a used above capacity", f"arena {aid} uses {used} of {cap}")
        gen = _gen(r, f"the generation of arena {aid}")
        rat = r.pos
        retired = r.u8(f"the retired flag of arena {aid}")
        if retired > 1:
            raise DecodeError(rat, "arena retired flag not 0 or 1", f"arena {aid} has {retired}")
        a = ArenaState(aid, name, parent, offset, elem, cap, used, gen, retired == 1)
        if parent is not None:
            p = by_id[parent]
            if p.elem != elem:
                raise DecodeError(at, "H-19a child arena element type not its parent's", f"arena {aid}")
            if p.retired and not a.retired:
                raise DecodeError(rat, "H-19a live child of a retired arena", f"arena {aid}, parent {parent}")
            if not a.retired:
                if offset + cap > p.used:
                    raise DecodeError(at, "H-19a child arena outside its parent's used region",
                                      f"arena {aid}: elements {offset}..{offset + cap} of parent {parent}, "
                                      f"which uses {p.used}")
                for o in out:
                    if o.parent == parent and not o.retired and o.offset < offset + cap and offset < o.offset + o.capacity:
                        raise DecodeError(at, "H-19a child arenas overlap", f"arenas {o.id} and {aid}")
        else:
            pat = r.pos
            if used > r.remaining:
                raise DecodeError(pat, "IM-148 count larger than the bytes remaining",
                                  f"arena {aid}: {used} elements, {r.remaining} bytes remain")
            a.contents = [read_payload(r, elem) for _ in range(used)]
        by_id[aid] = a
        out.append(a)
    r.finish()
    return out


def decode_pool_block(r: Reader, structs=None) -> List[PoolState]:
    _domain(r, DOMAIN_POOLS_V1, "pool domain string not cint-core-1/pools/v1")
    count = _block_count(r, "pool")
    out: List[PoolState] = []
    last = 0
    for k in range(count):
        last = pid = _next_id(r, "pool", k, last)
        name = r.utf8(f"the name of pool {pid}")
        elem = read_desc(r, role="element", structs=structs)
        cat = r.pos
        cap = r.i64(f"the capacity of pool {pid}")
        if cap < 0:
            raise DecodeError(cat, "H-19a negative capacity", f"pool {pid} has capacity {cap}")
        rat = r.pos
        retired = r.i64(f"the retired count of pool {pid}")
        sat = r.pos
        nslots = r.u64(f"the slot count of pool {pid}")
        if nslots > cap:
            raise DecodeError(sat, "H-19a slot index not below the capacity", f"pool {pid}: {nslots} slots of {cap}")
        if nslots * 9 > r.remaining:
            raise DecodeError(sat, "IM-148 count larger than the bytes remaining", f"pool {pid}: {nslots} slots")
        slots = []
        for s in range(nslots):
            gen = _gen(r, f"the generation of slot {s} of pool {pid}")
            oat = r.pos
            occ = r.u8(f"the occupied flag of slot {s} of pool {pid}")
            if occ > 1:
                raise DecodeError(oat, "pool occupied flag not 0 or 1", f"pool {pid} slot {s}: {occ}")
            slots.append((gen, occ == 1, read_payload(r, elem) if occ else None))
        fat = r.pos
        nfree = r.u64(f"the free-list length of pool {pid}")
        if nfree > nslots:
            raise DecodeError(fat, "H-19a free list longer than the slots", f"pool {pid}: {nfree} of {nslots}")
        free = []
        for j in range(nfree):
            eat = r.pos
            k2 = r.u64(f"free-list entry {j} of pool {pid}")
            if k2 >= nslots:
                raise DecodeError(eat, "H-19a slot index not below the capacity",
                                  f"pool {pid} free-list entry {k2}, {nslots} slots used")
            if k2 in free:
                raise DecodeError(eat, "H-19a free list entry duplicated", f"pool {pid} slot {k2}")
            if slots[k2][1]:
                raise DecodeError(eat, "H-19a free list names an occupied slot", f"pool {pid} slot {k2}")
            free.append(k2)
        vacant = sum(1 for g, o, _ in slots if not o)
        if retired != vacant - len(free):
            raise DecodeError(rat, "H-19a retired count not the vacant slots off the free list",
                              f"pool {pid}: retired {retired}, {vacant} vacant, {len(free)} free")
        out.append(PoolState(pid, name, elem, cap, retired, slots, free))
    r.finish()
    return out


def check_counters(arenas, pools, next_arena: int, next_pool: int, at_arena: int, at_pool: int):
    """H-19a: every arena and pool identifier below its next-identifier counter."""
    if arenas and arenas[-1].id >= next_arena:
        raise DecodeError(at_arena, "H-19a identifier counter not above every identifier",
                          f"next arena identifier {next_arena}, arena {arenas[-1].id} present")
    if pools and pools[-1].id >= next_pool:
        raise DecodeError(at_pool, "H-19a identifier counter not above every identifier",
                          f"next pool identifier {next_pool}, pool {pools[-1].id} present")
