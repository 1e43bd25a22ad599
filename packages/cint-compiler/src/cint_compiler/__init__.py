"""cint_compiler: the cint-core-1 front end, SIR, the reference interpreter and the `cint` command."""
__version__ = "0.2.0"
