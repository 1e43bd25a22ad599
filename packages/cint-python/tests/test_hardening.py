"""Hostile and careless use of the cint package (issue 11 items 4, 6, 7, 8, 10, 11, 13; the threads).

Each test names the clause it checks. The DLPack descriptor checks (item 5) are in
tests-conformance/test_py_dlpack.py, beside the fake DLPack producer they use.
"""
import gc
import subprocess
import sys
import threading

import pytest

import cint
from cint import _module
from cint_abi.checkpoint import decode_checkpoint, encode_checkpoint
from cint_abi.codes import RUNTIME_CONTRACT
from cint_abi.state import encode_state

np = pytest.importorskip("numpy")

SOURCE = """\
I64 ticks = 0;

export kernel square[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * x[i];
}

export I64 trues[n](in Bool[n] b) {
    I64 c = 0;
    for i in 0..n {
        if (b[i]) {
            c = c + 1;
        }
    }
    return c;
}

export I64 total[n](in I64[n] x) {
    I64 s = 0;
    for i in 0..n {
        s = s + x[i];
    }
    return s;
}

export I64 id(I64 x) { return x; }

export I64 tick(I64 k) {
    I64 s = 0;
    for i in 0..k {
        s = s + i % 3;
    }
    ticks += 1;
    return ticks + s - s;
}

export I64 both[n](in I64[n] a, in Bool[n] b) {
    return a[0];
}
"""


@pytest.fixture(scope="module")
def env(source_env):
    base = source_env("hardening", {"hard.ci": SOURCE})
    return base, base / "hard.ci"


@pytest.fixture(scope="module")
def mod(env):
    return cint.load(env[1])


def _snapshot(ctx):
    return ctx.state_hash(), ctx.checkpoint()


# --- item 4: a closed context -----------------------------------------------------------------------

CLOSED_CALLS = {
    "fault": lambda c, cp: c.fault(),
    "clear_fault": lambda c, cp: c.clear_fault(),
    "fuel_consumed": lambda c, cp: c.fuel_consumed(),
    "last_entry": lambda c, cp: c.last_entry(),
    "checkpoint": lambda c, cp: c.checkpoint(),
    "state_hash": lambda c, cp: c.state_hash(),
    "restore": lambda c, cp: c.restore(cp),
    "entry": lambda c, cp: c.entry("id"),
    "entry_scope": lambda c, cp: c.entry_scope().__enter__(),
}


@pytest.mark.clause("8.1", "A-11")
def test_every_method_of_a_closed_context_refuses(mod):
    ctx = mod.context()
    x = np.arange(3, dtype=np.int64)
    y = cint.empty(3, "I64")
    ctx.square(x, y=y)
    cp = ctx.checkpoint()
    export = ctx.id
    ctx.close()
    public = {n for n in dir(cint.Context) if not n.startswith("_")}
    assert public == set(CLOSED_CALLS) | {"close"}, "a public method of Context is not tested closed"
    for name, call in CLOSED_CALLS.items():
        with pytest.raises(cint.Refused, match="context is closed") as info:
            call(ctx, cp)
        assert info.value.code == "E_STALE_HANDLE", name
    for call in (lambda: export(3), lambda: ctx.id(3), lambda: ctx.square(x, y=y), lambda: ctx.total(x)):
        with pytest.raises(cint.Refused, match="context is closed"):
            call()
    ctx.close()                                     # closing again is nothing
    assert repr(ctx).endswith(", closed>")


# --- item 6: a refused call changes nothing ------------------------------------------------------------

def _bools(values):
    return np.array(values, dtype=np.uint8).view(np.bool_)


