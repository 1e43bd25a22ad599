/* cint_rt_gen.h: the runtime API that compiler-generated code calls (internal to a library).
 *
 * Host programs never include this header. The C17 emitter (executor cpu-c17) writes one
 * translation unit per program that includes it and cint_rt_ops.h, and links it with the
 * runtime sources into libNAME.so. docs/runtime.md describes how a wrapper is generated
 * from an export mechanically; tests/fixtures/ holds hand-written examples.
 *
 * Conventions:
 *  - Every function here is called only on the thread of the running entry, between
 *    cint_gen_enter returning CINT_OK and cint_gen_leave, except cint_gen_copies.
 *  - A function that returns int returns 0 when the program goes on and 1 when the entry has
 *    faulted: the context then holds the record, and the generated code unwinds to its
 *    wrapper (ending an open dispatch with cint_gen_dispatch_end) and calls cint_gen_leave.
 *  - The first fault of an entry writes the record; later raises in that entry change
 *    nothing and also return 1 (SPEC-09P.1 RT-10).
 *  - Strings and tables passed here (operation identifiers, kernel names, descriptors) are
 *    constant data of the library; the runtime keeps pointers to the kernel names and the
 *    program, and copies everything else.
 *  - Nothing here allocates except staging (dispatch; blocks are kept in the context's
 *    staging cache between dispatches), the copy report, print buffers and the frame arena,
 *    all from the context's allocator; when it has no room the entry ends with a boundary
 *    record host.resource and the wrapper returns CINT_RESOURCE.
 */
#ifndef CINT_RT_GEN_H
#define CINT_RT_GEN_H

#include <string.h>

#include "cint_rt.h"

/* Symbol visibility: libraries are built with -fvisibility=hidden and export exactly the
   symbols of A-12, each marked CINT_EXPORT. */
#if defined(__GNUC__)
#define CINT_EXPORT __attribute__((visibility("default")))
#else
#define CINT_EXPORT
#endif

/* ---------------------------------------------------------------------------------------- */
/* Descriptions the emitter writes as constant data                                          */

#define CINT_GEN_SCALAR 0u
#define CINT_GEN_ARRAY 1u
#define CINT_GEN_STRUCT 2u /* a struct parameter: a view of one record, rank 1, extent 1 (7.3 A-13) */
#define CINT_GEN_NO_SIZE INT64_C(-1) /* a size symbol not bound yet */

/* A declared extent, as in a type signature (7.5): form CINT_SHAPE_ANY, CINT_SHAPE_EXTENT
   (sizes[sym] + offset, or offset alone when sym is CINT_SIG_NO_SYMBOL) or CINT_SHAPE_RANGE
   (lower ..= that bound; the extent is bound - lower + 1). */
typedef struct cint_gen_extent {
    uint32_t form;
    uint32_t sym;
    int64_t offset;
    int64_t lower;
} cint_gen_extent;

/* One parameter in declaration order: an array (its element type, rank and extents) or a
   scalar (its type), with its mode CINT_MODE_IN, _INOUT or _OUT. */
typedef struct cint_gen_param {
    uint32_t kind;
    uint32_t mode;
    cint_type type;
    uint32_t rank;
    uint32_t flags;                     /* CINT_GEN_PARAM_* */
    cint_gen_extent dims[4];
} cint_gen_param;

/* A kernel's out parameter whose own element every completing work-item stores (the emitter
   proves it): its staging need not be zero-filled, since no zero of it can be published. */
#define CINT_GEN_PARAM_COVERS 1u

/* A `where` clause (LS-118, LS-244) over the bound size values sizes: 0 when every constraint
   holds; else the number of bind.where operands it wrote to operands[0..2] for its first false
   constraint (1: the constraint's index; 3: the index and the two compared values). */
typedef int (*cint_gen_where_fn)(const int64_t *sizes, int64_t *operands);

/* A kernel: its qualified name, parameters, size symbols and over clause. */
typedef struct cint_gen_kernel {
    cint_name name;
    uint32_t param_count;
    uint32_t size_count;
    const cint_gen_param *params;
    uint32_t over_rank;
    uint32_t reserved;
    cint_gen_extent over[4];
} cint_gen_kernel;

