"""Faults of the integer machine (SPEC-01P.1 section 9).

Low-level operations raise :class:`MachineFault`, which carries the canonical
content an operation owns (code, operation identifier, operands, exact,
limit).  The executor that caught it adds position, stack, revision and the
kernel address and turns it into a :class:`FaultRecord`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from cint_abi.codes import FAULT_CODES

from cint_compiler.semantics.types import Type


TypedValue = Tuple[Type, int]  # (type, value); fixed point carries its raw value


class MachineFault(Exception):
    """A fault raised by one operation, before the executor positions it."""

    def __init__(self, code: str, operation: str, operands: List[TypedValue] = (),
                 exact: Optional[int] = None, limit: Optional[TypedValue] = None):
        assert code in FAULT_CODES, code
        super().__init__("%s %s" % (code, operation))
        self.code = code
        self.operation = operation
        self.operands = list(operands)
        self.exact = exact
        self.limit = limit


@dataclass
class Position:
    """A canonical source position: module-relative path, line, column (SPEC-01 IM-106)."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return "%s:%d:%d" % (self.path, self.line, self.column)


@dataclass
class KernelAddress:
    """The logical address of a kernel fault (SPEC-01 IM-106, IM-112)."""

    kernel: str            # qualified name, e.g. advance_run.advance
    dispatch: int
    phase: int             # 0 entry, 1 work-item, 2 epilogue
    work_item: Optional[int] = None
    step: Optional[int] = None


@dataclass
class FaultRecord:
    """The complete canonical fault record (SPEC-01 IM-106, layout IM-149)."""

    code: str
    operation: str
    operands: List[TypedValue]
    exact: Optional[int]
    limit: Optional[TypedValue]
    position: Position
    revision: Optional[bytes] = None
    source_map: Optional[bytes] = None
    address: Optional[KernelAddress] = None
    stack: List[Position] = field(default_factory=list)

    @classmethod
    def from_machine(cls, mf: MachineFault, position: Position, **kw) -> "FaultRecord":
        return cls(mf.code, mf.operation, list(mf.operands), mf.exact, mf.limit, position, **kw)


class EntryFault(Exception):
    """Raised through the interpreter when an entry faults; carries the whole record."""

    def __init__(self, record: FaultRecord):
        super().__init__("%s %s at %s" % (record.code, record.operation, record.position))
        self.record = record
