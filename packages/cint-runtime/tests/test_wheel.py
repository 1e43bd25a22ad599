"""The wheel of cint-runtime, built for real by its build hook (hatch_build.py): it carries the runtime's
prebuilt objects under the key of this compiler, flags and sources, and an install of it uses them with
an empty build cache, so the first build compiles only the generated C (issue 17 items 5 and 9).

The wheel is built with ``pip wheel --no-deps`` (build isolation: pip installs hatchling, the build
backend, from the package indexes pip is configured with; here those are local folders, so nothing
leaves the machine) and installed with ``pip install --no-deps --no-index --target`` into a throw-away
folder, which a fresh interpreter puts first on its path. About 20 s: the hook compiles runtime-c once.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import cint_runtime

PACKAGE = Path(__file__).resolve().parent.parent

# what pip prints when it cannot obtain the build backend without a network
_NO_BACKEND = ("No matching distribution found for hatchling", "Could not find a version that satisfies the requirement "
               "hatchling", "Failed to establish a new connection", "Temporary failure in name resolution",
               "Network is unreachable")


def _pip(args, **kw):
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PIP_RETRIES="0", PIP_TIMEOUT="15")
    return subprocess.run([sys.executable, "-m", "pip"] + args, capture_output=True, text=True, timeout=300, env=env,
                          **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    if shutil.which(cint_runtime.compiler() if os.environ.get("CC") else "cc") is None:
        pytest.skip("no C compiler (cc): the build hook builds a wheel without prebuilt objects")
    out = tmp_path_factory.mktemp("wheel")
    done = _pip(["wheel", "--no-deps", "--no-cache-dir", "-w", str(out), str(PACKAGE)])
    if done.returncode != 0:
        text = done.stdout + done.stderr
        for line in _NO_BACKEND:
            if line in text:
                pytest.skip("pip cannot obtain hatchling, cint-runtime's build backend, from the indexes it is "
                            "configured with (no network and no local copy): %s" % line)
        pytest.fail("pip wheel failed:\n" + text[-4000:])
    wheels = list(out.glob("cint_runtime-*.whl"))
    assert len(wheels) == 1, list(out.iterdir())
    return wheels[0]


def test_the_wheel_carries_the_prebuilt_objects_of_this_compiler(wheel):
    key = cint_runtime.key()
    names = zipfile.ZipFile(wheel).namelist()
    entries = {n.split("/")[2] for n in names if n.startswith("cint_runtime/prebuilt-objects/")}
    assert entries == {"rt-" + key}, entries                     # the wheel's own, not an editable install's
    base = "cint_runtime/prebuilt-objects/rt-%s/" % key
    assert set(cint_runtime._object_names()) | {"KEY", "LABEL"} == {n[len(base):] for n in names if n.startswith(base)}
    assert zipfile.ZipFile(wheel).read(base + "KEY").decode("ascii").strip() == key
    assert "cint_runtime/runtime-c/include/cint_rt.h" in names     # the sources, for another compiler or flags
    assert any(n.startswith("cint_runtime/runtime-c/src/") and n.endswith(".c") for n in names)
    tag = wheel.name[:-len(".whl")].split("-")[-3:]               # python, abi and platform tags
    assert tag[2] != "any", wheel.name                             # objects are native: a platform wheel
    meta = zipfile.ZipFile(wheel).read("cint_runtime-%s.dist-info/WHEEL" % cint_runtime.__version__).decode()
    assert "Root-Is-Purelib: false" in meta


def test_an_install_of_the_wheel_uses_its_objects_with_an_empty_cache(wheel, tmp_path):
    site = tmp_path / "site"
    done = _pip(["install", "--no-deps", "--no-index", "--no-cache-dir", "--target", str(site), str(wheel)])
    assert done.returncode == 0, done.stdout + done.stderr
    cache = tmp_path / "cache"
    cache.mkdir()
    (tmp_path / "m.ci").write_text("export I64 twice(I64 x) {\n    return x * 2;\n}\n")
    probe = r"""
import json, subprocess, sys
import cint_runtime
compiles = []
real = subprocess.run
def run(args, *a, **k):
    if any(str(x).endswith(".c") and "runtime-c" in str(x) for x in args):   # a runtime-c source compiled
        compiles.append([str(x) for x in args])
    return real(args, *a, **k)
cint_runtime.subprocess.run = run
objs = cint_runtime.objects()
from cint_compiler import cli
rc = cli.main(["build", "--lib", "--out", sys.argv[1], sys.argv[2]])
print(json.dumps({"file": cint_runtime.__file__, "root": str(cint_runtime.root()), "key": cint_runtime.key(),
                  "objects": [str(o) for o in objs], "compiles": compiles, "rc": rc}))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site)] + [p for p in os.environ.get("PYTHONPATH", "")
                                                                      .split(os.pathsep) if p]),
               CINT_CACHE=str(cache))
    env.pop("CC", None)
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "out"), str(tmp_path / "m.ci")],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    installed = site / "cint_runtime"
    assert Path(got["file"]).parent == installed                  # the wheel's package, not the editable one
    assert Path(got["root"]) == installed / "runtime-c"
    entry = installed / "prebuilt-objects" / ("rt-" + got["key"])
    assert got["objects"] and all(Path(o).parent == entry for o in got["objects"])
    assert got["compiles"] == []                                   # the first load compiled nothing of runtime-c
    assert got["rc"] == 0 and (tmp_path / "out" / "libm.so").is_file()
    assert not list(cache.rglob("rt-*"))                           # and put no runtime objects in the cache
