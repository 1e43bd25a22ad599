"""Checkpoints of the cint package (SPEC-03P.1 8.1, 9.2): Context.checkpoint/restore/state_hash/entry_scope,
registrations after a restore (P-20, M-11a), Buffers that keep their elements, and a library built by
plain `cint build --lib`, which has no checkpoint functions."""
import hashlib
import subprocess
import sys

import pytest

import cint
from cint_abi.checkpoint import decode_checkpoint
from cint_abi.codes import RUNTIME_CONTRACT
from cint_abi.state import decode_state

SRC = """\
I64 tally = 0;
Bool flag = false;
U8 small = 7;

export I64 bump(I64 amount) {
    tally += amount;
    flag = !flag;
    "tally is {tally}\\n";
    return tally;
}

export I64 first[n](in I64[n] xs) {
    return xs[0] + tally;
}

export kernel ramp[n](in I64 base, out I64[n] ys) over [i: n] {
    ys[i] = base + i;
}
"""


@pytest.fixture(scope="module")
def env(source_env):
    base = source_env("ckpt", {"ck.ci": SRC})
    return base, base / "ck.ci"


@pytest.fixture(scope="module")
def mod(env):
    return cint.load(env[1])


def raw_state(ctx):
    return ctx._state_bytes("test")


@pytest.mark.clause("9.2", "H-19", "M-5")
def test_checkpoint_restore_and_hash(mod):
    ctx = mod.context()
    assert ctx.bump(5) == 5
    saved = ctx.checkpoint()
    cp = decode_checkpoint(saved)
    assert cp.contract == RUNTIME_CONTRACT and set(cp.digests) == {"library", "source-map"}
    assert [(n, v) for n, _, v in cp.state.globals] == [("ck.flag", True), ("ck.small", 7), ("ck.tally", 5)]
    assert cp.state.entries == 1 and cp.state.effects == 1
    h = ctx.state_hash()
    assert len(h) == 32 and h == hashlib.sha256(cp.state_bytes).digest()
    assert ctx.bump(1) == 6 and ctx.state_hash() != h
    ctx.restore(saved)
    assert ctx.state_hash() == h
    assert ctx.bump(10) == 15
    view = cint.read_checkpoint(saved)
    assert view.globals[2] == ("ck.tally", "I64", 5)


@pytest.mark.clause("H-19a")
def test_refused_restores_change_nothing(mod):
    ctx = mod.context()
    ctx.bump(3)
    saved = ctx.checkpoint()
    ctx.bump(4)
    before = ctx.state_hash()
    for bad in (saved[:-1], saved + b"\0", b"", saved[:40], bytearray(saved[:60]) + saved[61:]):
        with pytest.raises(cint.Refused, match="malformed checkpoint"):
            ctx.restore(bytes(bad))
        assert ctx.state_hash() == before
    other = saved.replace(b"cint-rt-3", b"cint-rt-4")
    with pytest.raises(cint.Refused, match="runtime contract 'cint-rt-4'"):
        ctx.restore(other)
    assert ctx.state_hash() == before
    with pytest.raises(TypeError):
        ctx.restore("text")


@pytest.mark.clause("8.1")
def test_entry_scope(mod):
    ctx = mod.context()
    ctx.bump(1)
    h = ctx.state_hash()
    with pytest.raises(cint.OverflowFault):
        with ctx.entry_scope():
            ctx.bump(2**62)
            ctx.bump(2**62)
    assert ctx.state_hash() == h and ctx.fault() is None
    with pytest.raises(KeyError):
        with ctx.entry_scope():
            ctx.bump(1)
            raise KeyError("other")
    assert ctx.state_hash() != h          # another exception restores nothing
    with ctx.entry_scope() as c:
        assert c is ctx
        ctx.bump(1)
    assert ctx.bump(0) == 3


@pytest.mark.clause("P-20", "M-11", "M-11a")
def test_registrations_after_a_restore(mod):
    import array
    ctx = mod.context()
    xs = array.array("q", [40, 1, 2])
    v = cint.borrow(xs)
    out = cint.empty(3, "I64")
    ctx.ramp(5, ys=out)
    assert ctx.first(v) == 40
    st = decode_state(raw_state(ctx))
    assert [(r.id, r.owner) for r in st.registry] == [(1, "runtime"), (2, "borrowed")]
    saved = ctx.checkpoint()
    ctx.restore(saved)
    st = decode_state(raw_state(ctx))
    assert st.registry == [] and st.next_buffer == 3          # every registration ended, counters kept
    assert out.tolist() == [5, 6, 7]                            # the Buffer kept its elements
    assert ctx.first(v) == 40                                  # the View registers again
    assert ctx.first(out) == 5
    st = decode_state(raw_state(ctx))
    assert [r.id for r in st.registry] == [3, 4]                # under new identifiers, never 1 or 2 again
    ctx.ramp(1, ys=out)
    assert out.tolist() == [1, 2, 3]
    v.release()
    out.release()
    assert decode_state(raw_state(ctx)).registry == []


@pytest.mark.clause("M-1")
def test_same_values_different_histories(mod):
    import array
    a, b = mod.context(), mod.context()
    a.bump(1)
    b.bump(1)
    assert a.state_hash() == b.state_hash()
    v = cint.borrow(array.array("q", [1]))
    b.first(v)
    v.release()
    assert a.state_hash() != b.state_hash()


@pytest.mark.clause("9.2")
def test_restore_with_a_live_export_is_busy(mod):
    np = pytest.importorskip("numpy")
    ctx = mod.context()
    out = cint.empty(2, "I64")
    ctx.ramp(1, ys=out)
    saved = ctx.checkpoint()
    arr = np.asarray(out)
    h = ctx.state_hash()
    with pytest.raises(cint.Busy):
        ctx.restore(saved)
    assert ctx.state_hash() == h
    del arr
    ctx.restore(saved)
    assert out.tolist() == [1, 2]


def test_plain_library_has_no_checkpoint_functions(env, tmp_path):
    base, src = env
    done = subprocess.run([sys.executable, "-m", "cint_compiler", "build", "--lib", "--out", str(tmp_path), str(src)],
                          capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    ctx = cint.load(tmp_path / "libck.so").context()
    for call in (ctx.checkpoint, ctx.state_hash, lambda: ctx.restore(b""), ctx.entry_scope().__enter__):
        with pytest.raises(NotImplementedError, match="--with-state"):
            call()
    assert ctx.bump(2) == 2
