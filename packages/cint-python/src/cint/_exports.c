/* cint._exports: counted read-only exports of a cint.Buffer, and the DLPack capsules that the
 * package produces and consumes (SPEC-03P.1 6.3 P-18, 8.3 P-10..P-14).
 *
 * ExportBase is the C base type of cint.Buffer. It implements the buffer protocol (read-only
 * exports only) and __dlpack__ / __dlpack_device__, and counts every live export: a Py_buffer
 * from bf_getbuffer until bf_releasebuffer, a DLPack capsule from its creation until its
 * deleter runs. The memory itself comes from the Python side, which owns the policy:
 *
 *   self._export_open()       -> (address, token, format, itemsize, shape)
 *   self._export_close(token) -> None
 *
 * _export_open checks the Buffer (released: StaleHandle; never published: Unpublished) and
 * either leases runtime storage (cint_buffer_lease, the token holds the lease) or hands out
 * the package's own storage (the token keeps it alive); _export_close ends the lease. This
 * module never calls the runtime and links nothing.
 *
 * consume(capsule) takes a "dltensor_versioned" (or legacy "dltensor") capsule from a
 * producer, renames it "used_..." as the DLPack protocol asks, copies the tensor's description
 * into Python values and returns it with a Tensor handle whose close() calls the producer's
 * deleter exactly once (also when the handle dies). A capsule this module cannot read (an
 * unknown major version, an absurd ndim, a NULL shape) has its deleter called at once.
 *
 * The DLPack layouts below are written from the public DLPack header, version 1.0/1.1. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- DLPack 1.x layouts ------------------------------------------------------------------ */

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct {
    int32_t device_type; /* kDLCPU = 1 */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code; /* kDLInt 0, kDLUInt 1, kDLFloat 2, ..., kDLBool 6 */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means compact row-major */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define kDLCPU 1
#define kDLInt 0
#define kDLUInt 1
#define kDLBool 6
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

_Static_assert(sizeof(DLTensor) == 48, "DLTensor layout");
_Static_assert(sizeof(DLManagedTensor) == 64, "DLManagedTensor layout");
_Static_assert(offsetof(DLManagedTensorVersioned, flags) == 24, "DLManagedTensorVersioned layout");
_Static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32, "DLManagedTensorVersioned layout");

#define MAX_RANK 4          /* a Buffer has rank 1 to 4 (8.2 P-6) */
#define MAX_CONSUMED_NDIM 64 /* beyond this a producer's ndim is taken as absurd */

static const char NAME_V[] = "dltensor_versioned";
static const char NAME_V_USED[] = "used_dltensor_versioned";
static const char NAME_L[] = "dltensor";
static const char NAME_L_USED[] = "used_dltensor";

/* --- helpers -------------------------------------------------------------------------- */

/* A pending exception, saved across a call that may raise (PyErr_Fetch is deprecated in 3.12). */
typedef struct {
    PyObject *a, *b, *c;
} SavedExc;

static void exc_save(SavedExc *s) {
#if PY_VERSION_HEX >= 0x030C0000
    s->a = PyErr_GetRaisedException();
    s->b = s->c = NULL;
#else
    PyErr_Fetch(&s->a, &s->b, &s->c);
#endif
}

static void exc_restore(SavedExc *s) {
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(s->a);
#else
    PyErr_Restore(s->a, s->b, s->c);
#endif
}

/* Calls owner._export_close(token) with any pending exception saved and restored; an error of
   the call is reported as unraisable (a release cannot fail). */
static void call_export_close(PyObject *owner, PyObject *token) {
    SavedExc saved;
    exc_save(&saved);
    PyObject *name = PyUnicode_FromString("_export_close");
    PyObject *r = name ? PyObject_CallMethodOneArg(owner, name, token) : NULL;
    Py_XDECREF(name);
    if (r == NULL)
        PyErr_WriteUnraisable(owner);
    else
        Py_DECREF(r);
    exc_restore(&saved);
}

/* What _export_open returned, unpacked. */
typedef struct {
    void *addr;
    PyObject *token; /* new reference */
    char format[8];
    Py_ssize_t itemsize;
    int rank;
    Py_ssize_t shape[MAX_RANK];
    Py_ssize_t count;
} OpenExport;

