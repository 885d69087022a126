"""make bench-compare: the benchmarks of two builds side by side (scripts/bench_compare.py)."""
