"""The worked examples of SPEC-03P.1 in ../shared/spec/examples.

Every cint file there must pass the checker, and the script of 10.3 must run
under `cint run` with the output the specification prints (a `...` line in
the `.out` file stands for lines the specification leaves out).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from matching import explain_mismatch, match_with_ellipsis

REPO_ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = Path(os.environ.get("CINT_SPEC_EXAMPLES", REPO_ROOT.parent / "shared" / "spec" / "examples"))

if not EXAMPLES.is_dir():
    pytest.skip(f"spec examples not found at {EXAMPLES} (../shared/spec/examples beside the repository)",
                allow_module_level=True)


def sections_of_examples() -> dict[str, list[str]]:
    """`{file.ci: [SPEC-03P.1 sections that show it]}`, read from the examples' README table."""
    sections: dict[str, list[str]] = {}
    readme = EXAMPLES / "README.md"
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"[0-9]+(\.[0-9]+)+", cells[2]):
            continue
        program, library, section = cells
        name = program.split()[0] if library == "itself" else library
        sections.setdefault(name, [])
        if section not in sections[name]:
            sections[name].append(section)
    return sections


SECTIONS = sections_of_examples()
CI_FILES = sorted(EXAMPLES.glob("*.ci"))


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=p.name, marks=pytest.mark.clause(*SECTIONS.get(p.name, []))) for p in CI_FILES],
)
def test_checker_accepts_example(path):
    from cint_compiler.diagnostics import CompileError
    from cint_compiler.driver import check_file

    try:
        check_file(path)
    except CompileError as exc:
        pytest.fail(f"{path.name} is rejected: {exc}", pytrace=False)


def run_cint(source: Path, cwd: Path) -> subprocess.CompletedProcess:
    """`cint run NAME` in `cwd`, stdout and stderr as one stream, in the order written."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "cint_compiler", "run", source.name],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
    )


@pytest.mark.clause("10.3", "SPEC-04 LS-218", "SPEC-04 LS-284")
def test_advance_run_prints_the_fault_of_10_3(tmp_path):
    source = tmp_path / "advance_run.ci"
    shutil.copyfile(EXAMPLES / "advance_run.ci", source)
    done = run_cint(source, tmp_path)
    actual = done.stdout.decode("utf-8", "replace").splitlines()
    expected = (EXAMPLES / "advance_run.out").read_text(encoding="utf-8").splitlines()
    # 10.3 paragraph 2: the example skips lines, the call stack among them, which cint run
    # prints after the address line; the printed excerpt therefore ends with an implicit `...`.
    expected.append("...")
    if not match_with_ellipsis(expected, actual):
        why = explain_mismatch(expected, actual)
        pytest.fail(f"{why}\n--- output of cint run ---\n" + "\n".join(actual), pytrace=False)
    assert done.returncode != 0, "cint run must exit non-zero after a fault"
