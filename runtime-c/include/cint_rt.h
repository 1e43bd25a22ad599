/* cint_rt.h: the cint C interface (SPEC-03P.1 clause 7), runtime contract cint-rt-3.
 *
 * A host program includes this header and links one library that `cint build --lib` wrote.
 * It includes cint_rt_host.h (statuses, the context, buffers, views, leases, fault records:
 * the conventions of the interface are stated at the top of that header) and adds what a
 * library describes about itself: the program and module descriptors with their site
 * tables (7.4 paragraph 1), error sets (7.3 paragraph 3), the reflection table (7.4) and
 * the constants of type signatures (7.5).
 *
 * Every structure here is constant data of a library: a host reads it and never writes or
 * frees it, and every pointer in it stays valid while the library is loaded. Names are
 * UTF-8 without a terminating NUL unless a field says otherwise.
 *
 * cint_library_desc is defined by every library but not declared here (7.2 paragraph 15): a
 * host declares it as  extern const cint_library cint_library_desc;
 */
#ifndef CINT_RT_H
#define CINT_RT_H

#include "cint_rt_host.h"

/* Reflection constants (7.4). */
#define CINT_EXPORT_FUNCTION 1u
#define CINT_EXPORT_KERNEL 2u
#define CINT_PURE 1u
#define CINT_OBSERVE 2u
#define CINT_UNRESTRICTED 3u

/* Type signatures (7.5): the domain string, parameter modes, shape forms, definitions. */
#define CINT_SIG_DOMAIN "cint-core-1/type-signature/v1"
#define CINT_SIG_DOMAIN_LEN 29u
#define CINT_MODE_IN 0u
#define CINT_MODE_INOUT 1u
#define CINT_MODE_OUT 2u
#define CINT_SHAPE_ANY 0u
#define CINT_SHAPE_EXTENT 1u
#define CINT_SHAPE_RANGE 2u
#define CINT_SIG_NO_SYMBOL UINT32_C(0xFFFFFFFF)
#define CINT_SET_DECLARED 0u
#define CINT_SET_COMBINED 1u

/* Program flags. */
#define CINT_PROGRAM_HAS_REVISION 1u
#define CINT_PROGRAM_HAS_SOURCE_MAP 2u
#define CINT_BACKEND_CPU_C17 0u
#define CINT_BACKEND_GPU_CUDA 1u
#define CINT_CONTAINER_ARENA 1u
#define CINT_CONTAINER_POOL 2u
#define CINT_VALUES_ENUM 1u
#define CINT_VALUES_ERROR_SET 2u
#define CINT_VALUES_GLOBALS UINT32_C(0xFFFFFFFF)
#define CINT_VALUES_CONTAINERS UINT32_C(0xFFFFFFFE)

/* The type of cint_export.call: a wrapper, cast to void (*)(void); a host casts it back to
   the prototype its type signature gives (7.3). */
typedef void (*cint_entry_fn)(void);

typedef struct cint_name {              /* 16 bytes; UTF-8, no NUL */
    const char *bytes;
    uint32_t len;
    uint32_t reserved;
} cint_name;

/* One entry of a module's site table: a 1-based line and column (in Unicode scalar values). */
typedef struct cint_site_info {         /* 8 bytes */
    uint32_t line;
    uint32_t column;
} cint_site_info;

typedef struct cint_module {            /* 40 bytes */
    const char *path;                   /* module-relative path, as fault records give it */
    uint32_t path_len;
    uint32_t site_count;
    const cint_site_info *sites;        /* site_count entries */
    const char *name;                   /* dotted module name, such as tour */
    uint32_t name_len;
    uint32_t reserved;
} cint_module;

/* A module variable: qualified name, type, and place in the program's globals storage. An array has
   type code CINT_TAG_ARRAY and its element in storage (record_id for CINT_TAG_STRUCT); for
   elements of fixed point, storage is CINT_TAG_Q, frac the fraction bits and reserved0 the storage
   tag (CINT_TAG_I8 to CINT_TAG_I64). state.c (global_desc) reads the layout of its storage. */
typedef struct cint_global_info {       /* 48 bytes */
    cint_name name;
    cint_type type;
    uint64_t offset;
    uint64_t bytes;
} cint_global_info;

/* A module-level arena or pool with its declared capacity in elements. */
typedef struct cint_container_info {    /* 48 bytes */
    cint_name name;
    uint32_t kind;                      /* CINT_CONTAINER_ARENA or CINT_CONTAINER_POOL */
    uint32_t reserved;
    cint_type elem;
    int64_t capacity;
} cint_container_info;

