"""Checkpoints of programs with module-level arrays of structs (SPEC-03P.1 5.1 M-3, 9.2, 9.3; H-16, H-19):
the structs= mapping of cint_abi's strict decoder, taken from the loaded library (Context.checkpoint,
restore, cint.read_checkpoint) or from the interpreter's program (RefExecutor), cross-executor restore,
recording and replay on both backends, and refusals that leave the state as it was."""
import hashlib
import random
import shutil

import pytest

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import cint  # noqa: E402
from cint_abi.checkpoint import decode_checkpoint, encode_checkpoint, read_checkpoint  # noqa: E402
from cint_abi.codes import RUNTIME_CONTRACT  # noqa: E402
from cint_abi.encoding import DecodeError  # noqa: E402
from cint_abi.state import RawPayload, decode_state, encode_state  # noqa: E402
from cint_compiler.interp.canonical import canonical_state, struct_layouts  # noqa: E402
from cint_compiler.driver import compile_source  # noqa: E402
from cint_replay import RecordingError, RefExecutor, RestoreRefused  # noqa: E402
from cint_replay.replay import check  # noqa: E402

# the program of test_backend_features3 (STATE_SRC), a nested struct, an enum field, wide and fixed fields
SRC = """enum Color : U8 { red = 0, green = 1, blue = 7 }
struct In { Bool on; I16[2] v; }
struct R { I8 a; In in_; Color c; I128 w; Q8.8 q; U64 u; }
R[3] rs;
I256[2, 2] big;
I128[2] w = [5, -170141183460469231731687303715884105000];
U8 n = 1;
export I64 put(I64 i, I64 v) {
    rs[i].a = v as I8;
    rs[i].in_.on = v % 2 == 0;
    rs[i].in_.v[1] = (v * 3) as I16;
    rs[i].c = Color.blue;
    rs[i].w = (v as I128) * 170141183460469231731687303715884105 - 1;
    rs[i].q = 1.25;
    rs[i].u = 18446744073709551615;
    big[i % 2, 1] = (rs[i].w as I256) * (rs[i].w as I256);
    w[i % 2] = w[i % 2] + v as I128;
    n += 1;
    return v + n as I64;
}
"""

# two struct types (one of them only in a global), a multi-dimensional array field, and a struct array
# of extent 0 around them
SRC2 = """struct P { I32 x; Bool b; }
struct Q { U16[2, 3] m; P p; I64 z; }
P[2] ps;
Q[2, 2] qs;
P[0] none;
I64 tally = 0;
export I64 set(I64 i, I64 v) {
    ps[i % 2].x = v as I32;
    ps[i % 2].b = v > 0;
    qs[i % 2, 1].m[1, 2] = (v % 60000) as U16;
    qs[i % 2, 1].p.x = (v * 2) as I32;
    qs[i % 2, 0].z = v;
    tally += v;
    return tally;
}
"""

PUTS = ((0, 5), (1, -3), (2, 9), (1, 4))


@pytest.fixture(scope="module")
def env(source_env):
    return source_env("ckstructs", {"gst.ci": SRC, "two.ci": SRC2})


@pytest.fixture(scope="module")
def mod(env):
    return cint.load(env / "gst.ci")


@pytest.fixture(scope="module")
def mod2(env):
    return cint.load(env / "two.ci")


def ref_of(src, name):
    return RefExecutor(compile_source(src.encode(), name))


@pytest.mark.clause("M-3", "H-19", "9.2")
def test_the_module_mapping_is_the_interpreters(mod, mod2):
    """The mapping taken from the record layout table equals canonical.struct_layouts of the program (an
    array field of a struct no export names is rank 1 there, with the same payload bytes)."""
    assert mod._structs() == struct_layouts(compile_source(SRC.encode(), "gst.ci").program)
    got = mod2._structs()
    want = struct_layouts(compile_source(SRC2.encode(), "two.ci").program)
    assert set(got) == set(want) == {"two.P", "two.Q"}
    assert got["two.P"] == want["two.P"]
    assert got["two.Q"][0] == ("array", ("int", False, 16), (6,)) and want["two.Q"][0][2] == (2, 3)
    assert got["two.Q"][1:] == want["two.Q"][1:]


