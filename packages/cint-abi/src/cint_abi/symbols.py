"""Symbol names of wrappers and module descriptors (SPEC-03P.1 7.3 paragraph 1, 7.4 paragraph 1).

A wrapper is ``cx_`` + part(module) + ``_`` + part(export); a module descriptor
is ``cm_`` + part(module).  The module is its dotted path without ``.ci``
(``tour``, ``geo.vec``); the export is the declared name.

A part is the escaped text's length in decimal, ``_``, then the escaped text.

Escaping (our decision; SPEC-09P.1, which owns it, is unpublished).  The text is
taken as UTF-8 and each byte is written as:

* itself, when it is an ASCII letter or digit (``[A-Za-z0-9]``);
* otherwise ``_x`` followed by two uppercase hexadecimal digits.

This is the rule the printed examples fix: ``parse_u`` -> ``parse_x5Fu``, whose
length is 10, so ``cx_4_tour_10_parse_x5Fu``.  ``geo.vec`` -> ``geo_x2Evec``
(``cm_10_geo_x2Evec``); ``é`` -> ``_xC3_xA9``.

Why it is injective: the escaped text is a concatenation of codes, one per
byte, and the codes form a prefix-free set: a code that starts with ``_`` is
an escape of exactly four characters, any other code is one character, and an
escaped byte is never a letter or digit, so no byte has two codes.  A literal
``x`` needs no escape because only ``_`` starts an escape.  The length prefix
then delimits each part, so a whole symbol splits in one way only.  The
decoder accepts exactly the image of the encoder: the length is decimal
without a leading zero, escapes use uppercase hex, an escape of a letter or a
digit is rejected, the bytes must be UTF-8, and a part is never empty.  Hence
``decode_symbol(wrapper_symbol(m, e)) == ("wrapper", [m, e])`` and every symbol
it accepts is re-encoded to itself.  Every symbol is a C identifier.
"""
from __future__ import annotations

__all__ = ["SymbolError", "encode_part", "decode_part", "wrapper_symbol", "module_symbol", "decode_symbol"]

_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_HEX = "0123456789ABCDEF"
_DIGITS = "0123456789"
WRAPPER_PREFIX = "cx_"
MODULE_PREFIX = "cm_"


class SymbolError(ValueError):
    """A string that is not a symbol name of this encoding."""


def _escape(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"a symbol part is a str, not {type(text).__name__}")
    if not text:
        raise ValueError("a symbol part is never empty")
    data = text.encode("utf-8")   # a lone surrogate raises UnicodeEncodeError, a ValueError
    return "".join(chr(b) if b in _PLAIN else f"_x{b:02X}" for b in data)


def encode_part(text: str) -> str:
    """``<length>_<escaped text>``; the length counts the escaped characters."""
    escaped = _escape(text)
    return f"{len(escaped)}_{escaped}"


def wrapper_symbol(module: str, export: str) -> str:
    return WRAPPER_PREFIX + encode_part(module) + "_" + encode_part(export)


def module_symbol(module: str) -> str:
    return MODULE_PREFIX + encode_part(module)


def _unescape(escaped: str, at: int) -> str:
    out = bytearray()
    k = 0
    while k < len(escaped):
        c = escaped[k]
        if c == "_":
            code = escaped[k + 1:k + 4]
            if len(code) != 3 or code[0] != "x" or code[1] not in _HEX or code[2] not in _HEX:
                raise SymbolError(f"at {at + k}: an escape is _x and two uppercase hex digits, not {escaped[k:k + 4]!r}")
            b = int(code[1:], 16)
            if b in _PLAIN:
                raise SymbolError(f"at {at + k}: {chr(b)!r} is written as itself, not escaped")
            out.append(b)
            k += 4
        elif c.isascii() and ord(c) in _PLAIN:
            out.append(ord(c))
            k += 1
        else:
            raise SymbolError(f"at {at + k}: {c!r} does not occur in an escaped part")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SymbolError(f"at {at}: the escaped bytes are not UTF-8 ({e.reason})") from None


def decode_part(sym: str, pos: int = 0) -> tuple[str, int]:
    """Decode the part at ``pos``; returns ``(text, newpos)``."""
    k = pos
    while k < len(sym) and sym[k] in _DIGITS:
        k += 1
    digits = sym[pos:k]
    if not digits:
        raise SymbolError(f"at {pos}: a part starts with its length in decimal")
    if digits[0] == "0":
        raise SymbolError(f"at {pos}: a part's length has no leading zero and is not 0")
    if k >= len(sym) or sym[k] != "_":
        raise SymbolError(f"at {k}: '_' must follow the length {digits}")
    n = int(digits)
    start = k + 1
    if start + n > len(sym):
        raise SymbolError(f"at {pos}: the part announces {n} characters, {len(sym) - start} remain")
    return _unescape(sym[start:start + n], start), start + n


def decode_symbol(sym: str) -> tuple[str, list[str]]:
    """``("wrapper", [module, export])`` or ``("module", [module])``; raises SymbolError."""
    if not isinstance(sym, str):
        raise TypeError("a symbol is a str")
    if sym.startswith(WRAPPER_PREFIX):
        kind, count = "wrapper", 2
    elif sym.startswith(MODULE_PREFIX):
        kind, count = "module", 1
    else:
        raise SymbolError(f"a symbol starts with {WRAPPER_PREFIX!r} or {MODULE_PREFIX!r}: {sym!r}")
    pos = len(WRAPPER_PREFIX)
    parts = []
    for k in range(count):
        if k:
            if pos >= len(sym) or sym[pos] != "_":
                raise SymbolError(f"at {pos}: '_' separates the parts")
            pos += 1
        text, pos = decode_part(sym, pos)
        parts.append(text)
    if pos != len(sym):
        raise SymbolError(f"at {pos}: {len(sym) - pos} characters after the last part")
    return kind, parts