/* A value set (our addition, docs/runtime.md): the values that one row of the globals table, or
   one field row of the root module's record layout table, may hold when its type is an enum or an
   error set (SPEC-04P.1 LS-91, LS-314; a restore refuses any other, H-19a). record is
   CINT_VALUES_GLOBALS for row row of cint_program.globals (a scalar, or the elements of an array),
   CINT_VALUES_CONTAINERS for the elements of row row of cint_program.containers (a scalar element),
   else the record id whose field row row it constrains (each of its count elements). width is the
   bytes of one value, the underlying type's. An enum (CINT_VALUES_ENUM) lists its count enumerator
   values in values, each width bytes as stored (little-endian, two's complement), in increasing
   memcmp order; an error set (CINT_VALUES_ERROR_SET, width at most 8) holds tags 1 to count and
   values is NULL. A program's table is in increasing (record, row) order, one entry per row. */
typedef struct cint_value_set {         /* 24 bytes */
    uint32_t record;                    /* CINT_VALUES_GLOBALS, or a record id */
    uint32_t row;
    uint16_t kind;                      /* CINT_VALUES_ENUM 1, CINT_VALUES_ERROR_SET 2 */
    uint16_t width;                     /* 1 to 128 */
    uint32_t count;
    const uint8_t *values;              /* count * width bytes; NULL for an error set */
} cint_value_set;

/* A program: its modules with their site tables, its revision identity and the storage a
   context creates for it (7.2 paragraph 5). */
struct cint_program {                   /* 152 bytes */
    uint32_t size;                      /* sizeof(cint_program) */
    uint32_t abi;                       /* CINT_ABI_VERSION it was built for */
    uint32_t module_count;
    uint32_t flags;                     /* CINT_PROGRAM_HAS_REVISION, _HAS_SOURCE_MAP */
    const cint_module *const *modules;  /* module_count entries */
    uint8_t revision[32];               /* revision identity (H-15) */
    uint8_t source_map[32];             /* source-map digest */
    uint64_t globals_size;              /* bytes of module variables */
    uint64_t globals_align;             /* 1 to 16 */
    const uint8_t *globals_init;        /* their initial bytes; NULL for zero */
    uint32_t global_count;
    uint32_t container_count;
    const cint_global_info *globals;
    const cint_container_info *containers;
    uint32_t backend;                   /* CINT_BACKEND_CPU_C17 or CINT_BACKEND_GPU_CUDA */
    uint32_t value_set_count;
    const cint_value_set *value_sets;   /* value_set_count entries; NULL when there are none */
};

/* A field of a record layout: its name, type, byte offset and bit width (0 if not a bit field).
   An array field is one row whose type is its element type and whose count is its element count
   (the product of its literal extents, elements in row-major order from offset); any other field
   has count 1. A struct field's type is CINT_TAG_STRUCT with the record_id of its own row. */
typedef struct cint_record_field {      /* 48 bytes */
    cint_name name;
    cint_type type;
    uint64_t offset;
    uint32_t bits;
    uint32_t count;
} cint_record_field;

/* A record layout (7.4 A-14): the byte size of one record, the alignment it needs in registered
   memory (8, A-13a) and its fields in declaration order. A view of records carries the row's
   index as its type's record_id. */
typedef struct cint_record_layout {     /* 24 bytes */
    uint64_t size;
    uint32_t align;
    uint32_t field_count;
    const cint_record_field *fields;
} cint_record_layout;

/* A module descriptor cm_<path> (A-14): the interface version, the program, the module's
   index in it and its record layouts. The root module's is passed to cint_ctx_create. */
struct cint_module_info {               /* 32 bytes */
    uint32_t size;                      /* sizeof(cint_module_info) */
    uint32_t abi;                       /* CINT_ABI_VERSION it was built for */
    const cint_program *program;
    uint32_t module;                    /* its index in program->modules */
    uint32_t record_count;
    const cint_record_layout *records;
};

/* An error set: its qualified name and the names of its values in tag order (tag k is
   values[k - 1]). Names here end with a NUL as well, so "%s" prints them. */
struct cint_error_set {                 /* 40 bytes */
    const char *name;                   /* such as tour.ParseError */
    uint32_t name_len;
    uint32_t value_count;
    const char *const *values;
    const uint32_t *value_lens;
    uint32_t underlying;                /* CINT_TAG_U8 to CINT_TAG_U64; U16 when undeclared */
    uint32_t reserved;
};

