/* cint_rt_host.h: the host side of the cint C interface (SPEC-03P.1 6.3, 7.1, 7.2, 7.3).
 *
 * Runtime contract cint-rt-3, interface version 3.2. A host program includes cint_rt.h, which
 * includes this header and adds the descriptors of programs, modules and the reflection
 * table (7.4, 7.5). This header alone declares everything a host passes and calls.
 *
 * Conventions, stated once for every function below:
 *
 *  - Status. Every function that can fail returns a cint_status (CINT_OK ...) and writes its
 *    out parameters only when it returns CINT_OK. cint_abi_version and
 *    cint_ctx_destroy cannot fail and return no status. A NULL context or a NULL out
 *    pointer is CINT_REFUSED.
 *  - Refusal reasons. A function that takes a context and is refused records one of the
 *    CINT_REFUSAL_* reasons, which cint_ctx_refusal reads; any other outcome of a function
 *    that changes the context records CINT_REFUSAL_NONE. The readers (cint_ctx_fault,
 *    cint_fault_get, cint_ctx_refusal, cint_ctx_error, cint_fuel_consumed,
 *    cint_ctx_fault_descriptors) record nothing.
 *  - One call at a time. Every function that takes a context answers CINT_BUSY, and
 *    disturbs nothing, when another call is active on that context, including a call from
 *    the output callback of a running entry. Different contexts may be used from
 *    different threads at the same time; they share no mutable state [A-2, H-10].
 *  - Structures. Every structure holds fixed-width integers, data pointers, function
 *    pointers and size_t only, and its size and field offsets are checked below. A
 *    host zeroes every reserved and unused field and sets each size field to the size of
 *    its structure; a nonzero reserved field is refused.
 *  - Out parameters are the caller's storage: the runtime writes them (on CINT_OK only) and
 *    keeps no pointer to them. Every other pointer argument is read during the call only,
 *    unless its function says otherwise.
 *  - Ownership. Memory a host registers (borrowed memory) stays the host's: the runtime
 *    never frees it, and the host keeps it valid and in place until the registration ends
 *    (cint_buffer_release, or cint_ctx_destroy). Storage made by cint_buffer_create belongs
 *    to the runtime, which frees it at cint_buffer_release or cint_ctx_destroy; its address
 *    reaches the host only through a lease (6.3). Everything a context allocates comes from
 *    the configuration's allocator and is freed by cint_ctx_destroy. Pointers into a
 *    program descriptor (names, paths, error sets) live as long as the library.
 *  - Targets. The interface is defined for little-endian hosts with 64-bit pointers
 *    (x86-64 and AArch64); this header refuses to compile for any other.
 */
#ifndef CINT_RT_HOST_H
#define CINT_RT_HOST_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201710L
#error "cint_rt_host.h needs C17 (-std=c17)"
#endif
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cint: the C interface is defined for little-endian targets only (SPEC-03P.1 A-1)"
#endif
#elif !defined(_WIN32)
#error "cint: cannot tell the byte order of this target; the C interface needs little-endian"
#endif
#if UINTPTR_MAX != UINT64_MAX || SIZE_MAX != UINT64_MAX
#error "cint: the C interface is defined for 64-bit pointers only (SPEC-03P.1 A-1)"
#endif

/* ---------------------------------------------------------------------------------------- */
/* Statuses (7.1)                                                                            */

typedef int32_t cint_status;

#define CINT_OK 0           /* completed; an error result also completes */
#define CINT_FAULT 1        /* faulted, at entry or while running */
#define CINT_REFUSED 2      /* the arguments could not be formed; nothing ran */
#define CINT_BUSY 3         /* another call is active, or an output is leased */
#define CINT_FAULTED 4      /* the context holds a fault; nothing ran */
#define CINT_RESOURCE 5     /* the allocator, the registry or a device had no room */
#define CINT_DIVERGED 6     /* replay found a difference (9.3) */
#define CINT_UNREPLAYABLE 7 /* replay cannot go on (9.3) */

