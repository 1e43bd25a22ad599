"""cint_abi: the facts of the cint ABI in pure Python (SPEC-03P.1 clause 7, SPEC-01P.1 section 11)."""
__version__ = "0.2.0"
