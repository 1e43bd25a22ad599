"""Checks the states test_state.c wrote (run.sh): cint_abi decodes each one strictly and encodes it
again to the same bytes, and the states of known contexts are exactly what cint_abi.state writes.

    python state_check.py STATES_FILE
"""
import sys

from cint_abi.state import Registration, State, decode_state, encode_state

REV = bytes(range(32))
FRESH = [("s.alpha", ("int", False, 16), 7), ("s.b", ("int", True, 8), -2), ("s.flag", ("bool",), True),
         ("s.q", ("fixed", 32, 8), 0x180), ("s.u", ("int", False, 64), 2**64 - 1), ("s.zeta", ("int", True, 64), 5)]


def main(path):
    states = dict(line.split() for line in open(path) if line.strip())
    for name, hexa in states.items():
        data = bytes.fromhex(hexa)
        st = decode_state(data)
        assert encode_state(st) == data, name
    assert bytes.fromhex(states["fresh"]) == encode_state(State(revision=REV, globals=FRESH)), "fresh"
    two = [(n, d, {"s.alpha": 9, "s.flag": True, "s.zeta": 12}.get(n, v)) for n, d, v in FRESH]
    assert bytes.fromhex(states["two-steps"]) == encode_state(State(revision=REV, globals=two, entries=2,
                                                                    effects=2)), "two-steps"
    regs = [Registration(2, 1, ("int", False, 8), 10, "runtime", True, False),
            Registration(3, 1, ("int", True, 64), 2, "borrowed", False, False)]
    assert bytes.fromhex(states["registry"]) == encode_state(State(revision=REV, globals=two, registry=regs,
                                                                   next_buffer=4, entries=2, effects=2)), "registry"
    assert decode_state(bytes.fromhex(states["faulted"])).fault is not None
    print("state_check: %d states decode and encode to the same bytes" % len(states))


if __name__ == "__main__":
    main(sys.argv[1])
