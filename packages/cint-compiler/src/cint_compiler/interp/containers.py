"""Arenas, pools and handles on the reference executor (docs/notes/arenas-pools.md; docs/language.md decision 24).

A :class:`Memory` belongs to one interpreter Context: it is created with the context (every module arena
and pool at its declared capacity, SPEC-03P.1 A-10), numbers arenas and pools separately from 1, and
holds the next-identifier counters of the canonical state (a child arena takes the next arena id).

* An arena's elements live in the Storage of its root (module) arena; a child arena is a region of its
  parent, ``base`` being the absolute offset of its first element.  A handle's ``slot`` is the offset of
  its run inside its own arena (decision 24, point 3).
* A pool is a table of slots (generation, occupied, value), a LIFO free list and a retired count.
* A handle is a :class:`HandleValue` (slot, length, generation, container, kind); the zero value is the
  null handle.  ``a[h]`` is an ArrayValue over the arena's storage carrying ``guard`` = (arena, handle),
  checked again at every access (M-23).

None of the operations charges fuel.  Faults are the records of the notes: E_BOUNDS ``arena.alloc`` /
``pool.insert`` and E_STALE_HANDLE ``handle.check`` / ``pool.deref`` / ``arena.alloc`` / ``arena.reset``.
"""
from __future__ import annotations

from typing import Dict, List

from cint_abi.state import IDENTIFIER_EXHAUSTED

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import I64, U8, U64, ArenaType, PoolType
from cint_compiler.semantics.values import ArrayValue, ErrorValue, Storage, copy_value
from cint_compiler.interp.values import NULL_HANDLE, HandleValue, zero_value  # noqa: F401 (HandleValue: ours to export)

GEN_MAX = (1 << 63) - 1         # generations run 0 .. 2^63 - 1 (decision 24, point 5)
KIND_NULL, KIND_ARENA, KIND_POOL = 0, 1, 2
# E_STALE_HANDLE reasons (the U8 last operand): 1..3 and 6 as the public cases show, 4 and 5 ours (decision 24, point 4)
R_NULL, R_RETIRED, R_GENERATION, R_RANGE, R_VACANT, R_CONTAINER = 1, 2, 3, 4, 5, 6
ALLOC_FULL = ErrorValue("AllocError", "full")


class ArenaObj:
    __slots__ = ("id", "qname", "parent", "elem", "capacity", "used", "generation", "retired", "storage", "base",
                 "children")

    def __init__(self, id, qname, parent, elem, capacity, storage, base):
        self.id = id
        self.qname = qname            # a module arena's qualified name; None for a child
        self.parent = parent          # the parent ArenaObj of a child
        self.elem = elem
        self.capacity = capacity
        self.used = 0
        self.generation = 0
        self.retired = False
        self.storage = storage
        self.base = base
        self.children: List["ArenaObj"] = []

    def pseudo_handle(self):
        return HandleValue(0, self.capacity, self.generation, self.id, KIND_ARENA)


class PoolSlot:
    __slots__ = ("generation", "occupied", "value")

    def __init__(self, generation=0, occupied=False, value=None):
        self.generation = generation
        self.occupied = occupied
        self.value = value


class PoolObj:
    __slots__ = ("id", "qname", "elem", "capacity", "slots", "free", "retired")

    def __init__(self, id, qname, elem, capacity):
        self.id = id
        self.qname = qname
        self.elem = elem
        self.capacity = capacity
        self.slots: List[PoolSlot] = []     # the slots used so far (a fresh slot is the next index)
        self.free: List[int] = []           # vacant reusable slots, most recently freed last (LIFO)
        self.retired = 0                    # slots whose generation cannot advance again (never reused)

    @property
    def occupied(self):
        return sum(1 for s in self.slots if s.occupied)


def _stale(op, h, cur, reason):
    return MachineFault("E_STALE_HANDLE", op, h.operands() + [(U64, cur), (U8, reason)], None, None)


