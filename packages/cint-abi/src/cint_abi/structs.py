"""ctypes mirrors of every public structure of runtime-c/include/cint_rt_host.h and cint_rt.h.

SPEC-03P.1 A-1: every structure of the C interface is fixed-layout, little-endian, for 64-bit
pointers. Each class below has the fields of its C structure, in order and with the same
names; :data:`LAYOUTS` holds the size and the offset of every field that the headers assert
with static_assert, and importing this module checks the ctypes layout against it (so a
mirror cannot drift from the header silently). tests/test_structs.py compiles a C program
against the headers and compares every size and offset with these classes, and the
header's #define values with :mod:`cint_abi.codes`.

Pointers to names are ``POINTER(c_char)`` with a separate length (names carry no NUL);
:func:`text` reads one. Pure standard library.
"""
from __future__ import annotations

import ctypes as C
import struct

__all__ = [
    "cint_status", "cint_buffer_id", "cint_output_fn", "cint_entry_fn", "cint_alloc_fn", "cint_release_fn",
    "cint_type", "cint_view", "cint_mem_host", "cint_mem_device", "cint_mem_u", "cint_mem", "cint_sync",
    "cint_buffer_desc", "cint_allocator", "cint_ctx_config", "cint_tvalue", "cint_position",
    "cint_kernel_address", "cint_fault_record",
    "cint_name", "cint_site_info", "cint_module", "cint_global_info", "cint_container_info", "cint_value_set",
    "cint_program", "cint_record_field", "cint_record_layout", "cint_module_info", "cint_error_set", "cint_export",
    "cint_module_table", "cint_library", "cint_observer",
    "STRUCTS", "LAYOUTS", "LayoutError", "check_layouts", "text",
    "CINT_TVALUE_BYTES", "CINT_FAULT_OPERANDS_MAX", "CINT_FAULT_OPERATION_MAX",
]

if struct.calcsize("P") != 8:
    raise ImportError("cint_abi.structs: the C interface is defined for 64-bit pointers only (SPEC-03P.1 A-1)")

CINT_TVALUE_BYTES = 264
CINT_FAULT_OPERANDS_MAX = 8
CINT_FAULT_OPERATION_MAX = 64

cint_status = C.c_int32
cint_buffer_id = C.c_uint64
_bytes_p = C.POINTER(C.c_char)

cint_output_fn = C.CFUNCTYPE(cint_status, C.c_void_p, C.POINTER(C.c_uint8), C.c_size_t)
cint_entry_fn = C.CFUNCTYPE(None)
cint_alloc_fn = C.CFUNCTYPE(C.c_void_p, C.c_void_p, C.c_size_t, C.c_size_t)
cint_release_fn = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p, C.c_size_t, C.c_size_t)


# --- cint_rt_host.h ------------------------------------------------------------------------

class cint_type(C.Structure):
    _fields_ = [("code", C.c_uint16), ("storage", C.c_uint8), ("reserved0", C.c_uint8), ("frac", C.c_uint16),
                ("reserved1", C.c_uint16), ("record_id", C.c_uint32), ("reserved2", C.c_uint32)]


class cint_view(C.Structure):
    _fields_ = [("buffer", cint_buffer_id), ("generation", C.c_uint64), ("type", cint_type), ("rank", C.c_uint8),
                ("perm", C.c_uint8), ("reserved", C.c_uint8 * 6), ("origin", C.c_int64),
                ("shape", C.c_int64 * 4), ("stride", C.c_int64 * 4), ("lower", C.c_int64 * 4)]


class cint_mem_host(C.Structure):
    _fields_ = [("ptr", C.c_void_p)]


class cint_mem_device(C.Structure):
    _fields_ = [("address", C.c_uint64), ("device", C.c_uint32), ("reserved", C.c_uint32)]


class cint_mem_u(C.Union):
    _fields_ = [("host", cint_mem_host), ("device", cint_mem_device), ("raw", C.c_uint64 * 4)]


class cint_mem(C.Structure):
    _fields_ = [("kind", C.c_uint32), ("reserved", C.c_uint32), ("u", cint_mem_u)]


class cint_sync(C.Structure):
    _fields_ = [("kind", C.c_uint32), ("reserved", C.c_uint32), ("handle", C.c_uint64), ("value", C.c_uint64),
                ("reserved2", C.c_uint64)]


