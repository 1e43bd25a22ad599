"""Recordings and replay on the reference executor (SPEC-03P.1 9.3): format, chain, divergence, fuzz."""
import hashlib
import random
import struct

import pytest

from cint_abi.checkpoint import decode_checkpoint
from cint_compiler import driver
from cint_compiler.sir import encode_module
from cint_replay import (Recorder, RecordingError, RefExecutor, ReplayDivergence, Unreplayable, check, replay)
from cint_replay import format as F
from cint_replay.outcome import FAULT, FAULTED, OK

COUNTER = """// counter.ci: a library with module state, for checkpoints and recordings.
I64 tally = 0;

export I64 bump(I64 amount) {
    tally += amount;
    "tally is {tally}\\n";
    return tally;
}
"""
I64 = ("int", True, 64)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    d = tmp_path_factory.mktemp("counter")
    (d / "counter.ci").write_text(COUNTER)
    return driver.compile_file(d / "counter.ci")


def session(compiled, path, mode="full"):
    """The session of record.py, recorded on the reference executor; returns (final hash, saved)."""
    ex = RefExecutor(compiled)
    rec = Recorder(path, mode=mode)
    mods = [F.Module(m.path, encode_module(m), m.source.encode()) for m in reversed(compiled.modules)]
    rec.attach(revision=compiled.revision, modules=mods, initial_checkpoint=ex.checkpoint())

    def call(n):
        o = ex.call("bump", [n], None)
        rec.entry("bump", [(I64, n)], fuel=None, depth=256, frame_arena=2_097_152, outcome=o)
        return o
    call(2)
    call(40)
    saved = ex.checkpoint()
    rec.checkpoint(ex.state_hash(), saved)
    call(1)
    before = ex.state_hash()
    ex.restore(saved)
    rec.restore(before, hashlib.sha256(decode_checkpoint(saved).state_bytes).digest(), saved, ex.state_hash())
    call(10)
    assert call(2 ** 62).status == OK
    assert call(2 ** 62).status == FAULT
    held = ex.fault()
    ex.clear_fault()
    rec.clear_fault(held, ex.state_hash())
    rec.close()
    return ex.state_hash(), saved


def make(compiled):
    return lambda depth, frame: RefExecutor(compiled, depth=depth, frame_arena_elements=frame)


@pytest.fixture(scope="module")
def recording(compiled, tmp_path_factory):
    p = tmp_path_factory.mktemp("rec") / "run.cintrec"
    final, saved = session(compiled, p)
    return p.read_bytes(), final, saved


@pytest.mark.clause("H-14", "H-16", "H-17")
def test_replay_whole_session(compiled, recording):
    data, final, _ = recording
    r = replay(data, make(compiled))
    assert (r.status, r.boundaries, r.stopped) == ("ok", 6, False)
    assert r.final_state_hash == final


@pytest.mark.clause("H-17a")
def test_stop_after_two_boundaries_leaves_the_state_there(compiled, recording):
    data, _, _ = recording
    r = replay(data, make(compiled), stop=2)
    assert (r.status, r.stopped, r.boundaries) == ("ok", True, 2)
    fresh = RefExecutor(compiled)
    fresh.restore(r.checkpoint)
    o = fresh.call("bump", [0], None)
    assert o.result == b"\x14" + (42).to_bytes(8, "little")


@pytest.mark.clause("H-14")
def test_events_of_the_session(recording):
    data, _, _ = recording
    rec = F.read(data)
    kinds = [e.name for e in rec.events]
    assert kinds.count("entry") == 6 and kinds.count("outcome") == 6 and kinds.count("effect") == 5
    assert kinds[6:8] == ["checkpoint", "entry"] and "restore" in kinds and kinds[-1] == "clear_fault"
    assert rec.header.mode == "full" and rec.header.contract == "cint-rt-3"


@pytest.mark.clause("H-7")
def test_an_edited_effect_diverges_at_its_index(compiled, recording):
    data, _, _ = recording
    rec = F.read(data)
    eff = next(e for e in rec.events if e.kind == F.EFFECT)
    edited = _edit(data, rec, eff.index, lambda p: p.replace(b"tally is 2", b"tally is 3"))
    with pytest.raises(ReplayDivergence) as ei:
        replay(edited, make(compiled))
    assert ei.value.index == eff.index and ei.value.what == "effect"


@pytest.mark.clause("H-16", "H-17")
@pytest.mark.parametrize("field_at, what", [(0, "status"), ("fuel", "fuel"), ("hash", "state_hash")])
def test_an_edited_outcome_diverges_at_its_index(compiled, recording, field_at, what):
    data, _, _ = recording
    rec = F.read(data)
    out = [e for e in rec.events if e.kind == F.OUTCOME][3]

    def edit(p):
        p = bytearray(p)
        if field_at == 0:                              # status OK -> FAULT, with a fault record (the rule)
            fuel = struct.unpack_from("<q", p, 5)[0]
            return F.outcome_payload(FAULT, b"\x02", fuel, None, None, bytes(p[-32:]))
        elif field_at == "fuel":
            k = 4 + 1 + 0                              # status, fault presence (0)
            fuel = struct.unpack_from("<q", p, k)[0]
            struct.pack_into("<q", p, k, fuel + 1)
        else:
            p[-1] ^= 1
        return bytes(p)
    edited = _edit(data, rec, out.index, edit)
    with pytest.raises(ReplayDivergence) as ei:
        replay(edited, make(compiled))
    assert (ei.value.index, ei.value.what) == (out.index, what)
    assert ei.value.result.boundaries == 3


