"""Running an entry on the executor cpu-c17 through a harness executable (build.build_harness).

The harness prints `status`, `fuel`, `stdout <hex>`, `fault <hex>` (the canonical record of
cint_fault_get), `result`/`error` and `global` lines; this module turns them back into the same
Outcome the reference executor returns, decoding the fault record bytes with cint_abi, so that the
two executors are compared on the canonical bytes.
"""
from __future__ import annotations

import subprocess

from cint_abi.codes import FAULT_NAMES
from cint_abi.faultrecord import decode_fault_record

from cint_compiler.backend.c17.build import build_harness
from cint_compiler.semantics.faults import FaultRecord, KernelAddress, Position
from cint_compiler.interp.context import Outcome
from cint_compiler.semantics.types import BOOL, Z, ErrorUnionType, FixedType, IntType, VOID
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.values import ErrorValue


def _type(desc):
    if desc[0] == "bool":
        return BOOL
    if desc[0] == "z":
        return Z
    if desc[0] == "int":
        return IntType(desc[1], desc[2])
    if desc[0] == "fixed":
        return FixedType(desc[1] - desc[2], desc[2])
    raise ValueError("a fault operand of kind %r" % (desc,))


def _test_errsets(test) -> dict:
    """qualified name -> ErrorSetType of every `try` operand in a test block: the error set an error that
    leaves the block by `try` is reported in (interp: Context.run_entry)."""
    out = {}
    for n in A.descendants(test.body):
        if isinstance(n, A.Try):
            es = n.operand.ty.errset
            out[es.qname] = es
    return out


def record_from_bytes(data: bytes) -> FaultRecord:
    r = decode_fault_record(data)
    addr = None
    if r.address is not None:
        name, dispatch, phase, wi, step = r.address
        addr = KernelAddress(name, dispatch, phase, wi, step)
    ops = [(_type(d), v if not isinstance(v, bool) else int(v)) for d, v in r.operands]
    lim = None if r.limit is None else (_type(r.limit[0]), r.limit[1])
    return FaultRecord(FAULT_NAMES[r.code], r.operation, ops, r.exact, lim, Position(r.path, r.line, r.column),
                       revision=r.revision, source_map=r.source_map, address=addr,
                       stack=[Position(*p) for p in r.stack])


class CpuRun:
    """The outcome of one entry on cpu-c17, with the final module variables."""

    def __init__(self, outcome: Outcome, globals_: dict, raw: str):
        self.outcome = outcome
        self.globals = globals_
        self.raw = raw


def run_entry(compiled, kind, target, argv, fuel=None, depth=256) -> CpuRun:
    exe = build_harness(compiled, kind, target, argv)
    done = subprocess.run([str(exe), str(-1 if fuel is None else fuel), str(depth)], capture_output=True,
                          timeout=600)
    text = done.stdout.decode("ascii", "replace")
    if done.returncode != 0:
        raise RuntimeError("the cpu-c17 harness failed (exit %d): %s %s" % (done.returncode, text,
                                                                           done.stderr.decode("utf-8", "replace")))
    fields = {}
    globals_ = {}
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        if k == "global":
            n, _, val = v.partition(" ")
            globals_[n] = int(val)
        else:
            fields[k] = v
    status = int(fields["status"])
    fuel_used = int(fields["fuel"])
    stdout = bytes.fromhex(fields.get("stdout", "").strip())
    rtype = target.result if kind == "func" else VOID
    if status == 1:
        rec = record_from_bytes(bytes.fromhex(fields["fault"]))
        return CpuRun(Outcome("fault", record=rec, fuel=fuel_used, stdout=stdout), globals_, text)
    if status != 0:
        raise RuntimeError("the cpu-c17 entry ended with status %d: %s" % (status, text))
    if "error" in fields:
        es = rtype.errset if kind == "func" else _test_errsets(target).get(fields.get("errset", "").strip())
        tag = int(fields["error"])
        sset, name = es.values[tag - 1]
        return CpuRun(Outcome("error", error=(es, ErrorValue(sset, name)), fuel=fuel_used, stdout=stdout,
                              rtype=rtype), globals_, text)
    value = None
    if "result" in fields:
        value = int(fields["result"])
        if isinstance(rtype, ErrorUnionType):
            rtype = rtype.value
        if rtype == BOOL:
            value = bool(value)
    return CpuRun(Outcome("value", value=value, fuel=fuel_used, stdout=stdout, rtype=rtype), globals_, text)
