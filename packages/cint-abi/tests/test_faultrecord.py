"""SPEC-01P.1 IM-149 (fault record layout version 2), IM-108 size bounds, IM-148 decoder obligations."""
from __future__ import annotations

import random

import pytest

from cint_abi import codes
from cint_abi.encoding import DecodeError, encode_z, i64, u8, u16, u32
from cint_abi.faultrecord import FaultRecordData, decode_fault_record, encode_fault_record

I8, I32, I64, U8, U64 = ("int", True, 8), ("int", True, 32), ("int", True, 64), ("int", False, 8), ("int", False, 64)
I1024 = ("int", True, 1024)
Z = ("z",)
REV = bytes(range(32))
SRC = bytes(range(100, 132))


def stale_record() -> FaultRecordData:
    """The bind.stale record of tour.scale (tour.out: operands 0 7, limit 1, 155 canonical bytes)."""
    return FaultRecordData(
        code=codes.FAULT_CODES["E_STALE_HANDLE"], operation="bind.stale",
        operands=[(I64, 0), (U64, 7)], exact=None, limit=(U64, 1),
        path="tour.ci", line=19, column=15, revision=REV, source_map=None,
        address=("tour.scale", 0, 0, None, None), stack=[])


def test_brief_bind_stale_is_155_bytes():
    data = encode_fault_record(stale_record())
    assert len(data) == 155
    # the BRIEF's arithmetic, field by field
    parts = [24, 2, 14, 4, 9, 9, 1, 10, 19, 33, 1, 25, 4]
    assert sum(parts) == 155
    assert data[:24] == u32(20) + b"cint-core-1/fault/v2"
    assert data[24:26] == u16(8)
    assert data[26:40] == u32(10) + b"bind.stale"
    assert data[40:44] == u32(2)
    assert data[44:62] == bytes.fromhex("14" + "00" * 8 + "24 07" + "00" * 7)
    assert data[62:63] == b"\x00"                                   # no exact
    assert data[63:73] == b"\x01" + bytes.fromhex("24 01" + "00" * 7)  # limit U64 1
    assert data[73:92] == u32(7) + b"tour.ci" + u32(19) + u32(15)
    assert data[92:125] == b"\x01" + REV
    assert data[125:126] == b"\x00"                                 # no source-map digest
    assert data[126:151] == b"\x01" + u32(10) + b"tour.scale" + i64(0) + u8(0) + b"\x00"
    assert data[151:] == u32(0)
    assert decode_fault_record(data) == stale_record()


def test_overflow_record_layout():
    rec = FaultRecordData(code=1, operation="add.checked.i64", operands=[(I64, 2**63 - 8), (I64, 12)],
                          exact=2**63 + 4, limit=(I64, 2**63 - 1), path="flight.ci", line=42, column=17,
                          revision=REV, source_map=SRC, stack=[("flight.ci", 10, 5), ("lib/m.ci", 3, 9)])
    data = encode_fault_record(rec)
    exact = b"\x01\x0f" + encode_z(2**63 + 4)
    assert exact in data
    assert data.endswith(b"\x01" + REV + b"\x01" + SRC + b"\x00" + u32(2)
                         + u32(9) + b"flight.ci" + u32(10) + u32(5) + u32(8) + b"lib/m.ci" + u32(3) + u32(9))
    assert decode_fault_record(data) == rec


def test_work_item_address():
    rec = FaultRecordData(code=1, operation="mul.checked.i64", operands=[(I64, 5), (I64, 2**62)],
                          exact=5 * 2**62, limit=(I64, 2**63 - 1), path="advance.ci", line=3, column=31,
                          revision=REV, address=("advance.advance", 2, 1, 17, 3))
    data = encode_fault_record(rec)
    assert data.endswith(b"\x01" + u32(15) + b"advance.advance" + i64(2) + u8(1) + b"\x01" + i64(17) + i64(3) + u32(0))
    assert decode_fault_record(data) == rec


def test_redacted_operand_and_exact():
    rec = FaultRecordData(code=1, operation="add.checked.i64", operands=[(("redacted", I64), None), (I64, 1)],
                          exact=None, exact_redacted=True, limit=(I64, 2**63 - 1), path="s.ci", line=1, column=1)
    data = encode_fault_record(rec)
    assert b"\x7f\x14" in data and b"\x01\x7f\x0f" in data
    assert decode_fault_record(data) == rec


