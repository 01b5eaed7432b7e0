"""`jax.lax`: cumulative reductions, `associative_scan`, `top_k`, `sort_key_val`. (the table `crates/oxla/tests/surface/lax_cumulative.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
