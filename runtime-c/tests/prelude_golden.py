"""The fault records test_prelude provokes through the helpers of generated code (cint_rt_prelude.h,
src/prelude.c), encoded by cint_abi.faultrecord (SPEC-01P.1 IM-149).

Prints one "name hex" line per record, in the form test_prelude writes; tests/run.sh sorts both and
compares them byte for byte. Each case of test_prelude.c's table runs in an entry of the function export
of its program p.ci, at the site of line `line`, column 7; the program has a source map (bytes 200 to
231) and no revision.  Operands, exact values and limits are what the reference interpreter writes for
the same operation (cint_compiler.semantics.intmachine; the C17 emitter passes the helpers these
arguments).

Usage: python prelude_golden.py
"""
from cint_abi.codes import FAULT_CODES
from cint_abi.faultrecord import FaultRecordData, encode_fault_record

I8, I16, I32, I64 = (("int", True, w) for w in (8, 16, 32, 64))
U8, U16, U32, U64 = (("int", False, w) for w in (8, 16, 32, 64))
Q3_4, Q7_8, Q15_16, Q47_16 = ("fixed", 8, 4), ("fixed", 16, 8), ("fixed", 32, 16), ("fixed", 64, 16)
MAX64, MIN64 = 2**63 - 1, -(2**63)
SOURCE_MAP = bytes(range(200, 232))


