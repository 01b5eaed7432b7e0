"""`jax.nn`: activations, normalisations, attention. (the table `crates/oxla/tests/surface/nn.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
