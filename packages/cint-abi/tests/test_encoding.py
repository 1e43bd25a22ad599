"""SPEC-01P.1 section 11.1 and 11.4: values, Z, descriptors, the IM-148 decoder obligations, identities."""
from __future__ import annotations

import hashlib
import struct

import pytest
from hypothesis import given, settings, strategies as st

from cint_abi import codes
from cint_abi.encoding import (
    M64, DecodeError, decode_tagged, decode_tagged_exact, decode_z, encode_args, encode_desc,
    encode_tagged, encode_z, frame, i64, revision_identity, sha256, u8, u16, u32, u64,
)

I8, I64, U8, U64, I128 = ("int", True, 8), ("int", True, 64), ("int", False, 8), ("int", False, 64), ("int", True, 128)
Q16_16 = ("fixed", 32, 16)
BOOL, Z = ("bool",), ("z",)


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def rejects(data: bytes, rule: str, **kw) -> DecodeError:
    with pytest.raises(DecodeError) as e:
        decode_tagged_exact(data, **kw)
    assert rule in str(e.value), str(e.value)
    return e.value


# --- IM-148 example table: every row, both directions ---------------------------------------

TABLE = [
    (I64, -2, "14 fe ff ff ff ff ff ff ff", {}),
    (I64, 1000, "14 e8 03 00 00 00 00 00 00", {}),
    (U8, 255, "21 ff", {}),
    (Q16_16, 98304, "31 13 10 00 00 80 01 00", {}),                     # 1.5, raw 98304
    (I128, 2**64, "15 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00", {}),
    (Z, 9223372036854775808, "0f 09 00 00 00 00 00 00 00 00 00 00 80 00", {}),
    (Z, -1, "0f 01 00 00 00 ff", {}),
    (("array", I8, (3,)), [120, 120, -120], "51 11 01 03 00 00 00 00 00 00 00 78 78 88", {}),
    (("redacted", I64), None, "7f 14", {"in_fault_record": True}),
]


@pytest.mark.parametrize("desc,value,hexbytes,kw", TABLE)
def test_im148_table_encode(desc, value, hexbytes, kw):
    assert encode_tagged(desc, value) == h(hexbytes)


@pytest.mark.parametrize("desc,value,hexbytes,kw", TABLE)
def test_im148_table_decode(desc, value, hexbytes, kw):
    assert decode_tagged_exact(h(hexbytes), **kw) == (desc, value)
    d, v, end = decode_tagged(h(hexbytes) + b"\xaa", **kw)
    assert (d, v, end) == (desc, value, len(h(hexbytes)))


def test_q16_16_is_one_and_a_half():
    assert 98304 / 2**16 == 1.5


# --- 13.2 fixtures ---------------------------------------------------------------------------

def test_fixture_93_i128():
    assert encode_tagged(I128, 2**64) == h("15 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00")


def test_fixture_94_q16_16():
    assert encode_tagged(Q16_16, 98304) == h("31 13 10 00 00 80 01 00")


def test_fixture_111_size_exceeds_m64():
    data = h("51 14 02") + i64(2**62) + i64(2**62)
    rejects(data, "exceeds M64")
    with pytest.raises(DecodeError):
        decode_tagged(data)


def test_fixture_112_z_too_long():
    data = h("0f") + u32(258) + bytes(257) + b"\x01"
    e = rejects(data, "Z too long")
    assert e.offset == 1


def test_fixture_113_q_f_32_on_i32():
    e = rejects(h("31 13 20 00") + bytes(4), "fraction above w - 1")
    assert e.offset == 2


def test_fixture_114_rank_9():
    rejects(h("51 11 09") + b"".join(i64(1) for _ in range(9)) + bytes(9), "rank not 1 to 8")


def test_fixture_115_truncated():
    e = rejects(h("14 fe ff"), "truncated")
    assert e.offset == 1


# --- the remaining IM-148 obligations ---------------------------------------------------------

@pytest.mark.parametrize("tag", [0x00, 0x02, 0x10, 0x19, 0x20, 0x25, 0x30, 0x52, 0x73, 0x74, 0x80, 0xFF])
def test_unknown_tags(tag):
    rejects(bytes([tag]) + bytes(16), "unknown tag")


@pytest.mark.parametrize("tag", [0x41, 0x42, 0x43, 0x44])
def test_ternary_tags_unsupported(tag):
    rejects(bytes([tag]) + bytes(16), "unsupported tag")


