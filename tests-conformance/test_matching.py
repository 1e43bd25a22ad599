"""The `...` transcript matcher used for the examples' `.out` files."""
import pytest

from matching import explain_mismatch, match_with_ellipsis


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        ([], [], True),
        ([], ["a"], False),
        (["a"], ["a"], True),
        (["a"], ["b"], False),
        (["a", "b"], ["a"], False),
        (["..."], [], True),
        (["..."], ["x", "y"], True),
        (["a", "...", "b"], ["a", "b"], True),
        (["a", "...", "b"], ["a", "x", "y", "b"], True),
        (["a", "...", "b"], ["a", "x", "b", "c"], False),
        (["a", "..."], ["a", "x", "y"], True),
        (["...", "b"], ["b", "b"], True),
        (["...", "b", "..."], ["a", "c"], False),
        (["a", "...", "...", "b"], ["a", "b"], True),
        # a line must match whole, and an ellipsis is a whole line of its own
        (["a..."], ["abc"], False),
        (["a"], ["a "], False),
        # backtracking: the first `b` is not always the right one
        (["...", "b", "c"], ["b", "x", "b", "c"], True),
    ],
)
def test_match_with_ellipsis(expected, actual, ok):
    assert match_with_ellipsis(expected, actual) is ok
    assert (explain_mismatch(expected, actual) is None) is ok


def test_explain_names_the_missing_line():
    why = explain_mismatch(["next: 1", "...", "   = operation: mul.checked.i64"], ["next: 1", "fault"])
    assert "line 3" in why and "mul.checked.i64" in why
    assert "goes on" in explain_mismatch(["a"], ["a", "b"])