/* An export with a wrapper. name_site is the site of the export's name in its declaration:
   entry faults and the entry's fuel charge are positioned there (7.1 paragraph 11, IM-141). */
typedef struct cint_gen_export {
    const cint_program *program;
    cint_position name_site;
    uint32_t kind;                      /* CINT_EXPORT_FUNCTION or CINT_EXPORT_KERNEL */
    uint32_t param_count;
    const cint_gen_param *params;       /* a kernel's are kernel->params */
    uint32_t size_count;
    uint32_t has_result;                /* 1: the wrapper takes a result pointer */
    const cint_gen_kernel *kernel;      /* CINT_EXPORT_KERNEL only */
} cint_gen_export;

/* The first 33 bytes of every type signature (7.5): U32 29 and the domain string. */
#define CINT_GEN_SIG_HEAD                                                                               \
    0x1d, 0x00, 0x00, 0x00, 'c', 'i', 'n', 't', '-', 'c', 'o', 'r', 'e', '-', '1', '/', 't', 'y', 'p', 'e', \
        '-', 's', 'i', 'g', 'n', 'a', 't', 'u', 'r', 'e', '/', 'v', '1'

/* ---------------------------------------------------------------------------------------- */
/* Arrays as generated code sees them                                                        */

#define CINT_OWNER_CONTEXT 0u  /* module variables, frame arena, arenas and pools */
#define CINT_OWNER_RUNTIME 1u  /* cint_buffer_create */
#define CINT_OWNER_BORROWED 2u /* host memory registered with cint_buffer_register */

/* A bound array: data is the element whose indices all equal their lower bounds; element
   (i0, .., ir) is at data + sum((ik - lower[k]) * stride[k]) * elem_size. The remaining
   fields say where it came from, for the entry checks and for view identities. */
typedef struct cint_gen_array {
    uint8_t *data;
    int64_t elem_size;
    uint32_t rank;
    uint32_t perm;                      /* CINT_VIEW_READ or CINT_VIEW_WRITE */
    int64_t shape[4];
    int64_t stride[4];
    int64_t lower[4];
    cint_type type;
    uint64_t buffer;                    /* registration id; 0 for context storage */
    uint64_t generation;                /* the view's generation */
    uint64_t reg_generation;            /* the registration's generation */
    int64_t origin;
    uint32_t owner;                     /* CINT_OWNER_* */
    uint32_t publish;                   /* the registration's publish mode */
} cint_gen_array;

/* One argument of a wrapper, in declaration order: view for an array parameter, byte for a
   Bool scalar (checked for 0 or 1), for an I128..I1024 scalar 1 when the wrapper was given a
   NULL pointer to its limbs (refused, CINT_REFUSAL_CALL) and 0 otherwise, nothing for other
   scalars (a Q<i>.<f> scalar is its raw storage integer: every value is one). */
typedef struct cint_gen_arg {
    const cint_view *view;
    uint32_t byte;
    uint32_t reserved;
} cint_gen_arg;

/* Where an operation is: its site, and inside a kernel's work item the row-major work-item
   index and the step ordinal (SPEC-01P.1 IM-113); both are ignored outside the work-item
   phase of a dispatch. */
typedef struct cint_gen_at {
    cint_position pos;
    int64_t work_item;
    int64_t step;
} cint_gen_at;

/* A fault to raise: code, operation identifier (NUL-terminated ASCII, at most 64 bytes),
   typed operands, exact as a little-endian two's complement byte string of any length
   (the runtime writes the minimal Z; NULL for none) and limit (NULL for none). The
   runtime adds the position, the call stack, the revision and the kernel address. */
typedef struct cint_gen_fault {
    uint16_t code;
    uint16_t operand_count;
    uint32_t exact_len;
    const char *operation;
    const cint_tvalue *operands;
    const uint8_t *exact;
    const cint_tvalue *limit;
} cint_gen_fault;

/* The copy report of the last entry (6.4, M-31). */
#define CINT_COPY_STAGING 1u
#define CINT_COPY_PUBLISH 2u
#define CINT_COPY_SNAPSHOT 3u
#define CINT_COPY_FAULT_READBACK 4u
typedef struct cint_copy {
    uint32_t param;                     /* parameter index of the dispatch's kernel */
    uint32_t reason;                    /* CINT_COPY_* */
    cint_type type;
    int64_t count;                      /* elements, not bytes */
} cint_copy;

