#!/usr/bin/env bash
# Coverage-guided fuzzing of every decoder of untrusted input (docs/status.md, fuzz/).
#
#   bash scripts/fuzz.sh [--seconds N] [--list] [TARGET...]
#
# Targets are found by convention: fuzz/python/fuzz_<name>.py (atheris, defining TestOneInput)
# and fuzz/c/fuzz_<name>.c (libFuzzer, defining LLVMFuzzerTestOneInput, built with clang
# -fsanitize=fuzzer,address,undefined against runtime-c/). Each runs for N seconds (default 10)
# from its seed corpus fuzz/corpus/<name>/ (read only: new inputs go to a temporary folder).
# A crash is written to $FUZZ_OUT/<name>/ (default build/fuzz/artifacts) and makes the exit
# status 1. C targets are skipped, with a message, when clang is absent; Python targets when
# atheris is. Environment: PYTHON (default .venv/bin/python), CLANG (default clang), FUZZ_OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=10
list=0
wanted=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
        --seconds=*) seconds=${1#--seconds=}; shift ;;
        --list) list=1; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) wanted+=("$1"); shift ;;
    esac
done
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: --seconds takes a whole number, not '$seconds'" >&2; exit 2 ;; esac

PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
CLANG=${CLANG:-clang}
out=${FUZZ_OUT:-build/fuzz/artifacts}
bin=build/fuzz/bin

targets=()
for f in fuzz/python/fuzz_*.py fuzz/c/fuzz_*.c; do
    [ -f "$f" ] || continue
    name=$(basename "$f"); name=${name#fuzz_}; name=${name%.*}
    targets+=("$name:$f")
done
if [ "$list" = 1 ]; then
    for t in "${targets[@]}"; do echo "${t%%:*} ${t#*:}"; done
    exit 0
fi
if [ ${#wanted[@]} -gt 0 ]; then
    chosen=()
    for w in "${wanted[@]}"; do
        hit=0
        for t in "${targets[@]}"; do [ "${t%%:*}" = "$w" ] && { chosen+=("$t"); hit=1; }; done
        [ "$hit" = 1 ] || { echo "fuzz.sh: no target '$w' (bash scripts/fuzz.sh --list)" >&2; exit 2; }
    done
    targets=("${chosen[@]}")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
crashed=0
have_atheris=1
"$PYTHON" -c "import atheris" 2> /dev/null || have_atheris=0
for t in "${targets[@]}"; do
    name=${t%%:*} file=${t#*:}
    seeds=fuzz/corpus/$name
    mkdir -p "$out/$name" "$work/$name"
    args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/$name/" "$work/$name")
    [ -d "$seeds" ] && args+=("$seeds")
    case "$file" in
        *.py)
            if [ "$have_atheris" = 0 ]; then
                echo "fuzz.sh: SKIPPED $name: atheris is not installed for $PYTHON (bash scripts/setup.sh)"
                continue
            fi
            cmd=("$PYTHON" "$file" -rss_limit_mb=4096 "${args[@]}") ;;
        *.c)
            if ! command -v "$CLANG" > /dev/null; then
                echo "fuzz.sh: SKIPPED $name: no clang for libFuzzer (apt-get install clang)"
                continue
            fi
            mkdir -p "$bin"
            extra=()
            grep -q "cm_4_tour" "$file" && extra+=(runtime-c/tests/fixtures/tour_mod.c)
            stale=0
            for src in "$file" runtime-c/src/*.c runtime-c/src/*.h runtime-c/include/*.h "${extra[@]}"; do
                [ "$src" -nt "$bin/$name" ] && stale=1
            done
            [ -x "$bin/$name" ] || stale=1
            if [ "$stale" = 1 ]; then
                "$CLANG" -std=c17 -Wall -Wextra -Wpedantic -Werror -g -O1 -fsanitize=fuzzer,address,undefined \
                    -fno-sanitize-recover=undefined -I runtime-c/include runtime-c/src/*.c "${extra[@]}" "$file" \
                    -o "$bin/$name.tmp$$" && mv "$bin/$name.tmp$$" "$bin/$name"
            fi
            cmd=("$bin/$name" "${args[@]}") ;;
    esac
    echo "fuzz.sh: $name for ${seconds}s"
    if "${cmd[@]}" > "$work/$name.log" 2>&1; then
        status=ok
    else
        status=CRASH
        crashed=1
    fi
    stats=$(grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$work/$name.log" |
        sed 's/stat:://' | tr -s ' \n' ' ')
    cov=$(grep -E "^#[0-9]+.*(DONE|cov:)" "$work/$name.log" | tail -1 | grep -oE "(cov|ft): [0-9]+" | tr '\n' ' ' || true)
    echo "fuzz.sh: $name: $status: ${stats}${cov}"
    if [ "$status" = CRASH ]; then
        grep -E "ERROR|Error|Exception|runtime error|SUMMARY|Traceback|raise|File \"" "$work/$name.log" | head -20
        echo "fuzz.sh: $name: the input is in $out/$name/ (re-run: ${cmd[0]} $([ "${file##*.}" = py ] && echo "$file") INPUT)"
    fi
done
exit "$crashed"
