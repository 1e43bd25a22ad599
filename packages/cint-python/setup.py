"""The C extensions of cint (SPEC-03P.1 8.1 paragraph 6 of issue 4: built by the normal install,
never at import time).

- cint._fastcall (src/cint/_fastcall.c): the hot call path of an export;
- cint._exports (src/cint/_exports.c): Buffer exports counted through the buffer protocol, and
  DLPack capsules (consumed and produced).

Both call the runtime only through function pointers that the Python side takes from the loaded
library, so neither links against a library; they need the runtime's headers for the layouts of
cint_view and cint_type, from runtime-c/include of the monorepo (or CINT_RT_INCLUDE).
"""
import os
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
INCLUDE = os.environ.get("CINT_RT_INCLUDE") or str(HERE.parent.parent / "runtime-c" / "include")
FLAGS = ["-std=c17", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers", "-Wno-unused-parameter",
         "-fvisibility=hidden"]

setup(ext_modules=[
    Extension("cint._fastcall", ["src/cint/_fastcall.c"], include_dirs=[INCLUDE], extra_compile_args=FLAGS),
    Extension("cint._exports", ["src/cint/_exports.c"], include_dirs=[INCLUDE], extra_compile_args=FLAGS),
])
