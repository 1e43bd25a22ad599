"""Replay (SPEC-03P.1 9.3 paragraphs 4 to 8; H-16, H-17, H-17a, H-20, H-21).

``replay(data, make_executor)`` checks the recording whole (format, chain of digests, end event,
every checkpoint it holds, the code's revision identity) before it uses any of it, makes a
context with ``make_executor(depth, frame_arena)``, restores the initial checkpoint and applies
the events in order.  At each outcome it compares status, fault-record bytes, fuel consumed,
result, error result and state hash, in that order; each print an entry runs is compared with its
effect event.  The first difference raises ReplayDivergence with the event's index; an entry whose
recorded outcome is CINT_RESOURCE raises Unreplayable before it is called.  A boundary is an
entry's outcome; ``stop=k`` stops after the k-th.

An executor adapter has: call(name, args, fuel) -> EntryOutcome, checkpoint() -> bytes,
restore(bytes) (raises on refusal), state_hash() -> bytes, fault() -> bytes | None, clear_fault().
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional

from cint_abi.codes import FUEL_MODEL, PROFILE
from cint_abi.encoding import revision_identity

from . import format as F
from .errors import ReplayDivergence, Unreplayable
from .outcome import RESOURCE, STATUS_NAMES


@dataclass
class ReplayResult:
    status: str                      # "ok"
    boundaries: int                  # outcomes compared
    final_state_hash: bytes
    stopped: bool                    # stopped at stop=k before the end of the recording
    checkpoint: Optional[bytes]      # a checkpoint of the state replay reached
    events: int                      # events applied
    context: Any = None              # the executor adapter, as replay left it

    def __repr__(self):
        return "<ReplayResult %s boundaries=%d stopped=%s>" % (self.status, self.boundaries, self.stopped)


def compile_recording(rec: F.Recording):
    """The program of a recording's own code (cint_compiler.driver.Compiled), compiled from its sources."""
    import tempfile
    from pathlib import Path

    from cint_compiler import driver
    _, mods = rec.revisions[0]
    with tempfile.TemporaryDirectory(prefix="cint-replay-") as d:
        for m in mods:
            p = Path(d) / m.path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(m.source)
        return driver.compile_file(Path(d) / mods[0].path, Path(d))


def recording_structs(rec: F.Recording):
    """The ``structs=`` mapping (cint_abi.state.decode_state) of the program a recording's code compiles to."""
    from cint_compiler.interp.canonical import struct_layouts
    return struct_layouts(compile_recording(rec).program)


def check(data: bytes, structs=None) -> F.Recording:
    """The whole-file check of 9.3 paragraph 4; RecordingError names the first problem.

    A checkpoint holding struct values decodes with ``structs`` (the mapping of cint_abi's decode_state, or
    a callable that takes the Recording and gives it); without it, the mapping of the program the recorded
    code compiles to (recording_structs), made only when a checkpoint needs one."""
    from cint_abi.checkpoint import decode_checkpoint
    rec = F.read(data)
    h = rec.header
    if h.profile != PROFILE or h.fuel_model != FUEL_MODEL:
        raise F.RecordingError(0, "another profile or fuel model", "%s / %s" % (h.profile, h.fuel_model))
    rev, modules = rec.revisions[0]
    got = revision_identity(h.profile, h.contract, [(m.path, m.sir) for m in modules])
    if got != h.revision:
        raise F.RecordingError(0, "the recorded code does not have the recorded revision identity")
    blobs = [("the initial checkpoint", rec.initial)]
    for ev in rec.events:
        if ev.kind in (F.CHECKPOINT, F.RESTORE) and ev.fields.get("data") is not None:
            blobs.append(("the checkpoint of event %d" % ev.index, ev.fields["data"]))
    layouts = structs

    def decode(b):
        nonlocal layouts
        try:
            return decode_checkpoint(b, None if callable(layouts) else layouts)
        except ValueError as ex:
            if getattr(ex, "rule", None) != "struct layout unknown" or (layouts is not None and not callable(layouts)):
                raise
        if layouts is None:
            try:
                layouts = recording_structs(rec)
            except Exception as ex:        # the code was checked against the revision: a compiler refusal
                raise F.RecordingError(0, "the recorded code does not compile", str(ex)) from None
        else:
            layouts = layouts(rec)
        return decode_checkpoint(b, layouts)

    for what, b in blobs:
        try:
            cp = decode(b)
        except ValueError as ex:
            raise F.RecordingError(0, "%s is malformed" % what, str(ex)) from None
        if cp.state.revision != h.revision:
            raise F.RecordingError(0, "%s is of another revision" % what)
    for ev in rec.events:
        if ev.kind == F.ENTRY and h.mode == "full":
            ev.fields["decoded"] = F.decode_args(ev.fields["args"], ev.fields["name"])
    return rec


def _outcome_after(rec, k):
    """The index of the outcome event that ends the entry at index k, and the effect events between."""
    effects = []
    j = k + 1
    while j < len(rec.events) and rec.events[j].kind == F.EFFECT:
        effects.append(rec.events[j])
        j += 1
    if j >= len(rec.events) or rec.events[j].kind != F.OUTCOME:
        raise F.RecordingError(rec.events[k].offset, "an entry event without its outcome", "event %d" % k)
    return effects, rec.events[j]


