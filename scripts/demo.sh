#!/usr/bin/env bash
# Run the demo ledger, examples/demo.ci, with `cint run` (its last step overflows on
# purpose: the fault report is the expected result), then examples/numpy_demo.py, a kernel called from NumPy.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh

status=0
output="$(.venv/bin/cint run examples/demo.ci 2>&1)" || status=$?
printf '%s\n' "$output"

if [ "$status" -eq 0 ]; then
    echo "demo: expected the deliberate E_OVERFLOW fault at the end, but cint run exited 0" >&2
    exit 1
fi
if ! grep -q '^fault\[E_OVERFLOW\]' <<<"$output"; then
    echo "demo: cint run failed (exit status $status) without the deliberate E_OVERFLOW fault" >&2
    exit "$status"
fi
echo "demo: the E_OVERFLOW fault above is the demo's deliberate last step (cint run exit status $status)"

echo
echo "demo: a cint kernel called from NumPy (examples/numpy_demo.py)"
.venv/bin/python examples/numpy_demo.py
