"""A recording is untrusted input (SPEC-03P.1 9.3 H-14, H-17, H-17a; 8.1 paragraphs 7 and 8, P-16).

Each recording here is re-chained after its edit (cint_replay.format.encode), as anyone can: the chain
of digests has no key.  Replay must refuse before it builds or writes anything when the file is not
what the format allows, write nothing outside a private temporary folder, give one verdict on both
backends, and raise only the exceptions of 9.3 (RecordingError is an Unreplayable).
"""
import copy
import hashlib
import os
import shutil
import tempfile
import threading

import pytest

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import cint  # noqa: E402
from cint_abi.checkpoint import decode_checkpoint  # noqa: E402
from cint_replay import format as F  # noqa: E402

import recording_fuzz as RF  # noqa: E402

BACKENDS = ["ref", "cpu"]


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    return RF.build(tmp_path_factory.mktemp("hardening-src"))


@pytest.fixture(scope="module")
def recordings(mods, tmp_path_factory):
    """{name: (Module, bytes, inputs)} of the fuzzer's sessions."""
    return {name: (mod, data, inputs) for name, mod, data, inputs in RF.sessions(mods, tmp_path_factory.mktemp("s"))}


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Replay's temporary folders go here for the test, so that the test can see that none is left."""
    d = tmp_path / "private-tmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def _write(tmp_path, rec, name="m.cintrec"):
    p = tmp_path / name
    p.write_bytes(F.encode(rec))
    return p


# ------------------------------------------------------------------------------------------ item 1

@pytest.mark.clause("H-17")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", ["absolute", "dotdot", "nul", "backslash", "device"])
@pytest.mark.parametrize("which", [0, 1])
def test_replay_never_writes_a_path_a_recording_names(recordings, tmp_path, private_tmp, backend, form, which):
    """A module path that is absolute, holds `..`, a NUL, a backslash or a device name, with the revision
    identity recomputed (also inside the checkpoints) and the end event re-chained, is refused with
    RecordingError before anything is built, and no file appears at the path it names."""
    mod, data, _ = recordings["acct-full"]
    target = tmp_path / "outside" / "written.ci"
    rec = F.read(data)
    m = rec.revisions[0][1][which]
    m.path = {"absolute": str(target),
              "dotdot": "../" * 16 + str(target).lstrip("/"),
              "nul": "lib/ut\x00il.ci",
              "backslash": "..\\..\\written.ci",
              "device": "lib/CON.ci"}[form]
    RF.reforge(rec)
    p = _write(tmp_path, rec)
    with pytest.raises(cint.RecordingError) as ei:
        cint.replay(mod, p, backend=backend)
    assert ei.value.rule == "a module path that is not a module name"
    assert isinstance(ei.value, cint.Unreplayable) and ei.value.index == -1
    assert not target.exists() and not target.parent.exists()
    assert os.listdir(private_tmp) == []


@pytest.mark.clause("H-17")
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_sources_are_compiled_in_a_private_folder_that_is_removed(recordings, tmp_path, private_tmp, backend):
    mod, data, _ = recordings["acct-full"]
    p = tmp_path / "ok.cintrec"
    p.write_bytes(data)
    r = cint.replay(mod, p, backend=backend)
    assert r.status == "ok" and r.boundaries == 8
    assert os.listdir(private_tmp) == []


@pytest.mark.clause("H-17")
def test_a_recording_is_checked_whole_before_any_build(recordings, tmp_path, monkeypatch):
    """A field that the format does not allow (here in the last event) is refused before the recorded
    code is compiled or written anywhere."""
    import importlib
    R = importlib.import_module("cint_replay.replay")         # the module (cint_replay.replay is also a function)
    mod, data, _ = recordings["acct-full"]
    rec = F.read(data)
    out = [e for e in rec.events if e.kind == F.OUTCOME][-1]
    out.fields["fuel"] = -3                                                   # a valid file but for one field
    p = _write(tmp_path, rec)
    calls = []
    monkeypatch.setattr(R, "compile_recording", lambda rec: calls.append(rec))
    for backend in BACKENDS:
        with pytest.raises(cint.RecordingError, match="fuel consumed below 0"):
            cint.replay(mod, p, backend=backend)
    assert calls == []


# ------------------------------------------------------------------------------------------ item 2

def _checkpoint_event(rec):
    return next(e for e in rec.events if e.kind == F.CHECKPOINT)