/* Calls self._export_open() and checks its answer. On failure returns -1 with an exception
   set and nothing held (an opened export is closed again). */
static int open_export(PyObject *self, OpenExport *o) {
    PyObject *r = PyObject_CallMethod(self, "_export_open", NULL);
    if (r == NULL)
        return -1;
    PyObject *addr_o, *token, *fmt_o, *shape_o;
    Py_ssize_t itemsize;
    if (!PyTuple_Check(r) || !PyArg_ParseTuple(r, "OOUnO", &addr_o, &token, &fmt_o, &itemsize, &shape_o)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "cint: _export_open did not return a 5-tuple");
        Py_DECREF(r);
        return -1;
    }
    Py_INCREF(token);
    o->token = token;
    const char *fmt = PyUnicode_AsUTF8(fmt_o);
    o->addr = PyLong_AsVoidPtr(addr_o);
    int bad = fmt == NULL || PyErr_Occurred() != NULL;
    if (!bad && (strlen(fmt) >= sizeof o->format || itemsize <= 0 || !PyTuple_Check(shape_o) ||
                 PyTuple_GET_SIZE(shape_o) < 1 || PyTuple_GET_SIZE(shape_o) > MAX_RANK)) {
        PyErr_SetString(PyExc_SystemError, "cint: _export_open returned a layout out of range");
        bad = 1;
    }
    if (!bad) {
        strcpy(o->format, fmt);
        o->itemsize = itemsize;
        o->rank = (int)PyTuple_GET_SIZE(shape_o);
        o->count = 1;
        for (int k = 0; k < o->rank && !bad; k++) {
            Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape_o, k));
            if (n < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_SystemError, "cint: _export_open returned a negative extent");
                bad = 1;
                break;
            }
            o->shape[k] = n;
            if (n != 0 && o->count > PY_SSIZE_T_MAX / itemsize / n) {
                PyErr_SetString(PyExc_OverflowError, "cint: the Buffer is too large to export");
                bad = 1;
            }
            o->count *= n;
        }
    }
    Py_DECREF(r);
    if (bad) {
        call_export_close(self, o->token); /* keeps the pending exception */
        Py_CLEAR(o->token);
        return -1;
    }
    return 0;
}

/* --- ExportBase: the buffer protocol ------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    Py_ssize_t exports; /* live exports: Py_buffers and unreleased DLPack capsules */
} ExportBase;

typedef struct {
    Py_ssize_t shape[MAX_RANK];
    Py_ssize_t strides[MAX_RANK];
    char format[8];
    PyObject *token;
} BufInfo;

static int f_contiguous(const OpenExport *o) {
    if (o->count == 0)
        return 1;
    int big = 0;
    for (int k = 0; k < o->rank; k++)
        big += o->shape[k] > 1;
    return big <= 1;
}

static int eb_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
    ExportBase *self = (ExportBase *)obj;
    view->obj = NULL;
    if (flags & PyBUF_WRITABLE) {
        PyErr_SetString(PyExc_BufferError,
                        "a cint.Buffer offers only read-only exports (SPEC-03P.1 6.3, P-18): its contents change "
                        "only when a dispatch publishes them; pass it as an output of an entry to write it, or "
                        "copy it (numpy.array(buf)) for a writable array");
        return -1;
    }
    OpenExport o;
    if (open_export(obj, &o) < 0)
        return -1;
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f_contiguous(&o)) {
        PyErr_SetString(PyExc_BufferError, "a cint.Buffer is row-major (C-contiguous), not Fortran-contiguous");
        goto fail;
    }
    BufInfo *info = PyMem_Malloc(sizeof *info);
    if (info == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t acc = o.itemsize;
    for (int k = o.rank - 1; k >= 0; k--) {
        info->shape[k] = o.shape[k];
        info->strides[k] = acc;
        acc *= o.shape[k] ? o.shape[k] : 1;
    }
    memcpy(info->format, o.format, sizeof info->format);
    info->token = o.token; /* the reference passes to info */
    view->buf = o.addr;
    view->len = o.count * o.itemsize;
    view->itemsize = o.itemsize;
    view->readonly = 1;
    view->ndim = o.rank;
    view->format = (flags & PyBUF_FORMAT) ? info->format : NULL;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? info->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? info->strides : NULL;
    view->suboffsets = NULL;
    view->internal = info;
    view->obj = Py_NewRef(obj);
    self->exports++;
    return 0;
fail:
    call_export_close(obj, o.token);
    Py_DECREF(o.token);
    return -1;
}