def test_view_and_redacted_only_in_fault_records():
    view = ("view", I64, 3, 1, 0, ((4, 0, 1),), 0)
    data = encode_tagged(view, None)
    rejects(data, "tag 61 outside a fault record")
    assert decode_tagged_exact(data, in_fault_record=True) == (view, None)
    rejects(h("7f 14"), "tag 7f outside a fault record")
    rejects(h("51 7f 14 01") + i64(1), "tag 7f outside")
    rejects(h("7f 7f 14"), "redacted placement", in_fault_record=True)


def test_view_layout_and_checks():
    view = ("view", ("fixed", 16, 15), 7, 2, -3, ((4, 0, 1), (2, -1, -4)), 1)
    data = encode_tagged(view, None)
    expected = (h("61 31 12 0f 00") + u64(7) + u64(2) + u8(2) + i64(-3)
                + i64(4) + i64(0) + i64(1) + i64(2) + i64(-1) + i64(-4) + b"\x01")
    assert data == expected
    assert decode_tagged_exact(data, in_fault_record=True) == (view, None)
    rejects(data[:-1] + b"\x02", "permission", in_fault_record=True)
    bad = bytearray(data)
    bad[5 + 16] = 0
    rejects(bytes(bad), "rank not 1 to 8", in_fault_record=True)
    neg = h("61 14") + u64(0) + u64(0) + u8(1) + i64(0) + i64(-1) + i64(0) + i64(1) + b"\x00"
    rejects(neg, "negative extent", in_fault_record=True)


@pytest.mark.parametrize("b", [0x02, 0x80, 0xFF])
def test_bad_bool(b):
    rejects(bytes([0x01, b]), "invalid Bool")
    rejects(h("51 01 01") + i64(2) + bytes([1, b]), "invalid Bool")


def test_bool_values():
    assert decode_tagged_exact(h("01 00")) == (BOOL, False)
    assert decode_tagged_exact(h("01 01")) == (BOOL, True)


@pytest.mark.parametrize("payload", ["01 00 00 00 00", "02 00 00 00 7f 00", "02 00 00 00 80 ff",
                                     "03 00 00 00 01 00 00", "09 00 00 00 ff ff ff ff ff ff ff ff ff"])
def test_non_minimal_z(payload):
    rejects(h("0f " + payload), "non-minimal Z")


def test_z_bound_is_the_callers():
    v = 2**(8 * 300 - 1) - 1                     # 300 bytes
    data = encode_tagged(Z, v)
    rejects(data, "Z too long")
    assert decode_tagged_exact(data, z_bound=513) == (Z, v)


def test_z_length_larger_than_remaining():
    rejects(h("0f") + u32(5) + b"\x01", "truncated")


@pytest.mark.parametrize("storage", [0x00, 0x10, 0x15, 0x18, 0x21, 0x24, 0x31])
def test_q_storage_tag(storage):
    rejects(bytes([0x31, storage]) + u16(0) + bytes(8), "storage tag not 11 to 14")


@pytest.mark.parametrize("w,f,ok", [(8, 7, True), (8, 8, False), (16, 15, True), (32, 31, True),
                                    (64, 63, True), (64, 64, False), (32, 0xFFFF, False)])
