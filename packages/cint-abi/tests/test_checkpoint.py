"""The strict state decoder (cint_abi.state.decode_state) and the checkpoint envelope (cint_abi.checkpoint):
round trips, every structural rule of H-19a that applies, and a mutation fuzzer that may only ever
raise ValueError (SPEC-03P.1 5.1, 9.2)."""
import random

import pytest

from cint_abi.checkpoint import (FORMAT, Checkpoint, Global, decode_checkpoint, encode_checkpoint, read_checkpoint,
                                 type_name)
from cint_abi.encoding import DecodeError, encode_tagged, frame, i64, u8, u32, u64
from cint_abi.faultrecord import FaultRecordData, encode_fault_record
from cint_abi.state import Registration, State, decode_state, encode_state, state_hash

REV = bytes(range(32))
FAULT = encode_fault_record(FaultRecordData(code=1, operation="add.checked.i64",
                                            operands=[(("int", True, 64), 2**62), (("int", True, 64), 2**62)],
                                            exact=2**63, limit=(("int", True, 64), 2**63 - 1), path="counter.ci",
                                            line=4, column=11, revision=REV, stack=[("counter.ci", 9, 5)]))


def full_state():
    return State(revision=REV,
                 globals=[("m.a", ("int", True, 64), -5), ("m.b", ("bool",), True), ("m.q", ("fixed", 32, 8), 384),
                          ("m.u", ("int", False, 8), 255), ("m.z", ("int", True, 128), -(2**100))],
                 registry=[Registration(2, 1, ("int", False, 8), 10, "runtime", True, False),
                           Registration(5, 3, ("fixed", 16, 4), 0, "borrowed", True, True),
                           Registration(9, 1, ("struct", "m.P", None), 4, "borrowed", False, False)],
                 next_buffer=10, next_arena=1, next_pool=2, entries=7, fault=FAULT, effects=3)


def small_state():
    return State(revision=REV, globals=[("counter.tally", ("int", True, 64), 42)], entries=2, effects=2)


def test_state_round_trip():
    for st in (full_state(), small_state(), State(revision=REV)):
        data = encode_state(st)
        back = decode_state(data)
        assert encode_state(back) == data
        assert back.revision == REV and back.entries == st.entries and back.fault == st.fault
        assert [r.id for r in back.registry] == [r.id for r in st.registry]


def _offset_error(data, rule_part):
    with pytest.raises(DecodeError) as ei:
        decode_state(data)
    assert rule_part in ei.value.rule, ei.value
    return ei.value


def _globals_state(entries):
    """State bytes with raw global entries (name, tagged value bytes), in the given order."""
    head = frame("cint-core-1/state/v1") + REV + frame("cint-core-1")
    body = u64(len(entries)) + b"".join(u32(len(n)) + n + v for n, v in entries)
    reg = frame("cint-core-1/registry/v1") + u64(0)
    tail = u64(0) + u64(0) + u64(len(reg)) + reg + u64(1) + u64(1) + u64(1) + u64(0) + frame("fuel-v1") + u8(0) + i64(0)
    return head + body + tail


