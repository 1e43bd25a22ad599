"""The compile pipeline: source file -> tokens -> AST -> checked program -> SIR -> revision identity.

Each phase has one entry point and one error type (CompileError).  Files are
read as bytes so that the lexer sees every byte (SPEC-04 LS-4).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .checker import Program, check_program
from .diagnostics import CompileError, Span
from .parser import parse_module
from .sir import encode_module, revision_of


@dataclass
class Compiled:
    program: Program
    revision: bytes
    sir: bytes
    path: str          # module-relative path of the root module
    name: str          # dotted module name
    source: str


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


def check_module_path(rel: str) -> None:
    """LS-225: each segment of a module path, without the final `.ci`, is an identifier (C3030)."""
    stem = rel[:-3] if rel.endswith(".ci") else rel
    for seg in stem.split("/"):
        if not _IDENT.match(seg):
            raise CompileError("C3030", Span(rel, 1, 1), "module path %r: segment %r is not an identifier, so the "
                               "path cannot name a module (LS-225); rename the file" % (rel, seg))


def compile_source(data: bytes, rel: str) -> Compiled:
    name = module_name(rel)
    mod = parse_module(data, rel, name)
    program = check_program(mod)
    sir = encode_module(mod)
    return Compiled(program, revision_of([mod]), sir, rel, name, mod.source)


def compile_file(path, root=None) -> Compiled:
    rel = module_path(Path(path), Path(root) if root is not None else None)
    data = read_source(Path(path), rel)
    check_module_path(rel)
    return compile_source(data, rel)


def check_file(path, root=None) -> None:
    """Compile ``path`` through the checker; raises CompileError on the first error."""
    compile_file(path, root)