@pytest.mark.clause("M-3", "H-19", "9.2")
def test_checkpoint_restore_from_python(mod):
    ctx = mod.context()
    for i, v in PUTS:
        ctx.put(i, v)
    saved = ctx.checkpoint()
    h = ctx.state_hash()
    cp = decode_checkpoint(saved, mod._structs())
    assert hashlib.sha256(cp.state_bytes).digest() == h
    rs = dict((n, v) for n, _, v in cp.state.globals)["gst.rs"]
    assert rs[1][:3] == [4, [True, [0, 12]], 7] and rs[1][4:] == [320, 2**64 - 1]
    assert encode_state(cp.state) == cp.state_bytes
    ctx.put(0, 100)
    assert ctx.state_hash() != h
    ctx.restore(saved)
    assert ctx.state_hash() == h
    fresh = mod.context()
    fresh.restore(saved)
    assert fresh.state_hash() == h and fresh.put(2, 1) == ctx.put(2, 1)
    # without the layout the strict decoder refuses, with the rule and the global named
    with pytest.raises(DecodeError, match="struct layout unknown.*gst.rs.*gst.R") as ei:
        decode_checkpoint(saved)
    assert saved[ei.value.offset - 8:ei.value.offset] == (3).to_bytes(8, "little")   # R[3]'s extent, then the payload
    with pytest.raises(DecodeError, match="struct layout unknown"):
        encode_checkpoint(cp.state_bytes, contract=RUNTIME_CONTRACT)
    assert encode_checkpoint(cp.state_bytes, contract=RUNTIME_CONTRACT, digests=cp.digests,
                             structs=mod._structs()) == saved


@pytest.mark.clause("M-3", "H-19")
def test_a_struct_the_mapping_lacks_is_refused_not_a_crash(mod):
    ctx = mod.context()
    ctx.put(1, 2)
    saved = ctx.checkpoint()
    layouts = dict(mod._structs())
    del layouts["gst.R"]
    with pytest.raises(DecodeError, match="struct layout unknown") as ei:
        decode_checkpoint(saved, layouts)
    assert ei.value.rule == "struct layout unknown"
    with pytest.raises(TypeError):
        decode_state(decode_checkpoint(saved, mod._structs()).state_bytes, structs=[("gst.R", ())])
    # a layout of another size: the payload does not end where the next global starts
    layouts["gst.R"] = (("int", True, 8),)
    with pytest.raises(DecodeError):
        decode_checkpoint(saved, layouts)


@pytest.mark.clause("H-19", "M-5")
def test_cpu_checkpoint_restores_into_ref_and_back(mod):
    ctx = mod.context()
    ref = ref_of(SRC, "gst.ci")
    for i, v in PUTS:
        ctx.put(i, v)
    ref.restore(ctx.checkpoint())
    assert ref.state_hash() == ctx.state_hash()
    assert ref.state_bytes() == decode_checkpoint(ctx.checkpoint(), mod._structs()).state_bytes
    for i, v in ((2, 11), (0, -7)):
        out = ref.call("put", [i, v], None)
        assert out.status == 0
        ctx.put(i, v)
        assert out.state_hash == ctx.state_hash()
    # and back: the interpreter's checkpoint restores into a fresh cpu-c17 context
    fresh = mod.context()
    fresh.restore(ref.checkpoint())
    assert fresh.state_hash() == ref.state_hash()
    assert fresh.put(1, 3) == ctx.put(1, 3)
    ref.call("put", [1, 3], None)
    assert fresh.state_hash() == ref.state_hash() == ctx.state_hash()


