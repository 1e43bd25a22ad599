#!/usr/bin/env bash
# Run every test of the monorepo: each package's tests/ and tests-conformance/.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh --clause IM-30` or `-x -q`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -n auto -q "$@"