/* The reflection table (7.4). */
typedef struct cint_export {            /* 72 bytes */
    cint_name name;
    uint32_t kind;                      /* CINT_EXPORT_FUNCTION 1, CINT_EXPORT_KERNEL 2 */
    uint32_t effect;                    /* CINT_PURE 1, CINT_OBSERVE 2, CINT_UNRESTRICTED 3 */
    uint32_t size_count, param_count;
    const cint_name *size_names;        /* declaration order; NULL when size_count is 0 */
    const cint_name *param_names;       /* declaration order; NULL when param_count is 0 */
    const uint8_t *type_signature;      /* 7.5 */
    uint64_t type_signature_len;
    cint_entry_fn call;                 /* the wrapper, cast to void (*)(void) */
} cint_export;

typedef struct cint_module_table {      /* 32 bytes */
    const cint_module_info *info;       /* the module's descriptor */
    uint32_t module;                    /* its index in info->program->modules */
    uint32_t export_count;
    const cint_export *exports;         /* declaration order */
    const cint_name *record_names;      /* the qualified name of each record row of info */
} cint_module_table;

typedef struct cint_library {           /* 16 bytes */
    uint32_t abi;                       /* the interface version of 7.2 */
    uint32_t module_count;
    const cint_module_table *const *modules;
} cint_library;

/* The observer description a library exports as cint_observer_desc, beside the constant
   uint32_t cint_program_abi (A-12; SPEC-09P.1 9.6 is unpublished, so this is our interim
   form: enough for a tool to find the library's program without a context). */
typedef struct cint_observer {          /* 32 bytes */
    uint32_t size;                      /* sizeof(cint_observer) */
    uint32_t abi;
    const cint_program *program;
    const cint_library *library;
    uint64_t reserved;
} cint_observer;

