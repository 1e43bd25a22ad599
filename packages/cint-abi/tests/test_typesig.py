"""SPEC-03P.1 7.4 and 7.5: the type-signature codec (A-20, A-21, A-22, A-24, A-26)."""
from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings, strategies as st
from spec_paths import EXAMPLES

from cint_abi.codes import DOMAIN_TYPE_SIGNATURE_V1
from cint_abi import typesig as ts
from cint_abi.typesig import (
    DOMAIN, I8, I16, I32, I64, I128, I256, I1024, U8, U16, U32, U64, Any, Array, Bool, Bound,
    CombinedErrorSetDef, ErrorSetDef, ErrorSetRef, ErrorUnion, Extent, Fixed, Int, Param, Range,
    Signature, SignatureError, StructDef, StructRef, build_signature, decode_signature,
    encode_signature, format_c_prototype,
)

pytestmark = pytest.mark.clause("A-20", "A-21", "A-24")

# ---------------------------------------------------------------------------
# 7.4 example 4: the bytes reflect.c prints after the 33-byte domain string

REFLECT_HEX = {
    "parse_u": (117, """
        01 00 00 00 73 0f 00 00 00 74 6f 75 72 2e 50 61
        72 73 65 45 72 72 6f 72 22 00 03 00 00 00 05 00
        00 00 65 6d 70 74 79 09 00 00 00 62 61 64 5f 64
        69 67 69 74 09 00 00 00 74 6f 6f 5f 6c 61 72 67
        65 00 00 00 00 01 00 00 00 00 52 21 01 00 74 00
        00 00 00 14"""),
    "scale": (82, """
        00 00 00 00 01 00 00 00 03 00 00 00 00 52 14 01
        01 00 00 00 00 00 00 00 00 00 00 00 00 00 14 02
        52 14 01 01 00 00 00 00 00 00 00 00 00 00 00 00
        00"""),
    "greet": (48, "00 00 00 00 00 00 00 00 01 00 00 00 00 14 14"),
}
REFLECT = {k: DOMAIN + bytes.fromhex(h) for k, (_, h) in REFLECT_HEX.items()}
REFLECT_OUT = str(EXAMPLES / "reflect.out")

# tour.ci: error ParseError { empty, bad_digit, too_large } (module tour, default U16)
PARSE_ERROR = ErrorSetDef("tour.ParseError", U16, ["empty", "bad_digit", "too_large"])
N = Extent(Bound(0, 0))   # [n], n the first size symbol


def tour_signatures() -> dict[str, Signature]:
    return {
        # export ParseError!I64 parse_u(in U8[_] s)
        "parse_u": build_signature([Param("in", Array(U8, [Any()]))],
                                   ErrorUnion(value=I64, defn=PARSE_ERROR), 0),
        # export kernel scale[n](in I64[n] x, in I64 k, out I64[n] y)
        "scale": build_signature([Param("in", Array(I64, [N])), Param("in", I64),
                                  Param("out", Array(I64, [N]))], None, 1),
        # export I64 greet(I64 times)
        "greet": build_signature([Param("in", I64)], I64, 0),
    }


def test_domain_is_33_bytes():
    assert DOMAIN == b"\x1d\x00\x00\x00" + DOMAIN_TYPE_SIGNATURE_V1.encode()
    assert len(DOMAIN) == 33


@pytest.mark.parametrize("name", ["parse_u", "scale", "greet"])
def test_reflect_signatures_byte_exact(name):
    sig = tour_signatures()[name]
    data = encode_signature(sig)
    assert len(data) == REFLECT_HEX[name][0]
    assert data == REFLECT[name]
    assert decode_signature(data) == sig
    assert encode_signature(decode_signature(data)) == data


def test_reflect_out_matches_embedded_copy():
    if not os.path.exists(REFLECT_OUT):
        pytest.skip("the spec examples are not on this machine")
    got, name = {}, None
    for line in open(REFLECT_OUT, encoding="utf-8"):
        if line.startswith("  ") and not line.startswith("    "):
            name = line.split(":")[0].strip()
            got[name] = bytearray()
        elif line.startswith("    ") and name:
            got[name] += bytes.fromhex(line)
    assert {k: DOMAIN + bytes(v) for k, v in got.items()} == REFLECT


def test_decoded_models_read_as_the_spec_says():
    p = decode_signature(REFLECT["parse_u"])
    assert p.definitions == (PARSE_ERROR,)
    assert p.size_count == 0
    assert p.params == (Param("in", Array(U8, (Any(),))),)
    assert p.result == ErrorUnion(0, I64)
    s = decode_signature(REFLECT["scale"])
    assert s == Signature((), 1, [Param("in", Array(I64, [N])), Param("in", I64),
                                  Param("out", Array(I64, [N]))], None)
    assert decode_signature(REFLECT["greet"]) == Signature([], 0, [Param("in", I64)], I64)


def test_c_prototypes_of_tour():
    sigs = tour_signatures()
    # tour.c: typedef struct { uint16_t tag; int64_t value; } parse_result; parse_fn, scale_fn, greet_fn
    assert format_c_prototype("parse_u", sigs["parse_u"], param_names=["s"]) == (
        "cint_status parse_u(cint_ctx *ctx, int64_t fuel, cint_view s, "
        "struct { uint16_t tag; int64_t value; } *result);")
    assert format_c_prototype("cx_4_tour_5_scale", sigs["scale"], param_names=["x", "k", "y"]) == (
        "cint_status cx_4_tour_5_scale(cint_ctx *ctx, int64_t fuel, cint_view x, int64_t k, cint_view y);")
    assert format_c_prototype("greet", sigs["greet"]) == (
        "cint_status greet(cint_ctx *ctx, int64_t fuel, int64_t p0, int64_t *result);")


