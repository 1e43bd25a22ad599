"""The integer machine of cint-core-1 (SPEC-01P.1 sections 2 to 6).

Every operation is a pure function over Python ints.  An integer value is its
mathematical value; a fixed-point value is its raw storage int, and the static
``FixedType`` passed alongside says so.  Where the specification says an
operation faults, the function raises :class:`MachineFault` with the canonical
content of the record (code, operation identifier of section 9.8, operands in
source order as typed values, ``exact`` and ``limit``).  The executor adds the
position and the rest.

Arithmetic is exact integer arithmetic only: no floats are used anywhere.
Fuel is charged by the caller, never here.
"""
from __future__ import annotations

import builtins
import math
from fractions import Fraction
from typing import Callable, Optional, Sequence, Tuple, Union

from cint_compiler.semantics import opnames
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import (
    I8, I16, I32, I64, I128, I256, I512, I1024, U8, U16, U32, U64, Z,
    FixedType, IntType, ROUND_MODES, Type,
)

Num = Union[IntType, FixedType]

_pydivmod = builtins.divmod

E_OVERFLOW = "E_OVERFLOW"
E_DIV_ZERO = "E_DIV_ZERO"
E_SHAPE = "E_SHAPE"
E_SHIFT = "E_SHIFT"
E_NARROW = "E_NARROW"
E_DOMAIN = "E_DOMAIN"

DEFAULT_MODE = "half_even"

# fault code -> ArithError value name (IM-30, IM-188)
ARITH_ERROR_OF = {
    E_OVERFLOW: "overflow",
    E_DIV_ZERO: "div_zero",
    E_SHIFT: "shift",
    E_NARROW: "narrow",
}

FORMS = ("checked", "wrap", "sat")


# ---------------------------------------------------------------------------
# Range helpers


def fits(t: Num, v: int) -> bool:
    """``in(T, v)``: whether the value (raw value for fixed point) is in the range of ``t``."""
    return t.min <= v <= t.max


def wrap(t: Num, v: int) -> int:
    """``wrap(T, v)``: the unique value of ``t`` congruent to ``v`` modulo ``2^w``."""
    w = t.bits
    u = v & ((1 << w) - 1)
    if t.min < 0 and u >> (w - 1):
        u -= 1 << w
    return u


def sat(t: Num, v: int) -> int:
    """``sat(T, v)``: ``v`` clamped to the range of ``t``."""
    if v > t.max:
        return t.max
    if v < t.min:
        return t.min
    return v


def _bound(t: Num, v: int) -> Tuple[Type, int]:
    """The bound of ``t`` that the out-of-range value ``v`` crosses, as a typed value."""
    return (t, t.max if v > t.max else t.min)


def _check_mode(mode: str) -> str:
    if mode not in ROUND_MODES:
        raise ValueError("unknown rounding mode %r" % (mode,))
    return mode


def _overflow(op: str, operands, t: Num, v: int) -> MachineFault:
    return MachineFault(E_OVERFLOW, op, operands, exact=v, limit=_bound(t, v))


def _form_rule(form: str, t: Num, v: int, op: str, operands) -> int:
    """Apply the operator form to the exact (or rounded) value ``v`` (IM-30)."""
    if form == "checked":
        if not fits(t, v):
            raise _overflow(op, operands, t, v)
        return v
    if form == "wrap":
        return wrap(t, v)
    if form == "sat":
        return sat(t, v)
    raise ValueError("unknown form %r" % (form,))


# ---------------------------------------------------------------------------
# Rounding (IM-42, IM-43)


