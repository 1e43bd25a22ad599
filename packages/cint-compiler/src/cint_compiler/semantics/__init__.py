"""Semantics shared by every phase: types, values, the integer machine, faults, formats."""
