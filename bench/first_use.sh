#!/usr/bin/env bash
# bash bench/first_use.sh: the first cint.load("examples/particles.ci") with an empty private cache (CINT_CACHE=$(mktemp -d)):
# without the prebuilt runtime objects (as before: runtime-c compiled on first use) and with them
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PRE=packages/cint-runtime/src/cint_runtime/prebuilt-objects
PY=".venv/bin/python"
[ -d $PRE ] || { echo "no prebuilt runtime objects: run bash scripts/setup.sh" >&2; exit 1; }
trap '[ -d $PRE.off ] && mv $PRE.off $PRE' EXIT
T='import time; t=time.perf_counter(); import cint; t1=time.perf_counter(); m=cint.load("examples/particles.ci"); t2=time.perf_counter(); print("import cint %.2f s, first cint.load %.2f s" % (t1-t, t2-t1))'
env -u PYTHONDONTWRITEBYTECODE $PY -c 'import cint, cint_compiler.backend.c17.build, cint_compiler.driver' # bytecode written, as a normal install has it
for i in 1 2 3; do
  mv $PRE $PRE.off
  D=$(mktemp -d); echo -n "before: "; CINT_CACHE=$D env -u PYTHONDONTWRITEBYTECODE $PY -c "$T"; rm -rf $D
  mv $PRE.off $PRE
  D=$(mktemp -d); echo -n "after:  "; CINT_CACHE=$D env -u PYTHONDONTWRITEBYTECODE $PY -c "$T"; rm -rf $D
done
uptime