/* Refusal reasons (7.1 paragraph 10); 5 is not assigned. */
#define CINT_REFUSAL_NONE 0
#define CINT_REFUSAL_BUFFER 1       /* names no registration */
#define CINT_REFUSAL_GENERATION 2   /* names a released registration */
#define CINT_REFUSAL_TYPE 3         /* unknown type, nonzero reserved bytes, or not the registration's */
#define CINT_REFUSAL_RANK 4         /* rank outside 1 to 4 */
#define CINT_REFUSAL_SIZE 6         /* an element offset or byte size beyond the I64 range */
#define CINT_REFUSAL_EXTENT 7       /* negative origin or extent, or outside the registration */
#define CINT_REFUSAL_ALIGN 8        /* an address not aligned for its type, or NULL */
#define CINT_REFUSAL_PERMISSION 9   /* a write view of a read-only registration */
#define CINT_REFUSAL_CALL 10        /* otherwise invalid, such as a wrong size field */
#define CINT_REFUSAL_BOOL 11        /* a Bool byte other than 0 or 1 */
#define CINT_REFUSAL_RESULT 12      /* a NULL result pointer */
#define CINT_REFUSAL_LEASED 13      /* a leased output; the call returns CINT_BUSY */
#define CINT_REFUSAL_UNSUPPORTED 14 /* device memory or a synchronization object the context cannot take */
#define CINT_REFUSAL_LEASE 15       /* a lease of memory the runtime does not own, or an unknown lease */

/* Fault codes (SPEC-01P.1 IM-104; the numbers are the canonical encoding). */
#define CINT_E_OVERFLOW 1
#define CINT_E_DIV_ZERO 2
#define CINT_E_BOUNDS 3
#define CINT_E_SHAPE 4
#define CINT_E_SHIFT 5
#define CINT_E_NARROW 6
#define CINT_E_ALIAS 7
#define CINT_E_STALE_HANDLE 8
#define CINT_E_FUEL 9
#define CINT_E_UNSUPPORTED 10
#define CINT_E_DOMAIN 11
#define CINT_E_DEPTH 12
#define CINT_E_ASSERT 13

/* Interface version: (major << 16) | minor. */
#define CINT_ABI_MAJOR 3u
#define CINT_ABI_MINOR 2u
#define CINT_ABI_VERSION ((CINT_ABI_MAJOR << 16) | CINT_ABI_MINOR)

/* Fuel (7.1 paragraph 9): -1 is no budget; any other negative budget is refused. */
#define CINT_FUEL_UNBOUNDED INT64_C(-1)

/* ---------------------------------------------------------------------------------------- */
/* Type codes: the canonical type tags (SPEC-01P.1 IM-146, SPEC-03P.1 7.5)                   */

#define CINT_TAG_BOOL 0x01
#define CINT_TAG_Z 0x0F
#define CINT_TAG_I8 0x11
#define CINT_TAG_I16 0x12
#define CINT_TAG_I32 0x13
#define CINT_TAG_I64 0x14
#define CINT_TAG_I128 0x15
#define CINT_TAG_I256 0x16
#define CINT_TAG_I512 0x17
#define CINT_TAG_I1024 0x18
#define CINT_TAG_U8 0x21
#define CINT_TAG_U16 0x22
#define CINT_TAG_U32 0x23
#define CINT_TAG_U64 0x24
#define CINT_TAG_Q 0x31
#define CINT_TAG_T1 0x41
#define CINT_TAG_T27 0x42
#define CINT_TAG_PT5 0x43
#define CINT_TAG_PT4 0x44
#define CINT_TAG_ARRAY 0x51       /* array value (fault records) */
#define CINT_TAG_ARRAY_ABI 0x52   /* array in a type signature (7.5) */
#define CINT_TAG_VIEW 0x61        /* view identity (fault records) */
#define CINT_TAG_STRUCT 0x71
#define CINT_TAG_ERROR_SET 0x73
#define CINT_TAG_ERROR_UNION 0x74
#define CINT_TAG_REDACTED 0x7F

