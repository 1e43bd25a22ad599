"""The compile pipeline: source files -> tokens -> AST -> checked program -> SIR -> revision identity.

Each phase has one entry point and one error type (CompileError).  Files are
read as bytes so that the lexer sees every byte (SPEC-04 LS-4).

A program is its root module and every module it imports, transitively
(SPEC-04 section 11).  ``import a.b.c;`` names the file ``a/b/c.ci`` under the
source root.  Loading reads modules breadth first from the root, each
module's imports in the order written; every import is resolved before any
module is checked (LS-226), then the import graph is searched for cycles
(C3003), and the modules are checked dependencies first.
"""
from __future__ import annotations

import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from cint_compiler.syntax import tree as A
from cint_compiler.check.symbols import Program
from cint_compiler.check.export_boundary import check_export_boundary
from cint_compiler.check.program import check_program
from cint_compiler.interp import context as evaluation
from cint_compiler.diagnostics import CompileError, Span
from cint_compiler.syntax.parser import parse_module
from cint_compiler.sir import encode_module, revision_of


@dataclass
class Compiled:
    program: Program
    revision: bytes
    sir: bytes
    path: str          # module-relative path of the root module
    name: str          # dotted module name
    source: str
    modules: List[A.Module] = field(default_factory=list)   # every module, dependencies first, the root last
    sources: Dict[str, str] = field(default_factory=dict)   # module path -> source text


def module_path(path: Path, root: Optional[Path]) -> str:
    """The module-relative path used in positions: relative to ``root``, else the file name (IM-106)."""
    path = Path(path)
    if root is not None:
        try:
            return Path(os.path.relpath(path.resolve(), Path(root).resolve())).as_posix()
        except ValueError:
            pass
    return path.name


def module_name(rel: str) -> str:
    rel = rel[:-3] if rel.endswith(".ci") else rel
    return rel.replace("/", ".")


def read_source(path: Path, rel: str) -> bytes:
    if str(path).endswith(".cint"):
        raise CompileError("C1001", Span(rel, 1, 1), "`.cint` files belong to the legacy profile cint-bt27-legacy; "
                           "cint-core-1 sources end in `.ci`")
    try:
        return Path(path).read_bytes()
    except OSError as ex:
        raise CompileError("C3009", Span(rel, 1, 1), "cannot read module file %s: %s" % (path, ex.strerror or ex))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Names that Windows reserves for devices, in any case and with any extension (SPEC-09 CINTC-12).
_DEVICE_NAMES = frozenset(["CON", "PRN", "AUX", "NUL"] + ["COM%d" % i for i in range(10)]
                          + ["LPT%d" % i for i in range(10)])


def check_module_path(rel: str) -> None:
    """LS-225: each segment of a module path, without the final `.ci`, is an identifier (C3030)."""
    stem = rel[:-3] if rel.endswith(".ci") else rel
    for seg in stem.split("/"):
        if not _IDENT.match(seg):
            raise CompileError("C3030", Span(rel, 1, 1), "module path %r: segment %r is not an identifier, so the "
                               "path cannot name a module; rename the file (spec: LS-225)" % (rel, seg))


def check_import_path(rel: str) -> None:
    """The path an import names: LS-225, and no segment, directories included, is a Windows device name
    in any case (SPEC-09 CINTC-12), so that one program names the same files on every host.  Checked
    before the file is looked for."""
    check_module_path(rel)
    for seg in rel[:-3].split("/"):
        if seg.upper() in _DEVICE_NAMES:
            raise CompileError("C3030", Span(rel, 1, 1), "module path %r: segment %r is a Windows device name, "
                               "which no host can open as a file (CINTC-12); rename it" % (rel, seg))


def _folds_onto(rel: str, known) -> Optional[str]:
    """The path of the program that ``rel`` equals under ASCII case folding in some leading segments
    without equalling it byte for byte there (SPEC-09 CINTC-12), else None."""
    segs = rel.split("/")
    for other in known:
        osegs = other.split("/")
        for k in range(1, min(len(segs), len(osegs)) + 1):
            a, b = segs[:k], osegs[:k]
            if a == b:
                continue
            if [s.encode("utf-8").lower() for s in a] == [s.encode("utf-8").lower() for s in b]:
                return other
            break
    return None


def _find_exact(root: Path, segs: List[str]) -> Optional[Path]:
    """The file ``root/segs...``, each name compared byte for byte with its directory's listing.

    A file system that folds case would open ``Plain_math.ci`` for ``plain_math.ci``; the listing keeps
    the stored name, so a name that differs in case names no file on every host (SPEC-09 CINTC-15).
    """
    cur = Path(root)
    for seg in segs:
        try:
            names = os.listdir(cur)
        except OSError:
            return None
        if seg not in names:
            return None
        cur = cur / seg
    return cur if cur.is_file() else None


