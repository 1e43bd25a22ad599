"""Checkpoints whose module variables hold enum and error-set values (SPEC-03P.1 5.1, 9.2 H-19, H-19a;
SPEC-04P.1 LS-91, LS-314): cpu-c17 checks them through the program's value-set table (cint_rt.h
cint_value_set, docs/runtime.md) and the interpreter through the types it has, so both refuse the same
states: a non-enumerator or an error-set tag outside 1..count (0 included) in a scalar, an array element
or a struct field, nested or not, and a refusal changes nothing.  Valid values restore on both alike."""
import copy
import re
import shutil

import pytest

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import cint  # noqa: E402
from cint_abi.checkpoint import decode_checkpoint, encode_checkpoint  # noqa: E402
from cint_abi.state import encode_state  # noqa: E402
from cint_compiler.driver import compile_source  # noqa: E402
from cint_replay import RefExecutor, RestoreRefused  # noqa: E402

SRC = """enum Gear : U8 { low = 1, high = 2, top = 9 }
enum Sgn : I16 { neg = -3, zero = 0, pos = 300 }
error ParseError { empty, bad_digit, too_large }
error Wide : U32 { a, b }
struct Cell { I8 k; Sgn s; Sgn[2] ss; }
struct Box { I32 x; Cell c; Sgn[3] gs; }
Gear gear = Gear.high;
ParseError last = ParseError.empty;
Wide w = Wide.b;
Sgn[3] signs;
ParseError[2] errs = [ParseError.empty, ParseError.too_large];
Gear[2, 2] gears = [[Gear.low, Gear.top], [Gear.high, Gear.low]];
Box box;
Cell[2] cells;
export I64 bump(I64 v) {
    gear = Gear.top;
    last = ParseError.too_large;
    signs[1] = Sgn.pos;
    errs[0] = ParseError.bad_digit;
    gears[1, 1] = Gear.top;
    box.c.s = Sgn.neg;
    box.gs[2] = Sgn.pos;
    cells[1].ss[0] = Sgn.neg;
    cells[0].s = Sgn.pos;
    box.x = v as I32;
    return v + 1;
}
"""

# (global, path inside its value, invalid values): scalars, arrays (rank 1 and 2), struct fields, array
# fields, a struct inside a struct, an array of structs
BAD = [
    ("ev.gear", (), (0, 3, 8, 255)),
    ("ev.last", (), (0, 4, 65535)),
    ("ev.w", (), (0, 3, 0x100, 2**32 - 1)),
    ("ev.signs", (2,), (1, -1, 301, 44, -32768)),      # 44 has the low byte of 300
    ("ev.errs", (1,), (0, 4)),
    ("ev.gears", (1, 0), (0, 3, 10)),
    ("ev.box", (1, 1), (1, 299, -4)),                   # box.c.s
    ("ev.box", (1, 2, 1), (5, 0x12C + 0x100)),          # box.c.ss[1]
    ("ev.box", (2, 0), (-2, 7)),                        # box.gs[0]
    ("ev.cells", (1, 1), (2,)),                         # cells[1].s
    ("ev.cells", (0, 2, 1), (-300, 256)),               # cells[0].ss[1]
]
GOOD = [
    ("ev.gear", (), 1), ("ev.last", (), 2), ("ev.w", (), 1), ("ev.signs", (0,), -3), ("ev.errs", (1,), 1),
    ("ev.gears", (0, 0), 9), ("ev.box", (1, 1), 300), ("ev.box", (1, 2, 0), -3), ("ev.box", (2, 0), 300),
    ("ev.cells", (1, 2, 1), 300),
]


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("ckvalues", {"ev.ci": SRC}) / "ev.ci")


def _ref():
    return RefExecutor(compile_source(SRC.encode(), "ev.ci"))


def _with(mod, saved, name, path, value):
    """saved with one value of global name (at path) replaced: (checkpoint bytes, state offset of the first
    changed byte)."""
    cp = decode_checkpoint(saved, mod._structs())
    st = copy.deepcopy(cp.state)
    for k, (n, d, v) in enumerate(st.globals):
        if n == name:
            if path:
                box = v
                for i in path[:-1]:
                    box = box[i]
                box[path[-1]] = value
            else:
                v = value
            st.globals[k] = (n, d, v)
    state = encode_state(st)
    assert len(state) == len(cp.state_bytes)
    diff = next(k for k in range(len(state)) if state[k] != cp.state_bytes[k])
    return encode_checkpoint(state, contract=cp.contract, digests=cp.digests, structs=mod._structs()), diff