def test_q_fraction_bound(w, f, ok):
    tag = {8: 0x11, 16: 0x12, 32: 0x13, 64: 0x14}[w]
    data = bytes([0x31, tag]) + u16(f) + bytes(w // 8)
    if ok:
        assert decode_tagged_exact(data) == (("fixed", w, f), 0)
    else:
        rejects(data, "fraction above w - 1")


def test_array_rank_zero_and_negative_extent():
    rejects(h("51 11 00"), "rank not 1 to 8")
    rejects(h("51 11 01") + i64(-1), "negative extent")


def test_array_payload_must_match_remaining():
    good = encode_tagged(("array", I64, (2, 3)), [[1, 2, 3], [4, 5, 6]])
    assert decode_tagged_exact(good)[1] == [[1, 2, 3], [4, 5, 6]]
    rejects(good + b"\x00", "differs from the bytes remaining")
    rejects(good[:-1], "larger than the bytes remaining")
    e = None
    with pytest.raises(DecodeError) as e:
        decode_tagged(good[:-1])
    assert "larger than the bytes remaining" in str(e.value)


def test_array_size_checked_before_allocating():
    # 2^40 elements announced with a few bytes behind them: rejected at once, nothing allocated
    data = h("51 14 01") + i64(2**40) + bytes(16)
    rejects(data, "larger than the bytes remaining")
    # rank 8 extents whose product overflows M64 by far
    rejects(h("51 11 08") + b"".join(i64(M64) for _ in range(8)), "exceeds M64")


def test_array_rank_count_larger_than_remaining():
    rejects(h("51 11 08") + i64(1), "count larger than the bytes remaining")


def test_zero_size_arrays():
    assert decode_tagged_exact(encode_tagged(("array", I8, (0,)), [])) == (("array", I8, (0,)), [])
    d = ("array", I8, (2, 0, 5))
    assert decode_tagged_exact(encode_tagged(d, [[], []])) == (d, [[], []])
    rejects(h("51 11 02") + i64(2**40) + i64(0), "implementation limit")


def test_array_element_kinds():
    rejects(h("51 0f 01") + i64(0), "element type")
    rejects(h("51 51 11 01") + i64(1) + h("01") + i64(1), "element type")
    with pytest.raises(ValueError):
        encode_desc(("array", Z, (1,)))
    with pytest.raises(ValueError):
        encode_desc(("array", ("array", I8, (1,)), (1,)))


def test_struct_needs_layout():
    pt = ("struct", "geo.Point", (I64, I8, ("array", U8, (2,))))
    data = encode_tagged(pt, [5, -1, [1, 2]])
    assert data == h("71") + u32(9) + b"geo.Point" + i64(5) + h("ff 01 02")
    rejects(data, "struct layout unknown")
    assert decode_tagged_exact(data, structs={"geo.Point": pt[2]}) == (pt, [5, -1, [1, 2]])
    arr = ("array", pt, (2,))
    data = encode_tagged(arr, [[1, 2, [3, 4]], [5, 6, [7, 8]]])
    assert decode_tagged_exact(data, structs={"geo.Point": pt[2]}) == (arr, [[1, 2, [3, 4]], [5, 6, [7, 8]]])
    rejects(data[:-1], "larger than the bytes remaining", structs={"geo.Point": pt[2]})
    rejects(h("71") + u32(2) + b"\xff\xfe", "invalid UTF-8")
    rejects(h("71") + u32(100) + b"ab", "length larger than the bytes remaining")


def test_redacted_struct_needs_no_layout():
    data = h("7f 71") + u32(3) + b"a.B"
    assert decode_tagged_exact(data, in_fault_record=True) == (("redacted", ("struct", "a.B", None)), None)


def test_trailing_bytes():
    rejects(h("21 ff 00"), "trailing bytes")
    assert decode_tagged(h("21 ff 00")) == (U8, 255, 2)


def test_empty_and_offset():
    rejects(b"", "truncated")
    assert decode_tagged(h("00 00 21 07"), 2) == (U8, 7, 4)
    with pytest.raises(ValueError):
        decode_tagged(b"\x21\x07", 3)


def test_decode_error_names_offset_and_rule():
    with pytest.raises(DecodeError) as e:
        decode_tagged_exact(h("51 11 01") + i64(-5))
    assert e.value.offset == 3 and "IM-148 negative extent" in str(e.value) and str(e.value).startswith("offset 3:")
    assert isinstance(e.value, ValueError)


# --- Z -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("v,hexbytes", [
    (0, "00 00 00 00"), (1, "01 00 00 00 01"), (-1, "01 00 00 00 ff"), (127, "01 00 00 00 7f"),
    (128, "02 00 00 00 80 00"), (-128, "01 00 00 00 80"), (-129, "02 00 00 00 7f ff"),
    (255, "02 00 00 00 ff 00"), (256, "02 00 00 00 00 01"),
])
def test_z_small(v, hexbytes):
    assert encode_z(v) == h(hexbytes)
    assert decode_z(h(hexbytes), 0) == (v, len(h(hexbytes)))


@settings(max_examples=500)
@given(st.integers(min_value=-(2**2055), max_value=2**2055))
def test_z_round_trip(v):
    data = encode_z(v)
    n = struct.unpack_from("<I", data)[0]
    assert n == len(data) - 4
    assert decode_z(data, 0, bound=520) == (v, len(data))
    # minimal: the value does not fit one byte fewer
    if n:
        lo, hi = -(2**(8 * (n - 1) - 1)), 2**(8 * (n - 1) - 1) - 1
        assert n == 1 or not lo <= v <= hi


