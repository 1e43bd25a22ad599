"""cint_compiler: the cint-core-1 front end, SIR, the reference interpreter, the C back end and the `cint` command.

The package is laid out by pipeline stage (docs/architecture.md)::

    syntax/      lexer, parser, tree          semantics/  types, values, integer machine, faults, formats
    check/       the checker, one module per concern, and features/ for the add-on features
    sir.py       the canonical bytes of a checked module and the revision identity
    interp/      the reference interpreter and the canonical state
    backend/c17/ the C17 back end and its build          executors/  cpu-c17 as an executor
    conformance/ case outcomes and `.expect` files       driver.py   the pipeline; cli.py the command

The names below are the public API, importable from here (``from cint_compiler import compile_file``);
each is imported on first use, so ``import cint_compiler`` stays cheap.
"""
import importlib

__version__ = "0.2.0"

_PUBLIC = {
    "compile_file": "cint_compiler.driver", "compile_source": "cint_compiler.driver",
    "check_file": "cint_compiler.driver", "Compiled": "cint_compiler.driver",
    "CompileError": "cint_compiler.diagnostics", "Span": "cint_compiler.diagnostics",
    "encode_module": "cint_compiler.sir", "revision_of": "cint_compiler.sir",
    "Context": "cint_compiler.interp.context", "Outcome": "cint_compiler.interp.context",
    "canonical_state": "cint_compiler.interp.canonical", "state_hash": "cint_compiler.interp.canonical",
    "fault_bytes": "cint_compiler.interp.canonical", "struct_layouts": "cint_compiler.interp.canonical",
    "emit_c": ("cint_compiler.backend.c17.emit", "emit"), "Unsupported": "cint_compiler.backend.c17.emit",
    "build_library": "cint_compiler.backend.c17.build", "BuildError": "cint_compiler.backend.c17.build",
    "run_case": "cint_compiler.conformance.outcome", "expect_text": "cint_compiler.conformance.outcome",
    "choose_entry": "cint_compiler.conformance.outcome",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError("module 'cint_compiler' has no attribute %r" % name)
    module, attr = where if isinstance(where, tuple) else (where, name)
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value
