"""cint_runtime: the native runtime of cint as a distributable.

It will ship the C runtime of runtime-c/ (include/cint_rt.h, include/cint_rt_host.h
and src/) and build and cache it for `cint build --lib` (SPEC-03P.1 clause 7).
Nothing is implemented yet.
"""
__version__ = "0.2.0"