def test_decode_z_bound_and_position():
    data = b"\xaa" + encode_z(-(2**2055))       # 257 bytes, the run-time bound
    assert len(data) == 1 + 4 + 257
    assert decode_z(data, 1) == (-(2**2055), len(data))
    big = b"\xaa" + encode_z(2**2055)             # 258 bytes
    with pytest.raises(DecodeError, match="Z too long"):
        decode_z(big, 1)
    assert decode_z(big, 1, bound=513)[0] == 2**2055


# --- encoder refusals ---------------------------------------------------------------------------

@pytest.mark.parametrize("desc,value", [
    (I8, 128), (U8, -1), (U64, 2**64), (I64, True), (BOOL, 2), (Q16_16, 2**31),
    (("array", I8, (2,)), [1]), (("array", I8, (1, 2)), [[1, 2, 3]]), (("view", I8, 0, 0, 0, ((1, 0, 1),), 0), 5),
])
def test_encoder_refuses_values(desc, value):
    with pytest.raises((ValueError, TypeError)):
        encode_tagged(desc, value)


@pytest.mark.parametrize("desc", [
    ("int", False, 128), ("int", True, 12), ("fixed", 128, 3), ("fixed", 32, 32), ("array", I8, ()),
    ("array", I8, (1,) * 9), ("array", I8, (-1,)), ("array", I64, (2**61, 2**61)), ("redacted", ("redacted", I8)),
    ("view", I8, 0, 0, 0, ((1, 0, 1),), 2), ("nope",), ("z", 1),
])
def test_encoder_refuses_descriptors(desc):
    with pytest.raises((ValueError, TypeError)):
        encode_desc(desc)


# --- round trips -----------------------------------------------------------------------------

_INT_DESCS = [("int", True, b) for b in (8, 16, 32, 64, 128, 256, 512, 1024)] + \
             [("int", False, b) for b in (8, 16, 32, 64)]


@st.composite
def scalar(draw):
    kind = draw(st.sampled_from(["int", "fixed", "bool"]))
    if kind == "int":
        d = draw(st.sampled_from(_INT_DESCS))
        lo, hi = (-(2**(d[2] - 1)), 2**(d[2] - 1) - 1) if d[1] else (0, 2**d[2] - 1)
        return d, (lambda: st.integers(lo, hi))
    if kind == "fixed":
        w = draw(st.sampled_from([8, 16, 32, 64]))
        f = draw(st.integers(0, w - 1))
        return ("fixed", w, f), (lambda: st.integers(-(2**(w - 1)), 2**(w - 1) - 1))
    return BOOL, st.booleans


@st.composite
def tagged(draw):
    d, values = draw(scalar())
    shape = draw(st.sampled_from(["scalar", "array", "z"]))
    if shape == "z":
        return Z, draw(st.integers(-(2**2000), 2**2000))
    if shape == "scalar":
        return d, draw(values())
    extents = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))

    def build(depth):
        if depth == len(extents) - 1:
            return draw(st.lists(values(), min_size=extents[depth], max_size=extents[depth]))
        return [build(depth + 1) for _ in range(extents[depth])]

    return ("array", d, extents), build(0)


@settings(max_examples=400)
@given(tagged())
def test_tagged_round_trip(dv):
    desc, value = dv
    data = encode_tagged(desc, value)
    assert decode_tagged_exact(data) == (desc, value)
    assert data.startswith(encode_desc(desc))


