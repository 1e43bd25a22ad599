"""atheris target: the recording decoder (cint_replay.format, SPEC-03P.1 9.3 H-14, H-17; docs/encodings.md).

TestOneInput(bytes): format.read checks the bytes whole, and then the same bytes re-chained
(format.rechain: the chain has no key, so the checks of every field must hold without it); a refusal
is RecordingError, and anything else raised is a crash.  A recording it accepts must be written back
byte for byte by format.encode (the encoding is canonical), and the canonical arguments of each entry
of a full recording decode or are refused with RecordingError.  Seed corpus: fuzz/corpus/recording/.

    .venv/bin/python fuzz/python/fuzz_recording.py -max_total_time=60 fuzz/corpus/recording
"""
import sys

import atheris

with atheris.instrument_imports(include=["cint_replay.format", "cint_replay.errors", "cint_abi.encoding"]):
    from cint_replay import format as F


def TestOneInput(data: bytes) -> None:
    one(data)
    try:
        fixed = F.rechain(data)       # the same events under a valid chain: reaches every field's checks
    except F.RecordingError:
        return
    one(fixed)


def one(data: bytes) -> None:
    try:
        rec = F.read(data)
    except F.RecordingError:
        return
    if F.encode(rec) != data:
        raise AssertionError("format.encode does not give back the %d bytes format.read accepted" % len(data))
    if rec.header.mode == "full":
        for ev in rec.events:
            if ev.kind == F.ENTRY:
                try:
                    F.decode_args(ev.fields["args"], ev.fields["name"])
                except F.RecordingError:
                    pass


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
