"""The executors other than the reference interpreter: cpu-c17 runs built C."""
