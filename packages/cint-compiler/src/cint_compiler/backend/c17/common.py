"""What every part of the C17 back end shares: the refusal of a construct it does not run (C9102, worded by
diagnostics), the C integer types, C string literals and integer literals of every width."""
from __future__ import annotations

from cint_compiler.diagnostics import CompileError, not_supported_message
from cint_compiler.semantics.types import IntType


class Unsupported(CompileError):
    pass


def refuse(span, what):
    return Unsupported("C9102", span, not_supported_message(what, "cpu-c17"))


CT = {(True, 8): "int8_t", (True, 16): "int16_t", (True, 32): "int32_t", (True, 64): "int64_t",
      (False, 8): "uint8_t", (False, 16): "uint16_t", (False, 32): "uint32_t", (False, 64): "uint64_t"}


CSIZE = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8,
         "uint64_t": 8}


def c_str(b: bytes) -> str:
    out = []
    for ch in b:
        if ch in (34, 92):
            out.append("\\" + chr(ch))
        elif 32 <= ch < 127 and ch != 63:
            out.append(chr(ch))
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


def wide(t) -> bool:
    """Whether t is one of I128..I1024: a cint_iN structure of uint64_t limbs (runtime-c/include/cint_rt_wide.h)."""
    return isinstance(t, IntType) and t.bits > 64


def int_lit(t: IntType, v: int) -> str:
    if t.bits > 64:
        u = v % (1 << t.bits)
        return "((cint_i%d){{%s}})" % (t.bits, ", ".join("UINT64_C(0x%x)" % ((u >> (64 * k)) & ((1 << 64) - 1))
                                                          for k in range(t.bits // 64)))
    if t.signed:
        if v == t.min and t.bits == 64:
            return "(-INT64_C(9223372036854775807) - 1)"
        if t.bits == 64:
            return "INT64_C(%d)" % v
        return "((%s)%d)" % (CT[(True, t.bits)], v)
    if t.bits == 64:
        return "UINT64_C(%d)" % v
    return "((%s)%du)" % (CT[(False, t.bits)], v)
