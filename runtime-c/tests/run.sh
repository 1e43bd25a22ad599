#!/usr/bin/env bash
# Builds the C runtime and its tests, and runs them twice: as they are, and under
# AddressSanitizer and UndefinedBehaviorSanitizer. Usage: bash runtime-c/tests/run.sh
#
#   - test_runtime (tests/test_runtime.c with the runtime and both fixtures); the fault
#     records it writes are compared byte for byte with cint_abi.faultrecord (golden.py)
#   - libadvance.so and libtour.so from the fixtures; the spec's host.c, tour.c and reflect.c
#     built with the spec's command, with no warnings, and their output compared with
#     host.out, tour.out and reflect.out
#   - the exported symbols of each library are exactly those of A-12
#   - no mutable static data in any object (A-2), checked with nm
#   - the headers compile alone and twice, and refuse a big-endian target
#   - test_containers (tests/test_containers.c): the arenas, pools and handles of containers.c, their
#     exact fault records, and the restore of their blocks with a fuzz whose verdicts cint_abi shares
#     (containers_check.py)
#   - test_wide: the wide-integer helpers of src/wide.c (forms, comparisons, conversions, decimal text)
#   - test_prelude (tests/test_prelude.c): the helpers of generated code (include/cint_rt_prelude.h,
#     src/prelude.c) called directly; the fault records they build are compared byte for byte with
#     cint_abi.faultrecord (prelude_golden.py)
#   - test_runtime again at -O2 with cint_gen_sum's blocks shrunk to 8 elements
#   - test_state (tests/test_state.c): the canonical state encoder and restore of state.c, with a
#     restore fuzz; the states it writes are decoded and encoded again by cint_abi (state_check.py)
#   - test_threads (tests/test_threads.c): four threads with a context each, and four threads sharing
#     one context (the second caller is CINT_BUSY); built plain, under ASan/UBSan, and again with
#     test_runtime under ThreadSanitizer (-fsanitize=thread), where any report fails the run
#
# Each test program that passes prints "run.sh: [MODE] PASS NAME" (tests-conformance/test_runtime_c.py
# reads these lines).
#
# Environment: CC (default cc), PYTHON (default the repository's .venv, else python3),
# CINT_EXAMPLES (default ../shared/spec/examples beside the repository).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rt=$(dirname "$here")
repo=$(dirname "$rt")
CC=${CC:-cc}
examples=${CINT_EXAMPLES:-$(cd "$repo/.." && pwd)/shared/spec/examples}
# the golden records (their revision identities hash the examples' sources) and the spec's C programs
# need the examples; without them those steps are skipped and say so
have_examples=0
[ -f "$examples/tour.ci" ] && [ -f "$examples/advance.ci" ] && have_examples=1
if [ -z "${PYTHON:-}" ]; then
    if [ -x "$repo/.venv/bin/python" ]; then PYTHON=$repo/.venv/bin/python; else PYTHON=python3; fi
fi
build=${CINT_RT_TEST_BUILD:-$rt/build/tests}   # a private folder keeps concurrent runs apart
warn=(-std=c17 -Wall -Wextra -Wpedantic -Werror)
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
export CINT_RT=$rt/include

fail() { echo "run.sh: FAIL: $*" >&2; exit 1; }
step() { echo "run.sh: $*"; }
pass() { echo "run.sh: [$1] PASS $2"; }

rm -rf "$build"
mkdir -p "$build"

# --- headers ------------------------------------------------------------------------------
step "headers"
printf '#include "cint_rt_host.h"\n#include "cint_rt_host.h"\nint main(void) { return (int)sizeof(cint_view) - 144; }\n' \
    > "$build/h1.c"
printf '#include "cint_rt.h"\n#include "cint_rt.h"\n#include "cint_rt_gen.h"\n#include "cint_rt_ops.h"\n#include "cint_rt_prelude.h"\n#include "cint_rt_prelude.h"\nint main(void) { return 0; }\n' \
    > "$build/h2.c"
