"""Case headers and `.expect` texts (cint_compiler.expect)."""
from pathlib import Path

import pytest

from cint_compiler.conformance.expect import (
    CaseHeader,
    case_variants,
    compare_expect,
    expect_format,
    find_cases,
    parse_expect,
    parse_header,
)

FAULT_EXPECT = """\
case arith/x
clause SPEC-01 IM-30
source reference
outcome fault
stdout-bytes 0
fuel-consumed 1
fault.code E_OVERFLOW
fault.operand I64 9223372036854775807
fault.operand I64 1
"""


def test_header_one_key_per_line():
    text = (
        "// case: control/depth_limit_stack\n"
        "// clause: SPEC-01 IM-107, IM-119; SPEC-09 CONF-11 (format 2, rule 5)\n"
        "// subset: cint-boot-1\n"
        "// entry: f; args: I64 0; depth 4\n"
        "// spec outcome: fault E_DEPTH at 19:12 (the call of m in k),\n"
        "// continued here: clause: not a key\n"
        "\n"
        "export I64 f(I64 n) { return n; }\n"
        "// clause: after the header, ignored\n"
    )
    h = parse_header(text)
    assert h == CaseHeader(
        case="control/depth_limit_stack",
        clause="SPEC-01 IM-107, IM-119; SPEC-09 CONF-11 (format 2, rule 5)",
        entries=["f"],
        args=["I64 0"],
        fuel=None,
        depth=4,
        subset="cint-boot-1",
    )


def test_header_several_entries_and_fuel():
    h = parse_header("// case: a/b\n// entry: taken, skipped; args: none; fuel 2\nx();\n")
    assert h.entries == ["taken", "skipped"]
    assert h.args == []
    assert h.fuel == 2 and h.depth is None


def test_header_separate_budget_lines_and_several_args():
    h = parse_header("// case: a/b\n// entry: run\n// args: I64 1, U8 2\n// fuel: 10\n// depth: 3\n")
    assert h.args == ["I64 1", "U8 2"]
    assert (h.fuel, h.depth) == (10, 3)


def test_header_without_entry_runs_the_default():
    h = parse_header("// case: control/main_with_test\n// clause: SPEC-04 LS-221\n")
    assert h.entries == [None]
    assert h.args == []


def test_header_folded_into_first_line():
    text = (
        "// conformance/arith/add_i64_overflow.ci (SPEC-09 9.2 CONF-01 example; clause SPEC-01 IM-30, "
        "IM-32, IM-106, IM-107; subset cint-core-1, test block and print; spec outcome: fault at 5:15)\n"
        'test "add overflow" {\n'
    )
    h = parse_header(text)
    assert h.case == "arith/add_i64_overflow"
    assert h.clause == "SPEC-01 IM-30, IM-32, IM-106, IM-107"
    assert h.subset == "cint-core-1, test block and print"
    assert h.entries == [None]


def test_header_absent():
    h = parse_header("export I64 f() { return 1; }\n")
    assert h.case is None and h.entries == [None]


@pytest.mark.parametrize(
    "text",
    [
        "// case: a\n// case: b\n",
        "// case: a\n// entry: run; fuel lots\n",
        "// case: a\n// entry: run; bogus 3\n",
        "// case: a\n// entry: run, run\n",
        "// case: a\n// entry: 9lives\n",
    ],
)
def test_header_malformed(text):
    with pytest.raises(ValueError):
        parse_header(text)


def test_parse_expect_fields():
    fields = parse_expect(FAULT_EXPECT)
    assert fields[0] == ("case", "arith/x")
    assert fields[-1] == ("fault.operand", "I64 1")
    assert len(fields) == 9
    assert parse_expect(FAULT_EXPECT.encode("ascii")) == fields


@pytest.mark.parametrize(
    "text",
    [
        "",
        "case a",  # no final LF
        "case a\r\n",
        "case a\n\n",  # empty line
        "case\n",  # no value
        "case \n",  # empty value
        "Case a\n",  # key not lowercase
        "case  a\n",  # stray blank
        "case a \n",
        "case \u00e9\n",
        b"case \xff\n",
    ],
)
def test_parse_expect_malformed(text):
    with pytest.raises(ValueError):
        parse_expect(text)


def test_expect_format():
    assert expect_format(parse_expect(FAULT_EXPECT)) == 1
    two = FAULT_EXPECT.replace("source reference\n", "format 2\nsource reference\n")
    assert expect_format(parse_expect(two)) == 2
    assert expect_format(two.splitlines()) == 2
    assert expect_format([("case", "a")]) == 1
    with pytest.raises(ValueError):
        expect_format([("case", "a"), ("clause", "b"), ("format", "9")])