@pytest.mark.clause("H-12", "P-20", "P-3")
def test_a_refused_call_registers_nothing_and_leaves_the_state(mod):
    ctx = mod.context()
    x = np.arange(4, dtype=np.int64)
    ctx.square(x, y=cint.empty(4, "I64"))           # a state with registrations behind it
    bad = _bools([1, 2, 0, 1])
    y = cint.empty(4, "I64")
    exported = cint.copy([1, 2, 3, 4], elem="I64")
    ctx.square(x, y=exported)
    held = np.asarray(exported)                      # a live export: exported cannot be an output
    released = cint.borrow(x)
    released.release()
    ro = cint.borrow(np.zeros(4, dtype=np.int64))
    strided_ok = _bools([1, 2, 0, 2, 1, 2])[::2]     # the view reaches only 0 and 1: not refused
    cases = [
        ("bare Bool", lambda: ctx.trues(bad), cint.Refused, "CINT_REFUSAL_BOOL"),
        ("View Bool", lambda: ctx.trues(cint.borrow(bad)), cint.Refused, "CINT_REFUSAL_BOOL"),
        ("reversed View Bool", lambda: ctx.trues(cint.borrow(bad[::-1])), cint.Refused, "CINT_REFUSAL_BOOL"),
        ("Bool with another argument", lambda: ctx.both(x, bad), cint.Refused, "CINT_REFUSAL_BOOL"),
        ("read-only View out", lambda: ctx.square(x, y=ro), cint.Refused, None),
        ("fuel -2", lambda: ctx.square(x, y=y, fuel=-2), cint.Refused, None),
        ("fuel 2**63", lambda: ctx.total(x, fuel=2**63), cint.Refused, None),
        ("scalar range", lambda: ctx.id(2**63), cint.Refused, None),
        ("scalar kind", lambda: ctx.id(1.0), cint.Refused, None),
        ("list", lambda: ctx.total([1, 2]), cint.Refused, None),
        ("missing", lambda: ctx.square(x), cint.Refused, None),
        ("unknown keyword", lambda: ctx.total(x, z=1), cint.Refused, None),
        ("released View", lambda: ctx.total(released), cint.StaleHandle, None),
        ("exported output", lambda: ctx.square(x, y=exported), cint.Busy, None),
    ]
    for name, call, exc, reason in cases:
        for _ in range(2):                           # the C call path, and again once anything is cached
            before = _snapshot(ctx)
            with pytest.raises(exc) as info:
                call()
            if reason is not None:
                assert info.value.reason == reason, name
            assert _snapshot(ctx) == before, name
    assert ctx.trues(strided_ok) == 2
    del held
    ctx.close()


# --- item 7: identifiers never wrap ---------------------------------------------------------------------

def _with_counter(ctx, next_buffer):
    cp = decode_checkpoint(ctx.checkpoint(), ctx._module._structs())
    st = cp.state
    st.next_buffer = next_buffer
    return encode_checkpoint(encode_state(st), contract=RUNTIME_CONTRACT, digests=ctx._module._digests(),
                             structs=ctx._module._structs())


@pytest.mark.clause("M-11", "M-10")
def test_identifiers_do_not_wrap(mod):
    x = np.arange(3, dtype=np.int64)
    for top in (2**64 - 1, 2**64 - 2):
        ctx = mod.context()
        ctx.restore(_with_counter(ctx, top))          # M-11: the greater counter
        assert cint.read_checkpoint(ctx.checkpoint()).counters.next_buffer == top
        if top == 2**64 - 2:
            assert ctx.total(x) == 3                  # identifier 2**64 - 2, the last one issued
        before = _snapshot(ctx)
        for call in (lambda: ctx.total(x), lambda: ctx.total(cint.borrow(x)),
                     lambda: ctx.square(x, y=cint.empty(3, "I64"))):
            with pytest.raises(cint.ResourceError, match="exhausted"):
                call()
            assert _snapshot(ctx) == before
        assert cint.read_checkpoint(ctx.checkpoint()).counters.next_buffer == 2**64 - 1
        assert ctx.id(7) == 7                         # an entry without registrations still runs
        ctx.close()


# --- item 8: a Buffer keeps its storage when its context ends ------------------------------------------