class cint_buffer_desc(C.Structure):
    _fields_ = [("size", C.c_uint32), ("writable", C.c_uint32), ("type", cint_type), ("mem", cint_mem),
                ("extent", C.c_int64), ("device", C.c_uint32), ("publish", C.c_uint32), ("sync", cint_sync)]


class cint_allocator(C.Structure):
    _fields_ = [("alloc", cint_alloc_fn), ("release", cint_release_fn), ("user", C.c_void_p)]


class cint_tvalue(C.Structure):
    _fields_ = [("len", C.c_uint32), ("reserved", C.c_uint32), ("bytes", C.c_uint8 * CINT_TVALUE_BYTES)]


class cint_position(C.Structure):
    _fields_ = [("module", C.c_uint32), ("index", C.c_uint32)]


class cint_kernel_address(C.Structure):
    _fields_ = [("name", _bytes_p), ("name_len", C.c_uint32), ("phase", C.c_uint32), ("dispatch", C.c_int64),
                ("has_work_item", C.c_uint32), ("reserved", C.c_uint32), ("work_item", C.c_int64),
                ("step", C.c_int64)]


# --- cint_rt.h (declared before the host structures that point to them) --------------------

class cint_name(C.Structure):
    _fields_ = [("bytes", _bytes_p), ("len", C.c_uint32), ("reserved", C.c_uint32)]


class cint_site_info(C.Structure):
    _fields_ = [("line", C.c_uint32), ("column", C.c_uint32)]


class cint_module(C.Structure):
    _fields_ = [("path", _bytes_p), ("path_len", C.c_uint32), ("site_count", C.c_uint32),
                ("sites", C.POINTER(cint_site_info)), ("name", _bytes_p), ("name_len", C.c_uint32),
                ("reserved", C.c_uint32)]


class cint_global_info(C.Structure):
    _fields_ = [("name", cint_name), ("type", cint_type), ("offset", C.c_uint64), ("bytes", C.c_uint64)]


class cint_container_info(C.Structure):
    _fields_ = [("name", cint_name), ("kind", C.c_uint32), ("reserved", C.c_uint32), ("elem", cint_type),
                ("capacity", C.c_int64)]


class cint_value_set(C.Structure):
    # record: CINT_VALUES_GLOBALS (0xFFFFFFFF) for a row of the globals table, else a record id
    _fields_ = [("record", C.c_uint32), ("row", C.c_uint32), ("kind", C.c_uint16), ("width", C.c_uint16),
                ("count", C.c_uint32), ("values", C.POINTER(C.c_uint8))]


class cint_program(C.Structure):
    _fields_ = [("size", C.c_uint32), ("abi", C.c_uint32), ("module_count", C.c_uint32), ("flags", C.c_uint32),
                ("modules", C.POINTER(C.POINTER(cint_module))), ("revision", C.c_uint8 * 32),
                ("source_map", C.c_uint8 * 32), ("globals_size", C.c_uint64), ("globals_align", C.c_uint64),
                ("globals_init", C.POINTER(C.c_uint8)), ("global_count", C.c_uint32),
                ("container_count", C.c_uint32), ("globals", C.POINTER(cint_global_info)),
                ("containers", C.POINTER(cint_container_info)), ("backend", C.c_uint32), ("value_set_count", C.c_uint32),
                ("value_sets", C.POINTER(cint_value_set))]


class cint_record_field(C.Structure):
    # count: the element count of an array field (its element type in type), 1 for any other field
    _fields_ = [("name", cint_name), ("type", cint_type), ("offset", C.c_uint64), ("bits", C.c_uint32),
                ("count", C.c_uint32)]


class cint_record_layout(C.Structure):
    _fields_ = [("size", C.c_uint64), ("align", C.c_uint32), ("field_count", C.c_uint32),
                ("fields", C.POINTER(cint_record_field))]


class cint_module_info(C.Structure):
    _fields_ = [("size", C.c_uint32), ("abi", C.c_uint32), ("program", C.POINTER(cint_program)),
                ("module", C.c_uint32), ("record_count", C.c_uint32), ("records", C.POINTER(cint_record_layout))]