def test_view_operand_and_array_operand():
    view = ("view", I8, 4, 1, 0, ((3, 0, 1),), 0)
    rec = FaultRecordData(code=1, operation="fold_checked.add.i8",
                          operands=[(I64, 3), (view, None), (I64, 1), (I8, 120), (I8, 120)],
                          exact=240, limit=(I8, 127), path="r.ci", line=2, column=3)
    assert decode_fault_record(encode_fault_record(rec)) == rec
    rec2 = FaultRecordData(code=4, operation="dispatch.admit", operands=[(("array", I64, (2,)), [2**32, 2**32])],
                           exact=2**64, path="k.ci", line=1, column=1)
    assert decode_fault_record(encode_fault_record(rec2)) == rec2


# --- IM-108 bounds by record kind -----------------------------------------------------------------

def _z_of(nbytes: int) -> int:
    return 2**(8 * nbytes - 1) - 1


def test_z_bounds_by_kind():
    lit = _z_of(513)                 # the largest literal operand Z
    scaled = _z_of(520)              # the largest exact
    rec = FaultRecordData(code=6, operation="unassigned", operands=[(Z, lit)], exact=scaled,
                          limit=(I1024, 2**1023 - 1), path="c.ci", line=1, column=1)
    data = encode_fault_record(rec, kind="compile-time")
    assert decode_fault_record(data, kind="compile-time") == rec
    with pytest.raises(DecodeError, match="Z too long"):
        decode_fault_record(data)                                   # run-time: 257
    with pytest.raises(ValueError):
        encode_fault_record(rec)                                    # refused for the run-time kind
    # one byte more than each compile-time bound
    for operands, exact in (([(Z, _z_of(514))], 0), ([(Z, 0)], _z_of(521))):
        bad = FaultRecordData(code=6, operation="unassigned", operands=operands, exact=exact, path="c", line=1, column=1)
        with pytest.raises(ValueError):
            encode_fault_record(bad, kind="compile-time")
    # a Z operand of 514 bytes written by hand is rejected by the compile-time reader
    rec_ok = FaultRecordData(code=6, operation="unassigned", operands=[(Z, 0)], path="c", line=1, column=1)
    data = encode_fault_record(rec_ok)
    z_at = data.index(b"\x0f" + u32(0))
    forged = data[:z_at] + b"\x0f" + encode_z(_z_of(514)) + data[z_at + 5:]
    with pytest.raises(DecodeError, match="more than the bound of 513"):
        decode_fault_record(forged, kind="compile-time")
    # a Z limit keeps the 257-byte bound in both kinds
    lim = FaultRecordData(code=1, operation="x", limit=(Z, _z_of(258)), path="c", line=1, column=1)
    with pytest.raises(ValueError):
        encode_fault_record(lim, kind="compile-time")
    with pytest.raises(ValueError):
        decode_fault_record(b"", kind="runtime")


def test_run_time_257_accepted():
    rec = FaultRecordData(code=1, operation="mul.checked.i1024", operands=[(I1024, 2**1023 - 1), (I1024, 2**1023 - 1)],
                          exact=(2**1023 - 1)**2 * 2, limit=(I1024, 2**1023 - 1), path="w.ci", line=1, column=1)
    data = encode_fault_record(rec)
    assert decode_fault_record(data) == rec


# --- decoder rejections ----------------------------------------------------------------------------

def _mutate(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new):]


def _rejects(data: bytes, rule: str, kind: str = "run-time") -> DecodeError:
    with pytest.raises(DecodeError) as e:
        decode_fault_record(data, kind)
    assert rule in str(e.value), str(e.value)
    return e.value


def test_rejects_domain():
    data = encode_fault_record(stale_record())
    _rejects(_mutate(data, 23, b"1"), "domain string")
    v1 = u32(20) + b"cint-core-1/fault/v1" + data[24:]
    assert "version 1" in str(_rejects(v1, "domain string"))
    _rejects(u32(21) + data[4:], "domain string")
    _rejects(u32(2**32 - 1) + data[4:], "length larger than the bytes remaining")


