//! `jax.numpy`: statistics, sorting, searching, cumulative and NaN-aware reductions. One row a golden case of `scripts/surface/tables/numpy_stats.py`.

surface! {}
