"""Arenas, pools and handles on the reference executor (docs/notes/arenas-pools.md, docs/language.md
decision 24): every operation, fault record and compile error, state bytes, checkpoint and restore, and
what cpu-c17 builds.  The programs are our own."""
import pytest

from cint_abi.arenas_pools import ArenaState, PoolState, arena_block
from cint_abi.encoding import DecodeError, u64
from cint_abi.state import decode_state, encode_state
from cint_compiler.interp import canonical
from cint_compiler.interp.containers import NULL_HANDLE, HandleValue
from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry
from cint_compiler.semantics.types import I64, U8, U32, U64

pytestmark = pytest.mark.clause("SPEC-03P.1 M-3", "SPEC-03P.1 H-19a", "SPEC-03P.1 A-10")


def compiled(src):
    return compile_source(src.encode("utf-8"), "t.ci")


_COMPILED = {}


def run(src, entry="run", args=(), fuel=None, ctx=None):
    c = _COMPILED.get(src) or _COMPILED.setdefault(src, compiled(src))
    ctx = ctx or Context(c.program, c.revision)
    kind, target = choose_entry(c, entry)
    return ctx.run_entry(kind, target, list(args), fuel=fuel), ctx


def value(src, entry="run"):
    o, _ = run(src, entry)
    assert o.kind == "value", (o.kind, o.record)
    return o.value


def fault(src, entry="run"):
    o, _ = run(src, entry)
    assert o.kind == "fault", (o.kind, o.value)
    return o.record, o


def cerr(src):
    with pytest.raises(CompileError) as ei:
        compiled(src)
    e = ei.value
    return e.code, (e.span.line, e.span.column)


def stale(rec):
    """(operation, handle tuple, current generation, reason, (line, column))."""
    ops = [v for _, v in rec.operands]
    assert [t for t, _ in rec.operands] == [U64, I64, U64, U32, U8, U64, U8]
    assert rec.code == "E_STALE_HANDLE" and rec.exact is None and rec.limit is None
    return rec.operation, tuple(ops[:5]), ops[5], ops[6], (rec.position.line, rec.position.column)


# ----------------------------------------------------------------------------- arenas

ARENA = """Arena(I64, 6) box;
"""


def test_alloc_view_and_fuel_unchanged():
    src = ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(2);
    Handle(I64[]) b = box.alloc(3);
    box[a][0] = 4;
    box[b][2] = 9;
    inout I64[] v = box[b];
    v[1] = 1;
    return sum(box[a]) * 100 + sum(v);
}
"""
    o, ctx = run(src)
    assert o.kind == "value" and o.value == 410
    assert o.fuel == 1 + 2          # the entry and two reductions: no operation of an arena charges fuel
    assert ctx.mem.arenas[1].used == 5


def test_alloc_full_and_negative_records():
    rec, o = fault(ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(5);
    Handle(I64[]) b = box.alloc(2);
    return 0;
}
""")
    assert (rec.code, rec.operation) == ("E_BOUNDS", "arena.alloc")
    assert rec.operands == [(I64, 2), (I64, 5), (I64, 6)] and rec.exact is None and rec.limit is None
    assert (rec.position.line, rec.position.column) == (4, 27)
    assert o.fuel == 1
    rec, _ = fault(ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(-3);
    return 0;
}
""")
    assert rec.operands == [(I64, -3), (I64, 0), (I64, 6)]


def test_zero_fill_after_reset_and_stale_generation():
    src = ARENA + """I64 again() {
    Handle(I64[]) a = box.alloc(4);
    box[a][3] = 8;
    box.reset();
    Handle(I64[]) b = box.alloc(4);
    return box[b][3];
}
export I64 run() {
    Handle(I64[]) a = box.alloc(2);
    box.reset();
    _ = box.alloc(0);
    return box[a][0];
}
"""
    assert value(src, "again") == 0
    rec, _ = fault(src)
    assert stale(rec) == ("handle.check", (0, 2, 0, 1, 1), 1, 3, (13, 15))


def test_index_beyond_handle_length():
    rec, _ = fault(ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(2);
    Handle(I64[]) b = box.alloc(2);
    return box[a][2];
}
""")
    assert (rec.code, rec.operation) == ("E_BOUNDS", "index.checked.i64")
    assert rec.operands == [(I64, 2)] and rec.limit == (I64, 2)
    assert (rec.position.line, rec.position.column) == (5, 18)


