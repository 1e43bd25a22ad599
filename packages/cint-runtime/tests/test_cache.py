"""The build cache's policy (issue 11 item 14, docs/runtime.md): a size cap with least-recently-used
eviction, `cint cache info` / `cint cache clean`, clean-up of temporaries left by dead processes,
safety under concurrent processes, and the private cache of the test suite."""
from __future__ import annotations

import io
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cint_runtime
from cint_runtime import cache

HOUR = 3600.0


def entry(root: Path, name: str, size: int, age: float) -> Path:
    """A fake cache entry folder holding ``size`` bytes, last used ``age`` seconds ago."""
    p = root / name
    p.mkdir(parents=True)
    (p / "payload").write_bytes(b"x" * size)
    t = time.time() - age
    os.utime(p / "payload", (t, t))
    os.utime(p, (t, t))
    return p


def dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def names(root: Path) -> set:
    return {p.name for p in root.iterdir() if p.name != ".cint-trim"}


def test_the_test_suite_builds_into_a_private_cache():
    folder = cint_runtime.cache_dir().resolve()
    home = Path(os.path.expanduser("~/.cache/cint")).resolve()
    assert os.environ.get("CINT_CACHE"), "the root conftest.py sets CINT_CACHE for every test"
    assert folder != home and home not in folder.parents
    assert folder.name.startswith("cint-test-cache-")


def test_size_settings():
    assert cache.parse_size("123") == 123
    assert cache.parse_size("64K") == 64 << 10
    assert cache.parse_size("500M") == 500 << 20
    assert cache.parse_size("2g") == 2 << 30
    assert cache.parse_size("1GiB") == 1 << 30
    with pytest.raises(cache.CacheConfigError, match="CINT_CACHE_MAX=.*not a size"):
        cache.parse_size("lots")


def test_the_cap_defaults_to_1_gib_and_is_settable(monkeypatch):
    monkeypatch.delenv("CINT_CACHE_MAX", raising=False)
    assert cache.max_bytes() == 1 << 30
    monkeypatch.setenv("CINT_CACHE_MAX", "10M")
    assert cache.max_bytes() == 10 << 20


def test_trim_evicts_least_recently_used_first(tmp_path):
    for k in range(6):
        entry(tmp_path, "exe-%024x" % k, 1000, age=HOUR * (10 - k))       # exe-0 is the oldest
    r = cache.trim(tmp_path, limit=3500)
    assert names(tmp_path) == {"exe-%024x" % k for k in (3, 4, 5)}
    assert (r.removed_entries, r.removed_bytes, r.entries, r.bytes) == (3, 3000, 3, 3000)
    cache.touch(tmp_path / ("exe-%024x" % 3))                            # used now: the newest
    cache.trim(tmp_path, limit=1500, in_use_seconds=0)
    assert names(tmp_path) == {"exe-%024x" % 3}


def test_entries_in_use_are_never_evicted(tmp_path):
    entry(tmp_path, "lib-old", 5000, age=HOUR)
    entry(tmp_path, "lib-busy", 5000, age=10)           # another process used it 10 s ago
    r = cache.trim(tmp_path, limit=1000)
    assert names(tmp_path) == {"lib-busy"}
    assert r.kept_in_use == 1


def test_no_cap_and_under_the_cap_remove_nothing(tmp_path):
    entry(tmp_path, "lib-a", 5000, age=HOUR)
    assert cache.trim(tmp_path, limit=0).removed_entries == 0
    assert cache.trim(tmp_path, limit=10000).removed_entries == 0
    assert names(tmp_path) == {"lib-a"}


def test_python_entries_and_index_files_are_entries_too(tmp_path):
    entry(tmp_path / "python", "lib-" + "a" * 32, 4000, age=HOUR)
    idx = tmp_path / "python" / "index"
    idx.mkdir()
    (idx / "k.json").write_text("{}")
    os.utime(idx / "k.json", (time.time() - 2 * HOUR,) * 2)
    r = cache.info(tmp_path)
    assert r.entries == 2
    cache.trim(tmp_path, limit=1)
    assert not any((tmp_path / "python").glob("lib-*")) and not any(idx.iterdir())
    assert (tmp_path / "python").is_dir() and idx.is_dir()           # the folders themselves stay


def test_temporaries_of_dead_processes_are_removed(tmp_path):
    dead = dead_pid()
    orphan = entry(tmp_path, "lib-k.tmp%d" % dead, 100, age=HOUR)
    live = entry(tmp_path, "lib-j.tmp%d" % os.getpid(), 100, age=HOUR)   # this process is alive
    young = entry(tmp_path, "lib-i.tmp%d" % dead, 100, age=1)            # just written: wait a little
    stale = entry(tmp_path, "rt-x.tmp%d" % os.getppid(), 100, age=3 * 86400)
    inner = entry(tmp_path, "exe-y", 100, age=HOUR)
    (inner / ("harness.tmp%d" % dead)).write_bytes(b"partial")
    os.utime(inner / ("harness.tmp%d" % dead), (time.time() - HOUR,) * 2)
    r = cache.trim(tmp_path, limit=0)
    assert not orphan.exists() and not stale.exists() and not (inner / ("harness.tmp%d" % dead)).exists()
    assert live.exists() and young.exists() and (inner / "payload").exists()
    assert r.removed_temporaries == 3 and r.temporaries == 2


