"""The `cint` command: run, test, outcome, check (docs/commands.md).

Exit statuses: 0 completed; 1 a fault (run) or a failed test (test); 2 a
compile error or a usage error; 6 `main` returned an error value (SPEC-04
LS-221); 70 an internal error of the toolchain (a bug: please report it).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import threading
from pathlib import Path

from cint_abi.codes import FAULT_MESSAGES

from cint_runtime.cache import main as cache_main

from cint_compiler.backend.c17.build import BuildError, build_harness, build_library
from cint_compiler.backend.c17.emit import Unsupported
from cint_compiler.backend.c17.header import write_header
from cint_compiler.conformance.expect import parse_header
from cint_compiler.conformance.outcome import choose_entry, make_context, render, run_case, typed
from cint_compiler.diagnostics import CompileError, render as render_diagnostic
from cint_compiler.driver import compile_file, module_path
from cint_compiler.executors.cpu import run_entry

EXIT_OK, EXIT_FAULT, EXIT_COMPILE, EXIT_ERROR_RESULT, EXIT_INTERNAL = 0, 1, 2, 6, 70


def _source_lines(path):
    try:
        return Path(path).read_bytes().decode("utf-8", "replace").splitlines()
    except OSError:
        return None


def print_compile_error(err: CompileError, path):
    sys.stderr.write(render_diagnostic(err, _source_lines(path)))


def fault_report(rec, fuel, source_lines, state_line) -> str:
    """The text form of a fault (SPEC-04 LS-284, SPEC-03P.1 10.3)."""
    out = ["fault[%s]: %s" % (rec.code, FAULT_MESSAGES.get(rec.code, "fault")), "  --> %s" % rec.position]
    line = rec.position.line
    if source_lines is not None and 1 <= line <= len(source_lines):
        text = source_lines[line - 1]
        num = "%2d" % line
        pad = " " * len(num)
        lead = "".join(ch if ch == "\t" else " " for ch in text[: rec.position.column - 1])
        out += ["%s |" % pad, "%s | %s" % (num, text), "%s | %s^ %s" % (pad, lead, rec.operation), "%s |" % pad]
    out.append("   = operation: %s" % rec.operation)
    out.append("   = operand-count: %d" % len(rec.operands))
    for t, v in rec.operands:
        out.append("   = operand: %s" % typed(t, v))
    if rec.exact is not None:
        out.append("   = exact:   %d" % rec.exact)
    if rec.limit is not None:
        out.append("   = limit:   %s" % typed(*rec.limit))
    out.append("   = revision: %s" % (rec.revision.hex() if rec.revision else "none"))
    out.append("   = source-map: none")
    a = rec.address
    if a is None:
        out.append("   = address: none")
    elif a.phase == 1:
        out.append("   = address: %s, dispatch %d, phase 1, work-item %d, step %d" % (a.kernel, a.dispatch, a.work_item,
                                                                                     a.step))
    else:
        out.append("   = address: %s, dispatch %d, phase %d" % (a.kernel, a.dispatch, a.phase))
    out.append("   = stack-depth: %d" % len(rec.stack))
    for p in rec.stack:
        out.append("   = called from: %s" % p)
    out.append("   = fuel-consumed: %d (not part of the fault record)" % fuel)
    out.append("   = state: %s" % state_line)
    return "\n".join(out) + "\n"


def _compile(path, root=None):
    return compile_file(path, root)


def _fuel_arg(v):
    if v is None:
        return None
    n = int(v)
    if n < 0:
        raise argparse.ArgumentTypeError("fuel is an I64 of at least 0")
    return n


def cmd_run(ns) -> int:
    c = _compile(ns.file, ns.root)
    try:
        kind, target = choose_entry(c, ns.entry)
    except LookupError as ex:
        sys.stderr.write("error: %s\n" % ex)
        return EXIT_COMPILE
    if kind == "func" and target.params:
        sys.stderr.write("error: entry `%s` takes parameters; `cint run` calls an entry without arguments\n"
                         % target.decl.name)
        return EXIT_COMPILE

    def write(data):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()

    if ns.executor == "cpu":
        try:
            o = run_entry(c, kind, target, [], fuel=ns.fuel, depth=ns.depth).outcome
        except Unsupported as err:
            print_compile_error(err, ns.file)
            return EXIT_COMPILE
        write(o.stdout)
    else:
        ctx = make_context(c, ns.executor, output=write)
        o = ctx.run_entry(kind, target, [], fuel=ns.fuel, depth=ns.depth)
    sys.stdout.flush()
    if o.kind == "fault":
        src = c.sources.get(o.record.position.path, c.source) if getattr(c, "sources", None) else c.source
        sys.stderr.write(fault_report(o.record, o.fuel, src.splitlines(),
                                      "the program stopped; stdout holds what it wrote before the fault"))
        return EXIT_FAULT
    if o.kind == "error":
        es, ev = o.error
        sys.stderr.write("error result: %s.%s (set %s, tag %d)\n" % (ev.set.rsplit(".", 1)[-1], ev.name, es.qname,
                                                                      es.tag_of((ev.set, ev.name))))
        return EXIT_ERROR_RESULT
    return EXIT_OK


def cmd_test(ns) -> int:
    c = _compile(ns.file, ns.root)
    tests = c.program.tests
    passed = 0
    for t in tests:
        if ns.executor == "cpu":
            o = run_entry(c, "test", t, [], fuel=ns.fuel, depth=ns.depth).outcome
        else:
            ctx = make_context(c, ns.executor, output=None)
            o = ctx.run_entry("test", t, [], fuel=ns.fuel, depth=ns.depth)
        ok = False
        why = ""
        if t.expect_fault is None:
            if o.kind == "value":
                ok = True
            elif o.kind == "fault" and o.record.code == "E_ASSERT":
                r = o.record
                why = "assertion failed at %s in test %r" % (r.position, t.name)
                if len(r.operands) == 2:
                    why += "\n   = left:  %s\n   = right: %s" % (typed(*r.operands[0]).split(" ", 1)[1],
                                                                typed(*r.operands[1]).split(" ", 1)[1])
            elif o.kind == "fault":
                why = "fault %s (%s) at %s" % (o.record.code, o.record.operation, o.record.position)
            else:
                why = "an error left the test"
        else:
            if o.kind == "fault" and o.record.code == t.expect_fault:
                ok = True
            elif o.kind == "fault":
                why = "expected %s, got %s at %s" % (t.expect_fault, o.record.code, o.record.position)
            else:
                why = "expected %s, the body completed" % t.expect_fault
        if ok:
            passed += 1
            print("ok     %s" % t.name)
        else:
            print("FAILED %s: %s" % (t.name, why))
    print("%d of %d tests passed" % (passed, len(tests)))
    return EXIT_OK if passed == len(tests) else EXIT_FAULT


def cmd_outcome(ns) -> int:
    path = Path(ns.file)
    try:
        header = parse_header(path.read_bytes().decode("utf-8", "replace"))
    except OSError:
        header = None
    entry, args, fuel, depth = ns.entry, ns.arg, ns.fuel, ns.depth
    case = ns.case
    clause = ns.clause
    if header is not None:
        if entry is None and header.entries and header.entries[0] is not None:
            if len(header.entries) > 1:
                sys.stderr.write("error: the case names several entries (%s); choose one with --entry\n"
                                 % ", ".join(header.entries))
                return EXIT_COMPILE
            entry = header.entries[0]
        if not args:
            args = list(header.args)
        if fuel is None:
            fuel = header.fuel
        if depth is None:
            depth = header.depth
        if clause is None:
            clause = header.clause
        if case is None:
            case = header.case
            if case is not None and ns.entry is not None and len(header.entries) > 1:
                case = "%s.%s" % (case, ns.entry)
    if case is None:
        rel = module_path(path, Path(ns.root) if ns.root else None)
        case = rel[:-3] if rel.endswith(".ci") else rel
    o = run_case(path, Path(ns.root) if ns.root else None, entry=entry, args=args, fuel=fuel,
                 depth=depth, executor=ns.executor)
    sys.stdout.write(render(o, case, clause, ns.format))
    return EXIT_OK


def cmd_build(ns) -> int:
    if ns.with_state and not ns.lib:
        sys.stderr.write("error: --with-state goes with --lib\n")
        return EXIT_COMPILE
    c = _compile(ns.file, ns.root)
    out = Path(ns.out)
    if out.exists() and not out.is_dir():
        sys.stderr.write("error: --out %s is an existing file; --out names the folder the build writes into "
                         "(it is made when missing)\n" % out)
        return EXIT_COMPILE
    try:
        if ns.lib:
            target = build_library(c, out, with_state=ns.with_state)
            write_header(target)   # libNAME.h beside the library (SPEC-03P.1 11.5)
        else:
            try:
                kind, entry = choose_entry(c, None)
            except LookupError as ex:
                sys.stderr.write("error: %s (use --lib for a library)\n" % ex)
                return EXIT_COMPILE
            if kind == "func" and entry.params:
                sys.stderr.write("error: `main` takes no parameters\n")
                return EXIT_COMPILE
            exe = build_harness(c, kind, entry, [])
            out.mkdir(parents=True, exist_ok=True)
            name = c.name.rsplit(".", 1)[-1]
            target = out / name
            shutil.copyfile(exe, target)
            target.chmod(0o755)
    except BuildError as ex:
        sys.stderr.write("internal error: %s\n" % ex)
        return EXIT_INTERNAL
    except (FileExistsError, NotADirectoryError, PermissionError) as ex:
        sys.stderr.write("error: cannot write the build into --out %s: %s\n" % (out, ex.strerror or ex))
        return EXIT_COMPILE
    print("built: %s" % target)
    return EXIT_OK


def cmd_check(ns) -> int:
    _compile(ns.file, ns.root)
    print("ok: %s" % ns.file)
    return EXIT_OK


def cmd_lower(ns) -> int:
    """The LIR of the root module's functions and kernels after every pass (docs/lir.md), or why one stays
    with the tree-walking emitter."""
    from cint_compiler.lower import NotLowered, format_function, lower_checked
    c = _compile(ns.file, ns.root)
    p = c.program
    infos = list(p.functions.values()) + list(p.kernels.values())
    if ns.function is not None:
        infos = [i for i in infos if i.decl.name == ns.function]
        if not infos:
            sys.stderr.write("error: %s has no function or kernel named %s\n" % (ns.file, ns.function))
            return EXIT_COMPILE
    out = []
    for info in infos:
        try:
            out.append(format_function(lower_checked(info, verify=True)))
        except NotLowered as ex:
            where = "" if ex.span is None else " at %d:%d" % (ex.span.line, ex.span.column)
            out.append("%s %s: not lowered (%s%s): the tree-walking emitter compiles it" % (
                "kernel" if info.is_kernel else "function", info.decl.name, ex.what, where))
    print("\n\n".join(out))
    return EXIT_OK


def cmd_cache(ns) -> int:
    return cache_main(ns.action, everything=ns.all)


def build_parser():
    ap = argparse.ArgumentParser(prog="cint", description="The cint toolchain (cint-core-1, cint 0.2.0).")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p, runs=True):
        p.add_argument("file", help="the .ci source file")
        p.add_argument("--root", default=None, help="source root: positions are relative to it (default: the file's folder)")
        if runs:
            p.add_argument("--executor", default="ref", choices=["ref", "cpu"],
                           help="ref: the reference interpreter cpu-sir-interp; cpu: cpu-c17, the program compiled to C17")
            p.add_argument("--fuel", type=_fuel_arg, default=None, help="fuel allowance of the entry (default: none)")
            p.add_argument("--depth", type=int, default=256, help="call-depth limit of the entry (default 256)")

    p = sub.add_parser("run", help="run a script (top-level statements), else main, else its only test")
    common(p)
    p.add_argument("--entry", default=None, help="run this function (without arguments) instead")
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("test", help="run the test blocks of a module")
    common(p)
    p.set_defaults(fn=cmd_test)
    p = sub.add_parser("outcome", help="print a case's outcome in the canonical .expect text")
    common(p)
    p.set_defaults(depth=None)
    p.add_argument("--entry", default=None)
    p.add_argument("--arg", action="append", default=[], help="a typed argument such as 'I64 0' (repeatable)")
    p.add_argument("--format", type=int, default=1, choices=[1, 2, 3, 4])
    p.add_argument("--case", default=None)
    p.add_argument("--clause", default=None)
    p.set_defaults(fn=cmd_outcome)
    p = sub.add_parser("build", help="build a library (--lib) or an executable with the executor cpu-c17")
    common(p, runs=False)
    p.add_argument("--lib", action="store_true", help="write OUT/libNAME.so for a module with exports")
    p.add_argument("--with-state", action="store_true",
                   help="with --lib: also export cintx_invoke and cintx_state_size/_encode/_restore (docs/runtime.md)")
    p.add_argument("--out", default="out", help="output folder (default: out)")
    p.set_defaults(fn=cmd_build)
    p = sub.add_parser("check", help="check a module without running it")
    common(p, runs=False)
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("lower", help="print the lowered IR (LIR) of the module's functions and kernels")
    common(p, runs=False)
    p.add_argument("--function", default=None, help="only this function or kernel")
    p.set_defaults(fn=cmd_lower)
    p = sub.add_parser("cache", help="the build cache: `info` (folder, size, cap) or `clean` (docs/runtime.md)")
    p.add_argument("action", choices=["info", "clean"])
    p.add_argument("--all", action="store_true", help="clean: also entries used in the last minutes")
    p.set_defaults(fn=cmd_cache)
    return ap


def _main(argv, result):
    ap = build_parser()
    try:
        ns = ap.parse_args(argv)
    except SystemExit as stop:          # --help (0) or a usage error (2): argparse's own exit status
        result.append(0 if stop.code is None else stop.code if isinstance(stop.code, int) else 2)
        return
    if getattr(ns, "depth", None) is not None and ns.depth < 1:
        sys.stderr.write("error: the depth limit is at least 1\n")
        result.append(EXIT_COMPILE)
        return
    try:
        result.append(ns.fn(ns))
    except CompileError as err:
        print_compile_error(err, ns.file)
        result.append(EXIT_COMPILE)
    except RecursionError:
        sys.stderr.write("error[C9004]: the program nests deeper than this implementation supports\n")
        result.append(EXIT_COMPILE)
    except Exception as ex:  # pragma: no cover - a bug in the toolchain
        if os.environ.get("CINT_DEBUG"):
            raise
        sys.stderr.write("internal error: %s: %s (set CINT_DEBUG=1 for the traceback; please report it)\n"
                         % (type(ex).__name__, ex))
        result.append(EXIT_INTERNAL)


def main(argv=None) -> int:
    """Entry point of the `cint` command; runs on a thread with a large stack for deep programs."""
    argv = sys.argv[1:] if argv is None else argv
    sys.setrecursionlimit(100000)
    threading.stack_size(512 * 1024 * 1024)
    result = []
    t = threading.Thread(target=_main, args=(argv, result))
    t.start()
    t.join()
    code = result[0] if result else EXIT_INTERNAL
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