def replay(data: bytes, make_executor, *, stop: Optional[int] = None, inputs=None, revision=None,
           structs=None) -> ReplayResult:
    if stop is not None and (type(stop) is not int or stop < 0):
        raise ValueError("stop is a boundary number >= 0 or None, not %r" % (stop,))
    rec = check(data, structs)
    if revision is not None and bytes(revision) != rec.header.revision:
        raise Unreplayable(0, "the recording is of revision %s; the module given is revision %s" % (
            rec.header.revision.hex()[:16], bytes(revision).hex()[:16]))
    digest = rec.header.mode == "digest"
    inputs = list(inputs) if inputs is not None else None
    entries = [ev for ev in rec.events if ev.kind == F.ENTRY]
    if digest and inputs is None and entries:
        raise Unreplayable(entries[0].index, "a digest recording holds no arguments; pass inputs=[...] with the "
                                             "arguments of each entry")
    depth = entries[0].fields["depth"] if entries else 256
    frame_arena = entries[0].fields["frame_arena"] if entries else 2_097_152
    ex = make_executor(depth, frame_arena)
    try:
        ex.restore(rec.initial)
    except Exception as err:
        raise Unreplayable(-1, "the initial checkpoint does not restore: %s" % err) from None
    result = ReplayResult("ok", 0, b"", False, None, 0, ex)
    taken = {}            # state hash -> checkpoint bytes taken during this replay (digest-mode restores)
    nth_entry = 0
    k = 0
    events = rec.events

    def diverge(index, what, recorded, replayed):
        result.status = "diverged"
        result.final_state_hash = ex.state_hash()
        raise ReplayDivergence(index, what, recorded, replayed, result)

    while k < len(events):
        ev = events[k]
        f = ev.fields
        if ev.kind == F.ENTRY:
            effects, out = _outcome_after(rec, k)
            if out.fields["status"] == RESOURCE:
                result.final_state_hash = ex.state_hash()
                raise Unreplayable(ev.index, "entry %d (%s) ended CINT_RESOURCE when recorded, which depends on the "
                                             "machine" % (f["seq"], f["name"]), result)
            if f["depth"] != depth or f["frame_arena"] != frame_arena:
                raise Unreplayable(ev.index, "entry %d changes the depth limit or frame-arena capacity" % f["seq"],
                                   result)
            if digest:
                if nth_entry >= len(inputs):
                    raise Unreplayable(ev.index, "inputs= has %d argument lists; entry %d needs one" % (
                        len(inputs), nth_entry + 1), result)
                args = list(inputs[nth_entry])
                from cint_abi.encoding import encode_args
                try:
                    given = hashlib.sha256(encode_args(f["name"], args)).digest()
                except (TypeError, ValueError) as err:
                    raise Unreplayable(ev.index, "inputs[%d] are not (descriptor, value) pairs: %s" % (
                        nth_entry, err), result) from None
                if given != f["args"]:
                    diverge(ev.index, "arguments", f["args"], given)
            else:
                args = f["decoded"]
            nth_entry += 1
            got = ex.call(f["name"], [v for _, v in args], None if f["fuel"] < 0 else f["fuel"])
            # effects, in order (H-7)
            for n, eff in enumerate(effects):
                if n >= len(got.effects):
                    diverge(eff.index, "effect count", len(effects), len(got.effects))
                data_ = got.effects[n]
                if eff.fields["data"] is not None:
                    if data_ != eff.fields["data"]:
                        diverge(eff.index, "effect", eff.fields["data"], data_)
                elif hashlib.sha256(data_).digest() != eff.fields["digest"] or len(data_) != eff.fields["length"]:
                    diverge(eff.index, "effect", eff.fields["digest"], hashlib.sha256(data_).digest())
            if len(got.effects) > len(effects):
                diverge(out.index, "effect count", len(effects), len(got.effects))
            o = out.fields
            if got.status != o["status"]:
                diverge(out.index, "status", STATUS_NAMES.get(o["status"]), STATUS_NAMES.get(got.status))
            if got.fault != o["fault"]:
                diverge(out.index, "fault", o["fault"], got.fault)
            if got.fuel != o["fuel"]:
                diverge(out.index, "fuel", o["fuel"], got.fuel)
            if got.result != o["result"]:
                diverge(out.index, "result", o["result"], got.result)
            if got.error != o["error"]:
                diverge(out.index, "error", o["error"], got.error)
            if got.state_hash != o["state_hash"]:
                diverge(out.index, "state_hash", o["state_hash"], got.state_hash)
            result.boundaries += 1
            k = out.index + 1
            result.events = k
            if stop is not None and result.boundaries >= stop:
                result.stopped = k < len(events)
                break
            continue
        if ev.kind in (F.EFFECT, F.OUTCOME):
            raise Unreplayable(ev.index, "an %s event outside an entry" % ev.name, result)
        if ev.kind == F.CHECKPOINT:
            h = ex.state_hash()
            if h != f["state_hash"]:
                diverge(ev.index, "state_hash", f["state_hash"], h)
            taken[h] = ex.checkpoint()
        elif ev.kind == F.RESTORE:
            h = ex.state_hash()
            if h != f["before"]:
                diverge(ev.index, "state_hash", f["before"], h)
            cp = f["data"] if f["data"] is not None else taken.get(f["restored"])
            if cp is None:
                raise Unreplayable(ev.index, "a digest recording restores a checkpoint that replay did not take",
                                   result)
            try:
                ex.restore(cp)
            except Exception as err:
                raise Unreplayable(ev.index, "the recorded checkpoint does not restore: %s" % err, result) from None
            h = ex.state_hash()
            if h != f["after"]:
                diverge(ev.index, "state_hash", f["after"], h)
        elif ev.kind == F.CLEAR_FAULT:
            held = ex.fault()
            if held != f["fault"]:
                diverge(ev.index, "fault", f["fault"], held)
            ex.clear_fault()
            h = ex.state_hash()
            if h != f["after"]:
                diverge(ev.index, "state_hash", f["after"], h)
        k += 1
        result.events = k
    result.final_state_hash = ex.state_hash()
    result.checkpoint = ex.checkpoint()
    return result