@pytest.mark.clause("P-17", "6.2")
def test_a_buffer_keeps_its_elements_when_its_context_ends(mod):
    x = cint.copy([1, 2, 3], elem="I64")
    for how in ("close", "collect"):
        ctx = mod.context()
        b = cint.empty((3,), "I64")
        never = cint.empty((3,), "I64")
        ctx.square(x, y=b)
        ctx.total(never)                               # bound, never published
        if how == "close":
            ctx.close()
        else:
            del ctx
            gc.collect()
        assert b.tolist() == [1, 4, 9], how
        assert np.asarray(b).tolist() == [1, 4, 9]
        with pytest.raises(cint.Unpublished):
            never.tolist()
        other = mod.context()                          # the Buffers belong to no context any more
        assert other.total(b) == 14 and other.total(x) == 6
        other.square(b, y=never)
        assert never.tolist() == [1, 16, 81]
        other.close()
        assert b.tolist() == [1, 4, 9] and never.tolist() == [1, 16, 81]


# --- item 10: integers beyond 64 bits -----------------------------------------------------------------------

@pytest.mark.clause("8.1", "P-21")
def test_integer_arguments_are_range_checked_before_c(mod):
    for shape in ((2**64 + 4,), 2**64 + 4, (2**62, 4), (2**63,), (-1,), (True,)):
        with pytest.raises(cint.Refused):
            cint.empty(shape, "I64")
    assert cint.empty((2**60,), "U8").count == 2**60        # created at first use; fits an I64
    with pytest.raises(cint.Refused, match="beyond the I64"):
        cint.empty((2**61,), "I64")                          # 2**64 bytes
    for kw in ({"depth": 2**64 + 5}, {"depth": 2**64}, {"depth": -1}, {"depth": 2**63},
               {"frame_arena_elements": 2**64}, {"frame_arena_elements": 2**60}, {"fuel": 2**64 + 1},
               {"fuel": -2}, {"depth": 5.0}, {"depth": True}):
        with pytest.raises(cint.Refused):
            mod.context(**kw)
    mod.context(depth=2**63 - 1, fuel=2**63 - 1).close()
    ctx = mod.context(fuel=2**63 - 1)
    assert ctx.id(-2**63) == -2**63
    with pytest.raises(cint.Refused):
        ctx.id(2**64 - 2**63)
    with pytest.raises(cint.Refused):
        ctx.total(np.arange(3, dtype=np.int64), fuel=2**64 + 3)
    ctx.close()


# --- item 11: the small ones ------------------------------------------------------------------------------------

class Liar(int):
    def __index__(self):
        return 2**70

    def __int__(self):
        return 2**70 + 5


@pytest.mark.clause("P-3", "P-21", "P-22")
def test_small_hostile_inputs_get_the_documented_exceptions(mod, tmp_path):
    with pytest.raises(cint.Refused, match="byte 2") as info:
        cint.copy(_bools([1, 2]))                            # not True (P-3)
    assert info.value.code == "E_NARROW"
    assert cint.copy(_bools([1, 0])).tolist() == [True, False]
    ctx = mod.context()
    assert ctx.id(Liar(3)) == 3                              # the value, read once, checked and passed
    assert ctx.entry("id")._python(Liar(3)) == 3
    assert cint.copy([Liar(4)], elem="I64").tolist() == [4]
    assert ctx.total(np.arange(3, dtype=np.int64), fuel=Liar(100)) == 3
    with pytest.raises(cint.Refused, match="not a scalar"):
        ctx.id(np.array([5]))
    with pytest.raises(cint.Refused, match="export failed"):
        ctx.total(np.array(["2020-01-01"], dtype="datetime64[D]"))
    with pytest.raises(cint.Refused, match="export failed"):
        cint.borrow(np.array(["2020-01-01"], dtype="datetime64[D]"))
    deep = [1]
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(cint.Refused, match="more than 4 deep"):
        cint.copy(deep, elem="I64")
    with pytest.raises(cint.Refused, match="extent 0 is a list"):
        cint.empty(deep, "I64")
    with pytest.raises(cint.Refused, match="more than 4 deep"):
        cint.from_float([[[[[[1.0]]]]]], "I64")
    with pytest.raises(cint.Refused):
        ctx.total(deep)
    ctx.close()
    # a call on a context whose Recorder has closed says so, and runs nothing
    rec = cint.Recorder(tmp_path / "r.rec")
    rctx = mod.context(record=rec)
    assert rctx.id(1) == 1
    rec.close()
    before = rctx.state_hash()
    with pytest.raises(cint.Refused, match="Recorder of this context is closed"):
        rctx.id(2)
    assert rctx.state_hash() == before
    rctx.close()


