"""`cint build`: a library (`--lib`) or an executable harness, from a checked program (executor cpu-c17).

The emitter writes one translation unit (backend_c.py); it is compiled with the flags of
cint_runtime.CFLAGS and linked with the cached runtime objects into one shared library that
exports exactly the symbols of SPEC-03P.1 A-12 (everything else is hidden).  Builds are cached
by the digest of the generated C and the runtime objects, so rebuilding unchanged source is free.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import cint_runtime

from cint_compiler.backend.c17.emit import emit
from cint_compiler.diagnostics import CompileError


class BuildError(Exception):
    """The C compiler failed on generated code: a bug of the toolchain, reported with the compiler's text."""


def _cc(args, what):
    done = subprocess.run(args, capture_output=True)
    if done.returncode != 0:
        raise BuildError("%s failed (%s):\n%s" % (what, " ".join(args[:2]), done.stderr.decode("utf-8", "replace")))


def _key(text: str, objs) -> str:
    h = hashlib.sha256(text.encode("utf-8"))
    for o in objs:
        h.update(str(o).encode())
    return h.hexdigest()[:24]


def library_name(compiled) -> str:
    return compiled.name.rsplit(".", 1)[-1]


# `cint build --lib --with-state`: the canonical-state functions of the runtime (state.c), exported
# beside A-12 under names of their own (docs/runtime.md). cint.load builds its libraries with them.
STATE_EXPORTS = """
/* --with-state: the canonical state of a context (SPEC-03P.1 5.1, 9.2); docs/runtime.md */
CINT_EXPORT cint_status cintx_state_size(cint_ctx *ctx, size_t *len)
{
    return cint_gen_state_encode(ctx, NULL, 0, len);
}
CINT_EXPORT cint_status cintx_state_encode(cint_ctx *ctx, uint8_t *buf, size_t cap, size_t *len)
{
    return cint_gen_state_encode(ctx, buf, cap, len);
}
CINT_EXPORT cint_status cintx_state_restore(cint_ctx *ctx, const uint8_t *data, size_t len, uint64_t *detail)
{
    return cint_gen_state_restore(ctx, data, len, detail);
}
"""


def build_library(compiled, out_dir, *, with_state: bool = False) -> Path:
    """Writes out_dir/libNAME.so for a module with exports and no top-level statements; with_state adds
    cintx_invoke and the cintx_state_* functions (STATE_EXPORTS) to the symbols of A-12."""
    p = compiled.program
    if p.script is not None:
        raise CompileError("C9102", p.script_span, "`cint build --lib` builds a module without top-level statements; "
                           "this file is a script (LS-218)")
    text = emit(compiled, invoke=with_state)   # with_state: cintx_invoke (backend_c.Emitter.invoke_lines)
    if with_state:
        text += STATE_EXPORTS
    objs = cint_runtime.objects()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / ("lib%s.so" % library_name(compiled))
    work = cint_runtime.cache.open_entry(cint_runtime.cache_dir() / ("lib-" + _key(text, objs)))
    src = work / (library_name(compiled) + ".c")
    src.write_text(text, encoding="utf-8")
    lib = work / target.name
    if not lib.is_file():
        _cc([cint_runtime.compiler()] + cint_runtime.CFLAGS + ["-I", str(cint_runtime.include_dir()), "-shared",
                                                               str(src)] + [str(o) for o in objs] +
            ["-o", str(lib) + ".tmp%d" % os.getpid()], "compiling the generated C")
        os.replace(str(lib) + ".tmp%d" % os.getpid(), lib)
    data = lib.read_bytes()
    tmp = target.with_name(target.name + ".tmp%d" % os.getpid())
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return target


def build_harness(compiled, kind, target, args) -> Path:
    """An executable that runs one entry of the program and prints its outcome (cint run/outcome --executor cpu)."""
    text = emit(compiled, harness=(kind, target, args))
    objs = cint_runtime.objects()
    work = cint_runtime.cache.open_entry(cint_runtime.cache_dir() / ("exe-" + _key(text, objs)))
    exe = work / "harness"
    if not exe.is_file():
        src = work / ("harness%d.c" % os.getpid())
        src.write_text(text, encoding="utf-8")
        flags = [f for f in cint_runtime.CFLAGS if f != "-fvisibility=hidden"]
        _cc([cint_runtime.compiler()] + flags + ["-I", str(cint_runtime.include_dir()), str(src)] +
            [str(o) for o in objs] + ["-o", str(exe) + ".tmp%d" % os.getpid()], "compiling the generated C")
        os.replace(str(exe) + ".tmp%d" % os.getpid(), exe)
    return exe
