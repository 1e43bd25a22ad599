"""The fuzz targets of fuzz/ run for a short budget each (scripts/fuzz.sh): no decoder of untrusted
input may raise anything but its documented decode error, and no runtime check may crash under
ASan/UBSan.  The long runs are reported in docs/status.md."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SECONDS = int(os.environ.get("CINT_FUZZ_SECONDS", "3"))


def _targets():
    out = []
    for f in sorted((REPO / "fuzz" / "python").glob("fuzz_*.py")) + sorted((REPO / "fuzz" / "c").glob("fuzz_*.c")):
        out.append(pytest.param(f, id=f.stem[len("fuzz_"):]))
    return out


def _have_atheris() -> bool:
    return subprocess.run([sys.executable, "-c", "import atheris"], capture_output=True).returncode == 0


def test_every_target_has_a_seed_corpus():
    names = [p.values[0].stem[len("fuzz_"):] for p in _targets()]
    assert {"typesig", "checkpoint", "state", "faultrecord", "expect", "state_restore", "views"} <= set(names)
    for n in names:
        seeds = REPO / "fuzz" / "corpus" / n
        assert seeds.is_dir() and any(seeds.iterdir()), "fuzz/corpus/%s has no seeds (fuzz/make_seeds.py)" % n


@pytest.mark.parametrize("target", _targets())
def test_fuzz_target_short_run(target, tmp_path):
    if target.suffix == ".py" and not _have_atheris():
        pytest.skip("atheris is not installed (bash scripts/setup.sh installs it)")
    if target.suffix == ".c" and shutil.which("clang") is None:
        pytest.skip("no clang for libFuzzer (apt-get install clang)")
    name = target.stem[len("fuzz_"):]
    env = dict(os.environ, PYTHON=sys.executable, FUZZ_OUT=str(tmp_path / "artifacts"))
    done = subprocess.run(["bash", str(REPO / "scripts" / "fuzz.sh"), "--seconds", str(SECONDS), name],
                          capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "fuzz.sh: %s: ok: number_of_executed_units:" % name in done.stdout, done.stdout


def test_fuzz_sh_refuses_an_unknown_target():
    done = subprocess.run(["bash", str(REPO / "scripts" / "fuzz.sh"), "nosuch"], capture_output=True, text=True)
    assert done.returncode == 2 and "no target 'nosuch'" in done.stderr


def test_a_python_crash_is_reported(tmp_path):
    """A target whose decoder raises something undocumented fails the run (the harness itself)."""
    if not _have_atheris():
        pytest.skip("atheris is not installed")
    bad = tmp_path / "fuzz_bad.py"
    bad.write_text("import sys, atheris\n"
                   "def TestOneInput(data):\n"
                   "    if data[:1] == b'x':\n"
                   "        raise KeyError('undocumented')\n"
                   "atheris.Setup(sys.argv, TestOneInput)\natheris.Fuzz()\n")
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a").write_bytes(b"x")
    done = subprocess.run([sys.executable, str(bad), "-runs=10", "-artifact_prefix=%s/" % tmp_path, str(seeds)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "KeyError" in done.stdout + done.stderr