def test_null_handle_into_arena():
    rec, _ = fault(ARENA + """export I64 run() {
    Handle(I64[]) a;
    return box[a][0];
}
""")
    assert stale(rec) == ("handle.check", (0, 0, 0, 0, 0), 0, 1, (4, 15))


def test_handle_of_another_arena():
    rec, _ = fault("""Arena(I64, 4) one;
Arena(I64, 4) two;
export I64 run() {
    Handle(I64[]) a = two.alloc(1);
    return one[a][0];
}
""")
    assert stale(rec) == ("handle.check", (0, 1, 0, 2, 1), 0, 6, (5, 15))


def test_child_and_grandchild_retired_and_ids():
    src = """Arena(I64, 10) root;
Arena(I64, 2) other;
export I64 run() {
    Arena(I64) mid = root.child(6);
    Arena(I64) leaf = mid.child(3);
    Handle(I64[]) t = leaf.alloc(2);
    leaf[t][1] = 5;
    I64 seen = leaf[t][1];
    root.reset();
    return seen + leaf[t][0];
}
"""
    rec, o = fault(src)
    # module arenas are 1 and 2; the children take the next arena ids, 3 and 4
    assert stale(rec) == ("handle.check", (0, 2, 0, 4, 1), 0, 2, (10, 23))
    _, ctx = run(src)
    mem = ctx.mem
    assert mem.next_arena == 5 and mem.arenas[3].retired and mem.arenas[4].retired
    assert not mem.arenas[1].retired and mem.arenas[1].generation == 1


def test_child_carved_from_parent_and_retired_alloc():
    rec, _ = fault("""Arena(I64, 8) root;
export I64 run() {
    Arena(I64) part = root.child(5);
    _ = root.alloc(4);
    return 0;
}
""")
    assert rec.operation == "arena.alloc" and rec.operands == [(I64, 4), (I64, 5), (I64, 8)]
    assert (rec.position.line, rec.position.column) == (4, 14)
    rec, _ = fault("""Arena(I64, 8) root;
export I64 run() {
    Arena(I64) part = root.child(5);
    part.reset();
    root.reset();
    _ = part.alloc(1);
    return 0;
}
""")
    assert stale(rec) == ("arena.alloc", (0, 5, 1, 2, 1), 1, 2, (6, 14))


def test_child_reset_frees_only_its_own_count():
    assert value("""Arena(I64, 8) root;
export I64 run() {
    Arena(I64) part = root.child(4);
    _ = part.alloc(4);
    part.reset();
    Handle(I64[]) h = part.alloc(3);
    Handle(I64[]) r = root.alloc(4);
    part[h][2] = 7;
    root[r][0] = 1;
    return part[h][2] * 10 + root[r][0];
}
""") == 71


def test_stale_view_after_callee_reset():
    rec, o = fault(ARENA + """void wipe() { box.reset(); }
I64 first(in Handle(I64[]) h) {
    in I64[] v = box[h];
    wipe();
    return v[0];
}
export I64 run() {
    Handle(I64[]) h = box.alloc(2);
    return first(h);
}
""")
    assert stale(rec) == ("handle.check", (0, 2, 0, 1, 1), 1, 3, (6, 13))
    assert len(rec.stack) == 1 and o.fuel == 3


def test_reduction_over_stale_view_faults_at_its_name():
    rec, _ = fault(ARENA + """void wipe() { box.reset(); }
I64 total(in Handle(I64[]) h) {
    inout I64[] v = box[h];
    wipe();
    return sum(v);
}
export I64 run() { return total(box.alloc(3)); }
""")
    assert stale(rec) == ("handle.check", (0, 3, 0, 1, 1), 1, 3, (6, 12))


