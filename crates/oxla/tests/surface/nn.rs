//! `jax.nn`: activations, normalisations, attention. One row a golden case of `scripts/surface/tables/nn.py`.

surface! {}
