"""Type signatures (cint_abi.typesig, A-24): decode_signature raises only SignatureError, and what it
accepts encodes to the same bytes."""
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["cint_abi"]):
    from cint_abi.typesig import SignatureError, decode_signature, encode_signature


def TestOneInput(data: bytes) -> None:
    try:
        sig = decode_signature(data)
    except SignatureError:
        return
    if encode_signature(sig) != data:
        raise AssertionError("an accepted signature encodes to other bytes")


if __name__ == "__main__":
    from _target import main
    main(TestOneInput)
