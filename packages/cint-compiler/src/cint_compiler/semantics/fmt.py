"""Exact value formatting for print holes (SPEC-04P.1 section 9, SPEC-01P.1 section 7).

A hole ``{expr!conv:spec}`` is checked once, at compile time, by
:func:`parse_spec`, which turns the conversion and the spec text into a
:class:`FormatSpec` or rejects them (C1035 unknown conversion, C1036
precision with scale, C1037 a spec that does not apply or is not defined,
LS-213).  :func:`format_value` then renders a run-time value exactly.

Everything is integer arithmetic: fixed-point values are rendered from their
raw storage integer, scaled integers by exact division, and no float is ever
involved.  Widths count Unicode scalar values (one Python ``str`` character
each), and every digit produced is ASCII.

Run-time values follow :mod:`cint_compiler.values`: an integer is an ``int``,
a fixed-point value is its raw ``int``, a ``Bool`` is a ``bool``, a ``Str``
is ``bytes``; enums, error values, arrays and structs are the value classes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from cint_compiler.semantics import opnames as O
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (
    ArrayType,
    BoolType,
    EnumType,
    ErrorSetType,
    FixedType,
    INT_TYPES,
    IntType,
    RoundType,
    StrType,
    StructType,
    Type,
    ZType,
)
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue, RoundValue, StructValue

__all__ = ["FormatSpec", "DEFAULT_SPEC", "parse_spec", "format_value", "format_hole",
           "balanced_ternary"]

# A conversion: None, "bits", "raw", "ratio", or ("lanes", IntType).
Conversion = Union[None, str, Tuple[str, IntType]]

_ALIGNS = "<>^"
_SIGNS = "+- "
_KINDS = "dxXobtcs"
_DIGITS = "0123456789"  # ASCII only (LS-202): never str.isdigit()


@dataclass(frozen=True)
class FormatSpec:
    """A checked hole conversion and format specification (LS-201, LS-202).

    ``width``, ``precision`` and ``scale_digits`` are ``None`` when absent;
    ``scale_digits`` is ``log10(scale)`` (``/100`` gives 2).
    """

    fill: str = " "
    align: Optional[str] = None        # "<", ">", "^"
    sign: Optional[str] = None         # "+", "-", " "
    alt: bool = False                  # "#"
    zero: bool = False                 # "0"
    width: Optional[int] = None
    group: Optional[str] = None        # "_", ","
    precision: Optional[int] = None
    kind: Optional[str] = None         # one of d x X o b t c s
    scale_digits: Optional[int] = None
    conv: Conversion = None
    text: str = ""                     # the spec as written, for messages

    @property
    def scale(self) -> Optional[int]:
        return None if self.scale_digits is None else 10 ** self.scale_digits

    def element(self) -> "FormatSpec":
        """The same spec without its conversion (applied to each lane of ``!lanes``)."""
        return FormatSpec(self.fill, self.align, self.sign, self.alt, self.zero, self.width,
                          self.group, self.precision, self.kind, self.scale_digits, None, self.text)


DEFAULT_SPEC = FormatSpec()


# ---------------------------------------------------------------------------
# Compile time: parse and check


def _err(code: str, span, msg: str) -> CompileError:
    return CompileError(code, span, msg)


_LANES_RE = re.compile(r"lanes[ \t]*\([ \t]*([A-Za-z0-9_.]+)[ \t]*\)\Z")


def _parse_conv(conv: Optional[str], span) -> Conversion:
    if conv is None:
        return None
    text = conv[1:] if conv.startswith("!") else conv
    if text in ("bits", "raw", "ratio"):
        return text
    m = _LANES_RE.match(text)
    if m and m.group(1) in INT_TYPES:
        return ("lanes", INT_TYPES[m.group(1)])
    raise _err("C1035", span, "unknown hole conversion `!%s`; the conversions are "
               "`!bits`, `!raw`, `!ratio` and `!lanes(T)` (spec: LS-201)" % text)


def _parse_text(spec: str, span) -> dict:
    """Split spec text by the grammar of LS-298; any deviation is C1037."""
    out = {}
    i, n = 0, len(spec)

    def bad(why):
        return _err("C1037", span, "format spec `%s` is not valid: %s (spec: LS-202)" % (spec, why))

    def digits():
        nonlocal i
        start = i
        while i < n and spec[i] in _DIGITS:
            i += 1
        return spec[start:i]

    if n >= 2 and spec[1] in _ALIGNS:
        if spec[0] in "{}":
            raise bad("a brace cannot be a fill character")
        out["fill"], out["align"] = spec[0], spec[1]
        i = 2
    elif n >= 1 and spec[0] in _ALIGNS:
        out["align"] = spec[0]
        i = 1
    if i < n and spec[i] in _SIGNS:
        out["sign"] = spec[i]
        i += 1
    if i < n and spec[i] == "#":
        out["alt"] = True
        i += 1
    if i < n and spec[i] == "0":
        out["zero"] = True
        i += 1
    w = digits()
    if w:
        out["width"] = int(w)
    if i < n and spec[i] in "_,":
        out["group"] = spec[i]
        i += 1
    if i < n and spec[i] == ".":
        i += 1
        p = digits()
        if not p:
            raise bad("`.` must be followed by ASCII digits")
        out["precision"] = int(p)
    if i < n and spec[i] in _KINDS:
        out["kind"] = spec[i]
        i += 1
    if i < n and spec[i] == "/":
        i += 1
        s = digits()
        if not (len(s) >= 2 and s[0] == "1" and set(s[1:]) == {"0"}):
            raise bad("a scale must be a power of ten, 10 or greater, in ASCII digits")
        out["scale_digits"] = len(s) - 1
    if i < n:
        raise bad("unexpected `%s` at offset %d" % (spec[i], i))
    return out


def _category(ty: Type) -> str:
    if isinstance(ty, (IntType, ZType)):
        return "int"
    if isinstance(ty, FixedType):
        return "fixed"
    if isinstance(ty, BoolType):
        return "bool"
    if isinstance(ty, StrType):
        return "str"
    if isinstance(ty, (EnumType, RoundType)):
        return "enum"
    if isinstance(ty, ErrorSetType):
        return "error"
    if isinstance(ty, StructType):
        return "struct"
    return "other"


def _check(fs: FormatSpec, ty: Type, span) -> None:
    """Reject every combination LS-213 names or leaves undefined (C1037)."""
    t = fs.text

    def no(why):
        return _err("C1037", span, "format spec `%s` does not apply to %s: %s (spec: LS-213)"
                    % (t, ty.name() if ty is not None else "this value", why))

    while isinstance(ty, ArrayType):
        ty = ty.elem  # the spec applies to each element (LS-212)
    cat = _category(ty)
    if cat == "other":
        raise no("a value of this type cannot be printed")

    # Conversions (LS-201): each changes what the spec is applied to.
    conv = fs.conv
    bits = False
    if conv is not None:
        if cat == "bool":
            raise no("no conversion applies to Bool")
        if conv == "bits":
            if cat not in ("int", "fixed") or isinstance(ty, ZType):
                raise no("`!bits` applies to integers and fixed point")
            bits = True
            cat = "int"
        elif conv == "raw":
            if cat != "fixed":
                raise no("`!raw` applies to fixed point")
            cat = "int"
        elif conv == "ratio":
            if cat != "fixed":
                raise no("`!ratio` applies to fixed point")
            cat = "ratio"
        else:
            lane = conv[1]
            if cat != "int" or isinstance(ty, ZType):
                raise no("`!lanes(T)` applies to integers")
            if lane.signed:
                raise no("the lane type of `!lanes(T)` must be unsigned")
            if ty.bits % lane.bits != 0:
                raise no("the lane width %d does not divide the width %d" % (lane.bits, ty.bits))
            cat = "int"

    # Layout rules common to every type.
    if fs.width is not None and fs.align is None and not fs.zero:
        raise no("a width needs an alignment or the `0` flag")
    if fs.zero and fs.width is None:
        raise no("the `0` flag needs a width")
    if fs.zero and fs.align is not None:
        raise no("`0` cannot be combined with an explicit alignment")
    if fs.zero and fs.group is not None:
        raise no("`0` cannot be combined with a group")

    if cat == "int":
        kind = fs.kind or "d"
        if fs.precision is not None:
            raise no("precision applies to fixed point only")
        if kind == "s":
            raise no("`s` applies to Str only")
        if fs.scale_digits is not None:
            if kind != "d" or fs.alt or fs.group is not None or conv is not None:
                raise no("a scale takes no kind other than `d`, no `#`, no group and no conversion")
        if kind == "d" and fs.alt:
            raise no("`#` has no prefix to print in decimal")
        if kind == "t":
            if fs.alt:
                raise no("`#` with `t`: the `0t` prefix is always printed")
            if fs.sign in ("+", " "):
                raise no("a balanced-ternary literal carries its sign in its digits")
            if fs.group is not None:
                raise no("`t` takes no group")
            if fs.zero:
                raise no("`t` takes no `0` flag")
            if bits:
                raise no("`!bits` with `t`")
        if kind == "c":
            if fs.alt or fs.zero or fs.group is not None:
                raise no("`c` takes no `#`, `0` or group")
            if fs.sign is not None:
                raise no("`c` takes no sign flag")
            if bits:
                raise no("`!bits` with `c`")
        if fs.group == "," and kind in "xXob":
            raise no("`,` groups decimal digits only; use `_` with `%s`" % kind)
        return

    if fs.kind is not None and not (cat == "str" and fs.kind == "s"):
        raise no("kind `%s` does not apply" % fs.kind)
    if fs.scale_digits is not None:
        raise no("a scale applies to integers only")
    if fs.group is not None:
        raise no("a group applies to integers only")
    if cat == "fixed":
        if fs.alt:
            raise no("`#` applies to x, o, b and enums")
        return
    # Everything else takes fill, alignment and width; enums also `#`.
    if fs.precision is not None:
        raise no("precision applies to fixed point only")
    if fs.sign is not None:
        raise no("a sign flag applies to numbers only")
    if fs.zero:
        raise no("`0` applies to numbers only")
    if fs.alt and cat != "enum":
        raise no("`#` applies to x, o, b and enums")
    if cat == "struct" and fs.text != "":
        raise no("a struct prints with the default rendering only")


def parse_spec(spec: Optional[str], conv: Optional[str], ty: Type, span: Optional[Span]) -> FormatSpec:
    """Check the conversion and spec of a hole against the static type ``ty``.

    ``spec`` is the text after ``:`` (None when there is no ``:``), ``conv``
    the text after ``!`` (None when absent; a leading ``!`` is accepted).
    Raises CompileError C1035, C1036 or C1037.
    """
    c = _parse_conv(conv, span)
    text = spec or ""
    parts = _parse_text(text, span)
    if "precision" in parts and "scale_digits" in parts:
        raise _err("C1036", span, "format spec `%s` has both a precision and a scale; a scale "
                   "fixes the number of fractional digits (spec: LS-206)" % text)
    fs = FormatSpec(conv=c, text=text, **parts)
    _check(fs, ty, span)
    return fs


# ---------------------------------------------------------------------------
# Run time: render


def balanced_ternary(v: int) -> str:
    """The minimal balanced-ternary literal of ``v`` (LS-205): ``8`` is ``0tP0N``."""
    if v == 0:
        return "0t0"
    out = []
    while v != 0:
        r = v % 3
        if r == 0:
            out.append("0")
        elif r == 1:
            out.append("P")
            v -= 1
        else:
            out.append("N")
            v += 1
        v //= 3
    return "0t" + "".join(reversed(out))


def _pad(text: str, fs: FormatSpec) -> str:
    w = fs.width
    if w is None or len(text) >= w:
        return text  # never truncates (LS-211)
    gap = w - len(text)
    align = fs.align or ">"
    if align == "<":
        return text + fs.fill * gap
    if align == ">":
        return fs.fill * gap + text
    left = gap // 2
    return fs.fill * left + text + fs.fill * (gap - left)


def _numeric(negative: bool, prefix: str, body: str, fs: FormatSpec) -> str:
    if negative:
        sign = "-"
    elif fs.sign == "+":
        sign = "+"
    elif fs.sign == " ":
        sign = " "
    else:
        sign = ""
    if fs.zero and fs.width is not None:
        short = fs.width - len(sign) - len(prefix) - len(body)
        if short > 0:
            body = "0" * short + body
        return sign + prefix + body
    return _pad(sign + prefix + body, fs)


def _group(digits: str, sep: str, every: int) -> str:
    head = len(digits) % every or every
    parts = [digits[:head]]
    for k in range(head, len(digits), every):
        parts.append(digits[k:k + every])
    return sep.join(parts)


_RADIX = {"x": (16, "0x"), "X": (16, "0x"), "o": (8, "0o"), "b": (2, "0b")}
_DIGIT_BITS = {16: 4, 8: 3, 2: 1}
_HEX = "0123456789abcdef"


def _to_radix(a: int, base: int) -> str:
    if a == 0:
        return "0"
    out = []
    while a:
        a, d = divmod(a, base)
        out.append(_HEX[d])
    return "".join(reversed(out))


def _decimal(a: int) -> str:
    # Independent of sys.set_int_max_str_digits: exact for any magnitude.
    try:
        return str(a)
    except ValueError:  # pragma: no cover - only beyond ~4300 digits
        return _to_radix_big(a)


def _to_radix_big(a: int) -> str:  # pragma: no cover
    chunk = 10 ** 18
    parts = []
    while a >= chunk:
        a, r = divmod(a, chunk)
        parts.append("%018d" % r)
    parts.append("%d" % a)
    return "".join(reversed(parts))


def _format_int(ty: Type, v: int, fs: FormatSpec, full_width: Optional[int] = None) -> str:
    kind = fs.kind or "d"
    if kind == "c":
        if not (0 <= v <= 0x10FFFF) or 0xD800 <= v <= 0xDFFF:
            raise MachineFault("E_NARROW", O.format_char(ty), [(ty, v)])
        return _pad(chr(v), fs)
    if kind == "t":
        return _pad(balanced_ternary(v), fs)
    negative = v < 0
    a = -v if negative else v
    prefix = ""
    if fs.scale_digits is not None:
        k = fs.scale_digits
        whole, frac = divmod(a, 10 ** k)
        body = _decimal(whole) + "." + _decimal(frac).zfill(k)
    elif kind == "d":
        body = _decimal(a)
        if fs.group:
            body = _group(body, fs.group, 3)
    else:
        base, prefix = _RADIX[kind]
        if not fs.alt:
            prefix = ""
        body = _to_radix(a, base)
        if kind == "X":
            body = body.upper()
        if full_width is not None:
            per = _DIGIT_BITS[base]
            body = body.zfill(-(-full_width // per))
        if fs.group:
            body = _group(body, "_", 4)
    return _numeric(negative, prefix, body, fs)


def _format_fixed(ty: FixedType, raw: int, fs: FormatSpec) -> str:
    f = ty.f
    negative = raw < 0
    a = -raw if negative else raw
    p = fs.precision
    if p is None:
        # raw / 2^f == raw * 5^f / 10^f: exactly f fractional digits, trimmed (LS-207).
        whole, frac = divmod(a * 5 ** f, 10 ** f)
        digits = _decimal(frac).zfill(f).rstrip("0") if f else ""
        body = _decimal(whole) + "." + (digits or "0")
    else:
        # Round a * 10^p / 2^f half to even, exactly (LS-208).
        q, r = divmod(a * 10 ** p, 1 << f)
        twice = 2 * r
        if twice > (1 << f) or (twice == (1 << f) and q % 2 == 1):
            q += 1
        if q == 0:
            negative = False  # no negative zero
        whole, frac = divmod(q, 10 ** p)
        body = _decimal(whole) + ("." + _decimal(frac).zfill(p) if p else "")
    return _numeric(negative, "", body, fs)


def _short(qname: str) -> str:
    return qname.rsplit(".", 1)[-1]


def _infer_type(v) -> Type:
    """A type for a struct field value when the struct type lists no fields."""
    if isinstance(v, bool):
        return BoolType("Bool")
    if isinstance(v, int):
        return ZType("Z")
    if isinstance(v, (bytes, bytearray)):
        return StrType("Str")
    if isinstance(v, EnumValue):
        return EnumType(v.enum)
    if isinstance(v, ErrorValue):
        return ErrorSetType(v.set)
    if isinstance(v, RoundValue):
        return RoundType("Round")
    if isinstance(v, StructValue):
        return v.type
    if isinstance(v, ArrayValue):
        return ArrayType(v.elem, tuple(v.shape))
    raise TypeError("cannot format %r" % (v,))


def _format_struct(ty: Type, value: StructValue) -> str:
    st = ty if isinstance(ty, StructType) and ty.fields else value.type
    fields = getattr(st, "fields", None) or []
    types = {f[0]: f[1] for f in fields}
    names = [f[0] for f in fields] or list(value.fields)
    items = []
    for name in names:
        v = value.fields[name]
        fty = types.get(name) or _infer_type(v)
        items.append("%s=%s" % (name, format_value(fty, v, DEFAULT_SPEC)))
    return "%s(%s)" % (st.name(), ", ".join(items))


def _format_scalar(ty: Type, value, fs: FormatSpec) -> str:
    conv = fs.conv
    if conv is not None:
        if conv == "bits":
            w = ty.bits
            u = value & ((1 << w) - 1)
            return _format_int(IntType(False, w), u, fs, full_width=w)
        if conv == "raw":
            return _format_int(ty.storage, value, fs)
        if conv == "ratio":
            return _pad("%s/2^%d" % (_decimal(value), ty.f), fs)
        lane = conv[1]
        u = value & ((1 << ty.bits) - 1)
        mask = (1 << lane.bits) - 1
        each = fs.element()
        lanes = [_format_int(lane, (u >> (k * lane.bits)) & mask, each)
                 for k in range(ty.bits // lane.bits)]
        return "[" + ", ".join(lanes) + "]"
    if isinstance(value, ArrayValue):
        return format_value(ty, value, fs)
    if isinstance(ty, (IntType, ZType)):
        return _format_int(ty, value, fs)
    if isinstance(ty, FixedType):
        return _format_fixed(ty, value, fs)
    if isinstance(ty, BoolType):
        return _pad("true" if value else "false", fs)
    if isinstance(ty, StrType):
        return _pad(bytes(value).decode("utf-8", "surrogateescape"), fs)
    if isinstance(ty, (EnumType, RoundType)):
        if isinstance(value, EnumValue):
            enum, name = _short(value.enum), value.name
        elif isinstance(value, RoundValue):
            enum, name = "Round", value.name
        else:  # an integer for an enum type: look its name up
            enum = ty.name()
            name = next((k for k, m in getattr(ty, "members", {}).items() if m == value), str(value))
        return _pad(enum + "." + name if fs.alt else name, fs)
    if isinstance(ty, ErrorSetType) or isinstance(value, ErrorValue):
        return _pad(_short(value.set) + "." + value.name, fs)
    if isinstance(value, StructValue):
        return _format_struct(ty, value)
    raise TypeError("cannot format a value of type %s" % ty)


def format_value(ty: Type, value, fs: FormatSpec = DEFAULT_SPEC) -> str:
    """The exact rendering of ``value`` of static type ``ty`` under a checked spec.

    Raises MachineFault ``E_NARROW`` (operation ``format.char.<T>``) when a
    ``c`` hole's value is not a Unicode scalar value (LS-209).
    """
    if isinstance(value, ArrayValue):
        elem = ty.elem if isinstance(ty, ArrayType) else value.elem

        def build(node):
            if isinstance(node, list):
                return "[" + ", ".join(build(x) for x in node) + "]"
            return _format_scalar(elem, node, fs)

        return build(value.nested())
    return _format_scalar(ty, value, fs)


def format_hole(ty: Type, value, conv: Optional[str], spec: Optional[str],
                span: Optional[Span] = None) -> str:
    """:func:`parse_spec` then :func:`format_value`."""
    return format_value(ty, value, parse_spec(spec, conv, ty, span))
