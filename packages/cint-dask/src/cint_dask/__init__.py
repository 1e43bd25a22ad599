"""cint_dask: cint kernels over chunked Dask arrays, with the outcome of one call (docs/dask.md).

    import cint, cint_dask, dask.array as da
    mod = cint.load("fir.ci")
    fir = cint_dask.kernel(mod, "fir")
    y = fir(da.from_array(x, chunks=1000))      # nothing runs yet
    y.compute()                                 # == one call of fir on the whole of x

``kernel(module, name, *, state=None, fuel=None)`` plans the chunking from the export's type signature
and checks the kernel's body (cint_dask._plan); chunks run in contexts of the library loaded from its
bytes on each worker (cint_dask._worker); faults and fuel are resolved to the record of one call
(cint_dask._faults, cint_dask._kernel).
"""
from ._kernel import DaskKernel, kernel
from ._plan import ChunkingRefused

__all__ = ["kernel", "DaskKernel", "ChunkingRefused"]
