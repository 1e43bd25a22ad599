/* cint._fastcall: placeholder module (filled in by issue 4's native work). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "cint._fastcall", NULL, -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastcall(void) { return PyModule_Create(&module_def); }