def test_compare_ignores_clause_and_source():
    other = FAULT_EXPECT.replace("clause SPEC-01 IM-30", "clause anything at all").replace(
        "source reference", "source compile-error"
    )
    assert compare_expect(FAULT_EXPECT, other) is None
    dropped = FAULT_EXPECT.replace("clause SPEC-01 IM-30\n", "").replace("source reference\n", "")
    assert compare_expect(FAULT_EXPECT, dropped) is None


def test_compare_reports_first_difference():
    changed = FAULT_EXPECT.replace("fuel-consumed 1", "fuel-consumed 2").replace("I64 1\n", "I64 2\n")
    diff = compare_expect(FAULT_EXPECT, changed)
    assert diff == "expected line 6 `fuel-consumed 1`, produced line 6 `fuel-consumed 2`"


def test_compare_lengths_and_malformed_output():
    shorter = FAULT_EXPECT.replace("fault.operand I64 1\n", "")
    assert "produced text ended" in compare_expect(FAULT_EXPECT, shorter)
    assert "is extra" in compare_expect(shorter, FAULT_EXPECT)
    assert "not a valid .expect text" in compare_expect(FAULT_EXPECT, "oops")
    with pytest.raises(ValueError):
        compare_expect("oops", FAULT_EXPECT)


def test_compare_format_line_counts():
    two = FAULT_EXPECT.replace("source reference\n", "format 2\nsource reference\n")
    assert compare_expect(two, FAULT_EXPECT) is not None


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_case_variants_single_and_multi(tmp_path):
    single = _write(tmp_path, "arith/one.ci", "// case: arith/one\n// entry: run; args: none\n")
    _write(tmp_path, "arith/one.expect", "case arith/one\n")
    multi = _write(tmp_path, "arith/two.ci", "// case: arith/two\n// entry: taken, skipped; args: none\n")
    plain = _write(tmp_path, "control/script.ci", "// case: control/script\n")
    _write(tmp_path, "module/lib/helper.ci", "export I64 k() { return 1; }\n")

    (v,) = case_variants(single, tmp_path)
    assert (v.case_id, v.entry, v.folder) == ("arith/one", "run", "arith")
    assert v.expect_path == tmp_path / "arith/one.expect"
    assert v.header.args == []

    taken, skipped = case_variants(multi, tmp_path)
    assert (taken.case_id, taken.entry) == ("arith/two.taken", "taken")
    assert taken.expect_path == tmp_path / "arith/two.taken.expect"
    assert (skipped.case_id, skipped.entry) == ("arith/two.skipped", "skipped")

    (s,) = case_variants(plain, tmp_path)
    assert (s.case_id, s.entry) == ("control/script", None)

    assert find_cases(tmp_path) == [single, multi, plain]


def test_case_variants_prefers_cintc_expectation(tmp_path):
    ci = _write(tmp_path, "boot/refuse.ci", "// case: boot/refuse\n// entry: run; args: none\n")
    _write(tmp_path, "boot/refuse.expect", "case boot/refuse\n")
    assert case_variants(ci, tmp_path)[0].expect_path.name == "refuse.expect"
    _write(tmp_path, "boot/refuse.cintc.expect", "case boot/refuse\n")
    assert case_variants(ci, tmp_path)[0].expect_path.name == "refuse.cintc.expect"


UPSTREAM = Path(__file__).resolve().parents[3].parent / "shared" / "upstream-conformance"


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason="../shared/upstream-conformance is absent")
def test_every_upstream_expect_file_reads_back():
    variants = [v for ci in find_cases(UPSTREAM) for v in case_variants(ci, UPSTREAM)]
    assert variants
    frozen = {p.resolve() for p in UPSTREAM.rglob("*.expect")}
    assert {v.expect_path.resolve() for v in variants if v.expect_path.exists()} == frozen
    for v in variants:
        if not v.expect_path.exists():
            continue
        text = v.expect_path.read_bytes()
        fields = parse_expect(text)
        assert fields[0] == ("case", v.case_id)
        assert fields[1] == ("clause", v.header.clause)
        assert expect_format(fields) in (1, 2, 3, 4)
        assert compare_expect(text, text) is None


def test_a_case_that_starts_with_a_byte_order_mark_or_bad_bytes_is_found(tmp_path):
    # a diagnostic case may begin with EF BB BF (C1002) or hold bytes that are not UTF-8; its header still counts
    (tmp_path / "diag").mkdir()
    bom = tmp_path / "diag" / "bom.ci"
    bom.write_bytes(b"\xef\xbb\xbf// case: diag/bom\n// entry: run; args: none\nexport I64 run() { return 0; }\n")
    bad = tmp_path / "diag" / "bad.ci"
    bad.write_bytes(b"// case: diag/bad\n// entry: run; args: none\n// \xff\xfe\n")
    assert find_cases(tmp_path) == [bad, bom]
    assert [v.case_id for v in case_variants(bom, tmp_path)] == ["diag/bom"]
