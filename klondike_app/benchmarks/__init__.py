"""Benchmark sections of ``klondike bench`` (each module exposes ``run(quick) -> str``)."""
