//! `jax.numpy.linalg` and `jax.lax.linalg`: decompositions, solves and norms. One row a golden case of `scripts/surface/tables/linalg.py`.

surface! {}
