"""cint_cuda: the gpu-cuda backend of cint.

It will emit PTX text for kernels and load it through libcuda.so.1 at run time
(SPEC-03P.1 6.4 and 10.2 for dispatches and publication). Nothing is implemented yet.
"""
__version__ = "0.2.0"