def test_c_prototype_forms():
    point = StructDef("geo.Point", 0, [("x", 0, I32), ("y", 0, I32)])
    flags = StructDef("geo.Flags", 1, [("mode", 3, U16), ("kind", 4, U16), ("armed", 1, Bool()),
                                       ("on", 1, Bool()), ("trim", 12, I16), ("pts", 0, Array(I8, [Extent(Bound(None, 3))]))])
    err = ErrorSetDef("geo.E", U8, ["bad"])
    sig = build_signature([Param("in", I128), Param("in", Fixed(32, 16)), Param("in", Bool()),
                           Param("inout", StructRef(defn=point)), Param("in", ErrorSetRef(defn=err)),
                           Param("in", U64)],
                          StructRef(defn=flags))
    proto = format_c_prototype("f", sig, param_names=["a", "q", "int", "pt", "e", "ctx"])
    assert proto == (
        "cint_status f(cint_ctx *ctx, int64_t fuel, struct { uint64_t limbs[2]; } *a, int32_t q, "
        "uint8_t int_, cint_view pt, uint8_t e, uint64_t ctx_, struct /* packed */ { "
        "uint16_t mode; /* bits: mode 0..2, kind 3..6 */ uint8_t armed; /* bits: armed 0..0, on 1..1 */ "
        "int16_t trim; /* bits: trim 0..11 */ int8_t pts[3]; } *result);")
    void_union = build_signature([], ErrorUnion(value=None, defn=err))
    assert format_c_prototype("g", void_union) == "cint_status g(cint_ctx *ctx, int64_t fuel, struct { uint8_t tag; } *result);"
    wide = build_signature([], ErrorUnion(value=I1024, defn=err))
    assert "struct { uint8_t tag; struct { uint64_t limbs[16]; } value; } *result" in format_c_prototype("w", wide)
    assert format_c_prototype("v", build_signature([], None)) == "cint_status v(cint_ctx *ctx, int64_t fuel);"
    with pytest.raises(ValueError):
        format_c_prototype("not a name", void_union)
    with pytest.raises(ValueError):
        format_c_prototype("g", sig, param_names=["a"])


# ---------------------------------------------------------------------------
# build_signature: the A-21 order

def test_build_orders_definitions_by_completion():
    s0 = StructDef("m.S0", 0, [("a", 0, I64)])
    e2 = ErrorSetDef("m.E2", U8, ["x"])
    s1 = StructDef("m.S1", 0, [("s", 0, StructRef(defn=s0)), ("e", 0, ErrorSetRef(defn=e2)),
                               ("t", 0, Array(StructRef(defn=s0), [Extent(Bound(None, 2))]))])
    eb = ErrorSetDef("m.Eb", U16, ["y", "z"])
    e3 = CombinedErrorSetDef("m.E3", U16, [eb, ErrorSetRef(defn=e2)])
    sig = build_signature([Param("in", StructRef(defn=s1)), Param("in", ErrorSetRef(defn=eb))],
                          ErrorUnion(value=StructRef(defn=s0), defn=e3))
    assert [d.qname for d in sig.definitions] == ["m.S0", "m.E2", "m.S1", "m.Eb", "m.E3"]
    assert sig.params[0].type == StructRef(2)
    assert sig.definitions[2].fields[2][2] == Array(StructRef(0), [Extent(Bound(None, 2))])
    assert sig.definitions[4] == CombinedErrorSetDef("m.E3", U16, [3, 1])
    assert sig.result == ErrorUnion(4, StructRef(0))
    assert decode_signature(encode_signature(sig)) == sig


def test_build_merges_equal_definitions_and_refuses_clashing_ones():
    a1 = ErrorSetDef("m.E", U8, ["x"])
    a2 = ErrorSetDef("m.E", U8, ["x"])
    sig = build_signature([Param("in", ErrorSetRef(defn=a1)), Param("in", ErrorSetRef(defn=a2))])
    assert len(sig.definitions) == 1
    b = ErrorSetDef("m.E", U8, ["y"])
    with pytest.raises(SignatureError) as e:
        build_signature([Param("in", ErrorSetRef(defn=a1)), Param("in", ErrorSetRef(defn=b))])
    assert e.value.rule == ts.R_DUP_DEF
    # A struct and an error set may share a name: the rule is per kind.
    s = StructDef("m.E", 0, [("f", 0, Bool())])
    assert len(build_signature([("in", StructRef(defn=s)), ("in", ErrorSetRef(defn=a1))]).definitions) == 2
    with pytest.raises(SignatureError):
        build_signature([Param("in", StructRef(0))])      # an index, not an object
    with pytest.raises(SignatureError):
        build_signature([Param("in", StructRef(defn=a1))])  # of another kind


