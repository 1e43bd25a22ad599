"""The outcome of one program case, in the canonical `.expect` text of the upstream suite.

The `.expect` text is ASCII, LF-terminated `<key> <value>` lines in a fixed
order (the public suite's CONF-11 formats 1 to 3).  ``run_case`` compiles a
file, chooses its entry (a named entry, else the script, else ``main``, else
the only test) and runs it on an executor; ``render`` writes the text.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import Compiled, compile_file
from cint_compiler.semantics.faults import FaultRecord
from cint_compiler.semantics.types import BOOL, INT_TYPES, BoolType, FixedType, IntType, ZType, parse_fixed_name
from cint_compiler.interp.context import Context
from cint_compiler.backend.c17.emit import Unsupported
from cint_compiler.executors.cpu import run_entry


@dataclass
class CaseOutcome:
    kind: str                                  # value, fault, error, compile-error, refused
    stdout: bytes = b""
    fuel: int = 0
    value: Optional[str] = None                # rendered typed value of a return
    record: Optional[FaultRecord] = None
    error: Optional[CompileError] = None
    err_value: Optional[tuple] = None          # (set qname, value text, tag type, tag)
    err_text: Optional[str] = None             # the `error.value` text: the name, qualified only where shared
    state: List[str] = field(default_factory=list)
    reason: str = ""


def typed(t, v) -> str:
    """A typed value as the `.expect` text writes it: `I64 -2`, `Bool true`, `Z 300`."""
    if isinstance(t, BoolType) or t == BOOL:
        return "Bool %s" % ("true" if v else "false")
    if isinstance(t, ZType):
        return "Z %d" % v
    return "%s %d" % (t.name(), v)


def parse_arg(text: str):
    """`I64 0` -> (I64, 0); `Bool true` -> (Bool, True)."""
    parts = text.split()
    if len(parts) != 2:
        raise ValueError("an argument is `<type> <value>`, not %r" % text)
    tn, v = parts
    if tn == "Bool":
        if v not in ("true", "false"):
            raise ValueError("a Bool argument is true or false")
        return BOOL, v == "true"
    t = INT_TYPES.get(tn) or parse_fixed_name(tn)
    if t is None:
        raise ValueError("unknown argument type %r" % tn)
    n = int(v, 10)
    if not t.contains(n):
        raise ValueError("argument %s does not fit %s" % (v, tn))
    return t, n


def choose_entry(c: Compiled, entry: Optional[str]):
    p = c.program
    if entry is not None:
        info = p.functions.get(entry)
        if info is None:
            raise LookupError("the module has no function named %r" % entry)
        return "func", info
    if p.script is not None:
        return "script", None
    if "main" in p.functions:
        return "func", p.functions["main"]
    if len(p.tests) == 1:
        return "test", p.tests[0]
    raise LookupError("the module has no top-level statements, no main and not exactly one test: name an entry")


def make_context(c: Compiled, executor: str, output=None):
    if executor not in ("ref",):
        raise LookupError("executor %r is not available yet; this build provides `ref` (cpu-sir-interp)" % executor)
    return Context(c.program, c.revision, output=output)


def run_case(ci_path: Path, root: Optional[Path], *, entry: Optional[str] = None, args=(), fuel=None,
             depth=None, executor="ref") -> CaseOutcome:
    try:
        c = compile_file(ci_path, root)
    except CompileError as err:
        return CaseOutcome("compile-error", error=err)
    try:
        kind, target = choose_entry(c, entry)
        argv = [parse_arg(a) for a in args]
    except (LookupError, ValueError) as ex:
        return CaseOutcome("refused", reason=str(ex))
    if kind == "func":
        params = target.params
        if len(params) != len(argv):
            return CaseOutcome("refused", reason="entry %s takes %d arguments" % (target.decl.name, len(params)))
        for p, (t, _) in zip(params, argv):
            if p.type != t and getattr(p.type, "repr_type", None) != t:      # a distinct type: its representation
                return CaseOutcome("refused", reason="argument of type %s for a parameter of type %s" % (t, p.type))
    if executor == "cpu":
        try:
            run = run_entry(c, kind, target, argv, fuel=fuel, depth=depth if depth is not None else 256)
        except Unsupported as err:
            return CaseOutcome("refused", reason="cpu-c17: " + err.message)
        o = run.outcome
        final = {g: run.globals.get("%s.%s" % (g.module, g.name)) for g in c.program.globals}
    else:
        ctx = make_context(c, executor)
        o = ctx.run_entry(kind, target, [v for _, v in argv], fuel=fuel, depth=depth if depth is not None else 256)
        final = ctx.globals
    out = CaseOutcome(o.kind, stdout=o.stdout, fuel=o.fuel, record=o.record)
    if o.kind == "value" and o.rtype is not None and isinstance(o.rtype, (IntType, FixedType, BoolType)):
        out.value = typed(o.rtype, o.value)
    if o.kind == "error":
        es, ev = o.error
        out.err_value = (es.qname, "%s.%s" % (ev.set.rsplit(".", 1)[-1], ev.name), es.underlying.name(),
                         es.tag_of((ev.set, ev.name)))
        # the bare name, or `Set.name` where several member sets of the set declare that name (LS-97;
        # the public suite's format 3 cases, SPEC-09 CONF-11 rule 12)
        shared = sum(1 for _, n in es.values if n == ev.name) > 1
        out.err_text = out.err_value[1] if shared else ev.name
    # every module's variables, sorted by the bytes of the fully qualified name (SPEC-01 IM-156)
    for g in sorted(c.program.globals, key=lambda s: ("%s.%s" % (s.module or c.name, s.name)).encode("utf-8")):
        if isinstance(g.type, (IntType, FixedType, BoolType)):
            out.state.append("%s %s %s" % (g.module or c.name, g.name, typed(g.type, final[g])))
    return out


def fault_lines(rec: FaultRecord, fmt: int, prefix="fault.") -> List[str]:
    lines = ["%scode %s" % (prefix, rec.code), "%soperation %s" % (prefix, rec.operation)]
    for t, v in rec.operands:
        lines.append("%soperand %s" % (prefix, typed(t, v)))
    lines.append("%sexact %s" % (prefix, "none" if rec.exact is None else str(rec.exact)))
    lines.append("%slimit %s" % (prefix, "none" if rec.limit is None else typed(*rec.limit)))
    lines.append("fault.position %s" % rec.position)
    lines.append("fault.revision self")
    if fmt >= 2:
        lines.append("fault.source-map self")
    if fmt >= 4 and rec.address is not None:
        a = rec.address
        lines.append("fault.phase %s" % ("entry", "work-item", "epilogue")[a.phase])
        lines.append("fault.kernel %s" % a.kernel)
        if a.phase == 1:
            lines.append("fault.address %d %d %d" % (a.dispatch, a.work_item, a.step))
        else:
            lines.append("fault.address %d none none" % a.dispatch)
    elif rec.address is not None and rec.address.phase == 1:
        a = rec.address
        lines.append("fault.address %d %d %d" % (a.dispatch, a.work_item, a.step))
    else:
        lines.append("fault.address none")
    lines.append("fault.stack-depth %d" % len(rec.stack))
    if fmt >= 2:
        for p in rec.stack:
            lines.append("fault.stack %s" % p)
    return lines


def render(o: CaseOutcome, case: str, clause: Optional[str] = None, fmt: int = 1) -> str:
    lines = ["case %s" % case]
    if clause:
        lines.append("clause %s" % clause)
    if fmt >= 2:
        lines.append("format %d" % fmt)
    if o.kind == "compile-error":
        err = o.error
        lines += ["source compile-error", "outcome compile-error", "diagnostic.code %s" % err.code,
                  "diagnostic.position %s" % err.span]
        if err.fault is not None:
            f = err.fault
            lines.append("diagnostic.fault.code %s" % f.code)
            lines.append("diagnostic.fault.operation %s" % f.operation)
            for t, v in f.operands:
                lines.append("diagnostic.fault.operand %s" % typed(t, v))
            lines.append("diagnostic.fault.exact %s" % ("none" if f.exact is None else str(f.exact)))
            lines.append("diagnostic.fault.limit %s" % ("none" if f.limit is None else typed(*f.limit)))
        return "\n".join(lines) + "\n"
    if o.kind == "refused":
        lines += ["source reference", "outcome refused", "refused.reason %s" % (" ".join(o.reason.split()) or
                                                                                 "unspecified")]
        return "\n".join(lines) + "\n"
    lines += ["source reference", "outcome %s" % o.kind, "stdout-bytes %d" % len(o.stdout)]
    if o.stdout:
        lines.append("stdout-sha256 %s" % hashlib.sha256(o.stdout).hexdigest())
    if o.kind == "value" and o.value is not None:
        lines.append("return %s" % o.value)
    lines.append("fuel-consumed %d" % o.fuel)
    if o.kind == "error":
        qn, val, tagt, tag = o.err_value
        lines += ["error.set %s" % qn, "error.value %s" % (o.err_text or val), "error.tag %s %d" % (tagt, tag)]
    if o.kind == "fault":
        lines += fault_lines(o.record, fmt)
    if fmt >= 2:
        lines += ["state.global %s" % s for s in o.state]
    return "\n".join(lines) + "\n"


def expect_text(ci_path: Path, root: Path, *, case_id: str, clause: Optional[str], entry: Optional[str],
                args: list, fuel: Optional[int], depth: Optional[int], fmt: int, executor: str = "ref") -> str:
    """The complete `.expect` text this implementation produces for one case variant."""
    o = run_case(Path(ci_path), Path(root) if root is not None else None, entry=entry, args=args, fuel=fuel,
                 depth=depth, executor=executor)
    return render(o, case_id, clause, fmt)