class cint_error_set(C.Structure):
    _fields_ = [("name", C.c_char_p), ("name_len", C.c_uint32), ("value_count", C.c_uint32),
                ("values", C.POINTER(C.c_char_p)), ("value_lens", C.POINTER(C.c_uint32)),
                ("underlying", C.c_uint32), ("reserved", C.c_uint32)]


class cint_export(C.Structure):
    _fields_ = [("name", cint_name), ("kind", C.c_uint32), ("effect", C.c_uint32), ("size_count", C.c_uint32),
                ("param_count", C.c_uint32), ("size_names", C.POINTER(cint_name)),
                ("param_names", C.POINTER(cint_name)), ("type_signature", C.POINTER(C.c_uint8)),
                ("type_signature_len", C.c_uint64), ("call", cint_entry_fn)]


class cint_module_table(C.Structure):
    _fields_ = [("info", C.POINTER(cint_module_info)), ("module", C.c_uint32), ("export_count", C.c_uint32),
                ("exports", C.POINTER(cint_export)), ("record_names", C.POINTER(cint_name))]


class cint_library(C.Structure):
    _fields_ = [("abi", C.c_uint32), ("module_count", C.c_uint32),
                ("modules", C.POINTER(C.POINTER(cint_module_table)))]


class cint_observer(C.Structure):
    _fields_ = [("size", C.c_uint32), ("abi", C.c_uint32), ("program", C.POINTER(cint_program)),
                ("library", C.POINTER(cint_library)), ("reserved", C.c_uint64)]


# --- host structures that point to program descriptors -------------------------------------

class cint_ctx_config(C.Structure):
    _fields_ = [("size", C.c_uint32), ("max_buffers", C.c_uint32), ("program", C.POINTER(cint_program)),
                ("allocator", cint_allocator), ("depth_limit", C.c_int64), ("frame_arena_bytes", C.c_int64),
                ("output", cint_output_fn), ("output_user", C.c_void_p), ("module", C.POINTER(cint_module_info)),
                ("device_count", C.c_uint32), ("reserved", C.c_uint32), ("devices", C.POINTER(C.c_void_p))]


class cint_fault_record(C.Structure):
    _fields_ = [("code", C.c_uint16), ("reserved0", C.c_uint16), ("operation_len", C.c_uint32),
                ("operation", C.c_char * CINT_FAULT_OPERATION_MAX), ("operand_count", C.c_uint32),
                ("has_exact", C.c_uint32), ("has_limit", C.c_uint32), ("has_address", C.c_uint32),
                ("operands", cint_tvalue * CINT_FAULT_OPERANDS_MAX), ("exact", cint_tvalue), ("limit", cint_tvalue),
                ("position", cint_position), ("program", C.POINTER(cint_program)), ("has_revision", C.c_uint32),
                ("has_source_map", C.c_uint32), ("revision", C.c_uint8 * 32), ("source_map", C.c_uint8 * 32),
                ("address", cint_kernel_address), ("stack_count", C.c_uint64), ("stack", C.POINTER(cint_position))]


STRUCTS = (
    cint_type, cint_view, cint_mem_host, cint_mem_device, cint_mem_u, cint_mem, cint_sync, cint_buffer_desc,
    cint_allocator, cint_ctx_config, cint_tvalue, cint_position, cint_kernel_address, cint_fault_record,
    cint_name, cint_site_info, cint_module, cint_global_info, cint_container_info, cint_value_set,
    cint_program, cint_record_field, cint_record_layout, cint_module_info, cint_error_set, cint_export, cint_module_table,
    cint_library, cint_observer,
)

