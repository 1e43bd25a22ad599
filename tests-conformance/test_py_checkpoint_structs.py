"""Checkpoints and replay of module-level arrays of structs across the two executors (SPEC-03P.1 5.1 M-3,
9.2 H-19, 9.3 H-16): cpu-c17's canonical state bytes equal the interpreter's, a checkpoint of either
restores into the other through cint_abi's strict decoder given the struct layouts, a recording replays
on both backends, and malformed checkpoints are refused by both without changing either state."""
import hashlib
import random
import shutil

import pytest

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import cint  # noqa: E402
from cint_abi.checkpoint import decode_checkpoint  # noqa: E402
from cint_abi.encoding import DecodeError, decode_tagged_exact  # noqa: E402
from cint_abi.state import RawPayload  # noqa: E402
from cint_compiler.driver import compile_source  # noqa: E402
from cint_replay import RefExecutor, RestoreRefused  # noqa: E402

SRC = """struct Cell { U32[3] hits; Bool seen; Q16.16 avg; }
struct Row { Cell[2] cells; I8 tag; }
Cell[2, 3] grid;
Row[2] rows;
I64 total = 0;
export I64 hit(I64 r, I64 c, I64 v) {
    grid[r, c].hits[v % 3] += 1;
    grid[r, c].seen = v > 0;
    grid[r, c].avg = grid[r, c].avg + 0.5;
    rows[r].cells[c % 2].hits[2] = v as U32;
    rows[r].tag = (v % 100) as I8;
    total += v;
    return total;
}
"""
CALLS = [(0, 0, 5), (1, 2, 7), (1, 1, 30), (0, 2, 2), (1, 2, 9)]

# the interpreter alone: a module variable that is one struct (cpu-c17 has module-level arrays of them only)
REF_ONLY = """struct P { I16 x; Bool b; U8[2, 2] m; }
P one;
P[2] two;
export I64 put(I64 v) {
    one.x = v as I16;
    one.b = !one.b;
    one.m[1, 0] = (v % 200) as U8;
    two[v % 2].x = (v * 2) as I16;
    return v;
}
"""


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("pyckstructs", {"grid.ci": SRC}) / "grid.ci")


def ref():
    return RefExecutor(compile_source(SRC.encode(), "grid.ci"))


def cpu_state(ctx):
    return decode_checkpoint(ctx.checkpoint(), ctx._module._structs()).state_bytes


@pytest.mark.clause("M-3", "M-5", "H-19")
def test_state_bytes_agree_and_checkpoints_cross(mod):
    ctx, r = mod.context(), ref()
    assert cpu_state(ctx) == r.state_bytes()
    for args in CALLS:
        out = r.call("hit", list(args), None)
        assert decode_tagged_exact(out.result)[1] == ctx.hit(*args)
        assert out.state_hash == ctx.state_hash()
        assert cpu_state(ctx) == r.state_bytes()
    # cpu-c17 -> interpreter -> cpu-c17
    r2 = ref()
    r2.restore(ctx.checkpoint())
    assert r2.state_hash() == ctx.state_hash()
    r2.call("hit", [0, 1, 4], None)
    back = mod.context()
    back.restore(r2.checkpoint())
    assert back.state_hash() == r2.state_hash()
    ctx.hit(0, 1, 4)
    assert back.state_hash() == ctx.state_hash()
    assert back.hit(1, 0, 3) == ctx.hit(1, 0, 3)
    r2.call("hit", [1, 0, 3], None)
    assert back.state_hash() == ctx.state_hash() == r2.state_hash()


