/* rt_internal.h: the context and the helpers the runtime's source files share. Not installed. */
#ifndef CINT_RT_INTERNAL_H
#define CINT_RT_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cint_rt_gen.h"

/* Every function of the host interface is exported; everything else is hidden by
   -fvisibility=hidden. */
#define RT_API CINT_EXPORT

#define RT_DEFAULT_MAX_BUFFERS 256u
#define RT_DEFAULT_DEPTH 256
#define RT_DEFAULT_FRAME_ARENA INT64_C(16777216)
#define RT_FRAME_CHUNK_FIRST ((size_t)65536) /* the first chunk of frame-arena storage, whatever the capacity */
#define RT_FRAMES_MAX 4096 /* frames an entry may hold; a larger depth limit is E_UNSUPPORTED (IM-185) */

/* One live registration (6.1, M-10). The base address and the lease count are runtime
   representation only (M-2). */
typedef struct rt_slot {
    uint64_t id;
    uint64_t generation;
    cint_type type;
    int64_t extent;
    int64_t elem_size;
    uint32_t owner;   /* CINT_OWNER_RUNTIME or CINT_OWNER_BORROWED */
    uint32_t ceiling; /* CINT_VIEW_READ or CINT_VIEW_WRITE */
    uint32_t publish;
    uint32_t align;
    uint8_t *base;
    size_t bytes;
    size_t alloc;     /* bytes of the allocation at base (runtime-owned storage: >= bytes) */
    uint64_t leases;
} rt_slot;

typedef struct rt_lease {
    uint64_t number;
    uint64_t buffer;
} rt_lease;

/* An out or inout argument of the open dispatch, staged (RT-19). */
typedef struct rt_stage {
    uint32_t param;
    bool rename;        /* published by taking mem as the buffer's storage (no copy) */
    cint_gen_array own; /* the argument's own array, restored at the end */
    uint8_t *mem;       /* the staging block: bytes used, cap allocated */
    size_t bytes;
    size_t cap;
} rt_stage;

/* A staging block kept for the next dispatch (the staging cache). */
typedef struct rt_block {
    uint8_t *mem;
    size_t cap;
} rt_block;

#define RT_STAGE_CACHE 8  /* blocks the staging cache holds at most */
#define RT_STAGE_RECENT 4 /* dispatches whose staging totals bound the cache */

/* One chunk of frame-arena storage (ctx.c). */
typedef struct rt_frame_chunk {
    uint8_t *mem;
    size_t size, base; /* bytes (a multiple of 16), virtual start */
} rt_frame_chunk;

struct cint_ctx {
    atomic_int busy;
    cint_allocator allocator;
    const cint_program *program;
    const cint_module_info *module;
    cint_output_fn output;
    void *output_user;
    int64_t depth_limit;
    int64_t frame_arena_bytes;
    uint32_t max_buffers;

    /* registry (6.1), ordered by id */
    rt_slot *slots;
    uint32_t slot_count, slot_cap;
    uint64_t next_buffer;
    rt_lease *leases;
    size_t lease_count, lease_cap;
    uint64_t next_lease;

    /* counters of the canonical state (M-3) */
    uint64_t next_arena, next_pool, entries, effects;

    /* context-owned storage */
    uint8_t *globals;
    size_t globals_bytes;
    uint8_t **containers;
    size_t *container_bytes;
    struct rt_arena *arenas;   /* containers.c: module arenas, then child arenas, by increasing id */
    uint32_t arena_count;
    size_t arena_cap;
    struct rt_pool *pools;     /* the module pools by increasing id */
    uint32_t pool_count;

    /* outcomes */
    uint32_t refusal;
    cint_fault_record fault;   /* code 0: none held */
    cint_position *fault_stack;
    char *fault_name;          /* a restored record's kernel name (state.c), fault_name_cap bytes */
    size_t fault_name_cap;
    bool boundary;             /* the held record is a boundary record (host.resource) */
    const cint_error_set *error_set;
    uint64_t error_tag;
    int64_t fuel_budget;       /* the allowance of the running entry, CINT_FUEL_UNBOUNDED for none */
    cint_gen_fuel fuel;        /* consumed and its limit (the budget, or INT64_MAX without one) */
    uint32_t isa;              /* CINT_GEN_ISA_* of this CPU (cint_gen_isa) */