def _restore_event(rec):
    return next(e for e in rec.events if e.kind == F.RESTORE)


def m_checkpoint_of_another_state(rec):
    _checkpoint_event(rec).fields["data"] = rec.initial


def m_checkpoint_hash_and_data_of_another_state(rec):
    ev = _checkpoint_event(rec)
    ev.fields["data"] = rec.initial
    state = decode_checkpoint(rec.initial, None, raw_structs=True).state_bytes
    ev.fields["state_hash"] = hashlib.sha256(state).digest()


def m_all_sequence_numbers_zero(rec):
    for e in rec.events:
        if e.kind == F.ENTRY:
            e.fields["seq"] = 0


def m_sequence_numbers_from_zero(rec):
    RF.regroup(rec)
    for e in rec.events:
        if e.kind == F.ENTRY:
            e.fields["seq"] -= 1


def m_sequence_numbers_swapped(rec):
    a, b = [e for e in rec.events if e.kind == F.ENTRY][:2]
    a.fields["seq"], b.fields["seq"] = b.fields["seq"], a.fields["seq"]


def _effect(rec):
    return next(e for e in rec.events if e.kind == F.EFFECT)


def m_effect_status_negative(rec):
    _effect(rec).fields["status"] = -1


def m_effect_status_out_of_range(rec):
    _effect(rec).fields["status"] = 2 ** 31 - 1


def m_effect_status_not_ok(rec):
    _effect(rec).fields["status"] = 3          # a cint_status, but not one replay can give a print


def m_restored_zeros(rec):
    _restore_event(rec).fields["restored"] = bytes(32)


def m_restored_of_another_state(rec):
    ev = _restore_event(rec)
    ev.fields["restored"] = ev.fields["before"]


def _group_of(rec, kind, nth=0):
    gs = [g for g in RF.groups(rec) if rec.events[g[0]].kind == kind]
    return gs[nth]


def m_drop_an_entry(rec):
    a, b = _group_of(rec, F.ENTRY, 1)
    del rec.events[a:b + 1]
    for k, e in enumerate(rec.events):
        e.index = k


def m_drop_an_entry_renumbered(rec):
    a, b = _group_of(rec, F.ENTRY, 1)
    del rec.events[a:b + 1]
    RF.regroup(rec)


def m_duplicate_an_entry(rec):
    a, b = _group_of(rec, F.ENTRY, 0)
    rec.events[b + 1:b + 1] = copy.deepcopy(rec.events[a:b + 1])
    for k, e in enumerate(rec.events):
        e.index = k


def m_duplicate_a_faulted_entry(rec):
    """A CINT_FAULTED entry changes no state: only its sequence number tells the copy apart."""
    k = next(i for i, e in enumerate(rec.events) if e.kind == F.OUTCOME and e.fields["status"] == 4)
    rec.events[k + 1:k + 1] = copy.deepcopy(rec.events[k - 1:k + 1])
    for i, e in enumerate(rec.events):
        e.index = i


def m_duplicate_an_entry_renumbered(rec):
    a, b = _group_of(rec, F.ENTRY, 0)
    rec.events[b + 1:b + 1] = copy.deepcopy(rec.events[a:b + 1])
    RF.regroup(rec)


def m_drop_an_outcome(rec):
    k = next(i for i, e in enumerate(rec.events) if e.kind == F.OUTCOME)
    del rec.events[k]
    RF.regroup(rec)


def m_drop_an_effect(rec):
    rec.events.remove(_effect(rec))
    RF.regroup(rec)


def m_duplicate_an_effect(rec):
    ev = _effect(rec)
    rec.events.insert(ev.index, copy.deepcopy(ev))
    RF.regroup(rec)


def m_drop_the_restore(rec):
    rec.events.remove(_restore_event(rec))
    RF.regroup(rec)


def m_duplicate_the_restore(rec):
    ev = _restore_event(rec)
    rec.events.insert(ev.index, copy.deepcopy(ev))
    RF.regroup(rec)


def m_drop_the_clear_fault(rec):
    ev = next(e for e in rec.events if e.kind == F.CLEAR_FAULT)
    rec.events.remove(ev)
    RF.regroup(rec)


def m_outcome_refused(rec):
    next(e for e in rec.events if e.kind == F.OUTCOME).fields["status"] = 2


