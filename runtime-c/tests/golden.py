"""The fault records test_runtime provokes, encoded by cint_abi.faultrecord (SPEC-01P.1 IM-149).

Prints one "name hex" line per record, in the form test_runtime writes; tests/run.sh sorts both
and compares them byte for byte. The positions are those of the fixtures' site tables
(tests/fixtures/*.c) and of the test program t.ci in test_runtime.c; the revisions are the
fixtures' stand-in identities (IM-157 over the source text of each example).

Usage: python golden.py EXAMPLES_DIR
"""
import sys
from pathlib import Path

from cint_abi.encoding import revision_identity
from cint_abi.faultrecord import FaultRecordData, encode_fault_record

I8, I32, I64 = ("int", True, 8), ("int", True, 32), ("int", True, 64)
U8, U64 = ("int", False, 8), ("int", False, 64)
MAX64, MIN64 = 2**63 - 1, -(2**63)
CODES = dict(E_OVERFLOW=1, E_DIV_ZERO=2, E_BOUNDS=3, E_SHAPE=4, E_SHIFT=5, E_NARROW=6, E_ALIAS=7,
             E_STALE_HANDLE=8, E_FUEL=9, E_UNSUPPORTED=10, E_DEPTH=12)


def main(examples: Path) -> None:
    def rev(name):
        return revision_identity("cint-core-1", "cint-rt-3", [(name, (examples / name).read_bytes())])

    tour_rev, advance_rev = rev("tour.ci"), rev("advance.ci")
    t_map = bytes(range(100, 132))
    records = {}

    def tour(name, code, op, operands, limit=None, line=19, column=15, address=("tour.scale", 0, 0, None, None)):
        records[name] = FaultRecordData(code=CODES[code], operation=op, operands=operands, limit=limit,
                                        path="tour.ci", line=line, column=column, revision=tour_rev,
                                        address=address)

    def t(name, code, op, operands, line, column, exact=None, limit=None, address=None, stack=()):
        records[name] = FaultRecordData(code=CODES[code], operation=op, operands=operands, exact=exact,
                                        limit=limit, path="t.ci", line=line, column=column, source_map=t_map,
                                        address=address, stack=list(stack))

    # 10.1 (tour.out): the four entry faults of scale, with the lengths the spec prints
    tour("tour_stale", "E_STALE_HANDLE", "bind.stale", [(I64, 0), (U64, 7)], (U64, 1))
    tour("tour_permission", "E_ALIAS", "bind.permission", [(I64, 2)])
    tour("tour_shape", "E_SHAPE", "bind.shape", [(I64, 2), (I64, 0), (I64, 3)], (I64, 4))
    tour("tour_limit", "E_UNSUPPORTED", "bind.limit", [(I64, 2)])
    tour("greet_fuel", "E_FUEL", "fuel.charge", [], (I64, 3), 24, 5, None)
    tour("parse_fuel_zero", "E_FUEL", "fuel.charge", [], (I64, 0), 4, 23, None)
    # 7.3 (host.out): the overflow of advance at work item 2, step 3
    records["advance_overflow"] = FaultRecordData(
        code=1, operation="mul.checked.i64", operands=[(I64, 2**62), (I64, 2)], exact=2**63, limit=(I64, MAX64),
        path="advance.ci", line=3, column=31, revision=advance_rev, address=("advance.advance", 0, 1, 2, 3))
    records["total_fuel"] = FaultRecordData(code=9, operation="fuel.charge", limit=(I64, 1), path="advance.ci",
                                            line=7, column=12, revision=advance_rev)
    # t.ci
    mixed_entry = ("t.mixed", 0, 0, None, None)
    t("t_alias", "E_ALIAS", "bind.alias", [(I64, 1), (I64, 0)], 10, 15, address=mixed_entry)
    t("t_injective", "E_ALIAS", "bind.injective", [(I64, 1)], 10, 15, address=mixed_entry)
    t("t_kernel_overflow", "E_OVERFLOW", "add.checked.u8", [(U8, 255), (U8, 3)], 11, 5, exact=258,
      limit=(U8, 255), address=("t.mixed", 0, 1, 2, 1))
    t("t_dispatch_fuel", "E_FUEL", "fuel.charge", [], 10, 15, limit=(I64, 2), address=mixed_entry)
    t("t_output", "E_UNSUPPORTED", "host.output", [(I64, 5)], 13, 5)
    t("t_depth", "E_DEPTH", "call.enter", [], 1, 40, limit=(I64, 3), stack=[("t.ci", 1, 40)] * 2)
    t("t_frames", "E_UNSUPPORTED", "call.enter", [(I64, 5000)], 1, 12, limit=(I64, 4096))
    t("t_frame_arena", "E_BOUNDS", "arena.alloc", [(I64, 1), (I64, 100), (I64, 100)], 6, 5)   # LS-110
    t("t_div_zero", "E_DIV_ZERO", "div.checked.i64", [(I64, 5), (I64, 0)], 3, 5)
    t("t_min_div", "E_OVERFLOW", "div.checked.i64", [(I64, MIN64), (I64, -1)], 3, 5, exact=2**63,
      limit=(I64, MAX64))
    t("t_shift", "E_SHIFT", "shl.checked.i32", [(I32, 1), (U8, 40)], 4, 5, limit=(I64, 31))
    t("t_narrow", "E_NARROW", "as.checked.i64.i8", [(I64, 300)], 5, 5, exact=300, limit=(I8, 127))
    t("t_narrow_low", "E_NARROW", "as.checked.i64.i8", [(I64, -129)], 5, 5, exact=-129, limit=(I8, -128))
    t("t_index", "E_BOUNDS", "index.checked.i64", [(I64, 3)], 6, 5, limit=(I64, 3))
    t("t_sum", "E_OVERFLOW", "sum.checked.i8.i8", [(I64, 2)], 7, 5, exact=200, limit=(I8, 127))
    t("t_sub_u8", "E_OVERFLOW", "sub.checked.u8", [(U8, 3), (U8, 5)], 8, 5, exact=-2, limit=(U8, 0))
    t("t_neg", "E_OVERFLOW", "neg.checked.i64", [(I64, MIN64)], 9, 5, exact=2**63, limit=(I64, MAX64))
    t("t_shl_overflow", "E_OVERFLOW", "shl.checked.i8", [(I8, 64), (I64, 1)], 14, 5, exact=128, limit=(I8, 127))
    t("t_shl_overflow_low", "E_OVERFLOW", "shl.checked.i8", [(I8, -65), (I64, 1)], 14, 5, exact=-130,
      limit=(I8, -128))
    # sums over four elements (the fast paths of cint_gen_sum), exact in Z
    t("t_sum_i64_high", "E_OVERFLOW", "sum.checked.i64.i64", [(I64, 4)], 7, 5, exact=2**64, limit=(I64, MAX64))
    t("t_sum_i64_low", "E_OVERFLOW", "sum.checked.i64.i64", [(I64, 4)], 7, 5, exact=-(2**64) + 4, limit=(I64, MIN64))
    t("t_sum_u64", "E_OVERFLOW", "sum.checked.u64.u64", [(I64, 4)], 7, 5, exact=2**65, limit=(U64, 2**64 - 1))
    t("t_sum_u8_i8", "E_OVERFLOW", "sum.checked.u8.i8", [(I64, 4)], 7, 5, exact=200, limit=(I8, 127))
    t("t_sum_i8_u8", "E_OVERFLOW", "sum.checked.i8.u8", [(I64, 4)], 7, 5, exact=-1, limit=(U8, 0))

    lengths = {"tour_stale": 155, "tour_permission": 142, "tour_shape": 164, "tour_limit": 137}
    for name, rec in records.items():
        data = encode_fault_record(rec)
        if name in lengths and len(data) != lengths[name]:
            raise SystemExit(f"{name}: {len(data)} bytes, tour.out prints {lengths[name]}")
        print(name, data.hex())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
