"""The lowered IR (docs/lir.md): `lower_checked(info)` gives the LIR of a checked function or kernel after
every pass (`lower.passes`), or raises `NotLowered` for a construct it does not cover yet."""
from __future__ import annotations

from cint_compiler.lower.build import lower
from cint_compiler.lower.lir import Function, NotLowered, format_function
from cint_compiler.lower.passes import run_passes

__all__ = ["Function", "NotLowered", "format_function", "lower", "lower_checked", "run_passes"]


def lower_checked(info, kvariant: bool = False, verify: bool = False) -> Function:
    """The LIR of info (a function, its work-item form with kvariant, or a kernel) after the passes;
    verify: run the verifier after lowering and after each pass (the tests do)."""
    fn = lower(info, kvariant=kvariant)
    return run_passes(fn, verify=verify)