def load_modules(root_mod: A.Module, root: Optional[Path]) -> Dict[str, A.Module]:
    """Read and parse every module the root imports, transitively, breadth first from the root.

    Each ``ImportDecl`` gets the attribute ``target``: the path of the module it names.  Returns the
    modules by path, in load order (the root first).
    """
    by_path: Dict[str, A.Module] = {root_mod.path: root_mod}
    queue = [root_mod]
    i = 0
    while i < len(queue):
        m = queue[i]
        i += 1
        for d in m.imports:
            rel = "/".join(d.path) + ".ci"
            d.target = rel
            if rel in by_path:
                continue
            check_import_path(rel)
            other = _folds_onto(rel, by_path)
            if other is not None:
                raise CompileError("C3030", Span(rel, 1, 1), "module path %r differs from %r of the same program "
                                   "only in case; on a host that folds case both name one file (CINTC-12)"
                                   % (rel, other))
            f = _find_exact(root, rel.split("/")) if root is not None else None
            if f is None:
                raise CompileError("C3009", d.span, "module %s: there is no file %s under the source root %s "
                                   "(names are compared byte for byte)" % (".".join(d.path), rel, root))
            try:
                data = f.read_bytes()
            except OSError as ex:
                raise CompileError("C3009", d.span, "cannot read module file %s: %s" % (f, ex.strerror or ex))
            mod = parse_module(data, rel, module_name(rel))
            by_path[rel] = mod
            queue.append(mod)
    return by_path


def check_order(root_mod: A.Module, by_path: Dict[str, A.Module]) -> List[A.Module]:
    """The modules dependencies first (each module's imports in the order written); a cycle is C3003 at
    the import that closes it (LS-230)."""
    state: Dict[str, int] = {}
    order: List[A.Module] = []
    # an explicit stack of (module, index of its next import): a long chain of imports needs no recursion
    stack = [(root_mod, 0)]
    state[root_mod.path] = 1
    while stack:
        m, k = stack.pop()
        if k < len(m.imports):
            stack.append((m, k + 1))
            d = m.imports[k]
            t = by_path[d.target]
            s = state.get(t.path)
            if s == 1:
                raise CompileError("C3003", d.span, "import cycle: %s imports %s, which imports it back"
                                   % (m.name, t.name))
            if s is None:
                state[t.path] = 1
                stack.append((t, 0))
        else:
            state[m.path] = 2
            order.append(m)
    return order


# The phases walk the tree recursively; a tree is as deep as its longest operator chain (at most
# parser.MAX_OPERATOR_CHAIN) times its nesting (at most LS-311's 256 levels).  They run with this
# recursion limit on a thread with a stack that holds it, so the depth a program may have does not
# depend on the caller's thread; a program deeper still is C9004, never an internal error.
RECURSION_LIMIT = 200_000
STACK_BYTES = 1024 * 1024 * 1024
_deep = threading.local()


def run_deep(fn, *args):
    """``fn(*args)`` with the recursion headroom above, on a thread of its own unless already on one."""
    if getattr(_deep, "active", False):
        return fn(*args)
    result = []

    def body():
        _deep.active = True
        try:
            result.append((True, fn(*args)))
        except BaseException as ex:     # handed to the caller's thread as it is
            result.append((False, ex))

    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    old = threading.stack_size()
    threading.stack_size(STACK_BYTES)
    try:
        t = threading.Thread(target=body, name="cint-compile")
        t.start()
    finally:
        threading.stack_size(old)
    t.join()
    ok, value = result[0]
    if ok:
        return value
    raise value


def compile_source(data: bytes, rel: str, root=None) -> Compiled:
    """Compile the module ``data`` at module path ``rel``; its imports are read from the source root ``root``."""
    try:
        return run_deep(_compile_source, data, rel, root)
    except RecursionError:
        raise CompileError("C9004", Span(rel, 1, 1), "the program nests deeper than this implementation "
                           "supports (docs/language.md decision 32); split its longest expressions") from None


def _compile_source(data: bytes, rel: str, root=None) -> Compiled:
    name = module_name(rel)
    mod = parse_module(data, rel, name)
    by_path = load_modules(mod, Path(root) if root is not None else None)
    order = check_order(mod, by_path)
    programs: Dict[str, Program] = {}
    for m in order:
        programs[m.path] = check_program(m, programs, evaluation)
    program = programs[mod.path]
    # the root module's exports are the library's: one verdict for `cint check` and `cint build --lib`
    check_export_boundary(program)
    # the program's state is the module variables of every module (SPEC-01 IM-156)
    program.globals = [g for m in order for g in programs[m.path].globals]
    sir = encode_module(mod)
    return Compiled(program, revision_of(order, {mod.path: sir}), sir, rel, name, mod.source, order,
                    {m.path: m.source for m in order})


def compile_file(path, root=None) -> Compiled:
    """Compile the root module ``path``; the source root is ``root``, else the file's folder."""
    rel = module_path(Path(path), Path(root) if root is not None else None)
    data = read_source(Path(path), rel)
    check_module_path(rel)
    return compile_source(data, rel, Path(root) if root is not None else Path(path).parent)


def check_file(path, root=None) -> None:
    """Compile ``path`` through the checker; raises CompileError on the first error."""
    compile_file(path, root)