def _pair(mod):
    cpu = mod.context()
    cpu.bump(5)
    ref = _ref()
    ref.call("bump", [5], None)
    assert cpu.state_hash() == ref.state_hash()
    return cpu, ref


@pytest.mark.clause("H-19", "M-3")
def test_the_value_set_table(mod):
    """One entry per row of an enum or error-set type (or element type), in (record, row) order."""
    p = mod._program.contents
    got = [(p.value_sets[k].record, p.value_sets[k].row, p.value_sets[k].kind, p.value_sets[k].width,
            p.value_sets[k].count) for k in range(p.value_set_count)]
    G = 0xFFFFFFFF
    assert got == [(0, 2, 1, 2, 3), (1, 1, 1, 2, 3), (1, 2, 1, 2, 3),            # Box.gs, Cell.s, Cell.ss
                   (G, 0, 1, 1, 3), (G, 1, 2, 2, 3), (G, 2, 2, 4, 2),            # gear, last, w
                   (G, 3, 1, 2, 3), (G, 4, 2, 2, 3), (G, 5, 1, 1, 3)]            # signs, errs, gears
    sgn = p.value_sets[0]
    assert bytes(sgn.values[k] for k in range(6)) == b"".join(sorted(
        (v % 65536).to_bytes(2, "little") for v in (-3, 0, 300)))
    assert not p.value_sets[4].values


@pytest.mark.clause("H-19", "H-19a", "M-5")
@pytest.mark.parametrize("name,path,values", BAD, ids=["%s%s" % (n, "".join("[%d]" % i for i in p))
                                                        for n, p, _ in BAD])
def test_invalid_values_are_refused_by_both(mod, name, path, values):
    src = mod.context()
    src.bump(3)
    saved = src.checkpoint()
    cpu, ref = _pair(mod)
    h = cpu.state_hash()
    for v in values:
        bad, diff = _with(mod, saved, name, path, v)
        with pytest.raises(cint.Refused, match="malformed state at byte") as ei:
            cpu.restore(bad)
        at = int(re.search(r"byte (\d+)", str(ei.value)).group(1))
        assert at <= diff < at + 4, (name, path, v, at, diff)
        with pytest.raises(RestoreRefused, match="is no enumerator|is no value of the error set"):
            ref.restore(bad)
        assert cpu.state_hash() == h and ref.state_hash() == h
    # the context still works, and the untouched checkpoint restores on both
    cpu.restore(saved)
    ref.restore(saved)
    assert cpu.state_hash() == ref.state_hash() == src.state_hash()


@pytest.mark.clause("H-19", "M-3")
def test_valid_values_restore_on_both_alike(mod):
    src = mod.context()
    src.bump(3)
    saved = src.checkpoint()
    cpu, ref = _pair(mod)
    for name, path, v in GOOD:
        good, _ = _with(mod, saved, name, path, v)
        cpu.restore(good)
        ref.restore(good)
        assert cpu.state_hash() == ref.state_hash() != src.state_hash()
        assert ref.checkpoint() == good or decode_checkpoint(ref.checkpoint(), mod._structs()).state_bytes == \
            decode_checkpoint(good, mod._structs()).state_bytes
        # and across: each executor's checkpoint restores into the other
        back = mod.context()
        back.restore(ref.checkpoint())
        assert back.state_hash() == cpu.state_hash()
        assert cpu.bump(7) == back.bump(7) == 8


@pytest.mark.clause("H-19", "M-5")
def test_every_byte_of_the_values_is_checked_alike(mod):
    """Each single-byte change of the module variables' payloads is refused by both or taken by both."""
    src = mod.context()
    src.bump(3)
    saved = src.checkpoint()
    cpu, ref = _pair(mod)
    h = cpu.state_hash()
    start = saved.index(b"ev.box")
    refused = taken = 0
    for pos in range(start, len(saved) - 120):
        for x in (1, 0x80):
            b = bytearray(saved)
            b[pos] ^= x
            try:
                cpu.restore(bytes(b))
            except cint.Refused:
                with pytest.raises(RestoreRefused):
                    ref.restore(bytes(b))
                assert cpu.state_hash() == h and ref.state_hash() == h
                refused += 1
                continue
            ref.restore(bytes(b))
            assert ref.state_hash() == cpu.state_hash()
            taken += 1
            cpu, ref = _pair(mod)
    assert refused > 100 and taken > 10