@pytest.mark.clause("M-3", "H-19")
def test_a_struct_module_variable_restores_in_the_interpreter():
    c = compile_source(REF_ONLY.encode(), "one.ci")
    a, b = RefExecutor(c), RefExecutor(c)
    assert set(a.structs) == {"one.P"} and a.structs["one.P"][2] == ("array", ("int", False, 8), (2, 2))
    for v in (3, 250, -7):
        a.call("put", [v], None)
    saved = a.checkpoint()
    g = {n: v for n, _, v in decode_checkpoint(saved, a.structs).state.globals}
    assert g["one.one"] == [-7, True, [[0, 0], [(-7) % 200, 0]]]
    b.restore(saved)
    assert b.state_hash() == a.state_hash()
    assert b.call("put", [11], None).state_hash == a.call("put", [11], None).state_hash
    with pytest.raises(RestoreRefused, match="struct layout unknown"):
        RefExecutor(compile_source(SRC.encode(), "grid.ci")).restore(saved)


@pytest.mark.clause("9.2", "M-3")
def test_read_checkpoint_with_and_without_module(mod):
    ctx = mod.context()
    for args in CALLS:
        ctx.hit(*args)
    saved = ctx.checkpoint()
    full = {g.name: g for g in cint.read_checkpoint(saved, mod).globals}
    assert full["grid.grid"].type == "grid.Cell[2, 3]"
    assert full["grid.grid"].value[1][2] == ((1, 1, 0), True, 65536)
    assert full["grid.rows"].value[1] == ((((0, 0, 9), False, 0), ((0, 0, 30), False, 0)), 9)
    bare = {g.name: g for g in cint.read_checkpoint(saved).globals}
    assert isinstance(bare["grid.grid"].value, RawPayload) and bare["grid.grid"].value.record_size == 17
    assert bare["grid.rows"].value.record_size == 35 and bare["grid.total"] == full["grid.total"]
    with pytest.raises(DecodeError, match="struct layout unknown"):
        decode_checkpoint(saved)


@pytest.mark.clause("H-19", "H-19a")
def test_malformed_struct_checkpoints_are_refused_by_both(mod):
    src = mod.context()
    for args in CALLS:
        src.hit(*args)
    saved = src.checkpoint()
    cpu, r = mod.context(), ref()
    cpu.hit(0, 0, 1)
    r.call("hit", [0, 0, 1], None)
    h = cpu.state_hash()
    assert r.state_hash() == h
    rng = random.Random(31)
    at = saved.index(b"grid.grid")
    cases = [saved[:k] for k in rng.sample(range(len(saved)), 20)]
    for k in list(range(at - 4, at + 60)) + rng.sample(range(len(saved)), 60):
        b = bytearray(saved)
        b[k] ^= rng.choice((1, 2, 0x40, 0xFF))
        cases.append(bytes(b))
    refused = 0
    for m in cases:
        try:
            cpu.restore(m)
        except cint.Refused:
            refused += 1
            with pytest.raises(RestoreRefused):
                r.restore(m)
            assert cpu.state_hash() == h and r.state_hash() == h
            continue
        r.restore(m)                   # a payload byte that stays well formed: both take the same state
        assert r.state_hash() == cpu.state_hash()
        cpu.restore(saved)
        r.restore(saved)
        h = cpu.state_hash()
        assert r.state_hash() == h
    assert refused > 40


@pytest.mark.clause("H-16", "H-14", "9.3")
@pytest.mark.parametrize("backend", ["ref", "cpu"])
def test_a_recording_replays_on_both_backends(mod, tmp_path, backend):
    path = tmp_path / "grid.cintrec"
    with cint.Recorder(path) as rec:
        ctx = mod.context(record=rec)
        for args in CALLS[:3]:
            ctx.hit(*args)
        saved = ctx.checkpoint()
        ctx.hit(1, 1, 50)
        ctx.restore(saved)
        for args in CALLS[3:]:
            ctx.hit(*args)
        final = ctx.state_hash()
    r = cint.replay(mod, path, backend=backend)
    assert (r.status, r.boundaries, r.stopped) == ("ok", 6, False)
    assert r.final_state_hash == final
    assert hashlib.sha256(decode_checkpoint(r.checkpoint, mod._structs()).state_bytes).digest() == final
    part = cint.replay(mod, path, backend=backend, stop=2)
    assert part.stopped and part.boundaries == 2