class Memory:
    """The arenas and pools of one context, and the next-identifier counters."""

    def __init__(self):
        self.arenas: Dict[int, ArenaObj] = {}
        self.pools: Dict[int, PoolObj] = {}
        self.next_arena = 1
        self.next_pool = 1
        self.by_name: Dict[str, object] = {}

    @classmethod
    def create(cls, program) -> "Memory":
        m = cls()
        for info in getattr(program, "containers", ()):
            if info.kind == "arena":
                st = Storage([zero_value(info.elem) for _ in range(info.capacity)])
                a = ArenaObj(info.id, info.qname, None, info.elem, info.capacity, st, 0)
                m.arenas[info.id] = a
                m.next_arena = max(m.next_arena, info.id + 1)
                m.by_name[info.qname] = a
            else:
                p = PoolObj(info.id, info.qname, info.elem, info.capacity)
                m.pools[info.id] = p
                m.next_pool = max(m.next_pool, info.id + 1)
                m.by_name[info.qname] = p
        return m

    def container(self, sym):
        kind, cid = sym.value
        return self.arenas[cid] if kind == "arena" else self.pools[cid]

    # ------------------------------------------------------------ arenas

    def _live_arena(self, a: ArenaObj, op):
        if a.retired:
            raise _stale(op, a.pseudo_handle(), a.generation, R_RETIRED)

    def _bump(self, a: ArenaObj, n, op="alloc"):
        """The E_BOUNDS arena.alloc check of alloc(n) and child(n); True when it fits."""
        return 0 <= n <= a.capacity - a.used

    def _bounds(self, a, n):
        return MachineFault("E_BOUNDS", O.ARENA_ALLOC, [(I64, n), (I64, a.used), (I64, a.capacity)], None, None)

    def alloc(self, a: ArenaObj, n, result=False):
        self._live_arena(a, O.ARENA_ALLOC)
        if not self._bump(a, n):
            if result:
                return ("err", ALLOC_FULL)
            raise self._bounds(a, n)
        cells = a.storage.cells
        for k in range(a.base + a.used, a.base + a.used + n):
            cells[k] = zero_value(a.elem)
        h = HandleValue(a.used, n, a.generation, a.id, KIND_ARENA)
        a.used += n
        return ("ok", h) if result else h

    def child(self, a: ArenaObj, n):
        self._live_arena(a, O.ARENA_ALLOC)
        if not self._bump(a, n):
            raise self._bounds(a, n)
        if self.next_arena >= IDENTIFIER_EXHAUSTED:     # M-11: no identifier left (cpu-c17: CINT_RESOURCE)
            raise MachineFault("E_UNSUPPORTED", O.HOST_RESOURCE, [], None, None)
        c = ArenaObj(self.next_arena, None, a, a.elem, n, a.storage, a.base + a.used)
        self.next_arena += 1
        a.used += n
        a.children.append(c)
        self.arenas[c.id] = c
        return c

    def reset(self, a: ArenaObj):
        self._live_arena(a, O.ARENA_RESET)
        a.used = 0
        for c in a.children:
            self._retire(c)
        a.children = []
        if a.generation >= GEN_MAX:
            self._retire(a)          # no generation left: the arena retires itself (decision 24, point 5)
            return
        a.generation += 1

    def _retire(self, a: ArenaObj):
        a.retired = True
        for c in a.children:
            self._retire(c)

    def check_arena(self, a: ArenaObj, h: HandleValue, op=O.HANDLE_CHECK):
        """The handle check of ``a[h]`` (and of every access through a view of it); the order of the checks:
        null, container, retired, generation, range (decision 24, point 4)."""
        if h.kind == KIND_NULL:
            raise _stale(op, h, 0, R_NULL)
        if h.kind != KIND_ARENA or h.container != a.id:
            raise _stale(op, h, 0, R_CONTAINER)
        if a.retired:
            raise _stale(op, h, a.generation, R_RETIRED)
        if h.generation != a.generation:
            raise _stale(op, h, a.generation, R_GENERATION)
        if h.length < 0 or h.slot + h.length > a.used:
            raise _stale(op, h, a.generation, R_RANGE)

    def view(self, a: ArenaObj, h: HandleValue) -> ArrayValue:
        self.check_arena(a, h)
        v = ArrayValue(a.elem, a.storage, a.base + h.slot, (h.length,), (1,))
        v.guard = (a, h)
        return v

    def recheck(self, guard):
        self.check_arena(guard[0], guard[1])

    # ------------------------------------------------------------ pools

    def insert(self, p: PoolObj, v, result=False):
        if p.free:
            k = p.free.pop()
            s = p.slots[k]
        elif len(p.slots) < p.capacity:
            k = len(p.slots)
            s = PoolSlot()
            p.slots.append(s)
        else:
            if result:
                return ("err", ALLOC_FULL)
            raise MachineFault("E_BOUNDS", O.POOL_INSERT, [(I64, p.occupied), (I64, p.retired), (I64, p.capacity)],
                               None, None)
        s.occupied = True
        s.value = copy_value(v)
        h = HandleValue(k, 1, s.generation, p.id, KIND_POOL)
        return ("ok", h) if result else h

    def check_pool(self, p: PoolObj, h: HandleValue, op=O.POOL_DEREF) -> PoolSlot:
        if h.kind == KIND_NULL:
            raise _stale(op, h, 0, R_NULL)
        if h.kind != KIND_POOL or h.container != p.id:
            raise _stale(op, h, 0, R_CONTAINER)
        if h.slot >= len(p.slots):
            raise _stale(op, h, 0, R_RANGE)
        s = p.slots[h.slot]
        if h.generation != s.generation:
            raise _stale(op, h, s.generation, R_GENERATION)
        if not s.occupied:
            raise _stale(op, h, s.generation, R_VACANT)
        return s

    def remove(self, p: PoolObj, h: HandleValue):
        s = self.check_pool(p, h)
        s.occupied = False
        s.value = None
        if s.generation >= GEN_MAX:
            p.retired += 1           # its generation cannot advance: never reused (decision 24, point 5)
            return
        s.generation += 1
        p.free.append(h.slot)


def is_memory_type(t) -> bool:
    return isinstance(t, (ArenaType, PoolType))