    /* the running entry */
    bool in_entry, entry_faulted;
    int64_t depth;
    cint_position *stack; /* call sites of active calls: depth - 1 of them, then stack_site more */
    int64_t stack_site;   /* 1 while a dispatch from cint code is past its entry phase: its site is
                             stack[depth - 1], before the calls inside its work-items (decision 3) */
    uint32_t frames;      /* capacity of stack and fault_stack */
    int64_t dispatch_next;

    /* the open dispatch */
    bool dispatching;
    const cint_gen_kernel *kernel;
    int64_t dispatch_number;
    uint32_t phase;
    bool dispatch_host;   /* issued by a host call (the wrapper of a kernel export) */
    cint_gen_array *dispatch_arrays;
    rt_stage *stages;     /* stage_cap entries, kept between dispatches */
    uint32_t stage_count;
    size_t stage_cap;

    /* the staging cache: blocks released by earlier dispatches, oldest first, at most the
       largest staging total of the last RT_STAGE_RECENT dispatches in all (cache_bytes),
       allocated through the context's allocator and freed by cint_ctx_destroy */
    rt_block cache[RT_STAGE_CACHE];
    uint32_t cache_count;
    size_t cache_bytes;
    size_t stage_recent[RT_STAGE_RECENT];
    uint32_t stage_recent_next;

    /* copy report of the last entry */
    cint_copy *copies;
    size_t copy_count, copy_cap;

    /* the print statement being formed */
    uint8_t *print_buf;
    size_t print_len, print_cap;

    /* frame arena (LS-110): the charge in elements (frame_elems of frame_elems_cap, released by
       the generated code at block exits), and its native storage in bytes: chunks that never move,
       addressed by one virtual offset (frame_used, a mark) over their concatenation. The current
       chunk is frame (its memory), frame_base (its virtual start) and frame_end (frame_base + its
       size); the chunks after it hold nothing live. */
    int64_t frame_elems, frame_elems_cap;
    uint8_t *frame;
    size_t frame_used, frame_base, frame_end;
    rt_frame_chunk *frame_chunks;
    uint32_t frame_chunk_count, frame_chunk_cur, frame_chunk_cap;
};

/* ctx.c */
void *rt_alloc(cint_ctx *ctx, size_t size);        /* aligned to 16, not zeroed */
void *rt_alloc_zero(cint_ctx *ctx, size_t size);
/* memset(p, 0, n) as a call to the C library (ctx.c): the entry path zeroes a few structures of 100
   to 700 bytes per call, which GCC expands inline as `rep stos` (10 to 20 ns each on some x86-64
   parts, against 3 to 5 for the library's vector stores). */
void rt_zero(void *p, size_t n);
void rt_free(cint_ctx *ctx, void *p, size_t size);
bool rt_acquire(const cint_ctx *ctx);               /* the busy flag */
void rt_release(const cint_ctx *ctx);
/* Grows *items (each item_size bytes) to hold at least need; false when out of room. */
bool rt_grow(cint_ctx *ctx, void **items, size_t *cap, size_t need, size_t item_size);
/* The staging cache. take: a block of at least bytes (its size in *cap, contents
   unspecified), from the cache when one fits closely, else fresh (the cache is emptied and
   the allocation tried again when the allocator has no room); NULL when out of room. give:
   the block joins the cache (the oldest block leaves when it is full). note: the staging
   total of a dispatch, which bounds the cache. trim: frees blocks until the cache holds at
   most the largest total of the last RT_STAGE_RECENT dispatches, first a block above that
   bound, then the smallest. clear: frees all. */
uint8_t *rt_stage_take(cint_ctx *ctx, size_t bytes, size_t *cap);
void rt_stage_give(cint_ctx *ctx, uint8_t *mem, size_t cap);
void rt_stage_note(cint_ctx *ctx, size_t total);
void rt_stage_trim(cint_ctx *ctx);
void rt_stage_clear(cint_ctx *ctx);