@pytest.mark.clause("H-19", "M-5")
def test_multi_dimensional_fields_and_empty_struct_arrays_cross(mod2):
    ctx = mod2.context()
    ref = ref_of(SRC2, "two.ci")
    for i, v in ((0, 7), (1, -70000), (3, 123456)):
        ctx.set(i, v)
        ref.call("set", [i, v], None)
    assert ctx.state_hash() == ref.state_hash()
    ref2 = ref_of(SRC2, "two.ci")
    ref2.restore(ctx.checkpoint())
    assert ref2.state_hash() == ctx.state_hash()
    qs = dict((n, v) for n, _, v in decode_checkpoint(ref2.checkpoint(), ref2.structs).state.globals)["two.qs"]
    assert qs[1][1][0] == [[0, 0, 0], [0, 0, 123456 % 60000]]       # m is U16[2, 3] in the interpreter's view
    fresh = mod2.context()
    fresh.restore(ref2.checkpoint())
    assert fresh.state_hash() == ctx.state_hash()


@pytest.mark.clause("9.2", "M-3")
def test_read_checkpoint_with_and_without_module(mod, mod2):
    ctx = mod.context()
    for i, v in PUTS:
        ctx.put(i, v)
    saved = ctx.checkpoint()
    with_mod = cint.read_checkpoint(saved, mod)
    assert cint.read_checkpoint(saved, ctx).globals == with_mod.globals
    g = {x.name: x for x in with_mod.globals}
    assert g["gst.rs"].type == "gst.R[3]"
    assert g["gst.rs"].value[0][:3] == (5, (False, (0, 15)), 7)
    assert g["gst.n"].value == 5
    bare = cint.read_checkpoint(saved)
    b = {x.name: x for x in bare.globals}
    raw = b["gst.rs"].value
    assert isinstance(raw, RawPayload) and raw.struct == "gst.R" and raw.count == 3 and raw.record_size == 33
    assert len(raw) == 99 and bytes(raw)[:1] == bytes([5])          # the first record's I8 field
    assert b["gst.big"] == g["gst.big"] and b["gst.w"] == g["gst.w"]
    assert bare.counters == with_mod.counters and bare.state_bytes == with_mod.state_bytes
    # a module of another program decodes its own structs and shows the rest raw
    other = cint.read_checkpoint(saved, mod2)
    assert isinstance({x.name: x for x in other.globals}["gst.rs"].value, RawPayload)
    with pytest.raises(TypeError):
        cint.read_checkpoint(saved, module="gst")
    # the lenient view keeps what it read: the state encodes back to its bytes
    st = decode_checkpoint(saved, raw_structs=True).state
    assert encode_state(st) == bare.state_bytes
    # two struct types, an empty struct array, a multi-dimensional field
    c2 = mod2.context()
    c2.set(1, 9)
    v2 = {x.name: x.value for x in cint.read_checkpoint(c2.checkpoint()).globals}
    assert (v2["two.ps"].record_size, v2["two.qs"].record_size) == (5, 25)
    assert v2["two.none"] == b"" and v2["two.none"].count == 0 and v2["two.tally"] == 9
    v2m = {x.name: x.value for x in cint.read_checkpoint(c2.checkpoint(), mod2).globals}
    assert v2m["two.ps"] == ((0, False), (9, True)) and v2m["two.none"] == ()
    # malformed bytes are still refused by the view
    with pytest.raises(ValueError):
        read_checkpoint(saved[:-1])


@pytest.mark.clause("H-19", "M-5")
def test_mutated_struct_checkpoints_are_refused_and_change_nothing(mod):
    """Every single-byte change and truncation of such a checkpoint either restores (the same bytes as a
    state both executors take) or is refused by both, and a refusal leaves each state hash as it was."""
    ctx = mod.context()
    for i, v in PUTS:
        ctx.put(i, v)
    saved = ctx.checkpoint()
    target = mod.context()
    target.put(2, 1)
    ref = ref_of(SRC, "gst.ci")
    ref.call("put", [0, 1], None)
    h_cpu, h_ref = target.state_hash(), ref.state_hash()
    rng = random.Random(1903)
    mutants = [saved[:k] for k in rng.sample(range(len(saved)), 25)]
    start = saved.index(b"gst.rs")
    positions = list(range(start, start + 150)) + rng.sample(range(len(saved)), 80)
    for k in positions:
        b = bytearray(saved)
        b[k] ^= rng.choice((1, 2, 0x80, 0xFF))
        mutants.append(bytes(b))
    refused = taken = 0
    for m in mutants:
        try:
            target.restore(m)
        except cint.Refused:
            refused += 1
            assert target.state_hash() == h_cpu
            with pytest.raises(RestoreRefused):
                ref.restore(m)
            assert ref.state_hash() == h_ref
            continue
        # a change inside a payload that keeps it well-formed (an enum field's byte another enumerator: both
        # executors check it, cpu-c17 through the program's value-set table)
        ref.restore(m)
        taken += 1
        assert ref.state_hash() == target.state_hash()
        target.restore(saved)
        ref.restore(saved)
        target.put(2, 1)
        ref.call("put", [0, 1], None)
        h_cpu, h_ref = target.state_hash(), ref.state_hash()
    assert refused > 100 and taken > 0