def test_encoder_refuses_what_the_decoder_refuses():
    with pytest.raises(SignatureError) as e:
        encode_signature(Signature([], 0, [Param("in", Int(True, 7))]))
    assert e.value.rule == ts.R_MODEL and e.value.offset == 46
    with pytest.raises(SignatureError) as e:
        encode_signature(Signature([], 0, [Param("sideways", I64)]))
    assert e.value.rule == ts.R_MODE
    with pytest.raises(SignatureError) as e:
        encode_signature(Signature([], 0, [], Array(I8, [Any()])))
    assert e.value.rule == ts.R_PLACE
    with pytest.raises(SignatureError) as e:
        encode_signature(Signature([ErrorSetDef("m.E", U8, [])], 0, []))
    assert e.value.rule == ts.R_UNREFERENCED
    with pytest.raises(SignatureError) as e:
        encode_signature(Signature([], 0, [Param("in", Fixed(32, 32))]))
    assert e.value.rule == ts.R_Q_F
    with pytest.raises(SignatureError) as e:
        encode_signature(Signature([], 0, [Param("in", Fixed(128, 3))]))
    assert e.value.rule == ts.R_Q_STORAGE


# ---------------------------------------------------------------------------
# Crafted inputs: every A-24 rejection

def u32(n: int) -> bytes:
    return n.to_bytes(4, "little")


def i64(n: int) -> bytes:
    return n.to_bytes(8, "little", signed=True)


def nm(s) -> bytes:
    b = s.encode("utf-8") if isinstance(s, str) else s
    return u32(len(b)) + b


def sig(defs=(), size_count=0, params=(), result=b"\x00", ndefs=None, nparams=None) -> bytes:
    return (DOMAIN + u32(len(defs) if ndefs is None else ndefs) + b"".join(defs) + u32(size_count)
            + u32(len(params) if nparams is None else nparams) + b"".join(params) + result)


def eset(q, values, tag=0x22, form=0) -> bytes:
    return b"\x73" + nm(q) + bytes([tag, form]) + u32(len(values)) + b"".join(nm(v) for v in values)


def cset(q, members, tag=0x22) -> bytes:
    return b"\x73" + nm(q) + bytes([tag, 1]) + u32(len(members)) + b"".join(u32(m) for m in members)


def sdef(q, fields, layout=0) -> bytes:
    return b"\x71" + nm(q) + bytes([layout]) + u32(len(fields)) + b"".join(
        nm(n) + bytes([w]) + t for n, w, t in fields)


def arr(elem, *shapes) -> bytes:
    return b"\x52" + elem + bytes([len(shapes)]) + b"".join(shapes)


ANY = b"\x00"


def ext(sym, off) -> bytes:
    return b"\x01" + u32(0xFFFFFFFF if sym is None else sym) + i64(off)


def rng(lo, sym, off) -> bytes:
    return b"\x02" + i64(lo) + u32(0xFFFFFFFF if sym is None else sym) + i64(off)


def p(t, mode=0) -> bytes:
    return bytes([mode]) + t


def sref(i):
    return b"\x71" + u32(i)


def eref(i):
    return b"\x73" + u32(i)


def eu(i, v=b"\x00"):
    return b"\x74" + u32(i) + v


T_I64, T_U8, T_U16, T_BOOL = b"\x14", b"\x21", b"\x22", b"\x01"
E = eset("m.E", ["a"])
S = sdef("m.S", [("f", 0, T_I64)])
D0 = 37                   # offset of the first definition
def q(st, f): return b"\x31" + bytes([st]) + f.to_bytes(2, "little")


def rejects(data: bytes, rule: str, offset: int | None = None) -> SignatureError:
    with pytest.raises(SignatureError) as e:
        decode_signature(data)
    assert e.value.rule == rule, str(e.value)
    if offset is not None:
        assert e.value.offset == offset, str(e.value)
    assert str(e.value).startswith("type signature offset ")
    return e.value


def accepts(data: bytes) -> Signature:
    s = decode_signature(data)
    assert encode_signature(s) == data
    return s


def test_crafted_helpers_reproduce_the_spec():
    assert sig([eset("tour.ParseError", ["empty", "bad_digit", "too_large"])], 0,
               [p(arr(T_U8, ANY))], eu(0, T_I64)) == REFLECT["parse_u"]
    assert sig([], 1, [p(arr(T_I64, ext(0, 0))), p(T_I64), p(arr(T_I64, ext(0, 0)), 2)]) == REFLECT["scale"]


GOOD = [
    sig([E], 0, [p(eref(0))]),
    sig([S], 0, [p(sref(0), 1)]),
    sig([S, E], 2, [p(arr(sref(0), ext(0, -1), rng(-5, 1, 3), ANY, ext(None, 0))), p(q(0x14, 63))], eu(1, eref(1))),
    sig([E, eset("m.F", ["a"]), cset("m.G", [0, 1], 0x21)], 0, [], eu(2)),
    sig([E, sdef("m.T", [("a", 1, T_BOOL), ("b", 8, T_U8), ("c", 255, b"\x18"), ("d", 0, arr(eref(0), ext(None, 3))),
                         ("e", 0, q(0x11, 0))], 1)], 0, [p(sref(1))]),
    sig([sdef("m.E", [("f", 0, T_BOOL)]), E], 0, [p(sref(0)), p(eref(1))]),     # one name, two kinds
    sig([eset("m.E", ["v%d" % k for k in range(255)], 0x21)], 0, [p(eref(0))]),  # 255 values in U8
    sig([], 1, [p(arr(T_I64, rng(7, None, 7)))]),
]


