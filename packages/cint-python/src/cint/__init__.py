"""cint: the Python package of SPEC-03P.1 clause 8.

It will load libraries built by `cint build --lib`, hold Buffers, borrow CPU
arrays and DLPack tensors, convert the values that cross, and re-export
cint_replay (clause 9). Nothing is implemented yet.
"""
__version__ = "0.2.0"
