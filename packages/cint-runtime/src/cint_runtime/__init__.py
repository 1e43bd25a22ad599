"""cint_runtime: the native runtime of cint (runtime-c/) as a distributable.

It ships the C runtime (``include/cint_rt.h``, ``include/cint_rt_host.h``, the internal headers
for generated code, and ``src/*.c``) and compiles it once per compiler and flags into a cache,
for ``cint build`` (SPEC-03P.1 clause 7).  A wheel carries the tree as package data
(``cint_runtime/runtime-c``); an editable install reads the repository's ``runtime-c/``.
The build cache and its policy (size cap, least-recently-used eviction, clean-up) are in
:mod:`cint_runtime.cache`.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Sequence

from . import cache
from .cache import cache_dir

__version__ = "0.2.0"

CFLAGS = ["-std=c17", "-Wall", "-Wextra", "-Wpedantic", "-O2", "-fPIC", "-fvisibility=hidden"]


def root() -> Path:
    """The runtime-c tree: package data in a wheel, else the repository's folder."""
    here = Path(__file__).resolve().parent
    for cand in (here / "runtime-c", here.parents[3] / "runtime-c" if len(here.parents) > 3 else None):
        if cand is not None and (cand / "include" / "cint_rt.h").is_file():
            return cand
    raise FileNotFoundError("the cint runtime sources (runtime-c) are not installed beside cint_runtime")


def include_dir() -> Path:
    return root() / "include"


def sources() -> List[Path]:
    return sorted((root() / "src").glob("*.c"))


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise FileNotFoundError("no C compiler: set CC or install cc (gcc or clang)")
    return cc


def _digest(parts: Sequence[bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:24]


_VERSIONS: dict = {}


def _compiler_version(cc: str) -> bytes:
    """``cc --version``, remembered per process for one compiler file (path, size, modification time)."""
    try:
        st = os.stat(shutil.which(cc) or cc)
        ident = (cc, st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        ident = None
    if ident is not None and ident in _VERSIONS:
        return _VERSIONS[ident]
    version = subprocess.run([cc, "--version"], capture_output=True).stdout
    if ident is not None:
        _VERSIONS[ident] = version
    return version


def key(extra_flags: Sequence[str] = ()) -> str:
    """The key of the runtime's objects: digest of sources, headers, flags, compiler version and compiler."""
    cc = compiler()
    flags = CFLAGS + list(extra_flags)
    inputs = [p.read_bytes() for p in sources()] + [p.read_bytes() for p in sorted(include_dir().glob("*.h"))]
    return _digest(inputs + [" ".join(flags).encode(), _compiler_version(cc), cc.encode()])


def _object_names() -> List[str]:
    return [src.stem + ".o" for src in sources()]


def compile_into(folder: Path, extra_flags: Sequence[str] = ()) -> None:
    """Compiles every runtime source into ``folder`` (which must exist) with the compiler and flags of :func:`key`."""
    cc = compiler()
    flags = CFLAGS + list(extra_flags)
    for src in sources():
        subprocess.run([cc] + flags + ["-I", str(include_dir()), "-I", str(root() / "src"), "-c", str(src), "-o",
                                       str(Path(folder) / (src.stem + ".o"))], check=True, capture_output=True)


def objects(extra_flags: Sequence[str] = ()) -> List[Path]:
    """The runtime compiled to object files, keyed by the digest of sources, headers, compiler and flags.

    The objects compiled when cint-runtime was installed (:mod:`cint_runtime.prebuilt`) are used when
    their key is this key; else they are compiled once into the build cache (``rt-<key>``)."""
    k = key(extra_flags)
    from . import prebuilt
    ready = prebuilt.find(k)
    if ready is not None:
        return ready
    out = cache_dir() / ("rt-" + k)
    objs = [out / name for name in _object_names()]
    if all(o.is_file() for o in objs):
        cache.touch(out)
        return objs
    cache.maybe_trim()
    tmp = out.with_name(out.name + ".tmp%d" % os.getpid())
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        compile_into(tmp, extra_flags)
        tmp.rename(out)
    except OSError:           # another process won the race; its objects are the same
        shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return objs
