"""The cpu-c17 back end: C17 translation units, built with cint_runtime."""