@pytest.mark.clause("H-16", "H-14", "9.3")
@pytest.mark.parametrize("backend", ["ref", "cpu"])
def test_recording_of_struct_arrays_replays_on_both(mod, env, tmp_path, backend):
    path = tmp_path / "s.cintrec"
    with cint.Recorder(path) as rec:
        ctx = mod.context(record=rec)
        for i, v in PUTS:
            ctx.put(i, v)
        saved = ctx.checkpoint()
        ctx.put(0, 100)
        ctx.restore(saved)
        ctx.put(2, -9)
        final = ctx.state_hash()
    r = cint.replay(mod, path, backend=backend)
    assert (r.status, r.boundaries, r.stopped) == ("ok", 6, False)
    assert r.final_state_hash == final
    assert hashlib.sha256(decode_checkpoint(r.checkpoint, mod._structs()).state_bytes).digest() == final
    # the whole-file check compiles the recorded code for the layout, or takes the one given
    data = path.read_bytes()
    assert check(data).header.revision == check(data, mod._structs()).header.revision
    with pytest.raises(RecordingError, match="initial checkpoint is malformed.*struct layout unknown"):
        check(data, {})


# module-level struct variables (not arrays): a tagged struct value each, beside a struct array
SRC3 = """enum Color : U8 { red = 0, green = 1, blue = 7 }
struct In { Bool on; I16[2, 2] v; }
struct R { I8 a; In in_; Color c; I128 w; Q8.8 q; U64 u; }
R r;
In solo;
R[2] rs;
U8 n = 1;
export I64 put(I64 i, I64 v) {
    r.a = v as I8;
    r.in_.on = v % 2 == 0;
    r.in_.v[1, i % 2] = (v * 3) as I16;
    r.c = Color.blue;
    r.w = (v as I128) * 170141183460469231731687303715884105 - 1;
    r.q = 1.25;
    r.u = 18446744073709551615;
    solo = r.in_;
    solo.v[0, 0] += 1;
    rs[i % 2] = r;
    n += 1;
    return v + n as I64 + solo.v[0, 0] as I64;
}
"""


def _i64(out):
    """The I64 result of a RefExecutor entry (its tagged bytes: 0x14, then 8 bytes)."""
    assert out.status == 0 and out.result[:1] == bytes([0x14])
    return int.from_bytes(out.result[1:], "little", signed=True)


