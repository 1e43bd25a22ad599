"""Arenas, pools and handles on cpu-c17 (docs/language.md decision 24): the code the emitter (backend_c.py)
writes for the member calls, ``a[h]`` views, ``p[h]`` places and the program's container table, over the
runtime's containers.c (runtime-c/include/cint_rt_gen.h).  The reference is containers.py: the same
operations, fault records and order of evaluation, no fuel.

* an arena value is a ``uint32_t``, the arena's row in the context (a module arena: its id - 1); a pool
  value the pool's row (its id - 1); a handle a ``cint_handle`` (null: all zero);
* ``a[h]`` is a ``cint_gen_array`` of owner CINT_OWNER_ARENA that remembers its handle: every element access
  through it, and every builtin over a named view, re-checks it (cint_gen_arena_recheck), as the interpreter
  does with ``ArrayValue.guard``;
* ``p[h]`` is the lvalue of the slot's element, checked once (IM-98).
"""
from __future__ import annotations

from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import ArenaType, ArrayType, HandleType, PoolType, StructType, ErrorUnionType
from cint_compiler.backend.c17.common import c_str

MEMORY = (ArenaType, PoolType, HandleType)


def has_memory(compiled) -> bool:
    return bool(getattr(compiled.program, "containers", ()))


def unsupported(em, compiled):
    """The span and text of the first arena, pool or handle construct this backend does not run, or None.
    None now: arrays of handles (module-level, local, array fields, arrays of structs with handle fields)
    run too, each element a ``cint_handle`` (32 bytes; the state writes its canonical 29-byte payload)."""
    return None


def handle_tmp(em, e, lines):
    return em.tmp("cint_handle", lines, em.expr(e, lines))


def container_ref(sym):
    """The C value of a module arena or pool symbol: its row in the context."""
    kind, cid = sym.value
    return "%du" % (cid - 1)


def call(em, e, lines):
    """alloc, alloc_result, child, reset, insert, insert_result, remove (containers_check.container_call):
    the receiver, then the argument, then the operation at the member name (e.span of the callee)."""
    recv = em.tmp("uint32_t", lines, em.expr(e.mrecv, lines))
    op = e.mop
    at = em.at_nostep(e.callee.span)
    if op in ("alloc", "alloc_result", "child"):
        n = em.tmp("int64_t", lines, em.expr(e.margs[0], lines))
        if op == "alloc":
            h = em.tmp("cint_handle", lines)
            lines.append("if (cint_gen_arena_alloc(ctx, %s, %s, %s, &%s)) goto fail;" % (at, recv, n, h))
            return h
        if op == "child":
            c = em.tmp("uint32_t", lines)
            lines.append("if (cint_gen_arena_child(ctx, %s, %s, %s, &%s)) goto fail;" % (at, recv, n, c))
            return c
        return _result(em, e, "cint_gen_arena_alloc_result(ctx, %s, %s, %s, &%%s.value, &%%s)" % (at, recv, n), lines)
    if op == "reset":
        lines.append("if (cint_gen_arena_reset(ctx, %s, %s)) goto fail;" % (at, recv))
        return "0"
    if op in ("insert", "insert_result"):
        T = e.mrecv.ty.elem
        v = em.tmp(em.ctype(T, e.span), lines, em.coerce(em.expr(e.margs[0], lines), e.margs[0].ty, T))
        if op == "insert":
            h = em.tmp("cint_handle", lines)
            lines.append("if (cint_gen_pool_insert(ctx, %s, %s, &%s, &%s)) goto fail;" % (at, recv, v, h))
            return h
        return _result(em, e, "cint_gen_pool_insert_result(ctx, %s, %s, &%s, &%%s.value, &%%s)" % (at, recv, v),
                       lines)
    if op == "remove":
        h = handle_tmp(em, e.margs[0], lines)
        lines.append("if (cint_gen_pool_remove(ctx, %s, %s, &%s)) goto fail;" % (at, recv, h))
        return "0"
    raise AssertionError(op)


