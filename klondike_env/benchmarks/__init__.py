"""Benchmark sections for ``scripts/benchmark.py`` (each module exposes ``run(quick) -> str``)."""
