"""Checkpoints from Python on cpu-c17 (SPEC-03P.1 5.1, 6.1, 8.1, 8.2, 9.2) against the spec's counter.ci and
record.out, and against the reference executor: the state bytes the C runtime encodes equal
cint_compiler.canonical.canonical_state of the interpreter after the same entries, faulted or not."""
import hashlib
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = Path(os.environ.get("CINT_SPEC_EXAMPLES", REPO.parent / "shared" / "spec" / "examples"))
if not (EXAMPLES / "counter.ci").is_file():
    pytest.skip("spec examples not found at %s" % EXAMPLES, allow_module_level=True)
if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import cint  # noqa: E402
from cint_abi.checkpoint import decode_checkpoint  # noqa: E402
from cint_compiler.interp.canonical import canonical_state  # noqa: E402
from cint_compiler.driver import compile_source  # noqa: E402
from cint_compiler.interp.context import Context as RefContext  # noqa: E402


@pytest.fixture(scope="module")
def counter(source_env):
    return source_env("pyckpt", {name: (EXAMPLES / name).read_bytes() for name in ("counter.ci", "calls.ci")})


@pytest.fixture(scope="module")
def mod(counter):
    return cint.load(counter / "counter.ci")


def ref_context():
    c = compile_source((EXAMPLES / "counter.ci").read_bytes(), "counter.ci")
    return RefContext(c.program, c.revision), c.program.functions["bump"]


def c_state(ctx):
    return decode_checkpoint(ctx.checkpoint()).state_bytes


@pytest.mark.clause("H-19", "9.2", "8.1")
def test_record_out_values(mod):
    """record.py's checkpoint lines: 2 42, 43, 52, and the read_checkpoint line of record.out."""
    ctx = mod.context()
    lines = ["%d %d" % (ctx.bump(2), ctx.bump(40))]
    saved = ctx.checkpoint()
    lines.append(str(ctx.bump(1)))
    ctx.restore(saved)
    lines.append(str(ctx.bump(10)))
    out = (EXAMPLES / "record.out").read_text().splitlines()
    assert lines == out[:3]
    assert repr(cint.read_checkpoint(saved).globals) == out[-1]
    fresh = mod.context()
    fresh.restore(saved)
    assert fresh.bump(0) == 42


@pytest.mark.clause("M-1", "M-3", "M-5", "SPEC-01 IM-156")
def test_c_state_equals_the_interpreters(mod):
    ctx = mod.context()
    ref, bump = ref_context()
    assert c_state(ctx) == canonical_state(ref)
    for amount in (2, 40, -7):
        ctx.bump(amount)
        ref.run_entry("func", bump, [amount])
        assert c_state(ctx) == canonical_state(ref)
        assert ctx.state_hash() == hashlib.sha256(canonical_state(ref)).digest()
    # a faulted context: the fault record bytes agree too
    with pytest.raises(cint.OverflowFault):
        ctx.bump(2**63 - 1)
    o = ref.run_entry("func", bump, [2**63 - 1])
    assert o.kind == "fault"
    assert c_state(ctx) == canonical_state(ref)
    assert cint.read_checkpoint(ctx.checkpoint()).fault_bytes == ctx.fault().record
    ctx.clear_fault()
    ref.clear_fault()
    assert c_state(ctx) == canonical_state(ref)


@pytest.mark.clause("H-19", "H-19a", "M-3")
def test_restore_of_the_interpreters_state(mod):
    """A state the reference executor reached, faulted, restored into a cpu-c17 context (H-19: another
    executor, the same revision identity): the context gives back the same bytes and fault record."""
    ref, bump = ref_context()
    ref.run_entry("func", bump, [5])
    ref.run_entry("func", bump, [2**63 - 1])
    state = canonical_state(ref)
    from cint_abi.checkpoint import encode_checkpoint
    ctx = mod.context()
    ctx.restore(encode_checkpoint(state, contract="cint-rt-3", digests={}))
    assert c_state(ctx) == state
    with pytest.raises(cint.Faulted):
        ctx.bump(1)
    ctx.clear_fault()
    assert ctx.bump(1) == 6


@pytest.mark.clause("M-1")
def test_registration_histories_differ(counter):
    import array
    mod = cint.load(counter / "calls.ci")
    a, b = mod.context(), mod.context()
    assert a.state_hash() == b.state_hash()
    v = cint.borrow(array.array("q", [1, 2, 3]))
    out = cint.empty(3, "I64")
    b.square(v, y=out)
    v.release()
    out.release()
    assert decode_checkpoint(b.checkpoint()).state.registry == []
    assert a.state_hash() != b.state_hash()        # the same values, another next buffer identifier


@pytest.mark.clause("H-19a", "H-19", "P-20", "M-11", "M-11a")
def test_every_refused_restore_changes_nothing(mod, counter):
    ctx = mod.context()
    ctx.bump(2)
    ctx.bump(40)
    saved = ctx.checkpoint()
    ctx.bump(1)
    before = ctx.state_hash()
    for k in range(len(saved)):                     # every truncation
        with pytest.raises(cint.Refused):
            ctx.restore(saved[:k])
        assert ctx.state_hash() == before
    with pytest.raises(cint.Refused):
        ctx.restore(saved + b"\0")
    with pytest.raises(cint.Refused, match="runtime contract"):
        ctx.restore(saved.replace(b"cint-rt-3", b"cint-rt-2"))
    other = cint.load(counter / "calls.ci").context()
    with pytest.raises(cint.Refused, match="revision"):
        ctx.restore(other.checkpoint())
    assert ctx.state_hash() == before
    # every single-byte change: refused with nothing changed, or a valid checkpoint (a digest, a value, a
    # counter) that a fresh context then holds exactly
    refused = accepted = 0
    for k in range(len(saved)):
        m = saved[:k] + bytes([saved[k] ^ 0x5A]) + saved[k + 1:]
        try:
            ctx.restore(m)
        except cint.Refused:
            refused += 1
            assert ctx.state_hash() == before
            continue
        accepted += 1
        assert ctx.state_hash() == hashlib.sha256(decode_checkpoint(m).state_bytes).digest()
        ctx = mod.context()
        ctx.restore(saved)
        ctx.bump(1)
        assert ctx.state_hash() == before
    assert refused > accepted > 0