def _result(em, e, fmt, lines):
    """An ``AllocError!Handle`` of alloc_result / insert_result: AllocError.full where the plain operation
    raises E_BOUNDS."""
    t = e.ty
    assert isinstance(t, ErrorUnionType)
    u = em.tmp(em.ctype(t, e.span), lines)
    full = em.tmp("int", lines)
    lines.append("if (%s) goto fail;" % (fmt % (u, full)))
    tag = t.errset.tag_of(("AllocError", "full"))
    lines.append("%s.tag = %s ? %d : 0;" % (u, full, tag))
    return u


def index(em, e, lines):
    """``a[h]`` (a view of the handle's run, checked at the ``[``) or ``p[h]`` (the slot's element as an
    lvalue, checked at the ``[``)."""
    c = em.tmp("uint32_t", lines, em.expr(e.base, lines))
    h = handle_tmp(em, e.items[0], lines)
    at = em.at_nostep(e.span)
    if e.ckind == "arena":
        v = em.tmp("cint_gen_array", lines)
        lines.append("if (cint_gen_arena_view(ctx, %s, %s, &%s, &%s)) goto fail;" % (at, c, h, v))
        return v
    p = em.tmp("void *", lines)
    lines.append("if (cint_gen_pool_deref(ctx, %s, %s, &%s, &%s)) goto fail;" % (at, c, h, p))
    return "(*(%s *)%s)" % (em.ctype(e.ty, e.span), p)


def recheck(em, arr, span, lines):
    """The handle check of an access through a view that may be of arena storage (only in programs with
    containers; nothing for any other program)."""
    if not em.has_mem:
        return
    lines.append("if ((%s).owner == CINT_OWNER_ARENA && cint_gen_arena_recheck(ctx, %s, &(%s))) goto fail;" % (
        arr, em.at_nostep(span), arr))


def recheck_builtin_args(em, e, lines):
    """A builtin over a named view (``sum(v)``): its handle again at the builtin's name (interp: x_Call's
    guard loop).  Only plain names: evaluating them has no effect, so checking first keeps the order."""
    if not em.has_mem or e.bname in ("len", "extent", "lower", "size"):
        return
    for a in getattr(e, "argv", ()):
        b = a
        while isinstance(b, A.Paren):
            b = b.inner
        if isinstance(b, A.Name) and isinstance(getattr(b, "ty", None), ArrayType) and \
                getattr(b.ref, "kind", None) in ("local", "param"):
            recheck(em, em.expr(b, lines), e.span, lines)


def container_table(em, lines):
    """CONTAINERS (cint_container_info) in declaration order; returns (count, its name or NULL).  A struct
    element's canonical head (0x71, qualified name) lies in the globals (U64 length, the bytes, padded to 8)
    at offset reserved - 1 (state.c reads it for the arena and pool blocks)."""
    rows = []
    for info in getattr(em.p, "containers", ()):
        qn = info.qname.encode("utf-8")
        kind = "CINT_CONTAINER_ARENA" if info.kind == "arena" else "CINT_CONTAINER_POOL"
        elem = "CINT_TAG_HANDLE, 0u, 0u, 0u, 0u, 0u, 0u" if isinstance(info.elem, HandleType) else \
            em.type_fields(info.elem)
        head = em.__dict__.get("container_heads", {}).get(info.qname, 0)
        rows.append("{{%s, %du, 0u}, %s, %du, {%s}, INT64_C(%d)}" % (
            em_c_str(qn), len(qn), kind, head, elem, info.capacity))
    if not rows:
        return 0, "NULL"
    lines.append("static const cint_container_info CONTAINERS[] = {%s};" % ", ".join(rows))
    return len(rows), "CONTAINERS"


def layout_heads(em, off):
    """Reserves in the globals the canonical head of each container of struct elements (container_table);
    returns the new end offset."""
    heads = em.__dict__.setdefault("container_heads", {})
    data = em.__dict__.setdefault("container_head_bytes", {})
    for info in getattr(em.p, "containers", ()):
        if isinstance(info.elem, StructType):
            em.c_layout(info.elem)
            qn = info.elem.qname.encode("utf-8")
            head = bytes([0x71]) + len(qn).to_bytes(4, "little") + qn
            off = (off + 7) // 8 * 8
            heads[info.qname] = off + 1
            data[off] = len(head).to_bytes(8, "little") + head + bytes(-len(head) % 8)
            off += len(data[off])
    return off


def em_c_str(b):
    return c_str(b)
