"""What one recorded call produced, the same on every executor (9.3 H-14 outcome event).

``EntryOutcome`` holds exactly the fields replay compares, in the order it compares them (H-17):
status, fault-record bytes, fuel consumed, result, error result, state hash; and the print
statements the entry ran (H-7).  An executor adapter (``RefExecutor`` here, the cpu-c17 adapter in
the ``cint`` package) turns a call into one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from cint_abi.codes import STATUSES

OK = STATUSES["CINT_OK"]
FAULT = STATUSES["CINT_FAULT"]
REFUSED = STATUSES["CINT_REFUSED"]
BUSY = STATUSES["CINT_BUSY"]
FAULTED = STATUSES["CINT_FAULTED"]
RESOURCE = STATUSES["CINT_RESOURCE"]
DIVERGED = STATUSES["CINT_DIVERGED"]
UNREPLAYABLE = STATUSES["CINT_UNREPLAYABLE"]
STATUS_NAMES = {v: k for k, v in STATUSES.items()}


@dataclass
class EntryOutcome:
    status: int
    fault: Optional[bytes] = None          # IM-149 bytes of the fault the entry raised
    fuel: int = 0                          # fuel consumed, as cint_fuel_consumed gives it after the call
    result: Optional[bytes] = None         # the tagged result value (IM-146), or None
    error: Optional[Tuple[str, str, int]] = None   # (set's qualified name, value name, tag)
    state_hash: bytes = b""
    effects: List[bytes] = field(default_factory=list)
