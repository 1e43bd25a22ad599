"""Values that cross (SPEC-03P.1 8.5): cint.Fixed, cint.from_float and cint.to_float.

Everything here is integer arithmetic on Python ints.  A floating-point input is read as its bit
pattern (struct, memoryview), decoded into a sign, an integer significand m and an exponent e, and
the exact value m * 2^(e + f) is rounded once by shifts (X-3); no float operation takes part, so
neither the processor's rounding mode nor its flush-to-zero setting can change a result.
cint.to_float goes the other way by building the IEEE 754 bit pattern from the integer (X-10).

Our choices, beyond the clauses (also in docs/python.md):

- Fixed(format, value=v) refuses with E_NARROW anything that is not an int or a Fraction exactly
  representable and in range, a float, a Decimal and a bool included (P-21a says "any other");
  Fixed(format, raw=r) takes an int (or an object with __index__, not a bool), E_NARROW out of range.
  A format that is not Q<i>.<f> with i >= 1, f >= 0 and i + f in {8, 16, 32, 64}, written without
  leading zeros, is refused with E_UNSUPPORTED.
- from_float takes a Python float or a NumPy float32/float64 scalar (result: an int or a Fixed), a
  nested list or tuple of Python floats (binary64), or any buffer-protocol object whose format is
  'f' (binary32) or 'd' (binary64), in either byte order and with any strides (result: a Buffer of
  the input's shape, rank 1 to 4).  A 0-d array is refused (pass a[()] for the scalar, or reshape).
- A refusal is a cint.Refused whose extra attributes describe the first refused element:
  reason ("non_finite" or "out_of_range"), operands (the input's bits,), format ("binary32" or
  "binary64"), exact ((significand, exponent) with an odd significand, or None for a NaN or an
  infinity), rounded (the rounded integer, raw for a Q format), limit ((min, max) of the target, a
  Fixed pair for a Q format), target, index (a tuple in the input's shape, None for a scalar),
  flat_index and count (the number refused).
- to_float takes a Buffer, a View, an int or a Fixed, with dtype "float64" (the default) or
  "float32"; an int beyond the format's range is refused with E_NARROW rather than made infinite.
"""
from __future__ import annotations

import ctypes as C
import functools
import operator
import re
import struct
from fractions import Fraction

from ._errors import Refused

__all__ = ["Fixed", "from_float", "to_float", "fixed_type", "ROUNDING_MODES", "OVERFLOW_POLICIES"]

ROUNDING_MODES = ("floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc", "half_up",
                  "half_down")
OVERFLOW_POLICIES = ("refuse", "saturate")

