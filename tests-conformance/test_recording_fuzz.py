"""The semantic recording fuzzer in its CI budget (SPEC-03P.1 9.3 H-14, H-17): a fixed seed, mutants of
three recordings (full and digest) edited inside their events, re-chained, replayed on both backends;
recording_fuzz.py has the long run (--seconds)."""
import os
import shutil

import pytest

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import recording_fuzz as RF  # noqa: E402

COUNT = int(os.environ.get("CINT_RECFUZZ_COUNT", "150"))


@pytest.mark.clause("H-14", "H-17", "H-18")
def test_semantic_recording_fuzz_both_backends_agree(tmp_path):
    mods = RF.build(tmp_path / "src")
    ss = RF.sessions(mods, tmp_path)
    seen = RF.run(ss, COUNT, 20261202, tmp_path)
    # the mutants reach every verdict: refused whole, diverged, unreplayable, and valid sessions
    assert set(seen) == {"ok", "RecordingError", "ReplayDivergence", "Unreplayable"}, seen
    assert sum(seen.values()) >= COUNT * 9 // 10
    assert seen["RecordingError"] + seen["ReplayDivergence"] + seen["Unreplayable"] > 4 * seen["ok"]