@pytest.mark.parametrize("data", GOOD)
def test_crafted_valid_inputs(data):
    accepts(data)


def test_domain():
    rejects(b"", ts.R_TRUNCATED, 0)
    rejects(DOMAIN[:20], ts.R_TRUNCATED, 0)
    rejects(u32(29) + b"cint-core-1/type-signature/v2" + REFLECT["greet"][33:], ts.R_DOMAIN, 0)
    rejects(u32(30) + DOMAIN[4:] + b"\x00" + REFLECT["greet"][33:], ts.R_DOMAIN, 0)
    rejects(b"\x00" * 48, ts.R_DOMAIN, 0)
    rejects(u32(20) + b"cint-core-1/fault/v2" + REFLECT["greet"][33:], ts.R_DOMAIN, 0)


def test_unknown_tags():
    base = len(DOMAIN) + 4 + 4 + 4 + 1
    for tag in (0x00, 0x0F, 0x02, 0x19, 0x25, 0x41, 0x51, 0x53, 0x61, 0x72, 0x7F, 0x99, 0xFF):
        rejects(sig([], 0, [p(bytes([tag]))]), ts.R_TAG, base)
    rejects(sig([], 0, [], b"\x0f"), ts.R_TAG, base - 1)
    rejects(sig([b"\x99" + E[1:]], 0, [p(eref(0))]), ts.R_TAG, D0)
    rejects(sig([eset("m.E", ["a"], tag=0x99)], 0, [p(eref(0))]), ts.R_TAG, D0 + 1 + 7)
    rejects(sig([E], 0, [], eu(0, b"\x0f")), ts.R_TAG)
    rejects(sig([], 0, [p(arr(b"\x7f", ANY))]), ts.R_TAG, base + 1)


def test_unknown_mode_form_layout_set_form():
    rejects(sig([], 0, [p(T_I64, 3)]), ts.R_MODE, 45)
    rejects(sig([], 0, [p(T_I64, 0xFF)]), ts.R_MODE, 45)
    rejects(sig([], 0, [p(arr(T_I64, b"\x03"))]), ts.R_FORM, 49)
    rejects(sig([], 0, [p(arr(T_I64, ANY, b"\xff"))]), ts.R_FORM, 50)
    rejects(sig([sdef("m.S", [("f", 0, T_I64)], layout=2)], 0, [p(sref(0))]), ts.R_LAYOUT, D0 + 1 + 7)
    rejects(sig([eset("m.E", ["a"], form=2)], 0, [p(eref(0))]), ts.R_SET_FORM, D0 + 1 + 7 + 1)


def test_tags_where_the_table_does_not_allow_them():
    rejects(sig([], 0, [], arr(T_I64, ANY)), ts.R_PLACE, 45)                      # array as result
    rejects(sig([E], 0, [p(eu(0, T_I64))]), ts.R_PLACE)                           # error union as parameter
    rejects(sig([E, sdef("m.S", [("f", 0, eu(0))])], 0, [p(sref(1))]), ts.R_PLACE)  # ... as field
    rejects(sig([E], 0, [p(arr(eu(0), ANY))]), ts.R_PLACE)                        # ... as element
    rejects(sig([E], 0, [], eu(0, eu(0))), ts.R_PLACE)                            # ... as its own value
    rejects(sig([E], 0, [], eu(0, arr(T_I64, ANY))), ts.R_PLACE)                  # array as value
    rejects(sig([b"\x14" + E[1:]], 0, [p(eref(0))]), ts.R_PLACE, D0)              # definition tag
    rejects(sig([eset("m.E", ["a"], tag=0x14)], 0, [p(eref(0))]), ts.R_PLACE)     # signed underlying
    rejects(sig([eset("m.E", ["a"], tag=0x01)], 0, [p(eref(0))]), ts.R_PLACE)     # Bool underlying


def test_arrays_of_arrays_and_open_field_extents():
    rejects(sig([], 0, [p(arr(arr(T_I64, ANY), ANY))]), ts.R_ARRAY_OF_ARRAYS, 47)
    rejects(sig([sdef("m.S", [("f", 0, arr(arr(T_I64, ext(None, 1)), ext(None, 1)))])], 0, [p(sref(0))]),
            ts.R_ARRAY_OF_ARRAYS)
    for shape in (ANY, ext(0, 4), rng(0, None, 4)):
        rejects(sig([sdef("m.S", [("f", 0, arr(T_I64, ext(None, 2), shape))])], 1, [p(sref(0))]),
                ts.R_OPEN_FIELD)


def test_fixed_point():
    for st_ in (0x10, 0x15, 0x18, 0x21, 0x01, 0x31):
        rejects(sig([], 0, [p(q(st_, 1))]), ts.R_Q_STORAGE, 47)
    for st_, bits in ((0x11, 8), (0x12, 16), (0x13, 32), (0x14, 64)):
        accepts(sig([], 0, [p(q(st_, bits - 1))]))
        rejects(sig([], 0, [p(q(st_, bits))]), ts.R_Q_F, 48)
        rejects(sig([], 0, [p(q(st_, 0xFFFF))]), ts.R_Q_F, 48)


