"""The canonical forms of the reference executor's outcomes and state (SPEC-01P.1 11.2, 11.3).

``fault_bytes`` writes a FaultRecord as the IM-149 layout version 2 (the bytes cint_fault_get
gives on cpu-c17); ``canonical_state`` writes a Context's state with cint_abi.state (M-3), and
``state_hash`` hashes it (M-5).  Both encoders live in cint_abi; this module only maps the
interpreter's values onto them.
"""
from __future__ import annotations

from cint_abi.codes import FAULT_CODES
from cint_abi.faultrecord import FaultRecordData, encode_fault_record
from cint_abi.state import State, encode_state

from cint_compiler.semantics.types import ArrayType, BoolType, EnumType, ErrorSetType, FixedType, HandleType, IntType, StructType, ZType
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue
from cint_compiler.interp.containers import HandleValue
import hashlib
from cint_abi.arenas_pools import ArenaState, PoolState
from cint_abi.encoding import encode_desc


def desc_of(t):
    """The cint_abi type descriptor of a value type (IM-146)."""
    if isinstance(t, BoolType):
        return ("bool",)
    if isinstance(t, HandleType):
        return ("handle",)         # ours: tag 81 (docs/encodings.md)
    if isinstance(t, ZType):
        return ("z",)
    if isinstance(t, IntType):
        return ("int", t.signed, t.bits)
    if isinstance(t, FixedType):
        return ("fixed", t.bits, t.f)
    if isinstance(t, (EnumType, ErrorSetType)):
        u = t.underlying
        return ("int", u.signed, u.bits)
    if isinstance(t, ArrayType):
        return ("array", desc_of(t.elem), None)
    if isinstance(t, StructType):
        # a record: its fields in declaration order, an array field with its literal extents
        return ("struct", t.qname, tuple(("array", desc_of(ft.elem), tuple(ft.dims)) if isinstance(ft, ArrayType)
                                          else desc_of(ft) for _, ft, _ in t.fields))
    raise NotImplementedError("the canonical form of a %s value (issue 5)" % t)


def struct_layouts(program, types=()) -> dict:
    """The ``structs=`` mapping of cint_abi (decode_state, read_tagged) for a program: qualified name ->
    field descriptors (desc_of) of every struct its types, its module variables and ``types`` name, nested
    structs included.  A struct without a canonical form (a field desc_of does not cover, an array field
    of computed extent) is left out, so a state naming it is refused."""
    out = {}

    def visit(t):
        if isinstance(t, ArrayType):
            visit(t.elem)
        elif isinstance(t, StructType) and t.qname not in out:
            out[t.qname] = None
            try:
                d = desc_of(t)
                encode_desc(d)
            except (NotImplementedError, TypeError, ValueError):
                return
            out[t.qname] = d[2]
            for _, ft, _ in t.fields:
                visit(ft)

    for t in list(getattr(program, "types", {}).values()):
        visit(t)
    for sym in getattr(program, "globals", ()):
        visit(sym.type)
    for t in types:
        visit(t)
    return {k: v for k, v in out.items() if v is not None}


def _scalar(t, v):
    if isinstance(t, StructType):
        return [value_of(ft, v.fields.get(n))[1] for n, ft, _ in t.fields]
    if isinstance(t, ErrorSetType) and v is None:
        return 0
    if isinstance(v, EnumValue):
        return v.value
    if isinstance(v, HandleValue):
        return v.as_tuple()
    if isinstance(v, ErrorValue):
        return t.tag_of((v.set, v.name))
    return v


def value_of(t, v):
    """(descriptor, value) of a value of type t, arrays as nested lists with their extents."""
    if isinstance(t, ArrayType):
        assert isinstance(v, ArrayValue)
        d = ("array", desc_of(t.elem), tuple(v.shape))
        flat = [_scalar(t.elem, x) for x in v.elements()]

        def nest(items, shape):
            if len(shape) == 1:
                return items
            step = len(items) // shape[0] if shape[0] else 0
            return [nest(items[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]
        return d, nest(flat, list(v.shape))
    return desc_of(t), _scalar(t, v)


def fault_bytes(rec) -> bytes:
    """The IM-149 bytes of a FaultRecord (a record restored from a checkpoint is kept as its bytes)."""
    if isinstance(rec, (bytes, bytearray)):
        return bytes(rec)
    addr = None
    if rec.address is not None:
        a = rec.address
        addr = (a.kernel, a.dispatch, a.phase, a.work_item if a.phase == 1 else None,
                a.step if a.phase == 1 else None)
    data = FaultRecordData(
        code=FAULT_CODES[rec.code], operation=rec.operation,
        operands=[(desc_of(t), int(v)) for t, v in rec.operands], exact=rec.exact,
        limit=None if rec.limit is None else (desc_of(rec.limit[0]), int(rec.limit[1])),
        path=rec.position.path, line=rec.position.line, column=rec.position.column,
        revision=rec.revision, source_map=rec.source_map, address=addr,
        stack=[(p.path, p.line, p.column) for p in rec.stack])
    return encode_fault_record(data)


def canonical_state(ctx) -> bytes:
    """M-3: the canonical bytes of a reference-executor context.  The interpreter registers no host
    memory itself; ``registry`` and the identifier counters are what a restore gave it (a context
    restored from a cpu-c17 checkpoint keeps the runtime's registrations it owns and the counters)."""
    gl = []
    for sym, v in ctx.globals.items():
        module = getattr(sym, "module", None) or ctx.modname
        d, val = value_of(sym.type, v)
        gl.append(("%s.%s" % (module, sym.name), d, val))
    arenas, pools = memory_state(getattr(ctx, "mem", None))
    st = State(revision=ctx.revision, globals=gl, entries=ctx.entries, arenas=arenas, pools=pools,
               fault=None if ctx.fault_record is None else fault_bytes(ctx.fault_record),
               effects=getattr(ctx, "effects", 0), registry=list(getattr(ctx, "registry", ())),
               next_buffer=getattr(ctx, "next_buffer", 1), next_arena=getattr(ctx, "next_arena", 1),
               next_pool=getattr(ctx, "next_pool", 1))
    return encode_state(st)


def memory_state(mem):
    """The arena and pool blocks' contents (cint_abi.arenas_pools) of a context's Memory (containers.py)."""
    if mem is None:
        return [], []
    arenas, pools = [], []
    for aid in sorted(mem.arenas):
        a = mem.arenas[aid]
        d = desc_of(a.elem)
        if a.parent is None:
            contents = [value_of(a.elem, a.storage.cells[k])[1] for k in range(a.used)]
            arenas.append(ArenaState(a.id, a.qname, None, 0, d, a.capacity, a.used, a.generation, a.retired,
                                     contents))
        else:
            arenas.append(ArenaState(a.id, None, a.parent.id, a.base - a.parent.base, d, a.capacity, a.used,
                                     a.generation, a.retired))
    for pid in sorted(mem.pools):
        p = mem.pools[pid]
        slots = [(s.generation, s.occupied, value_of(p.elem, s.value)[1] if s.occupied else None) for s in p.slots]
        pools.append(PoolState(p.id, p.qname, desc_of(p.elem), p.capacity, p.retired, slots, list(p.free)))
    return arenas, pools


def state_hash(ctx) -> bytes:
    return hashlib.sha256(canonical_state(ctx)).digest()