/* View permissions, memory kinds, publish modes, kernel phases. */
#define CINT_VIEW_READ 0
#define CINT_VIEW_WRITE 1
#define CINT_MEM_HOST 1u
#define CINT_MEM_DEVICE 2u
#define CINT_SYNC_NONE 0u
#define CINT_PUBLISH_NONE 0u
#define CINT_PUBLISH_COPY 1u
#define CINT_PHASE_ENTRY 0u
#define CINT_PHASE_WORK_ITEM 1u
#define CINT_PHASE_EPILOGUE 2u

/* ---------------------------------------------------------------------------------------- */
/* Structures                                                                               */

typedef struct cint_ctx cint_ctx;                 /* opaque: every state is reached through it */
typedef struct cint_program cint_program;         /* cint_rt.h */
typedef struct cint_module_info cint_module_info; /* cint_rt.h */
typedef struct cint_error_set cint_error_set;     /* cint_rt.h */
typedef uint64_t cint_buffer_id;                  /* nonzero; counts from 1, never reused */

/* An element or scalar type: code is a CINT_TAG_* value. For CINT_TAG_Q, storage is the
   storage tag (CINT_TAG_I8 to CINT_TAG_I64) and frac the fraction bits; for CINT_TAG_STRUCT,
   record_id is the row of the root module's record layout table. Other fields are 0. */
typedef struct cint_type {              /* 16 bytes */
    uint16_t code;
    uint8_t storage;
    uint8_t reserved0;
    uint16_t frac;
    uint16_t reserved1;
    uint32_t record_id;
    uint32_t reserved2;
} cint_type;

/* A view: which elements of a registration an argument uses, and how (6.5). */
typedef struct cint_view {              /* 144 bytes */
    cint_buffer_id buffer;              /* never 0 */
    uint64_t generation;
    cint_type type;                     /* the element's type */
    uint8_t rank;                       /* 1 to 4 */
    uint8_t perm;                       /* CINT_VIEW_READ 0, CINT_VIEW_WRITE 1 */
    uint8_t reserved[6];
    int64_t origin;                     /* elements from the buffer's base */
    int64_t shape[4], stride[4], lower[4]; /* extents, strides in elements, lower bounds */
} cint_view;

typedef struct cint_mem_host {          /* 8 bytes */
    void *ptr;                          /* the lowest reachable byte (A-8a) */
} cint_mem_host;

typedef struct cint_mem_device {        /* 16 bytes */
    uint64_t address;
    uint32_t device;
    uint32_t reserved;
} cint_mem_device;

typedef union cint_mem_u {              /* 32 bytes; bytes the kind does not use are 0 */
    cint_mem_host host;
    cint_mem_device device;
    uint64_t raw[4];
} cint_mem_u;

typedef struct cint_mem {               /* 40 bytes */
    uint32_t kind;                      /* CINT_MEM_HOST or CINT_MEM_DEVICE */
    uint32_t reserved;
    cint_mem_u u;
} cint_mem;

typedef struct cint_sync {              /* 32 bytes; kind CINT_SYNC_NONE for host memory */
    uint32_t kind;
    uint32_t reserved;
    uint64_t handle;
    uint64_t value;
    uint64_t reserved2;
} cint_sync;

/* What cint_buffer_register takes (7.2). */
typedef struct cint_buffer_desc {       /* 112 bytes */
    uint32_t size;                      /* sizeof(cint_buffer_desc) */
    uint32_t writable;                  /* the ceiling: 0 read, 1 write */
    cint_type type;                     /* element type */
    cint_mem mem;                       /* kind CINT_MEM_HOST and the lowest reachable byte */
    int64_t extent;                     /* elements */
    uint32_t device;                    /* 0 for host memory */
    uint32_t publish;                   /* CINT_PUBLISH_NONE, or CINT_PUBLISH_COPY if writable */
    cint_sync sync;                     /* kind 0 for host memory */
} cint_buffer_desc;

/* An allocator. alloc returns size bytes aligned to align (a power of two, at most 16) or
   NULL; release frees what alloc returned, with the same size and align. Both are called
   only from the thread that is calling into the context. */