def test_rejects_code_operation_and_count():
    data = encode_fault_record(stale_record())
    _rejects(_mutate(data, 24, u16(0)), "unknown fault code")
    _rejects(_mutate(data, 24, u16(14)), "unknown fault code")
    _rejects(_mutate(data, 30, b"\xc3"), "not ASCII")
    long_op = data[:26] + u32(65) + b"a" * 65 + data[40:]
    _rejects(long_op, "longer than 64 bytes")
    ok_op = data[:26] + u32(64) + b"a" * 64 + data[40:]
    assert decode_fault_record(ok_op).operation == "a" * 64
    _rejects(_mutate(data, 40, u32(9)), "more than 8 operands")
    with pytest.raises(ValueError):
        encode_fault_record(FaultRecordData(code=1, operation="x", operands=[(I8, 0)] * 9))
    with pytest.raises(ValueError):
        encode_fault_record(FaultRecordData(code=1, operation="y" * 65))
    with pytest.raises(ValueError):
        encode_fault_record(FaultRecordData(code=99, operation="x"))


def test_rejects_presence_bytes():
    data = encode_fault_record(stale_record())
    for at in (62, 63, 92, 125, 126):
        _rejects(_mutate(data, at, b"\x02"), "presence byte")
    _rejects(_mutate(data, 150, b"\x02"), "presence byte")


def test_rejects_exact_tag():
    rec = stale_record()
    rec.exact = 5
    data = encode_fault_record(rec)
    assert data[62:65] == b"\x01\x0f\x01"
    _rejects(_mutate(data, 63, b"\x14"), "exact must be tagged Z")
    _rejects(_mutate(data, 63, b"\x7f\x14"), "exact must be tagged Z")
    _rejects(_mutate(data, 63, b"\x0f" + u32(2) + b"\x05\x00"), "non-minimal Z")


def test_rejects_phase_and_work_item_fields():
    data = encode_fault_record(stale_record())
    _rejects(_mutate(data, 149, b"\x03"), "phase not 0 to 2")
    _rejects(_mutate(data, 149, b"\x01"), "present exactly in the work-item phase")
    _rejects(_mutate(data, 150, b"\x01"), "present exactly in the work-item phase")
    _rejects(_mutate(data, 141, i64(-1)), "negative")
    rec = stale_record()
    rec.address = ("tour.scale", 0, 1, 5, 0)
    wi = encode_fault_record(rec)
    assert decode_fault_record(wi) == rec
    _rejects(wi[:150] + b"\x00" + wi[151:], "present exactly in the work-item phase")
    with pytest.raises(ValueError):
        encode_fault_record(FaultRecordData(code=1, operation="x", address=("k", 0, 0, 3, 1)))
    with pytest.raises(ValueError):
        encode_fault_record(FaultRecordData(code=1, operation="x", address=("k", 0, 1, None, None)))


def test_rejects_views_outside_and_inside():
    data = encode_fault_record(stale_record())
    # a view operand is fine inside the record, a Q with bad storage is not
    _rejects(_mutate(data, 44, b"\x31\x15"), "storage tag not 11 to 14")
    _rejects(_mutate(data, 44, b"\x52"), "unknown tag")


def test_rejects_truncation_and_trailing_bytes():
    data = encode_fault_record(stale_record())
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode_fault_record(data[:cut])
    _rejects(data + b"\x00", "trailing bytes")


def test_rejects_huge_stack_count_before_allocating():
    data = encode_fault_record(stale_record())
    _rejects(data[:-4] + u32(2**32 - 1), "count larger than the bytes remaining")


def test_rejects_long_path():
    rec = stale_record()
    rec.path = "p" * 1024
    data = encode_fault_record(rec)
    assert decode_fault_record(data).path == rec.path
    at = data.index(u32(1024))
    _rejects(data[:at] + u32(1025) + b"p" * 1025 + data[at + 4 + 1024:], "longer than 1024")
    rec.path = "p" * 1025
    with pytest.raises(ValueError):
        encode_fault_record(rec)


def test_invalid_utf8_path():
    data = encode_fault_record(stale_record())
    _rejects(_mutate(data, 77, b"\xff"), "invalid UTF-8")


# --- mutation fuzzing -------------------------------------------------------------------------------

