"""The one table of codes shared by the C runtime, cint_abi, the compiler and the Python package.

Fault codes (SPEC-01P.1 IM-104), statuses and refusal reasons (SPEC-03P.1 7.1),
canonical type tags (SPEC-01P.1 IM-146, SPEC-03P.1 7.5).  The C header and the
Python exceptions are checked against these tables by tests.
"""
from __future__ import annotations

# name -> number (SPEC-01P.1 IM-104; the numbers are the canonical encoding)
FAULT_CODES = {
    "E_OVERFLOW": 1,
    "E_DIV_ZERO": 2,
    "E_BOUNDS": 3,
    "E_SHAPE": 4,
    "E_SHIFT": 5,
    "E_NARROW": 6,
    "E_ALIAS": 7,
    "E_STALE_HANDLE": 8,
    "E_FUEL": 9,
    "E_UNSUPPORTED": 10,
    "E_DOMAIN": 11,
    "E_DEPTH": 12,
    "E_ASSERT": 13,
}
FAULT_NAMES = {v: k for k, v in FAULT_CODES.items()}

# One line of text per fault, as `cint run` prints it after `fault[E_...]: `.
FAULT_MESSAGES = {
    "E_OVERFLOW": "the exact result is outside the type's range",
    "E_DIV_ZERO": "division by zero",
    "E_BOUNDS": "an index or range is outside the extent",
    "E_SHAPE": "the shapes do not agree",
    "E_SHIFT": "the shift count is outside 0..w-1",
    "E_NARROW": "the value does not fit the target type",
    "E_ALIAS": "a written array overlaps another argument",
    "E_STALE_HANDLE": "the handle or view names a released generation",
    "E_FUEL": "the fuel allowance is exhausted",
    "E_UNSUPPORTED": "the executor cannot carry this out exactly",
    "E_DOMAIN": "the operand is outside the operation's domain",
    "E_DEPTH": "the call would exceed the call-depth limit",
    "E_ASSERT": "the assertion failed",
}

# SPEC-03P.1 7.1
STATUSES = {
    "CINT_OK": 0,
    "CINT_FAULT": 1,
    "CINT_REFUSED": 2,
    "CINT_BUSY": 3,
    "CINT_FAULTED": 4,
    "CINT_RESOURCE": 5,
    "CINT_DIVERGED": 6,
    "CINT_UNREPLAYABLE": 7,
}

REFUSAL_REASONS = {
    "CINT_REFUSAL_NONE": 0,
    "CINT_REFUSAL_BUFFER": 1,
    "CINT_REFUSAL_GENERATION": 2,
    "CINT_REFUSAL_TYPE": 3,
    "CINT_REFUSAL_RANK": 4,
    "CINT_REFUSAL_SIZE": 6,
    "CINT_REFUSAL_EXTENT": 7,
    "CINT_REFUSAL_ALIGN": 8,
    "CINT_REFUSAL_PERMISSION": 9,
    "CINT_REFUSAL_CALL": 10,
    "CINT_REFUSAL_BOOL": 11,
    "CINT_REFUSAL_RESULT": 12,
    "CINT_REFUSAL_LEASED": 13,
    "CINT_REFUSAL_UNSUPPORTED": 14,
    "CINT_REFUSAL_LEASE": 15,
}

# Canonical type tags (SPEC-01P.1 IM-146).
TYPE_TAGS = {
    "Bool": 0x01,
    "Z": 0x0F,
    "I8": 0x11, "I16": 0x12, "I32": 0x13, "I64": 0x14,
    "I128": 0x15, "I256": 0x16, "I512": 0x17, "I1024": 0x18,
    "U8": 0x21, "U16": 0x22, "U32": 0x23, "U64": 0x24,
    "Q": 0x31,
    "T1": 0x41, "T27": 0x42, "PT5": 0x43, "PT4": 0x44,
    "Array": 0x51,
    "ArrayAbi": 0x52,   # SPEC-03P.1 7.5: array in a type signature
    "View": 0x61,
    "Struct": 0x71,
    "ErrorSet": 0x73,
    "ErrorUnion": 0x74,
    "Redacted": 0x7F,
}
# Ours (docs/encodings.md), not a SPEC-01P.1 tag and not in TYPE_TAGS (the runtime's header does not know it):
# a handle value, payload slot U64, length I64, generation U64, container U32, kind U8 (0 null, 1 arena, 2 pool)
HANDLE_TAG = 0x81

# Phases of a kernel address (SPEC-01P.1 IM-149)
PHASES = {"entry": 0, "work-item": 1, "epilogue": 2}

# Domain strings (SPEC-01P.1 IM-152)
PROFILE = "cint-core-1"
RUNTIME_CONTRACT = "cint-rt-3"
FUEL_MODEL = "fuel-v1"
DOMAIN_FAULT_V2 = "cint-core-1/fault/v2"
DOMAIN_STATE_V1 = "cint-core-1/state/v1"
DOMAIN_REVISION_V1 = "cint-core-1/revision/v1"
DOMAIN_ARGS_V1 = "cint-core-1/args/v1"
DOMAIN_TYPE_SIGNATURE_V1 = "cint-core-1/type-signature/v1"