@pytest.mark.clause("H-19a", "M-3")
def test_structural_rules():
    good = encode_state(small_state())
    assert decode_state(good)
    _offset_error(good + b"\0", "trailing")
    _offset_error(good[:-1], "truncated")
    _offset_error(b"\x14\0\0\0cint-core-1/state/v2" + good[24:], "state domain")
    e = _offset_error(good[:56] + b"\x0b\0\0\0cint-core-2" + good[71:], "profile")
    assert e.offset == 56
    # globals: sorted, distinct, minimal encodings, known tags
    i64v = encode_tagged(("int", True, 64), 1)
    assert decode_state(_globals_state([(b"a", i64v), (b"b", i64v)]))
    _offset_error(_globals_state([(b"b", i64v), (b"a", i64v)]), "strictly increasing")
    _offset_error(_globals_state([(b"a", i64v), (b"a", i64v)]), "strictly increasing")
    _offset_error(_globals_state([(b"a", b"\x01\x02")]), "Bool")
    _offset_error(_globals_state([(b"a", b"\x0f\x01\0\0\0\0")]), "non-minimal Z")
    _offset_error(_globals_state([(b"a", b"\x41\0")]), "unsupported tag")
    _offset_error(_globals_state([(b"a", b"\x99\0")]), "unknown tag")
    _offset_error(_globals_state([(b"a", b"\x61")]), "tag 61")
    _offset_error(_globals_state([(b"\xff", i64v)]), "UTF-8")
    _offset_error(_globals_state([(b"a", b"\x31\x14\x40\x00" + bytes(8))]), "fraction")
    # registry: identifiers, generations, modes, counters above every identifier
    base = full_state()

    def with_regs(regs, **kw):
        st = full_state()
        st.registry = regs
        for k, v in kw.items():
            setattr(st, k, v)
        return encode_state(st)
    r = base.registry
    _offset_error(with_regs([r[0], r[0]]), "strictly increasing")   # encode_state sorts; a repeat is caught
    _offset_error(with_regs([Registration(0, 1, ("bool",), 1, "runtime", True, False)]), "nonzero")
    _offset_error(with_regs([Registration(1, 0, ("bool",), 1, "runtime", True, False)]), "generation")
    _offset_error(with_regs([Registration(1, 2**63, ("bool",), 1, "runtime", True, False)]), "generation")
    _offset_error(with_regs([Registration(1, 1, ("bool",), 1, "borrowed", False, True)]), "publish")
    _offset_error(with_regs([Registration(1, 1, ("bool",), 1, "context", True, False)]), "stored contents")
    _offset_error(with_regs([Registration(1, 1, ("int", True, 64), 2**62, "borrowed", True, False)]), "I64 byte")
    _offset_error(with_regs(r, next_buffer=9), "counter not above")
    _offset_error(with_regs(r, next_arena=0), "counter 0")
    _offset_error(with_regs([Registration(1, 1, ("z",), 1, "runtime", True, False)]), "element")
    _offset_error(with_regs(r, effects=-1), "negative effect")
    # the fault record is decoded (IM-148), and its errors point into the state
    bad = FAULT[:24] + b"\xff\x00" + FAULT[26:]
    st = full_state()
    st.fault = bad
    e = _offset_error(encode_state(st), "fault code")
    assert encode_state(st)[e.offset:e.offset + 2] == b"\xff\x00"
    # an arena block is read as one (cint_abi.arenas_pools): one byte is not its domain string
    data = encode_state(small_state())
    at = data.index(u64(0) + u64(0) + u64(len(frame("cint-core-1/registry/v1")) + 8))
    _offset_error(data[:at] + u64(1) + data[at + 8:], "IM-148")


@pytest.mark.clause("M-5")
def test_state_hash_is_sha256_of_the_bytes():
    import hashlib
    st = small_state()
    assert state_hash(st) == hashlib.sha256(encode_state(st)).digest()


@pytest.mark.clause("H-19", "9.2")
def test_checkpoint_envelope_round_trip():
    state = encode_state(full_state())
    cp = encode_checkpoint(state, contract="cint-rt-3", digests={"source-map": bytes(32), "library": b"\x07" * 32})
    assert cp.startswith(frame(FORMAT) + frame("cint-rt-3") + u32(2) + u32(7) + b"library")
    got = decode_checkpoint(cp)
    assert isinstance(got, Checkpoint)
    assert got.format == FORMAT and got.contract == "cint-rt-3" and got.state_bytes == state
    assert list(got.digests) == ["library", "source-map"] and got.digests["library"] == b"\x07" * 32
    assert encode_state(got.state) == state
    assert encode_checkpoint(state, contract="cint-rt-3", digests=[("source-map", bytes(32)),
                                                                  ("library", b"\x07" * 32)]) == cp
    assert decode_checkpoint(encode_checkpoint(state, contract="x", digests=())).digests == {}
    with pytest.raises(ValueError):
        encode_checkpoint(state, contract="cint-rt-3", digests={"a": b"short"})
    with pytest.raises(ValueError):
        encode_checkpoint(state + b"\0", contract="cint-rt-3")
    with pytest.raises(ValueError):
        encode_checkpoint(state, contract="")