@pytest.mark.clause("M-3", "H-19", "M-5")
def test_module_level_struct_variables_checkpoint_and_cross(env):
    (env / "sv.ci").write_text(SRC3, encoding="utf-8")
    mod3 = cint.load(env / "sv.ci")
    ctx = mod3.context()
    ref = ref_of(SRC3, "sv.ci")
    assert set(mod3._structs()) == set(ref.structs) == {"sv.In", "sv.R"}    # In.v is rank 1 in the table
    assert ctx.state_hash() == ref.state_hash()
    for i, v in PUTS:
        out = ref.call("put", [i, v], None)
        assert out.status == 0 and ctx.put(i, v) == _i64(out)
        assert out.state_hash == ctx.state_hash()
    saved = ctx.checkpoint()
    h = ctx.state_hash()
    cp = decode_checkpoint(saved, ref.structs)
    assert cp.state_bytes == decode_checkpoint(saved, mod3._structs()).state_bytes
    g = dict((n, v) for n, _, v in cp.state.globals)
    assert g["sv.r"][:3] == [4, [True, [[0, 0], [27, 12]]], 7] and g["sv.r"][4:] == [320, 2**64 - 1]
    assert g["sv.solo"] == [True, [[1, 0], [27, 12]]] and g["sv.n"] == 5
    assert encode_state(cp.state) == cp.state_bytes
    with pytest.raises(DecodeError, match="struct layout unknown"):
        decode_checkpoint(saved)
    # restore on cpu-c17, in place and into a fresh context
    ctx.put(0, 100)
    assert ctx.state_hash() != h
    ctx.restore(saved)
    assert ctx.state_hash() == h
    fresh = mod3.context()
    fresh.restore(saved)
    assert fresh.state_hash() == h
    # across executors, both ways, with equal hashes after more entries
    ref2 = ref_of(SRC3, "sv.ci")
    ref2.restore(saved)
    assert ref2.state_hash() == h and ref2.state_bytes() == cp.state_bytes
    for i, v in ((2, 11), (0, -7)):
        out = ref2.call("put", [i, v], None)
        assert _i64(out) == fresh.put(i, v) and out.state_hash == fresh.state_hash()
    back = mod3.context()
    back.restore(ref2.checkpoint())
    assert back.state_hash() == ref2.state_hash() == fresh.state_hash()
    assert back.put(1, 3) == _i64(ref2.call("put", [1, 3], None))
    assert back.state_hash() == ref2.state_hash()
    # the read-only view shows the struct with the module, and raw without it
    view = {x.name: x for x in cint.read_checkpoint(saved, mod3).globals}
    assert view["sv.solo"].value == (True, (1, 0, 27, 12))        # the record layout table's rank-1 field
    raw = {x.name: x.value for x in cint.read_checkpoint(saved).globals}["sv.solo"]
    assert isinstance(raw, RawPayload) and raw.struct == "sv.In" and raw.count == 1


@pytest.mark.clause("H-19", "M-5")
def test_malformed_struct_variable_checkpoints_are_refused(env):
    (env / "sv2.ci").write_text(SRC3, encoding="utf-8")
    mod3 = cint.load(env / "sv2.ci")
    ctx = mod3.context()
    for i, v in PUTS:
        ctx.put(i, v)
    saved = ctx.checkpoint()
    target = mod3.context()
    target.put(1, 2)
    ref = ref_of(SRC3, "sv2.ci")
    ref.call("put", [1, 2], None)
    h_cpu, h_ref = target.state_hash(), ref.state_hash()
    assert h_cpu == h_ref
    state = decode_checkpoint(saved, mod3._structs()).state_bytes
    # a Bool byte of 2 in r.in_.on: refused by both, each keeping its state
    name = b"sv2.r" + bytes([0x71])
    at = state.index(name) + len(name) + 4 + len(b"sv2.R") + 1
    assert state[at] == 1
    bad = bytearray(state)
    bad[at] = 2
    with pytest.raises(DecodeError):
        decode_state(bytes(bad), structs=mod3._structs())
    # the whole checkpoint with that byte changed (its digest no longer matches either)
    k = saved.index(state)
    mutated = saved[:k] + bytes(bad) + saved[k + len(state):]
    with pytest.raises(cint.Refused):
        target.restore(mutated)
    with pytest.raises(RestoreRefused):
        ref.restore(mutated)
    assert target.state_hash() == h_cpu and ref.state_hash() == h_ref
    # truncations and single-byte changes in the struct variables: refused by both or taken by both alike
    rng = random.Random(7)
    start = saved.index(b"sv2.r")
    for pos in list(range(start, start + 90)):
        b = bytearray(saved)
        b[pos] ^= rng.choice((1, 2, 0x80, 0xFF))
        try:
            target.restore(bytes(b))
        except cint.Refused:
            with pytest.raises(RestoreRefused):
                ref.restore(bytes(b))
            assert target.state_hash() == h_cpu and ref.state_hash() == h_ref
            continue
        ref.restore(bytes(b))
        assert ref.state_hash() == target.state_hash()
        target.restore(saved)
        ref.restore(saved)
        target.put(1, 2)
        ref.call("put", [1, 2], None)
        h_cpu, h_ref = target.state_hash(), ref.state_hash()