_Q_RE = re.compile(r"Q(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
_INTS = {"I8": (True, 8), "I16": (True, 16), "I32": (True, 32), "I64": (True, 64),
         "U8": (False, 8), "U16": (False, 16), "U32": (False, 32), "U64": (False, 64)}
_WIDE = ("I128", "I256", "I512", "I1024")


# --- fixed-point formats -------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _fixed_type_cached(name):
    from cint_compiler.semantics.types import FixedType
    m = _Q_RE.fullmatch(name)
    if m is None:
        return None
    i, f = int(m.group(1)), int(m.group(2))
    if i < 1 or i + f not in (8, 16, 32, 64):
        return None
    return FixedType(i, f)


def fixed_type(name):
    """The cint_compiler FixedType of a format name such as "Q16.16" (SPEC-04P.1 LS-36), or Refused."""
    ft = _fixed_type_cached(name) if isinstance(name, str) else None
    if ft is None:
        raise Refused("%r is not a fixed-point format: a format is Q<i>.<f> with i >= 1, f >= 0 and i + f one of "
                      "8, 16, 32, 64, such as 'Q16.16' or 'Q32.32'" % (name,), code="E_UNSUPPORTED")
    return ft


def is_fixed_name(name) -> bool:
    return isinstance(name, str) and _fixed_type_cached(name) is not None


def _index_int(v):
    """An int from an int or an object with __index__ (a NumPy integer), never from a bool."""
    if isinstance(v, bool) or type(v).__name__ in ("bool_", "bool"):
        return None
    if isinstance(v, int):
        return int(v)
    try:
        return operator.index(v)
    except TypeError:
        return None


_MISSING = object()


class Fixed:
    """An exact fixed-point scalar of a format Q<i>.<f>: the value raw / 2^f (8.5 P-21a, P-24).

    Fixed("Q32.32", value=1) has raw 4294967296 and Fixed("Q32.32", raw=1) is 2^-32.  value= takes an
    int or a fractions.Fraction that is exactly representable and in range, and refuses anything else
    with cint.Refused (code E_NARROW).  A Fixed is immutable; equality and hash are by format and raw.
    str() is the exact decimal (as cint prints it by default: at least one fractional digit).
    """

    __slots__ = ("_format", "_raw", "_type")

    def __init__(self, format, *, value=_MISSING, raw=_MISSING):
        if (value is _MISSING) == (raw is _MISSING):
            raise TypeError("cint.Fixed takes exactly one of value= and raw=, as in cint.Fixed('Q16.16', value=1) "
                            "or cint.Fixed('Q16.16', raw=65536)")
        ft = fixed_type(format)
        if raw is not _MISSING:
            r = _index_int(raw)
            if r is None:
                raise Refused("cint.Fixed(%r, raw=...) takes an int, not %s" % (format, type(raw).__name__),
                              code="E_UNSUPPORTED")
            if not ft.min <= r <= ft.max:
                raise Refused("raw %d is outside the storage of %s (I%d: %d..%d)" % (r, format, ft.bits, ft.min,
                                                                                      ft.max), code="E_NARROW")
        else:
            r = _raw_of_value(ft, value)
        object.__setattr__(self, "_format", ft.name())
        object.__setattr__(self, "_raw", r)
        object.__setattr__(self, "_type", ft)

    @classmethod
    def _of(cls, ft, raw):
        """A Fixed of a checked FixedType and an in-range raw value (no checks)."""
        q = object.__new__(cls)
        object.__setattr__(q, "_format", ft.name())
        object.__setattr__(q, "_raw", raw)
        object.__setattr__(q, "_type", ft)
        return q

    @property
    def format(self) -> str:
        """The format name, such as "Q32.32"."""
        return self._format

    @property
    def raw(self) -> int:
        """The storage integer: the value times 2^f."""
        return self._raw

    def as_fraction(self) -> Fraction:
        """The exact value, raw / 2^f."""
        return Fraction(self._raw, 1 << self._type.f)

    def __setattr__(self, name, value):
        raise AttributeError("cint.Fixed is immutable")

    def __delattr__(self, name):
        raise AttributeError("cint.Fixed is immutable")

    def __eq__(self, other):
        if isinstance(other, Fixed):
            return self._format == other._format and self._raw == other._raw
        return NotImplemented

    def __ne__(self, other):
        if isinstance(other, Fixed):
            return not (self._format == other._format and self._raw == other._raw)
        return NotImplemented

    def __hash__(self):
        return hash(("cint.Fixed", self._format, self._raw))

    def __str__(self):
        from cint_compiler.semantics.fmt import format_value
        return format_value(self._type, self._raw)

    def __repr__(self):
        return "cint.Fixed(%r, raw=%d)" % (self._format, self._raw)

    def __reduce__(self):
        return (_fixed_from_raw, (self._format, self._raw))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _fixed_from_raw(format, raw):
    return Fixed(format, raw=raw)


def _raw_of_value(ft, value):
    name = ft.name()
    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):
        raise Refused("cint.Fixed(%r, value=%r): a bool is not a number here" % (name, value), code="E_NARROW")
    if isinstance(value, float) or type(value).__module__ == "numpy" and hasattr(value, "dtype") \
            and value.dtype.kind == "f":
        raise Refused("cint.Fixed(%r, value=...) takes an int or a fractions.Fraction, not a float; convert floats "
                      "with cint.from_float(x, %r, rounding=...)" % (name, name), code="E_NARROW")
    if isinstance(value, Fraction):
        num, den = value.numerator, value.denominator
    else:
        v = _index_int(value)
        if v is None:
            raise Refused("cint.Fixed(%r, value=...) takes an int or a fractions.Fraction, not %s" % (
                name, type(value).__name__), code="E_NARROW")
        num, den = v, 1
    # value * 2^f is an integer exactly when den divides 2^f, that is den is 2^k with k <= f
    if den & (den - 1) or den.bit_length() - 1 > ft.f:
        raise Refused("%s is not exactly representable in %s (a multiple of 2^-%d); round it explicitly, e.g. "
                      "with cint.from_float or Fraction arithmetic" % (_frac_text(num, den), name, ft.f),
                      code="E_NARROW")
    raw = num << (ft.f - (den.bit_length() - 1))
    if not ft.min <= raw <= ft.max:
        raise Refused("%s is outside %s (%s..%s)" % (_frac_text(num, den), name, Fixed._of(ft, ft.min),
                                                    Fixed._of(ft, ft.max)), code="E_NARROW")
    return raw


def _frac_text(num, den):
    return str(num) if den == 1 else "%d/%d" % (num, den)


# --- targets --------------------------------------------------------------------------------------

class _Target:
    __slots__ = ("name", "lo", "hi", "f", "fixed", "ctype")

    def __init__(self, name, lo, hi, f, fixed, ctype):
        self.name, self.lo, self.hi, self.f, self.fixed, self.ctype = name, lo, hi, f, fixed, ctype

    def value(self, n):
        return Fixed._of(self.fixed, n) if self.fixed is not None else n


_CT = {(True, 8): C.c_int8, (True, 16): C.c_int16, (True, 32): C.c_int32, (True, 64): C.c_int64,
       (False, 8): C.c_uint8, (False, 16): C.c_uint16, (False, 32): C.c_uint32, (False, 64): C.c_uint64}


def _target(elem) -> _Target:
    if not isinstance(elem, str):
        raise Refused("the target of a float conversion is a type name such as 'I64' or 'Q16.16', not %s"
                      % type(elem).__name__, code="E_UNSUPPORTED")
    if elem in _INTS:
        signed, bits = _INTS[elem]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return _Target(elem, lo, hi, 0, None, _CT[(signed, bits)])
    if elem in _WIDE:
        raise Refused("%s: wide integers (I128..I1024) are not Buffer elements in this slice of cint; convert to "
                      "I64 or a Q format" % elem, code="E_UNSUPPORTED")
    if elem == "Bool":
        raise Refused("a float converts to an integer type (I8..U64) or a Q format, not to Bool", code="E_UNSUPPORTED")
    if is_fixed_name(elem):
        ft = fixed_type(elem)
        return _Target(elem, ft.min, ft.max, ft.f, ft, _CT[(True, ft.bits)])
    raise Refused("unknown target type %r: a float converts to I8, I16, I32, I64, U8, U16, U32, U64 or a Q format "
                  "such as 'Q16.16'" % (elem,), code="E_UNSUPPORTED")