def _random_value(rng: random.Random):
    kind = rng.randrange(8)
    if kind == 0:
        bits = rng.choice([8, 16, 32, 64, 128, 256, 512, 1024])
        return ("int", True, bits), rng.randrange(-(2**(bits - 1)), 2**(bits - 1))
    if kind == 1:
        bits = rng.choice([8, 16, 32, 64])
        return ("int", False, bits), rng.randrange(0, 2**bits)
    if kind == 2:
        w = rng.choice([8, 16, 32, 64])
        return ("fixed", w, rng.randrange(w)), rng.randrange(-(2**(w - 1)), 2**(w - 1))
    if kind == 3:
        return ("bool",), rng.random() < 0.5
    if kind == 4:
        return Z, rng.randrange(-(2**rng.randrange(1, 600)), 2**rng.randrange(1, 600))
    if kind == 5:
        n = rng.randrange(4)
        return ("array", U8, (n,)), [rng.randrange(256) for _ in range(n)]
    if kind == 6:
        dims = tuple((rng.randrange(5), rng.randrange(-3, 3), rng.randrange(-9, 9)) for _ in range(rng.randrange(1, 3)))
        return ("view", I32, rng.randrange(2**64), rng.randrange(2**20), rng.randrange(-99, 99), dims, rng.randrange(2)), None
    return ("redacted", rng.choice([I64, U8, ("fixed", 32, 16)])), None


def _random_record(rng: random.Random) -> FaultRecordData:
    phase = rng.randrange(3)
    return FaultRecordData(
        code=rng.randrange(1, 14),
        operation=rng.choice(["add.checked.i64", "bind.stale", "", "muldiv.checked.i64.i64.floor"]),
        operands=[_random_value(rng) for _ in range(rng.randrange(0, 5))],
        exact=rng.choice([None, 0, -1, 2**63, rng.randrange(-(2**2000), 2**2000)]),
        limit=rng.choice([None, _random_value(rng)]),
        path=rng.choice(["tour.ci", "", "d/\u00e9.ci"]), line=rng.randrange(2**32), column=rng.randrange(2**32),
        revision=rng.choice([None, REV]), source_map=rng.choice([None, SRC]),
        address=rng.choice([None, ("tour.scale", rng.randrange(9), phase,
                                   *((rng.randrange(2**40), rng.randrange(99)) if phase == 1 else (None, None)))]),
        stack=[("a.ci", rng.randrange(99), rng.randrange(99)) for _ in range(rng.randrange(3))],
    )


def test_mutation_fuzz():
    rng = random.Random(20260517)
    accepted = mutations = 0
    for _ in range(120):
        rec = _random_record(rng)
        data = encode_fault_record(rec)
        assert decode_fault_record(data) == rec
        assert encode_fault_record(decode_fault_record(data, "compile-time"), "compile-time") == data
        for _ in range(40):
            choice = rng.randrange(5)
            m = bytearray(data)
            if choice == 0:
                for _ in range(rng.randrange(1, 4)):
                    k = rng.randrange(len(m) * 8)
                    m[k // 8] ^= 1 << (k % 8)
            elif choice == 1:
                del m[rng.randrange(len(m)):]
            elif choice == 2:
                m += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
            elif choice == 3:
                k = rng.randrange(len(m))
                m[k] = rng.randrange(256)
            else:
                k = rng.randrange(len(m))
                del m[k:k + rng.randrange(1, 6)]
            blob = bytes(m)
            for kind in ("run-time", "compile-time"):
                mutations += 1
                try:
                    got = decode_fault_record(blob, kind)
                except DecodeError:
                    continue
                accepted += 1
                assert encode_fault_record(got, kind) == blob
    assert mutations >= 9000
    assert accepted > 0          # some flips land in payload bytes and stay valid


def test_im149_compile_time_size_arithmetic():
    """IM-149: at most 2,252 bytes for targets of at most 64 bits, 2,372 with an I1024 limit.

    The spec's figures are reached with a 64-byte operation, one 513-byte literal
    operand, a 513-byte exact, a 1024-byte path, both digests, no address and no
    stack; this checks that our layout gives the same arithmetic.
    """
    def worst(limit):
        return FaultRecordData(code=6, operation="o" * 64, operands=[(Z, _z_of(513))], exact=_z_of(513),
                               limit=limit, path="p" * 1024, line=2**32 - 1, column=2**32 - 1,
                               revision=REV, source_map=SRC)
    assert len(encode_fault_record(worst((I64, 2**63 - 1)), "compile-time")) == 2252
    assert len(encode_fault_record(worst((I1024, 2**1023 - 1)), "compile-time")) == 2372
