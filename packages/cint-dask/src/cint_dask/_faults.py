"""Fault records of chunks in global coordinates (docs/dask.md, "One outcome"), and cint.Fault pickling.

A chunk's record differs from the record of one call on the whole arrays in two fields only, under the
rules of cint_dask._plan: the work-item index of the address, which counts the chunk's work items from 0,
and the ``limit`` of an E_FUEL record of a chunk re-run with the allowance left (docs/dask.md, "Fuel").
Both are rewritten here and the record is encoded again with cint_abi.faultrecord.
"""
from __future__ import annotations

import copyreg
import dataclasses

from cint_abi.codes import FAULT_NAMES
from cint_abi.faultrecord import decode_fault_record, encode_fault_record

_I64 = ("int", True, 64)


def global_index(local, box_lo, box_shape, over_shape):
    """The row-major work-item index in the whole `over` domain of the chunk's work item ``local``."""
    idx = []
    for n in reversed(box_shape):
        idx.append(local % n if n else 0)
        local = local // n if n else 0
    idx.reverse()
    g = 0
    for lo, k, n in zip(box_lo, idx, over_shape):
        g = g * n + lo + k
    return g, tuple(lo + k for lo, k in zip(box_lo, idx))


def globalize(record: bytes, box_lo, box_shape, over_shape, fuel_limit=None):
    """(global record bytes, global work index or None, sort key) of a chunk's record."""
    data = decode_fault_record(record)
    windex = None
    key = -1                                  # the entry phase comes before every work item
    if data.address is not None and data.address[2] == 1:
        name, dispatch, phase, wi, step = data.address
        g, windex = global_index(wi, box_lo, box_shape, over_shape)
        data = dataclasses.replace(data, address=(name, dispatch, phase, g, step))
        key = g
    if fuel_limit is not None:
        if FAULT_NAMES[data.code] != "E_FUEL":
            raise AssertionError("a re-run with the allowance left ended in %s, not E_FUEL" % FAULT_NAMES[data.code])
        data = dataclasses.replace(data, limit=(_I64, fuel_limit))
    return encode_fault_record(data), windex, key


def make_fault(record: bytes, work_index=None):
    """The cint.Fault subclass instance of a canonical record, as Context.fault() builds it."""
    import cint
    data = decode_fault_record(record)
    f = cint.fault_class(FAULT_NAMES[data.code])(data, record)
    if work_index is not None and len(work_index) > 1:
        f.work_index = tuple(work_index)
    return f


def _reduce_fault(f):
    return (_rebuild_fault, (f.record, f.work_index))


def _rebuild_fault(record, work_index):
    return make_fault(record, work_index)


def register_pickling():
    """cint.Fault subclasses take (data, record) and pickle as Exceptions do, by their message; a fault
    raised in a task on a distributed worker crosses to the client by its record instead."""
    import cint
    for cls in cint.FAULT_CLASSES.values():
        copyreg.pickle(cls, _reduce_fault)