typedef struct cint_allocator {         /* 24 bytes */
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*release)(void *user, void *ptr, size_t size, size_t align);
    void *user;
} cint_allocator;

/* Receives the bytes of one print statement, whole; the bytes are valid during the call
   only. A status other than CINT_OK faults the entry (7.3 paragraph 4). The callback shall
   not call into the context that is running (any call there answers CINT_BUSY). */
typedef cint_status (*cint_output_fn)(void *user, const uint8_t *bytes, size_t len);

typedef struct cint_ctx_config {        /* 96 bytes */
    uint32_t size;                      /* sizeof(cint_ctx_config) */
    uint32_t max_buffers;               /* live registrations; 0 selects 256 */
    const cint_program *program;        /* required */
    cint_allocator allocator;           /* alloc NULL selects malloc and free */
    int64_t depth_limit;                /* call depth of every entry; 0 selects 256 */
    int64_t frame_arena_bytes;          /* frame arena; 0 selects 16777216 */
    cint_output_fn output;              /* receives each print statement; NULL discards */
    void *output_user;
    const cint_module_info *module;     /* the root module's descriptor */
    uint32_t device_count, reserved;    /* 0, or 1 for a gpu-cuda library */
    const void *const *devices;
} cint_ctx_config;

/* A tagged value of a fault record (SPEC-01P.1 IM-147): bytes[0] is the type tag, then the
   rest of the descriptor and the payload, little-endian; len bytes are used. An I64 or U64
   is bytes[0] and 8 bytes; exact is tag 0x0F, a U32 byte count and the Z bytes. */
#define CINT_TVALUE_BYTES 264
typedef struct cint_tvalue {            /* 272 bytes */
    uint32_t len;
    uint32_t reserved;
    uint8_t bytes[CINT_TVALUE_BYTES];
} cint_tvalue;

/* A source position: a module (its index in program->modules) and a site of its site table. */
typedef struct cint_position {          /* 8 bytes */
    uint32_t module;
    uint32_t index;
} cint_position;

/* The kernel address of a fault in a dispatch (SPEC-01P.1 IM-106). */
typedef struct cint_kernel_address {    /* 48 bytes */
    const char *name;                   /* qualified kernel name, UTF-8, no NUL; the program's */
    uint32_t name_len;
    uint32_t phase;                     /* CINT_PHASE_ENTRY, _WORK_ITEM or _EPILOGUE */
    int64_t dispatch;                   /* from 0 in each entry */
    uint32_t has_work_item;             /* 1 exactly in the work-item phase */
    uint32_t reserved;
    int64_t work_item;                  /* row-major work-item index */
    int64_t step;                       /* step ordinal (SPEC-01P.1 IM-113) */
} cint_kernel_address;

#define CINT_FAULT_OPERANDS_MAX 8
#define CINT_FAULT_OPERATION_MAX 64

/* A structure view of a fault record (7.1 paragraph 8). The canonical record is the bytes of
   cint_fault_get; this structure mirrors them. program, address.name and the paths and
   sites reached through position and stack belong to the library; stack points into the
   context and stays valid until the fault is cleared or the context is destroyed. */
typedef struct cint_fault_record {      /* 2960 bytes */
    uint16_t code;                      /* CINT_E_*, or 0 when no fault is held */
    uint16_t reserved0;
    uint32_t operation_len;
    char operation[CINT_FAULT_OPERATION_MAX]; /* ASCII, no NUL */
    uint32_t operand_count;             /* at most 8 */
    uint32_t has_exact;
    uint32_t has_limit;
    uint32_t has_address;
    cint_tvalue operands[CINT_FAULT_OPERANDS_MAX];
    cint_tvalue exact;                  /* a tagged Z when has_exact */
    cint_tvalue limit;
    cint_position position;             /* the operator or call the fault is at */
    const cint_program *program;        /* whose module and site tables position names */
    uint32_t has_revision;
    uint32_t has_source_map;
    uint8_t revision[32];
    uint8_t source_map[32];
    cint_kernel_address address;        /* when has_address */
    uint64_t stack_count;               /* call sites of active user calls, outermost first */
    const cint_position *stack;
} cint_fault_record;

