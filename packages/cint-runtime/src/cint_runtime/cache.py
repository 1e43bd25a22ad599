"""The build cache: where cint keeps what it compiled, its size cap and its clean-up (docs/runtime.md).

The cache folder is ``$CINT_CACHE``, else ``$XDG_CACHE_HOME/cint``, else ``~/.cache/cint``.  It
holds *entries*: the runtime's objects (``rt-<key>``), libraries and harnesses of ``cint build``
(``lib-<key>``, ``exe-<key>``) and, under ``python/``, the libraries of ``cint.load``
(``python/lib-<key>``) and their index files (``python/index/<key>.json``).

Policy:

* Size cap: ``$CINT_CACHE_MAX`` bytes (a number with an optional K, M or G suffix, powers of 1024;
  default 1G).  After a build, when the entries hold more than the cap, the least recently used
  ones are removed until they hold at most the cap.  ``0`` means no cap.
* Use: every hit and every build marks its entry used (its modification time is set to now).
* In use: an entry used in the last :data:`IN_USE_SECONDS` is never removed by eviction, since
  another process may be about to open it.
* Removal is atomic: an entry is first renamed to ``<name>.del<pid>`` (another process then sees
  either the whole entry or none and builds it again), then deleted.
* Temporaries: a build writes ``<name>.tmp<pid>`` and renames it into place.  A temporary whose
  process no longer runs (or, whatever its process, untouched for a day) is removed.
"""
from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

DEFAULT_MAX_BYTES = 1 << 30
IN_USE_SECONDS = 300.0            # entries used this recently are never evicted
ORPHAN_SECONDS = 60.0             # a temporary of a dead process is removed once this old
STALE_TEMP_SECONDS = 86400.0      # a temporary this old is removed whatever its process
TRIM_INTERVAL_SECONDS = 30.0      # automatic trims of one cache folder at most this often

_CONTAINERS = ("python", "python/index", "index")   # index: a $CINT_PY_CACHE folder
_TEMP = re.compile(r"\.(?:tmp|del)(\d+)$")
_STAMP = ".cint-trim"


class CacheConfigError(ValueError):
    """``$CINT_CACHE_MAX`` is not a size."""


