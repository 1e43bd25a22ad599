"""Restore of arenas, pools and handles on cpu-c17 (runtime-c/src/state.c; docs/language.md decision 24,
docs/runtime.md): a checkpoint of either executor restores into the other and into its own kind, the state
hashes agree and later entries behave the same (stale handles stay stale, restored child arenas keep their
place); the identifier counters follow M-11; and every H-19a rule of cint_abi.arenas_pools (and of
RefExecutor.restore) is a refusal of the runtime on hand-made bytes, with the context unchanged.  The
programs are our own."""
import ctypes
import shutil

import pytest

from cint_abi.arenas_pools import DOMAIN_ARENAS_V1, DOMAIN_POOLS_V1, ArenaState, PoolState, arena_block, pool_block
from cint_abi.encoding import DecodeError, frame, u8, u64
from cint_abi.codes import FAULT_CODES
from cint_abi.faultrecord import decode_fault_record
from cint_abi.state import decode_state, encode_state
from cint_compiler.interp import canonical
from cint_compiler.driver import compile_source
from compiler_testkit import cpu_and_ref

pytestmark = [pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler"),
              pytest.mark.clause("SPEC-03P.1 H-19a", "SPEC-03P.1 M-11", "SPEC-03P.1 M-3")]

SRC = """enum Tone : U8 { low = 1, high = 7 }
struct Body { I64 mass; Handle(Body) next; Bool on; }
Arena(I64, 12) scratch;
Pool(Body, 3) bodies;
Arena(Body, 2) rec;
Pool(Tone, 2) tones;
Handle(I64[]) keep;
Handle(Body) first;
I64 seen;
export I64 put(I64 i, I64 v) {
    if (i == 0) {
        keep = scratch.alloc(3);
        scratch[keep][1] = v;
        Arena(I64) part = scratch.child(4);
        Handle(I64[]) t = part.alloc(2);
        part[t][0] = v + 1;
        Arena(I64) leaf = part.child(1);
        _ = leaf.alloc(1);
    } else if (i == 1) {
        first = bodies.insert(Body(mass = v, next = first, on = true));
        Handle(Body) b = bodies.insert(Body(mass = v * 2, next = first, on = false));
        bodies.remove(b);
    } else if (i == 2) {
        Handle(Body[]) r = rec.alloc(1);
        rec[r][0] = Body(mass = v, next = first, on = v > 3);
        _ = tones.insert(v > 3 ? Tone.high : Tone.low);
    } else if (i == 3) {
        scratch.reset();
    } else if (i == 4) {
        return scratch[keep][1];
    } else if (i == 5) {
        return bodies[first].mass;
    } else if (i == 6) {
        bodies.remove(first);
    } else {
        Arena(I64) c = scratch.child(2);
        Handle(I64[]) h = c.alloc(2);
        c[h][1] = v;
        return c[h][1] + scratch[keep][1];
    }
    seen += 1;
    return seen;
}
"""

CALLS = [(0, 5), (1, 4), (2, 9), (1, 3), (0, 2), (4, 0), (5, 0)]
LATER = [(4, 0), (5, 0), (7, 8), (2, 1), (1, 6), (0, 3), (6, 0), (5, 0), (3, 0), (4, 0), (7, 1)]


class Two:
    """A cpu-c17 context (CpuExecutor) and a reference executor (RefExecutor) of one program."""

    def __init__(self, tmp_path, monkeypatch, src=SRC, name="rs"):
        from cint._record import CpuExecutor
        from cint_replay.refexec import RefExecutor
        self.kit = cpu_and_ref(tmp_path, monkeypatch, src, name)
        self.compiled = compile_source(src.encode("utf-8"), name + ".ci")
        self.structs = canonical.struct_layouts(self.compiled.program)
        self._cpu, self._ref = CpuExecutor, RefExecutor

    def cpu(self):
        return self._cpu(self.kit.mod.context())

    def ref(self):
        return self._ref(self.compiled)

    def state(self, ex):
        return ex.state_bytes() if ex.backend == "ref" else self.kit.state(ex.ctx)

    def raw_restore(self, ex, data):
        """The runtime's restore of state bytes: (status, detail code, byte offset)."""
        _, res = ex.ctx._state_fns("restore()")
        detail = (ctypes.c_uint64 * 2)()
        st = res(ex.ctx._h, bytes(data), len(data), detail)
        return st, detail[0], detail[1]


