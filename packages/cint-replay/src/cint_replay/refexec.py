"""The reference executor (cpu-sir-interp) as a replay target: calls, checkpoints, restore.

A ``RefExecutor`` holds one interpreter context of a compiled program and answers the calls a
recording makes with the outcome fields of 9.3 (``EntryOutcome``), exactly as the runtime of
cpu-c17 reports them: a call on a context that holds a fault answers CINT_FAULTED without
running or counting an entry, and leaves the fuel consumed of the last entry.

Its checkpoints are the canonical state of ``cint_compiler.canonical`` in the envelope of
``cint_abi.checkpoint``, so a checkpoint of either executor restores into the other (H-19).
"""
from __future__ import annotations

import hashlib
from typing import List, Optional

from cint_abi.codes import RUNTIME_CONTRACT
from cint_abi.encoding import encode_tagged
from cint_compiler.interp import canonical
from cint_compiler.interp.context import Context
from cint_compiler.semantics.types import (ArrayType, BoolType, EnumType, ErrorSetType, ErrorUnionType, FixedType, IntType,
                                 StructType)
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue, StructValue
from cint_compiler.interp.containers import HandleValue, memory_from_state
from cint_compiler.semantics.types import HandleType

from .outcome import FAULT, FAULTED, OK, REFUSED, EntryOutcome


class RestoreRefused(ValueError):
    """A checkpoint that this context cannot take; the context is unchanged."""


def _scalar_in(t, v, where):
    """The interpreter's value of the canonical value ``v`` of type ``t``."""
    if isinstance(t, BoolType):
        return bool(v)
    if isinstance(t, EnumType):
        for name, val in t.members.items():
            if val == v:
                return EnumValue(t.qname, name, v)
        raise RestoreRefused("%s: %d is no enumerator of %s" % (where, v, t.qname))
    if isinstance(t, ErrorSetType):
        # no error value is 0, and a zero-filled error-set value needs an initializer (LS-91, LS-314,
        # C2054), so a tag of 0 is refused like any tag outside 1..count
        if not 1 <= v <= len(t.values):
            raise RestoreRefused("%s: tag %d is no value of the error set %s" % (where, v, t.qname))
        s, name = t.values[v - 1]
        return ErrorValue(s, name)
    if isinstance(t, (IntType, FixedType)):
        return int(v)
    if isinstance(t, HandleType):
        return HandleValue(*v)
    raise RestoreRefused("%s: a module variable of type %s cannot be restored by this executor" % (where, t))


def _value_in(t, v, where):
    """The interpreter's value of the canonical value ``v`` of type ``t``: a struct (a list of field values,
    an array field as nested lists of its extents) becomes a StructValue."""
    if isinstance(t, StructType):
        if not isinstance(v, (list, tuple)) or len(v) != len(t.fields):
            raise RestoreRefused("%s: a value of struct %s has %d fields" % (where, t.qname, len(t.fields)))
        return StructValue(t, {n: _value_in(ft, fv, "%s.%s" % (where, n)) for (n, ft, _), fv in zip(t.fields, v)})
    if isinstance(t, ArrayType):
        dims = tuple(t.dims)
        it = iter([_value_in(t.elem, x, where) for x in _flatten(v, dims)])
        return ArrayValue.new(t.elem, dims, lambda: next(it))
    return _scalar_in(t, v, where)


def _flatten(v, shape):
    if len(shape) == 1:
        return list(v)
    out = []
    for row in v:
        out += _flatten(row, shape[1:])
    return out