def main() -> None:
    records = {}

    def p(name, line, code, op, operands=(), exact=None, limit=None):
        records[name] = FaultRecordData(code=FAULT_CODES[code], operation=op, operands=list(operands), exact=exact,
                                        limit=limit, path="p.ci", line=line, column=7, source_map=SOURCE_MAP)

    # the division family and abs (cintg_raise through the inline helpers)
    p("p_abs", 1, "E_OVERFLOW", "abs.checked.i8", [(I8, -128)], 128, (I8, 127))
    p("p_div_zero", 2, "E_DIV_ZERO", "div_trunc.checked.u32", [(U32, 7), (U32, 0)])
    p("p_div_min", 3, "E_OVERFLOW", "div_euclid.checked.i64", [(I64, MIN64), (I64, -1)], 2**63, (I64, MAX64))
    p("p_rem_zero", 4, "E_DIV_ZERO", "rem_euclid.checked.i16", [(I16, -5), (I16, 0)])
    p("p_divmod_min", 5, "E_OVERFLOW", "divmod.checked.i8", [(I8, -128), (I8, -1)], 128, (I8, 127))
    p("p_bitfield", 6, "E_NARROW", "bitfield.checked.u8", [(U8, 200)], 200, (U8, 15))
    # muldiv and div_round: the exact quotient of up to 129 bits (cintg_raise_n)
    p("p_muldiv", 7, "E_OVERFLOW", "muldiv.checked.i64.i64.floor", [(I64, MAX64), (I64, MAX64), (I64, 1)],
      MAX64 * MAX64, (I64, MAX64))
    p("p_muldiv_low", 8, "E_OVERFLOW", "muldiv.checked.u64.i8.ceil", [(U64, 2**64 - 1)] * 2 + [(U64, 3)],
      -(-((2**64 - 1) ** 2) // 3), (I8, 127))
    p("p_muldiv_zero", 9, "E_DIV_ZERO", "muldiv.checked.i16.i16.half_even", [(I16, -3), (I16, 4), (I16, 0)])
    p("p_div_round", 10, "E_OVERFLOW", "div_round.checked.i8.half_even", [(I8, -128), (I8, -1)], 128, (I8, 127))
    # roots, rotations, clamp, enums
    p("p_isqrt", 11, "E_DOMAIN", "isqrt.checked.i32", [(I32, -4)])
    p("p_rotate", 12, "E_SHIFT", "rotl.checked.u16", [(U16, 0x1234), (I8, -1)], limit=(I64, 15))
    p("p_rotate_wide", 13, "E_SHIFT", "rotr.checked.i64", [(I64, 1), (U64, 64)], limit=(I64, 63))
    p("p_clamp", 14, "E_DOMAIN", "clamp.checked.i32", [(I32, 5), (I32, 9), (I32, -3)])
    p("p_enum", 15, "E_NARROW", "as.checked.i16.p.Color", [(I16, -7)], -7)
    p("p_enum_u64", 16, "E_NARROW", "as.checked.u64.p.Big", [(U64, 2**64 - 1)], 2**64 - 1)
    # fixed point: operands and limits of Q types, the exact raw value (cintg_qfault)
    p("p_qmul", 17, "E_OVERFLOW", "mul.checked.q3.4.floor", [(Q3_4, 64), (Q3_4, 64)], 256, (Q3_4, 127))
    p("p_qneg", 18, "E_OVERFLOW", "sub.checked.q47.16", [(Q47_16, MIN64), (Q47_16, 1)], MIN64 - 1, (Q47_16, MIN64))
    p("p_qconv", 19, "E_NARROW", "as.checked.q7.8.q3.4.floor", [(Q7_8, 25600)], 1600, (Q3_4, 127))
    p("p_qdiv_zero", 20, "E_DIV_ZERO", "div.checked.q15.16.floor", [(Q15_16, 65536), (Q15_16, 0)])
    p("p_qsqrt_domain", 21, "E_DOMAIN", "sqrt.checked.q15.16.floor", [(Q15_16, -65536)])
    # calls: bind.shape (a computed extent beyond I64 is I64's maximum) and bind.alias
    p("p_bind_shape", 22, "E_SHAPE", "bind.shape", [(I64, 1), (I64, 0), (I64, 3)], limit=(I64, 4))
    p("p_bind_shape_max", 23, "E_SHAPE", "bind.shape", [(I64, 0), (I64, 1), (I64, 5)], limit=(I64, MAX64))
    p("p_bind_alias", 24, "E_ALIAS", "bind.alias", [(I64, 2), (I64, 0)])
    # views (IM-186): the dimension first when the rank is 2 or more, the index or the slice's two ends
    p("p_view_index", 25, "E_BOUNDS", "index.checked.i32", [(I64, 0), (I64, 3)], limit=(I64, 3))
    p("p_view_index_low", 26, "E_BOUNDS", "index.checked.i32", [(I64, 1), (I64, -1)], limit=(I64, 4))
    p("p_view_slice", 27, "E_BOUNDS", "slice.checked.i32", [(I64, 1), (I64, 4)], limit=(I64, 5))
    p("p_view_slice_dim", 28, "E_BOUNDS", "slice.checked.i32", [(I64, 1), (I64, 2), (I64, 9)], limit=(I64, 4))
    p("p_view_slice_down", 29, "E_BOUNDS", "slice.checked.i32", [(I64, 0), (I64, 3), (I64, -1)], limit=(I64, 3))
    # whole-array copies (IM-187)
    p("p_copy_shape", 30, "E_SHAPE", "copy.shape", [(I64, 1), (I64, 4)], limit=(I64, 3))
    p("p_copy_alias", 31, "E_ALIAS", "copy.alias")
    # kernel reductions (docs/language.md decision 23): fold_checked per contribution, sum and min at the end
    p("p_reduce_fold", 35, "E_OVERFLOW", "fold_checked.add.i8", [(I64, 2), (I8, 100), (I8, 50)], 150, (I8, 127))
    p("p_reduce_sum", 36, "E_OVERFLOW", "sum.checked.i16.i8", [(I64, 3)], -200, (I8, -128))
    p("p_reduce_min_empty", 37, "E_SHAPE", "reduce_min.checked.i32", [(I64, 0)])

    for name in sorted(records):
        print(name, encode_fault_record(records[name]).hex())


if __name__ == "__main__":
    main()