@pytest.mark.clause("8.1")
def test_build_out_naming_a_file_is_an_error_with_a_message(env, tmp_path):
    f = tmp_path / "taken"
    f.write_text("x")
    for out in (f, f / "below"):
        done = subprocess.run([sys.executable, "-m", "cint_compiler.cli", "build", "--lib", str(env[1]), "--out",
                               str(out)], capture_output=True, text=True)
        assert done.returncode == 2, done.stderr
        assert "internal error" not in done.stderr and "--out" in done.stderr
    assert f.read_text() == "x"


# --- item 13: another element type or rank is an entry fault -----------------------------------------

def _ref_fault(env, name, arr, elem):
    """The fault record bytes of the reference executor for name(arr), arr a host array of elem."""
    from cint_compiler.driver import compile_file
    from cint_compiler.interp import canonical
    from cint_compiler.interp.context import Context
    from cint_compiler.semantics.types import IntType
    from cint_compiler.semantics.values import ArrayValue
    c = compile_file(env[1])
    ctx = Context(c.program, c.revision)
    flat = iter(arr.reshape(-1).tolist())
    bits = int(elem[1:])
    value = ArrayValue.new(IntType(True, bits), arr.shape, lambda: next(flat))
    o = ctx.run_entry("func", c.program.functions[name], [value])
    assert o.kind == "fault"
    return canonical.fault_bytes(o.record)


def _same_record(cpu, ref):
    from cint_abi.faultrecord import decode_fault_record
    assert decode_fault_record(cpu) == decode_fault_record(ref)
    assert cpu == ref


@pytest.mark.clause("H-12", "7.1", "P-4")
def test_another_element_type_or_rank_is_the_entry_fault_bind_type(mod, env):
    ctx = mod.context()
    a32 = np.arange(3, dtype=np.int32)
    with pytest.raises(cint.UnsupportedFault, match=r"a.astype\('<i8'\)") as info:
        ctx.total(a32)
    f = info.value
    assert (f.code, f.operation, f.operands) == ("E_UNSUPPORTED", "bind.type", (0,))
    _same_record(f.record, _ref_fault(env, "total", a32, "I32"))
    with pytest.raises(cint.Faulted) as held:
        ctx.total(np.arange(3, dtype=np.int64))
    assert held.value.nothing_ran
    ctx.clear_fault()
    a2 = np.zeros((2, 2), dtype=np.int64)
    with pytest.raises(cint.ShapeFault) as info:
        ctx.total(cint.borrow(a2))
    f = info.value
    assert (f.operation, f.operands, f.limit) == ("bind.type", (0, 2), 1)
    _same_record(f.record, _ref_fault(env, "total", a2, "I64"))
    ctx.clear_fault()
    # a kernel's entry fault is an entry: it is counted, and its record carries the kernel address with phase
    # entry and the dispatch number (0, the entry's first); a refused call counts nothing
    y = cint.empty(3, "I64")
    for _ in range(2):
        before = cint.read_checkpoint(ctx.checkpoint()).counters.entries
        with pytest.raises(cint.UnsupportedFault) as info:
            ctx.square(a32, y=y)
        f = info.value
        assert (f.operation, f.kernel, f.dispatch, f.phase) == ("bind.type", "hard.square", 0, "entry")
        assert cint.read_checkpoint(ctx.checkpoint()).counters.entries == before + 1
        ctx.clear_fault()
    ctx.square(np.arange(3, dtype=np.int64), y=y)
    assert y.tolist() == [0, 1, 4]
    ctx.close()