/* ---------------------------------------------------------------------------------------- */
/* Entries                                                                                   */

/* Begins an entry for export x. In order: a NULL context is CINT_REFUSED; another active
   call is CINT_BUSY; a held fault is CINT_FAULTED; a fuel budget below -1 is refused with
   reason 0; then each argument is formed in declaration order (views: BUFFER, GENERATION,
   TYPE, RANK, CALL, SIZE, EXTENT, PERMISSION, BOOL for the elements of a Bool input; Bool
   scalars: BOOL; wide scalars: CALL for a NULL pointer); a NULL result pointer when x->has_result is refused with RESULT; an out or
   inout view of a leased buffer is CINT_BUSY with reason LEASED. Nothing before this point
   changes the context. The entry then starts (fuel consumed 0, no error result, an empty
   copy report, entry count + 1) and makes the entry checks of 7.1 paragraph 11 over every
   array parameter in turn; a function then takes depth 1 and charges 1 fuel at its name,
   and a kernel begins its dispatch (number 0: checks, admission, N fuel, staging).
   arrays receives param_count bound arrays (scalars' entries are left zero) and sizes
   size_count size values. CINT_OK: the entry runs; the wrapper runs the body and calls
   cint_gen_leave. Any other status: the wrapper returns it at once (the entry, if it
   started, has already ended and released the context). */
cint_status cint_gen_enter(cint_ctx *ctx, const cint_gen_export *x, int64_t fuel, const cint_gen_arg *args,
                           const void *result, cint_gen_array *arrays, int64_t *sizes);

/* cint_gen_enter for a function export with a `where` clause (LS-118; cint_gen_where_fn).  The
   checks of 7.1 paragraph 11 up to bind.shape run over every array parameter first, then the clause
   (false: E_SHAPE bind.where with the operands where wrote, at the export's name), then
   bind.injective, bind.alias and bind.limit over every parameter, then depth and fuel, as a call
   from cint code checks them.  For a kernel export, where is the kernel's clause, which its
   dispatch checks as cint_gen_dispatch_begin_where does. */
cint_status cint_gen_enter_where(cint_ctx *ctx, const cint_gen_export *x, int64_t fuel, const cint_gen_arg *args,
                                 const void *result, cint_gen_array *arrays, int64_t *sizes, cint_gen_where_fn where);

/* Ends the entry: ends an open dispatch without publishing, releases the context and
   returns CINT_OK, CINT_FAULT, or CINT_RESOURCE after a boundary record. The wrapper writes
   its result only when this returns CINT_OK. */
cint_status cint_gen_leave(cint_ctx *ctx);

/* A call that names no export (cintx_invoke of `cint build --lib --with-state` with an unknown
   export index or a NULL argument pointer): CINT_REFUSED with reason CALL, nothing else changes
   (CINT_BUSY while another call is active; CINT_REFUSED for a NULL context). */
cint_status cint_gen_refuse_call(cint_ctx *ctx);

/* 1 when the running entry has faulted. */
int cint_gen_failed(const cint_ctx *ctx);

/* Charges units of fuel at at (fuel-v1, IM-139): E_FUEL fuel.charge with limit the budget
   when the charge would take consumption past it. */
int cint_gen_charge(cint_ctx *ctx, const cint_gen_at *at, int64_t units);

/* The fuel of the running entry, for code that counts its charges itself (the LIR back end,
   docs/lir.md): used is the fuel consumed so far, limit the budget (INT64_MAX without one), and a
   charge of u units succeeds exactly when used <= limit - u. Generated code may keep used in a
   register and must store it back before it calls any other function of the runtime or of the
   program, and before it returns; it raises E_FUEL through cint_gen_charge. */
typedef struct cint_gen_fuel {
    int64_t used;
    int64_t limit;
} cint_gen_fuel;
cint_gen_fuel *cint_gen_fuel_of(cint_ctx *ctx);

/* Branch hints, and the fast blocks of the LIR back end (docs/lir.md): a block that the C compiler can
   vectorise is CINT_GEN_VECTOR, and where CINT_GEN_HAS_AVX2 is 1 it has a second copy marked
   CINT_GEN_VECTOR_AVX2, which the item loop calls when cint_gen_isa(ctx) has CINT_GEN_ISA_AVX2 (the
   runtime asks the CPU once per context; generated code reaches no CPU detection of its own, A-3). */
