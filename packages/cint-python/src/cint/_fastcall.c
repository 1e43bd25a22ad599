/* cint._fastcall: the hot call path of an export (SPEC-03P.1 8.1 paragraph 8, 8.5).
 *
 * Two types:
 *
 *  - Gate: the "one call at a time" flag of a Context (ctx._lock). It has the methods of a
 *    threading.Lock that cint uses (acquire(blocking, timeout), release(), locked(), with) and
 *    also holds the context handle, which Context.close() clears with detach(). The Python call
 *    path and the C call path take the same Gate, so a second call on a running context is
 *    refused whichever path either call took.
 *
 *  - Caller: one export reached from one context, built once from a plan that _module.py
 *    computes from the export's reflection row. Calling it binds the arguments (positional,
 *    written arrays by name, fuel=), does the exact scalar checks of 8.5 P-21..P-23, borrows a
 *    bare buffer-protocol object for an in array for the duration of the call (8.2 P-3..P-8,
 *    registered from its lowest byte with the origin of element 0, A-8a), takes the
 *    registration of a View or Buffer from its _fast(ctx) method, releases the GIL around the
 *    wrapper, and converts a completed result (ints exact, Bool to bool).
 *
 *    Whatever it does not handle goes to the Python path (the _Entry it was built from) with
 *    the same arguments: every refusal of an argument, a first use of a View or Buffer in the
 *    context (its registration is made there, after every check, P-20), a busy context, a
 *    closed context, and a call the runtime refused (nothing ran). So exceptions and their
 *    messages are those of the Python path. A status other than CINT_OK, and an error result,
 *    are handed to the entry's _c_outcome(status, result bytes), which raises as the Python
 *    path does.
 *
 * The wrapper is reached through the library's cintx_invoke (`cint build --lib --with-state`,
 * docs/runtime.md), an exactly-typed C function: cintx_invoke(ctx, export index, fuel, args,
 * result), where args[k] points at the k-th argument's value (a scalar of the parameter's exact
 * C type, or a cint_view); it calls the wrapper with the wrapper's own prototype. A library
 * without cintx_invoke (a plain `--lib` library loaded by path) keeps the ctypes path
 * (_module.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "cint_rt.h"

#define MAXP 32                     /* parameters a Caller takes */
#define RESULT_BYTES 32             /* the largest result structure a Caller reads */

typedef uint64_t u64;

/* sizeof(cint_view), read at run time: GCC expands a memset or memcpy of a known 144 bytes inline
   as `rep stos` / `rep movs`, several times slower on some x86-64 parts (AMD EPYC: 13 ns against 4)
   than the C library's vector stores that a call of unknown size reaches. */
static volatile size_t view_bytes = sizeof(cint_view);

/* x / size for an element size of 1, 2, 4 or 8 and an x that it divides: no division instruction */
static int64_t div_size(int64_t x, Py_ssize_t size)
{
    switch (size) {
    case 1: return x;
    case 2: return x / 2;
    case 4: return x / 4;
    default: return x / 8;
    }
}
typedef int32_t (*invoke_fn)(cint_ctx *, uint32_t, int64_t, void *const *, void *);
typedef cint_status (*register_fn)(cint_ctx *, cint_type, void *, int64_t, uint32_t, uint32_t, cint_buffer_id *,
                                   uint64_t *);
typedef cint_status (*release_fn)(cint_ctx *, cint_buffer_id);
typedef cint_status (*reserve_fn)(cint_ctx *, uint32_t);

static PyObject *s_fuel, *s_fast, *s_last, *s_published, *s_numpy, *s_released, *s_exports, *s_epoch;

/* ------------------------------------------------------------------------------------------ */
/* Gate                                                                                         */

typedef struct {
    PyObject_HEAD
    atomic_int locked;
    void *handle;
} Gate;

static int gate_try(Gate *g)
{
    int expected = 0;
    return atomic_compare_exchange_strong(&g->locked, &expected, 1);
}

static void gate_open(Gate *g) { atomic_store(&g->locked, 0); }

static PyObject *Gate_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Gate *g = (Gate *)type->tp_alloc(type, 0);
    if (g) {
        atomic_init(&g->locked, 0);
        g->handle = NULL;
    }
    return (PyObject *)g;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static PyObject *Gate_acquire(Gate *g, PyObject *args, PyObject *kw)
{
    static char *names[] = {"blocking", "timeout", NULL};
    int blocking = 1;
    double timeout = -1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pd:acquire", names, &blocking, &timeout))
        return NULL;
    if (!blocking && timeout != -1.0) {
        PyErr_SetString(PyExc_ValueError, "can't specify a timeout for a non-blocking call");
        return NULL;
    }
    if (timeout < 0 && timeout != -1.0) {
        PyErr_SetString(PyExc_ValueError, "timeout value must be a non-negative number");
        return NULL;
    }
    if (gate_try(g))
        Py_RETURN_TRUE;
    if (!blocking)
        Py_RETURN_FALSE;
    double end = timeout < 0 ? -1.0 : now_s() + timeout;
    for (;;) {
        Py_BEGIN_ALLOW_THREADS
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
        Py_END_ALLOW_THREADS
        if (gate_try(g))
            Py_RETURN_TRUE;
        if (PyErr_CheckSignals() < 0)
            return NULL;
        if (end >= 0 && now_s() >= end)
            Py_RETURN_FALSE;
    }
}

