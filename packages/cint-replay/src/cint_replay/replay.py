"""Replay (SPEC-03P.1 9.3 paragraphs 4 to 8; H-16, H-17, H-17a, H-20, H-21).

A recording is untrusted input.  ``prepare(data)`` checks it whole (format, chain of digests, end
event, every field of every event, module paths, the code's revision identity), compiles the recorded
sources in a private temporary folder (they must give that revision) and checks every checkpoint it
holds, before anything of it is used; ``check(data)`` is the same without the compile unless a
checkpoint needs struct layouts.  ``replay(data, make_executor)`` then makes a context with
``make_executor(depth, frame_arena)``, restores the initial checkpoint and applies the events in
order.  Each entry's export must take integer and Bool parameters of the recorded argument types.
At each outcome it compares status, fault-record bytes, fuel consumed, result, error result and
state hash, in that order; each print an entry runs is compared with its effect event.  The first
difference raises ReplayDivergence with the event's index; an entry whose recorded outcome is
CINT_RESOURCE, or one of whose prints got a host status other than CINT_OK, raises Unreplayable
before it is called; a file the check refuses raises RecordingError (an Unreplayable, index -1).
A boundary is an entry's outcome; ``stop=k`` stops after the k-th.

An executor adapter has: params(name) -> [descriptor] | None, call(name, args, fuel) -> EntryOutcome,
checkpoint() -> bytes, restore(bytes) (raises on refusal), state_hash() -> bytes,
fault() -> bytes | None, clear_fault().
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any, Optional

from cint_abi.codes import FUEL_MODEL, PROFILE, RUNTIME_CONTRACT
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
    """The program of a recording's own code (cint_compiler.driver.Compiled), compiled from its sources.

    The sources are written only into a private temporary folder (mode 0700, made for this call and
    removed after it), under their module paths, which F.read has checked are module names (LS-225):
    relative, identifiers only, so no path leaves the folder.  Each file is created new (O_EXCL, and
    O_NOFOLLOW where the host has it).  A source the compiler refuses raises RecordingError."""
    import shutil
    import tempfile
    from pathlib import Path

    from cint_compiler import driver
    from cint_compiler.diagnostics import CompileError
    _, mods = rec.revisions[0]
    for m in mods:                                # F.read checked them; a Recording built by hand is checked too
        why = F.module_path_problem(m.path)
        if why is not None:
            raise F.RecordingError(0, "a module path that is not a module name", "%r: %s" % (m.path[:200], why))
    try:
        d = tempfile.mkdtemp(prefix="cint-replay-")
    except OSError as ex:
        raise Unreplayable(-1, "no private temporary folder for the recorded sources: %s" % ex) from None
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            for m in mods:
                segs = m.path.split("/")
                folder = d
                for seg in segs[:-1]:
                    folder = os.path.join(folder, seg)
                    if not os.path.isdir(folder):
                        os.mkdir(folder, 0o700)
                fd = os.open(os.path.join(folder, segs[-1]), flags, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(m.source)
        except OSError as ex:                 # a full disk, say: the machine's, not the recording's
            raise Unreplayable(-1, "the recorded sources cannot be written to a temporary folder: %s" % ex) from None
        try:
            return driver.compile_file(Path(d) / mods[0].path, Path(d))
        except CompileError as ex:
            raise F.RecordingError(0, "the recorded code does not compile", str(ex)) from None
        except RecursionError:
            raise F.RecordingError(0, "the recorded code does not compile", "nesting too deep") from None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def recording_structs(rec: F.Recording):
    """The ``structs=`` mapping (cint_abi.state.decode_state) of the program a recording's code compiles to."""
    from cint_compiler.interp.canonical import struct_layouts
    return struct_layouts(compile_recording(rec).program)


def _check_header(rec: F.Recording) -> None:
    h = rec.header
    if h.profile != PROFILE or h.fuel_model != FUEL_MODEL:
        raise F.RecordingError(0, "another profile or fuel model", "%s / %s" % (h.profile, h.fuel_model))
    if h.contract != RUNTIME_CONTRACT:
        raise F.RecordingError(0, "another runtime contract", "the recording names %r; this runtime is %r" % (
            h.contract, RUNTIME_CONTRACT))
    rev, modules = rec.revisions[0]
    got = revision_identity(h.profile, h.contract, [(m.path, m.sir) for m in modules])
    if got != h.revision:
        raise F.RecordingError(0, "the recorded code does not have the recorded revision identity")


# The source-map digest of a program, as a cpu-c17 checkpoint's envelope carries it: no program of this build has
# a source map (the fault records of both executors have none, so they agree byte for byte), and the library's
# program descriptor holds 32 zero bytes there (docs/encodings.md, "Build digests").
NO_SOURCE_MAP = bytes(32)


