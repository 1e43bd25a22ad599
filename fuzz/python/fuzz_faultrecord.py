"""Fault records (cint_abi.faultrecord): decode_fault_record raises only DecodeError for either kind,
and a record it accepts encodes to the same bytes."""
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["cint_abi"]):
    from cint_abi.encoding import DecodeError
    from cint_abi.faultrecord import decode_fault_record, encode_fault_record


def TestOneInput(data: bytes) -> None:
    for kind in ("run-time", "compile-time"):
        try:
            rec = decode_fault_record(data, kind)
        except DecodeError:
            continue
        if encode_fault_record(rec, kind) != data:
            raise AssertionError("an accepted %s record encodes to other bytes" % kind)


if __name__ == "__main__":
    from _target import main
    main(TestOneInput)