static PyObject *Gate_release(Gate *g, PyObject *unused)
{
    int expected = 1;
    if (!atomic_compare_exchange_strong(&g->locked, &expected, 0)) {
        PyErr_SetString(PyExc_RuntimeError, "release unlocked lock");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Gate_locked(Gate *g, PyObject *unused) { return PyBool_FromLong(atomic_load(&g->locked)); }

static PyObject *Gate_enter(Gate *g, PyObject *unused)
{
    PyObject *empty = PyTuple_New(0);
    if (!empty)
        return NULL;
    PyObject *r = Gate_acquire(g, empty, NULL);
    Py_DECREF(empty);
    return r;
}

static PyObject *Gate_exit(Gate *g, PyObject *args) { return Gate_release(g, NULL); }

static PyObject *Gate_attach(Gate *g, PyObject *arg)
{
    void *p = PyLong_AsVoidPtr(arg);
    if (p == NULL && PyErr_Occurred())
        return NULL;
    g->handle = p;
    Py_RETURN_NONE;
}

static PyObject *Gate_detach(Gate *g, PyObject *unused)
{
    g->handle = NULL;
    Py_RETURN_NONE;
}

static PyObject *Gate_get_handle(Gate *g, void *closure)
{
    if (g->handle == NULL)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(g->handle);
}

static PyMethodDef Gate_methods[] = {
    {"acquire", (PyCFunction)(void (*)(void))Gate_acquire, METH_VARARGS | METH_KEYWORDS,
     "acquire(blocking=True, timeout=-1): take the gate, as threading.Lock.acquire"},
    {"release", (PyCFunction)Gate_release, METH_NOARGS, "release(): open the gate"},
    {"locked", (PyCFunction)Gate_locked, METH_NOARGS, "locked(): whether a call holds the gate"},
    {"__enter__", (PyCFunction)Gate_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Gate_exit, METH_VARARGS, NULL},
    {"attach", (PyCFunction)Gate_attach, METH_O, "attach(address): the context handle the C path uses"},
    {"detach", (PyCFunction)Gate_detach, METH_NOARGS, "detach(): the context is closed; calls take the Python path"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Gate_getset[] = {
    {"handle", (getter)Gate_get_handle, NULL, "the context handle, or None once detached", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cint._fastcall.Gate",
    .tp_basicsize = sizeof(Gate),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The one-call-at-a-time gate of a cint Context (a threading.Lock look-alike).",
    .tp_new = Gate_new,
    .tp_methods = Gate_methods,
    .tp_getset = Gate_getset,
};

/* ------------------------------------------------------------------------------------------ */
/* Caller                                                                                       */

enum { P_INT = 0, P_BOOL = 1, P_ARRAY = 2 };
enum { R_NONE = 0, R_INT = 1, R_BOOL = 2, R_UNION = 3, R_SET = 4 };

typedef struct {
    uint8_t kind, is_signed, bits, written;
    uint16_t elemcode;
    uint8_t rank, pad;
    PyObject *np_types;             /* tuple of numpy scalar types this parameter takes */
    PyObject *held;                 /* a weak reference to the View or Buffer of the last call, or NULL */
    cint_view view;                 /* its view, as _fast(ctx) gave it */
    long long epoch;                /* the context's restore epoch (ctx._epoch) when it was kept */
} Param;

typedef struct {
    uint8_t kind, tag_signed, tag_bits, val_kind, val_signed, val_bits;
    uint16_t val_off;
} Result;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *ctx, *gate, *entry, *outcome, *last, *names, *view_type, *buffer_type, *ndarray, *weakrefs;
    invoke_fn invoke;               /* the library's cintx_invoke */
    uint32_t index;                 /* the export's row of the reflection table */
    register_fn reg;
    release_fn rel;
    reserve_fn reserve;             /* the library's cint_gen_registry_reserve: room for every bare borrow first */
    int64_t fuel;
    int kernel, np;
    int ctx_dict;                   /* ctx._epoch and ctx._last live in ctx's instance dict (attr_get) */
    int arr_dict;                   /* so do _released of a View or Buffer and _published of a Buffer */
    Result res;
    unsigned char *resbuf;          /* RESULT_BYTES of allocated storage the wrapper writes its result to */
    Param p[MAXP];
} Caller;

/* The storage of a scalar argument: args[k] points at the member of the parameter's exact type. */
typedef union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
} scalar_slot;

static int Caller_traverse(Caller *c, visitproc visit, void *arg)
{
    Py_VISIT(c->ctx);
    Py_VISIT(c->gate);
    Py_VISIT(c->entry);
    Py_VISIT(c->outcome);
    Py_VISIT(c->last);
    Py_VISIT(c->names);
    Py_VISIT(c->view_type);
    Py_VISIT(c->buffer_type);
    Py_VISIT(c->ndarray);
    for (int i = 0; i < c->np; i++) {
        Py_VISIT(c->p[i].np_types);
        Py_VISIT(c->p[i].held);
    }
    return 0;
}

static int Caller_clear(Caller *c)
{
    Py_CLEAR(c->ctx);
    Py_CLEAR(c->gate);
    Py_CLEAR(c->entry);
    Py_CLEAR(c->outcome);
    Py_CLEAR(c->last);
    Py_CLEAR(c->names);
    Py_CLEAR(c->view_type);
    Py_CLEAR(c->buffer_type);
    Py_CLEAR(c->ndarray);
    for (int i = 0; i < c->np; i++) {
        Py_CLEAR(c->p[i].np_types);
        Py_CLEAR(c->p[i].held);
    }
    return 0;
}

static void Caller_dealloc(Caller *c)
{
    PyObject_GC_UnTrack(c);
    if (c->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)c);
    Caller_clear(c);
    PyMem_Free(c->resbuf);
    c->resbuf = NULL;
    Py_TYPE(c)->tp_free((PyObject *)c);
}

/* The Python path with the arguments as given. */
static PyObject *fallback(Caller *c, PyObject *const *args, size_t nargs, PyObject *kwnames)
{
    return PyObject_Vectorcall(c->entry, args, nargs, kwnames);
}

/* An int of the parameter's type: 1 with *out, 0 when the Python path decides. */
static int long_value(PyObject *v, int is_signed, int bits, u64 *out)
{
    if (is_signed) {
        int ovf = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &ovf);
        if (ovf || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        if (bits < 64) {
            long long hi = (long long)((1ull << (bits - 1)) - 1);
            if (x > hi || x < -hi - 1)
                return 0;
        }
        *out = (u64)x;
        return 1;
    }
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (bits < 64 && x > (1ull << bits) - 1)
        return 0;
    *out = (u64)x;
    return 1;
}

static int in_types(PyObject *v, PyObject *types)
{
    if (types == NULL)
        return 0;
    PyTypeObject *t = Py_TYPE(v);
    Py_ssize_t n = PyTuple_GET_SIZE(types);
    for (Py_ssize_t k = 0; k < n; k++)
        if ((PyObject *)t == PyTuple_GET_ITEM(types, k))
            return 1;
    return 0;
}

/* A scalar argument (8.5 P-21..P-23): 1 with *out, 0 when the Python path decides, -1 error. */
static int scalar_arg(const Param *p, PyObject *v, u64 *out)
{
    if (p->kind == P_BOOL) {
        if (v == Py_True) {
            *out = 1;
            return 1;
        }
        if (v == Py_False) {
            *out = 0;
            return 1;
        }
        if (in_types(v, p->np_types)) {
            int b = PyObject_IsTrue(v);
            if (b < 0)
                return -1;
            *out = (u64)b;
            return 1;
        }
        return 0;
    }
    if (PyLong_CheckExact(v))
        return long_value(v, p->is_signed, p->bits, out);
    if (in_types(v, p->np_types)) {
        PyObject *i = PyNumber_Index(v);
        if (i == NULL) {
            PyErr_Clear();
            return 0;
        }
        int r = long_value(i, p->is_signed, p->bits, out);
        Py_DECREF(i);
        return r;
    }
    return 0;   /* bool, an int subclass, float, Decimal, anything else: the Python path */
}

/* The element code of a buffer-protocol format and item size (8.2 P-3), or 0. */
static uint16_t format_elem(const char *fmt, Py_ssize_t size)
{
    if (fmt == NULL)
        fmt = "B";
    if (fmt[0] == '@' || fmt[0] == '=' || fmt[0] == '<')
        fmt++;
    if (fmt[0] == 0 || fmt[1] != 0)
        return 0;
    const char c = fmt[0];
    if (c == '?')
        return size == 1 ? CINT_TAG_BOOL : 0;
    int is_signed;
    if (strchr("bhilqn", c))
        is_signed = 1;
    else if (strchr("BHILQN", c))
        is_signed = 0;
    else
        return 0;
    switch (size) {
    case 1: return is_signed ? CINT_TAG_I8 : CINT_TAG_U8;
    case 2: return is_signed ? CINT_TAG_I16 : CINT_TAG_U16;
    case 4: return is_signed ? CINT_TAG_I32 : CINT_TAG_U32;
    case 8: return is_signed ? CINT_TAG_I64 : CINT_TAG_U64;
    default: return 0;
    }
}

/* Whether every Bool element of a view (first element at first, strides in elements of one byte) is 0 or 1
   (8.2 P-3): the runtime refuses any other byte after the registration, which would change the state. */
static int bool_bytes_ok(const uint8_t *first, int nd, const int64_t *shape, const int64_t *strides)
{
    int64_t idx[4] = {0, 0, 0, 0};
    for (;;) {
        int64_t off = 0;
        for (int k = 0; k < nd - 1; k++)
            off += idx[k] * strides[k];
        const uint8_t *row = first + off;
        const int64_t n = shape[nd - 1], s = strides[nd - 1];
        for (int64_t j = 0; j < n; j++)
            if (row[j * s] > 1u)
                return 0;
        int k = nd - 2;
        for (; k >= 0; k--) {
            if (++idx[k] < shape[k])
                break;
            idx[k] = 0;
        }
        if (k < 0)
            return 1;
    }
}

/* A bare object borrowed for the call: the checks of View with its defaults (8.2 P-3..P-8,
   layout "any", read-only); 1 with the view (buffer and generation left for registration),
   the lowest address and the extent; 0 when the Python path decides (pb then released). */
static int bare_view(const Param *p, PyObject *v, Py_buffer *pb, cint_view *view, void **lowest, int64_t *extent)
{
    if (PyObject_GetBuffer(v, pb, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = pb->itemsize;
    uint16_t code = size > 0 ? format_elem(pb->format, size) : 0;
    int nd = pb->ndim;
    if (pb->suboffsets != NULL || code == 0 || code != p->elemcode || nd < 1 || nd > 4 || nd != p->rank)
        goto refuse;
    int64_t shape[4], strides[4];
    for (int k = 0; k < nd; k++)
        shape[k] = pb->shape[k];
    if (pb->strides != NULL) {
        for (int k = 0; k < nd; k++)
            strides[k] = pb->strides[k];
    } else {
        int64_t acc = size;
        for (int k = nd - 1; k >= 0; k--) {
            strides[k] = acc;
            if (__builtin_mul_overflow(acc, shape[k], &acc))
                goto refuse;
        }
    }
    for (int k = 0; k < nd; k++) {
        if ((strides[k] & (int64_t)(size - 1)) != 0)     /* size: 1, 2, 4 or 8 (format_elem) */
            goto refuse;
        strides[k] = div_size(strides[k], size);
    }
    uintptr_t base = (uintptr_t)pb->buf;
    if ((base & (uintptr_t)(size - 1)) != 0)
        goto refuse;
    int empty = 0;
    for (int k = 0; k < nd; k++) {
        if (shape[k] < 0)
            goto refuse;
        if (shape[k] == 0)
            empty = 1;
    }
    int64_t low = 0, high = 0, lowb = 0, ext = 0;
    if (!empty) {
        for (int k = 0; k < nd; k++) {
            int64_t span;
            if (__builtin_mul_overflow(shape[k] - 1, strides[k], &span) ||
                __builtin_add_overflow(strides[k] < 0 ? low : high, span, strides[k] < 0 ? &low : &high))
                goto refuse;
        }
        if (__builtin_sub_overflow(high, low, &ext) || __builtin_add_overflow(ext, 1, &ext) ||
            __builtin_mul_overflow(low, (int64_t)size, &lowb))
            goto refuse;
    }
    if (!empty && (uintptr_t)0 - (uintptr_t)lowb > base)
        goto refuse;    /* the lowest byte would be below address 0: the Python path refuses it */
    if (code == CINT_TAG_BOOL && !empty && !bool_bytes_ok((const uint8_t *)pb->buf, nd, shape, strides))
        goto refuse;    /* refused before any registration (7.1 paragraph 3): the Python path says why */
    memset(view, 0, view_bytes);
    view->type.code = code;
    view->rank = (uint8_t)nd;
    view->perm = CINT_VIEW_READ;
    for (int k = 0; k < nd; k++) {
        view->shape[k] = shape[k];
        view->stride[k] = strides[k];
    }
    if (empty) {
        view->origin = 0;
        *extent = 0;
        *lowest = pb->buf;
    } else {
        view->origin = -low;
        *extent = ext;
        *lowest = (void *)((uintptr_t)pb->buf + (uintptr_t)lowb);   /* lowb <= 0: the lowest byte */
    }
    return 1;
refuse:
    PyBuffer_Release(pb);
    return 0;
}

static int64_t as_i64(PyObject *o, int *ok)
{
    int ovf = 0;
    long long x = PyLong_Check(o) ? PyLong_AsLongLongAndOverflow(o, &ovf) : -1;
    if (!PyLong_Check(o) || ovf || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        *ok = 0;
    }
    return x;
}

/* v.name (a new reference), or NULL with no error set when v has none. With in_dict, read from
   v's instance dict: Caller_new sets it when the class of v has no attribute of that name (so
   getattr would find the instance dict's entry), which skips the lookup through the class. */
static PyObject *attr_get(PyObject *v, PyObject *name, int in_dict)
{
    PyObject *a;
    if (in_dict) {
        PyObject *d = PyObject_GenericGetDict(v, NULL);
        a = d ? PyDict_GetItemWithError(d, name) : NULL;
        Py_XINCREF(a);
        Py_XDECREF(d);
    } else {
        a = PyObject_GetAttr(v, name);
    }
    if (a == NULL)
        PyErr_Clear();
    return a;
}

/* v.name = value; with in_dict (as attr_get) through the instance dict, and only when it differs. */
static int attr_set(PyObject *v, PyObject *name, PyObject *value, int in_dict)
{
    if (!in_dict)
        return PyObject_SetAttr(v, name, value);
    PyObject *d = PyObject_GenericGetDict(v, NULL);
    if (d == NULL)
        return -1;
    PyObject *now = PyDict_GetItemWithError(d, name);
    int r = now == value ? 0 : (now == NULL && PyErr_Occurred()) ? -1 : PyDict_SetItem(d, name, value);
    Py_DECREF(d);
    return r;
}

/* Whether the attribute name of v is false (0 or False): 1, 0, or 0 with no error set when v
   has no such attribute. */
static int attr_false(PyObject *v, PyObject *name, int in_dict)
{
    PyObject *a = attr_get(v, name, in_dict);
    if (a == NULL)
        return 0;
    int r = a == Py_False || (PyLong_CheckExact(a) && PyLong_AsLong(a) == 0);
    Py_DECREF(a);
    return r;
}

/* The restore epoch of the context (ctx._epoch; 0 without one), read once per call into *epoch
   (-1: not read yet). A restore ends every registration (M-11a), so a kept view of an older
   epoch is not used. */
static long long ctx_epoch(Caller *c, long long *epoch)
{
    if (*epoch < 0) {
        PyObject *e = attr_get(c->ctx, s_epoch, c->ctx_dict);
        long long v = 0;
        if (e != NULL) {
            v = PyLong_Check(e) ? PyLong_AsLongLong(e) : -2;
            if (v == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                v = -2;
            }
            Py_DECREF(e);
        }
        *epoch = v < 0 ? LLONG_MAX : v;
    }
    return *epoch;
}

/* A View's or Buffer's registration with this context from its _fast(ctx):
   (buffer id, generation, type code, shape, strides, origin), or None; 1 with *view, 0 when
   the Python path decides (a first use, a release, another element or rank), -1 error.
   The view of the last object of each parameter is kept with a weak reference to it, and used
   again while the object is not released (and, for an output Buffer, has no live export); a
   registration that the runtime no longer knows is refused by it (ids are never reused), and
   the Python path then takes the call (Caller_vectorcall forgets every kept view). */
static int held_view(Caller *c, Param *p, PyObject *v, cint_view *view, long long *epoch)
{
    if (p->held != NULL && PyWeakref_GET_OBJECT(p->held) == v && p->epoch == ctx_epoch(c, epoch)) {
        if (!attr_false(v, s_released, c->arr_dict))
            return 0;
        if (p->written && (PyObject *)Py_TYPE(v) == c->buffer_type && !attr_false(v, s_exports, 0))
            return 0;
        memcpy(view, &p->view, view_bytes);
        return 1;
    }
    if (p->written && (PyObject *)Py_TYPE(v) == c->buffer_type && !attr_false(v, s_exports, 0))
        return 0;
    PyObject *t = PyObject_CallMethodOneArg(v, s_fast, c->ctx);
    if (t == NULL) {
        PyErr_Clear();
        return 0;
    }
    int r = 0, ok = 1;
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 6)
        goto done;
    PyObject *shape = PyTuple_GET_ITEM(t, 3), *strides = PyTuple_GET_ITEM(t, 4);
    if (!PyTuple_Check(shape) || !PyTuple_Check(strides) || PyTuple_GET_SIZE(shape) != p->rank ||
        PyTuple_GET_SIZE(strides) != p->rank)
        goto done;
    PyObject *code = PyTuple_GET_ITEM(t, 2);
    if (!PyLong_Check(code) || as_i64(code, &ok) != p->elemcode || !ok)
        goto done;
    memset(view, 0, sizeof *view);
    PyObject *bid = PyTuple_GET_ITEM(t, 0), *gen = PyTuple_GET_ITEM(t, 1);
    if (!PyLong_Check(bid) || !PyLong_Check(gen))
        goto done;
    view->buffer = PyLong_AsUnsignedLongLong(bid);
    view->generation = PyLong_AsUnsignedLongLong(gen);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        goto done;
    }
    view->type.code = p->elemcode;
    view->rank = p->rank;
    view->perm = p->written ? CINT_VIEW_WRITE : CINT_VIEW_READ;
    view->origin = as_i64(PyTuple_GET_ITEM(t, 5), &ok);
    for (int k = 0; k < p->rank; k++) {
        view->shape[k] = as_i64(PyTuple_GET_ITEM(shape, k), &ok);
        view->stride[k] = as_i64(PyTuple_GET_ITEM(strides, k), &ok);
    }
    r = ok;
    if (ok) {
        PyObject *ref = PyWeakref_NewRef(v, NULL);
        if (ref == NULL)
            PyErr_Clear();
        Py_XSETREF(p->held, ref);
        p->view = *view;
        p->epoch = ctx_epoch(c, epoch);
    }
done:
    Py_DECREF(t);
    return r;
}

static PyObject *read_int(const unsigned char *at, int is_signed, int bits)
{
    if (is_signed) {
        int64_t x;
        switch (bits) {
        case 8: { int8_t y; memcpy(&y, at, 1); x = y; break; }
        case 16: { int16_t y; memcpy(&y, at, 2); x = y; break; }
        case 32: { int32_t y; memcpy(&y, at, 4); x = y; break; }
        default: memcpy(&x, at, 8); break;
        }
        return PyLong_FromLongLong(x);
    }
    uint64_t x;
    switch (bits) {
    case 8: { uint8_t y; memcpy(&y, at, 1); x = y; break; }
    case 16: { uint16_t y; memcpy(&y, at, 2); x = y; break; }
    case 32: { uint32_t y; memcpy(&y, at, 4); x = y; break; }
    default: memcpy(&x, at, 8); break;
    }
    return PyLong_FromUnsignedLongLong(x);
}

static int is_nonzero(const unsigned char *at, int bits)
{
    for (int k = 0; k < bits / 8; k++)
        if (at[k])
            return 1;
    return 0;
}

/* Stores the checked scalar w (P_INT or P_BOOL) in slot as the parameter's exact C type; the
   address of that member. */
static void *put_scalar(const Param *p, scalar_slot *slot, u64 w)
{
    int64_t x;
    memcpy(&x, &w, sizeof x);   /* a signed value as scalar_arg made it: (u64) of an int64 */
    if (p->kind == P_BOOL) {
        slot->u8 = (uint8_t)w;
        return &slot->u8;
    }
    switch (p->bits) {
    case 8:
        if (p->is_signed) { slot->i8 = (int8_t)x; return &slot->i8; }
        slot->u8 = (uint8_t)w;
        return &slot->u8;
    case 16:
        if (p->is_signed) { slot->i16 = (int16_t)x; return &slot->i16; }
        slot->u16 = (uint16_t)w;
        return &slot->u16;
    case 32:
        if (p->is_signed) { slot->i32 = (int32_t)x; return &slot->i32; }
        slot->u32 = (uint32_t)w;
        return &slot->u32;
    default:
        if (p->is_signed) { slot->i64 = x; return &slot->i64; }
        slot->u64 = w;
        return &slot->u64;
    }
}

static PyObject *Caller_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Caller *c = (Caller *)self;
    const size_t nargs = PyVectorcall_NARGS(nargsf);
    Gate *gate = (Gate *)c->gate;
    if (gate->handle == NULL || nargs > (size_t)c->np)
        return fallback(c, args, nargs, kwnames);
    PyObject *vals[MAXP];
    for (int i = 0; i < c->np; i++)
        vals[i] = NULL;
    int64_t fuel = c->fuel;
    for (size_t i = 0; i < nargs; i++) {
        if (c->p[i].kind == P_ARRAY && c->p[i].written)
            return fallback(c, args, nargs, kwnames);
        vals[i] = args[i];
    }
    if (kwnames != NULL) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t j = 0; j < nk; j++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, j), *v = args[nargs + (size_t)j];
            int found = -1;
            if (key != s_fuel)      /* interned names first: no string comparison in the common case */
                for (int i = 0; i < c->np; i++)
                    if (PyTuple_GET_ITEM(c->names, i) == key) {
                        found = i;
                        break;
                    }
            if (found < 0 && (key == s_fuel || PyUnicode_Compare(key, s_fuel) == 0)) {
                if (v == Py_None) {
                    fuel = -1;
                    continue;
                }
                if (v == Py_Ellipsis)       /* fuel=...: the context's budget */
                    continue;
                int ovf = 0;
                long long f = PyLong_CheckExact(v) ? PyLong_AsLongLongAndOverflow(v, &ovf) : -2;
                if (ovf || f < -1) {
                    PyErr_Clear();
                    return fallback(c, args, nargs, kwnames);
                }
                fuel = f;
                continue;
            }
            if (found < 0)
                for (int i = 0; i < c->np; i++)
                    if (PyUnicode_Compare(PyTuple_GET_ITEM(c->names, i), key) == 0) {
                        found = i;
                        break;
                    }
            if (PyErr_Occurred())
                return NULL;
            if (found < 0 || vals[found] != NULL)
                return fallback(c, args, nargs, kwnames);
            vals[found] = v;
        }
    }
    for (int i = 0; i < c->np; i++)
        if (vals[i] == NULL)
            return fallback(c, args, nargs, kwnames);

    /* the checks of a refused call: nothing is registered before they all pass (P-20) */
    void *argp[MAXP];
    cint_view views[MAXP];          /* an array parameter's view (only those entries are written) */
    scalar_slot scal[MAXP];         /* a scalar parameter's value */
    Py_buffer pbs[MAXP];
    int bare[MAXP];
    void *lowest[MAXP];
    int64_t extent[MAXP];
    int nbare = 0, status = 0;   /* status: 0 fallback, -1 error */
    long long epoch = -1;
    for (int i = 0; i < c->np; i++) {
        Param *p = &c->p[i];
        PyObject *v = vals[i];
        if (p->kind != P_ARRAY) {
            u64 w;
            int s = scalar_arg(p, v, &w);
            if (s <= 0) {
                status = s;
                goto undo;
            }
            argp[i] = put_scalar(p, &scal[i], w);
            continue;
        }
        argp[i] = &views[i];
        PyTypeObject *t = Py_TYPE(v);
        if ((PyObject *)t == c->view_type || (PyObject *)t == c->buffer_type) {
            int s = held_view(c, p, v, &views[i], &epoch);
            if (s <= 0) {
                status = s;
                goto undo;
            }
            continue;
        }
        if (p->written)
            goto undo;
        int known = t == &PyBytes_Type || t == &PyByteArray_Type || t == &PyMemoryView_Type;
        if (!known && c->ndarray == NULL && strcmp(t->tp_name, "numpy.ndarray") == 0) {
            /* numpy was imported after this Caller was built: take numpy.ndarray from it */
            PyObject *mod = PyImport_GetModule(s_numpy);
            PyObject *nd = mod ? PyObject_GetAttrString(mod, "ndarray") : NULL;
            Py_XDECREF(mod);
            if (nd != NULL && (PyObject *)t == nd)
                c->ndarray = nd;
            else
                Py_XDECREF(nd);
            PyErr_Clear();
        }
        if (!known && c->ndarray != NULL && (PyObject *)t == c->ndarray)
            known = 1;
        if (!known)
            goto undo;
        if (!bare_view(p, v, &pbs[nbare], &views[i], &lowest[nbare], &extent[nbare]))
            goto undo;
        bare[nbare++] = i;
    }
    if (!gate_try(gate))
        goto undo;
    /* the handle is read under the gate: Python code that ran during the checks (a _fast method,
       a finalizer) may have closed the context */
    cint_ctx *h = (cint_ctx *)gate->handle;
    if (h == NULL) {
        gate_open(gate);
        goto undo;
    }

    /* register the bare borrows, call, release; room for all of them first, so that a call that cannot
       have them all registers none and uses no identifier (H-12, P-20): the Python path raises */
    if (nbare > 0 && c->reserve(h, (uint32_t)nbare) != CINT_OK) {
        gate_open(gate);
        goto undo;
    }
    cint_buffer_id bids[MAXP];
    int nreg = 0;
    for (int k = 0; k < nbare; k++) {
        cint_view *view = &views[bare[k]];
        uint64_t gen = 0;
        cint_status st = c->reg(h, view->type, lowest[k], extent[k], 0u, 0u, &bids[k], &gen);
        if (st != CINT_OK) {
            for (int j = 0; j < nreg; j++)
                c->rel(h, bids[j]);
            gate_open(gate);
            goto undo;
        }
        view->buffer = bids[k];
        view->generation = gen;
        nreg++;
    }
    unsigned char *res = c->resbuf;     /* this Caller's, under the gate */
    memset(res, 0, RESULT_BYTES);
    int32_t st;
    Py_BEGIN_ALLOW_THREADS
    st = c->invoke(h, c->index, fuel, argp, res);
    Py_END_ALLOW_THREADS

    PyObject *out = NULL;
    if (st == CINT_REFUSED) {
        /* nothing ran: the Python path makes the same call and raises as it does */
        for (int i = 0; i < c->np; i++)
            Py_CLEAR(c->p[i].held);
        for (int j = 0; j < nreg; j++)
            c->rel(h, bids[j]);
        for (int k = 0; k < nbare; k++)
            PyBuffer_Release(&pbs[k]);
        gate_open(gate);
        return fallback(c, args, nargs, kwnames);
    }
    if (attr_set(c->ctx, s_last, c->last, c->ctx_dict) < 0)
        goto finish;
    if (st == CINT_OK || (st == CINT_FAULT && !c->kernel)) {
        for (int i = 0; i < c->np; i++)
            if (c->p[i].kind == P_ARRAY && c->p[i].written && (PyObject *)Py_TYPE(vals[i]) == c->buffer_type)
                if (attr_set(vals[i], s_published, Py_True, c->arr_dict) < 0)
                    goto finish;
    }
    if (st == CINT_OK) {
        const Result *rs = &c->res;
        switch (rs->kind) {
        case R_NONE: out = Py_NewRef(Py_None); break;
        case R_INT: out = read_int(res, rs->val_signed, rs->val_bits); break;
        case R_BOOL: out = PyBool_FromLong(res[0] != 0); break;
        case R_UNION:
        case R_SET:
            if (is_nonzero(res, rs->tag_bits))
                break;
            if (rs->val_kind == R_INT)
                out = read_int(res + rs->val_off, rs->val_signed, rs->val_bits);
            else if (rs->val_kind == R_BOOL)
                out = PyBool_FromLong(res[rs->val_off] != 0);
            else
                out = Py_NewRef(Py_None);
            break;
        default: break;
        }
    }
    if (out == NULL && !PyErr_Occurred()) {
        /* a status other than CINT_OK, or an error result: the Python path raises */
        PyObject *stv = PyLong_FromLong(st);
        PyObject *raw = stv ? PyBytes_FromStringAndSize((const char *)res, RESULT_BYTES) : NULL;
        if (raw)
            out = PyObject_CallFunctionObjArgs(c->outcome, stv, raw, NULL);
        Py_XDECREF(stv);
        Py_XDECREF(raw);
    }