def _same(a, b):
    assert (a.status, a.fault, a.fuel, a.effects, a.result, a.error, a.state_hash) == (
        b.status, b.fault, b.fuel, b.effects, b.result, b.error, b.state_hash)


def _run(exs, calls):
    for i, v in calls:
        outs = [ex.call("put", [i, v], None) for ex in exs]
        for o in outs[1:]:
            _same(outs[0], o)
        if outs[0].fault is not None:
            for ex in exs:
                ex.clear_fault()


@pytest.mark.parametrize("src_kind,dst_kind", [("cpu", "ref"), ("ref", "cpu"), ("cpu", "cpu"), ("ref", "ref")])
def test_checkpoint_restores_across_executors(tmp_path, monkeypatch, src_kind, dst_kind):
    two = Two(tmp_path, monkeypatch)
    src = two.cpu() if src_kind == "cpu" else two.ref()
    twin = two.ref() if src_kind == "cpu" else two.cpu()
    _run([src, twin], CALLS)
    assert two.state(src) == two.state(twin)
    cp = src.checkpoint()
    dst = two.cpu() if dst_kind == "cpu" else two.ref()
    dst.restore(cp)
    assert two.state(dst) == two.state(src)
    assert dst.state_hash() == src.state_hash()
    # later entries: the same outcomes on the restored context, its source and the source's twin
    _run([dst, src, twin], LATER)
    assert two.state(dst) == two.state(src)


def test_stale_handle_stays_stale_after_restore(tmp_path, monkeypatch):
    two = Two(tmp_path, monkeypatch)
    cpu, ref = two.cpu(), two.ref()
    _run([cpu, ref], [(0, 5), (1, 2), (3, 0), (6, 0)])     # keep's arena reset; first removed
    cp = ref.checkpoint()
    cpu2 = two.cpu()
    cpu2.restore(cp)
    assert two.state(cpu2) == two.state(ref)
    for call in ((4, 0), (5, 0)):                           # both handles fault E_STALE_HANDLE
        a, b = cpu2.call("put", list(call), None), ref.call("put", list(call), None)
        _same(a, b)
        rec = decode_fault_record(a.fault)
        assert rec.code == FAULT_CODES["E_STALE_HANDLE"] and rec.operands[-1][1] in (2, 3)   # retired, generation
        cpu2.clear_fault()
        ref.clear_fault()


def test_restored_child_arenas_keep_their_place(tmp_path, monkeypatch):
    """A restored child arena keeps its region: a new child comes after it, at the next identifier; a reset
    of the root retires the restored children."""
    two = Two(tmp_path, monkeypatch)
    ref = two.ref()
    _run([ref], [(0, 5)])
    cpu = two.cpu()
    cpu.restore(ref.checkpoint())
    st = decode_state(two.state(cpu), two.structs)
    assert [(a.id, a.parent, a.offset, a.used, a.retired) for a in st.arenas] == [
        (1, None, 0, 7, False), (2, None, 0, 0, False), (3, 1, 3, 3, False), (4, 3, 2, 1, False)]
    _run([cpu, ref], [(7, 4)])
    st = decode_state(two.state(cpu), two.structs)
    assert st.arenas[-1].parent == 1 and st.arenas[-1].offset == 7 and st.arenas[-1].id == st.next_arena - 1
    _run([cpu, ref], [(3, 0)])
    st = decode_state(two.state(cpu), two.structs)
    assert all(a.retired for a in st.arenas if a.parent is not None)
    assert two.state(cpu) == two.state(ref)


def test_counters_are_the_greater_of_checkpoint_and_context(tmp_path, monkeypatch):
    """M-11: restoring an early checkpoint into a context that made more child arenas keeps its counter."""
    two = Two(tmp_path, monkeypatch)
    cpu, ref = two.cpu(), two.ref()
    _run([cpu, ref], [(0, 1)])
    early = cpu.checkpoint()
    _run([cpu, ref], [(0, 2), (7, 3), (0, 4)])
    late_counter = decode_state(two.state(cpu), two.structs).next_arena
    cpu.restore(early)
    ref.restore(early)
    st = decode_state(two.state(cpu), two.structs)
    assert st.next_arena == late_counter > decode_state(two.state(two.ref()), two.structs).next_arena
    assert two.state(cpu) == two.state(ref)
    _run([cpu, ref], [(7, 5), (0, 6)])      # new children take identifiers never issued before
    ids = [a.id for a in decode_state(two.state(cpu), two.structs).arenas]
    assert ids[-1] >= late_counter


