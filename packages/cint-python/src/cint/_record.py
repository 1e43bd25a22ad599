"""Recording a cpu-c17 context, and cint.replay (SPEC-03P.1 9.1, 9.3).

``attach(ctx, recorder)`` makes every call on ``ctx`` go through the recorder: each export method
and ``ctx.entry(name)`` becomes a recorded call (integer and Bool arguments only, H-14b), and
``checkpoint``, ``restore`` and ``clear_fault`` write their events.  The print statements of a
recorded context are captured from the output callback and written as effects (H-7).

``CpuExecutor`` is the replay adapter of a cpu-c17 context; cint_replay.RefExecutor is the one of
the reference interpreter.  ``replay(module, path, backend=..., stop=...)`` is cint.replay.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cint_abi import typesig as T
from cint_abi.encoding import encode_tagged
from cint_replay import format as F
from cint_replay import outcome as O
from cint_replay.recorder import Recorder
from cint_replay.replay import replay as _replay

from ._errors import ErrorResult, Fault, Faulted, Refused, ResourceError


def _desc(t):
    if isinstance(t, T.Bool):
        return ("bool",)
    if isinstance(t, T.Int):
        return ("int", t.signed, t.bits)
    return None


class CpuExecutor:
    """A cpu-c17 Context as a replay/recording adapter: one call -> EntryOutcome."""

    backend = "cpu"

    def __init__(self, ctx):
        self.ctx = ctx

    def _params(self, name):
        row = self.ctx._module._rows.get(name)
        if row is None or row.signature is None:
            return None, None
        return row, row.signature

    def call_raw(self, name, args, fuel):
        """(EntryOutcome, value, exception): the outcome fields of one call, and what the host gets."""
        ctx = self.ctx
        call = type(ctx).entry(ctx, name)
        ctx._output = []
        ctx._recording = True
        value = exc = None
        out = O.EntryOutcome(O.OK)
        try:
            value = call(*args, fuel=... if fuel is ... else fuel)
        except Fault as f:
            exc = f
            out.status, out.fault = O.FAULT, f.record
        except Faulted as f:
            exc = f
            out.status = O.FAULTED
        except ErrorResult as e:
            exc = e
            out.error = (type(e).qname, e.name, e.tag)
        except ResourceError as e:
            exc = e
            out.status = O.RESOURCE
        finally:
            ctx._recording = False
            out.effects = list(ctx._output)
            ctx._output = []
        if out.status == O.OK and out.error is None and value is not None:
            _, sig = self._params(name)
            rt = sig.result
            if isinstance(rt, T.ErrorUnion):
                rt = rt.value
            d = _desc(rt)
            if d is not None:
                out.result = encode_tagged(d, value)
        out.fuel = ctx.fuel_consumed()
        out.state_hash = type(ctx).state_hash(ctx)
        return out, value, exc

    def call(self, name, args, fuel):
        return self.call_raw(name, args, fuel)[0]

    def checkpoint(self):
        return type(self.ctx).checkpoint(self.ctx)

    def restore(self, data):
        return type(self.ctx).restore(self.ctx, data)

    def state_hash(self):
        return type(self.ctx).state_hash(self.ctx)

    def fault(self):
        f = self.ctx.fault()
        return None if f is None else f.record

    def clear_fault(self):
        type(self.ctx).clear_fault(self.ctx)


def _code(module):
    """(revision, [format.Module]) of a Module built from source: the root module first."""
    src = getattr(module, "source", None)
    if src is None:
        raise NotImplementedError("recording needs the program's code: load the module from its .ci source "
                                  "(cint.load('prog.ci')), not from a library file")
    from cint_compiler import driver
    from cint_compiler.sir import encode_module
    c = driver.compile_file(src)
    mods = [F.Module(m.path, encode_module(m), m.source.encode("utf-8")) for m in reversed(c.modules)]
    return c.revision, mods


def module_revision(module) -> bytes:
    return bytes(module._program.contents.revision)


class _RecordedEntry:
    def __init__(self, ex, rec, name):
        self._ex = ex
        self._rec = rec
        self.name = self.__name__ = name

    def __call__(self, *args, fuel=..., **kwargs):
        ex = self._ex
        ctx = ex.ctx
        row, sig = ex._params(self.name)
        if row is None:
            return type(ctx).entry(ctx, self.name)(*args, fuel=fuel, **kwargs)
        params = list(zip(row.parameters, sig.params))
        for pname, p in params:
            if _desc(p.type) is None:
                raise Refused("%s: parameter %s is not an integer or Bool; while a context records, an entry takes "
                              "integer and Bool arguments only (H-14b)" % (self.name, pname), parameter=pname)
        if len(args) > len(params):
            raise Refused("%s takes %d arguments, %d given" % (self.name, len(params), len(args)))
        values = dict(zip([n for n, _ in params], args))
        for k, v in kwargs.items():
            if k not in dict(params) or k in values:
                raise Refused("%s: unknown or repeated argument %r" % (self.name, k), parameter=k)
            values[k] = v
        missing = [n for n, _ in params if n not in values]
        if missing:
            raise Refused("%s: missing argument %s" % (self.name, missing[0]), parameter=missing[0])
        ordered = [values[n] for n, _ in params]
        budget = ctx._fuel if fuel is ... else fuel
        out, value, exc = ex.call_raw(self.name, ordered, budget)   # Refused / Busy propagate: nothing recorded
        argv = [(_desc(p.type), int(v)) for (_, p), v in zip(params, ordered)]
        self._rec.entry(self.name, argv, fuel=None if budget is None or budget == -1 else budget,
                        depth=ctx._cfg.depth_limit, frame_arena=ctx._cfg.frame_arena_bytes // 8 or 2_097_152,
                        outcome=out)
        if exc is not None:
            raise exc
        return value

    def __repr__(self):
        return "<cint recorded entry %s>" % self.name


def attach(ctx, rec):
    """Begins recording ``ctx`` with the Recorder ``rec`` (9.3 paragraph 1)."""
    if not isinstance(rec, Recorder):
        raise TypeError("record= takes a cint.Recorder, not %s" % type(rec).__name__)
    module = ctx._module
    revision, mods = _code(module)
    if revision != module_revision(module):
        raise Refused("the module's source changed since its library was built; load it again")
    ex = CpuExecutor(ctx)
    rec.attach(revision=revision, modules=mods, initial_checkpoint=ex.checkpoint())
    ctx._recorder = rec
    for name in list(ctx._module._rows):
        if name in ctx.__dict__:              # the export methods the context made (8.1 paragraph 3)
            setattr(ctx, name, _RecordedEntry(ex, rec, name))
    ctx.entry = lambda name: _RecordedEntry(ex, rec, name) if name in ctx._module._rows else type(ctx).entry(ctx, name)

    def checkpoint():
        data = ex.checkpoint()
        if rec.recording:
            rec.checkpoint(ex.state_hash(), data)
        return data

    def restore(data):
        before = ex.state_hash()
        ex.restore(data)          # a refused restore raises and records nothing: the state is unchanged
        if rec.recording:
            from cint_abi.checkpoint import decode_checkpoint
            restored = hashlib.sha256(decode_checkpoint(data, ctx._module._structs()).state_bytes).digest()
            rec.restore(before, restored, bytes(data), ex.state_hash())

    def clear_fault():
        held = ex.fault()
        ex.clear_fault()
        if rec.recording:
            rec.clear_fault(held, ex.state_hash())

    ctx.checkpoint = checkpoint
    ctx.restore = restore
    ctx.clear_fault = clear_fault


def _ref_compiled(rec):
    """The reference executor's program, compiled from the recording's own code."""
    from cint_replay.replay import compile_recording
    return compile_recording(rec)


def replay(module, path, *, backend="ref", stop=None, inputs=None):
    """cint.replay (9.3 paragraph 8): replays the recording at ``path`` on backend "ref" or "cpu"."""
    from cint_compiler.interp.canonical import struct_layouts
    from cint_replay.replay import check, recording_structs
    if backend not in ("ref", "cpu"):
        raise ValueError("backend is 'ref' (cpu-sir-interp) or 'cpu' (cpu-c17), not %r" % (backend,))
    data = Path(os.fspath(path)).read_bytes()
    if backend == "cpu":
        def make(depth, frame_arena):
            return CpuExecutor(module.context(fuel=None, depth=depth, frame_arena_elements=frame_arena))

        def structs(rec):     # made only when a checkpoint of the recording holds struct values
            if rec.header.revision == module_revision(module):
                return module._structs()
            return recording_structs(rec)
    else:
        made = {}

        def layouts(rec):
            made["compiled"] = _ref_compiled(rec)
            return struct_layouts(made["compiled"].program)
        rec = check(data, layouts)
        compiled = made.get("compiled") or _ref_compiled(rec)
        structs = struct_layouts(compiled.program)
        if compiled.revision != rec.header.revision:
            raise F.RecordingError(0, "the recorded sources do not compile to the recorded revision identity")

        def make(depth, frame_arena):
            from cint_replay import RefExecutor
            return RefExecutor(compiled, depth=depth, frame_arena_elements=frame_arena)
    return _replay(data, make, stop=stop, inputs=inputs, revision=module_revision(module), structs=structs)