def test_arena_parameters_and_handle_results():
    assert value(ARENA + """Handle(I64[]) load(inout Arena(I64) a, I64 n) {
    Handle(I64[]) h = a.alloc(n);
    for i in 0..n { a[h][i] = i * 2; }
    return h;
}
I64 peek(in Arena(I64) a, Handle(I64[]) h) { return a[h][1]; }
export I64 run() {
    Handle(I64[]) h = load(box, 3);
    return peek(box, h) + sum(box[h]);
}
""") == 8


def test_alloc_result_catch_and_try():
    src = ARENA + """AllocError!I64 take(I64 n) {
    Handle(I64[]) h = try box.alloc_result(n);
    return n;
}
export I64 run() {
    I64 a = take(4) catch -1;
    I64 b = take(4) catch -1;
    I64 c = take(-1) catch -2;
    I64 d = take(2) catch -1;
    return a * 1000 + b * 100 + c * 10 + d;
}
"""
    assert value(src) == 4000 - 100 - 20 + 2


# ----------------------------------------------------------------------------- pools

POOL = """struct Body { I64 mass; I64 vel; }
Pool(Body, 3) bodies;
"""


def test_insert_deref_assign_remove_and_fuel():
    o, ctx = run(POOL + """export I64 run() {
    Handle(Body) a = bodies.insert(Body(mass = 2, vel = 1));
    Handle(Body) b = bodies.insert(Body(mass = 7, vel = 0));
    bodies[a].mass += 5;
    bodies[b] = Body(mass = 1, vel = 3);
    bodies[b].vel *= 2;
    bodies.remove(a);
    return bodies[b].mass * 100 + bodies[b].vel;
}
""")
    assert o.value == 106 and o.fuel == 1
    p = ctx.mem.pools[1]
    assert p.free == [0] and p.slots[0].generation == 1 and not p.slots[0].occupied


def test_lifo_reuse_and_stale_generation():
    rec, _ = fault("""Pool(I64, 4) p;
export I64 run() {
    Handle(I64) a = p.insert(1);
    Handle(I64) b = p.insert(2);
    Handle(I64) c = p.insert(3);
    p.remove(a);
    p.remove(c);
    Handle(I64) d = p.insert(4);
    Handle(I64) e = p.insert(5);
    I64 x = p[d] * 10 + p[e];
    return x + p[c];
}
""")
    # c's slot 2 was freed last, so d took it (generation 1); e took slot 0
    assert stale(rec) == ("pool.deref", (2, 1, 0, 1, 2), 1, 3, (11, 17))


def test_pool_full_and_zero_capacity():
    rec, _ = fault("""Pool(I64, 1) p;
export I64 run() {
    _ = p.insert(1);
    _ = p.insert(2);
    return 0;
}
""")
    assert (rec.code, rec.operation) == ("E_BOUNDS", "pool.insert")
    assert rec.operands == [(I64, 1), (I64, 0), (I64, 1)] and (rec.position.line, rec.position.column) == (4, 11)
    rec, _ = fault("""Pool(I64, 0) p;
export I64 run() {
    _ = p.insert(1);
    return 0;
}
""")
    assert rec.operands == [(I64, 0), (I64, 0), (I64, 0)]


def test_pool_null_other_container_and_remove_stale():
    rec, _ = fault("""Pool(I64, 2) p;
export I64 run() {
    Handle(I64) h;
    return p[h];
}
""")
    assert stale(rec) == ("pool.deref", (0, 0, 0, 0, 0), 0, 1, (4, 13))
    rec, _ = fault("""Pool(I64, 2) p;
Pool(I64, 2) q;
export I64 run() {
    Handle(I64) a = p.insert(1);
    Handle(I64) b = q.insert(2);
    return p[b];
}
""")
    assert stale(rec) == ("pool.deref", (0, 1, 0, 2, 2), 0, 6, (6, 13))
    rec, _ = fault("""Pool(I64, 2) p;
export I64 run() {
    Handle(I64) a = p.insert(1);
    p.remove(a);
    p.remove(a);
    return 0;
}
""")
    assert stale(rec) == ("pool.deref", (0, 1, 0, 1, 2), 1, 3, (5, 7))