def test_fault_in_checkpoint_restores(tmp_path, monkeypatch):
    two = Two(tmp_path, monkeypatch)
    cpu, ref = two.cpu(), two.ref()
    _run([cpu, ref], [(0, 5), (3, 0)])
    a, b = cpu.call("put", [4, 0], None), ref.call("put", [4, 0], None)
    _same(a, b)
    cp = cpu.checkpoint()
    cpu2, ref2 = two.cpu(), two.ref()
    cpu2.restore(cp)
    ref2.restore(cp)
    assert two.state(cpu2) == two.state(ref2) == two.state(cpu)
    assert cpu2.fault() == ref2.fault() == a.fault


# ------------------------------------------------------------------------------------ H-19a refusals

I64D = ("int", True, 64)
MARK = 0x1122334455667788


def _base(two):
    """A cpu-c17 context after some entries, its state bytes and their decoding."""
    ex = two.cpu()
    _run([ex], [(0, 5), (1, 4), (2, 9)])
    data = two.state(ex)
    return ex, data, decode_state(data, two.structs)


def _arenas(st):
    return [ArenaState(**vars(a)) for a in st.arenas]


def _pools(st):
    return [PoolState(**{**vars(p), "slots": list(p.slots), "free": list(p.free)}) for p in st.pools]


def _with(st, **kw):
    import copy
    s = copy.deepcopy(st)
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def _mut_arena(st, k, **kw):
    arenas = _arenas(st)
    for key, v in kw.items():
        setattr(arenas[k], key, v)
    return _with(st, arenas=arenas)


def _mut_pool(st, k, **kw):
    pools = _pools(st)
    for key, v in kw.items():
        setattr(pools[k], key, v)
    return _with(st, pools=pools)


def _cases(st):
    """name -> (the malformed state, the rule cint_abi gives it or None where cint_abi decodes it and only
    RefExecutor.restore refuses it)."""
    a = _arenas(st)
    scr, rec, part, leaf = a            # module arenas first (ids 1, 2), then the children (3, 4)
    big = 1 << 63
    cases = {
        "used above capacity": (_mut_arena(st, 0, used=13, contents=scr.contents + [0] * (13 - scr.used)),
                                "H-19a used above capacity"),
        "negative capacity": (_mut_arena(st, 1, capacity=-1, used=0, contents=[]), "H-19a negative capacity"),
        "child outside its parent's used region": (_mut_arena(st, 2, offset=scr.used - 1),
                                                   "H-19a child arena outside its parent's used region"),
        "children overlap": (_with(st, arenas=a + [ArenaState(9, None, 1, part.offset + 1, I64D, 1, 0, 0, False)],
                                   next_arena=10), "H-19a child arenas overlap"),
        "live child of a retired arena": (_mut_arena(st, 2, retired=True), "H-19a live child of a retired arena"),
        "child without its parent": (_mut_arena(st, 3, parent=9), "H-19a child arena without its parent"),
        "child element type not its parent's": (_mut_arena(st, 2, elem=("int", True, 32)),
                                                "H-19a child arena element type not its parent's"),
        "arena generation out of range": (_mut_arena(st, 0, generation=big), "H-19a generation out of range"),
        "arena counter": (_with(st, next_arena=leaf.id), "H-19a identifier counter not above every identifier"),
        "pool counter": (_with(st, next_pool=1), "H-19a identifier counter not above every identifier"),
        "slot count above capacity": (_mut_pool(st, 0, slots=st.pools[0].slots + [(0, False, None)] * 2,
                                                retired=st.pools[0].retired + 2),
                                      "H-19a slot index not below the capacity"),
        "free entry beyond the slots": (_mut_pool(st, 0, free=[5]), "H-19a slot index not below the capacity"),
        "free list entry duplicated": (_mut_pool(st, 0, slots=[(1, False, None), (1, False, None)], free=[1, 1]),
                                       "H-19a free list entry duplicated"),
        "free list longer than the slots": (_mut_pool(st, 0, slots=[(1, False, None)], free=[0, 0]),
                                            "H-19a free list longer than the slots"),
        "free list names an occupied slot": (_mut_pool(st, 0, free=[0], retired=1),
                                             "H-19a free list names an occupied slot"),
        "retired count": (_mut_pool(st, 0, retired=1),
                          "H-19a retired count not the vacant slots off the free list"),
        "pool generation out of range": (_mut_pool(st, 0, slots=[(big, True, st.pools[0].slots[0][2])] +
                                                   st.pools[0].slots[1:]), "H-19a generation out of range"),
        "module arena of another name": (_mut_arena(st, 0, name="rs.other"), None),
        "module arena of another capacity": (_mut_arena(st, 0, capacity=20), None),
        "module arena of another id": (_with(st, arenas=[ArenaState(**{**vars(x), "id": x.id + 10,
                                                                      "parent": None if x.parent is None
                                                                      else x.parent + 10}) for x in a],
                                             next_arena=st.next_arena + 10), None),
        "module arena missing": (_with(st, arenas=[scr, part, leaf]), None),
        "module pool missing": (_with(st, pools=_pools(st)[:1]), None),
        "pool of another element type": (_mut_pool(st, 1, elem=("int", False, 16)), None),
        "no arena block": (_with(st, arenas=[]), None),
        "handle kind out of range": (_with(st, globals=[(n, d, (0, 0, 0, 0, 3) if n == "rs.first" else v)
                                                       for n, d, v in st.globals]), "handle kind not 0 to 2"),
        "null handle not zero": (_with(st, globals=[(n, d, (0, 1, 0, 0, 0) if n == "rs.keep" else v)
                                                   for n, d, v in st.globals]), "null handle not all zero"),
        "pool handle of length 2": (_mut_pool(st, 0, slots=[(0, True, [4, (0, 2, 0, 1, 2), True])] +
                                              st.pools[0].slots[1:]), "handle length out of range"),
        "handle of container 0 in an arena": (_mut_arena(st, 1, contents=[[9, (0, 1, 0, 0, 2), True]]),
                                              "handle container 0"),
        "Bool byte 2 in a pool element": (_mut_pool(st, 0, slots=[(0, True, [MARK, (0, 0, 0, 0, 0), True])] +
                                                    st.pools[0].slots[1:]), "IM-145 invalid Bool byte"),
        "enum value outside the enum": (_mut_pool(st, 1, slots=[(0, True, 3)]), None),
    }
    return cases