class MemoryExec:
    """Mixin of the interpreter Context: evaluation of the member calls and indexing the checker annotated
    (containers_check)."""

    def mem_fault(self, mf, span):
        self.fault(mf, span)

    def mem_call(self, e, env):
        recv = self.eval(e.mrecv, env)
        args = [self.eval(a, env) for a in e.margs]
        op = e.mop
        mem = self.mem
        try:
            if op == "alloc":
                return mem.alloc(recv, args[0])
            if op == "alloc_result":
                return mem.alloc(recv, args[0], result=True)
            if op == "child":
                return mem.child(recv, args[0])
            if op == "reset":
                mem.reset(recv)
                return None
            if op == "insert":
                return mem.insert(recv, args[0])
            if op == "insert_result":
                return mem.insert(recv, args[0], result=True)
            if op == "remove":
                mem.remove(recv, args[0])
                return None
        except MachineFault as mf:
            self.fault(mf, e.span)
        raise AssertionError(op)

    def mem_index(self, e, env):
        """``a[h]`` (a view, checked) or ``p[h]`` (the slot's value); the position of a fault is the ``[``."""
        c = self.eval(e.base, env)
        h = self.eval(e.items[0], env)
        try:
            if e.ckind == "arena":
                return self.mem.view(c, h)
            return self.mem.check_pool(c, h).value
        except MachineFault as mf:
            self.fault(mf, e.span)

    def mem_place(self, e, env):
        """``p[h]`` as a place: (setter, getter) of the slot, checked once (IM-98)."""
        if e.ckind == "arena":
            v = self.mem_index(e, env)
            return None, (lambda: v)
        c = self.eval(e.base, env)
        h = self.eval(e.items[0], env)
        try:
            s = self.mem.check_pool(c, h)
        except MachineFault as mf:
            self.fault(mf, e.span)
        return (lambda v: setattr(s, "value", v)), (lambda: s.value)

    def mem_guard(self, arr, span):
        """An access through a view of arena storage re-checks the handle it came from (M-23)."""
        try:
            self.mem.recheck(arr.guard)
        except MachineFault as mf:
            self.fault(mf, span)


def memory_from_state(program, arenas, pools, next_arena, next_pool, value_in, desc_of) -> Memory:
    """A new Memory holding the decoded arena and pool blocks (cint_abi.arenas_pools) of a checkpoint, for a
    restore: the structural rules of H-19a are cint_abi's (decode_state); here the blocks must fit the program
    (its module arenas and pools by name, id, capacity and element type, every one present).  Raises ValueError;
    the caller's context is not touched.  ``value_in(t, v, where)`` makes an interpreter value of a canonical
    one."""
    m = Memory()
    infos = {i.qname: i for i in getattr(program, "containers", ())}
    seen = set()

    def module_info(st, kind):
        """The program's module arena (pool) that checkpoint entry ``st`` restores, marked seen."""
        info = infos.get(st.name)
        if info is None or info.kind != kind or info.id != st.id:
            raise ValueError("%s %d %r is not a module %s of this program" % (kind, st.id, st.name, kind))
        if info.capacity != st.capacity or desc_of(info.elem) != st.elem:
            raise ValueError("%s %r: capacity %d of %s in the checkpoint, %d of %s in the program"
                             % (kind, st.name, st.capacity, st.elem, info.capacity, desc_of(info.elem)))
        seen.add(st.name)
        return info

    for st in arenas:
        if st.parent is None:
            info = module_info(st, "arena")
            cells = [value_in(info.elem, v, "%s[%d]" % (st.name, k)) for k, v in enumerate(st.contents)]
            cells += [zero_value(info.elem) for _ in range(st.capacity - len(cells))]
            a = ArenaObj(st.id, st.name, None, info.elem, st.capacity, Storage(cells), 0)
        else:
            p = m.arenas.get(st.parent)
            if p is None:
                raise ValueError("arena %d names parent %d, which is not before it" % (st.id, st.parent))
            a = ArenaObj(st.id, None, p, p.elem, st.capacity, p.storage, p.base + st.offset)
            if not st.retired:
                p.children.append(a)
        a.used, a.generation, a.retired = st.used, st.generation, st.retired
        m.arenas[st.id] = a
    for st in pools:
        info = module_info(st, "pool")
        p = PoolObj(st.id, st.name, info.elem, st.capacity)
        for k, (gen, occ, val) in enumerate(st.slots):
            p.slots.append(PoolSlot(gen, occ, value_in(info.elem, val, "%s slot %d" % (st.name, k)) if occ else None))
        p.free = list(st.free)
        p.retired = st.retired
        m.pools[st.id] = p
    missing = sorted(set(infos) - seen)
    if missing:
        raise ValueError("the checkpoint lacks the arenas or pools %s of this program" % ", ".join(missing))
    m.by_name = {**{a.qname: a for a in m.arenas.values() if a.qname}, **{p.qname: p for p in m.pools.values()}}
    m.next_arena = next_arena
    m.next_pool = next_pool
    return m