static void eb_releasebuffer(PyObject *obj, Py_buffer *view) {
    ExportBase *self = (ExportBase *)obj;
    BufInfo *info = view->internal;
    view->internal = NULL;
    if (info == NULL)
        return;
    self->exports--;
    call_export_close(obj, info->token);
    Py_DECREF(info->token);
    PyMem_Free(info);
}

static PyBufferProcs eb_as_buffer = {eb_getbuffer, eb_releasebuffer};

/* --- ExportBase: DLPack production ------------------------------------------------------- */

/* One produced capsule. The managed tensor is the first member, so its address is the
   Export's; manager_ctx points back to the Export as well. */
typedef struct {
    union {
        DLManagedTensorVersioned v;
        DLManagedTensor l;
    } m;
    int64_t shape[MAX_RANK];
    int64_t strides[MAX_RANK];
    PyObject *owner;  /* the ExportBase, a strong reference */
    PyObject *token;  /* the open export (NULL for a copy) */
    void *copy;       /* the bytes of a copy=True export (malloc), else NULL */
    int counted;      /* counted in owner->exports */
} Export;

static void export_free(Export *ex) {
    if (!Py_IsInitialized()) {
        /* the interpreter is gone: nothing Python can run; the memory is all that is left */
        free(ex->copy);
        free(ex);
        return;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    if (ex->counted)
        ((ExportBase *)ex->owner)->exports--;
    if (ex->token != NULL) {
        call_export_close(ex->owner, ex->token);
        Py_DECREF(ex->token);
    }
    Py_DECREF(ex->owner);
    free(ex->copy);
    free(ex);
    PyGILState_Release(g);
}

static void deleter_versioned(DLManagedTensorVersioned *m) { export_free((Export *)m->manager_ctx); }

static void deleter_legacy(DLManagedTensor *m) { export_free((Export *)m->manager_ctx); }

/* The destructor of a produced capsule: a capsule that no consumer took still owns its tensor. */
static void capsule_destructor(PyObject *cap) {
    if (PyCapsule_IsValid(cap, NAME_V)) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, NAME_V);
        if (m != NULL && m->deleter != NULL)
            m->deleter(m);
    } else if (PyCapsule_IsValid(cap, NAME_L)) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, NAME_L);
        if (m != NULL && m->deleter != NULL)
            m->deleter(m);
    }
}

static int dtype_of(const OpenExport *o, DLDataType *t) {
    char c = o->format[0];
    if ((c == '@' || c == '=' || c == '<') && o->format[1] != '\0')
        c = o->format[1];
    t->bits = (uint8_t)(o->itemsize * 8);
    t->lanes = 1;
    if (c == '?' && o->itemsize == 1) {
        t->code = kDLBool;
        return 0;
    }
    if (c != '\0' && strchr("bhilqn", c) != NULL) {
        t->code = kDLInt;
        return 0;
    }
    if (c != '\0' && strchr("BHILQN", c) != NULL) {
        t->code = kDLUInt;
        return 0;
    }
    return -1;
}