def m_outcome_negative_fuel(rec):
    next(e for e in rec.events if e.kind == F.OUTCOME).fields["fuel"] = -1


def m_outcome_fault_without_record(rec):
    o = next(e for e in rec.events if e.kind == F.OUTCOME)
    o.fields.update(status=1, result=None)


def rename(e, name):
    """The entry ``e`` names export ``name``, its canonical arguments too (they hold the entry's name)."""
    from cint_abi.encoding import encode_args
    e.fields["args"] = encode_args(name, F.decode_args(e.fields["args"], e.fields["name"]))
    e.fields["name"] = name


def m_missing_export(rec):
    rename(next(e for e in rec.events if e.kind == F.ENTRY), "nope")


def m_export_with_other_parameters(rec):
    """grow takes one I64; the entry's arguments are add's (I64, Bool)."""
    rename(next(e for e in rec.events if e.kind == F.ENTRY), "grow")


def m_arguments_of_other_types(rec):
    from cint_abi.encoding import encode_args
    e = next(e for e in rec.events if e.kind == F.ENTRY)
    e.fields["args"] = encode_args("add", [(("int", True, 32), 5), (("bool",), True)])


def m_name_not_an_identifier(rec):
    next(e for e in rec.events if e.kind == F.ENTRY).fields["name"] = "a\x00b"


def m_one_entry_with_another_depth(rec):
    [e for e in rec.events if e.kind == F.ENTRY][2].fields["depth"] = 3


def m_depth_zero(rec):
    for e in rec.events:
        if e.kind == F.ENTRY:
            e.fields["depth"] = 0


def m_frame_arena_too_large(rec):
    for e in rec.events:
        if e.kind == F.ENTRY:
            e.fields["frame_arena"] = 2 ** 61


def m_effect_outside_an_entry(rec):
    ev = _effect(rec)
    rec.events.remove(ev)
    rec.events.insert(_checkpoint_event(rec).index, ev)
    RF.regroup(rec)


def m_effect_of_a_faulted_entry(rec):
    k = next(i for i, e in enumerate(rec.events) if e.kind == F.OUTCOME and e.fields["status"] == 4)
    rec.events.insert(k, copy.deepcopy(_effect(rec)))
    RF.regroup(rec)


def m_result_and_error(rec):
    o = next(e for e in rec.events if e.kind == F.OUTCOME and e.fields["error"] is not None)
    o.fields["result"] = b"\x14" + bytes(8)


def m_fuel_budget_too_small(rec):
    next(e for e in rec.events if e.kind == F.ENTRY).fields["fuel"] = 1


def m_cleared_record_changed(rec):
    ev = next(e for e in rec.events if e.kind == F.CLEAR_FAULT and e.fields["fault"] is not None)
    ev.fields["fault"] = ev.fields["fault"][:-1] + bytes([ev.fields["fault"][-1] ^ 1])


def m_control_character_in_a_comment(rec):
    m = rec.revisions[0][1][1]
    m.source = m.source.replace(b"// util.ci", b"// \x01util.ci")


def m_other_code_under_the_recorded_sir(rec):
    m = rec.revisions[0][1][1]
    m.source = m.source.replace(b"x * 2", b"x * 3")


def m_other_contract(rec):
    rec.header.contract = "cint-rt-2"
    RF.reforge(rec)


def m_checkpoint_of_another_revision(rec):
    RF.reforge(rec, checkpoints=False)
    rec.revisions[0][1][1].sir += b"\x00"
    RF.reforge(rec, checkpoints=False)