class RefExecutor:
    """One interpreter context of ``compiled`` (cint_compiler.driver.Compiled)."""

    backend = "ref"

    def __init__(self, compiled, *, depth=256, frame_arena_elements=2_097_152):
        self.compiled = compiled
        self.depth = depth
        self.frame_arena_elements = frame_arena_elements
        self._effects: List[bytes] = []
        self.ctx = Context(compiled.program, compiled.revision, output=self._effects.append)
        self.ctx.registry = []
        self.ctx.next_buffer = 1     # the arena and pool counters are the context's own (cint_compiler.containers)
        # the structs= mapping of cint_abi: the field layout of every struct a state of this program holds
        self.structs = canonical.struct_layouts(compiled.program)
        self._last_fuel = 0
        # the envelope's build digests: each module's source (the interpreter has no other build)
        self.digests = {"source:" + p: hashlib.sha256(s.encode("utf-8")).digest() for p, s in compiled.sources.items()}

    # -- calls ------------------------------------------------------------------------------
    def function(self, name):
        p = self.compiled.program
        info = p.functions.get(name)
        if info is None or name not in p.exported:
            return None
        return info

    def params(self, name):
        """The descriptors of the parameters of export ``name`` when each is an integer or Bool (the
        entries a recording can hold, H-14b), else None."""
        info = self.function(name)
        if info is None:
            return None
        out = []
        for sym in info.params:
            t = sym.type
            if isinstance(t, BoolType):
                out.append(("bool",))
            elif isinstance(t, IntType):
                out.append(("int", t.signed, t.bits))
            else:
                return None
        return out

    def call(self, name: str, args, fuel: Optional[int]) -> EntryOutcome:
        info = self.function(name)
        if info is None:
            return EntryOutcome(REFUSED, fuel=self._last_fuel, state_hash=self.state_hash())
        ctx = self.ctx
        if ctx.fault_record is not None:
            return EntryOutcome(FAULTED, fuel=self._last_fuel, state_hash=self.state_hash())
        if len(args) != len(info.params):
            return EntryOutcome(REFUSED, fuel=self._last_fuel, state_hash=self.state_hash())
        values = []
        for sym, a in zip(info.params, args):
            values.append(bool(a) if isinstance(sym.type, BoolType) else int(a))
        del self._effects[:]
        o = ctx.run_entry("func", info, values, fuel=fuel, depth=self.depth, frame_arena=self.frame_arena_elements)
        self._last_fuel = o.fuel
        out = EntryOutcome(OK, fuel=o.fuel, effects=list(self._effects))
        if o.kind == "fault":
            out.status = FAULT
            out.fault = canonical.fault_bytes(o.record)
        elif o.kind == "error":
            es, ev = o.error
            out.error = (es.qname, ev.name, es.tag_of((ev.set, ev.name)))
        else:
            rt = info.result
            if isinstance(rt, ErrorUnionType):
                rt = rt.value
            if rt is not None and isinstance(rt, (IntType, BoolType, FixedType, EnumType)):
                d, v = canonical.value_of(rt, o.value)
                out.result = encode_tagged(d, int(v) if not isinstance(v, bool) else v)
        out.state_hash = self.state_hash()
        return out

    def result_desc(self, name):
        info = self.function(name)
        return None if info is None else info.result

    # -- state ------------------------------------------------------------------------------
    def state_bytes(self) -> bytes:
        return canonical.canonical_state(self.ctx)

    def state_hash(self) -> bytes:
        return hashlib.sha256(self.state_bytes()).digest()

    def checkpoint(self) -> bytes:
        from cint_abi.checkpoint import encode_checkpoint
        return encode_checkpoint(self.state_bytes(), contract=RUNTIME_CONTRACT, digests=self.digests,
                                 structs=self.structs)

    def clear_fault(self):
        self.ctx.clear_fault()

    def fault(self) -> Optional[bytes]:
        rec = self.ctx.fault_record
        return None if rec is None else canonical.fault_bytes(rec)

    def restore(self, data: bytes):
        """Restores a checkpoint of either executor; RestoreRefused leaves the context unchanged."""
        from cint_abi.checkpoint import decode_checkpoint
        try:
            cp = decode_checkpoint(data, self.structs)
        except ValueError as ex:
            raise RestoreRefused("malformed checkpoint: %s" % ex) from None
        if cp.contract != RUNTIME_CONTRACT:
            raise RestoreRefused("the checkpoint names runtime contract %r; this runtime is %r" % (
                cp.contract, RUNTIME_CONTRACT))
        st = cp.state
        ctx = self.ctx
        if st.revision != ctx.revision:
            raise RestoreRefused("the checkpoint is of revision %s; this program is revision %s" % (
                st.revision.hex()[:16], ctx.revision.hex()[:16]))
        # build everything first (H-19a: nothing changes unless all of it is good)
        by_name = {}
        for sym in ctx.globals:
            by_name["%s.%s" % (getattr(sym, "module", None) or ctx.modname, sym.name)] = sym
        if sorted(by_name) != sorted(n for n, _, _ in st.globals):
            raise RestoreRefused("the checkpoint's module variables are not this program's")
        new_globals = {}
        for qn, desc, value in st.globals:
            sym = by_name[qn]
            t = sym.type
            if isinstance(t, ArrayType):
                d, cur = canonical.value_of(t, ctx.globals[sym])
                if desc[:2] != d[:2] or desc[2] != d[2]:
                    raise RestoreRefused("%s: the checkpoint's type %r is not %r" % (qn, desc, d))
                flat = [_value_in(t.elem, x, qn) for x in _flatten(value, desc[2])]
                it = iter(flat)
                new_globals[sym] = ArrayValue.new(t.elem, desc[2], lambda: next(it))
            else:
                if desc != canonical.desc_of(t):
                    raise RestoreRefused("%s: the checkpoint's type %r is not %r" % (qn, desc, canonical.desc_of(t)))
                new_globals[sym] = _value_in(t, value, qn)
        # registrations: the interpreter owns no host memory; every registration is of memory it does
        # not own, so a restore drops them all, and their identifiers are not issued again (M-11a)
        nb = max(st.next_buffer, ctx.next_buffer)
        na = max(st.next_arena, ctx.next_arena)
        npool = max(st.next_pool, ctx.next_pool)
        # arenas and pools (cint_compiler.containers; the block rules were decode_state's)
        try:
            mem = memory_from_state(ctx.p, st.arenas, st.pools, na, npool, _value_in, canonical.desc_of)
        except ValueError as ex:
            raise RestoreRefused("the checkpoint's arenas and pools: %s" % ex) from None
        # commit
        for sym, v in new_globals.items():
            ctx.globals[sym] = v
        ctx.mem = mem
        ctx.registry = []
        ctx.next_buffer = nb
        ctx.entries = st.entries
        ctx.effects = st.effects
        ctx.fault_record = None if st.fault is None else bytes(st.fault)