@settings(max_examples=300)
@given(tagged(), st.binary(max_size=40))
def test_decoder_never_raises_anything_else(dv, noise):
    data = encode_tagged(*dv)
    for cut in {0, len(data) // 2, max(0, len(data) - 1)}:
        for blob in (data[:cut] + noise, noise + data):
            try:
                d, v = decode_tagged_exact(blob, in_fault_record=True)
            except DecodeError:
                continue
            assert encode_tagged(d, v) == blob


# --- framing, packers, hashes, identities --------------------------------------------------------

def test_frame_and_packers():
    assert frame("cint-core-1/fault/v2") == u32(20) + b"cint-core-1/fault/v2"
    assert u8(255) == b"\xff" and u16(0x1234) == b"\x34\x12" and u32(1) == b"\x01\0\0\0"
    assert u64(2**64 - 1) == b"\xff" * 8 and i64(-1) == b"\xff" * 8 and i64(-(2**63)) == bytes(7) + b"\x80"
    for f, bad in ((u8, 256), (u16, -1), (u32, 2**32), (u64, -1), (i64, 2**63)):
        with pytest.raises(ValueError):
            f(bad)
    with pytest.raises(UnicodeEncodeError):
        frame("caf\u00e9")


def _sha256_reference(message: bytes) -> bytes:
    """FIPS 180-4 SHA-256 in plain Python, independent of hashlib."""
    def rotr(x, n):
        return ((x >> n) | (x << (32 - n))) & 0xFFFFFFFF

    def primes(count):
        found, n = [], 2
        while len(found) < count:
            if all(n % p for p in found if p * p <= n):
                found.append(n)
            n += 1
        return found

    def frac_bits(x, root):
        # the first 32 bits of the fractional part of x ** (1 / root), by integer root
        scaled = x << (64 * root)
        lo, hi = 0, 1 << (64 + 8)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if mid ** root <= scaled:
                lo = mid
            else:
                hi = mid - 1
        return (lo >> 32) & 0xFFFFFFFF

    ps = primes(64)
    k = [frac_bits(p, 3) for p in ps]
    state = [frac_bits(p, 2) for p in ps[:8]]
    data = message + b"\x80" + bytes((55 - len(message)) % 64) + (8 * len(message)).to_bytes(8, "big")
    for off in range(0, len(data), 64):
        w = list(struct.unpack(">16I", data[off:off + 64]))
        for t in range(16, 64):
            s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w.append((w[t - 16] + s0 + w[t - 7] + s1) & 0xFFFFFFFF)
        a, b, c, d, e, f, g, hh = state
        for t in range(64):
            t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t]) & 0xFFFFFFFF
            t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) & 0xFFFFFFFF
            a, b, c, d, e, f, g, hh = (t1 + t2) & 0xFFFFFFFF, a, b, c, (d + t1) & 0xFFFFFFFF, e, f, g
        state = [(x + y) & 0xFFFFFFFF for x, y in zip(state, (a, b, c, d, e, f, g, hh))]
    return struct.pack(">8I", *state)


@pytest.mark.parametrize("message,digest", [
    (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),   # IM-154
    (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
])
def test_sha256_standard_vectors(message, digest):
    assert sha256(message).hex() == digest
    assert _sha256_reference(message).hex() == digest


def test_sha256_reference_agrees_on_other_lengths():
    for n in (1, 55, 56, 63, 64, 65, 127, 200):
        msg = bytes(range(256))[:n] * 1
        assert _sha256_reference(msg) == sha256(msg)


def test_revision_identity_layout():
    modules = [("tour", b"SIR-tour"), ("geo.vec", b"\x00\x01"), ("abc", b"")]
    expected = (u32(23) + b"cint-core-1/revision/v1" + u32(11) + b"cint-core-1" + u32(9) + b"cint-rt-3"
                + u32(3)
                + u32(3) + b"abc" + u64(0)
                + u32(7) + b"geo.vec" + u64(2) + b"\x00\x01"
                + u32(4) + b"tour" + u64(8) + b"SIR-tour")
    got = revision_identity(codes.PROFILE, codes.RUNTIME_CONTRACT, modules)
    assert got == hashlib.sha256(expected).digest() and len(got) == 32
    assert revision_identity(codes.PROFILE, codes.RUNTIME_CONTRACT, list(reversed(modules))) == got
    assert revision_identity(codes.PROFILE, "cint-rt-2", modules) != got


def test_revision_identity_sorts_by_utf8_bytes():
    # U+00E9 sorts after "z" by bytes (c3 a9 > 7a); U+FF21 after U+00E9
    a = revision_identity("p", "r", [("\uff21", b"1"), ("z", b"2"), ("\u00e9", b"3")])
    body = (frame("cint-core-1/revision/v1") + frame("p") + frame("r") + u32(3)
            + u32(1) + b"z" + u64(1) + b"2" + u32(2) + "\u00e9".encode() + u64(1) + b"3"
            + u32(3) + "\uff21".encode() + u64(1) + b"1")
    assert a == hashlib.sha256(body).digest()
    with pytest.raises(ValueError, match="twice"):
        revision_identity("p", "r", [("m", b""), ("m", b"x")])


def test_encode_args():
    data = encode_args("tour.greet", [(I64, 2), (("array", U8, (3,)), [49, 50, 51])])
    assert data == (frame("cint-core-1/args/v1") + u32(10) + b"tour.greet" + u32(2)
                    + h("14 02 00 00 00 00 00 00 00") + h("51 21 01") + i64(3) + b"123")
    with pytest.raises(ValueError):
        encode_args("m.f", [(("redacted", I64), None)])
