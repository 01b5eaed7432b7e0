# Issue 20 workload: jit(grad(loss)) of a deep tanh MLP (200 layers of width 64, batch 32):
# the first call (trace, compile, run) and the steady state.
# Usage: python deep.py LAYERS WIDTH BATCH
import sys, time, resource
import jax, jax.numpy as jnp
L, W, B = (int(a) for a in sys.argv[1:4])
keys = jax.random.split(jax.random.PRNGKey(0), L + 1)
params = [(jax.random.normal(keys[i], (W, W)) * (1.0 / W ** 0.5), jnp.zeros(W)) for i in range(L)]
x = jax.random.normal(keys[L], (B, W))
def loss(p, x):
    h = x
    for w, b in p:
        h = jnp.tanh(h @ w + b)
    return jnp.mean(h * h)
g = jax.jit(jax.grad(loss))
t0 = time.time(); out = g(params, x); jax.block_until_ready(out); t1 = time.time()
n = 200
for _ in range(n): out = g(params, x)
jax.block_until_ready(out); t2 = time.time()
print("deep first_s", round(t1 - t0, 4), "steady_ms", round((t2 - t1) / n * 1000, 4), "checksum", float(jnp.sum(out[0][0])))
print("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
