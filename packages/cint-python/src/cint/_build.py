"""Building a .ci source into a library, cached by the digests of its modules and the toolchain (8.1 paragraph 1).

Cache layout, under ``$CINT_PY_CACHE`` (else ``cint_runtime.cache_dir()/python``):

    index/<K0>.json   K0 = SHA-256(toolchain, root path, root source): the module paths and digests of
                      the last build from that root source, and the key K of that build
    lib-<K>/          K = SHA-256(toolchain, every module's path and SHA-256): the library

A load whose root source has an index entry whose modules all still have their recorded digests
opens lib-<K> and builds nothing; otherwise it runs the front end (to learn the imported modules),
computes K and builds only if lib-<K> is missing.  Libraries are built with ``--with-state`` (8.1
paragraph 1): they export the cintx_state_* functions that checkpoints need (docs/runtime.md).  ``BUILDS`` counts the builds this process made.
Every hit marks its index file and library used, and a build first trims the cache to its cap
(``cint_runtime.cache``: least-recently-used eviction, orphaned temporaries; docs/runtime.md).
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import cint_runtime.cache as _cache

from ._errors import BuildError

BUILDS = [0]      # builds made by this process (tests measure the cache with it)
_TOOLCHAIN = []


def cache_root() -> Path:
    base = os.environ.get("CINT_PY_CACHE")
    if base:
        p = Path(base)
    else:
        import cint_runtime
        p = cint_runtime.cache_dir() / "python"
    p.mkdir(parents=True, exist_ok=True)
    return p


def toolchain_identity() -> str:
    """cint_compiler and cint_runtime versions, the cint command if CINT_EXE is set, and a digest of
    the runtime sources and headers and of the compiler package's sources."""
    exe = os.environ.get("CINT_EXE") or ""
    if _TOOLCHAIN and _TOOLCHAIN[0][0] == exe:
        return _TOOLCHAIN[0][1]
    import cint_compiler
    import cint_runtime
    h = hashlib.sha256()
    h.update(b"cint_compiler " + cint_compiler.__version__.encode() + b"\n")
    h.update(b"cint_runtime " + cint_runtime.__version__.encode() + b"\n")
    h.update(b"CINT_EXE " + exe.encode() + b"\n")
    files = list(cint_runtime.sources()) + sorted(cint_runtime.include_dir().glob("*.h"))
    files += sorted(Path(cint_compiler.__file__).parent.rglob("*.py"))
    for f in files:
        data = f.read_bytes()
        h.update(f.name.encode() + b"\0" + len(data).to_bytes(8, "little") + hashlib.sha256(data).digest())
    ident = h.hexdigest()
    _TOOLCHAIN[:] = [(exe, ident)]
    return ident


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _final_key(tool: str, modules: dict) -> str:
    h = hashlib.sha256(tool.encode())
    for path in sorted(modules):
        h.update(b"\0" + path.encode("utf-8") + b"\0" + modules[path].encode())
    return h.hexdigest()[:32]


def _find_lib(d: Path):
    libs = sorted(d.glob("lib*.so"))
    return libs[0] if len(libs) == 1 else None


class Diagnostic:
    """One compile diagnostic of a BuildError: its code, position, message, help and text (SPEC-04P.1 17.1)."""

    def __init__(self, err, root: Path):
        from cint_compiler.diagnostics import render
        span = err.span
        self.code, self.message, self.help = err.code, err.message, err.help
        self.path = span.path if span is not None else None
        self.line = span.line if span is not None else None
        self.column = span.column if span is not None else None
        lines = None
        if span is not None:
            try:
                lines = (root / span.path).read_bytes().decode("utf-8", "replace").splitlines()
            except OSError:
                pass
        self.text = render(err, lines)

    def __repr__(self):
        return "<Diagnostic %s at %s:%s:%s: %s>" % (self.code, self.path, self.line, self.column, self.message)


def _compile_error(path, ex, root: Path) -> BuildError:
    errors = getattr(ex, "errors", None) or [ex]
    return BuildError("%s: %s" % (path, ex), [Diagnostic(e, root) for e in errors])


