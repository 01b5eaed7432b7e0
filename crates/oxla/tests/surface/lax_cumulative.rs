//! `jax.lax`: cumulative reductions, `associative_scan`, `top_k`, `sort_key_val`. One row a golden case of `scripts/surface/tables/lax_cumulative.py`.

surface! {}
