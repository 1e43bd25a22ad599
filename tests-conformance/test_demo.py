"""The README's demo, examples/demo.ci, prints exactly examples/demo.out and ends in its fault."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from matching import explain_mismatch, match_with_ellipsis

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.clause("SPEC-04 LS-218", "SPEC-04 LS-158", "SPEC-04 LS-133", "SPEC-04 LS-206", "SPEC-04 LS-284")
def test_demo_output(tmp_path):
    shutil.copyfile(EXAMPLES / "demo.ci", tmp_path / "demo.ci")
    done = subprocess.run(
        [sys.executable, "-m", "cint_compiler", "run", "demo.ci"],
        cwd=tmp_path, env=dict(os.environ, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
    )
    actual = done.stdout.decode("utf-8", "replace").splitlines()
    expected = (EXAMPLES / "demo.out").read_text(encoding="utf-8").splitlines()
    if not match_with_ellipsis(expected, actual):
        why = explain_mismatch(expected, actual)
        pytest.fail(f"{why}\n--- output of cint run ---\n" + "\n".join(actual), pytrace=False)
    assert done.returncode != 0, "the demo ends in a deliberate E_OVERFLOW fault"


@pytest.mark.clause("P-20a", "8.6", "M-30", "A-7")
def test_numpy_demo_output(tmp_path):
    for name in ("particles.ci", "numpy_demo.py"):
        shutil.copyfile(EXAMPLES / name, tmp_path / name)
    done = subprocess.run([sys.executable, "numpy_demo.py"], cwd=tmp_path, capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == (EXAMPLES / "numpy_demo.out").read_text()
