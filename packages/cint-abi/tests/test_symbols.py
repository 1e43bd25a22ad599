"""SPEC-03P.1 7.3 paragraph 1 and 7.4 paragraph 1: wrapper and module-descriptor symbol names."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from cint_abi.symbols import SymbolError, decode_symbol, encode_part, module_symbol, wrapper_symbol

C_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def test_spec_examples():
    assert wrapper_symbol("advance", "advance") == "cx_7_advance_7_advance"
    assert wrapper_symbol("advance", "total") == "cx_7_advance_5_total"
    assert wrapper_symbol("tour", "parse_u") == "cx_4_tour_10_parse_x5Fu"
    assert module_symbol("advance") == "cm_7_advance"
    assert decode_symbol("cx_4_tour_10_parse_x5Fu") == ("wrapper", ["tour", "parse_u"])
    assert decode_symbol("cm_7_advance") == ("module", ["advance"])


def test_our_escapes():
    assert encode_part("parse_u") == "10_parse_x5Fu"
    assert module_symbol("geo.vec") == "cm_10_geo_x2Evec"
    assert wrapper_symbol("geo/vec", "max") == "cx_10_geo_x2Fvec_3_max"     # a literal x stays
    assert encode_part("x5F") == "3_x5F"                                  # no clash with the escape of _
    assert encode_part("\u00e9") == "8__xC3_xA9"
    assert encode_part("_") == "4__x5F"


@pytest.mark.parametrize("bad", [
    "", "cx_", "cm_", "cz_1_a", "cx_1_a", "cm_7_advance_", "cm_07_advance", "cm_0_", "cm_8_advance",
    "cm_7advance", "cx_1_a1_b", "cx_1_a__1_b", "cm_4__x5f", "cm_4__x41", "cm_4__y5F", "cm_3__x5",
    "cm_1_-", "cm_4__xFF", "cm_8__xC3_x28", "cm_1_\u00e9", "cm_\u0661_a", "cx_1_a_1_b_",
])
def test_decoder_rejects(bad):
    with pytest.raises(SymbolError):
        decode_symbol(bad)


def test_encoder_refuses():
    with pytest.raises(ValueError):
        encode_part("")
    with pytest.raises(ValueError):
        encode_part("\ud800")


names = st.text(min_size=1, max_size=30).filter(lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s))
identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,20}", fullmatch=True)


@settings(max_examples=500)
@given(st.one_of(names, identifiers), st.one_of(names, identifiers))
def test_round_trip(module, export):
    sym = wrapper_symbol(module, export)
    assert C_IDENT.match(sym)
    assert decode_symbol(sym) == ("wrapper", [module, export])
    assert decode_symbol(module_symbol(module)) == ("module", [module])


@settings(max_examples=300)
@given(st.lists(st.one_of(names, identifiers), min_size=2, max_size=2, unique=True),
       st.lists(st.one_of(names, identifiers), min_size=2, max_size=2))
def test_injective(mods, exports):
    a = wrapper_symbol(mods[0], exports[0])
    b = wrapper_symbol(mods[1], exports[1])
    assert a != b
    assert module_symbol(mods[0]) != module_symbol(mods[1])


@settings(max_examples=500)
@given(st.text(alphabet="cmx_0123456789abAFx5E", max_size=24))
def test_accepted_symbols_reencode_to_themselves(sym):
    try:
        kind, parts = decode_symbol(sym)
    except SymbolError:
        return
    again = wrapper_symbol(*parts) if kind == "wrapper" else module_symbol(*parts)
    assert again == sym