MATRIX = [
    (m_checkpoint_of_another_state, "RecordingError"),
    (m_checkpoint_hash_and_data_of_another_state, "ReplayDivergence"),
    (m_all_sequence_numbers_zero, "RecordingError"),
    (m_sequence_numbers_from_zero, "RecordingError"),
    (m_sequence_numbers_swapped, "RecordingError"),
    (m_effect_status_negative, "RecordingError"),
    (m_effect_status_out_of_range, "RecordingError"),
    (m_effect_status_not_ok, "Unreplayable"),
    (m_restored_zeros, "RecordingError"),
    (m_restored_of_another_state, "RecordingError"),
    (m_drop_an_entry, "RecordingError"),
    (m_drop_an_entry_renumbered, "ReplayDivergence"),
    (m_duplicate_an_entry, "RecordingError"),
    (m_duplicate_a_faulted_entry, "RecordingError"),
    (m_duplicate_an_entry_renumbered, "ReplayDivergence"),
    (m_drop_an_outcome, "RecordingError"),
    (m_drop_an_effect, "ReplayDivergence"),
    (m_duplicate_an_effect, "ReplayDivergence"),
    (m_drop_the_restore, "ReplayDivergence"),
    (m_duplicate_the_restore, "ReplayDivergence"),
    (m_drop_the_clear_fault, "ReplayDivergence"),
    (m_outcome_refused, "RecordingError"),
    (m_outcome_negative_fuel, "RecordingError"),
    (m_outcome_fault_without_record, "RecordingError"),
    (m_missing_export, "ReplayDivergence"),
    (m_export_with_other_parameters, "ReplayDivergence"),
    (m_arguments_of_other_types, "ReplayDivergence"),
    (m_name_not_an_identifier, "RecordingError"),
    (m_one_entry_with_another_depth, "RecordingError"),
    (m_depth_zero, "RecordingError"),
    (m_frame_arena_too_large, "RecordingError"),
    (m_effect_outside_an_entry, "RecordingError"),
    (m_effect_of_a_faulted_entry, "RecordingError"),
    (m_result_and_error, "RecordingError"),
    (m_fuel_budget_too_small, "ReplayDivergence"),
    (m_cleared_record_changed, "ReplayDivergence"),
    (m_control_character_in_a_comment, "RecordingError"),
    (m_other_code_under_the_recorded_sir, "RecordingError"),
    (m_other_contract, "RecordingError"),
    (m_checkpoint_of_another_revision, "Unreplayable"),          # not the module's revision: before any build
]


@pytest.mark.clause("H-14", "H-17")
@pytest.mark.parametrize("mutation, want", MATRIX, ids=[m.__name__[2:] for m, _ in MATRIX])
def test_a_rechained_mutation_never_replays_ok_and_both_backends_agree(recordings, tmp_path, private_tmp,
                                                                         mutation, want):
    mod, data, _ = recordings["acct-full"]
    rec = F.read(data)
    mutation(rec)
    p = _write(tmp_path, rec)
    ref, cpu = RF.both(mod, p)
    assert ref == cpu, (ref, cpu)
    assert ref[0] == want, ref
    assert os.listdir(private_tmp) == []


@pytest.mark.clause("H-14", "H-17")
@pytest.mark.parametrize("kind", ["checkpoint", "empty clear_fault"])
@pytest.mark.parametrize("op", ["drop", "duplicate"])
def test_dropping_or_repeating_an_event_that_changes_nothing_is_another_valid_session(recordings, tmp_path, kind,
                                                                                      op):
    """A checkpoint, or a clear_fault on a context that held no fault, changes no state: without it, or
    twice, the file records a session that a host could have run, and replays ok on both backends (the
    compared state hashes are unchanged).  Every other drop or repeat is caught (the matrix above)."""
    mod, data, _ = recordings["acct-full"]
    rec = F.read(data)
    ev = next(e for e in rec.events if e.kind == F.CHECKPOINT) if kind == "checkpoint" else \
        next(e for e in rec.events if e.kind == F.CLEAR_FAULT and e.fields["fault"] is None)
    if op == "drop":
        rec.events.remove(ev)
    else:
        rec.events.insert(ev.index, copy.deepcopy(ev))
    RF.regroup(rec)
    ref, cpu = RF.both(mod, _write(tmp_path, rec))
    assert ref == cpu and ref[0] == "ok"


@pytest.mark.clause("H-17", "H-18")
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_digest_recording_restores_only_a_checkpoint_replay_took(recordings, tmp_path, backend):
    mod, data, inputs = recordings["acct-digest"]
    p = tmp_path / "d.cintrec"
    p.write_bytes(data)
    assert cint.replay(mod, p, backend=backend, inputs=inputs).status == "ok"
    rec = F.read(data)
    _restore_event(rec).fields["restored"] = bytes(32)
    with pytest.raises(cint.Unreplayable) as ei:
        cint.replay(mod, _write(tmp_path, rec), backend=backend, inputs=inputs)
    assert ei.value.index == _restore_event(rec).index and not isinstance(ei.value, cint.RecordingError)