#if defined(__GNUC__)
#define CINT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CINT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define CINT_LIKELY(x) (x)
#define CINT_UNLIKELY(x) (x)
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define CINT_GEN_VECTOR __attribute__((optimize("vect-cost-model=dynamic")))
#else
#define CINT_GEN_VECTOR
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(CINT_GEN_NO_AVX2)
#define CINT_GEN_HAS_AVX2 1
#define CINT_GEN_VECTOR_AVX2 __attribute__((target("avx2"), optimize("vect-cost-model=dynamic")))
#else
#define CINT_GEN_HAS_AVX2 0
#endif
#define CINT_GEN_ISA_AVX2 1u
uint32_t cint_gen_isa(const cint_ctx *ctx);

/* A user-function call at at: E_DEPTH call.enter (limit the depth limit) when it would exceed
   the depth limit, else one fuel charge, then the call site joins the stack of active
   calls. cint_gen_call_leave pops it when the callee returns normally. */
int cint_gen_call_enter(cint_ctx *ctx, const cint_gen_at *at);
void cint_gen_call_leave(cint_ctx *ctx);

/* Raises a fault; always returns 1. A record that breaks the contract of cint_gen_fault is
   replaced by E_UNSUPPORTED dispatch.admit with no operands (IM-185). */
int cint_gen_raise(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_fault *f);

/* Sets the error result of the running entry; tag counts from 1. */
void cint_gen_error(cint_ctx *ctx, const cint_error_set *set, uint64_t tag);

/* ---------------------------------------------------------------------------------------- */
/* Dispatches (6.4, RT-19)                                                                   */

/* Begins a dispatch of kernel k at at (the callee name, or the export's name for a host
   call) with arrays indexed by k's parameters. In order: takes the next dispatch number of
   the entry; makes the entry checks in phase entry (for a host call also bind.stale and
   bind.limit) and binds sizes; admits the over clause (E_SHAPE dispatch.admit when its
   product passes M64); charges N fuel; stages every out and inout array into storage of the
   context's staging cache (an inout's elements copied in; an out zero-filled unless its
   parameter has CINT_GEN_PARAM_COVERS) and points arrays[p] at it, in row-major layout,
   listing each in the copy report; enters the work-item phase, where at's position (the
   dispatch site, for a dispatch from cint code) becomes the innermost entry of the fault
   stack until cint_gen_dispatch_end (decision 3; not a call: the depth is unchanged).
   *items receives N. */
int cint_gen_dispatch_begin(cint_ctx *ctx, const cint_gen_kernel *k, const cint_gen_at *at, cint_gen_array *arrays,
                            int64_t *sizes, int64_t *items);

/* cint_gen_dispatch_begin for a kernel with a `where` clause (LS-244, cint_gen_where_fn): the
   clause is checked once bind.shape has bound the sizes over every parameter, before
   bind.injective and bind.alias, admission and the fuel charge (false: E_SHAPE bind.where, phase
   entry, at at).  Once the dispatch is in its work-item phase, at's position (the dispatch site)
   is the innermost entry of the fault stack, after the enclosing calls' sites (decision 3). */
int cint_gen_dispatch_begin_where(cint_ctx *ctx, const cint_gen_kernel *k, const cint_gen_at *at,
                                  cint_gen_array *arrays, int64_t *sizes, int64_t *items, cint_gen_where_fn where);

/* Ends the open dispatch: when the entry has not faulted, publishes each staged array into
   its own memory (row-major, one copy per contiguous run), or, for the dispatch of a host
   call whose output is a whole created buffer with no lease, makes the staging the buffer's
   storage (a rename, no copy); in every case returns the staging storage to the cache and
   restores arrays (a renamed one with the buffer's new address). */
void cint_gen_dispatch_end(cint_ctx *ctx);
/* Enters the epilogue phase of the open dispatch, after its last work-item: its reductions' checks
   (docs/language.md decision 23) fault with phase epilogue, address (dispatch, none, none). */
void cint_gen_dispatch_epilogue(cint_ctx *ctx);