/* ---------------------------------------------------------------------------------------- */
/* Layout checks                                                                       */

#define CINT_LAYOUT_(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f " is at " #off)
_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "cint needs 64-bit pointers");
_Static_assert(sizeof(cint_status) == 4 && sizeof(cint_buffer_id) == 8, "scalar sizes");
_Static_assert(sizeof(cint_type) == 16, "cint_type is 16 bytes");
CINT_LAYOUT_(cint_type, code, 0); CINT_LAYOUT_(cint_type, storage, 2); CINT_LAYOUT_(cint_type, reserved0, 3);
CINT_LAYOUT_(cint_type, frac, 4); CINT_LAYOUT_(cint_type, reserved1, 6); CINT_LAYOUT_(cint_type, record_id, 8);
CINT_LAYOUT_(cint_type, reserved2, 12);
_Static_assert(sizeof(cint_view) == 144, "cint_view is 144 bytes");
CINT_LAYOUT_(cint_view, buffer, 0); CINT_LAYOUT_(cint_view, generation, 8); CINT_LAYOUT_(cint_view, type, 16);
CINT_LAYOUT_(cint_view, rank, 32); CINT_LAYOUT_(cint_view, perm, 33); CINT_LAYOUT_(cint_view, reserved, 34);
CINT_LAYOUT_(cint_view, origin, 40); CINT_LAYOUT_(cint_view, shape, 48); CINT_LAYOUT_(cint_view, stride, 80);
CINT_LAYOUT_(cint_view, lower, 112);
_Static_assert(sizeof(cint_mem_host) == 8, "cint_mem_host is 8 bytes");
CINT_LAYOUT_(cint_mem_host, ptr, 0);
_Static_assert(sizeof(cint_mem_device) == 16, "cint_mem_device is 16 bytes");
CINT_LAYOUT_(cint_mem_device, address, 0); CINT_LAYOUT_(cint_mem_device, device, 8);
CINT_LAYOUT_(cint_mem_device, reserved, 12);
_Static_assert(sizeof(cint_mem_u) == 32, "cint_mem_u is 32 bytes");
CINT_LAYOUT_(cint_mem_u, host, 0); CINT_LAYOUT_(cint_mem_u, device, 0); CINT_LAYOUT_(cint_mem_u, raw, 0);
_Static_assert(sizeof(cint_mem) == 40, "cint_mem is 40 bytes");
CINT_LAYOUT_(cint_mem, kind, 0); CINT_LAYOUT_(cint_mem, reserved, 4); CINT_LAYOUT_(cint_mem, u, 8);
_Static_assert(sizeof(cint_sync) == 32, "cint_sync is 32 bytes");
CINT_LAYOUT_(cint_sync, kind, 0); CINT_LAYOUT_(cint_sync, reserved, 4); CINT_LAYOUT_(cint_sync, handle, 8);
CINT_LAYOUT_(cint_sync, value, 16); CINT_LAYOUT_(cint_sync, reserved2, 24);
_Static_assert(sizeof(cint_buffer_desc) == 112, "cint_buffer_desc is 112 bytes");
CINT_LAYOUT_(cint_buffer_desc, size, 0); CINT_LAYOUT_(cint_buffer_desc, writable, 4);
CINT_LAYOUT_(cint_buffer_desc, type, 8); CINT_LAYOUT_(cint_buffer_desc, mem, 24);
CINT_LAYOUT_(cint_buffer_desc, extent, 64); CINT_LAYOUT_(cint_buffer_desc, device, 72);
CINT_LAYOUT_(cint_buffer_desc, publish, 76); CINT_LAYOUT_(cint_buffer_desc, sync, 80);
_Static_assert(sizeof(cint_allocator) == 24, "cint_allocator is 24 bytes");
CINT_LAYOUT_(cint_allocator, alloc, 0); CINT_LAYOUT_(cint_allocator, release, 8); CINT_LAYOUT_(cint_allocator, user, 16);
_Static_assert(sizeof(cint_ctx_config) == 96, "cint_ctx_config is 96 bytes");
CINT_LAYOUT_(cint_ctx_config, size, 0); CINT_LAYOUT_(cint_ctx_config, max_buffers, 4);
CINT_LAYOUT_(cint_ctx_config, program, 8); CINT_LAYOUT_(cint_ctx_config, allocator, 16);
CINT_LAYOUT_(cint_ctx_config, depth_limit, 40); CINT_LAYOUT_(cint_ctx_config, frame_arena_bytes, 48);
CINT_LAYOUT_(cint_ctx_config, output, 56); CINT_LAYOUT_(cint_ctx_config, output_user, 64);
CINT_LAYOUT_(cint_ctx_config, module, 72); CINT_LAYOUT_(cint_ctx_config, device_count, 80);
CINT_LAYOUT_(cint_ctx_config, reserved, 84); CINT_LAYOUT_(cint_ctx_config, devices, 88);
_Static_assert(sizeof(cint_tvalue) == 272, "cint_tvalue is 272 bytes");
CINT_LAYOUT_(cint_tvalue, len, 0); CINT_LAYOUT_(cint_tvalue, reserved, 4); CINT_LAYOUT_(cint_tvalue, bytes, 8);
_Static_assert(sizeof(cint_position) == 8, "cint_position is 8 bytes");
CINT_LAYOUT_(cint_position, module, 0); CINT_LAYOUT_(cint_position, index, 4);
_Static_assert(sizeof(cint_kernel_address) == 48, "cint_kernel_address is 48 bytes");
CINT_LAYOUT_(cint_kernel_address, name, 0); CINT_LAYOUT_(cint_kernel_address, name_len, 8);
CINT_LAYOUT_(cint_kernel_address, phase, 12); CINT_LAYOUT_(cint_kernel_address, dispatch, 16);
CINT_LAYOUT_(cint_kernel_address, has_work_item, 24); CINT_LAYOUT_(cint_kernel_address, reserved, 28);
CINT_LAYOUT_(cint_kernel_address, work_item, 32); CINT_LAYOUT_(cint_kernel_address, step, 40);
_Static_assert(sizeof(cint_fault_record) == 2960, "cint_fault_record is 2960 bytes");
CINT_LAYOUT_(cint_fault_record, code, 0); CINT_LAYOUT_(cint_fault_record, reserved0, 2);
CINT_LAYOUT_(cint_fault_record, operation_len, 4); CINT_LAYOUT_(cint_fault_record, operation, 8);
CINT_LAYOUT_(cint_fault_record, operand_count, 72); CINT_LAYOUT_(cint_fault_record, has_exact, 76);
CINT_LAYOUT_(cint_fault_record, has_limit, 80); CINT_LAYOUT_(cint_fault_record, has_address, 84);
CINT_LAYOUT_(cint_fault_record, operands, 88); CINT_LAYOUT_(cint_fault_record, exact, 2264);
CINT_LAYOUT_(cint_fault_record, limit, 2536); CINT_LAYOUT_(cint_fault_record, position, 2808);
CINT_LAYOUT_(cint_fault_record, program, 2816); CINT_LAYOUT_(cint_fault_record, has_revision, 2824);
CINT_LAYOUT_(cint_fault_record, has_source_map, 2828); CINT_LAYOUT_(cint_fault_record, revision, 2832);
CINT_LAYOUT_(cint_fault_record, source_map, 2864); CINT_LAYOUT_(cint_fault_record, address, 2896);
CINT_LAYOUT_(cint_fault_record, stack_count, 2944); CINT_LAYOUT_(cint_fault_record, stack, 2952);

