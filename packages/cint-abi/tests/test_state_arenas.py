"""The arena and pool blocks of the canonical state and the handle value (cint_abi.arenas_pools; layout ours,
docs/encodings.md): round trips, the checkpoint view, and each H-19a refusal on hand-made bytes."""
import pytest

from cint_abi.arenas_pools import (DOMAIN_ARENAS_V1, DOMAIN_POOLS_V1, ArenaState, PoolState, arena_block,
                                   pool_block)
from cint_abi.checkpoint import encode_checkpoint, read_checkpoint
from cint_abi.codes import HANDLE_TAG, RUNTIME_CONTRACT
from cint_abi.encoding import DecodeError, decode_tagged_exact, encode_tagged, frame, i64, u8, u32, u64
from cint_abi.state import State, decode_state, encode_state

pytestmark = pytest.mark.clause("SPEC-03P.1 M-3", "SPEC-03P.1 H-19a", "SPEC-01P.1 IM-156")

I64D = ("int", True, 64)
REV = bytes(range(32))


def arena(**kw):
    base = dict(id=1, name="m.scratch", parent=None, offset=0, elem=I64D, capacity=6, used=4, generation=2,
                retired=False, contents=[1, 2, 3, 4])
    base.update(kw)
    return ArenaState(**base)


def child(**kw):
    base = dict(id=2, name=None, parent=1, offset=1, elem=I64D, capacity=2, used=1, generation=0, retired=False)
    base.update(kw)
    return ArenaState(**base)


def pool(**kw):
    base = dict(id=1, name="m.counts", elem=I64D, capacity=4, retired=0,
                slots=[(0, True, 10), (3, False, None), (1, True, 30)], free=[1])
    base.update(kw)
    return PoolState(**base)


def state(**kw):
    base = dict(revision=REV, arenas=[arena(), child()], pools=[pool()], next_arena=3, next_pool=2,
                globals=[("m.h", ("handle",), (1, 2, 0, 1, 1))])
    base.update(kw)
    return State(**base)


def test_handle_tagged_value():
    data = encode_tagged(("handle",), (3, 2, 7, 1, 1))
    assert data[0] == HANDLE_TAG == 0x81 and len(data) == 1 + 29
    assert decode_tagged_exact(data) == (("handle",), (3, 2, 7, 1, 1))
    assert decode_tagged_exact(encode_tagged(("handle",), (0, 0, 0, 0, 0)))[1] == (0, 0, 0, 0, 0)


@pytest.mark.parametrize("value,rule", [
    ((0, 0, 0, 0, 3), "handle kind not 0 to 2"),
    ((0, 1, 0, 0, 0), "null handle not all zero"),
    ((0, 1, 0, 0, 2), "handle container 0"),
    ((0, 2, 0, 1, 2), "handle length out of range"),
])
def test_handle_refusals(value, rule):
    with pytest.raises(DecodeError) as ei:
        decode_tagged_exact(encode_tagged(("handle",), value))
    assert ei.value.rule == rule


def test_round_trip_and_layout():
    data = encode_state(state())
    st = decode_state(data)
    assert st.arenas == [arena(), child()] and st.pools == [pool()]
    assert encode_state(st) == data
    ab = arena_block([arena(), child()])
    assert ab.startswith(frame(DOMAIN_ARENAS_V1) + u64(2) + u64(1) + u8(0))
    assert (u64(len(ab)) + ab) in data
    pb = pool_block([pool()])
    assert pb.startswith(frame(DOMAIN_POOLS_V1) + u64(1) + u64(1))
    assert pb.endswith(u64(1) + u64(1))          # the free list: one entry, slot 1


def test_empty_blocks_when_no_containers():
    data = encode_state(State(revision=REV))
    st = decode_state(data)
    assert st.arenas == [] and st.pools == []


def test_checkpoint_view_exposes_arenas_and_pools():
    cp = encode_checkpoint(encode_state(state()), contract=RUNTIME_CONTRACT, digests={})
    v = read_checkpoint(cp)
    a, c = v.arenas
    assert (a.id, a.name, a.type, a.capacity, a.used, a.generation, a.retired, a.contents) == (
        1, "m.scratch", "I64", 6, 4, 2, False, (1, 2, 3, 4))
    assert (c.parent, c.offset) == (1, 1)
    (p,) = v.pools
    assert p.free == (1,) and p.slots[2].value == 30 and not p.slots[1].occupied
    assert v.globals[0].type == "Handle" and v.globals[0].value == (1, 2, 0, 1, 1)
    assert v.counters.next_arena == 3