def round_div(n: int, d: int, mode: str) -> int:
    """The rational ``n / d`` rounded once by ``mode`` (any signs, ``d != 0``)."""
    _check_mode(mode)
    if d == 0:
        raise ZeroDivisionError("round_div by zero")
    if d < 0:
        n, d = -n, -d
    q, r = _pydivmod(n, d)       # q = floor(n / d), 0 <= r < d
    if r == 0:
        return q
    negative = n < 0             # the exact value is not an integer, so it is nonzero
    if mode == "floor":
        return q
    if mode == "ceil":
        return q + 1
    if mode == "trunc":
        return q + 1 if negative else q
    if mode == "away":
        return q if negative else q + 1
    twice = 2 * r
    if twice < d:
        return q
    if twice > d:
        return q + 1
    # an exact tie between q and q + 1
    if mode == "half_even":
        return q if q % 2 == 0 else q + 1
    if mode == "half_away":
        return q if negative else q + 1
    if mode == "half_trunc":
        return q + 1 if negative else q
    if mode == "half_up":
        return q + 1
    return q                     # half_down


def _sqrt_round(x: int, mode: str) -> int:
    """``sqrt(x)`` rounded by ``mode`` for integer ``x >= 0`` (ties cannot occur)."""
    _check_mode(mode)
    r = math.isqrt(x)
    if r * r == x:
        return r
    # r < sqrt(x) < r + 1, and the value is positive
    if mode in ("floor", "trunc"):
        return r
    if mode in ("ceil", "away"):
        return r + 1
    # nearest: sqrt(x) > r + 1/2  <=>  x > r^2 + r + 1/4  <=>  x > r^2 + r
    return r + 1 if x > r * r + r else r


# ---------------------------------------------------------------------------
# Addition, subtraction, multiplication (IM-30, IM-32, IM-60, IM-61)


def arith(op: str, form: str, t: Num, a: int, b: int) -> int:
    """``a + b``, ``a - b``, ``a * b`` in ``form`` ('checked', 'wrap', 'sat')."""
    if op == "mul" and t.is_fixed:
        return fixed_mul(form, t, a, b, DEFAULT_MODE)
    if op == "add":
        v = a + b
    elif op == "sub":
        v = a - b
    elif op == "mul":
        v = a * b
    else:
        raise ValueError("unknown arithmetic operation %r" % (op,))
    return _form_rule(form, t, v, opnames.op(op, form, t), [(t, a), (t, b)])


def add(form: str, t: Num, a: int, b: int) -> int:
    return arith("add", form, t, a, b)


def sub(form: str, t: Num, a: int, b: int) -> int:
    return arith("sub", form, t, a, b)


def mul(form: str, t: Num, a: int, b: int) -> int:
    return arith("mul", form, t, a, b)


def neg(form: str, t: Num, a: int) -> int:
    """``-a`` (checked), ``0 -% a`` (wrap, never faults), ``0 -| a`` (sat)."""
    return _form_rule(form, t, -a, opnames.op("neg", "checked", t), [(t, a)])


# ---------------------------------------------------------------------------
# Division and remainder (IM-35 to IM-40, IM-44)


def _div_zero(op: str, operands) -> MachineFault:
    return MachineFault(E_DIV_ZERO, op, operands)


def _floor_divmod(a: int, b: int) -> Tuple[int, int]:
    return _pydivmod(a, b)


def _trunc_divmod(a: int, b: int) -> Tuple[int, int]:
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - b * q


def _euclid_divmod(a: int, b: int) -> Tuple[int, int]:
    q, r = _pydivmod(a, b)
    if r < 0:                    # only when b < 0: r in (b, 0)
        q, r = q + 1, r - b
    return q, r


def _int_div(name: str, t: IntType, a: int, b: int, split: Callable, want: str):
    op = opnames.op(name, "checked", t)
    operands = [(t, a), (t, b)]
    if b == 0:
        raise _div_zero(op, operands)
    q, r = split(a, b)
    if want in ("q", "qr") and not fits(t, q):
        raise _overflow(op, operands, t, q)
    if want == "q":
        return q
    if want == "r":
        return r
    return q, r