/* ---------------------------------------------------------------------------------------- */
/* Functions                                                                                 */

/* The interface version, (3 << 16) | 2. Cannot fail. */
uint32_t cint_abi_version(void);

/* Creates a context for config->program and writes it to *out.
   Ownership: the context is the caller's until cint_ctx_destroy; it keeps pointers to the
   program and module descriptors and the output callback, copies nothing else, and frees
   nothing of the configuration.
   CINT_OK: *out is a new Ready context whose module variables hold their initial values
   and whose arenas and pools are allocated with their declared capacities.
   CINT_REFUSED: config or out NULL; a wrong size; no program or an invalid one; an allocator
   with alloc but no release (or release without alloc); a negative depth limit or
   frame-arena size; a module descriptor of another interface major version or of another
   program; device_count other than 0 for a CPU program; a nonzero reserved field.
   CINT_RESOURCE: the allocator could not supply the context or its storage. */
cint_status cint_ctx_create(const cint_ctx_config *config, cint_ctx **out);

/* Frees everything the context and the runtime own for it: module variables, arenas,
   pools, buffers made by cint_buffer_create, and every registration (borrowed memory is
   left to the host). Leases end; their addresses are invalid afterwards. NULL is ignored.
   Cannot fail; shall not be called while a call on the context is active. */
