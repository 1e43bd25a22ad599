"""Canonical bytes of the reference executor: fault records equal cpu-c17's byte for byte; state hashes."""
import shutil

import pytest

from cint_compiler.interp.canonical import canonical_state, fault_bytes, state_hash
from cint_compiler.executors.cpu import run_entry as run_cpu
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry

PROGRAMS = [
    "export I64 run() {\n    I64 a = 9223372036854775807;\n    return a + 1;\n}\n",
    "I64 f(I64 n) { return f(n + 1); }\nexport I64 run() { return f(0); }\n",
    "kernel k[n](in I64[n] x, out I64[n] y) over [i: n] { y[i] = x[i] * x[i]; }\n"
    "export void run() { I64[3] a = [1, 4294967296, 3]; I64[3] b; k(a, b); }\n",
    "export I8 run() { I64 x = 300; return x as I8; }\n",
    "export I64 run() { I64[2] a; I64 i = 5; return a[i]; }\n",
]


def ref_run(src, depth=256):
    c = compile_source(src.encode(), "t.ci")
    ctx = Context(c.program, c.revision)
    kind, target = choose_entry(c, "run")
    return c, ctx, ctx.run_entry(kind, target, [], depth=depth)


@pytest.mark.clause("A-17", "SPEC-03P.1 4")
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("src", PROGRAMS)
def test_fault_record_bytes_equal_on_both_executors(src):
    c, ctx, o = ref_run(src, depth=16)
    assert o.kind == "fault"
    kind, target = choose_entry(c, "run")
    cpu = run_cpu(c, kind, target, [], depth=16)
    raw = dict(line.split(" ", 1) for line in cpu.raw.splitlines() if line.startswith("fault "))["fault"]
    assert fault_bytes(o.record) == bytes.fromhex(raw.strip())


@pytest.mark.clause("M-3", "M-5", "A-7a")
def test_state_hash_counts_entries_faults_and_effects():
    src = 'I64 tally = 0;\nexport I64 bump(I64 a) { tally += a; "t {tally}\\n"; return tally; }\n'
    c = compile_source(src.encode(), "counter.ci")
    info = c.program.functions["bump"]
    a, b = Context(c.program, c.revision), Context(c.program, c.revision)
    assert state_hash(a) == state_hash(b) and len(state_hash(a)) == 32
    assert canonical_state(a).startswith(b"\x14\x00\x00\x00cint-core-1/state/v1")
    a.run_entry("func", info, [2])
    b.run_entry("func", info, [1])
    b.run_entry("func", info, [1])
    assert a.globals == {k: 2 for k in a.globals} and b.globals == {k: 2 for k in b.globals}
    assert state_hash(a) != state_hash(b)       # same values, different entry counts and effects (M-1, M-3)
    before = state_hash(a)
    o = a.run_entry("func", info, [2 ** 63 - 1])
    assert o.kind == "fault" and state_hash(a) != before
    held = state_hash(a)
    a.clear_fault()
    assert state_hash(a) != held                # the fault record is part of the state (A-7a)
