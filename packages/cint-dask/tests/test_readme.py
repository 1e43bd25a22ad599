"""The Dask example of README.md ("From Python") runs and prints what its comments say."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.clause("H-21")
def test_readme_dask_example(tmp_path):
    text = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "cint_dask" in b]
    assert len(blocks) == 1
    code = blocks[0]
    want = [m.group(1).strip() for line in code.splitlines() if "print(" in line
            for m in [re.search(r"#\s*(.*)$", line)] if m]
    env = dict(os.environ, CINT_PY_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == want
