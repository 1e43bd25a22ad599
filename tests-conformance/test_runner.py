"""The upstream runner's rules, checked with a stand-in for `expect_text`."""
import subprocess
import sys
import types
from pathlib import Path

import pytest

import conformance_upstream as cu
from conformance_clauses import clause_matches, clause_tags
from cint_compiler.conformance.expect import case_variants

EXPECT = "case arith/one\nclause SPEC-01 IM-30\nsource reference\noutcome value\nreturn I64 1\n"
PRODUCED = "case arith/one\nclause whatever\nsource cpu-sir-interp\noutcome value\nreturn I64 1\n"
WRONG = PRODUCED.replace("I64 1", "I64 2")


@pytest.fixture
def case(tmp_path):
    ci = tmp_path / "arith" / "one.ci"
    ci.parent.mkdir()
    ci.write_text("// case: arith/one\n// clause: SPEC-01 IM-30\n// entry: run; args: I64 7; fuel 3\n")
    (tmp_path / "arith" / "one.expect").write_text(EXPECT)
    (variant,) = case_variants(ci, tmp_path)
    return tmp_path, variant


def run(case, produce, listed=None):
    root, variant = case
    results = []
    cu.run_variant(variant, root, executor="ref", listed=listed or {}, produce=produce, record=results.append)
    return results


def test_agreeing_case_passes_and_gets_its_header(case):
    seen = {}

    def produce(ci_path, root, **kw):
        seen.update(kw, ci_path=ci_path, root=root)
        return PRODUCED

    assert run(case, produce) == ["agree"]
    root, variant = case
    assert seen == dict(
        ci_path=variant.ci_path, root=root, case_id="arith/one", clause="SPEC-01 IM-30",
        entry="run", args=["I64 7"], fuel=3, depth=None, fmt=1, executor="ref",
    )


def test_unlisted_disagreement_fails_with_the_first_difference(case):
    with pytest.raises(pytest.fail.Exception, match="expected line 5 `return I64 1`, produced line 5 `return I64 2`"):
        run(case, lambda *a, **k: WRONG)


def test_listed_disagreement_is_xfail(case):
    with pytest.raises(pytest.xfail.Exception, match="listed \\(needs floor division\\)"):
        run(case, lambda *a, **k: WRONG, listed={"arith/one": "needs floor division"})


def test_listed_agreement_fails_and_says_to_unlist(case):
    with pytest.raises(pytest.fail.Exception, match="remove it from tests-conformance/upstream-listed.txt"):
        run(case, lambda *a, **k: PRODUCED, listed={"arith/one": "was broken"})


def test_exceptions(case):
    def boom(*a, **k):
        raise NotImplementedError("switch")

    with pytest.raises(NotImplementedError):
        run(case, boom)
    with pytest.raises(pytest.xfail.Exception, match="NotImplementedError: switch"):
        run(case, boom, listed={"arith/one": "no switch yet"})


def test_held_case_is_skipped(case):
    case[1].expect_path.unlink()
    with pytest.raises(pytest.skip.Exception, match="held"):
        run(case, lambda *a, **k: PRODUCED)


def test_default_producer_is_the_leads_api(case, monkeypatch):
    fake = types.ModuleType("cint_compiler.conformance.outcome")
    fake.expect_text = lambda *a, **k: PRODUCED
    monkeypatch.setitem(sys.modules, "cint_compiler.conformance.outcome", fake)
    assert run(case, None) == ["agree"]
    fake.expect_text = lambda *a, **k: WRONG
    with pytest.raises(pytest.fail.Exception):
        run(case, None)


def test_missing_api_fails_clearly(case, monkeypatch):
    monkeypatch.setitem(sys.modules, "cint_compiler.conformance.outcome", None)  # import raises ImportError
    with pytest.raises(pytest.fail.Exception, match="expect_text is not available"):
        run(case, None)


def test_read_listed(tmp_path):
    path = tmp_path / "listed.txt"
    assert cu.read_listed(path) == {}
    path.write_text("# comment\n\narith/a.taken needs && at run time  # trailing\nview/b rank 2\n")
    assert cu.read_listed(path) == {"arith/a.taken": "needs && at run time", "view/b": "rank 2"}
    path.write_text("arith/a\n")
    with pytest.raises(ValueError, match="reason"):
        cu.read_listed(path)
    path.write_text("arith/a x\narith/a y\n")
    with pytest.raises(ValueError, match="twice"):
        cu.read_listed(path)


def test_the_list_in_the_repository_reads():
    cu.read_listed(cu.LISTED_PATH)


def test_clause_tags_and_selection():
    assert clause_tags("SPEC-01 IM-23; SPEC-04 LS-264 (decision 2026-10-03, slice 2 patch D-9)") == ["IM-23", "LS-264"]
    assert clause_tags("SPEC-04 8.5; SPEC-09 5.2, 5.4 (example and its boundary)") == [
        "SPEC-04 8.5", "SPEC-09 5.2", "SPEC-09 5.4"]
    assert clause_tags("SPEC-04 LS-70; SPEC-02 A-5 T3 (copying; OQ-133, REF-OQ-12)") == ["LS-70", "SPEC-02 A-5"]
    assert clause_tags(None) == []
    assert clause_matches("IM-30", "IM-30") and clause_matches("im-30", "IM-30")
    assert not clause_matches("IM-30", "IM-3")
    assert clause_matches("SPEC-04 LS-284", "LS-284") and clause_matches("LS-284", "SPEC-04 LS-284")
    assert clause_matches("A-9", "A-9") and not clause_matches("SPEC-02 A-5", "A-5")
    assert clause_matches("SPEC-09P.1 RT-10", "RT-10")
    assert clause_matches("10.3", "10.3") and clause_matches("SPEC-04 8.5", "8.5")
    assert not clause_matches("SPEC-04 8.5", "SPEC-01 8.5")


@pytest.mark.skipif(not cu.upstream_root().is_dir(), reason="../shared/upstream-conformance is absent")
def test_clause_option_selects_tagged_cases():
    """`--clause IM-30` keeps exactly the cases whose clause line cites IM-30."""
    wanted = sorted(
        v.case_id for v in cu.collect_variants(cu.upstream_root()) if "IM-30" in clause_tags(v.header.clause)
    )
    assert wanted
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "--clause", "IM-30",
         "tests-conformance/test_upstream.py"],
        cwd=cu.REPO_ROOT, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    collected = sorted(line.split("[", 1)[1].rstrip("]") for line in out.stdout.splitlines() if "::test_upstream_case[" in line)
    assert collected == wanted
