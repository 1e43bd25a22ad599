"""Arenas, pools and handles on cpu-c17 (docs/language.md decision 24): the same outcome text as the reference
executor (compiler_testkit.both: status, fault record, fuel, stdout, result, module variables) and the same
canonical state bytes (arena and pool blocks, handle values), through cint.load.  The programs are our own."""
import hashlib
import shutil

import pytest

from cint_compiler.interp.canonical import canonical_state
from compiler_testkit import both, cpu_and_ref

pytestmark = [pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler"),
              pytest.mark.clause("SPEC-03P.1 M-3", "SPEC-03P.1 A-10")]

ARENA = "Arena(I64, 6) box;\n"
POOL = "struct Body { I64 mass; I64 vel; }\nPool(Body, 3) bodies;\n"

PROGRAMS = {
    "alloc_view_sum": ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(2);
    Handle(I64[]) b = box.alloc(3);
    box[a][0] = 4;
    box[b][2] = 9;
    inout I64[] v = box[b];
    v[1] = 1;
    v[0] += 3;
    return sum(box[a]) * 100 + sum(v);
}
""",
    "alloc_full": ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(5);
    Handle(I64[]) b = box.alloc(2);
    return 0;
}
""",
    "alloc_negative": ARENA + "export I64 run() {\n    Handle(I64[]) a = box.alloc(-3);\n    return 0;\n}\n",
    "zero_fill_after_reset": ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(4);
    box[a][3] = 8;
    box.reset();
    Handle(I64[]) b = box.alloc(4);
    return box[b][3];
}
""",
    "stale_generation": ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(2);
    box.reset();
    _ = box.alloc(0);
    return box[a][0];
}
""",
    "index_beyond_length": ARENA + """export I64 run() {
    Handle(I64[]) a = box.alloc(2);
    Handle(I64[]) b = box.alloc(2);
    return box[a][2];
}
""",
    "null_into_arena": ARENA + "export I64 run() {\n    Handle(I64[]) a;\n    return box[a][0];\n}\n",
    "other_arena": """Arena(I64, 4) one;
Arena(I64, 4) two;
export I64 run() {
    Handle(I64[]) a = two.alloc(1);
    return one[a][0];
}
""",
    "grandchild_retired": """Arena(I64, 10) root;
export I64 run() {
    Arena(I64) mid = root.child(6);
    Arena(I64) leaf = mid.child(3);
    Handle(I64[]) h = leaf.alloc(2);
    leaf[h][1] = 5;
    I64 seen = leaf[h][1];
    root.reset();
    return seen + leaf[h][0];
}
""",
    "retired_alloc": """Arena(I64, 10) root;
export I64 run() {
    Arena(I64) c = root.child(4);
    root.reset();
    Handle(I64[]) h = c.alloc(1);
    return 0;
}
""",
    "child_carved": """Arena(I64, 10) root;
export I64 run() {
    Handle(I64[]) a = root.alloc(2);
    Arena(I64) c = root.child(5);
    Handle(I64[]) h = c.alloc(5);
    c[h][4] = 3;
    c.reset();
    Handle(I64[]) k = c.alloc(5);
    Handle(I64[]) b = root.alloc(4);
    return 0;
}
""",
    "stale_view_after_callee_reset": ARENA + """void wipe() { box.reset(); }
export I64 run() {
    Handle(I64[]) a = box.alloc(3);
    inout I64[] v = box[a];
    v[0] = 1;
    wipe();
    return v[0];
}
""",
    "reduction_over_stale_view": ARENA + """void wipe() { box.reset(); }
export I64 run() {
    Handle(I64[]) a = box.alloc(3);
    in I64[] v = box[a];
    wipe();
    return sum(v);
}
""",
    "arena_parameters": ARENA + """Handle(I64[]) grab(inout Arena(I64) a, I64 n) {
    Handle(I64[]) h = a.alloc(n);
    a[h][0] = n;
    return h;
}
I64 peek(in Arena(I64) a, Handle(I64[]) h) { return a[h][0]; }
export I64 run() {
    Handle(I64[]) h = grab(box, 2);
    Arena(I64) c = box.child(3);
    Handle(I64[]) k = grab(c, 3);
    return peek(box, h) * 10 + peek(c, k);
}
""",
    "alloc_result": ARENA + """AllocError!I64 take(I64 n) {
    Handle(I64[]) h = try box.alloc_result(n);
    box[h][0] = n;
    return len(box[h]);
}
export I64 run() {
    I64 a = take(4) catch -1;
    I64 b = take(4) catch -1;
    I64 c = take(-1) catch -2;
    I64 d = take(2) catch -1;
    return a * 1000 + b * 100 + c * 10 + d;
}
""",
    "pool_ops": POOL + """export I64 run() {
    Handle(Body) a = bodies.insert(Body(mass = 3, vel = 1));
    Handle(Body) b = bodies.insert(Body(mass = 5, vel = 2));
    bodies[a].vel += 10;
    bodies[b].mass *= 2;
    bodies[b] = Body(mass = bodies[b].mass + 1, vel = 0);
    I64 r = bodies[a].mass * 100 + bodies[a].vel * 10 + bodies[b].mass;
    bodies.remove(a);
    Handle(Body) c = bodies.insert(Body(mass = 9, vel = 9));
    return r * 1000 + bodies[c].mass;
}
""",
    "pool_stale": POOL + """export I64 run() {
    Handle(Body) a = bodies.insert(Body(mass = 3, vel = 1));
    bodies.remove(a);
    Handle(Body) b = bodies.insert(Body(mass = 4, vel = 1));
    return bodies[a].mass;
}
""",
    "pool_remove_stale": POOL + """export I64 run() {
    Handle(Body) a = bodies.insert(Body(mass = 3, vel = 1));
    bodies.remove(a);
    bodies.remove(a);
    return 0;
}
""",
    "pool_full": POOL + """export I64 run() {
    for i in 0..4 { _ = bodies.insert(Body(mass = i, vel = 0)); }
    return 0;
}
""",
    "pool_zero": "Pool(I64, 0) none;\nexport I64 run() {\n    _ = none.insert(1);\n    return 0;\n}\n",
    "pool_null_and_other": """Pool(I64, 2) p;
Pool(I64, 2) q;
export I64 run() {
    Handle(I64) a = q.insert(1);
    Handle(I64) b = p.insert(2);
    return p[a];
}
""",
    "insert_result": POOL + """AllocError!I64 put(I64 i) {
    Handle(Body) h = try bodies.insert_result(Body(mass = i, vel = 0));
    return bodies[h].mass;
}
export I64 run() {
    I64 n = 0;
    for i in 0..5 {
        n += put(i) catch 100;
    }
    return n;
}
""",
    "handles_in_structs_and_globals": POOL + """struct Link { Handle(Body) to; I64 w; }
Handle(Body) last;
Link kept;
I64 total;
export I64 run() {
    last = bodies.insert(Body(mass = 6, vel = 0));
    kept = Link(to = last, w = 2);
    Link dup = kept;
    total = 1;
    return bodies[dup.to].mass * kept.w;
}
""",
    "struct_arena": """struct P { I64 x; Bool on; Handle(P) next; }
Arena(P, 4) ps;
export I64 run() {
    Handle(P[]) h = ps.alloc(2);
    ps[h][1].x = 7;
    ps[h][1].on = true;
    ps[h][0] = ps[h][1];
    return ps[h][0].x + (ps[h][0].on ? 1 : 0);
}
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_outcome_on_both_executors(tmp_path, name):
    both(tmp_path, PROGRAMS[name], name)


def test_script_with_pool(tmp_path):
    both(tmp_path, "Handle(I64) h = p.insert(5);\nI64 n = p[h] + 1;\n\"{n}\\n\";\nPool(I64, 2) p;\n", "scr",
         entry=None)


STATE_SRC = """struct Body { I64 mass; Handle(Body) next; }
Arena(I64, 8) scratch;
Pool(Body, 3) bodies;
Arena(Body, 2) rec;
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
    } else if (i == 1) {
        first = bodies.insert(Body(mass = v, next = first));
        Handle(Body) b = bodies.insert(Body(mass = v * 2, next = first));
        bodies.remove(b);
    } else if (i == 2) {
        Handle(Body[]) r = rec.alloc(1);
        rec[r][0] = Body(mass = v, next = first);
    } else {
        scratch.reset();
    }
    seen += 1;
    return seen;
}
"""


def test_state_bytes_equal_the_reference(tmp_path, monkeypatch):
    two = cpu_and_ref(tmp_path, monkeypatch, STATE_SRC, "ast")
    mod, ref, put, state = two.mod, two.ref, two.fn, two.state
    ctx = mod.context()
    assert state(ctx) == canonical_state(ref)
    for i, v in ((0, 5), (1, 4), (2, 9), (1, 3), (3, 0), (0, 2)):
        assert ctx.put(i, v) == ref.run_entry("func", put, [i, v]).value
        assert state(ctx) == canonical_state(ref)
    assert ctx.state_hash() == hashlib.sha256(canonical_state(ref)).digest()


def test_restore_of_container_state(tmp_path, monkeypatch):
    """A restore of a program with arenas and pools takes their blocks (test_backend_arenas_restore.py has
    the cross-executor cases and every refusal): the state comes back byte for byte."""
    two = cpu_and_ref(tmp_path, monkeypatch, STATE_SRC, "ars")
    ctx = two.mod.context()
    ctx.put(0, 5)
    saved = two.state(ctx)
    ctx.put(1, 4)
    ctx.put(3, 0)
    assert two.state(ctx) != saved
    assert two.restore(ctx, saved) == 0
    assert two.state(ctx) == saved


def test_array_of_handles_runs(tmp_path):
    out = both(tmp_path, POOL + "export I64 run() {\n    Handle(Body)[2] hs;\n    return 0;\n}\n", "arr")
    assert "outcome refused" not in out