def div(t: Num, a: int, b: int) -> int:
    """``a / b``: floor division on integers; rounded rational division on fixed point."""
    if t.is_fixed:
        return fixed_div("checked", t, a, b, DEFAULT_MODE)
    return _int_div("div", t, a, b, _floor_divmod, "q")


def rem(t: IntType, a: int, b: int) -> int:
    """``a % b``: floor remainder (sign of the divisor); ``MIN % -1`` is 0."""
    if t.is_fixed:
        raise TypeError("% is not defined on fixed point")
    return _int_div("rem", t, a, b, _floor_divmod, "r")


def div_trunc(t: IntType, a: int, b: int) -> int:
    return _int_div("div_trunc", t, a, b, _trunc_divmod, "q")


def rem_trunc(t: IntType, a: int, b: int) -> int:
    return _int_div("rem_trunc", t, a, b, _trunc_divmod, "r")


def div_euclid(t: IntType, a: int, b: int) -> int:
    return _int_div("div_euclid", t, a, b, _euclid_divmod, "q")


def rem_euclid(t: IntType, a: int, b: int) -> int:
    return _int_div("rem_euclid", t, a, b, _euclid_divmod, "r")


def divmod_(t: IntType, a: int, b: int) -> Tuple[int, int]:
    """``divmod(a, b)``: ``(a / b, a % b)``; faults when the quotient does."""
    return _int_div("divmod", t, a, b, _floor_divmod, "qr")


def div_round(t: IntType, a: int, b: int, mode: str) -> int:
    """``div_round(a, b, mode)``: ``a / b`` rounded once by ``mode``, then checked (IM-44)."""
    _check_mode(mode)
    op = opnames.op("div_round", "checked", t, mode=mode)
    operands = [(t, a), (t, b)]
    if b == 0:
        raise _div_zero(op, operands)
    q = round_div(a, b, mode)
    if not fits(t, q):
        raise _overflow(op, operands, t, q)
    return q


# ---------------------------------------------------------------------------
# Shifts and rotations (IM-45, IM-46)


def _check_count(op: str, t: IntType, a: int, count: int, count_type: Type):
    if not 0 <= count <= t.bits - 1:
        raise MachineFault(E_SHIFT, op, [(t, a), (count_type, count)], limit=(I64, t.bits - 1))


def shl(form: str, t: IntType, a: int, count: int, count_type: Type = I64) -> int:
    """``a << k`` (checked) or ``a <<% k`` (wrap); the count is checked in both forms."""
    if form not in ("checked", "wrap"):
        raise ValueError("shl has no %r form" % (form,))
    op = opnames.op("shl", form, t)
    _check_count(op, t, a, count, count_type)
    return _form_rule(form, t, a << count, op, [(t, a), (count_type, count)])


def shr(t: IntType, a: int, count: int, count_type: Type = I64) -> int:
    """``a >> k``: ``floor(a / 2^k)`` (arithmetic for signed, logical for unsigned)."""
    _check_count(opnames.op("shr", "checked", t), t, a, count, count_type)
    return a >> count


def _rotate(name: str, t: IntType, a: int, k: int, k_type: Type, left: bool) -> int:
    if t.signed:
        raise TypeError("%s is defined on unsigned types only" % name)
    _check_count(opnames.op(name, "checked", t), t, a, k, k_type)
    w = t.bits
    k = k if left else (w - k) % w
    mask = (1 << w) - 1
    return ((a << k) | (a >> (w - k))) & mask


def rotl(t: IntType, a: int, k: int, k_type: Type = I64) -> int:
    return _rotate("rotl", t, a, k, k_type, True)


def rotr(t: IntType, a: int, k: int, k_type: Type = I64) -> int:
    return _rotate("rotr", t, a, k, k_type, False)


# ---------------------------------------------------------------------------
# Bitwise operations and comparison (IM-47, IM-48)


def bitand(t: IntType, a: int, b: int) -> int:
    return wrap(t, a & b)


def bitor(t: IntType, a: int, b: int) -> int:
    return wrap(t, a | b)