def _refuse(two, ex, bad, before):
    st, why, at = two.raw_restore(ex, bad)
    assert st != 0 and why in (1, 3), (st, why, at)
    assert 0 < at < len(bad)
    assert two.state(ex) == before
    return why, at


def test_every_h19a_refusal_leaves_the_context_unchanged(tmp_path, monkeypatch):
    from cint_replay.refexec import RestoreRefused
    from cint_abi.checkpoint import encode_checkpoint
    from cint_abi.codes import RUNTIME_CONTRACT
    two = Two(tmp_path, monkeypatch)
    ex, before, st = _base(two)
    hash_before = ex.state_hash()
    ref = two.ref()
    _run([ref], [(0, 5), (1, 4), (2, 9)])
    assert ref.state_bytes() == before
    cases = _cases(st)
    checked = 0
    for name, (bad_st, rule) in sorted(cases.items()):
        bad = encode_state(bad_st)
        if "Bool" in name:      # encode_state writes no Bool 2: the field after the marked mass made 2
            k = bad.index(MARK.to_bytes(8, "little", signed=True) + bytes(29) + b"\x01") + 37
            bad = bad[:k] + b"\x02" + bad[k + 1:]
        assert bad != before, name
        if rule is not None:
            with pytest.raises(DecodeError) as ei:
                decode_state(bad, two.structs)
            assert ei.value.rule == rule, name
        else:
            decode_state(bad, two.structs)      # well formed: only a restore into this program refuses it
        _refuse(two, ex, bad, before)
        # the reference executor refuses it too, unchanged (splice into a well-formed envelope)
        envelope = encode_checkpoint(before, contract=RUNTIME_CONTRACT, digests=ref.digests, structs=two.structs)
        k = envelope.index(before)
        with pytest.raises(RestoreRefused):
            ref.restore(envelope[:k - 8] + u64(len(bad)) + bad)
        assert ref.state_bytes() == before, name
        checked += 1
    assert checked == len(cases) >= 28
    assert ex.state_hash() == hash_before
    # and the context still runs as before
    _run([ex, ref], LATER[:4])