# --- threads ----------------------------------------------------------------------------------------------------------

@pytest.mark.clause("P-16", "A-11", "SPEC-09P.1 RT-15")
def test_one_context_from_four_threads_busy_changes_nothing(mod):
    ctx = mod.context(fuel=None)
    x = np.arange(64, dtype=np.int64)
    done = [[0, 0, 0] for _ in range(4)]       # ticks, totals, checkpoints completed per thread
    busy = [0] * 4
    errors = []
    start = threading.Barrier(4)

    def work(k):
        try:
            start.wait()
            for j in range(150):
                try:
                    if j % 3 == 0:
                        ctx.tick(2000)
                    elif j % 3 == 1:
                        assert ctx.total(x) == 2016
                    else:
                        ctx.checkpoint()
                    done[k][j % 3] += 1
                except cint.Busy:
                    busy[k] += 1
        except BaseException as ex:         # noqa: BLE001  (reported below)
            errors.append(ex)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    ticks, totals, checkpoints = (sum(d[i] for d in done) for i in range(3))
    assert ticks + totals + checkpoints + sum(busy) == 600
    # every completed tick counted once and no Busy call changed anything: the state is that of the completed
    # entries made one after another on a fresh context
    assert ctx.tick(0) == ticks + 1
    solo = mod.context(fuel=None)
    for _ in range(ticks + 1):
        solo.tick(0)
    for _ in range(totals):
        solo.total(x)
    assert ctx.state_hash() == solo.state_hash()
    assert cint.read_checkpoint(ctx.checkpoint()).counters.entries == ticks + totals + 1
    ctx.close()
    solo.close()


@pytest.mark.clause("P-16", "A-11")
def test_four_contexts_from_four_threads_run_independently(mod):
    ctxs = [mod.context(fuel=None) for _ in range(4)]
    results = [None] * 4
    errors = []

    def work(k):
        try:
            c = ctxs[k]
            x = np.arange(k * 100, k * 100 + 50, dtype=np.int64)
            y = cint.empty(50, "I64")
            for _ in range(50):
                c.tick(500)
                c.square(x, y=y)
                assert c.total(x) == int(x.sum())
            results[k] = (c.tick(0), y.tolist())
        except BaseException as ex:         # noqa: BLE001
            errors.append(ex)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(4):
        x = list(range(k * 100, k * 100 + 50))
        assert results[k] == (51, [v * v for v in x])
    for c in ctxs:
        c.close()


ARENAS = """\
Arena(I64, 10) root;

export I64 carve() {
    Arena(I64) mid = root.child(4);
    return 1;
}
"""


@pytest.mark.clause("M-11", "H-12")
def test_arena_identifiers_do_not_wrap_on_either_executor(env):
    """A child arena made when the next arena identifier is 2**64 - 1 faults E_UNSUPPORTED host.resource with
    the same record on cpu-c17 (status CINT_RESOURCE) and on the reference interpreter; no counter wraps."""
    from cint_compiler.driver import compile_file
    from cint_replay.refexec import RefExecutor
    src = env[0] / "arenas.ci"
    src.write_text(ARENAS)
    m = cint.load(src)
    ctx = m.context()
    assert ctx.carve() == 1
    cp = decode_checkpoint(ctx.checkpoint(), m._structs())
    st = cp.state
    st.next_arena = 2**64 - 1
    data = encode_checkpoint(encode_state(st), contract=RUNTIME_CONTRACT, digests=m._digests(), structs=m._structs())
    ctx.restore(data)
    with pytest.raises(cint.ResourceError):
        ctx.carve()
    cpu = ctx.fault()
    assert (cpu.code, cpu.operation) == ("E_UNSUPPORTED", "host.resource")
    ref = RefExecutor(compile_file(src))
    ref.restore(data)
    out = ref.call("carve", [], None)
    assert out.fault == cpu.record
    for c in (cint.read_checkpoint(ctx.checkpoint()), cint.read_checkpoint(ref.checkpoint())):
        assert c.counters.next_arena == 2**64 - 1
    ctx.close()
