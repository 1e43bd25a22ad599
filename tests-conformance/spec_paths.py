"""Where the shared specification folder is, for every test of the monorepo (pytest.ini puts this folder
on the path): `CINT_SHARED`, else `shared/` beside the repository (../shared). The spec's examples are
`CINT_SPEC_EXAMPLES`, else `SHARED/spec/examples`. A test that needs them skips, naming the path, when
they are absent; nothing here falls back to a machine-specific path."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CINT_SHARED") or REPO.parent / "shared")
EXAMPLES = Path(os.environ.get("CINT_SPEC_EXAMPLES") or SHARED / "spec" / "examples")


def require_examples(*names):
    """Skip the calling test module unless the spec's examples (and each of `names` in them) are present."""
    import pytest
    missing = [n for n in names if not (EXAMPLES / n).is_file()]
    if not EXAMPLES.is_dir() or missing:
        pytest.skip("the spec's examples are not at %s (set CINT_SPEC_EXAMPLES)" % EXAMPLES, allow_module_level=True)
