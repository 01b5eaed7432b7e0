# Sampled rows of seed 000's prodl1 affinities, computed by JAX, for oxla's checks:
# aff(a, b) = -sum(abs(a @ b)) over N=2000 images of 32 x 32 drawn as
# shared/jax-reference/affinity.py draws them (jax.random.normal(PRNGKey(0), (N, H, H))).
# Writes rows.npy (f32[len(ROWS), N]); rerun with: python generate.py (jax 0.10.2).
import os
import numpy as np
import jax, jax.numpy as jnp

N, H = 2000, 32
ROWS = [0, 1, 1000, 1999]
imgs = jax.random.normal(jax.random.PRNGKey(0), (N, H, H), dtype=jnp.float32)

def prod_aff(a, b):
    return -jnp.sum(jnp.abs(a @ b))

row = jax.jit(lambda x: jax.vmap(lambda y: prod_aff(x, y))(imgs))
rows = np.stack([np.asarray(row(imgs[i])) for i in ROWS]).astype(np.float32)
np.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rows.npy"), rows)
print("rows", ROWS, "jax", jax.__version__, "checksum", float(rows.sum()))
