"""The runtime's objects compiled when cint-runtime is installed, so that the first build is fast (docs/runtime.md).

Installing cint-runtime (a wheel, or ``pip install -e``) runs :func:`install` from the package's
build hook (packages/cint-runtime/hatch_build.py); ``scripts/setup.sh`` runs it again
(``python -m cint_runtime.prebuilt``) when runtime-c changed.  It compiles runtime-c with
:data:`cint_runtime.CFLAGS` and the compiler of :func:`cint_runtime.compiler` into
``cint_runtime/prebuilt-objects/rt-<key>/``, where ``<key>`` is :func:`cint_runtime.key`: the digest of the
sources, headers, flags, compiler path and ``cc --version``.  The folder also holds ``LABEL`` (the key,
compiler, its version and flags, for people) and ``KEY``, written last.

:func:`cint_runtime.objects` uses these objects only when their key is the key of the current
compiler, flags and sources; a different compiler (``CC``), other flags or changed sources give
another key, and the objects are compiled into the build cache as before.  Nothing here ever
calls the compiler at run time.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import List, Optional, Sequence

FOLDER = Path(__file__).resolve().parent / "prebuilt-objects"


def find(key: str, folder: Optional[Path] = None) -> Optional[List[Path]]:
    """The prebuilt objects of ``key`` (complete, and labelled with that key), else None."""
    import cint_runtime
    entry = (FOLDER if folder is None else Path(folder)) / ("rt-" + key)
    try:
        if (entry / "KEY").read_text(encoding="ascii").strip() != key:
            return None
    except (OSError, UnicodeDecodeError):
        return None
    objs = [entry / name for name in cint_runtime._object_names()]
    return objs if all(o.is_file() for o in objs) else None


def install(folder: Optional[Path] = None, extra_flags: Sequence[str] = ()) -> "tuple[Path, bool]":
    """Compiles the runtime into ``folder/rt-<key>`` unless it is there already, and removes the other
    ``rt-*`` folders there (objects of older sources or another compiler).  Returns (entry, built);
    idempotent: a second call with the same sources, compiler and flags compiles nothing."""
    import cint_runtime
    folder = FOLDER if folder is None else Path(folder)
    k = cint_runtime.key(extra_flags)
    entry = folder / ("rt-" + k)
    built = False
    if find(k, folder) is None:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / ("rt-%s.tmp%d" % (k, os.getpid()))
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            cint_runtime.compile_into(tmp, extra_flags)
            cc = cint_runtime.compiler()
            version = cint_runtime._compiler_version(cc).decode("utf-8", "replace").splitlines()
            (tmp / "LABEL").write_text("key: %s\ncompiler: %s\nversion: %s\nflags: %s\n"
                                       % (k, cc, version[0] if version else "?",
                                          " ".join(cint_runtime.CFLAGS + list(extra_flags))), encoding="utf-8")
            (tmp / "KEY").write_text(k + "\n", encoding="ascii")
            shutil.rmtree(entry, ignore_errors=True)      # an incomplete one (no KEY) of an interrupted install
            os.rename(tmp, entry)
            built = True
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            if find(k, folder) is None:                    # not another process that won the race
                raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    for old in folder.glob("rt-*"):
        if old.name != entry.name and ".tmp" not in old.name:
            shutil.rmtree(old, ignore_errors=True)
    return entry, built


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m cint_runtime.prebuilt [--folder DIR]``: compiles the runtime's objects if they are stale."""
    ap = argparse.ArgumentParser(prog="python -m cint_runtime.prebuilt",
                                 description="compile the cint runtime's objects into the package (fast first use)")
    ap.add_argument("--folder", help="where to put rt-<key>/ (default: %s)" % FOLDER)
    args = ap.parse_args(argv)
    try:
        entry, built = install(Path(args.folder) if args.folder else None)
    except Exception as ex:      # no compiler, a compile error: the first build compiles into the cache instead
        sys.stderr.write("cint-runtime: the runtime objects were not prebuilt (%s); the first build compiles "
                         "them into the build cache instead\n" % (str(ex).splitlines()[0] if str(ex) else type(ex).__name__))
        return 1
    sys.stdout.write("cint-runtime: runtime objects %s: %s\n" % ("compiled" if built else "up to date", entry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