@pytest.mark.clause("H-17")
def test_cpu_checks_the_recorded_source_as_ref_does(recordings, tmp_path):
    """A control character in a comment leaves the SIR, and so the revision identity, as they were; the
    source is still not cint source (LS-4), so both backends refuse the file."""
    mod, data, _ = recordings["counter-full"]
    rec = F.read(data)
    m = rec.revisions[0][1][0]
    m.source = m.source.replace(b"// counter.ci", b"// \x07counter.ci")
    p = _write(tmp_path, rec)
    for backend in BACKENDS:
        with pytest.raises(cint.RecordingError, match="does not compile") as ei:
            cint.replay(mod, p, backend=backend)
        assert "counter.ci:1:" in str(ei.value)


# ------------------------------------------------------------------------------------------ item 3

@pytest.mark.clause("H-17")
def test_replay_raises_only_the_exceptions_of_9_3(recordings, tmp_path):
    """Before: CompileError (ref, a source that does not compile), ValueError (a NUL in a module path),
    AttributeError (cpu, an entry naming no export).  Now RecordingError (an Unreplayable) or
    ReplayDivergence, the same on both backends."""
    from cint_compiler.diagnostics import CompileError
    mod, data, _ = recordings["counter-full"]
    cases = []
    rec = F.read(data)
    rec.revisions[0][1][0].source += b"\nexport I64 broken( {\n"
    cases.append((rec, cint.RecordingError))
    rec = F.read(data)
    rec.revisions[0][1][0].path = "coun\x00ter.ci"
    RF.reforge(rec)
    cases.append((rec, cint.RecordingError))
    rec = F.read(data)
    rename(next(e for e in rec.events if e.kind == F.ENTRY), "missing")
    cases.append((rec, cint.ReplayDivergence))
    for k, (rec, want) in enumerate(cases):
        p = _write(tmp_path, rec, "c%d.cintrec" % k)
        for backend in BACKENDS:
            with pytest.raises(want) as ei:
                cint.replay(mod, p, backend=backend)
            assert not isinstance(ei.value, (CompileError, AttributeError)) and isinstance(
                ei.value, (cint.Unreplayable, cint.ReplayDivergence))
            if want is cint.ReplayDivergence:
                assert (ei.value.index, ei.value.what) == (0, "export")


@pytest.mark.clause("H-17")
def test_recording_error_is_exported_and_is_an_unreplayable():
    assert "RecordingError" in cint.__all__ and cint.RecordingError is F.RecordingError
    assert issubclass(cint.RecordingError, cint.Unreplayable)
    assert not issubclass(cint.RecordingError, ValueError)
    e = cint.RecordingError(12, "some rule", "detail")
    assert (e.offset, e.rule, e.index, e.status) == (12, "some rule", -1, 7)
    assert str(e) == "recording byte 12: some rule: detail"


# ------------------------------------------------------------- build digests of a checkpoint's envelope

_STRUCTS = {}         # the struct layouts of the recorded program (the test sets them from its module)


def _rewrap(blob, digests):
    """The checkpoint blob with its state as it is and other build digests in its envelope."""
    from cint_abi.checkpoint import encode_checkpoint
    cp = decode_checkpoint(blob, None, raw_structs=True)
    return encode_checkpoint(cp.state_bytes, contract=cp.contract, digests=digests, structs=_STRUCTS)


def _own(rec):
    """The checkpoints the recorded context took: (setter, blob) of the initial one and each checkpoint event's."""
    out = [(lambda b: setattr(rec, "initial", b), rec.initial)]
    for ev in rec.events:
        if ev.kind == F.CHECKPOINT and ev.fields.get("data") is not None:
            out.append(((lambda e: lambda b: e.fields.__setitem__("data", b))(ev), ev.fields["data"]))
    return out


def _digests_of(blob):
    return dict(decode_checkpoint(blob, None, raw_structs=True).digests)


def _ref_digests(rec):
    return {"source:" + m.path: hashlib.sha256(m.source).digest() for m in rec.revisions[0][1]}


def d_restore_a_checkpoint_of_the_other_executor(rec, ref):
    ev = _restore_event(rec)
    ev.fields["data"] = _rewrap(ev.fields["data"], ref)


def d_every_own_checkpoint_by_the_other_executor(rec, ref):
    for put, blob in _own(rec):
        put(_rewrap(blob, ref))
    ev = _restore_event(rec)
    ev.fields["data"] = _rewrap(ev.fields["data"], ref)