/* types.c */
int64_t rt_elem_size(const cint_ctx *ctx, const cint_type *t, uint32_t *align); /* 0: not an element type */
bool rt_record_bools_ok(const cint_ctx *ctx, uint32_t record_id, const uint8_t *p, unsigned depth);
bool rt_type_equal(const cint_type *a, const cint_type *b);
const char *rt_type_suffix(uint32_t tag); /* bool, i8 .. i1024, u8 .. u64, struct */
unsigned rt_int_width(uint32_t tag);      /* bits of I8 .. U64 */
bool rt_int_signed(uint32_t tag);

/* registry.c */
rt_slot *rt_find(cint_ctx *ctx, uint64_t id);
/* Forms a host view into a bound array (7.1 paragraph 3): 0, or the refusal reason.
   check_bools: also refuse Bool elements other than 0 and 1. */
uint32_t rt_form_view(cint_ctx *ctx, const cint_view *v, bool check_bools, cint_gen_array *out, rt_slot **slot);
/* Row-major copies between a bound array and compact storage: one memcpy per contiguous run. */
void rt_gather(const cint_gen_array *a, uint8_t *dst);
void rt_scatter(const cint_gen_array *a, const uint8_t *src);
int64_t rt_count(const cint_gen_array *a); /* elements */

/* The elements of a bound array in row-major order of their indices, as runs: each run is len
   elements step elements apart (step 1: contiguous), starting at the address rt_runs_next
   gives. A row-major array whose dimensions are contiguous (lower bounds aside) is one run. */
typedef struct rt_runs {
    const cint_gen_array *a;
    uint32_t outer; /* dimensions walked one index at a time */
    int64_t len;
    int64_t step;
    int64_t left;   /* runs not yet given */
    int64_t idx[4];
} rt_runs;
void rt_runs_begin(rt_runs *r, const cint_gen_array *a);
bool rt_runs_next(rt_runs *r, uint8_t **first);

/* containers.c: an arena (root: its module arena's container index; parent: the parent's index, or
   UINT32_MAX; base: its first element in the root's storage; offset: a child's first element in its
   parent's elements, as the arena block holds it) and a pool (slot tables of capacity). */
typedef struct rt_arena {
    uint64_t id;
    uint32_t root, parent;
    int64_t base, capacity, used, esize, offset;
    uint64_t generation;
    uint8_t retired, mark;
} rt_arena;
typedef struct rt_pool {
    uint64_t id;
    uint32_t k;
    int64_t capacity, esize, slots, retired, free_count;
    uint64_t *gen;
    uint8_t *occ;
    uint64_t *free;
} rt_pool;
int64_t rt_container_elem_size(const cint_ctx *ctx, const cint_type *t); /* 0: not an element type */
bool rt_containers_init(cint_ctx *ctx);  /* after the storage is allocated; false: out of room */
void rt_containers_free(cint_ctx *ctx);
void rt_pool_free_slots(cint_ctx *ctx, rt_pool *q);  /* a pool row's gen, occ and free arrays */

/* fault.c */
/* Writes the record of f at at (the first fault of the entry only). */
void rt_raise(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_fault *f);
/* The boundary record host.resource at at; the entry ends with CINT_RESOURCE. */
int rt_resource(cint_ctx *ctx, const cint_gen_at *at);
/* The canonical bytes of the held record (cint_fault_get's, without the busy flag): writes
   min(cap, length) bytes and returns the length, 0 when no fault is held. */
size_t rt_fault_bytes(const cint_ctx *ctx, uint8_t *buf, size_t cap);
/* Minimal Z bytes of a little-endian two's complement string: the new length. */
uint32_t rt_z_minimal(const uint8_t *bytes, uint32_t len);

/* entry.c */
/* The entry checks of 7.1 paragraph 11 over params, binding sizes. host: a host call
   (bind.stale and bind.limit apply), kernel: a dispatch (bind.limit applies). */
int rt_bind_checks(cint_ctx *ctx, const cint_gen_at *at, const cint_gen_param *params, uint32_t count,
                   cint_gen_array *arrays, int64_t *sizes, uint32_t size_count, bool host, bool kernel);

#endif
