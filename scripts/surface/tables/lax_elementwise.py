"""`jax.lax` and `jax.numpy`: elementwise functions (trigonometric, hyperbolic, rounding, bits, special functions) and small lax helpers. (the table `crates/oxla/tests/surface/lax_elementwise.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
