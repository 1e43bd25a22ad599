"""Values of the reference executor that more than one of its modules builds or compares: handles, the zero
fill of a type, comparison and assignment of values, and the index space of a kernel's work-items."""
from __future__ import annotations

from dataclasses import dataclass

from cint_compiler.semantics.types import (I64, U8, U32, U64, ArrayType, BoolType, EnumType, FixedType, HandleType,
                                           IntType, StructType, Type)
from cint_compiler.semantics.values import (ArrayValue, EnumValue, ErrorValue, StructValue, copy_value)


@dataclass(frozen=True)
class HandleValue:
    slot: int = 0
    length: int = 0
    generation: int = 0
    container: int = 0
    kind: int = 0

    def operands(self):
        return [(U64, self.slot), (I64, self.length), (U64, self.generation), (U32, self.container), (U8, self.kind)]

    def as_tuple(self):
        return (self.slot, self.length, self.generation, self.container, self.kind)


NULL_HANDLE = HandleValue()


def zero_value(t: Type):
    """The zero fill of a type (SPEC-04 LS-67, LS-91)."""
    if isinstance(t, (IntType, FixedType)):
        return 0
    if isinstance(t, BoolType):
        return False
    if isinstance(t, EnumType):
        for n, v in t.members.items():
            if v == 0:
                return EnumValue(t.qname, n, 0)
        return None
    if isinstance(t, StructType):
        return StructValue(t, {n: zero_value(ft) for n, ft, _ in t.fields})
    if isinstance(t, ArrayType):
        return ArrayValue.new(t.elem, [d if isinstance(d, int) else 0 for d in t.dims], lambda: zero_value(t.elem))
    if isinstance(t, HandleType):
        return NULL_HANDLE
    return None


def _from_cells(elem, shape, cells):
    a = ArrayValue.new(elem, shape, lambda: None)
    a.storage.cells[:] = cells
    return a


def compare(op, t, a, b):
    if isinstance(a, EnumValue):
        a, b = a.value, b.value
    elif isinstance(a, ErrorValue):
        a, b = (a.set, a.name), (b.set, b.name)
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def assign_value(cur, v):
    """The value to store over ``cur``: a copy of ``v``, written into ``cur``'s own storage when both are structs,
    so that an `inout` reference or a view of one of its array fields sees the store (SPEC-04 LS-107, LS-119)."""
    if isinstance(cur, StructValue) and cur is v:
        return cur
    if isinstance(cur, StructValue) and isinstance(v, StructValue):
        for name, x in v.fields.items():
            old = cur.fields.get(name)
            if isinstance(old, ArrayValue) and isinstance(x, ArrayValue) and tuple(old.shape) == tuple(x.shape):
                for i in old.indices():
                    old.set(i, assign_value(old.get(i), x.get(i)))
            else:
                cur.fields[name] = assign_value(old, x)
        return cur
    return copy_value(v)


def _field_storages(sv: StructValue) -> list:
    """The storage of every array that is part of a struct value, through nested structs and arrays."""
    out = []
    for x in sv.fields.values():
        if isinstance(x, StructValue):
            out.extend(_field_storages(x))
        elif isinstance(x, ArrayValue):
            out.append(x.storage)
            for e in x.storage.cells:
                if isinstance(e, StructValue):
                    out.extend(_field_storages(e))
    return out


def _overlap(a: ArrayValue, b: ArrayValue) -> bool:
    sa = {a.offset(i) for i in a.indices()}
    return any(b.offset(i) in sa for i in b.indices())


def _iter_space(extents):
    if any(x == 0 for x in extents):
        return
    idx = [0] * len(extents)
    while True:
        yield tuple(idx)
        k = len(extents) - 1
        while k >= 0:
            idx[k] += 1
            if idx[k] < extents[k]:
                break
            idx[k] = 0
            k -= 1
        if k < 0:
            return
