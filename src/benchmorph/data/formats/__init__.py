"""Readers and writers of every benchmark file format; each module registers its benchmarks and formats."""
