"""Worked examples in a description: found (scan), read from statements, recomputed against a reference."""