def test_rank_and_size_symbols():
    rejects(sig([], 0, [p(arr(T_I64))]), ts.R_RANK, 48)
    accepts(sig([], 0, [p(arr(T_I64, *[ANY] * 4))]))
    rejects(sig([], 0, [p(arr(T_I64, *[ANY] * 5))]), ts.R_RANK, 48)
    rejects(b"".join([sig([], 0, [p(arr(T_I64, ANY))])[:-3], b"\xff", ANY, b"\x00"]), ts.R_RANK)
    accepts(sig([], 2, [p(arr(T_I64, ext(1, 0)))]))
    rejects(sig([], 2, [p(arr(T_I64, ext(2, 0)))]), ts.R_SYMBOL, 50)
    rejects(sig([], 0, [p(arr(T_I64, ext(0, 0)))]), ts.R_SYMBOL, 50)
    rejects(sig([], 1, [p(arr(T_I64, rng(0, 0xFFFFFFFE, 0)))]), ts.R_SYMBOL, 58)


def test_definition_indices_and_kinds():
    # a reference inside a definition to itself or a later one
    rejects(sig([sdef("m.S", [("f", 0, sref(0))])], 0, [p(sref(0))]), ts.R_INDEX)
    rejects(sig([sdef("m.S", [("f", 0, eref(1))]), E], 0, [p(sref(0)), p(eref(1))]), ts.R_INDEX)
    rejects(sig([cset("m.G", [0])], 0, [p(eref(0))]), ts.R_INDEX)
    # a reference from a parameter or the result to no definition
    rejects(sig([E], 0, [p(eref(1))]), ts.R_INDEX)
    rejects(sig([], 0, [], eu(0, T_I64)), ts.R_INDEX, 46)
    # another kind
    rejects(sig([E], 0, [p(sref(0))]), ts.R_KIND, D0 + len(E) + 8 + 2)
    rejects(sig([S], 0, [p(eref(0))]), ts.R_KIND)
    rejects(sig([S], 0, [], eu(0)), ts.R_KIND)
    rejects(sig([S, cset("m.G", [0])], 0, [p(eref(1))]), ts.R_KIND)
    rejects(sig([E, sdef("m.T", [("f", 0, sref(0))])], 0, [p(sref(1))]), ts.R_KIND)


def test_unreferenced_and_duplicate_definitions():
    rejects(sig([E], 0, []), ts.R_UNREFERENCED, D0)
    rejects(sig([E, S], 0, [p(eref(0))]), ts.R_UNREFERENCED, D0 + len(E))
    # def 0 is referred to by def 1, which nothing refers to
    rejects(sig([E, cset("m.G", [0])], 0, []), ts.R_UNREFERENCED, D0 + len(E))
    rejects(sig([E, E], 0, [p(eref(0)), p(eref(1))]), ts.R_DUP_DEF, D0 + len(E) + 1)
    rejects(sig([E, cset("m.E", [0])], 0, [p(eref(1))]), ts.R_DUP_DEF)
    rejects(sig([S, sdef("m.S", [("f", 0, sref(0))])], 0, [p(sref(1))]), ts.R_DUP_DEF)


def test_definition_order():
    # Both referenced, but the walk completes definition 1 first.
    rejects(sig([E, eset("m.F", ["b"])], 0, [p(eref(1)), p(eref(0))]), ts.R_ORDER, D0)
    accepts(sig([E, eset("m.F", ["b"])], 0, [p(eref(0)), p(eref(1))]))
    # A struct's fields complete before it; a set's members before it.
    rejects(sig([E, S, sdef("m.T", [("a", 0, sref(1)), ("b", 0, eref(0))])], 0, [p(sref(2))]), ts.R_ORDER)
    accepts(sig([S, E, sdef("m.T", [("a", 0, sref(0)), ("b", 0, eref(1))])], 0, [p(sref(2))]))


def test_too_many_error_values():
    rejects(sig([eset("m.E", ["v%d" % k for k in range(256)], 0x21)], 0, [p(eref(0))]), ts.R_TOO_MANY, D0 + 1 + 7 + 2)
    big = ["v%d" % k for k in range(200)]
    members = [eset("m.A", big, 0x21), eset("m.B", big, 0x21)]
    accepts(sig(members + [cset("m.C", [0, 1], 0x22)], 0, [p(eref(2))]))
    rejects(sig(members + [cset("m.C", [0, 1], 0x21)], 0, [p(eref(2))]), ts.R_TOO_MANY)
    # a set included twice through a combined member counts once (LS-97)
    accepts(sig(members[:1] + [cset("m.C", [0], 0x21), cset("m.D", [1, 0], 0x21)], 0, [p(eref(2))]))


def test_duplicate_fields_values_and_members():
    rejects(sig([sdef("m.S", [("f", 0, T_I64), ("g", 0, T_I64), ("f", 0, T_U8)])], 0, [p(sref(0))]), ts.R_DUP_NAME)
    rejects(sig([eset("m.E", ["a", "b", "a"])], 0, [p(eref(0))]), ts.R_DUP_NAME, D0 + 1 + 7 + 2 + 4 + 5 + 5)
    rejects(sig([E, cset("m.G", [0, 0])], 0, [p(eref(1))]), ts.R_DUP_NAME)
    rejects(sig([E, cset("m.G", [])], 0, [p(eref(1))]), ts.R_EMPTY_SET)