@pytest.mark.clause("H-17")
def test_resource_outcome_is_unreplayable_before_its_entry(compiled, recording):
    data, _, _ = recording
    rec = F.read(data)
    outs = [e for e in rec.events if e.kind == F.OUTCOME]
    # CINT_RESOURCE, and without the result (an outcome that is not CINT_OK holds none)
    edited = _edit(data, rec, outs[2].index,
                   lambda p: F.outcome_payload(5, None, struct.unpack_from("<q", p, 5)[0], None, None, p[-32:]))
    with pytest.raises(Unreplayable) as ei:
        replay(edited, make(compiled))
    entry = [e for e in rec.events if e.kind == F.ENTRY][2]
    assert ei.value.index == entry.index and ei.value.result.boundaries == 2


@pytest.mark.clause("H-14")
def test_incomplete_recording_is_never_loaded(compiled, recording):
    data, _, _ = recording
    rec = F.read(data)
    cut = data[:len(data) - (1 + 8 + 40)]           # without its end event
    with pytest.raises(RecordingError, match="incomplete"):
        replay(cut, make(compiled))
    assert len(rec.events) > 10


@pytest.mark.clause("H-17", "H-14")
def test_mutation_fuzz_never_crashes(compiled, recording):
    """Truncations, bit flips, length fields, trailing bytes and reordered events: every mutant is
    either refused whole with RecordingError, or replays to a divergence/unreplayable/ok."""
    data, _, _ = recording
    rec = F.read(data)
    rng = random.Random(1234)
    mutants = [data[:n] for n in rng.sample(range(len(data)), 60)]
    mutants += [data + b"\x00", data + data[-49:]]
    for _ in range(150):
        b = bytearray(data)
        k = rng.randrange(len(b))
        b[k] ^= 1 << rng.randrange(8)
        mutants.append(bytes(b))
    for ev in rec.events[:12]:                      # length fields
        b = bytearray(data)
        old = struct.unpack_from("<Q", b, ev.offset + 1)[0]
        struct.pack_into("<Q", b, ev.offset + 1, (old + rng.choice((1, -1, 1 << 40))) % (1 << 64))
        mutants.append(bytes(b))
    # reordered events: swap two adjacent events
    evs = rec.events
    for k in range(0, len(evs) - 1, 3):
        a, b_ = evs[k], evs[k + 1]
        end_b = evs[k + 2].offset if k + 2 < len(evs) else len(data) - 49
        mutants.append(data[:a.offset] + data[b_.offset:end_b] + data[a.offset:b_.offset] + data[end_b:])
    refused = 0
    for m in mutants:
        try:
            replay(m, make(compiled))
        except RecordingError:
            refused += 1
        except (ReplayDivergence, Unreplayable):
            pass
    assert refused >= len(mutants) - 5       # the chain of digests catches nearly every change


def test_chain_catches_a_consistent_edit_only_with_the_head(compiled, recording):
    data, _, _ = recording
    rec = F.read(data)
    out = [e for e in rec.events if e.kind == F.OUTCOME][0]
    b = bytearray(data)
    b[out.offset + 9] = 1                          # status -> FAULT, chain not recomputed
    with pytest.raises(RecordingError, match="chain"):
        check(bytes(b))


@pytest.mark.clause("H-18")
def test_digest_mode_needs_the_inputs_again(compiled, tmp_path):
    p = tmp_path / "d.cintrec"
    final, _ = session(compiled, p, mode="digest")
    data = p.read_bytes()
    with pytest.raises(Unreplayable, match="inputs"):
        replay(data, make(compiled))
    inputs = [[(I64, n)] for n in (2, 40, 1, 10, 2 ** 62, 2 ** 62)]
    r = replay(data, make(compiled), inputs=inputs)
    assert r.status == "ok" and r.final_state_hash == final
    inputs[3] = [(I64, 11)]
    with pytest.raises(ReplayDivergence) as ei:
        replay(data, make(compiled), inputs=inputs)
    assert ei.value.what == "arguments"
    assert data.count(b"tally is") == 1            # only in the code: effects are held as digests


def test_faulted_call_reports_faulted_without_an_entry(compiled):
    ex = RefExecutor(compiled)
    ex.call("bump", [2 ** 63 - 1], None)
    ex.call("bump", [1], None)
    o = ex.call("bump", [1], None)
    assert o.status == FAULTED
    assert o.fuel == ex._last_fuel


def test_restore_refusals_change_nothing(compiled, tmp_path):
    ex = RefExecutor(compiled)
    ex.call("bump", [5], None)
    good = ex.checkpoint()
    h = ex.state_hash()
    rng = random.Random(7)
    for _ in range(200):
        b = bytearray(good)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        try:
            ex.restore(bytes(b))
        except ValueError:
            assert ex.state_hash() == h
        else:
            h = ex.state_hash()
    other = driver.compile_source(COUNTER.replace("tally = 0", "tally = 1").encode(), "counter.ci")
    with pytest.raises(ValueError, match="revision"):
        ex.restore(RefExecutor(other).checkpoint())


def _edit(data, rec, index, fn):
    """data with event ``index``'s payload replaced by fn(payload) and the chain and end recomputed."""
    ev = rec.events[index]
    n = struct.unpack_from("<Q", data, ev.offset + 1)[0]
    start = ev.offset + 9
    payload = fn(data[start:start + n])
    body = data[:ev.offset] + F.event_bytes(ev.kind, payload) + data[start + n:len(data) - 49]
    first = rec.events[0].offset
    head = F.chain_start(body[:first])
    pos = first
    count = 0
    while pos < len(body):
        m = struct.unpack_from("<Q", body, pos + 1)[0]
        head = F.sha(head + body[pos:pos + 9 + m])
        pos += 9 + m
        count += 1
    return body + F.event_bytes(F.END, F.end_payload(head, count))
