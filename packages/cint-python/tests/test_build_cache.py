"""cint.load's build cache (cint._build) under the cache policy of cint_runtime.cache (issue 11 item 14)."""
from __future__ import annotations

import os
import time

import pytest

import cint
from cint import _build


def test_a_failed_build_leaves_no_temporary(tmp_path, monkeypatch):
    monkeypatch.setenv("CINT_PY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CINT_EXE", "false")           # the build command fails
    src = tmp_path / "m.ci"
    src.write_text("export I64 one() { return 1; }\n")
    with pytest.raises(cint.BuildError):
        cint.load(src)
    assert [p.name for p in (tmp_path / "cache").iterdir() if ".tmp" in p.name] == []


def test_a_hit_marks_its_entries_used(tmp_path, monkeypatch):
    monkeypatch.setenv("CINT_PY_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "m.ci"
    src.write_text("export I64 one() { return 1; }\n")
    lib = _build.library_for_source(src)
    (index,) = (tmp_path / "cache" / "index").iterdir()
    old = time.time() - 7200
    for p in (index, lib.parent, lib):
        os.utime(p, (old, old))
    assert _build.library_for_source(src) == lib
    assert time.time() - index.stat().st_mtime < 60
    assert time.time() - lib.parent.stat().st_mtime < 60