void cint_ctx_destroy(cint_ctx *ctx);

/* Registers host memory described by *desc and writes its buffer identifier and generation
   . Ownership: the memory stays the host's and shall stay valid and in place until
   cint_buffer_release (or cint_ctx_destroy); the descriptor is read during the call only.
   The checks, in order, each refused with the reason in brackets: desc, out_id or
   out_generation NULL, size, writable, the reserved fields and publish (CALL); memory that
   is not host memory without a synchronization object (UNSUPPORTED); an element type that
   is not Bool, I8 to U64, fixed point or a record of the root module (TYPE); an extent
   below 0 (EXTENT); a byte size beyond the I64 range or the address space (SIZE); a NULL
   address with a nonzero size, or an address not aligned for the type (ALIGN).
   CINT_RESOURCE: max_buffers registrations are live, or the registry cannot grow.
   CINT_OK: identifiers count from 1 in registration order and are never reused; the
   generation of a new registration is 1. */
cint_status cint_buffer_register(cint_ctx *ctx, const cint_buffer_desc *desc, cint_buffer_id *out_id,
                                 uint64_t *out_generation);

/* Shorthands of cint_buffer_register for host memory with no synchronization object: the
   _bytes form takes the size in bytes (a multiple of the element size, else CINT_REFUSED
   with reason EXTENT), the _elements form the extent in elements. writable and publish are
   the descriptor's fields. Every outcome is cint_buffer_register's. */
cint_status cint_buffer_register_bytes(cint_ctx *ctx, cint_type type, void *ptr, size_t bytes, uint32_t writable,
                                       uint32_t publish, cint_buffer_id *out_id, uint64_t *out_generation);
cint_status cint_buffer_register_elements(cint_ctx *ctx, cint_type type, void *ptr, int64_t extent,
                                          uint32_t writable, uint32_t publish, cint_buffer_id *out_id,
                                          uint64_t *out_generation);

/* Creates zero-filled storage of extent elements of type, owned by the runtime, registered
   writable, and writes its identifier and generation (6.2). Ownership: the runtime frees it
   at cint_buffer_release or cint_ctx_destroy; its address reaches the host only through a
   lease. CINT_REFUSED: out pointers NULL (CALL); a type that cannot be registered (TYPE); an
   extent below 0 (EXTENT); a byte size beyond the I64 range (SIZE); device other than 0
   (UNSUPPORTED). CINT_RESOURCE: the registry is full or the allocator has no room. */
cint_status cint_buffer_create(cint_ctx *ctx, cint_type type, int64_t extent, uint32_t device,
                               cint_buffer_id *out_id, uint64_t *out_generation);

/* Ends the registration id: its generation advances, its identifier is never issued again,
   and a view that names it is refused with reason GENERATION. Storage made by
   cint_buffer_create is freed; borrowed memory is left to the host. CINT_REFUSED: id names
   no registration (BUFFER) or a released one (GENERATION). CINT_BUSY: the buffer has a live
   lease (reason LEASED); end the lease first. */
cint_status cint_buffer_release(cint_ctx *ctx, cint_buffer_id id);

