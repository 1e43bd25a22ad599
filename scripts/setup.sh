#!/usr/bin/env bash
# Create .venv at the repository root and install every package of packages/ in editable
# mode with the test tools. Idempotent: it does nothing when .venv/.cint-setup-stamp is
# newer than every packages/*/pyproject.toml, setup.py and than this script; when only the
# sources of cint's C extensions changed it rebuilds just those (.venv/.cint-ext-stamp), and when
# runtime-c changed it compiles the runtime's objects into cint-runtime again (.venv/.cint-rt-stamp).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
VENV=.venv
STAMP="$VENV/.cint-setup-stamp"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit("cint needs Python 3.11 or newer; found %s (set PYTHON=...)" % sys.version.split()[0])
PY
    echo "setup: creating $VENV with $("$PYTHON" --version 2>&1)"
    "$PYTHON" -m venv "$VENV"
fi

packages=()
for project in packages/*/pyproject.toml; do
    [ -f "$project" ] && packages+=(-e "$(dirname "$project")")
done

# clang for the libFuzzer targets of scripts/fuzz.sh (about 25 s once; tests skip C targets without it)
if ! command -v clang > /dev/null && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null &&
    [ "${CINT_SETUP_CLANG:-1}" = 1 ]; then
    echo "setup: installing clang (libFuzzer) with apt-get; CINT_SETUP_CLANG=0 skips this"
    { timeout 300 apt-get update -qq && timeout 300 apt-get install -y -qq clang; } > /dev/null 2>&1 ||
        echo "setup: could not install clang; scripts/fuzz.sh and its tests skip the C targets"
fi

fresh=1
if [ ! -f "$STAMP" ]; then
    fresh=0
else
    for f in packages/*/pyproject.toml packages/*/setup.py scripts/setup.sh; do
        if [ "$f" -nt "$STAMP" ]; then
            fresh=0
        fi
    done
fi

EXT_STAMP="$VENV/.cint-ext-stamp"
ext_fresh() {
    [ -f "$EXT_STAMP" ] || return 1
    for f in packages/cint-python/src/cint/*.c runtime-c/include/*.h; do
        [ "$f" -nt "$EXT_STAMP" ] && return 1
    done
    for m in _fastcall _exports; do
        ls packages/cint-python/src/cint/$m.*.so >/dev/null 2>&1 || return 1
    done
    return 0
}

# the runtime objects that the install of cint-runtime compiled (cint_runtime.prebuilt: fast first use)
RT_STAMP="$VENV/.cint-rt-stamp"
refresh_runtime() {
    if [ -f "$RT_STAMP" ] && ls packages/cint-runtime/src/cint_runtime/prebuilt-objects/rt-*/KEY >/dev/null 2>&1; then
        local stale=0
        for f in runtime-c/src/*.c runtime-c/src/*.h runtime-c/include/*.h; do
            [ "$f" -nt "$RT_STAMP" ] && stale=1
        done
        [ "$stale" = 0 ] && return 0
    fi
    "$VENV/bin/python" -m cint_runtime.prebuilt && touch "$RT_STAMP" || true
}

if [ "$fresh" = 1 ]; then
    if ! ext_fresh; then
        echo "setup: rebuilding the C extensions of cint"
        "$VENV/bin/python" -m pip install --quiet --no-deps -e packages/cint-python
        touch "$EXT_STAMP"
    fi
    refresh_runtime
    exit 0
fi

echo "setup: installing $(( ${#packages[@]} / 2 )) packages in editable mode and the test tools into $VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "${packages[@]}" pytest pytest-xdist hypothesis numpy cffi atheris mkdocs-material ipython pygments ruff import-linter
touch "$STAMP" "$EXT_STAMP"
refresh_runtime