def d_another_build_of_the_library(rec, ref):
    for put, blob in _own(rec):
        put(_rewrap(blob, dict(_digests_of(blob), library=b"\x5a" * 32)))


def d_a_source_map_digest(rec, ref):
    for put, blob in _own(rec):
        put(_rewrap(blob, dict(_digests_of(blob), **{"source-map": b"\x01" * 32})))


def d_the_library_of_one_checkpoint_forged(rec, ref):
    rec.initial = _rewrap(rec.initial, dict(_digests_of(rec.initial), library=b"\x5a" * 32))


def d_own_checkpoints_of_two_executors(rec, ref):
    put, blob = _own(rec)[1]
    put(_rewrap(blob, ref))


def d_a_restored_source_digest_forged(rec, ref):
    ev = _restore_event(rec)
    name = sorted(ref)[-1]
    ev.fields["data"] = _rewrap(ev.fields["data"], dict(ref, **{name: bytes(32)}))


def d_a_module_missing(rec, ref):
    ev = _restore_event(rec)
    ev.fields["data"] = _rewrap(ev.fields["data"], dict(sorted(ref.items())[:-1]))


def d_a_module_not_recorded(rec, ref):
    ev = _restore_event(rec)
    ev.fields["data"] = _rewrap(ev.fields["data"], dict(ref, **{"source:other.ci": bytes(32)}))


def d_both_forms_at_once(rec, ref):
    rec.initial = _rewrap(rec.initial, dict(_digests_of(rec.initial), **ref))


def d_a_name_of_no_executor(rec, ref):
    for put, blob in _own(rec):
        put(_rewrap(blob, dict(_digests_of(blob), compiler=bytes(32))))


def d_no_digests(rec, ref):
    for put, blob in _own(rec):
        put(_rewrap(blob, {}))


DIGESTS = [
    (d_restore_a_checkpoint_of_the_other_executor, None),
    (d_every_own_checkpoint_by_the_other_executor, None),
    (d_another_build_of_the_library, None),
    (d_a_source_map_digest, "the initial checkpoint has build digests of no executor for the recorded code"),
    (d_the_library_of_one_checkpoint_forged, "has other build digests than the initial checkpoint"),
    (d_own_checkpoints_of_two_executors, "has other build digests than the initial checkpoint"),
    (d_a_restored_source_digest_forged, "has build digests of no executor for the recorded code"),
    (d_a_module_missing, "has build digests of no executor for the recorded code"),
    (d_a_module_not_recorded, "has build digests of no executor for the recorded code"),
    (d_both_forms_at_once, "the initial checkpoint has build digests of no executor for the recorded code"),
    (d_a_name_of_no_executor, "the initial checkpoint has build digests of no executor for the recorded code"),
    (d_no_digests, "the initial checkpoint has build digests of no executor for the recorded code"),
]


@pytest.mark.clause("H-17", "H-19")
@pytest.mark.parametrize("edit, refused", DIGESTS, ids=[m.__name__[2:] for m, _ in DIGESTS])
def test_build_digests_name_an_executor_and_forged_ones_are_refused(recordings, tmp_path, private_tmp, edit,
                                                                      refused):
    """The build digests of a checkpoint's envelope name the executor that took it (docs/encodings.md):
    replay accepts either executor's, so a recording replays across executors whichever wrote its
    checkpoints, and another build of the library (another machine or compiler) replays too; digests of no
    executor, a source digest that is not the recorded source's, a source-map digest the program does not
    have, or own checkpoints (the initial one, each checkpoint event's) that differ from each other are
    refused with RecordingError before anything is built, on both backends alike."""
    mod, data, _ = recordings["acct-full"]
    _STRUCTS.update(mod._structs())
    rec = F.read(data)
    r = cint.replay(mod, _write(tmp_path, F.read(data), "o.cintrec"), backend="ref")
    ref = dict(r.context.digests)                   # what cpu-sir-interp writes for this program
    assert ref == _ref_digests(rec) and len(ref) == 2
    assert set(_digests_of(rec.initial)) == {"library", "source-map"}     # the package records on cpu-c17
    edit(rec, ref)
    p = _write(tmp_path, rec)
    got_ref, got_cpu = RF.both(mod, p)
    assert got_ref == got_cpu, (got_ref, got_cpu)
    if refused is None:
        assert got_ref == ("ok", r.boundaries, r.final_state_hash.hex())
    else:
        assert got_ref[0] == "RecordingError" and refused in got_ref[1], got_ref
    assert os.listdir(private_tmp) == []