def test_insert_result_catch_block_and_main_error():
    assert value("""Pool(I64, 1) p;
export I64 run() {
    Handle(I64) a = p.insert_result(3) catch (e) { return -1; };
    Handle(I64) b = p.insert_result(4) catch (e) { return p[a] * 10; };
    return 0;
}
""") == 30
    o, _ = run("""Pool(I64, 1) p;
AllocError!void main() {
    Handle(I64) a = try p.insert_result(1);
    "a\\n";
    Handle(I64) b = try p.insert_result(2);
    "b\\n";
}
""", entry=None)
    assert o.kind == "error" and o.stdout == b"a\n"
    es, ev = o.error
    assert es.name() == "AllocError" and ev.name == "full" and es.tag_of((ev.set, ev.name)) == 1


def test_handles_in_structs_and_module_variables():
    src = POOL + """struct Link { Handle(Body) to; I64 w; }
Handle(Body) last;
Link kept;
export I64 run() {
    last = bodies.insert(Body(mass = 6, vel = 0));
    kept = Link(to = last, w = 2);
    Link dup = kept;
    return bodies[dup.to].mass * kept.w;
}
export I64 after() { return bodies[last].mass + bodies[kept.to].vel; }
export I64 fresh() { Link z; return bodies[z.to].mass; }
"""
    o, ctx = run(src)
    assert o.value == 12
    o2, _ = run(src, "after", ctx=ctx)
    assert o2.value == 6
    rec, _ = fault(src.replace("export I64 run()", "I64 unused()").replace("export I64 fresh", "export I64 run"))
    assert stale(rec)[3] == 1


def test_script_with_container_declared_last():
    o, ctx = run("""I64 n = p.insert(5);
"{n}\\n";
Pool(I64, 2) p;
""".replace("I64 n = p.insert(5);", "Handle(I64) h = p.insert(5);\nI64 n = p[h] + 1;"), entry=None)
    assert o.kind == "value" and o.stdout == b"6\n"


# ----------------------------------------------------------------------------- compile errors

@pytest.mark.parametrize("src,code,pos", [
    ("export I64 run() {\n    Pool(I64, 2) p;\n    return 0;\n}\n", "C4012", (2, 5)),
    ("I64 n = 3;\nArena(I64, n + 1) a;\nexport I64 run() { return 0; }\n", "C6004", (2, 12)),
    ("const I64 N = 3;\nArena(I64, N - 5) a;\nexport I64 run() { return 0; }\n", "C6006", (2, 12)),
    ("struct S { I64 x; Pool(I64) p; }\nexport I64 run() { return 0; }\n", "C2051", (1, 19)),
    ("Arena(I64, 4) a;\nexport I64 run() {\n    Arena(I64) c = a.child(1);\n    c = a.child(1);\n"
     "    return 0;\n}\n", "C2058", (4, 5)),
    ("Arena(I64, 4) a;\nvoid f(in Arena(I64) x, Handle(I64[]) h) {\n    x[h][0] = 1;\n}\n"
     "export I64 run() { return 0; }\n", "C2060", (3, 5)),
    ("Arena(I64, 4) a;\nvoid f(in Arena(I64) x) {\n    x.reset();\n}\nexport I64 run() { return 0; }\n",
     "C2067", (3, 5)),
    ("Pool(I64, 4) p;\nvoid f(in Pool(I64) x) {\n    _ = x.insert(1);\n}\nexport I64 run() { return 0; }\n",
     "C2067", (3, 9)),
    ("Arena(I64, 4) a;\nexport I64 run() {\n    Arena(I64) c;\n    return 0;\n}\n", "C2050", (3, 16)),
    ("Pool(I64, 4) p;\nArena(I64, 4) a;\nexport I64 run() {\n    Handle(I64[]) h = a.alloc(1);\n"
     "    return p[h];\n}\n", "C2001", (5, 14)),
    ("Pool(I64, 4) p;\nexport Bool run() {\n    Handle(I64) h = p.insert(1);\n    return h != h;\n}\n",
     "C2103", (4, 12)),
    ("Arena(I64, 4) a;\nexport I64 run() {\n    Handle(I64[]) h = a.alloc(1);\n    in I64[] v = a[h];\n"
     "    a.reset();\n    return v[0];\n}\n", "C5011", (5, 7)),
])
def test_compile_errors(src, code, pos):
    assert cerr(src) == (code, pos)


