"""The spec's Python examples (SPEC-03P.1 8.2, 8.4, 8.5, 8.6, 10.2), run from a temporary folder."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

EXAMPLES = Path(__file__).resolve().parents[4] / "shared" / "spec" / "examples"
if not EXAMPLES.is_dir():
    EXAMPLES = Path("/work/shared/spec/examples")


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


@pytest.mark.clause("10.2")
def test_dispatches_example(tmp_path, cache):
    done = run_example(tmp_path, cache, "dispatches.py", "grid.ci")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXAMPLES / "dispatches.out").read_text()


@pytest.mark.clause("8.5")
def test_values_example_up_to_float_conversions(tmp_path, cache):
    """Every line before the float conversions agrees; cint.from_float is not in this slice."""
    done = run_example(tmp_path, cache, "values.py", "calls.ci")
    want = (EXAMPLES / "values.out").read_text().splitlines()
    got = done.stdout.splitlines()
    k = next(i for i, line in enumerate(want) if line.startswith("from_float"))
    assert got[:k] == want[:k]
    assert done.returncode != 0 and "NotImplementedError: cint.from_float" in done.stderr