static PyObject *eb_dlpack(PyObject *obj, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", kwlist, &stream, &max_version, &dl_device,
                                     &copy_o))
        return NULL;
    if (stream != Py_None) {
        PyErr_SetString(PyExc_BufferError, "a cint.Buffer is CPU memory: its DLPack stream is None");
        return NULL;
    }
    if (dl_device != Py_None) {
        long dt = -1, di = -1;
        if (PyTuple_Check(dl_device) && PyTuple_GET_SIZE(dl_device) == 2) {
            dt = PyLong_AsLong(PyTuple_GET_ITEM(dl_device, 0));
            di = PyLong_AsLong(PyTuple_GET_ITEM(dl_device, 1));
            if (PyErr_Occurred())
                return NULL;
        }
        if (dt != kDLCPU || di != 0) {
            PyErr_Format(PyExc_BufferError,
                         "a cint.Buffer exports to (kDLCPU, 0) only, not %R: no implicit transfer (8.3 P-11)",
                         dl_device);
            return NULL;
        }
    }
    int copy = 0;
    if (copy_o != Py_None) {
        copy = PyObject_IsTrue(copy_o);
        if (copy < 0)
            return NULL;
    }
    int versioned = 0;
    if (max_version != Py_None) {
        if (!PyTuple_Check(max_version) || PyTuple_GET_SIZE(max_version) != 2) {
            PyErr_SetString(PyExc_TypeError, "max_version is a tuple (major, minor) or None");
            return NULL;
        }
        long major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
        if (major == -1 && PyErr_Occurred())
            return NULL;
        versioned = major >= 1;
    }
    if (!versioned && !copy) {
        PyErr_SetString(PyExc_BufferError,
                        "a cint.Buffer exports read-only memory, and only a versioned DLPack capsule can say so "
                        "(SPEC-03P.1 6.3, P-18): call __dlpack__(max_version=(1, 0)), or pass copy=True for a "
                        "writable copy");
        return NULL;
    }
    OpenExport o;
    if (open_export(obj, &o) < 0)
        return NULL;
    DLDataType dtype;
    if (dtype_of(&o, &dtype) < 0) {
        PyErr_Format(PyExc_BufferError, "a cint.Buffer of format '%s' has no DLPack data type", o.format);
        call_export_close(obj, o.token);
        Py_DECREF(o.token);
        return NULL;
    }
    Export *ex = calloc(1, sizeof *ex);
    if (ex == NULL) {
        call_export_close(obj, o.token);
        Py_DECREF(o.token);
        return PyErr_NoMemory();
    }
    ex->owner = Py_NewRef(obj);
    void *data = o.addr;
    if (copy) {
        size_t nbytes = (size_t)(o.count * o.itemsize);
        ex->copy = malloc(nbytes ? nbytes : 1);
        if (ex->copy != NULL && nbytes)
            memcpy(ex->copy, o.addr, nbytes);
        /* a copy is no export: the source is closed at once */
        call_export_close(obj, o.token);
        Py_DECREF(o.token);
        if (ex->copy == NULL) {
            Py_DECREF(ex->owner);
            free(ex);
            return PyErr_NoMemory();
        }
        data = ex->copy;
    } else {
        ex->token = o.token; /* the reference passes to ex */
        ex->counted = 1;
        ((ExportBase *)obj)->exports++;
    }
    int64_t acc = 1;
    for (int k = o.rank - 1; k >= 0; k--) {
        ex->shape[k] = o.shape[k];
        ex->strides[k] = acc;
        acc *= o.shape[k] ? o.shape[k] : 1;
    }
    DLTensor *t = versioned ? &ex->m.v.dl_tensor : &ex->m.l.dl_tensor;
    t->data = o.count ? data : NULL;
    t->device.device_type = kDLCPU;
    t->device.device_id = 0;
    t->ndim = o.rank;
    t->dtype = dtype;
    t->shape = ex->shape;
    t->strides = ex->strides;
    t->byte_offset = 0;
    PyObject *cap;
    if (versioned) {
        ex->m.v.version.major = 1;
        ex->m.v.version.minor = 0;
        ex->m.v.manager_ctx = ex;
        ex->m.v.deleter = deleter_versioned;
        ex->m.v.flags = copy ? DLPACK_FLAG_BITMASK_IS_COPIED : DLPACK_FLAG_BITMASK_READ_ONLY;
        cap = PyCapsule_New(&ex->m.v, NAME_V, capsule_destructor);
    } else {
        ex->m.l.manager_ctx = ex;
        ex->m.l.deleter = deleter_legacy;
        cap = PyCapsule_New(&ex->m.l, NAME_L, capsule_destructor);
    }
    if (cap == NULL)
        export_free(ex);
    return cap;
}

static PyObject *eb_dlpack_device(PyObject *obj, PyObject *unused) {
    (void)obj;
    (void)unused;
    return Py_BuildValue("(ii)", kDLCPU, 0);
}

static PyObject *eb_get_exports(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSsize_t(((ExportBase *)obj)->exports);
}

