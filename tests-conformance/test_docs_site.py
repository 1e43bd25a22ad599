"""The documentation site (mkdocs.yml, docs/): it builds in strict mode, every snippet of its guide
pages runs with the output it shows (docs_snippets.py), and the generated reference pages are current."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docs_snippets import blocks_of, matches, run_page

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = sorted((DOCS / "guide").glob("*.md")) + [DOCS / "index.md"]


@pytest.fixture(scope="module")
def site_env(source_env):
    """The pages' folder (source_env: a private build cache) with a private runtime cache and the headers; the
    environment of the console blocks' commands also finds this interpreter's tools first."""
    import cint_runtime
    base = source_env("docs-site", environ={"CINT_CACHE": "{base}/rt-cache", "CINT_RT": str(cint_runtime.include_dir())})
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHON"] = sys.executable
    return base, env


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_snippet_runs(page, site_env):
    if page.name == "c.md" and shutil.which("cc") is None:
        pytest.skip("the C guide compiles its host program: no C compiler (cc)")
    base, env = site_env
    work = base / page.stem
    work.mkdir()
    run_page(page, work, env)


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs-material is installed by scripts/setup.sh")
    out = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                           str(REPO / "mkdocs.yml"), "-d", str(out)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (out / "guide" / "tour" / "index.html").is_file()
    assert not (REPO / "site").exists()


def _generated():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        return importlib.import_module("gen_docs").pages()
    finally:
        sys.path.pop(0)


def test_api_reference_names_every_public_name():
    text = _generated()["reference/api.md"]
    import cint
    import cint_abi.codes
    import cint_replay
    for mod in (cint, cint_replay):
        for name in mod.__all__:
            assert "`%s.%s`" % (mod.__name__, name) in text, "%s.%s is missing from the API page" % (mod.__name__, name)
    for name in ("FAULT_CODES", "STATUSES", "REFUSAL_REASONS"):
        assert "`cint_abi.codes.%s`" % name in text


def test_error_index_lists_every_code():
    from cint_abi import codes
    text = _generated()["reference/errors.md"]
    for table in (codes.FAULT_CODES, codes.STATUSES, codes.REFUSAL_REASONS):
        for name in table:
            assert "`%s`" % name in text, name


def test_error_index_links_the_compile_diagnostics():
    text = _generated()["reference/errors.md"]
    assert (DOCS / "diagnostics.md").is_file()
    assert "[Diagnostics](../diagnostics.md)" in text
    nav = (REPO / "mkdocs.yml").read_text().split("\nnav:", 1)[1]
    assert ": diagnostics.md\n" in nav, "docs/diagnostics.md is in mkdocs.yml's nav"


def test_error_index_examples_fault_with_their_code(site_env, tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        gen = importlib.import_module("gen_docs")
    finally:
        sys.path.pop(0)
    from docs_snippets import _cint
    import cint
    for code, ex in gen.FAULT_EXAMPLE.items():
        if ex[0] == "cint":
            (tmp_path / "example.ci").write_text(ex[1])
            got = _cint(["run", "example.ci"] + ex[2], tmp_path)
            assert "fault[%s]" % code in got, (code, got)
        else:
            with pytest.raises(cint.Fault) as e:
                exec(compile(ex[1], "example", "exec"), {})
            assert e.value.code == code


def test_harness_compares_output():
    assert matches("a\n...\nz\n", "a\nb\nc\nz\n")
    assert not matches("a\nz\n", "a\nb\nz\n")
    assert matches("", "")
    assert [b.lang for b in blocks_of("<!-- file: x.ci -->\n```cint\nx\n```\n```text\n1\n```\n")] == ["cint", "text"]
