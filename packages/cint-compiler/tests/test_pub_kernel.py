"""Kernel write rule and coverage of `out` blocks (SPEC-04P.1 LS-248), found by comparing with the
public v0.1 kernel cases: a write to a kernel's `out`/`inout` array must lead with the `over`
variables in order, and every element of an `out` array's block must be written on every path."""
from compiler_testkit import both, compile_error, where


def test_write_with_shifted_leading_index_is_c5031():
    e = compile_error("""kernel bump[m](in I32[m] src, out I32[m] dst) over [j: m] {
    dst[j - 1] = src[j];
}
""")
    assert e.code == "C5031" and where(e) == (2, 5)


def test_write_with_swapped_over_variables_is_c5031():
    e = compile_error("""kernel flip[r, c](in I64[r, c] src, inout I64[r, c] dst) over [p: r, q: c] {
    I64 t = src[p, q];
    dst[q, p] = t;
}
""")
    assert e.code == "C5031" and where(e) == (3, 5)


def test_write_with_constant_leading_index_is_c5031():
    e = compile_error("""kernel first[m](in I64[m] src, out I64[m] dst) over [j: m] {
    dst[j] = src[j];
    dst[0] += 1;
}
""")
    assert e.code == "C5031" and where(e) == (3, 5)


def test_out_written_only_under_one_branch_is_c5031():
    e = compile_error("""kernel evens[m](in I64[m] src, out I64[m] dst) over [j: m] {
    I64 h = src[j];
    if (h % 2 == 0) {
        dst[j] = h;
    }
}
""")
    assert e.code == "C5031" and where(e) == (4, 9)


def test_out_never_written_is_c5031_at_the_parameter():
    e = compile_error("""kernel idle[m](in I64[m] src, out I64[m] dst, out I64[m] other) over [j: m] {
    other[j] = src[j];
}
""")
    assert e.code == "C5031" and where(e)[0] == 1


def test_inner_loop_not_spanning_the_extent_is_c5031():
    e = compile_error("""kernel half[m, w](in I64[m, w] src, out I64[m, w] dst) over [j: m] {
    for t in 0..2 {
        dst[j, t] = src[j, t];
    }
}
""")
    assert e.code == "C5031" and where(e) == (3, 9)


def test_both_branches_and_full_inner_loop_cover(tmp_path):
    out = both(tmp_path, """kernel sign_rows[m, w](in I64[m, w] src, out I64[m] tag, out I64[m, w] dup)
        over [j: m] {
    if (src[j, 0] < 0) {
        tag[j] = -1;
    } else {
        tag[j] = 1;
    }
    for t in 0..w {
        dup[j, t] = src[j, t] * 2;
    }
}

export I64 run() {
    I64[2, 3] a = [[-4, 5, 6], [7, 8, 9]];
    I64[2] g;
    I64[2, 3] c;
    sign_rows(a, g, c);
    return g[0] * 1000 + g[1] * 100 + c[0, 0] + c[1, 2];
}
""")
    assert "return I64 -890" in out


def test_inout_may_be_left_unwritten(tmp_path):
    out = both(tmp_path, """kernel clamp_low[m](inout I64[m] v) over [j: m] {
    if (v[j] < 0) {
        v[j] = 0;
    }
}

export I64 run() {
    I64[3] v = [-5, 7, -1];
    clamp_low(v);
    return v[0] * 100 + v[1] * 10 + v[2];
}
""")
    assert "return I64 70" in out