static PyMethodDef eb_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))eb_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "A DLPack capsule of the Buffer's storage (8.3): a versioned one (\"dltensor_versioned\", version 1.0, "
     "marked DLPACK_FLAG_BITMASK_READ_ONLY) when max_version >= (1, 0), counted as an export until the "
     "consumer calls its deleter. The legacy \"dltensor\" form cannot mark read-only memory and is given "
     "only for copy=True, a writable copy marked DLPACK_FLAG_BITMASK_IS_COPIED in the versioned form."},
    {"__dlpack_device__", eb_dlpack_device, METH_NOARGS, "(kDLCPU, 0): a Buffer is host memory."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef eb_getset[] = {
    {"_exports", eb_get_exports, NULL, "the number of live exports (buffer protocol and DLPack)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ExportBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cint._exports.ExportBase",
    .tp_basicsize = sizeof(ExportBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C base of cint.Buffer: counted read-only exports through the buffer protocol and DLPack.",
    .tp_as_buffer = &eb_as_buffer,
    .tp_methods = eb_methods,
    .tp_getset = eb_getset,
    .tp_new = PyType_GenericNew,
};

/* --- Tensor: a consumed DLPack capsule ----------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    void *managed; /* DLManagedTensorVersioned* or DLManagedTensor*, NULL once closed */
    int versioned;
} Tensor;

static void tensor_close_impl(Tensor *t) {
    void *m = t->managed;
    t->managed = NULL;
    if (m == NULL)
        return;
    if (t->versioned) {
        DLManagedTensorVersioned *v = m;
        if (v->deleter != NULL)
            v->deleter(v);
    } else {
        DLManagedTensor *l = m;
        if (l->deleter != NULL)
            l->deleter(l);
    }
}

static PyObject *tensor_close(PyObject *obj, PyObject *unused) {
    (void)unused;
    tensor_close_impl((Tensor *)obj);
    Py_RETURN_NONE;
}

static PyObject *tensor_get_closed(PyObject *obj, void *closure) {
    (void)closure;
    return PyBool_FromLong(((Tensor *)obj)->managed == NULL);
}

static void tensor_dealloc(PyObject *obj) {
    tensor_close_impl((Tensor *)obj);
    Py_TYPE(obj)->tp_free(obj);
}

static PyMethodDef tensor_methods[] = {
    {"close", tensor_close, METH_NOARGS, "Calls the producer's deleter (once; later calls do nothing)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tensor_getset[] = {
    {"closed", tensor_get_closed, NULL, "whether the deleter has been called", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Tensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cint._exports.Tensor",
    .tp_basicsize = sizeof(Tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A DLPack tensor the package consumed; close() calls its deleter exactly once.",
    .tp_dealloc = tensor_dealloc,
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};

static PyObject *int64_tuple(const int64_t *p, int n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLongLong(p[k]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

/* consume(capsule) -> (Tensor, description). ValueError for what is not a DLPack capsule the
   package can take ownership of; the capsule is then left to its producer. Once renamed, every
   failure calls the deleter before raising. */
static PyObject *consume(PyObject *module, PyObject *cap) {
    (void)module;
    if (!PyCapsule_CheckExact(cap)) {
        PyErr_Format(PyExc_ValueError, "__dlpack__ returned a %.100s, not a PyCapsule", Py_TYPE(cap)->tp_name);
        return NULL;
    }
    const char *name = PyCapsule_GetName(cap);
    int versioned;
    if (name != NULL && strcmp(name, NAME_V) == 0)
        versioned = 1;
    else if (name != NULL && strcmp(name, NAME_L) == 0)
        versioned = 0;
    else {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "__dlpack__ returned a capsule named %s, not \"%s\" (or legacy \"%s\")%s",
                     name ? name : "NULL", NAME_V, NAME_L,
                     name && strncmp(name, "used_", 5) == 0 ? ": it was already consumed" : "");
        return NULL;
    }
    void *m = PyCapsule_GetPointer(cap, versioned ? NAME_V : NAME_L);
    if (m == NULL)
        return NULL;
    if (PyCapsule_SetName(cap, versioned ? NAME_V_USED : NAME_L_USED) < 0)
        return NULL;
    Tensor *t = PyObject_New(Tensor, &Tensor_Type);
    if (t == NULL) {
        /* the capsule is ours now: its deleter is called before the error goes up */
        SavedExc saved;
        exc_save(&saved);
        Tensor tmp = {.managed = m, .versioned = versioned};
        tensor_close_impl(&tmp);
        exc_restore(&saved);
        return NULL;
    }
    t->managed = m;
    t->versioned = versioned;
    const DLTensor *dl;
    PyObject *version, *flags;
    if (versioned) {
        const DLManagedTensorVersioned *v = m;
        if (v->version.major != 1) {
            PyErr_Format(PyExc_ValueError, "a DLPack tensor of version %u.%u; this package reads major version 1",
                         (unsigned)v->version.major, (unsigned)v->version.minor);
            goto fail;
        }
        dl = &v->dl_tensor;
        version = Py_BuildValue("(II)", (unsigned)v->version.major, (unsigned)v->version.minor);
        flags = PyLong_FromUnsignedLongLong(v->flags);
    } else {
        dl = &((const DLManagedTensor *)m)->dl_tensor;
        version = Py_NewRef(Py_None);
        flags = Py_NewRef(Py_None);
    }
    if (version == NULL || flags == NULL) {
        Py_XDECREF(version);
        Py_XDECREF(flags);
        goto fail;
    }
    if (dl->ndim < 0 || dl->ndim > MAX_CONSUMED_NDIM || (dl->ndim > 0 && dl->shape == NULL)) {
        PyErr_Format(PyExc_ValueError, "a DLPack tensor with ndim %d%s", (int)dl->ndim,
                     dl->ndim > 0 && dl->ndim <= MAX_CONSUMED_NDIM ? " and a NULL shape" : ", which is absurd");
        Py_DECREF(version);
        Py_DECREF(flags);
        goto fail;
    }
    PyObject *shape = int64_tuple(dl->shape, dl->ndim);
    PyObject *strides = dl->strides != NULL || dl->ndim == 0 ? int64_tuple(dl->strides, dl->ndim)
                                                             : Py_NewRef(Py_None);
    PyObject *desc = NULL;
    if (shape != NULL && strides != NULL)
        desc = Py_BuildValue("{s:O,s:O,s:O,s:N,s:K,s:(ii),s:(iii),s:O,s:O}", "versioned",
                             versioned ? Py_True : Py_False, "version", version, "flags", flags, "data",
                             PyLong_FromVoidPtr(dl->data), "byte_offset", (unsigned long long)dl->byte_offset,
                             "device", (int)dl->device.device_type, (int)dl->device.device_id, "dtype",
                             (int)dl->dtype.code, (int)dl->dtype.bits, (int)dl->dtype.lanes, "shape", shape,
                             "strides", strides);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_DECREF(version);
    Py_DECREF(flags);
    if (desc == NULL)
        goto fail;
    PyObject *r = PyTuple_Pack(2, (PyObject *)t, desc);
    Py_DECREF(desc);
    Py_DECREF(t);
    return r; /* on failure of the pack, t's dealloc has called the deleter */
fail: {
    SavedExc saved;
    exc_save(&saved);
    Py_DECREF(t); /* calls the deleter */
    exc_restore(&saved);
    return NULL;
}
}

static PyMethodDef module_methods[] = {
    {"consume", consume, METH_O,
     "consume(capsule) -> (Tensor, dict): takes ownership of a DLPack capsule (renaming it \"used_...\") and "
     "describes its tensor; ValueError for what cannot be taken."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "cint._exports",
    "Counted read-only exports of cint.Buffer, and DLPack capsules produced and consumed (SPEC-03P.1 6.3, 8.3).",
    -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__exports(void) {
    if (PyType_Ready(&ExportBase_Type) < 0 || PyType_Ready(&Tensor_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "ExportBase", (PyObject *)&ExportBase_Type) < 0 ||
        PyModule_AddObjectRef(m, "Tensor", (PyObject *)&Tensor_Type) < 0 ||
        PyModule_AddIntConstant(m, "READ_ONLY", (long)DLPACK_FLAG_BITMASK_READ_ONLY) < 0 ||
        PyModule_AddIntConstant(m, "IS_COPIED", (long)DLPACK_FLAG_BITMASK_IS_COPIED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
