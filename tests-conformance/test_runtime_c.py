"""The C runtime's own test suite (runtime-c/tests/run.sh): unit tests of the registry, leases,
publication, statuses and fault records, plain and under AddressSanitizer and
UndefinedBehaviorSanitizer, with the spec's C examples against the hand-written fixtures."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.clause("A-1", "A-2", "A-4", "A-6", "A-7", "A-7a", "A-8", "A-9", "A-10", "A-11", "A-17", "M-10", "M-11",
                    "H-11", "H-12", "RT-19", "M-30", "M-31")
def test_runtime_c_suite(tmp_path):
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc)")
    env = dict(os.environ, CINT_RT_TEST_BUILD=str(tmp_path / "build"))
    done = subprocess.run(["bash", str(REPO / "runtime-c" / "tests" / "run.sh")], capture_output=True, text=True,
                          timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "all passed" in done.stdout