/* Leases a buffer made by cint_buffer_create (6.3, A-9): writes a read-only address of its
   current storage and a lease number. Lease numbers count from 1 and are never reused.
   Ownership: the storage stays the runtime's; the address is valid until cint_lease_end of
   that number (or cint_ctx_destroy), and the host shall not write through it. While the
   lease is live, an entry that binds the buffer to an out or inout parameter answers
   CINT_BUSY with reason LEASED and runs nothing. CINT_REFUSED: out pointers NULL (CALL);
   id names no registration (BUFFER) or a released one (GENERATION); the buffer is not the
   runtime's (LEASE). */
cint_status cint_buffer_lease(cint_ctx *ctx, cint_buffer_id id, const void **out_ptr, uint64_t *out_lease);

/* Ends a lease. CINT_REFUSED: the number names no live lease (LEASE). */
cint_status cint_lease_end(cint_ctx *ctx, uint64_t lease);

/* Copies the elements of view, in row-major order of their indices, into dst, which shall
   hold exactly their bytes. Ownership: dst is the host's. CINT_REFUSED: the view is
   refused as an argument would be (reasons BUFFER, GENERATION, TYPE, RANK, CALL, SIZE,
   EXTENT), or names another generation of a live registration (GENERATION); dst_bytes is
   not the view's byte size, or dst is NULL with a nonzero size (CALL); device memory
   (UNSUPPORTED). Leases and the fault record do not matter. */
cint_status cint_buffer_read(cint_ctx *ctx, cint_view view, void *dst, size_t dst_bytes);

/* Copies the held fault record into *out, a record whose code is 0 when none is held
   . Ownership: *out is the caller's; see cint_fault_record for its pointers. */
cint_status cint_ctx_fault(const cint_ctx *ctx, cint_fault_record *out);

/* The canonical bytes of the held fault record (SPEC-01P.1 IM-149, layout version 2): sets
   *len to their length, 0 when no fault is held, and copies min(cap, *len) bytes to buf,
   which may be NULL when cap is 0. CINT_REFUSED: len NULL, or buf NULL with cap above 0. */
cint_status cint_fault_get(const cint_ctx *ctx, uint8_t *buf, size_t cap, size_t *len);

/* The canonical bytes of a record in structure form, as cint_fault_get gives them for a
   held record: sets *len and copies min(cap, *len) bytes. CINT_REFUSED: rec or len NULL,
   buf NULL with cap above 0, code 0 or unknown, operation_len above 64, operand_count
   above 8, a value length above CINT_TVALUE_BYTES, a position outside the program's
   tables, a phase above 2, or stack_count above 0 with stack NULL. */
cint_status cint_fault_encode(const cint_fault_record *rec, uint8_t *buf, size_t cap, size_t *len);

/* Writes the type of each operand of the held fault to out[0 .. *count - 1] (out holds
   CINT_FAULT_OPERANDS_MAX entries), decoded from the operand's descriptor: code is its tag
   (CINT_TAG_VIEW for a view identity, CINT_TAG_REDACTED for a redacted operand), with
   storage and frac for fixed point. *count is 0 when no fault is held. */
cint_status cint_ctx_fault_descriptors(const cint_ctx *ctx, cint_type *out, uint32_t *count);

/* The reason of the last call on the context that was refused, or CINT_REFUSAL_NONE when
   the last call was not refused (7.1 paragraph 10). A fuel budget below -1 is reason 0. */
cint_status cint_ctx_refusal(const cint_ctx *ctx, uint32_t *reason);

/* The error result of the last entry: its error set and its tag counted from 1, or
   NULL and 0 when the last entry returned no error. The set belongs to the library. */
cint_status cint_ctx_error(const cint_ctx *ctx, const cint_error_set **set, uint64_t *tag);

/* The fuel the last entry consumed; a refused call is not an entry and leaves it as it was. */
cint_status cint_fuel_consumed(const cint_ctx *ctx, int64_t *out);

/* Clears the held fault record and changes nothing else: no registration, buffer, lease or
   counter (A-7a). CINT_OK also when no fault is held. */
cint_status cint_ctx_clear_fault(cint_ctx *ctx);

#endif /* CINT_RT_HOST_H */
