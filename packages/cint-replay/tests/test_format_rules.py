"""The recording's validation rules (SPEC-03P.1 9.3 H-14, H-17; docs/encodings.md "Recordings"), on the
reference executor alone: module paths, the order and numbering of events, the fields of each event, the
checkpoints an event names, and the canonical writer (encode, rechain) that re-chains as anyone can."""
import hashlib
import os
import tempfile

import pytest

from cint_abi.checkpoint import decode_checkpoint
from cint_abi.encoding import revision_identity
from cint_compiler import driver
from cint_compiler.sir import encode_module
from cint_replay import Recorder, RecordingError, RefExecutor, ReplayDivergence, Unreplayable, replay
from cint_replay import format as F
from cint_replay.replay import prepare

COUNTER = """// counter.ci
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


@pytest.fixture(scope="module")
def data(compiled, tmp_path_factory):
    p = tmp_path_factory.mktemp("rec") / "r.cintrec"
    ex = RefExecutor(compiled)
    rec = Recorder(p)
    mods = [F.Module(m.path, encode_module(m), m.source.encode()) for m in reversed(compiled.modules)]
    rec.attach(revision=compiled.revision, modules=mods, initial_checkpoint=ex.checkpoint())
    for n in (2, 40):
        rec.entry("bump", [(I64, n)], fuel=None, depth=256, frame_arena=2_097_152, outcome=ex.call("bump", [n], None))
    saved = ex.checkpoint()
    rec.checkpoint(ex.state_hash(), saved)
    rec.entry("bump", [(I64, 1)], fuel=None, depth=256, frame_arena=2_097_152, outcome=ex.call("bump", [1], None))
    before = ex.state_hash()
    ex.restore(saved)
    rec.restore(before, hashlib.sha256(decode_checkpoint(saved).state_bytes).digest(), saved, ex.state_hash())
    rec.close()
    return p.read_bytes()


def make(compiled):
    return lambda depth, frame: RefExecutor(compiled, depth=depth, frame_arena_elements=frame)


@pytest.mark.clause("H-17")
@pytest.mark.parametrize("path", ["counter.ci", "lib/util.ci", "_a/b_1/C9.ci"])
def test_module_names_are_module_paths(path):
    assert F.module_path_problem(path) is None


@pytest.mark.clause("H-17")
@pytest.mark.parametrize("path", ["/etc/x.ci", "../x.ci", "a/../b.ci", "./a.ci", "a\x00b.ci", "a\\b.ci", "a.b.ci",
                                  "", "x", "a//b.ci", "a/b.ci/", "1a.ci", "\u00e9.ci", "CON.ci", "lib/nul.ci",
                                  "Com1.ci", "C:/x.ci", "a b.ci"])
def test_other_paths_are_not(path):
    assert F.module_path_problem(path) is not None


@pytest.mark.clause("H-14")
def test_encode_and_rechain_write_a_read_recording_back_byte_for_byte(data):
    assert F.encode(F.read(data)) == data
    assert F.rechain(data) == data and F.rechain(data[:-49]) == data


def _forged(data, edit, reforge=False):
    rec = F.read(data)
    edit(rec)
    if reforge:
        h = rec.header
        h.revision = revision_identity(h.profile, h.contract, [(m.path, m.sir) for m in rec.revisions[0][1]])
        rec.revisions[0] = (h.revision, rec.revisions[0][1])
    return F.encode(rec)


@pytest.mark.clause("H-17")
def test_a_module_path_outside_the_folder_is_refused_before_anything_is_written(data, tmp_path, monkeypatch):
    target = tmp_path / "outside" / "x.ci"
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))

    def edit(rec):
        rec.revisions[0][1][0].path = str(target)
    bad = _forged(data, edit, reforge=True)
    for fn in (F.read, prepare, lambda b: replay(b, None)):
        with pytest.raises(RecordingError, match="not a module name"):
            fn(bad)
    assert not target.parent.exists() and os.listdir(private) == []


@pytest.mark.clause("H-17")
def test_module_paths_that_fold_onto_each_other_are_refused(data):
    def edit(rec):
        m = rec.revisions[0][1][0]
        rec.revisions[0][1].append(F.Module("Counter.ci", m.sir, m.source))
    with pytest.raises(RecordingError, match="only in case"):
        F.read(_forged(data, edit, reforge=True))


def _entries(rec):
    return [e for e in rec.events if e.kind == F.ENTRY]


RULES = [
    (lambda r: _entries(r)[1].fields.update(seq=1), "sequence numbers"),
    (lambda r: _entries(r)[0].fields.update(seq=0), "sequence numbers"),
    (lambda r: _entries(r)[0].fields.update(name="bu mp"), "not an identifier"),
    (lambda r: _entries(r)[0].fields.update(depth=0), "depth limit 0"),
    (lambda r: _entries(r)[1].fields.update(depth=255), "another depth limit"),
    (lambda r: _entries(r)[0].fields.update(frame_arena=0), "frame-arena capacity out of range"),
    (lambda r: _entries(r)[0].fields.update(fuel=-2), "fuel budget below -1"),
    (lambda r: r.events[1].fields.update(status=-1), "no cint_status"),
    (lambda r: r.events[1].fields.update(status=8), "no cint_status"),
    (lambda r: r.events[2].fields.update(status=2), "no entry ends with"),
    (lambda r: r.events[2].fields.update(status=3), "no entry ends with"),
    (lambda r: r.events[2].fields.update(status=6), "no entry ends with"),
    (lambda r: r.events[2].fields.update(status=1, result=None), "fault record and status disagree"),
    (lambda r: r.events[2].fields.update(fault=b"\x01"), "fault record and status disagree"),
    (lambda r: r.events[2].fields.update(status=4), "not CINT_OK"),
    (lambda r: r.events[2].fields.update(error=("a", "b", 1)), "both a result and an error result"),
    (lambda r: r.events[2].fields.update(result=None, error=("a", "b", 0)), "tags count from 1"),
    (lambda r: r.events[2].fields.update(fuel=-1), "fuel consumed below 0"),
    (lambda r: r.events.pop(2), "without its outcome"),
    (lambda r: r.events.insert(0, r.events[1]), "outside an entry"),
    (lambda r: r.events.insert(0, r.events[2]), "outside an entry"),
    (lambda r: next(e for e in r.events if e.kind == F.CHECKPOINT).fields.update(data=r.initial), "not of the state"),
    (lambda r: next(e for e in r.events if e.kind == F.RESTORE).fields.update(restored=bytes(32)), "not of the state"),
    (lambda r: setattr(r.header, "contract", "cint-rt-2"), "another runtime contract"),
    (lambda r: setattr(r.revisions[0][1][0], "sir", r.revisions[0][1][0].sir + b"\x00"), "of another revision"),
]


@pytest.mark.clause("H-14", "H-17")
@pytest.mark.parametrize("edit, rule", RULES, ids=[r for _, r in RULES])
def test_each_rule_refuses_the_file_whole(compiled, data, edit, rule):
    bad = _forged(data, edit, reforge=True)
    with pytest.raises(RecordingError, match=rule) as ei:
        replay(bad, make(compiled))
    assert isinstance(ei.value, Unreplayable) and ei.value.index == -1


@pytest.mark.clause("H-17")
def test_an_entry_naming_no_export_diverges_at_the_entry(compiled, data):
    from cint_abi.encoding import encode_args
    bad = _forged(data, lambda r: _entries(r)[0].fields.update(name="gone", args=encode_args("gone", [(I64, 2)])))
    with pytest.raises(ReplayDivergence) as ei:
        replay(bad, make(compiled))
    assert (ei.value.index, ei.value.what) == (0, "export")


@pytest.mark.clause("H-7", "H-17")
def test_an_effect_status_other_than_ok_is_unreplayable_before_its_entry(compiled, data):
    bad = _forged(data, lambda r: r.events[1].fields.update(status=1))
    with pytest.raises(Unreplayable) as ei:
        replay(bad, make(compiled))
    assert ei.value.index == 1 and ei.value.result.boundaries == 0


@pytest.mark.clause("H-17")
def test_a_source_that_does_not_compile_is_a_recording_error(compiled, data):
    def edit(rec):
        rec.revisions[0][1][0].source = rec.revisions[0][1][0].source.replace(b"// counter", b"// \x1bcounter")
    bad = _forged(data, edit)
    with pytest.raises(RecordingError, match="does not compile"):
        prepare(bad)