def bitxor(t: IntType, a: int, b: int) -> int:
    return wrap(t, a ^ b)


def bitnot(t: IntType, a: int) -> int:
    return wrap(t, ~a)


_COMPARE = {
    "==": lambda a, b: a == b, "eq": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "ne": lambda a, b: a != b,
    "<": lambda a, b: a < b, "lt": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, "le": lambda a, b: a <= b,
    ">": lambda a, b: a > b, "gt": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "ge": lambda a, b: a >= b,
}


def compare(op: str, a: int, b: int) -> bool:
    """``== != < <= > >=`` on mathematical (or raw fixed-point) values; never faults."""
    return _COMPARE[op](a, b)


# ---------------------------------------------------------------------------
# abs, uabs, min, max, clamp (IM-34, IM-49)


def abs_(t: Num, a: int) -> int:
    """``abs(a)``, checked: ``abs(MIN)`` faults ``E_OVERFLOW`` with exact ``-MIN``."""
    return _form_rule("checked", t, abs(a), opnames.op("abs", "checked", t), [(t, a)])


_UNSIGNED_OF = {8: U8, 16: U16, 32: U32, 64: U64}


def uabs(t: IntType, a: int) -> Tuple[IntType, int]:
    """``uabs(a)``: ``|a|`` in the unsigned type of the same width; never faults."""
    if not t.signed or t.bits not in _UNSIGNED_OF:
        raise TypeError("uabs is provided for I8..I64 only")
    return _UNSIGNED_OF[t.bits], abs(a)


def min2(t: Num, a: int, b: int) -> int:
    return a if a <= b else b


def max2(t: Num, a: int, b: int) -> int:
    return a if a >= b else b


def clamp(t: Num, x: int, lo: int, hi: int) -> int:
    """``clamp(x, lo, hi)``; ``lo > hi`` faults ``E_DOMAIN`` (IM-49)."""
    if lo > hi:
        raise MachineFault(E_DOMAIN, opnames.op("clamp", "checked", t), [(t, x), (t, lo), (t, hi)])
    return lo if x < lo else hi if x > hi else x


# ---------------------------------------------------------------------------
# Named operations with wide intermediates (IM-51 to IM-53)

_DOUBLE_OF = {
    I8: I16, I16: I32, I32: I64, I64: I128, I128: I256, I256: I512, I512: I1024,
    U8: U16, U16: U32, U32: U64,
}


def mul_full_type(t: IntType) -> IntType:
    """The result type of ``mul_full`` on ``t`` (width ``2w``, same signedness)."""
    if t not in _DOUBLE_OF:
        raise TypeError("mul_full is not provided for %s" % t.name())
    return _DOUBLE_OF[t]


def mul_full(t: IntType, a: int, b: int) -> Tuple[IntType, int]:
    """``mul_full(a, b)``: the exact product in the type of width ``2w``; never faults."""
    return mul_full_type(t), a * b


def muldiv(result_t: IntType, operand_t: IntType, a: int, b: int, c: int, mode: str) -> int:
    """``muldiv(T, a, b, c, mode)``: ``a * b / c`` rounded once, then checked against ``T``."""
    _check_mode(mode)
    op = opnames.op("muldiv", "checked", operand_t, result_t, mode=mode)
    operands = [(operand_t, a), (operand_t, b), (operand_t, c)]
    if c == 0:
        raise _div_zero(op, operands)
    q = round_div(a * b, c, mode)
    if not fits(result_t, q):
        raise _overflow(op, operands, result_t, q)
    return q


def isqrt(t: IntType, x: int) -> int:
    """``isqrt(x)``: ``floor(sqrt(x))``; ``x < 0`` faults ``E_DOMAIN`` (IM-52)."""
    if x < 0:
        raise MachineFault(E_DOMAIN, opnames.op("isqrt", "checked", t), [(t, x)])
    return math.isqrt(x)


