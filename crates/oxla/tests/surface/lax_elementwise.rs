//! `jax.lax` and `jax.numpy`: elementwise functions (trigonometric, hyperbolic, rounding, bits, special functions) and small lax helpers. One row a golden case of `scripts/surface/tables/lax_elementwise.py`.

surface! {}