@pytest.mark.clause("H-19a")
def test_checkpoint_envelope_rules():
    state = encode_state(small_state())
    cp = encode_checkpoint(state, contract="cint-rt-3", digests={"a": bytes(32), "b": bytes(32)})
    with pytest.raises(DecodeError, match="format"):
        decode_checkpoint(frame("cint-core-1/checkpoint/v9") + cp[len(frame(FORMAT)):])
    with pytest.raises(DecodeError, match="trailing|state length"):
        decode_checkpoint(cp + b"\0")
    swapped = cp.replace(b"\x01\x00\x00\x00a" + bytes(32) + b"\x01\x00\x00\x00b",
                         b"\x01\x00\x00\x00b" + bytes(32) + b"\x01\x00\x00\x00a")
    with pytest.raises(DecodeError, match="strictly increasing"):
        decode_checkpoint(swapped)
    # an error inside the state names its offset in the checkpoint
    at = cp.index(b"cint-core-1/state/v1") + 5
    bad = cp[:at] + b"X" + cp[at + 1:]
    with pytest.raises(DecodeError) as ei:
        decode_checkpoint(bad)
    assert ei.value.offset == at - 9


def test_read_checkpoint_view():
    cp = encode_checkpoint(encode_state(full_state()), contract="cint-rt-3", digests={})
    v = read_checkpoint(cp)
    assert v.globals[0] == Global(name="m.a", type="I64", value=-5)
    assert [g.type for g in v.globals] == ["I64", "Bool", "Q24.8", "U8", "I128"]
    assert v.arenas == () and v.pools == ()
    assert [(r.id, r.type, r.owner) for r in v.registry] == [(2, "U8", "runtime"), (5, "Q12.4", "borrowed"),
                                                          (9, "m.P", "borrowed")]
    assert v.counters.next_buffer == 10 and v.counters.entries == 7 and v.counters.effects == 3
    assert v.fault.operation == "add.checked.i64" and v.fault_bytes == FAULT
    with pytest.raises(AttributeError):
        v.globals = ()
    small = read_checkpoint(encode_checkpoint(encode_state(small_state()), contract="cint-rt-3"))
    assert repr(small.globals) == "(Global(name='counter.tally', type='I64', value=42),)"
    assert type_name(("array", ("int", True, 64), (3, 4))) == "I64[3, 4]"


@pytest.mark.clause("H-19a")
def test_mutation_fuzz_raises_only_value_error():
    rnd = random.Random(1234)
    for st in (small_state(), full_state()):
        cp = encode_checkpoint(encode_state(st), contract="cint-rt-3", digests={"library": bytes(32)})
        mutants = [cp[:k] for k in range(len(cp))] + [cp + b"\0", cp + b"\0" * 9]
        for k in range(len(cp)):
            for flip in (0x01, 0x80, 0xFF):
                mutants.append(cp[:k] + bytes([cp[k] ^ flip]) + cp[k + 1:])
        for _ in range(3000):
            m = bytearray(cp)
            for _ in range(rnd.randint(1, 4)):
                op = rnd.randrange(4)
                at = rnd.randrange(len(m))
                if op == 0:
                    m[at] = rnd.randrange(256)
                elif op == 1 and at + 4 <= len(m):     # a length or count field off by a little
                    v = (int.from_bytes(m[at:at + 4], "little") + rnd.randint(-2, 2)) % 2**32
                    m[at:at + 4] = v.to_bytes(4, "little")
                elif op == 2:
                    del m[at]
                else:
                    m.insert(at, rnd.randrange(256))
            mutants.append(bytes(m))
        accepted = 0
        for m in mutants:
            try:
                got = decode_checkpoint(m)
            except ValueError:
                continue
            accepted += 1
            # whatever is accepted is canonical: it encodes back to the same bytes
            assert encode_checkpoint(got.state_bytes, contract=got.contract, digests=got.digests) == m
            assert encode_state(got.state) == got.state_bytes
        assert accepted < len(mutants)