def test_bit_widths():
    for t, ok, bad in ((T_BOOL, 1, 2), (T_U8, 8, 9), (T_U16, 16, 17), (b"\x15", 128, 129), (b"\x11", 8, 9)):
        accepts(sig([sdef("m.S", [("f", ok, t)])], 0, [p(sref(0))]))
        rejects(sig([sdef("m.S", [("f", bad, t)])], 0, [p(sref(0))]), ts.R_BIT_WIDTH, D0 + 1 + 7 + 1 + 4 + 5)
    for t in (q(0x13, 4), arr(T_U8, ext(None, 2))):
        rejects(sig([sdef("m.S", [("f", 1, t)])], 0, [p(sref(0))]), ts.R_BIT_WIDTH)
    rejects(sig([E, sdef("m.S", [("f", 1, eref(0))])], 0, [p(sref(1))]), ts.R_BIT_WIDTH)
    rejects(sig([S, sdef("m.T", [("f", 1, sref(0))])], 0, [p(sref(1))]), ts.R_BIT_WIDTH)


@pytest.mark.parametrize("bad", ["", "1a", "a-b", "a b", "é", "a.b", "x" * 256, b"\xff", b"a\x00"])
def test_names_that_are_not_identifiers(bad):
    rejects(sig([eset("m.E", [bad])], 0, [p(eref(0))]), ts.R_IDENT)
    rejects(sig([sdef("m.S", [(bad, 0, T_I64)])], 0, [p(sref(0))]), ts.R_IDENT)


@pytest.mark.parametrize("bad", ["E", "", ".E", "m.", "m..E", "m.1E", "m.E-", "x" * 256 + ".E"])
def test_qualified_names(bad):
    rejects(sig([eset(bad, ["a"])], 0, [p(eref(0))]), ts.R_IDENT, D0 + 1)


def test_identifier_limits():
    accepts(sig([eset("a.b.c_1._x", ["x" * 255, "_", "A9"])], 0, [p(eref(0))]))


def test_counts_and_lengths_beyond_the_bytes_remaining():
    rejects(sig([], 0, [], ndefs=0xFFFFFFFF), ts.R_COUNT, 33)
    rejects(sig([], 0, [p(T_I64)], nparams=0xFFFFFFFF), ts.R_COUNT, 41)
    rejects(sig([], 0, [p(T_I64)], nparams=2), ts.R_COUNT, 41)
    rejects(sig([], 1000, []), ts.R_COUNT, 37)
    rejects(sig([b"\x73" + u32(0x7FFFFFFF) + b"m.E"], 0, [p(eref(0))]), ts.R_COUNT, D0 + 1)
    rejects(sig([b"\x73" + nm("m.E") + b"\x22\x00" + u32(100000) + nm("a")], 0, [p(eref(0))]), ts.R_COUNT, D0 + 10)
    rejects(sig([b"\x71" + nm("m.S") + b"\x00" + u32(0xFFFFFFFF)], 0, [p(sref(0))]), ts.R_COUNT, D0 + 9)
    rejects(sig([E, b"\x73" + nm("m.G") + b"\x22\x01" + u32(0x40000000) + u32(0)], 0, [p(eref(1))]), ts.R_COUNT)
    rejects(sig([eset("m.E", [b"a"])[:-5] + u32(0xFFFFFFFF) + b"a"], 0, [p(eref(0))]), ts.R_COUNT)


def test_truncated_input_at_every_length():
    for data in GOOD + list(REFLECT.values()):
        for cut in range(len(data)):
            with pytest.raises(SignatureError) as ex:
                decode_signature(data[:cut])
            # a count or length that announces more than is left is refused before the cut is met
            assert ex.value.rule in ((ts.R_TRUNCATED,) if cut < 33 else (ts.R_TRUNCATED, ts.R_COUNT)), str(ex.value)


def test_trailing_bytes():
    for data in GOOD + list(REFLECT.values()):
        rejects(data + b"\x00", ts.R_TRAILING, len(data))
        rejects(data + DOMAIN, ts.R_TRAILING, len(data))


def test_extents():
    rejects(sig([], 0, [p(arr(T_I64, ext(None, -1)))]), ts.R_EXTENT, 50)
    rejects(sig([sdef("m.S", [("f", 0, arr(T_I64, ext(None, -3)))])], 0, [p(sref(0))]), ts.R_EXTENT)
    rejects(sig([], 0, [p(arr(T_I64, rng(5, None, 4)))]), ts.R_EXTENT, 58)
    accepts(sig([], 1, [p(arr(T_I64, ext(0, -(2**63)), rng(2**63 - 1, 0, -5)))]))


def test_decoder_takes_bytes_like_and_nothing_else():
    assert decode_signature(bytearray(REFLECT["greet"])) == decode_signature(memoryview(REFLECT["greet"]))
    with pytest.raises(TypeError):
        decode_signature("not bytes")


# ---------------------------------------------------------------------------
# Property: generated valid signatures round-trip

IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
INTS = [Int(True, b) for b in (8, 16, 32, 64, 128, 256, 512, 1024)] + [U8, U16, U32, U64]
SCALAR = st.one_of(st.just(Bool()), st.sampled_from(INTS),
                   st.sampled_from([8, 16, 32, 64]).flatmap(lambda b: st.builds(Fixed, st.just(b), st.integers(0, b - 1))))
I64_RANGE = st.integers(-(2**63), 2**63 - 1)