def test_kernel_refuses_memory():
    code, _ = cerr("""Pool(I64, 4) p;
kernel k[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] + p[p.insert(1)];
}
""")
    assert code == "C5025"
    code, _ = cerr("""kernel k[n](in Handle(I64)[n] x, out I64[n] y) over [i: n] {
    y[i] = 0;
}
""")
    assert code == "C9102"


def test_cpu_c17_builds_arrays_of_handles():
    # cpu-c17 runs arenas, pools and handles, arrays of handles too (test_backend_arenas.py,
    # test_backend_arenas_restore.py)
    from cint_compiler.backend.c17.emit import emit
    c = compiled("""struct S { I64 x; }
Handle(S)[2] h;
Pool(S, 2) p;
export I64 run() { return 0; }
""")
    assert "cint_gen_pool_insert" in emit(c) or "CONTAINERS" in emit(c)


# ----------------------------------------------------------------------------- canonical state

STATE_SRC = """struct Body { I64 mass; Handle(Body) next; }
Arena(I64, 8) scratch;
Pool(Body, 3) bodies;
Handle(I64[]) keep;
Handle(Body) first;
export I64 setup() {
    keep = scratch.alloc(3);
    scratch[keep][1] = 7;
    Arena(I64) part = scratch.child(4);
    Handle(I64[]) t = part.alloc(2);
    part[t][0] = 5;
    first = bodies.insert(Body(mass = 4, next = first));
    Handle(Body) b = bodies.insert(Body(mass = 6, next = first));
    bodies.remove(b);
    return scratch[keep][1];
}
export I64 read() {
    return scratch[keep][1] * 10 + bodies[first].mass;
}
"""


def test_state_bytes_hold_the_blocks():
    o, ctx = run(STATE_SRC, "setup")
    data = canonical.canonical_state(ctx)
    assert b"cint-core-1/arenas/v1" in data and b"cint-core-1/pools/v1" in data
    st = decode_state(data, canonical.struct_layouts(ctx.p))
    assert st.next_arena == 3 and st.next_pool == 2
    assert [(a.id, a.name, a.parent, a.offset, a.used) for a in st.arenas] == [(1, "t.scratch", None, 0, 7),
                                                                              (2, None, 1, 3, 2)]
    assert st.arenas[0].contents == [0, 7, 0, 5, 0, 0, 0]
    p = st.pools[0]
    assert p.free == [1] and p.slots[1][:2] == (1, False) and p.slots[0][2] == [4, (0, 0, 0, 0, 0)]
    assert dict((n, v) for n, _, v in st.globals)["t.keep"] == (0, 3, 0, 1, 1)
    assert encode_state(st) == data


def test_program_without_containers_has_empty_blocks():
    _, ctx = run("export I64 run() { return 1; }\n")
    st = decode_state(canonical.canonical_state(ctx))
    assert st.arenas == [] and st.pools == [] and st.next_arena == 1 and st.next_pool == 1


def _refexec(src):
    from cint_replay.refexec import RefExecutor
    return RefExecutor(compiled(src))


def test_checkpoint_restore_round_trip():
    ex = _refexec(STATE_SRC)
    ex.call("setup", [], None)
    cp = ex.checkpoint()
    ex2 = _refexec(STATE_SRC)
    ex2.restore(cp)
    assert ex2.state_bytes() == ex.state_bytes()
    o = ex2.call("read", [], None)
    assert o.result == ex.call("read", [], None).result
    # the restored context keeps allocating after the restored used count and ids
    assert ex2.ctx.mem.arenas[1].used == 7 and ex2.ctx.mem.next_arena == 3


def _state_with(ctx, arenas=None, pools=None, next_arena=None, next_pool=None):
    data = canonical.canonical_state(ctx)
    st = decode_state(data, canonical.struct_layouts(ctx.p))
    if arenas is not None:
        st.arenas = arenas
    if pools is not None:
        st.pools = pools
    if next_arena is not None:
        st.next_arena = next_arena
    if next_pool is not None:
        st.next_pool = next_pool
    return encode_state(st)