def isqrt_round(t: IntType, x: int, mode: str) -> int:
    """``isqrt_round(x, mode)``: ``sqrt(x)`` rounded by ``mode``, then range-checked."""
    _check_mode(mode)
    op = opnames.op("isqrt_round", "checked", t, mode=mode)
    if x < 0:
        raise MachineFault(E_DOMAIN, op, [(t, x)])
    r = _sqrt_round(x, mode)
    if not fits(t, r):
        raise _overflow(op, [(t, x)], t, r)
    return r


# ---------------------------------------------------------------------------
# Fixed point (IM-60 to IM-67)


def fixed_mul(form: str, t: FixedType, a: int, b: int, mode: str = DEFAULT_MODE) -> int:
    """``mul(a, b, mode)``: ``round(A * B / 2^f, mode)``, then the form rule (IM-61)."""
    _check_mode(mode)
    r = round_div(a * b, 1 << t.f, mode)
    return _form_rule(form, t, r, opnames.op("mul", form, t, mode=mode), [(t, a), (t, b)])


def fixed_div(form: str, t: FixedType, a: int, b: int, mode: str = DEFAULT_MODE) -> int:
    """``div(a, b, mode)``: ``round(A * 2^f / B, mode)``, then the form rule (IM-65)."""
    _check_mode(mode)
    op = opnames.op("div", form, t, mode=mode)
    operands = [(t, a), (t, b)]
    if b == 0:
        raise _div_zero(op, operands)
    r = round_div(a << t.f, b, mode)
    return _form_rule(form, t, r, op, operands)


def fixed_sqrt(form: str, t: FixedType, a: int, mode: str = DEFAULT_MODE) -> int:
    """``sqrt(a, mode)``: ``isqrt_round(A * 2^f, mode)``, then the form rule (IM-67)."""
    _check_mode(mode)
    op = opnames.op("sqrt", form, t, mode=mode)
    if a < 0:
        raise MachineFault(E_DOMAIN, op, [(t, a)])
    r = _sqrt_round(a << t.f, mode)
    return _form_rule(form, t, r, op, [(t, a)])


def fixed_from_rational(t: FixedType, q: Fraction, mode: Optional[str] = None) -> Optional[int]:
    """The raw value of the literal ``q`` in context ``t`` (IM-27).

    Returns None when ``q * 2^f`` is not an integer and no mode is given (the
    caller reports C2006).  Otherwise the (rounded) raw value, which must be in
    range: out of range raises ``E_NARROW`` with operation ``unassigned``,
    ``exact`` the raw value and ``limit`` the bound crossed; the operand is the
    literal as a ``Z`` when it is an integer, and absent otherwise.
    """
    q = Fraction(q)
    scaled = q * (1 << t.f)
    if scaled.denominator == 1:
        raw = scaled.numerator
    elif mode is None:
        return None
    else:
        raw = round_div(scaled.numerator, scaled.denominator, _check_mode(mode))
    if not fits(t, raw):
        operands = [(Z, q.numerator)] if q.denominator == 1 else []
        raise MachineFault(E_NARROW, opnames.UNASSIGNED, operands, exact=raw, limit=_bound(t, raw))
    return raw


# ---------------------------------------------------------------------------
# Conversions (IM-50, IM-68, IM-69, IM-26, IM-184)


def conversion_rounds(src: Type, dst: Type) -> bool:
    """Whether ``src as dst`` rounds (and so names a mode): fixed to integer, fixed to a coarser fixed."""
    if not src.is_fixed:
        return False
    if dst.is_fixed:
        return dst.f < src.f
    return True


