//! `jax.scipy.special`. One row a golden case of `scripts/surface/tables/scipy_special.py`.

surface! {}