"$CC" "${warn[@]}" -I "$CINT_RT" "$build/h1.c" -o "$build/h1" && "$build/h1"
"$CC" "${warn[@]}" -I "$CINT_RT" "$build/h2.c" -o "$build/h2"
if "$CC" -std=c17 -Wno-builtin-macro-redefined -U__BYTE_ORDER__ -D__BYTE_ORDER__=__ORDER_BIG_ENDIAN__ \
    -I "$CINT_RT" -c "$build/h1.c" -o "$build/h1.o" 2> "$build/be.err"; then
    fail "cint_rt_host.h compiled for a big-endian target"
fi
grep -q "little-endian" "$build/be.err" || fail "no #error for a big-endian target"
if "$CC" -std=c11 -I "$CINT_RT" -c "$build/h1.c" -o "$build/h1.o" 2> /dev/null; then
    fail "cint_rt_host.h compiled as C11"
fi

# --- golden fault records -------------------------------------------------------------------
step "golden records of the generated-code helpers from cint_abi.faultrecord ($PYTHON)"
PYTHONPATH="$repo/packages/cint-abi/src${PYTHONPATH:+:$PYTHONPATH}" \
    "$PYTHON" "$here/prelude_golden.py" | sort > "$build/prelude_golden.txt"
if [ "$have_examples" = 1 ]; then
    step "golden records from cint_abi.faultrecord ($PYTHON)"
    PYTHONPATH="$repo/packages/cint-abi/src${PYTHONPATH:+:$PYTHONPATH}" \
        "$PYTHON" "$here/golden.py" "$examples" | sort > "$build/golden.txt"
else
    step "SKIPPED golden records and the spec's C programs: no examples at $examples (set CINT_EXAMPLES)"
fi