finish:
    for (int j = 0; j < nreg; j++)
        c->rel(h, bids[j]);
    for (int k = 0; k < nbare; k++)
        PyBuffer_Release(&pbs[k]);
    gate_open(gate);
    return out;

undo:
    for (int k = 0; k < nbare; k++)
        PyBuffer_Release(&pbs[k]);
    if (status < 0)
        return NULL;
    return fallback(c, args, nargs, kwnames);
}

static PyObject *Caller_call(PyObject *self, PyObject *args, PyObject *kw)
{
    return PyVectorcall_Call(self, args, kw);
}

static PyObject *Caller_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return PyObject_GetAttr(((Caller *)self)->entry, name);
    }
    return r;
}

static PyObject *Caller_repr(PyObject *self)
{
    return PyObject_Repr(((Caller *)self)->entry);
}

static int get_u8(PyObject *seq, Py_ssize_t k, int lo, int hi, uint8_t *out)
{
    PyObject *o = PyTuple_GET_ITEM(seq, k);
    long v = PyLong_Check(o) ? PyLong_AsLong(o) : -1000;
    if (v < lo || v > hi) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "plan item %zd is out of range", k);
        return -1;
    }
    *out = (uint8_t)v;
    return 0;
}

/* Caller(ctx, gate, entry, outcome, last, invoke, fuel, kernel, params, result, runtime, view_type,
          buffer_type, ndarray)
   invoke: (address of the library's cintx_invoke, the export's row of the reflection table)
   params: a tuple of (name, kind, signed, bits, written, elemcode, rank, numpy types)
   result: None or (kind, tag signed, tag bits, value kind, value signed, value bits, value offset)
   runtime: (address of cint_buffer_register_elements, address of cint_buffer_release, address of
             cint_gen_registry_reserve) */