def test_trailing_bytes_empty_block_and_bad_flags(tmp_path, monkeypatch):
    two = Two(tmp_path, monkeypatch)
    ex, before, st = _base(two)
    ab, pb = arena_block(st.arenas), pool_block(st.pools)

    def splice(block, new):
        k = before.index(block)
        return before[:k - 8] + u64(len(new)) + new + before[k + len(block):]
    cases = {
        "IM-148 trailing bytes": splice(ab, ab + b"\x00"),
        "pool trailing": splice(pb, pb + b"\x00"),
        "pool domain string not cint-core-1/pools/v1": splice(pb, frame("cint-core-1/pools/v9") +
                                                              pb[len(frame(DOMAIN_POOLS_V1)):]),
        "empty arena block": splice(ab, frame(DOMAIN_ARENAS_V1) + u64(0)),
        "arena count beyond the bytes": splice(ab, frame(DOMAIN_ARENAS_V1) + u64(1 << 40) + ab[len(frame(
            DOMAIN_ARENAS_V1)) + 8:]),
        "block length beyond the state": before[:before.index(ab) - 8] + u64(1 << 40) + before[before.index(ab):],
    }
    # the retired flag of arena 1: the byte after its generation
    a0 = st.arenas[0]
    k = ab.index(u64(a0.capacity) + u64(a0.used) + u64(a0.generation) + u8(0)) + 24
    cases["arena retired flag not 0 or 1"] = splice(ab, ab[:k] + u8(2) + ab[k + 1:])
    # the occupied flag of pool 1's slot 1 (vacant): 2
    p0 = st.pools[0]
    j = pb.index(u64(p0.slots[1][0]) + u8(0), pb.index(u64(len(p0.slots)))) + 8
    cases["pool occupied flag not 0 or 1"] = splice(pb, pb[:j] + u8(2) + pb[j + 1:])
    cases["empty pool block"] = splice(pb, frame(DOMAIN_POOLS_V1) + u64(0))
    for name, bad in cases.items():
        with pytest.raises(DecodeError):
            decode_state(bad, two.structs)
            pytest.fail("cint_abi decoded %s" % name)
        _refuse(two, ex, bad, before)


def test_malformed_checkpoint_refused_by_context_restore(tmp_path, monkeypatch):
    """Through Context.restore the envelope's decoder refuses first; the runtime is not reached."""
    import cint
    two = Two(tmp_path, monkeypatch)
    ex, before, st = _base(two)
    cp = ex.checkpoint()
    k = cp.index(before)
    bad = encode_state(_mut_arena(st, 0, retired=True))
    with pytest.raises(cint.Refused):
        ex.restore(cp[:k - 8] + u64(len(bad)) + bad)
    assert two.state(ex) == before


# ------------------------------------------------------------------------------------ arrays of handles

ARRAYS_SRC = """struct Body { I64 mass; I64 vel; }
struct Link { I64 w; Handle(Body)[2] to; }
struct Pair { Handle(I64[]) run; Bool on; }
Pool(Body, 4) bodies;
Arena(I64, 16) box;
Handle(Body)[3] keep;
Handle(I64[])[2, 2] grid;
Link link;
Pair[2] pairs;
export I64 put(I64 i, I64 v) {
    if (i == 0) {
        Handle(Body)[2] hs;
        hs[0] = bodies.insert(Body(mass = v, vel = 1));
        hs[1] = bodies.insert(Body(mass = v + 1, vel = 2));
        keep[1] = hs[1];
        link.to[0] = hs[0];
        link.w = 3;
        Handle(Body)[2] cp = hs;
        return bodies[cp[0]].mass + bodies[keep[1]].mass;
    } else if (i == 1) {
        grid[1, 0] = box.alloc(3);
        box[grid[1, 0]][2] = v;
        pairs[1] = Pair(run = grid[1, 0], on = true);
        Pair[2] local = pairs;
        return box[local[1].run][2];
    } else if (i == 2) {
        bodies.remove(link.to[0]);
        return 0;
    } else if (i == 3) {
        return bodies[link.to[0]].mass;
    } else if (i == 4) {
        box.reset();
        return 0;
    } else if (i == 5) {
        return box[pairs[1].run][2];
    }
    Link l = link;
    return bodies[l.to[1]].mass + len(keep);
}
"""