MALFORMED = {
    "H-19a used above capacity": dict(arenas=[arena(used=7, contents=[0] * 7)], next_arena=2),
    "H-19a child arena outside its parent's used region": dict(arenas=[arena(), child(offset=3)]),
    "H-19a child arenas overlap": dict(arenas=[arena(), child(), child(id=3, offset=2)], next_arena=4),
    "H-19a live child of a retired arena": dict(arenas=[arena(retired=True), child()]),
    "H-19a child arena without its parent": dict(arenas=[arena(), child(parent=5)], next_arena=3),
    "H-19a slot index not below the capacity": dict(pools=[pool(capacity=2)]),
    "H-19a free list entry duplicated": dict(pools=[pool(slots=[(1, False, None), (1, False, None)], free=[0, 0])]),
    "H-19a free list names an occupied slot": dict(pools=[pool(free=[0], retired=1)]),
    "H-19a generation out of range": dict(arenas=[arena(generation=1 << 63), child()]),
    "H-19a identifier counter not above every identifier": dict(next_pool=1),
    "H-19a retired count not the vacant slots off the free list": dict(pools=[pool(retired=1)]),
    "H-19a negative capacity": dict(arenas=[arena(capacity=-1, used=0, contents=[])], next_arena=2),
}


@pytest.mark.parametrize("rule", sorted(MALFORMED))
def test_malformed_blocks_refused(rule):
    data = encode_state(state(**MALFORMED[rule]))
    with pytest.raises(DecodeError) as ei:
        decode_state(data)
    assert ei.value.rule == rule
    assert 0 < ei.value.offset < len(data)


def test_arena_counter_checked():
    with pytest.raises(DecodeError) as ei:
        decode_state(encode_state(state(next_arena=2)))
    assert ei.value.rule == "H-19a identifier counter not above every identifier"


def _splice(data, block, new_block):
    k = data.index(block)
    return data[:k - 8] + u64(len(new_block)) + new_block + data[k + len(block):]


def test_trailing_bytes_and_bad_domain_in_a_block():
    st = state()
    data = encode_state(st)
    ab = arena_block(st.arenas)
    with pytest.raises(DecodeError) as ei:
        decode_state(_splice(data, ab, ab + b"\x00"))
    assert ei.value.rule == "IM-148 trailing bytes"
    pb = pool_block(st.pools)
    wrong = frame("cint-core-1/pools/v9") + pb[len(frame(DOMAIN_POOLS_V1)):]
    with pytest.raises(DecodeError) as ei:
        decode_state(_splice(data, pb, wrong))
    assert ei.value.rule == "pool domain string not cint-core-1/pools/v1"


def test_block_length_beyond_the_state():
    data = encode_state(State(revision=REV))
    k = len(frame("cint-core-1/state/v1")) + 32 + len(frame("cint-core-1")) + 8    # after the global count
    assert data[k:k + 16] == u64(0) + u64(0)       # the empty arena and pool blocks
    bad = data[:k] + u64(1 << 40) + data[k + 8:]
    with pytest.raises(DecodeError) as ei:
        decode_state(bad)
    assert ei.value.rule == "IM-148 length larger than the bytes remaining"


def test_bad_flags_refused():
    st = state()
    data = encode_state(st)
    ab = arena_block(st.arenas)
    # the retired flag of arena 1 is the byte after its generation: make it 2
    k = ab.index(u64(2) + u8(0), len(frame(DOMAIN_ARENAS_V1)) + 8 + 8)
    bad_ab = ab[:k + 8] + u8(2) + ab[k + 9:]
    with pytest.raises(DecodeError) as ei:
        decode_state(_splice(data, ab, bad_ab))
    assert ei.value.rule == "arena retired flag not 0 or 1"


def test_present_block_without_containers_refused():
    """No arena (pool) is written as an empty block, so a block of 0 entries is not the minimal encoding."""
    st = state()
    data = encode_state(st)
    for blk, dom in ((arena_block(st.arenas), DOMAIN_ARENAS_V1), (pool_block(st.pools), DOMAIN_POOLS_V1)):
        with pytest.raises(DecodeError) as ei:
            decode_state(_splice(data, blk, frame(dom) + u64(0)))
        assert ei.value.rule == "IM-148 empty block not minimal"
