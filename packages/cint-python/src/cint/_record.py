"""Recording a cpu-c17 context, and cint.replay (SPEC-03P.1 9.1, 9.3).

``attach(ctx, recorder)`` makes every call on ``ctx`` go through the recorder: each export method
and ``ctx.entry(name)`` becomes a recorded call (integer and Bool arguments only, H-14b), and
``checkpoint``, ``restore`` and ``clear_fault`` write their events.  The print statements of a
recorded context are captured from the output callback and written as effects (H-7).

A recorded context takes one gate per call (``_Gate``): a second thread's call raises cint.Busy
before it runs or is recorded, and the Recorder's lock keeps one call's events together.

``CpuExecutor`` is the replay adapter of a cpu-c17 context; cint_replay.RefExecutor is the one of
the reference interpreter.  ``replay(module, path, backend=..., stop=...)`` is cint.replay: the same
whole-file check and compile of the recorded sources on both backends (cint_replay.replay.prepare).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from pathlib import Path

from cint_abi import typesig as T
from cint_abi.encoding import encode_tagged
from cint_replay import format as F
from cint_replay import outcome as O
from cint_replay.recorder import Recorder, RecorderError
from cint_replay.replay import replay as _replay

from ._errors import Busy, ErrorResult, Fault, Faulted, RecorderClosed, Refused, ResourceError


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
        out.fuel = type(ctx).fuel_consumed(ctx)
        out.state_hash = type(ctx).state_hash(ctx)
        return out, value, exc

    def params(self, name):
        """The descriptors of export ``name``'s parameters when each is an integer or Bool, else None."""
        row, sig = self._params(name)
        if row is None:
            return None
        out = [_desc(p.type) for p in sig.params]
        return None if any(d is None for d in out) else out

    def call(self, name, args, fuel):
        """Replay's call: a call the package refuses is the outcome CINT_REFUSED, as on RefExecutor."""
        if self.params(name) is None:
            return O.EntryOutcome(O.REFUSED, fuel=type(self.ctx).fuel_consumed(self.ctx), state_hash=self.state_hash())
        try:
            return self.call_raw(name, args, fuel)[0]
        except Refused:
            return O.EntryOutcome(O.REFUSED, fuel=type(self.ctx).fuel_consumed(self.ctx), state_hash=self.state_hash())

    def checkpoint(self):
        return type(self.ctx).checkpoint(self.ctx)

    def restore(self, data):
        return type(self.ctx).restore(self.ctx, data)

    def state_hash(self):
        return type(self.ctx).state_hash(self.ctx)

    def fault(self):
        f = type(self.ctx).fault(self.ctx)
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


class _Gate:
    """One call at a time on a recorded context (8.1 paragraph 8, P-16): a second caller gets cint.Busy
    before anything runs or is recorded, so a Busy call changes nothing on a recorded context either.
    Every method of a recorded context that calls into it takes the gate; the entry itself then takes
    the context's own lock as usual."""

    def __init__(self):
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def __call__(self, what):
        if not self._lock.acquire(blocking=False):
            raise Busy("%s: another call is running on this context" % what)
        try:
            yield
        finally:
            self._lock.release()


def _closed(rec, what):
    return RecorderClosed("%s: the Recorder of this context is closed, so the call would not be recorded; make "
                         "a new context (with a new Recorder to record it)" % what)


class _RecordedEntry:
    def __init__(self, ex, rec, name, gate):
        self._ex = ex
        self._rec = rec
        self._gate = gate
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
        rec = self._rec
        with self._gate(self.name), rec.lock:
            if not rec.recording:
                raise _closed(rec, self.name)
            # Refused / Busy propagate from here: the call did not run, and nothing is recorded
            out, value, exc = ex.call_raw(self.name, ordered, budget)
            argv = [(_desc(p.type), int(v)) for (_, p), v in zip(params, ordered)]
            rec.entry(self.name, argv, fuel=None if budget is None or budget == -1 else budget,
                      depth=ctx._cfg.depth_limit or 256, frame_arena=ctx._cfg.frame_arena_bytes // 8 or 2_097_152,
                      outcome=out)
        if exc is not None:
            raise exc
        return value

    def __repr__(self):
        return "<cint recorded entry %s>" % self.name


