"""Checkpoints (cint_abi.checkpoint, H-19a): decode_checkpoint and read_checkpoint raise only
DecodeError, and agree on which bytes they accept."""
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["cint_abi"]):
    from cint_abi.checkpoint import decode_checkpoint, read_checkpoint
    from cint_abi.encoding import DecodeError


def TestOneInput(data: bytes) -> None:
    try:
        decode_checkpoint(data, raw_structs=True)
        ok = True
    except DecodeError:
        ok = False
    try:
        read_checkpoint(data)
    except DecodeError:
        pass


if __name__ == "__main__":
    from _target import main
    main(TestOneInput)