def _check_modes(rounding, overflow):
    if not isinstance(rounding, str) or rounding not in ROUNDING_MODES:
        raise Refused("unknown rounding mode %r: the modes are %s (half_even is the default)" % (
            rounding, ", ".join(ROUNDING_MODES)), code="E_UNSUPPORTED")
    if not isinstance(overflow, str) or overflow not in OVERFLOW_POLICIES:
        extra = " (there is no wrapping policy)" if overflow in ("wrap", "wrapping", "modular") else ""
        raise Refused("unknown overflow policy %r%s: the policies are 'refuse' (the default) and 'saturate'" % (
            overflow, extra), code="E_UNSUPPORTED")


# --- decoding and rounding (X-3) ------------------------------------------------------------------

# format name -> (total bits, significand field bits, exponent field bits, bias)
_FORMATS = {"binary32": (32, 23, 8, 127), "binary64": (64, 52, 11, 1023)}


def decode(bits, fmt):
    """(negative, m, e) with value (-1)^negative * m * 2^e, or None for NaN and the infinities."""
    total, p, w, bias = _FORMATS[fmt]
    neg = bits >> (total - 1)
    ef = (bits >> p) & ((1 << w) - 1)
    frac = bits & ((1 << p) - 1)
    if ef == (1 << w) - 1:
        return None
    if ef == 0:                      # zero and subnormals: no hidden bit, the least exponent
        return neg, frac, 1 - bias - p
    return neg, frac | (1 << p), ef - bias - p


def _round_scaled(neg, m, k, mode):
    """(-1)^neg * m * 2^k rounded once to an integer by mode (m >= 0)."""
    if k >= 0 or m == 0:
        q = m << k if m else 0
        return -q if neg else q
    s = -k
    if s > m.bit_length() + 1:       # |value| < 1/4: the quotient is 0 and the rest is below a half
        q, r, half = 0, m, 1 << (m.bit_length() + 1)
    else:
        q = m >> s
        r = m & ((1 << s) - 1)
        half = 1 << (s - 1)
    if r:
        if mode == "trunc":
            up = False
        elif mode == "away":
            up = True
        elif mode == "floor":
            up = bool(neg)
        elif mode == "ceil":
            up = not neg
        elif r != half:
            up = r > half
        elif mode == "half_even":
            up = bool(q & 1)
        elif mode == "half_away":
            up = True
        elif mode == "half_trunc":
            up = False
        elif mode == "half_up":
            up = not neg
        else:                        # half_down
            up = bool(neg)
        if up:
            q += 1
    return -q if neg else q


def _exact_pair(neg, m, e):
    """The exact value as (odd significand, exponent), (0, 0) for zero."""
    if m == 0:
        return 0, 0
    tz = (m & -m).bit_length() - 1
    m >>= tz
    return (-m if neg else m), e + tz


class _Failure:
    __slots__ = ("flat", "bits", "fmt", "reason", "exact", "rounded")

    def __init__(self, flat, bits, fmt, reason, exact=None, rounded=None):
        self.flat, self.bits, self.fmt, self.reason, self.exact, self.rounded = flat, bits, fmt, reason, exact, rounded


def _convert_all(bits_list, fmt, tgt, rounding, overflow):
    """The converted integers (raw for a Q format), or (first failure, count) of the refused ones."""
    lo, hi, f = tgt.lo, tgt.hi, tgt.f
    total, p, w, bias = _FORMATS[fmt]
    sign_shift = total - 1
    emask = (1 << w) - 1
    fmask = (1 << p) - 1
    hidden = 1 << p
    sub_e = 1 - bias - p
    saturate = overflow == "saturate"
    out = []
    first = None
    count = 0
    for k, bits in enumerate(bits_list):
        ef = (bits >> p) & emask
        if ef == emask:
            count += 1
            if first is None:
                first = _Failure(k, bits, fmt, "non_finite")
            continue
        neg = bits >> sign_shift
        if ef:
            m, e = (bits & fmask) | hidden, ef - bias - p
        else:
            m, e = bits & fmask, sub_e
        n = _round_scaled(neg, m, e + f, rounding)
        if n < lo or n > hi:
            if saturate:
                n = lo if n < lo else hi
            else:
                count += 1
                if first is None:
                    first = _Failure(k, bits, fmt, "out_of_range", _exact_pair(neg, m, e), n)
                continue
        out.append(n)
    if count:
        return None, first, count
    return out, None, 0


_CHUNK = 1 << 14   # elements per step: the temporaries (128 KiB each) stay in cache and their pages are reused


