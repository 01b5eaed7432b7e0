//! `jax.random`: samplers on the threefry stream, bit for bit. One row a golden case of `scripts/surface/tables/random.py`.

surface! {}
