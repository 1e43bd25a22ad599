"""The IPython extension of cint: ``%load_ext cint`` registers the ``%%cint`` cell magic.

    %%cint            builds the cell as module `main`; binds `mod` (the Module) and `ctx` (a new context)
    %%cint scan       builds it as module `scan`; binds `scan` and `scan_ctx`

The cell is built by cint.load_source, so it is cached like a file: running the same cell again builds
nothing. A cell that does not compile prints its diagnostics, with their caret snippets, and binds
nothing.
"""
from __future__ import annotations


def cint_cell(line: str, cell: str, user_ns: dict):
    """Build ``cell``; bind its Module and a context in ``user_ns``; return the Module (None on an error)."""
    import cint
    words = line.split()
    if len(words) > 1 or (words and not words[0].isidentifier()):
        print("usage: %%cint [NAME]  (NAME: the module name, an identifier; default: mod and ctx)")
        return None
    name = words[0] if words else None
    try:
        module = cint.load_source(cell, name=name or "main")
    except cint.BuildError as e:
        print(str(e))
        return None
    mod_var, ctx_var = (name, name + "_ctx") if name else ("mod", "ctx")
    user_ns[mod_var] = module
    user_ns[ctx_var] = module.context()
    return None


def register(ipython):
    from IPython.core.magic import register_cell_magic  # noqa: F401  (IPython is needed only here)

    def cint(line, cell):
        return cint_cell(line, cell, ipython.user_ns)
    cint.__doc__ = __doc__
    ipython.register_magic_function(cint, magic_kind="cell", magic_name="cint")


def unregister(ipython):
    ipython.magics_manager.magics["cell"].pop("cint", None)