static PyObject *Caller_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *ctx, *gate, *entry, *outcome, *last, *inv, *params, *result, *runtime, *vt, *bt, *nd;
    long long fuel;
    int kernel;
    if (!PyArg_ParseTuple(args, "OO!OOOOLpO!OO!OOO:Caller", &ctx, &GateType, &gate, &entry, &outcome, &last, &inv,
                          &fuel, &kernel, &PyTuple_Type, &params, &result, &PyTuple_Type, &runtime, &vt, &bt, &nd))
        return NULL;
    Py_ssize_t np = PyTuple_GET_SIZE(params);
    if (np > MAXP) {
        PyErr_Format(PyExc_ValueError, "an export of %zd parameters (the C path takes %d)", np, MAXP);
        return NULL;
    }
    Caller *c = (Caller *)type->tp_alloc(type, 0);
    if (c == NULL)
        return NULL;
    c->vectorcall = Caller_vectorcall;
    c->ctx = Py_NewRef(ctx);
    c->gate = Py_NewRef(gate);
    c->entry = Py_NewRef(entry);
    c->outcome = Py_NewRef(outcome);
    c->last = Py_NewRef(last);
    c->view_type = Py_NewRef(vt);
    c->buffer_type = Py_NewRef(bt);
    c->ndarray = nd == Py_None ? NULL : Py_NewRef(nd);
    c->fuel = fuel;
    c->kernel = kernel;
    /* plain instance attributes: instances have a dict, and the class has no attribute of the name
       (a property, a slot or a class default would be what getattr finds) */
    c->ctx_dict = Py_TYPE(ctx)->tp_dictoffset != 0 && !PyObject_HasAttr((PyObject *)Py_TYPE(ctx), s_epoch) &&
                  !PyObject_HasAttr((PyObject *)Py_TYPE(ctx), s_last);
    c->arr_dict = PyType_Check(vt) && PyType_Check(bt) && ((PyTypeObject *)vt)->tp_dictoffset != 0 &&
                  ((PyTypeObject *)bt)->tp_dictoffset != 0 && !PyObject_HasAttr(vt, s_released) &&
                  !PyObject_HasAttr(bt, s_released) && !PyObject_HasAttr(bt, s_published);
    c->np = 0;
    c->names = PyTuple_New(np);
    if (c->names == NULL)
        goto fail;
    c->resbuf = PyMem_Malloc(RESULT_BYTES);
    if (c->resbuf == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (!PyTuple_Check(inv) || PyTuple_GET_SIZE(inv) != 2 || !PyLong_Check(PyTuple_GET_ITEM(inv, 1)))
        goto bad;
    void *ia = PyLong_AsVoidPtr(PyTuple_GET_ITEM(inv, 0));
    unsigned long ix = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(inv, 1));
    if (PyErr_Occurred())
        goto fail;
    if (ia == NULL || ix > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "the cintx_invoke address is 0, or the export index is out of range");
        goto fail;
    }
    memcpy(&c->invoke, &ia, sizeof ia);
    c->index = (uint32_t)ix;
    if (PyTuple_GET_SIZE(runtime) != 3)
        goto bad;
    void *ra = PyLong_AsVoidPtr(PyTuple_GET_ITEM(runtime, 0)), *rb = PyLong_AsVoidPtr(PyTuple_GET_ITEM(runtime, 1));
    void *rc = PyLong_AsVoidPtr(PyTuple_GET_ITEM(runtime, 2));
    if (PyErr_Occurred())
        goto fail;
    if (ra == NULL || rb == NULL || rc == NULL)
        goto bad;
    /* object pointers to function pointers: the addresses come from the loaded library */
    memcpy(&c->reg, &ra, sizeof ra);
    memcpy(&c->rel, &rb, sizeof rb);
    memcpy(&c->reserve, &rc, sizeof rc);
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *row = PyTuple_GET_ITEM(params, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 8 || !PyUnicode_Check(PyTuple_GET_ITEM(row, 0)))
            goto bad;
        Param *p = &c->p[i];
        memset(p, 0, sizeof *p);
        PyObject *name = PyTuple_GET_ITEM(row, 0);
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        PyTuple_SET_ITEM(c->names, i, name);
        uint8_t code_lo;
        if (get_u8(row, 1, 0, 2, &p->kind) || get_u8(row, 2, 0, 1, &p->is_signed) || get_u8(row, 3, 0, 64, &p->bits) ||
            get_u8(row, 4, 0, 1, &p->written) || get_u8(row, 5, 0, 255, &code_lo) || get_u8(row, 6, 0, 4, &p->rank))
            goto fail;
        p->elemcode = code_lo;
        if (p->kind == P_INT && p->bits != 8 && p->bits != 16 && p->bits != 32 && p->bits != 64)
            goto bad;
        if (p->kind == P_ARRAY && (p->rank < 1 || p->elemcode == 0))
            goto bad;
        PyObject *npt = PyTuple_GET_ITEM(row, 7);
        if (npt != Py_None) {
            if (!PyTuple_Check(npt))
                goto bad;
            p->np_types = Py_NewRef(npt);
        }
        c->np = (int)i + 1;
    }
    memset(&c->res, 0, sizeof c->res);
    if (result != Py_None) {
        if (!PyTuple_Check(result) || PyTuple_GET_SIZE(result) != 7)
            goto bad;
        Result *rs = &c->res;
        uint8_t off;
        if (get_u8(result, 0, 1, 4, &rs->kind) || get_u8(result, 1, 0, 1, &rs->tag_signed) ||
            get_u8(result, 2, 0, 64, &rs->tag_bits) || get_u8(result, 3, 0, 2, &rs->val_kind) ||
            get_u8(result, 4, 0, 1, &rs->val_signed) || get_u8(result, 5, 0, 64, &rs->val_bits) ||
            get_u8(result, 6, 0, RESULT_BYTES - 8, &off))
            goto fail;
        rs->val_off = off;
    }
    return (PyObject *)c;   /* tp_alloc tracked it */
