//! `jax.numpy`: building, reshaping, joining, splitting and indexing arrays. One row a golden case of `scripts/surface/tables/numpy_shape.py`.

surface! {}
