"""Every program case of ../shared/upstream-conformance, one test per case variant.

Each test is tagged with the clause identifiers of its case's `clause` line
(`bash scripts/test.sh --clause IM-30`); `--executor` chooses the executor.
"""
import pytest

from conformance_clauses import clause_tags
from conformance_upstream import LISTED_PATH, collect_variants, read_listed, run_variant, upstream_root

ROOT = upstream_root()
if not ROOT.is_dir():
    pytest.skip(
        f"upstream conformance cases not found at {ROOT} (../shared/upstream-conformance beside the repository)",
        allow_module_level=True,
    )

VARIANTS = collect_variants(ROOT)
LISTED = read_listed(LISTED_PATH)


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, id=v.case_id, marks=pytest.mark.clause(*clause_tags(v.header.clause))) for v in VARIANTS],
)
def test_upstream_case(variant, executor, record_property):
    record_property("upstream-folder", variant.folder)
    run_variant(
        variant,
        ROOT,
        executor=executor,
        listed=LISTED,
        record=lambda result: record_property("upstream-result", result),
    )


def test_listed_cases_exist():
    """Every listed case exists; a line of a folder that this copy of the suite lacks (the public folders
    that ../shared holds back, listed for a run over a whole public copy) is not checked."""
    known = {v.case_id for v in VARIANTS}
    folders = {v.folder for v in VARIANTS}
    stale = sorted(c for c in set(LISTED) - known if c.split("/", 1)[0] in folders)
    assert not stale, f"upstream-listed.txt names cases that do not exist: {stale}"


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, id=v.case_id, marks=pytest.mark.clause(*clause_tags(v.header.clause), "SPEC-03P.1 4"))
     for v in VARIANTS],
)
def test_upstream_case_cpu(variant):
    """The same case on the executor cpu-c17 (issue 3 item 6): it agrees with the frozen outcome, or the
    backend refuses a construct it does not implement yet (skipped, with the construct named)."""
    if variant.case_id in LISTED or not variant.expect_path.exists():
        pytest.skip("listed for the reference executor")
    from cint_compiler.conformance.expect import compare_expect, expect_format, parse_expect
    from cint_compiler.conformance.outcome import expect_text
    expected = variant.expect_path.read_text(encoding="ascii")
    h = variant.header
    got = expect_text(variant.ci_path, ROOT, case_id=variant.case_id, clause=h.clause, entry=variant.entry,
                      args=h.args, fuel=h.fuel, depth=h.depth, fmt=expect_format(parse_expect(expected)),
                      executor="cpu")
    if "\noutcome refused\nrefused.reason cpu-c17:" in got:
        pytest.skip(got.split("refused.reason ", 1)[1].strip())
    diff = compare_expect(expected, got)
    assert diff is None, diff
