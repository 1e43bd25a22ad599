"""A-24: decoding a type signature costs time and memory linear in its size, whatever its shape.

Issue 11 item 12: a 420 KB signature of chained combined error sets took 6 s and 1.4 GB, since each
combined set kept a copy of its flattened members.  Each shape here is about 1 MB; it must decode or
be refused within a generous time bound, and a smaller copy of it within a memory bound that a
quadratic decoder exceeds."""
from __future__ import annotations

import time
import tracemalloc

import pytest

from cint_abi import typesig as ts
from cint_abi.typesig import DOMAIN, SignatureError, decode_signature

pytestmark = pytest.mark.clause("A-24")

U8, U16, U32 = 0x21, 0x22, 0x23
MB = 1 << 20
# CPU seconds (time.process_time: the machine may be shared): the linear decoder takes about
# 0.5 s per MB; the quadratic one took 215 s for the 1 MB chain.
SECONDS_PER_MB = 3.0


def u32(n: int) -> bytes:
    return n.to_bytes(4, "little")


def nm(s: str) -> bytes:
    return u32(len(s)) + s.encode("ascii")


def plain(q: str, values, tag=U32) -> bytes:
    return b"\x73" + nm(q) + bytes([tag, 0]) + u32(len(values)) + b"".join(nm(v) for v in values)


def combined(q: str, members, tag=U32) -> bytes:
    return b"\x73" + nm(q) + bytes([tag, 1]) + u32(len(members)) + b"".join(u32(m) for m in members)


def struct(q: str, fields) -> bytes:
    return b"\x71" + nm(q) + b"\x00" + u32(len(fields)) + b"".join(nm(n) + b"\x00" + t for n, t in fields)


def signature(defs, root: int, kind=b"\x73") -> bytes:
    """One `in` parameter naming definition ``root``; no result."""
    return DOMAIN + u32(len(defs)) + b"".join(defs) + u32(0) + u32(1) + b"\x00" + kind + u32(root) + b"\x00"


def chain(size: int, tag=U32) -> bytes:
    """P0, C0 = P0, P1, C1 = C0 | P1, ...: the shape of the report (each C_k holds k + 1 values)."""
    defs = [plain("m.P0", ["a"], tag), combined("m.C0", [0], tag)]
    k, total = 1, 80
    while total < size:
        defs += [plain("m.P%d" % k, ["a"], tag), combined("m.C%d" % k, [2 * k - 1, 2 * k], tag)]
        total += len(defs[-1]) + len(defs[-2])
        k += 1
    return signature(defs, len(defs) - 1)


def fan_out(size: int) -> bytes:
    """X holds many values; each C_j = X | Q_j adds one; Z combines every C_j (all alive until Z)."""
    width = size // 4 // 10                       # a quarter of the bytes in X's values
    defs = [plain("m.A", ["v%d" % i for i in range(width)])]
    defs.append(combined("m.X", [0]))
    members, total = [], sum(map(len, defs))
    j = 0
    while total < size:
        defs.append(plain("m.Q%d" % j, ["q"]))
        defs.append(combined("m.C%d" % j, [1, len(defs) - 1]))
        members.append(len(defs) - 1)
        total += len(defs[-1]) + len(defs[-2]) + 4
        j += 1
    defs.append(combined("m.Z", members))
    return _ordered(defs)


def _ordered(defs) -> bytes:
    """The signature with the definitions renumbered into the A-21 completion order."""
    # The shapes above list definitions so that a depth-first walk from the last completes them
    # in their own order, except that the walk reaches X (index 1) through C_0 before A: fine.
    return signature(defs, len(defs) - 1)


def diamond(size: int) -> bytes:
    """D_k = D_{k-1} | X_k with X_k = D_{k-1}: 2**k paths, one set of values."""
    defs = [plain("m.A", ["v%d" % i for i in range(200)], U8)]
    k, total = 1, len(defs[0])
    while total < size:
        defs.append(combined("m.X%d" % k, [2 * k - 2], U8))
        defs.append(combined("m.D%d" % k, [2 * k - 2, 2 * k - 1], U8))
        total += len(defs[-1]) + len(defs[-2])
        k += 1
    return signature(defs, len(defs) - 1)


def wide(size: int) -> bytes:
    """Many one-value plain sets and one combined U32 set of all of them."""
    defs, total = [], 0
    while total < size:
        defs.append(plain("m.P%d" % len(defs), ["a"]))
        total += len(defs[-1]) + 4
    defs.append(combined("m.W", list(range(len(defs)))))
    return signature(defs, len(defs) - 1)