def test_arrays_of_handles_state_and_restore(tmp_path, monkeypatch):
    """Module-level and local arrays of handles, a struct's array field of handles and an array of structs with
    handle fields: the same outcomes and state bytes on both executors (each element's canonical 29-byte
    payload, whatever its C stride), and a checkpoint of either restores into the other."""
    two = Two(tmp_path, monkeypatch, ARRAYS_SRC, "ah")
    cpu, ref = two.cpu(), two.ref()
    assert two.state(cpu) == two.state(ref)
    _run([cpu, ref], [(0, 5), (1, 7), (6, 0)])
    assert two.state(cpu) == two.state(ref)
    g = dict((n, v) for n, _, v in decode_state(two.state(cpu), two.structs).globals)
    assert g["ah.keep"][1] == (1, 1, 0, 1, 2) and g["ah.grid"][1][0] == (0, 3, 0, 1, 1)
    for src, dst in ((cpu, two.ref()), (ref, two.cpu())):
        dst.restore(src.checkpoint())
        assert two.state(dst) == two.state(src)
    cpu2 = two.cpu()
    cpu2.restore(ref.checkpoint())
    _run([cpu2, cpu, ref], [(2, 0), (3, 0), (5, 0), (4, 0), (5, 0), (0, 2), (6, 0)])
    assert two.state(cpu2) == two.state(ref)
    # a malformed handle in an array element is refused, the context unchanged
    before = two.state(cpu2)
    st = decode_state(before, two.structs)
    bad_globals = [(n, d, [v[0], v[1], (0, 0, 0, 0, 7)] if n == "ah.keep" else v) for n, d, v in st.globals]
    bad = encode_state(_with(st, globals=bad_globals))
    with pytest.raises(DecodeError):
        decode_state(bad, two.structs)
    _refuse(two, cpu2, bad, before)


HPOOL = "struct Body { I64 mass; I64 vel; }\nPool(Body, 4) bodies;\n"
HANDLE_ARRAYS = {
    "stale_in_local_array": HPOOL + """export I64 run() {
    Handle(Body)[2] hs;
    hs[0] = bodies.insert(Body(mass = 3, vel = 1));
    hs[1] = bodies.insert(Body(mass = 4, vel = 1));
    bodies.remove(hs[0]);
    return bodies[hs[1]].mass + bodies[hs[0]].mass;
}
""",
    "literal_and_null_elements": HPOOL + """export I64 run() {
    Handle(Body) a = bodies.insert(Body(mass = 5, vel = 1));
    Handle(Body)[2] hs = [a, a];
    Handle(Body)[2] ns;
    return bodies[hs[1]].mass + bodies[ns[0]].mass;
}
""",
    "index_beyond_run": """Arena(I64, 8) box;
Handle(I64[])[2] hs;
export I64 run() {
    hs[0] = box.alloc(2);
    hs[1] = box.alloc(3);
    box[hs[1]][2] = 7;
    return box[hs[1]][2] + len(hs) + box[hs[0]][2];
}
""",
    "views_params_and_loops": HPOOL + """I64 total(Handle(Body)[] hs) {
    I64 t = 0;
    for h in hs { t += bodies[h].mass; }
    return t;
}
void stock(inout Handle(Body)[] hs) {
    for i in 0..len(hs) { hs[i] = bodies.insert(Body(mass = i + 1, vel = 0)); }
}
export I64 run() {
    Handle(Body)[3] hs;
    stock(hs);
    return total(hs) + total(hs[1..3]);
}
""",
    "rank2_copy_and_stale": HPOOL + """export I64 run() {
    Handle(Body)[2, 2] g;
    g[1, 1] = bodies.insert(Body(mass = 9, vel = 0));
    Handle(Body)[2, 2] c = g;
    bodies.remove(c[1, 1]);
    return bodies[g[1, 1]].mass;
}
""",
    "struct_result_with_array_field": HPOOL + """struct L { Handle(Body)[2] to; }
L mk() { L l; l.to[1] = bodies.insert(Body(mass = 4, vel = 0)); return l; }
export I64 run() {
    L x = mk();
    return bodies[x.to[1]].mass;
}
""",
    "index_out_of_bounds": HPOOL + """export I64 run() {
    Handle(Body)[2] hs;
    I64 k = 2;
    return bodies[hs[k]].mass;
}
""",
    "run_time_extent": HPOOL + """export I64 run() {
    I64 n = 3;
    Handle(Body)[n] hs;
    hs[2] = bodies.insert(Body(mass = 4, vel = 0));
    return bodies[hs[2]].mass;
}
""",
}


@pytest.mark.parametrize("name", sorted(HANDLE_ARRAYS))
def test_array_of_handles_outcomes(tmp_path, name):
    """The same outcome text on both executors (compiler_testkit.both), the index fault's operation
    ``index.checked.handle`` included."""
    from compiler_testkit import both
    out = both(tmp_path, HANDLE_ARRAYS[name], name)
    if name == "index_out_of_bounds":
        assert "fault.operation index.checked.handle" in out