def _convert_np(bits, fmt, tgt, rounding, overflow, out=None):
    """_convert_all over a NumPy array of bit patterns (uint64 for binary64, uint32 for binary32), with NumPy
    integer arithmetic only: the same decode, one rounding by shifts and masks, the same range check.
    Returns (an integer array of the target's storage type (``out`` when given), None, 0), or (None, first
    failure, count); the failure's details come from the pure-Python path (_convert_all), which stays the oracle."""
    import numpy as np
    n = len(bits)
    storage = np.dtype(tgt.ctype).newbyteorder("<")
    if out is None:
        out = np.empty(n, dtype=storage)
    count, first = 0, None
    for lo in range(0, n, _CHUNK):
        c, f = _convert_chunk(bits[lo:lo + _CHUNK], fmt, tgt, rounding, overflow, out[lo:lo + _CHUNK])
        if c:
            if first is None:
                first = lo + f
            count += c
    if count:
        _, fail, _ = _convert_all([int(bits[first])], fmt, tgt, rounding, overflow)
        fail.flat = first
        return None, fail, count
    return out, None, 0


def _convert_chunk(bits, fmt, tgt, rounding, overflow, out):
    """One step of _convert_np: writes out and returns (refused count, index of the first refused).

    value = (-1)^neg * m * 2^-s with s = bias + p - f - ef (for a subnormal, whose exponent field is 0,
    the true s is one less, but s is then above 63 either way, so the result is the same). The sign is
    kept as a two's complement mask (0, or -1 for a negative input): the result is (q ^ mask) - mask,
    without a masked ufunc, which NumPy runs element by element."""
    import numpy as np
    total, p, w, bias = _FORMATS[fmt]
    i64, u64 = np.int64, np.uint64
    if fmt == "binary64":
        b = bits.view(i64)
        sign = b >> i64(63)
    else:
        b = bits.astype(i64)
        sign = b >> i64(31)
        np.negative(sign, out=sign)
    ef = b >> i64(p)
    ef &= i64((1 << w) - 1)
    m = b & i64((1 << p) - 1)
    m |= i64(1 << p)
    np.bitwise_xor(m, i64(1 << p), out=m, where=ef == 0)   # zero and subnormals: no hidden bit
    sh = np.subtract(i64(bias + p - tgt.f), ef)
    any_left = bool(sh.min() < 0)                          # |value| * 2^f >= 2^53 somewhere: exact, shifted left
    left = sh < 0 if any_left else None
    np.clip(sh, i64(0), i64(63), out=sh)                  # s >= 54 gives q = 0, r = m < half, as s = 63 does
    su = sh.view(u64)
    mu = m.view(u64)
    one = np.left_shift(u64(1), su)                        # 2^s
    r2 = np.subtract(one, u64(1))
    r2 &= mu                                               # r, the bits shifted out
    r2 <<= u64(1)                                          # 2r, compared with 2^s
    q = np.right_shift(mu, su, out=mu)                     # m is not used again
    up = None
    if rounding == "away":
        up = r2 != u64(0)
    elif rounding == "floor":
        up = r2 != u64(0)
        up &= sign != i64(0)
    elif rounding == "ceil":
        up = r2 != u64(0)
        up &= sign == i64(0)
    elif rounding != "trunc":
        up = r2 > one
        if rounding != "half_trunc":
            ties = np.flatnonzero(r2 == one)               # few: decided one by one
            if len(ties):
                if rounding == "half_even":
                    up[ties] = (q[ties] & u64(1)) != 0
                elif rounding == "half_away":
                    up[ties] = True
                elif rounding == "half_up":
                    up[ties] = sign[ties] == 0
                else:                                      # half_down
                    up[ties] = sign[ties] != 0
    if up is not None:
        q += up
    nonfinite = ef == i64((1 << w) - 1)
    hi, lo = tgt.hi, tgt.lo
    if any_left:                                           # the general check on magnitudes up to 2^64
        k = -np.subtract(i64(bias + p - tgt.f), ef)
        big = left & (k > i64(63 - p))                     # m << k needs more than 64 bits
        mfull = b & i64((1 << p) - 1)                      # m again (q took its storage)
        mfull |= i64(1 << p)
        mu = mfull.view(u64)
        q = np.where(left, mu << np.where(left & ~big, k, 0).view(u64), q)
        q[big] = u64((1 << 64) - 1)
        neg_u = np.negative(sign).view(u64)                # 1 for a negative input
        lim = neg_u * u64((-lo - hi) % (1 << 64))
        lim += u64(hi)                                     # the magnitude limit: -lo if negative, else hi
        over = (q > lim) | big                             # big: the sentinel may equal lim (U64)
        if overflow == "saturate":
            np.minimum(q, lim, out=q)
        mask = sign.view(u64)
        q ^= mask
        q -= mask                                          # two's complement, modulo 2^64
        val = q.view(i64)
    else:                                                  # |value| <= 2^53 + 1: signed int64 arithmetic
        val = q.view(i64)
        val ^= sign
        val -= sign
        over = None
        if lo > -(1 << 53):
            over = val < i64(lo)
        if hi < (1 << 53):
            above = val > i64(hi)
            over = above if over is None else (over | above)
        if over is not None and overflow == "saturate":
            np.clip(val, i64(max(lo, -(1 << 63))), i64(min(hi, (1 << 63) - 1)), out=val)
    n_bad = int(np.count_nonzero(nonfinite))
    if over is not None and overflow != "saturate":
        n_bad += int(np.count_nonzero(over))
    if n_bad:
        refused = nonfinite if overflow == "saturate" or over is None else (nonfinite | over)
        return int(np.count_nonzero(refused)), int(np.argmax(refused))
    out[...] = val if out.dtype.kind == "i" else val.view(u64)   # in range, so the narrowing is exact
    return 0, 0


