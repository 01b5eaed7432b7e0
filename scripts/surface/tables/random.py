"""`jax.random`: samplers on the threefry stream, bit for bit. (the table `crates/oxla/tests/surface/random.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
