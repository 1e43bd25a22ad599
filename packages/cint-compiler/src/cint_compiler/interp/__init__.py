"""The reference interpreter (cpu-sir-interp) and the canonical state both executors share."""
