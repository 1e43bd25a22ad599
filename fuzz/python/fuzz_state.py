"""Canonical states (cint_abi.state): decode_state raises only DecodeError, and what it accepts
encodes to the same bytes (its documented property)."""
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["cint_abi"]):
    from cint_abi.encoding import DecodeError
    from cint_abi.state import decode_state, encode_state


def TestOneInput(data: bytes) -> None:
    for raw in (False, True):
        try:
            st = decode_state(data, raw_structs=raw)
        except DecodeError:
            continue
        if encode_state(st) != data:
            raise AssertionError("an accepted state encodes to other bytes")


if __name__ == "__main__":
    from _target import main
    main(TestOneInput)
