"""The spec's Python examples (SPEC-03P.1 8.2, 8.4, 8.5, 8.6, 10.2), run from a temporary folder."""
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("numpy")

from spec_paths import EXAMPLES


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cint-py-cache")


def run_example(tmp_path, cache, script, *libs):
    if not (EXAMPLES / script).is_file():
        pytest.skip("the spec's examples are not available")
    for f in (script,) + libs:
        shutil.copy(EXAMPLES / f, tmp_path / f)
    env = dict(os.environ, CINT_PY_CACHE=str(cache))
    env.pop("CINT_EXE", None)
    done = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=600)
    return done


@pytest.mark.clause("8.6")
def test_numpy_example(tmp_path, cache):
    done = run_example(tmp_path, cache, "numpy_example.py", "advance.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXAMPLES / "numpy_example.out").read_text()


@pytest.mark.clause("8.4")
def test_outputs_example(tmp_path, cache):
    done = run_example(tmp_path, cache, "outputs.py", "calls.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXAMPLES / "outputs.out").read_text()


@pytest.mark.clause("8.2", "P-3", "P-5", "P-7", "P-9")
def test_borrow_example(tmp_path, cache):
    done = run_example(tmp_path, cache, "borrow.py", "grid.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXAMPLES / "borrow.out").read_text()


@pytest.mark.clause("8.3", "6.3", "P-10", "P-12", "P-13", "P-14", "P-18")
def test_dlpack_example(tmp_path, cache):
    done = run_example(tmp_path, cache, "dlpack.py", "calls.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == (EXAMPLES / "dlpack.out").read_text().splitlines()
    assert done.stdout == (EXAMPLES / "dlpack.out").read_text()


@pytest.mark.clause("10.2")
def test_dispatches_example(tmp_path, cache):
    done = run_example(tmp_path, cache, "dispatches.py", "grid.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXAMPLES / "dispatches.out").read_text()


@pytest.mark.clause("8.5", "P-21", "P-22", "P-23", "P-24", "X-1", "X-4", "X-5", "X-6", "X-10")
def test_values_example(tmp_path, cache):
    """values.py, float conversions included, line by line."""
    done = run_example(tmp_path, cache, "values.py", "calls.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == (EXAMPLES / "values.out").read_text().splitlines()


@pytest.mark.clause("9.2", "9.3", "H-14", "H-16", "H-17", "H-17a", "H-19")
def test_record_example(tmp_path, cache):
    """record.py: a recording on cpu-c17 replayed on both CPU executors, a stopped replay, a checkpoint view."""
    done = run_example(tmp_path, cache, "record.py", "counter.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXAMPLES / "record.out").read_text()