/* ---------------------------------------------------------------------------------------- */
/* Print statements (7.3 paragraph 4, H-7)                                                   */

/* A print statement: begin, append its parts, end. end hands the bytes, whole, to the
   output callback (or discards them); a callback status other than CINT_OK faults the entry
   with E_UNSUPPORTED host.output, the status as an I64 operand, at at. */
int cint_gen_print_begin(cint_ctx *ctx);
int cint_gen_print_bytes(cint_ctx *ctx, const void *bytes, size_t len);
int cint_gen_print_i64(cint_ctx *ctx, int64_t v);
int cint_gen_print_u64(cint_ctx *ctx, uint64_t v);
int cint_gen_print_end(cint_ctx *ctx, const cint_gen_at *at);

/* format(buf, "...") (SPEC-04P.1 LS-216): begin records where its bytes start in the print buffer
   (a format may run inside a print statement's hole), the parts are appended as for a print, and
   end writes the longest prefix of them that fits cap bytes (stride elements apart from data) and
   splits no UTF-8 sequence, stores its length in *len, takes the bytes out of the print buffer
   again, and returns 0 when all fitted, 2 when not (FormatError.capacity), 1 when the entry has
   faulted. */
int cint_gen_format_begin(cint_ctx *ctx, size_t *mark);
/* 1 when the n bytes at s, stride bytes apart, are well-formed UTF-8 (RFC 3629), else 0 (utf8(bytes)). */
int cint_gen_utf8_valid(const uint8_t *s, int64_t n, int64_t stride);
int cint_gen_format_end(cint_ctx *ctx, size_t mark, uint8_t *data, int64_t stride, int64_t cap, int64_t *len);

/* ---------------------------------------------------------------------------------------- */
/* Storage                                                                                   */

/* The module variables (program->globals_size bytes, aligned to globals_align), owned by
   the context. */
void *cint_gen_globals(cint_ctx *ctx);

/* The storage of the program's container k (an arena or pool), or NULL. */
void *cint_gen_container(cint_ctx *ctx, uint32_t k);

/* Native storage of the frame arena for local arrays and the temporaries of an entry,
   zero-filled. It grows in chunks that never move (a first chunk of frame_arena_bytes) and
   returns NULL after raising host.resource only when the host allocator fails; it charges no
   elements. mark/reset free in LIFO order (a mark is a virtual offset across the chunks). */
void *cint_gen_frame_alloc(cint_ctx *ctx, const cint_gen_at *at, size_t bytes, size_t align);
size_t cint_gen_frame_mark(const cint_ctx *ctx);
void cint_gen_frame_reset(cint_ctx *ctx, size_t mark);

/* The frame arena's charge (SPEC-04 LS-110), in elements whatever their type, against the
   capacity frame_arena_bytes / 8 (2,097,152 elements by default); each entry starts at 0.
   charge adds the element count of shape[0 .. rank - 1] (saturated at INT64_MAX) or raises
   E_BOUNDS arena.alloc with the operands I64 requested, I64 used, I64 capacity and returns 1;
   charged reads the charge and release sets it back to a value charged returned, when a block
   that declared local arrays exits. */
int cint_gen_frame_charge(cint_ctx *ctx, const cint_gen_at *at, uint32_t rank, const int64_t *shape);
int64_t cint_gen_frame_charged(const cint_ctx *ctx);
void cint_gen_frame_release(cint_ctx *ctx, int64_t mark);

/* A rank-r local array of type over frame-arena storage, row-major, lower bounds 0. */
int cint_gen_local_array(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *out, cint_type type, uint32_t rank,
                         const int64_t *shape);

/* The copy report of the last entry; valid until the next call on the context. */
const cint_copy *cint_gen_copies(const cint_ctx *ctx, size_t *count);

/* Room for count registrations, for a host that makes several for one call (the Python package
   registers every bare array of a call, 8.2) and must leave the context as it was when one of them
   cannot be made (H-12, P-20): CINT_OK when count more registrations can be made now (live ones
   stay within max_buffers, the identifiers below 2^64 - 1 (M-11) suffice, and the registry's
   storage has grown to hold them, so none of the next count registrations returns CINT_RESOURCE);
   CINT_RESOURCE when they cannot; CINT_BUSY while an entry or another call runs; CINT_REFUSED for
   a NULL context. It changes no state, and no counter (registry.c). Not part of A-12: the package
   finds it in the library's symbol table. */
