"""The type signature of an export (SPEC-03P.1 7.5), from the checker's types.

The byte format and its rules belong to ``cint_abi.typesig``; the mapping of the compiler's types onto
that model lives with the export-boundary rule in ``check/export_boundary.py``, so that `cint check`
refuses what a signature cannot carry (C5050) before a build does.
"""
from __future__ import annotations

from cint_abi import typesig as S

from cint_compiler.check.export_boundary import signature_model

__all__ = ["signature_model", "signature_bytes"]


def signature_bytes(info, module_name=None, types=None) -> bytes:
    return S.encode_signature(signature_model(info, types))
