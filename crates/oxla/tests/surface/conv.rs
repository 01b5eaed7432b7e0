//! `jax.lax` convolutions and windows, `jnp.convolve`/`correlate`. One row a golden case of `scripts/surface/tables/conv.py`.

surface! {}