def convert(form: str, src: Type, dst: Num, v: int, mode: Optional[str] = None,
            literal: bool = False) -> int:
    """``v as dst`` (checked), ``as%`` (wrap) or ``as|`` (sat).

    ``src`` is the static source type: an integer type, a fixed-point type
    (``v`` is then raw), or ``Bool`` (``v`` is a bool).  With ``literal`` the
    source is a literal's value in Z (IM-26): the checked fault is then the
    compile-time record with operation ``unassigned`` and a ``Z`` operand.
    """
    if form not in FORMS:
        raise ValueError("unknown conversion form %r" % (form,))
    v = int(v)
    if literal or not src.is_fixed:
        num, den = v, 1                      # the source value is the integer v
    else:
        num, den = v, 1 << src.f             # the source value is raw / 2^f
    rounds = (not literal) and conversion_rounds(src, dst)
    if rounds:
        mode = _check_mode(mode or DEFAULT_MODE)
    # the source value in units of the target (raw units for fixed point)
    if dst.is_fixed:
        num <<= dst.f
    # a non-rounding conversion is exact (den divides num: den = 1, or dst.f >= src.f)
    exact = round_div(num, den, mode) if rounds else num // den
    if form == "wrap":
        return wrap(dst, exact)
    if form == "sat":
        return sat(dst, exact)
    if fits(dst, exact):
        return exact
    if literal:
        op, operands = opnames.UNASSIGNED, [(Z, v)]
    else:
        op, operands = opnames.op("as", form, src, dst, mode=mode if rounds else None), [(src, v)]
    raise MachineFault(E_NARROW, op, operands, exact=exact, limit=_bound(dst, exact))


enum_token = opnames.enum_token


def convert_enum(src: Type, enum, v: int, literal: bool = False) -> int:
    """``v as E`` for an enum E (SPEC-04 LS-89): ``v`` when it is the value of an enumerator, else
    ``E_NARROW`` with operation ``as.checked.<S>.<e>`` (``unassigned`` for a literal, IM-184), the
    operand ``v``, ``exact`` ``v`` and no ``limit`` (an enum's values have no bound crossed)."""
    v = int(v)
    if v in enum.members.values():
        return v
    if literal:
        op, operands = opnames.UNASSIGNED, [(Z, v)]
    else:
        op, operands = opnames.op("as", "checked", src, enum_token(enum)), [(src, v)]
    raise MachineFault(E_NARROW, op, operands, exact=v, limit=None)


# ---------------------------------------------------------------------------
# Result-returning forms (IM-30, IM-188)

Result = Tuple[str, object]


def _result(fn: Callable, *args) -> Result:
    try:
        return ("ok", fn(*args))
    except MachineFault as mf:
        name = ARITH_ERROR_OF.get(mf.code)
        if name is None:
            raise
        return ("err", name)


def add_result(t: Num, a: int, b: int) -> Result:
    return _result(arith, "add", "checked", t, a, b)


def sub_result(t: Num, a: int, b: int) -> Result:
    return _result(arith, "sub", "checked", t, a, b)


def mul_result(t: Num, a: int, b: int) -> Result:
    return _result(arith, "mul", "checked", t, a, b)


def div_result(t: Num, a: int, b: int) -> Result:
    return _result(div, t, a, b)


def rem_result(t: IntType, a: int, b: int) -> Result:
    return _result(rem, t, a, b)


def shl_result(t: IntType, a: int, count: int, count_type: Type = I64) -> Result:
    return _result(shl, "checked", t, a, count, count_type)


def convert_result(src: Type, dst: Num, v: int, mode: Optional[str] = None,
                   literal: bool = False) -> Result:
    """``v as? dst``: ``('err', 'narrow')`` where ``v as dst`` faults."""
    return _result(convert, "checked", src, dst, v, mode, literal)


# ---------------------------------------------------------------------------
# Reductions (IM-77 to IM-87); ``xs`` is a list in logical (row-major) order


def reduce_sum(E: Num, R: Num, xs: Sequence[int]) -> int:
    """``sum(R, xs)``: the exact sum, then one final range check against ``R``."""
    total = sum(xs)
    if not fits(R, total):
        raise MachineFault(E_OVERFLOW, opnames.op("sum", "checked", E, R),
                           [(I64, len(xs))], exact=total, limit=_bound(R, total))
    return total


