"""SPEC-03P.1 A-1 and 7.1: the ctypes mirrors of cint_abi.structs against the C headers.

A small C program, generated from the mirrors, prints sizeof and offsetof of every field of
every structure and the value of every status, refusal reason, fault code and type tag
#define of runtime-c/include; the test compiles it with the system C compiler (skipped
when there is none) and compares each line with ctypes and with cint_abi.codes.
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cint_abi import codes, structs

pytestmark = pytest.mark.clause("A-1", "A-4", "A-6")

INCLUDE = Path(__file__).resolve().parents[3] / "runtime-c" / "include"


def _compiler() -> str | None:
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc):
            return cc
    return None


def _macro_names() -> dict[str, int]:
    """Every #define whose value codes.py fixes, with the value codes.py gives it."""
    want = dict(codes.STATUSES)
    want.update(codes.REFUSAL_REASONS)
    want.update({f"CINT_{name}": v for name, v in codes.FAULT_CODES.items()})
    for name, tag in codes.TYPE_TAGS.items():
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()
        want[f"CINT_TAG_{snake}"] = tag
    return want


def _program() -> str:
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "cint_rt.h"', "int main(void) {"]
    for cls in structs.STRUCTS:
        n = cls.__name__
        lines.append(f'    printf("size {n} %zu\\n", sizeof({n}));')
        for field, *_ in cls._fields_:
            lines.append(f'    printf("offset {n}.{field} %zu\\n", offsetof({n}, {field}));')
    for macro in _macro_names():
        lines.append(f'    printf("define {macro} %lld\\n", (long long)({macro}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def c_facts(tmp_path_factory) -> list[str]:
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("structs")
    src, exe = d / "layout.c", d / "layout"
    src.write_text(_program())
    subprocess.run([cc, "-std=c17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", str(INCLUDE), str(src),
                    "-o", str(exe)], check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()


def test_sizes_and_offsets_equal_the_header(c_facts):
    seen = 0
    by_name = {cls.__name__: cls for cls in structs.STRUCTS}
    for line in c_facts:
        kind, what, value = line.split()
        if kind == "size":
            assert ctypes.sizeof(by_name[what]) == int(value), what
            seen += 1
        elif kind == "offset":
            name, field = what.split(".")
            assert getattr(by_name[name], field).offset == int(value), what
            seen += 1
    assert seen == sum(1 + len(cls._fields_) for cls in structs.STRUCTS)


def test_defines_equal_codes(c_facts):
    want = _macro_names()
    got = {what: int(value) for kind, what, value in (line.split() for line in c_facts) if kind == "define"}
    assert got == want


def test_header_defines_nothing_codes_lacks():
    """Every status, refusal reason and fault code the header defines is in codes.py."""
    text = (INCLUDE / "cint_rt_host.h").read_text()
    defined = dict(re.findall(r"^#define (CINT_(?:OK|FAULT|REFUSED|BUSY|FAULTED|RESOURCE|DIVERGED|UNREPLAYABLE|"
                              r"REFUSAL_\w+|E_\w+))\s+(\d+)", text, re.M))
    want = _macro_names()
    assert {k: int(v) for k, v in defined.items()} == {k: want[k] for k in defined}
    assert set(defined) == {k for k in want if not k.startswith("CINT_TAG_")}


def test_layouts_are_checked_at_import():
    structs.check_layouts()
    sizes = {name: size for name, (size, _) in structs.LAYOUTS.items()}
    # the sizes SPEC-03P.1 fixes (7.2, 7.4)
    assert (sizes["cint_ctx_config"], sizes["cint_buffer_desc"], sizes["cint_view"], sizes["cint_type"]) == \
        (96, 112, 144, 16)
    assert (sizes["cint_export"], sizes["cint_module_table"], sizes["cint_library"]) == (72, 32, 16)


def test_a_drifted_mirror_is_refused(monkeypatch):
    size, offsets = structs.LAYOUTS["cint_view"]
    monkeypatch.setitem(structs.LAYOUTS, "cint_view", (size + 8, offsets))
    with pytest.raises(structs.LayoutError, match="cint_view is 144 bytes"):
        structs.check_layouts()
    moved = dict(offsets, origin=48)
    monkeypatch.setitem(structs.LAYOUTS, "cint_view", (size, moved))
    with pytest.raises(structs.LayoutError, match="origin"):
        structs.check_layouts()


def test_text_reads_names():
    raw = ctypes.create_string_buffer(b"tour.scale")
    name = structs.cint_name(ctypes.cast(raw, ctypes.POINTER(ctypes.c_char)), 10, 0)
    assert structs.text(name.bytes, name.len) == b"tour.scale"
    assert structs.text(None, 0) == b""