def test_removal_is_an_atomic_rename(tmp_path, monkeypatch):
    e = entry(tmp_path, "lib-a", 100, age=HOUR)
    seen = []
    real_rename = os.rename

    def spy(src, dst):
        seen.append((Path(src).name, Path(dst).name))
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", spy)
    cache.trim(tmp_path, limit=1)
    assert seen == [("lib-a", "lib-a.del%d" % os.getpid())] and not e.exists()
    assert names(tmp_path) == set()


def test_an_entry_removed_by_another_process_meanwhile_is_skipped(tmp_path, monkeypatch):
    entry(tmp_path, "lib-a", 100, age=HOUR)
    entry(tmp_path, "lib-b", 100, age=HOUR)

    def gone(src, dst):
        raise FileNotFoundError(src)

    monkeypatch.setattr(os, "rename", gone)
    r = cache.trim(tmp_path, limit=1)
    assert r.removed_entries == 0


def _trim_worker(root: str, rounds: int) -> None:
    for _ in range(rounds):
        cache.trim(root, limit=20000)
        cache.info(root)


def test_concurrent_trims_and_builds_keep_entries_in_use(tmp_path):
    for k in range(60):
        entry(tmp_path, "exe-%024x" % k, 1000, age=HOUR + k)
    busy = entry(tmp_path, "exe-busy", 1000, age=0)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_trim_worker, args=(str(tmp_path), 5)) for _ in range(4)]
    for p in procs:
        p.start()
    for k in range(20):                             # meanwhile this process keeps building entries
        cache.open_entry(tmp_path / ("lib-new%02d" % k))
        (tmp_path / ("lib-new%02d" % k) / "payload").write_bytes(b"y" * 100)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    left = names(tmp_path)
    assert "exe-busy" in left and (busy / "payload").read_bytes() == b"x" * 1000
    assert {"lib-new%02d" % k for k in range(20)} <= left
    assert not [n for n in left if ".del" in n or ".tmp" in n]
    assert cache.info(tmp_path).bytes <= 20000 + 1000 + 20 * 100


def test_clean_removes_all_but_entries_in_use_unless_all(tmp_path):
    entry(tmp_path, "lib-a", 100, age=HOUR)
    entry(tmp_path, "lib-b", 100, age=5)
    entry(tmp_path, "lib-c.tmp%d" % dead_pid(), 100, age=HOUR)
    r = cache.clean(tmp_path)
    assert names(tmp_path) == {"lib-b"} and r.kept_in_use == 1 and r.removed_temporaries == 1
    cache.clean(tmp_path, everything=True)
    assert names(tmp_path) == set()


def test_cint_cache_info_and_clean(tmp_path, monkeypatch):
    from cint_compiler.cli import main
    monkeypatch.setenv("CINT_CACHE", str(tmp_path))
    monkeypatch.setenv("CINT_CACHE_MAX", "2M")
    entry(tmp_path, "lib-a", 3000, age=HOUR)
    entry(tmp_path, "exe-b", 2000, age=HOUR)
    out = subprocess.run([sys.executable, "-m", "cint_compiler.cli", "cache", "info"], capture_output=True,
                         text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert "cache: %s" % tmp_path in out.stdout
    assert "entries: 2, 4.9 KiB" in out.stdout and "cap: 2.0 MiB" in out.stdout
    assert main(["cache", "clean"]) == 0
    assert names(tmp_path) == set()
    monkeypatch.setenv("CINT_CACHE_MAX", "huge")
    bad = subprocess.run([sys.executable, "-m", "cint_compiler.cli", "cache", "info"], capture_output=True,
                         text=True, env=dict(os.environ))
    assert bad.returncode == 2 and "CINT_CACHE_MAX='huge' is not a size" in bad.stderr


def test_report_text_says_what_was_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("CINT_CACHE", str(tmp_path))
    entry(tmp_path, "lib-a", 100, age=5)
    buf = io.StringIO()
    assert cache.main("clean", out=buf) == 0
    assert "kept: 1 entries used in the last 5 minutes" in buf.getvalue()
    assert "cint cache clean --all" in buf.getvalue()


def test_a_build_trims_the_cache_to_its_cap(tmp_path, monkeypatch):
    """`cint build` evicts old entries once the cache is over its cap and keeps what it built."""
    objs = cint_runtime.objects()                      # the session cache's runtime objects
    root = tmp_path / "cache"
    shutil.copytree(objs[0].parent, root / objs[0].parent.name)
    for k in range(4):
        entry(root, "exe-%024x" % k, 400_000, age=HOUR * (k + 1))
    src = tmp_path / "m.ci"
    src.write_text("export I64 twice(I64 x) { return x * 2; }\n")
    env = dict(os.environ, CINT_CACHE=str(root), CINT_CACHE_MAX="1M")
    done = subprocess.run([sys.executable, "-m", "cint_compiler.cli", "build", "--lib", "--out",
                           str(tmp_path / "out"), str(src)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    left = names(root)
    new = [n for n in left if n.startswith("lib-")]
    assert len(new) == 1
    assert objs[0].parent.name in left                 # the runtime objects were just used
    olds = sorted(n for n in left if n.startswith("exe-"))
    assert olds == ["exe-%024x" % k for k in range(2)]   # the two least recently used went
    # trimmed before the build to at most the cap; the new library comes on top
    assert cache.info(root).bytes <= (1 << 20) + cache._size(root / new[0])


def test_a_failed_runtime_build_leaves_no_temporary(tmp_path, monkeypatch):
    monkeypatch.setenv("CINT_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", sys.executable)           # not a C compiler: every compile fails
    with pytest.raises(subprocess.CalledProcessError):
        cint_runtime.objects(["-DCINT_TEST_FAILED_BUILD"])
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]