@st.composite
def valid_signatures(draw):
    size_count = draw(st.integers(0, 4))
    module = draw(st.lists(IDENT, min_size=1, max_size=3).map(".".join))
    sets: list = []
    for k in range(draw(st.integers(0, 4))):
        tag = draw(st.sampled_from([U8, U16, U32, U64]))
        if sets and draw(st.booleans()):
            members = draw(st.lists(st.sampled_from(sets), min_size=1, max_size=3, unique_by=id))
            sets.append(CombinedErrorSetDef(f"{module}.E{k}", tag, members))
        else:
            sets.append(ErrorSetDef(f"{module}.E{k}", tag, draw(st.lists(IDENT, max_size=5, unique=True))))
    structs: list = []

    def named(pool, ref):
        return st.sampled_from(pool).map(lambda d: ref(defn=d)) if pool else st.nothing()

    for k in range(draw(st.integers(0, 4))):
        elem = st.one_of(SCALAR, named(structs, StructRef), named(sets, ErrorSetRef))
        ftype = st.one_of(elem, st.builds(Array, elem, st.lists(
            st.builds(Extent, st.builds(Bound, st.none(), st.integers(0, 2**63 - 1))), min_size=1, max_size=4)))
        fields = []
        for name in draw(st.lists(IDENT, max_size=5, unique=True)):
            t = draw(ftype)
            width = 0
            if isinstance(t, Bool):
                width = draw(st.integers(0, 1))
            elif isinstance(t, Int):
                width = draw(st.integers(0, min(t.bits, 255)))
            fields.append((name, width, t))
        structs.append(StructDef(f"{module}.S{k}", draw(st.sampled_from([0, 1])), fields))

    def bound():
        if size_count and draw(st.booleans()):
            return Bound(draw(st.integers(0, size_count - 1)), draw(I64_RANGE))
        return Bound(None, draw(st.integers(0, 2**63 - 1)))

    def shape():
        form = draw(st.integers(0, 2))
        if form == 0:
            return Any()
        b = bound()
        if form == 1:
            return Extent(b)
        hi = b.offset if b.symbol is None else 2**63 - 1
        return Range(draw(st.integers(-(2**63), hi)), b)

    value = st.one_of(SCALAR, named(structs, StructRef), named(sets, ErrorSetRef))
    params = []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            t = Array(draw(value), [shape() for _ in range(draw(st.integers(1, 4)))])
        else:
            t = draw(value)
        params.append(Param(draw(st.sampled_from(["in", "inout", "out"])), t))
    choice = draw(st.integers(0, 2))
    if choice == 0 or (choice == 2 and not sets):
        result = None
    elif choice == 1:
        result = draw(value)
    else:
        result = ErrorUnion(value=draw(st.one_of(st.none(), value)), defn=draw(st.sampled_from(sets)))
    return build_signature(params, result, size_count)


@settings(max_examples=400, deadline=None)
@given(valid_signatures())
def test_round_trip_generated(sig_):
    data = encode_signature(sig_)
    back = decode_signature(data)
    assert back == sig_
    assert encode_signature(back) == data
    assert format_c_prototype("f", back).startswith("cint_status f(cint_ctx *ctx, int64_t fuel")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bodies_raise_only_signature_error(body):
    for data in (DOMAIN + body, body):
        try:
            s = decode_signature(data)
        except SignatureError:
            continue
        assert encode_signature(s) == data


# ---------------------------------------------------------------------------
# Mutation fuzzer

def _rich_corpus() -> list[bytes]:
    a = ErrorSetDef("lib.io.IoError", U8, ["closed", "full"])
    b = ErrorSetDef("lib.ParseError", U16, ["empty", "bad_digit", "too_large"])
    c = CombinedErrorSetDef("lib.IoOrParse", U32, [a, b])
    inner = StructDef("lib.Inner", 1, [("flag", 1, Bool()), ("mode", 3, U16), ("q", 0, Fixed(32, 16)),
                                       ("e", 0, ErrorSetRef(defn=a))])
    outer = StructDef("lib.Outer", 0, [("i", 0, StructRef(defn=inner)), ("big", 0, I256),
                                       ("grid", 0, Array(StructRef(defn=inner), [Extent(Bound(None, 2)),
                                                                                 Extent(Bound(None, 3))]))])
    sigs = [
        build_signature([Param("inout", StructRef(defn=outer)),
                         Param("in", Array(Fixed(64, 10), [Any(), Extent(Bound(1, -1)), Range(1, Bound(0, 4))])),
                         Param("out", Array(ErrorSetRef(defn=c), [Extent(Bound(None, 8))])),
                         Param("in", Bool()), Param("in", I1024)],
                        ErrorUnion(value=StructRef(defn=inner), defn=c), 2),
        build_signature([Param("in", ErrorSetRef(defn=b))], ErrorUnion(value=None, defn=a), 0),
        build_signature([], StructRef(defn=outer), 0),
    ]
    return [encode_signature(s) for s in sigs] + list(REFLECT.values()) + GOOD


INTERESTING_U32 = [0, 1, 2, 3, 4, 5, 29, 33, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                   0xFFFFFFFE, 0xFFFFFFFF]
INTERESTING_U8 = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x11, 0x14, 0x15, 0x18, 0x21, 0x24, 0x31, 0x52,
                  0x71, 0x73, 0x74, 0x7F, 0xFF]