def build_digests_problem(rec: F.Recording, digests) -> Optional[str]:
    """None when a checkpoint's build digests (its envelope) are those an executor writes for the recorded
    code, else what is wrong (docs/encodings.md, "Build digests").  cpu-c17 writes exactly ``library`` (the
    SHA-256 of the library file: another machine, compiler or build gives another, so any 32 bytes) and
    ``source-map`` (the program's source-map digest: none, NO_SOURCE_MAP); cpu-sir-interp writes exactly
    ``source:PATH`` for every recorded module, the SHA-256 of its recorded source."""
    names = set(digests)
    if names == {"library", "source-map"}:
        if bytes(digests["source-map"]) != NO_SOURCE_MAP:
            return "the source-map digest is not the recorded program's (it has no source map: 32 zero bytes)"
        return None
    mods = rec.revisions[0][1]
    want = {"source:" + m.path: hashlib.sha256(m.source).digest() for m in mods}
    if names == set(want):
        for name in sorted(want):
            if bytes(digests[name]) != want[name]:
                return "the digest %s is not the SHA-256 of the recorded source of %s" % (name, name[7:])
        return None
    shown = ", ".join(sorted(names)[:4]) + (", ..." if len(names) > 4 else "")
    return ("the build digests (%s) are those of no executor: cpu-c17 writes library and source-map, "
            "cpu-sir-interp source:PATH for each recorded module" % (shown or "none"))


def _check_checkpoints(rec: F.Recording, decode) -> None:
    """Every checkpoint the recording holds decodes, is of its revision, is of the state its event names (a
    checkpoint event's state hash, a restore event's restored hash; full mode), and has the build digests of
    an executor for the recorded code; the checkpoints the recorded context took itself (the initial one and
    every checkpoint event's) have the same build digests, one executor's (docs/encodings.md)."""
    h = rec.header
    blobs = [("the initial checkpoint", rec.initial, None, True)]
    for ev in rec.events:
        if ev.kind == F.CHECKPOINT and ev.fields.get("data") is not None:
            blobs.append(("the checkpoint of event %d" % ev.index, ev.fields["data"], ev.fields["state_hash"], True))
        elif ev.kind == F.RESTORE and ev.fields.get("data") is not None:
            blobs.append(("the checkpoint of event %d" % ev.index, ev.fields["data"], ev.fields["restored"], False))
    own = None            # the build digests of the recorded context's own checkpoints
    for what, b, want, taken in blobs:
        try:
            cp = decode(b)
        except F.RecordingError:
            raise
        except ValueError as ex:
            raise F.RecordingError(0, "%s is malformed" % what, str(ex)) from None
        if cp.contract != RUNTIME_CONTRACT:
            raise F.RecordingError(0, "%s is of another runtime contract" % what, repr(cp.contract))
        if cp.state.revision != h.revision:
            raise F.RecordingError(0, "%s is of another revision" % what)
        if want is not None and hashlib.sha256(cp.state_bytes).digest() != want:
            raise F.RecordingError(0, "%s is not of the state its event names" % what,
                                   "its state hash is %s..., the event says %s..." % (
                                       hashlib.sha256(cp.state_bytes).hexdigest()[:16], bytes(want).hex()[:16]))
        why = build_digests_problem(rec, cp.digests)
        if why is not None:
            raise F.RecordingError(0, "%s has build digests of no executor for the recorded code" % what, why)
        if taken:
            digests = sorted((k, bytes(v)) for k, v in cp.digests.items())
            if own is None:
                own = digests
            elif digests != own:
                raise F.RecordingError(0, "%s has other build digests than the initial checkpoint" % what,
                                       "the recorded context took both, so one executor and one build wrote them")
    for ev in rec.events:
        if ev.kind == F.ENTRY and h.mode == "full":
            ev.fields["decoded"] = F.decode_args(ev.fields["args"], ev.fields["name"])


def check(data: bytes, structs=None) -> F.Recording:
    """The whole-file check of 9.3 paragraph 4; RecordingError names the first problem.

    A checkpoint holding struct values decodes with ``structs`` (the mapping of cint_abi's decode_state, or
    a callable that takes the Recording and gives it); without it, the mapping of the program the recorded
    code compiles to (recording_structs), made only when a checkpoint needs one."""
    from cint_abi.checkpoint import decode_checkpoint
    rec = F.read(data)
    _check_header(rec)
    layouts = structs

    def decode(b):
        nonlocal layouts
        try:
            return decode_checkpoint(b, None if callable(layouts) else layouts)
        except ValueError as ex:
            if getattr(ex, "rule", None) != "struct layout unknown" or (layouts is not None and not callable(layouts)):
                raise
        layouts = recording_structs(rec) if layouts is None else layouts(rec)
        return decode_checkpoint(b, layouts)

    _check_checkpoints(rec, decode)
    return rec


def _check_revision(rec: F.Recording, revision) -> None:
    if revision is not None and bytes(revision) != rec.header.revision:
        raise Unreplayable(0, "the recording is of revision %s; the module given is revision %s" % (
            rec.header.revision.hex()[:16], bytes(revision).hex()[:16]))