@pytest.mark.clause("H-17", "H-18")
def test_a_digest_recording_checks_the_build_digests_of_its_initial_checkpoint(recordings, tmp_path):
    mod, data, inputs = recordings["acct-digest"]
    _STRUCTS.update(mod._structs())
    rec = F.read(data)
    rec.initial = _rewrap(rec.initial, dict(_digests_of(rec.initial), **{"source-map": b"\x02" * 32}))
    got = RF.both(mod, _write(tmp_path, rec), inputs)
    assert got[0] == got[1] and got[0][0] == "RecordingError", got


# ------------------------------------------------------------------------------------------ item 9

@pytest.mark.clause("P-16", "H-14", "H-16")
def test_one_recorded_context_from_four_threads(mods, tmp_path):
    """Four threads call one recorded context, in rounds: each call completes or raises Busy, a Busy
    call runs nothing and records nothing, the events of one call are written together, and each
    recording replays ok on both backends with exactly the completed calls.  (Before: a call could run
    and then raise Busy from its own state hash, unrecorded, and two calls' events interleaved.)"""
    mod = mods["acct"]
    for round_ in range(8):
        path = tmp_path / ("threads%d.cintrec" % round_)
        done, busy = [], []
        start = threading.Barrier(4)

        def work(t):
            start.wait()
            for k in range(300):
                try:
                    if k % 3 == 0:
                        ctx.state_hash()
                    elif k % 37 == 0:
                        ctx.restore(ctx.checkpoint())
                    elif k % 11 == 0:
                        done.append(ctx.add(t + 1, k % 2 == 0))
                    else:
                        done.append(ctx.spin(20 * (k % 4)))
                except cint.Busy:
                    busy.append(t)
        with cint.Recorder(path) as rec:
            ctx = mod.context(record=rec)
            threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            final = ctx.state_hash()
        entries = [e for e in F.read(path.read_bytes()).events if e.kind == F.ENTRY]
        assert len(entries) == len(done) and len(done) > 0
        for backend in BACKENDS:
            r = cint.replay(mod, path, backend=backend)
            assert (r.status, r.boundaries, r.final_state_hash) == ("ok", len(done), final), (round_, backend)


@pytest.mark.clause("P-16", "H-14", "H-16")
def test_a_busy_call_on_a_recorded_context_changes_nothing(mods, tmp_path):
    """While one call holds a recorded context, a second gets Busy before it runs or is recorded."""
    mod = mods["counter"]
    path = tmp_path / "busy.cintrec"
    with cint.Recorder(path) as rec:
        ctx = mod.context(record=rec)
        ctx.bump(1)
        before = ctx.state_hash()
        gate = ctx.bump._gate
        with gate("test"):                      # as if another thread's call were running
            for call in (lambda: ctx.bump(5), lambda: ctx.entry("bump")(5), ctx.state_hash, ctx.checkpoint,
                         ctx.clear_fault, lambda: ctx.restore(b"")):
                with pytest.raises(cint.Busy):
                    call()
        assert ctx.state_hash() == before
        assert ctx.bump(2) == 3
    assert [e.fields["seq"] for e in F.read(path.read_bytes()).events if e.kind == F.ENTRY] == [1, 2]
    with pytest.raises(cint.RecorderError, match="closed"):
        ctx.bump(1)
    assert cint.replay(mod, path, backend="cpu").boundaries == 2


@pytest.mark.clause("P-16", "H-14", "H-16")
def test_four_recorded_contexts_from_four_threads(mods, tmp_path):
    mod = mods["acct"]
    finals = {}

    def work(t):
        with cint.Recorder(tmp_path / ("c%d.cintrec" % t)) as rec:
            ctx = mod.context(record=rec)
            for k in range(60):
                try:
                    ctx.add(k * (t + 1), k % 2 == 1)
                except cint.ErrorResult:
                    pass
                if k % 20 == 0:
                    ctx.restore(ctx.checkpoint())
            finals[t] = ctx.state_hash()
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(finals) == 4
    for t in range(4):
        for backend in BACKENDS:
            r = cint.replay(mod, tmp_path / ("c%d.cintrec" % t), backend=backend)
            assert (r.status, r.boundaries, r.final_state_hash) == ("ok", 60, finals[t])
