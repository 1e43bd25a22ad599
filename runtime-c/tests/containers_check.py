"""Checks the restore fuzz of test_containers.c (run.sh): every mutant the runtime accepted, cint_abi decodes
and encodes again to the same bytes; every mutant it refused as malformed (CINT_STATE_MALFORMED), cint_abi
refuses too (H-19a: the same rules on both sides).

    python containers_check.py MUTANTS_FILE
"""
import sys

from cint_abi.encoding import DecodeError
from cint_abi.state import decode_state, encode_state


def main(path):
    counts = {"A": 0, "M": 0}
    for k, line in enumerate(open(path)):
        kind, hexa = line.split()
        data = bytes.fromhex(hexa)
        try:
            st = decode_state(data)
        except DecodeError as e:
            assert kind == "M", "line %d: the runtime accepted a state cint_abi refuses: %s" % (k + 1, e)
        else:
            assert kind == "A", "line %d: the runtime refused a state cint_abi decodes" % (k + 1)
            assert encode_state(st) == data, "line %d: not the canonical bytes" % (k + 1)
        counts[kind] += 1
    assert counts["A"] > 0 and counts["M"] > 0
    print("containers_check: %d accepted and %d malformed mutants agree with cint_abi" % (counts["A"], counts["M"]))


if __name__ == "__main__":
    main(sys.argv[1])