def prepare(data: bytes, revision=None):
    """(Recording, Compiled): the whole-file check, with the recorded code compiled from its sources (in a
    private temporary folder) whatever the backend, so that every backend gives one verdict on one file:
    the format, the module paths and every event's fields first (F.read), then the header and the
    revision identity of the recorded SIR, then the sources, which must compile to that revision, then
    every checkpoint, decoded with the struct layouts of that program, and the arguments of every entry.
    With ``revision`` (the module replay was given), a recording of another revision is Unreplayable
    before anything is compiled."""
    from cint_abi.checkpoint import decode_checkpoint
    from cint_compiler.interp.canonical import struct_layouts
    rec = F.read(data)
    _check_header(rec)
    _check_revision(rec, revision)
    compiled = compile_recording(rec)
    if compiled.revision != rec.header.revision:
        raise F.RecordingError(0, "the recorded sources do not compile to the recorded revision identity")
    layouts = struct_layouts(compiled.program)
    _check_checkpoints(rec, lambda b: decode_checkpoint(b, layouts))
    return rec, compiled


def _outcome_after(rec, k):
    """The effect events of the entry at index k, and its outcome event (F.read checked the order)."""
    effects = []
    j = k + 1
    while rec.events[j].kind == F.EFFECT:
        effects.append(rec.events[j])
        j += 1
    return effects, rec.events[j]


def replay(data: bytes, make_executor, *, stop: Optional[int] = None, inputs=None, revision=None,
           structs=None, recording: Optional[F.Recording] = None) -> ReplayResult:
    """Replays ``data`` on the executor adapter ``make_executor(depth, frame_arena)`` makes.

    ``recording`` is ``data`` as check() or prepare() returned it (the whole-file check is then not made
    again).  Raises RecordingError (a subclass of Unreplayable) for a file the check refuses,
    Unreplayable and ReplayDivergence (9.3); ValueError and TypeError only for a wrong ``stop`` or
    ``inputs`` argument."""
    if stop is not None and (type(stop) is not int or stop < 0):
        raise ValueError("stop is a boundary number >= 0 or None, not %r" % (stop,))
    rec = recording if recording is not None else check(data, structs)
    _check_revision(rec, revision)
    digest = rec.header.mode == "digest"
    inputs = list(inputs) if inputs is not None else None
    entries = [ev for ev in rec.events if ev.kind == F.ENTRY]
    if digest and inputs is None and entries:
        raise Unreplayable(entries[0].index, "a digest recording holds no arguments; pass inputs=[...] with the "
                                             "arguments of each entry")
    depth = entries[0].fields["depth"] if entries else 256
    frame_arena = entries[0].fields["frame_arena"] if entries else 2_097_152
    try:
        ex = make_executor(depth, frame_arena)
    except (Unreplayable, ReplayDivergence):
        raise
    except Exception as err:      # a context this machine cannot make (CINT_RESOURCE, a refused configuration)
        raise Unreplayable(-1, "no context with depth limit %d and frame-arena capacity %d: %s" % (
            depth, frame_arena, err)) from None
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

    def unreplayable(index, reason):
        result.status = "unreplayable"
        result.final_state_hash = ex.state_hash()
        raise Unreplayable(index, reason, result)

    while k < len(events):
        ev = events[k]
        f = ev.fields
        if ev.kind == F.ENTRY:
            effects, out = _outcome_after(rec, k)
            if out.fields["status"] == RESOURCE:
                unreplayable(ev.index, "entry %d (%s) ended CINT_RESOURCE when recorded, which depends on the "
                                       "machine" % (f["seq"], f["name"]))
            for eff in effects:
                if eff.fields["status"] != 0:
                    unreplayable(eff.index, "the host returned status %d to a print of entry %d; replay gives each "
                                            "print CINT_OK only" % (eff.fields["status"], f["seq"]))
            if digest:
                if nth_entry >= len(inputs):
                    unreplayable(ev.index, "inputs= has %d argument lists; entry %d needs one" % (
                        len(inputs), nth_entry + 1))
                from cint_abi.encoding import encode_args
                try:
                    args = list(inputs[nth_entry])
                    given = hashlib.sha256(encode_args(f["name"], args)).digest()
                except (TypeError, ValueError) as err:
                    unreplayable(ev.index, "inputs[%d] are not (descriptor, value) pairs: %s" % (nth_entry, err))
                if given != f["args"]:
                    diverge(ev.index, "arguments", f["args"], given)
            else:
                args = f["decoded"]
            # the export and its parameters: integer and Bool ones, of exactly the recorded types (H-14b)
            params = ex.params(f["name"])
            if params is None:
                diverge(ev.index, "export", f["name"], "no export %s with integer and Bool parameters" % f["name"])
            if [tuple(d) for d, _ in args] != [tuple(d) for d in params]:
                diverge(ev.index, "arguments", [d for d, _ in args], list(params))
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
                unreplayable(ev.index, "a digest recording restores a checkpoint that replay did not take")
            try:
                ex.restore(cp)
            except Exception as err:
                unreplayable(ev.index, "the recorded checkpoint does not restore: %s" % err)
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