bad:
    PyErr_SetString(PyExc_ValueError, "a malformed Caller plan");
fail:
    Py_DECREF(c);
    return NULL;
}

static PyObject *Caller_get_python(Caller *c, void *closure) { return Py_NewRef(c->entry); }

/* help(ctx.f), pydoc and inspect.getdoc read the export's own docstring (its cint signature), kept by the
   _Entry: a data descriptor, so it is found on the instance before the type's tp_doc */
static PyObject *Caller_get_doc(Caller *c, void *closure) { return PyObject_GetAttrString(c->entry, "__doc__"); }

static PyGetSetDef Caller_getset[] = {
    {"_python", (getter)Caller_get_python, NULL, "the Python path of this export (its _Entry)", NULL},
    {"__doc__", (getter)Caller_get_doc, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CallerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cint._fastcall.Caller",
    .tp_basicsize = sizeof(Caller),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "One export of one context, called from C: ctx.<name>(*args, fuel=..., **written).",
    .tp_new = Caller_new,
    .tp_dealloc = (destructor)Caller_dealloc,
    .tp_traverse = (traverseproc)Caller_traverse,
    .tp_clear = (inquiry)Caller_clear,
    .tp_call = Caller_call,
    .tp_vectorcall_offset = offsetof(Caller, vectorcall),
    .tp_weaklistoffset = offsetof(Caller, weakrefs),
    .tp_getattro = Caller_getattro,
    .tp_repr = Caller_repr,
    .tp_getset = Caller_getset,
};

/* ------------------------------------------------------------------------------------------ */

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "cint._fastcall",
    "The hot call path of cint exports (see the comment at the top of _fastcall.c).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastcall(void)
{
    if (PyType_Ready(&GateType) < 0 || PyType_Ready(&CallerType) < 0)
        return NULL;
    s_fuel = PyUnicode_InternFromString("fuel");
    s_fast = PyUnicode_InternFromString("_fast");
    s_last = PyUnicode_InternFromString("_last");
    s_published = PyUnicode_InternFromString("_published");
    s_numpy = PyUnicode_InternFromString("numpy");
    s_released = PyUnicode_InternFromString("_released");
    s_exports = PyUnicode_InternFromString("_exports");
    s_epoch = PyUnicode_InternFromString("_epoch");
    if (!s_fuel || !s_fast || !s_last || !s_published || !s_numpy || !s_released || !s_exports || !s_epoch)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Gate", (PyObject *)&GateType) < 0 ||
        PyModule_AddObjectRef(m, "Caller", (PyObject *)&CallerType) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PARAMS", MAXP) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