def source_file(text: str, name: str) -> Path:
    """The file under the cache that holds source text ``text`` as module ``name`` (cint.load_source): it is
    named NAME.ci, so a load of it and of a file NAME.ci with the same bytes share one cache entry."""
    if not isinstance(text, str):
        raise BuildError("load_source takes the source as a str, not %s" % type(text).__name__)
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise BuildError("name=%r: a module name is an ASCII identifier such as 'scan' (it becomes scan.ci)" % (name,))
    data = text.encode("utf-8")
    folder = cache_root() / "src" / _sha(name.encode() + b"\0" + data)[:32]
    path = folder / (name + ".ci")
    if not (path.is_file() and path.read_bytes() == data):
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / ("%s.ci.tmp%d" % (name, os.getpid()))
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path


def library_for_source(path) -> Path:
    """The library built from the .ci file ``path``, building it only when the cache has none."""
    src = Path(path).resolve()
    if not src.is_file():
        raise BuildError("%s: no such file" % path)
    root = src.parent
    cache = cache_root()
    tool = toolchain_identity()
    root_bytes = src.read_bytes()
    k0 = _sha(tool.encode() + b"\0" + src.name.encode("utf-8") + b"\0" + root_bytes)
    index = cache / "index" / (k0 + ".json")
    if index.is_file():
        try:
            entry = json.loads(index.read_text())
            ok = all((root / p).is_file() and _sha((root / p).read_bytes()) == d for p, d in entry["modules"].items())
            lib = _find_lib(cache / ("lib-" + entry["key"])) if ok else None
            if lib is not None:
                _cache.touch(index)
                _cache.touch(lib.parent)
                return lib
        except (OSError, ValueError, KeyError, TypeError):
            pass
    # the front end: which modules the program holds, and whether it compiles
    from cint_compiler import driver
    from cint_compiler.diagnostics import CompileError
    try:
        compiled = driver.compile_file(src)
    except CompileError as ex:
        raise _compile_error(path, ex, root) from None
    modules = {p: _sha(t.encode("utf-8")) for p, t in compiled.sources.items()}
    if not modules:
        modules = {src.name: _sha(root_bytes)}
    key = _final_key(tool, modules)
    out = cache / ("lib-" + key)
    lib = _find_lib(out) if out.is_dir() else None
    if lib is None:
        _cache.maybe_trim(cache if os.environ.get("CINT_PY_CACHE") else None)
        tmp = cache / ("lib-%s.tmp%d" % (key, os.getpid()))
        tmp.mkdir(parents=True, exist_ok=True)
        try:
            _build_into(tmp, compiled, src, root, path)
            try:
                tmp.rename(out)
            except OSError:           # another process won the race; its library is the same
                shutil.rmtree(tmp, ignore_errors=True)
        except BaseException:         # a failed build leaves no temporary behind
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        lib = _find_lib(out)
        if lib is None:
            raise BuildError("%s: the build wrote no single lib*.so into %s" % (path, out))
    else:
        _cache.touch(out)
    index.parent.mkdir(parents=True, exist_ok=True)
    tmpi = index.with_name(index.name + ".tmp%d" % os.getpid())
    tmpi.write_text(json.dumps({"key": key, "modules": modules}))
    os.replace(tmpi, index)
    return lib


def _build_into(tmp: Path, compiled, src: Path, root: Path, path) -> None:
    """Builds the library of ``src`` into the folder ``tmp`` (with ``$CINT_EXE`` if set)."""
    from cint_compiler.diagnostics import CompileError
    exe = os.environ.get("CINT_EXE")
    BUILDS[0] += 1
    if exe:
        done = subprocess.run(shlex.split(exe) + ["build", "--lib", "--with-state", "--out", str(tmp), str(src)],
                              capture_output=True, cwd=str(root))
        if done.returncode != 0:
            raise BuildError("%s build --lib %s failed (exit %d):\n%s" % (
                exe, path, done.returncode, (done.stderr or done.stdout).decode("utf-8", "replace")))
    else:
        from cint_compiler.backend.c17.build import build_library
        try:
            build_library(compiled, tmp, with_state=True)
        except CompileError as ex:
            raise _compile_error(path, ex, root) from None
        except Exception as ex:   # the C compiler failed: a toolchain bug, reported with its text
            raise BuildError("%s: building the library failed: %s" % (path, ex)) from ex
