"""The runtime objects compiled at install time (issue 17 item 9, docs/runtime.md "Build cache"):
used without invoking the compiler when their key is the key of the current compiler, flags and
sources; ignored otherwise; the install / refresh step is idempotent."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cint_runtime
from cint_runtime import prebuilt


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A prebuilt folder made by the real refresh step (``python -m cint_runtime.prebuilt``)."""
    d = tmp_path_factory.mktemp("prebuilt")
    done = subprocess.run([sys.executable, "-m", "cint_runtime.prebuilt", "--folder", str(d)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "runtime objects compiled" in done.stdout
    return d


@pytest.fixture
def compiles(monkeypatch):
    """Counts every compile (``cc ... -c``) that cint_runtime starts."""
    calls = []
    real = subprocess.run

    def run(args, *a, **k):
        if "-c" in args:
            calls.append(list(args))
        return real(args, *a, **k)

    monkeypatch.setattr(cint_runtime.subprocess, "run", run)
    return calls


def fake_compile(calls):
    def compile_into(folder, extra_flags=()):
        calls.append(list(extra_flags))
        for name in cint_runtime._object_names():
            (Path(folder) / name).write_bytes(b"")
    return compile_into


def test_the_install_step_labels_its_objects_with_the_key(folder):
    entry = folder / ("rt-" + cint_runtime.key())
    assert (entry / "KEY").read_text().strip() == cint_runtime.key()
    label = (entry / "LABEL").read_text()
    assert "compiler: " + cint_runtime.compiler() in label
    assert "flags: " + " ".join(cint_runtime.CFLAGS) in label
    assert sorted(p.name for p in entry.glob("*.o")) == sorted(cint_runtime._object_names())


def test_prebuilt_objects_are_used_when_the_key_matches(folder, compiles, tmp_path, monkeypatch):
    monkeypatch.setattr(prebuilt, "FOLDER", folder)
    monkeypatch.setenv("CINT_CACHE", str(tmp_path))
    objs = cint_runtime.objects()
    assert compiles == []                                   # no compiler invocation
    assert all(o.parent == folder / ("rt-" + cint_runtime.key()) for o in objs)
    assert not list(tmp_path.glob("rt-*"))                  # nothing compiled into the cache


def test_a_build_links_the_prebuilt_objects(folder, compiles, tmp_path, monkeypatch):
    """`cint build --lib` with prebuilt objects: only the generated C is compiled, and the library works."""
    from cint_compiler.backend.c17 import build
    import cint_compiler.cli as cli
    monkeypatch.setattr(prebuilt, "FOLDER", folder)
    monkeypatch.setenv("CINT_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "m.ci"
    src.write_text("export I64 twice(I64 x) { return x * 2; }\n")
    calls = []
    real = build._cc
    monkeypatch.setattr(build, "_cc", lambda args, what: (calls.append(args), real(args, what)))
    assert cli.main(["build", "--lib", "--out", str(tmp_path / "out"), str(src)]) == 0
    assert compiles == [] and len(calls) == 1
    assert any(str(folder) in a for a in calls[0])
    assert (tmp_path / "out" / "libm.so").is_file()


def test_prebuilt_objects_are_ignored_when_the_flags_differ(folder, tmp_path, monkeypatch):
    monkeypatch.setattr(prebuilt, "FOLDER", folder)
    monkeypatch.setenv("CINT_CACHE", str(tmp_path))
    calls = []
    monkeypatch.setattr(cint_runtime, "compile_into", fake_compile(calls))
    assert cint_runtime.key(["-DCINT_OTHER"]) != cint_runtime.key()
    objs = cint_runtime.objects(["-DCINT_OTHER"])
    assert calls == [["-DCINT_OTHER"]]
    assert all(o.parent == tmp_path / ("rt-" + cint_runtime.key(["-DCINT_OTHER"])) for o in objs)


def test_prebuilt_objects_are_ignored_for_another_compiler(folder, tmp_path, monkeypatch):
    monkeypatch.setattr(prebuilt, "FOLDER", folder)
    monkeypatch.setenv("CINT_CACHE", str(tmp_path))
    calls = []
    monkeypatch.setattr(cint_runtime, "compile_into", fake_compile(calls))
    other = tmp_path / "bin" / "cc"                          # the same compiler under another path
    other.parent.mkdir()
    other.symlink_to(shutil.which(cint_runtime.compiler()) or cint_runtime.compiler())
    monkeypatch.setenv("CC", str(other))
    objs = cint_runtime.objects()
    assert calls == [[]] and all(o.parent.parent == tmp_path for o in objs)
    monkeypatch.delenv("CC")
    # the same path, another version (an upgraded compiler)
    monkeypatch.setattr(cint_runtime, "_compiler_version", lambda cc: b"cc (other) 99.0\n")
    assert prebuilt.find(cint_runtime.key(), folder) is None
    cint_runtime.objects()
    assert calls == [[], []]


def test_prebuilt_objects_are_ignored_when_the_sources_change(folder, tmp_path, monkeypatch):
    tree = tmp_path / "runtime-c"
    shutil.copytree(cint_runtime.root(), tree)
    key = cint_runtime.key()
    monkeypatch.setattr(cint_runtime, "root", lambda: tree)
    assert cint_runtime.key() == key                         # the key is of the content, not of the place
    with open(tree / "src" / "fault.c", "a") as f:
        f.write("\n/* edited */\n")
    assert cint_runtime.key() != key
    assert prebuilt.find(cint_runtime.key(), folder) is None


def test_an_incomplete_prebuilt_folder_is_not_used(folder, tmp_path):
    key = cint_runtime.key()
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    assert prebuilt.find(key, copy) is not None
    (copy / ("rt-" + key) / "ops.o").unlink()
    assert prebuilt.find(key, copy) is None
    shutil.copytree(folder, tmp_path / "copy2")
    (tmp_path / "copy2" / ("rt-" + key) / "KEY").write_text("0" * 24 + "\n")
    assert prebuilt.find(key, tmp_path / "copy2") is None


def test_the_refresh_step_is_idempotent(folder, tmp_path, monkeypatch):
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    entry = copy / ("rt-" + cint_runtime.key())
    stamps = {p.name: p.stat().st_mtime_ns for p in entry.iterdir()}
    (copy / ("rt-" + "0" * 24)).mkdir()                      # objects of older sources
    monkeypatch.setattr(cint_runtime, "compile_into", lambda *a: pytest.fail("compiled again"))
    for _ in range(2):
        got, built = prebuilt.install(copy)
        assert (got, built) == (entry, False)
    assert {p.name: p.stat().st_mtime_ns for p in entry.iterdir()} == stamps
    assert [p.name for p in copy.iterdir()] == [entry.name]   # the stale folder went


def test_the_refresh_step_rebuilds_stale_objects_once(folder, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(cint_runtime, "compile_into", fake_compile(calls))
    monkeypatch.setattr(cint_runtime, "_compiler_version", lambda cc: b"cc (other) 99.0\n")
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    entry, built = prebuilt.install(copy)
    assert built and calls == [[]]
    assert prebuilt.install(copy) == (entry, False) and calls == [[]]
    assert [p.name for p in copy.iterdir()] == [entry.name]


def test_refresh_without_a_compiler_says_so_and_fails_cleanly(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CC", sys.executable)                # not a C compiler
    assert prebuilt.main(["--folder", str(tmp_path)]) == 1
    assert "first build compiles them into the build cache instead" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
