"""Run-time values of the reference interpreter.

Scalars are plain Python objects: an integer type's value is an ``int``; a
fixed-point value is its raw storage ``int`` (the static type says it is
fixed point); a ``Bool`` is a ``bool``; a ``Str`` is ``bytes``.  Named and
aggregate values are the classes below.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Tuple

from cint_compiler.semantics.types import Type


@dataclass(frozen=True)
class EnumValue:
    """An enumerator: its enum's qualified name, its name and its integer value."""
    enum: str
    name: str
    value: int


@dataclass(frozen=True)
class ErrorValue:
    """An error value: the qualified name of the set that declares it and its name.

    Its tag depends on the static error set that holds it (SPEC-04 LS-97).
    """
    set: str
    name: str


@dataclass(frozen=True)
class RoundValue:
    name: str


class Storage:
    """A run of elements: the memory of an owned array (a list of scalar values)."""

    __slots__ = ("cells", "ident")
    _next = 0

    def __init__(self, cells: list):
        self.cells = cells
        Storage._next += 1
        self.ident = Storage._next


@dataclass(eq=False)
class ArrayValue:
    """An array or a view of one: storage, origin, shape, strides (in elements) and lower bounds."""

    elem: Type
    storage: Storage
    origin: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    lower: Tuple[int, ...] = None
    writable: bool = True

    def __post_init__(self):
        if self.lower is None:
            self.lower = (0,) * len(self.shape)

    @classmethod
    def new(cls, elem: Type, shape, fill) -> "ArrayValue":
        """A fresh owned, row-major array of ``shape`` filled by ``fill()`` per element."""
        shape = tuple(shape)
        n = 1
        for e in shape:
            n *= e
        strides = []
        acc = 1
        for e in reversed(shape):
            strides.append(acc)
            acc *= e
        return cls(elem, Storage([fill() for _ in range(n)]), 0, shape, tuple(reversed(strides)))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for e in self.shape:
            n *= e
        return n

    def offset(self, idx) -> int:
        """Storage offset of the element at zero-based logical index ``idx`` (no checks)."""
        off = self.origin
        for i, s in zip(idx, self.strides):
            off += i * s
        return off

    def get(self, idx):
        return self.storage.cells[self.offset(idx)]

    def set(self, idx, v):
        self.storage.cells[self.offset(idx)] = v

    def indices(self):
        """Zero-based logical indices in row-major order (SPEC-01 IM-74)."""
        if any(e == 0 for e in self.shape):
            return
        idx = [0] * self.rank
        while True:
            yield tuple(idx)
            k = self.rank - 1
            while k >= 0:
                idx[k] += 1
                if idx[k] < self.shape[k]:
                    break
                idx[k] = 0
                k -= 1
            if k < 0:
                return

    def elements(self) -> List[object]:
        """Every element in row-major logical order."""
        return [self.get(i) for i in self.indices()]

    def nested(self):
        """Elements as nested Python lists of the array's shape."""
        def build(prefix, dim):
            if dim == self.rank:
                return self.get(tuple(prefix))
            return [build(prefix + [i], dim + 1) for i in range(self.shape[dim])]
        return build([], 0)


@dataclass(eq=False)
class StructValue:
    """A struct value: its type and its field values by name (declaration order)."""

    type: Type
    fields: dict = field(default_factory=dict)

    def copy(self) -> "StructValue":
        return StructValue(self.type, {k: copy_value(v) for k, v in self.fields.items()})


def copy_value(v):
    """A deep copy of a value for assignment semantics (structs and owned arrays copy)."""
    if isinstance(v, StructValue):
        return v.copy()
    if isinstance(v, ArrayValue):
        out = ArrayValue.new(v.elem, v.shape, lambda: None)
        for dst, src in zip(out.indices(), v.indices()):
            out.set(dst, copy_value(v.get(src)))
        out.lower = v.lower
        return out
    return v


class LiveStr:
    """A Str that views U8 storage (the result of `format` or `utf8`, SPEC-04 LS-216, section 6.8): its bytes are
    read from the storage at each use, so a later store into the buffer shows through it, as it does through the
    cpu-c17 view. It compares, indexes and renders like the ``bytes`` of a literal Str."""

    __slots__ = ("storage", "origin", "stride", "n")

    def __init__(self, storage, origin, stride, n):
        self.storage, self.origin, self.stride, self.n = storage, origin, stride, n

    def __bytes__(self):
        c = self.storage.cells
        return bytes(c[self.origin + k * self.stride] for k in range(self.n))

    def __len__(self):
        return self.n

    def __getitem__(self, k):
        return bytes(self)[k]

    def __eq__(self, other):
        return bytes(self) == bytes(other)

    def __ne__(self, other):
        return bytes(self) != bytes(other)

    def __lt__(self, other):
        return bytes(self) < bytes(other)

    def __le__(self, other):
        return bytes(self) <= bytes(other)

    def __gt__(self, other):
        return bytes(self) > bytes(other)

    def __ge__(self, other):
        return bytes(self) >= bytes(other)

    __hash__ = None