run_mode() { # $1: plain or san
    local mode=$1 d=$build/$1 extra=()
    [ "$mode" = san ] && extra=("${san[@]}")
    mkdir -p "$d/out" "$d/obj/rt" "$d/obj/fx"
    step "[$mode] runtime objects and the fixture libraries"
    for f in "$rt"/src/*.c; do
        "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -fPIC -fvisibility=hidden -I "$CINT_RT" -c "$f" \
            -o "$d/obj/rt/$(basename "$f" .c).o"
    done
    for m in advance tour; do
        "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -fPIC -fvisibility=hidden -I "$CINT_RT" \
            -c "$here/fixtures/${m}_mod.c" -o "$d/obj/fx/${m}_mod.o"
        "$CC" "${extra[@]}" -shared "$d"/obj/rt/*.o "$d/obj/fx/${m}_mod.o" -o "$d/out/lib$m.so"
    done

    step "[$mode] test_runtime"
    "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS "$rt"/src/*.c \
        "$here/fixtures/advance_mod.c" "$here/fixtures/tour_mod.c" "$here/test_runtime.c" -o "$d/test_runtime"
    "$d/test_runtime" "$d/records.txt"
    sort "$d/records.txt" > "$d/records.sorted"
    if [ "$have_examples" = 1 ]; then
        diff "$build/golden.txt" "$d/records.sorted" > "$d/records.diff" ||
            fail "[$mode] fault records differ from cint_abi.faultrecord: see $d/records.diff"
        step "[$mode] $(wc -l < "$d/records.sorted") fault records equal cint_abi's bytes"
    fi
    pass "$mode" test_runtime

    step "[$mode] test_state (canonical state and restore, with a restore fuzz)"
    "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS "$rt"/src/*.c \
        "$here/test_state.c" -o "$d/test_state"
    "$d/test_state" "$d/states.txt"
    PYTHONPATH="$repo/packages/cint-abi/src${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" "$here/state_check.py" "$d/states.txt"
    pass "$mode" test_state

    step "[$mode] test_containers (arenas, pools, handles, their fault records and restore, with a fuzz)"
    "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS "$rt"/src/*.c \
        "$here/test_containers.c" -o "$d/test_containers"
    "$d/test_containers" "$d/mutants.txt"
    PYTHONPATH="$repo/packages/cint-abi/src${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" "$here/containers_check.py" \
        "$d/mutants.txt"
    pass "$mode" test_containers

    step "[$mode] test_threads (4 threads with 4 contexts, 4 threads on one context)"
    "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -pthread -I "$CINT_RT" "$rt"/src/*.c "$here/fixtures/tour_mod.c" \
        "$here/test_threads.c" -o "$d/test_threads"
    "$d/test_threads"
    pass "$mode" test_threads

    step "[$mode] test_fuzz_regressions (inputs the fuzz/c targets found)"
    "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -I "$CINT_RT" "$rt"/src/*.c "$here/fixtures/tour_mod.c" \
        "$here/test_fuzz_regressions.c" -o "$d/test_fuzz_regressions"
    "$d/test_fuzz_regressions"
    pass "$mode" test_fuzz_regressions

    step "[$mode] test_wide (the I128..I1024 helpers of wide.c)"
    "$CC" "${warn[@]}" "${extra[@]}" -O1 -g -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS "$rt"/src/*.c \
        "$here/test_wide.c" -o "$d/test_wide"
    "$d/test_wide"
    pass "$mode" test_wide

    # at -O2, as cint_runtime.CFLAGS compiles generated code and the runtime, so that the inline helpers are
    # checked as they are optimised there
    step "[$mode] test_prelude (the helpers of generated code, cint_rt_prelude.h and prelude.c)"
    "$CC" "${warn[@]}" "${extra[@]}" -O2 -g -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS "$rt"/src/*.c \
        "$here/test_prelude.c" -o "$d/test_prelude"
    "$d/test_prelude" "$d/prelude_records.txt"
    sort "$d/prelude_records.txt" | diff "$build/prelude_golden.txt" - > "$d/prelude_records.diff" ||
        fail "[$mode] records of the prelude differ from cint_abi.faultrecord: see $d/prelude_records.diff"
    step "[$mode] $(wc -l < "$d/prelude_records.txt") records of the prelude equal cint_abi's bytes"
    pass "$mode" test_prelude

    [ "$have_examples" = 1 ] || return 0
    step "[$mode] spec examples host.c, tour.c, reflect.c"
    for pair in host:advance tour:tour reflect:tour; do
        local prog=${pair%%:*} lib=${pair##*:}
        cp "$examples/$prog.c" "$d/$prog.c"
        (cd "$d" && "$CC" -std=c17 -Wall -Wextra -Wpedantic "${extra[@]}" -I "$CINT_RT" "$prog.c" -L out -l"$lib" \
            -Wl,-rpath,'$ORIGIN/out' -o "$prog") 2> "$d/$prog.warnings"
        [ -s "$d/$prog.warnings" ] && { cat "$d/$prog.warnings" >&2; fail "[$mode] $prog.c: warnings"; }
        "$d/$prog" > "$d/$prog.got"
        cmp -s "$d/$prog.got" "$examples/$prog.out" ||
            { diff "$examples/$prog.out" "$d/$prog.got" >&2; fail "[$mode] $prog output differs from $prog.out"; }
    done
    pass "$mode" spec_examples
}

run_tsan() { # the thread-relevant tests under ThreadSanitizer; any report fails
    local d=$build/tsan tsan=(-fsanitize=thread -fno-omit-frame-pointer)
    mkdir -p "$d"
    if ! printf 'int main(void) { return 0; }\n' | "$CC" "${tsan[@]}" -x c - -o "$d/probe" 2> /dev/null ||
        ! "$d/probe" 2> /dev/null; then
        step "SKIPPED [tsan]: $CC cannot build or run a -fsanitize=thread program here"
        return 0
    fi
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
    step "[tsan] test_threads"
    "$CC" "${warn[@]}" "${tsan[@]}" -O1 -g -pthread -I "$CINT_RT" "$rt"/src/*.c "$here/fixtures/tour_mod.c" \
        "$here/test_threads.c" -o "$d/test_threads"
    "$d/test_threads" 2> "$d/test_threads.err" || { cat "$d/test_threads.err" >&2; fail "[tsan] test_threads"; }
    grep -q "ThreadSanitizer" "$d/test_threads.err" && { cat "$d/test_threads.err" >&2; fail "[tsan] warnings"; }
    pass tsan test_threads
    step "[tsan] test_runtime (the busy flag, the output callback, the staging cache)"
    "$CC" "${warn[@]}" "${tsan[@]}" -O1 -g -pthread -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS "$rt"/src/*.c \
        "$here/fixtures/advance_mod.c" "$here/fixtures/tour_mod.c" "$here/test_runtime.c" -o "$d/test_runtime"
    "$d/test_runtime" "$d/records.txt" 2> "$d/test_runtime.err" ||
        { cat "$d/test_runtime.err" >&2; fail "[tsan] test_runtime"; }
    grep -q "ThreadSanitizer" "$d/test_runtime.err" && { cat "$d/test_runtime.err" >&2; fail "[tsan] warnings"; }
    pass tsan test_runtime
}

check_symbols() { # A-12: the library exports exactly these
    local d=$build/plain host_fns
    host_fns="cint_abi_version cint_buffer_create cint_buffer_lease cint_buffer_read cint_buffer_register
        cint_buffer_register_bytes cint_buffer_register_elements cint_buffer_release cint_ctx_clear_fault
        cint_ctx_create cint_ctx_destroy cint_ctx_error cint_ctx_fault cint_ctx_fault_descriptors cint_ctx_refusal
        cint_fault_encode cint_fault_get cint_fuel_consumed cint_lease_end cint_library_desc cint_observer_desc
        cint_program_abi"
    for pair in "advance:cm_7_advance cx_7_advance_5_total cx_7_advance_7_advance" \
                "tour:cm_4_tour cx_4_tour_10_parse_x5Fu cx_4_tour_5_greet cx_4_tour_5_scale"; do
        local lib=${pair%%:*} own=${pair#*:}
        nm -D --defined-only "$d/out/lib$lib.so" | awk '{print $3}' | sort > "$d/lib$lib.symbols"
        printf '%s\n' $host_fns $own | sort > "$d/lib$lib.expected"
        diff "$d/lib$lib.expected" "$d/lib$lib.symbols" ||
            fail "lib$lib.so exports other symbols than A-12 lists"
    done
    step "exported symbols are exactly A-12's ($(wc -l < "$d/libtour.symbols") in libtour.so)"
}

check_static_data() { # A-2: no mutable static data in the runtime or the generated code
    local d=$build/plain bad
    bad=$(nm -f sysv "$d"/obj/*/*.o | awk -F'|' '$4 ~ /OBJECT/ && $7 ~ /^ *(\.data|\.bss|\.tdata|\.tbss|COMMON)/ {print $1 $7}' |
        grep -v '\.data\.rel\.ro' || true)
    [ -z "$bad" ] || fail "mutable static data: $bad"
    for o in "$d"/obj/*/*.o; do
        local sizes
        sizes=$(size -A "$o" | awk '$1 ~ /^\.(data|bss|tdata|tbss)$/ {s += $2} END {print s + 0}')
        [ "$sizes" = 0 ] || fail "$(basename "$o") has $sizes bytes of .data/.bss"
    done
    step "no mutable static data in $(ls "$d"/obj/*/*.o | wc -l) objects (nm, size)"
}

small_sum_blocks() { # cint_gen_sum in blocks of 8 elements gives the same answers and records
    local d=$build/plain
    step "[plain] test_runtime with sums in blocks of 8 elements"
    "$CC" "${warn[@]}" -O2 -g -I "$CINT_RT" -DCINT_GEN_NO_LIBRARY_SYMBOLS '-DRT_SUM_BLOCK=(INT64_C(1) << 3)' \
        "$rt"/src/*.c "$here/fixtures/advance_mod.c" "$here/fixtures/tour_mod.c" "$here/test_runtime.c" \
        -o "$d/test_runtime_blocks"
    "$d/test_runtime_blocks" "$d/records_blocks.txt"
    if [ "$have_examples" = 1 ]; then
        sort "$d/records_blocks.txt" | diff "$build/golden.txt" - > "$d/records_blocks.diff" ||
            fail "[plain] fault records with small sum blocks differ: see $d/records_blocks.diff"
    fi
}

run_mode plain
small_sum_blocks
check_symbols
pass plain symbols
check_static_data
pass plain static_data
run_mode san
run_tsan
step "all passed"