def cache_dir() -> Path:
    """The cache folder (created if missing): ``$CINT_CACHE``, else ``$XDG_CACHE_HOME/cint``, else ``~/.cache/cint``."""
    base = os.environ.get("CINT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                        os.path.expanduser("~/.cache"), "cint")
    p = Path(base)
    p.mkdir(parents=True, exist_ok=True)
    return p


def parse_size(text: str) -> int:
    """``"1G"``, ``"500M"``, ``"64K"``, ``"123"`` -> bytes (powers of 1024)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.IGNORECASE)
    if not m:
        raise CacheConfigError("CINT_CACHE_MAX=%r is not a size: write bytes, or a number with K, M or G "
                               "(for example CINT_CACHE_MAX=2G); 0 means no cap" % text)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]


def max_bytes() -> int:
    """The size cap: ``$CINT_CACHE_MAX`` (0: no cap), default 1 GiB."""
    text = os.environ.get("CINT_CACHE_MAX")
    return DEFAULT_MAX_BYTES if text is None or not text.strip() else parse_size(text)


def touch(path) -> None:
    """Marks a cache entry used now (least-recently-used order, and protection from eviction)."""
    try:
        os.utime(path)
    except OSError:
        pass


@dataclass(frozen=True)
class Entry:
    path: Path
    bytes: int
    used: float          # seconds since the epoch


@dataclass
class Report:
    """What :func:`info`, :func:`trim` and :func:`clean` found or did."""
    folder: Path
    entries: int = 0
    bytes: int = 0
    temporaries: int = 0
    removed_entries: int = 0
    removed_bytes: int = 0
    removed_temporaries: int = 0
    kept_in_use: int = 0
    limit: int = 0


def _size(p: Path) -> int:
    try:
        st = p.lstat()
    except OSError:
        return 0
    if not p.is_dir() or p.is_symlink():
        return st.st_size
    total = 0
    for dirpath, dirnames, filenames in os.walk(p):
        for name in filenames + dirnames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _used(p: Path) -> float:
    """The entry's last use: the latest modification time of it and what it holds directly."""
    try:
        t = p.lstat().st_mtime
    except OSError:
        return 0.0
    if p.is_dir() and not p.is_symlink():
        try:
            with os.scandir(p) as it:
                for e in it:
                    try:
                        t = max(t, e.stat(follow_symlinks=False).st_mtime)
                    except OSError:
                        pass
        except OSError:
            pass
    return t


def _children(root: Path) -> Iterator[Tuple[Path, Optional[int]]]:
    """(path, pid) of each entry (pid None) and temporary (pid of its process) of the cache."""
    folders = [root] + [root / c for c in _CONTAINERS]
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        rel = "" if folder == root else folder.relative_to(root).as_posix()
        for name in names:
            full = (rel + "/" + name) if rel else name
            if full in _CONTAINERS or name == _STAMP:
                continue
            m = _TEMP.search(name)
            yield folder / name, (int(m.group(1)) if m else None)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _remove(p: Path) -> bool:
    """Renames then deletes ``p``; False when another process removed or renamed it first."""
    gone = p.with_name(p.name + ".del%d" % os.getpid())
    try:
        os.rename(p, gone)
    except OSError:
        return False
    if gone.is_dir() and not gone.is_symlink():
        shutil.rmtree(gone, ignore_errors=True)
    else:
        try:
            gone.unlink()
        except OSError:
            pass
    return True


def _scan(root: Path, now: float, report: Report, remove_temps: bool) -> List[Entry]:
    entries = []
    for p, pid in _children(root):
        if pid is not None:
            age = now - _used(p)
            dead = pid != os.getpid() and not _alive(pid)
            if remove_temps and ((dead and age > ORPHAN_SECONDS) or age > STALE_TEMP_SECONDS):
                size = _size(p)
                if _remove(p):
                    report.removed_temporaries += 1
                    report.removed_bytes += size
                    continue
            report.temporaries += 1
            continue
        if remove_temps and p.is_dir() and not p.is_symlink():
            _remove_orphans_in(p, now, report)
        entries.append(Entry(p, _size(p), _used(p)))
    return entries


def _remove_orphans_in(entry: Path, now: float, report: Report) -> None:
    """Temporaries a dead process left inside an entry (``cint build`` writes ``NAME.tmp<pid>`` there)."""
    try:
        names = os.listdir(entry)
    except OSError:
        return
    for name in names:
        m = _TEMP.search(name)
        if m is None:
            continue
        p = entry / name
        pid = int(m.group(1))
        age = now - _used(p)
        if (pid != os.getpid() and not _alive(pid) and age > ORPHAN_SECONDS) or age > STALE_TEMP_SECONDS:
            size = _size(p)
            if _remove(p):
                report.removed_temporaries += 1
                report.removed_bytes += size


def info(root=None) -> Report:
    """The entries, their total size and the temporaries of the cache; changes nothing."""
    root = Path(root) if root is not None else cache_dir()
    report = Report(root, limit=max_bytes())
    entries = _scan(root, time.time(), report, remove_temps=False)
    report.entries = len(entries)
    report.bytes = sum(e.bytes for e in entries)
    return report


def trim(root=None, limit: Optional[int] = None, in_use_seconds: float = IN_USE_SECONDS) -> Report:
    """Removes orphaned temporaries, then least recently used entries until the rest hold at most
    ``limit`` bytes (default :func:`max_bytes`; 0: no cap).  Entries used in the last
    ``in_use_seconds`` are kept even when the cap is exceeded."""
    root = Path(root) if root is not None else cache_dir()
    limit = max_bytes() if limit is None else limit
    report = Report(root, limit=limit)
    now = time.time()
    entries = _scan(root, now, report, remove_temps=True)
    total = sum(e.bytes for e in entries)
    if limit > 0 and total > limit:
        for e in sorted(entries, key=lambda e: e.used):
            if total <= limit:
                break
            if now - _used(e.path) < in_use_seconds:     # read again: another process may have used it
                report.kept_in_use += 1
                continue
            if _remove(e.path):
                total -= e.bytes
                report.removed_entries += 1
                report.removed_bytes += e.bytes
    remaining = [e for e in entries if e.path.exists()]
    report.entries = len(remaining)
    report.bytes = sum(e.bytes for e in remaining)
    return report


def clean(root=None, everything: bool = False, in_use_seconds: float = IN_USE_SECONDS) -> Report:
    """Removes every entry and orphaned temporary; entries used in the last ``in_use_seconds`` are
    kept unless ``everything`` (then only temporaries of running processes are kept)."""
    root = Path(root) if root is not None else cache_dir()
    report = Report(root, limit=max_bytes())
    now = time.time()
    entries = _scan(root, now, report, remove_temps=True)
    kept = []
    for e in entries:
        if not everything and now - _used(e.path) < in_use_seconds:
            report.kept_in_use += 1
            kept.append(e)
            continue
        if _remove(e.path):
            report.removed_entries += 1
            report.removed_bytes += e.bytes
    report.entries = len(kept)
    report.bytes = sum(e.bytes for e in kept)
    return report


def maybe_trim(root=None) -> Optional[Report]:
    """:func:`trim`, at most once per :data:`TRIM_INTERVAL_SECONDS` per cache folder (after a build).

    Never raises: a cache that cannot be trimmed is no reason to fail a build."""
    try:
        root = Path(root) if root is not None else cache_dir()
        stamp = root / _STAMP
        now = time.time()
        try:
            if now - stamp.stat().st_mtime < TRIM_INTERVAL_SECONDS:
                return None
        except FileNotFoundError:
            pass
        stamp.touch()
        return trim(root)
    except (OSError, CacheConfigError):
        return None


def format_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%.1f %s" % (n / size, unit)
    return "%d bytes" % n


def open_entry(path) -> Path:
    """The entry folder ``path`` of the cache, created if missing and marked used; an automatic
    :func:`maybe_trim` of its cache first keeps the cache under its cap (builds call this)."""
    path = Path(path)
    maybe_trim(path.parent)
    path.mkdir(parents=True, exist_ok=True)
    touch(path)
    return path


def main(action: str, everything: bool = False, out=None) -> int:
    """``cint cache info`` and ``cint cache clean [--all]``: prints a report, returns the exit status."""
    import sys
    out = out or sys.stdout
    try:
        limit = max_bytes()
    except CacheConfigError as ex:
        sys.stderr.write("error: %s\n" % ex)
        return 2
    if action == "info":
        r = info()
        out.write("cache: %s\n" % r.folder)
        out.write("entries: %d, %s\n" % (r.entries, format_size(r.bytes)))
        out.write("cap: %s (CINT_CACHE_MAX; least recently used entries go first)\n"
                  % ("none" if limit == 0 else format_size(limit)))
        out.write("temporaries: %d\n" % r.temporaries)
        return 0
    r = clean(everything=everything)
    out.write("cache: %s\n" % r.folder)
    out.write("removed: %d entries and %d temporaries, %s\n"
              % (r.removed_entries, r.removed_temporaries, format_size(r.removed_bytes)))
    if r.kept_in_use:
        out.write("kept: %d entries used in the last %d minutes (another process may be using them; "
                  "`cint cache clean --all` removes them too)\n" % (r.kept_in_use, IN_USE_SECONDS // 60))
    if r.temporaries:
        out.write("kept: %d temporaries of running builds\n" % r.temporaries)
    return 0
