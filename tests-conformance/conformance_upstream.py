"""Running the upstream program cases against this implementation.

Each variant of each case (`cint_compiler.expect.case_variants`) is run
through `cint_compiler.outcome.expect_text`, which returns the complete
`.expect` text this implementation produces, and is compared with the frozen
file, ignoring the `clause` and `source` lines.

`upstream-listed.txt` names the cases that do not agree yet, one per line,
`<case_id> <reason>`, `#` starting a comment.  A listed case that disagrees is
an expected failure; a listed case that agrees fails, so that the list only
shrinks; an unlisted case that disagrees fails with its first difference.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

import pytest

from cint_compiler.conformance.expect import Variant, case_variants, compare_expect, expect_format, find_cases, parse_expect

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
LISTED_PATH = HERE / "upstream-listed.txt"

# Results recorded for the session summary.
AGREE, LISTED, LISTED_AGREES, DISAGREE, ERROR, HELD = (
    "agree", "listed", "listed-agrees", "disagree", "error", "held",
)


def upstream_root() -> Path:
    """`../shared/upstream-conformance` beside the repository (CINT_UPSTREAM_CONFORMANCE overrides)."""
    override = os.environ.get("CINT_UPSTREAM_CONFORMANCE")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "upstream-conformance"


def read_listed(path: Path) -> dict[str, str]:
    """`{case_id: reason}` from a list file; a missing file is an empty list."""
    listed: dict[str, str] = {}
    if not path.exists():
        return listed
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        case_id, _, reason = line.partition(" ")
        reason = reason.strip()
        if not reason:
            raise ValueError(f"{path.name}:{number}: `{case_id}` needs a reason after the case id")
        if case_id in listed:
            raise ValueError(f"{path.name}:{number}: `{case_id}` is listed twice")
        listed[case_id] = reason
    return listed


def collect_variants(root: Path) -> list[Variant]:
    return [v for ci in find_cases(root) for v in case_variants(ci, root)]


Produce = Callable[..., str]


def load_expect_text() -> Produce:
    """The implementation under test; imported late, so collection works without it."""
    from cint_compiler.conformance.outcome import expect_text

    return expect_text


def run_variant(
    variant: Variant,
    root: Path,
    *,
    executor: str,
    listed: dict[str, str],
    produce: Optional[Produce] = None,
    record: Callable[[str], None] = lambda result: None,
) -> None:
    """Run one variant and end as the rules above say (pass, xfail, fail or skip)."""
    if not variant.expect_path.exists():
        record(HELD)
        pytest.skip(f"{variant.case_id}: no frozen .expect file (held upstream)")
    expected = variant.expect_path.read_bytes().decode("ascii")
    fmt = expect_format(parse_expect(expected))
    reason = listed.get(variant.case_id)
    h = variant.header
    failure: Optional[BaseException] = None
    try:
        if produce is None:
            produce = load_expect_text()
        actual = produce(
            variant.ci_path,
            root,
            case_id=variant.case_id,
            clause=h.clause,
            entry=variant.entry,
            args=list(h.args),
            fuel=h.fuel,
            depth=h.depth,
            fmt=fmt,
            executor=executor,
        )
    except Exception as exc:
        failure = exc
    if failure is not None:
        record(LISTED if reason is not None else ERROR)
        if reason is not None:
            pytest.xfail(f"listed ({reason}); raised {type(failure).__name__}: {failure}")
        if isinstance(failure, ImportError):
            pytest.fail(f"cint_compiler.outcome.expect_text is not available: {failure}", pytrace=False)
        raise failure
    difference = compare_expect(expected, actual)
    if reason is not None:
        if difference is None:
            record(LISTED_AGREES)
            pytest.fail(
                f"{variant.case_id} now agrees with its frozen .expect: "
                f"remove it from tests-conformance/upstream-listed.txt",
                pytrace=False,
            )
        record(LISTED)
        pytest.xfail(f"listed ({reason}); {difference}")
    if difference is not None:
        record(DISAGREE)
        pytest.fail(f"{variant.case_id} ({executor}): {difference}", pytrace=False)
    record(AGREE)
