"""`jax.numpy`: building, reshaping, joining, splitting and indexing arrays. (the table `crates/oxla/tests/surface/numpy_shape.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