# name -> (size, {field: offset}), as the headers' static_asserts state them
LAYOUTS = {
    "cint_type": (16, dict(code=0, storage=2, reserved0=3, frac=4, reserved1=6, record_id=8, reserved2=12)),
    "cint_view": (144, dict(buffer=0, generation=8, type=16, rank=32, perm=33, reserved=34, origin=40, shape=48,
                            stride=80, lower=112)),
    "cint_mem_host": (8, dict(ptr=0)),
    "cint_mem_device": (16, dict(address=0, device=8, reserved=12)),
    "cint_mem_u": (32, dict(host=0, device=0, raw=0)),
    "cint_mem": (40, dict(kind=0, reserved=4, u=8)),
    "cint_sync": (32, dict(kind=0, reserved=4, handle=8, value=16, reserved2=24)),
    "cint_buffer_desc": (112, dict(size=0, writable=4, type=8, mem=24, extent=64, device=72, publish=76, sync=80)),
    "cint_allocator": (24, dict(alloc=0, release=8, user=16)),
    "cint_ctx_config": (96, dict(size=0, max_buffers=4, program=8, allocator=16, depth_limit=40,
                                 frame_arena_bytes=48, output=56, output_user=64, module=72, device_count=80,
                                 reserved=84, devices=88)),
    "cint_tvalue": (272, dict(len=0, reserved=4, bytes=8)),
    "cint_position": (8, dict(module=0, index=4)),
    "cint_kernel_address": (48, dict(name=0, name_len=8, phase=12, dispatch=16, has_work_item=24, reserved=28,
                                     work_item=32, step=40)),
    "cint_fault_record": (2960, dict(code=0, reserved0=2, operation_len=4, operation=8, operand_count=72,
                                     has_exact=76, has_limit=80, has_address=84, operands=88, exact=2264,
                                     limit=2536, position=2808, program=2816, has_revision=2824,
                                     has_source_map=2828, revision=2832, source_map=2864, address=2896,
                                     stack_count=2944, stack=2952)),
    "cint_name": (16, dict(bytes=0, len=8, reserved=12)),
    "cint_site_info": (8, dict(line=0, column=4)),
    "cint_module": (40, dict(path=0, path_len=8, site_count=12, sites=16, name=24, name_len=32, reserved=36)),
    "cint_global_info": (48, dict(name=0, type=16, offset=32, bytes=40)),
    "cint_container_info": (48, dict(name=0, kind=16, reserved=20, elem=24, capacity=40)),
    "cint_value_set": (24, dict(record=0, row=4, kind=8, width=10, count=12, values=16)),
    "cint_program": (152, dict(size=0, abi=4, module_count=8, flags=12, modules=16, revision=24, source_map=56,
                               globals_size=88, globals_align=96, globals_init=104, global_count=112,
                               container_count=116, globals=120, containers=128, backend=136,
                               value_set_count=140, value_sets=144)),
    "cint_record_field": (48, dict(name=0, type=16, offset=32, bits=40, count=44)),
    "cint_record_layout": (24, dict(size=0, align=8, field_count=12, fields=16)),
    "cint_module_info": (32, dict(size=0, abi=4, program=8, module=16, record_count=20, records=24)),
    "cint_error_set": (40, dict(name=0, name_len=8, value_count=12, values=16, value_lens=24, underlying=32,
                                reserved=36)),
    "cint_export": (72, dict(name=0, kind=16, effect=20, size_count=24, param_count=28, size_names=32,
                             param_names=40, type_signature=48, type_signature_len=56, call=64)),
    "cint_module_table": (32, dict(info=0, module=8, export_count=12, exports=16, record_names=24)),
    "cint_library": (16, dict(abi=0, module_count=4, modules=8)),
    "cint_observer": (32, dict(size=0, abi=4, program=8, library=16, reserved=24)),
}


class LayoutError(ImportError):
    """A ctypes mirror whose size or field offsets differ from the C header's."""


def check_layouts() -> None:
    """Raise LayoutError unless every mirror has the size and offsets of :data:`LAYOUTS`."""
    names = {cls.__name__ for cls in STRUCTS}
    if names != set(LAYOUTS):
        raise LayoutError(f"mirrors and layouts differ: {sorted(names ^ set(LAYOUTS))}")
    for cls in STRUCTS:
        size, offsets = LAYOUTS[cls.__name__]
        if C.sizeof(cls) != size:
            raise LayoutError(f"{cls.__name__} is {C.sizeof(cls)} bytes, the header says {size}")
        fields = [f[0] for f in cls._fields_]
        if fields != list(offsets):
            raise LayoutError(f"{cls.__name__} has fields {fields}, the header {list(offsets)}")
        for name, off in offsets.items():
            got = getattr(cls, name).offset
            if got != off:
                raise LayoutError(f"{cls.__name__}.{name} is at {got}, the header says {off}")


def text(ptr, length: int) -> bytes:
    """The ``length`` bytes a name pointer of a descriptor points to (b"" for NULL)."""
    if length == 0 or not ptr:
        return b""
    return C.string_at(C.cast(ptr, C.c_void_p), length)


check_layouts()