cint_status cint_gen_registry_reserve(cint_ctx *ctx, uint32_t count);

/* The canonical state (SPEC-03P.1 5.1 M-3, 9.2; state.c, docs/runtime.md). Not part of A-12: a
   library built with `cint build --lib --with-state` exports them as cintx_state_encode and
   cintx_state_restore. encode sets *len to the length of the state bytes and copies min(cap,
   *len) of them to buf (NULL when cap is 0). restore replaces the context's state with the
   state bytes data[0 .. len - 1] after checking all of them (H-19, H-19a), and changes nothing
   when it does not return CINT_OK; detail (may be NULL) receives the CINT_STATE_* code of a
   refusal and the byte offset of the offending field. */
#define CINT_STATE_OK 0u
#define CINT_STATE_MALFORMED 1u        /* the bytes break a rule of the encoding */
#define CINT_STATE_REVISION 2u         /* another revision identity */
#define CINT_STATE_GLOBALS 3u          /* module variables other than the program's, by name or type */
#define CINT_STATE_UNREPRESENTABLE 4u  /* well formed, but this context cannot hold it */
cint_status cint_gen_state_encode(cint_ctx *ctx, uint8_t *buf, size_t cap, size_t *len);
cint_status cint_gen_state_restore(cint_ctx *ctx, const uint8_t *data, size_t len, uint64_t detail[2]);

/* ---------------------------------------------------------------------------------------- */
/* Slow paths of cint_rt_ops.h: each builds the record of its operation and raises it.      */

#define CINT_OP_ADD 1u
#define CINT_OP_SUB 2u
#define CINT_OP_MUL 3u
#define CINT_OP_NEG 4u
#define CINT_OP_DIV 5u
#define CINT_OP_REM 6u
#define CINT_OP_SHL 7u      /* checked << */
#define CINT_OP_SHL_WRAP 8u /* <<% */
#define CINT_OP_SHR 9u

/* An arithmetic fault of op on type tag (I8 to U64) with operands a and b, each given as its
   value converted to uint64_t: E_DIV_ZERO for a zero divisor, E_OVERFLOW with the exact
   result and the bound crossed otherwise. */
int cint_gen_arith_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t tag, uint64_t a, uint64_t b);
/* A fault of shift op on a of type tag with count k of type ktag: E_SHIFT with limit
   I64(w - 1) when k is outside 0..w-1 (IM-45), else (checked <<) E_OVERFLOW with the exact
   a * 2^k and the bound crossed. */
int cint_gen_shift_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t op, uint32_t tag, uint64_t a, uint32_t ktag,
                         uint64_t k);
/* E_NARROW as.checked.<from>.<to>: the operand, exact and the bound of to. */
int cint_gen_narrow_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t from, uint32_t to, uint64_t v);
/* E_BOUNDS index.checked.<E>: the index (with the dimension at rank 2 and above), limit the
   extent (IM-186). */
int cint_gen_index_fault(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t dim, int64_t index);
/* E_ASSERT assert.checked.bool of a failed `assert` (LS-191): with nops 2, the two compared operands
   (integers or Bool of types atag and btag, as uint64_t bits); with nops 0, none. */
int cint_gen_assert_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t nops, uint32_t atag, uint64_t a,
                          uint32_t btag, uint64_t b);
/* E_SHAPE decl.shape: a local array declared with the negative extent extent in dimension dim (operands
   I64 dim, I64 extent; limit I64 0). */
int cint_gen_decl_shape_fault(cint_ctx *ctx, const cint_gen_at *at, uint32_t dim, int64_t extent);
/* The same for an array of element type type and rank rank whose dimension dim has extent extent
   (a constant array of the program, which has no cint_gen_array). */
int cint_gen_index_fault_of(cint_ctx *ctx, const cint_gen_at *at, cint_type type, uint32_t rank, int64_t extent,
                            uint32_t dim, int64_t index);
/* sum(xs) over every element of a (I8 to U64): charges ceil(n / 64) at at, then sums exactly
   (a 128-bit accumulator, contiguous runs summed in 64-bit blocks that cannot wrap) and checks
   the result against type tag rtag, writing it to out (IM-77, IM-81). */