def _hexbits(bits, fmt):
    return "0x%0*x" % (_FORMATS[fmt][0] // 4, bits)


def _describe(bits, fmt):
    """The input as text, from its bits only."""
    d = decode(bits, fmt)
    if d is None:
        frac = bits & ((1 << _FORMATS[fmt][1]) - 1)
        what = ("-inf" if bits >> (_FORMATS[fmt][0] - 1) else "inf") if frac == 0 else "NaN"
        return "%s %s (bits %s)" % (fmt, what, _hexbits(bits, fmt))
    sig, exp = _exact_pair(*d)
    return "%s (%s %d * 2^%d exactly, bits %s)" % (_decimal(bits, fmt), fmt, sig, exp, _hexbits(bits, fmt))


def _decimal(bits, fmt):
    """The shortest decimal that reads back as this binary64 or binary32 value (a message shows it beside the
    exact value)."""
    if fmt == "binary64":
        return repr(struct.unpack("<d", bits.to_bytes(8, "little"))[0])
    v = struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    for digits in range(1, 10):
        text = "%.*g" % (digits, v)
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == v:
            return repr(float(text))
    return repr(v)


def _unravel(flat, shape):
    if shape is None:
        return None
    idx = []
    for n in reversed(shape):
        idx.append(flat % n)
        flat //= n
    return tuple(reversed(idx))


def _refusal(first, count, total_n, shape, tgt):
    index = _unravel(first.flat, shape)
    where = "the value" if index is None else "element [%s] (row-major index %d)" % (
        ", ".join(str(i) for i in index), first.flat)
    rng = (tgt.value(tgt.lo), tgt.value(tgt.hi))
    if first.reason == "non_finite":
        text = "%s is %s, which no cint type holds" % (where, _describe(first.bits, first.fmt))
    else:
        text = "%s is %s, which rounds to %s, outside %s (%s..%s); pass overflow='saturate' to clamp" % (
            where, _describe(first.bits, first.fmt),
            tgt.value(first.rounded) if tgt.fixed is None else "raw %d" % first.rounded, tgt.name, rng[0], rng[1])
    if shape is not None:
        text += "; refused: %d of %d element%s, so no Buffer was made" % (count, total_n, "" if total_n == 1 else "s")
    ex = Refused("cint.from_float to %s: %s" % (tgt.name, text), code="E_NARROW", reason=first.reason)
    ex.operation = "from_float"
    ex.operands = (first.bits,)
    ex.bits = first.bits
    ex.format = first.fmt
    ex.exact = first.exact
    ex.rounded = first.rounded
    ex.limit = rng
    ex.target = tgt.name
    ex.index = index
    ex.flat_index = first.flat
    ex.count = count
    return ex


# --- reading the input (X-2) ------------------------------------------------------------------------

def _float_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _refuse_format(what):
    return Refused("cint.from_float takes IEEE 754 binary32 or binary64 values only, not %s (X-2)" % what,
                   code="E_UNSUPPORTED")


def _format_of(fmt, itemsize, dtype_text):
    """(struct byte order, binary format) of a buffer-protocol format, or Refused."""
    order = "<"
    if fmt and fmt[0] in "@=<>!":
        order = ">" if fmt[0] in ">!" else "<"
        fmt = fmt[1:]
    if fmt == "d" and itemsize == 8:
        return order, "binary64"
    if fmt == "f" and itemsize == 4:
        return order, "binary32"
    if fmt == "e":
        raise _refuse_format("binary16 (%s); no conversion is implied" % dtype_text)
    if fmt == "g" or (fmt == "d" and itemsize != 8):
        raise _refuse_format("an extended format (%s, item size %d)" % (dtype_text, itemsize))
    if fmt in ("Zf", "Zd", "Zg", "Ze"):
        raise _refuse_format("complex values (%s)" % dtype_text)
    if fmt in ("b", "h", "i", "l", "q", "n", "B", "H", "I", "L", "Q", "N", "?"):
        raise Refused("cint.from_float converts floating-point data; this is integer or Bool data (%s): use "
                      "cint.copy(obj) or cint.borrow(obj)" % dtype_text, code="E_UNSUPPORTED")
    raise _refuse_format("the format %r (%s)" % (fmt, dtype_text))


def _read(obj):
    """(flat bit patterns, format, shape or None for a scalar) of a floating-point input, or Refused."""
    if isinstance(obj, float):       # a Python float, numpy.float64 included: binary64
        return [_float_bits(obj)], "binary64", None
    if isinstance(obj, (bool, int)) or _is_int_scalar(obj):
        raise Refused("cint.from_float converts floating-point values, not %s; an integer enters through cint.copy "
                      "or as a parameter" % type(obj).__name__, code="E_UNSUPPORTED")
    if isinstance(obj, (str, bytes, bytearray)):
        raise Refused("cint.from_float converts floating-point values, not %s" % type(obj).__name__,
                      code="E_UNSUPPORTED")
    if isinstance(obj, (list, tuple)):
        from ._arrays import _flatten
        shape, flat = _flatten(obj)
        if not 1 <= len(shape) <= 4:
            raise Refused("rank %d: a Buffer has rank 1 to 4" % len(shape), code="E_UNSUPPORTED")
        bits = []
        for k, x in enumerate(flat):
            if not isinstance(x, float):
                if type(x).__module__ == "numpy" and hasattr(x, "dtype") and x.dtype.kind == "f":
                    raise _refuse_format("a numpy.%s in a sequence (element %d): pass a NumPy array, whose dtype "
                                         "names the format" % (type(x).__name__, k))
                raise Refused("element %d of the sequence is %s, not a float (a sequence of Python floats is "
                              "binary64)" % (k, type(x).__name__), code="E_UNSUPPORTED")
            bits.append(_float_bits(x))
        return bits, "binary64", shape
    fast = _native_float_array(obj)
    if fast is not None:
        return fast
    try:
        mv = memoryview(obj)
    except (TypeError, ValueError, BufferError) as ex:
        dt = getattr(obj, "dtype", None)
        if dt is not None:
            raise _refuse_format("an array of dtype %s (%s)" % (dt, ex)) from None
        raise Refused("cint.from_float takes a float, a sequence of floats or an array of float32 or float64 values "
                      "(buffer protocol), not %s" % type(obj).__name__, code="E_UNSUPPORTED") from None
    try:
        dt = getattr(obj, "dtype", None)
        text = "dtype %s" % dt if dt is not None else "format %r" % mv.format
        order, fmt = _format_of(mv.format, mv.itemsize, text)
        scalar = mv.ndim == 0 and _is_numpy_generic(obj)
        if mv.ndim == 0 and not scalar:
            raise Refused("a 0-d array: a Buffer has rank 1 to 4; pass a[()] to convert the scalar, or "
                          "a.reshape(1)", code="E_UNSUPPORTED")
        if mv.ndim > 4:
            raise Refused("rank %d: a Buffer has rank 1 to 4; reshape first" % mv.ndim, code="E_UNSUPPORTED")
        code = "Q" if fmt == "binary64" else "I"
        try:
            import numpy as np
        except ImportError:
            raw = mv.tobytes()       # row-major whatever the strides
            bits = list(struct.unpack("%s%d%s" % (order, len(raw) // mv.itemsize, code), raw))
        else:                        # the bit patterns as unsigned integers, in the input's byte order
            dt = np.dtype(order + ("u8" if code == "Q" else "u4"))
            if mv.c_contiguous and order == "<" and mv.nbytes:
                bits = np.frombuffer(mv.cast("B"), dtype=dt).copy()
            else:
                bits = np.frombuffer(mv.tobytes(), dtype=dt)
            bits = bits.astype(dt.newbyteorder("="), copy=False)
        return bits, fmt, (None if scalar else tuple(mv.shape))
    finally:
        mv.release()


def _native_float_array(obj):
    """(bits, format, shape) of a C-contiguous little-endian float32/float64 NumPy array of rank 1 to 4, as a
    view of its memory (no copy), or None to take the general path."""
    if type(obj).__name__ != "ndarray" or type(obj).__module__ != "numpy":
        return None
    import numpy as np
    dt = obj.dtype
    if dt not in (np.dtype("<f8"), np.dtype("<f4")) or not 1 <= obj.ndim <= 4 or not obj.flags.c_contiguous \
            or obj.size == 0:
        return None
    bits = obj.reshape(-1).view(np.uint64 if dt.itemsize == 8 else np.uint32)
    return bits, ("binary64" if dt.itemsize == 8 else "binary32"), tuple(obj.shape)


def _is_numpy_generic(obj):
    """A NumPy scalar (numpy.generic), found without importing NumPy."""
    return any(c.__name__ == "generic" and c.__module__ == "numpy" for c in type(obj).__mro__)


def _is_int_scalar(obj):
    return _is_numpy_generic(obj) and getattr(obj.dtype, "kind", "") in "iub"


# --- from_float (X-1..X-8) ------------------------------------------------------------------------

def from_float(obj, elem, *, rounding="half_even", overflow="refuse"):
    """Floating-point values converted exactly, rounded once, into a Buffer of elem (8.5 X-1..X-8).

    obj is a float (or a NumPy float32/float64 scalar), whose result is an int or a cint.Fixed, or a
    sequence of floats or an array of binary32 or binary64 values, whose result is a Buffer of the
    same shape.  elem is I8..I64, U8..U64 or a Q format.  rounding is one of the nine modes of
    SPEC-01P.1 IM-42; overflow is "refuse" or "saturate".  Nothing is converted unless every element
    converts: a refusal names the first refused element in row-major order and the number refused.
    """
    tgt = _target(elem)
    _check_modes(rounding, overflow)
    bits, fmt, shape = _read(obj)
    vector = shape is not None and len(bits) > 0 and _numpy_ok()
    if vector:
        import numpy as np
        data = (tgt.ctype * len(bits))()           # the Buffer's storage, written in place
        out, first, count = _convert_np(np.asarray(bits, dtype=np.uint64 if fmt == "binary64" else np.uint32), fmt,
                                        tgt, rounding, overflow,
                                        np.frombuffer(data, dtype=np.dtype(tgt.ctype).newbyteorder("<")))
    else:
        if not isinstance(bits, list):
            bits = [int(b) for b in bits]
        out, first, count = _convert_all(bits, fmt, tgt, rounding, overflow)
    if out is None:
        raise _refusal(first, count, len(bits), shape, tgt)
    if shape is None:
        return tgt.value(out[0])
    from ._arrays import Buffer, _shape_of
    shape = _shape_of(shape)
    if not vector:
        data = (tgt.ctype * max(len(out), 1))()
        for k, v in enumerate(out):
            data[k] = v
    return Buffer(shape, elem, data=data)


def _numpy_ok():
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def copy_options(opts):
    """(rounding, overflow) from the from_float= argument of cint.copy: True, a rounding name or a mapping."""
    if opts is True:
        return "half_even", "refuse"
    if isinstance(opts, str):
        return opts, "refuse"
    if isinstance(opts, dict):
        extra = set(opts) - {"rounding", "overflow"}
        if extra:
            raise Refused("cint.copy(from_float=...) takes the keys rounding and overflow, not %s" % (
                ", ".join(sorted(map(repr, extra)))), code="E_UNSUPPORTED")
        return opts.get("rounding", "half_even"), opts.get("overflow", "refuse")
    raise Refused("cint.copy(from_float=...) is True, a rounding mode name or a dict with rounding and overflow, "
                  "not %r" % (opts,), code="E_UNSUPPORTED")


# --- to_float (X-10, X-11) --------------------------------------------------------------------------

# dtype name -> (significand bits with the hidden one, exponent field bits, bias, struct code)
_OUT = {"float64": (53, 11, 1023, "d", "Q"), "float32": (24, 8, 127, "f", "I")}


def binary_bits(neg, a, e2, dtype="float64"):
    """The IEEE 754 bits of (-1)^neg * a * 2^e2 rounded to nearest, ties to even (a >= 0, normal range)."""
    p, w, bias, _, _ = _OUT[dtype]
    if a == 0:
        return 0
    L = a.bit_length()
    if L > p:
        s = L - p
        q = a >> s
        r = a & ((1 << s) - 1)
        half = 1 << (s - 1)
        if r > half or (r == half and q & 1):
            q += 1
            if q >> p:
                q >>= 1
                s += 1
    else:
        s = L - p
        q = a << -s
    be = s + e2 + p - 1 + bias       # the biased exponent of the leading bit
    if be >= (1 << w) - 1:
        raise OverflowError
    if be <= 0:                      # no cint integer or Q value is this small (2^-63 at the least)
        raise AssertionError("subnormal result")  # pragma: no cover
    return (neg << (w + p - 1)) | (be << (p - 1)) | (q - (1 << (p - 1)))


def _bits_np(v, f, dtype):
    """binary_bits over a NumPy integer array v, in steps of _CHUNK elements (see _bits_chunk)."""
    import numpy as np
    out = np.empty(len(v), dtype=np.uint64)
    for lo in range(0, len(v), _CHUNK):
        out[lo:lo + _CHUNK] = _bits_chunk(v[lo:lo + _CHUNK], f, dtype)
    return out


def _bits_chunk(v, f, dtype):
    """One step of _bits_np. The leading bit's position is read from the exponent of a conversion to binary64,
    which is exact below 2^53 and can be one too high above (a rounding up to a power of two): there it is
    corrected from the integer. The significand is rounded to nearest, ties to even, by shifts and masks."""
    import numpy as np
    p, w, bias, _, _ = _OUT[dtype]
    i64, u64 = np.int64, np.uint64
    if v.dtype.kind == "u":
        neg = None
        a = v.astype(u64)
    else:
        v64 = v.astype(i64, copy=False)
        neg = v64 < 0
        a = np.abs(v64).view(u64)                          # |v|, with |-2^63| = 2^63 as a magnitude
    amax = int(a.max()) if len(a) else 0
    L = (a.astype(np.float64).view(i64) >> i64(52)) - i64(1022)   # bit_length(a) (0 gives -1022: masked below)
    if amax >= 1 << 53:
        np.maximum(L, i64(1), out=L)
        L -= ((a >> (L - i64(1)).view(u64)) == u64(0))     # the correction
    s = L - i64(p)                                         # > 0: shift right and round; <= 0: shift left
    if amax < 1 << p:                                      # exact: every value fits the significand
        q = a << np.clip(-s, 0, 63).view(u64)
    else:
        sr = np.maximum(s, i64(0)).view(u64)
        q = (a >> sr) << np.clip(-s, 0, 63).view(u64)
        r2 = (a - ((a >> sr) << sr)) << u64(1)
        one = u64(1) << sr
        up = (r2 > one) & (sr != u64(0))
        ties = np.flatnonzero((r2 == one) & (sr != u64(0)))
        if len(ties):
            up[ties] = (q[ties] & u64(1)) != 0
        q += up
        carry = (q >> u64(p)).astype(u64)                  # the rounding carried to 2^p
        q >>= carry
        s += carry.view(i64)
    be = (s + i64(p - 1 + bias - f)).view(u64)             # never overflows or underflows: |v| < 2^64, f <= 63
    out = be << u64(p - 1)
    out |= q - (u64(1) << u64(p - 1))
    if neg is not None:
        out |= neg.astype(u64) << u64(w + p - 1)
    out[a == 0] = 0
    return out


def _dtype_name(dtype):
    if isinstance(dtype, str) and dtype in _OUT:
        return dtype
    try:
        import numpy as np
        name = np.dtype(dtype).name
    except Exception:
        name = None
    if name in _OUT:
        return name
    raise Refused("cint.to_float gives float64 (the default) or float32, not %r" % (dtype,), code="E_UNSUPPORTED")


def _scalar_bits(v, f, dtype):
    neg = v < 0
    try:
        return binary_bits(int(neg), -v if neg else v, -f, dtype)
    except OverflowError:
        raise Refused("%d is beyond the range of %s" % (v, dtype), code="E_NARROW", reason="out_of_range") from None


def _from_bits(bits, dtype):
    _, _, _, code, icode = _OUT[dtype]
    return struct.unpack("<" + code, struct.pack("<" + icode, bits))[0]


def _flat_raw(x):
    """(flat ints (raw for a Q format), f, shape) of a Buffer or a View."""
    from ._arrays import Buffer, elem_info
    if isinstance(x, Buffer):
        elem = x.elem
        _check_not_bool(elem)
        _, size, _, code = elem_info(elem)
        raw = x._raw()
        flat = list(struct.unpack("<%d%s" % (x.count, code), raw)) if x.count else []
        shape = x.shape
    else:
        from ._errors import StaleHandle
        if x._released:
            raise StaleHandle("this View was released; borrow the array again")
        elem = x.elem
        _check_not_bool(elem)
        _, size, _, code = elem_info(elem)
        shape = x.shape
        n = 1
        for d in shape:
            n *= d
        flat = []
        if n:
            mem = C.string_at(x._lowest, x.extent * size)
            vals = struct.unpack("<%d%s" % (x.extent, code), mem)
            idx = [0] * len(shape)
            for _ in range(n):
                off = x.origin + sum(i * s for i, s in zip(idx, x.strides))
                flat.append(vals[off])
                for d in reversed(range(len(shape))):
                    idx[d] += 1
                    if idx[d] < shape[d]:
                        break
                    idx[d] = 0
    f = fixed_type(elem).f if is_fixed_name(elem) else 0
    return flat, f, shape


def _array_raw(x):
    """(NumPy array of the stored integers (raw for a Q format) in row-major order, f, shape) of a Buffer or a View."""
    import numpy as np
    from ._arrays import Buffer, elem_info
    elem = x.elem
    _check_not_bool(elem)
    _, size, _, code = elem_info(elem)
    dt = np.dtype("<" + code)
    f = fixed_type(elem).f if is_fixed_name(elem) else 0
    if isinstance(x, Buffer):
        raw = x._raw()
        return np.frombuffer(raw, dtype=dt, count=x.count), f, x.shape
    from ._errors import StaleHandle
    if x._released:
        raise StaleHandle("this View was released; borrow the array again")
    shape = tuple(x.shape)
    n = 1
    for d in shape:
        n *= d
    if n == 0:
        return np.zeros(0, dtype=dt), f, shape
    vals = np.frombuffer(C.string_at(x._lowest, x.extent * size), dtype=dt)
    off = np.array(x.origin, dtype=np.int64)
    for d, st in zip(shape, x.strides):                    # element offsets of the view, row-major
        off = off[..., None] + np.arange(d, dtype=np.int64) * st
    return vals[off.reshape(-1)], f, shape


def _check_not_bool(elem):
    if elem == "Bool":
        raise Refused("cint.to_float converts integers and fixed-point values, not Bool", code="E_UNSUPPORTED")


def to_float(x, *, dtype="float64"):
    """Integers or fixed-point values as binary64 (or binary32), rounded to nearest, ties to even (X-10).

    The rounding is computed from the integer, never through floating-point arithmetic.  A Buffer or a
    View gives a read-write NumPy array of its shape (a nested list of floats without NumPy); an int or
    a cint.Fixed gives a float.  The result is for display or export: it is not cint state (X-11).
    """
    from ._arrays import Buffer, View
    dt = _dtype_name(dtype)
    if isinstance(x, Fixed):
        bits = _scalar_bits(x.raw, x._type.f, dt)
        return _scalar_out(bits, dt)
    if isinstance(x, bool) or _is_int_scalar(x) and x.dtype.kind == "b":
        raise Refused("cint.to_float converts integers and fixed-point values, not a bool", code="E_UNSUPPORTED")
    if isinstance(x, int) or _is_int_scalar(x):
        return _scalar_out(_scalar_bits(int(x), 0, dt), dt)
    if not isinstance(x, (Buffer, View)):
        raise Refused("cint.to_float takes a cint.Buffer, a cint.View, an int or a cint.Fixed, not %s; borrow an "
                      "integer array with cint.borrow(a) first" % type(x).__name__, code="E_UNSUPPORTED")
    if _numpy_ok():
        import numpy as np
        arr, f, shape = _array_raw(x)
        bits = _bits_np(arr.reshape(-1), f, dt)
        if dt == "float64":
            return bits.view(np.float64).reshape(shape)
        return bits.astype(np.uint32).view(np.float32).reshape(shape)
    flat, f, shape = _flat_raw(x)
    out = []
    for v in flat:
        if v < 0:
            out.append(binary_bits(1, -v, -f, dt))
        else:
            out.append(binary_bits(0, v, -f, dt))
    try:
        import numpy as np
    except ImportError:
        from ._arrays import _nest
        vals = [_from_bits(b, dt) for b in out]
        return _nest(vals, shape)
    ut = np.uint64 if dt == "float64" else np.uint32
    return np.array(out, dtype=ut).view(np.float64 if dt == "float64" else np.float32).reshape(shape)


def _scalar_out(bits, dt):
    if dt == "float64":
        return _from_bits(bits, dt)
    try:
        import numpy as np
    except ImportError:
        return _from_bits(bits, dt)
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]