_Static_assert(sizeof(cint_name) == 16, "cint_name is 16 bytes");
CINT_LAYOUT_(cint_name, bytes, 0); CINT_LAYOUT_(cint_name, len, 8); CINT_LAYOUT_(cint_name, reserved, 12);
_Static_assert(sizeof(cint_site_info) == 8, "cint_site_info is 8 bytes");
CINT_LAYOUT_(cint_site_info, line, 0); CINT_LAYOUT_(cint_site_info, column, 4);
_Static_assert(sizeof(cint_module) == 40, "cint_module is 40 bytes");
CINT_LAYOUT_(cint_module, path, 0); CINT_LAYOUT_(cint_module, path_len, 8); CINT_LAYOUT_(cint_module, site_count, 12);
CINT_LAYOUT_(cint_module, sites, 16); CINT_LAYOUT_(cint_module, name, 24); CINT_LAYOUT_(cint_module, name_len, 32);
CINT_LAYOUT_(cint_module, reserved, 36);
_Static_assert(sizeof(cint_global_info) == 48, "cint_global_info is 48 bytes");
CINT_LAYOUT_(cint_global_info, name, 0); CINT_LAYOUT_(cint_global_info, type, 16);
CINT_LAYOUT_(cint_global_info, offset, 32); CINT_LAYOUT_(cint_global_info, bytes, 40);
_Static_assert(sizeof(cint_container_info) == 48, "cint_container_info is 48 bytes");
CINT_LAYOUT_(cint_container_info, name, 0); CINT_LAYOUT_(cint_container_info, kind, 16);
CINT_LAYOUT_(cint_container_info, reserved, 20); CINT_LAYOUT_(cint_container_info, elem, 24);
CINT_LAYOUT_(cint_container_info, capacity, 40);
_Static_assert(sizeof(cint_value_set) == 24, "cint_value_set is 24 bytes");
CINT_LAYOUT_(cint_value_set, record, 0); CINT_LAYOUT_(cint_value_set, row, 4); CINT_LAYOUT_(cint_value_set, kind, 8);
CINT_LAYOUT_(cint_value_set, width, 10); CINT_LAYOUT_(cint_value_set, count, 12);
CINT_LAYOUT_(cint_value_set, values, 16);
_Static_assert(sizeof(cint_program) == 152, "cint_program is 152 bytes");
CINT_LAYOUT_(cint_program, size, 0); CINT_LAYOUT_(cint_program, abi, 4); CINT_LAYOUT_(cint_program, module_count, 8);
CINT_LAYOUT_(cint_program, flags, 12); CINT_LAYOUT_(cint_program, modules, 16); CINT_LAYOUT_(cint_program, revision, 24);
CINT_LAYOUT_(cint_program, source_map, 56); CINT_LAYOUT_(cint_program, globals_size, 88);
CINT_LAYOUT_(cint_program, globals_align, 96); CINT_LAYOUT_(cint_program, globals_init, 104);
CINT_LAYOUT_(cint_program, global_count, 112); CINT_LAYOUT_(cint_program, container_count, 116);
CINT_LAYOUT_(cint_program, globals, 120); CINT_LAYOUT_(cint_program, containers, 128);
CINT_LAYOUT_(cint_program, backend, 136); CINT_LAYOUT_(cint_program, value_set_count, 140);
CINT_LAYOUT_(cint_program, value_sets, 144);
_Static_assert(sizeof(cint_record_field) == 48, "cint_record_field is 48 bytes");
CINT_LAYOUT_(cint_record_field, name, 0); CINT_LAYOUT_(cint_record_field, type, 16);
CINT_LAYOUT_(cint_record_field, offset, 32); CINT_LAYOUT_(cint_record_field, bits, 40);
CINT_LAYOUT_(cint_record_field, count, 44);
_Static_assert(sizeof(cint_record_layout) == 24, "cint_record_layout is 24 bytes");
CINT_LAYOUT_(cint_record_layout, size, 0); CINT_LAYOUT_(cint_record_layout, align, 8);
CINT_LAYOUT_(cint_record_layout, field_count, 12); CINT_LAYOUT_(cint_record_layout, fields, 16);
_Static_assert(sizeof(cint_module_info) == 32, "cint_module_info is 32 bytes");
CINT_LAYOUT_(cint_module_info, size, 0); CINT_LAYOUT_(cint_module_info, abi, 4);
CINT_LAYOUT_(cint_module_info, program, 8); CINT_LAYOUT_(cint_module_info, module, 16);
CINT_LAYOUT_(cint_module_info, record_count, 20); CINT_LAYOUT_(cint_module_info, records, 24);
_Static_assert(sizeof(cint_error_set) == 40, "cint_error_set is 40 bytes");
CINT_LAYOUT_(cint_error_set, name, 0); CINT_LAYOUT_(cint_error_set, name_len, 8);
CINT_LAYOUT_(cint_error_set, value_count, 12); CINT_LAYOUT_(cint_error_set, values, 16);
CINT_LAYOUT_(cint_error_set, value_lens, 24); CINT_LAYOUT_(cint_error_set, underlying, 32);
CINT_LAYOUT_(cint_error_set, reserved, 36);
_Static_assert(sizeof(cint_export) == 72, "cint_export is 72 bytes");
CINT_LAYOUT_(cint_export, name, 0); CINT_LAYOUT_(cint_export, kind, 16); CINT_LAYOUT_(cint_export, effect, 20);
CINT_LAYOUT_(cint_export, size_count, 24); CINT_LAYOUT_(cint_export, param_count, 28);
CINT_LAYOUT_(cint_export, size_names, 32); CINT_LAYOUT_(cint_export, param_names, 40);
CINT_LAYOUT_(cint_export, type_signature, 48); CINT_LAYOUT_(cint_export, type_signature_len, 56);
CINT_LAYOUT_(cint_export, call, 64);
_Static_assert(sizeof(cint_module_table) == 32, "cint_module_table is 32 bytes");
CINT_LAYOUT_(cint_module_table, info, 0); CINT_LAYOUT_(cint_module_table, module, 8);
CINT_LAYOUT_(cint_module_table, export_count, 12); CINT_LAYOUT_(cint_module_table, exports, 16);
CINT_LAYOUT_(cint_module_table, record_names, 24);
_Static_assert(sizeof(cint_library) == 16, "cint_library is 16 bytes");
CINT_LAYOUT_(cint_library, abi, 0); CINT_LAYOUT_(cint_library, module_count, 4); CINT_LAYOUT_(cint_library, modules, 8);
_Static_assert(sizeof(cint_observer) == 32, "cint_observer is 32 bytes");
CINT_LAYOUT_(cint_observer, size, 0); CINT_LAYOUT_(cint_observer, abi, 4); CINT_LAYOUT_(cint_observer, program, 8);
CINT_LAYOUT_(cint_observer, library, 16); CINT_LAYOUT_(cint_observer, reserved, 24);

#endif /* CINT_RT_H */