def _malformed_cases(ctx):
    a1 = ArenaState(1, "t.scratch", None, 0, ("int", True, 64), 8, 3, 0, False, [0, 0, 0])
    child = ArenaState(2, None, 1, 2, ("int", True, 64), 4, 0, 0, False)
    pool = lambda **kw: PoolState(**{**dict(id=1, name="t.bodies", elem=("int", True, 64), capacity=3, retired=0,
                                            slots=[(0, True, 5), (1, False, None)], free=[1]), **kw})
    gen_big = (1 << 63)
    return {
        "H-19a used above capacity": dict(arenas=[ArenaState(1, "t.scratch", None, 0, ("int", True, 64), 2, 3, 0,
                                                             False, [0, 0, 0])]),
        "H-19a child arena outside its parent's used region": dict(arenas=[a1, child], next_arena=3),
        "H-19a slot index not below the capacity": dict(pools=[pool(capacity=1)]),
        "H-19a free list entry duplicated": dict(pools=[pool(slots=[(1, False, None), (1, False, None)],
                                                             free=[1, 1])]),
        "H-19a free list names an occupied slot": dict(pools=[pool(free=[0], slots=[(0, True, 5), (0, True, 6)])]),
        "H-19a generation out of range": dict(arenas=[ArenaState(1, "t.scratch", None, 0, ("int", True, 64), 8, 0,
                                                                 gen_big, False, [])]),
        "H-19a identifier counter not above every identifier": dict(arenas=[a1], next_arena=1),
        "H-19a retired count not the vacant slots off the free list": dict(pools=[pool(free=[])]),
    }


POOL_I64_SRC = """Arena(I64, 8) scratch;
Pool(I64, 3) bodies;
export I64 run() { return 0; }
"""


@pytest.mark.parametrize("rule", sorted(_malformed_cases(None)))
def test_restore_refuses_malformed_blocks(rule):
    from cint_replay.refexec import RestoreRefused
    ex = _refexec(POOL_I64_SRC)
    ex.call("run", [], None)
    before = ex.state_bytes()
    bad = _state_with(ex.ctx, **_malformed_cases(ex.ctx)[rule])
    with pytest.raises(DecodeError) as ei:
        decode_state(bad)
    assert ei.value.rule == rule
    from cint_abi.checkpoint import encode_checkpoint
    from cint_abi.codes import RUNTIME_CONTRACT
    envelope = encode_checkpoint(before, contract=RUNTIME_CONTRACT, digests=ex.digests)
    # splice the malformed state into a well-formed envelope (encode_checkpoint itself refuses it)
    k = envelope.index(before)
    cp = envelope[:k - 8] + u64(len(bad)) + bad
    with pytest.raises(RestoreRefused):
        ex.restore(cp)
    assert ex.state_bytes() == before


def test_restore_refuses_trailing_bytes_in_a_block():
    ex = _refexec(POOL_I64_SRC)
    data = ex.state_bytes()
    st = decode_state(data)
    ab = arena_block(st.arenas)
    k = data.index(ab)
    bad = data[:k - 8] + u64(len(ab) + 1) + ab + b"\x00" + data[k + len(ab):]
    with pytest.raises(DecodeError) as ei:
        decode_state(bad)
    assert ei.value.rule == "IM-148 trailing bytes"


def test_restore_refuses_blocks_of_another_program():
    from cint_replay.refexec import RestoreRefused
    ex = _refexec(POOL_I64_SRC)
    before = ex.state_bytes()
    st = decode_state(before)
    st.pools[0].name = "t.other"
    from cint_abi.checkpoint import encode_checkpoint
    from cint_abi.codes import RUNTIME_CONTRACT
    cp = encode_checkpoint(encode_state(st), contract=RUNTIME_CONTRACT, digests=ex.digests)
    with pytest.raises(RestoreRefused):
        ex.restore(cp)
    assert ex.state_bytes() == before


def test_handle_value_zero_is_null():
    assert NULL_HANDLE == HandleValue(0, 0, 0, 0, 0)
