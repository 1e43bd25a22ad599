"""Comparing program output with an expected transcript that may skip lines.

In a `.out` file of SPEC-03P.1's examples a line that is exactly `...` stands
for zero or more lines the specification leaves out; every other line must
appear, in order, exactly as written.
"""
from __future__ import annotations

from typing import Sequence

ELLIPSIS = "..."


def _walk(expected: Sequence[str], actual: Sequence[str]):
    """Yield, after each expected line, the set of actual prefixes it can end."""
    reach = {0}
    for index, line in enumerate(expected):
        if line == ELLIPSIS:
            reach = set(range(min(reach), len(actual) + 1))
        else:
            reach = {j + 1 for j in reach if j < len(actual) and actual[j] == line}
        yield index, reach
        if not reach:
            return


def match_with_ellipsis(expected_lines: Sequence[str], actual_lines: Sequence[str]) -> bool:
    """True when `actual_lines` is `expected_lines` with each `...` replaced by zero or more lines."""
    reach = {0}
    for _, reach in _walk(expected_lines, actual_lines):
        if not reach:
            return False
    return len(actual_lines) in reach


def explain_mismatch(expected_lines: Sequence[str], actual_lines: Sequence[str]) -> str | None:
    """None when the lines match; otherwise which expected line could not be placed."""
    reach = {0}
    for index, reach in _walk(expected_lines, actual_lines):
        if not reach:
            return f"expected line {index + 1} {expected_lines[index]!r} is not in the output where the lines before it leave off"
    if len(actual_lines) not in reach:
        return f"output goes on after the last expected line: {actual_lines[max(reach)]!r}"
    return None