def structs(size: int) -> bytes:
    """S_k has one field of type S_{k-1}: nesting as deep as the input allows."""
    defs = [struct("m.S0", [("a", b"\x14")])]
    total = len(defs[0])
    while total < size:
        defs.append(struct("m.S%d" % len(defs), [("x", b"\x71" + u32(len(defs) - 1))]))
        total += len(defs[-1])
    return signature(defs, len(defs) - 1, kind=b"\x71")


def too_many_at_the_end(size: int) -> bytes:
    """A long U16 chain whose last set is U8 and holds more than 255 values: refused."""
    data = bytearray(chain(size, U16))
    # the last definition is C_last, a combined set: turn its underlying tag into U8
    last = data.rindex(b"\x73" + nm("m.C%d" % (data.count(b"m.C") - 1)))
    at = last + 1 + 4 + len("m.C%d" % (data.count(b"m.C") - 1))
    assert data[at] == U16
    data[at] = U8
    return bytes(data)


SHAPES = {
    "chain": (chain, True),
    "chain_u16": (lambda n: chain(n, U16), True),
    "fan_out": (fan_out, True),
    "diamond": (diamond, True),
    "wide": (wide, True),
    "structs": (structs, True),
    "too_many_at_the_end": (too_many_at_the_end, False),
}


def _decode(data: bytes):
    try:
        return decode_signature(data)
    except SignatureError as e:
        return e


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_1_mb_signature_decodes_in_linear_time(name):
    make, valid = SHAPES[name]
    data = make(MB)
    assert MB <= len(data) < 2 * MB
    t = time.process_time()
    got = _decode(data)
    spent = time.process_time() - t
    if valid:
        assert not isinstance(got, SignatureError), str(got)
    else:
        assert isinstance(got, SignatureError) and got.rule == ts.R_TOO_MANY, got
    assert spent < SECONDS_PER_MB * len(data) / MB, "%s: %.2f s for %d bytes" % (name, spent, len(data))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_decoding_memory_is_linear(name):
    make, _ = SHAPES[name]
    data = make(MB // 16)
    tracemalloc.start()
    try:
        _decode(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the decoded model itself takes some 20 bytes of objects per input byte
    assert peak < 64 * len(data), "%s: peak %.1f MB for %d bytes" % (name, peak / 1e6, len(data))


@pytest.mark.parametrize("field,least", [("definition count", 13), ("value count", 5), ("member count", 4),
                                         ("field count", 7), ("parameter count", 2)])
def test_huge_counts_are_refused_before_anything_is_read(field, least):
    huge = u32(0xFFFFFFFF)
    pad = b"\x00" * 4096
    if field == "definition count":
        data = DOMAIN + huge + pad
    elif field == "value count":
        data = DOMAIN + u32(1) + b"\x73" + nm("m.E") + bytes([U32, 0]) + huge + pad
    elif field == "member count":
        data = DOMAIN + u32(2) + plain("m.E", ["a"]) + b"\x73" + nm("m.C") + bytes([U32, 1]) + huge + pad
    elif field == "field count":
        data = DOMAIN + u32(1) + b"\x71" + nm("m.S") + b"\x00" + huge + pad
    else:
        data = DOMAIN + u32(0) + u32(0) + huge + pad
    t = time.process_time()
    with pytest.raises(SignatureError) as e:
        decode_signature(data)
    assert e.value.rule == ts.R_COUNT, str(e.value)
    assert time.process_time() - t < 0.1


def test_an_early_set_size_error_is_reported_before_a_later_error():
    """The values of combined sets are counted after the definitions are read; the error earliest in
    the bytes is still the one reported."""
    defs = [plain("m.A", ["v%d" % i for i in range(200)], U8), plain("m.B", ["w%d" % i for i in range(100)], U8)]
    defs.append(combined("m.C", [0, 1], U8))                  # 300 values in U8: too many
    good = signature(defs, 2)
    e = pytest.raises(SignatureError, decode_signature, good).value
    assert e.rule == ts.R_TOO_MANY
    at = e.offset
    assert good[at - 1 - 4 - 4 - 3:at].endswith(bytes([U8, 1]))
    bad_later = good[:-1] + b"\x07"                           # an unknown result tag after it
    e2 = pytest.raises(SignatureError, decode_signature, bad_later).value
    assert (e2.rule, e2.offset) == (ts.R_TOO_MANY, at)
    broken_def = DOMAIN + u32(4) + b"".join(defs) + b"\x99"   # a fourth definition with a bad tag
    e3 = pytest.raises(SignatureError, decode_signature, broken_def).value
    assert (e3.rule, e3.offset) == (ts.R_TOO_MANY, at)