def fold_checked(opname: str, E: Num, init: int, xs: Sequence[int]) -> int:
    """``fold_checked(add|mul, init, xs)``: a left fold, each step checked in ``E``."""
    if opname == "add":
        step = lambda acc, x: acc + x  # noqa: E731
    elif opname == "mul":
        step = lambda acc, x: acc * x  # noqa: E731
    else:
        raise ValueError("fold_checked takes add or mul, not %r" % (opname,))
    op = opnames.op("fold_checked", opname, E)
    acc = init
    for j, x in enumerate(xs):
        v = step(acc, x)
        if not fits(E, v):
            raise MachineFault(E_OVERFLOW, op, [(I64, j), (E, acc), (E, x)],
                               exact=v, limit=_bound(E, v))
        acc = v
    return acc


def sum_wrap(E: Num, xs: Sequence[int]) -> int:
    return wrap(E, sum(xs))


def sum_sat(E: Num, xs: Sequence[int]) -> int:
    acc = 0
    for x in xs:
        acc = sat(E, acc + x)
    return acc


def _reduce_extreme(name: str, E: Num, xs: Sequence[int], pick) -> int:
    if len(xs) == 0:
        raise MachineFault(E_SHAPE, opnames.op(name, "checked", E), [(I64, 0)])
    return pick(xs)


def reduce_min(E: Num, xs: Sequence[int]) -> int:
    return _reduce_extreme("reduce_min", E, xs, min)


def reduce_max(E: Num, xs: Sequence[int]) -> int:
    return _reduce_extreme("reduce_max", E, xs, max)


def min_init(E: Num, init: int, xs: Sequence[int]) -> int:
    return min([init, *xs])


def max_init(E: Num, init: int, xs: Sequence[int]) -> int:
    return max([init, *xs])


def count(xs: Sequence[bool]) -> int:
    return sum(1 for x in xs if x)


def dot(E: IntType, R: IntType, a: Sequence[int], b: Sequence[int]) -> int:
    """``dot(R, a, b)``: exact sum of products, then one final range check (IM-87)."""
    op = opnames.op("dot", "checked", E, R)
    if len(a) != len(b):
        raise MachineFault(E_SHAPE, op, [(I64, 0), (I64, len(b))], limit=(I64, len(a)))
    total = sum(x * y for x, y in zip(a, b))
    if not fits(R, total):
        raise MachineFault(E_OVERFLOW, op, [(I64, len(a))], exact=total, limit=_bound(R, total))
    return total


__all__ = [
    "ARITH_ERROR_OF", "DEFAULT_MODE", "fits", "wrap", "sat", "round_div",
    "arith", "add", "sub", "mul", "neg", "div", "rem", "div_trunc", "rem_trunc",
    "div_euclid", "rem_euclid", "divmod_", "div_round", "shl", "shr", "rotl", "rotr",
    "bitand", "bitor", "bitxor", "bitnot", "compare", "abs_", "uabs", "min2", "max2",
    "clamp", "mul_full", "mul_full_type", "muldiv", "isqrt", "isqrt_round",
    "fixed_mul", "fixed_div", "fixed_sqrt", "fixed_from_rational", "conversion_rounds",
    "convert", "add_result", "sub_result", "mul_result", "div_result", "rem_result",
    "shl_result", "convert_result", "reduce_sum", "fold_checked", "sum_wrap", "sum_sat",
    "reduce_min", "reduce_max", "min_init", "max_init", "count", "dot",
]

# ``divmod`` is the built-in's name (SPEC-04 LS-145).  It shadows Python's
# builtin in this module's namespace (the code above uses ``_pydivmod``), so it
# is left out of ``__all__``: use ``intmachine.divmod`` or ``divmod_``.
divmod = divmod_  # noqa: A001
