"""Recordings and replay through the Python package, across both CPU executors (SPEC-03P.1 9.1, 9.2, 9.3)."""
import hashlib
import shutil
import struct

import pytest

cint = pytest.importorskip("cint")
from cint_replay import RefExecutor  # noqa: E402
from cint_replay import format as F  # noqa: E402
from cint_compiler import driver  # noqa: E402

from spec_paths import EXAMPLES, require_examples  # noqa: E402

require_examples("counter.ci")

KERNELS = """I64 calls = 0;
Bool last_ok = false;

export I64 step(I64 a, Bool twice) {
    calls += 1;
    I64 r = a * 3;
    if (twice) { r = r * 3; }
    last_ok = true;
    "step {calls}: {r}\\n";
    return r;
}

export void copy_to[n](in I64[n] xs, inout I64[n] ys) {
    for i in 0..n { ys[i] = xs[i]; }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("replay")
    shutil.copy(EXAMPLES / "counter.ci", d / "counter.ci")
    (d / "steps.ci").write_text(KERNELS)
    return d


@pytest.fixture(scope="module")
def counter(lib):
    return cint.load(lib / "counter.ci")


@pytest.fixture(scope="module")
def steps(lib):
    return cint.load(lib / "steps.ci")


def record_session(mod, path, calls, mode="full"):
    with cint.Recorder(path, mode=mode) as rec:
        ctx = mod.context(record=rec)
        for name, args in calls:
            try:
                ctx.entry(name)(*args)
            except cint.Fault:
                ctx.clear_fault()
        return ctx.state_hash()


@pytest.mark.clause("H-19", "M-5")
def test_checkpoints_cross_executors(counter, lib):
    ctx = counter.context()
    ctx.bump(7)
    ctx.bump(-3)
    cp = ctx.checkpoint()
    ref = RefExecutor(driver.compile_file(lib / "counter.ci"))
    ref.restore(cp)
    assert ref.state_hash() == ctx.state_hash()
    o = ref.call("bump", [1], None)
    ctx.bump(1)
    assert o.state_hash == ctx.state_hash()
    # and back: the interpreter's checkpoint restores into cpu-c17
    ref.call("bump", [100], None)
    fresh = counter.context()
    fresh.restore(ref.checkpoint())
    assert fresh.state_hash() == ref.state_hash()
    assert fresh.bump(0) == 105


@pytest.mark.clause("H-19")
def test_a_faulted_checkpoint_crosses_executors(counter, lib):
    ctx = counter.context()
    ctx.bump(2 ** 62)
    with pytest.raises(cint.OverflowFault):
        ctx.bump(2 ** 62)
    cp = ctx.checkpoint()
    ref = RefExecutor(driver.compile_file(lib / "counter.ci"))
    ref.restore(cp)
    assert ref.fault() == ctx.fault().record
    assert ref.state_hash() == ctx.state_hash()
    assert ref.call("bump", [1], None).status == 4        # CINT_FAULTED


@pytest.mark.clause("H-14", "H-16", "H-7", "H-20")
@pytest.mark.parametrize("backend", ["ref", "cpu"])
def test_cpu_recording_replays_on_both(steps, tmp_path, backend):
    p = tmp_path / "s.cintrec"
    final = record_session(steps, p, [("step", (k, k % 2 == 0)) for k in range(-5, 20)] +
                           [("step", (2 ** 62, True)), ("step", (1, False))])
    r = cint.replay(steps, p, backend=backend)
    assert (r.status, r.boundaries, r.stopped) == ("ok", 27, False)
    assert r.final_state_hash == final


@pytest.mark.clause("H-14b")
def test_an_array_argument_is_refused_while_recording(steps, tmp_path):
    import numpy as np
    with cint.Recorder(tmp_path / "a.cintrec") as rec:
        ctx = steps.context(record=rec)
        out = cint.empty(3, "I64")
        with pytest.raises(cint.Refused, match="H-14b"):
            ctx.copy_to(np.arange(3, dtype=np.int64), ys=out)
        assert ctx.step(1, False) == 3
    r = cint.replay(steps, tmp_path / "a.cintrec", backend="cpu")
    assert r.boundaries == 1


@pytest.mark.clause("H-17")
@pytest.mark.parametrize("backend", ["ref", "cpu"])
def test_an_edited_outcome_is_a_divergence_at_its_index(counter, tmp_path, backend):
    p = tmp_path / "c.cintrec"
    record_session(counter, p, [("bump", (k,)) for k in range(6)])
    data = p.read_bytes()
    rec = F.read(data)
    out = [e for e in rec.events if e.kind == F.OUTCOME][4]
    # replace the result's value 10 by 11, keeping the chain consistent
    payload_at = out.offset + 9
    n = struct.unpack_from("<Q", data, out.offset + 1)[0]
    payload = bytearray(data[payload_at:payload_at + n])
    k = payload.index(b"\x14" + (10).to_bytes(8, "little"))
    payload[k + 1] = 11
    edited = _rechain(data, rec, out.index, bytes(payload))
    p.write_bytes(edited)
    with pytest.raises(cint.ReplayDivergence) as ei:
        cint.replay(counter, p, backend=backend)
    assert ei.value.index == out.index and ei.value.what == "result"


@pytest.mark.clause("H-17")
def test_incomplete_and_foreign_recordings(counter, steps, tmp_path):
    p = tmp_path / "c.cintrec"
    record_session(counter, p, [("bump", (1,))])
    data = p.read_bytes()
    p.write_bytes(data[:-49])
    with pytest.raises(cint.RecordingError, match="incomplete"):
        cint.replay(counter, p)
    p.write_bytes(data)
    with pytest.raises(cint.Unreplayable, match="revision"):
        cint.replay(steps, p, backend="cpu")


@pytest.mark.clause("9.3")
def test_recorder_misuse(counter, tmp_path):
    rec = cint.Recorder(tmp_path / "x.cintrec")
    counter.context(record=rec)
    with pytest.raises(RuntimeError, match="one context"):
        counter.context(record=rec)
    rec.close()
    with pytest.raises(RuntimeError, match="closed"):
        counter.context(record=rec)
    with pytest.raises(ValueError):
        cint.Recorder(tmp_path / "y", mode="partial")
    with pytest.raises(TypeError):
        counter.context(record="file.cintrec")


@pytest.mark.clause("H-18")
def test_digest_recording_replays_with_its_inputs(counter, tmp_path):
    p = tmp_path / "d.cintrec"
    final = record_session(counter, p, [("bump", (k,)) for k in (3, 4, 5)], mode="digest")
    i64 = ("int", True, 64)
    r = cint.replay(counter, p, backend="cpu", inputs=[[(i64, 3)], [(i64, 4)], [(i64, 5)]])
    assert r.final_state_hash == final
    with pytest.raises(cint.Unreplayable):
        cint.replay(counter, p)


def _rechain(data, rec, index, payload):
    ev = rec.events[index]
    n = struct.unpack_from("<Q", data, ev.offset + 1)[0]
    body = data[:ev.offset] + F.event_bytes(ev.kind, payload) + data[ev.offset + 9 + n:len(data) - 49]
    first = rec.events[0].offset
    head = F.chain_start(body[:first])
    pos, count = first, 0
    while pos < len(body):
        m = struct.unpack_from("<Q", body, pos + 1)[0]
        head = hashlib.sha256(head + body[pos:pos + 9 + m]).digest()
        pos += 9 + m
        count += 1
    return body + F.event_bytes(F.END, F.end_payload(head, count))