def _mutate(rng_: random.Random, data: bytes, u32_offsets: list[int]) -> bytes:
    b = bytearray(data)
    kind = rng_.randrange(7)
    if kind == 0 and b:                                   # bit flip
        k = rng_.randrange(len(b) * 8)
        b[k // 8] ^= 1 << (k % 8)
    elif kind == 1:                                       # truncation
        del b[rng_.randrange(len(b) + 1):]
    elif kind == 2:                                       # insertion
        at = rng_.randrange(len(b) + 1)
        b[at:at] = bytes(rng_.choice(INTERESTING_U8) if rng_.random() < 0.5 else rng_.randrange(256)
                         for _ in range(rng_.randint(1, 6)))
    elif kind == 3 and b:                                 # deletion
        at = rng_.randrange(len(b))
        del b[at:at + rng_.randint(1, 6)]
    elif kind == 4 and u32_offsets:                       # length, count or index edit
        at = rng_.choice(u32_offsets)
        if at + 4 > len(b):
            return bytes(b)
        old = int.from_bytes(b[at:at + 4], "little")
        new = rng_.choice(INTERESTING_U32 + [old + 1, old - 1 & 0xFFFFFFFF, old * 2 & 0xFFFFFFFF,
                                             len(b), len(b) - at - 4, rng_.getrandbits(32)])
        b[at:at + 4] = (new & 0xFFFFFFFF).to_bytes(4, "little")
    elif kind == 5 and b:                                 # byte set
        b[rng_.randrange(len(b))] = rng_.choice(INTERESTING_U8)
    elif b:                                               # splice a chunk elsewhere
        i, j = sorted(rng_.randrange(len(b) + 1) for _ in range(2))
        at = rng_.randrange(len(b) + 1)
        b[at:at] = b[i:j][:16]
    return bytes(b)


def test_mutation_fuzzer():
    rng_ = random.Random(0x7E5165)
    corpus = _rich_corpus()
    offsets = {data: ts._u32_field_offsets(data) for data in corpus}
    rules: dict[str, int] = {}
    accepted = total = 0
    for _ in range(6000):
        seed = rng_.choice(corpus)
        body_only = rng_.random() < 0.9      # most mutations keep the domain string intact
        data = seed[33:] if body_only else seed
        offs = [o - 33 for o in offsets[seed] if o >= 33] if body_only else offsets[seed]
        for _ in range(rng_.choice((1, 1, 1, 2, 3))):
            data = _mutate(rng_, data, offs)
        if body_only:
            data = DOMAIN + data
        total += 1
        try:
            s = decode_signature(data)
        except SignatureError as e:      # anything else fails the test
            assert isinstance(e.offset, int) and 0 <= e.offset <= len(data), str(e)
            rules[e.rule] = rules.get(e.rule, 0) + 1
            continue
        accepted += 1
        assert encode_signature(s) == data
    assert total >= 5000
    assert accepted > 200           # the fuzzer also reaches valid neighbours
    assert len(rules) >= 18, rules  # and many different rules


# ---------------------------------------------------------------------------
# Hostile shapes: deep chains and diamonds decode without recursion or blow-up

def test_long_chain_of_combined_sets():
    n = 3000
    defs = [E] + [cset(f"m.C{k}", [k], 0x21) for k in range(n)]
    s = accepts(sig(defs, 0, [p(eref(n))]))
    assert len(s.definitions) == n + 1


def test_diamond_of_combined_sets_counts_each_set_once():
    # D0 = A (200 values); X_k = D_{k-1}; D_k = D_{k-1} | X_k.  Counted by paths, D_60 would
    # hold 200 * 2**60 values; counted once per set (LS-97) it holds 200, which fits U8.
    defs = [eset("m.A", ["v%d" % k for k in range(200)], 0x21)]
    for k in range(1, 61):
        defs.append(cset(f"m.X{k}", [2 * k - 2], 0x21))
        defs.append(cset(f"m.D{k}", [2 * k - 2, 2 * k - 1], 0x21))
    accepts(sig(defs, 0, [p(eref(len(defs) - 1))]))
    wide = [eset("m.A", ["v%d" % k for k in range(256)], 0x22)]
    for k in range(1, 61):
        wide.append(cset(f"m.X{k}", [2 * k - 2], 0x22))
        wide.append(cset(f"m.D{k}", [2 * k - 2, 2 * k - 1], 0x22 if k < 60 else 0x21))
    last = 37 + sum(map(len, wide[:-1])) + 1 + 9 + 2       # the member count of D60
    rejects(sig(wide, 0, [p(eref(len(wide) - 1))]), ts.R_TOO_MANY, last)
    wide[-1] = cset("m.D60", [118, 119], 0x22)
    accepts(sig(wide, 0, [p(eref(len(wide) - 1))]))


def test_deeply_nested_struct_result_prototype():
    defs = [sdef("m.S0", [("a", 0, T_I64)])]
    for k in range(1, 2000):
        defs.append(sdef(f"m.S{k}", [("x", 0, sref(k - 1))]))
    s = accepts(sig(defs, 0, [], sref(len(defs) - 1)))
    proto = format_c_prototype("f", s)
    assert proto.count("struct {") == 2000
    # two copies of the previous struct per level: 2**60 copies of S0 in the text
    defs = [sdef("m.S0", [("a", 0, T_I64)])]
    for k in range(1, 61):
        defs.append(sdef(f"m.S{k}", [("x", 0, sref(k - 1)), ("y", 0, sref(k - 1))]))
    s = accepts(sig(defs, 0, [], sref(60)))
    with pytest.raises(ValueError, match="longer than"):
        format_c_prototype("f", s)