int cint_gen_sum(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *a, uint32_t rtag, void *out);
/* The same with the fuel charge positioned at charge_at: in a work-item the charge comes one step
   after the step ordinal of the reduction (interp: Context.reduction). */
int cint_gen_sum_at(cint_ctx *ctx, const cint_gen_at *charge_at, const cint_gen_at *at, const cint_gen_array *a,
                    uint32_t rtag, void *out);

/* ---------------------------------------------------------------------------------------- */
/* Typed values for fault records                                                            */

/* An integer of type tag (Bool, I8 to U64): bits is its value converted to uint64_t. */
static inline void cint_tv_int(cint_tvalue *t, uint32_t tag, uint64_t bits)
{
    uint32_t n = (tag == CINT_TAG_BOOL) ? 1u : (1u << ((tag & 0x0Fu) - 1u));
    memset(t, 0, sizeof *t);
    t->bytes[0] = (uint8_t)tag;
    for (uint32_t k = 0; k < n; k++) t->bytes[1 + k] = (uint8_t)(bits >> (8u * k));
    t->len = 1u + n;
}
static inline void cint_tv_i64(cint_tvalue *t, int64_t v) { cint_tv_int(t, CINT_TAG_I64, (uint64_t)v); }
static inline void cint_tv_u64(cint_tvalue *t, uint64_t v) { cint_tv_int(t, CINT_TAG_U64, v); }

/* ---------------------------------------------------------------------------------------- */
/* Arenas, pools and handles (containers.c; docs/language.md decision 24, docs/runtime.md)   */

/* A handle value: the five fields of the canonical tagged value (tag CINT_TAG_HANDLE, payload its
   first 29 bytes, little-endian) and of E_STALE_HANDLE operands; kind 0 null, 1 arena, 2 pool. */
#define CINT_TAG_HANDLE 0x81
#define CINT_HANDLE_NULL 0u
#define CINT_HANDLE_ARENA 1u
#define CINT_HANDLE_POOL 2u
typedef struct cint_handle {
    uint64_t slot;
    int64_t len;
    uint64_t gen;
    uint32_t cont;
    uint8_t kind;
} cint_handle;
_Static_assert(sizeof(cint_handle) == 32, "cint_handle is 32 bytes");

/* A view of arena storage (a[h]): owner CINT_OWNER_ARENA, buffer the arena's index in the context,
   generation the handle's generation, reg_generation its slot and origin its length, so that every
   access through the view re-checks the handle (cint_gen_arena_recheck). */
#define CINT_OWNER_ARENA 3u

/* An arena value is the arena's index in the context (module arenas 0, 1, .. in declaration order,
   then child arenas as they are made); a pool value the pool's index (declaration order). Each
   returns 0, or 1 after raising the record of containers.py (no fuel). alloc_result and
   insert_result set *full (and return 0) where alloc and insert raise E_BOUNDS. */
int cint_gen_arena_alloc(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, cint_handle *out);
int cint_gen_arena_alloc_result(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, cint_handle *out,
                                int *full);
int cint_gen_arena_child(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, int64_t n, uint32_t *out);
int cint_gen_arena_reset(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena);
/* a[h]: the handle check (handle.check), then out is the view of its run. */
int cint_gen_arena_view(cint_ctx *ctx, const cint_gen_at *at, uint32_t arena, const cint_handle *h,
                        cint_gen_array *out);
/* The handle check of an access through a view of arena storage (v->owner == CINT_OWNER_ARENA). */
int cint_gen_arena_recheck(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_array *v);
int cint_gen_pool_insert(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const void *value, cint_handle *out);
int cint_gen_pool_insert_result(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const void *value,
                                cint_handle *out, int *full);
/* p[h]: the check (pool.deref), then *out points at the slot's element. */
int cint_gen_pool_deref(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const cint_handle *h, void **out);
int cint_gen_pool_remove(cint_ctx *ctx, const cint_gen_at *at, uint32_t pool, const cint_handle *h);

/* I128 to I1024 (wide.c) */
#include "cint_rt_wide.h"

#endif /* CINT_RT_GEN_H */