def attach(ctx, rec):
    """Begins recording ``ctx`` with the Recorder ``rec`` (9.3 paragraph 1).

    Every method of the context that calls into it then goes through one gate (_Gate): a call made
    while another runs raises cint.Busy and neither runs nor is recorded, and the recorder writes one
    operation's events together (its lock).  A state-changing call after the Recorder closed raises
    RecorderClosed (a cint.Refused and a cint_replay.RecorderError)."""
    if not isinstance(rec, Recorder):
        raise TypeError("record= takes a cint.Recorder, not %s" % type(rec).__name__)
    module = ctx._module
    revision, mods = _code(module)
    if revision != module_revision(module):
        raise Refused("the module's source changed since its library was built; load it again")
    if not 1 <= (ctx._cfg.depth_limit or 256) <= 0xFFFFFFFF:
        raise Refused("depth=%d: a recorded context's depth limit is at most 2**32 - 1 (a recording holds it as "
                      "a U32)" % ctx._cfg.depth_limit)
    ex = CpuExecutor(ctx)
    gate = _Gate()
    with gate("Module.context(record=...)"):
        rec.attach(revision=revision, modules=mods, initial_checkpoint=ex.checkpoint())
    ctx._recorder = rec
    for name in list(ctx._module._rows):
        if name in ctx.__dict__:              # the export methods the context made (8.1 paragraph 3)
            setattr(ctx, name, _RecordedEntry(ex, rec, name, gate))
    ctx.entry = lambda name: (_RecordedEntry(ex, rec, name, gate) if name in ctx._module._rows
                              else type(ctx).entry(ctx, name))

    def checkpoint():
        with gate("checkpoint()"), rec.lock:
            data = ex.checkpoint()
            if rec.recording:
                rec.checkpoint(ex.state_hash(), data)
            return data

    def restore(data):
        with gate("restore()"), rec.lock:
            if not rec.recording:
                raise _closed(rec, "restore()")
            before = ex.state_hash()
            ex.restore(data)          # a refused restore raises and records nothing: the state is unchanged
            from cint_abi.checkpoint import decode_checkpoint
            restored = hashlib.sha256(decode_checkpoint(data, ctx._module._structs()).state_bytes).digest()
            rec.restore(before, restored, bytes(data), ex.state_hash())

    def clear_fault():
        with gate("clear_fault()"), rec.lock:
            if not rec.recording:
                raise _closed(rec, "clear_fault()")
            held = ex.fault()
            ex.clear_fault()
            rec.clear_fault(held, ex.state_hash())

    def guarded(method, what):
        def call(*args, **kwargs):
            with gate(what):
                return method(ctx, *args, **kwargs)
        call.__name__ = method.__name__
        return call

    ctx.checkpoint = checkpoint
    ctx.restore = restore
    ctx.clear_fault = clear_fault
    cls = type(ctx)
    for name in ("state_hash", "fuel_consumed", "last_entry"):     # fault() serves the entry path itself
        setattr(ctx, name, guarded(getattr(cls, name), name + "()"))


def replay(module, path, *, backend="ref", stop=None, inputs=None):
    """cint.replay (9.3 paragraph 8): replays the recording at ``path`` on backend "ref" or "cpu".

    Both backends check the file the same way first (cint_replay.replay.prepare: the format, every
    field of every event, the module paths, the recorded sources compiled in a private temporary
    folder to the recorded revision, every checkpoint), so one file has one verdict: a ReplayResult,
    or cint.RecordingError (a subclass of cint.Unreplayable), cint.Unreplayable or
    cint.ReplayDivergence.  Nothing is written outside that temporary folder, which is removed."""
    from cint_replay.replay import prepare
    if backend not in ("ref", "cpu"):
        raise ValueError("backend is 'ref' (cpu-sir-interp) or 'cpu' (cpu-c17), not %r" % (backend,))
    if stop is not None and (type(stop) is not int or stop < 0):
        raise ValueError("stop is a boundary number >= 0 or None, not %r" % (stop,))
    data = Path(os.fspath(path)).read_bytes()
    rec, compiled = prepare(data, module_revision(module))
    if backend == "cpu":
        def make(depth, frame_arena):
            return CpuExecutor(module.context(fuel=None, depth=depth, frame_arena_elements=frame_arena))
    else:
        def make(depth, frame_arena):
            from cint_replay import RefExecutor
            return RefExecutor(compiled, depth=depth, frame_arena_elements=frame_arena)
    return _replay(data, make, stop=stop, inputs=inputs, revision=module_revision(module), recording=rec)
